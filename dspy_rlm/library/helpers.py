"""The helper functions placed in the REPL namespace, for the model to explore its inputs with:
:func:`make_helpers` binds them (``summarize`` to the sub-LM bridge), :func:`helper_docs` lists them for the
prompt, :func:`standalone_source` gives the whole library as one source.

This module is stdlib-only at import time: its source may be ``exec``'d inside a foreign interpreter
(DSPy's interpreters, a bare subprocess). Optional libraries (``json_repair``, the local embedding model
of the ``embed`` extra) are imported inside the functions that use them, each with a stdlib fallback.
"""

import math
import re
from collections.abc import Callable
from typing import Any

from dspy_rlm.library.items import SIZE_HELPERS  # inlined after lookup.py by standalone_source()
from dspy_rlm.library.search import (  # standalone_source() inlines search.py before this file
    _show,
    count_matches,
    peek,
    search,
    search_context,
)
from dspy_rlm.library.superlatives import STRUCTURE_HELPERS  # inlined, with structure.py, by standalone_source()
from dspy_rlm.library.textkit import (  # standalone_source() inlines this module in place of this import
    _check_int,
    _type_error,
    chunk_text,
    extract_json,
    extract_sections,
)

__all__ = ["HELPER_NAMES", "HELPER_STYLES", "helper_docs", "make_helpers", "standalone_source"]

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
    *SIZE_HELPERS,
)

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
        **SIZE_HELPERS,
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


STANDALONE_MODULES = (
    "textkit",
    "columnformat",
    "formats",
    "whitespacetable",
    "kvformats",
    "settingformats",
    "indexformat",
    "yamltree",
    "yamlstream",
    "profileformat",
    "xmlformat",
    "dtdformat",
    "htmltable",
    "htmlpage",
    "podformat",
    "roffformat",
    "jsonformats",
    "embedded",
    "mdformats",
    "datedformat",
    "rstformat",
    "schemaformats",
    "tomlformat",
    "cssformat",
    "makeformat",
    "keywordformat",
    "localeformat",
    "instructionformat",
    "sqlformat",
    "listformat",
    "directiveformat",
    "literalformat",
    "callformat",
    "braceformat",
    "markedformat",
    "treeformat",
    "diffformat",
    "xresourceformat",
    "shellwords",
    "shellformat",
    "wordmatch",
    "records",
    "structure",
    "tail",
    "results",
    "valueforms",
    "lookup",
    "superlatives",
    "items",
    "search",
    "helpers",
)
"""The modules :func:`standalone_source` joins, in this order: one namespace, so no two may define one name."""


def standalone_source() -> str:
    """The helpers as one stdlib-only source (their modules without package imports), for interpreters
    that cannot import ``dspy_rlm`` (``exec`` it, then call ``make_helpers``)."""
    from pathlib import Path

    here = Path(__file__).parent
    imports = re.compile(r"^from dspy_rlm\.[\w.]+ import (?:\(.*?^\)|[^\n]*)\n", re.MULTILINE | re.DOTALL)
    return "\n\n".join(imports.sub("", (here / f"{n}.py").read_text(encoding="utf-8")) for n in STANDALONE_MODULES)
