"""The size kinds of read: how many entries a record lists (``size_of``: "how many commands are registered under
[distutils.commands]?") and the record listing the most / fewest (``most_fields`` / ``fewest_fields``: "which
group contains the most entries?"). Offered only where the records *list entries*: most records hold field names
of their own (an INI file of command groups), not one schema shared by all (a package database), where a
record's size is no answer anyone asks for. Registered by :mod:`dspy_rlm.profiles.kinds`."""

from __future__ import annotations

from collections import Counter
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.reads import norm

__all__ = ["FieldsExtreme", "SizeOf", "lists_entries"]

_SAMPLE = 500  # records looked at to tell a listing from a schema


def lists_entries(book: Any, var: str) -> bool:
    """Whether ``var``'s records list entries: of the records with two fields or more (at least two such records,
    of more than one size), most hold names that at most half of them share."""
    memo = ("lists entries", var)
    if memo not in book.memo:
        sized = [r for r in book.structs[var].records if len(r.fields) >= 2][:_SAMPLE]
        held = Counter(n for r in sized for n in {norm(f) for f, _ in r.fields})
        half = len(sized) / 2

        def own(r: st.Record) -> bool:
            return sum(held[norm(f)] > half for f, _ in r.fields) < len(r.fields) / 2

        varied = len({len(r.fields) for r in sized}) > 1
        book.memo[memo] = len(sized) >= 2 and varied and sum(map(own, sized)) > half
    return bool(book.memo[memo])


def _names_no_field_of(book: Any, var: str, record: Any) -> bool:
    """The question names no field of ``record`` (it asks for the record's size, not for one of its entries)."""
    named = set(book.named_fields(var))
    return isinstance(record, st.Record) and not any(f in named for f, _ in record.fields)


class SizeOf(KindBase):
    """``size_of(V, KEY)``: how many entries the record the question names lists."""

    name = "size_of"

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "count" not in book.offered or not key.is_key or not lists_entries(book, var):
            return []
        return [read("size_of", f"I will count the entries of {key.text!r}.", "size_of", var, key.text)]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, int):
            return []
        record = lookup.record_of(book.texts[move.var], move.args[0])
        ok = key is not None and key.is_key and result > 0 and _names_no_field_of(book, move.var, record)
        why = "counted the record's entries" if ok else "the question names an entry of the record"
        return [Candidate(str(result), "count", ok, why if result else "no record matches")]


class FieldsExtreme(KindBase):
    """``most_fields(V)`` / ``fewest_fields(V)``: the record listing the most / fewest entries, for a ranking
    question that names no field (the ranking is by size, not by a value)."""

    per_key = False
    every_record = True

    def __init__(self, name: str, helper: str, cues: tuple[str, ...], word: str) -> None:
        self.name, self.helper, self.cues, self.word = name, helper, cues, word

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if not book.offered & set(self.cues) or not lists_entries(book, var):
            return []
        return [read(self.name, f"I will find the record with the {self.word} entries.", self.helper, var)]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, tuple):
            return []
        ok = not book.named_fields(move.var)
        why = "ranked the records by their entries" if ok else "the question names a field"
        number = book.answer_type in (int, float)
        return [
            Candidate(result[0], "key", ok and not number, why),
            Candidate(result[1], f"{self.word} entries", ok and number, why),
        ]
