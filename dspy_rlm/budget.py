"""Limits and counters for a run and its sub-runs, checked through one thread-safe object.

Counted: iterations (per run), sub-LM calls (``llm_query`` and friends), prompt + completion tokens and USD
cost (every LM call made while the run is active, from DSPy's usage reports), wall time and recursion depth.

Sub-budget rule (children of ``rlm_query`` / ``batch_rlm_query``): a child gets ``child_share`` (default
half) of what remains of each shared limit at the moment it starts, divided evenly among the children of
a batch; its iterations are capped by ``sub_max_iters``. Whatever a child spends is also charged to every
ancestor, so the root's totals are exact and no child can make the tree overspend: reservations are
atomic under one lock shared by the whole tree.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

LIMIT_NAMES = ("iterations", "llm_calls", "tokens", "cost", "time", "depth")


class BudgetExhausted(RuntimeError):
    """A limit was reached. ``limit`` names it (one of LIMIT_NAMES)."""

    def __init__(self, limit: str, message: str):
        super().__init__(message)
        self.limit = limit


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
        for name in ("max_iters", "max_llm_calls", "max_tokens", "max_cost", "max_time"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, (int, float)) or value < 0):
                raise ValueError(f"{name} must be a non-negative number or None, got {value!r}")
        if self.max_iters is not None and self.max_iters < 1:
            raise ValueError(f"max_iters must be at least 1, got {self.max_iters}")


@dataclass
class Spent:
    iterations: int = 0
    llm_calls: int = 0
    lm_calls_total: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass
class Budget:
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

    def exhausted(self) -> str | None:
        """The first limit reached by this run or any ancestor, or None."""
        with self._lock:
            node: Budget | None = self
            while node is not None:
                hit = node._own_exhausted()
                if hit:
                    return hit
                node = node.parent
            return None

    def _own_exhausted(self, ignore_iterations: bool = False) -> str | None:
        lim, sp = self.limits, self.spent
        if not ignore_iterations and self is not None and lim.max_iters is not None and sp.iterations >= lim.max_iters:
            return "iterations"
        if lim.max_llm_calls is not None and sp.llm_calls >= lim.max_llm_calls:
            return "llm_calls"
        if lim.max_tokens is not None and sp.tokens >= lim.max_tokens:
            return "tokens"
        if lim.max_cost is not None and sp.cost >= lim.max_cost:
            return "cost"
        if lim.max_time is not None and self.elapsed() >= lim.max_time:
            return "time"
        return None

    def can_proceed(self, kind: str = "iteration", n: int = 1) -> bool:
        """Whether ``n`` more of ``kind`` ('iteration', 'llm_call', 'subcall') fit in every limit."""
        with self._lock:
            if kind == "iteration":
                return self.exhausted() is None
            if kind == "subcall" and self.depth >= self.limits.max_depth:
                return False
            return self._chain_fits(llm_calls=n if kind == "llm_call" else 0) is None

    def _chain_fits(self, llm_calls: int = 0) -> str | None:
        node: Budget | None = self
        while node is not None:
            lim, sp = node.limits, node.spent
            if lim.max_llm_calls is not None and sp.llm_calls + llm_calls > lim.max_llm_calls:
                return "llm_calls"
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
                raise BudgetExhausted(hit, f"budget exhausted ({hit}): {n} more LM call(s) requested, "
                                           f"{left if left is not None else 'unlimited'} call(s) left. Use Python "
                                           "for the rest of the work, or answer with what you have")
            for node in self._chain():
                node.spent.llm_calls += n

    def add_iteration(self) -> None:
        with self._lock:
            self.spent.iterations += 1

    def charge_usage(self, prompt_tokens: int = 0, completion_tokens: int = 0, cost: float = 0.0) -> None:
        """Record one LM call's usage on this budget and every ancestor."""
        with self._lock:
            for node in self._chain():
                node.spent.lm_calls_total += 1
                node.spent.prompt_tokens += int(prompt_tokens or 0)
                node.spent.completion_tokens += int(completion_tokens or 0)
                node.spent.cost += float(cost or 0.0)

    def _chain(self):
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
            limits = replace(self.limits, max_iters=iters, max_llm_calls=part("llm_calls", True),
                             max_tokens=part("tokens", True), max_cost=part("cost", False),
                             max_time=part("time", False))
            return Budget(limits=limits, depth=self.depth + 1, parent=self)

    # -- reporting --------------------------------------------------------------------------------
    def remaining(self) -> dict[str, Any]:
        """What is left of each limit (None = unlimited), taking ancestors into account."""
        with self._lock:
            out: dict[str, Any] = {}
            for node in self._chain():
                lim, sp = node.limits, node.spent
                vals = {
                    "llm_calls": None if lim.max_llm_calls is None else lim.max_llm_calls - sp.llm_calls,
                    "tokens": None if lim.max_tokens is None else lim.max_tokens - sp.tokens,
                    "cost": None if lim.max_cost is None else lim.max_cost - sp.cost,
                    "time": None if lim.max_time is None else lim.max_time - node.elapsed(),
                }
                for k, v in vals.items():
                    if v is not None:
                        v = max(v, 0)
                        out[k] = v if out.get(k) is None else min(out[k], v)
                    else:
                        out.setdefault(k, None)
            lim = self.limits
            out["iterations"] = None if lim.max_iters is None else max(lim.max_iters - self.spent.iterations, 0)
            out["depth"] = lim.max_depth - self.depth
            return out

    def describe(self) -> str:
        """One line for the model's prompt."""
        r, sp = self.remaining(), self.spent

        def fmt(name: str, unit: str = "") -> str:
            v = r.get(name)
            if v is None:
                return f"{name}: unlimited"
            return f"{name}: {v:.4g}{unit} left" if isinstance(v, float) else f"{name}: {v}{unit} left"

        cost = "cost: unlimited" if r.get("cost") is None else f"cost: ${r['cost']:.4f} left"
        return (f"iterations: {sp.iterations} used, {fmt('iterations')[12:]}; sub-LM calls: "
                f"{fmt('llm_calls')[11:]}; {fmt('tokens')}; {cost}; {fmt('time', ' s')}; "
                f"depth {self.depth} of max {self.limits.max_depth}")

    def to_dict(self) -> dict[str, Any]:
        with self._lock:
            sp = self.spent
            return {
                "depth": self.depth, "elapsed_s": round(self.elapsed(), 4), "iterations": sp.iterations,
                "llm_calls": sp.llm_calls, "lm_calls_total": sp.lm_calls_total,
                "prompt_tokens": sp.prompt_tokens, "completion_tokens": sp.completion_tokens,
                "cost": round(sp.cost, 6),
                "limits": {k: v for k, v in self.limits.__dict__.items()},
                "remaining": self.remaining(),
            }
