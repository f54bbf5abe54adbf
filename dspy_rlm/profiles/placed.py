"""The record asked by its place in the text: "which action is defined *last* in the policy file?", "which
section comes *first*?" (``record_at(V, 1)`` / ``record_at(V, -1)``).

A record's place answers only where the question's noun is what the records are: every keyed record's first line
says it (``<action id="...">`` for "action", ``function name()`` for "function"), or the noun is a generic name
of a record (entry, section, block ...; no "item": "the first item listed under X" is a list's). A script's last
assignment is no answer to "which function is defined last?" where its functions are not written as such.
"""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.candidates import Candidate, key_and_value
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.move import Move, read

__all__ = ["Placed", "asked_place"]

_AFTER = (
    r"(?!\s+(?:introduced|modified|updated|changed|seen|used|run|edited|released|touched|accessed|called|invoked"
    r"|executed|time|of|in\s+time|place|version|step|argument|option|field|column|word|line|item))"
)
_VERBS = r"(?:defined|declared|listed|registered|written|given|added|configured|described|specified|set\s+up|handled)"
_NOUN = r"([A-Za-z][\w-]*)"
_PLACE_ASKED = [
    # "which polkit action is defined last", "what section comes first in the file"
    re.compile(
        rf"\b(?:which|what)\s+(?:[\w.-]+\s+){{0,3}}?{_NOUN}\s+(?:is|was|gets?|comes?|appears?)\s+"
        rf"(?:{_VERBS}\s+)?(first|last)\b{_AFTER}",
        re.IGNORECASE,
    ),
    # "the last action defined in the file", "the first entry listed", "the very last entry in the array"
    re.compile(
        rf"\bthe\s+(?:very\s+)?(first|last)\s+(?:[\w.-]+\s+){{0,2}}?{_NOUN}\s+"
        rf"(?:{_VERBS}|in\s+the\s+(?:file|document|config\w*|(?:top-level\s+)?array))\b",
        re.IGNORECASE,
    ),
]
"""A record asked by its place in the text: its noun and "first" or "last"."""

GENERIC = frozenset({"entry", "record", "section", "block", "stanza", "element", "row", "rule", "stage"})
"""Nouns that name a record of any kind."""


def asked_place(question: str) -> tuple[str, int] | None:
    """The noun of the record asked by its place and the place (1: first, -1: last), else None."""
    for i, rx in enumerate(_PLACE_ASKED):
        m = rx.search(question)
        if m is not None:
            noun, place = (m.group(1), m.group(2)) if i == 0 else (m.group(2), m.group(1))
            return noun, 1 if place.casefold() == "first" else -1
    return None


def _named_by(structure: Any, noun: str) -> bool:
    """Whether every keyed record's first line says ``noun`` (or a generic noun names any record)."""
    stem = st.stem(noun.casefold())
    if stem in {st.stem(g) for g in GENERIC}:
        return True
    keyed = [r for r in structure.records if r.key.strip()]
    heads = [(r.text.strip().splitlines() or [""])[0].casefold() for r in keyed]
    return len(keyed) >= 2 and all(stem in {st.stem(w) for w in st.words(h)} for h in heads)


class Placed(KindBase):
    """``record_at(V, 1)`` / ``record_at(V, -1)``: the first / last record, for a question asking one by place."""

    name = "record_at"
    per_key = False
    every_record = True

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        asked = asked_place(book.text_q)
        if asked is None or book.answer_type is not str or not _named_by(book.structs[var], asked[0]):
            return []  # offered only where the records are what the question names (no read spent otherwise)
        where = "first" if asked[1] == 1 else "last"
        return [read(self.name, f"I will find the {where} record in the text.", "record_at", var, asked[1])]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        asked = asked_place(book.text_q)
        if not isinstance(result, tuple) or asked is None:
            return []
        ok = _named_by(book.structs[move.var], asked[0])
        why = "the record at the place asked" if ok else f"the records are not each said to be a {asked[0]}"
        return key_and_value(result, "place", ok, why, book.answer_type)
