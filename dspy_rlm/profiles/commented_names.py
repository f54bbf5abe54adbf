"""A setting the question names that the text writes only commented out (``#start_conf = 'auto'`` in a
PostgreSQL cluster template whose live settings are others): a doubt of a record or field read of another
setting ("what is the default start.conf value for new clusters?" reading ``cluster_name`` by the word
"clusters"). The question writes the name as an identifier (with a dot, an underscore or a hyphen inside);
compared without those marks, so ``start.conf`` names ``start_conf``."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.profiles.id_spellings import WRITTEN_ID

__all__ = ["commented_setting"]

_COMMENTED = re.compile(r"(?m)^[ \t]*[#;][ \t]*([A-Za-z][\w.-]*)[ \t]*=")
"""A setting written in a comment line: ``#start_conf = 'auto'``, ``; max_children = 5`` (not ``# name: text``,
which opens many a file's header)."""


def _compact(name: str) -> str:
    return re.sub(r"[._-]", "", name).casefold()


def commented_setting(book: Any, move: Any, kind: Any, key: Any, text: str) -> str | None:
    """A doubt (:data:`~dspy_rlm.profiles.doubts.DOUBTS`) of a record or field read: the question names, as an
    identifier, a setting the text writes only in a comment line, and the read is of another setting."""
    if move.kind not in ("record", "field"):
        return None
    memo = ("commented setting", move.var)
    if memo not in book.memo:
        book.memo[memo] = _commented(book, move.var, text)
    named = book.memo[memo]
    if named is None:
        return None
    read = [str(a) for a in move.args[:2]]
    if any(_compact(a) == _compact(named) for a in read):
        return None
    return f"the question names {named!r}, a setting the text writes only in a comment line"


def _commented(book: Any, var: str, text: str) -> str | None:
    said = {_compact(m.group(0)): m.group(0) for m in WRITTEN_ID.finditer(book.text_q)}
    if not said:
        return None
    live = {_compact(f) for f in book.structs[var].field_names}
    live |= {_compact(r.key) for r in book.structs[var].records[:5000] if r.key}
    for m in _COMMENTED.finditer(text[:1_000_000]):
        name = _compact(m.group(1))
        if name in said and name not in live:
            return said[name]
    return None
