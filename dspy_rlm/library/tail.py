"""Past the parsed head of a huge text: :func:`~dspy_rlm.library.structure.detect` parses only the first
:data:`~dspy_rlm.library.structure.MAX_PARSE_CHARS` characters, so the records cover the head alone. Where the
records are lines (a table, JSON lines, a log), a line past the head is still a record: the lines that hold a word
are found by one regex pass and each is parsed as the head's records are (after the head's header and first
records, so the parser sees the same format). Which lookups read the whole text, and which only its head.

Stdlib-only; :func:`dspy_rlm.library.helpers.standalone_source` inlines it after ``structure.py``.
"""

import itertools
from collections.abc import Callable, Iterator

from dspy_rlm.library.records import Record, Structure  # inlined before structure.py
from dspy_rlm.library.structure import _detect, detect, line_matches  # inlined before this file
from dspy_rlm.library.textkit import held  # inlined first

CONTEXT_RECORDS = 20
"""The head's first records parsed before a line past the head, so the parser sees its format."""
BATCH_LINES = 5000
"""Lines past the head parsed at once (the parser reads about 5 MB/s)."""
_FOUND: dict = {}  # (id(structure), word) -> (structure, records), by textkit.held
_FOUND_SIZE = 64


def remembered(s: Structure, word: str, find: Callable[[], list[Record]]) -> list[Record]:
    """``find()``, the records of a huge text (structure ``s``) holding ``word``, computed once per text and word:
    a run reads one key with several helpers (``record_of``, ``field_of``, ``key_of``), each a pass over the whole
    text before."""
    return list(held(_FOUND, s, word, find, _FOUND_SIZE))


def one_line_records(s: Structure) -> bool:
    """Whether each record of ``s`` is one line (as far as its first thousand records show)."""
    return all(r.end_line == r.line for r in s.records[:1000])


STREAMED_TESTS = ("part", "contains")
"""The tests of ``count_if`` that hold only where the line holds the value as a word: they stream."""


def reads_whole(text: str, helper: str, args: tuple | None = None) -> bool:
    """Whether the lookup ``helper(text, *args)`` reads all of the text: yes unless the text is huge (parsed only in
    its head), where only the streaming helpers do: ``search``, ``exists``, and over records that are lines
    ``count_records`` with a word, ``count_where`` and ``count_if`` with a ``part`` / ``contains`` test (each reads
    the lines holding its value). ``count_records`` with no word (``args == ()``) counts lines past the head as a
    best effort: no. ``args=None``: the helper as it reads with its usual arguments."""
    s = detect(text)
    if s.parsed_chars is None or helper in ("search", "exists"):
        return True
    given = () if args is None else args
    streamed = (
        (helper == "count_records" and (args is None or bool(args)))
        or helper == "count_where"
        or (helper == "count_if" and len(given) > 1 and given[1] in STREAMED_TESTS)
    )
    return streamed and one_line_records(s)


def lines_holding(word: str, text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """``(1-based line number, line)`` of each line from offset ``start`` on where ``word`` matches (as
    :func:`~dspy_rlm.library.structure.matches`), each once."""
    last = 0
    for line, m in line_matches(word, text, start):
        if line != last:
            a, b = text.rfind("\n", 0, m.start()) + 1, text.find("\n", m.end())
            yield line, text[a : b if b >= 0 else len(text)]
            last = line


def _context(text: str, s: Structure) -> str:
    """The head's header and first records: parsed before lines past the head, so the parser sees their format."""
    header_end = 0
    for _ in range(s.records[0].line - 1):  # the lines before the first record: a table's header
        header_end = text.find("\n", header_end) + 1
    return text[:header_end] + "\n".join(r.text for r in s.records[:CONTEXT_RECORDS])


def _parsed(context: str, s: Structure, rows: list[tuple[int, str]]) -> list[Record]:
    """``rows`` (line number, line) past the head, each parsed as a record of ``s``: all at once when the parser
    reads them as one record a line, else one by one (a line it does not read as a record is left out)."""
    first = s.records[0].line
    parsed = _detect(context + "\n" + "\n".join(line for _, line in rows))
    got = parsed.records[-len(rows) :] if parsed.kind == s.kind and len(parsed.records) >= len(rows) else []
    if len(rows) > 1 and not all(r.text.strip() == line.strip() for r, (_, line) in zip(got, rows, strict=False)):
        return [r for row in rows for r in _parsed(context, s, [row])]
    if len(got) != len(rows) or got[-1].text.strip() != rows[-1][1].strip():
        return []
    return [Record(n - first, n, n, r.text, r.fields, r.key) for r, (n, _) in zip(got, rows, strict=True)]


def records_beyond(text: str, s: Structure, word: str, limit: int | None = None) -> Iterator[Record]:
    """The records past the parsed head of ``text`` (structure ``s``) whose line holds ``word``, parsed
    :data:`BATCH_LINES` at a time: none unless the text was cut and its records are lines."""
    if s.parsed_chars is None or not s.records or not one_line_records(s):
        return
    context, rows = _context(text, s), lines_holding(word, text, s.parsed_chars)
    while batch := list(itertools.islice(rows, BATCH_LINES if limit is None else min(limit, BATCH_LINES))):
        yield from _parsed(context, s, batch)
        if limit is not None and (limit := limit - len(batch)) <= 0:
            return


def records_past_head(text: str, s: Structure, word: str, limit: int = 3) -> list[Record]:
    """The first ``limit`` of :func:`records_beyond` (their lines, at most; a line that is no record is left out)."""
    return list(records_beyond(text, s, word, limit))
