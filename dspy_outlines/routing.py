"""Tier routing that learns: per-LM statistics deciding at which tier an ``OutlinesAdapter`` call starts.

Rules (all per LM object, thread-safe, deterministic):

* **Learned skips**: a tier that failed to parse ``skip_after`` times in a row for an LM is skipped for that
  LM: its calls start at the next tier. The last tier that can run is never skipped.
* **Re-probing**: after ``reprobe_every`` calls that skipped a tier, the next call tries the full ladder again
  (its result resets or extends the failure streak), so an LM that learns the format is noticed.
* **``auto``**: an LM that runs constrained generation itself (``accepts_outlines_constraint = True``, e.g.
  ``OutlinesLM``) starts at Tier 3 on every call: constrained generation is one local call, as cheap as
  Tier 1, and always parses, so the earlier tiers can only add calls. No re-probing in this case.

Only parse failures (``AdapterParseError``) count toward a streak; provider errors say nothing about the
prompt format. LMs are tracked through weak references: a garbage-collected LM's state is dropped.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LMRouteState", "TierRouter"]


@dataclass
class LMRouteState:
    """What the router knows about one LM.

    Attributes:
        model: The LM's model name (for the metrics).
        calls: Calls routed for this LM.
        streak: Per tier, parse failures in a row.
        skipped: Per tier, calls that skipped it.
        skips_since_probe: Calls that skipped a tier since the last full-ladder probe.
        reprobes: Full-ladder probes made after skipping.
        starts_at: The tier the last call started at.
    """

    model: str
    ref: Callable[[], Any] | None = None
    calls: int = 0
    streak: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    skips_since_probe: int = 0
    reprobes: int = 0
    starts_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "calls": self.calls,
            "starts_at": self.starts_at,
            "consecutive_failures": dict(self.streak),
            "skipped": dict(self.skipped),
            "reprobes": self.reprobes,
        }


class TierRouter:
    """Chooses, per LM, the tiers an adapter call tries.

    Args:
        skip_after: Parse failures in a row after which a tier is skipped for that LM (``None``: never).
        reprobe_every: Skipping calls after which one call tries the skipped tiers again (``None``: never).
        auto: Start an LM that accepts Outlines constraints directly at Tier 3.

    Raises:
        ValueError: ``skip_after`` or ``reprobe_every`` is not a positive integer or ``None``.
    """

    def __init__(self, skip_after: int | None = 3, reprobe_every: int | None = 10, auto: bool = False):
        for name, value in (("skip_after", skip_after), ("reprobe_every", reprobe_every)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ValueError(f"{name} must be a positive integer or None (never), got {value!r}.")
        self.skip_after, self.reprobe_every, self.auto = skip_after, reprobe_every, auto
        self._lock = threading.Lock()
        self._states: dict[int, LMRouteState] = {}

    def plan(self, lm: Any, tiers: Sequence[str], runnable: Sequence[str], local: bool) -> list[str]:
        """The tiers this call tries, in order; counts the call and its skips.

        Args:
            lm: The LM of the call.
            tiers: The adapter's ladder for this signature.
            runnable: The tiers of ``tiers`` this LM can run (skipping never lands on another).
            local: Whether the LM runs Outlines-constrained generation itself.
        """
        with self._lock:
            state = self._state(lm)
            state.calls += 1
            start = self._start(state, list(tiers), list(runnable), local)
            for tier in tiers[:start]:
                state.skipped[tier] = state.skipped.get(tier, 0) + 1
            state.starts_at = tiers[start]
            return list(tiers[start:])

    def _start(self, state: LMRouteState, tiers: list[str], runnable: list[str], local: bool) -> int:
        if self.auto and local and "tier3" in runnable:
            return tiers.index("tier3")
        if self.skip_after is None or not runnable:
            return 0
        start = 0
        while (
            tiers[start] != runnable[-1]
            and state.streak.get(tiers[start], 0) >= self.skip_after
            and tiers[start + 1] in runnable
        ):
            start += 1
        if start and self.reprobe_every is not None and state.skips_since_probe >= self.reprobe_every:
            state.skips_since_probe, state.reprobes = 0, state.reprobes + 1
            return 0
        if start:
            state.skips_since_probe += 1
        return start

    def record(self, lm: Any, tier: str, parsed: bool) -> None:
        """Record one tier attempt: ``parsed`` resets the tier's failure streak, a parse failure extends it."""
        with self._lock:
            state = self._state(lm)
            state.streak[tier] = 0 if parsed else state.streak.get(tier, 0) + 1

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """Per-LM routing state, keyed ``"<model> @<id>"``."""
        with self._lock:
            self._prune()
            return {f"{s.model} @{key:#x}": s.to_dict() for key, s in self._states.items()}

    def reset(self) -> None:
        """Forget everything learned."""
        with self._lock:
            self._states.clear()

    def _state(self, lm: Any) -> LMRouteState:
        key = id(lm)
        state = self._states.get(key)
        if state is not None and state.ref is not None and state.ref() is lm:
            return state
        self._prune()
        ref: Callable[[], Any]
        try:
            ref = weakref.ref(lm)
        except TypeError:  # not weak-referenceable: keyed by id only, kept while the router lives
            ref = functools.partial(_same, lm)  # a strong reference that answers like a weak one
        state = LMRouteState(model=_model_name(lm), ref=ref)
        self._states[key] = state
        return state

    def _prune(self) -> None:
        for key in [k for k, s in self._states.items() if s.ref is None or s.ref() is None]:
            del self._states[key]

    def __getstate__(self) -> dict[str, Any]:  # copies start with nothing learned: their LMs are not ours
        return {"skip_after": self.skip_after, "reprobe_every": self.reprobe_every, "auto": self.auto}

    def __setstate__(self, state: dict[str, Any]) -> None:
        TierRouter.__init__(self, **state)


def _same(lm: Any) -> Any:
    return lm


def _model_name(lm: Any) -> str:
    """``lm.model_name`` (OutlinesLM, whose ``model`` is the Outlines model), else ``lm.model`` if a string."""
    for name in (getattr(lm, "model_name", None), getattr(lm, "model", None)):
        if isinstance(name, str):
            return name
    return type(lm).__name__
