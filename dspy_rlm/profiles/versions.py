"""The versions a requirement states for a name (``yarl<2.0,>=1.25.1``, ``pycodestyle==2.4.0``, ``"lodash":
"^4.17.21"``): "which version of X is pinned", "the minimum version of X required". A bound asked of a version is
no ranking of records: :func:`bounds_version` tells the move book so."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.profiles.candidates import Candidate

__all__ = ["bounds_version", "pinned", "requirement_first", "stated_versions", "version_unread"]

_VERSION_ASKED = re.compile(r"\b(?:versions?|pinned|pins?)\b", re.I)
_LOWER = re.compile(r"\b(?:minimum|min|at least|lowest|oldest|earliest|least|floor)\b", re.I)
_UPPER = re.compile(r"\b(?:maximum|max|at most|highest|newest|latest|below|under|upper|ceiling|less than)\b", re.I)
_OP = r"(?:===?|~=|>=|<=|!=|>|<|\^|~|@|=)"
_CLAUSE = re.compile(rf"({_OP})\s*v?(\d[\w.+*-]*)")
_OPS = {
    "lower": (">=", "~=", "^", "~", "==", "===", "="),
    "upper": ("<", "<="),
    "pinned": ("==", "===", "~=", ">=", "<=", "=", "@"),
}


def _name(key: Any) -> str | None:
    text = key.text if key is not None and not key.is_key else ""  # ("version = 0.8" is no requirement of "version")
    return text if re.fullmatch(r"[\w.-]+", text) and not _VERSION_ASKED.fullmatch(text) else None


def _spec(name: str) -> re.Pattern[str]:
    """A requirement of ``name``: the name, then its specifier clauses (``<2.0,>=1.25.1``, ``: "^4.1"``)."""
    clause = rf"{_OP}\s*v?\d[\w.+*-]*"
    quoted = r"['\"]?\s*(?::\s*['\"])?"  # "lodash": "^4.17.21"
    return re.compile(rf"(?<![\w.-]){re.escape(name)}{quoted}\s*\(?\s*((?:{clause}\s*,?\s*)+)", re.I)


def _bound(question: str) -> str:
    """Which bound the question asks of a version: ``lower`` ("the minimum version"), ``upper`` or ``pinned``."""
    lower, upper = _LOWER.search(question), _UPPER.search(question)
    return "lower" if lower and not upper else "upper" if upper and not lower else "pinned"


def stated_versions(book: Any) -> set[str]:
    """Where the question asks a version of a name it says and a requirement of the data states one for that name
    (``yarl<2.0,>=1.25.1``): the versions those requirements state, of the bound asked (memoized); else empty."""
    if ("versions",) not in book.memo:
        found: set[str] = set()
        if _VERSION_ASKED.search(book.text_q):
            ops = _OPS[_bound(book.text_q)]
            names = {n for ks in book.keys.values() for k in ks if (n := _name(k))}
            for rx, t in ((_spec(n), t) for n in names for t in book.texts.values()):
                found |= {v for m in rx.finditer(t) for op, v in _CLAUSE.findall(m.group(1)) if op in ops}
        book.memo[("versions",)] = found
    return set(book.memo[("versions",)])


def requirement_first(book: Any, keys: list[Any]) -> list[Any]:
    """The key phrases, those naming a requirement the data states first, where the question asks a version of one
    ("the minimum yarl version that aiohttp 3.14.5 requires": yarl's, not the package's own version)."""
    if not stated_versions(book):
        return keys
    named = {id(k) for k in keys if (n := _name(k)) and any(_spec(n).search(t) for t in book.texts.values())}
    return sorted(keys, key=lambda k: id(k) not in named)


def bounds_version(book: Any) -> bool:
    """Whether the question asks a bound of a version ("the minimum yarl version required") that a requirement of
    the data states for a name it says: a reading of that requirement, no ranking of records."""
    return _bound(book.text_q) != "pinned" and bool(stated_versions(book))


def version_unread(book: Any, move: Any, key: Any, value: Any) -> str | None:
    """A value doubted where the question asks the version a requirement states for a name it says (the record's
    ``Requires-Python`` is no yarl version): any value but such a version."""
    versions = stated_versions(book)
    return "not the version the requirement states" if versions and str(value) not in versions else None


def pinned(book: Any, key: Any, values: list[str], why: str) -> list[Candidate]:
    """ "Which version of pycodestyle is pinned?": the version a requirement among ``values`` (a record's, a field's)
    writes after the key's
    name (``pycodestyle==2.4.0``, ``six>=1.16``, ``flake8 = 7.1``); "the minimum version of yarl": the one after
    its lower bound (``yarl<2.0,>=1.25.1``: 1.25.1), "the highest allowed": after its upper bound. Supported where
    the values state one such version."""
    name = _name(key)
    if name is None or not _VERSION_ASKED.search(book.text_q):
        return []
    ops = _OPS[_bound(book.text_q)]
    rx = _spec(name)
    found = {v for f in values for m in rx.finditer(f) for op, v in _CLAUSE.findall(m.group(1)) if op in ops}
    return [Candidate(v, "version", len(found) == 1, why) for v in sorted(found)]
