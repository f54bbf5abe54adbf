"""Whether a phrase of a yes/no question that the data lacks answers it "no": the phrase must be what is asked (an
identifier, a flag, or the one plain word where no other phrase names a record), and none of :data:`ASKERS_WORD`
may say it is only the asker's word for something the data writes otherwise. Split from
:mod:`~dspy_rlm.profiles.existence`, whose existence read asks it."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from dspy_rlm.library.formats import is_comment
from dspy_rlm.profiles.conditions import BOUNDS, operands
from dspy_rlm.profiles.named_document import names_asked_document, titles
from dspy_rlm.profiles.phrases import ID_LIKE, written_as_name
from dspy_rlm.profiles.yes_no_words import FALSE_FLAGS, TRUE_FLAGS

__all__ = ["ASKERS_WORD", "Absent", "absence_answers", "holds_flag"]


@dataclass(frozen=True)
class Absent:
    """A phrase the data lacks (``key``, no records), the question's other phrases and what it quotes."""

    book: Any
    var: str
    key: Any
    others: list[Any]
    quoted: set[str]

    @property
    def asked_id(self) -> bool:
        """Whether the phrase is an identifier or a flag (``--with-lz4``), never an asker's plain word."""
        return bool(ID_LIKE.search(self.key.text)) or self.key.text.startswith("-")


def absence_answers(absent: Absent) -> bool:
    """Whether the phrase's absence answers "no": the phrase is asked (where another phrase names a record, only an
    identifier beside no named identifier is) and no check of :data:`ASKERS_WORD` holds."""
    key = absent.key
    if key.records != 0:
        return False
    # a phrase naming the document by its title names no record ("does the Node.js 5 changelog list 5.6.1?")
    others = [k for k in absent.others if not (k.records and titles(absent.book.texts[absent.var], k.text))]
    absent = replace(absent, others=others)
    named = any(k.is_key or k.is_value for k in others)
    named_id = any((k.is_key or k.is_value) and ID_LIKE.search(k.text) for k in others)
    if named and not (absent.asked_id and not named_id):
        return False
    return not any(check(absent) for check in ASKERS_WORD)


def _beside_present_id(a: Absent) -> bool:
    """An identifier of the question is there ("does tzdata.zi define America/Ciudad_Juarez?": the file's own name
    is not in it)."""
    return any(k.records and ID_LIKE.search(k.text) for k in a.others)


def _beside_two_found(a: Absent) -> bool:
    """A plain word beside two phrases found ("is the name attribute of the test element required?": the file says
    ATTLIST, not "attribute"; the question asks about what it names)."""
    return not a.asked_id and sum(1 for k in a.others if k.records) >= 2


def _beside_few_words_held(a: Absent) -> bool:
    """A plain word beside a phrase of several words that a few records hold ("is there a keycode for an emoji
    picker key?": one comment says "emoji picker"; "keycode" is the asker's word for its line)."""
    return not a.asked_id and any(0 < k.records <= 3 and len(k.text.split()) > 1 for k in a.others)


def _lower_beside_name(a: Absent) -> bool:
    """A lower-case word beside a name found ("is there a pattern attributed to Borland?": the file comments
    ``# Borland`` on a regex) or a phrase the question quotes, found ("does it define a 'headerlink' class?")."""
    if a.asked_id or a.key.text[:1].isupper():
        return False
    return any(
        k.records and (written_as_name(a.book.text_q, k.text) or k.text.casefold() in a.quoted) for k in a.others
    )


def _describes_name(a: Absent) -> bool:
    """A word just before a name found, describing it ("is the in-place sub_ covered?")."""
    return any(k.records and re.search(r"[\W_\d]", k.text) and _before(a.book, a.key, k) for k in a.others)


def _beside_bound(a: Absent) -> bool:
    """A plain word beside a bound the question states ("is there any sample whose first column is above 14.5?":
    "sample" is the asker's word for a row; the bound is what is asked)."""
    return not a.asked_id and any(t in BOUNDS for t, _ in operands(a.book, a.var))


def _beside_flag_named(a: Absent) -> bool:
    """A plain word where the question names a flag of the data ("does journald forward log messages to syslog?":
    ``ForwardToSyslog=yes`` is the setting asked; "journald" is the asker's name for the program configured)."""
    return not a.asked_id and any(
        holds_flag(r, a.book.fields.get(a.var, [])) for r in a.book.structs[a.var].records[:2000]
    )


def _beside_column_named(a: Absent) -> bool:
    """A plain word beside a table column's name and a number the question says ("does every row use an
    ulperrortol of 2?": "use" is the asker's verb for what the column's cells hold)."""
    return not a.asked_id and _column_and_number(a.book, a.var)


def _document_name(a: Absent) -> bool:
    """The asker's name for the document, beside phrases found ("does /etc/xattr.conf skip afs.*?")."""
    return any(k.records for k in a.others) and names_asked_document(a.book, a.var, a.key.text)


def _written_outside_records(a: Absent) -> bool:
    """The text writes the phrase outside every record ("does the default policy allow eavesdropping?": ``<policy
    context="default">`` above the ``<limit>`` records read)."""
    return _written(a.book, a.var, a.key.text)


def _quantified(a: Absent) -> bool:
    """A plain word after "every", "each" or "all" ("does *every catalog* that gets a constraint also get a primary
    key?"): the asker's noun for the records the question tests, one by one, no record of its own."""
    if a.asked_id:
        return False
    return re.search(rf"\b(?:every|each|all)\s+{re.escape(a.key.text)}\b", a.book.text_q, re.IGNORECASE) is not None


ASKERS_WORD: tuple[Callable[[Absent], bool], ...] = (
    _beside_present_id,
    _beside_two_found,
    _beside_few_words_held,
    _lower_beside_name,
    _describes_name,
    _beside_bound,
    _beside_flag_named,
    _beside_column_named,
    _document_name,
    _written_outside_records,
    _quantified,
)
"""Checks that each say an absent phrase is the asker's word for something the data writes otherwise: its absence
answers nothing."""


def holds_flag(record: Any, fields: Any) -> bool:
    """Whether one of ``fields`` of ``record`` holds a flag (``yes`` / ``no``, ``true`` / ``false``)."""
    return any((record.get(f) or "").strip().casefold() in TRUE_FLAGS | FALSE_FLAGS for f in fields)


def _before(book: Any, key: Any, other: Any) -> bool:
    """Whether the question says ``key`` just before ``other`` ("the in-place sub_")."""
    return re.search(rf"(?<!\w){re.escape(key.text)}\s+{re.escape(other.text)}", book.text_q, re.I) is not None


_HEADING_COMMENT = re.compile(
    r"\s*(?:(#{2,}|;{2,}|/{2,})\s+\S(?:.*\S)?\s+\1|(?:#+|;+|//+)\s*([-=*~]{2,})\s+\S(?:.*\S)?\s+\2)\s*$"
)
"""A comment that is a heading over the records below it, its words between marks (``## +/- INF, +/- NAN ##``,
``# --- large values ---``): it says what those records are, unlike a line commented out."""


def _written(book: Any, var: str, phrase: str) -> bool:
    """Whether the text writes ``phrase`` as a whole word on a line no record spans and no comment is, but a heading
    (an XML element beside the repeated ones read as records: ``<policy context="default">`` above the ``<limit>``
    elements; a CSV's ``## +/- INF, +/- NAN ##`` over its rows)."""
    s = book.structs[var]
    if s.parsed_chars is not None or not s.records:
        return False
    memo = ("lines outside records", var)  # once per text: each absent phrase asks it
    if memo not in book.memo:
        lines = book.texts[var].split("\n")
        spanned = [False] * len(lines)
        for r in s.records:  # (lines numbered from 1)
            for i in range(max(0, r.line - 1), min(len(lines), r.end_line)):
                spanned[i] = True
        book.memo[memo] = [
            ln
            for i, ln in enumerate(lines)
            if not spanned[i] and ln.strip() and (not is_comment(ln) or _HEADING_COMMENT.match(ln))
        ]
    said = re.compile(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", re.IGNORECASE)
    return any(said.search(ln) and not ln.lstrip().startswith("<!--") for ln in book.memo[memo])


_LONE_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
"""A number standing alone: not part of a word (``ipv6``) nor of a dotted version (``1.2.3``), which
:data:`~dspy_rlm.profiles.conditions.NUMERAL` would find inside both."""


def _column_and_number(book: Any, var: str) -> bool:
    """Whether the question says the name of a column of a table and a number: a cell's value is what it asks."""
    found = book.structs[var]
    if found.kind not in {"table", "markdown_table"}:  # a keywords file's "value" is no name the data writes
        return False
    if not _LONE_NUMBER.search(book.text_q):
        return False
    names = {n for n in found.field_names[:200] if len(n) >= 3}
    return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", book.text_q, re.IGNORECASE) for n in names)
