"""Text utilities shared by the REPL helpers and ``find_relevant``'s ranking: argument checks, chunking on
natural breaks, ``extract_json`` and ``extract_sections``.

Stdlib-only at import time, like :mod:`dspy_rlm.library.helpers`: its source is ``exec``'d, before the helpers',
inside foreign interpreters (:func:`dspy_rlm.library.helpers.standalone_source`).
"""

import bisect
import json
import re
from collections.abc import Iterator
from typing import Any

_CONTAINERS = "str, list, tuple or dict"


class _Required:
    def __repr__(self) -> str:
        return "<raise>"


_MISSING = _Required()  # "no default given": extract_json raises instead of returning it


# -- shared machinery ----------------------------------------------------------------------------------
def _type_error(fn: str, accepted: str, var: Any, hint: str) -> TypeError:
    return TypeError(f"{fn}() takes {accepted}; got {type(var).__name__}. {hint}")


def _check_int(fn: str, **values: Any) -> None:
    for name, value in values.items():
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise TypeError(f"{fn}(): {name} must be an int, got {type(value).__name__} ({value!r})")


# -- chunking ---------------------------------------------------------------------------------------
def _break_at(text: str, lo: int, hi: int) -> int:
    """Best cut in text[lo:hi]: after a blank line, else a newline, else whitespace, else at hi."""
    i = text.rfind("\n\n", lo, hi)
    if i != -1:
        return i + 2
    i = text.rfind("\n", lo, hi)
    if i != -1:
        return i + 1
    i = max(text.rfind(" ", lo, hi), text.rfind("\t", lo, hi))
    return i + 1 if i != -1 else hi


def _chunk_spans(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    n, start, spans = len(text), 0, []
    while start < n:
        if n - start <= size:
            spans.append((start, n))
            break
        cut = _break_at(text, start + size // 2, start + size)
        spans.append((start, cut))
        start = cut - overlap
    return spans


def chunk_text(text: str, size: int = 4000, overlap: int | None = None) -> list[str]:
    """Split a str into chunks <= size chars at paragraph/line/space breaks.

    Args:
        text: The text to split.
        size: Most characters per chunk. A cut is looked for in the second half of each chunk; only a
            run with no whitespace at all is cut mid-word.
        overlap: Characters each chunk repeats from the end of the previous one (< size // 2), so
            chunks[0] + chunks[1][overlap:] + ... == text. Default: min(200, size // 4).

    Returns:
        The list of chunks ([] for an empty text).
    """
    if not isinstance(text, str):
        hint = (
            "For a list, group items yourself: [x[i:i+100] for i in range(0, len(x), 100)]"
            if isinstance(text, (list, tuple, dict))
            else "Try chunk_text(str(x))"
        )
        raise _type_error("chunk_text", "str", text, hint)
    _check_int("chunk_text", size=size, overlap=overlap)
    if size < 1:
        raise ValueError(f"chunk_text(): size must be >= 1, got {size}")
    overlap = min(200, size // 4) if overlap is None else overlap
    if overlap < 0 or (overlap and overlap >= size // 2):
        raise ValueError(f"chunk_text(): overlap must be >= 0 and < size // 2 ({size // 2}), got {overlap}")
    return [text[s:e] for s, e in _chunk_spans(text, size, overlap)]


# -- JSON -------------------------------------------------------------------------------------------
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n(.*?)```", re.DOTALL)
_OPEN = re.compile(r"[\[{]")
_STRUCT = re.compile(r"[\"'{}\[\]\\]")
_JSON_WORDS = re.compile(r"(\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*')|\b(true|false|null)\b")
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def _balanced_end(text: str, start: int) -> int | None:
    """Index after the bracket closing the one at text[start] (quote-aware), or None."""
    depth, quote, skip = 0, None, -1
    for m in _STRUCT.finditer(text, start):
        i, ch = m.start(), m.group()
        if i < skip:
            continue  # the character after a backslash inside a string
        if quote:
            if ch == "\\":
                skip = i + 2
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _repair(candidate: str) -> Any:
    """Parse near-JSON: json_repair when installed, else trailing commas / Python-style literals."""
    try:
        import json_repair  # optional
    except ImportError:
        json_repair = None  # type: ignore[assignment]
    if json_repair is not None:
        try:
            value = json_repair.loads(candidate)
        except Exception:  # noqa: BLE001 - a repair failure only means "not this candidate"
            value = None
        return value if isinstance(value, (dict, list)) else _MISSING
    try:
        return json.loads(_TRAILING_COMMA.sub(r"\1", candidate))
    except ValueError:
        pass
    import ast

    words = {"true": "True", "false": "False", "null": "None"}
    python = _JSON_WORDS.sub(lambda m: m.group(1) or words[m.group(2)], candidate)
    try:
        value = ast.literal_eval(python)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return _MISSING
    return value if isinstance(value, (dict, list)) else _MISSING


def _parse_at(text: str, start: int) -> Any:
    try:
        return json.JSONDecoder().raw_decode(text, start)[0]
    except ValueError:
        pass
    end = _balanced_end(text, start)
    return _repair(text[start:end] if end else text[start : start + 1_000_000])


def extract_json(text: str, default: Any = _MISSING) -> Any:
    """Parse the first JSON object/array in text (```json fences first), repairing slips.

    Handles prose around the JSON, code fences, trailing commas, single quotes and Python literals.

    Args:
        text: Text holding JSON, e.g. an llm_query answer.
        default: Returned when no JSON is found; without it a ValueError is raised.

    Returns:
        The parsed dict or list.
    """
    if not isinstance(text, str):
        hint = "It is already parsed." if isinstance(text, (dict, list)) else "Try extract_json(str(x))"
        raise _type_error("extract_json", "str", text, hint)
    blocks = [m.group(2) for m in _FENCE.finditer(text)]
    for source in (*blocks, text):
        for attempt, m in enumerate(_OPEN.finditer(source)):
            if attempt >= 20:
                break
            value = _parse_at(source, m.start())
            if value is not _MISSING and isinstance(value, (dict, list)):
                return value
    if default is not _MISSING:
        return default
    raise ValueError(
        f"extract_json() found no JSON object or array in the text ({len(text):,} chars, "
        f"starting {text[:60]!r}). Check the text with peek() or pass default=None"
    )


# -- markdown sections ----------------------------------------------------------------------------------
_HEADER = re.compile(
    r"^ {0,3}(?P<hashes>#{1,6})(?:[ \t]+(?P<atx>[^\n]*?))?(?:[ \t]+#+)?[ \t]*$"
    r"|^ {0,3}(?P<setext>[^\s#>\-=|][^\n]*)\n {0,3}(?P<under>={3,}|-{3,})[ \t]*$",
    re.MULTILINE,
)
_CODE_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n.*?^ {0,3}\1[ \t]*$", re.MULTILINE | re.DOTALL)


def _headers(text: str) -> list[tuple[int, int, int, str]]:
    """(offset, content start, level, title) of each header outside fenced code blocks."""
    fences = [m.span() for m in _CODE_FENCE.finditer(text)]
    starts = [s for s, _ in fences]
    out = []
    for m in _HEADER.finditer(text):
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0 and m.start() < fences[i][1]:
            continue  # a "# comment" inside a code block is not a header
        if m.group("hashes"):
            level, title = len(m.group("hashes")), (m.group("atx") or "").strip()
        else:
            level, title = (1 if m.group("under")[0] == "=" else 2), m.group("setext").strip()
        out.append((m.start(), m.end(), level, title))
    return out


def extract_sections(text: str, level: int | None = None) -> list[dict[str, Any]]:
    """Split markdown by headers: list of {title, level, content, path, offset, line}.

    Args:
        text: Markdown text.
        level: Keep only sections of this header level (1-6); None keeps all, plus any text before
            the first header as a level-0 section titled "".

    Returns:
        A list of {"title", "level", "content", "path", "offset", "line"} in document order. A
        section's content runs to the next header of the same or a higher level, so it includes its
        subsections; path is the titles from the top-level ancestor down to this section.
    """
    if not isinstance(text, str):
        raise _type_error("extract_sections", "str", text, "Try extract_sections(str(x))")
    _check_int("extract_sections", level=level)
    headers = _headers(text)
    sections: list[dict[str, Any]] = []
    first = headers[0][0] if headers else len(text)
    if level is None and text[:first].strip():
        sections.append({"title": "", "level": 0, "content": text[:first].strip(), "path": [], "offset": 0, "line": 1})
    stack: list[tuple[int, str]] = []
    line, last = 1, 0
    for n, (offset, body, lvl, title) in enumerate(headers):
        line += text.count("\n", last, offset)
        last = offset
        while stack and stack[-1][0] >= lvl:
            stack.pop()
        stack.append((lvl, title))
        if level is not None and lvl != level:
            continue
        end = next((h[0] for h in headers[n + 1 :] if h[2] <= lvl), len(text))
        sections.append(
            {
                "title": title,
                "level": lvl,
                "content": text[body:end].strip(),
                "path": [t for _, t in stack],
                "offset": offset,
                "line": line,
            }
        )
    return sections


def held(cache: dict, owner: Any, key: Any, compute: Any, size: int) -> Any:
    """``compute()``, memoized in ``cache`` under ``(id(owner), key)`` for as long as ``owner`` is the object held
    with it (holding it, its id is never another object's); at most ``size`` entries, the oldest dropped first."""
    hit = cache.get((id(owner), key))
    if hit is None or hit[0] is not owner:
        while len(cache) >= size:
            cache.pop(next(iter(cache)))
        hit = cache[(id(owner), key)] = (owner, compute())
    return hit[1]


_LOWERED: dict = {}  # (id(a huge text), None) -> (the text, its lower case): one, the last searched
LOWERED_CHARS = 8_000_000
"""A text searched case-blind past this many characters is lowered once, and a search finds its candidates with
``str.find`` before a regex tests each: a case-blind regex pass over 190 MB took 1.4 s, and one question over a
huge text searches ten words."""


def lowered(text: str, start: int = 0) -> str | None:
    """``text.lower()``, computed once for the last huge text searched; ``None`` for a search of fewer than
    :data:`LOWERED_CHARS` characters, or a text whose lower case has another length ("İ": offsets would differ)."""
    if len(text) - start < LOWERED_CHARS:
        return None
    low = held(_LOWERED, text, None, text.lower, 1)
    return low if len(low) == len(text) else None


def find_from_lowered(rx: re.Pattern, lead: str, text: str, low: str, start: int = 0) -> Iterator[re.Match]:
    """``rx.finditer(text, start)`` where each match starts with ``lead`` (any case): the lowered text ``low``
    finds the candidates, ``rx.match`` tests each."""
    if len(lead.lower()) != len(lead):  # "İ" lowers to two characters, yet the regex matches one: no shortcut
        yield from rx.finditer(text, start)
        return
    lead = lead.lower()
    at = low.find(lead, start)
    while at >= 0:
        m = rx.match(text, at)
        if m is not None:
            yield m
        at = low.find(lead, m.end() if m is not None and m.end() > at else at + 1)


def split_outside(text: str, sep: str = ",", brackets: str = "()[]{}") -> list[str]:
    """``text`` split at ``sep`` outside quotes and ``brackets`` (pairs: opening, closing), parts stripped (a
    call's arguments)."""
    out: list[str] = []
    cur: list[str] = []
    depth, quote, escaped = 0, "", False
    for ch in text:
        if quote:  # a backslash inside quotes escapes the next character ('\'' in a grammar: one quote)
            quote = "" if ch == quote and not escaped else quote
            escaped = ch == "\\" and not escaped
        elif ch in "\"'":
            quote = ch
        elif ch in brackets[::2]:
            depth += 1
        elif ch in brackets[1::2]:
            depth -= 1
        elif ch == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    last = "".join(cur).strip()
    return [*out, last] if out or last else []
