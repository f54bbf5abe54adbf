"""Changelogs as records behind :func:`dspy_rlm.library.structure.detect`: one record per release heading that
carries a date (``0.6.1 / 2016-05-02`` underlined, ``## [1.2.0] - 2024-01-02``, ``Revision 0.6.1, released
10-09-2024``, ``Version 1.9.47 - November 2016`` underlined, or a plain dated line over a list: ``jetty-12.0.20 -
29 April 2025`` then ``+ 13033 ...``), keyed by its version, with its date and its list items (``changelog``: one
``- item`` line per bullet, however many lines it spans, those under its ``### Fixes`` too; where it lists none, its
first paragraph as ``body``). Split from :mod:`dspy_rlm.library.mdformats`. Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it after that module."""

import re
from collections import Counter

from dspy_rlm.library.formats import Raw
from dspy_rlm.library.mdformats import _ATX, LIST_ITEM, code_lines

_UNDERLINE = re.compile(r"[ \t]*(?:={3,}|-{3,})[ \t]*$")
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"
_MONTH_NAME = (  # a month's whole name or its abbreviation, no other word ("Marketing 2016", "Decimal 1000")
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?"
    r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_HEADING_DATE = re.compile(
    rf"\d{{4}}-\d{{2}}-\d{{2}}|\d{{4}}/\d{{2}}/\d{{2}}|\b{_MONTH}\.? \d{{1,2}},? \d{{4}}|\b\d{{1,2}} {_MONTH} \d{{4}}"
    r"|(?<![\d.])\d{1,2}([-./])\d{1,2}\1\d{4}\b"  # day first or month first: "10-09-2024", "3/14/2019", "1.2.2020"
    rf"|\b\d{{1,2}}-(?i:{_MONTH})-\d{{4}}\b"  # "19-SEP-2006", "01-Oct-2008"
    rf"|\b{_MONTH_NAME}\.? (?:19|20)\d\d\b"  # a month alone: "Version 1.9.47 - November 2016"
)
_VERSION = re.compile(r"v?\d+(?:\.\d+)+[\w.+-]*")
_HEADING_JOINERS = " \t/-\u2013\u2014:,()[]"


def _headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first line, last line, text) of each heading outside fenced code: ``#`` headings and underlined ones.

    By lines, not by offsets as :func:`dspy_rlm.library.textkit.extract_sections` finds headers: a record needs
    its line numbers, and an underline here heads its whole paragraph ("What's New in X" / "Released on D")."""
    out = []
    code = code_lines(lines)
    for i, line in enumerate(lines):
        if i in code:  # a "# comment" or "---" in a code block is no heading
            continue
        m = _ATX.match(line)
        if m:
            out.append((i, i, m.group(1)))
        elif i + 1 < len(lines) and line.strip() and _UNDERLINE.match(lines[i + 1]) and not LIST_ITEM.match(line):
            first = i  # an underline heads the paragraph it closes ("What's New in X" / "Released on D")
            while first > 0 and lines[first - 1].strip() and not _UNDERLINE.match(lines[first - 1]):
                first -= 1
            out.append((first, i + 1, " ".join(ln.strip() for ln in lines[first : i + 1])))
        else:
            continue
        date = _date_line(lines, out[-1][1] + 1, code)
        if date and not _HEADING_DATE.search(out[-1][2]):  # "What's New in IDLE 1.2?" / "===" / "*Release date: D*"
            out[-1] = (*out[-1][:2], f"{out[-1][2]} {date}")
    return out


def _date_line(lines: list[str], i: int, code: set[int]) -> str | None:
    """The date of the line right under a heading (past one blank line) where it opens by giving one ("*Release
    date: 19-SEP-2006*", "Released 2024-01-02 ..."): the heading's date, as if written in it."""
    j = next((j for j in range(i, min(len(lines), i + 2)) if lines[j].strip()), None)
    if j is None or j in code or LIST_ITEM.match(lines[j]) or _ATX.match(lines[j]):
        return None
    if j + 1 < len(lines) and _UNDERLINE.match(lines[j + 1]):  # the next heading ("v2.2.0 (2025-03-14)" / "===")
        return None
    m = _HEADING_DATE.search(lines[j][:40])
    return m.group(0) if m else None


def _level(lines: list[str], head: tuple[int, int, str]) -> int:
    """A heading's level: its ``#`` count; an underline of ``=`` 1, of ``-`` 2."""
    line = lines[head[0]]
    if _ATX.match(line):
        return len(line) - len(line.lstrip("#"))
    return 1 if lines[head[1]].strip().startswith("=") else 2


def _line_heads(lines: list[str]) -> list[tuple[int, int, str]]:
    """Plain lines heading lists ("jetty-12.0.20 - 29 April 2025" over ``+ 13033 ...`` items): a short dated line
    at the margin, no list item itself, whose next line is a list item (or, a release of none, another such
    line); at least three of them, and most over a list (every line of a log is dated: it heads none)."""
    dated = [
        i
        for i, line in enumerate(lines)
        if line[:1].strip() and len(line) <= 80 and len(line.split()) <= 8
        if not LIST_ITEM.match(line) and _HEADING_DATE.search(line)
    ]
    out, heads, listed = [], set(dated), 0
    for i in dated:  # its items next, past blank lines (or, a release of none, the next heading)
        j = next((j for j in range(i + 1, min(len(lines), i + 4)) if lines[j].strip()), None)
        if j is not None and (LIST_ITEM.match(lines[j]) or j in heads):
            out.append((i, i, lines[i].strip()))
            listed += bool(LIST_ITEM.match(lines[j]))
    return out if listed >= 3 and listed * 2 >= len(out) else []  # a log's dated lines head no lists


def _dated_heads(lines: list[str]) -> tuple[list[tuple[int, int, str]], int]:
    """The headings down to the level of the dated ones (a release's ``### Fixes`` are part of its body), and
    how many of them carry a date; where no heading carries one, the dated lines heading lists."""
    heads = _headings(lines)
    levels = [_level(lines, h) for h in heads]
    dated = [lv for h, lv in zip(heads, levels, strict=True) if _HEADING_DATE.search(h[2])]
    if not dated and (plain := _line_heads(lines)):
        return plain, len(plain)
    if not dated:
        return heads, 0
    deepest = max(dated)
    kept = [h for h, lv in zip(heads, levels, strict=True) if lv <= deepest]
    return kept, sum(1 for h in kept if _HEADING_DATE.search(h[2]))


def looks_dated_sections(sample: list[str]) -> float:
    """1.0 where two headings or more carry a date and at least half of them do (of those at the dated
    headings' level or above)."""
    heads, dated = _dated_heads(sample)
    return 1.0 if dated >= 2 and dated * 2 >= len(heads) else 0.0


CHANGES_FIELD = "changelog"
"""The field holding a release's list items, one ``- item`` line each: "how many changes are listed for 2.1.0"
counts them (``items_of``), "which release has the most changes" ranks them (``most_items``). Named so that a
question's "changes" (a word it begins) names it for a count, and its verb "changed" does not ("which release
changed X?" asks for a key, not this field's value)."""


PROSE_FIELD = "body"
"""The field holding a release's sentences where it lists no items ("This release is based on Go 1.6.2."): read
with the release, so that no other field (its date) stands for all the record says."""
_PROSE_CHARS = 2000


def _prose(lines: list[str], first: int, last: int, code: set[int]) -> str:
    """The first paragraph of ``lines[first : last + 1]`` outside fenced code, its lines joined by spaces (at most
    :data:`_PROSE_CHARS`); "" where it holds none, or an underlined heading of its own."""
    out: list[str] = []
    for i in range(first, last + 1):
        line = lines[i].strip()
        if i in code or _UNDERLINE.match(lines[i]) or (i + 1 <= last and _UNDERLINE.match(lines[i + 1])):
            break
        if not line:
            if out:
                break
            continue
        out.append(line)
    return " ".join(out)[:_PROSE_CHARS]


def _items(lines: list[str], first: int, last: int, code: set[int]) -> list[str]:
    """The list items of ``lines[first : last + 1]`` outside fenced code, each its marker and its text with the
    lines it goes on over (indented under it, or the next lines before a blank) joined by spaces; a nested item
    is an item of its own. A paragraph, a heading or an underline ends an item."""
    out: list[list[str]] = []
    indent, blank = -1, True  # the open item's indent (-1: none open), and whether a blank line came after it
    for i in range(first, last + 1):
        line = lines[i]
        m = LIST_ITEM.match(line) if i not in code else None
        if m:
            marker = line[len(m.group(1)) :].split(None, 1)[0]
            out.append([marker, m.group(2).strip()])
            indent, blank = len(m.group(1)), False
        elif not line.strip():
            blank = True
        elif indent >= 0 and i not in code and _item_goes_on(lines, i, indent, blank):
            out[-1].append(line.strip())
        else:
            indent = -1
    return [" ".join(parts) for parts in out]


def _item_goes_on(lines: list[str], i: int, indent: int, blank: bool) -> bool:
    """Whether line ``i`` goes on with the item above it: indented deeper than its marker, or, no blank line
    between, no heading (``### Fixes``, an underlined one) or underline of its own."""
    line = lines[i]
    if len(line) - len(line.lstrip()) > indent:
        return True
    underlined = i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1]) is not None
    return not blank and not (_ATX.match(line) or _UNDERLINE.match(line) or underlined)


def parse_dated_sections(lines: list[str]) -> list[Raw]:
    """One record per heading at the dated headings' level or above and the lines under it (its subheadings
    too): key the heading without its date and asides in brackets (``0.6.1``), field ``date`` where it has one;
    a release's (dated, or keyed by a version) also :data:`CHANGES_FIELD`, its list items, where it lists any."""
    heads, _ = _dated_heads(lines)
    code = code_lines(lines)
    out: list[Raw] = []
    for n, (a, b, text) in enumerate(heads):
        end = heads[n + 1][0] - 1 if n + 1 < len(heads) else len(lines) - 1
        while end > b and not lines[end].strip():
            end -= 1
        m = _HEADING_DATE.search(text)
        key = (text[: m.start()] + " " + text[m.end() :]) if m else text
        key = re.sub(r"\([^()]*\)", " ", key).strip(_HEADING_JOINERS)  # an aside is no name: "(since 3.8.0)"
        versions = [w for w in (w.strip(",;:[]\"'?") for w in key.split()) if _VERSION.fullmatch(w)]
        whole = " ".join(key.split()) or text
        key = versions[0] if len(versions) == 1 else key  # "Revision 0.6.1, released": its version names it
        fields = [("date", m.group(0))] if m else []
        release = bool(m or _VERSION.search(key))
        listed = _items(lines, b + 1, end, code) if release else []
        fields += [(CHANGES_FIELD, "\n".join(listed))] if listed else []
        prose = _prose(lines, b + 1, end, code) if release and not listed else ""
        fields += [(PROSE_FIELD, prose)] if prose else []
        out.append((a, end, fields, " ".join(key.split()) or text, whole))
    keys = Counter(r[3] for r in out)  # a version two headings share ("IDLEfork 0.9 Alpha 1", "... Alpha 2"): whole
    return [(a, end, fields, whole.rstrip("?") if keys[key] > 1 else key, None) for a, end, fields, key, whole in out]
