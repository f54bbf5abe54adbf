"""Optimize the small policy's demos with DSPy, the oracle as teacher, on the training corpus only (issue 28).

    python -m benchmarks.learn_policy --out benchmarks/results/learn_policy.json            # compile + dev eval
    python -m benchmarks.learn_policy --optimizer random_search --write                     # ship the result

For each kind of question the moves see (:meth:`MoveBook.kind`), a seeded sample of training questions
(:mod:`benchmarks.corpus`, training files and families only) is compiled with a DSPy teleprompter:
the teacher is an ``RLM`` run by :class:`~dspy_rlm.profiles.oracle.OraclePolicy` through an
:class:`~dspy_rlm.profiles.oracle.OracleLM` (so DSPy traces the oracle's moves), the student the small policy
on the embedded model. ``bootstrap`` is ``BootstrapFewShot`` (the teacher's successful traces become demos,
no model needed); ``random_search`` is ``BootstrapFewShotWithRandomSearch``, which also scores candidate demo
sets with the student on held-back training questions and keeps the best. The per-kind demos are then
measured on the dev split (``benchmarks/real_files``, a seeded sample) beside the shipped demos and no demos.
``--write`` stores them as the shipped ``kind_demos`` of ``dspy_rlm/profiles/small_program.json``: the same
seed gives the same program.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import dspy

from benchmarks.corpus.build import build
from benchmarks.real_files.core import Question
from benchmarks.real_files.scoring import is_correct
from benchmarks.report import emit
from dspy_rlm import RLM
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.oracle import OracleLM, OraclePolicy
from dspy_rlm.profiles.steps import SmallPolicy

logger = logging.getLogger(__name__)
TYPES = {"str": str, "int": int, "bool": bool}
DEMOS = 3
"""Demos per kind: DSPy keeps one step of each successful teacher run, so three runs show reads and submits."""
DEMO_KEYS = ("variables_info", "repl_history", "iteration", "budget", "reasoning", "code")


def signature(output_type: str) -> str:
    return f"context: str, question: str -> answer: {output_type}"


def example(q: Question, context: str) -> dspy.Example:
    return dspy.Example(
        context=context, question=q.question, answer=q.gold, qid=q.id, output_type=q.output_type
    ).with_inputs("context", "question")


def metric(ex: Any, pred: Any, trace: Any = None) -> bool:
    result = getattr(pred, "rlm_result", None) or getattr(pred, "result", None)
    return getattr(result, "kind", "") == "submitted" and is_correct(pred.answer, ex.answer, ex.output_type)


def by_kind(per_kind: int, seed: int) -> dict[str, list[dspy.Example]]:
    """A seeded sample of training questions for each kind the moves see, ``2 * per_kind`` each (half to
    bootstrap from, half to validate with), every one of the kind's most common output type."""
    data = build(
        "train", listings_files=0, roster_files=0, tally_files=0, registry_files=0
    )  # the corpus its shipped artifact was made from
    questions = list(data.questions)
    random.Random(seed).shuffle(questions)
    kinds: dict[str, list[dspy.Example]] = defaultdict(list)
    types: dict[str, str] = {}
    for q in questions:
        book = MoveBook(
            {"question": q.question}, {"context": data.contexts[q.source]}, {"answer": TYPES[q.output_type]}
        )
        kind = book.kind()
        types.setdefault(kind, q.output_type)
        if q.output_type == types[kind] and len(kinds[kind]) < 2 * per_kind:
            kinds[kind].append(example(q, data.contexts[q.source]))
        if len(kinds) >= 7 and all(len(v) >= 2 * per_kind for v in kinds.values()):
            break
    return dict(kinds)


def compile_kind(examples: list[dspy.Example], optimizer: str, seed: int, max_iters: int) -> list[dict[str, Any]]:
    """The demos a teleprompter compiles for one kind (the oracle teaching, the student the small policy)."""
    half = len(examples) // 2
    train, val = examples[:half], examples[half:]
    sig = signature(examples[0].output_type)
    answers = {ex.question: ex.answer for ex in examples}
    teacher = RLM(sig, policy=OraclePolicy(answers, through_lm=True), max_iters=max_iters)
    student = RLM(sig, policy=SmallPolicy(kind_demos={}), max_iters=max_iters)
    oracle = {"lm": OracleLM()}
    if optimizer == "bootstrap":
        tp: Any = dspy.BootstrapFewShot(
            metric=metric, max_bootstrapped_demos=DEMOS, max_labeled_demos=0, teacher_settings=oracle
        )
        compiled = tp.compile(student, teacher=teacher, trainset=train)
    else:
        tp = dspy.BootstrapFewShotWithRandomSearch(
            metric=metric, max_bootstrapped_demos=DEMOS, max_labeled_demos=0, num_candidate_programs=3,
            teacher_settings=oracle, num_threads=1,
        )  # fmt: skip
        random.seed(seed)
        compiled = tp.compile(student, teacher=teacher, trainset=train, valset=val)
    return [{k: d[k] for k in DEMO_KEYS if k in d} | {"augmented": True} for d in compiled.generate_action.demos]


def evaluate(
    programs: dict[str, SmallPolicy], dev: list[Question], contexts: dict[str, str], max_iters: int, lm: Any = None
) -> dict:
    """Each policy on the dev questions, on ``lm`` (the embedded model by default): the headline figures."""
    from benchmarks.real_files.runner import Method, _embedded_model, run_question

    lm = lm if lm is not None else _embedded_model()
    out: dict[str, Any] = {}
    for name, policy in programs.items():
        records = [run_question(q, contexts[q.source], name, Method(lm, {"policy": policy}), max_iters) for q in dev]
        sub = [r for r in records if r["result_kind"] == "submitted"]
        out[name] = {
            "n": len(records),
            "submitted_solved_pct": round(100 * sum(r["correct"] for r in sub) / max(1, len(records)), 1),
            "solved_pct": round(100 * sum(r["correct"] for r in records) / max(1, len(records)), 1),
            "submitted_precision_pct": round(100 * sum(r["correct"] for r in sub) / max(1, len(sub)), 1),
            "mean_seconds": round(sum(r["seconds"] for r in records) / max(1, len(records)), 2),
        }
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.learn_policy", description=__doc__.split("\n\n")[0])
    p.add_argument("--optimizer", choices=("bootstrap", "random_search"), default="bootstrap")
    p.add_argument("--per-kind", type=int, default=8, help="training questions per kind to bootstrap from")
    p.add_argument("--dev", type=int, default=42, help="dev questions to measure on (seeded, by kind); 0: none")
    p.add_argument("--max-iters", type=int, default=4)
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--write", action="store_true", help="ship the compiled demos in small_program.json")
    args = p.parse_args(argv)
    logging.disable(logging.WARNING)
    start = time.perf_counter()
    kinds = by_kind(args.per_kind, args.seed)
    lm = OracleLM() if args.optimizer == "bootstrap" else None
    if lm is None:
        from benchmarks.real_files.runner import _embedded_model

        lm = _embedded_model()  # random search scores candidates with the student on the real model
    with dspy.context(lm=lm):
        demos = {
            kind: compile_kind(exs, args.optimizer, args.seed, args.max_iters) for kind, exs in sorted(kinds.items())
        }
    result: dict[str, Any] = {
        "optimizer": args.optimizer, "seed": args.seed, "per_kind": args.per_kind,
        "compile_seconds": round(time.perf_counter() - start, 1), "load": list(os.getloadavg()),
        "demos": {k: [d["code"] for d in v] for k, v in demos.items()},
    }  # fmt: skip
    if args.dev:
        from benchmarks.real_files.__main__ import limited
        from benchmarks.real_files.dataset import build_dataset

        data = build_dataset("dev")
        dev = limited(data.questions, args.dev, args.seed)
        programs = {
            "shipped": SmallPolicy(),
            "no_demos": SmallPolicy(kind_demos={}),
            "compiled": SmallPolicy(kind_demos=demos),
        }
        result["dev"] = evaluate(programs, dev, data.contexts, args.max_iters)
        result["load_end"] = list(os.getloadavg())
    if args.write:
        write(demos, args)
    emit(result, str(args.out) if args.out else None)
    return result


def write(demos: dict[str, list[dict[str, Any]]], args: argparse.Namespace) -> None:
    import json

    from dspy_rlm.profiles.small import DEMOS_PATH

    state = json.loads(DEMOS_PATH.read_text()) if DEMOS_PATH.is_file() else {}
    state["kind_demos"] = demos
    command = f"python -m benchmarks.learn_policy --optimizer {args.optimizer} --per-kind {args.per_kind}"
    state.setdefault("metadata", {})["kind_demos_from"] = f"{command} --seed {args.seed} --write"
    DEMOS_PATH.write_text(json.dumps(state, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
