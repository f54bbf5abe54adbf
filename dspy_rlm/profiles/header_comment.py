"""A phrase of the question that only a text's opening comment says: how the question describes the document it
asks of ("in Ray Serve's *HAProxy Lua* template"), where the file's first line reads ``-- HAProxy Lua action that
picks a backend``. A record read that lacks such a phrase still answers: the phrase names the whole text. So does one
the heading of the record's indented block says (``! model`` above ``  dellm65   Dell Precision M65 laptop``), the
title of the document's section it sits in (an underlined or ``#`` heading), and, in plain text, the rest of the
sentence a line record is part of."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import structure as st

__all__ = ["names_heading", "names_opening_comment", "sentence_says", "under_heading"]

_MARKS = ("#", "//", "--", ";", "%", "!", "dnl ", "rem ", "REM ")
"""Line comments (not a quote: a CSV row may open with one; not ``*``: a markdown list's item)."""
_BLOCKS = {"/*": "*/", '"""': '"""', "'''": "'''"}
"""Block comments and a module's docstring, by the mark that opens them and the one that closes them."""
_OPENING_LINES = 40
"""The opening comment is read this far at most (a licence above a header is longer, and says no record)."""
_SCANNED = 2_000_000
"""The characters after the opening comment searched for the phrase."""


def _opening_comment(text: str) -> str:
    """The comment lines a text opens with (blank lines among them), up to the first other line."""
    block, close = [], ""  # the mark that ends the block comment or docstring the line is in
    for line in text.split("\n", _OPENING_LINES)[:_OPENING_LINES]:
        s = line.strip()
        if not close and s and not s.startswith((*_MARKS, *_BLOCKS)):
            break
        opened = "" if close else next((b for b in _BLOCKS if s.startswith(b)), "")
        if opened:  # '/* ...' or a module's '"""Token constants.' (one line or more)
            close = _BLOCKS[opened] if _BLOCKS[opened] not in s[len(opened) :] else ""
        elif close and close in s:
            close = ""
        block.append(s)
    return "\n".join(block)


def names_opening_comment(text: str, phrase: str) -> bool:
    """Whether ``phrase`` (two words or more, or a word with a capital past its first letter) is written in the
    text's opening comment and nowhere after it."""
    words = phrase.split()
    if len(words) < 2 and not any(ch.isupper() for ch in phrase[1:]):
        return False  # a common word ("template") is no name of a document
    head = _opening_comment(text)
    if not head or len(text) <= len(head) or phrase.casefold() not in head.casefold():
        return False
    rest = text[len(head) : len(head) + _SCANNED]  # (as names_asked_document, a huge text's head only)
    return re.search(re.escape(phrase), rest, re.IGNORECASE) is None


_HEADED_CHARS = 5_000_000
"""Texts this long at most are split into lines to find a record's heading."""
_HEADING_REACH = 5_000
"""How many lines above an indented record its heading is looked for."""


_CODE = re.compile(r"[{}()\[\]=<>|$\\;]|::|-\*-")
"""Marks of code or markup on a line: no prose sentence runs through it, and it
heads no block of records by its words."""


def _lines(book: Any, var: str) -> list[str]:
    memo = ("lines", var)
    if memo not in book.memo:
        book.memo[memo] = book.texts[var].split("\n")
    return book.memo[memo]  # read only: a copy per record cost a pass over the whole text


def names_heading(book: Any, var: str, line: int, phrase: str) -> bool:
    """Whether the heading of the indented block a record opens at ``line`` (1-based) says ``phrase``: the nearest
    line above it indented less (``! model`` above ``  dellm65   Dell Precision M65 laptop``, "the xkb *model*
    dellm65")."""
    text = book.texts[var]
    if len(text) > _HEADED_CHARS or line < 2:
        return False
    lines = _lines(book, var)
    first = lines[line - 1] if line <= len(lines) else ""
    indent = len(first) - len(first.lstrip())
    if not first.strip() or indent == 0:
        return False
    for above in reversed(lines[max(0, line - 1 - _HEADING_REACH) : line - 1]):
        if above.strip() and len(above) - len(above.lstrip()) < indent:  # a heading, not a block of code's
            return not _CODE.search(above) and st.matches(phrase, above)  # opening ("settings clam {")
    return False


_UNDERLINE = re.compile(r"([=\-~^\"'`*+#])\1{2,}\s*")
_ATX = re.compile(r"#{1,6}\s+(\S.*?)\s*#*\s*")


def under_heading(book: Any, var: str, line: int, phrase: str) -> bool:
    """Whether the title of the section holding the record at ``line`` (1-based) says ``phrase``: the nearest
    heading above it, underlined (reStructuredText, setext) or opened by ``#`` ("which *general option* is described
    as ...": a table's row under ``General Options`` / ``===============``)."""
    text = book.texts[var]
    if len(text) > _HEADED_CHARS or line < 3:
        return False
    lines = _lines(book, var)
    found = _heading_above(lines, min(line, len(lines)) - 1)
    memo = ("first_heading", var)
    if memo not in book.memo:
        book.memo[memo] = _heading_above(lines, 0, first=True)
    if found is None or found[0] == book.memo[memo]:
        return False  # the document's first heading is its title: what it names is the whole text's, no section's
    return st.matches(phrase, found[1])


def _heading_above(lines: list[str], start: int, first: bool = False) -> Any:
    """(index, title) of the nearest heading at or above ``start`` (its title line's index), or with ``first`` the
    index of the text's first heading; None where there is none."""
    out = None
    span = range(1, min(len(lines), _HEADING_REACH)) if first else range(start, max(0, start - _HEADING_REACH), -1)
    for i in span:
        below, title = lines[i].strip(), lines[i - 1].strip()
        if _UNDERLINE.fullmatch(below) and title and not _UNDERLINE.fullmatch(title) and len(below) >= len(title):
            out = (i - 1, title)
        elif (m := _ATX.fullmatch(lines[i].strip())) and not lines[i].startswith(" "):
            out = (i, m.group(1))
        if out is not None:
            return out[0] if first else out
    return None


_PARAGRAPH_LINES = 12
"""How far a sentence is followed up and down from its line (a paragraph's lines, to a blank one)."""


def _prose(line: str) -> bool:
    return bool(line.strip()) and not _CODE.search(line) and len(line.split()) >= 3


def _goes_on(line: str) -> bool:
    """Whether a prose line continues the sentence above it: it opens with a lower-case word."""
    return re.match(r"\s*[a-z]", line) is not None


def sentence_says(book: Any, var: str, line: int, phrase: str) -> bool:
    """Whether the prose sentence that the line ``line`` (1-based) of a plain text is part of says ``phrase``: the
    line ``environment variable POSIXLY_CORRECT is set, then option`` of a docstring's "... or if the / environment
    variable POSIXLY_CORRECT is set, then option / processing *stops* ..." (a line record holds only its own words).
    The sentence runs through lines of prose (no code marks) that go on in lower case, to its full stop."""
    if len(book.texts[var]) > _HEADED_CHARS:
        return False
    lines = _lines(book, var)
    if not 1 <= line <= len(lines) or not _prose(lines[line - 1]):
        return False
    lo = hi = line - 1
    while lo > 0 and line - 1 - lo < _PARAGRAPH_LINES and _goes_on(lines[lo]) and _prose(lines[lo - 1]):
        if re.search(r"[.!?]\s*$", lines[lo - 1]):
            break
        lo -= 1
    while hi + 1 < len(lines) and hi - (line - 1) < _PARAGRAPH_LINES and _prose(lines[hi + 1]):
        if re.search(r"[.!?]\s*$", lines[hi]) or not _goes_on(lines[hi + 1]):
            break
        hi += 1
    return st.matches(phrase, " ".join(x.strip() for x in lines[lo : hi + 1]))
