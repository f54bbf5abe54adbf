"""Whitespace-aligned tables behind :func:`dspy_rlm.library.structure.detect` (/etc/services, /etc/protocols,
mime.types): :func:`looks_whitespace_table` scores a sample, :func:`parse_whitespace_table` reads the rows into raw
records (see :mod:`~dspy_rlm.library.formats`), columns split on tabs / runs of 2+ spaces (aligned) or on single
spaces, a trailing ``# comment`` as the field ``comment``. Split from :mod:`~dspy_rlm.library.formats`.

Stdlib-only at import; :func:`dspy_rlm.library.helpers.standalone_source` inlines it into foreign interpreters.
"""

import re
from collections import Counter

from dspy_rlm.library.columnformat import angle_header, comment_header, header_columns  # inlined before formats.py
from dspy_rlm.library.formats import (  # standalone_source() inlines formats.py before this file
    Raw,
    _header_like,
    _share,
    _table_records,
    is_comment,
    meaningful,
)

ALIGNED = re.compile(r"\t+| {2,}")


def _strip_comment(line: str) -> tuple[str, str]:
    k = line.find("#")
    return (line, "") if k < 0 else (line[:k], line[k + 1 :].strip())


_QUOTES_SPAN = re.compile(r"\"[^\"]*\"|'[^']*'")


def _block_comments(lines: list[str]) -> set[int]:
    """The lines of C's ``/* ... */`` comments that open a line (a linker script's licence) and close within 200
    lines (AppArmor's ``/** r,`` is a path): no table rows."""
    closing = [i for i, line in enumerate(lines) if "*/" in line]  # (one pass: a huge text's lines too)
    inside, out, k = False, set(), 0
    for i, line in enumerate(lines):
        opens = not inside and line.lstrip().startswith("/*")
        while k < len(closing) and closing[k] <= i:
            k += 1
        if opens and "*/" not in line.lstrip()[2:] and not (k < len(closing) and closing[k] - i < 200):
            continue
        if opens or inside:
            out.add(i)
            inside = "*/" not in (line.lstrip()[2:] if opens else line)
    return out


def looks_whitespace_table(sample: list[str]) -> tuple[float, bool]:
    """(score, aligned): aligned tables split on tabs / runs of 2+ spaces, others on single spaces."""
    commented = _block_comments(sample)
    rows = [_strip_comment(r)[0].strip() for i, r in enumerate(sample) if i not in commented and meaningful([r])]
    rows = [r for r in rows if r]
    if len(rows) < 3 or sum(len(r) for r in rows) / len(rows) > 120:
        return 0.0, False
    if _share(sum(1 for r in rows if {"{", "}"} <= set(_QUOTES_SPAN.sub("", r))), len(rows)) >= 0.3:
        return 0.0, False  # ".interp : { *(.interp) }" a line: a program's blocks (a linker script), no table
    # (a block opened on one line and closed on another holds rows: Tcl's "array set Cursors {")
    aligned = _share(sum(1 for r in rows if ALIGNED.search(r)), len(rows))
    if aligned >= 0.4:
        return (0.9 if all(len(ALIGNED.split(r)) <= 10 for r in rows[:400]) else 0.0), True
    counts = Counter(len(r.split()) for r in rows)
    mode, n = counts.most_common(1)[0]
    if mode >= 3 and _share(counts[mode] + counts[mode + 1], len(rows)) >= 0.9:
        n = counts[mode] + counts[mode + 1]  # an optional last column (tmpfiles.d's argument): the rest takes it
    prose = _share(sum(1 for r in rows if r[-1] in ".!?"), len(rows))
    return (_share(n, len(rows)) if 2 <= mode <= 8 and prose < 0.2 else 0.0), False


def _header_row(rows: list[tuple[int, str]], width: int, sep: re.Pattern) -> bool:
    """The first row names the columns: it has the usual width, reads as names, and most later rows do not
    (a number, an address, a date in some cell): a names-only table keeps its first row as data."""
    cells = [c for c in sep.split(rows[0][1].strip()) if c]
    if len(cells) != width or not _header_like(cells):
        return False
    later = [[c for c in sep.split(part.strip()) if c] for _, part in rows[1:200]]
    return _share(sum(1 for r in later if not _header_like(r)), len(later)) >= 0.8


_KV_MARK = re.compile(r"[:=](?:\s|$)")


def _split_rest(line: str, width: int, sep: re.Pattern) -> list[str]:
    """Cells split on ``sep``; from the ``width``-th on, the rest of the line is one cell (aliases...). A row of
    an aligned table written with single spaces (``afs3-fileserver 7000/udp``) is split on them instead."""
    cells = [c for c in sep.split(line.strip(), maxsplit=width - 1) if c]
    if len(cells) == 1 and width > 1 and sep is ALIGNED and not _KV_MARK.search(line):  # "key: value" is no row
        cells = line.split(maxsplit=width - 1)
    return cells


_MARK = re.compile(r"[ \t]+[;|][ \t]+")
_TYPE_CODE = re.compile(r"(\S{1,2}) (?! )(\S+)")


def _type_coded(rows: list[tuple[int, str]]) -> bool:
    """Rows that open with a one- or two-character type code, one space, then the entry's name (systemd's
    sysusers.d ``g adm   4   -``, ``u root   0   - /root``): the padding aligns space-separated fields, the
    name is the key. A handful of codes, names mostly distinct."""
    heads = [_TYPE_CODE.match(part.strip()) for _, part in rows[:2000]]
    found = [m for m in heads if m]
    if len(found) < 3 or _share(len(found), len(heads)) < 0.9:
        return False
    codes, names = {m.group(1) for m in found}, [m.group(2) for m in found]
    return len(codes) <= 6 and _share(len(set(names)), len(names)) >= 0.8


def parse_whitespace_table(lines: list[str], aligned: bool) -> tuple[list[Raw], list[str]]:
    sep = ALIGNED if aligned else re.compile(r"\s+")
    rows, comments, commented = [], {}, _block_comments(lines)
    for i, line in enumerate(lines):
        part = line
        if is_comment(line) or i in commented:
            continue
        if "#" in line:
            part, comments[i] = _strip_comment(line)
        if part.strip():
            rows.append((i, part))
    if not rows:
        return [], []
    if _share(sum(1 for _, part in rows[:400] if _MARK.search(part)), len(rows[:400])) >= 0.8:
        rows = [(i, _MARK.sub("  ", part)) for i, part in rows]  # "00A5  ; [.09E2.0020]": the ; parts two columns
        sep = ALIGNED
    typed = sep is ALIGNED and _type_coded(rows)
    sep = re.compile(r"\s+") if typed else sep  # "g adm   4   -": space-separated fields, padded to align
    counts = sorted(len(sep.split(part.strip())) for _, part in rows[:2000])
    width = max(2, counts[int(len(counts) * 0.9)])
    first = rows[0][0]
    header = comment_header(lines, first, width, lambda s: [c for c in sep.split(s) if c])
    header = header or angle_header(lines, first, width)  # "# <pattern> <action>" among the comments above
    if header is None and any(is_comment(lines[j]) for j in range(first)):
        k = next(j for j in range(first - 1, -1, -1) if is_comment(lines[j]))
        cells = lines[k].strip().lstrip("#").split()
        prose = k > 0 and is_comment(lines[k - 1]) and bool(lines[k - 1].strip().lstrip("#").strip())
        header = cells if len(cells) == width and _header_like(cells) and not prose else None  # not a sentence's end
    if header is None and len(rows) > 2 and _header_row(rows, width, sep):
        header = [c for c in sep.split(rows[0][1].strip()) if c]
        rows = rows[1:]
    if header is not None:  # "<keep> <order>" one space apart: two names, each in its own angle brackets
        header = [n for c in header for n in (_ANGLE_NAMES.findall(c) if _ANGLED_CELL.fullmatch(c) else [c])]
    if header is not None and len(header) > width and sep is ALIGNED:  # "... defaults\t0 0" under six names,
        words = [len(part.split()) for _, part in rows[:400]]  # <dump> <pass>: the last two one space apart
        if _share(sum(1 for n in words if n == len(header)), len(words)) >= 0.9:
            sep, width = re.compile(r"\s+"), len(header)
    placed = header_columns(lines, rows)  # names written over their columns: each word under its name
    split = placed[1] if placed else (lambda s: _split_rest(s, width, sep))
    header, width = (placed[0], len(placed[0])) if placed else (header, width)
    out, names = _table_records(rows, header, width, split, key_at=1 if typed else 0)
    names = _flag_split(out, names) if header is None and sep is ALIGNED else names
    for i, _, fields, _key, _t in out:
        if comments.get(i):
            fields.append(("comment", comments[i]))
    return out, names + (["comment"] if any(comments.values()) else [])


_ANGLED_CELL = re.compile(r"(?:<[^<>\s][^<>]*>\s*){2,}")
_ANGLE_NAMES = re.compile(r"<[^<>]+>")
_NUMBER_CELL = re.compile(r"[-+]?\d[\d.:]*")
_NUMBER_FLAG = re.compile(r"([-+]?\d[\d.:]*) ([A-Za-z]{1,3})")


def _flag_split(out: list[Raw], names: list[str]) -> list[str]:
    """The last column of an aligned table without a header, a number in most rows (a name in others) and in
    some a short flag one space after it (PostgreSQL's timezone sets: ``ADT    -10800 D`` beside ``AST
    -14400``): the flag is a column of its own, empty where a row has none. ``names`` with that column added."""
    last = names[-1] if names else ""
    cells = [v for _, _, fields, _, _ in out for n, v in fields if n == last]
    flagged = [m.group(2) for v in cells if (m := _NUMBER_FLAG.fullmatch(v))]
    plain = sum(1 for v in cells if _NUMBER_CELL.fullmatch(v))
    spaced = sum(1 for v in cells if " " in v)  # every cell of two words a number and its flag; most a number
    if len(flagged) < 2 or len(set(flagged)) > 3 or spaced > len(flagged) or len(flagged) + plain < 0.6 * len(cells):
        return names
    added = f"col{len(names) + 1}"
    for _, _, fields, _, _ in out:
        for j, (n, v) in enumerate(fields):
            if n == last and (m := _NUMBER_FLAG.fullmatch(v)):
                fields[j : j + 1] = [(n, m.group(1)), (added, m.group(2))]
                break
    return [*names, added]


_COMMENTED_ROW = re.compile(r"\s*#+\s?(\S.*?)\s*$")


def uncommented_table(lines: list[str], sample_lines: int = 400) -> list[str] | None:
    """A table whose rows are commented out (``# aa_DJ ISO-8859-1``, ``# aa_DJ.UTF-8 UTF-8`` in /etc/locale.gen:
    the entries a user uncomments): the lines with each such row's ``#`` dropped, where eight rows or more of one
    width (2-6 cells, no sentence) make 70% of the non-blank lines of the sample and their first cells differ;
    else None. Read as lines, every entry was a comment of no fields."""
    body = [ln for ln in lines[:sample_lines] if ln.strip()]
    cells = [m.group(1).split() for ln in body if (m := _COMMENTED_ROW.match(ln))]
    widths = Counter(len(c) for c in cells)
    if not widths:
        return None
    width, n = widths.most_common(1)[0]
    rows = [c for c in cells if len(c) == width]
    if not 2 <= width <= 6 or n < 8 or n < 0.7 * len(body) or len({c[0] for c in rows}) < 0.8 * n:
        return None
    if sum(1 for c in rows if c[-1][-1] in ".!?,;:" or not any(ch.isalnum() for ch in c[0])) > 0.1 * n:
        return None  # sentences or rules ("# ----- -----"), no entries
    return [m.group(1) if (m := _COMMENTED_ROW.match(ln)) and len(m.group(1).split()) == width else ln for ln in lines]
