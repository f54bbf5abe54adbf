"""The reverse lookup as a move kind: the record holding a value the question states ("which bird is owned by
Ines Moreau?"), within a block the question names or in the whole text. Split from
:mod:`~dspy_rlm.profiles.kinds`, which registers it."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup, superlatives
from dspy_rlm.library import structure as st
from dspy_rlm.library.mdformats import item_named
from dspy_rlm.library.valueforms import _date
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.chains import asks_same
from dspy_rlm.profiles.field_words import NAME_ASKED
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.naming import specific as _specific
from dspy_rlm.profiles.naming import why_specific as _why
from dspy_rlm.profiles.phrases import Key
from dspy_rlm.profiles.reads import (
    _other_asked,
    field_holding_key,
    holders,
    keys_identify,
    norm,
    only_the_record_asked,
    own_setting,
)
from dspy_rlm.profiles.scopes import distinct, outside, places
from dspy_rlm.profiles.vocabulary import ID_LIKE

__all__ = ["KeyOf", "identifier_elsewhere", "keyed_by_name", "record_named", "shared_from", "subject_keyed"]


def keyed_by_name(book: Any, var: str, result: Any) -> bool:
    """Whether a list's item keyed ``result`` is named by its text, not keyed by its first words."""
    s = book.structs[var]
    if s.kind != "markdown_list" or not isinstance(result, str):
        return True
    memo = ("keys named", var)  # once per run: each candidate asked over 5,000 records was quadratic
    if memo not in book.memo:
        named: dict[str, bool] = {}
        for r in s.records[:5000]:
            named[r.key] = named.get(r.key, True) and item_named(r.text.split("\n", 1)[0])
        book.memo[memo] = named
    return bool(book.memo[memo].get(result, True))


def record_named(book: Any, var: str, result: Any) -> str | None:
    """Another record whose key of two words or more joined by ``_`` or ``-`` the question writes with spaces
    ("what currency symbol does the locale use?": ``currency_symbol``): a reverse lookup answers no such question."""
    memo = ("joined keys said", var)
    if memo not in book.memo:  # once per run, in the records' order: the question and the keys stay the same
        keys = dict.fromkeys(
            r.key for r in book.structs[var].records[:5000] if re.fullmatch(r"[A-Za-z]+(?:[_-][A-Za-z]+)+", r.key)
        )
        said = book.text_q.casefold()  # written apart by spaces, not joined ("git-subtree.1", "--save-exact": the key)
        book.memo[memo] = [
            k
            for k in keys
            if re.search(
                r"(?<![\w.-])" + r"\s+".join(map(re.escape, re.split(r"[_-]", k.casefold()))) + r"(?![\w-])", said
            )
        ]
    return next((k for k in book.memo[memo] if k != result), None)


def _shared_value_key(book: Any, var: str, value: Any, via: tuple[str, str]) -> Key | None:
    """The value a read gave (``via``: the question's key and the field read) as a key to read by next, where
    other records hold it in that field too: the next read is ``key_of(var, value, but=key)``."""
    if not isinstance(value, str) or not value.strip() or "\n" in value or not all(via):
        return None
    if any(k.but for k in book.keys.get(var, [])):
        return None
    same = _holding(book.structs[var].records[:5000], via, value)
    named = [r for r in same if st.matches(via[0], r.key)]
    if len(same) < 2 or len(named) != 1:
        return None  # the named record's value, and another's
    return Key(value, len(same), False, True, hop=True, via=via, but=named[0].key)  # passed over as the data keys it


_SAME_NOUN = re.compile(r"\b(?:same|identical)\s+(\w+)", re.IGNORECASE)


def shared_from(book: Any, move: Move, named: list[Candidate]) -> Key | None:
    """Where the question asks for another record holding the same value ("What other version has the same date
    as 5.020?"), the key :func:`_shared_value_key` makes of a read's values: a field read's value, or of a record read
    the value of the field the question's "same <noun>" names ("which other Files entry uses that same license?":
    its License)."""
    if not move.args or not asks_same(book):
        return None
    if move.kind == "field" and len(move.args) > 1:
        value = next((c.value for c in named if c.label == str(move.args[1])), None)
        return _shared_value_key(book, move.var, value, (str(move.args[0]), str(move.args[1])))
    m = _SAME_NOUN.search(book.text_q)
    if move.kind != "record" or m is None:
        return None
    noun = st.stem(m.group(1).casefold())
    fields = [c for c in named if noun in {st.stem(w) for w in st.words(c.label.casefold())}]
    if not fields and noun == "day":  # "came out on the same day as 0.4.2": the field whose value is a date
        fields = [c for c in named if _date(str(c.value)) is not None]
    if len(fields) != 1:
        return None
    return _shared_value_key(book, move.var, fields[0].value, (str(move.args[0]), fields[0].label))


def _holding(records: list[Any], via: tuple[str, str], value: str) -> list[Any]:
    """The records holding ``value`` in the field ``via`` read (where that field is named as its record, a
    setting's ``canoe = 1996-02-29``: in each record's own field)."""
    own = st.name_form(via[1]) == st.name_form(via[0])
    return [
        r
        for r in records
        if any(
            norm(v) == norm(value)
            for f, v in r.fields
            if (st.name_form(f) == st.name_form(r.key) if own else f == via[1])
        )
    ]


_WHICH = re.compile(r"\s*(?:which|what)\s+[a-z][\w-]*", re.IGNORECASE)


def subject_keyed(question: str, key: str) -> bool:
    """Whether the question names the record it asks about by ``key`` inside its subject, after an auxiliary
    verb and before its main one ("which pyasn1 version did *the release of 27-08-2017* pin to?"): the record
    holding the key is where the answer is read, not the answer ("what md5 checksum does the grep package record
    for bin/grep?" ends on its key: a reverse lookup)."""
    aux = r"\b(?:did|does|do|was|were|is|are|has|have)\s+the\s+(?:[\w.'-]+\s+){0,4}(?:of|from|dated)\s+"
    rx = aux + re.escape(key)
    m = re.search(rx + r"(?![\w.-])", question, re.IGNORECASE)
    return m is not None and re.search(r"\w", question[m.end() :]) is not None


def _lone(book: Any, var: str) -> bool:
    """Whether the text holds one record (an INI file of one section, a package's METADATA)."""
    return len(book.structs[var].records) == 1


class KeyOf(KindBase):
    name = "key_of"

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if key.but:  # a shared value: the other record holding it
            said = f"I will find the record other than {key.but!r} holding {key.text!r}."
            return [read("key_of", said, "key_of", var, key.text, but=key.but)]
        if not (key.is_value and not key.is_key):
            return []
        # in a text of one record, a setting that holds the value names it
        whole = keys_identify(book, var) or (_lone(book, var) and own_setting(book, var, key))
        said = f"I will find the record holding {key.text!r}"
        scoped = [  # "which PathPaintRule member stands for B*": the one record of that block holding it
            read("key_of", f"{said} within {p!r}.", "key_of", var, key.text, within=p)
            for p in places(book, var)  # a block whose keys name its records, where the whole text's do not
            if norm(p) != norm(key.text) and (whole or distinct(superlatives.records_within(book.structs[var], p)))
        ]
        return [*scoped, read("key_of", f"{said}.", "key_of", var, key.text)] if whole else scoped

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if move.but is not None:  # another record holding the value the named one holds: the one other, in that field
            via = key.via if key is not None else ("", "")
            held = _holding(book.structs[move.var].records[:5000], via, key.text) if key is not None else []
            others = [r for r in held if norm(r.key) != norm(move.but)]
            ok = len(others) == 1 and isinstance(result, str) and st.matches(result, others[0].key)
            why = "reverse lookup" if ok else f"{len(others)} other records hold the value in {via[1]!r}"
            return [Candidate(result, "key", ok, why)] if isinstance(result, str) else []
        if move.within is not None:  # within a block: the one record there holding the value, no other field asked
            inside = superlatives.records_within(book.structs[move.var], move.within)
            ok = holders(inside, key.text) == 1 and not _other_asked(book, move.var, key)
            return [Candidate(result, "key", ok, "reverse lookup")] if isinstance(result, str) else []
        # the evidence of a record read's reverse candidate (Record): a value only this record holds, and no other
        # field asked; where the key's own field is not named ("Which bird is owned by Ines Moreau?"), one record
        # alone must hold the value ("whose ID is 0x19": an attribute's ID too), and the support class is that
        # candidate's ("reverse lookup"), not the one of a key field the question names
        key_field = field_holding_key(book.structs[move.var])
        named = (
            key_field is None or key_field in book.named_fields(move.var) or only_the_record_asked(book, move.var, key)
        )
        other = _other_asked(book, move.var, key)
        ok = _specific(key) and not other and (named or key.records == 1)  # unnamed: only one record holds it
        own = own_setting(book, move.var, key) if ok else None
        several = ok and holders(book.structs[move.var].records[:5000], key.text) > 1
        if several:  # two records hold the value whole ("M" of MIXED and of MEDIUM): the first is no answer
            ok, why = False, "several records hold the value"
        elif own:
            ok, why = False, f"the value is the record's own setting {own!r}: its name may be asked"
        elif ok and (other_record := record_named(book, move.var, result)):
            ok, why = False, f"the question names the record {other_record!r}: its value is asked, not a key"
        elif ok and not keyed_by_name(book, move.var, result):
            ok, why = False, "the record's key is its item's first words, no name"
        elif ok and subject_keyed(book.text_q, key.text):
            ok, why = False, "the question names the record by this key in its subject: something of it is asked"
        elif (
            ok
            and isinstance(result, str)
            and (ident := identifier_elsewhere(book, move.var, key, lookup.record_of(book.texts[move.var], result)))
        ):  # "... the Teac MT-2ST drive type"
            ok, why = False, f"the question names {ident!r}, which the record holding the value lacks: it asks of that"
        elif ok and (block := outside(book, move.var, key.text)):  # "... which class does MAPPING_B give for it?"
            ok, why = False, f"the question names the block {block!r}, which does not hold the value"
        elif ok:
            why = _why(key) if named else "reverse lookup"
        else:
            why = f"the question asks for {other[0]!r}" if other else _why(key)
        # "which console script runs X?" of a text of one record: no record is asked, so the setting's name is
        asked = NAME_ASKED.search(book.text_q) or (_lone(book, move.var) and _WHICH.match(book.text_q))
        if own and "." in own:  # "which extra_style key ...": the part of the path after the one the question says
            head, _, tail = own.rpartition(".")
            own = tail if all(p.casefold() in book.text_q.casefold() for p in head.split(".")) else own
        named_own = [Candidate(own, "field name", True, _why(key))] if own and asked else []
        return [Candidate(result, "key", ok, why), *named_own] if isinstance(result, str) else []


def identifier_elsewhere(book: Any, var: str, key: Any, record: Any) -> str | None:
    """Another phrase of the question, an identifier (``MT-2ST``) the data holds, that ``record`` (the one holding
    the value ``key`` says) lacks: the question asks of that identifier's thing, and ``key`` (words a comment there
    says whole, "Drive type.") only describes it."""
    if not isinstance(record, st.Record) or key is None:
        return None
    for k in book.keys.get(var, []):
        if k is key or k.hop or not k.records or not ID_LIKE.search(k.text) or lookup._has(record, k.text):
            continue
        # said right before the key's words ("the Teac MT-2ST drive type"), as the question writes it: what the
        # key is of ("matlab version 9.10" names a column, MATLAB_VERSION, written otherwise in the data)
        if re.search(rf"(?<![\w-]){re.escape(k.text)}\s+{re.escape(key.text)}(?![\w-])", book.text_q, re.IGNORECASE):
            return str(k.text)
    return None
