"""A count of records where the question counts distinct things: "how many *distinct* locale names are mapped to
the koi8-c database?" over a table that lists each mapping twice (once per lookup direction) counted 6 records,
3 names. A doubt of :data:`dspy_rlm.profiles.doubts.DOUBTS`."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.field_words import CONTEXT_FIELDS
from dspy_rlm.profiles.move import Move

__all__ = ["repeats_counted"]

_DISTINCT = re.compile(r"\b(?:distinct|different|unique)\b", re.IGNORECASE)
_SCAN = 20_000
"""The records a count's records are taken from (a huge text's head)."""


def _counted(s: st.Structure, move: Move) -> list[st.Record] | None:
    """The records the count ``move`` counts (among the first :data:`_SCAN`), or None for a count this does not
    follow."""
    records, args = s.records[:_SCAN], [str(a) for a in move.args]
    if move.helper == "count_if" and len(args) >= 3:
        field, test, arg = args[0], args[1], args[2]
        return [r for r in records if lookup.passes(lookup.value_in(r, field), test, arg)]
    if move.helper == "count_where" and len(args) >= 2:  # as count_where compares
        return [r for r in records if lookup._same(lookup.value_in(r, args[0]) or "", args[1])]
    return None


def repeats_counted(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    """Where the question asks how many *distinct* (different, unique) things, a count of records is no answer
    when two records it counts write the same value of a field other than the one tested, or the same key: the
    records repeat what is counted, and which of their fields names it is unsure."""
    if not move.kind.startswith("count") or not _DISTINCT.search(book.text_q):
        return None
    counted = _counted(book.structs[move.var], move)
    if not counted:
        return None
    tested = str(move.args[0])
    seen: dict[str, set[str]] = {}
    for r in counted:
        own = [] if r.key == lookup.value_in(r, tested) else [("(key)", r.key)]  # (a key that is the value tested)
        for name, value in [*own, *r.fields]:
            v = " ".join(value.casefold().split())
            if name == tested or name in CONTEXT_FIELDS or not v:
                continue
            if v in seen.setdefault(name, set()):
                where = "key" if name == "(key)" else repr(name)
                return f"the question counts distinct things, and two records counted repeat their {where}"
            seen[name].add(v)
    return None
