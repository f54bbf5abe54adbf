"""What issue 21's sandbox costs: the minimal root, the unprivileged identity, no CPU between blocks.

    python -m benchmarks.sandbox_root --out benchmarks/results/sandbox_root.json

Prints ONE JSON object. Measured (the zygote already running, a 1 MB context bound, as in repl_overhead.py):

- cold_start_ms: a new ``SubprocessREPL()`` to its first block done, median and min of ``--starts``, at the
  full level (``...+newroot+nobody``) and with ``isolation="none"`` beside it (the same machine, interleaved);
- root_build_ms: the time the namespace's init spends building the minimal root and pivoting into it
  (``isolation_info["root_build_ms"]``), median;
- stop_continue: the round trip of a trivial block (``x = 1``) with the sandbox's process group stopped
  between blocks and continued before each (the default) against the same REPL with the stop switched off,
  interleaved, medians of ``--blocks``; their difference is the per-block cost of SIGSTOP / SIGCONT;
- cpu_between_blocks_ticks: CPU ticks (1/100 s) the worker used during 1 s between blocks while a thread it
  started spins (0 when stopped), and the CPU seconds that thread used during a 1 s block (it still runs).

With ``--baseline DIR`` (the package of an earlier commit: ``git archive 168fb44 dspy_rlm | tar -x -C DIR``), the
cold start of that code and of this one, alternating in fresh processes (``--rounds`` x ``--starts`` each),
so the two see the same load: ``cold_start_vs_baseline_ms``.

The machine is shared: the 1-minute load average is recorded at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

from benchmarks.repl_overhead import _context
from dspy_rlm.sandbox import launch
from dspy_rlm.sandbox.backend import SubprocessREPL

BURNER = (
    "import threading\ndef spin():\n    while True:\n        pass\nthreading.Thread(target=spin, daemon=True).start()"
)


def _start(ctx: str, **options) -> tuple[float, dict]:
    t0 = time.perf_counter()
    repl = SubprocessREPL(**options)
    repl.load_inputs({"context": ctx})
    repl.start()
    assert repl.run("x = 1").ok
    elapsed = (time.perf_counter() - t0) * 1000
    info = dict(repl.isolation_info, isolation=repl.isolation)
    repl.shutdown()
    return elapsed, info


def cold_starts(starts: int) -> dict:
    ctx = _context(1)
    SubprocessREPL().shutdown()  # the zygote is up
    full, bare, build, info = [], [], [], {}
    for _ in range(starts):
        ms, info = _start(ctx)
        full.append(ms)
        build.append(info.get("root_build_ms", float("nan")))
        bare.append(_start(ctx, isolation="none")[0])
    return {
        "level": info["isolation"],
        "identity": info.get("identity"),
        "binds": info.get("binds", []),
        "cold_start_ms": {"median": round(statistics.median(full), 2), "min": round(min(full), 2)},
        "cold_start_no_isolation_ms": {"median": round(statistics.median(bare), 2), "min": round(min(bare), 2)},
        "root_build_ms": round(statistics.median(build), 3),
    }


def stop_continue(blocks: int) -> dict:
    real_pause = launch.pause
    with_stop, without = [], []
    with SubprocessREPL() as repl:
        repl.run("x = 1")
        for i in range(2 * blocks):
            stop = i % 2 == 0
            if not stop:
                real_pause(repl._pgid, False)  # running before the block, untouched around it
                launch.pause = lambda pgid, stop: None  # type: ignore[assignment]
            try:
                t0 = time.perf_counter()
                repl.run("x = 1")
                (with_stop if stop else without).append((time.perf_counter() - t0) * 1000)
            finally:
                launch.pause = real_pause
                real_pause(repl._pgid, True)  # stopped again, as between any two blocks
    a, b = statistics.median(with_stop), statistics.median(without)
    return {
        "trivial_block_ms": round(a, 4),
        "trivial_block_without_stop_ms": round(b, 4),
        "per_block_overhead_ms": round(a - b, 4),
    }


def _ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total


def cpu_between_blocks() -> dict:
    with SubprocessREPL(timeout_s=30) as repl:
        assert repl.run(BURNER).ok
        pids = repl.worker_pids()
        before = _ticks(pids)
        time.sleep(1.0)
        between = _ticks(pids) - before
        res = repl.run("import time\nt0 = time.process_time()\ntime.sleep(1.0)\nprint(time.process_time() - t0)")
    return {"ticks_in_1s_between_blocks": between, "thread_cpu_s_in_a_1s_block": round(float(res.stdout), 3)}


_AB_CODE = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from dspy_rlm.sandbox.backend import SubprocessREPL
ctx = "x" * (1 << 20)
SubprocessREPL().shutdown()
times = []
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter()
    repl = SubprocessREPL()
    repl.load_inputs({"context": ctx})
    repl.start()
    assert repl.run("x = 1").ok
    times.append((time.perf_counter() - t0) * 1000)
    repl.shutdown()
print(json.dumps({"times": times, "level": repl.isolation}))
"""


def against_baseline(baseline: str, rounds: int, starts: int) -> dict:
    import subprocess

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    pooled: dict[str, list[float]] = {"baseline": [], "this": []}
    levels = {}
    for _ in range(rounds):
        for name, root in (("baseline", baseline), ("this", here)):
            env = dict(os.environ, PYTHONPATH=root)
            out = subprocess.run(
                [sys.executable, "-c", _AB_CODE, root, str(starts)], env=env, capture_output=True, text=True, check=True
            )
            row = json.loads(out.stdout.strip().splitlines()[-1])
            pooled[name] += row["times"]
            levels[name] = row["level"]
    return {
        name: {"level": levels[name], "median": round(statistics.median(t), 2), "min": round(min(t), 2)}
        for name, t in pooled.items()
    }


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--starts", type=int, default=20)
    ap.add_argument("--blocks", type=int, default=1000)
    ap.add_argument("--out", default=None)
    ap.add_argument("--baseline", default=None, help="a checkout of an earlier commit to compare cold starts with")
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args(argv)
    out: dict = {
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_avg_1min_at_start": round(os.getloadavg()[0], 2),
        },
        **cold_starts(args.starts),
        "stop_continue": stop_continue(args.blocks),
        "cpu_between_blocks": cpu_between_blocks(),
    }
    if args.baseline:
        out["cold_start_vs_baseline_ms"] = against_baseline(args.baseline, args.rounds, args.starts // 2)
    out["machine"]["load_avg_1min_at_end"] = round(os.getloadavg()[0], 2)
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    return out


if __name__ == "__main__":
    sys.exit(main() and 0)
