"""Doubts about comments (see :data:`~dspy_rlm.profiles.doubts.DOUBTS`): a question that points to the text's
comments, which records leave out; a key held only in a record's comment line; a compound word the question
qualifies its records by, said only in a comment over some of them. Split from :mod:`~dspy_rlm.profiles.doubts`."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.library.formats import is_comment
from dspy_rlm.profiles.field_words import COMMENT_WORDS, SYNONYMS
from dspy_rlm.profiles.move import Move
from dspy_rlm.profiles.reads import parts

__all__ = ["comment_qualifier", "in_comments", "key_in_comments", "uncommented"]

_SEARCHED_CHARS = 5_000_000
"""Past this size a text is not searched for comments."""


def in_comments(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "according to the header comments, what is the font's full name?": no record holds a comment, unless a
    # field is one (a table's trailing "# comment", a "description" the question's word names), or the records
    # were read from comments (a list's commented sections, a sample config's commented settings)
    said = set(st.words(book.text_q.casefold())) & COMMENT_WORDS
    if not said or move.kind == "search" or "comment" in book.structs[move.var].detail:
        return None
    named = {w for group in SYNONYMS if said & group for w in group} | said  # whole words: "note" is no "not_test"
    named |= {stem for w in said if len(stem := st.stem(w)) > 3}  # "commented": a field "comment" ("note": no "not")
    if any({p.casefold() for p in parts(f)} & named for f in book.structs[move.var].field_names):
        return None
    return f"the question points to the text's comments ({sorted(said)[0]!r}), which its records leave out"


def key_in_comments(book: Any, move: Move, kind: Any, key: Any, text: str) -> str | None:
    # "what is the backward formula given for self in the sigmoid entry?": 'formula' keys one record only by a
    # comment line inside it (# so the jvp formula is ...): no value of that record is what the phrase names
    if move.kind not in ("record", "field", "key_of") or key is None or key.hop:
        return None
    field = str(move.args[1]) if move.kind == "field" and len(move.args) > 1 else None
    record = lookup._best("record_of", text, key.text, field)
    if not isinstance(record, st.Record) or st.matches(key.text, record.key):
        return None
    if any(st.matches(key.text, v) for _, v in record.fields):
        return None
    lines = [ln for ln in record.text.splitlines() if ln.strip()]
    said = [ln for ln in lines if st.matches(key.text, ln)]  # (a record that is a comment line holds it whole)
    if said and all(is_comment(ln) for ln in said) and not all(is_comment(ln) for ln in lines):
        return f"the record holds {key.text!r} only in a comment line"
    return None


_COMPOUND = re.compile(r"(?<![\w-])[A-Za-z]{3,}-[A-Za-z]{3,}(?![\w-])")
_LINE_REMARK = re.compile(r"(?:^|[ \t])(?://|#(?![A-Za-z!])|;|--)(?:[ \t][^\n]*)?$", re.MULTILINE)
"""A line's ``#`` / ``//`` / ``;`` / ``--`` remark (``#define`` is code)."""


_OPENER = re.compile(r"(?<![\w.~$\"'}/*\]-])/\*")
"""A C block comment's ``/*``: not a path's glob (``build/*.o``, ``"$dir"/*``), whose ``*/`` would be a shell case
pattern's (``*/)``) and the code between taken for a comment."""


def uncommented(text: str) -> str:
    """The text without its comments: C blocks (``/* ... */``, to the first unclosed one) and line remarks. One
    pass: each ``/*`` looks for its ``*/`` once."""
    out, i = [], 0
    while (opened := _OPENER.search(text, i)) is not None and (k := text.find("*/", opened.end())) >= 0:
        out.append(text[i : opened.start()])
        i = k + 2
    out.append(text[i:])
    return _LINE_REMARK.sub(" ", " ".join(out))


_RANKS = ("max_of", "min_of", "most_common")


def comment_qualifier(book: Any, move: Any, kind: Any, key: Any, text: str) -> str | None:
    """A doubt (see :data:`~dspy_rlm.profiles.doubts.DOUBTS`): the question qualifies what it ranks or counts by a
    compound word the text says only in its comments ("among the *user-settable* TCP_* options": the comment
    ``User-settable options (used with setsockopt)`` heads a group of records, to the next blank line), and the
    text has records outside that group, which the read takes too."""
    if not (move.helper in _RANKS or move.kind in ("count", "count_if", "count_where")) or len(text) > _SEARCHED_CHARS:
        return None
    said = {k.text.casefold() for keys in book.keys.values() for k in keys}
    for word in _COMPOUND.findall(book.text_q):
        if any(word.casefold() in k for k in said):
            continue
        memo = ("comment qualifier", move.var, word.casefold())
        if memo not in book.memo:
            book.memo[memo] = _outside_group(book, move.var, text, word)
        if book.memo[memo]:
            return f"the question's {word!r} is said only in a comment over some records; the read takes others too"
    return None


def _outside_group(book: Any, var: str, text: str, word: str) -> bool:
    """Whether ``word`` is said in the text only in comments, and some records lie outside the group the first of
    those comments heads (its lines to the next blank one)."""
    anywhere = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", re.IGNORECASE)
    found = anywhere.search(text)
    if found is None or anywhere.search(uncommented(text)):
        return False
    lines = text.split("\n")
    start = text.count("\n", 0, found.start()) + 1  # 1-based
    end = start
    while end < len(lines) and lines[end].strip():  # lines[end] is line end + 1
        end += 1
    records = book.structs[var].records[:2000]
    return any(r.line > end or r.end_line < start for r in records) and any(start <= r.line <= end for r in records)
