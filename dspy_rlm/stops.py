"""Why a run stops before the model submits: the budget's limit names, :class:`StopReason` (a limit, or a
failure that ends the run) and :class:`FallbackReason` (a stop typed with what was used and allowed)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

LIMIT_NAMES = ("iterations", "llm_calls", "tokens", "cost", "time", "depth")


class StopReason(str, Enum):
    """Why a run stopped before the model submitted: a budget limit, or a failure that ends the run."""

    ITERATIONS = "iterations"
    LLM_CALLS = "llm_calls"
    TOKENS = "tokens"
    COST = "cost"
    TIME = "time"
    DEPTH = "depth"
    SANDBOX = "sandbox"  # the sandbox failed and could not recover
    FIX_ATTEMPTS = "fix_attempts"  # the model's fix attempts for a failing step ran out
    LM_ERRORS = "lm_errors"  # the LM failed MAX_CONSECUTIVE_LM_FAILURES times in a row
    LM_CONFIG = "lm_config"  # the LM is not set up (no API key, an unknown model): no retry would help
    INTERRUPTED = "interrupted"  # Ctrl-C (KeyboardInterrupt) or the run's task was cancelled

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    @property
    def is_budget(self) -> bool:
        """A limit of the budget (the answer is then *forced*, in the seed's words)."""
        return self.value in LIMIT_NAMES


#: Each budget limit's constructor argument.
LIMIT_ARGS = {
    StopReason.ITERATIONS: "max_iters",
    StopReason.LLM_CALLS: "max_llm_calls",
    StopReason.TOKENS: "max_tokens",
    StopReason.COST: "max_cost",
    StopReason.TIME: "max_time",
    StopReason.DEPTH: "max_depth",
}


@dataclass(frozen=True)
class FallbackReason:
    """Why a run went to fallback extraction, typed: the stop reason and, for a limit, used vs allowed."""

    stop: StopReason
    used: float | None = None
    allowed: float | None = None
    detail: str = ""

    def __str__(self) -> str:
        if self.stop.is_budget:
            arg = LIMIT_ARGS[self.stop]
            text = f"reached the {self.stop.value} limit ({arg}={_fmt(self.allowed)}, used {_fmt(self.used)})"
            return f"{text}: {self.detail}" if self.detail else text
        return self.detail or self.stop.value

    def to_dict(self) -> dict[str, Any]:
        return {"stop": self.stop.value, "used": self.used, "allowed": self.allowed, "detail": self.detail}


def _fmt(value: Any, prefix: str = "", unit: str = "") -> str:
    if not isinstance(value, float):
        return f"{prefix}{value}{unit}"
    text = f"{value:.4f}" if prefix == "$" else f"{value:.3g}"
    return f"{prefix}{text}{unit}"
