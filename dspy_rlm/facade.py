"""dspy's sandbox facade in our REPL: ``import dspy`` in model code builds sub-agents that run on the host.

As in dspy 3.4.1 (``dspy/primitives/facade.py``, ``RLM._setup_facade``), the model's code may write
``dspy.Predict("question -> answer")(question=...)``, ``dspy.ChainOfThought``, ``dspy.ReActV2(..., tools=[...])``
or ``dspy.RLM("context, query -> answer")(...)``: dspy's own shim (``_facade_shim.py``) is installed in the
REPL and dspy's ``FacadeInvocation`` builds and runs the real predictors on the host, through two host
functions of the REPL (``__dspy_construct__``, ``__dspy_call__``); only JSON crosses. What we add:

- every call is a node of the run's trace (``kind="agent"``), with its model, tokens, cost and time;
- every LM call a sub-agent makes is charged to the run's budget (``max_llm_calls`` through dspy's
  ``SandboxLM`` reserve; tokens, cost and time through the run's usage tracker);
- sub-agents run on the sub-LM of the calling depth (``sub_lm``, ``sub_lm_by_depth``: :mod:`dspy_rlm.routing`);
- ``dspy.RLM`` in the REPL is our :class:`~dspy_rlm.rlm.RLM`, on the run's REPL backend, one level deeper
  (refused past ``max_depth``).

The default profile offers the facade (its prompt carries dspy's ``SUB_AGENT_INSTRUCTIONS``); the small-model
profile only with ``RLM(..., sub_agents=True)``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import dspy
from dspy.primitives.code_interpreter import CodeInterpreterError
from dspy.primitives.facade import (
    _HOST_PROCESS_TOKEN,
    CALL_TOOL,
    CONSTRUCT_TOOL,
    HOST_TOKEN_VAR,
    SHIM_SETUP,
    FacadeInvocation,
    _resolve_signature,
)

from dspy_rlm.trace import TraceNode
from dspy_rlm.usage import CallUsage

if TYPE_CHECKING:
    from dspy_rlm.budget import Budget
    from dspy_rlm.config import RunConfig


class RunState(Protocol):
    """What the facade needs of a run (``dspy_rlm.bridges.RunState`` has it; not imported: no circle)."""

    config: RunConfig
    budget: Budget
    trace: TraceNode

    @property
    def depth(self) -> int: ...

    def sub_lm(self, model: str | None = None) -> tuple[Any, str]: ...


#: The prompt guidance, dspy's own words (appended where the facade is installed).
try:
    from dspy.predict.rlm import SUB_AGENT_INSTRUCTIONS
except ImportError:  # pragma: no cover - dspy moved it
    SUB_AGENT_INSTRUCTIONS = ""

NAMES = (CONSTRUCT_TOOL, CALL_TOOL)
#: The module ``dspy.RLM`` builds in the REPL: ours, set by :mod:`dspy_rlm.rlm` (:func:`use_rlm_class`), so this
#: module, which the bridges import, never imports the module that imports the bridges.
_RLM_CLASS: type | None = None


def use_rlm_class(cls: type) -> None:
    """Make ``dspy.RLM`` in the REPL build ``cls`` (``dspy_rlm.RLM``, or a subclass of yours)."""
    global _RLM_CLASS
    _RLM_CLASS = cls


def setup_code() -> str:
    """The code that installs the shim in a REPL (the host token tells it it is not the host's own memory)."""
    return f"{HOST_TOKEN_VAR} = {_HOST_PROCESS_TOKEN!r}\n{SHIM_SETUP}\ndel {HOST_TOKEN_VAR}\n"


class _Invocation(FacadeInvocation):
    """dspy's per-run facade host, with ``dspy.RLM`` built as ours one level deeper."""

    def __init__(self, state: RunState, factory: Callable[[], Any] | None):
        lm, _label = state.sub_lm()
        super().__init__(dict(state.config.tool_map), factory, None, lm=lm, reserve=self._reserve_calls)
        self.state = state
        self.lm_calls = 0  # LM calls the sub-agents made (each reserved on the run's budget first)

    def _reserve_calls(self, n: int) -> None:
        self.state.budget.reserve_llm_calls(n)
        self.lm_calls += n

    def _build_predictor(self, kind: str, signature: Any, kwargs: dict[str, Any] | None) -> Any:
        if kind != "RLM" or _RLM_CLASS is None:
            return super()._build_predictor(kind, signature, kwargs)
        limits = self.state.config.limits
        if self.state.depth + 1 > limits.max_depth:
            raise CodeInterpreterError(
                f"dspy.RLM in the REPL would run at depth {self.state.depth + 1}, past max_depth={limits.max_depth}; "
                "use dspy.Predict / dspy.ChainOfThought or llm_query instead"
            )
        if "interpreter_factory" in (kwargs or {}):
            raise CodeInterpreterError("dspy.RLM built in the REPL runs on the run's own REPL backend")
        extra = {k: self._decode_tools(v) for k, v in (kwargs or {}).items()}
        extra.setdefault("max_iters", self.state.config.child.iters(limits.max_iters))
        extra.setdefault("max_depth", max(0, limits.max_depth - self.state.depth - 1))
        return _RLM_CLASS(
            _resolve_signature(signature, self._custom_types), interpreter_factory=self._interpreter_factory, **extra
        )


def make_tools(state: RunState, factory: Callable[[], Any] | None) -> dict[str, Callable[..., Any]]:
    """The two host functions the shim calls, charged and traced on ``state``'s run."""
    invocation = _Invocation(state, factory)
    kinds: dict[str, str] = {}

    def construct(kind: str, signature: Any, attr_name: str, kwargs: dict[str, Any] | None = None) -> str:
        kinds[attr_name] = f"dspy.{kind}({signature.get('signature') if isinstance(signature, dict) else signature})"
        return invocation.construct(kind, signature, attr_name, kwargs)

    def call(handle: str, inputs: dict[str, Any] | None = None) -> dict[str, Any]:
        _lm, label = state.sub_lm()
        node = TraceNode(task=kinds.get(handle, handle), depth=state.depth + 1, kind="agent", model=label)
        state.trace.add_subcall(node)
        usage, t0, calls0 = CallUsage(dspy.settings.usage_tracker), time.perf_counter(), invocation.lm_calls
        try:
            with dspy.context(usage_tracker=usage):
                fields = invocation.call(handle, inputs)
        except Exception as exc:
            node.answer_source, node.result_kind, node.outputs = "error", "failed", {"error": str(exc)[:2000]}
            raise
        else:
            node.answer_source, node.result_kind, node.outputs = "submit", "submitted", fields
        finally:
            node.duration_s = time.perf_counter() - t0
            calls = invocation.lm_calls - calls0
            node.usage = {
                "llm_calls": calls,
                "lm_calls_total": calls,
                **usage.totals,
                "elapsed_s": round(node.duration_s, 4),
            }
        return fields

    construct.__name__, call.__name__ = CONSTRUCT_TOOL, CALL_TOOL
    return {CONSTRUCT_TOOL: construct, CALL_TOOL: call}
