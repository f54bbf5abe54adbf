"""What a counting or ranking read applies to: the tests a question states ("starting with G", "below 100") and
their operands, the fields a test holds in, the fields any word of the question names, and whether a value is
always held whole (so counting the records that contain it counts the value). Used by
:mod:`dspy_rlm.profiles.kinds`; the words themselves live in :mod:`dspy_rlm.profiles.vocabulary`.
"""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.phrases import counted_nouns, holding, id_parts, is_stop_value, may_be_value
from dspy_rlm.profiles.reads import abbreviated, field_holding_key, field_stems, norm, parts
from dspy_rlm.profiles.vocabulary import (
    ANSWER_WORDS,
    CUE_WORDS,
    ENGLISH,
    FALSE_FLAGS,
    IMPERATIVES,
    MOST_OF,
    STOP,
    TESTS,
    TEXT_UNITS,
    TRUE_FLAGS,
    UNREAD,
    WHOLE_SET,
)

__all__ = ["SAID", "SCAN", "always_whole", "holders", "loose_fields", "operands", "stated", "unread_test"]


SAID = {"starts": "starts with", "ends": "ends with", "contains": "contains", "part": "has the part"}
SAID.update({"<": "is below", ">": "is above"})
_EDGE = "?.,;:!\"'()"
SCAN = 2000
"""Records a counting test is tried on to find the fields it applies to (the count itself reads all)."""


def operands(book: Any, var: str) -> list[tuple[str, str]]:
    """(test, operand) pairs the question states: the word after a test phrase ("starting with G", "below
    100"), and each key phrase found in the data as a part of a field or a word in it."""
    out: list[tuple[str, str]] = []
    for test, phrases in TESTS.items():
        for phrase in phrases:
            for m in re.finditer(rf"(?<!\w){re.escape(phrase)}\s+(\S+)", book.text_q, re.IGNORECASE):
                arg = m.group(1).strip(_EDGE)
                if arg and (test not in ("<", ">") or lookup._number(arg) is not None):
                    out.append((test, arg.rstrip("/") or arg))
    out += [("key", k.text) for k in book.keys.get(var, []) if k.records and not k.beyond]
    return list(dict.fromkeys(out))


def holders(book: Any, var: str, test: str, arg: str) -> list[str]:
    """The fields in which some of the first records pass ``test`` against ``arg``; a number is compared only in
    fields that mostly hold one ("below 100" does not test a name that holds a digit)."""
    memo = ("holders", var, test, arg)
    if memo in book.memo:
        return list(book.memo[memo])
    records = book.structs[var].records[:SCAN]
    out = []
    for f in book.structs[var].field_names[:12]:
        values = [v for v in (r.get(f) for r in records) if v and v.strip()]
        if test in ("<", ">") and sum(lookup._number(v) is not None for v in values) < 0.5 * max(1, len(values)):
            continue
        if any(lookup.passes(v, test, arg) for v in values):
            out.append(f)
    book.memo[memo] = out
    return list(out)


def worded(book: Any, var: str, arg: str, field: str | None = None) -> bool:
    """Whether, in a field where ``arg`` is a whole part of some values, others hold it as a word but not as a
    part ("tr" in "tr After_I" beside "tr"): a count of the parts would leave those out."""
    memo = ("worded", var, arg, field)
    if re.search(rf"(?<!\w)(?:named|called)\s+['\"]?{re.escape(arg)}(?!\w)", book.text_q, re.IGNORECASE):
        return False  # "how many blocks are named Cyrillic": the whole name is asked, not a word of one
    if memo not in book.memo:
        fields = {field} if field else set(holders(book, var, "part", arg))
        values = (v for r in book.structs[var].records[:SCAN] for f, v in r.fields if f in fields)
        book.memo[memo] = any(lookup.passes(v, "contains", arg) and not lookup.passes(v, "part", arg) for v in values)
    return bool(book.memo[memo])


def said_inside(book: Any, phrase: str) -> bool:
    """Whether the question asks for ``phrase`` inside a value, not as one: "have 'Cyrillic' *in their name*",
    "names *containing* Cyrillic" (a count of the records whose field contains it)."""
    p = rf"['\"]?{re.escape(phrase)}['\"]?"
    before = rf"(?<!\w)(?:contain|includ)\w*\s+(?:the\s+(?:word|text|string)\s+)?{p}"
    after = rf"{p}\s+(?:in|within|inside)\s+(?:the|their|its)\s+\w+"
    return bool(re.search(before, book.text_q, re.IGNORECASE) or re.search(after, book.text_q, re.IGNORECASE))


def names_field(book: Any, var: str, field: str) -> bool:
    """Whether ``field`` holds names, not sentences: most of its values are at most three words (a phrase in a
    name is what the question counts; a word in a note may be said of anything)."""
    values = [v for v in (r.get(field) for r in book.structs[var].records[:SCAN]) if v]
    return bool(values) and sum(len(v.split()) <= 3 for v in values) >= 0.8 * len(values)


def most_of(book: Any) -> str | None:
    """The ranking "which X has the most Y" asks, where no cue word says it: ``most_common`` where Y names no
    field (it counts the records: "the most glob patterns"), ``max`` where Y names a field that holds numbers
    ("the most cores"); None where Y names another field (a list: "the most dependencies" is no value's count)
    or the question says a cue already."""
    m = MOST_OF.search(book.text_q)
    if m is None or book.cues & {"most_common", "max", "min", "count"} or m.group(1).casefold() in CUE_WORDS:
        return None
    said = st.stem(m.group(1).casefold())
    for s in book.structs.values():
        for f in s.field_names[:12]:
            if said in field_stems(f):
                values = [v for v in (r.get(f) for r in s.records[:SCAN]) if v and v.strip()]
                numbers = sum(lookup._number(v) is not None for v in values)
                return "max" if values and numbers >= 0.8 * len(values) else None
    return "most_common"


def loose_fields(book: Any, var: str) -> set[str]:
    """Fields named by any content word of the question, the counted noun included ("how many countries have
    a name ..." names the field "name of country")."""
    if ("loose", var) not in book.memo:
        words = [w for w in _said_words(book) if w not in ENGLISH and w not in CUE_WORDS]
        names = book.structs[var].field_names
        said = {st.stem(w) for w in words} | abbreviated(words, set(names))  # "description" says "desc"
        book.memo[("loose", var)] = {f for f in names if field_stems(f) & said}
    return set(book.memo[("loose", var)])


def _said_words(book: Any) -> list[str]:
    """The question's words, and the parts of a joined one ("base_url" says base and url)."""
    words = st.words(book.text_q.casefold())
    return words + [p for w in words for p in parts(w) if p != w]


def best_loose(book: Any, var: str) -> list[str]:
    """The loose fields (:func:`loose_fields`) whose name the question says most fully, in file order: of
    "the longest base_url", ``base_url`` (both its words said), not ``api_base_env`` or ``base_class``."""
    loose = loose_fields(book, var)
    said = {st.stem(w) for w in _said_words(book)} | abbreviated(_said_words(book), loose)
    share = {f: len(field_stems(f) & said) / len(field_stems(f)) for f in loose if field_stems(f)}
    top = max(share.values(), default=0.0)
    best = [f for f in book.structs[var].field_names if f in share and share[f] == top]
    # "which tag has the longest description?": the records' key field names what is asked, the other is ranked
    key_field = field_holding_key(book.structs[var])
    return [f for f in best if f != key_field] if len(best) > 1 else best


def always_whole(book: Any, var: str, phrase: str) -> bool:
    """Whether every record holding ``phrase`` holds it as a whole value or a whole part of one (``US`` in
    ``CA,US``), so counting the records that contain it counts the value."""
    said = norm(phrase)
    for r in book.structs[var].records:
        if lookup._has(r, phrase) and not any(
            norm(v) == said or any(norm(p) == said for p in lookup.parts_of(v)) for _, v in r.fields
        ):
            return False
    return True


_NUMERAL = re.compile(r"-?\d+(?:\.\d+)?")


def _says(value: str, word: str) -> bool:
    """Whether a field value, or a whole part of one, is ``word``, or one word of the same stem (failed: fail)."""
    for v in [value, *lookup.parts_of(value)]:
        said = norm(v).strip(_EDGE + "/")  # "/bin/bash" is said "bin/bash" by a word split
        if said == word or (" " not in said and st.stem(said) == st.stem(word)):
            return True
    return False


def _fields_saying(record: Any, word: str) -> set[str]:
    return {f for f, v in [("", record.key or ""), *record.fields] if v and _says(v, word)}


def _noun(book: Any, var: str, key: Any) -> str | None:
    """The word naming what the key is ("a *model* called K", "the *language* K", "job K"): the last word before
    the key that is no stop word, when it is a word of letters. It classifies the record; it states nothing."""
    at = book.text_q.casefold().find(key.text.casefold())
    before = [norm(w) for w in st.words(book.text_q[: max(at, 0)])]
    content = [w for w in before if w not in STOP]
    keyed = {norm(w) for k in book.keys.get(var, []) for w in st.words(k.text)}
    return content[-1] if content and content[-1].isalpha() and content[-1] not in keyed else None  # not bash


def stated(book: Any, var: str, key: Any) -> tuple[bool, bool]:
    """What a yes/no question states of the record its key names, beside naming it ("did job X fail?", "is X
    ok?"): each other word of the question that is some record's whole value (``failed``, ``ok``). Returns
    (met, differs): whether one record holding the key also holds every such word, and whether, for a word it
    does not hold, each record holding the key has another value in the fields that word fills elsewhere."""
    s = book.structs[var]
    mine = {norm(w) for w in st.words(key.text)}
    named = {st.stem(p) for f in s.field_names for p in st.words(f.casefold())}
    noun = _noun(book, var, key)
    asked = [w for w in dict.fromkeys(norm(w) for w in st.words(book.text_q)) if w not in mine and w != noun]
    written = {norm(w): w for w in st.words(book.text_q)}  # as the question writes it: "IT" may be a code
    asked = [w for w in asked if (w not in STOP or may_be_value(written[w])) and w not in ANSWER_WORDS]  # "all"
    stems = {st.stem(p) for w in asked if w not in STOP for p in [w, *parts(w)]}  # "temperature_max" whole
    fields = [f for f in s.field_names if field_stems(f) <= stems]  # said whole: "is X essential?", not "model"
    asked = [w for w in asked if st.stem(w) not in named]
    held = holding(book.texts[var], s, key.text)[:50]
    said_key = norm(key.text)  # the records the key names: by their key, else by a whole value, else any holding it
    held = [r for r in held if norm(r.key) == said_key] or [r for r in held if _fields_saying(r, said_key)] or held
    if not held or not all(any(r.get(f) for r in held) for f in fields):
        return not held, False
    flags = [norm(r.get(f) or "") for f in fields for r in held if r.get(f)]  # "does X run in a terminal?": its
    if flags and all(v in FALSE_FLAGS and v not in written for v in flags):  # Terminal field says false
        return False, True
    numbers = {float(w) for w in written.values() if _NUMERAL.fullmatch(w) and norm(w) not in mine}
    tests = any(re.search(rf"(?<!\w){re.escape(p)}(?!\w)", book.text_q, re.I) for ps in TESTS.values() for p in ps)
    held_numbers = [lookup._number(r.get(fields[0]) or "") for r in held] if len(fields) == 1 else []
    if len(numbers) == 1 and not tests and held_numbers and None not in held_numbers:
        # "is the temperature_max of scx-ai set to 2?": the one field said whole holds a number, and the one
        # number the question says beside the key is that number or not
        return (True, False) if numbers & set(held_numbers) else (False, True)
    said = [n for n in written.values() if _NUMERAL.fullmatch(n) and norm(n) not in mine]
    unheld = [n for n in said if not any(_number_in(r, n) for r in held)]
    if not tests and any(not any(_fields_saying(r, norm(n)) for r in s.records[:SCAN]) for n in unheld):
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
    filled = {w: set().union(*(_fields_saying(r, w) for r in s.records[:SCAN])) for w in asked}
    conditions = [  # a stop word ("all", "on") only as a whole value in its case or a lower one: "in" is no
        # condition of a table of codes that holds IN
        w
        for w in asked
        if filled[w] and (w not in STOP or is_stop_value(written[w], s.records[:SCAN]))
    ]
    # "was AAPL above 1 on 2000-01-01?": a test the question states of the record, which no exists() reads
    met = not nowhere and not tests and any(all(_fields_saying(r, w) for w in conditions) for r in held)

    def other(value: str | None) -> bool:  # a value the question says itself is no other value
        return value is not None and value != "" and not any(_says(value, t) for t in written)

    def inside(r: Any, w: str) -> bool:  # "255 215   0  gold" split as "255 215" | "0": 215 is there, as a word
        return any(re.search(rf"(?<![\w.]){re.escape(w)}(?![\w.])", v, re.IGNORECASE) for _, v in r.fields)

    differs = any(
        not any(_fields_saying(r, w) or inside(r, w) for r in held)
        and all(any(other(r.get(f)) for f in filled[w] if f) for r in held)
        for w in conditions
    )
    return met, differs


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


def unread_test(book: Any) -> str | None:
    """The first negation or test of :data:`UNREAD` the question says outside its key phrases, else None."""
    if "unread" not in book.memo:
        q = book.text_q.casefold()
        for var in book.keys:
            for k in book.keys[var]:
                q = q.replace(k.text.casefold(), " ")
        rx = {w: "n't" if w == "n't" else rf"(?<![\w']){re.escape(w)}(?!\w)" for w in UNREAD}  # isn't, don't
        said = (w for w in UNREAD if re.search(rx[w], q))
        book.memo["unread"] = next(said, None)
    return book.memo["unread"]


_CLAUSE_END = re.compile(r"[;.?!]\s+(?=\S)")
_THEN = re.compile(rf",?\s+and\s+(?:then\s+)?(?=(?:{'|'.join(sorted(IMPERATIVES))})\b)", re.IGNORECASE)
_REFERS = re.compile(r"(?<!\w)(?:that|this|those|these)\s+(\w+)", re.IGNORECASE)


def chained(book: Any) -> str | None:
    """The words by which a later clause of the question points back at what an earlier clause finds ("... the
    setting VERBOSE:ICF belongs to; how many entries does *that setting* have?", "X has a parent suite. What
    version is *that parent*?"), else None: such a question asks two steps, and no single read answers it."""
    if "chained" not in book.memo:
        found = None
        for rx, named in ((_CLAUSE_END, True), (_THEN, False)):  # "take X and give me the Y under *that number*"
            clauses = [c for c in rx.split(book.text_q) if c.strip()]
            for i in range(1, len(clauses)):
                before = {st.stem(w) for w in st.words(" ".join(clauses[:i]).casefold())}
                m = _REFERS.search(clauses[i])
                if m and len(st.words(clauses[i - 1])) >= 3 and (not named or st.stem(m.group(1).casefold()) in before):
                    found = found or m.group(0)
        book.memo["chained"] = found
    return book.memo["chained"]


def counts_every_record(book: Any, var: str) -> bool:
    """A count with no condition ("how many packages are listed?", "how many entries in total?"): past stop words,
    cue words and words naming the records as a whole, only the counted noun is left; it is no value of the data
    ("how many models" where some records' type is model), names no field but the records' key ("how many
    maintainers" counts distinct values), and is no unit of the text ("how many lines")."""
    said = st.words(book.text_q.casefold())
    nouns = counted_nouns(said)
    rest = [w for w in said if w not in STOP and w not in CUE_WORDS and w not in WHOLE_SET and w not in nouns]
    if rest or nouns & TEXT_UNITS or unread_test(book):
        return False
    s = book.structs[var]
    records = s.records[:SCAN]
    written = [w for w in st.words(book.text_q) if w.casefold() in STOP and w.casefold() not in WHOLE_SET]
    if any(may_be_value(w) and is_stop_value(w, records) for w in written):  # "how many hosts are down?"
        return False
    key_field = field_holding_key(s)
    stems = {st.stem(n) for n in nouns}
    if any(stems & field_stems(f) for f in s.field_names if f != key_field):  # "how many essential packages"
        return False
    if key_field is not None and stems & field_stems(key_field):
        return True  # "how many packages" over records keyed by Package
    return sum(any(_says(v, n) for n in nouns for _, v in r.fields) for r in records) < 2


def flag_counts(book: Any, var: str) -> list[tuple[str, str]]:
    """``(field, value)`` for "how many packages are *essential*?": a field the question names whole whose values
    are flags (``yes`` / ``no``, ``true`` / ``false``; records may lack it), with the value that says it holds,
    as the data spells it -- where no other word of the question states a condition."""
    said = st.words(book.text_q.casefold())
    stems = {st.stem(w) for w in said if w not in STOP}
    nouns = counted_nouns(said)
    out = []
    for f in book.structs[var].field_names[:40]:
        if not field_stems(f) <= stems:
            continue
        values = [v.strip() for v in (r.get(f) for r in book.structs[var].records[:SCAN]) if v and v.strip()]
        true = [v for v in values if v.casefold() in TRUE_FLAGS]
        if true and _flag_field(book, var, f):
            rest = [w for w in said if w not in STOP and w not in CUE_WORDS and w not in WHOLE_SET and w not in nouns]
            if all(st.stem(w) in field_stems(f) for w in rest):
                out.append((f, max(set(true), key=true.count)))
    return out


def other_condition(book: Any, var: str, phrase: str) -> str | None:
    """A condition the question states beside the one a count tests (``phrase``): another phrase that is a whole
    value of the data ("how many hosts run Debian *in Paris*"), or a flag field it names ("how many packages are
    *essential* and required"). A count of one condition is no answer to both."""
    said = norm(phrase)
    nouns = counted_nouns(st.words(book.text_q.casefold()))
    for k in book.keys.get(var, []):
        text = norm(k.text)
        other = text not in said and said not in text and text not in WHOLE_SET | STOP | nouns
        if k.is_value and k.records and not k.inner and other:
            return k.text
    stems = {st.stem(w) for w in st.words(book.text_q.casefold()) if w not in STOP}
    for f in book.structs[var].field_names[:40]:
        if (
            field_stems(f) <= stems
            and _flag_field(book, var, f)
            and not any(st.stem(w) in field_stems(f) for w in st.words(said))
        ):
            return f
    return None


def _flag_field(book: Any, var: str, field: str) -> bool:
    values = [v.strip().casefold() for v in (r.get(field) for r in book.structs[var].records[:SCAN]) if v]
    flags = TRUE_FLAGS | FALSE_FLAGS
    return bool(values) and sum(v in flags for v in values) >= 0.9 * len(values)


def agree(book: Any, var: str, key: Any, field: str, value: str) -> bool:
    """Whether every record keyed by ``key`` holds ``value`` in ``field`` (whole, or as one of its parts: the
    ``163`` of ``163/tcp`` and ``163/udp``); the first record's value is no answer where the others differ
    ("meuligoe" keys a release and its CD-ROM, each with its own description)."""
    if key is None or not key.is_key:
        return True
    memo = ("keyed", var, key.text)
    if memo not in book.memo:
        said = norm(key.text)
        book.memo[memo] = [r for r in holding(book.texts[var], book.structs[var], key.text)[:50] if norm(r.key) == said]
    keyed = book.memo[memo]
    if len(keyed) < 2:
        return True
    want, head = norm(value), norm((lookup.parts_of(value) or [value])[0])

    def same(v: str) -> bool:  # a record without the field says nothing against it
        got = [norm(p) for p in lookup.parts_of(v)]
        return not v.strip() or norm(v) == want or want in got or got[:1] == [head]

    return all(same(r.get(field) or "") for r in keyed)
