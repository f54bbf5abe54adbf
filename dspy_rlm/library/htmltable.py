"""HTML tables as records: each row of a ``<table>`` (``<tr>`` with ``<td>`` / ``<th>`` cells) is a record, its
fields named by the table's header row (a first row of ``<th>`` cells, else ``col1``, ``col2``...), a cell's
text with its tags left out and its entities decoded, keyed by its first cell. Read as lines, a row was its
markup. Only where five rows or more hold two cells or more, and the rows are a third of the text or more. Tags
are matched with patterns, not parsed: an unclosed ``<tr>`` or ``<td>`` ends at the next one, as browsers read
it. Stdlib only: :func:`dspy_rlm.library.helpers.standalone_source` inlines it."""

import bisect
import re

from dspy_rlm.library.formats import Raw

_HTML_TABLE = re.compile(r"<table\b[^>]*>(.*?)(?:</table\s*>|$)", re.IGNORECASE | re.DOTALL)
_HTML_ROW = re.compile(r"<tr\b[^>]*>(.*?)(?=<tr\b|</table\s*>|$)", re.IGNORECASE | re.DOTALL)
_HTML_CELL = re.compile(r"<(t[dh])\b[^>]*>(.*?)(?=<t[dh]\b|</tr\s*>|$)", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"<[^<>]*>|</t[dh]\s*>", re.IGNORECASE)
_HTML_MIN_ROWS = 5


def _cell_text(markup: str) -> str:
    import html  # here: the standalone source imports at its top only what every helper needs

    return " ".join(html.unescape(_HTML_TAG.sub(" ", markup)).split())


def _rows(text: str) -> list[tuple[int, int, int, list[tuple[str, str]]]]:
    """(table number, start, end, [(cell tag, text)]) of each row with cells of every table, in document order."""
    out = []
    for number, table in enumerate(_HTML_TABLE.finditer(text)):
        for row in _HTML_ROW.finditer(text, table.start(1), table.end(1)):
            cells = [(c.group(1).casefold(), _cell_text(c.group(2))) for c in _HTML_CELL.finditer(row.group(1))]
            if cells:
                out.append((number, row.start(), row.end(), cells))
    return out


def looks_html_tables(text: str) -> bool:
    """Whether ``text`` is mostly tables (their rows a third of its first 2 MB or more) of five rows or more
    with two cells or more: a page of prose with a table here and there stays prose."""
    head = text[: 2 * 10**6]
    if "<t" not in head or not re.search(r"<table\b", head, re.IGNORECASE):
        return False
    rows = [(a, b) for _, a, b, cells in _rows(head) if len(cells) >= 2]
    return len(rows) >= _HTML_MIN_ROWS and sum(b - a for a, b in rows) >= len(head) / 3


def parse_html_tables(text: str) -> tuple[list[Raw], list[str]]:
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out: list[Raw] = []
    names: dict[str, None] = {}
    header: list[str] = []
    last_table = -1
    for table_no, start, end, cells in _rows(text):
        if table_no != last_table:
            last_table, header = table_no, []
            if all(tag == "th" for tag, _ in cells):
                header = [value or f"col{i + 1}" for i, (_, value) in enumerate(cells)]
                names.update(dict.fromkeys(header))
                continue
        named = (header[i] if i < len(header) else f"col{i + 1}" for i in range(len(cells)))
        fields = [(name, value) for name, (_, value) in zip(named, cells) if value]
        if not fields:
            continue
        names.update(dict.fromkeys(n for n, _ in fields))
        a, b = _line_of(starts, start), _line_of(starts, max(start, end - 1))
        out.append((a, b, fields, cells[0][1], None))
    return out, list(names)


def _line_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset) - 1
