"""The small profile's part of each action step: prompt overrides, the guided-code constraint, the adapter.

:class:`SmallSteps` holds the per-run state the guided moves need (the search words and token counts of the
inputs, computed once) and is used by :class:`dspy_rlm.loop.Run` when its profile has ``compact_prompt``.
"""

from __future__ import annotations

from typing import Any

from dspy_rlm.config import RunConfig
from dspy_rlm.profiles import Profile


def question_and_data(inputs: dict[str, Any]) -> tuple[dict[str, str], dict[str, Any]]:
    """The inputs split into the short text that states the task (strings up to 300 chars) and the data."""
    question = {k: v for k, v in inputs.items() if isinstance(v, str) and len(v) <= 300}
    return question, {k: v for k, v in inputs.items() if k not in question}


class SmallSteps:
    """The small profile's step logic for one run."""

    def __init__(self, config: RunConfig, profile: Profile, inputs: dict[str, Any]) -> None:
        self.config, self.profile, self.inputs = config, profile, inputs
        self.guided_terms: list[str] | None = None  # profiles.guided search words, computed once
        self.guided_counts: dict[str, int] = {}  # profiles.guided token counts in the data

    def prompt_overrides(self, kwargs: dict[str, Any], predictors: Any, steps_left: int | None, trace: Any) -> None:
        """Compact signature (guided when the profile says so), shipped demos, a one-line budget. What the user
        set (demos, optimized instructions) is kept."""
        from dspy_rlm.profiles.small import load_demos, small_action_signature

        action = predictors.action
        sig = getattr(action, "signature", None)
        if sig is not None and sig.instructions == predictors.default_action_instructions:
            guided = self.profile.guided_code and self.profile.constrained_action
            kwargs["signature"] = small_action_signature(
                self._signature_key, tuple(self.config.tool_map), self.profile.constrained_action and not guided
            )
            if guided:
                kwargs["signature"] = self.guided_signature(kwargs["signature"], trace)
        if self.profile.shipped_demos and not getattr(action, "demos", None):
            kwargs["demos"] = list(load_demos())
        kwargs["budget"] = f"{steps_left} steps left" if steps_left is not None else "no step limit"

    @property
    def _signature_key(self) -> type:
        """The user's signature class, as the hashable key of the small profile's memoized signatures."""
        return self.config.signature

    def guided_signature(self, signature: Any, trace: Any) -> Any:
        """The small action signature held, as a whole, to this step's grounded moves (profiles.guided)."""
        from dspy_outlines.constraints import with_output_regex
        from dspy_rlm.profiles import guided
        from dspy_rlm.profiles.small import small_action_signature

        if not guided.supports(self.config.signature):  # e.g. list outputs: the static code pattern
            return small_action_signature(self._signature_key, tuple(self.config.tool_map), True)
        question, data = question_and_data(self.inputs)
        if self.guided_terms is None:  # the inputs do not change during a run
            self.guided_terms = guided.search_terms(question, data)
        executions = [e for r in trace.iterations for e in r.code_executions]
        stdouts = [e.stdout for e in executions if e.stdout]
        values = guided.output_values(stdouts, question, data, self.guided_counts)
        searched = guided.searched_terms(e.code for e in executions)
        terms = [t for t in self.guided_terms if t not in searched]
        if values and guided.search_exhausted(stdouts):
            terms = []
        pattern = guided.guided_output_pattern(
            self.config.signature,
            list(data) or list(self.inputs),
            terms,
            values,
            guided.focus_pairs(guided.stated_pairs(stdouts, question, values), question),
        )
        return with_output_regex(signature, pattern)

    def action_adapter(self) -> Any:
        """Tier 3 alone for the action step (one per configuration, kept in its adapter slots)."""
        slots = self.config.slots
        if slots.action is None:
            from dspy_outlines.adapter import OutlinesAdapter

            slots.action = OutlinesAdapter(tiers=("tier3",))
        return slots.action
