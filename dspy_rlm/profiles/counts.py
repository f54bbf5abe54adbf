"""The counting kinds: how many records hold a key phrase (``count``), have a field's value (``count_where``), pass
a stated test (``count_if``), exist at all (``count_all``), carry a flag the question names (``count_flag``) or
have a field the question names that other records lack (``count_present``).
Registered by :mod:`~dspy_rlm.profiles.kinds` with the other kinds.
"""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.library.superlatives import OWN
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.conditions import (
    BOUNDS,
    SAID,
    SCAN,
    always_whole,
    counts_every_record,
    flag_counts,
    holders,
    listed_among,
    loose_fields,
    mostly_numbers,
    names_field,
    operands,
    said_inside,
    worded,
)
from dspy_rlm.profiles.field_words import CONTEXT_FIELDS, NAME_NOUNS
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.lacking import lacked_fields
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.named_document import before_document_noun
from dspy_rlm.profiles.phrases import counted_nouns
from dspy_rlm.profiles.reads import norm, parts, unit_after
from dspy_rlm.profiles.scopes import blocks_apart
from dspy_rlm.profiles.setting_rank import settings_file
from dspy_rlm.profiles.sizes import listed_parts
from dspy_rlm.profiles.vocabulary import ID_LIKE
from dspy_rlm.profiles.yes_no_words import HAVING


class Count(KindBase):
    name = "count"
    every_record = True
    streams = True

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "count" not in book.offered:
            return []
        return [read("count", f"I will count the records with {key.text!r}.", "count_records", var, key.text)]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if key is not None and key.text.endswith("*") and not key.is_value:  # "the ARPOP_ ones": the keyed group
            return [Candidate(str(result), "count", True, "counted")]  # (its class: the calibrated "counted")
        if key is not None and _tag_counted(book, move.var, key.text):  # "how many <limit> elements are there?"
            return [Candidate(str(result), "count", True, "counted")]
        if key is not None and _field_counted(book, move.var, key.text, result):  # "how many collating-symbol
            return [Candidate(str(result), "count", True, "counted")]  # declarations": the records of that field
        ok = key is not None and key.is_value and always_whole(book, move.var, key.text)
        why = "counted" if ok else "counted a word, not a field value"  # some records hold it inside a longer value
        if ok and key is not None and not result and key.records:  # a glob read as a pattern ("upload.*"): none
            ok, why = False, "records hold the phrase, yet none was counted"
        if ok and key is not None and _counts_names(book, move.var, None, "part", key.text):
            ok, why = False, "the question counts names, and a record counted holds several"
        return [Candidate(str(result), "count", ok, why)]


def _field_counted(book: Any, var: str, phrase: str, result: Any) -> bool:
    """Whether ``phrase`` is the whole name of a field the question names and the records holding the phrase are
    those having that field, each once (a locale's ``collating-symbol <a-ogonek>`` lines): a count of the
    records counts that field's entries."""
    s = book.structs[var]
    name = next((f for f in book.named_fields(var) if f.casefold() == phrase.casefold()), None)
    if name is None or not isinstance(result, int) or result < 2 or len(s.records) > SCAN:
        return False
    having = [r for r in s.records if sum(1 for f, _ in r.fields if f == name) == 1]
    return len(having) == result and len(having) < len(s.records)


def _tag_counted(book: Any, var: str, phrase: str) -> bool:
    """Whether the question writes ``phrase`` as a markup tag (``<limit>``) and every record of the text is an
    element of that tag (each record's text opens ``<limit``): a count of the records counts those elements."""
    if not re.search(rf"<{re.escape(phrase)}(?:\s[^<>]*)?/?>", book.text_q):
        return False
    records = book.structs[var].records[:SCAN]
    opens = re.compile(rf"<{re.escape(phrase)}(?=[\s/>])")
    return bool(records) and all(opens.match(r.text.lstrip()) for r in records)


class CountWhere(KindBase):
    name = "count_where"
    every_record = True

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "count" not in book.offered:
            return []
        kr = repr(key.text)
        fields = list(book.counted_fields(var))
        # "the properties declared in the Options type": the records a named block holds (a literal's block)
        s = book.structs[var]
        fields += [
            f
            for f in CONTEXT_FIELDS
            if f in s.field_names and f not in fields and key.is_value and _holds(book, var, f, key.text)
        ]
        # a phrase no parsed record holds as the whole value ("2023" of dates: count_if's 'part') counts none,
        # unless the text goes on past its parsed head
        return [
            read("count_where", f"I will count the records whose {f} is {kr}.", "count_where", var, f, key.text)
            for f in fields
            if key.beyond or _holds(book, var, f, key.text)
        ]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        asked_field = move.args[0] in book.fields.get(move.var, [])
        ok = (asked_field or (key is not None and key.is_value)) and bool(result)
        why = "counted" if ok else "no record has that value there" if not result else "a field not named"
        if ok and key is not None and worded(book, move.var, key.text, move.args[0]):  # "tr After_I" beside "tr"
            ok, why = False, "other values of the field hold it as a word"
        if ok and key is not None and listed_among(book, move.var, key.text, move.args[0]):  # a JSON list's item
            ok, why = False, "other values of the field list it among other parts"
        if ok and key is not None and move.args[0] in CONTEXT_FIELDS and blocks_apart(book, move.var, key.text):
            ok, why = False, "several blocks have that name: the count joins them"  # YAML's nested "mapping:"s
        if ok and key is not None and _noun_of_all(book, move.var, key, result):
            ok, why = False, "every record holds the noun counted: the question's condition is another phrase"
        return [Candidate(str(result), "count", ok, why)]


def _noun_of_all(book: Any, var: str, key: Any, result: Any) -> bool:
    """Whether ``key`` is the noun "how many" counts ("how many *lexers* live in the configs module?"), held by
    every record (the block ``LEXERS`` they sit in), while another phrase of the question picks some records."""
    total = len(book.structs[var].records)
    said = {st.stem(w) for w in counted_nouns(st.words(book.text_q.casefold()))}
    if result != total or not said or not {st.stem(w) for w in st.words(key.text.casefold())} <= said:
        return False
    return any(k.text != key.text and 0 < k.records < total for k in book.keys.get(var, []))


class CountIf(KindBase):
    name = "count_if"
    every_record = True
    per_key = False

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "count" not in book.offered or book.structs[var].kind in ("lines", "prose"):
            return []
        moves = []
        for test, arg in operands(book, var):
            if test == "key":  # a phrase of the data: a whole part of a field where it is one (unless the question
                inside = said_inside(book, arg)  # asks for it inside a value), else a word in it
                whole_part = holders(book, var, "part", arg) and not worded(book, var, arg)
                test = "part" if whole_part and not inside else "contains"
            for f in holders(book, var, test, arg) if not settings_file(book, var) else ():  # (one record each)
                said = f"I will count the records whose {f} {SAID[test]} {arg!r}."
                moves.append(read("count_if", said, "count_if", var, f, test, arg))
            if _own_holds(book, var, test, arg):  # a file of settings: each setting's own value
                said = f"I will count the settings whose value {SAID[test]} {arg!r}."
                moves.append(read("count_if", said, "count_if", var, OWN, test, arg))
        return moves

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        field, test, arg = move.args
        if field == OWN:  # every setting's value tested: an identifier written whole ("in the mlx_lm.quant
            ok = bool(result) and bool(ID_LIKE.search(str(arg)))  # package") picks them; a plain word may be a name
            why = "counted" if ok else "a word, not an identifier, tested"
            total = len(book.structs[move.var].records)
            if ok and result == total and any(0 < k.records < total for k in book.keys.get(move.var, [])):
                ok, why = False, "every setting holds it: another phrase of the question picks some"
            return [Candidate(str(result), "count", ok, why)]
        # no other field could be meant: the only field where the stated test holds, or where the phrase is a
        # whole part of a value ("udp" in "53/udp"); a word inside a sentence of one field is no such evidence
        # "have 'Cyrillic' in their name": asked inside a name (not a word of a note: that may be said of anything)
        inside = test == "contains" and said_inside(book, arg) and names_field(book, move.var, field)
        only = (test != "contains" or inside) and holders(book, move.var, test, arg) == [field]
        only = only and not (test == "part" and worded(book, move.var, arg))  # "tr After_I" holds "tr" too
        ok = bool(result) and (field in loose_fields(book, move.var) or only)
        why = "counted" if ok else "no record passes" if not result else "a field not named"
        tested = next((k for k in book.keys.get(move.var, []) if k.text == arg), None)
        if ok and test in ("contains", "part") and tested is not None and tested.inner:  # "... the dump options
            ok, why = False, "the word tested is inside a longer phrase of the question"  # section": no "options"
        if ok and _counts_names(book, move.var, field, test, arg):
            ok, why = False, "the question counts names, and a record counted holds several"
        if ok and field in CONTEXT_FIELDS and test == "part" and blocks_apart(book, move.var, arg):
            ok, why = False, "several blocks have that name: the count joins them"
        if ok and tested is not None and _noun_of_all(book, move.var, tested, result):
            ok, why = False, "every record holds the noun counted: the question's condition is another phrase"
        return [Candidate(str(result), "count", ok, why)]


def _own_holds(book: Any, var: str, test: str, arg: str) -> bool:
    """Whether ``book`` reads a file of settings (one record each) where some setting's own value passes ``test``
    against ``arg`` (not a bound: a setting's number is counted by the settings kinds)."""
    if test in BOUNDS or not settings_file(book, var):
        return False
    values = (lookup.setting_value(r) for r in book.structs[var].records[:SCAN])
    return any(lookup.passes(v, test, arg) for v in values if v)


def _counts_names(book: Any, var: str, field: str | None, test: str, arg: str) -> bool:
    """Whether the counted noun is a name's ("how many environment *variables* does it set with ENV?") and a
    record passing the test (``field`` None: holding ``arg`` whole in any field) holds more than one named value
    beside the field tested: the names are counted, not the records (an ``ENV`` instruction sets three)."""
    said = {st.stem(n) for n in counted_nouns(st.words(book.text_q.casefold()))}
    if not said & {st.stem(n) for n in NAME_NOUNS}:
        return False
    for r in book.structs[var].records[:SCAN]:
        tested = [f for f, v in r.fields if (f == field or field is None) and lookup.passes(v, test, arg)]
        if tested and sum(f not in {*tested, "arguments", *CONTEXT_FIELDS} for f, _ in r.fields) > 1:
            return True
    return False


class CountAll(KindBase):
    """``count_records(V)``: how many records there are, offered for a count that states no condition."""

    name = "count_all"
    per_key = False
    every_record = True

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "count" not in book.offered or not counts_every_record(book, var):
            return []
        return [read("count_all", "I will count every record.", "count_records", var)]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, int):
            return []
        if book.structs[move.var].kind in ("lines", "prose") and not _says_lines(book.text_q):
            return [Candidate(str(result), "count", False, "the text's lines counted: no records were found")]
        if listed_parts(book, move.var):  # "how many trusted hosts are there?": a setting's items, not the records
            return [Candidate(str(result), "count", False, "the question names a part that lists items")]
        if book.structs[move.var].detail in MIXED_DETAILS:  # a script's options, variables and functions
            return [Candidate(str(result), "count", False, "the records are of several sorts: all of them counted")]
        return [Candidate(str(result), "count", True, "counted every record")]


MIXED_DETAILS = frozenset({"shell"})
"""Structures whose records are of several sorts (a shell script's options, variables and functions): a count of
every record counts no one sort."""


def _says_lines(question: str) -> bool:
    """Whether the question counts lines ("how many lines", "the number of non-empty lines")."""
    return bool({"line", "lines"} & set(st.words(question.casefold())))


class CountFlag(KindBase):
    """``count_where(V, F, 'yes')`` for "how many packages are essential?": a flag field the question names."""

    name = "count_flag"
    per_key = False
    every_record = True

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "count" not in book.offered:
            return []
        return [
            read("count_flag", f"I will count the records whose {f} is {v!r}.", "count_where", var, f, v)
            for f, v in flag_counts(book, var)
        ]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        return [Candidate(str(result), "count", True, "counted")] if isinstance(result, int) else []


class CountPresent(KindBase):
    """``count_if(V, F, 'present')`` for "how many entries carry a Documentation line?": the records that have a
    field the question names, where other records lack it; with ``test='empty'`` (``count_empty``) the records
    that lack a field the question names after a word of lacking ("how many posts have *no* tags?",
    :func:`~dspy_rlm.profiles.lacking.lacked_fields`). Supported only where the question names nothing else only
    some records hold, nor a test (else it counts something narrower)."""

    per_key = False
    every_record = True

    def __init__(self, name: str = "count_present", test: str = "present") -> None:
        self.name, self.test = name, test

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "count" not in book.offered:
            return []
        fields, having = (_sparse(book, var), "a") if self.test == "present" else (lacked_fields(book, var), "no")
        said = "I will count the records that have {} {}."
        return [read(self.name, said.format(having, f), "count_if", var, f, self.test) for f in fields]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, int):
            return []
        # a phrase of the question found in the data ("a Homepage on example.org") or a test ("above 3") narrows it;
        # not its name, nor a phrase every record holds ("blog" of blog posts)
        field, total = str(move.args[0]), len(book.structs[move.var].records)
        phrases = [k for k in book.keys.get(move.var, []) if norm(k.text.rstrip(":")) != norm(field)]
        phrases = [k for k in phrases if k.records < total and k.text.casefold() not in HAVING]  # "contain": a verb
        # a loose word describing the document ("the Debian copyright file") narrows nothing either
        phrases = [k for k in phrases if k.is_key or k.is_value or not before_document_noun(book.text_q, k.text)]
        opening = ("starts", field.casefold())  # "stanzas beginning with a Files: field": those that have it
        tests = [(t, a.rstrip(":").casefold()) for t, a in operands(book, move.var) if t != "key"]
        stated = bool(phrases) or any(test != opening for test in tests)
        ok = bool(result) and not stated
        why = "counted the records that have it" if self.test == "present" else "counted"
        why = why if ok else "no record passes" if not result else "a value is stated"
        return [Candidate(str(result), "count", ok, why)]


def _sparse(book: Any, var: str) -> list[str]:
    """The fields the question names after a word of having ("carry at least one Documentation line", not "in
    the default envlist"), its key's own field left out, that some records have and others lack."""
    memo = ("sparse", var)
    if memo not in book.memo:
        records = book.structs[var].records
        units = [f for f in book.structs[var].field_names[:200] if unit_after(book.text_q, f)]
        kinds = _keyed_kinds(book, var)
        named = [*book.fields.get(var, []), *units, *kinds]
        book.memo[memo] = [
            f
            for f in dict.fromkeys(named)
            if (_had(book.text_q, f) or unit_after(book.text_q, f) or f in kinds)
            and f not in lacked_fields(book, var)  # "have no tags": count_empty counts those
            and 0 < sum(1 for r in records if (r.get(f) or "").strip()) < len(records)
        ]
    return list(book.memo[memo])


def _keyed_kinds(book: Any, var: str) -> list[str]:
    """The fields the counted noun names ("how many *services*") that hold the key of each record having them
    (``service = www`` opens the record www): those records are the things counted."""
    counted = {st.stem(w) for w in counted_nouns(st.words(book.text_q.casefold()))}
    records = book.structs[var].records[:5000]
    out = []
    for f in book.structs[var].field_names[:200]:
        if st.stem(f.casefold()) in counted:
            having = [r for r in records if (r.get(f) or "").strip()]
            if having and all(norm(r.get(f) or "") == norm(r.key) for r in having):
                out.append(f)
    return out


def _had(question: str, field: str) -> bool:
    """Whether the question says a word of having at most three words before the field's name."""
    said = st.words(question.casefold())
    name = [p.casefold() for p in parts(field)]
    for i in range(len(said)):
        if said[i : i + len(name)] == name or said[i] == field.casefold():
            return any(w in HAVING for w in said[max(0, i - 4) : i])
    return False


def _holds(book: Any, var: str, field: str, value: str) -> bool:
    """Whether some record's ``field`` is ``value`` (case aside); the values are gathered once per run."""
    memo = ("held values", var, field)
    if memo not in book.memo:
        book.memo[memo] = {(r.get(field) or "").casefold() for r in book.structs[var].records}
    return value.casefold() in book.memo[memo]


class AnyIf(KindBase):
    """``count_if(V, F, '>', N)`` for a yes/no question that states a bound ("is there any sample whose first
    column is above 14.5?"): yes where a record passes. Supported in a field the question names."""

    name = "any_if"
    every_record = True
    per_key = False

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "yes_no" not in book.offered or book.structs[var].kind in ("lines", "prose"):
            return []
        # "does any Iris-setosa sample ...": a record or value named besides is a second condition, not tested here
        if any((k.is_key or k.is_value) and not k.hop for k in book.keys.get(var, [])):
            return []
        moves = []
        for test, arg in operands(book, var):
            if test not in BOUNDS:
                continue
            numeric = [f for f in book.fields.get(var, []) if mostly_numbers(book, var, f)]  # "no" is read there too
            for f in dict.fromkeys(numeric + holders(book, var, test, arg)):
                said = f"I will count the records whose {f} {SAID[test]} {arg!r}: any?"
                moves.append(read("any_if", said, "count_if", var, f, test, arg))
        return moves

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, int):
            return []
        ok = move.args[0] in loose_fields(book, move.var)
        why = "a record passes the test" if result else "no record passes the test"
        return [Candidate(result > 0, "answer", ok, why if ok else "a field not named")]
