"""Doubts of a count or a ranking (:data:`~dspy_rlm.profiles.doubts.DOUBTS`): what makes its result no answer to
the question, whatever its kind vouched for: the records asked are those lacking a field (:func:`lacking_unread`),
those having a field named before a word for records (:func:`unit_unapplied`), records holding the value among
other parts (:func:`parts_uncounted`), blocks apart that share a heading (:func:`blocks_alike`), live settings
beside commented-out ones (:func:`mixed_count`), records of the field read none of which holds a name the
question gives (:func:`named_apart`), or one record swallowing lines enough for many (:func:`swallowing_record`).
Each takes the book, the move, its kind, the key phrase and the text, and says why, or None. Split from
:mod:`~dspy_rlm.profiles.doubts`."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.library.formats import is_comment
from dspy_rlm.profiles.field_words import CONTEXT_FIELDS
from dspy_rlm.profiles.lacking import lacked_fields
from dspy_rlm.profiles.move import Move
from dspy_rlm.profiles.reads import unit_after
from dspy_rlm.profiles.scopes import block_runs

__all__ = [
    "blocks_alike",
    "lacking_unread",
    "mixed_count",
    "named_apart",
    "parts_uncounted",
    "swallowing_record",
    "unit_unapplied",
]


def lacking_unread(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "how many blog posts have no tags?": a count of the posts holding "blog" counts them all
    if not move.kind.startswith("count") or move.kind == "count_empty":
        return None
    lacked = lacked_fields(book, move.var)
    return f"the question counts the records lacking {lacked[0]!r}; this count does not" if lacked else None


def unit_unapplied(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "how many Files entries are under the FSFULLR license?": the records having Files are counted; a count of
    # those holding FSFULLR counts the License paragraph keyed FSFULLR too
    if not move.kind.startswith("count"):
        return None
    unit = next((f for f in _unit_fields(book, move.var) if f not in move.args), None)
    return f"the question counts the records having {unit!r}" if unit else None


def _unit_fields(book: Any, var: str) -> list[str]:
    """The fields named before a word for records ("Files entries") that some records lack (once per run)."""
    memo = ("unit fields", var)
    if memo not in book.memo:
        records = book.structs[var].records[:5000]
        named = [f for f in book.structs[var].field_names[:200] if unit_after(book.text_q, f)]
        book.memo[memo] = [f for f in named if 0 < sum(1 for r in records if (r.get(f) or "").strip()) < len(records)]
    return list(book.memo[memo])


_NAMES_TESTED = re.compile(r"\bnames?\s+(?:that\s+|which\s+)?(?:starts?|begins?|ends?|contains?)\b", re.IGNORECASE)
_NAMING_FIELDS = ("name", "key", "id", "title", "label")


def names_tested(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    """A count's doubt: the question tests the records' names ("how many functions whose *names begin with*
    open_?") and the count tests a field that names nothing (what a function runs)."""
    if move.kind != "count_if" or not move.args or not _NAMES_TESTED.search(book.text_q):
        return None
    field = st.name_form(str(move.args[0]))
    if any(n in field for n in _NAMING_FIELDS):
        return None
    return f"the question tests names; this count tests {move.args[0]!r}"


def mixed_count(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # over a sample config read with its commented-out settings beside its live ones (wgetrc), which of them "the
    # settings" are is unsure
    if move.kind.startswith("count") and book.structs[move.var].detail == "commented beside live":
        return "live settings beside commented-out ones: which are counted is unsure"
    return None


def parts_uncounted(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "how many syscalls are in the network group?": groups="network" 18 times, "descriptor,network" once; a count of
    # the values equal to it leaves out the records holding it among other parts
    if move.helper != "count_where" or len(move.args) < 2 or not isinstance(move.args[1], str):
        return None
    field, value = str(move.args[0]), move.args[1].casefold().strip()
    memo = ("parts uncounted", move.var, field, value)
    if memo not in book.memo:
        values = [(lookup.value_in(r, field) or "").casefold().strip() for r in book.structs[move.var].records[:20000]]
        whole = set(values)  # a compound of the field's own values ("descriptor,network"), not a note listing them
        book.memo[memo] = sum(  # ("one of: chat, embedding, ..., rerank" in a sample entry)
            1
            for v in values
            if v != value and len(parts := lookup.parts_of(v)) > 1 and value in parts and whole.issuperset(parts)
        )
    n = book.memo[memo]
    return (
        f"{n} more records hold {move.args[1]!r} among other parts of {field!r}: the count leaves them out"
        if n
        else None
    )


def blocks_alike(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "how many entries under the Core heading of the 12.0.0 section": a changelog has a Core heading in every
    # release; count_where(section, Core) counts them all
    if move.helper != "count_where" or len(move.args) < 2 or str(move.args[0]) not in CONTEXT_FIELDS:
        return None
    runs = block_runs(book, move.var, str(move.args[0]), str(move.args[1]))
    return f"{runs} blocks apart are named {move.args[1]!r}: the count joins them" if runs > 1 else None


_JOINED_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+")
"""A name joined by underscores (``create_alt_executable_in_version``, ``max_retries``): one thing the text names."""
_BY_FIELD = ("most_common", "max_of", "min_of", "count_where", "count_if")
"""The counts and rankings whose first argument is the field they read."""


def named_apart(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "which python version gets passed to create_alt_executable_in_version most often?": most_common of the
    # PYENV_VERSION lines ranks assignments, none of which is a call of the function the question names
    if move.helper not in _BY_FIELD or not move.args or move.within is not None or move.args[0] == lookup.OWN:
        return None
    field = str(move.args[0])
    memo = ("named apart", move.var, field)
    if memo not in book.memo:
        s = book.structs[move.var]
        names = {st.name_form(f) for f in s.field_names}
        read = [r for r in s.records[:5000] if r.get(field) is not None]
        book.memo[memo] = next(
            (
                k.text
                for k in book.keys.get(move.var, [])
                if k.records
                and not k.hop
                and _JOINED_NAME.fullmatch(k.text)
                and st.name_form(k.text) not in names
                and read
                and not any(lookup._has(r, k.text) for r in read)
            ),
            None,
        )
    apart = book.memo[memo]
    return f"the question names {apart!r}, which no record of {field!r} holds" if apart else None


_SWALLOWED_LINES = 100  # a record this long, and
_SWALLOWED_TIMES = 20  # this many times the median record's lines, holds what is no part of it, where
_SWALLOWED_HEADS = 10  # this many of its lines start at the margin


def swallowing_record(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # IDLE's ChangeLog: ISO-dated entries of five lines, then a thousand lines of entries dated "Thu Oct 15 23:27:08
    # 1998" in the last entry's body; min_of('date') ranks the ISO dates and misses the oldest
    if not getattr(kind, "every_record", False):
        return None
    memo = ("swallowing", move.var)
    if memo not in book.memo:
        records = book.structs[move.var].records[:5000]
        spans = sorted(r.end_line - r.line + 1 for r in records)
        big = max(records, key=lambda r: r.end_line - r.line, default=None)
        long = spans[-1] if spans else 0
        many = len(spans) >= 5 and long >= _SWALLOWED_LINES and long >= _SWALLOWED_TIMES * spans[len(spans) // 2]
        if many and big is not None:  # its body's lines at the margin start records the parse missed (not a
            body = text.split("\n")[big.line : big.end_line]  # section's indented settings, a document's JSON)
            many = sum(1 for ln in body if ln[:1].strip() and not is_comment(ln)) >= _SWALLOWED_HEADS
        book.memo[memo] = (big.line, long) if many and big is not None else None
    found = book.memo[memo]
    if not found:
        return None
    return f"the record at line {found[0]} runs {found[1]} lines, many records' worth: not all were read"
