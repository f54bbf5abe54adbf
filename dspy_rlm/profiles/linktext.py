"""A value written as a markdown link (``[Joyee Cheung][joyeecheung]``, ``[docs](https://...)``): its text is the
value a reader sees, unless the question asks for the link itself (:data:`LINK_ASKED`)."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.profiles.candidates import Candidate

__all__ = ["LINK_ASKED", "link_text", "link_texts"]

_LINK = re.compile(r"\[([^\[\]]+)\](?:\[[^\[\]]*\]|\([^()\s]*(?:\s+\"[^\"]*\")?\))")
LINK_ASKED = re.compile(r"\b(?:links?|urls?|hrefs?|targets?|references?|anchors?)\b", re.IGNORECASE)
"""Words asking for where a link points, not its text."""


def link_text(value: str) -> str | None:
    """The text of ``value`` where it is one markdown link, whole; else None."""
    m = _LINK.fullmatch(value.strip())
    return m.group(1).strip() if m else None


def link_texts(book: Any, key: Any, found: list[Candidate]) -> list[Candidate]:
    """Each string value that is one markdown link, as its text (the question asking for no link); a link whose
    text is the key phrase read by stays as written (the record's own name, which a reverse lookup does not ask)."""
    if LINK_ASKED.search(book.text_q):
        return found
    said = key.text.casefold() if key is not None else None
    out = []
    for c in found:
        text = link_text(c.value) if isinstance(c.value, str) else None
        out.append(Candidate(text, c.label, c.supported, c.why) if text and text.casefold() != said else c)
    return out
