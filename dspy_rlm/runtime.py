"""Small runtime pieces: running the async core from sync code, LM calls, and usage accounting."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import dspy
from dspy.utils.usage_tracker import UsageTracker

from dspy_outlines.contract import DEADLINE_KWARG, deadline_scope
from dspy_outlines.dspy_internal import dspy_internal
from dspy_rlm.budget import Budget

T = TypeVar("T")
LOCAL_PROVIDERS = frozenset({"outlines", "mlx", "local", "dummy", "ollama", "ollama_chat", "lm_studio"})


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
    with deadline_scope(_split_deadline(kwargs)):
        if use_async and lm_is_async(lm):
            return await predictor.acall(**kwargs)
        return await asyncio.to_thread(predictor, **kwargs)


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


def lm_text(response: Any) -> str:
    """The text of a ``dspy.LM`` call result (a list of strings or dicts, or a Response)."""
    if isinstance(response, list) and response:
        first = response[0]
        text = first.get("text") if isinstance(first, dict) else first
    else:
        text = getattr(response, "text", None)
    if not isinstance(text, str):
        raise TypeError(f"the sub-LM returned no text (got {type(response).__name__})")
    return text


class BudgetUsageTracker(UsageTracker):
    """DSPy's usage tracker that also charges each LM call's tokens and cost to a budget.

    Installed with ``dspy.context(usage_tracker=...)`` for the duration of a run, so every LM call made in
    the run (action steps, sub-LM calls, extraction) is counted. Usage is also forwarded to the tracker
    that was active before (a user's ``dspy.track_usage()``), so nothing is lost to nesting.
    """

    def __init__(self, budget: Budget, outer: UsageTracker | None = None):
        super().__init__()
        self.budget = budget
        self.outer = outer
        self._lock = threading.Lock()

    def add_usage(self, lm: str, usage_entry: dict[str, Any]) -> None:
        self._record(lm, usage_entry, charged=set())

    def _record(self, lm: str, usage_entry: dict[str, Any], charged: set[int]) -> None:
        with self._lock:
            super().add_usage(lm, usage_entry)
        if id(self.budget) not in charged:
            # charge_usage reaches every ancestor budget, so a parent run's tracker (next in the chain of
            # outer trackers) only records the entry: charging it again would count a child's usage twice.
            prompt = int(usage_entry.get("prompt_tokens") or 0)
            completion = int(usage_entry.get("completion_tokens") or 0)
            cost = usage_entry.get("cost")
            if cost is None:
                cost = _litellm_cost(lm, prompt, completion)
            self.budget.charge_usage(prompt, completion, float(cost or 0.0))
            charged |= {id(node) for node in self.budget.chain()}
        if isinstance(self.outer, BudgetUsageTracker):
            self.outer._record(lm, usage_entry, charged)
        elif self.outer is not None:
            self.outer.add_usage(lm, usage_entry)


def _litellm_cost(model: str, prompt: int, completion: int) -> float:
    """Price from litellm's table for provider-qualified API models; local / scripted models cost 0."""
    if "/" not in str(model) or str(model).split("/", 1)[0] in LOCAL_PROVIDERS:
        return 0.0
    try:
        import litellm

        p, c = litellm.cost_per_token(model=model, prompt_tokens=prompt, completion_tokens=completion)
        return float(p) + float(c)
    except Exception:  # noqa: BLE001 - unknown / local models have no price
        return 0.0


def call_soon_threadsafe(loop: asyncio.AbstractEventLoop | None, fn: Callable[..., Any], *args: Any) -> Any:
    """Call ``fn`` (sync or async) from a worker thread; coroutines run on ``loop`` when one is given."""
    result = fn(*args)
    if asyncio.iscoroutine(result):
        if loop is not None and loop.is_running():
            return asyncio.run_coroutine_threadsafe(result, loop).result()
        return asyncio.run(result)
    return result
