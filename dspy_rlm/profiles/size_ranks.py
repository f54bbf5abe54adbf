"""The size rankings: the record listing the most / fewest entries (``most_fields`` / ``fewest_fields``: "which
group contains the most entries?") and the record whose list the question names is longest / shortest
(``most_items`` / ``fewest_items``: "which team has the most members?"). Registered by
:mod:`dspy_rlm.profiles.kinds`; the parts named and the listing test are :mod:`~dspy_rlm.profiles.sizes`'."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import items
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.candidates import Candidate, key_and_value
from dspy_rlm.profiles.conditions import operands
from dspy_rlm.profiles.field_words import CONTEXT_FIELDS
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.owners import owner
from dspy_rlm.profiles.phrases import counted_nouns
from dspy_rlm.profiles.rankings import counts_fields, ranked_noun
from dspy_rlm.profiles.reads import camel_parts, norm
from dspy_rlm.profiles.sizes import SAMPLE, lists_entries, named_by, said_stem, shared_fields
from dspy_rlm.profiles.vocabulary import COUNTED, CUES, STOP

__all__ = ["FieldsExtreme", "ItemsExtreme", "ranked_lists"]

_VALUE_ASKED = re.compile(r"\b(?:which|what)\s+values?\b", re.I)


RECURS = tuple(c for c in CUES["most_common"] if not c.startswith("by "))
"""The words of a question asking which value recurs most ("appears most often"), not which record is largest."""


class _Ranking(KindBase):
    """A ranking over every record, named ``name``, calling ``helper`` for a question with one of ``cues``."""

    per_key = False
    every_record = True

    def __init__(self, name: str, helper: str, cues: tuple[str, ...], word: str) -> None:
        self.name, self.helper, self.cues, self.word = name, helper, cues, word


class FieldsExtreme(_Ranking):
    """``most_fields(V)`` / ``fewest_fields(V)``: the record listing the most / fewest entries, for a ranking
    question that names no field (the ranking is by size, not by a value)."""

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if not book.offered & set(self.cues) or not (lists_entries(book, var) or counts_fields(book)):
            return []
        return [read(self.name, f"I will find the record with the {self.word} entries.", self.helper, var)]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, tuple):
            return []
        # an entry's name in the question ("... in entry_points.txt", a file's name and an entry's) is no ranking
        # field; a field most records hold is one, and the ranking may be by its values
        shared, named = shared_fields(book, move.var), book.named_fields(move.var)
        why = "ranked the records by their entries"
        if any(norm(f) in shared for f in named):
            why = "the question names a field the records share"
        elif named and any(c in book.text_q.casefold() for c in RECURS):  # "what target appears most often ..."
            why = "the question asks for a value that recurs, naming an entry"
        elif not COUNTED.search(book.text_q):  # "which directive is set to the largest number?"
            why = "the question ranks a value, not how many entries a record lists"
        elif not lists_entries(book, move.var):  # "which section holds the most settings": commented ones too?
            why = "the records share their fields: how many each writes may not be what is counted"
        ok = why == "ranked the records by their entries"
        return key_and_value(result, f"{self.word} entries", ok, why, book.answer_type)


def _before_noun(question: str, name: str, counted: set[str]) -> bool:
    """Whether ``name`` is said just before a counted noun ("the largest number of *required fields*")."""
    m = re.search(rf"(?<![\w.-]){re.escape(name)}\s+([A-Za-z]+)", question, re.IGNORECASE)
    return m is not None and st.stem(m.group(1).casefold()) in counted


def ranked_lists(book: Any, var: str) -> list[str]:
    """The parts of ``var`` the question names whose lists can be ranked by their length
    (:func:`~dspy_rlm.library.items.most_items`): a field two records or more hold, one of them listing two items
    or more ("which group has the most *members*?"), a dotted group or a record whose fields list items ("which
    *optional-dependencies* extra lists the most requirements?")."""
    memo = ("ranked lists", var)
    if memo not in book.memo:
        said = st.words(book.text_q.casefold())
        said += [p for w in said if "-" in w for p in w.split("-") if p]  # "which optional-dependencies extra"
        stems = {st.stem(w) for w in said if w not in STOP}
        ranked = ranked_noun(book.text_q)  # "the most *locales*": the noun counted
        counted = {st.stem(w) for w in counted_nouns(said)} | ({ranked} if ranked else set())
        s, text = book.structs[var], book.texts[var]
        groups = {f.split(".")[0] for f in s.field_names if "." in f.strip(".")}
        keys = {r.key for r in s.records[:SAMPLE] if r.key and len(r.fields) >= 2 and " " not in r.key.strip()}
        out: list[str] = []
        names = list(dict.fromkeys([*s.field_names[:200], *sorted(groups), *sorted(keys)]))
        for loose in (False, True):  # by its last word only where nothing is named by more of its words
            out += [
                n
                for n in (names if not out else [])
                if named_by(n, stems, counted, loose) is not None and isinstance(items.most_items(text, n), tuple)
            ]
        before = [n for n in out if _before_noun(book.text_q, n, counted)]  # "the most *required* fields"
        out = before if len(before) == 1 else out
        ranks_lists = COUNTED.search(book.text_q) or _LONGEST_LIST.search(book.text_q)
        if not out and ranks_lists and not _IN_THE_MOST.search(book.text_q):
            # no list named, settings that each list items ("which key cycles through the fewest items?"): theirs
            out = ["*"] if isinstance(items.most_items(text, "*"), tuple) else []
        book.memo[memo] = out
    return list(book.memo[memo])


_IN_THE_MOST = re.compile(
    r"\b(?:by|on|to|in|across|among)\s+the\s+(?:most|fewest|(?:greatest|largest|highest|smallest|lowest)\s+number)\b",
    re.IGNORECASE,
)
"""A value found in the most records ("used *by the most* languages", "credited *on the most* programs",
"shared *by the greatest number* of node types"): a value counted, no record's own list."""


_LONGEST_LIST = re.compile(r"\b(?:longest|shortest)\s+lists?\s+of\b", re.IGNORECASE)


def _ranks_by(book: Any, name: str) -> bool:
    """Whether the noun a ranking counts ("the most *members*", "the largest number of *versions*") is a word of
    the field ``name``: the records are ranked by its items, not by another count."""
    noun = ranked_noun(book.text_q)
    named = any(said_stem(st.stem(w.casefold()), {noun}) for w in camel_parts(name))
    return bool(noun) and (named or _before_noun(book.text_q, name, {noun}))  # or "the most *required* fields"


class ItemsExtreme(_Ranking):
    """``most_items(V, NAME)`` / ``fewest_items(V, NAME)``: the record whose list the question names is longest /
    shortest ("which group has the most members?"), or the field of a named group listing the most."""

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if not book.offered & set(self.cues) or book.structs[var].kind in ("lines", "prose"):
            return []
        say = f"I will find the longest list of {{!r}} ({self.word} items)."
        return [read(self.name, say.format(n), self.helper, var, n) for n in ranked_lists(book, var)]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, tuple):
            return []
        why = "ranked the lists by their items"
        if len(ranked_lists(book, move.var)) > 1:
            why = "the question names more than one part that lists items"
        elif any(t != "key" for t, _ in operands(book, move.var)):
            why = "the question states a test of the items"
        elif _LONGEST_LIST.search(book.text_q):  # "the longest list of bullet points": its items, whatever they are
            pass
        elif not COUNTED.search(book.text_q):  # "which group has the largest id?"
            why = "the question ranks a value, not how many items a list holds"
        elif _VALUE_ASKED.search(book.text_q):  # "which value is assigned to the most settings?": no list's name
            why = "the question asks a value, not the name of a list"
        elif move.args[0] in book.structs[move.var].field_names and not _ranks_by(book, move.args[0]):
            why = "what the question counts is not the field's items"  # "the code shared by the most zones"
        record = getattr(result, "record", None)  # "which job has the most OS runners": the job its matrix is in
        if why == "ranked the lists by their items" and _one_list(book, move, record, str(result[0])):
            why = "the record named holds one list: nothing is ranked"
        elif why == "ranked the lists by their items" and (other := _other_list_named(book, move, str(result[0]))):
            why = f"the question names the list {other!r}, not the one ranked first"
        ok = why == "ranked the lists by their items"
        number = book.answer_type in (int, float)
        named = owner(book.text_q, record) if isinstance(record, st.Record) else None
        return [
            *([Candidate(named, "block", ok and not number, why)] if named else []),
            Candidate(result[0], "key", ok and not number and not named, why),
            Candidate(result[1], f"{self.word} items", ok and number, why),
        ]


def _other_list_named(book: Any, move: Move, winner: str) -> str | None:
    """A field the question names, other than ``winner``, where ``most_items`` ranked the fields of a record named
    by its key ("which classifier category has the most *Classifier* lines" in a wheel's METADATA: its lines are
    ranked within that field; ``Requires-Dist``, the record's longest list, is none of them)."""
    if move.args[0] in book.structs[move.var].field_names:
        return None
    named = book.named_fields(move.var)
    return next((f for f in named if f != winner), None) if winner not in named else None


def _one_list(book: Any, move: Move, record: Any, winner: str) -> bool:
    """Whether ``most_items`` ranked the fields of one record (a record's key named, not a field) that has one field
    of its own: ``value: 5`` of a ``'Modula2Lexer': (...)`` entry names no list among others."""
    if not isinstance(record, st.Record) or move.args[0] in (*book.structs[move.var].field_names, "*"):
        return False  # '*': every setting's own list, one each
    own = [f for f, _ in record.fields if f not in CONTEXT_FIELDS]
    return winner in own and len(own) < 2
