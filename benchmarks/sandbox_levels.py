"""Each sandbox level side by side: what a run pays per iteration and per start at each fallback.

Levels, strongest first (what ``RLM`` takes when the call names no REPL, see ``dspy_rlm.sandbox.choose``):

* ``namespaces``: ``SubprocessREPL()`` where user namespaces are allowed (the full level);
* ``landlock``: ``SubprocessREPL(isolation="landlock")``: Landlock + seccomp, where namespaces are refused;
* ``deno``: dspy's Deno/Pyodide interpreter through our foreign backend, with our helpers installed;
* ``none``: ``SubprocessREPL(isolation="none")``, the unsandboxed worker, for reference.

Measured per level, with a 1 MB context bound: ``first_start_ms`` (a fresh process's first REPL to its first
block done: the zygote or Deno starts too), ``cold_start_ms`` (a new REPL to its first block done, median of
``--starts``, the zygote already running), ``iteration_ms`` (median of ``--blocks`` round trips of a block
that touches the context: ``n = len(context); print(context[:20])``). Each level runs in its own process.

    python benchmarks/sandbox_levels.py --out benchmarks/results/sandbox_levels.json

Prints ONE JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

try:
    from benchmarks.report import emit
except ImportError:  # run as a script: benchmarks/ is on sys.path
    from report import emit  # type: ignore[no-redef]

LEVELS = ("namespaces", "landlock", "deno", "none")
BLOCK = "n = len(context)\nprint(context[:20])"
CONTEXT = ("The quick brown fox jumps over the lazy dog. Invoice 1234 is overdue.\n" * 15000)[:1_000_000]


def _make(level: str):
    if level == "deno":
        from dspy_rlm.repl.deno import OfflinePythonInterpreter
        from dspy_rlm.repl.foreign import ForeignREPL

        return ForeignREPL(OfflinePythonInterpreter(), ["answer"])
    from dspy_rlm.sandbox.backend import SubprocessREPL

    return SubprocessREPL(isolation={"namespaces": "auto", "landlock": "landlock", "none": "none"}[level])


def _first_block_ms(level: str) -> tuple[float, object]:
    t0 = time.perf_counter()
    repl = _make(level)
    repl.load_inputs({"context": CONTEXT})
    result = repl.run(BLOCK)
    elapsed = (time.perf_counter() - t0) * 1000
    if not result.ok:
        raise RuntimeError(f"{level}: {result.error}")
    return elapsed, repl


def measure(level: str, starts: int, blocks: int) -> dict:
    """One level, in this process (run by :func:`main` in a fresh process per level)."""
    first, repl = _first_block_ms(level)
    info = {"isolation": getattr(repl, "isolation", "deno/pyodide")}
    times = []
    for _ in range(blocks):
        t0 = time.perf_counter()
        repl.run(BLOCK)
        times.append((time.perf_counter() - t0) * 1000)
    repl.shutdown()
    cold = []
    for _ in range(starts):
        ms, again = _first_block_ms(level)
        again.shutdown()
        cold.append(ms)
    return {
        **info,
        "first_start_ms": round(first, 1),
        "cold_start_ms": round(statistics.median(cold), 1),
        "iteration_ms": round(statistics.median(times), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--blocks", type=int, default=100)
    parser.add_argument("--out")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure this level here
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one, args.starts, args.blocks)))
        return 0
    out: dict = {
        "benchmark": "sandbox_levels",
        "command": "python benchmarks/sandbox_levels.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Linux {platform.release()}",
        "load_before": os.getloadavg()[0],
        "levels": {},
    }
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for level in args.levels.split(","):
        cmd = [sys.executable, os.path.abspath(__file__), "--one", level, "--starts", str(args.starts)]
        proc = subprocess.run([*cmd, "--blocks", str(args.blocks)], capture_output=True, text=True, cwd=root)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        out["levels"][level] = json.loads(lines[-1]) if lines else {"error": proc.stderr.strip()[-400:]}
    out["load_after"] = os.getloadavg()[0]
    emit(out, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
