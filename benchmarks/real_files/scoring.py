"""Scoring: an answer is compared whole (never as a substring) after normalization by output type."""

from __future__ import annotations

import math
import re
from typing import Any

STRIP = " \t\n\"'`.,;:!?"
TRUE = {"yes", "true", "y"}
FALSE = {"no", "false", "n"}


def normalize_text(value: Any) -> str:
    """Case-folded, whitespace collapsed, surrounding quotes and punctuation stripped."""
    return " ".join(str(value).split()).strip(STRIP).casefold()


def to_int(value: Any) -> int | None:
    """``1234``, ``"1,234"``, ``"1 234"``, ``"1_234"`` and ``1234.0`` are 1234; anything else is None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    text = re.sub(r"(?<=\d)[,_ ](?=\d{3}\b)", "", normalize_text(value))
    try:
        return int(text)
    except ValueError:
        return None


def to_float(value: Any) -> float | None:
    """``0.5``, ``"0.5"``, ``"2.2e-05"`` and ``"1,234.5"`` as floats; anything else (a bool too) is None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(re.sub(r"(?<=\d),(?=\d{3}\b)", "", normalize_text(value)))
    except ValueError:
        return None


def to_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    text = normalize_text(value)
    return True if text in TRUE else False if text in FALSE else None


def is_correct(answer: Any, gold: Any, output_type: str, alternatives: list[Any] | tuple[Any, ...] = ()) -> bool:
    """Whether ``answer`` equals the gold (or a tied alternative) under the type's normalization."""
    if answer is None:
        return False
    if output_type == "bool":
        return to_bool(answer) is not None and to_bool(answer) == gold
    if output_type == "int":
        number = to_int(answer)
        return number is not None and number in (gold, *alternatives)
    if output_type == "float":  # the same number, written to any precision the file's own digits allow
        got = to_float(answer)
        wanted = [w for w in map(to_float, (gold, *alternatives)) if w is not None]
        return got is not None and any(math.isclose(got, w, rel_tol=1e-9, abs_tol=1e-12) for w in wanted)
    return normalize_text(answer) in {normalize_text(g) for g in (gold, *alternatives)}
