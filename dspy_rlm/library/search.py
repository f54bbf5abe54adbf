"""Reading and searching the model's inputs in the REPL: ``peek``, ``search``, ``count_matches`` and
``search_context``, over a str, bytes, or nested lists and dicts of them.

Stdlib-only at import time (:func:`dspy_rlm.library.helpers.standalone_source` inlines this file). Every
function works on very large inputs without copying them: no ``str()`` of a string, no ``.lower()`` of the
whole text (case-insensitive search compiles ``re.IGNORECASE`` instead), ``str.find`` loops for literal
patterns, and ``itertools.islice`` for dict ranges.
"""

import itertools
import re
from collections.abc import Iterator
from typing import Any

from dspy_rlm.library.textkit import (  # inlined by standalone_source()
    _CONTAINERS,
    _check_int,
    _type_error,
    find_from_lowered,
    lowered,
)

__all__ = ["SearchHits", "count_matches", "peek", "search", "search_context"]

_MAX_DEPTH = 20


class _Matcher:
    """One pattern, literal or regex, matched against str or bytes without copying the text."""

    def __init__(self, fn: str, pattern: Any, regex: bool, ignore_case: bool):
        if not isinstance(pattern, str):
            raise TypeError(f"{fn}(): pattern must be a str, got {type(pattern).__name__}. Try {fn}(var, str(pattern))")
        if not pattern:
            raise ValueError(f"{fn}(): pattern is empty; give the text or regex to look for")
        self.fn, self.pattern, self.regex, self.ignore_case = fn, pattern, regex, ignore_case
        self.literal = None if (regex or ignore_case) else pattern
        self._rx: dict[type, re.Pattern] = {str: self._compile(pattern)}
        self.anchor = _required_literal(self._rx[str]) if regex else None

    def _compile(self, pattern: str | bytes) -> re.Pattern:
        flags = re.IGNORECASE if self.ignore_case else 0
        try:
            return re.compile(pattern if self.regex else re.escape(pattern), flags | re.MULTILINE)  # type: ignore[type-var]
        except re.error as exc:
            raise ValueError(
                f"{self.fn}(): invalid regex {self.pattern!r}: {exc}. Pass regex=False to look for the literal text"
            ) from exc

    def _for(self, text: str | bytes) -> tuple[Any, re.Pattern]:
        if isinstance(text, str):
            return self.literal, self._rx[str]
        if bytes not in self._rx:
            self._rx[bytes] = self._compile(self.pattern.encode("utf-8"))
        literal = self.literal.encode("utf-8") if self.literal is not None else None
        return literal, self._rx[bytes]

    def spans(self, text: str | bytes) -> Iterator[tuple[int, int]]:
        """Yield (start, end) of each non-overlapping match, in order."""
        literal, rx = self._for(text)
        if literal is not None:
            n = len(literal)
            i = text.find(literal)
            while i != -1:
                yield i, i + n
                i = text.find(literal, i + n)
        elif self.ignore_case and not self.regex and isinstance(text, str) and (low := lowered(text)) is not None:
            yield from (m.span() for m in find_from_lowered(rx, self.pattern, text, low))
        elif self.anchor and isinstance(text, str) and _sparse(text, self.anchor[0]):
            yield from _anchored_spans(text, rx, *self.anchor)
        else:
            for m in rx.finditer(text):
                if m.end() == m.start() and not m.group():
                    continue  # zero-width regex matches carry nothing to show
                yield m.span()

    def count(self, text: str | bytes) -> int:
        literal, _ = self._for(text)
        if literal is not None:
            return text.count(literal)
        return sum(1 for _ in self.spans(text))


def _required_literal(rx: re.Pattern) -> tuple[str, int] | None:
    """A literal (>= 3 chars) every match holds at a fixed offset from its start ("word" in \\bword\\b).

    sre scans char by char (~70 MB/s) unless a pattern starts with a literal; with this anchor, str.find
    jumps between candidates (GB/s) and the regex is only tried there."""
    try:
        import re._parser as sre_parse  # type: ignore[import-not-found]  # Python >= 3.11, no stub
    except ImportError:
        import sre_parse
    try:
        parsed = sre_parse.parse(rx.pattern, rx.flags)
        if parsed.state.flags & re.IGNORECASE:
            return None
        items, best, i = list(parsed.data), None, 0
        while i < len(items):
            j = i
            while j < len(items) and items[j][0] is sre_parse.LITERAL:
                j += 1
            if j - i >= 3 and (best is None or j - i > len(best[0])):
                low, high = sre_parse.SubPattern(parsed.state, items[:i]).getwidth()
                if low != high:
                    break  # variable-width prefix: no fixed offset from here on
                best = ("".join(chr(c) for _, c in items[i:j]), low)
            i = max(j, i + 1)
        return best
    except Exception:  # noqa: BLE001 - a private parser: any surprise means "no shortcut"
        return None


def _sparse(text: str, literal: str) -> bool:
    return text.count(literal, 0, 1_000_000) <= min(len(text), 1_000_000) // 500  # else sre is faster


def _anchored_spans(text: str, rx: re.Pattern, literal: str, offset: int) -> Iterator[tuple[int, int]]:
    """finditer's matches, found by trying rx.match only where the required literal occurs."""
    last, p = 0, text.find(literal, offset)
    while p != -1:
        m = rx.match(text, p - offset)
        if m and m.end() > m.start():
            yield m.span()
            last = m.end()
        p = text.find(literal, max(p + 1, last + offset))


def _leaves(fn: str, var: Any, path: tuple = (), depth: int = 0) -> Iterator[tuple[tuple, Any]]:
    """Yield (path, text) for every str/bytes leaf of a (nested) container; scalars are rendered."""
    if isinstance(var, (str, bytes, bytearray)):
        yield path, var
    elif isinstance(var, (dict, list, tuple)):
        kind, pairs = ("key", var.items()) if isinstance(var, dict) else ("index", enumerate(var))
        for label, value in pairs if depth < _MAX_DEPTH else ():
            yield from _leaves(fn, value, (*path, (kind, label)), depth + 1)
    elif depth == 0:
        raise _type_error(fn, _CONTAINERS, var, f"Try {fn}(str(x), ...)")
    elif var is not None:
        yield path, str(var)  # numbers, objects inside a container: small, rendered for matching


def _location(path: tuple) -> dict[str, Any]:
    if not path:
        return {}
    kind, value = path[0]
    loc: dict[str, Any] = {kind: value}
    if len(path) > 1:
        loc["path"] = [v for _, v in path]
    return loc


def _show(text: str | bytes) -> str:
    return text if isinstance(text, str) else bytes(text).decode("utf-8", errors="replace")


def _iter_hits(fn: str, var: Any, matcher: _Matcher) -> Iterator[tuple[tuple, Any, int, int, int]]:
    """Yield (path, leaf, start, end, line) per match; the line number is counted incrementally."""
    for path, leaf in _leaves(fn, var):
        newline = "\n" if isinstance(leaf, str) else b"\n"
        last, line = 0, 1
        for start, end in matcher.spans(leaf):
            line += leaf.count(newline, last, start)
            last = start
            yield path, leaf, start, end, line


class SearchHits(list):
    """search() results for small models: still a list of dicts, but printed as plain ``line N: text`` rows.

    A row is the whole line holding the match (cut to ~240 characters around it), which a small model can
    copy a value from; the dict repr with offsets and previews is hard for it to read.
    """

    def __init__(self, hits: list[dict[str, Any]], pattern: str):
        super().__init__(hits)
        self.pattern = pattern

    def __repr__(self) -> str:
        if not self:
            return f"no line contains {self.pattern!r}"
        rows = []
        for hit in self:
            where = f"item {hit['index']!r} " if "index" in hit else f"key {hit['key']!r} " if "key" in hit else ""
            rows.append(f"{where}line {hit['line']}: {hit.get('text', hit.get('preview', ''))}")
        return "\n".join(rows)

    __str__ = __repr__


def _line_text(leaf: Any, start: int, end: int, limit: int = 240) -> str:
    """The line of ``leaf`` holding [start, end), cut to ``limit`` characters around the match."""
    newline = "\n" if isinstance(leaf, str) else b"\n"
    lo = leaf.rfind(newline, max(0, start - limit), start) + 1 or max(0, start - limit // 2)
    hi = leaf.find(newline, end, end + limit)
    hi = hi if hi != -1 else min(len(leaf), end + limit)
    if hi - lo > limit:
        lo = max(lo, start - (limit - (end - start)) // 2)
        hi = min(hi, lo + limit)
    return _show(leaf[lo:hi]).strip()


# -- peek / search / count ------------------------------------------------------------------------------
def peek(var: Any, start: int = 0, end: int = 10) -> Any:
    """Slice var[start:end] of a str/bytes/list/tuple, or of a dict's items in key order.

    Args: var (never copied, only the slice is); start and end as in Python slicing.
    Returns: the slice, of var's type; for a dict, a dict of the items in that index range.
    """
    _check_int("peek", start=start, end=end)
    if isinstance(var, (str, bytes, bytearray, list, tuple)):
        return var[start:end]
    if isinstance(var, memoryview):
        return var[start:end].tobytes()
    if isinstance(var, dict):
        lo, hi, _ = slice(start, end).indices(len(var))
        return dict(itertools.islice(var.items(), lo, hi)) if hi > lo else {}
    raise _type_error("peek", "str, list, tuple or dict", var, "Try peek(str(x))")


def search(
    var: Any,
    pattern: str,
    regex: bool = False,
    max_results: int = 10,
    context: int = 80,
    ignore_case: bool = False,
    *,
    _lines: bool = False,
) -> list[dict[str, Any]]:
    """Find text (regex=True: a regex) in a str/list/dict, nested too; list of locations + previews.

    Args:
        var: Where to look. Lists, tuples and dicts are searched item by item, nested ones too.
        pattern: The text to find, or a Python regex when regex=True.
        regex: Treat pattern as a regular expression (``re`` syntax, MULTILINE).
        max_results: Stop after this many matches.
        context: Characters of preview on each side of the match.
        ignore_case: Case-insensitive, no copy (~10x slower, as are regexes with no literal to anchor on).

    Returns:
        One dict per match: ``offset`` (char offset in the string) and ``line`` (1-based), the
        ``match`` and a ``preview`` around it; inside a list ``index``, inside a dict ``key``, and
        ``path`` (all keys/indexes) when nested deeper. E.g. peek(var, r["offset"] - 200, r["offset"] + 200).
    """
    _check_int("search", max_results=max_results, context=context)
    matcher = _Matcher("search", pattern, regex, ignore_case)
    results: list[dict[str, Any]] = []
    seen_lines: set[tuple[Any, int]] = set()
    for path, leaf, start, end, line in _iter_hits("search", var, matcher):
        if len(results) >= max(max_results, 0):
            break
        if _lines:  # a line shown once, however many times it matches (the first match's offset)
            key = (tuple(path), line)
            if key in seen_lines:
                continue
            seen_lines.add(key)
        hit = _location(path)
        hit.update(
            offset=start,
            line=line,
            match=_show(leaf[start : min(end, start + 200)]),
            preview=_show(leaf[max(0, start - context) : end + context]),
        )
        if _lines:
            hit["text"] = _line_text(leaf, start, end)
        results.append(hit)
    return SearchHits(results, pattern) if _lines else results


def count_matches(var: Any, pattern: str, regex: bool = False, ignore_case: bool = False) -> int:
    """Count the matches of text (or regex) in a str/list/dict.

    Args: as for search(). Returns: the number of non-overlapping matches, over all items.
    """
    matcher = _Matcher("count_matches", pattern, regex, ignore_case)
    return sum(matcher.count(leaf) for _, leaf in _leaves("count_matches", var))


def search_context(
    var: Any, pattern: str, window: int = 500, max_results: int = 5, regex: bool = False, ignore_case: bool = False
) -> list[str]:
    """The text around each match: `window` chars each side, overlapping windows merged.

    Args: as for search(); window is the characters kept on each side of a match.
    Returns: up to max_results text windows (str), in order of appearance.
    """
    _check_int("search_context", window=window, max_results=max_results)
    matcher = _Matcher("search_context", pattern, regex, ignore_case)
    spans: list[tuple[tuple, Any, int, int]] = []  # (leaf path, leaf, start, end)
    for path, leaf, start, end, _line in _iter_hits("search_context", var, matcher):
        lo, hi = max(0, start - window), end + window
        if spans and spans[-1][0] == path and lo <= spans[-1][3]:
            spans[-1] = (path, leaf, spans[-1][2], max(hi, spans[-1][3]))
            continue
        if len(spans) >= max(max_results, 0):
            break
        spans.append((path, leaf, lo, hi))
    return [_show(leaf[lo:hi]) for _, leaf, lo, hi in spans]
