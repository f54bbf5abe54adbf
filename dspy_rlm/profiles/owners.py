"""The named block a nested record sits in, asked by its kind: "which *job* builds on ubuntu-22.04?" of a workflow
whose ``jobs:`` map holds ``ubuntu_build:``, whose ``strategy.matrix`` lists the runner. The record read is the
inner block (``matrix``); the answer is the name one level under the block the question's noun names."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.reads import parts

__all__ = ["holder_of_field", "owner", "path_owner", "unfielded_key"]

_WHICH = re.compile(r"\b(?:which|what)\s+([a-z][a-z_-]+)\b", re.I)


def _plural_of(word: str, name: str) -> bool:
    w, n = word.casefold(), name.casefold()
    return n in (w + "s", w + "es", w[:-1] + "ies" if w.endswith("y") else w + "s")


def owner(question: str, record: st.Record) -> str | None:
    """The name under the block the question's "which NOUN" names in plural (``jobs`` for "which job") on the
    record's path, where the record sits deeper than that name; else None."""
    m = _WHICH.search(question)
    path = record.get("path") or ""
    if m is None or not path:
        return None
    parts = [*path.split("."), record.key]
    at = [i for i, p in enumerate(parts[:-1]) if _plural_of(m.group(1), p)]
    return parts[at[-1] + 1] if at and at[-1] + 2 < len(parts) else None


def path_owner(book: Any, var: str, key: Any, record: st.Record, why: str) -> list[Candidate]:
    """ "Which job builds on ubuntu-22.04?": the job whose block holds the record read, supported where every
    record holding the key phrase sits in that one."""
    name = owner(book.text_q, record)
    if name is None or key is None or key.is_key:
        return []
    memo = ("path_owner", var, key.text)
    if memo not in book.memo:
        said = " ".join(key.text.casefold().split())
        holding = [r for r in book.structs[var].records[:5000] if said in r.text.casefold()]
        book.memo[memo] = {owner(book.text_q, r) or r.key for r in holding}
    names = book.memo[memo]
    return [Candidate(name, "block", names == {name}, why if names == {name} else "records of other blocks hold it")]


_WHERE_HELD = re.compile(
    r"\b(?:under|in|within|inside)\s+(?:which|what)\s+([a-z][a-z_-]+)"  # "... lives under which section?"
    r"|\b(?:which|what)\s+([a-z][a-z_-]+)\s+(?:is|are|does|do)\b[^?]*\b(?:in|under|within|inside)\s*\?",  # "... in?"
    re.I,
)
"""A question asking for the block something sits in, by the block's noun."""


def holder_of_field(book: Any, var: str, key: Any, field: str) -> list[Candidate]:
    """ "auto-squeeze-min-lines lives under which section?": the question's key phrase is the name of the field
    read, no record's key, and it asks for the block the field sits in by a noun no part of the field's name: the
    key of the record holding that field (vouched for where one record holds it); else none."""
    if key is None or key.is_key or st.name_form(key.text) != st.name_form(field):
        return []
    m = _WHERE_HELD.search(book.text_q)
    noun = (m.group(1) or m.group(2)).casefold() if m else ""
    if not noun or st.stem(noun) in {st.stem(p.casefold()) for p in parts(field)}:
        return []
    holders = [r for r in book.structs[var].records[:5000] if r.key and r.get(field) is not None]
    if not holders:
        return []
    why = f"the record holding {field!r}, asked as its {noun}" if len(holders) == 1 else "several records hold it"
    return [Candidate(holders[0].key, "key", len(holders) == 1, why)]


def unfielded_key(book: Any, move: Any, key: Any, value: Any) -> str | None:
    """A value doubt (:data:`~dspy_rlm.profiles.value_doubts.VALUE_DOUBTS`) of a record or field read: the key
    phrase, no key or whole value of the data, lies in a JSON record's text but in none of its fields or their names
    ("delete()" of a resource whose nested ``actions.Delete`` the flattened fields leave out): the fields read say
    nothing of it, so the value asked is not among them. The record's own key is ("which waiter counts a
    NotFoundFault as success?": the waiter holding it)."""
    if move.kind not in ("record", "field") or key is None or key.is_key or key.is_value or key.hop:
        return None
    if book.structs[move.var].kind != "json":  # (a JSON record's text is all data; elsewhere a body or comment
        return None  # beside the fields says more)
    memo = ("record_of", move.var, key.text)
    if memo not in book.memo:
        book.memo[memo] = lookup.record_of(book.texts[move.var], key.text)
    record = book.memo[memo]
    if not isinstance(record, st.Record) or not record.fields or str(value) == record.key:
        return None
    said = (record.key, *(p for f in record.fields for p in f))
    if any(st.matches(key.text, p) for p in said):
        return None
    return f"{key.text!r} is in the record's text, in none of its fields"
