"""Step time of the llama.cpp engine with 1 and with several model processes on this machine (issue 20).

Each process loads the embedded SmolLM2-135M on ``OutlinesLM(engine="llamacpp")`` with the thread count
under test, waits for the others to finish loading, then runs ``--steps`` agent-like steps: a ~900-token
system prompt and a history growing by one exchange a step (so the prefix cache serves all but the new
part, as in an RLM loop), 32 greedy tokens each. Reported per process count: the median step seconds over
every step of every process, and its ratio to the single process's; a run is stopped after ``--budget-s``
seconds with the steps finished by then (``steps_done``). ``--threads auto`` is the engine's own
pick (:mod:`dspy_outlines.engines.cpu`); a number is passed as ``engine_options={"n_threads": N}``. The
machine's 1-minute load average is recorded before and after: the numbers move with it.

    python -m benchmarks.threads --processes 1,3 --threads auto,2 --out benchmarks/results/threads.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYSTEM = "You are an agent that writes one line of Python per step to search a log. " + " ".join(
    f"Rule {i}: print only what you need, search before you answer, and submit the exact value." for i in range(40)
)


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def worker(threads: str, steps: int, go_file: Path, out_file: Path) -> None:
    """One process: load, signal ready (``out_file`` created), wait for the start signal, run ``steps`` steps,
    appending each step's seconds to ``out_file`` as it ends."""
    from dspy_outlines.lm import OutlinesLM

    options = {} if threads == "auto" else {"n_threads": int(threads)}
    lm = OutlinesLM(None, engine="llamacpp", max_tokens=32, engine_options=options, persist_prefix=False)
    out_file.touch()
    while not go_file.exists():
        time.sleep(0.05)
    history: list[dict[str, str]] = [{"role": "system", "content": SYSTEM}]
    for step in range(steps):
        history.append({"role": "user", "content": f"Step {step}: what should we search for next in the log?"})
        started = time.perf_counter()
        response = lm.forward(messages=history)
        with out_file.open("a") as f:
            f.write(f"{time.perf_counter() - started}\n")
        history.append({"role": "assistant", "content": response.choices[0].message.content})


def run(processes: int, threads: str, steps: int, budget_s: float) -> dict:
    """``processes`` workers started together; stopped after ``budget_s`` seconds with the steps they finished."""
    with tempfile.TemporaryDirectory() as tmp:
        go = Path(tmp) / "go"
        outs = [Path(tmp) / f"steps{i}" for i in range(processes)]
        children = [
            subprocess.Popen(
                [sys.executable, "-m", "benchmarks.threads", "--worker", threads, str(steps), str(go), str(out)]
            )
            for out in outs
        ]
        while not all(out.exists() for out in outs):
            if any(c.poll() not in (None, 0) for c in children):
                raise RuntimeError("a worker failed before it was ready")
            time.sleep(0.1)
        load_start, started = _load(), time.monotonic()
        go.touch()
        for child in children:
            try:
                child.wait(timeout=max(0.0, budget_s - (time.monotonic() - started)))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        wall = time.monotonic() - started
        per_process = [[float(line) for line in out.read_text().split()] for out in outs]
    from dspy_outlines.engines.cpu import auto_threads

    everything = [s for seconds in per_process for s in seconds]
    return {
        "processes": processes,
        "threads": threads if threads != "auto" else f"auto ({auto_threads()})",
        "step_s_median": round(statistics.median(everything), 3) if everything else None,
        "steps_done": f"{len(everything)} of {processes * steps}",
        "wall_s": round(wall, 1),
        "step_s_per_process": [[round(s, 3) for s in seconds] for seconds in per_process],
        "load_avg_1m": {"start": load_start, "end": _load()},
    }


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        worker(argv[1], int(argv[2]), Path(argv[3]), Path(argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", default="1,3", help="comma-separated process counts")
    parser.add_argument("--threads", default="auto", help="comma-separated: auto or a thread count")
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--budget-s", type=float, default=240, help="stop a run after this many seconds")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    from dspy_outlines.engines.cpu import cgroup_cpu_quota, usable_cpus

    result: dict = {
        "command": " ".join(["python -m benchmarks.threads", *argv]),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cpus": {"os_cpu_count": os.cpu_count(), "usable": usable_cpus(), "cgroup_quota": cgroup_cpu_quota()},
        "runs": [],
    }
    for threads in args.threads.split(","):
        runs = [run(int(n), threads.strip(), args.steps, args.budget_s) for n in args.processes.split(",")]
        single = runs[0]["step_s_median"]
        for r in runs:
            r["vs_first"] = round(r["step_s_median"] / single, 2) if single and r["step_s_median"] else None
        result["runs"].extend(runs)
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
