"""Compile the small-model profile's demos with DSPy and save the program the package ships.

    python -m benchmarks.compile_small                       # writes dspy_rlm/profiles/small_program.json
    python -m benchmarks.compile_small --smoke --out /tmp/p.json   # seconds: teacher only, no student runs

Training set: single-fact lookups from :mod:`benchmarks.longcontext.needles` in all six formats at 2k-8k
tokens, with seeds from :data:`TRAIN_SEED` on (the evaluation in ``benchmarks/small_model.py`` uses seeds below
it, so no evaluation task is in the training set). Teacher: the scripted two-step policy
(:mod:`benchmarks.longcontext.small_policy`), which reads only the prompt. Student: ``RLM("context, query ->
answer", profile=small without shipped demos)`` on the embedded model. Metric: the typed-result metric (the
run ended ``Submitted`` and the answer holds the gold value).

Teleprompter: ``BootstrapFewShotWithRandomSearch`` (2 demos at most; candidates: zero-shot, the unshuffled
bootstrap and ``--candidates`` shuffled ones, each scored by the student on a validation set) or, with
``--teleprompter bootstrap``, plain ``BootstrapFewShot`` (teacher only). Everything is seeded: a re-run
gives the same file. Scores of every candidate go to ``benchmarks/results/compile_small.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import dspy

from benchmarks.longcontext.needles import FORMATS, generate_task
from benchmarks.longcontext.small_policy import SmallPolicyLM

TRAIN_SEED = 1000
"""Training and validation tasks use seeds from here on; evaluation tasks use seeds below it."""
TRAIN_SIZES = (2048, 4096, 8192)
RESULTS = Path(__file__).parent / "results" / "compile_small.json"


def lookup_examples(n: int, seed: int, sizes: tuple[int, ...] = TRAIN_SIZES) -> list[dspy.Example]:
    """``n`` lookups cycling through the formats and sizes, as DSPy examples with inputs context and query."""
    out = []
    for i in range(n):
        task = generate_task(sizes[i % len(sizes)], FORMATS[i % len(FORMATS)], seed, i)
        out.append(
            dspy.Example(context=task.context, query=task.query, answer=task.gold[0], task_id=task.id).with_inputs(
                "context", "query"
            )
        )
    return out


def typed_result_metric(example: dspy.Example, pred: dspy.Prediction, trace: Any = None) -> bool:
    """The run ended ``Submitted`` (the model called SUBMIT) and its answer holds the gold value."""
    result = getattr(pred, "result", None)
    return getattr(result, "kind", None) == "submitted" and str(example.answer) in str(pred.answer)


def student_program(max_iters: int = 4):
    """The RLM compiled: the small profile without the shipped demos (so candidates are judged on their own)."""
    from dspy_rlm import RLM
    from dspy_rlm.profiles import SMALL

    return RLM(
        "context, query -> answer",
        max_iters=max_iters,
        max_llm_calls=4,
        profile=dataclasses.replace(SMALL, shipped_demos=False),
    )


def compile_program(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    from dspy.teleprompt import BootstrapFewShot, BootstrapFewShotWithRandomSearch

    trainset = lookup_examples(args.n_train, TRAIN_SEED)
    valset = lookup_examples(args.n_val, TRAIN_SEED + 1, sizes=(4096,))
    teacher_settings = {"lm": SmallPolicyLM()}
    student = student_program()
    started = time.perf_counter()
    if args.teleprompter == "bootstrap":
        optimizer = BootstrapFewShot(
            metric=typed_result_metric, max_bootstrapped_demos=2, max_labeled_demos=0, teacher_settings=teacher_settings
        )
        program = optimizer.compile(student, trainset=trainset)
        candidates: list[dict[str, Any]] = []
    else:
        optimizer = BootstrapFewShotWithRandomSearch(
            metric=typed_result_metric,
            max_bootstrapped_demos=2,
            max_labeled_demos=0,
            num_candidate_programs=args.candidates,
            num_threads=1,
            teacher_settings=teacher_settings,
        )
        # -2 (labeled demos only) equals -3 (zero-shot) with max_labeled_demos=0: not run twice
        program = optimizer.compile(
            student, trainset=trainset, valset=valset, restrict=[-3, -1, *range(args.candidates)]
        )
        candidates = [
            {
                "seed": c["seed"],
                "score": c["score"],
                "subscores": [bool(s) for s in c["subscores"]],
                "demos": [d.get("code") for d in c["program"].generate_action.demos],
            }
            for c in program.candidate_programs
        ]
    report = {
        "teleprompter": args.teleprompter,
        "n_train": len(trainset),
        "n_val": len(valset),
        "train_task_ids": [e.task_id for e in trainset],
        "val_task_ids": [e.task_id for e in valset],
        "candidates": candidates,
        "chosen_demos": [d.get("code") for d in program.generate_action.demos],
        "seconds": round(time.perf_counter() - started, 1),
    }
    return program, report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--teleprompter", choices=("random_search", "bootstrap"), default="random_search")
    parser.add_argument("--n-train", type=int, default=12)
    parser.add_argument("--n-val", type=int, default=6)
    parser.add_argument("--candidates", type=int, default=3, help="shuffled candidates beyond the unshuffled one")
    parser.add_argument("--engine", default="auto", help="engine of the embedded student model")
    parser.add_argument(
        "--repl",
        choices=("subprocess", "inprocess"),
        default="subprocess",
        help="REPL of the runs (inprocess: faster, trusted code only)",
    )
    parser.add_argument("--smoke", action="store_true", help="teacher only, 2 training tasks (no model needed)")
    parser.add_argument("--out", type=Path, default=None, help="program JSON (default: the shipped file)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    from dspy_rlm.profiles.small import DEMOS_PATH

    out = args.out or DEMOS_PATH
    if args.smoke:
        args.teleprompter, args.n_train = "bootstrap", 2
        lm = SmallPolicyLM()  # the student is never called by plain BootstrapFewShot
    else:
        from dspy_outlines import OutlinesLM

        lm = OutlinesLM(engine=args.engine, max_tokens=96)
    settings: dict[str, Any] = {"lm": lm}
    if args.repl == "inprocess":
        from dspy_rlm import InProcessREPL

        settings["interpreter_factory"] = InProcessREPL
    with dspy.context(**settings):
        program, report = compile_program(args)
    program.save(str(out))
    report["out"] = str(out)
    if not args.smoke:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0 if report["chosen_demos"] else 1


if __name__ == "__main__":
    sys.exit(main())
