"""Fit the learned cue router (:mod:`dspy_rlm.profiles.router`) on the training corpus's questions and kinds.

    python -m benchmarks.train_router --out benchmarks/results/train_router.json          # fit + measure
    python -m benchmarks.train_router --write                                             # ship it

Each training question (``benchmarks.corpus``, training files and phrasing families only; the questions of the
fifth of the files :func:`benchmarks.train_ranker.held_back` keeps apart are never fit) is a positive for the
routed kind it is of (a count, a most common value) and a negative for the others. One logistic regression
(scikit-learn) per kind over :func:`~dspy_rlm.profiles.router.router_terms` of the question as the move book
reads it (contractions opened, cue words' swapped letters written right). Measured on the held-back files and
on the dev split: how often the router alone names a question's kind where the cue words name none, and the
scripted rules and the learned ranker acted out on the host (no LM) with the router and without it. The test
split is not read.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from typing import Any

from benchmarks.report import emit
from dspy_rlm.profiles.router import ROUTED, ROUTER_PATH, CueRouter, load_router, router_terms
from dspy_rlm.profiles.spans import uncontracted
from dspy_rlm.profiles.spellings import respelled
from dspy_rlm.profiles.vocabulary import CUE_WORDS


def read_as(question: str, context: str) -> str:
    """The question as the move book reads it (:class:`~dspy_rlm.profiles.moves.MoveBook`'s ``text_q``)."""
    return respelled(uncontracted(question), CUE_WORDS, [context])


def fit(texts: list[str], kinds: list[str], c: float, seed: int) -> CueRouter:
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = DictVectorizer()
    x = vec.fit_transform([dict.fromkeys(router_terms(t), 1.0) for t in texts])
    weights, bias = {}, {}
    for kind in ROUTED:
        model = LogisticRegression(C=c, max_iter=3000, random_state=seed)
        model.fit(x, [k == kind for k in kinds])
        named = zip(vec.get_feature_names_out(), model.coef_[0], strict=True)
        weights[kind] = {str(n): round(float(w), 5) for n, w in named if abs(w) >= 0.002}
        bias[kind] = round(float(model.intercept_[0]), 5)
    return CueRouter(weights, bias)


def routing(router: CueRouter, texts: list[str], kinds: list[str]) -> dict[str, Any]:
    """Per routed kind: questions of it and the router's hits; questions of other kinds it routed there."""
    out: dict[str, Any] = {}
    for kind in ROUTED:
        said = [kind in router.routed(t) for t in texts]
        n = sum(k == kind for k in kinds)
        hit = sum(s and k == kind for s, k in zip(said, kinds, strict=True))
        false = sum(s and k != kind for s, k in zip(said, kinds, strict=True))
        out[kind] = {"n": n, "routed": hit, "recall_pct": round(100 * hit / max(1, n), 1), "false_routes": false}
    return out


def acted(qs: list[Any], contexts: dict[str, str], routed: bool) -> dict[str, Any]:
    from benchmarks import train_ranker as tr
    from dspy_rlm.profiles.moves import MoveBook
    from dspy_rlm.profiles.ranker import load_ranker

    def book_for(q: Any, context: str) -> MoveBook:
        return MoveBook({"question": q.question}, {"context": context}, {"answer": tr.TYPES[q.output_type]},
                        routed=routed)  # fmt: skip

    saved, tr.book_for = tr.book_for, book_for
    try:
        ranker = load_ranker()
        choosers = {"scripted": tr.scripted, **({"ranked": tr.ranked(ranker)} if ranker else {})}
        return tr.evaluate(qs, contexts, choosers)
    finally:
        tr.book_for = saved


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.train_router", description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--c", type=float, default=0.3, help="inverse L2 strength of the logistic regressions")
    p.add_argument("--no-act", action="store_true", help="with --write, skip acting the choosers out")
    p.add_argument("--out", default=None)
    p.add_argument("--write", action="store_true", help=f"ship the router as {ROUTER_PATH.name}")
    args = p.parse_args(argv)
    from benchmarks.corpus.build import build
    from benchmarks.real_files.dataset import build_dataset
    from benchmarks.train_ranker import held_back

    start = time.perf_counter()
    train = build("train")
    fit_qs = [q for q in train.questions if not held_back(q.source, args.seed)]
    back = [q for q in train.questions if held_back(q.source, args.seed)]
    texts = [read_as(q.question, train.contexts[q.source]) for q in fit_qs]
    router = fit(texts, [q.kind for q in fit_qs], args.c, args.seed)
    given = [f"--c {args.c}" if args.c != 0.3 else "", "--write" if args.write else ""]
    command = " ".join(["python -m benchmarks.train_router", *(g for g in given if g)])
    meta = {
        "data": "benchmarks.corpus train split (training files and phrasing families), held-back files excluded",
        "questions": len(fit_qs),
        "kinds": dict(Counter(q.kind for q in fit_qs)),
        "features": {k: len(w) for k, w in router.weights.items()},
        "c": args.c,
        "seed": args.seed,
        "command": command,
    }
    router = CueRouter(router.weights, router.bias, meta)
    dev = build_dataset("dev")
    back_texts = [read_as(q.question, train.contexts[q.source]) for q in back]
    dev_texts = [read_as(q.question, dev.contexts[q.source]) for q in dev.questions]
    result: dict[str, Any] = {
        **meta,
        "load": list(os.getloadavg()),
        "routing": {
            "held_back": routing(router, back_texts, [q.kind for q in back]),
            "dev": routing(router, dev_texts, [q.kind for q in dev.questions]),
        },
    }
    if args.write:
        router.save(ROUTER_PATH)
        load_router.cache_clear()
    if args.write and not args.no_act:  # the choosers act with the router shipped
        result["acted"] = {
            split: {"with_router": acted(qs, ctx, True), "without": acted(qs, ctx, False)}
            for split, qs, ctx in (("held_back", back, train.contexts), ("dev", dev.questions, dev.contexts))
        }
    result["seconds"] = round(time.perf_counter() - start, 1)
    top = {k: sorted(w.items(), key=lambda kv: -abs(kv[1]))[:25] for k, w in router.weights.items()}
    result["top_weights"] = {k: dict(v) for k, v in top.items()}
    emit(result, args.out)
    return result


if __name__ == "__main__":
    main()
