"""The README's first command: the quickstart prints the right answer on the embedded model, for the real-file
demo (``/etc/services``: the expected port is read from the file) and the generated-log demo."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


#: The quickstart as the README's first command runs it: that install (mlx / llamacpp extras) has no torch.
WITHOUT_TORCH = (
    "import runpy, sys; sys.modules['torch'] = None; sys.argv = sys.argv[1:]; "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)


def _run(*args: str) -> str:
    """The quickstart's stdout; its stderr must be empty (no notice, no warning, no progress noise)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", WITHOUT_TORCH, str(ROOT / "examples" / "quickstart.py"), *args],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stderr == "", out.stderr
    return out.stdout


def test_the_header_counts_lines_as_wc_does():
    sys.path.insert(0, str(ROOT / "examples"))
    from quickstart import line_count

    assert [line_count(t) for t in ("", "a", "a\n", "a\nb", "a\nb\n")] == [0, 1, 1, 2, 2]
    services = Path("/etc/services")
    if services.exists():
        wc = subprocess.run(["wc", "-l", str(services)], capture_output=True, text=True, check=True)
        assert line_count(services.read_text()) == int(wc.stdout.split()[0])


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_quickstart_answers_from_a_real_file():
    sys.path.insert(0, str(ROOT / "examples"))
    from quickstart import SERVICE, SERVICES, services_port

    expected = services_port(Path(SERVICES).read_text(), SERVICE)  # from the file, not from us
    stdout = _run()
    answer = re.search(r"^answer:\s+'([^']*)'", stdout, re.MULTILINE)
    assert answer is not None and answer.group(1) == str(expected), stdout
    assert re.search(r"^result:\s+Submitted", stdout, re.MULTILINE), stdout
    lines = re.search(r"^document: .*, ([\d,]+) lines$", stdout, re.MULTILINE)
    assert lines is not None and int(lines.group(1).replace(",", "")) == len(Path(SERVICES).read_text().splitlines())


@pytest.mark.real_model
@pytest.mark.timeout(900)
def test_quickstart_log_demo_finds_the_incident():
    stdout = _run("--demo", "log")
    assert re.search(r"^answer:\s+'INC-4821'", stdout, re.MULTILINE), stdout
