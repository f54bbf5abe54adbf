"""Load (issue 12 item 5): many RLM runs at once in one process, each with its own sandbox, and the suite's
containment numbers beside them.

Each run gets a unique token in its context. A scripted LM shared by every run answers from the messages alone
(no state): iteration 1 reads the token from the run's own REPL and pays for an ``llm_query`` echoing it, the
middle iterations do a little work, the last SUBMITs ``token|echo:token``. Measured:

- cross-talk: runs whose answer is not their own token's, or whose trace holds another run's token;
- leaks after the runs: sandbox worker processes still alive, file descriptors of the host over its count
  before, scratch directories not removed (each REPL's own ``host_scratch``), the host's child processes;
- peak RSS of the host (sampled every 10 ms) and its RSS after the runs against before (bounded memory);
- per-iteration time (the trace's ``duration_s``, LM time excluded: the LM answers in 0 ms) p50 / p99,
  concurrent against one run alone;
- threads (a pool of N threads calling ``rlm(...)``) and asyncio (``asyncio.gather`` of ``rlm.acall``), each
  mode in a fresh interpreter killed after ``--mode-timeout``. Known bug: with asyncio, more concurrent runs
  than the loop's default executor has threads (``min(32, cpus + 4)``, 6 on 2 cores) deadlock once their code
  calls ``llm_query``: every executor thread runs a REPL block waiting for the loop, and the sub-LM call on the
  loop needs a thread of that executor. ``asyncio-executor`` measures the workaround (a default executor of
  ``2n + 8`` threads); the fix belongs in dspy_rlm/loop.py (REPL blocks on a per-run executor).

With ``--suites``: the escape suite (tests/dspy_rlm/test_escape.py: N of N contained, by name), the fault suite
(tests/dspy_rlm/test_faults.py: K of K typed endings), the fuzz suite (tests/fuzz under the ``ci`` profile:
examples per target, unhandled exceptions), each run by pytest in a subprocess; and the isolation level the
sandbox reached on this machine.

Run:
    python -m benchmarks.load --out benchmarks/results/load.json          # prints one JSON object
    python -m benchmarks.load --runs 50 --iterations 4 --suites none       # load only
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

import dspy
import psutil

from benchmarks.concurrency import AsyncSleepLM, SleepLM, action
from benchmarks.load_suites import (  # noqa: F401 - _pytest: kept importable here
    _pytest,
    escape_suite,
    fault_suite,
    fuzz_suite,
    isolation_level,
)
from dspy_rlm import RLM
from dspy_rlm.sandbox.backend import SubprocessREPL

ROOT = Path(__file__).resolve().parents[1]
TOKEN_PREFIX = "LOADTOKEN-"
BASELINE_RUNS = 10  # single runs, one after another: the per-iteration baseline
SCRATCH_PREFIX = "dspy-rlm"  # host temporary entries of the sandbox (a fallback level's scratch directories)


def respond(messages: list[dict]) -> str:
    """The shared, stateless script: everything a run sees comes from its own messages and REPL."""
    import re

    if len(messages) == 1:  # llm_query('echo <token>')
        return "echo:" + messages[0]["content"].split()[-1]
    user = messages[-1]["content"]
    i, n = (int(g) for g in re.search(r"\[\[ ## iteration ## \]\]\s*(\d+)/(\d+)", user).groups())
    if i == 1:
        return action("mine = context.split()[-1]\necho = llm_query('echo ' + mine)\nprint(len(mine))")
    if i >= n:
        return action("SUBMIT(answer=mine + '|' + echo)")
    return action(f"work_{i} = sum(range({1000 * i}))\nprint(work_{i})")


class RecordingREPL(SubprocessREPL):
    """The default sandbox, remembering its worker's host pid and its scratch directory for the leak check."""

    made: ClassVar[list[RecordingREPL]] = []
    lock = threading.Lock()

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.seen_pids: set[int] = set()
        self.scratch: str | None = None
        with RecordingREPL.lock:
            RecordingREPL.made.append(self)

    def start(self) -> None:
        super().start()
        if self._pid:
            self.seen_pids.add(self._pid)
        self.scratch = self.scratch or self.isolation_info.get("host_scratch")


class RSSSampler:
    """Peak RSS of this process, sampled every 10 ms in a thread."""

    def __init__(self):
        self.proc, self.peak, self._stop = psutil.Process(), 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self.proc.memory_info().rss)
            time.sleep(0.01)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _context(token: str) -> str:
    return "some long document line\n" * 200 + token


def _check(preds: list[Any], tokens: list[str]) -> dict[str, Any]:
    """Cross-talk: a run whose answer is not its own, or whose trace mentions another run's token."""
    crossed = []
    for token, pred in zip(tokens, preds):
        trace_text = json.dumps(pred.trace.to_dict(), default=str)
        foreign = {t for t in set(_tokens_in(trace_text)) if t != token}
        if pred.answer != f"{token}|echo:{token}" or foreign or token not in trace_text:
            crossed.append(
                {
                    "token": token,
                    "answer": str(pred.answer)[:80],
                    "foreign": sorted(foreign)[:3],
                    "kind": pred.result.kind,
                }
            )
    return {
        "cross_talk": len(crossed),
        "cross_talk_examples": crossed[:3],
        "kinds": {k: sum(p.result.kind == k for p in preds) for k in ("submitted", "extracted", "failed")},
    }


def _tokens_in(text: str) -> list[str]:
    import re

    return re.findall(TOKEN_PREFIX + r"[0-9a-f]{12}", text)


def _iteration_times(preds: list[Any]) -> list[float]:
    return [max(0.0, it.duration_s - (it.lm_duration_s or 0.0)) for p in preds for it in p.trace.iterations]


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def _state() -> dict[str, Any]:
    gc.collect()
    me = psutil.Process()
    tmp = [e for e in os.listdir(tempfile.gettempdir()) if e.startswith(SCRATCH_PREFIX)]
    return {
        "fds": me.num_fds(),
        "children": len(me.children(recursive=True)),
        "rss": me.memory_info().rss,
        "tmp": set(tmp),
    }


def _leaks(before: dict[str, Any], repls: list[RecordingREPL]) -> dict[str, Any]:
    deadline = time.monotonic() + 5.0  # a worker that was just killed may take a moment to be reaped
    while True:
        after = _state()
        alive = [
            pid
            for r in repls
            for pid in r.seen_pids
            if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        ]
        dirs = [r.scratch for r in repls if r.scratch and os.path.exists(r.scratch)]
        clean = not alive and not dirs and after["fds"] <= before["fds"] and after["children"] <= before["children"]
        if clean or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    return {
        "leaked_processes": len(alive),
        "leaked_fds": max(0, after["fds"] - before["fds"]),
        "leaked_dirs": len(dirs),
        "extra_children": max(0, after["children"] - before["children"]),
        "new_tmp_entries": len(after["tmp"] - before["tmp"]),  # host /tmp dspy-rlm* entries left (any process)
        "scratch_dirs_seen": sum(1 for r in repls if r.scratch),
        "workers_seen": sum(len(r.seen_pids) for r in repls),
        "rss_after_mb": round(after["rss"] / 2**20, 1),
        "rss_before_mb": round(before["rss"] / 2**20, 1),
    }


def run_threads(n: int, iterations: int) -> tuple[list[Any], list[str]]:
    """``n`` runs at once, each in its own thread, one shared LM."""
    lm = SleepLM(respond, delay=0.0)
    rlm = RLM("context, query -> answer", max_iters=iterations, interpreter_factory=RecordingREPL)
    tokens = [f"{TOKEN_PREFIX}{uuid.uuid4().hex[:12]}" for _ in range(n)]
    barrier = threading.Barrier(n)

    def one(token: str) -> Any:
        barrier.wait()  # all start together
        with dspy.context(lm=lm):
            return rlm(context=_context(token), query="what is my token?")

    with ThreadPoolExecutor(max_workers=n) as pool:
        preds = list(pool.map(one, tokens))
    return preds, tokens


def run_asyncio(n: int, iterations: int, executor_threads: int | None = None) -> tuple[list[Any], list[str]]:
    """``n`` runs at once as coroutines on one event loop (``rlm.acall``), one shared async LM.
    ``executor_threads``: give the loop a default executor of that many threads (``None``: asyncio's default,
    ``min(32, cpus + 4)`` threads)."""
    lm = AsyncSleepLM(respond, delay=0.0)
    rlm = RLM("context, query -> answer", max_iters=iterations, interpreter_factory=RecordingREPL)
    tokens = [f"{TOKEN_PREFIX}{uuid.uuid4().hex[:12]}" for _ in range(n)]

    async def main() -> list[Any]:
        if executor_threads:
            asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(executor_threads))
        with dspy.context(lm=lm):
            return list(
                await asyncio.gather(*(rlm.acall(context=_context(t), query="what is my token?") for t in tokens))
            )

    return asyncio.run(main()), tokens


def measure(mode: str, n: int, iterations: int) -> dict[str, Any]:
    """One single run (the baseline), then ``n`` at once: the checks, the iteration times, then (with the
    predictions dropped) what was left behind."""
    if mode == "threads":
        runner = run_threads
    elif mode == "asyncio":
        runner = run_asyncio
    else:  # "asyncio-executor": the user's workaround for the starvation below, a default executor of 2n threads

        def runner(k: int, iterations: int):
            return run_asyncio(k, iterations, executor_threads=2 * k + 8)

    base = [t for _ in range(BASELINE_RUNS) for t in _iteration_times(runner(1, iterations)[0])]  # one at a time
    RecordingREPL.made = []
    before = _state()
    t0 = time.perf_counter()
    with RSSSampler() as rss:
        preds, tokens = runner(n, iterations)
    wall = time.perf_counter() - t0
    checks, concurrent = _check(preds, tokens), _iteration_times(preds)
    del preds
    repls, RecordingREPL.made = list(RecordingREPL.made), []
    leaks = _leaks(before, repls)
    return {
        "mode": mode,
        "runs": n,
        "iterations_per_run": iterations,
        "wall_s": round(wall, 2),
        **checks,
        **leaks,
        "peak_rss_mb": round(rss.peak / 2**20, 1),
        "iteration_overhead_ms": {
            "single_p50": round(1e3 * _pct(base, 0.5), 2),
            "single_p99": round(1e3 * _pct(base, 0.99), 2),
            "concurrent_p50": round(1e3 * _pct(concurrent, 0.5), 2),
            "concurrent_p99": round(1e3 * _pct(concurrent, 0.99), 2),
            "p50_ratio": round(_pct(concurrent, 0.5) / max(_pct(base, 0.5), 1e-9), 1),
        },
    }


def measure_in_subprocess(mode: str, n: int, iterations: int, timeout: float) -> dict[str, Any]:
    """:func:`measure` in a fresh interpreter (its leak counts then see only this mode), killed after
    ``timeout`` seconds: a mode that hangs is reported as such instead of hanging the benchmark."""
    args = [sys.executable, "-m", "benchmarks.load", "--one", mode, "--runs", str(n), "--iterations", str(iterations)]
    try:
        proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {
            "mode": mode,
            "runs": n,
            "hung": True,
            "timeout_s": timeout,
            "note": "no run ended: the loop's default executor is filled by REPL blocks waiting on the loop",
        }
    if proc.returncode != 0:
        return {"mode": mode, "runs": n, "error": proc.stderr[-2000:]}
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "hung": False}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--iterations", type=int, default=4, help="iterations per run (the last one SUBMITs)")
    parser.add_argument("--modes", default="threads,asyncio,asyncio-executor")
    parser.add_argument("--mode-timeout", type=float, default=180.0, help="seconds before a mode counts as hung")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)  # internal: one mode, in this process
    parser.add_argument("--suites", default="escape,faults,fuzz", help="comma list, or 'none'")
    parser.add_argument("--out", default=None, help="also write the JSON here")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.runs, args.iterations), default=str))
        return
    report: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_avg_1m": round(os.getloadavg()[0], 2),
        },
        "isolation": isolation_level(),
    }
    report["load"] = [
        measure_in_subprocess(mode, args.runs, args.iterations, args.mode_timeout) for mode in args.modes.split(",")
    ]
    suites = {"escape": escape_suite, "faults": fault_suite, "fuzz": fuzz_suite}
    for name in [s for s in args.suites.split(",") if s in suites]:
        report[f"{name}_suite"] = suites[name]()
    report["machine"]["load_avg_1m_end"] = round(os.getloadavg()[0], 2)
    text = json.dumps(report, indent=2, default=str)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
