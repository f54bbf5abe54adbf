"""Side by side with dspy.RLM (issue 6, item 2): the same scripted task through dspy's RLM and ours.

The task is one scripted trajectory (a zero-latency scripted LM writes the code, so only the framework
and its REPL are measured): ``print(len(context))``, ``n = context.count(NEEDLE)``, more look-ups, then
``SUBMIT(answer=str(n))``. Each (runner, size) runs in a fresh Python process so that memory and cold start
are clean. Runners:

* ``dspy_rlm_deno``: ``dspy.RLM`` with dspy's ``PythonInterpreter`` (Deno + Pyodide), made to run
  offline by ``benchmarks/deno_offline`` (its default command plus an import map that points the one
  deno.land import of ``runner.js``, std's ``readLines``, at a local shim; Pyodide comes from the npm
  registry and is cached by ``deno cache`` before any timing). When ``deno`` is missing (``pip install
  -e '.[bench]'``) or the probe fails, it is skipped, with the reason in the JSON.
* ``dspy_rlm_local``: ``dspy.RLM(interpreter_factory=dspy.LocalInterpreter)`` (a local subprocess; offline).
* ``ours``: ``dspy_rlm.RLM`` with its default forked sandbox worker (``SubprocessREPL``).

Measured per size: ``first_lm_call_s`` (forward() to the first LM request: REPL start and input loading),
``iteration_s`` (median gap between consecutive LM requests: one REPL step plus the loop's own work),
``total_s``, correctness, and memory summed over the host and all its child processes during the run,
sampled every 20 ms: peak USS (memory unique to each process: pages a forked worker shares copy-on-write
with the host are not counted) and peak PSS (shared pages split between sharers), as MB above the host
before the run (which already holds the context). ``cold_start_s``: a whole one-iteration run on a 1 KB
context in a fresh process (the interpreter's start-up dominates).

Run:
    python benchmarks/vs_dspy.py --out benchmarks/results/vs_dspy.json   # 1, 10, 50 MB, medians of 3 runs
    python benchmarks/vs_dspy.py --quick    # 0.1 and 1 MB, one run each (CI)

Prints ONE JSON object (and writes it to ``--out`` when given).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

try:
    from benchmarks import deno_offline
except ImportError:  # run as a script: benchmarks/ is on sys.path, the repository root is not
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks import deno_offline

MB = 1_000_000
NEEDLE = "ZEBRA-7431"
RUNNERS = ("dspy_rlm_deno", "dspy_rlm_local", "ours")
STEPS = [
    "print(len(context))",
    f"n = context.count({NEEDLE!r})\nprint(n)",
    "lines = context.count('\\n')\nprint(lines, context[:60])",
    f"i = context.find({NEEDLE!r})\nprint(context[i:i + 40])",
    "words = len(context[:100000].split())\nprint(words)",
]


def make_context(size_mb: float, seed: int = 0) -> tuple[str, int]:
    """About ``size_mb`` MB of log lines with the needle planted a known number of times."""
    rng = random.Random(seed)
    vocab = ["alpha", "delta", "ledger", "invoice", "paid", "route", "north", "cargo", "quota", "vessel"]
    block = "\n".join(f"{i:06d} " + " ".join(rng.choices(vocab, k=9)) for i in range(2000)) + "\n"
    n_blocks = max(1, int(size_mb * MB) // len(block))
    planted = max(1, n_blocks // 2)
    parts = [block + (f"note: {NEEDLE} sighted\n" if k % 2 == 0 and k // 2 < planted else "") for k in range(n_blocks)]
    text = "".join(parts)
    text += block[: max(0, int(size_mb * MB) - len(text))]  # pad to the size asked for (no needle in the pad)
    return text, text.count(NEEDLE)


# -- the scripted LM ----------------------------------------------------------------------------------
class ScriptedPolicy:
    """Answers action prompts with STEPS[i] (then SUBMIT) and anything else with ``unknown``."""

    def __init__(self, iterations: int):
        self.iterations = iterations
        self.calls: list[float] = []

    def reply(self, system: str) -> str:
        import dspy
        from dspy.adapters.chat_adapter import FieldInfoWithName
        from dspy.signatures.field import OutputField

        self.calls.append(time.perf_counter())
        fields = _requested_fields(system)
        if "code" not in fields:
            values = dict.fromkeys(fields, "unknown") or {"answer": "unknown"}
        else:
            step = sum(1 for _ in self.calls) - 1
            code = STEPS[step % len(STEPS)] if step < self.iterations - 1 else "SUBMIT(answer=str(n))"
            if step == self.iterations - 1 and self.iterations == 1:
                code = "SUBMIT(answer=str(len(context)))"
            values = {"reasoning": "scripted", "code": f"```python\n{code}\n```"}
        fmt = {FieldInfoWithName(name=k, info=OutputField()): v for k, v in values.items() if k in fields or not fields}
        return dspy.ChatAdapter().format_field_with_value(fmt) + "\n\n[[ ## completed ## ]]"


def _requested_fields(system: str) -> list[str]:
    import re

    match = re.search(r"Your output fields are:\s*\n(.*?)(?:\n\s*\n|All interactions)", system, re.DOTALL)
    return re.findall(r"^\s*\d+\.\s*`(\w+)`", match.group(1), re.MULTILINE) if match else []


def scripted_lm(policy: ScriptedPolicy) -> Any:
    import dspy
    from dspy.lm15 import Message, Response, TextPart, Usage

    class Engine:
        def complete(self, request: Any) -> Any:
            system = request.system or ""
            if not isinstance(system, str):
                system = "".join(getattr(p, "text", "") or "" for p in system)
            text = policy.reply(system)
            return Response(
                id=None,
                model="local/scripted",
                message=Message.assistant([TextPart(text)]),
                finish_reason="stop",
                usage=Usage(input_tokens=len(system) // 4, output_tokens=20),
            )

        def stream(self, request: Any) -> Any:
            from dspy.lm15 import response_to_events

            return response_to_events(self.complete(request))

        def close(self) -> None:
            """Nothing to release."""

    return dspy.LM("local/scripted", engine=Engine(), cache=False)


# -- memory -------------------------------------------------------------------------------------------
class MemorySampler:
    """Peak USS and PSS summed over this process and its children, sampled in a thread."""

    def __init__(self, interval: float = 0.02):
        import psutil

        self.proc, self.interval = psutil.Process(), interval
        self.peak_uss = self.peak_pss = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def sample(self) -> tuple[float, float]:
        import psutil

        uss = pss = 0
        for p in [self.proc, *self.proc.children(recursive=True)]:
            try:
                info = p.memory_full_info()
                uss, pss = uss + info.uss, pss + getattr(info, "pss", info.uss)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
        return uss / 2**20, pss / 2**20

    def _run(self) -> None:
        while not self._stop.is_set():
            uss, pss = self.sample()
            self.peak_uss, self.peak_pss = max(self.peak_uss, uss), max(self.peak_pss, pss)
            self._stop.wait(self.interval)

    def __enter__(self) -> MemorySampler:
        self.base_uss, self.base_pss = self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


# -- one measurement (in a worker process) ------------------------------------------------------------
def make_module(runner: str) -> Any:
    import dspy

    if runner == "ours":
        from dspy_rlm import RLM

        return RLM("context -> answer", max_iters=10, extract_adapter=None)
    if runner == "dspy_rlm_local":
        return dspy.RLM("context -> answer", max_iters=10, interpreter_factory=dspy.LocalInterpreter)
    return dspy.RLM("context -> answer", max_iters=10, interpreter_factory=deno_offline.OfflinePythonInterpreter)


def measure(runner: str, size_mb: float, iterations: int) -> dict[str, Any]:
    """One run of the scripted task; called in a fresh process by :func:`run_worker`."""
    import dspy

    context, expected = make_context(size_mb) if size_mb >= 0.01 else ("x" * 1000, 1000)
    policy = ScriptedPolicy(iterations)
    module = make_module(runner)
    with dspy.context(lm=scripted_lm(policy)), MemorySampler() as mem:
        t0 = time.perf_counter()
        pred = module(context=context)
        total = time.perf_counter() - t0
    gaps = [b - a for a, b in zip(policy.calls, policy.calls[1:])]
    result = getattr(pred, "result", None)
    return {
        "size_mb": round(len(context) / MB, 3),
        "iterations": len(policy.calls),
        "total_s": round(total, 4),
        "first_lm_call_s": round(policy.calls[0] - t0, 4) if policy.calls else None,
        "iteration_s": round(statistics.median(gaps), 4) if gaps else None,
        "correct": str(getattr(pred, "answer", "")).strip() == str(expected),
        "result_kind": getattr(result, "kind", None),
        "peak_uss_mb_over_host": round(mem.peak_uss - mem.base_uss, 1),
        "peak_pss_mb_over_host": round(mem.peak_pss - mem.base_pss, 1),
        "host_uss_mb_before": round(mem.base_uss, 1),
    }


def run_worker(runner: str, size_mb: float, iterations: int, timeout: float) -> dict[str, Any]:
    """:func:`measure` in a fresh interpreter; errors and timeouts come back as ``{"error": ...}``."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", runner, str(size_mb), str(iterations)]
    env = deno_offline.configure_env({**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONWARNINGS": "ignore"})
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1][:300]}
    return json.loads(lines[-1])


def run_repeated(runner: str, size_mb: float, iterations: int, timeout: float, repeat: int) -> dict[str, Any]:
    """:func:`run_worker` ``repeat`` times; numbers are medians over the runs that succeeded."""
    rows = [run_worker(runner, size_mb, iterations, timeout) for _ in range(max(1, repeat))]
    ok = [r for r in rows if "error" not in r]
    if not ok:
        return rows[0]
    out = dict(ok[0])
    for key, value in ok[0].items():
        values = [r[key] for r in ok if isinstance(r.get(key), (int, float)) and not isinstance(r.get(key), bool)]
        if isinstance(value, float) and values:
            out[key] = round(statistics.median(values), 4)
    out["correct"] = all(r["correct"] for r in ok)
    out["runs"] = len(ok)
    return out


def deno_status(timeout: float = 120.0) -> str | None:
    """``None`` when dspy's Deno runner works here (offline, see ``benchmarks/deno_offline``), else why not."""
    if deno_offline.deno_executable() is None:
        return (
            "deno is not installed (pip install -e '.[bench]', i.e. the `deno` PyPI package, or put deno on "
            "PATH); dspy.RLM's default runner needs it"
        )
    if deno_offline.OfflinePythonInterpreter is None:
        return "this dspy has no PythonInterpreter"
    ok, message = deno_offline.prefetch(timeout)
    if not ok:
        return f"could not cache dspy's runner.js and npm:pyodide (registry {deno_offline.npm_registry()}): {message}"
    probe = (
        "from benchmarks.deno_offline import OfflinePythonInterpreter\n"
        "i = OfflinePythonInterpreter()\nprint(i.execute('1 + 1'))\ni.shutdown()"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = deno_offline.configure_env(
        {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, timeout=timeout, env=env, cwd=root
        )
    except subprocess.TimeoutExpired:
        return f"deno runner did not start within {timeout:.0f} s"
    if proc.returncode != 0 or "2" not in proc.stdout:
        last = (proc.stderr.strip().splitlines() or ["unknown error"])[-1][:200]
        return f"deno runner failed offline: {last}"
    return None


def deno_version() -> str | None:
    exe = deno_offline.deno_executable()
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (out.splitlines() or [None])[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="dspy.RLM vs dspy_rlm.RLM on one scripted task")
    parser.add_argument("--quick", action="store_true", help="CI sizes: 0.1 and 1 MB")
    parser.add_argument("--sizes", default=None, help="comma-separated MB (default 1,10,50)")
    parser.add_argument("--iterations", type=int, default=4, help="LM steps per run, the last one SUBMITs")
    parser.add_argument("--runners", default=",".join(RUNNERS))
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per (runner, size)")
    parser.add_argument(
        "--repeat", type=int, default=None, help="fresh-process runs per cell, medians (default 3, quick 1)"
    )
    parser.add_argument("--out", default=None, help="also write the JSON to this file")
    parser.add_argument("--worker", nargs=3, metavar=("RUNNER", "MB", "ITERS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(args.worker[0], float(args.worker[1]), int(args.worker[2]))))
        return 0
    sizes = [float(s) for s in (args.sizes or ("0.1,1" if args.quick else "1,10,50")).split(",")]
    runners = [r for r in args.runners.split(",") if r]
    repeat = args.repeat or (1 if args.quick else 3)
    import dspy

    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    out: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "dspy": dspy.__version__,
            "deno": deno_version(),
            "loadavg_at_start": [round(x, 2) for x in load] if load else None,
        },
        "task": {"iterations": args.iterations, "sizes_mb": sizes, "needle": NEEDLE, "runs_per_cell": repeat},
    }
    for runner in runners:
        if runner == "dspy_rlm_deno":
            reason = deno_status()
            if reason:
                out[runner] = {"skipped": reason}
                continue
            out[runner] = {
                "interpreter": "dspy PythonInterpreter (Deno + Pyodide 0.29.4), runner.js's deno.land "
                "std import mapped to benchmarks/deno_offline/std_io_shim.ts"
            }
        entry: dict[str, Any] = out.setdefault(runner, {})
        cold = run_repeated(runner, 0, 1, args.timeout, repeat)
        entry["cold_start_s"] = cold.get("total_s")
        if "error" in cold:
            entry["cold_start_error"] = cold["error"]
        for size in sizes:
            entry[f"{size:g}MB"] = run_repeated(runner, size, args.iterations, args.timeout, repeat)
            print(f"[vs_dspy] {runner} {size:g} MB: {json.dumps(entry[f'{size:g}MB'])}", file=sys.stderr, flush=True)
    if load:
        out["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
