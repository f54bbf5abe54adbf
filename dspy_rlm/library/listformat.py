"""Lists under comment headings: one entry per line, a word each (no spaces), grouped under ``#`` comments that
name them (``# Distribution / packaging`` over ``build/``, ``dist/``, ...: a .gitignore, a requirements or
MANIFEST file, any list of that shape). A record per entry, keyed by it, with the field ``section``: the first
line of the comment block right above its group (``### PyCharm ###`` is ``PyCharm``, a closing ``:`` dropped).
Read as lines, an entry was no member of its group.

Numbered sections: prose whose sections open with ``N. Heading.`` at one indent, numbered 1, 2, 3... (a
license's terms, a specification's clauses). A record per section, keyed by its number, with the fields
``number``, ``heading`` (the words up to the first period) and ``text`` (the rest, its lines joined); the lines
around them are records of no fields, as prose's. Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source`
inlines it."""

import re
from itertools import pairwise

from dspy_rlm.library.formats import Raw
from dspy_rlm.library.kvformats import _indent

_HEADING_MARKS = re.compile(r"^[#\s]+|[#\s:]+$")


def _heading(comment: str) -> str:
    return _HEADING_MARKS.sub("", comment)


def looks_commented_list(sample: list[str]) -> float:
    """The share of the lines that are no comment holding one word; 0 under eight such lines or two comment
    blocks with entries right under them (a list with no headings reads as lines), or where a line is
    punctuation alone."""
    rows = [ln.strip() for ln in sample if ln.strip()]
    entries = [r for r in rows if not r.startswith("#")]
    headed = sum(1 for a, b in pairwise(rows) if a.startswith("#") and _heading(a) and not b.startswith("#"))
    if len(entries) < 8 or headed < 2 or any(not any(c.isalnum() for c in r) for r in entries):
        return 0.0  # a lone "{" or "}": blocks (valgrind's suppressions), no list
    return sum(1 for r in entries if len(r.split()) == 1) / len(entries)


def parse_commented_list(lines: list[str]) -> tuple[list[Raw], list[str]]:
    out: list[Raw] = []
    block: list[str] = []  # the comment block being read
    section = ""
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("#"):
            block.append(s)
            continue
        if not s:
            block = []  # a comment apart from the entries below heads none of them
            continue
        if block:
            section = next((h for h in map(_heading, block) if h), section)
            block = []
        out.append((i, i, [("section", section)] if section else [], s, None))
    return out, ["section"]


_NUMBERED = re.compile(r"(\s*)(\d{1,3})\.\s+(\S.*)$")


def _section_heads(lines: list[str]) -> list[tuple[int, int]]:
    """(line, indent) of each ``N. Heading`` line at the indent where the numbers run 1, 2, 3... longest."""
    by_indent: dict[int, list[tuple[int, int]]] = {}
    for i, line in enumerate(lines):
        m = _NUMBERED.match(line)
        if m and m.group(3)[:1].isupper():
            by_indent.setdefault(len(m.group(1)), []).append((i, int(m.group(2))))
    best: list[tuple[int, int]] = []
    for indent, heads in by_indent.items():
        run = [(i, indent) for k, (i, n) in enumerate(heads) if n == k + 1]  # 1, 2, 3... from the first
        if len(run) > len(best):
            best = run
    return best


def looks_numbered_sections(sample: list[str]) -> float:
    """1.0 where three or more sections numbered from 1 open with a heading, each with text under it (no list
    of one-line items), else 0."""
    heads = _section_heads(sample)
    if len(heads) < 3:
        return 0.0
    bodies = sum(1 for (a, _), (b, _) in pairwise(heads) if b - a > 2)
    return 1.0 if bodies * 2 >= len(heads) - 1 else 0.0


def parse_numbered_sections(lines: list[str]) -> tuple[list[Raw], list[str]]:
    heads = dict(_section_heads(lines))
    out: list[Raw] = []
    i = 0
    while i < len(lines):
        if i not in heads:
            if lines[i].strip():
                out.append((i, i, [], "", None))
            i += 1
            continue
        m = _NUMBERED.match(lines[i])
        assert m is not None
        end = i + 1  # the section runs to a line indented no deeper than its number that is not its own
        while end < len(lines) and end not in heads and (not lines[end].strip() or _indent(lines[end]) > heads[i]):
            end += 1
        words = " ".join([m.group(3), *(ln.strip() for ln in lines[i + 1 : end])]).split()
        text = " ".join(words)
        cut = re.search(r"\.(?:\s|$)", text)
        heading, rest = (text[: cut.start()], text[cut.end() :].strip()) if cut else (text, "")
        fields = [("number", m.group(2)), ("heading", heading), *([("text", rest)] if rest else [])]
        last = max((k for k in range(i, end) if lines[k].strip()), default=i)
        out.append((i, last, fields, m.group(2), None))
        i = end
    return out, ["number", "heading", "text"]
