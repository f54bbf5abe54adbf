"""What a value says beside its main text: a default a description states ("... Default: info."), a part after a
``:`` or ``=`` mark, and the bracketed detail of an item the question's key names ("nodejs:amd64 (20.20.2-1)")."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import structure as st
from dspy_rlm.library.formats import unquote
from dspy_rlm.profiles.calibration import IN_SENTENCE
from dspy_rlm.profiles.candidates import Candidate

__all__ = ["default_said", "keyed_tail", "stated_after_mark"]

_DEFAULT_SAID = re.compile(r"\bdefaults?(?:\s+(?:value\s+)?is|\s+to|:)\s+(\S.*?)(?:\.(?:\s|$)|[;)]|$)", re.I)
_ITEM = re.compile(r"(?:[^,()\[\]]|\([^()]*\)|\[[^\[\]]*\])+")  # a comma list's items, brackets whole
_NAMED_TAIL = re.compile(r"([^()\[\]]+?)\s*[(\[]([^()\[\]]+)[)\]]")


def default_said(book: Any, value: str, fname: str, ok: bool) -> list[Candidate]:
    """ "The default output level of -o": what a description says its default is ("... Default: info.")."""
    if "default" not in {st.stem(w) for w in st.words(book.text_q.casefold())}:
        return []
    m = _DEFAULT_SAID.search(value)
    said = unquote(m.group(1).strip(" '\"`")) if m else ""
    return [Candidate(said, fname, ok, IN_SENTENCE)] if said and len(said.split()) <= 6 else []


def stated_after_mark(part: str, sentence: str) -> bool:
    """Whether ``part`` follows a ``:`` or ``=`` in ``sentence`` (``[default: 256]``, ``unit=B``)."""
    return re.search(rf"[:=]\s*{re.escape(part)}(?!\w)", sentence) is not None


def keyed_tail(value: str, key: str) -> str | None:
    """The bracketed detail of the item whose name is the question's key, the value whole or one item of its
    comma-separated list ("which version of nodejs": ``nodejs:amd64 (20.20.2-1nodesource1), libc6:amd64 (...)``
    gives ``20.20.2-1nodesource1``; the name only repeats the key), else None. The name is the key, or the key
    and a qualifier after ``:``, ``/`` or ``@`` (an architecture)."""
    k = " ".join(key.casefold().split())
    if not k:
        return None
    for item in _ITEM.findall(value):
        m = _NAMED_TAIL.fullmatch(item.strip())
        name = m.group(1).casefold() if m else ""
        if m and (name == k or (name.startswith(k) and name[len(k) : len(k) + 1] in (":", "/", "@"))):
            return m.group(2).strip() or None
    return None
