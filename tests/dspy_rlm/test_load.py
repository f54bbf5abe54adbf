"""Load (issue 12 item 5): 50 RLM runs at once in one process, each with its own sandbox, scripted LMs.

The runs and the measurements are ``benchmarks/load.py``'s (the benchmark adds timings and the suites' counts;
here only the properties a user relies on are asserted): each run answers with its own token and its trace
holds no other run's token; afterwards no sandbox worker is alive, the host has no more file descriptors or
child processes than before and no scratch directory is left; memory after the runs is back near where it was.
Threads (a pool calling ``rlm(...)``) and asyncio (``asyncio.gather`` of ``rlm.acall``).

The embedded model's version of "many runs in one process" is tests/dspy_rlm/test_many_runs_real.py (20 in a
row and 8 at once, under a watchdog).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import load

ROOT = Path(__file__).resolve().parents[2]
RUNS = 50
MEMORY_SLACK_MB = 64  # what the host may keep after 50 runs (allocator arenas, caches), far below 50 sandboxes


def _assert_clean(m: dict) -> None:
    assert m["kinds"] == {"submitted": RUNS, "extracted": 0, "failed": 0}, m
    assert m["cross_talk"] == 0, m["cross_talk_examples"]
    assert m["workers_seen"] >= RUNS  # every run had its own sandbox worker ...
    assert m["leaked_processes"] == 0 and m["extra_children"] == 0  # ... and none is left
    assert m["leaked_fds"] == 0 and m["leaked_dirs"] == 0
    assert m["rss_after_mb"] - m["rss_before_mb"] < MEMORY_SLACK_MB, m


def test_50_concurrent_runs_in_threads():
    _assert_clean(load.measure("threads", RUNS, iterations=3))


def test_50_concurrent_runs_in_asyncio_with_a_large_default_executor():
    """``asyncio.gather`` of 50 ``rlm.acall``, the loop's default executor sized for them (the workaround for
    the starvation below)."""
    _assert_clean(load.measure("asyncio-executor", RUNS, iterations=3))


def test_more_acall_runs_than_executor_threads_end():
    """Regression: REPL blocks ran on the loop's default executor, and more concurrent acall runs than its
    threads deadlocked on llm_query; each run now has its own REPL thread (loop.Run._on_repl_thread)."""
    n = min(32, (os.cpu_count() or 1) + 4) + 2
    args = [sys.executable, "-m", "benchmarks.load", "--one", "asyncio", "--runs", str(n), "--iterations", "3"]
    try:
        proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=25)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{n} concurrent rlm.acall runs did not end within 25 s (deadlock)")
    assert proc.returncode == 0, proc.stderr[-2000:]
