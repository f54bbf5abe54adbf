"""One predictor or LM call of a run, under the run's deadline: native async where the LM has it, else a
worker thread; the deadline travels as a predictor ``config`` keyword that no LM ever receives. A call
cancelled (Ctrl-C) stops its local generation at once (:func:`dspy_outlines.contract.stop_scope`)."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import dspy

from dspy_outlines.contract import DEADLINE_KWARG, deadline_scope, stop_scope
from dspy_outlines.dspy_internal import dspy_internal

T = TypeVar("T")


def lm_is_async(lm: Any) -> bool:
    """Whether an LM has its own async implementation (otherwise we call it in a thread): a ``dspy.LM``
    built with a custom engine is async only when it was given an ``async_engine`` too."""
    base = getattr(dspy, "BaseLM", None)
    if base is None or not isinstance(lm, base) or type(lm).aforward is base.aforward:
        return False
    if isinstance(lm, dspy.LM) and not isinstance(getattr(lm, "engine", "auto"), str):
        return dspy_internal(lm, "_async_engine_spec") is not None
    return True


def _split_deadline(kwargs: dict[str, Any]) -> float | None:
    """Take :data:`DEADLINE_KWARG` out of a predictor call's ``config`` (no LM ever receives it)."""
    config = kwargs.get("config")
    if not isinstance(config, dict) or DEADLINE_KWARG not in config:
        return None
    config = dict(config)
    deadline = config.pop(DEADLINE_KWARG)
    if config:
        kwargs["config"] = config
    else:
        del kwargs["config"]
    return deadline


async def call_predictor(predictor: dspy.Predict, use_async: bool, **kwargs: Any) -> dspy.Prediction:
    """One predictor call: native async where the LM supports it, else a worker thread (with this context).

    A deadline from :func:`deadline_config` holds for the call: local generation stops there
    (:func:`dspy_outlines.contract.deadline_scope`) and the adapter tries no further tier once it passed.
    """
    lm = getattr(predictor, "lm", None) or dspy.settings.lm  # a user's own predictor may have no .lm
    with deadline_scope(_split_deadline(kwargs)), stop_scope() as stop:
        try:
            if use_async and lm_is_async(lm):
                return await predictor.acall(**kwargs)
            return await asyncio.to_thread(predictor, **kwargs)
        except asyncio.CancelledError:  # an interrupt: the worker thread's local generation ends now too
            stop.set()
            raise


def is_configuration_error(exc: BaseException) -> bool:
    """Whether ``exc`` is one of dspy's LM errors no retry mends (a missing API key, a mistyped model, no
    access): the run ends at once instead of trying three times."""
    from dspy.utils import exceptions as dspy_errors

    terminal = tuple(
        getattr(dspy_errors, name)
        for name in ("LMConfigurationError", "LMAuthError", "LMUnsupportedModelError")
        if hasattr(dspy_errors, name)
    )
    return isinstance(exc, terminal)


#: The shortest ``timeout=`` given to an API call whose deadline has (nearly) passed.
MIN_API_TIMEOUT_S = 1.0


def deadline_kwargs(lm: Any, deadline: float | None) -> dict[str, Any]:
    """Predictor ``config`` keywords that make one call stop at ``deadline`` (a ``time.monotonic()`` instant).

    Every LM gets :data:`~dspy_outlines.contract.DEADLINE_KWARG`, which :func:`call_predictor` turns into a
    deadline scope (a local engine stops generating there; the adapter stops trying tiers); a ``dspy.LM``
    that owns its connection (an API or a server model) also gets ``timeout=`` the seconds left (at least
    :data:`MIN_API_TIMEOUT_S`). No deadline: nothing.
    """
    if deadline is None or lm is None:
        return {}
    kwargs: dict[str, Any] = {DEADLINE_KWARG: deadline}
    if isinstance(lm, dspy.LM) and isinstance(getattr(lm, "engine", None), str):
        kwargs["timeout"] = max(MIN_API_TIMEOUT_S, deadline - time.monotonic())
    return kwargs


def deadline_config(predictor: Any, deadline: float | None) -> dict[str, Any]:
    """``{"config": deadline_kwargs(...)}`` for a ``dspy.Predict`` call (``predictor(**inputs, **this)``),
    or ``{}`` when there is nothing to pass (a predictor replaced by the user keeps its own signature)."""
    lm = getattr(predictor, "lm", None) or dspy.settings.lm
    kwargs = deadline_kwargs(lm, deadline)
    return {"config": kwargs} if kwargs and isinstance(predictor, dspy.Predict) else {}


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from sync code, even where an event loop is already running
    (Jupyter): then it runs on a fresh loop in a helper thread, with the caller's context."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    ctx = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(ctx.run, asyncio.run, coro).result()
