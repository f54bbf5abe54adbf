"""How long one compaction step takes on the embedded model: counting the action prompt with its tokenizer,
then summarising old steps until the prompt fits 85% of its window (dspy_rlm/compaction.py).

    python benchmarks/compaction.py --out benchmarks/results/compaction.json

The history is 60 steps of a log search (code, 700-character outputs, every seventh step an error), past
the window of the embedded SmolLM2-135M (n_ctx 8192); each repeat starts from a fresh run's compactor (no
level learnt yet), so it pays the whole search from the gentlest level up.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from dspy.primitives.repl_types import REPLHistory


def history(steps: int) -> tuple[REPLHistory, list[int]]:
    h, failed = REPLHistory(max_output_chars=5000), []
    for i in range(steps):
        code = f"hits = search(context, 'node{i}')\nprint(hits[:5])"
        if i % 7 == 3:
            failed.append(i)
            out = f"NameError at line 1: name 'hit{i}' is not defined\n    1 | print(hit{i})"
        else:
            out = "\n".join(
                f"line {1000 + i * 5 + k}: host=node{i}.example.org port={2000 + k} status=ok" for k in range(10)
            )
        h = h.append(reasoning=f"Look for node{i} in the log and read its port.", code=code, output=out)
    return h, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    from dspy_outlines import OutlinesLM
    from dspy_rlm import RLM
    from dspy_rlm.compaction import for_run, prompt_text

    lm = OutlinesLM(max_tokens=96)
    config = RLM("context, query -> answer").config
    h, failed = history(args.steps)
    kwargs = {
        "variables_info": "- `context`: str, 421.7 KB, 3,000 lines\n  head: record 0: host=node0.example.org ...",
        "repl_history": h,
        "iteration": f"{args.steps + 1}/80",
        "budget": "19 steps left",
    }
    seconds, events = [], []
    for _ in range(args.repeats):
        comp = for_run(config, lm, lambda text: None)
        t0 = time.perf_counter()
        comp.fit(h, lambda shown, c=comp: c.count(prompt_text(kwargs, None, shown)), failed)
        seconds.append(time.perf_counter() - t0)
        events.append(comp.events[-1])
    out = {
        "benchmark": "compaction",
        "command": "python benchmarks/compaction.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "load": os.getloadavg()[0],
        "model": "SmolLM2-135M-Instruct (embedded GGUF, llama.cpp)",
        "n_ctx": comp.window,
        "limit_tokens": comp.limit,
        "steps": args.steps,
        "tokens_before": events[-1]["tokens_before"],
        "tokens_after": events[-1]["tokens_after"],
        "level": events[-1]["level"],
        "compaction_s_median": round(statistics.median(seconds), 4),
        "compaction_s_max": round(max(seconds), 4),
    }
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
