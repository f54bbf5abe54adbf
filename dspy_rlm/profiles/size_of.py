"""The ``size_of`` kind of read: how many entries the record the question names lists ("how many commands are
registered under [distutils.commands]?"), offered only where the records list entries
(:func:`~dspy_rlm.profiles.sizes.lists_entries`). Split from :mod:`~dspy_rlm.profiles.sizes`; registered by
:mod:`dspy_rlm.profiles.kinds`."""

from __future__ import annotations

from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.conditions import operands
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.named_document import before_file_name
from dspy_rlm.profiles.phrases import counted_stems
from dspy_rlm.profiles.sizes import lists_entries

__all__ = ["SizeOf"]


def _names_no_field_of(book: Any, var: str, record: Any, key: str) -> bool:
    """The question names no field of ``record``, nor of another record ``key`` names (it asks for the record's
    size, not for one of its entries: "how many replicas does web run", where a Service and a Deployment are both
    named web and the Deployment's ``spec.replicas`` is the answer)."""
    named = set(book.named_fields(var))
    if not isinstance(record, st.Record) or any(f in named for f, _ in record.fields):
        return False
    return all(lookup.field_of(book.texts[var], key, f) is None for f in named)


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
        ok = key is not None and key.is_key and result > 0
        ok = ok and _names_no_field_of(book, move.var, record, move.args[0])
        why = "counted the record's entries" if ok else "the question names an entry of the record"
        if ok and before_file_name(book.text_q, move.args[0]):  # "how many sections are in boto's copybot.cfg?"
            ok, why = False, "the key names the file asked of, not a record of it"
        if ok and any(t != "key" for t, _ in operands(book, move.var)):  # "... whose name starts with build"
            ok, why = False, "the question states a test of the entries"
        if ok and (unit := _records_counted(book, move.var)):  # "how many ELEMENT declarations does X's DTD hold"
            ok, why = False, f"the question counts records: {unit!r} is in most of them"
        return [Candidate(str(result), "count", ok, why if result else "no record matches")]


def _records_counted(book: Any, var: str) -> str | None:
    """A phrase the question counts with (its counted noun) that most records hold: what is counted is records."""
    nouns = counted_stems(book)
    total = len(book.structs[var].records)
    for k in book.keys.get(var, []):
        if st.stem(k.text.casefold()) in nouns and k.records >= max(3, total / 2):
            return str(k.text)
    return None
