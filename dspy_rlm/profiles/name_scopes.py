"""Names a question scopes a ranking to: a wildcard it writes (``SIG*``, ``figure.subplot.*``) or a name prefix
(``the IPPROTO_ constants``, ``the Acquire::http settings``) that some records' keys start with. "Of the ETH_P_
defines, which has the largest value?" ranks those records only: ``max_of(V, 'value', within='ETH_P_*')``
(:func:`dspy_rlm.library.superlatives.records_within` reads a ``within`` holding ``*`` as a pattern of keys)."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library.superlatives import keys_fitting

__all__ = ["name_patterns", "name_scopes"]

_GLOB = re.compile(r"(?<![^\s(\[\"'`])(?:[\w.\-/]*\w[\w.\-/]*\*[\w.\-/*]*|\*[\w.\-/]*\w[\w.\-/*]*)")
_PREFIX = re.compile(r"(?<![\w.:*-])[A-Za-z_][\w]*(?:(?:::|[._-])[\w]+)*(?:::|[._-])?(?![\w*])")
"""A token that may start names: letters and digits joined by ``_``, ``.``, ``-`` or ``::``, perhaps ending with
one (``ETH_P_``); a plain word qualifies only where it holds a separator (``fetch-retry``) or ends with one."""
_SEP = re.compile(r"::|[._-]")


def name_patterns(said: str) -> list[str]:
    """The wildcard names (``enable_*``, ``*.conf``) ``said`` states."""
    return [m.group(0).strip(".,;:?!") for m in _GLOB.finditer(said)]


def _prefixes(said: str) -> list[str]:
    out = []
    for m in _PREFIX.finditer(_GLOB.sub(" ", said)):
        token = m.group(0).rstrip(".")  # a sentence's full stop is no separator
        if _SEP.search(token):
            out.append(token + "*")
    return out


def name_scopes(book: Any, var: str) -> list[str]:
    """The patterns (wildcards and name prefixes the question writes outside its quoted values) that fit two or
    more of the first 5,000 records' keys but not all of them: each a scope a ranking keeps to (memoized)."""
    memo = ("name scopes", var)
    if memo not in book.memo:
        keys = [r.key for r in book.structs[var].records[:5000] if r.key]
        found = []
        for p in dict.fromkeys([*name_patterns(book.text_q), *_prefixes(book.text_q)]):
            n = len(keys_fitting(keys, p))
            if 2 <= n < len(keys):
                found.append(p)
        book.memo[memo] = found
    return list(book.memo[memo])
