"""Run profiles: how an RLM talks to its LM.

* ``default`` -- today's behaviour, for API models: the full instructions, the configured adapter, helper
  results as Python values.
* ``small`` -- for small local models (the embedded SmolLM2-135M): compact instructions, the action step
  generated constrained (``OutlinesAdapter`` Tier 3) with the code field held to a small Python subset,
  the shipped demos compiled with DSPy (``benchmarks/compile_small.py``), a grounded ``SUBMIT`` (a value
  never seen gets one verification step), and search results printed as ``line N: text`` rows.
* ``auto`` (the default) -- ``small`` when the LM says it is local (``lm.is_local``, as
  :class:`dspy_outlines.OutlinesLM` does) or small (``lm.is_small``), ``default`` otherwise.

What the user set always wins over the profile: an ``action_adapter``, instructions changed by an optimizer
and demos on ``generate_action`` are kept; the profile only fills what was left at its default.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from dspy_outlines.contract import is_local

__all__ = ["PROFILES", "Profile", "is_small_lm", "resolve_profile"]

PROFILES = ("auto", "small", "default")


@dataclass(frozen=True)
class Profile:
    """What a profile changes in a run.

    Attributes:
        name: ``"small"`` or ``"default"``.
        compact_prompt: Compact action instructions and variable summaries, the action step generated
            constrained (``OutlinesAdapter`` Tier 3 alone) unless the user set an ``action_adapter``.
        constrained_action: Hold the ``reasoning`` and ``code`` fields to the small profile's patterns at Tier 3.
        shipped_demos: Use the demos compiled for this profile when ``generate_action`` has none.
        grounded_submit: A submitted value seen nowhere gets one verification step before it is accepted.
        helper_style: ``"lines"`` prints search results as ``line N: text`` rows; ``"default"`` as dicts.
        guided_code: With ``constrained_action``, hold ``code`` each step to grounded moves (search for a word of
            the question, SUBMIT a printed value: :mod:`dspy_rlm.profiles.moves`) instead of the static pattern.
        all_moves: Offer every counting, ranking and existence move the output type admits, not only those the
            question's cue words ask for.
        terse_prompt: With ``compact_prompt``, the action instructions cut to one line (the helpers and how to
            use them left out): for a model whose weights learned the moves (the small policy's adapter); the
            prompt is about 400 tokens shorter.
        ranked_moves: With ``guided_code``, the model chooses among at most this many moves, the best the learned
            ranker (:mod:`dspy_rlm.profiles.ranker`) scores within ``rank_margin`` of its best (the model is asked
            even when one move is left: its trace, progress and metrics stay those of a model's step; the
            ranker alone, with no LM call, is ``RankedMovePolicy``). 0: every move is offered to the model.
        rank_margin: How far below the ranker's best score a move may be and still be offered.
    """

    name: str
    compact_prompt: bool = False
    constrained_action: bool = False
    shipped_demos: bool = False
    grounded_submit: bool = False
    helper_style: str = "default"
    guided_code: bool = False
    all_moves: bool = False
    terse_prompt: bool = False
    ranked_moves: int = 0
    rank_margin: float = 0.15


DEFAULT = Profile("default")
SMALL = Profile(
    "small",
    compact_prompt=True,
    constrained_action=True,
    shipped_demos=True,
    grounded_submit=True,
    helper_style="lines",
    guided_code=True,
    ranked_moves=2,
    rank_margin=0.05,
)
SMALL_TUNED = replace(SMALL, shipped_demos=False, terse_prompt=True)
"""The small profile for a model tuned on the moves (the shipped adapter): no demos, one-line instructions."""


def is_small_lm(lm: Any) -> bool:
    """Whether ``lm`` declares itself local or small (``is_local`` / ``is_small`` attributes)."""
    return is_local(lm)


def resolve_profile(setting: str | Profile, lm: Any) -> Profile:
    """The profile a run uses.

    Args:
        setting: ``"auto"``, ``"small"``, ``"default"`` or a :class:`Profile`.
        lm: The LM of the run (for ``"auto"``).

    Raises:
        ValueError: ``setting`` names no profile.
    """
    if isinstance(setting, Profile):
        return setting
    if setting == "auto":
        return SMALL if is_small_lm(lm) else DEFAULT
    if setting == "small":
        return SMALL
    if setting == "default":
        return DEFAULT
    raise ValueError(f"profile must be one of {PROFILES}, a dspy_rlm.profiles.Profile or a StepPolicy, got {setting!r}")
