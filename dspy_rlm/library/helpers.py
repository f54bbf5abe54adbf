"""Helper functions placed in the REPL namespace, for the model to explore its inputs with.

This module is stdlib-only at import time: its source may be ``exec``'d inside a foreign interpreter
(DSPy's interpreters, a bare subprocess). Optional libraries (``json_repair``, the local embedding model
of the ``embed`` extra) are imported inside the functions that use them, each with a stdlib fallback.

Every helper works on very large inputs without copying them: no ``str()`` of a string, no ``.lower()``
of the whole text (case-insensitive search compiles ``re.IGNORECASE`` instead), ``str.find`` loops for
literal patterns, and ``itertools.islice`` for dict ranges.
"""

import itertools
import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from dspy_rlm.library.lookup import STRUCTURE_HELPERS  # inlined, with structure.py, by standalone_source()
from dspy_rlm.library.textkit import (  # standalone_source() inlines this module in place of this import
    _CONTAINERS,
    _check_int,
    _type_error,
    chunk_text,
    extract_json,
    extract_sections,
)

__all__ = ["HELPER_NAMES", "HELPER_STYLES", "SearchHits", "helper_docs", "make_helpers"]

HELPER_STYLES = ("default", "lines")

HELPER_NAMES: tuple[str, ...] = (
    "peek",
    "search",
    "count_matches",
    "search_context",
    "chunk_text",
    "extract_json",
    "extract_sections",
    "summarize",
    "find_relevant",
    *STRUCTURE_HELPERS,
)

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


# -- summarize ----------------------------------------------------------------------------------------
_SUMMARY_CHUNK_CHARS = 8_000
_SUMMARY_MAX_PARTS = 4


def _render_items(var: list | tuple | dict, budget: int) -> str:
    """A bounded text view of a container: evenly spaced items, each cut to a fair share of budget."""
    n = len(var)
    if n == 0:
        return ""
    keep = max(1, min(n, budget // 200))
    step, share = n / keep, max(200, budget // keep)
    wanted = {int(i * step) for i in range(keep)}
    pairs = var.items() if isinstance(var, dict) else enumerate(var)
    lines = []
    for i, (label, item) in enumerate(pairs):
        if i in wanted:
            body = item[:share] if isinstance(item, (str, bytes)) else repr(item)[:share]
            lines.append(f"[{label!r}] {_show(body)}")
    if keep < n:
        lines.append(f"... ({keep} of {n:,} items shown)")
    return "\n".join(lines)


def _excerpt(text: str | bytes, lo: int, hi: int, budget: int, pieces: int = 4) -> str:
    """`pieces` evenly spaced windows of text[lo:hi], `budget` chars in all."""
    each, span = budget // pieces, hi - lo
    starts = [lo + (span - each) * k // max(1, pieces - 1) for k in range(pieces)]
    return "\n[...]\n".join(_show(text[s : s + each]) for s in starts)


def _summarize(
    llm_query: Callable[[str], str] | None, var: Any, max_tokens: int, chunk_chars: int = _SUMMARY_CHUNK_CHARS
) -> str:
    if llm_query is None:
        raise RuntimeError(
            "summarize() needs the sub-LM bridge llm_query, which this REPL does not have. "
            "Read the text with peek()/search_context() instead"
        )
    _check_int("summarize", max_tokens=max_tokens)
    if not isinstance(var, (list, tuple, dict, str, bytes, bytearray)):
        raise _type_error("summarize", "str, bytes, list, tuple or dict", var, "Try summarize(str(x))")
    is_text = isinstance(var, (str, bytes, bytearray))
    text: str | bytes = (
        bytes(var)
        if isinstance(var, bytearray)
        else var
        if isinstance(var, (str, bytes))
        else _render_items(var, _SUMMARY_MAX_PARTS * chunk_chars)
    )
    what = f"{type(var).__name__} of {len(var):,} {'chars' if is_text else 'items'}"
    if not text:
        return ""
    n = len(text)
    ask = f"in at most {max_tokens} tokens. Keep names, numbers and facts; no preamble."
    if n <= chunk_chars:
        return str(llm_query(f"Summarize this {what} {ask}\n\n{_show(text)}"))
    parts = min(_SUMMARY_MAX_PARTS, math.ceil(n / chunk_chars))
    bounds = [n * k // parts for k in range(parts + 1)]
    partials = []
    for k in range(parts):
        lo, hi = bounds[k], bounds[k + 1]
        body = _show(text[lo:hi]) if hi - lo <= chunk_chars else _excerpt(text, lo, hi, chunk_chars)
        partials.append(
            str(
                llm_query(
                    f"This is part {k + 1} of {parts} (chars {lo:,}-{hi:,}) of a {what}. Summarize it {ask}\n\n{body}"
                )
            )
        )
    joined = "\n\n".join(f"Part {k + 1}: {p}" for k, p in enumerate(partials))
    summary = str(
        llm_query(f"Combine these summaries of the {parts} parts of one {what} into a single summary {ask}\n\n{joined}")
    )
    covered = min(n, parts * chunk_chars)
    if covered < n:
        summary = f"[summary of excerpts covering {covered / n:.0%} of the {what}] {summary}"
    return summary


# -- binding --------------------------------------------------------------------------------------------
def make_helpers(
    llm_query: Callable[[str], str] | None = None, style: str = "default"
) -> dict[str, Callable[..., Any]]:
    """The REPL helpers, bound to the sub-LM bridge ``llm_query(prompt) -> str`` (used by summarize).

    Args:
        llm_query: The bridge to the sub-LM; when None, ``summarize`` raises a RuntimeError saying so.
        style: ``"default"`` (search returns a list of dicts) or ``"lines"`` (the small-model profile: the same
            list, printed as ``line N: text`` rows, each hit with the whole line as ``text``).

    Returns: a dict name -> function, in ``HELPER_NAMES`` order.
    """
    cache: dict[str, Any] = {}  # find_relevant's BM25 index of the last str, per REPL

    def summarize(var: Any, max_tokens: int = 500) -> str:
        """Summarize with the sub-LM: 1 call, at most 5 for long inputs.

        Args: var, a str/bytes/list/tuple/dict; max_tokens, a rough length limit for the summary.

        Returns: the summary. Inputs up to 8,000 chars take 1 llm_query call; longer ones are cut into at
            most 4 parts summarized separately, then combined (parts + 1 <= 5 calls). Over 32,000 chars
            each part is read as evenly spaced excerpts, and the summary begins by saying what share it
            covers. Empty input returns "" without a call.
        """
        return _summarize(llm_query, var, max_tokens)

    def find_relevant(
        var: Any, query: str, top_k: int = 5, method: str = "auto", chunk_size: int = 1000
    ) -> list[dict[str, Any]]:
        """Rank chunks of a str (items of a list/dict) by relevance to query; says which method.

        Args:
            var: A str (cut into ~chunk_size-char chunks), or a list/tuple/dict (one unit per item).
            query: What you are looking for, in words.
            top_k: How many results.
            method: "auto" (embeddings when the local model is installed, else BM25), "bm25" or
                "embedding". With "auto" and over 256 units, BM25 picks 32 candidates that the model
                re-ranks ("bm25+embedding"); embedding every unit is slow on CPU (~20 chunks/s).
            chunk_size: Characters per chunk when var is a str.

        Returns:
            Best first, dicts with rank, score, method ("bm25", "embedding" or "bm25+embedding"), the
            location (index; start/end/line for a str; key for a dict) and a 300-char preview. BM25
            returns only units sharing a word with the query. Read one with peek(var, r["start"], r["end"]).
        """
        try:
            from dspy_rlm.library.ranking import rank
        except ImportError as exc:  # this source was exec'd where the dspy_rlm package is absent
            raise RuntimeError(
                "find_relevant() needs the dspy_rlm package, which this interpreter cannot "
                "import; use search() or search_context() instead"
            ) from exc
        return rank(var, query, top_k, method, chunk_size, cache)

    if style not in HELPER_STYLES:
        raise ValueError(f"helper style must be one of {HELPER_STYLES}, got {style!r}")

    def search_lines(
        var: Any, pattern: str, regex: bool = False, max_results: int = 10, context: int = 80, ignore_case: bool = False
    ) -> list[dict[str, Any]]:
        """The lines of var (str/list/dict) containing text (regex=True: a regex); printed as 'line N: text'.

        Args: as for search(); each hit is a dict with line, offset, match, preview and text (the whole line).
        Returns: a list of hits that prints as one 'line N: text' row per hit.
        """
        return search(var, pattern, regex, max_results, context, ignore_case, _lines=True)

    functions: dict[str, Callable[..., Any]] = {
        "peek": peek,
        "search": search_lines if style == "lines" else search,
        "count_matches": count_matches,
        "search_context": search_context,
        "chunk_text": chunk_text,
        "extract_json": extract_json,
        "extract_sections": extract_sections,
        "summarize": summarize,
        "find_relevant": find_relevant,
        **STRUCTURE_HELPERS,
    }
    return {name: functions[name] for name in HELPER_NAMES}


def helper_docs() -> str:
    """One line per helper, ``name(signature) - first docstring line``, for the model's prompt."""
    import inspect

    lines = []
    for name, fn in make_helpers().items():
        params = []
        for p in inspect.signature(fn).parameters.values():
            params.append(p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}")
        lines.append(f"{name}({', '.join(params)}) - {(fn.__doc__ or '').strip().splitlines()[0]}")
    return "\n".join(lines)


def standalone_source() -> str:
    """The helpers as one stdlib-only source (their modules without package imports), for interpreters
    that cannot import ``dspy_rlm`` (``exec`` it, then call ``make_helpers``)."""
    from pathlib import Path

    here = Path(__file__).parent
    imports = re.compile(r"^from dspy_rlm\.[\w.]+ import (?:\(.*?^\)|[^\n]*)\n", re.MULTILINE | re.DOTALL)
    names = ("textkit", "formats", "kvformats", "structure", "lookup", "helpers")
    return "\n\n".join(imports.sub("", (here / f"{n}.py").read_text(encoding="utf-8")) for n in names)
