"""REPL helpers that count what one part of a text lists, and rank records by it: the entries of a record
(``size_of``: an INI section of commands, a JSON object's keys), the items of one field (``items_of``: a list
value, a field written once per item, the keys under a dotted group), the record listing the most / fewest
entries (``most_fields`` / ``fewest_fields``) and the one whose list is longest / shortest (``most_items`` /
``fewest_items``).

Stdlib-only at import; :func:`dspy_rlm.library.helpers.standalone_source` inlines it after ``lookup``.
"""

import re
from collections.abc import Callable
from typing import Any

from dspy_rlm.library.lookup import _PLACE_FIELDS, _check_word, _structure, _text, record_of  # inlined before this file
from dspy_rlm.library.records import Record, Structure  # inlined before this file
from dspy_rlm.library.results import KeyValue, Nothing  # inlined before this file
from dspy_rlm.library.textkit import split_outside  # inlined before this file

_CALL_GIVEN = re.compile(r"[A-Za-z_][\w.]*\((.*)\)", re.DOTALL)
_BULLET = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)")
_ONE_BULLET = re.compile(r"[-*+][ \t]+[\w`'\"*(\[]")  # "- Add a, b": one item ("* | text()", XPath: none)
_TOKEN = re.compile(r"[\w.:/@+*=<>~$(){}\\-]+")  # with "$(OBJ_DIR)\sign1.exe": a make variable in a path
_QUOTES = "\"'`"
_GROUPED = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")  # 1,250: one number, no list


def size_of(var: Any, word: Any) -> int:
    """How many fields the record matching word has (0: none matches).

    For a record that lists entries: an INI section of commands, a JSON object's keys (not the ``block`` or
    ``section`` it sits in: no entry of its own; of nested objects, read as ``name.part`` fields, each name once)."""
    r = record_of(var, _check_word("size_of", word))
    if not isinstance(r, Record):
        return 0
    own = [f for f, _ in r.fields if f not in _PLACE_FIELDS]
    if not own or _structure("size_of", var).kind not in _NESTED_KINDS:
        return len(own)
    text = _text("size_of", var)  # a key holding dots ("a.b": 1) is written whole; a nested one is not
    return len({f if f in text or "." not in f.strip(".") else f.split(".")[0] for f in own})


_NESTED_KINDS = ("json", "yaml", "toml")
"""Structures whose records flatten nested objects into ``name.part`` fields."""


def _own_size(r: Record) -> int:
    return sum(1 for f, _ in r.fields if f not in _PLACE_FIELDS)


def _by_size(fn: str, var: Any, pick: Callable[..., Any]) -> KeyValue | Nothing:
    s = _structure(fn, var)
    sized = [r for r in s.records if r.fields]
    if not sized:
        return Nothing("no record has fields")
    best = pick(sized, key=_own_size)  # ties: the first such record
    return KeyValue(best.key, str(_own_size(best)), best)


def most_fields(var: Any) -> KeyValue | Nothing:
    """The record with the most fields: KEY: N (.record is the whole record)."""
    return _by_size("most_fields", var, max)


def fewest_fields(var: Any) -> KeyValue | Nothing:
    """The record with the fewest fields: KEY: N."""
    return _by_size("fewest_fields", var, min)


def _clean(item: str) -> str:
    item = _BULLET.sub("", item.strip()).strip().rstrip(",;").strip()
    return item[1:-1] if len(item) >= 2 and item[0] == item[-1] and item[0] in _QUOTES else item


def list_items(value: str) -> list[str]:
    """The items a field's value lists, as written: a bracketed list (``[a, b]``), one item a line (``- a`` lines
    of YAML, an INI value continued on indented lines; a ``- item`` line is one item, commas and all), items between
    commas, or names between spaces where every one is a name of the data, not a word of a sentence (``AF_UNIX
    AF_INET``, ``a.service b.target``, three or more lower-case names with no word a sentence needs: ``sid bookworm
    bullseye``). A value of one item gives ``[value]``, an empty one ``[]``."""
    v = value.strip()
    call = _CALL_GIVEN.fullmatch(v)  # cycler('color', ['268BD2', '2AA198']): the one list a call is given
    lists = [a for a in split_outside(call.group(1), ",") if a.strip()[:1] + a.strip()[-1:] == "[]"] if call else []
    if len(lists) == 1:
        v = lists[0].strip()
    if len(v) >= 2 and v[0] + v[-1] in ("[]", "()", "{}"):
        v = v[1:-1].strip()
    if not v:
        return []
    if _GROUPED.fullmatch(v):
        return [v]
    lines = [ln for ln in v.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    entries = _dashed_entries(lines)
    if entries is not None:  # YAML's "- " items of several lines each (a workflow's steps): one item each
        return entries
    if all(_BULLET.match(ln) for ln in lines) and (len(lines) > 1 or _ONE_BULLET.match(v)):  # "- a, b" lines (a
        return [c for c in map(_clean, lines) if c]  # changelog's changes): one item a line, commas and all
    if len(lines) > 1:  # a line ending in "," lists; so does one of single words between commas (tox's envlist)
        flat = [p for ln in lines for p in (split_outside(ln, ",") if _comma_line(ln) else [ln])]
        return [c for c in map(_clean, flat) if c]
    for sep in (";", ",", "|"):  # characters between a separator, quotes and brackets too (`.;,;';";(;)` of a keypad)
        chars = [c.strip() for c in v.split(sep)]
        if len(chars) >= 3 and all(0 < len(c) <= 2 for c in chars) and len(set(chars)) == len(chars):
            return chars
    for sep in (",", ";", "|"):
        parts = _rejoined_bounds([c for c in map(_clean, split_outside(v, sep)) if c], sep)
        if len(parts) > 1:
            return parts
    tokens = v.split()
    joined = any(t.casefold() in _JOINERS for t in tokens[1:-1])  # "MIT OR Apache-2.0": one expression, no list
    if len(tokens) > 1 and not joined and all(_TOKEN.fullmatch(t) and _is_name(t) for t in tokens):
        return tokens
    if len(tokens) > 2 and all(_BARE.fullmatch(t) and t not in _PROSE for t in tokens):
        return tokens  # "sid bookworm bullseye buster": lower-case names, no word a sentence needs
    return [_clean(v)]


_BARE = re.compile(r"[a-z][a-z0-9]*(?:[-+][a-z0-9]+)*")
_PROSE = frozenset({
    "a", "an", "the", "of", "to", "and", "or", "in", "on", "at", "by", "for", "from", "with", "as", "is", "are", "be",
    "was", "were", "it", "its", "this", "that", "these", "those", "not", "no", "if", "then", "when", "so", "than",
    "but", "into", "onto", "over", "per", "via", "use", "used", "uses", "all", "any", "each",
})  # fmt: skip
"""Words a sentence needs: lower-case words between spaces holding none of them are names listed."""
_JOINERS = frozenset({"and", "or", "not", "with"})
"""Words that join names into one expression (``MIT OR Apache-2.0``, ``A AND (B OR C)``), not a list of them."""


def _comma_line(line: str) -> bool:
    """Whether a line of a list spread over lines lists names itself: it ends in a comma, or it is single words
    between commas (``py38, py39, py310``)."""
    if line.rstrip().endswith(","):
        return True
    parts = [p.strip() for p in line.split(",")]
    return len(parts) > 1 and all(p and len(p.split()) == 1 for p in parts)


def _dashed_entries(lines: list[str]) -> list[str] | None:
    """The items of a YAML block list whose items go on over more lines (mappings, folded text), each item its
    ``- `` line and the lines under it joined by newlines; None where every line is an item of its own."""
    if len(lines) < 2 or not lines[0].lstrip().startswith("- "):
        return None
    dashes = [len(ln) - len(ln.lstrip()) for ln in lines[1:] if ln.lstrip().startswith("- ")]
    if not dashes:
        return None
    indent = min(dashes)
    out: list[list[str]] = [[lines[0].lstrip()[2:].strip()]]
    for ln in lines[1:]:
        if ln.lstrip().startswith("- ") and len(ln) - len(ln.lstrip()) == indent:
            out.append([ln.lstrip()[2:].strip()])
        else:
            out[-1].append(ln.strip())
    if all(len(item) == 1 for item in out):
        return None
    return [c for c in ("\n".join(item).strip() for item in out) if c]


def _rejoined_bounds(parts: list[str], sep: str) -> list[str]:
    """``parts`` with each one that opens with a comparison rejoined to the one before: the bounds of one version
    requirement (``PySocks>=1.5.6,<2.0,!=1.5.7``) are one item."""
    out: list[str] = []
    for p in parts:
        if out and p[:1] in "<>!=~":
            out[-1] += sep + p
        else:
            out.append(p)
    return out


def _is_name(token: str) -> bool:
    """Whether a token is a name of the data rather than a word: it holds a digit or one of ``_ . : / @ = <>``,
    or is written in capitals."""
    return any(c.isdigit() or c in "_.:/@=<>" for c in token) or (token.isupper() and len(token) > 1)


def _field_named(s: Structure, name: str) -> str | None:
    want = name.casefold()
    return next((f for f in s.field_names if f.casefold() == want), None)


_QUOTED_KEY = re.compile(r'"((?:[^"\\\n]|\\.)*)"')  # the strings a JSON text quotes, each key among them


def _listed(fn: str, var: Any, name: Any, key: Any = None) -> list[str] | Nothing:
    """The items the part ``name`` lists (see :func:`items_of`), read in the record matching ``key`` if given."""
    n = _check_word(fn, name, "name")
    s = _structure(fn, var)
    if key is not None:
        r = record_of(var, _check_word(fn, key, "key"))
        records = [r] if isinstance(r, Record) else []
        if not records:
            return Nothing(f"no record contains {key!r}")
    else:
        records = list(s.records)
    field = _field_named(s, n)
    if field is not None:
        holders = [r for r in records if r.get(field) is not None]
        if len(holders) > 1:
            args = f"{field!r}, key" if fn == "items_of" else f"{field!r}, word, key"
            return Nothing(f"{len(holders)} records have {field!r}; name one: {fn}(var, {args})")
        if holders:
            values = [v for f, v in holders[0].fields if f == field]
            return [_clean(v) for v in values] if len(values) > 1 else list_items(values[0])
    group = n.casefold() + "."
    grouped = [(r, f) for r in records for f, _ in r.fields if f.casefold().startswith(group)]
    if grouped and len({r.index for r, _ in grouped}) == 1:  # a key quoted whole is one ("TB.Name" in JSON)
        rests = [f[len(group) :] for _, f in grouped]
        quoted = set(_QUOTED_KEY.findall(_text(fn, var))) if any("." in x for x in rests) else set()
        return list(dict.fromkeys(x if x in quoted else x.split(".")[0] for x in rests))
    r = record_of(var, n) if key is None else records[0]
    if isinstance(r, Record) and r.key.strip().casefold() == n.casefold():
        return list_items(r.fields[0][1]) if len(r.fields) == 1 else [f for f, _ in r.fields]
    return Nothing(f"no field, group or record named {n!r}")


def items_of(var: Any, name: Any, key: Any = None) -> int | Nothing:
    """How many items field name lists ('a, b', '[a, b]', '- a' lines), or the entries of record name.

    The field ``name`` is read in the record matching ``key``, else in the one record holding it, and counted as
    its list value's items (names between spaces too: ``AF_UNIX AF_INET``), or as its lines where the record writes
    it once per item (``DeviceAllow=`` lines); the keys under a dotted group (``dependencies`` of
    ``dependencies.express``, ``dependencies.chalk``); else the entries of the record keyed ``name`` (as size_of),
    its one list value counted where it holds only that."""
    found = _listed("items_of", var, name, key)
    return found if isinstance(found, Nothing) else len(found)


_ITEM_NAME = re.compile(r"[^\s<>=!~^@:;,(\[]+")  # "requests>=2.0", "nock@^13", "libc6 (>= 2.34)": the name


def has_item(var: Any, name: Any, word: Any, key: Any = None) -> bool | Nothing:
    """Is word one of the items name lists (read as items_of)? True/False.

    An item matches whole or by its name before a version (``requests>=2.0``, ``libc6 (>= 2.34)``), any case."""
    w = _check_word("has_item", word, "word").strip().casefold()
    found = _listed("has_item", var, name, key)
    if isinstance(found, Nothing):
        return found
    for item in found:
        head = _ITEM_NAME.match(item.strip())
        if item.strip().casefold() == w or (head is not None and head.group(0).casefold() == w):
            return True
    return False


def items_in(record: Record, field: str) -> int:
    """How many items ``record``'s field ``field`` lists (its lines where it is written once per item)."""
    values = [v for f, v in record.fields if f == field]
    return len(values) if len(values) > 1 else len(list_items(values[0])) if values else 0


def _lists(fn: str, var: Any, name: Any) -> tuple[list[tuple[str, int, Record]], str]:
    """``(label, items, record)`` for each list ``name`` names, and what was ranked: the field ``name`` of every
    record holding it (labelled by the record's key), else the fields under the dotted group ``name`` of one
    record, else the fields of the record keyed ``name`` (labelled by the field's name)."""
    n = _check_word(fn, name, "name")
    s = _structure(fn, var)
    if n == "*":  # every setting's own list: "which key cycles through the most items?" of `KEY = a;b;c` lines
        own = [(r.key, items_in(r, r.key), r) for r in s.records if _own_fields(r) == [r.key]]
        if len(s.records) == 1:  # one section's settings, each a field of its record
            one = s.records[0]
            own = [(f, items_in(one, f), one) for f in dict.fromkeys(_own_fields(one))]
        lists = [o for o in own if o[1] >= 2]  # most of them lists: no scalar settings ranked beside a few lists
        if len(lists) >= 2 and len(own) >= 0.8 * len(s.records) and len(lists) >= 0.8 * len(own):
            return own, "every setting's own list"
        return [], "no settings of their own lists: name a field, group or record"
    field = _field_named(s, n)
    if field is not None:
        holders = [r for r in s.records if r.get(field) is not None]
        if len(holders) >= 2:
            return [(r.key, items_in(r, field), r) for r in holders], f"records holding {field!r}"
    group = n.casefold() + "."
    grouped = [(r, f) for r in s.records for f, _ in r.fields if f.casefold().startswith(group)]
    if grouped and len({r.index for r, _ in grouped}) == 1:
        held = grouped[0][0]
        subs = dict.fromkeys(f[len(group) :].split(".")[0] for _, f in grouped)
        named = {f[len(group) :]: f for _, f in grouped if "." not in f[len(group) :]}
        return [(sub, items_in(held, named[sub]), held) for sub in subs if sub in named], f"the group {n!r}"
    r = record_of(var, n)
    if isinstance(r, Record) and r.key.strip().casefold() == n.casefold():
        return [(f, items_in(r, f), r) for f in dict.fromkeys(f for f, _ in r.fields)], f"the record {r.key!r}"
    return [], f"no field held by two records, group or record named {n!r}"


def _own_fields(record: Record) -> list[str]:
    return [f for f, _ in record.fields if f not in _PLACE_FIELDS]


def _by_items(fn: str, var: Any, name: Any, pick: Callable[..., Any]) -> KeyValue | Nothing:
    lists, what = _lists(fn, var, name)
    if len(lists) < 2 or max(n for _, n, _ in lists) < 2:
        return Nothing(f"{what}: no two lists to compare" if lists else what)
    label, n, record = pick(lists, key=lambda t: t[1])
    tied = [t[0] for t in lists if t[1] == n]
    if len(tied) > 1:  # no one answer
        return Nothing(f"{len(tied)} lists tie at {n} items: {', '.join(tied[:5])}{', ...' if len(tied) > 5 else ''}")
    return KeyValue(label, str(n), record)


def most_items(var: Any, name: Any) -> KeyValue | Nothing:
    """The record whose list name holds the most items: KEY: N.

    Ranked: the field ``name`` of every record holding it, else the fields of the dotted group or record ``name``
    (labelled by field); ``'*'``: every setting's own value (records of one field named as the record)."""
    return _by_items("most_items", var, name, max)


def fewest_items(var: Any, name: Any) -> KeyValue | Nothing:
    """The record whose list name holds the fewest items: KEY: N."""
    return _by_items("fewest_items", var, name, min)


def record_at(var: Any, place: Any, word: Any = None) -> KeyValue | Nothing:
    """The place-th record (1 first, -1 last) holding word: KEY: PLACE.

    In the text's order; only records with a key count (a line of prose has none); ``.record`` is the whole record."""
    if not isinstance(place, int) or isinstance(place, bool) or place == 0:
        raise TypeError(f"record_at(var, place): place is 1 for the first record, -1 for the last; got {place!r}")
    s = _structure("record_at", var)
    keyed = [r for r in s.records if r.key.strip()]
    if word is not None:
        w = _check_word("record_at", word).casefold()
        keyed = [r for r in keyed if w in r.text.casefold()]
    if not keyed:
        return Nothing("no keyed record" + (f" holds {word!r}" if word is not None else ""))
    if abs(place) > len(keyed):
        return Nothing(f"only {len(keyed)} keyed records")
    at = keyed[place - 1] if place > 0 else keyed[place]
    return KeyValue(at.key, str(place if place > 0 else len(keyed) + 1 + place), at)


SIZE_HELPERS: dict[str, Callable[..., Any]] = {
    f.__name__: f
    for f in (size_of, items_of, has_item, most_fields, fewest_fields, most_items, fewest_items, record_at)
}
