"""Whether a key phrase of the question names one record (:func:`specific`), and the reason a read by it gives
(:func:`why_specific`): the support of a lookup's value rests on it."""

from __future__ import annotations

from typing import Any

from dspy_rlm.profiles.phrases import holding
from dspy_rlm.profiles.reads import norm

__all__ = ["specific", "why_specific"]


def specific(key: Any, book: Any = None, var: str = "") -> bool:
    """The key names one record: it is a record's key (one record's, where another key phrase of the question
    could tell several apart: "the RuntimeLibrary whose value is X"), or a phrase of at most three records that
    no record's key beside it names better ("the sidebar (div.sphinxsidebar)": the word *sidebar* is in
    ``div.sidebar``, another record)."""
    if key is None or not (key.is_key or (key.records <= 3 and not key.inner)):
        return False
    if book is not None and not (key.is_key or key.is_value) and _keyed_beside(book, var, key):
        return False
    return book is None or not key.is_key or not _shared_key(book, var, key)


def _keyed_beside(book: Any, var: str, key: Any) -> bool:
    return any(k.is_key and k.records and not k.hop for k in book.keys.get(var, []) if k is not key)


def _shared_key(book: Any, var: str, key: Any) -> bool:
    memo = ("shared key", var, key.text)
    if memo not in book.memo:
        said = norm(key.text)
        named = sum(norm(r.key) == said for r in holding(book.texts[var], book.structs[var], key.text)[:50]) > 1
        others = any(k.is_key or k.is_value for k in book.keys.get(var, []) if k is not key and k.records)
        book.memo[memo] = named and others
    return bool(book.memo[memo])


def why_specific(key: Any, book: Any = None, var: str = "") -> str:
    """Why a read by ``key`` is vouched for, or not."""
    return "the record matches the question's key" if specific(key, book, var) else "the key matches several records"
