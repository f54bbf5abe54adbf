"""The names our LMs and our callers share: capability flags, the constraint in a request, the deadline.

One module, read by ``dspy_outlines`` (adapter, engines, serving) and ``dspy_rlm`` (runtime, extraction,
profiles), so that each name is spelled once:

* **Capability flags**, attributes an LM (or the DSPy engine behind a ``dspy.LM``) declares:
  :data:`ACCEPTS_CONSTRAINT` (Tier 3 may hand it an Outlines output type) and :data:`IS_LOCAL` (a small
  local model: ``dspy_rlm`` picks its small-model profile). Read them with :func:`accepts_constraint` and
  :func:`is_local`, which look at the LM and at ``lm.engine`` (what ``dspy.LM(engine=...)`` was given).
* **The constraint travels in the request** (or, for an LM with :data:`CONSTRAINT_KWARGS_METHOD`, as the
  keywords that method returns): ``Request.config.extensions[EXTENSION]`` holds
  ``{"constraint": {"kind": "regex" | "json" | "cfg", "definition": ...}}`` (JSON, so it is part of DSPy's
  cache key and of its history): the :class:`~dspy_outlines.constraints.ConstraintKey`, computed once from the
  output type by :func:`constraint_extension` and read back as that key by :func:`constraint_key_of`, which the
  engine builds its processor from (no second trip through an Outlines type). This is the place DSPy 3.4's
  request contract gives provider-specific settings.
* **The deadline is an execution control**, like a timeout: not part of the request (DSPy refuses execution
  controls in ``Config.extensions``). A caller sets it for a block with :func:`deadline_scope`; the local
  engine reads :func:`current_deadline` when it generates, and the adapter stops trying tiers once it passed.
* **A stop**, the other execution control: :func:`stop_scope` gives a block an event; once it is set (the
  caller was interrupted), local generation started in the block ends as at its deadline, within one
  prefill chunk or one token (:func:`stop_requested`).
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dspy_outlines.constraints import ConstraintKey

__all__ = [
    "ACCEPTS_CONSTRAINT",
    "CONSTRAINT_KWARGS_METHOD",
    "DEADLINE_FINISH",
    "DEADLINE_KWARG",
    "EXTENSION",
    "IS_LOCAL",
    "accepts_constraint",
    "constraint_extension",
    "constraint_key_of",
    "current_deadline",
    "current_stop",
    "deadline_scope",
    "is_local",
    "output_type_of",
    "stop_requested",
    "stop_scope",
]

#: Capability flag: Tier 3 may hand this LM an Outlines output type (in the request, or as its own kwargs).
ACCEPTS_CONSTRAINT = "accepts_outlines_constraint"
#: Capability flag: a small local model (``RLM(profile="auto")`` picks the small-model profile).
IS_LOCAL = "is_local"
#: An LM method ``constraint_kwargs(output_type) -> dict``: the LM takes the constraint as its own call keywords
#: (``ServerLM``: the server's structured-output fields) instead of in the request.
CONSTRAINT_KWARGS_METHOD = "constraint_kwargs"
#: The key of ``Request.config.extensions`` that holds our settings.
EXTENSION = "dspy_outlines"
#: The predictor ``config`` key by which ``dspy_rlm`` hands a deadline to :func:`dspy_rlm.calls.call_predictor`
#: (which takes it out and opens a :func:`deadline_scope`; no LM ever receives it).
DEADLINE_KWARG = "_deadline"
#: What a generation cut by the deadline reports in ``Response.provider_data["finish_reason"]`` (its
#: ``finish_reason`` is ``"length"``: DSPy's vocabulary has no deadline).
DEADLINE_FINISH = "deadline"

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("dspy_outlines_deadline", default=None)
_stop: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar("dspy_outlines_stop", default=None)


def _flag(lm: Any, name: str) -> bool:
    if getattr(lm, name, False) is True:
        return True
    engine = getattr(lm, "engine", None)  # dspy.LM(engine=...): the engine object declares it
    return not isinstance(engine, str) and getattr(engine, name, False) is True


def accepts_constraint(lm: Any) -> bool:
    """Whether ``lm`` (or the DSPy engine it was built with) takes an Outlines constraint at Tier 3."""
    return lm is not None and _flag(lm, ACCEPTS_CONSTRAINT)


def is_local(lm: Any) -> bool:
    """Whether ``lm`` (or its DSPy engine) says it is a small local model (or ``is_small``)."""
    return lm is not None and (_flag(lm, IS_LOCAL) or getattr(lm, "is_small", False) is True)


def constraint_extension(output_type: Any) -> dict[str, Any]:
    """``{EXTENSION: {"constraint": {...}}}`` for ``Config.extensions``: the output type as JSON.

    Raises:
        TypeError: Outlines does not support ``output_type``.
    """
    from dspy_outlines.constraints import constraint_key

    kind, definition = constraint_key(output_type)
    return {EXTENSION: {"constraint": {"kind": kind, "definition": definition}}}


def constraint_key_of(extensions: dict[str, Any] | None) -> ConstraintKey | None:
    """The constraint key a request's ``Config.extensions`` carries, or ``None``.

    Raises:
        ValueError: The extension is malformed (an unknown kind, a definition that is not a string).
    """
    from dspy_outlines.constraints import CONSTRAINT_KINDS, ConstraintKey

    spec = ((extensions or {}).get(EXTENSION) or {}).get("constraint")
    if spec is None:
        return None
    kind, definition = spec.get("kind"), spec.get("definition")
    if not isinstance(definition, str) or kind not in CONSTRAINT_KINDS:
        raise ValueError(
            f"Config.extensions[{EXTENSION!r}]['constraint'] must be {{'kind': 'regex' | 'json' | 'cfg', "
            f"'definition': str}}; got {spec!r}"
        )
    return ConstraintKey(kind, definition)


def output_type_of(extensions: dict[str, Any] | None) -> Any:
    """The Outlines output type (``Regex``, ``JsonSchema``, ``CFG``) of the key :func:`constraint_key_of` reads, or
    ``None``: for a caller that wants Outlines' own type; the local engine takes the key itself."""
    key = constraint_key_of(extensions)
    if key is None:
        return None
    from outlines.types import CFG, JsonSchema, Regex

    return {"regex": Regex, "json": JsonSchema, "cfg": CFG}[key.kind](key.definition)


def current_deadline() -> float | None:
    """The ``time.monotonic()`` instant at which generation in this context stops, or ``None``."""
    return _deadline.get()


@contextlib.contextmanager
def deadline_scope(deadline: float | None) -> Iterator[None]:
    """Run a block under ``deadline`` (a ``time.monotonic()`` instant; ``None``: keep the current one).

    Local generation started in the block (this thread, and threads or tasks started from it with its
    context, as ``asyncio.to_thread`` does) stops there. A nested scope can only bring the deadline closer.
    """
    outer = _deadline.get()
    if deadline is None or (outer is not None and outer <= deadline):
        yield
        return
    token = _deadline.set(deadline)
    try:
        yield
    finally:
        _deadline.reset(token)


def current_stop() -> threading.Event | None:
    """The event of the :func:`stop_scope` this context runs in (to check from a thread without this context)."""
    return _stop.get()


def stop_requested() -> bool:
    """Whether the :func:`stop_scope` this context runs in was told to stop."""
    event = _stop.get()
    return event is not None and event.is_set()


@contextlib.contextmanager
def stop_scope() -> Iterator[threading.Event]:
    """Run a block that can be stopped: set the yielded event (from any thread) and local generation started
    in the block (this thread, and threads or tasks started from it with its context) ends as at a deadline."""
    event = threading.Event()
    token = _stop.set(event)
    try:
        yield event
    finally:
        _stop.reset(token)
