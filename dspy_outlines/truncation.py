"""Whether a tier's LM call was cut (``max_tokens`` or the deadline), for the tier's metrics and Tier 3's error.

DSPy keeps only the text in an LM call's ``outputs``; the finish reason is in the LM's history entry for that call.
Tier 1 and 2 note a cut call in the current attempt (:func:`attempt`, :func:`note`), so the adapter counts it as
``truncated`` in that tier's metrics (DSPy's own "LM response was truncated" warning is about the same call).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from dspy_outlines.constraints import TRUNCATING_FINISH_REASONS

__all__ = ["Attempt", "attempt", "finish_reasons", "note", "truncated_call"]


def finish_reasons(lm: Any, outputs: Any) -> list[str | None]:
    """The finish reasons of the LM call that returned ``outputs`` (``[]`` when history is off).

    The history entry is found by identity of ``outputs``, so concurrent calls cannot be confused; its response is
    a LiteLLM one (``choices[i].finish_reason``) or a ``dspy.lm15.Response`` (``provider_data["finish_reason"]``
    first, for ``"deadline"``, then its own).
    """
    for entry in reversed((getattr(lm, "history", None) or [])[-64:]):
        if isinstance(entry, dict) and entry.get("outputs") is outputs:
            response = entry.get("response")
            choices = _get(response, "choices")
            if choices:
                return [_get(choice, "finish_reason") for choice in choices]
            reason = (_get(response, "provider_data") or {}).get("finish_reason") or _get(response, "finish_reason")
            return [reason] if reason is not None else []
    return []


def truncated_call(lm: Any, outputs: Any) -> str | None:
    """The truncating finish reason (``"length"``, ``"deadline"``) of the call that returned ``outputs``, if any."""
    return next((reason for reason in finish_reasons(lm, outputs) if reason in TRUNCATING_FINISH_REASONS), None)


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


class Attempt:
    """One tier's attempt: ``truncated`` once a call of it was cut."""

    __slots__ = ("truncated",)

    def __init__(self) -> None:
        self.truncated = False


_current: contextvars.ContextVar[Attempt | None] = contextvars.ContextVar("dspy_outlines_attempt", default=None)


@contextlib.contextmanager
def attempt() -> Iterator[Attempt]:
    """The scope of one tier's attempt: :func:`note` inside it marks the yielded :class:`Attempt`."""
    current = Attempt()
    token = _current.set(current)
    try:
        yield current
    finally:
        _current.reset(token)


def note(lm: Any, outputs: Any) -> None:
    """Mark the current attempt truncated when the call that returned ``outputs`` was cut."""
    current = _current.get()
    if current is not None and truncated_call(lm, outputs) is not None:
        current.truncated = True
