"""Two record formats of one line or one document: a whole JSON document (an array of objects, an object of
objects, or either one level down: ``{"items": [...]}``), and ``key=value`` lines (logfmt: ``ts=... level=info
user="Ada L" took=12ms``). Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it.

A JSON document's records keep their place in the text: each object's first and last line, found with the
decoder's own offsets, so ``record_of`` shows the object as written.
"""

import bisect
import json
import re
from typing import Any

from dspy_rlm.library.formats import KEY_NAMES, Raw, _share, is_comment, json_fields, json_key, meaningful, unquote

_DECODER = json.JSONDecoder()
_WS = re.compile(r"[\s,]*")
# A pair's name starts at its word's first ASCII letter: a match is tried only where a word begins (the
# lookbehind), past the word's leading digits, so a line of one long word costs one pass, not one per letter
# (1.2 s for 16,000 letters). Group 1 is the pair, 2 its name, 3 its value.
_WORD_START = r"(?<![\w.-])(?:[^\W_A-Za-z]|[.-])*"
_LOGFMT_PAIR = re.compile(_WORD_START + r"""(([A-Za-z_][\w.-]*)=("(?:[^"\\]|\\.)*"|'[^']*'|[^\s"']*))""")
_MIN_RECORDS = 2


def _skip(text: str, i: int) -> int:
    return _WS.match(text, i).end()  # type: ignore[union-attr]


def _members(text: str, start: int) -> list[tuple[Any, Any, int, int]] | None:
    """The members of the array or object opening at ``start``: ``(name, value, begin, end)`` with their
    offsets (``name`` None in an array); None when it is neither or does not parse."""
    opener = text[start : start + 1]
    if opener not in ("[", "{"):
        return None
    closer = "]" if opener == "[" else "}"
    out = []
    i = _skip(text, start + 1)
    while i < len(text) and text[i] != closer:
        name = None
        if opener == "{":
            name, i = _DECODER.raw_decode(text, i)
            i = _skip(text, i)
            if text[i : i + 1] != ":":
                return None
            i = _skip(text, i + 1)
        begin = i
        value, i = _DECODER.raw_decode(text, i)
        out.append((name, value, begin, i))
        i = _skip(text, i)
    return out


def _records_of(members: list[tuple[Any, Any, int, int]]) -> bool:
    objects = [m for m in members if isinstance(m[1], dict)]
    return len(objects) >= _MIN_RECORDS and len(objects) >= 0.8 * len(members)


def looks_json_document(text: str) -> bool:
    """A whole JSON document: an object, or an array holding records (at the top or one level down). Cheap checks
    first."""
    head = text.lstrip()[:1]
    if head not in ("[", "{") or not text.rstrip().endswith(("]", "}")):
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return _container(text) is not None or head == "{"


def _container(text: str) -> list[tuple[Any, Any, int, int]] | None:
    """The members of the records' container: the document itself, or its member holding records that spans the
    most text (a CycloneDX SBOM's few large ``components`` over its many short ``dependencies`` links)."""
    top = _members(text, _skip(text, 0))
    if top is None:
        return None
    if _records_of(top):
        return top
    best, span = None, -1
    for _name, value, begin, end in top:
        if isinstance(value, (list, dict)) and len(value) >= _MIN_RECORDS:
            inner = _members(text, begin)
            if inner is not None and _records_of(inner) and end - begin > span:
                best, span = inner, end - begin
    return best


def parse_json_document(text: str) -> list[Raw]:
    """One record per object of the container: its fields (nested objects as ``a.b``), its key (the member's
    name in an object of objects, else an id/name/key/title field, else its first string), its lines. An object
    holding no records (a package's manifest, a settings document) is one record of the whole text."""
    members = _container(text)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    if members is None:
        value = json.loads(text)
        fields = json_fields(value) if isinstance(value, dict) else []
        return [(0, len(starts) - 1, fields, json_key(value, fields), None)] if fields else []
    out: list[Raw] = []
    for name, value, begin, end in members:
        if not isinstance(value, dict):
            continue
        fields = json_fields(value)
        key = str(name) if name is not None else json_key(value, fields)
        a = bisect.bisect_right(starts, begin) - 1
        b = bisect.bisect_right(starts, max(begin, end - 1)) - 1
        out.append((a, b, fields, key, None))
    return out


# -- key=value lines (logfmt) -------------------------------------------------------------------------------
def _pairs(line: str) -> list[tuple[str, str]] | None:
    """The ``key=value`` pairs of a line, when they are the whole line (at least two); or its comma-separated
    ``KEY op value`` pairs (udev rules: ``SUBSYSTEM=="usb", ENV{ID_X}=="1", TAG+="uaccess"``; a name said twice
    keeps its first value)."""
    s = line.strip()
    found = list(_LOGFMT_PAIR.finditer(s))
    if len(found) >= 2 and sum(len(m.group(1)) for m in found) + len(found) - 1 >= 0.9 * len(s):
        return [(m.group(2), unquote(m.group(3))) for m in found]
    ops = list(_OP_PAIR.finditer(s)) if "," in s else []
    if len(ops) < 2 or sum(len(m.group(1)) for m in ops) < 0.95 * len(s) or ops[0].start(1) != 0:
        return None
    pairs: dict[str, str] = {}
    for m in ops:
        pairs.setdefault(m.group(2), unquote(m.group(3)))
    return list(pairs.items())


_OP_PAIR = re.compile(
    _WORD_START
    + r"""(([A-Za-z_][\w.-]*(?:\{[^{}\s]*\})?)\s*(?:==|!=|\+=|-=|:=|=)\s*("(?:[^"\\]|\\.)*"|[^,\s"]*)\s*(?:,\s*|$))"""
)


def looks_logfmt(sample: list[str]) -> float:
    rows = meaningful(sample)
    return _share(sum(1 for r in rows if _pairs(r) is not None), len(rows)) if rows else 0.0


def parse_logfmt(lines: list[str]) -> tuple[list[Raw], list[str]]:
    out: list[Raw] = []
    names: dict[str, None] = {}
    for i, line in enumerate(lines):
        if not line.strip() or is_comment(line):
            continue
        pairs = _pairs(line) or []
        names.update(dict.fromkeys(n for n, _ in pairs))
        key = next((v for want in KEY_NAMES for n, v in pairs if n.lower() == want), pairs[0][1] if pairs else "")
        out.append((i, i, pairs, key, None))
    return out, list(names)
