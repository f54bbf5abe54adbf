"""Rankings over a file of settings (``NAME = value`` lines, each record one setting named by its key): "which
setting has the largest value?" ranks each setting's own value (``max_of(V, '*')``), where no field of a table
says which to rank."""

from __future__ import annotations

import fnmatch
from typing import Any

from dspy_rlm.library import lookup, superlatives
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.candidates import Candidate, key_and_value
from dspy_rlm.profiles.doubts import name_patterns
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.vocabulary import COUNTED

__all__ = ["SettingExtreme", "settings_file"]


def settings_file(book: Any, var: str) -> bool:
    """Whether most of the first records are one setting each, its one field named by the record's key."""
    memo = ("settings file", var)
    if memo not in book.memo:
        records = book.structs[var].records[:200]
        own = sum(superlatives.setting_value(r) is not None for r in records)
        book.memo[memo] = len(records) >= 3 and own >= 0.8 * len(records)
    return bool(book.memo[memo])


class SettingExtreme(KindBase):
    """``max_of(V, '*')`` / ``min_of(V, '*')``: the setting whose own value is largest / smallest."""

    per_key = False
    every_record = True

    def __init__(self, name: str, helper: str, cue: str, word: str) -> None:
        self.name, self.helper, self.cue, self.word = name, helper, cue, word

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if self.cue not in book.offered or not settings_file(book, var):
            return []
        return [
            read(self.name, f"I will find the setting with the {self.word} value.", self.helper, var, superlatives.OWN)
        ]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, tuple):
            return []
        record = getattr(result, "record", None)
        records = book.structs[move.var].records
        value = " ".join(str(result[1]).split())
        why = "ranked"  # (as a table's ranking read: its calibration class)
        if book.named_fields(move.var):
            why = "the question names a setting: its own value, no ranking"
        elif COUNTED.search(book.text_q):  # "the most entries": a count, not a value
            why = "the ranking counts things, not a setting's value"
        elif sum(" ".join((superlatives.setting_value(r) or "").split()) == value for r in records) > 1:
            why = "another setting has the same value"
        elif any(not fnmatch.fnmatchcase(str(result[0]), g) for g in name_patterns(book.text_q)):
            why = "the question names a pattern of names this setting's does not fit"  # "the figure.subplot.* ones"
        elif isinstance(record, st.Record) and any(  # "among the UID settings": a phrase that picks some records
            not lookup._has(record, k.text) and lookup.containing(book.texts[move.var], k.text)
            for k in book.keys.get(move.var, [])
        ):
            why = "the question names a phrase some settings hold and this one lacks"
        return key_and_value(result, f"{self.word} value", why == "ranked", why, book.answer_type)
