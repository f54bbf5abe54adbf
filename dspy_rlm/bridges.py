"""Host functions reachable from model code: llm_query, llm_query_batched, rlm_query, batch_rlm_query, tools.

They run on the host (the sandbox forwards the call), draw on the run's thread-safe budget, and never raise
for budget reasons in rlm_query: it downgrades to llm_query when the budget is low or the depth is at its
maximum, and returns a direct-answer fallback text when nothing is left.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import dspy

from dspy_rlm.budget import Budget, BudgetExhausted
from dspy_rlm.runtime import call_soon_threadsafe, lm_text, run_sync
from dspy_rlm.trace import TraceNode

if TYPE_CHECKING:
    from dspy_rlm.rlm import RLM

logger = logging.getLogger(__name__)
BRIDGE_NAMES = ("llm_query", "llm_query_batched", "rlm_query", "batch_rlm_query")
NO_BUDGET_TEXT = ("[rlm_query fallback] No budget is left for a sub-call ({limit}). Answer this part yourself "
                  "from the data you already have.")


@dataclass
class RunState:
    """What the bridges of one run need."""

    rlm: RLM
    budget: Budget
    trace: TraceNode
    loop: asyncio.AbstractEventLoop | None = None
    extra_tools: dict[str, Callable[..., Any]] = field(default_factory=dict)

    @property
    def depth(self) -> int:
        return self.budget.depth


def make_bridges(state: RunState) -> dict[str, Callable[..., Any]]:
    """The host functions for one run, keyed by the name the model calls them by."""
    rlm = state.rlm

    def sub_lm() -> Any:
        lm = rlm.sub_lm or dspy.settings.lm
        if lm is None:
            raise RuntimeError("No LM configured. Use dspy.configure(lm=...) or pass sub_lm= to RLM.")
        return lm

    def llm_query(prompt: str) -> str:
        """Query the sub-LM with a prompt string; returns its text."""
        if not isinstance(prompt, str) or not prompt.strip():
            raise ValueError("llm_query(prompt) needs a non-empty string")
        state.budget.reserve_llm_calls(1)
        return lm_text(sub_lm()(prompt))

    def llm_query_batched(prompts: list[str]) -> list[str]:
        """Query the sub-LM with many prompts concurrently; a failed item comes back as '[ERROR] ...'."""
        prompts = list(prompts)
        if not prompts:
            return []
        state.budget.reserve_llm_calls(len(prompts))
        lm = sub_lm()

        def one(p: str) -> str:
            try:
                return lm_text(lm(p))
            except Exception as exc:  # noqa: BLE001 - per-item failure, typed for the model
                return f"[ERROR] {type(exc).__name__}: {exc}"

        workers = max(1, min(rlm.max_concurrency, len(prompts)))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(contextvars.copy_context().run, one, p) for p in prompts]
            return [f.result() for f in futures]

    def rlm_query(task: str, context: Any = None) -> str:
        """Solve a sub-task with a sub-RLM (its own REPL and a share of the budget); returns its answer."""
        return _run_children(state, [(task, context)], llm_query)[0]

    def batch_rlm_query(tasks: list[Any]) -> list[str]:
        """Run several sub-RLMs concurrently. Items: 'task' or ('task', context) or {'task':..,'context':..}."""
        return _run_children(state, [_as_task(t) for t in tasks], llm_query)

    bridges: dict[str, Callable[..., Any]] = {
        "llm_query": llm_query, "llm_query_batched": llm_query_batched,
        "rlm_query": rlm_query, "batch_rlm_query": batch_rlm_query,
    }
    for name, tool in {**rlm._user_tools, **state.extra_tools}.items():
        bridges[name] = _tool_bridge(tool, state.loop)
    return bridges


def _as_task(item: Any) -> tuple[str, Any]:
    if isinstance(item, str):
        return item, None
    if isinstance(item, dict):
        return str(item.get("task", "")), item.get("context")
    if isinstance(item, (list, tuple)) and len(item) == 2:
        return str(item[0]), item[1]
    raise TypeError("batch_rlm_query items must be 'task', ('task', context) or {'task':..., 'context':...}")


def _tool_bridge(tool: Any, loop: asyncio.AbstractEventLoop | None) -> Callable[..., Any]:
    func = getattr(tool, "func", tool)

    def call(*args: Any, **kwargs: Any) -> Any:
        return call_soon_threadsafe(loop, func, *args, **kwargs) if kwargs else call_soon_threadsafe(loop, func, *args)

    call.__name__ = getattr(func, "__name__", "tool")
    call.__doc__ = getattr(tool, "desc", None) or func.__doc__
    try:
        call.__signature__ = inspect.signature(func)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        pass
    return call


def _downgrade_reason(state: RunState, n: int) -> str | None:
    """Why rlm_query should become llm_query (None = a sub-RLM may run)."""
    rlm, budget = state.rlm, state.budget
    if budget.depth >= budget.limits.max_depth:
        return f"depth {budget.depth} is the maximum ({budget.limits.max_depth})"
    left = budget.remaining().get("llm_calls")
    if left is not None and left < rlm.downgrade_threshold * n:
        return f"only {left} sub-LM call(s) left (a sub-RLM needs about {rlm.downgrade_threshold})"
    return None


def _run_children(state: RunState, tasks: list[tuple[str, Any]], llm_query: Callable[[str], str]) -> list[str]:
    if not tasks:
        return []
    reason = _downgrade_reason(state, len(tasks))
    if reason is not None:
        return [_downgraded(state, task, ctx, reason, llm_query) for task, ctx in tasks]
    from dspy_rlm.rlm import run_child

    async def run_all() -> list[str]:
        sem = asyncio.Semaphore(max(1, state.rlm.max_concurrency))

        async def one(task: str, ctx: Any) -> str:
            async with sem:
                try:
                    return await run_child(state, task, ctx, n_siblings=len(tasks))
                except Exception as exc:  # noqa: BLE001 - per-item failure, typed for the model
                    logger.warning("sub-RLM failed: %s", exc)
                    return f"[ERROR] {type(exc).__name__}: {exc}"

        return list(await asyncio.gather(*(one(t, c) for t, c in tasks)))

    return run_sync(run_all())


def _downgraded(state: RunState, task: str, ctx: Any, reason: str, llm_query: Callable[[str], str]) -> str:
    node = TraceNode(task=task, depth=state.depth + 1, kind="llm")
    state.trace.add_subcall(node)
    prompt = task if ctx is None else f"{task}\n\nContext:\n{_clip(ctx)}"
    try:
        answer = llm_query(prompt)
        node.answer_source, node.outputs = "final_direct", {"answer": answer}
        state.trace.warn(f"rlm_query downgraded to llm_query: {reason}")
    except BudgetExhausted as exc:
        answer = NO_BUDGET_TEXT.format(limit=exc.limit)
        node.answer_source, node.kind = "forced", "fallback"
        node.warn("Budget exhausted, answer was forced")
    except Exception as exc:  # noqa: BLE001
        answer = f"[ERROR] {type(exc).__name__}: {exc}"
        node.answer_source = "error"
    return answer


def _clip(ctx: Any, limit: int = 400_000) -> str:
    text = ctx if isinstance(ctx, str) else repr(ctx)
    return text if len(text) <= limit else text[:limit] + f"\n... [{len(text) - limit:,} chars cut]"
