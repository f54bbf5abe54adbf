"""One move of the small policy, as data: its kind, the sentence said with it and, for a read, the helper it
calls on which variable with which arguments (the code is rendered from these, never parsed back); a submit
carries its candidate. :func:`moves_pattern` is the regex over the action's JSON admitting a step's moves.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from dspy_rlm.profiles.candidates import Candidate

__all__ = ["Move", "literal", "moves_pattern", "read"]

_SEP = '", "code": "'


@dataclass(frozen=True)
class Move:
    """One move, as data: its kind, the sentence said, and for a read the helper called on a variable with its
    arguments (``code`` is rendered from them, never parsed back); for a submit the candidate submitted.

    Attributes:
        kind: ``search``, ``record``, ``field``, ``exists``, ``count``, ``count_where``, ``count_if``,
            ``key_of``,
            ``most_common``, ``max``, ``min``, ``peek`` or ``submit``.
        reasoning: The sentence the model writes with it.
        code: The line run in the REPL (exactly as the regex admits it).
        candidate: A submit's value and whether the reads support it.
        helper: A read's helper (``field_of``); ``var``: the variable as written (``context``,
            ``files['a.csv']``); ``args``: the helper's arguments after the variable.
    """

    kind: str
    reasoning: str
    code: str
    candidate: Candidate | None = None
    helper: str = ""
    var: str = ""
    args: tuple[Any, ...] = ()
    within: str | None = None  # a block or heading the read keeps to (``max_of(..., within='Priority')``)
    but: str | None = None  # a record the read passes over (``key_of(..., but='1.2')``: another record than 1.2's)

    def pattern(self) -> str:
        return _json_regex(self.reasoning) + re.escape(_SEP) + _json_regex(self.code)


def read(
    kind: str,
    reasoning: str,
    helper: str,
    var: str,
    *args: Any,
    ignore_case: bool = False,
    within: str | None = None,
    but: str | None = None,
) -> Move:
    """A read move: ``print(helper(var, *args))`` rendered from its parts."""
    shown = ", ".join([var, *(literal(a) for a in args)]) + (", ignore_case=True" if ignore_case else "")
    shown += f", within={literal(within)}" if within is not None else ""
    shown += f", but={literal(but)}" if but is not None else ""
    code = f"print({helper}({shown}))"
    return Move(kind, reasoning, code, helper=helper, var=var, args=args, within=within, but=but)


def _json_regex(text: str) -> str:
    """The regex for ``text`` as it stands inside a JSON string."""
    return re.escape(json.dumps(text, ensure_ascii=False)[1:-1])


def moves_pattern(moves: list[Move]) -> str:
    """The regex over the action's JSON object ``{"reasoning": ..., "code": ...}`` admitting ``moves``."""
    return '\\{"reasoning": "(' + "|".join(m.pattern() for m in moves) + ')"\\}'


def literal(value: Any) -> str:
    return repr(value)
