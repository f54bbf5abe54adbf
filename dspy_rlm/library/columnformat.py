"""Columns named by where a comment writes their names: an aligned table whose header is a comment line, its
names set above the columns they name (pg_hba.conf's ``# TYPE  DATABASE  USER  ADDRESS  METHOD``, which sits
among the rows). A row's words go to the column they stand under, so a cell left empty (a ``local`` rule has no
ADDRESS) leaves the next word in its own column instead of shifting it left.

Also: a header written as the comment line above the rows (:func:`comment_header`) or as names in angle brackets
in the comments above them (:func:`angle_header`: ``# <pattern> <action>``), which column keys a table of
a code and its name (:func:`named_second`), and whether a first line is no row of data (:func:`preamble_row`).

Stdlib-only: :func:`dspy_rlm.library.helpers.standalone_source` inlines this file into foreign interpreters.
"""

import re
from typing import Any

_HEAD_WORD = re.compile(r"[^\s#]\S*")  # a header's name (after its comment's "#")
_ROW_WORD = re.compile(r"\S+")
_HEAD_NAME = re.compile(r"[A-Za-z][\w-]*")
_HEAD_GAP = re.compile(r"\S(?:\t| {2,})\S")


def column_header(lines: list[str], rows: list[tuple[int, str]]) -> tuple[list[str], list[int]] | None:
    """The names of a comment line over the rows and the column each starts (the first column at 0): a line of
    three names or more set apart by two spaces or a tab, within 30 lines of the rows, each name after the first
    standing where a word of at least a third of the rows starts, and on average of three rows in five."""
    sample = rows[:200]
    if len(sample) < 3:
        return None
    starts = [{m.start() for m in _ROW_WORD.finditer(part)} for _, part in sample]
    for j in range(max(0, sample[0][0] - 30), min(len(lines), sample[-1][0])):
        line = lines[j]
        if not line.lstrip().startswith("#") or not _HEAD_GAP.search(line):
            continue
        cells = [(m.group(), m.start()) for m in _HEAD_WORD.finditer(line)]
        names = [c for c, _ in cells]
        if len(cells) < 3 or len(set(names)) < len(names) or not all(_HEAD_NAME.fullmatch(c) for c in names):
            continue
        shares = [sum(at in s for s in starts) / len(starts) for _, at in cells[1:]]
        if min(shares) >= 1 / 3 and sum(shares) / len(shares) >= 0.6:
            return names, [0] + [at for _, at in cells[1:]]
    return None


def split_under(line: str, starts: list[int]) -> list[str]:
    """The cells of ``line``: each word in the column whose start is the last at or before its own, words of
    one column joined by a space; a column no word stands under is empty."""
    cells: list[list[str]] = [[] for _ in starts]
    for m in _ROW_WORD.finditer(line):
        k = max(i for i, at in enumerate(starts) if at <= m.start()) if m.start() >= starts[0] else 0
        cells[k].append(m.group())
    return [" ".join(c) for c in cells]


def header_columns(lines: list[str], rows: list[tuple[int, str]]) -> Any:
    """``(names, split)`` for :func:`column_header`'s table, else None."""
    found = column_header(lines, rows)
    if found is None:
        return None
    names, starts = found
    return names, lambda s: split_under(s, starts)


_CODE_CELL = re.compile(r"0[xX][0-9A-Fa-f]+|[-+]?\d+")
_NUMBER_NAME = re.compile(r"[-+]?[\d.,:/%]+")  # formats.NUMBER_CELL: a number, no name


def named_second(raws: list[Any]) -> bool:
    """Whether rows of two cells each pair a number (``0x40``, ``254``) with a name no other row has: the name
    keys the row, as ``/etc/iproute2``'s tables give each code its name."""
    pairs = [[v for _, v in r[2]] for r in raws]
    if len(pairs) < 3 or any(len(p) != 2 for p in pairs):
        return False
    names = [p[1] for p in pairs]
    codes = all(_CODE_CELL.fullmatch(p[0]) for p in pairs)
    return codes and len(set(names)) == len(names) and not any(_NUMBER_NAME.fullmatch(n) for n in names)


_FIGURE = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def preamble_row(rows: list[list[str]]) -> bool:
    """Whether the first of ``rows`` (each a line's cells) is no row of data: two or more of its cells are of
    another kind than nine in ten of their column's cells below (a number over words, or a word over numbers),
    and ten rows or more follow -- a line of counts and class names over measurements (``150,4,setosa,...``)."""
    first, later = rows[0], rows[1:2001]
    if len(later) < 10:
        return False
    odd = 0
    for k, cell in enumerate(first):
        below = [r[k].strip() for r in later if len(r) > k and r[k].strip()]
        if len(below) < 10 or not cell.strip():
            continue
        share = sum(bool(_FIGURE.fullmatch(v)) for v in below) / len(below)
        number = bool(_FIGURE.fullmatch(cell.strip()))
        odd += (share >= 0.9 and not number) or (share <= 0.1 and number)
    return odd >= 2


def comment_header(lines: list[str], first: int, width: int, split: Any) -> list[str] | None:
    """A header written as the last comment line before the data (``#codes<TAB>coordinates<TAB>TZ``), its cells
    split by ``split``; tabs that align (``TZ<TAB><TAB><TAB>comments``) leave no empty name."""
    j = first - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    if j < 0 or not lines[j].lstrip().startswith(("#", ";")):
        return None
    cells = split(lines[j].strip().lstrip("#;").strip())
    for names in (cells, [c for c in cells if c.strip()]):
        fits = len(names) >= 2 and width - 1 <= len(names) <= width + 1 and len(set(names)) == len(names)
        if fits and all(_name_cell(c) for c in names):
            return names
    return None


_DATA_IN_CELL = re.compile(r"\w{1,20}: |\b(?=[0-9A-F]*\d)[0-9A-F]{4,}|\d{3,}")
"""What a column name does not hold: a ``label: value`` or a long number (``# @missing: 0000..10FFFF; No_Block``
is a comment that says a default row, not the columns' names)."""


def _name_cell(cell: str) -> bool:
    named = bool(cell) and any(c.isalnum() for c in cell)  # "#### AFRICA ####": a banner, no column's name
    return named and len(cell) <= 60 and not _NUMBER_NAME.fullmatch(cell) and not _DATA_IN_CELL.search(cell)


_ANGLED = re.compile(r"(?:<[^<>\n]{1,40}>[ \t]*){2,}")
_ANGLE = re.compile(r"<([^<>\n]{1,40})>")


def angle_header(lines: list[str], first: int, width: int) -> list[str] | None:
    """The column names a comment above the rows writes in angle brackets, nothing else on its line (xattr.conf's
    ``# <pattern> <action>``, fstab's ``# <file system> <mount point> <type> ...``), within the 40 lines before
    the first row, as many as the rows have cells (one more or fewer), each once."""
    for j in range(first - 1, max(-1, first - 41), -1):
        said = lines[j].strip()
        if not said.startswith(("#", ";")):
            continue
        body = said.lstrip("#;").strip()
        if _ANGLED.fullmatch(body):
            names = [n.strip() for n in _ANGLE.findall(body)]
            fits = width - 1 <= len(names) <= width + 1 and len(set(names)) == len(names)
            return names if fits and all(_name_cell(n) for n in names) else None
    return None
