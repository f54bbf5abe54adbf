"""The size kinds of read: how many entries a record lists (``size_of``: "how many commands are registered under
[distutils.commands]?", in :mod:`~dspy_rlm.profiles.size_of`), how many items one field lists (``count_items``:
"how many environments are in the envlist?", "how many address families is the service restricted to?"); the
rankings by size are :mod:`~dspy_rlm.profiles.size_ranks`'. A record's entries are offered only where the records
*list entries*: most records hold field names of their own (an INI file of command groups), not one schema shared by
all (a package database), where a record's size is no answer anyone asks for.
Registered by :mod:`dspy_rlm.profiles.kinds`."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from dspy_rlm.library import items, lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.conditions import operands
from dspy_rlm.profiles.field_words import CONTEXT_FIELDS, ITEM_NOUNS
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.part_scopes import block_before, other_record
from dspy_rlm.profiles.phrases import counted_nouns
from dspy_rlm.profiles.reads import camel_parts, field_holding_key, field_stems, norm, unit_after
from dspy_rlm.profiles.scopes import condition
from dspy_rlm.profiles.vocabulary import HOLDING_VERBS, STOP

__all__ = [
    "SAMPLE",
    "CountItems",
    "listed_parts",
    "lists_entries",
    "named_by",
    "named_parts",
    "said_stem",
    "shared_fields",
]

SAMPLE = 500  # records looked at to tell a listing from a schema


def lists_entries(book: Any, var: str) -> bool:
    """Whether ``var``'s records list entries: of the records with two fields or more (at least two such records,
    of more than one size), most hold names that at most half of them share."""
    memo = ("lists entries", var)
    if memo not in book.memo:
        sized = [r for r in book.structs[var].records if len(r.fields) >= 2][:SAMPLE]
        shared = shared_fields(book, var)

        def own(r: st.Record) -> bool:
            return sum(norm(f) in shared for f, _ in r.fields) < len(r.fields) / 2

        varied = len({len(r.fields) for r in sized}) > 1
        book.memo[memo] = len(sized) >= 2 and varied and sum(map(own, sized)) > len(sized) / 2
    return bool(book.memo[memo])


def shared_fields(book: Any, var: str) -> set[str]:
    """The field names (normalized) that more than half of ``var``'s records with two fields or more hold: a
    schema's fields, where the other names are a record's own entries."""
    memo = ("shared fields", var)
    if memo not in book.memo:
        sized = [r for r in book.structs[var].records if len(r.fields) >= 2][:SAMPLE]
        held = Counter(n for r in sized for n in {norm(f) for f, _ in r.fields})
        book.memo[memo] = {n for n, c in held.items() if c > len(sized) / 2}
    return set(book.memo[memo])


def listed_parts(book: Any, var: str) -> list[tuple[str, str | None]]:
    """``(name, key)`` for each part of ``var`` that a count question names and that lists two items or more
    (:func:`~dspy_rlm.library.items.items_of`): a field, a dotted group of fields or a record's key, named whole
    ("the envlist", "allowed origins") or by the noun the question counts with most of its words ("how many
    address *families* is it restricted to" names ``RestrictAddressFamilies``). A field several records hold is
    read in the record a key phrase of the question names, and only where the counted noun is one of its words
    ("how many dependencies does X have", not "how many packages depend on X": those count records)."""
    said = st.words(book.text_q.casefold())
    parts = named_parts(book, var, {st.stem(w) for w in counted_nouns(said)}, "listed parts")
    parts = [p for p in parts if not unit_after(book.text_q, p[0])]  # "how many Files stanzas": records counted
    written = [p for p in parts if re.search(rf"(?<![\w.$-]){re.escape(p[0])}(?![\w-])", book.text_q)]
    return written if written and len(parts) > 1 else parts  # "fonts ... in TEXTFONTS": not FONTS, its noun


def named_parts(book: Any, var: str, counted: set[str], tag: str, least: int = 2) -> list[tuple[str, str | None]]:
    """``(name, key)`` for each part of ``var`` listing ``least`` items or more that the question names, where one
    of its words named is among the stems ``counted`` (see :func:`listed_parts`); memoized under ``tag``."""
    memo = (tag, var)
    if memo in book.memo:
        return list(book.memo[memo])
    said = st.words(book.text_q.casefold())  # a holding verb names no part ("does the DTD contain": no <contains>)
    stems = {st.stem(w) for w in said if w not in STOP and w not in HOLDING_VERBS}
    s, text = book.structs[var], book.texts[var]
    key_field = field_holding_key(s)
    if key_field is not None and counted & field_stems(key_field):  # "how many packages ...": the records
        book.memo[memo] = []
        return []
    groups = {f.split(".")[0] for f in s.field_names if "." in f.strip(".")}
    keys = {r.key for r in s.records[:SAMPLE] if r.key and len(r.fields) == 1 and " " not in r.key.strip()}
    out: list[tuple[str, str | None]] = []
    names = list(dict.fromkeys([*s.field_names[:200], *sorted(groups), *sorted(keys)]))
    names = [n for n in names if n not in CONTEXT_FIELDS]  # a heading's name ("section") lists no items
    for loose in (False, True):  # by its last word only where nothing is named by more of its words
        for name in names if not out else []:
            by_noun = named_by(name, stems, counted, loose)
            if by_noun is None:
                continue
            found = items.items_of(text, name)
            if isinstance(found, int):
                out += [(name, None)] if found >= least else []
                continue
            for k in book.keys.get(var, []) if by_noun else []:
                n = items.items_of(text, name, k.text) if k.is_key else 0
                if isinstance(n, int) and n >= least:
                    out.append((name, k.text))
                    break
    book.memo[memo] = out
    return list(out)


def named_by(name: str, stems: set[str], counted: set[str], loose: bool = False) -> bool | None:
    """Whether the question names ``name`` by its counted noun: ``True`` where it says that noun and most of its
    words ("address *families*" of ``RestrictAddressFamilies``) or, ``loose``, where the noun is the last word of
    a short name ("*locales*" of ``optional_locales``); ``False`` where it says every word of it but not as the
    counted noun, ``None`` where it does not name it."""
    whole = st.stem(name.casefold())  # "how many devDependencies": the name as the data spells it
    if whole in counted or whole in stems:  # or named whole, its items counted by a noun any list's items take
        return whole in counted or bool(counted & {st.stem(w) for w in ITEM_NOUNS})
    parts = [st.stem(w.casefold()) for w in camel_parts(name)]
    words = set(parts)
    named = {w for w in words if said_stem(w, stems)}
    if words and any(said_stem(w, counted) for w in words) and len(named) > len(words) / 2:
        return True
    if loose and parts and len(parts) <= 3 and said_stem(parts[-1], counted):  # "how many locales": optional_locales
        return True
    return False if words and named == words else None


def said_stem(stem: str, stems: set[str]) -> bool:
    """Whether a name's word (its stem) is among ``stems``, or begins one or is begun by one of five letters or
    more (``depend`` of ``Depends`` in "dependencies")."""
    return stem in stems or any(
        min(len(stem), len(s)) >= 5 and (s.startswith(stem) or stem.startswith(s)) for s in stems
    )


def written_parts(book: Any, var: str, parts: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """``parts`` as read from lines of text: only those the question writes as a record's key (a script's
    ``KEY="a b c"``); from other structures, all."""
    if book.structs[var].kind not in ("lines", "prose"):
        return parts
    return [p for p in parts if any(k.is_key and k.text == p[0] for k in book.keys.get(var, []))]


class CountItems(KindBase):
    """``items_of(V, NAME[, KEY])``: how many items the one part the question names lists (a field's list value,
    a field written once per item, a dotted group's keys)."""

    name = "count_items"
    per_key = False

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "count" not in book.offered:
            return []
        parts = listed_parts(book, var)
        parts = written_parts(book, var, parts)  # in a script's lines, a KEY="a b c" the question writes
        return [
            read("count_items", f"I will count the items {name!r} lists.", "items_of", var, name, *([k] if k else []))
            for name, k in parts
        ]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, int):
            return []
        # one part named, and no test stated of the items ("... that start with py": a count_if of them)
        tests = [t for t, _ in operands(book, move.var) if t != "key"]
        why = "counted the items the part lists"
        if len(listed_parts(book, move.var)) > 1:
            why = "the question names more than one part that lists items"
        elif tests:
            why = "the question states a test of the items"
        elif any(k.is_value and k.records > 1 and norm(k.text) == norm(str(move.args[0])) for k in book.keys[move.var]):
            why = "the part's name is a value other records hold: the count may be of them"  # "how many Files
            # entries are under the FSFULLR license?": a License paragraph is keyed FSFULLR, and 9 stanzas name it
        elif _keyed_holding(book, move.var, str(move.args[0])) > 1:  # "how many `category` lines": 12 records,
            why = "several records are keyed by the part's name: the count may be of them"  # the first lists 2
        elif result < 2:
            why = "the part lists no items"
        elif ref := _refers(book, move):  # a JSON schema's anyOf [{"$ref": "#/$defs/CodeModel"}, null]: its values
            why = f"an item refers to {ref!r}: what the part stands for is listed there"
        elif stated := condition(book, move):  # "how many sections ... have Type=Scalable?": a count_where
            why = f"the question states {stated!r} of some records: the count may be of those"
        elif narrowing := _narrowing(book, move):
            why = f"the question's {narrowing!r} is in some of the items only: the count may be of those"
        elif lacked := _named_elsewhere(book, move):  # "how many reason values does X list in its _enum?": X's
            why = f"the question names {lacked!r}, which the part counted does not hold"  # list is another one
        elif other := other_record(book, move):  # "how many packages are locked in the develop section?"
            why = f"the question names the record {other!r}, not the part counted"
        elif block := block_before(book, move):  # "the %feature hash": the block feature, "hash" the asker's word
            why = f"the question names the block {block!r} before the part's name"
        return [Candidate(str(result), "count", why == "counted the items the part lists", why)]


def _keyed_holding(book: Any, var: str, name: str) -> int:
    """How many records keyed ``name`` hold some value (a Makefile's empty ``.SUFFIXES:`` before the one listing
    suffixes holds none)."""
    s = book.structs[var]
    if s.key_counts.get(name, 0) < 2:
        return s.key_counts.get(name, 0)
    return sum(1 for r in s.records[:5000] if r.key == name and any(v.strip() for _, v in r.fields))


def _named_elsewhere(book: Any, move: Move) -> str | None:
    """A field the question names, besides the part counted, that the record counted lacks (its items are of
    another list than the one asked), else None."""
    name, key = str(move.args[0]), (str(move.args[1]) if len(move.args) > 1 else None)
    record = lookup.record_of(book.texts[move.var], key or name)
    if not isinstance(record, st.Record) or (key is None and norm(record.key) != norm(name)):
        return None
    held = {f for f, _ in record.fields}
    return next((f for f in book.named_fields(move.var) if norm(f) != norm(name) and f not in held), None)


_NAME_PART = re.compile(r"/|^[-.]|[-_./]$")
"""A part of an item's name: a path (``lib/internal/crypto``), a suffix (``-preview``) or a prefix (``py-``)."""


def _narrowing(book: Any, move: Move) -> str | None:
    """A key phrase of the question shaped as a part of a name (not the part's name) that some of the items counted
    hold and some do not ("how many files under lib/internal/crypto/ are listed in node_library_files"): a subset
    is counted."""
    listed = items._listed("items_of", book.texts[move.var], *move.args)
    if not isinstance(listed, list) or len(listed) < 2:
        return None
    for k in book.keys.get(move.var, []):
        if k.is_key or k.is_value or not _NAME_PART.search(k.text) or norm(k.text) in {norm(str(a)) for a in move.args}:
            continue  # a record's name ("npm's devDependencies"), a word ("JavaScript"): no part of an item's name
        held = sum(1 for i in listed if k.text.casefold() in i.casefold())
        if 0 < held < len(listed):
            return k.text
    return None


_REF = re.compile(r"(?:^|[\s,\[])(#/[\w$/.-]+)")


def _refers(book: Any, move: Move) -> str | None:
    """A reference (``#/$defs/CodeModel``, a JSON pointer) among the values of the record the part names: the
    items counted are alternatives of a type, the values asked are the referred definition's."""
    record = lookup.record_of(book.texts[move.var], str(move.args[0]))
    if not isinstance(record, st.Record):
        return None
    return next((m.group(1) for _, v in record.fields if (m := _REF.search(v))), None)
