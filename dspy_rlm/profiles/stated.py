"""What a yes/no question states of the record its key names, beside naming it ("did job X fail?", "is pdf the
default savefig.format?", "does any X have a Y above 2?"), and whether the data says it holds: used by the
existence read of :mod:`dspy_rlm.profiles.kinds`."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.conditions import NUMERAL, SCAN, fields_saying, operands, says, unread_test
from dspy_rlm.profiles.id_spellings import id_parts
from dspy_rlm.profiles.named_document import FILE_NAME, document_noun, untitled
from dspy_rlm.profiles.phrases import holding, is_stop_value, may_be_value
from dspy_rlm.profiles.reads import field_stems, norm, parts
from dspy_rlm.profiles.spans import owned_at_end
from dspy_rlm.profiles.spellings import field_forms
from dspy_rlm.profiles.vocabulary import STOP, TESTS
from dspy_rlm.profiles.yes_no_words import ANSWER_WORDS, FALSE_FLAGS, TRUE_FLAGS

__all__ = ["absent_value", "binds", "flag_answer", "negated_word", "stated"]


def _noun(book: Any, var: str, key: Any, question: str | None = None) -> str | None:
    """The word naming what the key is ("a *model* called K", "the *language* K", "job K"): the last word before
    the key that is no stop word, when it is a word of letters. It classifies the record; it states nothing."""
    q = book.text_q if question is None else question
    at = q.casefold().find(key.text.casefold())
    before = [norm(w) for w in st.words(q[: max(at, 0)])]
    content = [w for w in before if w not in STOP]
    keyed = {norm(w) for k in book.keys.get(var, []) for w in st.words(k.text)}
    return content[-1] if content and content[-1].isalpha() and content[-1] not in keyed else None  # not bash


_NOUN_AFTER = r"\b(?:a|an)\s+{key}\s+([A-Za-z]+)\s*(?:[?.!,;:]|$)"


def _noun_after(question: str, key: Any) -> str | None:
    """The word after the key where "a" or "an" comes before it and the sentence ends after the word ("does it
    include *a* 5.12.0 *release*?"): it classifies the record, as :func:`_noun` does; it states nothing ("is *the*
    ID ubuntu?" states ubuntu of ID)."""
    m = re.search(_NOUN_AFTER.format(key=re.escape(key.text)), question, re.IGNORECASE)
    return norm(m.group(1)) if m else None


def stated(book: Any, var: str, key: Any) -> tuple[bool, bool]:
    """What a yes/no question states of the record its key names, beside naming it ("did job X fail?", "is X
    ok?"): each other word of the question that is some record's whole value (``failed``, ``ok``). Returns
    (met, differs): whether one record holding the key also holds every such word, and whether, for a word it
    does not hold, each record holding the key has another value in the fields that word fills elsewhere."""
    s = book.structs[var]
    q = untitled(book, var)  # the text's title ("the Node.js 5 changelog") states nothing of the record
    if owned := owned_at_end(q):  # nor an owner's name for the data ("in PostgreSQL's Australia timezone set":
        q = q[: owned[0]] + " " * (owned[1] - owned[0]) + q[owned[1] :]  # Australia/Lord_Howe is no condition)
    mine = {norm(w) for w in st.words(key.text)}
    named = _field_stems(book, var)
    noun = _noun(book, var, key, q)
    after = _noun_after(q, key)
    asked = [w for w in dict.fromkeys(norm(w) for w in st.words(q)) if w not in mine and w not in (noun, after)]
    written = {norm(w): w for w in st.words(q)}  # as the question writes it: "IT" may be a code
    asked = [w for w in asked if (w not in STOP or may_be_value(written[w])) and w not in ANSWER_WORDS]  # "all"
    stems = {st.stem(p) for w in asked if w not in STOP for p in [w, *parts(w)]}  # "temperature_max" whole
    stems |= field_forms([w for w in asked if w not in STOP], set(s.field_names))  # "petal length": petallength
    fields = [f for f in s.field_names if field_stems(f) <= stems]  # said whole: "is X essential?", not "model"
    # or a nested field by its own name, its path's last part ("can X do reranking?": endpoints.rerank)
    fields += [f for f in s.field_names if (leaf := _leaf(f)) and f not in fields and field_stems(leaf) <= stems]
    asked = [w for w in asked if st.stem(w) not in named]
    # "can X do reranking according to this file?": the asker's word for the document states nothing of X
    asked = [w for w in asked if not _document_word(q, w)]
    every = keyed_records(book, var, key)
    held = every[:50]
    if not held:
        return True, False
    if not all(any(r.get(f) for r in held) for f in fields):  # "does the posix_prefix section set a scripts key?":
        # the record its key names lacks a field two other records hold or more -- where the key names it by its key
        lacked = [f for f in fields if not any(r.get(f) for r in held)]
        shared = all(sum(r.get(f) is not None for r in s.records[:SCAN]) >= 2 for f in lacked)
        return False, shared and all(norm(r.key) == norm(key.text) for r in held)
    flags = [norm(r.get(f) or "") for f in fields for r in held if r.get(f)]  # "does X run in a terminal?": its
    if flags and all(v in FALSE_FLAGS and v not in written for v in flags):  # Terminal field says false
        return False, True
    numbers = {float(w) for w in written.values() if NUMERAL.fullmatch(w) and norm(w) not in mine}
    tests = any(re.search(rf"(?<!\w){re.escape(p)}(?!\w)", q, re.I) for ps in TESTS.values() for p in ps)
    held_numbers = [lookup._number(r.get(fields[0]) or "") for r in held] if len(fields) == 1 else []
    if tests and held_numbers and None not in held_numbers:
        values = [lookup._number(r.get(fields[0]) or "") for r in every]
        return _compared(book, var, [v for v in values if v is not None], capped=len(every) >= SCAN)
    if len(numbers) == 1 and not tests and held_numbers and None not in held_numbers:
        # "is the temperature_max of scx-ai set to 2?": the one field said whole holds a number, and the one
        # number the question says beside the key is that number or not
        return (True, False) if numbers & set(held_numbers) else (False, True)
    said = [n for n in written.values() if NUMERAL.fullmatch(n) and norm(n) not in mine]
    unheld = [n for n in said if not any(_number_in(r, n) for r in held)]
    if not tests and any(not any(fields_saying(r, norm(n)) for r in s.records[:SCAN]) for n in unheld):
        # "is telnetlib listed up to Python 3.13?": a number said of the record that neither it nor any field
        # holds whole is a statement no exists() checks ("3.0-3.12" may mean no, or yes): no answer either way
        # ("is ssh on port 23?": 23 is another record's port, so ssh's 22 says no, below)
        return False, False
    if not asked:
        return True, False
    text, key_parts = book.texts[var], [p.casefold() for p in id_parts(key.text)]
    unsaid = [w for w in asked if w not in STOP and [p.casefold() for p in id_parts(w)] != key_parts]
    # "is the ID ubuntu?": ubuntu is nowhere in the data, yet the question says it of ID: no yes
    # (only where the key names a setting, KEY=value: elsewhere "confirm", "present" are the question's own words)
    setting = all(len(r.fields) == 1 and r.fields[0][0] == r.key for r in held)
    nowhere = setting and any(not re.search(re.escape(w), text, re.IGNORECASE) for w in unsaid)
    if setting and any(all(_beside(r, w) for r in held) for w in unsaid):
        return False, True  # "is pdf the savefig.format?": its line lists pdf beside its value, png
    filled = {w: set().union(*(fields_saying(r, w) for r in s.records[:SCAN])) for w in asked}
    # "is --bin the default behavior of cargo new, according to cargo-new.1?": the file's name says no condition
    named = {p.casefold() for m in FILE_NAME.finditer(q) for p in re.findall(r"[^\W\d_]+", m.group(0))}
    filled = {w: set() if w in named else f for w, f in filled.items()}
    conditions = [  # a stop word ("all", "on") only as a whole value in its case or a lower one: "in" is no
        # condition of a table of codes that holds IN
        w
        for w in asked
        if filled[w] and (w not in STOP or is_stop_value(written[w], s.records[:SCAN]))
    ]
    # "was AAPL above 1 on 2000-01-01?": a test the question states of the record, which no exists() reads
    met = not nowhere and not tests and any(all(fields_saying(r, w) for w in conditions) for r in held)

    def other(value: str | None) -> bool:  # a value the question says itself is no other value
        return value is not None and value != "" and not any(says(value, t) for t in written)

    def inside(r: Any, w: str) -> bool:  # "255 215   0  gold" split as "255 215" | "0": 215 is there, as a word
        return any(re.search(rf"(?<![\w.]){re.escape(w)}(?![\w.])", v, re.IGNORECASE) for _, v in r.fields)

    differs = any(
        not any(fields_saying(r, w) or inside(r, w) for r in held)
        and all(any(other(r.get(f)) for f in filled[w] if f) for r in held)
        for w in conditions
    )
    return met, differs


def _compared(book: Any, var: str, values: list[float], capped: bool) -> tuple[bool, bool]:
    """(met, differs) of a number test the question states of the one field it names, over the records its key
    names ("does any X have a petal length above 2?"): met where one passes (every one, where it says "all" or
    "every"); neither where the test is not one comparison or the question's qualifier is one no read applies."""
    compared = [(t, lookup._number(a)) for t, a in operands(book, var) if t in ("<", ">")]
    test, limit = compared[0] if len(compared) == 1 else ("", None)
    if limit is None or unread_test(book):
        return False, False
    passing = [v > limit if test == ">" else v < limit for v in values]
    said = set(st.words(book.text_q.casefold()))
    if said & {"all", "every", "each"}:
        return all(passing) and not capped, not all(passing)
    return any(passing), not any(passing) and not capped


def _beside(record: Any, word: str) -> bool:
    """A setting's line names ``word`` outside its key and value (``#savefig.format: png  # {png, ps, pdf}``): one of
    the choices the value is not."""
    value = record.fields[0][1]
    rx = re.compile(rf"(?<![\w.]){re.escape(word)}(?![\w.])", re.IGNORECASE)
    return bool(rx.search(record.text)) and not rx.search(value) and not rx.search(record.key or "")


def _number_in(record: Any, number: str) -> bool:
    """Whether the record holds the number as a token of its key or a value ("3.12" in "3.0-3.12")."""
    rx = re.compile(rf"(?<![\w.]){re.escape(number)}(?![\w]|\.\d)")
    return bool(rx.search(record.key or "")) or any(rx.search(v) for _, v in record.fields)


_BOUND = (  # "profile = black", "whose (expected log) output is 0x0", "where the status was down"
    re.compile(r"([\w.-]+)\s*[=:]\s*[\"'`]?$"),
    re.compile(r"\b(?:whose|where|with)\s+(?:\w+\s+){0,2}?(\w+)\s+(?:is|are|was|were|equals)\s*[\"'`]?$", re.I),
)


def binds(question: str, key: str, field: str, names: Any = ()) -> bool:
    """Whether the question states ``key`` as the value of ``field`` ("whose *output is* 0x00000000", "*profile
    =* black"): reading that field of the record the key finds only repeats the question. "What license is X
    under?" asks for X's license. A word that is another of the fields ``names`` whole binds that one ("whose
    *name* is spiv" binds ``name``, not ``display_name``)."""
    at = question.find(key)
    before = question[max(0, at - 60) : at] if at > 0 else ""
    for rx in _BOUND:
        m = rx.search(before)
        if m is None or (norm(m.group(1)) != norm(field) and any(norm(m.group(1)) == norm(n) for n in names)):
            continue
        if norm(m.group(1)) == norm(field) or st.stem(m.group(1).casefold()) in field_stems(field):
            return True
    return False


_BINARY = {"1": "true", "0": "false"}


def flag_answer(book: Any, var: str, field: str, value: str, specific: bool) -> list[Candidate]:
    """A yes/no answered by a setting's flag ("is RPATH enabled?": ``ENABLE_RPATH = NO`` says no): the whole
    value of a field the question names is a flag (:data:`TRUE_FLAGS`, :data:`FALSE_FLAGS`); a question saying
    the negative ("is X disabled?") is answered the other way; one that negates ("is X not ...") is vouched for
    by nothing."""
    v = norm(value)
    if v in _BINARY and not re.search(r"\d", book.text_q):  # "is expand-check turned on?": expand-check=0
        v = _BINARY[v]  # a 0 or 1 setting, where the question states no number it could be compared to
    if book.answer_type is not bool or v not in TRUE_FLAGS | FALSE_FLAGS:
        return []
    said = set(st.words(book.text_q.casefold()))
    holds = (v in TRUE_FLAGS) != bool(said & (FALSE_FLAGS - {"no"}))
    ok = specific and field in book.fields.get(var, []) and not unread_test(book)
    return [Candidate(holds, "answer", ok, "the setting's flag says so")]


_SET_TO = r"(?<!\w)(?:set|equal|equals|changed|mapped|assigned|defaults?)\s+(?:to|as)|(?<!\w)=(?!=)"
"""Words before the value a yes/no states of a setting ("can X be *set to* yaml", "is X *=* on")."""


def absent_value(book: Any, var: str, key: Any) -> str | None:
    """The value a yes/no states of the record ``key`` names that the data holds nowhere ("can the --output option
    be set *to yaml*?": no value of the file is yaml), where ``key`` is a record's key; else None."""
    if key is None or not key.is_key:
        return None
    for k in book.keys.get(var, []):
        said = rf"(?:{_SET_TO})\s+['\"`]?{re.escape(k.text)}(?!\w)"
        if k is not key and not k.records and re.search(said, book.text_q, re.I):
            return k.text
    return None


def keyed_records(book: Any, var: str, key: Any) -> list[st.Record]:
    """The records the key names (of the first :data:`SCAN` holding it): by their key, else by a whole value, else
    any holding it (memoized: stated() and negated_word() ask for the same)."""
    memo = ("keyed_records", var, key.text)
    if memo not in book.memo:
        every = holding(book.texts[var], book.structs[var], key.text)[:SCAN]
        said = norm(key.text)
        by_key, by_value = [r for r in every if norm(r.key) == said], [r for r in every if fields_saying(r, said)]
        if any(r.fields for r in by_key + by_value):  # a heading of no fields that repeats a record's name (a
            by_key, by_value = [r for r in by_key if r.fields], [r for r in by_value if r.fields]  # README's "#
            # python-dotenv" under the METADATA header whose Name it is) stands for no record of it
        book.memo[memo] = by_key or by_value or every
    return list(book.memo[memo])


def _field_stems(book: Any, var: str) -> set[str]:
    """The stems of the words of every field name of ``var``'s structure (memoized)."""
    memo = ("field_stems", var)
    if memo not in book.memo:
        fields = book.structs[var].field_names  # a nested field's own name, its path's last part: endpoints.rerank
        words = [p for f in fields for p in [*st.words(f.casefold()), _leaf(f.casefold())] if p]
        book.memo[memo] = {st.stem(p) for p in words}
    return set(book.memo[memo])


def _leaf(field: str) -> str:
    """A nested field's own name, the last part of its path, where it is a word ("endpoints.rerank": rerank; not
    the "2" of "model_supported_endpoints.gpt-5.2", whose key holds a dot); else ""."""
    leaf = field.rpartition(".")[2]
    return leaf if "." in field and re.search(r"[^\W\d_]{3}", leaf) else ""


def _document_word(question: str, word: str) -> bool:
    """Whether ``word`` is said only as a document noun closing a definite phrase ("according to *this file*")."""
    spots = [m.start() for m in re.finditer(rf"(?<![\w.-]){re.escape(word)}(?![\w.-])", question, re.IGNORECASE)]
    return bool(spots) and all(document_noun(question, at, word) for at in spots)


def negated_word(book: Any, var: str, key: Any) -> str | None:
    """A word the question says of the record its key names that the key's records hold only negated, ``!word``
    (``ConditionVirtualization=!container``: "will the unit start in a container?"): the statement is the
    question's, turned; no exists() read answers it. None where no such word is."""
    held = keyed_records(book, var, key)
    mine = {norm(w) for w in st.words(key.text)}
    named = _field_stems(book, var)
    for w in dict.fromkeys(norm(w) for w in st.words(book.text_q)) if held else ():
        if len(w) < 3 or w in mine or w in STOP or w in ANSWER_WORDS or st.stem(w) in named or not w.isalpha():
            continue
        negated = re.compile(rf"(?:^|(?<=[\s=,(]))!{re.escape(w)}(?![\w-])", re.IGNORECASE | re.MULTILINE)  # no <!X
        plain = re.compile(rf"(?<![\w!-]){re.escape(w)}(?![\w-])", re.IGNORECASE)
        if any(negated.search(r.text) for r in held) and not any(plain.search(r.text) for r in held):
            return w
    return None
