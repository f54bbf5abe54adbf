"""Doubts: what makes every value of a read unsupported, whatever its kind vouched for (a second condition the
read does not test, a ranking asked of a lookup, a second step, a huge text read only at its head). Each check
takes the book, the move, its kind, the question's key phrase it reads by and the text, and says why, or None;
:func:`dspy_rlm.profiles.kinds.evaluate` gives the first reason of :data:`DOUBTS`. Adding a doubt is one
function in that tuple."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.library.tail import reads_whole
from dspy_rlm.profiles.conditions import chained, other_condition, unread_test
from dspy_rlm.profiles.move import Move
from dspy_rlm.profiles.phrases import is_stop
from dspy_rlm.profiles.reads import field_stems
from dspy_rlm.profiles.vocabulary import COMMENT_WORDS, SYNONYMS

ONE_CONDITION = ("count", "count_where", "count_if")
"""The counts that test one condition of the records."""
LOOKUPS = ("record", "field", "search")
"""The reads of one record."""


def _unread(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "how many packages do not have priority optional": count_where counts those that do
    unread = unread_test(book)
    return f"no read tests the question's {unread!r}" if unread else None


def _other_condition(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "how many packages are essential and required": count_where counts the required ones
    tested = key.text if key is not None else move.args[-1] if move.kind == "count_if" else None
    if move.kind not in ONE_CONDITION or not tested:
        return None
    other = other_condition(book, move.var, str(tested))
    return f"the question also says {other!r}" if other else None


def _ranking_asked(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    ranked = move.kind in LOOKUPS and book.cues & {"most_common", "max", "min"}  # one record ranks nothing
    return "a ranking is asked; one record's value is none" if ranked else None


def _second_step(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "...belongs to; how many entries does that setting have?": one read answers one step of two
    back = chained(book)
    return f"the question asks a second step ({back!r})" if back else None


def _head_only(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # a count or a ranking of a huge text's head is no answer for it all
    if not getattr(kind, "every_record", False) or reads_whole(text, move.helper, move.args):
        return None
    return f"read only the first {book.structs[move.var].parsed_chars:,} characters of the text"


def _apart(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "which character is assigned code 163 in the TR font?": record_of('name') reads the font's name line; a
    # phrase the question also names that few records hold, as a whole value or a number, is in the record
    # that answers it (the record read by another phrase of the question that lacks it answers something else)
    if move.kind not in ("record", "field") or key is None:
        return None
    record = lookup.record_of(text, key.text)
    if not isinstance(record, st.Record):
        return None
    for other in book.keys.get(move.var, []):
        sure = ((other.is_key or other.is_value) and not is_stop(other.text)) or _NUMBER.fullmatch(other.text)
        few = sure and 1 <= other.records <= 3 and not other.inner
        if other is not key and few and not lookup._has(record, other.text):
            return f"the question also names {other.text!r}, which the record read does not hold"
    return None


def _in_comments(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "according to the header comments, what is the font's full name?": no record holds a comment, unless a
    # field is one (a table's trailing "# comment", a "description" the question's word names)
    said = set(st.words(book.text_q.casefold())) & COMMENT_WORDS
    if not said or move.kind == "search":
        return None
    named = {st.stem(w) for group in SYNONYMS if said & group for w in group}
    if any(field_stems(f) & named for f in book.structs[move.var].field_names):
        return None
    return f"the question points to the text's comments ({sorted(said)[0]!r}), which its records leave out"


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
DOUBTS = (_head_only, _second_step, _ranking_asked, _other_condition, _unread, _apart, _in_comments)
"""What makes every value of a read unsupported, whatever its kind vouched for: each check says why, or None.
The first that says why is the reason given."""
