"""Past the parsed head of a huge text: :func:`~dspy_rlm.library.structure.detect` parses only the first
:data:`~dspy_rlm.library.structure.MAX_PARSE_CHARS` characters, so the records cover the head alone. Where the
records are lines (a table, JSON lines, a log), a line past the head is still a record: the lines that hold a word
are found by one regex pass and each is parsed as the head's records are (after the head's header and first
records, so the parser sees the same format). Which lookups read the whole text, and which only its head.

Stdlib-only; :func:`dspy_rlm.library.helpers.standalone_source` inlines it after ``structure.py``.
"""

from collections.abc import Callable

from dspy_rlm.library.structure import (  # standalone_source() inlines structure.py before this file
    Record,
    Structure,
    _detect,
    detect,
    line_matches,
)

CONTEXT_RECORDS = 20
"""The head's first records parsed before a line past the head, so the parser sees its format."""
_FOUND: dict = {}  # (id(structure), word) -> (structure, records): held, so the id is never another's
_FOUND_SIZE = 64


def remembered(s: Structure, word: str, find: Callable[[], list[Record]]) -> list[Record]:
    """``find()``, the records of a huge text (structure ``s``) holding ``word``, computed once per text and word:
    a run reads one key with several helpers (``record_of``, ``field_of``, ``key_of``), each a pass over the whole
    text before."""
    hit = _FOUND.get((id(s), word))
    if hit is None or hit[0] is not s:
        while len(_FOUND) >= _FOUND_SIZE:
            _FOUND.pop(next(iter(_FOUND)))
        hit = _FOUND[(id(s), word)] = (s, find())
    return list(hit[1])


def one_line_records(s: Structure) -> bool:
    """Whether each record of ``s`` is one line (as far as its first thousand records show)."""
    return all(r.end_line == r.line for r in s.records[:1000])


def reads_whole(text: str, helper: str) -> bool:
    """Whether the lookup ``helper`` over ``text`` reads all of it: yes unless the text is huge (parsed only in its
    head), where only the streaming helpers do (``search``, ``exists``, and ``count_records`` over records that
    are lines)."""
    s = detect(text)
    if s.parsed_chars is None or helper in ("search", "exists"):
        return True
    return helper == "count_records" and one_line_records(s)


def matching_lines(word: str, text: str, start: int = 0, limit: int = 3) -> list[tuple[int, str]]:
    """``(1-based line number, line)`` of the first ``limit`` lines from offset ``start`` on where ``word``
    matches (as :func:`~dspy_rlm.library.structure.matches`)."""
    out: list[tuple[int, str]] = []
    for line, m in line_matches(word, text, start):
        if out and out[-1][0] == line:
            continue
        a, b = text.rfind("\n", 0, m.start()) + 1, text.find("\n", m.end())
        out.append((line, text[a : b if b >= 0 else len(text)]))
        if len(out) >= limit:
            break
    return out


def records_past_head(text: str, s: Structure, word: str, limit: int = 3) -> list[Record]:
    """The records past the parsed head of ``text`` (structure ``s``) whose line holds ``word``: none unless the
    text was cut and its records are lines."""
    if s.parsed_chars is None or not s.records or not one_line_records(s):
        return []
    first = s.records[0].line
    header_end = 0
    for _ in range(first - 1):  # the lines before the first record: a table's header
        header_end = text.find("\n", header_end) + 1
    context = text[:header_end] + "\n".join(r.text for r in s.records[:CONTEXT_RECORDS])
    out = []
    for number, line in matching_lines(word, text, s.parsed_chars, limit):
        parsed = _detect(f"{context}\n{line}")
        if parsed.kind != s.kind or not parsed.records or parsed.records[-1].text.strip() != line.strip():
            continue
        r = parsed.records[-1]
        out.append(Record(number - first, number, number, r.text, r.fields, r.key))
    return out
