"""A name the question says as two words that the text writes joined (``originalVersion``, ``max_retries``,
``font-size``) where no record's field has it: a doubt of a field read whose field is one of the two words ("what
was the *original version* of plexus-utils?" reading a dependency's ``version`` where a property ending in
``.originalVersion`` holds the answer, outside the records parsed)."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.reads import parts
from dspy_rlm.profiles.vocabulary import STOP

__all__ = ["joined_unparsed"]


def joined_unparsed(book: Any, move: Any, kind: Any, key: Any, text: str) -> str | None:
    """A doubt (:data:`~dspy_rlm.profiles.doubts.DOUBTS`) of a field read: the question says a word just before
    the field's name (or the one before it), and the text writes the two joined as one name no field of the
    records has."""
    if move.kind != "field" or len(move.args) < 2:
        return None
    field = str(move.args[1]).casefold()
    memo = ("joined unparsed", move.var, field)
    if memo not in book.memo:
        book.memo[memo] = _joined(book, move.var, field, text)
    joined = book.memo[memo]
    return f"the question names {joined!r}, which the text writes outside the fields read" if joined else None


def _joined(book: Any, var: str, field: str, text: str) -> str | None:
    said = parts(book.text_q)
    fields = {st.name_form(f) for f in book.structs[var].field_names}
    head = text[:1_000_000]
    for i, word in enumerate(said):
        if word.casefold() != field:
            continue
        for before in said[max(0, i - 2) : i]:  # the word before, or the one before it ("original upstream version")
            if len(before) < 3 or before.casefold() in STOP:
                continue
            rx = re.compile(rf"(?<![A-Za-z0-9]){re.escape(before)}[_-]?{re.escape(word)}(?![A-Za-z0-9])", re.I)
            m = rx.search(head)
            if m and st.name_form(m.group(0)) not in fields:
                return m.group(0)
    return None
