"""A budget's counters (:class:`Spent`) and what it reports of them: what is left of each limit, the one
line the model's prompt shows, and the dicts of the trace. :class:`BudgetReport` is a base class of
:class:`dspy_rlm.budget.Budget`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from dspy_rlm.limits import Limits
from dspy_rlm.stops import _fmt


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


class _Reported(Protocol):
    """What the reports read of a :class:`~dspy_rlm.budget.Budget`."""

    limits: Limits
    depth: int
    spent: Spent
    _lock: Any

    @property
    def parent(self) -> _Reported | None: ...

    def elapsed(self) -> float: ...

    def chain(self) -> Any: ...

    def remaining(self) -> dict[str, Any]: ...


class BudgetReport:
    """The reports of :class:`~dspy_rlm.budget.Budget` (its lock held while they read)."""

    def remaining(self: _Reported) -> dict[str, Any]:
        """What is left of each limit (None = unlimited), taking ancestors into account."""
        with self._lock:
            out: dict[str, Any] = {}
            for node in self.chain():
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

    def describe(self: _Reported) -> str:
        """What remains, in one line for the model's prompt (a sub-RLM's line adds its allocation and what
        its parent has left)."""
        with self._lock:
            r, sp = self.remaining(), self.spent
            line = (
                f"iterations: {sp.iterations} used, {_left(r, 'iterations')}; sub-LM calls: "
                f"{_left(r, 'llm_calls')}; tokens: {_left(r, 'tokens')}; cost: {_left(r, 'cost', '$')}; "
                f"time: {_left(r, 'time', unit=' s')}; depth {self.depth} of max {self.limits.max_depth}"
            )
            if self.parent is None:
                return line
            lim, pr = self.limits, self.parent.remaining()
            allocated = ", ".join(
                f"{name} {_fmt(value, prefix, unit)}"
                for name, value, prefix, unit in (
                    ("iterations", lim.max_iters, "", ""),
                    ("sub-LM calls", lim.max_llm_calls, "", ""),
                    ("tokens", lim.max_tokens, "", ""),
                    ("cost", lim.max_cost, "$", ""),
                    ("time", lim.max_time, "", " s"),
                )
                if value is not None
            )
            parent = "; ".join(
                f"{name} {_left(pr, key, prefix, unit)}"
                for name, key, prefix, unit in (
                    ("sub-LM calls", "llm_calls", "", ""),
                    ("tokens", "tokens", "", ""),
                    ("cost", "cost", "$", ""),
                    ("time", "time", "", " s"),
                )
            )
            return f"{line}\nallocated to you by the parent: {allocated or 'no limits'}\nthe parent has left: {parent}"

    def to_dict(self: _Reported) -> dict[str, Any]:
        with self._lock:
            sp = self.spent
            return {
                "depth": self.depth,
                "elapsed_s": round(self.elapsed(), 4),
                "iterations": sp.iterations,
                "llm_calls": sp.llm_calls,
                "lm_calls_total": sp.lm_calls_total,
                "prompt_tokens": sp.prompt_tokens,
                "completion_tokens": sp.completion_tokens,
                "cost": round(sp.cost, 6),
                "limits": dict(self.limits.__dict__),
                "remaining": self.remaining(),
            }

    def snapshot(self: _Reported) -> dict[str, Any]:
        """What remains (as :meth:`remaining`) plus ``spent``: this run's counters so far, for the trace."""
        with self._lock:
            out = self.remaining()
            sp = self.spent
            out["spent"] = {
                "iterations": sp.iterations,
                "llm_calls": sp.llm_calls,
                "lm_calls_total": sp.lm_calls_total,
                "tokens": sp.tokens,
                "cost": round(sp.cost, 6),
                "elapsed_s": round(self.elapsed(), 4),
            }
            return out


def _left(remaining: dict[str, Any], key: str, prefix: str = "", unit: str = "") -> str:
    value = remaining.get(key)
    return "unlimited" if value is None else f"{_fmt(value, prefix, unit)} left"
