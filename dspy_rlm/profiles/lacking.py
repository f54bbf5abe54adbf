"""The fields a question says some records lack ("how many posts have no tags?", "how many entries have an empty
description?", "how many packages do not have a Homepage?"): what ``count_empty``
(:class:`~dspy_rlm.profiles.counts.CountPresent` with ``test='empty'``) counts, and what makes every other count
of that question unsupported."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.profiles.reads import parts
from dspy_rlm.profiles.yes_no_words import HAVING, LACKING

__all__ = ["lacked_fields"]

_BEFORE = rf"(?:{'|'.join(LACKING)}|(?:not|never|n't)\s+(?:{'|'.join(HAVING)}))"
_FILLER = r"(?:\s+(?:a|an|any|the|their|its|value|values|set|field|entry|given))*"
_AFTER = r"(?:\s+\w+)?\s+(?:is|are|was|were|left)\s+(?:empty|blank|missing|unset)"
_QUOTE = r"[\"'`\u2018\u2019\u201c\u201d]"


def _name_rx(field: str) -> str:
    """The field's name as a question may write it: its words apart, any case, an ``s`` or not at the end."""
    words = [re.escape(p.casefold()) for p in parts(field)]
    return r"\W+".join(words) + r"s?" if words else ""


def lacked_fields(book: Any, var: str) -> list[str]:
    """The fields the question names after a word of lacking ("have *no* tags", "*without* a Homepage", "whose
    tags list *is empty*") that some records lack (missing or blank) and others have, once per run."""
    memo = ("lacked", var)
    if memo not in book.memo:
        q = book.text_q.casefold()
        records = book.structs[var].records
        out = []
        for f in book.structs[var].field_names[:200]:
            name = _name_rx(f)
            if not name or len(f) < 2:
                continue
            said = re.search(rf"(?<![\w']){_BEFORE}{_FILLER}\s+{_QUOTE}?{name}(?!\w)", q) or re.search(
                rf"(?<!\w){name}{_QUOTE}?{_AFTER}(?!\w)", q
            )  # (the name maybe quoted: 'have no "pr" field')
            if said and 0 < sum(1 for r in records if not (r.get(f) or "").strip()) < len(records):
                out.append(f)
        book.memo[memo] = out
    return list(book.memo[memo])
