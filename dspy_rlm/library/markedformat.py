"""Marked stanzas: a marker line opening each record, ``Key: value`` header lines right under it, then a free-text
body (systemd's journal message catalog, ``-- <id>`` over ``Subject:`` / ``Defined-By:``; ``git log``'s ``commit
<sha>`` over ``Author:`` / ``Date:``; an mbox's ``From `` lines over a message's headers). One record per marker
line [the first word after the marker]; that word is a field named by the marker (``commit``), or ``id`` for a
marker of punctuation (``--``); the headers are fields (an indented line right under one continues it), and the body
is the field ``text``. Lines before the first marker (a file's opening comments) are no record. Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import re
from collections import Counter

from dspy_rlm.library.formats import STANZA_KEY, Raw

_MARKED = re.compile(r"(\S+)[ \t]+(\S+)")


def _header(line: str) -> re.Match[str] | None:
    """A ``Key: value`` header line, unindented."""
    return STANZA_KEY.match(line.rstrip()) if line[:1] not in (" ", "\t") else None


def _marker_word(lines: list[str], i: int) -> str | None:
    """The first word of line ``i`` where the line opens a record: unindented, no header itself, a word after its
    first, and a header of one word and a value on the next line."""
    line = lines[i]
    if line[:1] in ("", " ", "\t") or i + 1 >= len(lines) or _header(line):
        return None
    under = _header(lines[i + 1])  # "Subject: Unit started", not a block's "class Params:" under a decorator
    if not under or " " in under.group(1) or not (under.group(2) or "").strip():
        return None
    m = _MARKED.match(line)
    return m.group(1) if m else None


def _marker(sample: list[str]) -> str:
    """The word that opens three or more records, the most of any; else ""."""
    words = Counter(w for i in range(len(sample)) if (w := _marker_word(sample, i)))
    if not words:
        return ""
    word, n = words.most_common(1)[0]
    return word if n >= 3 else ""


def looks_marked(sample: list[str]) -> float:
    """The share of the lines opening with the marker word that open a record, where three or more do and the
    records hold most of the sample's header lines; 0 where the marker opens a third of the lines or more (a
    column of a table, not a record's mark)."""
    word = _marker(sample)
    if not word:
        return 0.0
    opening = [i for i, ln in enumerate(sample) if ln.split(None, 1)[:1] == [word]]
    marked = [i for i in opening if _marker_word(sample, i) == word]
    nonblank = sum(1 for ln in sample if ln.strip())
    headers = sum(1 for ln in sample if _header(ln))
    under = sum(len(_headers_under(sample, i)) for i in marked)
    if len(opening) * 3 >= nonblank or under * 2 < headers:
        return 0.0
    return len(marked) / len(opening)


def _headers_under(lines: list[str], a: int, end: int | None = None) -> list[tuple[str, str, int]]:
    """(name, value, last line) of the header lines under the marker line ``a``, continuations joined."""
    out: list[tuple[str, str, int]] = []
    i, stop = a + 1, len(lines) if end is None else end
    while i < stop:
        m = _header(lines[i])
        if m:
            out.append((m.group(1), (m.group(2) or "").strip(), i))
        elif out and lines[i][:1] in (" ", "\t") and lines[i].strip():
            name, value, _ = out[-1]
            out[-1] = (name, f"{value} {lines[i].strip()}".strip(), i)
        else:
            break
        i += 1
    return out


def parse_marked(lines: list[str]) -> tuple[list[Raw], list[str]]:
    word = _marker(lines[:2000])
    starts = [i for i in range(len(lines)) if _marker_word(lines, i) == word]
    out: list[Raw] = []
    names: dict[str, None] = {}
    mark = word if word.isalpha() else "id"
    for n, a in enumerate(starts):
        b = (starts[n + 1] if n + 1 < len(starts) else len(lines)) - 1
        while b > a and not lines[b].strip():
            b -= 1
        key = lines[a].split()[1]
        headers = _headers_under(lines, a, b + 1)
        fields = [(mark, key)] + [(name, value) for name, value, _ in headers]
        body = "\n".join(ln.strip() for ln in lines[(headers[-1][2] if headers else a) + 1 : b + 1]).strip()
        if body:
            fields.append(("text", body))
        names.update(dict.fromkeys(f for f, _ in fields))
        out.append((a, b, fields, key, None))
    return out, list(names)
