"""Per-format recognizers and parsers behind :func:`dspy_rlm.library.structure.detect`.

Stdlib-only at import time: :func:`dspy_rlm.library.helpers.standalone_source` inlines this file into foreign
interpreters. Each ``parse_*`` function takes the text's lines (``text.split("\\n")``) and returns raw records
``(first, last, fields, key, text)``: 0-based first/last line, ordered ``(name, value)`` pairs, the record key,
and the record's text when it is not whole lines (a sentence), else None. Every field value is a span of the
text, stripped (quotes around assignment and YAML values removed; CSV cells unquoted; JSON values decoded).
Each ``looks_*`` function scores a sample of lines: the share of its meaningful lines the format explains.
Whitespace-aligned tables are :mod:`~dspy_rlm.library.whitespacetable`'s.
"""

import csv
import re
from collections import Counter
from typing import Any

from dspy_rlm.library.columnformat import angle_header, comment_header, named_second, preamble_row
from dspy_rlm.library.textkit import split_outside

Raw = tuple[int, int, list[tuple[str, str]], str, Any]

STANZA_KEY = re.compile(r"([A-Za-z][\w.-]*(?: [\w.()/-]+){0,3})[ \t]*:(?:[ \t]+(.*)|[ \t]*)$")
ASSIGN = re.compile(r"(?:(?:export|(?i:set)|declare|local|readonly)[ \t]+)?([A-Za-z_][\w.-]*)[ \t]*=(?!=)[ \t]*(.*)$")
"""``NAME=value``, after a word that sets it (a shell's ``export``, ``local``; a batch file's ``set``)."""
SECTION = re.compile(r"\s*\[([^\[\]]+)\]\s*$")
INI_KV = re.compile(r"([^=:#;\s\[][^=:]*?)[ \t]*[=:][ \t]*(.*)$")
YAML_KEY = re.compile(r"""(?:- +)?(["']?[\w$@][\w .$@/-]*["']?)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$""")
NUMBER_CELL = re.compile(r"[-+]?[\d.,:/%]+")
CLOCK = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?=\s)")  # 14:02:51 in a log line
KEY_NAMES = ("id", "name", "key", "title", "_id", "uuid", "slug", "code", "label")


def unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


_NAME_IS = re.compile(r"([A-Za-z_][\w.-]*)=(\S+)")


def settings(value: str) -> list[tuple[str, str]]:
    """The ``name=value`` words of a value made of them alone (``guifg=#ffffff guibg=#666666 gui=NONE``), else
    none."""
    words = value.split()
    found = [(m.group(1), m.group(2)) for w in words if (m := _NAME_IS.fullmatch(w))]
    return found if len(words) >= 2 and len(found) == len(words) else []


def is_comment(line: str) -> bool:
    """``#`` / ``;`` comments, roff's (``.\\"``, ``'\\"``, ``\\"``: a macro file's or a manual page's), and a line
    opening a quote it never closes (Vim script's ``" comment``)."""
    s = line.lstrip()
    return s.startswith(("#", ";", '.\\"', "'\\\"", '\\"')) or (s[:1] == '"' and '"' not in s[1:])


def meaningful(lines: list[str], comments: bool = True) -> list[str]:
    return [ln for ln in lines if ln.strip() and not (comments and is_comment(ln))]


def continued_lines(lines: list[str], skip: Any) -> list[tuple[int, int, str]]:
    """(first line, last line, text) of each logical line: ``\\`` continuations joined, the lines where
    ``skip(stripped line, continuing)`` is true left out (comments, blanks)."""
    out: list[tuple[int, int, str]] = []
    parts: list[str] = []
    start = 0
    for i, line in enumerate(lines):
        s = line.strip()
        if skip(s, bool(parts)):
            continue
        if not parts:
            start = i
        parts.append(s[:-1].rstrip() if s.endswith("\\") else s)
        if not s.endswith("\\"):
            out.append((start, i, " ".join(p for p in parts if p)))
            parts = []
    if parts:
        out.append((start, len(lines) - 1, " ".join(p for p in parts if p)))
    return out


def _share(hits: int, total: int) -> float:
    return hits / total if total else 0.0


_QUOTED_SETTING = re.compile(r"([\"'])([A-Za-z_][\w.-]*)=([^\"'=\s][^\"']*)\1\s*,?")


# a name, blanks, then a quoted value, or one word after a name joined by _ or . (glibc's locale ``title
# "Swedish locale for Sweden"``, ``int_frac_digits  2``): a plain word before blanks opens a sentence or a log
# line ("ERROR  disk full"), no name
_SPACED_QUOTED = re.compile(r'([A-Za-z_][\w.-]*)[ \t]+"([^"]+)"[ \t]*;?')
_SPACED_WORD = re.compile(r"([A-Za-z][\w-]*[_.][\w.-]*)[ \t]+([^\s\"=:]+)")


def _line_kv(line: str) -> list[tuple[str, str]]:
    """The (key, value) pair of a ``key: value`` or ``key = value`` line, else none."""
    s = line.strip()
    q = _QUOTED_SETTING.fullmatch(s)  # a list's quoted item: CMake's "R2019a=9.6", a JSON array's "LANG=C",
    if q:
        return [(q.group(2), q.group(3))]
    fat = _FAT_COMMA.fullmatch(s)  # Perl's and PHP's "NAME => 67," (the "=" is no setting's: its value was "> 67,")
    if fat:
        value = unquote(fat.group(2))
        call = _ONE_STRING_CALL.fullmatch(value)  # "N_('success')": a string passed through a call is that string
        return [(unquote(fat.group(1)), call.group(2) if call else value)]
    m = STANZA_KEY.match(s) or ASSIGN.match(s)
    if m and (m.group(2) or "").strip():
        value = (m.group(2) or "").strip()
        if _CLOSED_QUOTE.fullmatch(value):  # 'offColor= "green30";': the statement's ";" is no part of it
            value = value[:-1].rstrip()
        return [(m.group(1).strip(), unquote(value))]
    return []


_CLOSED_QUOTE = re.compile(r"([\"'])[^\"']*\1\s*;")
_FAT_COMMA = re.compile(r"([A-Za-z_][\w.:-]*(?:\(\))?|'[^']+'|\"[^\"]+\")\s*=>\s*(\S.*?)\s*,?")
_ONE_STRING_CALL = re.compile(r"[A-Za-z_]\w*\(\s*([\"'])(.*?)\1\s*\)")


def spaced_kv(line: str) -> tuple[str, str] | None:
    """The (name, value) of a ``name  "value"`` / ``name_joined  value`` line, else None (a text of lines keeps
    only the names said once: a name said again is a command, ``echo "..."``, no setting)."""
    m = _SPACED_QUOTED.fullmatch(line.strip()) or _SPACED_WORD.fullmatch(line.strip())
    return (m.group(1), m.group(2)) if m else None


_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_MD_MARK = re.compile(r"(\*\*|`)(.+?)\1")  # not __x__: a name (__init__) more often than bold


def md_text(cell: str) -> str:
    """A table cell as it renders: a link is its text (``[Assert](assert.html)`` is ``Assert``), ```code```
    and ``**bold**`` their words."""
    if "[" not in cell and "`" not in cell and "*" not in cell:
        return cell
    return _MD_MARK.sub(r"\2", _MD_LINK.sub(r"\1", cell))


# -- delimited tables ---------------------------------------------------------------------------------------
DELIMITERS = {"\t": "tsv", ",": "csv", "|": "pipes", ";": "semicolon", ":": "colon"}


def _cells(line: str, delim: str) -> list[str]:
    if delim == "," and '"' in line:
        try:
            return [c.strip() for c in next(csv.reader([line]))]
        except (csv.Error, StopIteration):
            pass
    cells = [c.strip() for c in line.split(delim)]
    if delim == "|" and len(cells) > 2 and not cells[0] and not cells[-1]:
        cells = cells[1:-1]  # | a | b |
    return cells


def looks_delimited(sample: list[str]) -> tuple[float, str]:
    """(score, delimiter) of the best delimiter: the share of data lines with (about) the usual cell count."""
    rows = meaningful(sample)
    best = (0.0, "")
    if len(rows) < 2:
        return best
    for delim in DELIMITERS:
        counts = [len(_cells(r, delim)) for r in rows[:400]]
        mode, _ = Counter(counts).most_common(1)[0]
        solid = delim == ":" and sum(1 for r in rows[:400] if not r.strip().count(" ")) > len(counts) * 0.9
        if mode < (3 if delim == ":" and not solid else 2):  # "key: value" lines, unless no cell has a space
            continue  # ("application/pdf:x-office-document": two columns joined by a colon)
        if (
            sum(1 for r in rows[:400] if len(_cells(_STATEMENT_TAIL.sub("", r).removesuffix(delim), delim)) < 2)
            > len(counts) / 2
        ):  # "'cp862' => 'Encode::Byte'," a line: one cell and the delimiter that closes it (a literal; a
            continue  # statement's ";" before its "// comment")
        if sum(1 for r in rows[:400] if r.strip()[:1] in "([{" and r.rstrip().endswith(delim)) > len(counts) / 2:
            continue  # '("CUresult", "hipError_t"),' a line: a program's list of tuples
        if delim in ",;" and sum(1 for r in rows[:400] if delim in r and _bracketed(r, delim)) > len(counts) / 2:
            continue  # "def i8 : ValueType<8, 3>;" a line: the commas part a call's arguments, no cells
        runs = delim == "\t" and sum(1 for r in rows[:400] if "\t\t" in r) > len(counts) * 0.3
        if runs and not _boxed(counts, rows[0]):
            continue  # tab runs align columns (/etc/services): a whitespace table, not TSV
        if delim == "\t" and sum(1 for r in rows[:400] if r.startswith("\t")) > len(counts) * 0.5:
            continue  # most lines tab-indented: a config's nesting (mke2fs.conf, krb5.conf), not TSV
        if delim == ":" and sum(1 for r in rows[:400] if "\t" in r) > len(counts) * 0.5:
            continue  # tab-separated rows whose last cell says "terminate:ctrl_alt_bksp": no colon table
        if delim == ":" and sum(1 for r in rows[:400] if CLOCK.search(r)) > len(counts) * 0.3:
            continue  # 14:02:51 in every line is a log's clock, not a colon-separated table
        if delim == ":" and sum(1 for r in rows[:400] if "::" in r) > len(counts) * 0.5:
            continue  # "::msgcat::mcset": a namespace's separators, no cells
        if delim == ":" and sum(1 for r in rows[:400] if "://" in r) > len(counts) * 0.5:
            continue  # "http://ftp.am.debian.org/debian/" a line: a URL's scheme, no cells
        near = sum(1 for c in counts if c == mode or (delim == "\t" and mode - 1 <= c <= mode + 1 and c >= 2))
        if delim in ",;\t" and _ragged(counts, _cells(rows[0], delim)):
            near = len(counts)
        score = _share(near, len(counts))
        if score > best[0] + 0.05:
            best = (score, delim)
    return best


_STATEMENT_TAIL = re.compile(r"\s+//.*$|\s+$")  # a statement's closing comment (no URL's "//": a space before)


def _bracketed(row: str, delim: str) -> bool:
    """Whether every ``delim`` of ``row`` sits inside brackets (``()``, ``[]``, ``{}``, ``<>``) outside quotes."""
    return len(split_outside(row, delim, "()[]{}<>")) < 2


def _boxed(counts: list[int], first: str) -> bool:
    """Tab runs that are empty cells, not alignment: a header of distinct names, one tab apart, and (almost) every
    row exactly as many cells wide (``978-0-8546-257<TAB>Rine mervoost<TAB><TAB>453``: an empty genre)."""
    head = _cells(first, "\t")
    return len(head) >= 3 and _header_like(head) and _share(counts.count(len(head)), len(counts)) >= 0.95


def _ragged(counts: list[int], first: list[str]) -> bool:
    """Rows under a header that leave their empty last cells out (``4.10,Warty Warthog,warty,2004-03-05,...``
    under nine column names, six cells given): three cells or more in every row, none wider than the header."""
    head = counts[0]
    return head >= 4 and max(counts) == head and min(counts) >= 3 and _header_like(first)


def _header_like(cells: list[str]) -> bool:
    return (
        all(cells)
        and len(set(cells)) == len(cells)
        and not any(NUMBER_CELL.fullmatch(c) for c in cells)
        and all(any(ch.isalnum() for ch in c) for c in cells)  # "#### AFRICA ####": a banner
        and all(len(c) <= 40 and (c[0].isalpha() or c[0] in "_\"'^$%@#&") for c in cells)  # ^GSPC: an index
    )


def _unique(names: list[str]) -> list[str]:
    seen: Counter = Counter()
    out = []
    for n in names:
        seen[n] += 1
        out.append(n if seen[n] == 1 else f"{n}_{seen[n]}")
    return out


def _comma_tab(lines: list[str], data: list[int]) -> bool:
    """Whether nine in ten rows of a tab-separated text end each cell but the last with a comma (libdrm's
    ``amdgpu.ids``: ``1309,<TAB>00,<TAB>AMD Radeon R7 Graphics``): the comma is the separator's, no cell's."""
    rows = [cells[:-1] for i in data[:400] if len(cells := lines[i].split("\t")) > 1]
    return bool(rows) and sum(all(c.rstrip().endswith(",") for c in r) for r in rows) * 10 >= len(rows) * 9


def parse_delimited(lines: list[str], delim: str) -> tuple[list[Raw], list[str]]:
    data = [i for i, ln in enumerate(lines) if ln.strip() and not is_comment(ln)]
    if not data:
        return [], []
    if delim == "\t" and _comma_tab(lines, data):  # "1309,<TAB>00,<TAB>AMD Radeon R7 Graphics"
        split = lambda s: [c.strip() for c in re.split(r",\s*\t", s)]  # noqa: E731
        # a commented header's note after two spaces is cut: "product_name        <-- single tab after comma"
        head = lambda s: [re.split(r"\s{2,}", c)[0] for c in split(s)]  # noqa: E731
    else:
        split = head = lambda s: _cells(s, delim)
    widths = Counter(len(split(lines[i])) for i in data[:400])
    width = max(w for w, n in widths.items() if n >= max(1, len(data[:400]) // 20))
    first_cells = split(lines[data[0]])
    header = comment_header(lines, data[0], width, head) or angle_header(lines, data[0], width)
    named = _header_like(first_cells) and (len(first_cells) > 1 or width == 1)  # one cell over wider rows: a title
    if header is None and named and len(data) > 1 and not _shaped_like_data(lines, data, delim):
        header, data = first_cells, data[1:]
    elif header is None and preamble_row([_cells(lines[i], delim) for i in data[:2001]]):
        data = data[1:]  # a first line of counts and names over rows of measurements: no row
    rows = [(i, lines[i]) for i in data]
    raws, names = _table_records(rows, header, width, split)
    if header is None and named_second(raws):  # "0x40<TAB>CS2": a code, then the name it is given
        raws, names = _table_records(rows, header, width, split, key_at=1)
    said = [m for r in raws if r[2] and (m := _QUOTE_COMMENT.fullmatch(r[2][-1][1]))]
    if delim != "\t" or len(said) * 2 < len(raws):
        return raws, names
    out: list[Raw] = []  # a Vim keymap's 'J<TAB><char-0x039E>   " GREEK CAPITAL LETTER XI': a value and its comment
    for a, b, fields, key, text in raws:
        m = _QUOTE_COMMENT.fullmatch(fields[-1][1]) if fields else None
        if m:
            fields = [*fields[:-1], (fields[-1][0], m.group(1)), ("comment", m.group(2).strip())]
        out.append((a, b, fields, key, text))
    return out, [*names, "comment"]


_QUOTE_COMMENT = re.compile(r"(\S.*?)[ \t]{2,}\"([^\"]*)")  # a last cell's trailing comment: a quote never closed


def _shaped_like_data(lines: list[str], data: list[int], delim: str) -> bool:
    """The first row's cells have the punctuation most later rows have in each column, some of it at least
    (``application/x-tar:package-x-generic`` over rows of the same shape): a row of data, not column names."""

    def marks(cell: str) -> frozenset[str]:
        return frozenset(c for c in cell if not c.isalnum() and not c.isspace())

    first = [marks(c) for c in _cells(lines[data[0]], delim)]
    later = [[marks(c) for c in _cells(lines[i], delim)] for i in data[1:200]]
    usual = [Counter(r[k] for r in later if len(r) > k).most_common(1) for k in range(len(first))]
    return any(first) and all(u and u[0][0] == m for u, m in zip(usual, first))


def _table_records(
    rows: list[tuple[int, str]], header: list[str] | None, width: int, split: Any, key_at: int = 0
) -> Any:
    names = _unique(header or [f"col{k + 1}" for k in range(width)])
    wide = names + [f"col{k + 1}" for k in range(len(names), 64)]
    out: list[Raw] = []
    for i, line in rows:
        cells = split(line)
        if len(cells) > len(wide):
            wide += [f"col{k + 1}" for k in range(len(wide), len(cells))]
        key = cells[key_at] if len(cells) > key_at else cells[0] if cells else ""
        out.append((i, i, [pair for pair in zip(wide, cells) if pair[1]], key, None))
    return out, names


def repeated_names(groups: dict[Any, list[tuple[str, str]]]) -> list[Any]:
    """The groups of ``name: value`` pairs each of whose names another group uses too: the settings a document
    describes alike (``Default:`` / ``Type:`` under each heading), not a list of its own (``-E: --save-exact``)."""
    seen = Counter(name for pairs in groups.values() for name in {n for n, _ in pairs})
    return [k for k, pairs in groups.items() if all(seen[n] >= 2 for n, _ in pairs)]
