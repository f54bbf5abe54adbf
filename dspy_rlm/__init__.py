"""dspy-rlm: a Recursive Language Model for DSPy that small and local models can finish with.

``RLM`` is a drop-in for ``dspy.RLM``: the model gets the query plus short summaries of its inputs, the
inputs live as variables in a sandboxed Python REPL, and every run ends in a typed result
(:class:`Submitted`, :class:`Extracted` or :class:`Failed`).
"""

from __future__ import annotations

from dspy_rlm.budget import Budget, BudgetExhausted, Limits
from dspy_rlm.context import ExternalizedContext, SizeConfig, SizeWarning, VarKind
from dspy_rlm.repl.inprocess import InProcessREPL
from dspy_rlm.repl.sandbox import SubprocessREPL
from dspy_rlm.results import Extracted, Failed, Submitted
from dspy_rlm.rlm import RLM
from dspy_rlm.trace import TraceNode

__all__ = [
    "RLM", "Submitted", "Extracted", "Failed", "ExternalizedContext", "SizeConfig", "SizeWarning", "VarKind",
    "Budget", "BudgetExhausted", "Limits", "SubprocessREPL", "InProcessREPL", "TraceNode",
]
__version__ = "0.1.0"
