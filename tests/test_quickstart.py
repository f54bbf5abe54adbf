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
pytestmark = pytest.mark.real_model


def _run(*args: str) -> str:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart.py"), *args],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@pytest.mark.timeout(900)
def test_quickstart_answers_from_a_real_file():
    sys.path.insert(0, str(ROOT / "examples"))
    from quickstart import SERVICE, SERVICES, services_port

    expected = services_port(Path(SERVICES).read_text(), SERVICE)  # from the file, not from us
    stdout = _run()
    answer = re.search(r"^answer:\s+'([^']*)'", stdout, re.MULTILINE)
    assert answer is not None and answer.group(1) == str(expected), stdout
    assert re.search(r"^result:\s+Submitted", stdout, re.MULTILINE), stdout


@pytest.mark.timeout(900)
def test_quickstart_log_demo_finds_the_incident():
    stdout = _run("--demo", "log")
    assert re.search(r"^answer:\s+'INC-4821'", stdout, re.MULTILINE), stdout
