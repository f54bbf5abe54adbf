"""REPL helpers that rank the records of a detected structure: the most common value of a field
(``most_common``), the record with the largest / smallest number or longest / shortest value (``max_of`` /
``min_of``), and the key of the record holding a value (``key_of``), each optionally within one heading or block.

Stdlib-only at import; :func:`dspy_rlm.library.helpers.standalone_source` inlines it after ``lookup``.
"""

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from dspy_rlm.library.items import list_items  # inlined after this file: called at run time only
from dspy_rlm.library.lookup import (  # inlined before this file
    _PLACE_FIELDS,
    OWN,
    _check_word,
    _containing,
    _field,
    _same,
    _structure,
    count_if,
    count_records,
    count_where,
    exists,
    field_of,
    fields,
    record_of,
    records,
    setting_value,
    structure,
    value_in,
)
from dspy_rlm.library.records import Record, Structure  # inlined before this file
from dspy_rlm.library.results import KeyValue, Nothing  # inlined before this file
from dspy_rlm.library.structure import matches  # inlined before this file
from dspy_rlm.library.valueforms import _date, _numbered, _year  # inlined before this file


def most_common(var: Any, field: Any, but: Any = None, by: Any = None, within: Any = None) -> str | Nothing:
    """Most common field value (by='dir': its dir; 'head': before the 1st /; 'item': each item), not `but`, in `within`.

    ``but`` ("UTF-8 aside, which charset is listed most often?") is compared whole, any case. Ties go to the value
    seen first; values are compared with whitespace normalized. A placeholder with no letter or digit (``-``,
    ``--``, ``?``: a fixed-width table's empty cell) is no value, unless all are. by='dir' counts the directory of
    each path value (``a/b/c.py``: ``a/b``; a value with no directory is left out): "which directory holds the
    most files". by='head': the part before the first slash (``Europe/Paris``: ``Europe``; ``text/plain``:
    ``text``; a value with no slash is left out): "which prefix has the most rows". by='item': each item a value
    lists counts once a record (``tags: [a, b]``): "which tag is on the most posts". by='year': each date value's
    year ("in which year were the most versions released"). field='*':
    each setting's own value, in a file of NAME = value settings. within: only the
    records in the block or under the heading so named (as :func:`max_of`'s): "the most common value in the
    SPECIAL_NAMES mapping".
    """
    s = _structure("most_common", var)
    name = OWN if field == OWN else _field("most_common", s, field)
    records = None
    if within is not None:
        records = records_within(s, _check_word("most_common", within, "within"))
        if not records:
            return Nothing(f"no block or heading is named {within!r}")
    counts = item_counts(s, name, records) if by == "item" and name != OWN else value_counts(s, name, records)
    if by == "dir":
        dirs: Counter[str] = Counter()
        for v, n in counts.items():
            if "/" in v.strip("/"):
                dirs[v.rstrip("/").rsplit("/", 1)[0]] += n
        counts = dirs
    elif by == "year":
        years: Counter[str] = Counter()
        for v, n in counts.items():
            if (year := _year(v)) is not None:
                years[str(year)] += n
        counts = years
    elif by == "head":
        heads: Counter[str] = Counter()
        for v, n in counts.items():
            if "/" in v.strip().lstrip("/"):
                heads[v.strip().lstrip("/").split("/", 1)[0]] += n
        counts = heads
    elif by not in (None, "item"):
        raise ValueError(f"most_common: by={by!r}; expected None, 'dir', 'head', 'item' or 'year'")
    if but is not None:
        left = " ".join(_check_word("most_common", but, "but").split()).casefold()
        counts = Counter({v: n for v, n in counts.items() if v.casefold() != left})
    if not counts:
        return Nothing(f"no record has the field {field!r}")
    return max(counts, key=counts.__getitem__)  # max() keeps the first of equal counts: first seen


def value_counts(s: Structure, field: str, records: list[Record] | None = None) -> Counter[str]:
    """How many records (of ``records``, else all) hold each value of ``field``, as :func:`most_common` ranks them
    (whitespace normalized; a placeholder with no letter or digit counts only where every value is one)."""
    rows = s.records if records is None else records
    values = (
        [v for r in rows if (v := r.get(field)) is not None]
        if field != OWN
        else [v for r in rows if (v := setting_value(r)) is not None]
    )
    values = [v for v in values if any(c.isalnum() for c in v)] or values
    return Counter(" ".join(v.split()) for v in values)


def item_counts(s: Structure, field: str, records: list[Record] | None = None) -> Counter[str]:
    """How many records (of ``records``, else all) list each item in ``field``
    (:func:`~dspy_rlm.library.items.list_items`; an item a record lists twice counts once), whitespace
    normalized."""
    counts: Counter[str] = Counter()
    rows = s.records if records is None else records
    for v in (v for r in rows if (v := r.get(field)) is not None):
        counts.update(list(dict.fromkeys(" ".join(i.split()) for i in list_items(v) if any(c.isalnum() for c in i))))
    return counts


def keys_fitting(items: Sequence[Any], pattern: str, key: Callable[[Any], str] = str) -> list[Any]:
    """The items whose key (``key(item)``) ``pattern`` fits whole, each ``*`` any run of characters: as written,
    else ignoring case (``'SIG*'``: SIGBUS, SIGPWR ...)."""
    rx = re.compile(".*".join(re.escape(p) for p in pattern.split("*")), re.DOTALL)
    fit = [x for x in items if rx.fullmatch(key(x))]
    return fit or [x for x in items if re.fullmatch(rx.pattern, key(x), re.DOTALL | re.IGNORECASE)]


def records_within(s: Structure, place: str) -> list[Record]:
    """The records under the heading or in the block named ``place`` whole (a literal's enum, a list's heading);
    a ``place`` holding ``*`` is a pattern of keys first (``'SIG*'``: the records keyed SIGBUS, SIGPWR ...); where
    no heading or block is so named, the records keyed ``place`` where two or more are, else the records one of whose
    other fields is ``place`` whole (a type column's code: sysusers.d's ``g`` lines)."""
    if "*" in place and (fit := keys_fitting(s.records, place, key=lambda r: r.key)):
        return fit
    found = [r for r in s.records if any(_same(r.get(f) or "", place) for f in _PLACE_FIELDS)]
    tail = "/" + place.strip().casefold()  # "the Qwen3-4B table" under the heading "Qwen/Qwen3-4B"
    found = found or [
        r for r in s.records if any((r.get(f) or "").strip().casefold().endswith(tail) for f in _PLACE_FIELDS)
    ]
    if not found and place not in s.field_names and len(keyed := [r for r in s.records if r.key == place]) >= 2:
        return keyed  # records sharing their key (no field's name): a flag table's WarningLevel rows, one per switch
    return found or [r for r in s.records if r.key != place and any(v.strip() == place for _, v in r.fields)]


def _extreme(fn: str, var: Any, field: Any, pick: Callable[..., Any], by: Any, place: Any) -> KeyValue | Nothing:
    s = _structure(fn, var)
    name = _field(fn, s, field) if field != OWN else OWN
    if by not in ("number", "length"):
        raise ValueError(f"{fn}(): by must be 'number' or 'length', got {by!r}")
    records = s.records if place is None else records_within(s, _check_word(fn, place, "within"))
    scored: list[tuple[float, Record]]
    if by == "length":
        scored = [(len(" ".join(v.split())), r) for r in records if (v := value_in(r, name)) and v.strip()]
    else:  # a field of dates ranks by date, not by its first number (the year)
        values = [(v, r) for r in records if (v := value_in(r, name)) is not None and v.strip()]
        if name == OWN:  # a setting's own number, written bare: '1.24' is a string, SHA256 a name
            values = [(v, r) for v, r in values if _BARE_NUMBER.fullmatch(v.strip()) and not _quoted(r, v)]
        dated = [(n, r) for v, r in values if (n := _date(v)) is not None]
        scored = dated if len(dated) * 2 > len(values) else _numbered(values)
    if name == OWN and len(scored) < 2:
        return Nothing("fewer than two settings hold a number: nothing is ranked")
    if not scored:
        return Nothing(f"no record has a {'value' if by == 'length' else 'number'} in the field {name!r}")
    _, best = pick(scored, key=lambda pair: pair[0])
    return KeyValue(best.key, value_in(best, name) or "", best)


_BARE_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")


def _quoted(record: Record, value: str) -> bool:
    return any(q + value + q in record.text for q in "'\"")


def max_of(var: Any, field: Any, by: Any = "number", within: Any = None) -> KeyValue | Nothing:
    """The record with the largest number in field (by='length': longest value): KEY: VALUE.
    field='*': each setting's own value, in a file of NAME = value settings (a quoted value is no number).

    Returns: a (key, value) tuple printed 'KEY: VALUE'; .record is the whole record. Records whose field
    holds no number are skipped; '1,234' reads as 1234; a field of dates ranks by date (the latest is the largest).
    by='length' ranks by the value's length in characters. within='Name' ranks only the records under that
    heading or in that block (a class's members, a section's items); within='SIG*': those whose key fits.
    """
    return _extreme("max_of", var, field, max, by, within)


def min_of(var: Any, field: Any, by: Any = "number", within: Any = None) -> KeyValue | Nothing:
    """As max_of, with the smallest number in field (by='length': shortest): KEY: VALUE."""
    return _extreme("min_of", var, field, min, by, within)


def max_field(var: Any, record: Any = None) -> KeyValue | Nothing:
    """The record's setting with the largest number (record=None: any record's): NAME: VALUE.

    A record's fields are its settings ("which limit under [tool.pylint] is set highest?"); record names the
    record as record_of finds it. Only values written as a bare number rank (a quoted '1.24' is a string); .record
    is the record the setting is in.
    """
    return _field_extreme("max_field", var, record, max)


def min_field(var: Any, record: Any = None) -> KeyValue | Nothing:
    """As max_field, the smallest."""
    return _field_extreme("min_field", var, record, min)


def _field_extreme(fn: str, var: Any, record: Any, pick: Callable[..., Any]) -> KeyValue | Nothing:
    s = _structure(fn, var)
    found: list[Record] = list(s.records)
    named: Record | None = None
    if record is not None:
        got = record_of(var, _check_word(fn, record, "record"))
        if not isinstance(got, Record):
            return Nothing(f"no record matches {record!r}")
        named = got
        found = [named, *(r for r in s.records if named.key and _set_under(r, named))]  # TOML's dotted keys
    values = [
        (v, (_setting_name(f, r, named), v, r))
        for r in found
        for f, v in r.fields
        if f not in _PLACE_FIELDS and _BARE_NUMBER.fullmatch(v.strip()) and not _quoted(r, v.strip())
    ]
    scored = _numbered(values)
    if len(scored) < 2:
        return Nothing("fewer than two settings hold a number: nothing is ranked")
    _, (name, value, best) = pick(scored, key=lambda pair: pair[0])
    return KeyValue(name, value, best)


def _table_path(record: Record) -> str:
    """A record's key with the block it sits in (``tool.lint`` + ``limits``): a TOML table's whole name."""
    block = record.get("block")
    return f"{block}.{record.key}" if block else record.key


def _set_under(record: Record, named: Record) -> bool:
    return record is not named and record.key.startswith(_table_path(named) + ".")


def _setting_name(name: str, record: Record, named: Record | None) -> str:
    """A setting's name as written under the record asked: ``inner.depth`` of ``[tool.lint.limits]``'s subtable."""
    if named is None or not _set_under(record, named):
        return name
    return f"{record.key[len(_table_path(named)) + 1 :]}.{name}"


def key_of(var: Any, value: Any, within: Any = None, but: Any = None) -> str | None:
    """The key of the record (not but) holding value in a field, else None.

    within='Name': of the records under that heading or in that block only (as max_of). but='KEY': another
    record than KEY's ("which other release has the same date as 1.2?": key_of(var, date_of_1_2, but='1.2'))."""
    v = _check_word("key_of", value, "value")
    found = _containing("key_of", var, v)
    if but is not None:
        other = _check_word("key_of", but, "but")
        found = [r for r in found if not _same(r.key, other)]
    if within is not None:
        place = _check_word("key_of", within, "within")
        inside = {r.index for r in records_within(_structure("key_of", var), place)}
        found = [r for r in found if r.index in inside]
    for test in (lambda x: _same(x, v), lambda x: matches(v, x)):
        for r in found:
            if any(test(fv) for _, fv in r.fields):
                return r.key
    return None


_ORDER = (structure, records, fields, record_of, field_of, count_records, count_where, count_if, most_common, max_of)
STRUCTURE_HELPERS: dict[str, Callable[..., Any]] = {
    f.__name__: f for f in (*_ORDER, min_of, max_field, min_field, exists, key_of)
}
"""The structure helpers in the order the model reads their docs."""
