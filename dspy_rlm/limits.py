"""A run's budget limits and their validation: one rule per limit, one wording for every refusal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Limits"]


@dataclass(frozen=True)
class Limits:
    """Budget limits. ``None`` means unlimited."""

    max_iters: int | None = 20
    max_llm_calls: int | None = 50
    max_tokens: int | None = None
    max_cost: float | None = None
    max_time: float | None = None
    max_depth: int = 1

    def __post_init__(self) -> None:
        for name, (kind, least, none_ok) in _LIMIT_RULES.items():
            value = getattr(self, name)
            if value is None and none_ok:
                continue
            numeric = isinstance(value, int) if kind == "integer" else isinstance(value, (int, float))
            if (
                isinstance(value, bool)
                or not numeric
                or value < least
                or (least == 0 and kind == "number" and value == 0)
            ):
                raise ValueError(_limit_message(name, kind, least, none_ok, value))


#: Each limit's rule: (integer | number, smallest allowed value, whether None = no limit is allowed). A
#: ``number`` with least 0 must be above 0 (a zero time or cost budget is a mistake, not a limit).
_LIMIT_RULES: dict[str, tuple[str, int, bool]] = {
    "max_iters": ("integer", 1, True),
    "max_llm_calls": ("integer", 0, True),  # 0: no sub-LM calls (each call in the REPL fails), as in dspy
    "max_tokens": ("integer", 1, True),
    "max_cost": ("number", 0, True),
    "max_time": ("number", 0, True),
    "max_depth": ("integer", 0, False),
}


def _limit_message(name: str, kind: str, least: int, none_ok: bool, value: Any) -> str:
    """One wording for every limit: what it must be, what was given, and the fix."""
    if kind == "number" and least == 0:
        what = "a number above 0 (seconds)" if name == "max_time" else "a number above 0"
    else:
        what = f"an integer >= {least}"
    unlimited = f", or None for no limit (e.g. {name}=None)" if none_ok else ""
    return f"{name} must be {what}{unlimited}; got {value!r}"
