"""scripts/setup.sh on bad input: each failing step is named with what to do, and setup exits non-zero.

Each case runs the real script on a PATH of stubs (no C compiler, an apt-get without network, a Darwin ``uname``,
a ``python`` whose pip fails), so nothing is installed and no case waits on the network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SETUP = ROOT / "scripts" / "setup.sh"
TOOLS = ("bash", "dirname", "uname", "tr", "id", "sed", "cat")  # what setup runs before its first pip step

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="setup.sh is a bash script")


def _stub(directory: Path, name: str, body: str) -> None:
    path = directory / name
    if path.is_symlink():  # a stub replaces a tool's link; writing through the link would overwrite the tool
        path.unlink()
    path.write_text(f"#!{shutil.which('bash')}\n{body}\n")
    path.chmod(0o755)


def _setup(tmp_path: Path, extras: str, stubs: dict[str, str], **env: str) -> subprocess.CompletedProcess:
    """Run setup.sh with only ``TOOLS``, a ``python`` whose pip fails (logged to pip.log), and ``stubs``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    pip_log = tmp_path / "pip.log"
    _stub(
        bin_dir,
        "python",
        f'if [ "$1" = -m ] && [ "$2" = pip ]; then echo "$*" >> {pip_log}; '
        'echo "ERROR: No matching distribution found for mlx==0.0.0" >&2; exit 1; fi\n'
        f'exec {sys.executable} "$@"',
    )
    for name, body in stubs.items():
        _stub(bin_dir, name, body)
    environment = {"PATH": str(bin_dir), "HOME": str(tmp_path), **env}
    return subprocess.run(
        ["bash", str(SETUP), extras], env=environment, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )


def _pip_calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "pip.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the apt steps run on Linux only")
def test_a_missing_compiler_without_apt_stops_before_pip(tmp_path):
    proc = _setup(tmp_path, "llamacpp", {})
    assert proc.returncode == 1, proc.stderr
    assert "a C++ compiler is missing and there is no apt-get" in proc.stderr
    assert "FAILED at step: system packages: g++ and make" in proc.stderr
    assert "what to do: install them" in proc.stderr
    assert _pip_calls(tmp_path) == [], "no pip step may run after a failed system step"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the apt steps run on Linux only")
def test_apt_without_network_is_named(tmp_path):
    stubs = {"apt-get": 'echo "E: Could not resolve deb.debian.org" >&2; exit 100', "id": "echo 0"}
    proc = _setup(tmp_path, "llamacpp", stubs)
    assert proc.returncode == 1, proc.stderr
    assert "apt-get update failed (no network to the package mirrors" in proc.stderr
    assert "FAILED at step: system packages" in proc.stderr
    assert _pip_calls(tmp_path) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the apt steps run on Linux only")
def test_allow_missing_goes_on_past_the_system_step(tmp_path):
    proc = _setup(tmp_path, "llamacpp", {}, SETUP_ALLOW_MISSING="1", SETUP_UNLOCKED="1")
    assert "FAILED at step: the package and its extras" in proc.stderr, proc.stderr
    assert len(_pip_calls(tmp_path)) == 1


def test_a_lock_this_machine_cannot_install_fails_with_what_to_do(tmp_path):
    lock = tmp_path / "lock.txt"
    lock.write_text("mlx==0.0.0\n")
    proc = _setup(tmp_path, "plot", {}, SETUP_LOCK=str(lock))
    assert proc.returncode == 1, proc.stderr
    assert f"installing the versions locked in {lock}" in proc.stderr
    assert "FAILED at step: the package and its extras (pip install -c " in proc.stderr
    assert "bash scripts/lock.sh" in proc.stderr and "SETUP_UNLOCKED=1 bash scripts/setup.sh plot" in proc.stderr
    (call,) = _pip_calls(tmp_path)
    assert f"-c {lock}" in call


def test_a_missing_lock_file_is_named(tmp_path):
    proc = _setup(tmp_path, "plot", {}, SETUP_LOCK=str(tmp_path / "nope.txt"))
    assert proc.returncode == 1
    assert "FAILED at step: find the lock SETUP_LOCK=" in proc.stderr
    assert _pip_calls(tmp_path) == []


def test_a_platform_without_a_lock_says_it_goes_unlocked(tmp_path):
    """macOS (no Linux lock applies there): setup says it installs unlocked, and pip runs without -c."""
    uname = 'case "$1" in -s) echo Darwin ;; -m) echo arm64 ;; *) echo Darwin ;; esac'
    proc = _setup(tmp_path, "plot", {"uname": uname})
    assert "no lock for this platform (requirements/lock-darwin-arm64-py" in proc.stderr, proc.stderr
    assert "installing unlocked" in proc.stderr
    (call,) = _pip_calls(tmp_path)
    assert " -c " not in f" {call} "
    assert proc.returncode == 1 and "FAILED at step: the package and its extras" in proc.stderr


def test_this_platform_installs_from_its_lock(tmp_path):
    lock_path = subprocess.run(
        ["bash", str(SETUP), "--lock-path"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    if not (ROOT / lock_path).exists():
        pytest.skip(f"no lock for this platform ({lock_path}); CI's platform has one (tests/test_lock.py)")
    proc = _setup(tmp_path, "plot", {})
    assert f"installing the versions locked in {lock_path}" in proc.stderr, proc.stderr
    (call,) = _pip_calls(tmp_path)
    assert f"-c {lock_path}" in call
    assert os.path.isabs(lock_path) is False
