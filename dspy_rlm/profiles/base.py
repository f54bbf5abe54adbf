"""The step-policy interface: everything about an action step that differs from one kind of LM to another.

A run (:class:`dspy_rlm.loop.Run`) asks its :class:`StepPolicy` for a :class:`PolicyRun` once, then, every
step, lets it shape the action call (signature, demos, adapter), optionally decide the step itself (scripted
policies), check a SUBMIT before it is accepted, and settle how the run ends. The loop holds no branch on
which policy it runs: :class:`~dspy_rlm.profiles.default.DefaultPolicy` (API models: the full prompt) and
:class:`~dspy_rlm.profiles.steps.SmallPolicy` (small local models: compact prompt, grounded moves) are two
implementations, and ``RLM(..., policy=MyPolicy())`` plugs in a third. A sub-RLM runs under the same policy
(``config.for_child`` keeps it).

Which inputs state the task is decided here too (:func:`task_split`): a field named like a question, the
``task_field`` the user gave, else the shortest text input, never by length alone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import dspy

    from dspy_rlm.config import RunConfig
    from dspy_rlm.context import ExternalizedContext
    from dspy_rlm.results import Extracted, Submitted
    from dspy_rlm.signatures import Predictors
    from dspy_rlm.trace import TraceNode

__all__ = ["TASK_FIELD_NAMES", "PolicyRun", "RunView", "StepPolicy", "StepView", "task_split"]

TASK_FIELD_NAMES = ("query", "question", "task", "prompt", "instruction", "instructions", "request", "q")
"""Input names that state the task (case-insensitive), in order of preference."""


@dataclass
class RunView:
    """What a policy may read of the run it starts for."""

    config: RunConfig
    predictors: Predictors
    inputs: dict[str, Any]
    trace: TraceNode
    lm: Any  # the LM the action step will use (None when unknown)


@dataclass
class StepView:
    """One action step as the policy sees it before the LM call."""

    index: int
    steps_left: int | None
    kwargs: dict[str, Any]  # the action predictor's inputs; the policy may add ``signature`` / ``demos``
    stdouts: list[str] = field(default_factory=list)  # what every code execution of the run printed, oldest first
    codes: list[str] = field(default_factory=list)  # the code of every execution, oldest first


@runtime_checkable
class PolicyRun(Protocol):
    """A policy's state for one run.

    Attributes:
        name: The policy's name, recorded in the trace.
        helper_style: How REPL helpers print (``"default"`` Python values, ``"lines"`` ``line N: text`` rows).

    A run may also have ``rescore(result: Extracted, codes, stdouts) -> Extracted`` (optional): the confidence of
    a forced ending (a limit hit, the answer extracted) on the policy's own scale, as the small policy's
    calibrated SUBMITs have.
    """

    name: str
    helper_style: str

    def variables_info(self, context: ExternalizedContext) -> str:
        """The summary of the inputs shown in the action prompt."""
        ...

    def prepare(self, step: StepView) -> None:
        """Shape this step's action call in place: ``step.kwargs`` may get a ``signature``, ``demos``, a
        ``budget`` text."""
        ...

    def adapter(self) -> dspy.Adapter | None:
        """The adapter of the action call when the user set none (None: DSPy's configured one)."""
        ...

    def decide(self, step: StepView) -> tuple[str, str] | None:
        """``(reasoning, code)`` when the policy takes this step itself (no LM call), else None."""
        ...

    async def check_submit(
        self, values: dict[str, Any], outputs: list[str], variables: Callable[[], Awaitable[dict[str, str]]]
    ) -> str | None:
        """A message for the model when a SUBMIT of ``values`` is not accepted yet, None to accept.

        Args:
            values: The submitted outputs, already coerced to the signature's types.
            outputs: Every REPL output of the run so far (this step's included).
            variables: Fetches descriptions of the model's REPL variables (costs a round trip).
        """
        ...

    def settle(self, result: Submitted, codes: list[str], stdouts: list[str]) -> Submitted | Extracted:
        """The run's ending for an accepted SUBMIT: ``result``, or an :class:`Extracted` with low confidence
        and a note when the submitted value is not supported by what the run read."""
        ...


@runtime_checkable
class StepPolicy(Protocol):
    """An extension point: how a run's action steps are prompted, constrained and checked.

    Attributes:
        name: Short name (``"default"``, ``"small"``, ...).
    """

    name: str

    def start(self, run: RunView) -> PolicyRun:
        """The policy's state for one run (called once, before the first step)."""
        ...


def task_split(
    signature: type[dspy.Signature], inputs: dict[str, Any], task_field: str | None = None
) -> tuple[dict[str, str], dict[str, Any]]:
    """The inputs split into the text that states the task and the data.

    The task is ``task_field`` when given; else the text inputs named like a question
    (:data:`TASK_FIELD_NAMES`); else, with several inputs, the shortest text input; with one input, none
    (the input is the data). Everything else is data.

    Args:
        signature: The run's signature (its input order).
        inputs: The run's inputs.
        task_field: The input that states the task, when the user named it.

    Raises:
        ValueError: ``task_field`` is not an input of the signature.
    """
    names = [n for n in signature.input_fields if n in inputs] or list(inputs)
    if task_field is not None:
        if task_field not in names:
            raise ValueError(f"task_field={task_field!r} is not an input of the signature; inputs: {names}")
        chosen = [task_field]
    else:
        texts = [n for n in names if isinstance(inputs.get(n), str)]
        by_name = sorted(
            (n for n in texts if n.casefold() in TASK_FIELD_NAMES), key=lambda n: TASK_FIELD_NAMES.index(n.casefold())
        )
        if by_name:
            chosen = by_name[:1]
        elif len(names) > 1 and texts:
            chosen = [min(texts, key=lambda n: len(inputs[n]))]
        else:
            chosen = []
    task = {n: str(inputs[n]) for n in chosen}
    return task, {n: inputs[n] for n in names if n not in task}
