"""What a step of the run reads and changes: the protocol :class:`~dspy_rlm.loop.Run` implements for the
modules that work on its state (:mod:`dspy_rlm.code_step`, :mod:`dspy_rlm.resume`), so they need not import
the loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from dspy.primitives.repl_types import REPLHistory

from dspy_rlm.budget import Budget, StopReason
from dspy_rlm.checkpoint import Checkpoint, RunSnapshot
from dspy_rlm.config import RunConfig
from dspy_rlm.profiles.base import PolicyRun
from dspy_rlm.recovery import RecoveryTracker
from dspy_rlm.results import Extracted, Failed
from dspy_rlm.trace import IterationRecord, TraceNode

T = TypeVar("T")


class LoopState(Protocol):
    """The state of one run and the operations a step needs from it."""

    config: RunConfig
    budget: Budget
    history: REPLHistory
    trace: TraceNode
    recovery: RecoveryTracker | None
    ckpt: Checkpoint | None
    resumed: RunSnapshot | None
    policy: PolicyRun | None
    repl: Any
    output_names: list[str]
    user_names: set[str]
    last_submit: dict[str, Any] | None
    told_rebound: set[str]

    async def ready(self) -> None: ...

    async def on_repl_thread(self, fn: Callable[..., T], *args: Any) -> T: ...

    async def end_with(
        self, record: IterationRecord, reasoning: str, code: str, outputs: list[str], stop: StopReason, detail: str
    ) -> Extracted | Failed: ...

    def snapshot(self) -> dict[str, str]: ...
