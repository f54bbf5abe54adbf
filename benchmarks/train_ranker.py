"""Fit the small policy's move ranker on the training corpus, the oracle as teacher (issue 28).

    python -m benchmarks.train_ranker --out benchmarks/results/train_ranker.json            # fit + measure
    python -m benchmarks.train_ranker --write                                               # ship it

Labels come from the oracle (:mod:`dspy_rlm.profiles.oracle`): on each training question (``benchmarks.corpus``,
training files and phrasing families only), the first step's reads are labelled by whether one of them alone
makes the grammar offer the gold *with support* (else the oracle's shortest plan names the first read); then,
after a good read and after up to two bad ones, the next step's moves are labelled the same way (a supported
SUBMIT of the gold, or a read that leads to one): so the ranker also learns to recover from a wrong read. A
logistic regression (scikit-learn) over :func:`~dspy_rlm.profiles.ranker.move_features` is fit on the training
files; the questions of a fifth of the training *files* are held back and never fit, and the chooser is measured
there and on the dev split by acting out runs on the host (no LM): the ranked chooser beside the scripted rules,
random moves and the oracle. The test split is not read.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from benchmarks.real_files.core import Question
from benchmarks.report import emit
from dspy_rlm.profiles.calibration import data_shape, load_calibration, support_class
from dspy_rlm.profiles.move import Move
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.oracle import host_reader, matches, plan
from dspy_rlm.profiles.ranker import RANKER_PATH, MoveRanker, move_features, step_state
from dspy_rlm.profiles.scripted import scripted_choice

TYPES = {"str": str, "int": int, "bool": bool}
Row = tuple[int, dict[str, float], int]  # (state id, features, label)


ALL_MOVES = False
"""Offer every counting, ranking and existence move the output type admits (``--all-moves``): the cue words
then decide nothing, the learned weights route the question."""


def book_for(q: Question, context: str) -> MoveBook:
    return MoveBook(
        {"question": q.question}, {"context": context}, {"answer": TYPES[q.output_type]}, all_moves=ALL_MOVES
    )


def _good_submit(book: MoveBook, gold: Any, alts: Any) -> list[Move]:
    return [
        s
        for s in book.submit_moves()
        if s.candidate is not None and s.candidate.supported and matches(s.candidate.value, gold, alts)
    ]


def _leads(book: MoveBook, done: list[tuple[Move, str]], move: Move, reader: Any, gold: Any, alts: Any) -> bool:
    """Whether reading ``move`` after ``done`` makes the grammar offer a supported SUBMIT of the gold."""
    book.reads = {}
    for m, out in done:
        book.record_read(m.code, out)
    book.record_read(move.code, reader(move))
    return bool(_good_submit(book, gold, alts))


def _state_rows(
    book: MoveBook, done: list[tuple[Move, str]], reader: Any, gold: Any, alts: Any, sid: int
) -> tuple[list[Row], list[Move]]:
    """The rows of the state after ``done``: each offered move and whether it is a right move from here."""
    book.reads = {}
    for m, out in done:
        book.record_read(m.code, out)
    moves = book.step_moves([m.code for m, _ in done], [o for _, o in done if o])
    good = {m.code for m in _good_submit(book, gold, alts)}
    reads = [m for m in moves if m.kind != "submit"]
    if not good:
        good = {m.code for m in reads if _leads(book, done, m, reader, gold, alts)}
    if not good and not done:
        found = plan(book, gold, alts, reader=reader)
        good = {found.moves[0].code} if found.covered else set()
    if not good:
        return [], moves
    book.reads = {}
    for m, out in done:
        book.record_read(m.code, out)
    state = step_state(book, moves)
    return [(sid, move_features(book, m, moves, state), int(m.code in good)) for m in moves], moves


def label(q: Question, context: str, rng: random.Random, sid: int) -> list[Row]:
    """Rows of the first step and of the step after a good read and up to two bad ones."""
    book = book_for(q, context)
    reader = host_reader(book.data)
    rows, moves = _state_rows(book, [], reader, q.gold, q.alternatives, sid * 4)
    if not rows:
        return []
    good = [m for (*_, y), m in zip(rows, moves, strict=True) if y]
    bad = [m for (*_, y), m in zip(rows, moves, strict=True) if not y and m.kind != "submit"]
    for i, first in enumerate(good[:1] + rng.sample(bad, min(2, len(bad))), start=1):
        more, _ = _state_rows(book, [(first, reader(first))], reader, q.gold, q.alternatives, sid * 4 + i)
        rows += more
    return rows


# -- acting a chooser out on the host -----------------------------------------------------------------------
Chooser = Callable[[MoveBook, list[Move]], Move]


def play(book: MoveBook, choose: Chooser, reader: Any, max_steps: int = 4) -> tuple[Move | None, list[Move]]:
    """Run a chooser as the small policy would, reads on the host: its SUBMIT (None when it made none in
    ``max_steps``) and the moves of the step it submitted in."""
    book.reads = {}
    done: list[str] = []
    outs: list[str] = []
    for _ in range(max_steps):
        moves = book.step_moves(done, [o for o in outs if o])
        move = choose(book, moves)
        if move.kind == "submit":
            return move, moves
        out = reader(move)
        book.record_read(move.code, out)
        done.append(move.code)
        outs.append(out)
    return None, []


def act(book: MoveBook, choose: Chooser, reader: Any, max_steps: int = 4) -> tuple[str, Any, float]:
    """:func:`play`'s ending: ``(ending, value, confidence)`` with ending ``submitted`` (supported, its support
    class's confidence at the class threshold), ``extracted`` or ``none`` (no SUBMIT). The chooser fit of the
    calibration is left out: these are the figures the ranker was chosen by."""
    move, _ = play(book, choose, reader, max_steps)
    if move is None:
        return "none", None, 0.0
    c = move.candidate
    if c is None or not c.supported:
        return "extracted", c.value if c else None, 0.25
    cal = load_calibration()
    conf = cal.confidence(support_class(c, book.answer_type, data_shape(book)))
    return ("submitted" if conf >= cal.threshold else "extracted"), c.value, conf


scripted: Chooser = scripted_choice


def ranked(ranker: MoveRanker) -> Chooser:
    return lambda book, moves: ranker.rank(book, moves)[0]


def evaluate(qs: list[Question], contexts: dict[str, str], choosers: dict[str, Chooser]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, choose in choosers.items():
        ends: Counter[str] = Counter()
        right: Counter[str] = Counter()
        by_kind: dict[str, Counter[str]] = defaultdict(Counter)
        for q in qs:
            book = book_for(q, contexts[q.source])
            ending, value, _ = act(book, choose, host_reader(book.data))
            ok = value is not None and matches(value, q.gold, q.alternatives)
            ends[ending] += 1
            right[ending] += ok
            by_kind[q.kind]["n"] += 1
            by_kind[q.kind]["solved"] += ending == "submitted" and ok
        n = max(1, len(qs))
        out[name] = {
            "n": len(qs),
            "submitted_solved_pct": round(100 * right["submitted"] / n, 1),
            "submitted_precision_pct": round(100 * right["submitted"] / max(1, ends["submitted"]), 1),
            "solved_pct": round(100 * (right["submitted"] + right["extracted"]) / n, 1),
            "ended": dict(ends),
            "by_kind": {k: round(100 * c["solved"] / c["n"], 1) for k, c in sorted(by_kind.items())},
        }
    return out


def held_back(source: str, seed: int) -> bool:
    """A fifth of the training files, by a seeded hash of the file's name: never fit, measured."""
    return int(hashlib.sha256(f"{seed}:{source}".encode()).hexdigest(), 16) % 5 == 0


def fit(rows: list[Row], c: float, seed: int, drop: tuple[str, ...] = ()) -> MoveRanker:
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = DictVectorizer()
    x = vec.fit_transform([{n: v for n, v in f.items() if not any(d in n for d in drop)} for _, f, _ in rows])
    y = [label for *_, label in rows]
    model = LogisticRegression(C=c, max_iter=3000, random_state=seed)
    model.fit(x, y)
    weights = {n: round(float(w), 5) for n, w in zip(vec.get_feature_names_out(), model.coef_[0], strict=True)}
    return MoveRanker({n: w for n, w in weights.items() if abs(w) >= 0.002}, round(float(model.intercept_[0]), 5))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.train_ranker", description=__doc__.split("\n\n")[0])
    p.add_argument("--limit", type=int, default=3000, help="training questions labelled (seeded sample)")
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--c", type=float, default=0.3, help="inverse L2 strength of the logistic regression")
    p.add_argument("--dev-limit", type=int, default=None)
    p.add_argument("--no-cues", action="store_true", help="fit without the hand-written cue features")
    p.add_argument("--all-moves", action="store_true", help="offer every move the output type admits")
    p.add_argument("--out", default=None)
    p.add_argument("--write", action="store_true", help=f"ship the ranker as {RANKER_PATH.name}")
    args = p.parse_args(argv)
    global ALL_MOVES
    ALL_MOVES = args.all_moves
    from benchmarks.corpus.build import build
    from benchmarks.real_files.__main__ import limited
    from benchmarks.real_files.dataset import build_dataset

    start = time.perf_counter()
    train = build("train")
    qs = limited(train.questions, args.limit, args.seed)
    fit_qs = [q for q in qs if not held_back(q.source, args.seed)]
    back = [q for q in qs if held_back(q.source, args.seed)]
    rng = random.Random(args.seed)
    rows: list[Row] = []
    for i, q in enumerate(fit_qs):
        rows += label(q, train.contexts[q.source], rng, i)
    labelled = time.perf_counter() - start
    ranker = fit(rows, args.c, args.seed, ("|cue=", "|qkind=") if args.no_cues else ())
    dev = build_dataset("dev")
    dev_qs = limited(dev.questions, args.dev_limit, args.seed)
    rng_choice = random.Random(args.seed)
    choosers = {
        "ranked": ranked(ranker),
        "scripted": scripted,
        "random": lambda book, moves: rng_choice.choice(moves),
    }
    given = [f"--limit {args.limit}" if args.limit != 3000 else "", "--all-moves" if args.all_moves else ""]
    given += [
        "--no-cues" if args.no_cues else "",
        f"--c {args.c}" if args.c != 0.3 else "",
        "--write" if args.write else "",
    ]
    command = " ".join(["python -m benchmarks.train_ranker", *(g for g in given if g)])
    meta = {
        "data": "benchmarks.corpus train split (training files and phrasing families), held-back files excluded",
        "questions": len(fit_qs),
        "rows": len(rows),
        "positives": sum(r[2] for r in rows),
        "features": len(ranker.weights),
        "c": args.c,
        "cue_features": not args.no_cues,
        "all_moves": args.all_moves,
        "seed": args.seed,
        "command": command,
    }
    ranker = MoveRanker(ranker.weights, ranker.bias, meta)
    result = {
        **meta,
        "load": list(os.getloadavg()),
        "label_seconds": round(labelled, 1),
        "held_back": evaluate(back, train.contexts, choosers),
        "dev": evaluate(dev_qs, dev.contexts, choosers),
        "seconds": round(time.perf_counter() - start, 1),
        "top_weights": dict(sorted(ranker.weights.items(), key=lambda kv: -abs(kv[1]))[:40]),
    }
    if args.write:
        ranker.save(RANKER_PATH)
    emit(result, args.out)
    return result


if __name__ == "__main__":
    main()
