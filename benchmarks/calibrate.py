"""Fit the small policy's calibrated endings (``dspy_rlm/profiles/calibration.json``) on known answers.

    python -m benchmarks.calibrate --train 1500 --out benchmarks/results/calibration_fit.json --write

For each question of the dev split (``benchmarks/real_files``) and a seeded sample of training questions
(``benchmarks/corpus``; never the test split) and generated needle lookups (training seeds), every read the moves
offer runs on the host, each alone; every *supported* value the submit moves then offer -- what any chooser could
submit -- counts once per question in each support class it shows
(:func:`dspy_rlm.profiles.calibration.support_class`), right or wrong. The threshold is the lowest class confidence
at which the supported values at or above it are right 95% of the time (no class right at most half the time is
admitted). No LM is called.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from benchmarks.report import emit
from dspy_rlm.profiles.calibration import CALIBRATION_PATH, Calibration, data_shape, support_class
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.oracle import host_reader, matches

TYPES = {"str": str, "int": int, "bool": bool}
PRECISION = 0.95
FLOOR = 0.5
"""No class right at most half the time ends Submitted, whatever the others carry (0.75 was tried: it ended the
quickstart's log lookups Extracted, a class right 69% of the time, for no precision the aggregate needed)."""


def observe(questions: list[Any], contexts: dict[str, str], counts: dict[str, list[int]]) -> None:
    """Each read alone, then each supported value the submit moves offer for it: one observation per
    question, class and value (a value two reads support in two ways counts in both classes)."""
    for q in questions:
        book = MoveBook({"question": q.question}, {"context": contexts[q.source]}, {"answer": TYPES[q.output_type]})
        reader = host_reader(book.data)
        seen = set()
        for move in book.read_moves():
            book.reads = {}
            book.record_read(move.code, reader(move))
            for submit in book.submit_moves():
                c = submit.candidate
                if c is None or not c.supported:
                    continue
                cls = support_class(c, book.answer_type, data_shape(book))
                if (cls, repr(c.value)) in seen:
                    continue
                seen.add((cls, repr(c.value)))
                counts[cls][0] += matches(c.value, q.gold, q.alternatives)
                counts[cls][1] += 1


def threshold(calibration: Calibration, precision: float = PRECISION) -> float:
    """The lowest class confidence whose classes at or above it reach ``precision`` together, never admitting
    a class below :data:`FLOOR` (a few big classes would otherwise carry it)."""
    ranked = sorted(calibration.counts, key=calibration.confidence, reverse=True)
    right = seen = 0
    best = 1.0
    for cls in ranked:
        if calibration.confidence(cls) <= FLOOR:
            break
        right += calibration.counts[cls][0]
        seen += calibration.counts[cls][1]
        if seen and right / seen >= precision:
            best = calibration.confidence(cls)
    return best


@dataclass
class _Needle:
    """A generated needle lookup as a question (log, CSV, JSON lines, prose, config, markdown)."""

    source: str
    question: str
    gold: str
    context: str
    output_type: str = "str"
    alternatives: tuple[str, ...] = ()


def needle_questions(n: int, size: int = 8192, seed: int = 1000) -> list[_Needle]:
    """``n`` needle lookups on training seeds (>= 1000: the compile's; evaluations use seeds below)."""
    from benchmarks.longcontext.needles import generate

    tasks = generate(size, n, seed=seed)
    return [_Needle(f"needle{i}", t.query, str(t.gold[0]), t.context) for i, t in enumerate(tasks)]


def fit(train: int, seed: int, needles_n: int = 120) -> tuple[Calibration, dict[str, Any]]:
    from benchmarks.corpus.build import build
    from benchmarks.real_files.__main__ import limited
    from benchmarks.real_files.dataset import build_dataset

    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    dev = build_dataset("dev")
    observe(dev.questions, dev.contexts, counts)
    corpus = build("train")
    sample = limited(corpus.questions, train, seed)
    observe(sample, corpus.contexts, counts)
    needles = needle_questions(needles_n)
    observe(needles, {q.source: q.context for q in needles}, counts)
    made = Calibration(dict(counts), 0.0, 0.5)
    made = Calibration(made.counts, threshold(made), 0.5)
    info = {"dev_questions": len(dev.questions), "train_questions": len(sample), "needles": len(needles), "seed": seed}
    return made, info


def main(argv: list[str] | None = None) -> dict[str, Any]:
    import json

    p = argparse.ArgumentParser(prog="python -m benchmarks.calibrate", description=__doc__.split("\n\n")[0])
    p.add_argument("--train", type=int, default=1500)
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--out", default=None)
    p.add_argument("--write", action="store_true", help="ship it as dspy_rlm/profiles/calibration.json")
    args = p.parse_args(argv)
    start = time.perf_counter()
    calibration, info = fit(args.train, args.seed)
    classes = {
        cls: {"right": r, "seen": n, "confidence": calibration.confidence(cls)}
        for cls, (r, n) in sorted(calibration.counts.items(), key=lambda kv: -calibration.confidence(kv[0]))
    }
    result = {"threshold": calibration.threshold, **info, "classes": classes}
    result |= {"seconds": round(time.perf_counter() - start, 1), "load": list(os.getloadavg())}
    if args.write:
        command = f"python -m benchmarks.calibrate --train {args.train} --seed {args.seed} --write"
        state = calibration.to_dict() | {"fitted_by": command, **info}
        CALIBRATION_PATH.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
    emit(result, args.out)
    return result


if __name__ == "__main__":
    main()
