"""Fit the small policy's calibrated endings (``dspy_rlm/profiles/calibration.json``) on known answers.

    python -m benchmarks.calibrate --train 1500 --out benchmarks/results/calibration_fit.json --write

For each question of the dev split (``benchmarks/real_files``) and a seeded sample of training questions
(``benchmarks/corpus``; never the test split) and generated needle lookups (training seeds), every read the moves
offer runs on the host, each alone; every *supported* value the submit moves then offer -- what any chooser could
submit -- counts once per question in each support class it shows
(:func:`dspy_rlm.profiles.calibration.support_class`), right or wrong. The threshold is the lowest class confidence
at which the supported values at or above it are right 95% of the time (no class right at most half the time is
admitted). No LM is called.

    python -m benchmarks.calibrate --chooser --write        # the chooser fit, on top of the shipped classes

``--chooser`` acts out the learned move ranker (:mod:`dspy_rlm.profiles.ranker`) on questions it was not fit on
(the held-back fifth of the training files, the dev split, needle lookups) and fits, on the SUBMITs it ends with,
a logistic combination of the class precision and the ranker's probability of that SUBMIT, its own 95%-precision
threshold, and the accuracy of an unsupported SUBMIT (:meth:`Calibration.combined`). ``--asked`` pools the endings on
the first-contact probes' questions too (people's questions over real files no code names; cross-fit on them by
:mod:`benchmarks.calibration_folds`).
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

TYPES = {"str": str, "int": int, "float": float, "bool": bool}
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


def chooser_endings(
    questions: list[Any], contexts: dict[str, str], max_steps: int = 4
) -> list[tuple[bool, float, float, bool]]:
    """The ranked chooser acted out on each question: ``(supported, class precision, ranker probability, right)``
    for each run that ends in a SUBMIT."""
    from benchmarks.train_ranker import play, ranked
    from dspy_rlm.profiles.calibration import load_calibration
    from dspy_rlm.profiles.ranker import load_ranker

    ranker, calibration = load_ranker(), load_calibration()
    assert ranker is not None, "no move ranker shipped: python -m benchmarks.train_ranker --write"
    out = []
    for q in questions:
        book = MoveBook({"question": q.question}, {"context": contexts[q.source]}, {"answer": TYPES[q.output_type]})
        move, moves = play(book, ranked(ranker), host_reader(book.data), max_steps)
        if move is None or move.candidate is None:
            continue
        c = move.candidate
        conf = calibration.confidence(support_class(c, book.answer_type, data_shape(book)))
        choice = ranker.score(book, moves)[moves.index(move)]
        out.append((c.supported, conf, choice, matches(c.value, q.gold, q.alternatives)))
    return out


def fit_chooser(endings: list[tuple[bool, float, float, bool]], seed: int) -> dict[str, Any]:
    """The logistic combination, its threshold (the lowest combined confidence at which the supported endings at
    or above it are right :data:`PRECISION` of the time, never below :data:`FLOOR`) and the unsupported accuracy."""
    from sklearn.linear_model import LogisticRegression

    from dspy_rlm.profiles.calibration import _logit, combine

    backed = [e for e in endings if e[0]]
    x = [[_logit(conf), _logit(p)] for _, conf, p, _ in backed]
    y = [int(ok) for *_, ok in backed]
    model = LogisticRegression(C=1.0, random_state=seed).fit(x, y)
    chooser = {"weights": [round(float(w), 4) for w in model.coef_[0]], "bias": round(float(model.intercept_[0]), 4)}
    scored = sorted(((combine(chooser, conf, p), ok) for _, conf, p, ok in backed), reverse=True)
    right = seen = 0
    cut = 1.0
    for conf, ok in scored:
        if conf <= FLOOR:
            break
        right, seen = right + ok, seen + 1
        if right / seen >= PRECISION:
            cut = conf
    loose = [e for e in endings if not e[0]]
    unsupported = round((sum(e[3] for e in loose) + 1) / (len(loose) + 2), 3)
    return {**chooser, "threshold": cut, "unsupported": unsupported, "endings": len(endings), "supported": len(backed)}


def base_endings(
    seed: int, train: int, needles_n: int = 120
) -> tuple[list[tuple[bool, float, float, bool]], dict[str, Any]]:
    """The ranked chooser's endings on the held-back training files, the dev split and needle lookups."""
    from benchmarks.corpus.build import build
    from benchmarks.real_files.__main__ import limited
    from benchmarks.real_files.dataset import build_dataset
    from benchmarks.train_ranker import held_back

    corpus = build("train")
    back = limited([q for q in corpus.questions if held_back(q.source, seed)], train, seed)
    dev = build_dataset("dev")
    needles = needle_questions(needles_n)
    endings = chooser_endings(back, corpus.contexts) + chooser_endings(dev.questions, dev.contexts)
    endings += chooser_endings(needles, {q.source: q.context for q in needles})
    info = {"chooser_train_questions": len(back), "chooser_dev_questions": len(dev.questions), "needles": len(needles)}
    return endings, info


def chooser_fit(
    seed: int, train: int, needles_n: int = 120, asked: bool = False
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The chooser fit on :func:`base_endings`, with ``asked`` the endings on every first-contact probe's
    questions too (:func:`benchmarks.first_contact.probe_questions`: people's questions over real files)."""
    endings, info = base_endings(seed, train, needles_n)
    if asked:
        from benchmarks.first_contact import probe_questions

        questions, texts = probe_questions()
        endings += chooser_endings(questions, texts)
        info["chooser_probe_questions"] = len(questions)
    return fit_chooser(endings, seed), info


def main(argv: list[str] | None = None) -> dict[str, Any]:
    import json

    p = argparse.ArgumentParser(prog="python -m benchmarks.calibrate", description=__doc__.split("\n\n")[0])
    p.add_argument("--train", type=int, default=1500)
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--out", default=None)
    p.add_argument("--write", action="store_true", help="ship it as dspy_rlm/profiles/calibration.json")
    p.add_argument("--chooser", action="store_true", help="fit the chooser combination on the shipped classes")
    p.add_argument("--asked", action="store_true", help="with --chooser: the first-contact probes' endings too")
    args = p.parse_args(argv)
    start = time.perf_counter()
    if args.chooser:
        chooser, info = chooser_fit(args.seed, args.train, asked=args.asked)
        result = {"chooser": chooser, **info, "seconds": round(time.perf_counter() - start, 1)}
        result["load"] = list(os.getloadavg())
        if args.write:
            state = json.loads(CALIBRATION_PATH.read_text())
            state["chooser"] = {k: chooser[k] for k in ("weights", "bias", "threshold", "unsupported")}
            state["chooser_fitted_by"] = (
                f"python -m benchmarks.calibrate --chooser{' --asked' * args.asked} --train {args.train} "
                f"--seed {args.seed} --write"
            )
            tmp = CALIBRATION_PATH.with_suffix(".json.tmp")
            tmp.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
            tmp.replace(CALIBRATION_PATH)
        emit(result, args.out)
        return result
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
