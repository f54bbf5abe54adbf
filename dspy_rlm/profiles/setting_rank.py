"""Counts and rankings over a file of settings (``NAME = value`` lines, each record one setting named by its key),
where no field of a table says which value to read: "which setting has the largest value?" ranks each setting's
own value (``max_of(V, '*')``), "how many components are marked unavailable?" counts the settings whose own value
it is (``count_where(V, '*', 'unavailable')``), "which value is given most often?" counts them all
(``most_common(V, '*')``). Read per field, each setting's own field held its one value: a count of 1. Where
a record holds several settings (an INI section, a TOML table, a unit file's ``[Service]``), "which limit under
[tool.pylint] is set highest?" ranks that record's own fields (``max_field(V, 'tool.pylint')``), and "which
directive is set to the largest number?" every record's (``max_field(V)``)."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup, superlatives
from dspy_rlm.library import structure as st
from dspy_rlm.library.superlatives import keys_fitting
from dspy_rlm.profiles.candidates import Candidate, key_and_value
from dspy_rlm.profiles.field_words import ANY_VALUE_NOUNS
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.name_scopes import name_patterns, name_scopes
from dspy_rlm.profiles.reads import camel_parts, norm
from dspy_rlm.profiles.vocabulary import COUNTED, leading_words

__all__ = ["FieldExtreme", "SettingCommon", "SettingCount", "SettingExtreme", "settings_file"]


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
        if self.cue not in book.offered:
            return []
        whole = settings_file(book, var)  # or the settings a pattern names, in a text of other lines too ("the
        # FILE_ATTRIBUTE_* constants" of a Python module)
        said = f"I will find the setting with the {self.word} value"
        return [  # "of the figure.subplot.* settings": those whose names fit first
            read(self.name, f"{said} among {p!r}.", self.helper, var, superlatives.OWN, within=p)
            for p in name_scopes(book, var)
            if whole or _scoped_settings(book, var, p)
        ] + ([read(self.name, f"{said}.", self.helper, var, superlatives.OWN)] if whole else [])

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
        elif any(p != move.within for p in name_scopes(book, move.var)) or any(
            not keys_fitting([str(result[0])], g) for g in name_patterns(book.text_q)
        ):
            why = "the question names a pattern of names this setting's does not fit"  # "the figure.subplot.* ones"
        elif isinstance(record, st.Record) and any(  # "among the UID settings": a phrase that picks some records
            not lookup._has(record, k.text) and lookup.containing(book.texts[move.var], k.text)
            for k in book.keys.get(move.var, [])
            if move.within is None or k.is_key or k.is_value  # "the Windows FILE_ATTRIBUTE_* constants": the
        ):  # pattern picks them; a loose word beside it (in their header comment) picks nothing more
            why = "the question names a phrase some settings hold and this one lacks"
        return key_and_value(result, f"{self.word} value", why == "ranked", why, book.answer_type)


def _scoped_settings(book: Any, var: str, pattern: str) -> bool:
    """Whether three or more records have keys ``pattern`` fits, and four fifths of them are one setting each."""
    fit = keys_fitting(book.structs[var].records[:5000], pattern, key=lambda r: r.key)
    return len(fit) >= 3 and sum(superlatives.setting_value(r) is not None for r in fit) >= 0.8 * len(fit)


def whole_settings(book: Any, var: str) -> bool:
    """A :func:`settings_file` whose settings are most of its text: half its lines that are not blank or comments
    (an apt Release file's dozen settings head thousands of checksum lines, which no count of settings reads)."""
    memo = ("whole settings", var)
    if memo not in book.memo:
        lines = sum(1 for ln in book.texts[var].splitlines() if ln.strip() and not ln.lstrip().startswith(("#", ";")))
        records = len(book.structs[var].records)
        book.memo[memo] = settings_file(book, var) and records * 2 >= lines
    return bool(book.memo[memo])


def _named(book: Any, var: str) -> str | None:
    """Why a count or ranking of every setting's own value is not what is asked: the question names a setting (its
    own value is asked), or a phrase that picks some settings ("among the app-engine ones"); else None."""
    if book.named_fields(var):
        return "the question names a setting: its own value, no count of all"
    if any(k.is_key or (not k.is_value and lookup.containing(book.texts[var], k.text)) for k in book.keys.get(var, [])):
        return "the question names a phrase some settings hold"
    if name_patterns(book.text_q):
        return "the question names a pattern of names: some settings are asked of"  # "the enable_* switches"
    return None


class SettingCount(KindBase):
    """``count_where(V, '*', value)``: how many settings are set to a value the question names."""

    name = "count_setting"
    every_record = True

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "count" not in book.offered or key is None or not key.is_value or not whole_settings(book, var):
            return []
        if not any(lookup._same(superlatives.setting_value(r) or "", key.text) for r in book.structs[var].records):
            return []
        said = f"I will count the settings set to {key.text!r}."
        return [read(self.name, said, "count_where", var, superlatives.OWN, key.text)]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, int):
            return []
        others = [k for k in book.keys.get(move.var, []) if key is None or k.text != key.text]
        why = "counted" if result else "no setting has that value"
        if result and (key is None or key.is_key or book.named_fields(move.var)):
            why = "the value is also a setting's name, or the question names a setting"
        elif result and (any(k.is_key or k.is_value for k in others) or name_patterns(book.text_q)):
            why = "the question names a phrase or a pattern of names some settings hold"
        elif result and any(  # "programs that list Jim Meyering among their authors": inside a list counts too
            not lookup._same(v, key.text) and lookup.passes(v, "contains", key.text)
            for r in book.structs[move.var].records
            if (v := superlatives.setting_value(r)) is not None
        ):
            why = "other settings hold the value inside a longer one"
        return [Candidate(str(result), "count", why == "counted", why)]


class SettingCommon(KindBase):
    """``most_common(V, '*')``: the value the most settings are set to."""

    name = "most_common_setting"
    per_key = False
    every_record = True

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "most_common" not in book.offered or not whole_settings(book, var):
            return []
        return [read(self.name, "I will find the value most settings have.", "most_common", var, superlatives.OWN)]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, str):
            return []
        top = superlatives.value_counts(book.structs[move.var], superlatives.OWN).most_common(2)
        why = _named(book, move.var) or "ranked"
        if why == "ranked" and (len(top) < 2 or top[0][1] == top[1][1] or top[0][1] < 2):
            why = "no value is held by more settings than any other"
        return [Candidate(result, "most common value", why == "ranked", why)]


_ROWS = frozenset({"table", "markdown_table", "jsonl", "lines", "prose"})
"""Structures whose records share their fields: a ranking there is by one field across records (``max_of``)."""


class FieldExtreme(KindBase):
    """``max_field(V, KEY)`` / ``min_field(V, KEY)``: the setting of the record the question names whose number is
    largest / smallest, and ``max_field(V)`` over every record's settings where it names none."""

    per_key = False
    every_record = True

    def __init__(self, name: str, helper: str, cue: str, word: str) -> None:
        self.name, self.helper, self.cue, self.word = name, helper, cue, word

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if self.cue not in book.offered or book.structs[var].kind in _ROWS or settings_file(book, var):
            return []
        said = f"I will find the setting with the {self.word} number"
        scopes = [k.text for k in book.keys.get(var, []) if k.is_key] + [None]
        return [  # where two settings or more hold a number (the host ranks them as the REPL would)
            read(
                self.name, f"{said} in {k!r}." if k else f"{said} in any record.", self.helper, var, *([k] if k else [])
            )
            for k in scopes
            if self._ranks(book, var, k)
        ]

    def _ranks(self, book: Any, var: str, scope: str | None) -> bool:
        memo = ("settings ranked", var, scope)
        if memo not in book.memo:
            found = superlatives.max_field(book.texts[var], scope) if scope else superlatives.max_field(book.texts[var])
            book.memo[memo] = isinstance(found, tuple)
        return bool(book.memo[memo])

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, tuple):
            return []
        record = getattr(result, "record", None)
        s = book.structs[move.var]
        scope = [record] if move.args and isinstance(record, st.Record) else list(s.records)
        named = book.named_fields(move.var)
        shared = [f for f in named if sum(r.get(f) is not None for r in s.records[:200]) > 1]
        numbers = [lookup._number(v) for r in scope for f, v in r.fields if f not in lookup._PLACE_FIELDS]
        why = "ranked"
        if COUNTED.search(book.text_q):  # "the most entries": a count, not a setting's value
            why = "the ranking counts things, not a setting's value"
        elif shared:  # "which host has the largest port": that field, ranked across the records
            why = "the question names a field the records share: the ranking is by it"
        elif _name_shared(scope, str(result[0])):  # "whose period ends earliest?": every section has a "number"
            why = "several records hold a setting of this name: it names no one of them"
        elif named and norm(str(result[0])) not in {norm(f) for f in named}:  # "which timeout is set highest"
            why = "the question names settings this one is not among"
        elif not move.args and any(k.is_key for k in book.keys.get(move.var, [])):
            why = "the question names a record: its own settings are ranked"
        elif (noun := _ranked_noun(book.text_q)) and not _names_setting(noun, str(result[0])):
            why = f"the question ranks {' '.join(noun)!r}, which names no part of this setting"
        elif numbers.count(lookup._number(str(result[1]))) > 1:
            why = "another setting has the same number"
        elif any(not keys_fitting([str(result[0])], g) for g in name_patterns(book.text_q)):
            why = "the question names a pattern of names this setting's does not fit"
        return key_and_value(result, f"{self.word} value", why == "ranked", why, book.answer_type)


def _name_shared(records: list[Any], name: str) -> bool:
    """Whether more than one of ``records`` holds a number under the setting ``name`` (a numbered list's
    ``number``): the name the ranking answers with is no one setting's."""
    holding = (r for r in records[:2000] if lookup._number(r.get(name) or "") is not None)
    return next(holding, None) is not None and next(holding, None) is not None


_RANK_WORD = re.compile(
    r"\b(?:longest|largest|highest|biggest|greatest|smallest|lowest|shortest|maximum|minimum)\s+((?:[a-z][\w-]*\s+){1,3})",
    re.IGNORECASE,
)


def _ranked_noun(question: str) -> list[str]:
    """The words a superlative ranks ("the longest *averaging window* the dashboard offers"), up to the first
    function word, those that ask for no sort of value ("the highest *value*") left out."""
    m = _RANK_WORD.search(question)
    words = [w.casefold() for w in leading_words(m.group(1))] if m else []
    return [w for w in words if w not in ANY_VALUE_NOUNS and w.rstrip("s") not in ANY_VALUE_NOUNS]


def _names_setting(noun: list[str], name: str) -> bool:
    """Whether a word of ``noun`` says a part of the setting ``name`` (``schemaVersion``: schema, version), or
    its first four letters do."""
    said = {p.casefold() for part in re.split(r"[\W_]+", name) for p in camel_parts(part) if p}
    return any(w[:4] == p[:4] for w in noun for p in said if len(p) >= 3 and len(w) >= 3)
