"""The groupings a most-common read may rank by in place of whole values: a path's directory ("which directory
holds the most files": ``most_common(..., by='dir')``), a date's year ("in which year were the most versions
released": ``by='year'``) and a value's first part before a slash ("which prefix has the most zones":
``by='head'``). Each names the fields it fits, memoized per run. Split from
:mod:`~dspy_rlm.profiles.rankings`, which offers and weighs the reads."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.field_words import DATE_VALUE, DIRECTORY_WORDS

__all__ = ["GROUPINGS", "grouped_fields", "part_unheld"]

_PATH = re.compile(r"/?[\w.@+~-]+(?:/[\w.@+~-]+)+/?")  # relative or absolute
_YEAR_WORDS = frozenset({"year", "years"})
_HEAD_WORDS = frozenset({"prefix", "prefixes", "top-level", "slash"})  # "the part before the first slash"
_SLASHED = re.compile(r"[\w.@+~-]+/[\w.@+~/-]*\w")  # "Europe/Paris", "text/plain": a first part, then the rest

GROUPINGS = {
    "dir": (DIRECTORY_WORDS, lambda v: bool(_PATH.fullmatch(v)), "the directory holding the most {f} paths"),
    "year": (_YEAR_WORDS, lambda v: bool(DATE_VALUE.fullmatch(v)), "the year most {f} values fall in"),
    "head": (_HEAD_WORDS, lambda v: bool(_SLASHED.fullmatch(v)), "the first part (before a slash) most {f} have"),
}
"""by= of :func:`~dspy_rlm.library.superlatives.most_common`: (the words that ask for it, whether a value fits it,
how a read says it)."""


def grouped_fields(book: Any, var: str, by: str) -> list[str]:
    """Where the question says a word of the grouping ``by`` ("which *directory*", "in which *year*"), the fields
    of the first 2,000 records whose values mostly fit it (paths with a directory; dates) (memoized)."""
    words, fits, _ = GROUPINGS[by]
    if not set(st.words(book.text_q.casefold())) & words:
        return []
    memo = ("grouped_fields", var, by)
    if memo not in book.memo:
        s, out = book.structs[var], []
        for name in s.field_names[:12]:
            values = [v.strip() for v in (r.get(name) for r in s.records[:2000]) if v and v.strip()]
            if len(values) >= 3 and sum(fits(v) for v in values) >= 0.8 * len(values):
                out.append(name)
        book.memo[memo] = out
    return list(book.memo[memo])


def part_unheld(book: Any, var: str, field: str) -> str | None:
    """The grouping whose part of a value the question asks for ("which region, *the part before the slash*",
    "which *directory*"), where ``field``'s values mostly lack it: ranking them whole answers something else (an
    offset column of a time-zone table for zone names held in its comments); None where none is asked or they fit."""
    said = set(st.words(book.text_q.casefold()))
    for by in ("head", "dir"):
        words, fits, _ = GROUPINGS[by]
        if not said & words:
            continue
        values = [v.strip() for v in (r.get(field) for r in book.structs[var].records[:2000]) if v and v.strip()]
        if values and sum(fits(v) for v in values) < 0.5 * len(values):
            return by
    return None
