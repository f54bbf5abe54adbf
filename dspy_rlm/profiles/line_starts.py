"""The lines a question counts by how they start: "how many labels (lines starting with ':') does dc.sed define?",
"how many lines begin with '#'?" (``count_matches(V, '^:', True)``). What the question quotes opens each line
counted, as written; a count of records or of a word's records answered something else (8 for 33)."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.move import Move, read

__all__ = ["LinesStarting", "asked_start_of_lines"]

_STARTING = re.compile(
    r"\blines?\s+(?:that\s+|which\s+)?(?:start|starts|starting|begin|begins|beginning|open|opens|opening)\s+with\s+"
    r"(?:an?\s+|the\s+)?(['\"`\u2018\u201c])(.{1,20}?)['\"`\u2019\u201d]",
    re.IGNORECASE,
)
"""Lines asked by what opens them, quoted: the quote's text."""


def asked_start_of_lines(question: str) -> str | None:
    """What the question quotes as the start of the lines it counts, else None."""
    m = _STARTING.search(question)
    return m.group(2) if m is not None and m.group(2).strip() else None


class LinesStarting(KindBase):
    """``count_matches(V, '^X', True)``: how many lines start with what the question quotes."""

    name = "count_lines"
    per_key = False
    every_record = True

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        start = asked_start_of_lines(book.text_q)
        if "count" not in book.cues or book.answer_type is not int or start is None:
            return []
        say = f"I will count the lines starting with {start!r}."
        return [read(self.name, say, "count_matches", var, "(?m)^" + re.escape(start), True)]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, int) or isinstance(result, bool):
            return []
        ok = result > 0
        return [Candidate(str(result), "count", ok, "counted the lines starting as the question quotes")]
