"""The column a question names by the sort of value it asks: "which port number does the ssh service use?" over
a table whose columns have no names (``/etc/services``: ``ssh  22/tcp``) asks the one column of numbers. A
question names an unnamed column only so; "the number of ..." asks a count, and a header's names are matched as
names elsewhere (:func:`~dspy_rlm.profiles.reads.ranked_names`)."""

from __future__ import annotations

import re

from dspy_rlm.library import structure as st

__all__ = ["asks_number", "number_column", "number_spans"]

_ASKS_NUMBER = re.compile(
    r"\b(?:what|which)\s+(?:[a-z][\w-]*\s+){0,2}?numbers?\b(?!\s+of\b)|\b[a-z][\w-]*\s+numbers?\s+(?:does|do|is|did)\b",
    re.IGNORECASE,
)
"""A number asked as a value ("which port number does ...", "what number is ...", "its protocol number is"), not
a count ("the number of ..."): a question word before it, or the verb after it."""
_UNNAMED = re.compile(r"col\d+")
_NUMBER_LED = re.compile(r"[-+]?\d+(?:[/.][A-Za-z0-9]+)?")
"""A whole value that is a number, alone or with a unit after a slash (``22/tcp``) or a dot."""
_SHARE = 0.75


def asks_number(text_q: str) -> bool:
    """Whether the question asks a number as a value ("which port number ..."), not a count."""
    return _ASKS_NUMBER.search(text_q) is not None and re.search(r"\bhow\s+many\b", text_q, re.I) is None


def number_column(text_q: str, s: st.Structure) -> list[str]:
    """The one column of numbers of a table whose columns are unnamed, where the question asks a number as a
    value (``col2`` of ``ssh  22/tcp``); none where several columns hold numbers, or the question counts."""
    if s.kind != "table" or not asks_number(text_q):
        return []
    columns = [f for f in s.field_names if f != "comment"]
    if len(columns) < 2 or not all(_UNNAMED.fullmatch(f) for f in columns):
        return []
    rows = s.records[:2000]
    numbered = []
    for f in columns:
        values = [v for r in rows if (v := r.get(f)) is not None]
        if values and sum(1 for v in values if _NUMBER_LED.fullmatch(v.strip())) >= _SHARE * len(values):
            numbered.append(f)
    return numbered if len(numbered) == 1 else []


_NUMBER_PHRASE = re.compile(r"\b[a-z][\w-]*\s+numbers?\b(?!\s+of\b)", re.IGNORECASE)


def number_spans(text_q: str, s: st.Structure) -> list[tuple[int, int]]:
    """Where the question says the number it asks ("what *port number* is that service on?"), when that names a
    column (:func:`number_column`): no key phrase ("port" keys the records whose names hold it)."""
    return [m.span() for m in _NUMBER_PHRASE.finditer(text_q)] if number_column(text_q, s) else []
