"""What a list's entries or a table's rows say of an existence check (:mod:`~dspy_rlm.profiles.existence`): a list of
identifiers that holds the one asked only inside longer entries lacks it ("GPL-2.0" beside ``GPL-2.0-only``), and a
row commented out is listed, not on."""

from __future__ import annotations

from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.reads import norm
from dspy_rlm.profiles.vocabulary import ID_LIKE

__all__ = ["commented_row", "inside_entries"]


def inside_entries(book: Any, var: str, key: Any) -> str | None:
    """An entry holding the identifier ``key`` inside it, where the records are a list of entries, each keyed by
    itself with no fields (a JSON array of license identifiers) and none is ``key``: the list lacks it as an entry."""
    s = book.structs[var]
    records = s.records[:200]
    entries = len(records) >= 3 and all(r.key and not r.fields for r in records) and s.kind != "lines"
    if not entries or key.is_key or not key.records or not ID_LIKE.search(key.text):
        return None
    return next((r.key for r in s.records if lookup.matches(key.text, r.key) and norm(r.key) != norm(key.text)), None)


def commented_row(book: Any, var: str, key: Any) -> bool:
    """Whether ``key`` keys a row of a table whose rows are commented out (``# en_US.UTF-8 UTF-8``): it is
    listed, and whether it is on is what the ``#`` says, no existence."""
    s = book.structs[var]
    if s.detail != "commented whitespace":
        return False
    record = lookup.record_of(book.texts[var], key.text)
    return isinstance(record, st.Record) and record.text.lstrip().startswith("#")
