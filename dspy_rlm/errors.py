"""The exceptions of dspy-rlm, and the one formatter for error text shown to the model.

Where the line runs between "ends typed" and "propagates":

* **Ends typed** (a :class:`~dspy_rlm.results.Extracted` or :class:`~dspy_rlm.results.Failed` result, never an
  exception out of ``RLM.__call__``): failures of the LM and its adapter (rate limits, timeouts, unparsable
  output), of the sandbox (a dead or hung worker), of the model's code (shown to the model, which fixes it),
  and exhausted budgets.
* **Propagates**, as in ``dspy.RLM``: bugs in the caller's own code outside the REPL: invalid arguments
  (``ValueError`` / ``TypeError`` at construction or call), a mismatching checkpoint
  (:class:`CheckpointMismatch`), and exceptions raised by a predictor the user put in place of ours
  (``rlm.generate_action = MyPredictor()``).

Inside the REPL, model code sees the same exception type from every backend: a budget refusal is
:class:`BudgetExhausted`, any other failure of a host function (``llm_query``, a tool) is :class:`ToolError`.
This module imports nothing heavy: the sandbox worker imports it.
"""

from __future__ import annotations


class RLMError(Exception):
    """The base class of every dspy-rlm exception."""


class BudgetExhausted(RLMError, RuntimeError):
    """A limit was reached. ``limit`` names it (a :class:`~dspy_rlm.budget.StopReason` value)."""

    def __init__(self, limit: str, message: str):
        super().__init__(message)
        self.limit = limit

    def __reduce__(self):  # crosses process boundaries (sandbox, Ray) with its limit
        return (type(self), (self.limit, str(self)))


class ToolError(RLMError, RuntimeError):
    """A host function called from model code failed; the message names the function and the cause."""


class SandboxError(RLMError):
    """The sandbox worker died or could not be started."""


class CheckpointMismatch(RLMError, ValueError):
    """The checkpoint file belongs to a different program or inputs (the caller's error: it propagates)."""


class SubRLMFailed(RLMError):
    """A sub-RLM ended ``Failed``; ``rlm_query`` returns its text as ``[ERROR] SubRLMFailed: <reason>``."""


class RunInterrupted(KeyboardInterrupt):
    """A synchronous run stopped by Ctrl-C. Still a ``KeyboardInterrupt``; ``prediction`` is the run as it
    ended: ``Failed`` (reason ``interrupted``) with its trace and history so far."""

    def __init__(self, prediction: object):
        super().__init__("interrupted")
        self.prediction = prediction


class UserPredictorError(Exception):
    """Internal: carries an exception raised by a user-supplied predictor out of the run, which re-raises
    ``original`` (never seen by callers)."""

    def __init__(self, original: Exception):
        super().__init__(str(original))
        self.original = original


#: Exceptions that keep their own type when raised by a host function and re-raised inside the sandbox.
MODEL_VISIBLE = {cls.__name__: cls for cls in (BudgetExhausted, ToolError)}


def tool_failure(name: str, exc: BaseException) -> RLMError:
    """What a host function's failure becomes inside model code: itself when it is one of ours, else a
    :class:`ToolError` naming the function and the cause."""
    if isinstance(exc, RLMError) and type(exc).__name__ in MODEL_VISIBLE:
        return exc
    return ToolError(f"{name}() failed: {type(exc).__name__}: {exc}")


def rebuild(type_name: str, message: str, limit: str | None = None) -> RLMError:
    """The exception a sandbox worker raises for a host failure sent as (type name, message, limit)."""
    if type_name == "BudgetExhausted":
        return BudgetExhausted(limit or "llm_calls", message)
    return ToolError(message)


def model_error(message: str, kind: str = "Error") -> str:
    """Error text for the model's history: ``[Error] ...`` (``kind="Type Error"`` for invalid outputs).

    The one place the bracketed prefix is written; nothing reads it back for control flow.
    """
    return f"[{kind}] {message}"


def item_error(exc: BaseException) -> str:
    """The text a failed item of ``llm_query_batched`` / ``batch_rlm_query`` comes back as."""
    return f"[ERROR] {type(exc).__name__}: {exc}"
