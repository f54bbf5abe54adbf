"""reStructuredText grid tables as records: a document holding a table drawn with ``+----+----+`` borders and
``|`` cells (Sphinx documentation) reads as its rows, one record each, keyed by the first cell, the header row
above the ``+====+`` border naming the fields; a row may span several lines, its cells joined. Inline markup is
read as it renders: ````x```` is ``x``, ``:mod:`py2:cookielib``` is ``cookielib`` (a role's target, less an
inventory prefix), ``:ref:`Title <label>``` is ``Title``. Every other non-blank line is a record of no fields, as
a Markdown page's. Read as lines, a row was three cells with bars. Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re
from itertools import pairwise

from dspy_rlm.library.formats import Raw

_GRID_BORDER = re.compile(r"\+(?:[-=]+\+){2,}$")
_RST_ROLE = re.compile(r":[\w:.+-]+:`([^`]*)`")
_RST_LITERAL = re.compile(r"``([^`]*)``")


def looks_grid_tables(sample: list[str]) -> bool:
    """A grid table with a header: three or more borders, one of them ``+===+``, each followed by a row."""
    rows = [r.strip() for r in sample]
    borders = [i for i, r in enumerate(rows) if _GRID_BORDER.match(r)]
    heads = [i for i in borders if "=" in rows[i]]
    return bool(heads) and len(borders) >= 3 and any(i == 0 or rows[i - 1] != "" for i in borders)


def rst_text(text: str) -> str:
    """``text`` with its inline markup read (literals, roles) and its spaces collapsed."""
    text = _RST_LITERAL.sub(r"\1", text)
    return " ".join(_RST_ROLE.sub(lambda m: _target(m.group(1)), text).split())


def _target(text: str) -> str:
    titled = re.fullmatch(r"(.+?)\s*<[^<>]*>", text)
    if titled:
        return titled.group(1)
    prefixed = re.fullmatch(r"[A-Za-z][\w-]*:(\S+)", text)  # py2:cookielib: an intersphinx inventory's name
    return (prefixed.group(1) if prefixed else text).lstrip("~!")


def _grid_cells(line: str, cuts: list[int]) -> list[str]:
    return [line[a + 1 : b] for a, b in pairwise(cuts)]


def _grid(block: list[tuple[int, str]]) -> list[Raw]:
    """The rows of one table (its lines with their numbers): a record per row under the header."""
    cuts = [k for k, ch in enumerate(block[0][1]) if ch == "+"]
    groups: list[list[tuple[int, str]]] = [[]]
    header: list[str] | None = None
    for i, line in block[1:]:
        if _GRID_BORDER.match(line):
            if "=" in line and header is None and groups[-1]:
                header = [rst_text(" ".join(c)) for c in zip(*(_grid_cells(t, cuts) for _, t in groups[-1]))]
                groups[-1] = []
            groups.append([])
        elif line.startswith("|"):
            groups[-1].append((i, line))
    names = [h or f"col{k + 1}" for k, h in enumerate(header or [])] or [f"col{k + 1}" for k in range(len(cuts) - 1)]
    out: list[Raw] = []
    for rows in (g for g in groups if g):
        cells = [rst_text(" ".join(c)) for c in zip(*(_grid_cells(t, cuts) for _, t in rows))]
        fields = [(n, c) for n, c in zip(names, cells) if c]
        if fields:
            out.append((rows[0][0], rows[-1][0], fields, cells[0], None))
    return out


def parse_grid_tables(lines: list[str]) -> tuple[list[Raw], list[str]]:
    out: list[Raw] = []
    names: dict[str, None] = {}
    i = 0
    while i < len(lines):
        text = lines[i].strip()
        if _GRID_BORDER.match(text) and i + 1 < len(lines) and lines[i + 1].strip().startswith("|"):
            j = i
            while j < len(lines) and lines[j].strip().startswith(("|", "+")):
                j += 1
            rows = _grid([(k, lines[k].strip()) for k in range(i, j)])
            names.update(dict.fromkeys(n for _, _, fields, _, _ in rows for n, _ in fields))
            out += rows
            i = j
            continue
        if text:
            out.append((i, i, [], "", None))
        i += 1
    return out, list(names)
