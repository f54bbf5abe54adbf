"""A document type definition (DTD: ``<!ELEMENT ...>``, ``<!ATTLIST ...>``, ``<!ENTITY ...>`` declarations) as one
record per element, keyed by its name: its ``content`` model (``EMPTY``, ``(#PCDATA)``, ``(a|b)*``), the comment
just above it, and each attribute its attribute list declares, by name, whose value is the attribute's default
(a ``#FIXED`` or quoted value) or its keyword (``#REQUIRED``, ``#IMPLIED``), with its type beside it as
``<name> type``; one record per general entity. Parameter entities (``%name;``) are replaced by their text first,
as a parser does: a catalog DTD names each element through one. Read as lines, a declaration spanning lines was
cut into pieces and an attribute's element was lines away. Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import bisect
import re

from dspy_rlm.library.formats import Raw

_DECLARATION = re.compile(r"<!(ELEMENT|ATTLIST|ENTITY|NOTATION)\s((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>", re.S)
_COMMENT = re.compile(r"<!--(.*?)-->", re.S)
_PARAMETER = re.compile(r"<!ENTITY\s+%\s+([\w.:-]+)\s+(?:\"([^\"]*)\"|'([^']*)')", re.S)
_DTD_TOKEN = re.compile(r"\([^()]*(?:\([^()]*\)[^()]*)*\)[*+?]?|\"[^\"]*\"|'[^']*'|[^\s\"'()]+")
_MIN_DECLARATIONS = 3
_PASSES = 8  # entities that name entities: expanded again, so many times at most (a loop stops there)


def looks_dtd(sample: list[str]) -> float:
    """The share of the sample's lines inside declarations or comments, where it holds three declarations or more
    (0 otherwise)."""
    text = "\n".join(sample)
    found = list(_DECLARATION.finditer(text)) + list(_COMMENT.finditer(text))
    if sum(1 for m in found if m.re is _DECLARATION) < _MIN_DECLARATIONS:
        return 0.0
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    covered: set[int] = set()
    for m in found:
        covered.update(range(bisect.bisect_right(starts, m.start()) - 1, bisect.bisect_right(starts, m.end() - 1)))
    rows = [i for i, line in enumerate(sample) if line.strip() and not line.strip().startswith(("<![", "]]>"))]
    return sum(1 for i in rows if i in covered) / len(rows) if rows else 0.0


def _expanded(text: str, entities: dict[str, str]) -> str:
    for _ in range(_PASSES):
        out = re.sub(r"%([\w.:-]+);", lambda m: entities.get(m.group(1), m.group(0)), text)
        if out == text:
            break
        text = out
    return text


def _attributes(body: str) -> list[tuple[str, str]]:
    """The fields of an attribute list's declarations: each attribute's default or keyword, and its type."""
    tokens = _DTD_TOKEN.findall(body)
    fields: list[tuple[str, str]] = []
    i = 0
    while i + 1 < len(tokens):
        name, kind = tokens[i], tokens[i + 1]
        i += 2
        if kind == "NOTATION" and i < len(tokens) and tokens[i].startswith("("):
            kind, i = f"NOTATION {tokens[i]}", i + 1
        default = tokens[i] if i < len(tokens) else ""
        i += 1
        if default == "#FIXED" and i < len(tokens):
            default, i = tokens[i], i + 1
        fields += [(name, default.strip("\"'")), (f"{name} type", kind)]
    return fields


def _comment_before(text: str, start: int, comments: list[re.Match[str]], ends: list[int]) -> str:
    """The comment that ends just before ``start`` (blank space between), as one line of text; ``ends`` are the
    comments' ends, in order (comments never overlap, so only the last one ending before ``start`` can be)."""
    i = bisect.bisect_right(ends, start) - 1
    if i >= 0 and not text[ends[i] : start].strip():
        return " ".join(comments[i].group(1).split())
    return ""


def parse_dtd(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """One record per declared element (and general entity), see the module's note."""
    text = "\n".join(lines)
    entities: dict[str, str] = {}
    for m in _PARAMETER.finditer(text):
        entities.setdefault(m.group(1), m.group(2) if m.group(2) is not None else m.group(3) or "")
    comments = list(_COMMENT.finditer(text))
    opens, ends = [c.start() for c in comments], [c.end() for c in comments]
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    records: dict[str, list] = {}  # name -> [first line, last line, fields]
    for m in _DECLARATION.finditer(text):
        inside = bisect.bisect_left(opens, m.start()) - 1
        if inside >= 0 and m.start() < ends[inside]:
            continue  # a declaration quoted inside a comment
        what, body = m.group(1), _expanded(m.group(2), entities).strip()
        first, last = bisect.bisect_right(starts, m.start()) - 1, bisect.bisect_right(starts, m.end() - 1) - 1
        head = body.split(None, 1)
        if not head or what == "NOTATION" or (what == "ENTITY" and head[0] == "%"):
            continue
        name, rest = head[0], head[1] if len(head) > 1 else ""
        record = records.setdefault(name, [first, last, []])
        record[0], record[1] = min(record[0], first), max(record[1], last)
        if what == "ELEMENT":
            note = _comment_before(text, m.start(), comments, ends)
            record[2][:0] = [("content", " ".join(rest.split()))] + ([("comment", note)] if note else [])
        elif what == "ATTLIST":
            record[2] += _attributes(rest)
        else:
            value = _DTD_TOKEN.findall(rest)
            record[2].append(("entity", value[0].strip("\"'") if value else ""))
    out: list[Raw] = [(a, b, fields, name, None) for name, (a, b, fields) in records.items() if fields]
    names: dict[str, None] = {}
    for raw in out:
        names.update(dict.fromkeys(n for n, _ in raw[2]))
    return sorted(out, key=lambda r: r[0]), list(names)
