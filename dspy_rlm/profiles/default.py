"""The default step policy (API models): the full action prompt, the configured adapter, the model's own
code, and a grounded SUBMIT only when the user asks for it (``grounded_submit=True``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from dspy_rlm.profiles import Profile
from dspy_rlm.profiles.base import RunView, StepView, task_split
from dspy_rlm.profiles.grounding import GroundedSubmit

if TYPE_CHECKING:
    import dspy

    from dspy_rlm.context import ExternalizedContext
    from dspy_rlm.results import Extracted, Submitted

__all__ = ["BasePolicyRun", "DefaultPolicy"]


class BasePolicyRun:
    """What every built-in policy does alike: the grounded-SUBMIT check (when on), no decision of its own,
    and a SUBMIT ends the run as submitted. Subclasses change the rest."""

    helper_style = "default"

    def __init__(self, name: str, profile: Profile, run: RunView) -> None:
        self.name, self.profile, self.run = name, profile, run
        cfg = run.config
        self.question, self.data = task_split(cfg.signature, run.inputs, cfg.task_field)
        on = profile.grounded_submit if cfg.grounded_submit is None else bool(cfg.grounded_submit)
        self.grounding = GroundedSubmit(self.question, self.data, run.trace.warn) if on else None

    def variables_info(self, context: ExternalizedContext) -> str:
        return context.variable_summaries()

    def prepare(self, step: StepView) -> None:
        return None

    def adapter(self) -> dspy.Adapter | None:
        return None

    def decide(self, step: StepView) -> tuple[str, str] | None:
        return None

    async def check_submit(
        self, values: dict[str, Any], outputs: list[str], variables: Callable[[], Awaitable[dict[str, str]]]
    ) -> str | None:
        if self.grounding is None:
            return None
        return await self.grounding.check(values, outputs, variables)

    def settle(self, result: Submitted, codes: list[str], stdouts: list[str]) -> Submitted | Extracted:
        return result


class DefaultPolicy:
    """The behaviour for API models (``profile="default"``).

    Args:
        profile: Its switches (:data:`dspy_rlm.profiles.DEFAULT`; only ``grounded_submit`` applies).
    """

    name = "default"

    def __init__(self, profile: Profile | None = None) -> None:
        from dspy_rlm.profiles import DEFAULT

        self.profile = profile or DEFAULT

    def start(self, run: RunView) -> BasePolicyRun:
        return BasePolicyRun(self.name, self.profile, run)

    def __repr__(self) -> str:
        return "DefaultPolicy()"
