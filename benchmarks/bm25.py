"""BM25 for ``find_relevant``: the in-house pure-Python index against ``bm25s`` (numpy, sparse).

The workload is ``find_relevant(text, query, method="bm25")`` on a str: the text cut into 1,000-character
chunks (the helper's own chunker), one index built over the chunks, then queries of 2-4 words. The text is
synthetic prose: words drawn from a Zipf distribution (s = 1.1) over a 30,000-word vocabulary, so term
frequencies look like natural text's. Both indexes use the same tokens (``\\w+``, lower-cased), Okapi BM25 with
k1 = 1.5, b = 0.75 and Lucene's idf; quality is the overlap of each query's top 10 with the in-house top 10.

Usage::

    python -m benchmarks.bm25 [--sizes-mb 1 10 50] [--queries 20] [--out benchmarks/results/bm25.json]

Prints one JSON object (and writes it to ``--out``): per size, build seconds, median / p90 query milliseconds,
the RSS the index added, the mean top-10 overlap, the time to the first answer (build + one query: the index
is built once per context and reused) and how many queries bm25s needs to pay back its slower build.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from dspy_rlm.library.ranking import BM25
from dspy_rlm.library.textkit import _chunk_spans

_WORD = re.compile(r"\w+")
CHUNK = 1000
VOCAB = 30_000


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def make_vocab(rng: random.Random) -> list[str]:
    syllables = [c + v for c in "bcdfghjklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]
    words: set[str] = set()
    while len(words) < VOCAB:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))))
    return sorted(words, key=lambda w: (len(w), w))  # short words are the frequent ones


def make_text(n_bytes: int, vocab: list[str], seed: int) -> str:
    gen = np.random.default_rng(seed)
    ranks = np.arange(1, len(vocab) + 1)
    probs = ranks**-1.1
    probs /= probs.sum()
    n_words = n_bytes // 6
    picks = gen.choice(len(vocab), size=n_words, p=probs)
    words = [vocab[i] for i in picks]
    for i in range(0, n_words, 15):  # sentences
        words[i] = words[i].capitalize()
        if i:
            words[i - 1] += "."
    return " ".join(words)[:n_bytes]


def make_queries(vocab: list[str], n: int, seed: int) -> list[str]:
    """2-4 words each, from the frequent, middle and rare parts of the vocabulary."""
    rng = random.Random(seed)
    bands = (vocab[:300], vocab[300:5000], vocab[5000:])
    return [" ".join(rng.choice(rng.choice(bands)) for _ in range(rng.randint(2, 4))) for _ in range(n)]


def inhouse_top(index: BM25, query: str, k: int) -> list[int]:
    scores = index.scores(query)
    return [i for i in sorted(range(len(scores)), key=lambda i: -scores[i]) if scores[i] > 0][:k]


class Bm25s:
    """bm25s with find_relevant's tokens; ``top`` ranks like the in-house index (ties by position)."""

    def __init__(self, texts: list[str]) -> None:
        import bm25s

        tokenized = bm25s.tokenize(texts, lower=True, token_pattern=r"\w+", stopwords=None, show_progress=False)
        self.vocab = tokenized.vocab
        self.index = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
        self.index.index(tokenized, show_progress=False)

    def top(self, query: str, k: int) -> list[int]:
        terms = [t for t in dict.fromkeys(_WORD.findall(query.lower())) if t in self.vocab]
        if not terms:
            return []
        scores = self.index.get_scores(terms)
        order = np.argsort(-scores, kind="stable")
        return [int(i) for i in order[:k] if scores[i] > 0]


def _timed(fn: Any, *args: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - started


def measure(size_mb: float, vocab: list[str], queries: list[str], seed: int) -> dict[str, Any]:
    text = make_text(int(size_mb * 2**20), vocab, seed)
    spans = _chunk_spans(text, CHUNK, 0)
    texts = [text[s:e] for s, e in spans]
    result: dict[str, Any] = {"size_mb": size_mb, "chunks": len(texts)}
    tops: dict[str, list[list[int]]] = {}
    for name, build, top in (("inhouse", BM25, inhouse_top), ("bm25s", Bm25s, Bm25s.top)):
        gc.collect()
        rss = _rss_mb()
        index, build_s = _timed(build, texts)
        added = _rss_mb() - rss
        times, tops[name] = [], []
        for query in queries:
            hits, seconds = _timed(top, index, query, 10)
            times.append(seconds * 1000)
            tops[name].append(hits)
        result[name] = {
            "build_s": round(build_s, 3),
            "query_ms_median": round(statistics.median(times), 2),
            "query_ms_p90": round(sorted(times)[int(0.9 * (len(times) - 1))], 2),
            "index_rss_mb": round(added, 1),
        }
        del index
    # find_relevant keeps the index of the last str ranked: one build, then every query of the run.
    ours, theirs = result["inhouse"], result["bm25s"]
    result["first_query_s"] = {
        name: round(r["build_s"] + r["query_ms_median"] / 1000, 3) for name, r in (("inhouse", ours), ("bm25s", theirs))
    }
    saved_ms = ours["query_ms_median"] - theirs["query_ms_median"]
    extra_s = theirs["build_s"] - ours["build_s"]
    result["bm25s_pays_off_after_queries"] = (
        0 if extra_s <= 0 else None if saved_ms <= 0 else int(extra_s * 1000 / saved_ms) + 1
    )
    overlaps = [len(set(a) & set(b)) / max(len(a), 1) for a, b in zip(tops["inhouse"], tops["bm25s"])]
    result["top10_overlap_mean"] = round(statistics.mean(overlaps), 4)
    result["top10_identical_order"] = sum(a == b for a, b in zip(tops["inhouse"], tops["bm25s"]))
    result["queries"] = len(queries)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes-mb", type=float, nargs="+", default=[1, 10, 50])
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    try:
        import bm25s
    except ImportError:
        parser.error("the comparison needs bm25s: pip install 'dspy-rlm[bench]' (or pip install bm25s)")

    vocab = make_vocab(random.Random(args.seed))
    queries = make_queries(vocab, args.queries, args.seed)
    report = {
        "benchmark": "bm25",
        "command": "python -m benchmarks.bm25 " + " ".join(sys.argv[1:] if argv is None else argv),
        "machine": f"{platform.machine()} {os.cpu_count()} cpus, Python {platform.python_version()}",
        "bm25s_version": bm25s.__version__,
        "chunk_chars": CHUNK,
        "sizes": [measure(size, vocab, queries, args.seed) for size in args.sizes_mb],
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
