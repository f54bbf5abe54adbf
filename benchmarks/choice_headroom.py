"""How much a better chooser could still gain: the small policy's answers beside the oracle's (issues 28 and 29).

    python -m benchmarks.choice_headroom --run F                          # no LM: a real_files run, by coverage
    python -m benchmarks.choice_headroom --first-step 40 --adapter DIR    # the model's first read, base vs tuned

A chooser -- the model zero-shot, with demos, or with fine-tuned weights -- picks among the moves the grammar
offers; it cannot reach a question the moves do not cover. Two measures of what is left for it:

1. ``--run F`` (a ``python -m benchmarks.real_files`` JSON, its ``--method``): each question's oracle coverage
   (:func:`dspy_rlm.profiles.oracle.plan`, computed now, on the current grammar) crossed with how the run ended.
   ``headroom_pct``: covered questions the run did not end ``Submitted`` and right -- the most any chooser over
   these moves can add; ``extracted_right`` of them already hold the right answer below the threshold.
2. ``--first-step N``: N seeded questions of the training corpus (held out of the sample
   ``benchmarks.train_small_policy`` trains on, unless ``--in-sample``). The set of first reads that lie on a
   one-read path to the gold (:func:`~dspy_rlm.profiles.oracle.first_reads`), and the read the embedded model
   makes first with the tuned prompt (``profiles.SMALL_TUNED``), without an adapter and with ``--adapter``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.oracle_coverage import TYPES, questions
from benchmarks.report import emit
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.oracle import first_reads, plan

ENDINGS = ("submitted_right", "extracted_right", "submitted_wrong", "other")


def ending(record: dict[str, Any]) -> str:
    """How a real_files record ended, in the four classes the headroom counts."""
    submitted = record.get("result_kind") == "submitted"
    if record.get("correct"):
        return "submitted_right" if submitted else "extracted_right"
    return "submitted_wrong" if submitted else "other"


def cross(records: list[dict[str, Any]], covered: dict[str, bool]) -> dict[str, Any]:
    """The run's endings by the oracle's coverage, overall and by kind; the chooser's headroom."""
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for r in records:
        side = "covered" if covered[r["id"]] else "uncovered"
        for key in ("all", r["kind"]):
            table[key][f"{side}.{ending(r)}"] += 1
            table[key][side] += 1
    out: dict[str, Any] = {}
    for key, c in table.items():
        n = c["covered"] + c["uncovered"]
        row: dict[str, Any] = {"n": n, "covered": c["covered"]}
        for side in ("covered", "uncovered"):
            row[side + "_endings"] = {e: c[f"{side}.{e}"] for e in ENDINGS}
        row["headroom_pct"] = round(100 * (c["covered"] - c["covered.submitted_right"]) / max(1, n), 1)
        out[key] = row
    return {"all": out.pop("all"), "by_kind": dict(sorted(out.items()))}


def run_section(path: Path, method: str) -> dict[str, Any]:
    data = json.loads(path.read_text())
    config = data.get("config", {})
    records = [r for r in data["records"] if r["method"] == method]
    qs, contexts = questions(config.get("split", "dev"), None, 0)
    by_id = {q.id: q for q in qs}
    covered = {}
    for r in records:
        q = by_id[r["id"]]
        book = MoveBook({"question": q.question}, {"context": contexts[q.source]}, {"answer": TYPES[q.output_type]})
        covered[q.id] = plan(book, q.gold, q.alternatives).covered
    return {"file": str(path), "method": method, "run_config": config, **cross(records, covered)}


def first_step_questions(n: int, seed: int, trained_per_kind: int, in_sample: bool) -> list[Any]:
    from benchmarks.train_small_policy import sample

    trained = sample(trained_per_kind, seed)
    if in_sample:
        pool = trained
    else:
        seen = {q.question for q, _, _ in trained}
        pool = [x for x in sample(trained_per_kind + n, seed + 1) if x[0].question not in seen]
    random.Random(seed).shuffle(pool)
    return pool[:n]


def first_step(n: int, seed: int, trained_per_kind: int, in_sample: bool, adapter: Path | None) -> dict[str, Any]:
    """The model's first read (base, and tuned with ``adapter``) against the reads on a one-read gold path."""
    import dspy

    from benchmarks.learn_policy import signature
    from dspy_outlines import OutlinesLM
    from dspy_rlm import RLM
    from dspy_rlm.profiles import SMALL_TUNED
    from dspy_rlm.profiles.steps import SmallPolicy

    lms = {"base": OutlinesLM(adapter=None)}
    if adapter is not None:
        lms["tuned"] = OutlinesLM(adapter=adapter)
    rows = []
    for q, context, kind in first_step_questions(n, seed, trained_per_kind, in_sample):
        book = MoveBook({"question": q.question}, {"context": context}, {"answer": TYPES[q.output_type]})
        good, offered = first_reads(book, q.gold, q.alternatives)
        row: dict[str, Any] = {"question": q.question, "kind": kind, "offered": offered, "on_path": sorted(good)}
        for name, lm in lms.items():
            with dspy.context(lm=lm):
                pred = RLM(signature(q.output_type), policy=SmallPolicy(SMALL_TUNED), max_iters=2)(
                    context=context, question=q.question
                )
            row[name] = (pred.trajectory[0].get("code", "") if pred.trajectory else "").strip()
        rows.append(row)
    reachable = [r for r in rows if r["on_path"]]
    summary: dict[str, Any] = {"n": len(rows), "with_a_path": len(reachable)}
    summary["single_read_offered"] = sum(r["offered"] == 1 for r in rows)
    for name in lms:
        summary[f"{name}_on_path"] = sum(r[name] in r["on_path"] for r in reachable)
    if "tuned" in lms:
        summary["tuned_same_as_base"] = sum(r["tuned"] == r["base"] for r in rows)
    return {"in_sample": in_sample, "adapter": str(adapter) if adapter else None, "summary": summary, "rows": rows}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.choice_headroom", description=__doc__.split("\n\n")[0])
    p.add_argument("--run", type=Path, default=None, help="a real_files JSON to cross with the oracle's coverage")
    p.add_argument("--method", default="model")
    p.add_argument("--first-step", type=int, default=0, help="training-corpus questions for the first-read measure")
    p.add_argument("--adapter", type=Path, default=None, help="a LoRA adapter directory to compare with the base")
    p.add_argument("--in-sample", action="store_true", help="first-step questions from the adapter's training sample")
    p.add_argument("--trained-per-kind", type=int, default=40, help="train_small_policy's --per-kind")
    p.add_argument("--seed", type=int, default=29, help="train_small_policy's --seed")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    if args.run is None and not args.first_step:
        p.error("give --run F, --first-step N, or both")
    logging.disable(logging.WARNING)
    start = time.perf_counter()
    words = argv if argv is not None else sys.argv[1:]
    result: dict[str, Any] = {"command": "python -m benchmarks.choice_headroom " + " ".join(words)}
    result["load_start"] = list(os.getloadavg())
    if args.run is not None:
        result["run"] = run_section(args.run, args.method)
    if args.first_step:
        result["first_step"] = first_step(
            args.first_step, args.seed, args.trained_per_kind, args.in_sample, args.adapter
        )
    result["seconds"] = round(time.perf_counter() - start, 1)
    result["load_end"] = list(os.getloadavg())
    emit(result, args.out)
    return result


if __name__ == "__main__":
    main()
