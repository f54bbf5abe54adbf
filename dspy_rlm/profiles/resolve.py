"""Which step policy a run uses: a profile name, a :class:`~dspy_rlm.profiles.Profile` or a policy object."""

from __future__ import annotations

from typing import Any

from dspy_rlm.profiles import PROFILES, SMALL, SMALL_TUNED, Profile, resolve_profile
from dspy_rlm.profiles.base import StepPolicy
from dspy_rlm.profiles.default import DefaultPolicy
from dspy_rlm.profiles.steps import SmallPolicy

__all__ = ["check_policy", "resolve_policy"]


def check_policy(setting: Any) -> None:
    """Raise now (at construction) for a setting :func:`resolve_policy` would refuse.

    Raises:
        ValueError: ``setting`` names no profile.
        TypeError: ``setting`` is an object without the :class:`~dspy_rlm.profiles.base.StepPolicy` shape.
    """
    if isinstance(setting, (str, Profile)):
        resolve_profile(setting, None)
    elif not isinstance(setting, StepPolicy):
        raise TypeError(
            f"policy must be a profile name {PROFILES}, a Profile or a StepPolicy (an object with `name` and "
            f"`start(run)`), got {type(setting).__name__}"
        )


def resolve_policy(setting: Any, lm: Any) -> Any:
    """The :class:`~dspy_rlm.profiles.base.StepPolicy` a run uses: the object itself, or the built-in policy of
    a profile (:class:`~dspy_rlm.profiles.steps.SmallPolicy` when it has ``compact_prompt``, else
    :class:`~dspy_rlm.profiles.default.DefaultPolicy`). The small profile on the embedded model with the
    adapter the package ships (:mod:`dspy_rlm.profiles.tuned`) runs its action steps on that adapter.

    Args:
        setting: A profile name, a :class:`Profile` or a StepPolicy.
        lm: The LM of the run (for ``"auto"``).
    """
    if not isinstance(setting, (str, Profile)):
        return setting
    profile = resolve_profile(setting, lm)
    if profile is SMALL:  # the embedded model with the shipped adapter runs the prompt it was trained on
        from dspy_rlm.profiles.tuned import tuned_lm

        tuned = tuned_lm(lm)
        if tuned is not None:
            return SmallPolicy(SMALL_TUNED, lm=tuned)
    return SmallPolicy(profile) if profile.compact_prompt else DefaultPolicy(profile)
