"""What a dspy sub-agent call costs above its LM call: ``dspy.Predict`` in the REPL (dspy's facade through our
sandbox bridge, budget and trace) against the same ``dspy.Predict`` called on the host, both on a zero-latency
LM (``dspy.utils.DummyLM``), so only the bridge and the bookkeeping are measured.

    python benchmarks/facade_overhead.py --out benchmarks/results/facade_overhead.json

Prints ONE JSON object: ``direct_ms`` and ``in_repl_ms`` (median per call over ``--calls`` calls, per REPL
backend) and ``overhead_ms`` (their difference).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import dspy

try:
    from benchmarks.report import emit
except ImportError:  # run as a script: benchmarks/ is on sys.path
    from report import emit  # type: ignore[no-redef]
from dspy.utils import DummyLM


def direct_ms(calls: int) -> float:
    predict = dspy.Predict("question -> answer")
    times = []
    for i in range(calls):
        t0 = time.perf_counter()
        predict(question=f"q{i}")
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def in_repl_ms(repl_name: str, calls: int) -> float:
    from dspy_rlm import RLM, InProcessREPL, SubprocessREPL

    code = (
        "import dspy, time\np = dspy.Predict('question -> answer')\n_t = []\n"
        f"for _i in range({calls}):\n    _s = time.perf_counter()\n    p(question=f'q{{_i}}')\n"
        "    _t.append((time.perf_counter() - _s) * 1000)\n_t.sort()\nSUBMIT(answer=str(_t[len(_t) // 2]))"
    )
    step = {"reasoning": "time it", "code": f"```python\n{code}\n```"}
    repl = {"inprocess": InProcessREPL, "sandbox": SubprocessREPL}[repl_name]
    rlm = RLM("question -> answer", interpreter_factory=repl, max_llm_calls=calls + 10)
    # the root's one step, then the sub-agent's answers (DummyLM follows the order of calls)
    lm = DummyLM([step] + [{"answer": "a"}] * calls)
    with dspy.context(lm=lm):
        pred = rlm(question="time")
    return float(pred.answer)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    with dspy.context(lm=DummyLM([{"answer": "a"}] * args.calls)):
        base = direct_ms(args.calls)
    out: dict = {
        "benchmark": "facade_overhead",
        "command": "python benchmarks/facade_overhead.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "load": os.getloadavg()[0],
        "direct_ms": round(base, 3),
        "in_repl_ms": {},
        "overhead_ms": {},
    }
    for name in ("inprocess", "sandbox"):
        ms = in_repl_ms(name, args.calls)
        out["in_repl_ms"][name] = round(ms, 3)
        out["overhead_ms"][name] = round(ms - base, 3)
    emit(out, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
