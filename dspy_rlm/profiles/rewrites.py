"""The rewrites of a read's values before any doubt is checked: each takes the question's book, the key phrase read
by and the candidates a move kind found, and returns them as the question means them (an acronym's expansion
inside a definition, a markdown link's text). Adding one is a function and an entry of :data:`REWRITES`, applied in
order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.initials import expand_initials
from dspy_rlm.profiles.linktext import link_texts

__all__ = ["REWRITES", "Rewrite", "rewrite"]

Rewrite = Callable[[Any, Any, list[Candidate]], list[Candidate]]

REWRITES: tuple[Rewrite, ...] = (expand_initials, link_texts)
"""Applied in this order: the expansion reads the value as written, before a link's text replaces it."""


def rewrite(book: Any, key: Any, found: list[Candidate]) -> list[Candidate]:
    """``found`` after every rewrite of :data:`REWRITES`."""
    for step in REWRITES:
        found = step(book, key, found)
    return found
