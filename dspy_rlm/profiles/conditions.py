"""What a counting or ranking read applies to: the tests a question states ("starting with G", "below 100") and
their operands, the fields a test holds in, the fields any word of the question names, and whether a value is
always held whole (so counting the records that contain it counts the value). Used by
:mod:`dspy_rlm.profiles.kinds`; the words themselves live in :mod:`dspy_rlm.profiles.vocabulary`.
"""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import items, lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.named_document import before_document_noun
from dspy_rlm.profiles.naming import column_fields
from dspy_rlm.profiles.phrases import counted_nouns, holding, is_stop_value, keyed_by, may_be_value
from dspy_rlm.profiles.reads import field_holding_key, field_stems, norm, parts
from dspy_rlm.profiles.spans import (
    container_spans,
    count_subject,
    data_subject_spans,
    identifier_asides,
    owned_spans,
)
from dspy_rlm.profiles.spellings import field_forms
from dspy_rlm.profiles.vocabulary import (
    CUE_WORDS,
    CUES,
    DOCUMENT_VERBS,
    ENGLISH,
    MOST_OF,
    RECORD_UNITS,
    STOP,
    TESTS,
    TEXT_UNITS,
    UNREAD,
    UNSTATED,
    WHOLE_SET,
)
from dspy_rlm.profiles.yes_no_words import FALSE_FLAGS, TRUE_FLAGS

__all__ = [
    "BOUNDS",
    "NUMERAL",
    "SAID",
    "SCAN",
    "always_whole",
    "fields_saying",
    "flag_field",
    "holders",
    "loose_fields",
    "mostly_numbers",
    "operands",
    "says",
    "unread_test",
]


SAID = {"starts": "starts with", "ends": "ends with", "contains": "contains", "part": "has the part"}
SAID.update({"<": "is below", ">": "is above", "<=": "is at most", ">=": "is at least"})
BOUNDS = ("<", ">", "<=", ">=")
"""The tests that compare a field's number with the question's."""
_EDGE = "?.,;:!\"'()"
SCAN = 2000
"""Records a counting test is tried on to find the fields it applies to (the count itself reads all)."""


def operands(book: Any, var: str) -> list[tuple[str, str]]:
    """(test, operand) pairs the question states: the word after a test phrase ("starting with G", "below
    100"), and each key phrase found in the data as a part of a field or a word in it."""
    out: list[tuple[str, str]] = []
    for test, phrases in TESTS.items():
        for phrase in phrases:
            # "beginning with a Files: field": an article is no operand (a capital "A" is: "starting with A")
            for m in re.finditer(rf"(?<!\w){re.escape(phrase)}\s+(?-i:(?:a|an|the)\s+)?(\S+)", book.text_q, re.I):
                arg = m.group(1).strip(_EDGE)
                arg = _run_on(book, var, m.group(1), book.text_q[m.end() :]) if test not in BOUNDS else arg
                if arg and (test not in BOUNDS or lookup._number(arg) is not None):
                    out.append((test, arg.rstrip("/") or arg))
    out += [("ends", m.group()) for m in _SUFFIX.finditer(book.text_q)]  # ".pyi stub files": values ending so
    # not a loose word describing the document ("glibc's pl_PL *locale* file"): it narrows no count
    loose = [
        k for k in book.keys.get(var, []) if not (k.is_key or k.is_value) and before_document_noun(book.text_q, k.text)
    ]
    out += [("key", k.text) for k in book.keys.get(var, []) if k.records and not k.beyond and k not in loose]
    return list(dict.fromkeys(out))


_SUFFIX = re.compile(r"(?<![\w./*])\.[a-z][a-z0-9]{0,5}(?![\w.])")
"""A file name's suffix the question writes alone, in lower case (``.pyi``, ``.so``; not a Makefile's ``.SUFFIXES``
target): what the values it counts end with."""


def _run_on(book: Any, var: str, token: str, rest: str) -> str:
    """The operand ``token`` (as the question writes it) with the words after it written alike (all capitals, or
    each capitalized) where the data writes them so: "beginning with HIRAGANA LETTER" tests the two words, not
    HIRAGANA alone. A token that ends the phrase (``HIRAGANA,``) stays one word."""
    arg = token.strip(_EDGE)
    alike = str.isupper if arg.isupper() else str.istitle if arg.istitle() and len(arg) > 1 else None
    if alike is None or token.rstrip(_EDGE) != token:
        return arg
    out = arg
    for word in rest.split()[:3]:
        bare = word.strip(_EDGE)
        if not bare or not alike(bare) or word.lstrip(_EDGE) != word or out + " " + bare not in book.texts[var]:
            break
        out += " " + bare
        if word.rstrip(_EDGE) != word:
            break  # "LETTER?": the phrase ends here
    return out


def holders(book: Any, var: str, test: str, arg: str) -> list[str]:
    """The fields in which some of the first records pass ``test`` against ``arg``; a number is compared only in
    fields that mostly hold one ("below 100" does not test a name that holds a digit)."""
    memo = ("holders", var, test, arg)
    if memo in book.memo:
        return list(book.memo[memo])
    records = book.structs[var].records[:SCAN]
    out = []
    for f in book.structs[var].field_names[:12]:
        if test in BOUNDS and not mostly_numbers(book, var, f):
            continue
        if any(lookup.passes(v, test, arg) for v in (r.get(f) for r in records) if v and v.strip()):
            out.append(f)
    book.memo[memo] = out
    return list(out)


def mostly_numbers(book: Any, var: str, field: str) -> bool:
    """Whether at least half of the first records' values of ``field`` are numbers."""
    memo = ("mostly_numbers", var, field)
    if memo not in book.memo:
        values = [v for r in book.structs[var].records[:SCAN] if (v := r.get(field)) and v.strip()]
        book.memo[memo] = sum(lookup._number(v) is not None for v in values) >= 0.5 * max(1, len(values))
    return bool(book.memo[memo])


def worded(book: Any, var: str, arg: str, field: str | None = None) -> bool:
    """Whether, in a field where ``arg`` is a whole part of some values, others hold it as a word but not as a
    part ("tr" in "tr After_I" beside "tr"): a count of the parts would leave those out."""
    memo = ("worded", var, arg, field)
    if re.search(rf"(?<!\w)(?:named|called)\s+['\"]?{re.escape(arg)}(?!\w)", book.text_q, re.IGNORECASE):
        return False  # "how many blocks are named Cyrillic": the whole name is asked, not a word of one
    if memo not in book.memo:
        fields = {field} if field else set(holders(book, var, "part", arg))
        values = (v for r in book.structs[var].records[:SCAN] for f, v in r.fields if f in fields)
        whole = " ".join(arg.casefold().split())  # "Distribution / packaging" is the value, no word of it
        book.memo[memo] = any(
            lookup.passes(v, "contains", arg)
            and not lookup.passes(v, "part", arg)
            and " ".join(v.casefold().split()) != whole
            for v in values
        )
    return bool(book.memo[memo])


def listed_among(book: Any, var: str, arg: str, field: str) -> bool:
    """Whether some values of ``field`` hold ``arg`` as one part of a list ("UserValue, SemicolonAppendable" beside
    "UserValue"): a count of the values equal to it would leave those out."""
    whole = " ".join(arg.casefold().split())
    return any(
        f == field
        and " ".join(v.casefold().split()) != whole
        and lookup.passes(v, "part", arg)
        and not any(" " in p for p in lookup.parts_of(v))  # a list of names, not a sentence ("one of: chat, ...")
        for r in book.structs[var].records[:SCAN]
        for f, v in r.fields
    )


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


def counts_aside(question: str) -> bool:
    """Whether the question's count cue words come only after its question mark, in an instruction ("in which year
    were the most revisions released? Only count dated headings."): they say how to count what it ranks."""
    ask, mark, rest = question.partition("?")
    cued = [c.strip() for c in CUES["count"]]
    said = [" " + " ".join(st.words(part.casefold())) + " " for part in (ask, rest)]
    return bool(mark) and not any(f" {c} " in said[0] for c in cued) and any(f" {c} " in said[1] for c in cued)


def most_of(book: Any) -> str | None:
    """The ranking "which X has the most Y" asks, where no cue word says it: ``most_common`` where Y names no
    field (it counts the records: "the most glob patterns"), ``max`` where Y names a field that holds numbers
    ("the most cores") or lists items ("the most members": the longest list); None where Y names another field
    or the question says a cue already."""
    m = MOST_OF.search(book.text_q)
    said_max = {"max"} if m is not None and "number" in m.group(0).casefold() else set()  # "the largest number of"
    if m is None or (book.cues - said_max) & {"most_common", "max", "min", "count"}:
        return None
    counted = next(g for g in m.groups() if g)  # "has the most glob patterns", "of the most entries"
    if counted.casefold() in CUE_WORDS:
        return None
    said = st.stem(counted.casefold())
    after = st.words(book.text_q[m.end() :].casefold())[:1]
    if m.group(1) and after and after[0] in RECORD_UNITS:  # "given to the most Files entries": records counted
        return "most_common"
    for s in book.structs.values():
        for f in s.field_names[:12]:
            if said in field_stems(f):
                if all(r.get(f) == r.key for r in s.records[:SCAN]):  # "used for the most patterns": the column
                    return "most_common"  # keying each record names the records counted
                values = [v for v in (r.get(f) for r in s.records[:SCAN]) if v and v.strip()]
                numbers = sum(lookup._number(v) is not None for v in values)
                lists = any(len(items.list_items(v)) >= 2 for v in values)  # "the most members": the longest list
                return "max" if values and (numbers >= 0.8 * len(values) or lists) else None
    return "most_common"


def loose_fields(book: Any, var: str) -> set[str]:
    """Fields named by any content word of the question, the counted noun included ("how many countries have
    a name ..." names the field "name of country")."""
    if ("loose", var) not in book.memo:
        words = [w for w in _said_words(book) if w not in ENGLISH and w not in CUE_WORDS]
        names = book.structs[var].field_names
        said = {st.stem(w) for w in words} | field_forms(words, set(names))  # "description" says "desc"
        named = set(column_fields(book.text_q, book.structs[var]))  # "the petal length (3rd column)"
        book.memo[("loose", var)] = {f for f in names if field_stems(f) & said or f in named}
    return set(book.memo[("loose", var)])


def _said_words(book: Any) -> list[str]:
    """The question's words, and the parts of a joined one ("base_url" says base and url)."""
    words = st.words(book.text_q.casefold())
    return words + [p for w in words for p in parts(w) if p != w]


def best_loose(book: Any, var: str) -> list[str]:
    """The loose fields (:func:`loose_fields`) whose name the question says most fully, in file order: of
    "the longest base_url", ``base_url`` (both its words said), not ``api_base_env`` or ``base_class``."""
    loose = loose_fields(book, var)
    words = _said_words(book)
    said = {st.stem(w) for w in words} | field_forms(words, loose)
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


NUMERAL = re.compile(r"-?\d+(?:\.\d+)?")


def says(value: str, word: str) -> bool:
    """Whether a field value, or a whole part of one, is ``word``, or one word of the same stem (failed: fail)."""
    for v in [value, *lookup.parts_of(value)]:
        said = norm(v).strip(_EDGE + "/#")  # "/bin/bash" is said "bin/bash" by a word split; #REQUIRED, required
        if said == word or (" " not in said and st.stem(said) == st.stem(word)):
            return True
    return False


def fields_saying(record: Any, word: str) -> set[str]:
    return {f for f, v in [("", record.key or ""), *record.fields] if v and says(v, word)}


_HAVING_ONE = re.compile(r"(?<!\w)at\s+least\s+(?:one|an?)(?!\w)")  # "carry at least one X": the records having X
_NUMBER_BOUND = re.compile(r"(?<!\w)at\s+(?:least|most)\s+\d[\d.,]*(?!\w)")  # a count's count_if ">=" / "<="


def unread_test(book: Any) -> str | None:
    """The first negation or test of :data:`UNREAD` the question says outside its key phrases, else None."""
    if "unread" not in book.memo:
        q = UNSTATED.sub(" ", _HAVING_ONE.sub(" ", book.text_q.casefold()))  # "when you don't give one": a default
        q = _NUMBER_BOUND.sub(" ", q) if "count" in book.cues else q  # elsewhere no read tests a bound
        phrases = {k.text.casefold() for keys in book.keys.values() for k in keys}
        q = _cut(q, identifier_asides(q, phrases))  # "GPL-2.0 (without -only)": which one, no test
        for var in book.keys:
            for k in book.keys[var]:
                q = q.replace(k.text.casefold(), " ")
        rx = {w: "n't" if w == "n't" else rf"(?<![\w']){re.escape(w)}(?!\w)" for w in UNREAD}  # isn't, don't
        rx["between"] = r"(?<!\w)between\s+[^?.;,]*?\band\b"  # a range ("between 10 and 20"), not "between polls"
        said = (w for w in UNREAD if re.search(rx[w], q))
        book.memo["unread"] = next(said, None)
    return book.memo["unread"]


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with each span made one space (the last first, so that earlier spans stay where they were)."""
    for a, b in sorted(spans, reverse=True):
        text = text[:a] + " " + text[b:]
    return text


def counts_every_record(book: Any, var: str) -> bool:
    """A count with no condition ("how many packages are listed?", "how many entries in total?"): past stop words,
    cue words and words naming the records as a whole, only the counted noun is left; it is no value of the data
    ("how many models" where some records' type is model), names no field but the records' key ("how many
    maintainers" counts distinct values), and is no unit of the text ("how many lines")."""
    said = st.words(book.text_q.casefold())
    nouns = counted_nouns(said)
    # "how many entries does the supported renames table have?": the words naming the data say no condition
    q = book.text_q
    spans = data_subject_spans(q)
    q = _cut(q, spans)
    q = _cut(q, owned_spans(q))  # "... in boto's pyami copybot.cfg?": the file, no condition
    # "how many tips are in *the perf tips file*?": a container named by the noun counted holds those records
    named = [(a, b) for a, b in container_spans(q) if nouns & set(st.words(q[a:b].casefold()))]
    q = _cut(q, named)
    plain = st.words(q.casefold())
    verbs = DOCUMENT_VERBS if spans else frozenset()  # "... does the polkit policy file *define*?": its verb too
    rest = [w for w in plain if w not in STOP and w not in CUE_WORDS and w not in WHOLE_SET and w not in nouns]
    rest = [w for w in rest if w not in verbs]
    rest = [w for w in rest if w not in RECORD_UNITS]  # "how many install scheme *sections*": the records
    s = book.structs[var]
    records = s.records[:SCAN]
    subject = count_subject(book.text_q) if rest else None
    if subject and not any(says(v, w) for w in subject[0] for r in records for v in (r.key, *(v for _, v in r.fields))):
        rest = [w for w in rest if w not in subject[0] and w != subject[1]]  # "... does the project declare?"
    if rest or nouns & TEXT_UNITS or unread_test(book):
        return False
    written = [w for w in st.words(book.text_q) if w.casefold() in STOP and w.casefold() not in WHOLE_SET]
    if any(may_be_value(w) and is_stop_value(w, records) for w in written):  # "how many hosts are down?"
        return False
    fields = {f.casefold() for f in s.field_names}  # or a field's name ("how many collating-symbol declarations")
    if any(
        (k.is_value or k.text.casefold() in fields) and set(st.words(k.text.casefold())) <= nouns
        for k in book.keys.get(var, [])
    ):
        return False  # "how many RUN instructions": a value of the data before the counted noun is a condition
    key_field = field_holding_key(s)
    stems = {st.stem(n) for n in nouns}
    if any(stems & field_stems(f) for f in s.field_names if f != key_field):  # "how many essential packages"
        return False
    if key_field is not None and stems & field_stems(key_field):
        return True  # "how many packages" over records keyed by Package
    return sum(any(says(v, n) for n in nouns for _, v in r.fields) for r in records) < 2


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
        if true and flag_field(book, var, f):
            rest = [w for w in said if w not in STOP and w not in CUE_WORDS and w not in WHOLE_SET and w not in nouns]
            if all(st.stem(w) in field_stems(f) for w in rest):
                out.append((f, max(set(true), key=true.count)))
    return out


def flag_field(book: Any, var: str, field: str) -> bool:
    values = [v.strip().casefold() for v in (r.get(field) for r in book.structs[var].records[:SCAN]) if v]
    flags = TRUE_FLAGS | FALSE_FLAGS
    return bool(values) and sum(v in flags for v in values) >= 0.9 * len(values)


def agree(book: Any, var: str, key: Any, field: str, value: str) -> bool:
    """Whether every record keyed by ``key`` holds ``value`` in ``field`` (whole, or as one of its parts: the
    ``163`` of ``163/tcp`` and ``163/udp``); the first record's value is no answer where the others differ
    ("meuligoe" keys a release and its CD-ROM, each with its own description); of a phrase every record holds,
    every record."""
    if key is None:
        return True
    if key.is_key:
        memo = ("keyed", var, key.text)
        if memo not in book.memo:
            book.memo[memo] = keyed_by(holding(book.texts[var], book.structs[var], key.text)[:50], key.text)
        keyed = book.memo[memo]
    elif 1 < key.records >= len(book.structs[var].records):  # a phrase every record holds (the records' block,
        keyed = book.structs[var].records[:50]  # "the example guardrails"): where they differ, it names none
    else:
        return True
    if len(keyed) < 2:
        return True
    want, head = norm(value), norm((lookup.parts_of(value) or [value])[0])

    def same(v: str) -> bool:  # a record without the field says nothing against it
        got = [norm(p) for p in lookup.parts_of(v)]
        return not v.strip() or norm(v) == want or want in got or got[:1] == [head]

    return all(same(r.get(field) or "") for r in keyed)
