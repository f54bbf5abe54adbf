"""Markdown tables and lists, and prose, as records behind :func:`dspy_rlm.library.structure.detect`: the
``looks_*`` / ``parse_*`` pairs of :mod:`dspy_rlm.library.formats` for text written for people (a ``| a | b |``
table, a bulleted or numbered list, paragraphs of sentences). Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it.
"""

import bisect
import re
from typing import Any

from dspy_rlm.library.formats import Raw, _cells, _line_kv, _share, _unique, md_text, meaningful, repeated_names

LIST_ITEM = re.compile(r"([ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]+(\S.*)$")
# No two whitespace repeats side by side (they backtracked quadratically: 3.4 s on 16,000 spaces).
MD_SEPARATOR = re.compile(r"\s*(?:\|\s*)?:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*(?:\|\s*)?$")
SENTENCE_END = re.compile(r"""[.!?]["')\]]*\s+(?=["'(\[]?[^\W_])""")
_ABBR = "e.g i.e etc mr mrs ms dr vs st no fig cf approx inc ltd jr sr al"  # no sentence ends after them
ABBREVIATIONS = frozenset(_ABBR.split())


def looks_markdown_table(sample: list[str]) -> float:
    rows = meaningful(sample, comments=False)
    if not any(MD_SEPARATOR.match(r) and "-" in r for r in rows):
        return 0.0
    return _share(sum(1 for r in rows if r.strip().startswith("|") or r.count("|") >= 2), len(rows))


def looks_markdown_tables(sample: list[str]) -> bool:
    """Two or more pipe tables with five rows or more between them, however much prose is around them (a
    document whose tables are its data: one per section), or one table of five rows or more that is a quarter of
    the text's lines or more (a page around its overview table)."""
    if not any("|" in r for r in sample):  # most texts: no pass with a regex
        return False
    separators = sum(1 for r in sample if MD_SEPARATOR.match(r.strip()) and "-" in r and "|" in r)
    rows = sum(1 for r in sample if r.count("|") >= (3 if r.strip().startswith("|") else 2))  # "a | b | c" too
    if separators == 1:
        return rows - 2 >= 5 and 4 * rows >= sum(1 for r in sample if r.strip())
    return separators >= 2 and rows - 2 * separators >= 5


_HTML_HEADING = re.compile(r"<(\w+)[^<>]*>\s*([^<>]*?[^<>\s])\s*</\1>")
"""A line that is one HTML element around its text: a heading written in HTML (``<summary>``, ``<h3>``)."""


def parse_markdown_table(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """One record per table row [first cell]; where the text has two or more tables, each row also has the
    field ``section``: the heading above its table ("## Tier 4")."""
    out: list[Raw] = []
    names: list[str] = []
    header: list[str] | None = None
    heading, tables = "", 0
    rows: list[tuple[int, str]] = []  # (index in out, heading) of the table rows
    for i, line in enumerate(lines):
        s = line.strip()
        if MD_SEPARATOR.match(s) and "-" in s and i > 0 and "|" in lines[i - 1]:
            header = _unique([c or f"col{k + 1}" for k, c in enumerate(_cells(lines[i - 1].strip(), "|"))])
            names += [n for n in header if n not in names]
            tables += 1
            if out and out[-1][0] == i - 1:
                out.pop()  # the header row, read as a line before the separator was seen
                rows = [r for r in rows if r[0] < len(out)]
        elif header and "|" in s:
            cells = [md_text(c) for c in _cells(s, "|")]
            fields = [(header[k], c) for k, c in enumerate(cells) if c and k < len(header)]
            if fields:  # "|   |   |": an empty row
                rows.append((len(out), heading))
                out.append((i, i, fields, cells[0], None))
        elif s:
            header = None
            html = _HTML_HEADING.fullmatch(s)  # "<summary> Qwen3-4B </summary>" above a table in a README
            heading = s.lstrip("#").strip() if s.startswith("#") else html.group(2) if html else heading
            out.append((i, i, _line_kv(s), "", None))
    if tables >= 2 and "section" not in names and any(h for _, h in rows):
        for at, h in rows:
            a, b, fields, key, text = out[at]
            out[at] = (a, b, [*fields, ("section", h)], key, text)
        names.append("section")
    return out, names


def looks_markdown_list(sample: list[str]) -> float:
    rows = [r for r in meaningful(sample, comments=False) if not r.lstrip().startswith("#")]
    items = sum(1 for r in rows if LIST_ITEM.match(r))
    return _share(items, len(rows)) if items >= 2 else 0.0


def _item_key(body: str) -> str:
    for sep in (": ", " - ", " — ", " – "):
        head = body.split(sep, 1)[0]
        if head != body and len(head.split()) <= 6:
            return head.strip("*_` ")
    return " ".join(body.split()[:3]).strip("*_`")


def item_named(line: str) -> bool:
    """Whether a list item's key is a name its text gives (before ``: `` or `` - ``) or its whole text, not the
    first three words of a longer sentence ("* add adaptation for the OpenHarmony platform": no name)."""
    m = LIST_ITEM.match(line)  # a heading, a dated section's line: no list item
    return (
        not m or len(m.group(2).split()) <= 3 or _item_key(m.group(2)) != " ".join(m.group(2).split()[:3]).strip("*_`")
    )


def parse_markdown_list(lines: list[str]) -> list[Raw]:
    """A record per list item (a ``**name**: value`` item has that field), and per other line; an item under a
    ``#`` heading has the field ``section``, the heading's text (``## v1.2.5``: the release it lists). A heading
    whose items all read ``name: value``, with names other headings' items use too (``### depth`` with
    ``- Default: 12`` and ``- Type: Number``), is one record keyed by the heading: those fields, its other lines
    as ``description``, and ``section``, the heading above it."""
    out: list[Raw] = []
    current: list[Any] | None = None  # [first, last, indent, body, section]
    section = ""
    heads: list[tuple[int, int, str]] = []  # (line, level, text) of each heading
    kinds: list[str] = []  # per record of out: "pair" (a name: value item), "item", "line" or "heading"
    for i, line in enumerate([*lines, ""]):
        m = LIST_ITEM.match(line)
        cont = current is not None and line.strip() and not m and len(line) - len(line.lstrip()) > current[2]
        if cont and current is not None:
            current[1] = i
            continue
        if current is not None:
            body = current[3]
            m2 = re.match(r"\**([^:*]{1,60}?)\**:[ \t]+(\S.*)$", body)
            fields = [(m2.group(1).strip(), m2.group(2).strip())] if m2 else []
            if current[4]:
                fields.append(("section", current[4]))
            out.append((current[0], current[1], fields, _item_key(body), None))
            kinds.append("pair" if m2 else "item")
            current = None
        heading = _ATX.match(line) if not m else None
        if heading:
            section = heading.group(1).strip()
            heads.append((i, len(line) - len(line.lstrip("#")), section))
        if m:
            current = [i, i, len(m.group(1)), m.group(2).strip(), section]
        elif line.strip() and i < len(lines):
            out.append((i, i, [], "", None))
            kinds.append("heading" if heading else "line")
    return _settings_headings(lines, out, kinds, heads)


def _settings_headings(
    lines: list[str], out: list[Raw], kinds: list[str], heads: list[tuple[int, int, str]]
) -> list[Raw]:
    """``out`` with each heading whose items all read ``name: value`` (names unique under it, each one also a name
    under another such heading) merged into one record (see :func:`parse_markdown_list`)."""
    under: dict[int, list[int]] = {}  # heading number -> indices of out under it
    starts = [h[0] for h in heads]
    for n, raw in enumerate(out):
        k = bisect.bisect_right(starts, raw[0]) - 1
        if k >= 0 and raw[0] != starts[k]:
            under.setdefault(k, []).append(n)
    paired: dict[int, list[tuple[str, str]]] = {}
    for k, members in under.items():
        items = [n for n in members if kinds[n] in ("pair", "item")]
        pairs = [out[n][2][0] for n in items if kinds[n] == "pair"]
        if items and len(pairs) == len(items) and len({p[0] for p in pairs}) == len(pairs):
            paired[k] = pairs
    merged: dict[int, Raw] = {}  # heading's line -> its record
    dropped: set[int] = set()
    for k in repeated_names(paired):
        pairs = paired[k]
        line, level, text = heads[k]
        outer = next((t for _, lv, t in reversed(heads[:k]) if lv < level), "")
        about = " ".join(
            " ".join(" ".join(lines[out[n][0] : out[n][1] + 1]).split()) for n in under[k] if kinds[n] == "line"
        )
        fields = [*pairs, *([("description", about)] if about else []), *([("section", outer)] if outer else [])]
        last = max(out[n][1] for n in under[k])
        merged[line] = (line, last, fields, text.strip("*_` "), None)
        dropped.update(under[k])
    return [merged.get(raw[0], raw) for n, raw in enumerate(out) if n not in dropped]


_ATX = re.compile(r"#{1,6}[ \t]+(\S.*?)[ \t#]*$")  # a markdown heading


# -- prose ----------------------------------------------------------------------------------------------------
def code_lines(lines: list[str]) -> set[int]:
    """Indexes of the lines inside markdown code fences (``` or ~~~), the fences included."""
    out, fence = set(), ""
    for i, line in enumerate(lines):
        s = line.lstrip()
        if fence:
            out.add(i)
            fence = "" if s.startswith(fence) else fence
        elif s.startswith(("```", "~~~")):
            out.add(i)
            fence = s[:3]
    return out


_RST_BORDER = re.compile(r"[ \t]*=+(?:[ \t]+=+)+[ \t]*$")
_RST_FIELD = re.compile(r":([A-Za-z][^:]{0,60}):[ \t]+(\S.*?)[ \t]*$")


def _rst_cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    """A simple table line's cells: from each column's start to the next's (the last takes the rest)."""
    starts = [a for a, _ in spans]
    return [line[a : starts[c + 1] if c + 1 < len(starts) else None].strip() for c, a in enumerate(starts)]


def _rst_tables(lines: list[str]) -> dict[int, tuple[list[tuple[str, str]], str]]:
    """The lines of reStructuredText simple tables (``====  =====`` borders): each data row's fields, named by
    the header row (a blank header cell by ``colN``, the first column by none: it is the row's key), and its key;
    a border or header line maps to no fields."""
    out: dict[int, tuple[list[tuple[str, str]], str]] = {}
    borders = [i for i, ln in enumerate(lines) if "==" in ln and _RST_BORDER.match(ln)]
    k = 0
    while k + 1 < len(borders):
        a, b = borders[k], borders[k + 1]
        spans = [(m.start(), m.end()) for m in re.finditer(r"=+", lines[a])]
        three = (
            k + 2 < len(borders)
            and 0 < b - a <= 3
            and spans == [(m.start(), m.end()) for m in re.finditer(r"=+", lines[b])]
        )
        head, end = (range(a + 1, b), borders[k + 2]) if three else (range(0), b)
        if end - a > 200 or any(not lines[j].strip() for j in range(b + 1 if three else a + 1, end)):
            k += 1
            continue

        names = [" ".join(c) for c in zip(*(_rst_cells(lines[j], spans) for j in head), strict=False)] if three else []
        names = [n or f"col{c + 1}" for c, n in enumerate(names or [""] * len(spans))]
        for j in range(a, end + 1):
            out[j] = ([], "")
        for j in range(b + 1 if three else a + 1, end):
            row = _rst_cells(lines[j], spans)
            out[j] = ([(names[c], v) for c, v in enumerate(row) if c and v], row[0].rstrip(":"))
        k += 3 if three else 2
    return out


def looks_prose(sample: list[str]) -> float:
    """Share of the text lines (not code, headings, list items, table rows, ``:Field:`` lines) with 6+ words,
    when the text ends sentences (a terminator per 8 lines or more; a log's lines do not end sentences)."""
    code = code_lines(sample)
    code |= set(_rst_tables(sample)) if any("==" in r for r in sample) else set()  # a simple table's lines
    rows = [
        r
        for i, r in enumerate(sample)
        if r.strip()
        and i not in code
        and not (LIST_ITEM.match(r) or _RST_FIELD.match(r))
        and not r.lstrip().startswith(("#", "|"))
    ]
    if not rows:
        return 0.0
    wordy = sum(1 for r in rows if len(r.split()) >= 6)
    ends = sum(len(SENTENCE_END.findall(r)) + bool(re.search(r"[.!?][\"')\]]*$", r.rstrip())) for r in rows)
    return _share(wordy, len(rows)) if ends * 8 >= len(rows) else 0.0


def _sentences(text: str, base: int) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in SENTENCE_END.finditer(text):
        before = text[start : m.start()].rsplit(None, 1)
        word = before[-1].lower().rstrip(".") if before else ""
        if word in ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
            continue
        spans.append((base + start, base + m.start() + 1))
        start = m.end()
    if text[start:].strip():
        spans.append((base + start, base + len(text.rstrip())))
    return spans


def parse_prose(lines: list[str], text: str) -> list[Raw]:
    """One record per sentence of each paragraph; headings and list items are records of their own, and so are
    the rows of a reStructuredText simple table (keyed by the first cell, the others fields named by the header)
    and its ``:Field: value`` lines."""
    out: list[Raw] = []
    offsets, pos = [], 0
    for ln in lines:
        offsets.append(pos)
        pos += len(ln) + 1
    i, n, code = 0, len(lines), code_lines(lines)
    tables = _rst_tables(lines) if any("==" in ln for ln in lines) else {}

    def own_line(k: int) -> bool:  # headings, list items, table rows and code are records of their own
        return (
            k in code
            or k in tables
            or lines[k].lstrip().startswith(("#", "|"))
            or bool(LIST_ITEM.match(lines[k]) or _RST_FIELD.match(lines[k]))
        )

    while i < n:
        s = lines[i].strip()
        if not s:
            i += 1
            continue
        if i in tables:
            fields, key = tables[i]
            if fields:
                out.append((i, i, fields, key, None))
            i += 1
            continue
        if (rst := _RST_FIELD.match(lines[i])) and i not in code:
            out.append((i, i, [(rst.group(1), rst.group(2))], "", None))
            i += 1
            continue
        if own_line(i):
            item = LIST_ITEM.match(lines[i]) if i not in code else None
            out.append((i, i, _line_kv(item.group(2).strip("*_ ")) if item else [], "", None))
            i += 1
            continue
        j = i
        while j + 1 < n and lines[j + 1].strip() and not own_line(j + 1):
            j += 1
        lo, hi = offsets[i], offsets[j] + len(lines[j])
        line = i
        for a, b in _sentences(text[lo:hi], lo):
            while line < j and offsets[line + 1] <= a:
                line += 1
            last = line
            while last < j and offsets[last + 1] < b:
                last += 1
            out.append((line, last, [], "", text[a:b].strip()))
        i = j + 1
    return out
