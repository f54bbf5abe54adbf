"""Lists under comment headings: one entry per line, a word each (no spaces), grouped under ``#`` comments that
name them (``# Distribution / packaging`` over ``build/``, ``dist/``, ...: a .gitignore, a requirements or
MANIFEST file, any list of that shape). A record per entry, keyed by it, with the field ``section``: the first
line of the comment block right above its group (``### PyCharm ###`` is ``PyCharm``, a closing ``:`` dropped).
Read as lines, an entry was no member of its group. Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re
from itertools import pairwise

from dspy_rlm.library.formats import Raw

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
