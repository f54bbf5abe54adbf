"""dspy-rlm: a Recursive Language Model for DSPy that small and local models can finish with.

``RLM`` is a drop-in for ``dspy.RLM``: the model gets the query plus short summaries of its inputs, the
inputs live as variables in a sandboxed Python REPL, and every run ends in a typed result
(:class:`Submitted`, :class:`Extracted` or :class:`Failed`).

Names are imported lazily, so ``import dspy_rlm`` (and the sandbox worker) stays fast.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "RLM": "dspy_rlm.rlm",
    "Submitted": "dspy_rlm.results",
    "Extracted": "dspy_rlm.results",
    "Failed": "dspy_rlm.results",
    "ExternalizedContext": "dspy_rlm.context",
    "SizeConfig": "dspy_rlm.context",
    "SizeWarning": "dspy_rlm.context",
    "VarKind": "dspy_rlm.context",
    "Budget": "dspy_rlm.budget",
    "Limits": "dspy_rlm.budget",
    "StopReason": "dspy_rlm.budget",
    "FallbackReason": "dspy_rlm.budget",
    "RunConfig": "dspy_rlm.config",
    "RLMError": "dspy_rlm.errors",
    "BudgetExhausted": "dspy_rlm.errors",
    "ToolError": "dspy_rlm.errors",
    "SandboxError": "dspy_rlm.errors",
    "CheckpointMismatch": "dspy_rlm.errors",
    "SubRLMFailed": "dspy_rlm.errors",
    "RunInterrupted": "dspy_rlm.errors",
    "SubprocessREPL": "dspy_rlm.sandbox.backend",
    "SandboxUnavailable": "dspy_rlm.sandbox.errors",
    "InProcessREPL": "dspy_rlm.repl.inprocess",
    "ForeignREPL": "dspy_rlm.repl.foreign",
    "TraceNode": "dspy_rlm.trace",
    "Session": "dspy_rlm.session",
    "SessionClosed": "dspy_rlm.session",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'dspy_rlm' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
