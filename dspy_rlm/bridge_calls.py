"""What the bridges run beneath them: one sub-LM call, timed and recorded on its trace node (its answer or
its error, tokens and cost), and coroutines run from a bridge thread on the run's event loop or on a private
loop with its own thread pool."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import dspy

from dspy_rlm.calls import lm_is_async
from dspy_rlm.errors import item_error
from dspy_rlm.trace import TraceNode
from dspy_rlm.usage import CallUsage

T = TypeVar("T")
TRACE_TEXT_CHARS = 4_000  # prompts / answers kept per sub-LM node (the trace stays small)


# -- one sub-LM call ------------------------------------------------------------------------------
class _Recorder:
    """Times one sub-LM call and writes its answer (or error), tokens and cost on its trace node."""

    def __init__(self, node: TraceNode):
        self.node, self.usage, self.t0 = node, CallUsage(dspy.settings.usage_tracker), time.perf_counter()

    def done(self, response: Any) -> str:
        text = lm_text(response)
        self.node.answer_source, self.node.result_kind = "final_direct", "submitted"
        self.node.outputs = {"answer": _clip(text, TRACE_TEXT_CHARS)}
        self._close()
        return text

    def failed(self, exc: Exception, raise_errors: bool) -> str:
        text = item_error(exc)
        self.node.answer_source, self.node.result_kind = "error", "failed"
        self.node.outputs = {"error": text}
        self._close()
        if raise_errors:
            raise exc
        return text

    def _close(self) -> None:
        node = self.node
        node.duration_s = time.perf_counter() - self.t0
        node.usage = {"llm_calls": 1, "lm_calls_total": 1, **self.usage.totals, "elapsed_s": round(node.duration_s, 4)}


def _call_sync(lm: Any, prompt: str | list[dict[str, Any]], node: TraceNode, raise_errors: bool = False) -> str:
    """One blocking sub-LM call (a prompt, or chat messages). Returns the text; on failure raises
    (``raise_errors``) or returns an '[ERROR] <Type>: <message>' text."""
    rec = _Recorder(node)
    try:
        with dspy.context(usage_tracker=rec.usage):
            return rec.done(lm(prompt) if isinstance(prompt, str) else lm(messages=prompt))
    except Exception as exc:  # noqa: BLE001 - per-item failure, typed for the model
        return rec.failed(exc, raise_errors)


async def _call_async(lm: Any, prompt: str | list[dict[str, Any]], node: TraceNode, raise_errors: bool = False) -> str:
    """:func:`_call_sync` for LMs with a native ``aforward``."""
    rec = _Recorder(node)
    try:
        with dspy.context(usage_tracker=rec.usage):
            return rec.done(await (lm.acall(prompt) if isinstance(prompt, str) else lm.acall(messages=prompt)))
    except Exception as exc:  # noqa: BLE001 - per-item failure, typed for the model
        return rec.failed(exc, raise_errors)


async def _complete(lm: Any, prompt: str, node: TraceNode, pool: ThreadPoolExecutor | None = None) -> str:
    """One sub-LM call from async code: awaited when the LM is async, else in ``pool`` (a thread)."""
    if lm_is_async(lm):
        return await _call_async(lm, prompt, node)
    ctx = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(pool, ctx.run, _call_sync, lm, prompt, node)


# -- event loops -------------------------------------------------------------------------------
def _on_loop(loop: asyncio.AbstractEventLoop | None, coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the run's event loop from a bridge thread (async LMs then share the caller's loop),
    or on a private loop when the run's loop is unavailable or is this very thread's loop."""
    if loop is not None and loop.is_running() and not _in_loop_thread():
        return asyncio.run_coroutine_threadsafe(coro, loop).result()
    return _run_private(coro, workers=4)


def _in_loop_thread() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _run_private(coro: Coroutine[Any, Any, T], workers: int) -> T:
    """Run ``coro`` on a fresh event loop with its own thread pool of ``workers`` threads.

    Sub-RLMs block a thread while their REPL runs code; a private pool sized for them means a batch never
    waits on (or deadlocks) a default executor shared with its parent. The caller's context (LM settings,
    usage tracker) is carried over.
    """

    def go() -> T:
        loop = asyncio.new_event_loop()
        pool = ThreadPoolExecutor(workers, thread_name_prefix="dspy-rlm-sub")
        loop.set_default_executor(pool)
        try:
            return loop.run_until_complete(coro)
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
            pool.shutdown(wait=True)

    if not _in_loop_thread():
        return go()
    ctx = contextvars.copy_context()
    holder = ThreadPoolExecutor(1, thread_name_prefix="dspy-rlm-hop")
    try:
        return holder.submit(ctx.run, go).result()
    finally:
        holder.shutdown(wait=False)


def _clip(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + f"\n... [{len(text) - limit:,} chars cut]"


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


def call_soon_threadsafe(loop: asyncio.AbstractEventLoop | None, fn: Callable[..., Any], *args: Any) -> Any:
    """Call ``fn`` (sync or async) from a worker thread; coroutines run on ``loop`` when one is given."""
    result = fn(*args)
    if asyncio.iscoroutine(result):
        if loop is not None and loop.is_running():
            return asyncio.run_coroutine_threadsafe(result, loop).result()
        return asyncio.run(result)
    return result
