"""The small step policy (small local models): compact prompt, constrained action step, grounded moves.

:class:`SmallPolicy` is what ``profile="small"`` (and ``"auto"`` with a local or small LM) runs: the compact
signature with the shipped demos, the action generated at Tier 3 alone, each step's ``code`` held to the
grounded moves of :mod:`dspy_rlm.profiles.guided`, search results printed as ``line N: text`` rows, and a
grounded SUBMIT. What the user set (demos, instructions an optimizer changed, an ``action_adapter``) wins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dspy_rlm.profiles import Profile
from dspy_rlm.profiles.base import RunView, StepView
from dspy_rlm.profiles.default import BasePolicyRun

if TYPE_CHECKING:
    import dspy

    from dspy_rlm.context import ExternalizedContext

__all__ = ["SmallPolicy", "SmallPolicyRun"]


class SmallPolicyRun(BasePolicyRun):
    """The small policy's state for one run: the search words and token counts of the inputs, computed once."""

    helper_style = "lines"

    def __init__(self, name: str, profile: Profile, run: RunView) -> None:
        super().__init__(name, profile, run)
        self.guided_terms: list[str] | None = None  # profiles.guided search words, computed once
        self.guided_counts: dict[str, int] = {}  # profiles.guided token counts in the data

    def variables_info(self, context: ExternalizedContext) -> str:
        from dspy_rlm.profiles.small import compact_variables_info

        return compact_variables_info(self.run.inputs, self.question)

    def prepare(self, step: StepView) -> None:
        """Compact signature (guided when the profile says so), shipped demos, a one-line budget. What the user
        set (demos, optimized instructions) is kept."""
        from dspy_rlm.profiles.small import load_demos, small_action_signature

        predictors, config = self.run.predictors, self.run.config
        action = predictors.action
        sig = getattr(action, "signature", None)
        kwargs = step.kwargs
        if sig is not None and sig.instructions == predictors.default_action_instructions:
            guided = self.profile.guided_code and self.profile.constrained_action
            kwargs["signature"] = small_action_signature(
                _signature_key(config), tuple(config.tool_map), self.profile.constrained_action and not guided
            )
            if guided:
                kwargs["signature"] = self.guided_signature(kwargs["signature"], step)
        if self.profile.shipped_demos and not getattr(action, "demos", None):
            kwargs["demos"] = list(load_demos())
        kwargs["budget"] = f"{step.steps_left} steps left" if step.steps_left is not None else "no step limit"

    def guided_signature(self, signature: Any, step: StepView) -> Any:
        """The small action signature held, as a whole, to this step's grounded moves (profiles.guided)."""
        from dspy_outlines.constraints import with_output_regex
        from dspy_rlm.profiles import guided
        from dspy_rlm.profiles.small import small_action_signature

        config = self.run.config
        if not guided.supports(config.signature):  # e.g. list outputs: the static code pattern
            return small_action_signature(_signature_key(config), tuple(config.tool_map), True)
        question, data = self.question, self.data
        if self.guided_terms is None:  # the inputs do not change during a run
            self.guided_terms = guided.search_terms(question, data)
        stdouts = [s for s in step.stdouts if s]
        values = guided.output_values(stdouts, question, data, self.guided_counts)
        searched = guided.searched_terms(step.codes)
        terms = [t for t in self.guided_terms if t not in searched]
        if values and guided.search_exhausted(stdouts):
            terms = []
        pattern = guided.guided_output_pattern(
            config.signature,
            list(data) or list(self.run.inputs),
            terms,
            values,
            guided.focus_pairs(guided.stated_pairs(stdouts, question, values), question),
        )
        return with_output_regex(signature, pattern)

    def adapter(self) -> dspy.Adapter | None:
        """Tier 3 alone for the action step (one per configuration, kept in its adapter slots)."""
        slots = self.run.config.slots
        if slots.action is None:
            from dspy_outlines.adapter import OutlinesAdapter

            slots.action = OutlinesAdapter(tiers=("tier3",))
        return slots.action


def _signature_key(config: Any) -> type:
    """The user's signature class, as the hashable key of the small profile's memoized signatures."""
    return config.signature


class SmallPolicy:
    """The policy for small local models (``profile="small"``).

    Args:
        profile: Its switches (:data:`dspy_rlm.profiles.SMALL` by default; e.g. ``guided_code=False`` keeps
            the static one-line code pattern).
    """

    name = "small"

    def __init__(self, profile: Profile | None = None) -> None:
        from dspy_rlm.profiles import SMALL

        self.profile = profile or SMALL

    def start(self, run: RunView) -> SmallPolicyRun:
        return SmallPolicyRun(self.name, self.profile, run)

    def __repr__(self) -> str:
        return f"SmallPolicy({self.profile!r})"
