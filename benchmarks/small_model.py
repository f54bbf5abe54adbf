"""Does the embedded model finish? Single-fact lookups with the small-model profile, its ablations, and the
direct baseline.

    python -m benchmarks.small_model                                  # full run (long on 2 cores)
    python -m benchmarks.small_model --sizes 8192 --per-size 6 --variants full --no-direct   # a quick look
    python -m benchmarks.small_model --lm policy --sizes 8192 --per-size 6   # harness check with the teacher
    python -m benchmarks.small_model --prompt-tokens                  # instruction tokens, small vs default

Tasks: :mod:`benchmarks.longcontext.needles` (log, CSV, JSON lines, prose, config, markdown) at each size,
seeds below ``compile_small.TRAIN_SEED`` (the compile never saw them). Variants of ``RLM("context, query ->
answer", max_iters=4)`` with the profile picked automatically for the embedded ``OutlinesLM``:

* ``full``: the small profile as shipped (guided code: :mod:`dspy_rlm.profiles.guided`);
* ``no_guided``: the static one-line code regex instead of the per-step guided moves; ``no_demos``: without the
  compiled demos; ``no_grammar``: the action step unconstrained by any code pattern (still Tier 3 JSON);
  ``no_grounding``: SUBMIT accepted at once.

The guided moves were developed looking at seeds 0 and 1 at 8,192 tokens; report other seeds (``--seed 7``).

``direct``: ``dspy.Predict("context, query -> answer")`` on the context cut to the model's 8k window.
Per size and variant: solved % (Submitted with the gold value... and, separately, gold anywhere in the answer),
Submitted / Extracted / Failed, LM calls and median seconds per task. JSON and a markdown table go to
``benchmarks/results/small_model.{json,md}``; the trajectories of failures go in the JSON, to show what the
model does wrong.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import dspy

from benchmarks.compile_small import TRAIN_SEED
from benchmarks.longcontext.harness import BenchConfig, run_task
from benchmarks.longcontext.needles import generate

VARIANTS = ("full", "no_guided", "no_demos", "no_grammar", "no_grounding")
SIZES = (8192, 16384, 32768, 65536, 131072)
RESULTS = Path(__file__).parent / "results"


def variant_factory(variant: str, max_iters: int):
    """A ``rlm_factory`` for the harness: the small profile with one part switched off."""
    from dspy_rlm import RLM
    from dspy_rlm.profiles import SMALL

    changes = {
        "full": {},
        "no_guided": {"guided_code": False},
        "no_demos": {"shipped_demos": False},
        "no_grammar": {"constrained_action": False},
        "no_grounding": {"grounded_submit": False},
    }[variant]

    def factory(config: BenchConfig) -> dspy.Module:
        profile = dataclasses.replace(SMALL, **changes)
        return RLM("context, query -> answer", max_iters=max_iters, max_llm_calls=config.max_llm_calls, profile=profile)

    return factory


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Solved %, endings, LM calls and median seconds of one (size, method) group."""
    n = len(records)
    kinds = [r.get("result_kind") for r in records]
    return {
        "tasks": n,
        "solved_pct": round(
            100 * sum(r["score"] == 1.0 and r.get("result_kind") in ("submitted", None) for r in records) / n, 1
        )
        if n
        else 0.0,
        "gold_in_answer_pct": round(100 * sum(r["score"] == 1.0 for r in records) / n, 1) if n else 0.0,
        "submitted": kinds.count("submitted"),
        "extracted": kinds.count("extracted"),
        "failed": kinds.count("failed"),
        "lm_calls_mean": round(statistics.mean(r.get("lm_calls") or 0 for r in records), 2) if n else 0,
        "median_seconds": round(statistics.median(r.get("seconds") or 0 for r in records), 1) if n else 0,
    }


def markdown(table: dict[str, dict[str, dict[str, Any]]]) -> str:
    lines = [
        "| size (tokens) | method | solved | gold in answer | Submitted / Extracted / Failed | LM calls | median s |",
        "|---|---|---|---|---|---|---|",
    ]
    for size, methods in table.items():
        for method, s in methods.items():
            lines.append(
                f"| {size} | {method} | {s['solved_pct']}% | {s['gold_in_answer_pct']}% | {s['submitted']} / "
                f"{s['extracted']} / {s['failed']} | {s['lm_calls_mean']} | {s['median_seconds']} |"
            )
    return "\n".join(lines) + "\n"


def prompt_tokens() -> dict[str, int]:
    """Tokens of the action instructions, default vs small profile, under the embedded model's tokenizer."""
    from dspy_outlines import OutlinesLM
    from dspy_rlm import RLM
    from dspy_rlm.profiles.small import small_action_signature

    lm = OutlinesLM(max_tokens=8)
    rlm = RLM("context, query -> answer")
    return {
        "default_instructions": lm.count_tokens(rlm.generate_action.signature.instructions),
        "small_instructions": lm.count_tokens(small_action_signature(rlm.signature).instructions),
    }


def make_lm(name: str, engine: str) -> Any:
    if name == "policy":
        from benchmarks.longcontext.small_policy import SmallPolicyLM

        return SmallPolicyLM()
    from dspy_outlines import OutlinesLM

    return OutlinesLM(engine=engine, max_tokens=96)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--per-size", type=int, default=6, help="tasks per size (formats cycle)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--no-direct", action="store_true", help="skip the direct 8k-window baseline")
    parser.add_argument("--max-iters", type=int, default=4)
    parser.add_argument("--lm", default="embedded", help="embedded (default) or policy (the teacher)")
    parser.add_argument("--engine", default="auto")
    parser.add_argument("--prompt-tokens", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS / "small_model.json")
    args = parser.parse_args(argv)
    if args.prompt_tokens:
        json.dump(prompt_tokens(), sys.stdout, indent=2)
        print()
        return 0
    if args.seed + 1 > TRAIN_SEED:
        parser.error(f"--seed must stay below the training seeds ({TRAIN_SEED})")
    variants = [v for v in args.variants.split(",") if v]
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        parser.error(f"unknown variants {unknown}; choose from {VARIANTS}")
    lm = make_lm(args.lm, args.engine)
    config = BenchConfig(suites=["niah"], max_iters=args.max_iters, max_llm_calls=4)
    records: list[dict[str, Any]] = []
    started = time.perf_counter()
    with dspy.context(lm=lm):
        for size in [int(s) for s in args.sizes.split(",")]:
            for task in generate(size, args.per_size, seed=args.seed):
                for variant in variants:
                    rec = run_task(task, "rlm", lm, config, variant_factory(variant, args.max_iters))
                    rec["method"] = f"rlm_{variant}"
                    records.append(rec)
                    print(
                        f"{task.id} {rec['method']}: {rec['result_kind']} score={rec['score']} "
                        f"answer={str(rec['answer'])[:40]!r} {rec.get('seconds')} s",
                        file=sys.stderr,
                    )
                if not args.no_direct:
                    rec = run_task(task, "direct", lm, config)
                    records.append(rec)
                    print(f"{task.id} direct: score={rec['score']} {rec.get('seconds')} s", file=sys.stderr)
    table: dict[str, dict[str, dict[str, Any]]] = {}
    for rec in records:
        table.setdefault(str(rec["size_tokens"]), {}).setdefault(rec["method"], []).append(rec)  # type: ignore[arg-type]
    summary = {size: {m: summarize(rs) for m, rs in methods.items()} for size, methods in table.items()}
    out = {
        "lm": getattr(lm, "model_name", None) or lm.model,
        "engine": getattr(getattr(lm, "engine", None), "name", None),
        "seconds": round(time.perf_counter() - started, 1),
        "load": os.getloadavg(),
        "summary": summary,
        "records": records,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2, default=str) + "\n")
    args.out.with_suffix(".md").write_text(markdown(summary))
    print(markdown(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
