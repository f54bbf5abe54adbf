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
from dspy_rlm.profiles.vocabulary import COUNTED, CUES

__all__ = ["FieldsExtreme", "SizeOf", "lists_entries"]

_SAMPLE = 500  # records looked at to tell a listing from a schema


def lists_entries(book: Any, var: str) -> bool:
    """Whether ``var``'s records list entries: of the records with two fields or more (at least two such records,
    of more than one size), most hold names that at most half of them share."""
    memo = ("lists entries", var)
    if memo not in book.memo:
        sized = [r for r in book.structs[var].records if len(r.fields) >= 2][:_SAMPLE]
        shared = _shared(book, var)

        def own(r: st.Record) -> bool:
            return sum(norm(f) in shared for f, _ in r.fields) < len(r.fields) / 2

        varied = len({len(r.fields) for r in sized}) > 1
        book.memo[memo] = len(sized) >= 2 and varied and sum(map(own, sized)) > len(sized) / 2
    return bool(book.memo[memo])


def _shared(book: Any, var: str) -> set[str]:
    """The field names (normalized) that more than half of ``var``'s records with two fields or more hold: a
    schema's fields, where the other names are a record's own entries."""
    memo = ("shared fields", var)
    if memo not in book.memo:
        sized = [r for r in book.structs[var].records if len(r.fields) >= 2][:_SAMPLE]
        held = Counter(n for r in sized for n in {norm(f) for f, _ in r.fields})
        book.memo[memo] = {n for n, c in held.items() if c > len(sized) / 2}
    return set(book.memo[memo])


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


RECURS = tuple(c for c in CUES["most_common"] if not c.startswith("by "))
"""The words of a question asking which value recurs most ("appears most often"), not which record is largest."""


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
        # an entry's name in the question ("... in entry_points.txt", a file's name and an entry's) is no ranking
        # field; a field most records hold is one, and the ranking may be by its values
        shared, named = _shared(book, move.var), book.named_fields(move.var)
        why = "ranked the records by their entries"
        if any(norm(f) in shared for f in named):
            why = "the question names a field the records share"
        elif named and any(c in book.text_q.casefold() for c in RECURS):  # "what target appears most often ..."
            why = "the question asks for a value that recurs, naming an entry"
        elif not COUNTED.search(book.text_q):  # "which directive is set to the largest number?"
            why = "the question ranks a value, not how many entries a record lists"
        ok = why == "ranked the records by their entries"
        number = book.answer_type in (int, float)
        return [
            Candidate(result[0], "key", ok and not number, why),
            Candidate(result[1], f"{self.word} entries", ok and number, why),
        ]
