"""Static checks as tests, so the README's test command (and CI) runs them: ruff lint, ruff format, mypy."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(*cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def ruff() -> str:
    path = shutil.which("ruff")
    assert path, "ruff is part of the dev extra: pip install -e '.[dev]'"
    return path


def test_ruff_lint_is_clean(ruff):
    proc = _run(ruff, "check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_ruff_format_is_applied(ruff):
    proc = _run(ruff, "format", "--check", "--no-cache", ".")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_mypy_finds_no_errors_in_either_package():
    proc = _run(sys.executable, "-m", "mypy", "--no-incremental", "dspy_rlm", "dspy_outlines")
    assert proc.returncode == 0 and "Success: no issues found" in proc.stdout, proc.stdout[-4000:] + proc.stderr[-2000:]
