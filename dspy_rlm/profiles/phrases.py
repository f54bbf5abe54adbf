"""The phrases of a question as the moves see them: a key phrase found in the data (:class:`Key`: a record's key,
a field's whole value, how many records hold it), the nouns a count or ranking is over, and which words are
stop words at a phrase's edge."""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.library.formats import unquote
from dspy_rlm.profiles.field_words import WHOLE
from dspy_rlm.profiles.reads import camel_parts, field_stems, norm, parts
from dspy_rlm.profiles.spellings import spelled_by
from dspy_rlm.profiles.vocabulary import CUE_WORDS, FUNCTION_WORDS, ID_LIKE, PRONOUNS, RELATIVE, STOP
from dspy_rlm.profiles.yes_no_words import YES_NO_START

__all__ = [
    "ID_LIKE",
    "QUOTED",
    "Key",
    "beyond_key",
    "counted_nouns",
    "drop_descriptors",
    "found_beyond",
    "held_once",
    "holding",
    "holds_field",
    "hop_key",
    "is_stop",
    "is_stop_value",
    "keyed_by",
    "make_key",
    "mark_inner",
    "may_be_value",
    "named_line",
    "quoted_text",
    "unquoted",
]


QUOTED = re.compile(r'"([^"]{1,200})"|\u201c([^\u201d]{1,200})\u201d|(?<![\w\'])\'([^\'\n]{1,200}?)\'(?![\w\'])')
"""A phrase in quotes: double, curly, or single where no letter touches the quote from outside (not "user's")."""


@dataclass
class Key:
    """A phrase of the question found in the data, and what it is there."""

    text: str
    records: int
    is_key: bool  # equals a record's key
    is_value: bool  # equals a whole field value
    beyond: bool = False  # found only past the parsed head of a huge text (search() reads it; the record reads
    # too where a line past the head, parsed as the head's records are, has it as its key)
    inner: bool = False  # inside a longer phrase of the question found in fewer records ("R5" of "GDCA R5 ROOT")
    hop: bool = False  # no phrase of the question: a value a read produced that is another record's key (hop_key)
    via: tuple[str, str] = ("", "")  # a hop's: the key and field whose value it is (the next read asks another)
    quoted: bool = False  # the question quotes it whole ('g', "result:"): one key, however long or short
    but: str = ""  # a shared value's: the record whose value it is (the next read asks another record holding it)


def counted_nouns(said: list[str]) -> set[str]:
    """The words naming what is counted or ranked over (``how many time zones``, ``the number of packages``,
    ``Of all the countries``, ``count the targets``): the records themselves, not a field of them."""
    out: set[str] = set()
    for i, w in enumerate(said):
        counting = w == "count" and (i == 0 or said[i - 1] in ("to", "please", "and"))  # "Count the targets of X"
        if not (w == "many" or counting or (w == "number" and said[i + 1 : i + 2] == ["of"]) or (i == 0 and w == "of")):
            continue
        j = i + 2 if w == "number" else i + 1
        while j < len(said) and said[j] in ("the", "all"):
            j += 1
        while j < len(said) and said[j] not in STOP and len(out) < 2:
            out.add(said[j])
            j += 1
    return out


def counted_stems(book: Any) -> set[str]:
    """The stems of the nouns the book's question counts with (:func:`counted_nouns`), once per book."""
    if "counted stems" not in book.memo:
        book.memo["counted stems"] = {st.stem(w) for w in counted_nouns(st.words(book.text_q.casefold()))}
    return set(book.memo["counted stems"])


def is_stop(word: str) -> bool:
    """A stop word or a "whole" modifier, unless written in capitals (``AS``, ``IN``, ``NO``: a code)."""
    return (word.casefold() in STOP or word.casefold() in WHOLE) and not (len(word) >= 2 and word.isupper())


def may_be_value(word: str) -> bool:
    """Whether a stop word may name a value of the data ("how many hosts are *down*", "lights *off*"): a word of
    two letters or more that is no function word, no cue of a question's kind and no yes/no opener. It is a key
    only where some field's whole value is that word (:meth:`dspy_rlm.profiles.moves.MoveBook._keys`)."""
    w = word.casefold()
    pronoun = w in PRONOUNS and not word.isupper()  # "is it listed?" names no record keyed "it"
    return len(w) >= 2 and w not in FUNCTION_WORDS and w not in CUE_WORDS and w not in YES_NO_START and not pronoun


def is_stop_value(word: str, hits: list[st.Record]) -> bool:
    """Whether a stop word of the question is a whole field value of ``hits``: as written, or in another case
    but not a code in capitals ("known as France" names no record keyed ``AS``)."""
    said = word.strip().casefold()
    return any(
        v.strip() == word.strip() or (v.strip().casefold() == said and not v.strip().isupper())
        for r in hits
        for _, v in r.fields
    )


_FLAG = re.compile(r"(?<![\w-])[-+]{1,2}\w[\w.-]*")  # a command-line flag: -t, --dry-run, +toolchain


_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
_QUOTED_LIST = re.compile(rf"\s*(?:{_QUOTED.pattern})(?:\s*,\s*(?:{_QUOTED.pattern}))+\s*")


def make_key(phrase: str, hits: list[st.Record]) -> Key:
    """A phrase of the question found in ``hits``: is it a record's key, a field's whole value? A flag is the
    key of the record keyed by the flags it is one of (a manual's ``-t or --list``, ``-v, --verbose``)."""
    said = norm(phrase)
    flag = said[:1] in "-+" and _FLAG.fullmatch(said) is not None  # case kept: -a is not -A
    is_key = any(norm(r.key) == said or (flag and phrase.strip() in _FLAG.findall(r.key)) for r in hits)
    is_key = is_key or any(r.get("block") and norm(f"{r.get('block')}.{r.key}") == said for r in hits)  # a table's path
    spelled = " " in said and not flag  # "sqlite version": the words of SQLITE_VERSION, a name joined by _ or -
    is_key = is_key or (
        spelled and any(re.search(r"\w[_-]\w", r.key) and st.name_form(r.key) == st.name_form(said) for r in hits)
    )
    is_value = any(
        said in (norm(v), norm(v.split("\n", 1)[0]), norm(unquote(v.strip())), norm(v).removesuffix("."))
        or (v.count(",") and _QUOTED_LIST.fullmatch(v) and said in {norm(q[1:-1]) for q in _QUOTED.findall(v)})
        for r in hits
        for _, v in r.fields
    )  # a value's first line: a stanza's synopsis; 'break' quoted; a sentence: "Creates the archive."; an item of
    # quoted strings listed ('MODULE_PATHNAME', 'accept_weak_input')
    return Key(phrase, len(hits), is_key, is_value)


def holds_field(s: st.Structure, name: str, fields: list[str]) -> bool:
    """Whether a record keyed ``name``, or holding it as a whole value, holds one of ``fields`` (or none is given, or
    such a record is a setting of one field: it is what is asked about)."""
    said = " ".join(name.casefold().split())
    named = [
        r
        for r in s.records[:5000]
        if said in (" ".join(v.casefold().split()) for v in (r.key, *dict(r.fields).values()))
    ]
    if not fields or not named or any(len(r.fields) < 2 for r in named):  # a setting of its own ("version = 5")
        return True  # names a thing asked about, not a section the field might sit elsewhere than
    return any(r.get(f) is not None for r in named for f in fields)


def _stemmed_own(key: str, name: str, question: str) -> bool:
    """Whether a one-word setting named as its own record (a grammar's ``settings:`` rule) is said by the question
    only in another form of its stem ("the grammar *sets* a target"): a verb of the question, no name of it."""
    n, words = name.casefold(), st.words(question.casefold())
    if key.casefold() != n or not n.isalpha() or spelled_by(name, words):  # ("build directory": BUILDDIR)
        return False
    return not any(w in (n, n + "s", n.removesuffix("s")) for w in words)


def held_once(s: st.Structure, fields: list[str], keys: list[Key], question: str) -> Key | None:
    """Where the question names no record, the key of the one record holding a field it names (``FullName``
    of a font's header: "the font's full name"), as a key of the question; of two such fields, the one whose
    words the question says together ("full name", not "name of the font": ``FontName``), or else the one of
    which it says the most words, two or more and most of its own ("idle minutes": ``idle_timeout_minutes``);
    else none."""
    if any((k.is_key or k.is_value) and holds_field(s, k.text, fields) for k in keys):  # "the getty@ template *unit*":
        return None  # a record named [Unit] that holds no field asked names no record the question asks of
    found = []
    for name in fields:
        holders = []
        for r in s.records:
            if r.get(name) is not None:
                holders.append(r)
                if len(holders) > 1:
                    break
        if len(holders) == 1 and holders[0].key.strip():
            found.append((name, holders[0].key))
    said = " " + " ".join(st.words(question.casefold())) + " "
    words = said.split()
    together = [(n, k) for n, k in found if f" {' '.join(camel_parts(n)).casefold()} " in said or spelled_by(n, words)]
    stems = {st.stem(w) for w in words}
    told = {n: sum(st.stem(p.casefold()) in stems for p in parts(n)) for n, _ in found}  # "idle minutes" says
    if len(found) > 1:
        most = max(told.values())  # two parts of idle_timeout_minutes, one of head_node_type
        found = together or [(n, k) for n, k in found if told[n] == most >= 2 and most * 2 > len(parts(n))]
    elif found and not together and len(parts(found[0][0])) >= 3 and told[found[0][0]] * 2 < len(parts(found[0][0])):
        found = []  # "npm ... config" says two of process.env.npm_config_user_agent's six parts: no name of it
    if len(found) != 1 or _stemmed_own(found[0][1], found[0][0], question):
        return None
    return Key(found[0][1], 1, True, False, hop=True)  # no phrase of the question


def named_line(s: st.Structure, keys: list[Key]) -> list[str]:
    """In a text of lines, the field of the ``name value`` line a key phrase names by its name ("the locale's
    title": ``title "..."``), as a one-field list; else none."""
    if s.kind != "lines":
        return []
    named = {f.casefold(): f for f in s.field_names}
    for k in keys:
        field = named.get(k.text.casefold()) if k.is_key else None
        if field is None:
            continue  # (no pass over the records: a log's lines run to the hundreds of thousands)
        held = list(itertools.islice((r.get(field) or "" for r in s.records if r.key == field), 2))
        if len(held) == 1 and _whole_value(held[0]):
            return [field]
    return []


def _whole_value(value: str) -> bool:
    """A value complete on its line: no code going on past it (``(503, 'Service Unavailable',``, ``Codec().decode,``)
    nor another variable's value (``$parm``)."""
    v = value.strip()
    closed = all(v.count(a) == v.count(b) for a, b in ("()", "[]", "{}"))
    return bool(v) and closed and not v.endswith((",", "\\", "(", "[", "{")) and not v.startswith(("$", "@", "%"))


def drop_descriptors(book: Any, var: str, fields: list[str]) -> list[str]:
    """Fields named only to describe the record ("the time zone whose comment is X: its country code?")
    are not asked for when the question names another field besides the one holding its key value."""
    said = list(st.words(book.text_q.casefold()))
    desc: set[str] = set()
    for i, w in enumerate(said):
        if w in RELATIVE and not (i and said[i - 1] in YES_NO_START):  # "what dept does *that* employee have"
            before = [b for b in said[max(0, i - 3) : i] if b not in STOP][-2:]
            desc |= {st.stem(b) for b in before} | (
                {"=" + before[0][0].upper() + before[1][0].upper()} if len(before) == 2 else set()
            )
    holders, before_key = set(), set()
    for k in book.keys.get(var, []):
        record = lookup.record_of(book.texts[var], k.text) if k.is_value and not k.is_key else None
        if isinstance(record, st.Record):
            held = {f for f, v in record.fields if norm(v) == norm(k.text)}
            holders |= held
            asked = book.text_q.casefold()  # "with the file name pattern *.epub": the words
            words = list(
                itertools.takewhile(
                    lambda b: b not in FUNCTION_WORDS, st.words(asked[: max(asked.find(k.text.casefold()), 0)])[::-1]
                )
            )
            stems = {st.stem(b) for b in words[:3]}  # before a value that name its field describe it
            before_key |= stems if any(field_stems(f) & stems for f in held) else set()
    fields = [f for f in fields if f in holders or not (field_stems(f) & before_key)]
    if not desc:
        return fields
    named = book.named_fields(var)
    if not [f for f in named if not (field_stems(f) & desc) and f not in holders]:
        return fields
    return [f for f in fields if not (field_stems(f) & desc)]


def hop_key(s: st.Structure, keys: list[Key], values: list, via: tuple[str, str] = ("", "")) -> Key | None:
    """The first of ``values`` (what a read produced) that is exactly one record's key and no key yet: an alias's
    target (``alias <MENU> = <COMP>``: the record ``<COMP>`` holds the answer), which the next reads may read by;
    at most two per text. ``via``: the key and field of the read that produced ``values``."""
    if sum(k.hop for k in keys) >= 2:
        return None
    for value in values[:3]:
        fresh = isinstance(value, str) and len(value) >= 2 and all(k.text != value for k in keys)
        if fresh and s.key_counts.get(value) == 1:
            return Key(value, 1, True, False, hop=True, via=via)
    return None


def mark_inner(found: list[Key], text: str, s: st.Structure) -> None:
    """Marks the keys that name no record of their own (``inner``): a part of a longer phrase of the question found
    in fewer records, and a lower-case word the few records holding it hold only inside a name, after a ``-`` or
    ``/`` ("media type": ``application/x-quicktime-media-link``)."""
    for k in found:
        k.inner = not (k.is_key or k.is_value) and any(
            k.text != o.text and k.text.casefold() in o.text.casefold() and k.records > o.records for o in found
        )
        if not (k.inner or k.is_key or k.is_value) and k.records <= 3 and k.text.islower() and " " not in k.text:
            # free: at a name's head ("fschds-*"), or with a short ending ("defaults"), or a path's whole last part
            # (``/dev/scanner``); not after a - or / inside it
            rx = re.compile(
                rf"(?<![\w/-]){re.escape(k.text)}[a-z]{{0,3}}(?!\w)|(?<=\w/){re.escape(k.text)}\Z|\A/{re.escape(k.text)}\Z",
                re.IGNORECASE,
            )
            hits = holding(text, s, k.text)
            k.inner = bool(hits) and not any(
                rx.search(v) for r in hits for v in (r.key, r.text, *(x for f in r.fields for x in f))
            )
        if not (k.inner or k.is_key or k.is_value) and k.records <= 3 and re.search(r"\w[/.]\w", k.text):
            # a path or dotted name held only as the head of a longer one (``/etc/vim/vimrc`` of ``.../vimrc.local``)
            whole = re.compile(rf"(?<![\w/.]){re.escape(k.text)}(?![\w/-]|\.\w)", re.IGNORECASE)
            hits = holding(text, s, k.text)
            k.inner = bool(hits) and not any(
                whole.search(v) for r in hits for v in (r.key, r.text, *(x for f in r.fields for x in f))
            )


def holding(text: str, s: st.Structure, phrase: str) -> list[st.Record]:
    """The parsed records holding ``phrase``: each tested, or in a huge text (parsed only in its head, hundreds of
    thousands of records) the records one regex pass over the head finds."""
    if s.parsed_chars is None:
        return [r for r in s.records if lookup._has(r, phrase)]
    return lookup.containing(text, phrase)


def keyed_by(records: list[st.Record], phrase: str) -> list[st.Record]:
    """The ``records`` keyed by ``phrase``: as written where any is ("Omega" beside "omega": the data tells them
    apart by case; a phrase of one character may be a piece of a longer key: "<~O"), else in any case."""
    exact = [r for r in records if r.key == phrase] if len(phrase) > 1 else []
    if exact:
        return exact
    said = norm(phrase)
    return [r for r in records if norm(r.key) == said]


def found_beyond(text: str, phrase: str, cap: int, n: int) -> bool:
    """Whether a question phrase found in no parsed record is a key past the parsed head of a huge text: it
    occurs there, as written, and (a single word that is not ID-like) nowhere in the head: a word absent from
    millions of characters and then present names what the question is about."""
    if text.find(phrase, cap) < 0:
        return False
    return n >= 2 or bool(ID_LIKE.search(phrase)) or text.find(phrase, 0, cap) < 0


def written_as_name(question: str, phrase: str) -> bool:
    """Whether ``question`` writes ``phrase`` as a name: capitalized, and not as a sentence's first word."""
    at = question.find(phrase)
    return phrase[:1].isupper() and at > 0 and not question[:at].rstrip().endswith((".", "?", "!", ":"))


def beyond_key(text: str, phrase: str) -> Key:
    """A key found only past the parsed head: what the lines holding it there are, parsed as the head's records
    are (a record's key, a whole value), where the records are lines."""
    past = lookup.containing(text, phrase)
    made = make_key(phrase, past) if past else Key(phrase, 1, False, False)
    made.beyond = True
    return made


def unquoted(question: str, field_names: Collection[str]) -> str:
    """The question less its quoted phrases (a quoted value names no field), but for a field's whole name in
    quotes ("what does the 'Regular Testing' column say"), written as the file writes it too ('result:')."""
    named = {f.casefold() for f in field_names}
    return QUOTED.sub(lambda m: m.group(0) if quoted_text(m).casefold().rstrip(":= ") in named else " ", question)


def quoted_text(m: re.Match) -> str:
    """The phrase inside the quotes of a :data:`QUOTED` match, whichever quotes they are."""
    return next(g for g in m.groups() if g)


def one_letter(text: str) -> bool:
    """A letter said alone that may be a whole value: a capital (not the pronoun "I") or a letter past ASCII."""
    return len(text) == 1 and text.isalpha() and ((text.isupper() and text != "I") or not text.isascii())


def components(field_names: Collection[str]) -> set[str]:
    """The dotted parts of the field names (``defaults.allow_any``: ``defaults``, ``allow_any``)."""
    return {c for f in field_names if "." in f for c in f.split(".")}
