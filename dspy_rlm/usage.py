"""Usage accounting: every LM call's tokens and cost, charged to the run's budget through DSPy's usage tracker."""

from __future__ import annotations

import threading
from typing import Any

from dspy.utils.usage_tracker import UsageTracker

from dspy_rlm.budget import Budget

LOCAL_PROVIDERS = frozenset({"outlines", "mlx", "local", "dummy", "ollama", "ollama_chat", "lm_studio"})


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
                cost = litellm_cost(lm, prompt, completion)
            self.budget.charge_usage(prompt, completion, float(cost or 0.0))
            charged |= {id(node) for node in self.budget.chain()}
        if isinstance(self.outer, BudgetUsageTracker):
            self.outer._record(lm, usage_entry, charged)
        elif self.outer is not None:
            self.outer.add_usage(lm, usage_entry)


def litellm_cost(model: str, prompt: int, completion: int) -> float:
    """Price from litellm's table for provider-qualified API models; local / scripted models cost 0."""
    if "/" not in str(model) or str(model).split("/", 1)[0] in LOCAL_PROVIDERS:
        return 0.0
    try:
        import litellm

        p, c = litellm.cost_per_token(model=model, prompt_tokens=prompt, completion_tokens=completion)
        return float(p) + float(c)
    except Exception:  # noqa: BLE001 - unknown / local models have no price
        return 0.0


class CallUsage(UsageTracker):
    """Records one call's usage for its trace node and forwards it to the run's tracker."""

    def __init__(self, outer: UsageTracker | None):
        super().__init__()
        self.outer = outer
        self.totals = {"prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0}

    def add_usage(self, lm: str, usage_entry: dict[str, Any]) -> None:
        prompt = int(usage_entry.get("prompt_tokens") or 0)
        completion = int(usage_entry.get("completion_tokens") or 0)
        cost = usage_entry.get("cost")
        self.totals["prompt_tokens"] += prompt
        self.totals["completion_tokens"] += completion
        self.totals["cost"] += float(cost if cost is not None else litellm_cost(lm, prompt, completion))
        if self.outer is not None:
            self.outer.add_usage(lm, usage_entry)
