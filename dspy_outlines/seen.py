"""What a constrained call's LM saw and said, kept for fine-tuning data that matches it token for token.

``dspy.BootstrapFinetune`` builds each training example again from the trace: the traced predictor's declared
signature and demos, formatted by one adapter. A program that calls its predictor with another signature per
call (``predictor(signature=..., demos=...)``, as the RLM's small policy does: the step's moves are the
constraint), or whose call went through Tier 3 (JSON shaped by the constraint), would train on prompts and
answers its LM never saw. So Tier 3 notes each call's messages and the text generated (:func:`recording`,
:func:`note`); the caller attaches the note to the call's ``dspy.Prediction`` (:func:`attach`); and
:class:`~dspy_outlines.adapter.OutlinesAdapter`'s ``format_finetune_data`` returns that conversation as it was
(:func:`conversation`), falling back to DSPy's formatting for calls nothing noted.

    with seen.recording() as calls:
        pred = predictor(**kwargs)
    seen.attach(pred, calls)
    dspy.BootstrapFinetune(metric=..., adapter=OutlinesAdapter()).compile(program, trainset=..., teacher=...)
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["Seen", "attach", "conversation", "note", "recording"]


@dataclass(frozen=True)
class Seen:
    """One LM call as it happened: the chat messages sent and the text generated."""

    messages: tuple[dict[str, Any], ...]
    text: str


_CALLS: contextvars.ContextVar[list[Seen] | None] = contextvars.ContextVar("seen_calls", default=None)
_ATTRIBUTE = "_dspy_outlines_seen"  # private: Example.__setattr__ keeps names starting with "_" out of the fields


@contextlib.contextmanager
def recording() -> Iterator[list[Seen]]:
    """Collect the calls noted inside the block (worker threads that copied this context included)."""
    calls: list[Seen] = []
    token = _CALLS.set(calls)
    try:
        yield calls
    finally:
        _CALLS.reset(token)


def note(messages: Any, text: Any) -> None:
    """Note one call (a no-op outside :func:`recording`, or when ``messages`` is not a chat message list)."""
    calls = _CALLS.get()
    if calls is None or not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        return
    calls.append(Seen(tuple(dict(m) for m in messages), "" if text is None else str(text)))


def attach(prediction: Any, calls: list[Seen]) -> None:
    """Attach the last of ``calls`` (the one whose answer ``prediction`` holds) to ``prediction``."""
    if calls and prediction is not None:
        object.__setattr__(prediction, _ATTRIBUTE, calls[-1])


def conversation(outputs: Any) -> dict[str, list[dict[str, Any]]] | None:
    """``{"messages": [..., {"role": "assistant", "content": text}]}`` for a prediction with a call attached,
    else ``None``."""
    found = getattr(outputs, _ATTRIBUTE, None)
    if not isinstance(found, Seen):
        return None
    return {"messages": [*(dict(m) for m in found.messages), {"role": "assistant", "content": found.text}]}
