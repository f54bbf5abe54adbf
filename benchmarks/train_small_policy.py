"""Train the small policy's chooser into the embedded model's weights (issues 28 and 29): LoRA on the oracle's moves.

    python -m benchmarks.train_small_policy --collect-only --out F      # the data, its token counts, no training
    python -m benchmarks.train_small_policy --out F                     # collect, train, measure on dev
    python -m benchmarks.train_small_policy --write                     # ... and ship the adapter

1. **Data, from the training corpus only** (:mod:`benchmarks.corpus`, training files and phrasing families): a
   seeded sample of questions, the same number for each kind of question the moves see. The teacher is the
   RLM acted by :class:`~dspy_rlm.profiles.oracle.OraclePolicy` through an :class:`OracleLM` (one RLM per
   answer type, :class:`TypedRLM`); the student is the same program on the embedded model, with the prompt it
   will run with (``profiles.SMALL_TUNED``: the compact signature with one-line instructions, no demos, the
   step's moves).
2. **Training is ``dspy.BootstrapFinetune``**: ``BootstrapFinetune(metric, adapter=OutlinesAdapter(),
   train_kwargs).compile(student, trainset, teacher)``. Its metric keeps the runs that end ``Submitted`` and
   right; ``OutlinesAdapter`` hands it each step as the LM saw it (:mod:`dspy_outlines.seen`), and the
   student's ``OutlinesLM`` trains a LoRA adapter with mlx-lm's tuner (:mod:`dspy_outlines.lora`), fixed seed.
3. **Dev measure**: the real-files dev split (seeded sample), the tuned model without demos beside the base
   model with the shipped demos and without demos -- the same questions, ``--max-iters`` steps.
``--write`` copies the adapter into ``dspy_rlm/profiles/small_adapter/`` with a manifest naming the data, the
base model's checksum and the command.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import dspy

from benchmarks.corpus.build import build
from benchmarks.learn_policy import TYPES, evaluate, signature
from benchmarks.real_files.scoring import is_correct
from benchmarks.report import emit
from dspy_rlm import RLM
from dspy_rlm.profiles import SMALL_TUNED
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.oracle import OracleLM, OraclePolicy

logger = logging.getLogger(__name__)
TRAIN_KWARGS = {"steps": 150, "batch_size": 4, "max_length": 768, "rank": 8, "layers": 8, "learning_rate": 2e-4}


def sample(per_kind: int, seed: int) -> list[tuple[Any, str, str]]:
    """``(question, context, kind)``: a seeded sample of training questions, ``per_kind`` of each kind."""
    data = build(
        "train", listings_files=0, roster_files=0, tally_files=0, registry_files=0
    )  # the corpus its shipped artifact was made from
    questions = list(data.questions)
    random.Random(seed).shuffle(questions)
    taken: dict[str, int] = defaultdict(int)
    out = []
    for q in questions:
        context = data.contexts[q.source]
        kind = MoveBook({"question": q.question}, {"context": context}, {"answer": TYPES[q.output_type]}).kind()
        if taken[kind] < per_kind:
            taken[kind] += 1
            out.append((q, context, kind))
    return out


class TypedRLM(dspy.Module):
    """One RLM per answer type (the questions' typed signatures), chosen by the example's ``output_type``: one
    DSPy program for the whole training set, so ``BootstrapFinetune`` trains one adapter for all of it."""

    def __init__(self, **rlm_kwargs: Any) -> None:
        super().__init__()
        self.as_str = RLM(signature("str"), **rlm_kwargs)
        self.as_int = RLM(signature("int"), **rlm_kwargs)
        self.as_bool = RLM(signature("bool"), **rlm_kwargs)

    def forward(self, context: str, question: str, output_type: str) -> Any:
        return getattr(self, f"as_{output_type}")(context=context, question=question)


def metric(example: Any, pred: Any, trace: Any = None) -> bool:
    """A run that ends ``Submitted`` with the gold (or one of its alternatives)."""
    result = getattr(pred, "rlm_result", None) or getattr(pred, "result", None)
    if getattr(result, "kind", "") != "submitted":
        return False
    return any(is_correct(pred.answer, gold, example.output_type) for gold in (example.answer, *example.alternatives))


def programs(questions: list[tuple[Any, str, str]], max_iters: int) -> tuple[list[dspy.Example], TypedRLM, TypedRLM]:
    """The training set, the teacher (the oracle, through an ``OracleLM``) and the student (no LM set yet)."""
    trainset = [
        dspy.Example(
            context=context, question=q.question, output_type=q.output_type, answer=q.gold,
            alternatives=tuple(q.alternatives),
        ).with_inputs("context", "question", "output_type")
        for q, context, _ in questions
    ]  # fmt: skip
    answers = {q.question: (q.gold, tuple(q.alternatives)) for q, _, _ in questions}
    oracle = OraclePolicy(answers, through_lm=True, profile=SMALL_TUNED, kind_demos={})  # the student's prompts
    teacher = TypedRLM(policy=oracle, max_iters=max_iters)
    teacher.set_lm(OracleLM())
    return trainset, teacher, TypedRLM(profile=SMALL_TUNED, max_iters=max_iters)


def collect(questions: list[tuple[Any, str, str]], max_iters: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The data ``BootstrapFinetune`` trains on (its own two steps: the teacher's traces, each call formatted
    by the adapter) and how many questions of each kind the oracle solved."""
    from dspy.teleprompt.bootstrap_finetune import build_call_data_from_trace
    from dspy.teleprompt.bootstrap_trace import bootstrap_trace_data

    from dspy_outlines import OutlinesAdapter

    trainset, teacher, _ = programs(questions, max_iters)
    traces = bootstrap_trace_data(program=teacher, dataset=trainset, metric=metric, num_threads=1)
    adapter, data = OutlinesAdapter(), []
    solved: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for item in traces:
        kind = questions[item["example_ind"]][2]
        solved[kind][0] += int(bool(item["score"]))
        solved[kind][1] += 1
        if item["score"]:
            data.extend(build_call_data_from_trace(item["trace"], i, adapter) for i in range(len(item["trace"])))
    return data, {k: {"solved": v[0], "of": v[1]} for k, v in sorted(solved.items())}


def token_counts(data: list[dict[str, Any]]) -> dict[str, Any]:
    from dspy_outlines import OutlinesLM
    from dspy_outlines.models.blas import ensure_fast_blas

    ensure_fast_blas()  # before mlx is imported (training in this process would run ~20x slower otherwise)
    engine = OutlinesLM(engine="mlx").engine
    sizes = sorted(
        len(engine.encode(engine.render_prompt(ex["messages"][:-1])))
        + len(engine.encode(ex["messages"][-1]["content"]))
        for ex in data
    )
    if not sizes:
        return {"examples": 0}
    return {"examples": len(sizes), "median": sizes[len(sizes) // 2], "max": sizes[-1], "total": sum(sizes)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.train_small_policy", description=__doc__.split("\n\n")[0])
    p.add_argument("--per-kind", type=int, default=40, help="training questions per kind of question")
    p.add_argument("--steps", type=int, default=TRAIN_KWARGS["steps"])
    p.add_argument("--layers", type=int, default=TRAIN_KWARGS["layers"])
    p.add_argument("--dev", type=int, default=42, help="dev questions to measure on (seeded); 0: none")
    p.add_argument("--max-iters", type=int, default=4)
    p.add_argument("--seed", type=int, default=29)
    p.add_argument("--collect-only", action="store_true")
    p.add_argument("--adapter", type=Path, default=None, help="measure this adapter instead of training one")
    p.add_argument("--adapter-dir", type=Path, default=Path.home() / ".cache" / "dspy-rlm" / "small-policy-adapter")
    p.add_argument("--no-baselines", action="store_true", help="measure the tuned model alone on dev")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--write", action="store_true", help="ship the adapter in dspy_rlm/profiles/small_adapter/")
    args = p.parse_args(argv)
    logging.disable(logging.WARNING)
    start = time.perf_counter()
    questions = sample(args.per_kind, args.seed)
    data, solved = collect(questions, args.max_iters)
    result: dict[str, Any] = {
        "command": "python -m benchmarks.train_small_policy " + " ".join(argv if argv is not None else sys.argv[1:]),
        "seed": args.seed, "per_kind": args.per_kind, "oracle_solved": solved,
        "collect_seconds": round(time.perf_counter() - start, 1), "data": token_counts(data),
        "load_start": list(os.getloadavg()),
    }  # fmt: skip
    if args.collect_only:
        emit(result, str(args.out) if args.out else None)
        return result
    adapter = args.adapter or train(questions, args, result)
    if args.dev:
        result["dev"] = measure(adapter, args)
        result["load_end"] = list(os.getloadavg())
    if args.write:
        ship(adapter, result)
    emit(result, str(args.out) if args.out else None)
    return result


def train(questions: list[tuple[Any, str, str]], args: argparse.Namespace, result: dict[str, Any]) -> Path:
    from dspy_outlines import OutlinesAdapter, OutlinesLM

    kwargs = TRAIN_KWARGS | {"steps": args.steps, "layers": args.layers, "seed": args.seed}
    kwargs["output_dir"] = str(args.adapter_dir)
    trainset, teacher, student = programs(questions, args.max_iters)
    student.set_lm(OutlinesLM(adapter=None))  # the base model (not an adapter the package ships)
    optimizer = dspy.BootstrapFinetune(metric=metric, adapter=OutlinesAdapter(), train_kwargs=kwargs, num_threads=1)
    t0 = time.perf_counter()
    compiled = optimizer.compile(student, trainset=trainset, teacher=teacher)
    if not all(getattr(p.lm, "adapter_setting", None) == kwargs["output_dir"] for p in compiled.predictors()):
        raise RuntimeError("BootstrapFinetune left a predictor of the student on another LM")
    adapter = Path(kwargs["output_dir"])
    config = json.loads((adapter / "adapter_config.json").read_text())
    result["training"] = {
        "train_kwargs": {k: v for k, v in kwargs.items() if k != "output_dir"},
        "minutes": round((time.perf_counter() - t0) / 60, 1),
        "train_s": config.get("train_s"),
        # every token of the batches (prompt and answer), from the data's mean length: steps x batch x mean
        "train_tokens_per_s": round(
            kwargs["steps"] * kwargs["batch_size"] * config["train_tokens"] / config["examples"] / config["train_s"], 1
        ),
        "loss_tokens_per_s": config.get("loss_tokens_per_s"),
        "loss_first": config.get("losses", [None])[0], "loss_last": config.get("losses", [None])[-1],
        "adapter_bytes": sum(f.stat().st_size for f in adapter.iterdir()),
    }  # fmt: skip
    return adapter


def measure(adapter: Path, args: argparse.Namespace) -> dict[str, Any]:
    from benchmarks.real_files.__main__ import limited
    from benchmarks.real_files.dataset import build_dataset
    from dspy_outlines import OutlinesLM
    from dspy_rlm.profiles.steps import SmallPolicy

    data = build_dataset("dev")
    dev = limited(data.questions, args.dev, args.seed)
    baselines = {"shipped": SmallPolicy(), "no_demos": SmallPolicy(kind_demos={})}
    out = {} if args.no_baselines else evaluate(baselines, dev, data.contexts, args.max_iters)
    tuned = {"tuned_no_demos": SmallPolicy(SMALL_TUNED)}
    return out | evaluate(tuned, dev, data.contexts, args.max_iters, lm=OutlinesLM(adapter=adapter))


def ship(adapter: Path, result: dict[str, Any]) -> None:
    from dspy_rlm.profiles.tuned import ADAPTER_DIR

    staging = ADAPTER_DIR.with_name(ADAPTER_DIR.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(adapter, staging)
    manifest = {k: result[k] for k in ("command", "seed", "per_kind", "data", "training") if k in result}
    manifest["data_source"] = "benchmarks.corpus train split (training files and phrasing families only)"
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    shutil.rmtree(ADAPTER_DIR, ignore_errors=True)
    os.replace(staging, ADAPTER_DIR)


if __name__ == "__main__":
    main()
