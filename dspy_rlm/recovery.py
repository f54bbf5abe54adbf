"""Iterative failure recovery mapped onto the REPL loop.

A failing code block opens a *step* ``X.Y`` (iteration X, block Y). Instead of a bare error the model gets a
targeted fix step, ``[FIX X.Y] Fix: <error> at line L``, with the offending line, a strategy and the attempt
(fix id ``X.Y.N``). Each further failure while the step is open is one more fix attempt; a block of a later
iteration that succeeds closes the step (its attempts are cleared; a later block of the *same* answer that
happens to run cleanly is no fix). At ``max_fix_attempts`` the step is given up: the model reads
``Max fix attempts (3) reached for step X.Y. Fix history: [...]`` and is told to change its approach, and a
later failure opens a new step. The run goes on until ``max_iters``, as dspy.RLM's does; with
``end_on_failed_fixes=True`` that message instead ends the run through fallback extraction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dspy_rlm.repl.base import ErrorInfo

_STRATEGIES = {
    "NameError": "define the name first (variables from failed blocks were not created) or check its spelling",
    "KeyError": "print the available keys first (e.g. list(d)[:20]) and use .get()",
    "IndexError": "check len(...) before indexing",
    "TypeError": "print type(x) of the values involved and convert them",
    "AttributeError": "print type(x) and dir(x) to see what the object offers",
    "ValueError": "print the offending value and handle the unexpected format",
    "SyntaxError": "send only valid Python inside ```python fences, without prose",
    "TimeoutError": "work on a smaller slice or use search()/count_matches() instead of Python loops",
    "MemoryError": "avoid copying big inputs; process them in chunks",
    "ZeroDivisionError": "guard the division against empty inputs",
    "ToolError": "check the arguments of the host function and the budget shown",
    "BudgetExhausted": "no more sub-LM calls: finish with Python on what you have and SUBMIT",
    "WorkerDied": "avoid the crashing call; recreate the lost variables you need",
}


@dataclass
class FixRecord:
    """One failing step: its attempts, fix ids, error summaries and the structured failures (with the code)."""

    step: str
    iteration: int = 0  # the iteration of the latest failure
    attempts: int = 0
    fix_ids: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "attempts": self.attempts,
            "fixTaskIds": list(self.fix_ids),
            "errors": list(self.errors),
            "lastError": self.errors[-1] if self.errors else None,
            "failures": list(self.failures),
        }


class RecoveryTracker:
    """Tracks fix attempts per failing step. ``max_fix_attempts`` bounds the attempts per step."""

    end_run = False  # class default: trackers pickled in older checkpoints lack the attribute

    def __init__(self, max_fix_attempts: int = 3, end_run: bool = False):
        if max_fix_attempts < 1:
            raise ValueError(f"max_fix_attempts must be at least 1, got {max_fix_attempts}")
        self.max_fix_attempts = max_fix_attempts
        self.end_run = end_run
        self.open: FixRecord | None = None
        self.history: dict[str, FixRecord] = {}
        self.exhausted: str | None = None

    def on_failure(self, iteration: int, block: int, error: ErrorInfo, code: str = "") -> str:
        """Record a failure and return the fix-step text for the model (or the stop message at the limit)."""
        summary = f"{error.type}: {error.message}".strip()[:300]
        if error.line:
            summary += f" at line {error.line}"
        if self.open is None:
            self.open = FixRecord(step=f"{iteration}.{block}", iteration=iteration)
            self.history[self.open.step] = self.open
        rec = self.open
        rec.iteration = iteration  # the answer that last failed: only a later one can be the fix
        rec.errors.append(summary)
        rec.failures.append(
            {
                "iteration": iteration,
                "block": block,
                "type": error.type,
                "message": str(error.message)[:500],
                "line": error.line,
                "source_line": error.source_line,
                "code": code[:2_000],
            }
        )
        if rec.attempts >= self.max_fix_attempts:
            given_up = (
                f"Max fix attempts ({self.max_fix_attempts}) reached for step {rec.step}. Fix history: {rec.errors}"
            )
            if self.end_run:
                self.exhausted = given_up
                return given_up
            self.open = None  # the step is given up; a later failure opens a new one
            return (
                f"[FIX {rec.step}] {given_up}\n  Do: stop repeating this code; take a different approach to the task."
            )
        rec.attempts += 1
        fix_id = f"{rec.step}.{rec.attempts}"
        rec.fix_ids.append(fix_id)
        lines = [f"[FIX {rec.step}] Fix: {summary}"]
        if error.source_line:
            lines.append(f"  Offending line {error.line}: {error.source_line.strip()}")
        lines.append(f"  Do: {_STRATEGIES.get(error.type, 'read the error, change the failing line, and rerun')}")
        lines.append(
            f"  Attempt {rec.attempts} of {self.max_fix_attempts} for step {rec.step} (fix {fix_id}); "
            "done when this block runs without the error."
        )
        return "\n".join(lines)

    def on_success(self, iteration: int | None = None) -> None:
        """A block of a later iteration than the failure ran cleanly: the open step is fixed."""
        if self.open is not None and (iteration is None or iteration > self.open.iteration):
            self.open = None

    def to_dict(self) -> dict[str, Any]:
        return {step: rec.to_dict() for step, rec in self.history.items()}
