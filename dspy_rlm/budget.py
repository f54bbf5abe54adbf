"""Limits and counters for a run and its sub-runs, checked through one thread-safe object.

Counted: iterations (per run), sub-LM calls, prompt + completion tokens and USD cost (every LM call made
while the run is active, from DSPy's usage reports; see ``runtime.BudgetUsageTracker``), wall time and
recursion depth. ``can_proceed(kind)`` answers "may I?" for 'iteration', 'llm_call' and 'subcall';
:meth:`Budget.exhausted` names the first limit reached (one of :data:`LIMIT_NAMES`), and the loop ends the
run through fallback extraction with ``result.limit`` set to that name.

What counts as a sub-LM call (``max_llm_calls``): every ``llm_query`` prompt (``llm_query_batched`` reserves
one per prompt), and every action step of a sub-RLM (a sub-RLM's iteration is an LM call made on its
parent's behalf, as dspy.RLM meters its sandbox sub-agents' LM calls). The root's own action steps and
fallback extraction are bounded by ``max_iters``, tokens, cost and time instead. As in dspy.RLM, running out
of sub-LM calls never ends the root run: the call inside the REPL fails (``BudgetExhausted``, shown to the
model) and the run goes on; a sub-RLM, whose every step is such a call, ends.

When limits are checked: before every iteration and at every sub-call reservation. ``max_tokens`` /
``max_cost`` are never checked in the middle of a step: a step already running finishes, and the fallback
extraction after a limit is one more LM call, so they can be overrun by one step plus the extraction.

``max_time`` holds for the whole run (:meth:`Budget.step_deadline`, :meth:`Budget.extraction_deadline`):

* The run's end is ``started + max_time`` (the earliest end of its chain, for a sub-RLM). The last
  ``extraction_reserve(max_time) = min(max(10 s, 10% of max_time), 50% of max_time)`` of it is kept for
  the fallback extraction: no new step starts once only the reserve is left (the ``time`` limit).
* Every action-step LM call gets the step deadline (the end minus the reserve), the extraction call gets the
  end itself (at least :data:`MIN_EXTRACTION_S` from when it starts). ``runtime.deadline_config`` turns a
  deadline into LM keywords: ``_deadline`` for a local ``OutlinesLM`` (generation stops there; a cut action
  step is an LM failure the loop handles; a cut extraction is a typed ``Failed``), ``timeout=`` seconds for a
  ``dspy.LM`` (API) call; other LMs get none.
* So a run ends within ``max_time`` plus a margin: one prefill chunk (both local engines check the deadline
  between prefill chunks -- 256 tokens on CPU -- and between generated tokens), plus a code block running at the
  step deadline (up to ``repl_timeout``; sub-LM calls inside it are not given deadlines), plus at most
  :data:`MIN_EXTRACTION_S` when the extraction starts late.

Child allocation rule (``rlm_query`` / ``batch_rlm_query``): when a child starts it gets
``child_share / n`` (default ``0.5 / n`` for a batch of ``n``) of what remains *at that moment* of each
shared limit (sub-LM calls, tokens, cost, time; at least one call / token), its iterations capped by
``sub_max_iters``, at depth + 1. Siblings queued behind ``max_concurrency`` get their share of what is
left when they start, so a batch never takes more than ``child_share`` of the remainder it started with.
Whatever a child spends is also charged to every ancestor, and a reservation checks the whole chain
atomically under one lock shared by the tree: a child can never make the tree overspend, and the root's
counters are the exact totals of the tree.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from dspy_rlm.budget_report import BudgetReport, Spent, _left  # noqa: F401 - _left: kept importable here
from dspy_rlm.errors import BudgetExhausted
from dspy_rlm.limits import Limits
from dspy_rlm.stops import (  # noqa: F401 - LIMIT_NAMES, _fmt: kept importable here
    LIMIT_ARGS,
    LIMIT_NAMES,
    FallbackReason,
    StopReason,
    _fmt,
)

#: The fallback extraction's reserved slice of ``max_time``: at least this many seconds ...
EXTRACTION_RESERVE_MIN_S = 10.0
#: ... or this share of ``max_time`` when larger ...
EXTRACTION_RESERVE_SHARE = 0.1
#: ... but never more than this share of it (a short ``max_time`` still leaves time for steps).
EXTRACTION_RESERVE_CAP = 0.5
#: The extraction gets at least this many seconds even when it starts after the run's end.
MIN_EXTRACTION_S = 2.0
PROCEED_KINDS = ("iteration", "llm_call", "subcall")


def extraction_reserve(max_time: float) -> float:
    """Seconds of a ``max_time`` window kept for the fallback extraction:
    ``min(max(10 s, 10% of max_time), 50% of max_time)``."""
    return min(max(EXTRACTION_RESERVE_MIN_S, EXTRACTION_RESERVE_SHARE * max_time), EXTRACTION_RESERVE_CAP * max_time)


@dataclass
class Budget(BudgetReport):
    """One run's budget. Create the root with ``Budget(limits)``; children with :meth:`child`."""

    limits: Limits = field(default_factory=Limits)
    depth: int = 0
    parent: Budget | None = None
    started: float = field(default_factory=time.monotonic)
    spent: Spent = field(default_factory=Spent)
    _lock: Any = None

    def __post_init__(self) -> None:
        if self._lock is None:
            self._lock = self.parent._lock if self.parent is not None else threading.RLock()

    # -- checks -----------------------------------------------------------------------------------
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def exhausted(self) -> StopReason | None:
        """The first limit that ends this run, reached by it or any ancestor, or None.

        Iterations are per run: an ancestor on its last iteration does not stop a child started in it. Sub-LM
        calls end only a sub-RLM (the root's ``max_llm_calls`` fails the calls inside its REPL instead).
        """
        with self._lock:
            node: Budget | None = self
            while node is not None:
                hit = node._own_exhausted(ignore_iterations=node is not self, ignore_calls=self.parent is None)
                if hit:
                    return hit
                node = node.parent
            return None

    def _own_exhausted(self, ignore_iterations: bool = False, ignore_calls: bool = False) -> StopReason | None:
        lim, sp = self.limits, self.spent
        if not ignore_iterations and lim.max_iters is not None and sp.iterations >= lim.max_iters:
            return StopReason.ITERATIONS
        if not ignore_calls and lim.max_llm_calls is not None and sp.llm_calls >= lim.max_llm_calls:
            return StopReason.LLM_CALLS
        if lim.max_tokens is not None and sp.tokens >= lim.max_tokens:
            return StopReason.TOKENS
        if lim.max_cost is not None and sp.cost >= lim.max_cost:
            return StopReason.COST
        if lim.max_time is not None and self.elapsed() >= lim.max_time:
            return StopReason.TIME
        return None

    def can_proceed(self, kind: str = "iteration", n: int = 1) -> bool:
        """Whether ``n`` more of ``kind`` fit in every limit of this budget and its ancestors.

        Args:
            kind: ``'iteration'`` (another loop step), ``'llm_call'`` (``n`` sub-LM calls) or ``'subcall'``
                (``n`` sub-RLMs one level deeper: depth below ``max_depth`` and a call each left).
            n: How many.
        """
        if kind not in PROCEED_KINDS:
            raise ValueError(f"can_proceed kind must be one of {PROCEED_KINDS}, got {kind!r}")
        with self._lock:
            if kind == "iteration":
                hit = self.exhausted()
                return hit is None and (self.parent is None or self._chain_fits(llm_calls=1) is None)
            if kind == "subcall" and self.depth >= self.limits.max_depth:
                return False
            return self._chain_fits(llm_calls=n) is None

    def _chain_fits(self, llm_calls: int = 0) -> StopReason | None:
        node: Budget | None = self
        while node is not None:
            lim, sp = node.limits, node.spent
            if lim.max_llm_calls is not None and sp.llm_calls + llm_calls > lim.max_llm_calls:
                return StopReason.LLM_CALLS
            hit = node._own_exhausted(ignore_iterations=True)
            if hit:
                return hit
            node = node.parent
        return None

    # -- spending ---------------------------------------------------------------------------------
    def reserve_llm_calls(self, n: int = 1) -> None:
        """Atomically take ``n`` sub-LM calls from this budget and its ancestors, or raise BudgetExhausted."""
        with self._lock:
            hit = self._chain_fits(llm_calls=n)
            if hit:
                left = self.remaining().get("llm_calls")
                raise BudgetExhausted(
                    hit,
                    f"budget exhausted ({hit}): {n} more LM call(s) requested, "
                    f"{left if left is not None else 'unlimited'} call(s) left. Use Python "
                    "for the rest of the work, or answer with what you have",
                )
            for node in self.chain():
                node.spent.llm_calls += n

    def start_iteration(self) -> StopReason | None:
        """Atomically check every limit of the chain and count one iteration.

        Returns:
            ``None`` when the iteration may run (it is counted), else the name of the limit reached.
            For a sub-RLM the iteration also takes one sub-LM call from itself and its ancestors.
        """
        with self._lock:
            hit = self.exhausted()
            if hit is None and self.parent is not None:
                hit = self._chain_fits(llm_calls=1)
            step_deadline = self.step_deadline()
            if hit is None and step_deadline is not None and time.monotonic() >= step_deadline:
                hit = StopReason.TIME  # only the extraction's reserved slice is left
            if hit is None:
                self._count_iteration()
            return hit

    # -- deadlines --------------------------------------------------------------------------------
    def end(self) -> float | None:
        """The ``time.monotonic()`` instant this run must end by (the earliest ``max_time`` of its chain)."""
        with self._lock:
            ends = [node.started + node.limits.max_time for node in self.chain() if node.limits.max_time is not None]
            return min(ends) if ends else None

    def deadline(self, reserve: float = 0.0) -> float | None:
        """The run's end minus ``reserve`` seconds, or ``None`` without a time limit."""
        end = self.end()
        return None if end is None else end - reserve

    def reserve(self) -> float:
        """Seconds kept for the fallback extraction: :func:`extraction_reserve` of this run's window."""
        end = self.end()
        return 0.0 if end is None else extraction_reserve(max(end - self.started, 0.0))

    def step_deadline(self) -> float | None:
        """When action steps must stop: the end minus the extraction reserve (``None``: no time limit)."""
        return self.deadline(reserve=self.reserve())

    def extraction_deadline(self) -> float | None:
        """The fallback extraction's deadline: the run's end, but at least :data:`MIN_EXTRACTION_S` from now."""
        end = self.end()
        return None if end is None else max(end, time.monotonic() + MIN_EXTRACTION_S)

    def _count_iteration(self) -> None:
        self.spent.iterations += 1
        if self.parent is not None:
            for node in self.chain():
                node.spent.llm_calls += 1

    def charge_usage(self, prompt_tokens: int = 0, completion_tokens: int = 0, cost: float = 0.0) -> None:
        """Record one LM call's usage on this budget and every ancestor."""
        with self._lock:
            for node in self.chain():
                node.spent.lm_calls_total += 1
                node.spent.prompt_tokens += int(prompt_tokens or 0)
                node.spent.completion_tokens += int(completion_tokens or 0)
                node.spent.cost += float(cost or 0.0)

    def chain(self):
        """This budget, then its parent, up to the root."""
        node: Budget | None = self
        while node is not None:
            yield node
            node = node.parent

    # -- children ---------------------------------------------------------------------------------
    def child(self, share: float = 0.5, n_children: int = 1, max_iters: int | None = 5) -> Budget:
        """A sub-budget for one of ``n_children`` children: ``share`` of what remains, split evenly."""
        with self._lock:
            left = self.remaining()
            frac = share / max(n_children, 1)

            def part(name: str, integer: bool) -> Any:
                value = left.get(name)
                if value is None:
                    return None
                value = value * frac
                return max(1, math.floor(value)) if integer else value

            iters = max_iters if self.limits.max_iters is None else min(max_iters or 10**9, self.limits.max_iters)
            limits = replace(
                self.limits,
                max_iters=iters,
                max_llm_calls=part("llm_calls", True),
                max_tokens=part("tokens", True),
                max_cost=part("cost", False),
                max_time=part("time", False),
            )
            return Budget(limits=limits, depth=self.depth + 1, parent=self)

    def affordable_children(self, n: int, share: float, threshold: int) -> tuple[int, str]:
        """How many of ``n`` children may run as sub-RLMs, and why the others are downgraded.

        Each of ``k`` children gets ``share / k`` of the sub-LM calls left (:meth:`child`): only as many run as
        get at least ``threshold`` calls each, so none starts with too little to finish.
        """
        threshold = max(1, threshold)
        with self._lock:
            if self.depth >= self.limits.max_depth:
                return 0, f"depth {self.depth} is the maximum ({self.limits.max_depth})"
            left = self.remaining().get("llm_calls")
        if left is None:
            return n, ""
        k = min(n, math.floor(left * share / threshold))
        if k >= n:
            return n, ""
        return k, (
            f"only {left} sub-LM call(s) left: a sub-RLM gets child_share={share:g} of them "
            f"and needs at least downgrade_threshold={threshold}"
        )

    def fallback_reason(self, stop: StopReason, detail: str = "") -> FallbackReason:
        """``stop`` typed with what was used and allowed (for a budget limit of this run or its chain)."""
        if not stop.is_budget:
            return FallbackReason(stop, detail=detail)
        with self._lock:
            sp, lim = self.spent, self.limits
            used = {
                "iterations": sp.iterations,
                "llm_calls": sp.llm_calls,
                "tokens": sp.tokens,
                "cost": round(sp.cost, 6),
                "time": round(self.elapsed(), 3),
                "depth": self.depth,
            }[stop.value]
            allowed = getattr(lim, LIMIT_ARGS[stop])
        return FallbackReason(stop, used=used, allowed=allowed, detail=detail)
