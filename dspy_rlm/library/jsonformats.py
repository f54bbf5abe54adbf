"""Record formats of one line or one document: JSON lines, a whole JSON document (an array of objects, an object
of objects, or either one level down: ``{"items": [...]}``; several lists of one kind read together, each record
naming its list as ``block``), and ``key=value`` lines (logfmt: ``ts=... level=info user="Ada L" took=12ms``).
A list of objects inside a record is read as the objects' names (``"steps": [{"name": ...}, ...]``). Stdlib
only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it.

A JSON document's records keep their place in the text: each object's first and last line, found with the
decoder's own offsets, so ``record_of`` shows the object as written.
"""

import bisect
import json
import re
from collections import Counter
from typing import Any

from dspy_rlm.library.formats import KEY_NAMES, Raw, _line_kv, _share, continued_lines, is_comment, meaningful, unquote

_DECODER = json.JSONDecoder()
_WS = re.compile(r"[\s,]*")
# A pair's name starts at its word's first ASCII letter: a match is tried only where a word begins (the
# lookbehind), past the word's leading digits, so a line of one long word costs one pass, not one per letter
# (1.2 s for 16,000 letters). Group 1 is the pair, 2 its name, 3 its value.
_WORD_START = r"(?<![\w.-])(?:[^\W_A-Za-z]|[.-])*"
_LOGFMT_PAIR = re.compile(_WORD_START + r"""(([A-Za-z_][\w.-]*)=("(?:[^"\\]|\\.)*"|'[^']*'|[^\s"']*))""")
_MIN_RECORDS = 2
_MIN_ENTRIES = 3


# -- JSON lines ---------------------------------------------------------------------------------------------
def looks_jsonl(sample: list[str]) -> float:
    rows = [ln.strip() for ln in sample if ln.strip()]
    if not rows or not all(r.startswith("{") for r in rows[:5]):
        return 0.0
    ok = 0
    for r in rows[:50]:
        try:
            ok += isinstance(json.loads(r), dict)
        except ValueError:
            pass
    return _share(ok, min(len(rows), 50))


def _scalar(value: Any) -> str | None:
    if isinstance(value, str):
        return value.strip()
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int) else json.dumps(value)


def json_fields(obj: dict, prefix: str = "") -> list[tuple[str, str]]:
    fields: list[tuple[str, str]] = []
    for name, value in obj.items():
        if isinstance(value, dict) and not prefix:
            fields += json_fields(value, f"{name}.")
        elif isinstance(value, list):
            items = [s for s in map(_scalar, value) if s]
            objects = [v for v in value if isinstance(v, dict)]
            if not items and objects:  # a list of objects (a workflow's steps): each by its key
                items = [k for k in map(_object_key, objects) if k]
            if items:
                fields.append((f"{prefix}{name}", ", ".join(items)))
        elif (s := _scalar(value)) is not None:
            fields.append((f"{prefix}{name}", s))
    return fields


def _object_key(obj: dict) -> str | None:
    """What names an object of a list: its id / name / key ... (or that of the one object it holds:
    ``{"license": {"id": "MIT"}}``), else its first text."""
    inner = [v for v in obj.values() if isinstance(v, dict)]
    for source in (obj, *inner[:1]):
        for want in KEY_NAMES:
            found = next((_scalar(v) for k, v in source.items() if k.lower() == want and _scalar(v)), None)
            if found:
                return found
    return next((v.strip() for v in obj.values() if isinstance(v, str) and v.strip()), None)


def json_key(obj: dict, fields: list[tuple[str, str]]) -> str:
    for want in KEY_NAMES:
        for name, value in fields:
            if name.lower() == want:
                return value
    return next((v for k, v in fields if isinstance(obj.get(k), str) and v), fields[0][1] if fields else "")


def parse_jsonl(lines: list[str]) -> list[Raw]:
    out: list[Raw] = []
    for i, line in enumerate(lines):
        s = line.strip()
        if not s:
            continue
        try:
            obj = json.loads(s)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            fields = json_fields(obj)
            out.append((i, i, fields, json_key(obj, fields), None))
        else:
            out.append((i, i, _line_kv(s), "", None))
    return out


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


def _entries_of(members: list[tuple[Any, Any, int, int]]) -> bool:
    """Whether a top-level array lists entries: strings or numbers, one each (a list of license identifiers), at
    least :data:`_MIN_ENTRIES`; read as lines, its brackets were records too."""
    return len(members) >= _MIN_ENTRIES and all(
        m[0] is None and isinstance(m[1], (str, int, float)) and not isinstance(m[1], bool) for m in members
    )


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


_Members = list[tuple[Any, Any, int, int]]


def _scan(text: str) -> tuple[_Members | None, _Members | None, dict[int, _Members]]:
    """The document's top members, the records' container (see :func:`_container`), and the members of each
    top-level list or object by its offset (parsed once, for :func:`_kin` too)."""
    top = _members(text, _skip(text, 0))
    if top is None:
        return None, None, {}
    if _records_of(top) or _entries_of(top):
        return top, top, {}
    best, span, inners = None, -1, {}
    for _name, value, begin, end in top:
        if isinstance(value, (list, dict)) and value:
            inner = _members(text, begin)
            if inner is None:
                continue
            inners[begin] = inner
            if len(value) >= _MIN_RECORDS and _records_of(inner) and end - begin > span:
                best, span = inner, end - begin
    return top, best, inners


def _container(text: str) -> _Members | None:
    """The members of the records' container: the document itself, or its member holding records that spans the
    most text (a CycloneDX SBOM's few large ``components`` over its many short ``dependencies`` links)."""
    return _scan(text)[1]


def _kin(top: _Members, best: _Members, inners: dict[int, _Members]) -> list[tuple[str, _Members]]:
    """The top-level lists that hold records of the container's kind, named by the same field (CMake's
    ``configurePresets``, ``buildPresets``, ``workflowPresets``: each preset has a ``name``), each with its
    member's name, the container among them; empty where no other list does (an SBOM's ``dependencies`` links,
    keyed by ``ref``, are no components)."""
    naming = _naming(best)
    if naming is None:
        return []
    out = []
    for name, value, begin, _end in top:
        inner = inners.get(begin)
        objects = bool(inner) and all(isinstance(m[1], dict) for m in inner or ())
        if isinstance(name, str) and isinstance(value, list) and objects and _naming(inner or []) == naming:
            out.append((name, inner or []))
    return out if len(out) > 1 and any(inner is best for _, inner in out) else []


def _kin_objects(top: _Members, best: _Members, inners: dict[int, _Members]) -> list[tuple[str, _Members]]:
    """The top-level objects of named objects shaped as the container's (a JSON Schema's ``properties`` beside its
    ``definitions``: each member a schema with a ``type`` or ``description``), each with its member's name, the
    container among them; empty where no other object is."""
    if not all(isinstance(m[0], str) and isinstance(m[1], dict) for m in best):
        return []
    counts = Counter(k for m in best for k in m[1])
    common = {k for k, n in counts.items() if 2 * n >= len(best)}
    out = []
    for name, value, begin, _end in top:
        inner = inners.get(begin)
        shaped = bool(inner) and all(isinstance(m[1], dict) and common & set(m[1]) for m in inner or ())
        if isinstance(name, str) and isinstance(value, dict) and (inner is best or shaped):
            out.append((name, inner or []))
    return out if len(out) > 1 and any(inner is best for _, inner in out) else []


def _named_beside(top: _Members, best: _Members, inners: dict[int, _Members]) -> list[tuple[str, _Members]]:
    """Where the records' container is a list, it and each top-level object of named objects beside it (an ARM
    template's ``resources`` and its ``parameters``, each a ``{type, defaultValue}``), each with its member's name;
    empty where there is no such object, or where the container is itself an object (a JSON Schema's
    ``definitions`` beside its ``properties`` are :func:`_kin_objects`'s to judge). Read as the largest container
    alone, "the default value of the priority parameter" found only a resource's ``[parameters('priority')]``."""
    if any(m[0] is not None for m in best):
        return []
    out = []
    for name, value, begin, _end in top:
        inner = inners.get(begin)
        if not isinstance(name, str) or not inner:
            continue
        if inner is best or (isinstance(value, dict) and len(value) >= _MIN_RECORDS and _records_of(inner)):
            out.append((name, inner))
    return out if len(out) > 1 and any(inner is best for _, inner in out) else []


def _naming(members: list[tuple[Any, Any, int, int]]) -> str | None:
    """The field that names every object of a list (``name``, ``id``, ...), if one does."""
    objects = [m[1] for m in members if isinstance(m[1], dict)]
    return next((k for k in KEY_NAMES if objects and all(isinstance(o.get(k), str) for o in objects)), None)


def _wrapped(top: _Members, inners: dict[int, _Members]) -> _Members:
    """The objects of an object whose members are (nearly) all lists of one or two objects, each as a member named
    as the list it sits in (a registry keyed by id, one entry per id); empty for any other document."""
    lists = [m for m in top if isinstance(m[0], str) and isinstance(m[1], list) and m[1]]
    if len(top) < 3 or len(lists) < 0.8 * len(top) or not all(isinstance(v, dict) for m in lists for v in m[1]):
        return []
    if sum(len(m[1]) for m in lists) > 2 * len(lists):
        return []  # lists of many records each: sections of records, read as they are
    out: _Members = []
    for name, _value, begin, _end in lists:  # the first object's lines from its list's: the line naming it
        out += [(name, v, begin if k == 0 else b, e) for k, (_n, v, b, e) in enumerate(inners.get(begin) or [])]
    return out


def parse_json_document(text: str) -> list[Raw]:
    """One record per object of the container: its fields (nested objects as ``a.b``), its key (the member's
    name in an object of objects, else an id/name/key/title field, else its first string), its lines; one per entry
    of a top-level array of strings or numbers, keyed by it, of no fields. An object holding no records (a
    package's manifest, a settings document) is one record of the whole text."""
    top, members, inners = _scan(text)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    wrapped = _wrapped(top or [], inners)
    if wrapped:  # {"GB0000": [{...}], "GB0001": [{...}], ...}: each object keyed by the name it is listed under
        members, lists = wrapped, [("", wrapped)]
    if members is None:
        value = json.loads(text)
        fields = json_fields(value) if isinstance(value, dict) else []
        return [(0, len(starts) - 1, fields, json_key(value, fields), None)] if fields else []
    out: list[Raw] = []
    if not wrapped:  # several lists of one kind, or named objects beside a list: each record says its block
        top = top or []
        lists = _kin(top, members, inners) or _kin_objects(top, members, inners) or _named_beside(top, members, inners)
    lists = lists or [("", members)]
    entries = members is top and _entries_of(members)  # ["0BSD", "AAL", ...]: each entry a record keyed by it
    for block, held in lists:
        for name, value, begin, end in held:
            if not isinstance(value, dict) and not entries:
                continue
            fields = [] if entries else (json_fields(value) + ([("block", block)] if block else []))
            key = (_scalar(value) or "") if entries else (str(name) if name is not None else json_key(value, fields))
            a = bisect.bisect_right(starts, begin) - 1
            b = bisect.bisect_right(starts, max(begin, end - 1)) - 1
            out.append((a, b, fields, key, None))
    return out


# -- key=value lines (logfmt) -------------------------------------------------------------------------------
def _pairs(line: str) -> list[tuple[str, str]] | None:
    """The ``key=value`` pairs of a line, when they are the whole line (at least two); or its comma-separated
    ``KEY op value`` pairs (udev rules: ``SUBSYSTEM=="usb", ENV{ID_X}=="1", TAG+="uaccess"``; a name said twice
    keeps its first value, or both, apart by a space, where ``+=`` adds the second)."""
    s = line.strip()
    found = list(_LOGFMT_PAIR.finditer(s))
    if len(found) >= 2 and sum(len(m.group(1)) for m in found) + len(found) - 1 >= 0.9 * len(s):
        return [(m.group(2), unquote(m.group(3))) for m in found]
    ops = list(_OP_PAIR.finditer(s)) if "," in s else []
    if len(ops) < 2 or sum(len(m.group(1)) for m in ops) < 0.95 * len(s) or ops[0].start(1) != 0:
        return None
    pairs: dict[str, str] = {}
    for m in ops:  # "TAG+=" adds to the values before it (TAG+="seat", TAG+="master-of-seat": both)
        name, value = m.group(2), unquote(m.group(3))
        adds = m.group(1)[len(name) :].lstrip().startswith("+=")
        pairs[name] = f"{pairs[name]} {value}" if name in pairs and adds else pairs.get(name, value)
    return list(pairs.items())


_OP_PAIR = re.compile(
    _WORD_START
    + r"""(([A-Za-z_][\w.-]*(?:\{[^{}\s]*\})?)\s*(?:==|!=|\+=|-=|:=|=)\s*("(?:[^"\\]|\\.)*"|[^,\s"]*)\s*(?:,\s*|$))"""
)


def looks_logfmt(sample: list[str]) -> float:
    rows = meaningful(sample)
    return _share(sum(1 for r in rows if _pairs(r) is not None), len(rows)) if rows else 0.0


def parse_logfmt(lines: list[str]) -> tuple[list[Raw], list[str]]:
    return _logfmt_records([(i, i, ln) for i, ln in enumerate(lines) if ln.strip() and not is_comment(ln)], False)


def _logfmt_records(rows: list[tuple[int, int, str]], lead: bool) -> tuple[list[Raw], list[str]]:
    out: list[Raw] = []
    names: dict[str, None] = {}
    for first, last, line in rows:
        pairs = _pairs(_LOGFMT_LEAD.sub("", line.strip(), count=1) if lead else line) or []
        names.update(dict.fromkeys(n for n, _ in pairs))
        key = next((v for want in KEY_NAMES for n, v in pairs if n.lower() == want), pairs[0][1] if pairs else "")
        out.append((first, last, pairs, key, None))
    return out, list(names)


# A logical line's lead before its pairs: Debian menu entries' "?package(x11-utils):"
_LOGFMT_LEAD = re.compile(r"[^\s=]+:\s*(?=[A-Za-z_][\w.-]*=)")


def _logfmt_logical(lines: list[str]) -> list[tuple[int, int, str]]:
    return continued_lines(lines, lambda s, continuing: not s or (not continuing and is_comment(s)))


def looks_continued_logfmt(sample: list[str]) -> float:
    """The share of logical lines (``\\`` continuations joined: Debian's menu entries, one setting a line) whose
    ``key=value`` pairs, after a lead ending in ``:``, are the whole line; 0.0 where few lines go on below."""
    rows = meaningful(sample)
    if not rows or sum(1 for r in rows if r.rstrip().endswith("\\")) < 0.3 * len(rows):
        return 0.0
    logical = _logfmt_logical(sample[:-1] if len(sample) > 1 else sample)  # the last may be cut mid-entry
    return _share(sum(1 for _, _, t in logical if _pairs(_LOGFMT_LEAD.sub("", t, count=1)) is not None), len(logical))


def parse_continued_logfmt(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """A record per logical line, as :func:`parse_logfmt`'s per line, spanning the lines it joins."""
    return _logfmt_records(_logfmt_logical(lines), True)
