"""Under ``CI=true`` a skipped test fails (tests/conftest.py): a missing dependency cannot leave CI green."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")
SUITE = textwrap.dedent("""
    import pytest

    missing = pytest.importorskip("a_module_that_is_not_installed")  # a collection-time skip

    def test_never_runs():
        pass
""")
RUNTIME = textwrap.dedent("""
    import pytest

    def test_missing_model():
        pytest.skip("embedded model unavailable: no such file")

    @pytest.mark.skipif(True, reason="headless Chromium is not installed")
    def test_missing_browser():
        pass

    def test_machine_dependent():
        pytest.skip("no ~/.ssh with files on this machine to hide")
""")


def _run(tmp_path: Path, files: dict[str, str], ci: str | None) -> subprocess.CompletedProcess:
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rA",
            "-p",
            "no:cacheprovider",
            "-c",
            os.devnull,
            "--rootdir",
            str(tmp_path),
            str(tmp_path),
        ],
        cwd=tmp_path,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("ci", [None, "false"])
def test_skips_stay_skips_outside_ci(tmp_path, ci):
    proc = _run(tmp_path, {"test_runtime.py": RUNTIME}, ci)
    assert proc.returncode == 0, proc.stdout
    assert "3 skipped" in proc.stdout


def test_under_ci_a_missing_dependency_fails_and_machine_skips_stay(tmp_path):
    proc = _run(tmp_path, {"test_runtime.py": RUNTIME}, "true")
    assert proc.returncode == 1, proc.stdout
    # pytest reports a skip in the test body as failed, a skipif mark (setup phase) as an error
    assert "1 failed, 1 skipped, 1 error" in proc.stdout
    assert "CI=true: this test would skip (Skipped: embedded model unavailable" in proc.stdout
    assert "headless Chromium is not installed" in proc.stdout


def test_under_ci_a_collection_time_skip_fails(tmp_path):
    proc = _run(tmp_path, {"test_collect.py": SUITE}, "true")
    assert proc.returncode != 0, proc.stdout
    assert "a_module_that_is_not_installed" in proc.stdout and "CI=true" in proc.stdout


def test_ci_run_is_the_readmes_second_command_and_keeps_its_exit_status():
    """CI passes only when the README's test command does: no exit status (pytest's 5 included) is rewritten."""
    root = Path(__file__).parent.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Two commands", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    second = [line for line in block.splitlines() if line.strip() and not line.startswith("#")][1]
    script = (root / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line for line in script.splitlines() if line.strip() and not line.lstrip().startswith(("#", "set "))]
    assert commands[-1] == second, "the last command of .ci/run must be the README's second command"
    assert "exit 0" not in script and "rc" not in script.split(second, 1)[1], "nothing may follow it"
