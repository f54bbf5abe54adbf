"""Suite-wide settings: offline model hubs, and under ``CI=true`` a skip is a failure.

CI installs everything the suite needs (``bash scripts/setup.sh mlx,dev``: MLX, llama-cpp-python, the
embedded model, OpenBLAS, Chromium, deno, ...). A test that skips there because a dependency is missing
would leave CI green while the real-model tests never ran, so under ``CI=true`` every skip, at collection
or at run time, is reported as a failure naming its reason, except the few that depend on the machine
rather than on the install (``CI_ALLOWED_SKIPS``).
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Local engines store prompt-prefix KV states on disk for the next process (dspy_outlines.models.prefix_store).
# In the suite that is off unless a test passes its own directory (persist_prefix=tmp_path), so a state one
# test stored never changes another's cached-token counts; and nothing is ever written under ~/.cache.
os.environ.setdefault("DSPY_OUTLINES_NO_PERSIST_PREFIX", "1")
if "DSPY_OUTLINES_PREFIX_DIR" not in os.environ:
    os.environ["DSPY_OUTLINES_PREFIX_DIR"] = tempfile.mkdtemp(prefix="dspy-outlines-prefix-")
    atexit.register(shutil.rmtree, os.environ["DSPY_OUTLINES_PREFIX_DIR"], ignore_errors=True)

# Skips that say something about the machine, not about a missing install: allowed under CI.
CI_ALLOWED_SKIPS = (
    r"no ~/\.ssh with files",  # the secret-masking test needs a real ~/.ssh to hide
    r"Metal",  # CPU-only code paths on a Mac with a GPU
    r"Linux-only",
    r"PSS is read from /proc",
)


def _under_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _fail_skip_under_ci(report) -> None:
    """Turn a skipped report into a failure under ``CI=true`` unless its reason is allowed."""
    if not (_under_ci() and report.skipped) or hasattr(report, "wasxfail"):
        return
    reason = _skip_reason(report)
    if any(re.search(pattern, reason) for pattern in CI_ALLOWED_SKIPS):
        return
    report.outcome = "failed"
    report.longrepr = (
        f"CI=true: this test would skip ({reason}). CI installs every dependency "
        f"(bash scripts/setup.sh mlx,dev): fix the install, or add a machine-dependent reason "
        f"to CI_ALLOWED_SKIPS in tests/conftest.py."
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_skip_under_ci(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_skip_under_ci(outcome.get_result())


@pytest.fixture
def sigint_handler():
    """Python's own SIGINT handler (KeyboardInterrupt) for one test: a test that sends itself SIGINT must not
    rely on the one it inherited (a background job, ``nohup``, starts with SIGINT ignored and keeps it so)."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
