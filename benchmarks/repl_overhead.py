"""REPL overhead of dspy_rlm's default sandbox (issue 2's numbers). Prints ONE JSON object.

    python benchmarks/repl_overhead.py            # 1, 10, 100 MB contexts (~1 minute)
    python benchmarks/repl_overhead.py --quick    # 1 and 10 MB

Measured:
- cold_start_ms: a new SubprocessREPL (defaults: zygote start, full isolation), with a 1 MB context bound,
  to its first block done (median of 10), the zygote already running;
- cold_start_by_mode_ms: the same per start method / isolation level (``zygote``, ``zygote-no-isolation``,
  ``fork`` (from the host; unsafe with live native threads), ``spawn``), plus ``first_start_with_zygote``:
  a fresh process's first REPL, which starts the zygote too;
- isolation: the level reached on this machine (``SubprocessREPL.isolation``) and its pids limit;
- trivial_block_ms: median round trip of ``x = 1`` (500 runs);
- iteration_ms[size]: median REPL cost of one iteration's block that touches the context
  (``n = len(context); print(context[:20])``) — flat in size because the inputs are bound once, not re-sent;
- extra_memory_mb[size]: physical memory (PSS, summed over host + worker) a run adds on top of a host that
  already holds its input, after a block that reads the whole context (``context.count('a')``);
- root_prompt_chars[size]: characters of the first action prompt an RLM sends (from 1 KB to 1 GB);
- rlm_iteration_ms: a whole iteration through the RLM loop with a zero-latency scripted LM (engine + adapter).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

MB = 1024 * 1024


def _context(size_mb: float) -> str:
    unit = "The quick brown fox jumps over the lazy dog. Invoice 1234 is overdue.\n"
    n = int(size_mb * MB) // len(unit) + 1
    return (unit * n)[: int(size_mb * MB)]


def _pss_mb(pids: list[int]) -> float:
    import psutil

    total = 0
    for pid in pids:
        try:
            total += psutil.Process(pid).memory_full_info().pss
        except (psutil.NoSuchProcess, AttributeError):
            pass
    return total / MB


def cold_start_ms(repeats: int = 10, **options) -> float:
    from dspy_rlm.sandbox.backend import SubprocessREPL

    ctx = _context(1)
    SubprocessREPL(**options).shutdown()  # the zygote (if any) is up: measured on its own below
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        repl = SubprocessREPL(**options)
        repl.load_inputs({"context": ctx})
        repl.start()
        assert repl.run("x = 1").ok
        times.append((time.perf_counter() - t0) * 1000)
        repl.shutdown()
    return statistics.median(times)


def trivial_block_ms(runs: int = 500) -> float:
    from dspy_rlm.sandbox.backend import SubprocessREPL

    with SubprocessREPL() as repl:
        repl.run("x = 1")
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            repl.run("x = 1")
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def per_size(size_mb: float) -> dict[str, float]:
    from dspy_rlm.sandbox.backend import SubprocessREPL

    ctx = _context(size_mb)
    before = _pss_mb([os.getpid()])
    repl = SubprocessREPL()
    repl.load_inputs({"context": ctx, "query": "How many invoices are overdue?"})
    repl.start()
    assert repl.run("c = context.count('a')").ok  # read every page of the context in the worker
    times = []
    for _ in range(100):
        t0 = time.perf_counter()
        res = repl.run("n = len(context); print(context[:20])")
        times.append((time.perf_counter() - t0) * 1000)
    assert res.ok
    after = _pss_mb([os.getpid(), *repl.worker_pids()])
    repl.shutdown()
    return {"iteration_ms": statistics.median(times), "extra_memory_mb": after - before}


def first_start_with_zygote_ms(repeats: int = 3) -> float:
    """A fresh interpreter's first REPL: the zygote starts too (it is started once per process)."""
    import subprocess

    code = (
        "import time; from dspy_rlm.sandbox.backend import SubprocessREPL; t0 = time.perf_counter(); "
        "r = SubprocessREPL(); r.start(); r.run('x = 1'); print((time.perf_counter() - t0) * 1000); r.shutdown()"
    )
    runs = [
        float(
            subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()[-1]
        )
        for _ in range(repeats)
    ]
    return statistics.median(runs)


def isolation_level() -> dict:
    from dspy_rlm.sandbox.backend import SubprocessREPL

    with SubprocessREPL() as repl:
        return {
            "level": repl.isolation,
            "pids_limit": repl.isolation_info.get("pids_limit"),
            "network": repl.network_isolation,
            "notes": repl.isolation_info.get("notes", []),
        }


def root_prompt_chars(size_mb: float) -> int:
    import dspy
    from dspy.utils import DummyLM

    from dspy_rlm import RLM

    lm = DummyLM([{"reasoning": "r", "code": "SUBMIT(answer='x')"}])
    with dspy.context(lm=lm):
        RLM("context, query -> answer", max_iters=2)(context=_context(size_mb), query="How many are overdue?")
    return sum(len(str(m["content"])) for m in lm.history[0]["messages"])


def rlm_iteration_ms(iterations: int = 30) -> float:
    import dspy
    from dspy.utils import DummyLM

    from dspy_rlm import RLM

    script = [{"reasoning": "r", "code": "n = len(context)"}] * (iterations - 1)
    lm = DummyLM([*script, {"reasoning": "r", "code": "SUBMIT(answer=str(n))"}])
    rlm = RLM("context, query -> answer", max_iters=iterations)
    with dspy.context(lm=lm):
        t0 = time.perf_counter()
        pred = rlm(context=_context(1), query="q")
        total = time.perf_counter() - t0
    assert pred.result.kind == "submitted"
    return total / iterations * 1000


def dspy_side_by_side(sizes: list[float]) -> dict | str:
    """dspy.RLM with its own Deno/Pyodide sandbox on the same kind of work, when deno is installed (the
    ``bench`` extra): cold start and per-iteration time per size, from benchmarks/vs_dspy.py's runner (fresh
    processes). 100 MB is left out: dspy's sandbox needs ~4 GB and ~30 s per iteration at 50 MB already."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if root not in sys.path:  # run as a script (python benchmarks/repl_overhead.py)
        sys.path.insert(0, root)
    from benchmarks import vs_dspy

    why = vs_dspy.deno_status()
    if why is not None:
        return f"skipped: {why}"
    out: dict = {}
    for size in sizes:
        row = vs_dspy.run_repeated("dspy_rlm_deno", size, iterations=4, timeout=600.0, repeat=1)
        out[str(size)] = {
            k: row[k]
            for k in (
                "first_lm_call_s",
                "iteration_s",
                "peak_uss_mb_over_host",
                "peak_pss_mb_over_host",
                "correct",
                "error",
            )
            if k in row
        }
    return out


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="1 and 10 MB only (CI)")
    ap.add_argument("--out", default=None, help="also write the JSON to this file")
    args = ap.parse_args(argv)
    sizes = [1, 10] if args.quick else [1, 10, 100]
    out: dict = {
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_avg_1min_at_start": round(os.getloadavg()[0], 2),
        },
        "isolation": isolation_level(),
        "cold_start_ms": round(cold_start_ms(), 2),
        "cold_start_by_mode_ms": {
            "zygote": round(cold_start_ms(start_method="zygote"), 2),
            "zygote-no-isolation": round(cold_start_ms(start_method="zygote", isolation="none"), 2),
            "fork": round(cold_start_ms(start_method="fork"), 2),
            "fork-no-isolation": round(cold_start_ms(start_method="fork", isolation="none"), 2),
            "spawn": round(cold_start_ms(repeats=3, start_method="spawn"), 2),
            "first_start_with_zygote": round(first_start_with_zygote_ms(), 2),
        },
        "trivial_block_ms": round(trivial_block_ms(), 3),
        "iteration_ms": {},
        "extra_memory_mb": {},
        "extra_memory_ratio": {},
        "root_prompt_chars": {},
    }
    for size in sizes:
        r = per_size(size)
        out["iteration_ms"][str(size)] = round(r["iteration_ms"], 3)
        out["extra_memory_mb"][str(size)] = round(r["extra_memory_mb"], 1)
        out["extra_memory_ratio"][str(size)] = round(r["extra_memory_mb"] / size, 3)
    for size in [0.001] + sizes + ([] if args.quick else [1024]):
        out["root_prompt_chars"][str(size)] = root_prompt_chars(size)
    out["root_prompt_tokens_est_max"] = max(out["root_prompt_chars"].values()) // 4
    out["rlm_iteration_ms"] = round(rlm_iteration_ms(), 2)
    out["dspy_rlm_deno"] = dspy_side_by_side([s for s in sizes if s <= 10] if args.quick else [1, 10])
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    return out


if __name__ == "__main__":
    sys.exit(main() and 0)
