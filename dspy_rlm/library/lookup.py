"""REPL helpers over the detected structure of a text (:mod:`dspy_rlm.library.structure`): find records,
read their fields, count, rank, reverse-look-up. Each returns a value whose printed form is what the model
reads (``record 12 (line 340):`` blocks, ``KEY: VALUE``, a clear "no record contains ..." line).

Stdlib-only at import; :func:`dspy_rlm.library.helpers.standalone_source` inlines it into foreign interpreters.
"""

import bisect
import itertools
import re
from collections import Counter
from typing import Any

from dspy_rlm.library.formats import unquote  # inlined before structure.py
from dspy_rlm.library.records import RECORD_TEXT_CHARS, Record, Structure, name_form  # inlined before structure.py
from dspy_rlm.library.results import Counts, Nothing, Records  # inlined before this file
from dspy_rlm.library.structure import detect, match_lines, matches  # inlined before this file
from dspy_rlm.library.tail import (  # inlined after structure.py
    STREAMED_TESTS,
    one_line_records,
    records_beyond,
    records_past_head,
    remembered,
)
from dspy_rlm.library.textkit import held  # inlined first
from dspy_rlm.library.valueforms import _number, _year  # inlined before this file

_JOINED: dict[int, tuple[Any, int, str]] = {}


def _text(fn: str, var: Any) -> str:
    if isinstance(var, str):
        return var
    if isinstance(var, (bytes, bytearray)):
        return bytes(var).decode("utf-8", errors="replace")
    if isinstance(var, (list, tuple)) and all(isinstance(x, str) and "\n" not in x for x in var):
        hit = _JOINED.get(id(var))
        if hit is None or hit[0] is not var or hit[1] != len(var):  # detect() caches per str object: keep one
            _JOINED.clear()
            hit = _JOINED[id(var)] = (var, len(var), "\n".join(var))  # record line N is item N-1
        return hit[2]
    hint = ""
    if isinstance(var, dict):
        hint = f" For a dict of texts, call it per value: {fn}(var['key'], ...)"
    elif isinstance(var, (list, tuple)):
        hint = f" For a list of texts, call it per item: {fn}(var[0], ...)"
    raise TypeError(f"{fn}() takes one text (a str) or a list of one-line strs; got {type(var).__name__}.{hint}")


def _structure(fn: str, var: Any) -> Structure:
    return detect(_text(fn, var))


_STARTS: dict = {}  # (id(structure), None) -> (structure, its records' first lines), by textkit.held


def _containing(fn: str, var: Any, word: str) -> list[Record]:
    """The records containing ``word``, in order: one regex pass over the text finds the lines, then the
    records spanning those lines (JSON lines, whose values are decoded, are tested record by record); a huge
    text's, once per word (:func:`~dspy_rlm.library.tail.remembered`: each pass reads 100 MB or more)."""
    text = _text(fn, var)
    s = detect(text)
    return _find(text, s, word) if s.parsed_chars is None else remembered(s, word, lambda: _find(text, s, word))


def _find(text: str, s: Structure, word: str) -> list[Record]:
    if s.kind == "jsonl" and ("\\u" in text or "\\/" in text):  # escaped values: test the decoded ones
        return [r for r in s.records if _has(r, word)] or records_past_head(text, s, word)
    starts, found = held(_STARTS, s, None, lambda: [r.line for r in s.records], 16), {}
    head = text if s.parsed_chars is None else text[: s.parsed_chars]  # records cover only a huge text's head
    for line in match_lines(word, head):
        k = bisect.bisect_right(starts, line) - 1
        spanning = []
        while k >= 0 and s.records[k].end_line >= line:  # sentences can share a line: every one of them
            spanning.append(s.records[k])
            k -= 1
        for r in spanning:
            if len(spanning) == 1 or _has(r, word) or len(r.text) >= RECORD_TEXT_CHARS:
                found[r.index] = r
    return sorted(found.values(), key=lambda r: r.index) or records_past_head(text, s, word)


_PLACE_FIELDS = ("section", "block")
"""Fields a parser gives a record for where it sits, read off lines above it (a list item's heading, a
literal's block): a record holds their values though its own lines do not."""


def _placed(s: Structure, word: str, found: list[Record]) -> list[Record]:
    """``found`` and the named records whose heading or block is ``word`` whole ("the entries under the
    Environments heading"), in order."""
    placed = [f for f in _PLACE_FIELDS if f in s.field_names]
    if not placed or s.parsed_chars is not None:
        return found
    seen = {r.index for r in found}
    more = [r for r in s.records if r.index not in seen and r.key and any(_same(r.get(f) or "", word) for f in placed)]
    return sorted([*found, *more], key=lambda r: r.index) if more else found


def _check_word(fn: str, word: Any, what: str = "word") -> str:
    if not isinstance(word, (str, int, float)) or isinstance(word, bool) or not str(word).strip():
        raise TypeError(f"{fn}(): {what} must be a non-empty str, got {word!r}")
    return str(word).strip()


def _has(record: Record, word: str) -> bool:
    return matches(word, record.text) or any(matches(word, v) for _, v in record.fields)


def _field(fn: str, s: Structure, field: Any) -> str:
    name = _check_word(fn, field, "field")
    want = name.casefold()
    if any(n.casefold() == want for n in s.field_names) or any(r.get(name) is not None for r in s.records[:1000]):
        return name
    shown = ", ".join(s.field_names[:30]) or "none (this text has no fields; use records() or search())"
    raise ValueError(f"{fn}(): no field {name!r} in this {s.kind}; fields are: {shown}")


OWN = "*"
"""The field argument that reads each record's own one value: the settings of a file of ``NAME = value`` lines,
each record a setting named by its key (``count_where(V, '*', 'no')``, ``most_common(V, '*')``, ``max_of(V, '*')``)."""


def setting_value(record: Record) -> str | None:
    """The value of a record that is one setting (its one field named by its key), else None."""
    return record.fields[0][1] if len(record.fields) == 1 and record.fields[0][0] == record.key else None


def value_in(record: Record, name: str) -> str | None:
    """The record's value of the field ``name``; with :data:`OWN`, its own value where it is one setting."""
    return record.get(name) if name != OWN else setting_value(record)


def _same(a: str, b: str) -> bool:  # quotes around a whole value are no part of it ('break')
    return " ".join(unquote(a.strip()).casefold().split()) == " ".join(unquote(b.strip()).casefold().split())


def containing(text: str, word: str) -> list[Record]:
    """The records of ``detect(text)`` that contain ``word`` (as :func:`matches`), in order; for code that
    builds on the structure (the small model's grounded moves), the same search ``records()`` makes."""
    return _containing("containing", text, _check_word("containing", word))


# -- the helpers --------------------------------------------------------------------------------------------
def structure(var: Any) -> Structure:
    """The text's format: kind, record count, field names."""
    return _structure("structure", var)


def records(var: Any, word: Any = None, limit: int = 10) -> Records:
    """The records (rows, stanzas, sections, lines) containing word, with their fields.

    Args: var, a text; word, matched case-insensitively with word forms (None: every record); limit.
    Returns: a list of records printed as 'record N (line L):' blocks; r.get('Field') reads a field.
    """
    s = _structure("records", var)
    if word is None:
        found = list(s.records)
        empty = "the text has no records"
    else:
        w = _check_word("records", word)
        found = _placed(s, w, _containing("records", var, w))  # as count_records and exists count them
        empty = f"no record contains {w!r}"
    note = f"({len(found)} records in all; showing {limit}: pass limit= for more)" if len(found) > limit else ""
    if s.parsed_chars is not None:
        note += f" (records cover the first {s.parsed_chars:,} chars only: search() reads the rest)"
    return Records(found[: max(limit, 0)], note, empty)


def fields(var: Any) -> Counts:
    """The field names, with how many records have each."""
    s = _structure("fields", var)
    counts: Counter = Counter()
    for r in s.records:
        counts.update({n for n, _ in r.fields})
    return Counts((n, counts[n]) for n in s.field_names if counts[n])


_ALTERNATIVES = re.compile(r"\s*[,|]\s*|\s+or\s+")  # how a key lists several names


def _key_names(key: str) -> list[str]:
    """The names a key lists (``a, b``, ``a or b``, ``a | b``), and each flag among a part's words (an option's
    ``-p spec, --package spec``, ``-a --ascii``)."""
    parts = _ALTERNATIVES.split(key.strip())
    return parts + [w for p in parts if p[:1] in "-+" for w in p.split() if w[:1] in "-+"]


def record_of(var: Any, word: Any) -> Record | Nothing:
    """The record best matching word: by key, else field value, else text."""
    w = _check_word("record_of", word)
    return _best("record_of", var, w, None)


def _best(fn: str, var: Any, w: str, field: str | None) -> Record | Nothing:
    """The first record of the best match (the key as written, one of the names it lists, the same key in another
    case, the key holding word, a whole field value, a field value holding it, the text); of several keyed by
    word, the first holding ``field``: where a name keys a table and the entries that list it (a manifest's
    ``[pkg.X]`` with its ``version``, and X listed as an extension of other packages), "X's version" is the
    table's; with no field, the first holding any (``.SUFFIXES:`` then ``.SUFFIXES: .po .gmo``)."""
    found = _containing(fn, var, w)
    for named, test in (
        (True, lambda r: r.key.strip() == w),
        (True, lambda r: w in _key_names(r.key)),  # one of the names a key lists, as written: -A of "-A, --all"
        (True, lambda r: _same(r.key, w)),
        # capitals, a whole value as written, before a key holding the word in another case: NAME, not "-n name"
        (False, lambda r: w.isupper() and len(w) > 1 and any(v.strip() == w for _, v in r.fields)),
        (False, lambda r: matches(w, r.key)),
        (False, lambda r: any(_same(v, w) for _, v in r.fields)),  # a whole value before a word inside one
        (False, lambda r: any(matches(w, v) for _, v in r.fields)),
        (False, lambda r: True),
    ):
        tied = [r for r in found if test(r)]
        if tied and named and field is not None:  # records all keyed by word: one thing, the field is its
            return next((r for r in tied if r.get(field) is not None), tied[0])
        if tied and named:  # "X:" then "X: a b c" (a Makefile's .SUFFIXES): the one that holds something
            return next((r for r in tied if r.fields), tied[0])
        if tied:  # records that only hold word: the first (its siblings are other things)
            return tied[0]
    return Nothing(f"no record contains {w!r}")


def field_of(var: Any, word: Any, field: Any) -> str | None:
    """The whole value of field in record_of(var, word), else None.

    Of several records keyed by word, the first holding field is read."""
    w = _check_word("field_of", word)
    name = _check_word("field_of", field, "field")
    r = _best("field_of", var, w, name)
    if not isinstance(r, Record):
        return None
    # a field written once per value (a header's Requires-Dist: ...): the value word is in, where it is in one
    values = [v for n, v in r.fields if name_form(n) == name_form(name)]
    return next((v for v in values if matches(w, v)), r.get(name)) if len(values) > 1 else r.get(name)


def count_records(var: Any, word: Any = None) -> int:
    """How many records contain word (or all records).

    A record under a heading or block named word (whole) contains it; word='NAME_*' counts the records whose key
    starts with NAME_.

    With no word, where some records have a key or fields, the lines of prose between them (records of neither: a
    page's text around its table, a line no assignment) are no records. In a huge text whose records are lines,
    every line past the parsed head is counted too (one regex pass; with no word, each non-blank line that is no
    comment)."""
    text = _text("count_records", var)
    s = detect(text)
    if word is None:
        if s.parsed_chars is not None and s.records and one_line_records(s):
            rest = text[s.parsed_chars :].splitlines()[1:]  # the line the cap cut is counted in the head
            return len(s.records) + sum(1 for ln in rest if ln.strip() and not ln.lstrip().startswith(("#", ";")))
        held = sum(1 for r in s.records if r.fields or r.key)
        if s.kind == "lines" and 2 * held < len(s.records):  # a tips file's lines, a few labelled ("Do X with: ...")
            return len(s.records)
        return held or len(s.records)
    w = _check_word("count_records", word)
    if len(w) > 1 and w.endswith("*") and re.fullmatch(r"[\w.:/-]+", w[:-1]):  # a key prefix: "ARPOP_*"
        return sum(1 for r in s.records if r.key.startswith(w[:-1]) and r.key != w[:-1])
    if s.parsed_chars is not None and s.records and one_line_records(s):
        return sum(1 for n in match_lines(w, text) if n >= s.records[0].line)
    return len(_placed(s, w, _containing("count_records", var, w)))


def count_where(var: Any, field: Any, value: Any) -> int:
    """How many records have field == value (case-insensitive).

    field='*': each setting's own value, in a file of NAME = value settings.

    Past a huge text's parsed head too, where its records are lines (those holding value are parsed)."""
    s = _structure("count_where", var)
    name = OWN if field == OWN else _field("count_where", s, field)
    v = _check_word("count_where", value, "value")
    rest = records_beyond(_text("count_where", var), s, v)
    return sum(1 for r in itertools.chain(s.records, rest) if _same(value_in(r, name) or "", v))


_TESTS = ("starts", "ends", "contains", "part", "<", "<=", ">", ">=", "empty", "present")
_PARTS = re.compile(r"\s*[/,;|]\s*")


def parts_of(value: str) -> list[str]:
    """The parts of a compound value, split at ``/ , ; |`` (``'53/udp'`` -> ``['53', 'udp']``)."""
    return [p for p in _PARTS.split(value.strip()) if p]


def passes(value: str | None, test: str, arg: str = "") -> bool:
    """Whether a field ``value`` passes :func:`count_if`'s ``test`` against ``arg``."""
    v = (value or "").strip()
    if test in ("empty", "present"):
        return not v if test == "empty" else bool(v)
    if not v:
        return False
    if test in ("<", "<=", ">", ">="):
        n, limit = _number(v), _number(arg)
        if n is None or limit is None:
            return False
        return {"<": n < limit, "<=": n <= limit, ">": n > limit, ">=": n >= limit}[test]
    a, f = " ".join(arg.casefold().split()), " ".join(v.casefold().split())
    if test == "starts":
        return f.startswith(a)
    if test == "ends":
        return f.endswith(a)
    if test == "part":  # a date's year is a part of it too ('2023' of '2023-11-29')
        year = _year(v) if re.fullmatch(r"\d{4}", arg.strip()) else None
        return any(_same(p, arg) for p in parts_of(v)) or (year is not None and str(year) == arg.strip())
    return re.search(rf"(?<!\w){re.escape(a)}(?!\w)", f) is not None  # contains: the whole word(s), as written


def count_if(var: Any, field: Any, test: Any, value: Any = None) -> int:
    """Records whose field passes test: starts, ends, contains, part, <, >, empty, present.

    Args: var, a text; field; test; value: what the field 'starts' / 'ends' with, the word(s) it 'contains'
    (whole words as written, no other word forms), one of its 'part's ('udp' in '53/udp', 'US' in 'CA,US', a
    date's year), or
    the number it is '<' '<=' '>' '>=' (the first number in the field); none for 'empty' (missing or blank) and
    'present' (a value that is not blank, or fields of a nested object: the records that have the field).
    Case-insensitive; 'part' and 'contains' count past a huge text's parsed head too (as count_where).
    field='*': each setting's own value, in a file of NAME = value settings."""
    s = _structure("count_if", var)
    name = OWN if field == OWN else _field("count_if", s, field)
    if test not in _TESTS:
        raise ValueError(f"count_if(): test must be one of {', '.join(map(repr, _TESTS))}; got {test!r}")
    if test in ("empty", "present"):  # a nested object's fields ("pr.env") are the record having the field ("pr")
        having = sum(1 for r in s.records if passes(value_in(r, name), "present") or _nested_under(r, name))
        return having if test == "present" else len(s.records) - having
    arg = _check_word("count_if", value, "value")
    if test in ("<", "<=", ">", ">=") and _number(arg) is None:
        raise TypeError(f"count_if(): a {test!r} test needs a number, got {value!r}")
    rest = records_beyond(_text("count_if", var), s, arg) if test in STREAMED_TESTS else ()
    return sum(1 for r in itertools.chain(s.records, rest) if passes(value_in(r, name), test, arg))


def _nested_under(record: Record, name: str) -> bool:
    """Whether the record holds fields of an object named ``name`` (``pr.env`` under ``pr``)."""
    prefix = name.casefold() + "."
    return name != OWN and any(n.casefold().startswith(prefix) for n, _ in record.fields)


def exists(var: Any, word: Any) -> bool:
    """Does any record contain word? True/False.

    In a huge text, the part past the parsed head is searched too."""
    w = _check_word("exists", word)
    if _containing("exists", var, w):
        return True
    text = _text("exists", var)
    if _placed(detect(text), w, []):  # a heading that records sit under ("#LOC:IS" over its mirrors)
        return True
    cap = detect(text).parsed_chars
    return cap is not None and bool(match_lines(w, text, cap))
