"""An HTML page that is no table read as the text a browser shows, written as markdown: each ``<h1>`` ...
``<h6>`` a ``#`` heading on its own line, each list item a ``- `` line, paragraphs, divisions, table rows and
``<br>`` breaking lines, a cell after a tab, every other tag left out and entities decoded; ``<pre>`` blocks
keep their lines and spaces, whitespace elsewhere runs together as a browser shows it; scripts, styles, the
head and comments are dropped. The markdown is then read as any text is (sections under headings, a ``NAME =
3`` listing as assignments): read as lines, a generated manual page was its markup, each name three times in
anchors. Only where tags are many (twenty or more, on a third of the lines or more, a quarter of them closing
tags) and the page says ``<html``, ``<body``, ``<p`` or ``<h1`` ... ``<h6``. Tags are matched with patterns,
not parsed. Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import bisect
import re
from dataclasses import replace
from typing import Any

_PAGE_MARK = re.compile(r"<(?:html|body|p|h[1-6])\b", re.IGNORECASE)
_PAGE_TAG = re.compile(r"<[A-Za-z/!][^<>]*>")
_PAGE_DROPPED = re.compile(
    r"<(script|style|head)\b[^>]*>.*?</\1\s*>|<!--.*?-->|<\?.*?\?>|<!DOCTYPE[^>]*>", re.IGNORECASE | re.DOTALL
)
_PAGE_PRE = re.compile(r"<pre\b[^>]*>(.*?)(?:</pre\s*>|$)", re.IGNORECASE | re.DOTALL)
_PAGE_HEADING = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)
_PAGE_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_PAGE_ITEM = re.compile(r"<(?:li|dt)\b[^>]*>", re.IGNORECASE)
_PAGE_CELL = re.compile(r"<t[dh]\b[^>]*>", re.IGNORECASE)
_PAGE_BLOCK = re.compile(
    r"</?(?:p|div|tr|table|tbody|thead|ul|ol|dl|dd|blockquote|section|article|header|footer|nav|hr|form|"
    r"caption|figure|center|main|aside|details|summary)\b[^>]*>",
    re.IGNORECASE,
)
_PAGE_MIN_TAGS = 20


def looks_html_page(text: str) -> bool:
    """Whether ``text`` (its first 200,000 characters) is an HTML page: see the module doc."""
    head = text[:200_000]
    if "<" not in head or not _PAGE_MARK.search(head):
        return False
    lines = [ln for ln in head.split("\n") if ln.strip()]
    tagged = sum(1 for ln in lines if "<" in ln or ">" in ln)  # DocBook's tags run over lines: "<A\nNAME=...>"
    tags = _PAGE_TAG.findall(head)
    closed = sum(1 for t in tags if t.startswith("</"))  # "<Multi_key> <p>" of a compose file closes nothing
    return len(tags) >= _PAGE_MIN_TAGS and closed * 4 >= len(tags) and tagged * 3 >= len(lines)


def _page_shown(markup: str) -> str:
    """A stretch of markup outside ``<pre>``: whitespace run together, blocks on lines of their own."""
    s = " ".join(markup.split())
    s = _PAGE_HEADING.sub(lambda m: f"\n\n{'#' * int(m.group(1))} {_page_inline(m.group(2))}\n\n", s)
    s = _PAGE_BREAK.sub("\n", s)
    s = _PAGE_ITEM.sub("\n- ", s)
    s = _PAGE_CELL.sub("\t", s)
    s = _PAGE_BLOCK.sub("\n", s)
    return "\n".join(
        " ".join(ln.split()) if "\t" not in ln else ln.strip()
        for ln in _page_unescaped(_PAGE_TAG.sub("", s)).split("\n")
    )


def _page_inline(markup: str) -> str:
    return " ".join(_page_unescaped(_PAGE_TAG.sub("", markup)).split())


def _page_unescaped(s: str) -> str:
    import html  # here: the standalone source imports at its top only what every helper needs

    return html.unescape(s)


def page_markdown(text: str) -> str:
    """The page as markdown (see the module doc): lines stripped at the right, no more than one blank line in a
    row, no blank line first."""
    text = _PAGE_DROPPED.sub(" ", text)
    out: list[str] = []
    at = 0
    for m in _PAGE_PRE.finditer(text):
        out.append(_page_shown(text[at : m.start()]))
        block = _page_unescaped(_PAGE_TAG.sub("", _PAGE_BREAK.sub("\n", m.group(1))))
        out.append("\n\n" + block.strip("\n") + "\n\n")
        at = m.end()
    out.append(_page_shown(text[at:]))
    lines = [ln.rstrip() for ln in "".join(out).split("\n")]
    kept: list[str] = []
    for ln in lines:
        if ln.strip() or (kept and kept[-1]):
            kept.append(ln if ln.strip() else "")
    return "\n".join(kept).strip("\n") + "\n"


_PAGE_WORD = re.compile(r"[^\W_]\w+")


def page_lines(text: str) -> tuple[str, list[int]]:
    """:func:`page_markdown` of the page, and the page's line (from 1) where each of its lines begins: found by
    its first words in order (a heading's text past its tags), the line before's where none is found."""
    markdown = page_markdown(text)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    at, line_of, last = 0, [], 1
    for ln in markdown.split("\n"):
        for w in _PAGE_WORD.findall(ln)[:3]:
            found = text.find(w, at)
            if found >= 0:
                at, last = found + len(w), bisect.bisect_right(starts, found)
                break
        line_of.append(last)
    return markdown, line_of


def relined(found: Any, line_of: list[int]) -> Any:
    """A structure read off :func:`page_lines`' markdown with its records placed on the page's lines."""
    at = line_of
    return replace(
        found, records=tuple(replace(r, line=at[r.line - 1], end_line=at[r.end_line - 1]) for r in found.records)
    )
