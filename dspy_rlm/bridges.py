"""Host functions reachable from model code: llm_query, llm_query_batched, rlm_query, batch_rlm_query, tools.

They run on the host (the sandbox forwards each call to the thread running ``repl.run``) and draw on the
run's thread-safe :class:`~dspy_rlm.budget.Budget`:

- ``llm_query`` / ``llm_query_batched`` reserve one sub-LM call per prompt up front (atomically, so racing
  calls never overspend) and call ``sub_lm`` (or the configured LM). LMs with a native ``aforward`` run as
  coroutines on the run's event loop, others in a thread pool; ``max_concurrency`` bounds both. A failed
  item of a batch comes back as ``"[ERROR] <Type>: <message>"`` for that item, never a failed batch.
- ``rlm_query`` / ``batch_rlm_query`` run child RLMs (own REPL, own sub-budget, depth + 1) concurrently on
  a private event loop. They never raise for budget reasons: at ``max_depth``, or when fewer than
  ``downgrade_threshold`` sub-LM calls are left per child, a child becomes a plain ``llm_query``; when
  nothing is left it returns :data:`NO_BUDGET_TEXT` (a direct-answer fallback) instead.

Every call is a node in the trace: ``kind="rlm"`` for a child RLM, ``"llm"`` for a sub-LM call (with its
tokens, cost and duration) and ``"fallback"`` when no budget was left.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import dspy

from dspy_rlm import routing
from dspy_rlm.bridge_calls import (  # noqa: F401 - the names it held before the split stay here
    TRACE_TEXT_CHARS,
    _call_async,
    _call_sync,
    _clip,
    _complete,
    _in_loop_thread,
    _on_loop,
    _Recorder,
    _run_private,
    call_soon_threadsafe,
    lm_text,
)
from dspy_rlm.budget import Budget
from dspy_rlm.calls import lm_is_async
from dspy_rlm.config import RunConfig
from dspy_rlm.errors import BudgetExhausted, item_error, tool_failure
from dspy_rlm.media import check_lm
from dspy_rlm.media import messages as media_messages
from dspy_rlm.trace import TraceNode

if TYPE_CHECKING:
    from dspy_rlm.checkpoint import Checkpoint

logger = logging.getLogger(__name__)
T = TypeVar("T")
NO_BUDGET_TEXT = (
    "[rlm_query fallback] No budget is left for a sub-call ({limit}). Answer this part yourself "
    "from the data you already have."
)


@dataclass
class RunState:
    """What the bridges of one run need. ``spawn(task, context, n_siblings)`` runs one sub-RLM (the run
    loop provides it, so this module never imports the loop)."""

    config: RunConfig
    budget: Budget
    trace: TraceNode
    loop: asyncio.AbstractEventLoop | None = None
    checkpoint: Checkpoint | None = None  # the root run's journal of sub-LM answers (see checkpoint.py)
    spawn: Callable[[str, Any, int], Awaitable[str]] | None = None
    sub_agents: bool = False  # dspy's sandbox facade (dspy.Predict & co. in the REPL): facade.py
    factory: Callable[[], Any] | None = None  # the REPL backend of sub-agents that run code (dspy.RLM)

    @property
    def depth(self) -> int:
        return self.budget.depth

    def sub_lm(self, model: str | None = None) -> tuple[Any, str]:
        """The LM of a sub-call made here (``llm_query(..., model=name)``, routing.py) and its trace label."""
        lm, label = self.config.lm_for(self.depth, model)
        lm = lm or dspy.settings.lm
        if lm is None:
            raise RuntimeError("No LM configured. Use dspy.configure(lm=...) or pass sub_lm= to RLM.")
        return lm, label or routing.label(lm)


def make_bridges(state: RunState) -> dict[str, Callable[..., Any]]:
    """The host functions for one run, keyed by the name the model calls them by."""

    def llm_query(prompt: str, model: str | None = None, media: Any = None) -> str:
        """Query the sub-LM (or the one named ``model``) with a prompt string, and ``media`` (dspy.Image /
        dspy.Audio values) if given; returns its text."""
        _check_prompt(prompt)
        lm, label = state.sub_lm(model)
        request: str | list[dict[str, Any]] = prompt
        if media:
            check_lm(lm)
            request = media_messages(prompt, media)
        state.budget.reserve_llm_calls(1)
        node = _llm_node(state, prompt, label)
        replayed = None if media else _replayed(state, prompt, node)
        if replayed is not None:
            return replayed
        if lm_is_async(lm):  # on the run's loop, next to the caller's other coroutines
            text = _on_loop(state.loop, _call_async(lm, request, node, raise_errors=True))
        else:
            text = _call_sync(lm, request, node, raise_errors=True)
        return text if media else _journaled(state, prompt, text, node)

    def llm_query_with_media(prompt: str, *media: Any, model: str | None = None) -> str:
        """``llm_query(prompt, model=model, media=list(media))``."""
        return llm_query(prompt, model=model, media=list(media))

    def llm_query_batched(prompts: list[str], model: str | None = None) -> list[str]:
        """Query the sub-LM with many prompts concurrently; a failed item comes back as '[ERROR] ...'."""
        prompts = list(prompts)
        for p in prompts:
            _check_prompt(p)
        if not prompts:
            return []
        lm, label = state.sub_lm(model)
        state.budget.reserve_llm_calls(len(prompts))
        return _on_loop(state.loop, _complete_all(state, prompts, lm, label))

    def rlm_query(task: str, context: Any = None) -> str:
        """Solve a sub-task with a sub-RLM (its own REPL and a share of the budget); returns its answer."""
        return _run_children(state, [_as_task((task, context))])[0]

    def batch_rlm_query(tasks: list[Any]) -> list[str]:
        """Run several sub-RLMs concurrently. Items: 'task' or ('task', context) or {'task':..,'context':..}."""
        return _run_children(state, [_as_task(t) for t in tasks])

    # keyed by their own names, which are names.LLM_BRIDGES and names.RLM_BRIDGES
    bridges: dict[str, Callable[..., Any]] = {
        f.__name__: f for f in (llm_query, llm_query_batched, llm_query_with_media, rlm_query, batch_rlm_query)
    }
    for name, tool in state.config.tool_map.items():
        bridges[name] = _tool_bridge(tool, state.loop)
    if state.sub_agents:
        from dspy_rlm.facade import make_tools

        bridges.update(make_tools(state, state.factory))
    return {name: _typed_failures(name, fn) for name, fn in bridges.items()}


def _typed_failures(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` raising only :class:`~dspy_rlm.errors.BudgetExhausted` or :class:`~dspy_rlm.errors.ToolError`,
    so model code sees the same exception types from every REPL backend."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            failure = tool_failure(name, exc)
            if failure is exc:
                raise
            raise failure from exc

    return call


# -- sub-LM calls ---------------------------------------------------------------------------------
def _check_prompt(prompt: Any) -> None:
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError(
            f"llm_query needs a non-empty string prompt, got {type(prompt).__name__} "
            f"{str(prompt)[:60]!r}. Build the prompt with an f-string."
        )


def _llm_node(state: RunState, prompt: str, model: str | None) -> TraceNode:
    node = TraceNode(task=_clip(prompt, TRACE_TEXT_CHARS), depth=state.depth + 1, kind="llm", model=model)
    state.trace.add_subcall(node)
    return node


async def _complete_all(state: RunState, prompts: list[str], lm: Any, label: str) -> list[str]:
    workers = max(1, min(state.config.child.max_concurrency, len(prompts)))
    sem = asyncio.Semaphore(workers)
    pool = None if lm_is_async(lm) else ThreadPoolExecutor(workers, thread_name_prefix="dspy-rlm-llm")

    async def one(prompt: str) -> str:
        node = _llm_node(state, prompt, label)
        replayed = _replayed(state, prompt, node)
        if replayed is not None:
            return replayed
        async with sem:
            return _journaled(state, prompt, await _complete(lm, prompt, node, pool), node)

    try:
        return list(await asyncio.gather(*(one(p) for p in prompts)))
    finally:
        if pool is not None:
            pool.shutdown(wait=False)


def _replayed(state: RunState, prompt: str, node: TraceNode) -> str | None:
    """The answer a crashed process already got for this prompt in this iteration (checkpoint journal)."""
    text = None if state.checkpoint is None else state.checkpoint.replay("llm", prompt)
    if text is not None:
        node.answer_source, node.result_kind = "final_direct", "submitted"
        node.outputs = {"answer": _clip(text, TRACE_TEXT_CHARS)}
        node.warn("replayed from the checkpoint journal: no LM call")
    return text


def _journaled(state: RunState, prompt: str, text: str, node: TraceNode) -> str:
    """Journal a sub-LM answer (not a failure) so a crash before the iteration ends does not pay for it twice."""
    if state.checkpoint is not None and node.result_kind != "failed":
        state.checkpoint.record("llm", prompt, text, state.budget.spent.iterations)
    return text


# -- sub-RLMs -------------------------------------------------------------------------------------
def _as_task(item: Any) -> tuple[str, Any]:
    task: Any
    if isinstance(item, str):
        task, ctx = item, None
    elif isinstance(item, dict):
        task, ctx = item.get("task"), item.get("context")
    elif isinstance(item, (list, tuple)) and len(item) == 2:
        task, ctx = item
    else:
        raise TypeError(
            "batch_rlm_query items must be 'task', ('task', context) or {'task': ..., 'context': ...}, "
            f"got {type(item).__name__}"
        )
    if not isinstance(task, str) or not task.strip():
        raise ValueError(f"a sub-RLM task must be a non-empty string, got {type(task).__name__} {str(task)[:60]!r}")
    return task, ctx


def _run_children(state: RunState, tasks: list[tuple[str, Any]]) -> list[str]:
    if not tasks:
        return []
    policy = state.config.child
    k, reason = state.budget.affordable_children(len(tasks), policy.child_share, policy.downgrade_threshold)
    spawn = state.spawn

    async def run_all() -> list[str]:
        sem = asyncio.Semaphore(max(1, policy.max_concurrency))

        async def one(i: int, task: str, ctx: Any) -> str:
            async with sem:
                if i >= k or spawn is None:
                    return await _downgraded(state, task, ctx, reason or "no sub-RLM runner in this run")
                try:
                    return await spawn(task, ctx, k)
                except Exception as exc:
                    logger.debug("sub-RLM failed: %s", type(exc).__name__, exc_info=exc)  # shown to the model
                    return item_error(exc)

        return list(await asyncio.gather(*(one(i, t, c) for i, (t, c) in enumerate(tasks))))

    workers = 2 * max(1, min(policy.max_concurrency, len(tasks))) + 2
    return _run_private(run_all(), workers)


async def _downgraded(state: RunState, task: str, ctx: Any, reason: str) -> str:
    """``rlm_query`` as a plain sub-LM call, or the direct-answer fallback text when nothing is left."""
    prompt = task if ctx is None else f"{task}\n\nContext:\n{_clip(ctx, 400_000)}"
    try:
        state.budget.reserve_llm_calls(1)
    except BudgetExhausted as exc:
        node = TraceNode(
            task=_clip(task, TRACE_TEXT_CHARS),
            depth=state.depth + 1,
            kind="fallback",
            answer_source="forced",
            result_kind="extracted",
        )
        node.warn("Budget exhausted, answer was forced")
        text = NO_BUDGET_TEXT.format(limit=exc.limit)
        node.outputs = {"answer": text}
        state.trace.add_subcall(node)
        state.trace.warn(f"rlm_query answered by fallback: no budget left ({exc.limit})")
        return text
    state.trace.warn(f"rlm_query downgraded to llm_query: {reason}")
    lm, label = state.sub_lm()
    node = _llm_node(state, prompt, label)
    node.warn(f"downgraded from rlm_query: {reason}")
    return await _complete(lm, prompt, node)


# -- user tools -----------------------------------------------------------------------------------
def _tool_bridge(tool: Any, loop: asyncio.AbstractEventLoop | None) -> Callable[..., Any]:
    """A user tool callable from the REPL thread; ``async def`` tools run on the run's event loop."""
    func = getattr(tool, "func", tool)

    def call(*args: Any, **kwargs: Any) -> Any:
        target = functools.partial(func, **kwargs) if kwargs else func
        return call_soon_threadsafe(loop, target, *args)

    call.__name__ = getattr(func, "__name__", "tool")
    call.__doc__ = getattr(tool, "desc", None) or func.__doc__
    try:
        call.__signature__ = inspect.signature(func)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        pass
    return call
