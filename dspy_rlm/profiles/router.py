"""Which counting and ranking moves a question asks for where its cue words say none, learned (issue 28).

The cue words of :data:`~dspy_rlm.profiles.vocabulary.CUES` route a question to the counting and ranking moves
the book offers; a phrasing they lack ("the status *that most hosts* have", "which value do *most employees
share*") was offered none, so no chooser could take the move it asks for. :class:`CueRouter` is a logistic
regression per routed kind over the question's words and adjacent pairs (:func:`router_terms`), fit on the
training corpus's questions and their kinds (``python -m benchmarks.train_router --write``), never on an
evaluation split; :meth:`MoveBook <dspy_rlm.profiles.moves.MoveBook>` adds the kinds it routes to only where the
cue words found no counting or ranking kind. Weights in ``cue_router.json``, scored with no dependency.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.state import save_state

__all__ = ["ROUTED", "ROUTER_PATH", "CueRouter", "learned_cues", "load_router", "router_terms"]

ROUTER_PATH = Path(__file__).with_name("cue_router.json")
ROUTED = ("count", "most_common")
"""The kinds the router may add (a ranking's direction, largest or smallest, stays with the cue words)."""
THRESHOLD = 0.5


def router_terms(question: str) -> list[str]:
    """The question's case-folded words (none with a digit), each once, and adjacent pairs ("that_most")."""
    said = [w for w in st.words(question.casefold()) if not any(c.isdigit() for c in w)]
    return sorted(set(said) | {f"{a}_{b}" for a, b in itertools.pairwise(said)})


@dataclass(frozen=True)
class CueRouter:
    """A logistic regression per routed kind over :func:`router_terms`.

    Attributes:
        weights: Kind -> term -> weight; a term not listed weighs nothing.
        bias: Kind -> intercept.
        meta: How it was fit (data, command, seed, scores).
    """

    weights: dict[str, dict[str, float]]
    bias: dict[str, float]
    meta: dict[str, Any] = field(default_factory=dict)

    def probabilities(self, question: str) -> dict[str, float]:
        """Each routed kind's probability that ``question`` asks for it."""
        terms = router_terms(question)
        out = {}
        for kind, weights in self.weights.items():
            z = self.bias.get(kind, 0.0) + sum(weights.get(t, 0.0) for t in terms)
            out[kind] = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
        return out

    def routed(self, question: str, threshold: float = THRESHOLD) -> set[str]:
        """The kinds ``question`` asks for at ``threshold`` or above."""
        return {k for k, p in self.probabilities(question).items() if p >= threshold}

    def to_dict(self) -> dict[str, Any]:
        return {"bias": self.bias, "weights": self.weights, "meta": self.meta}

    def save(self, path: str | Path) -> None:
        """Write to ``path`` (a temporary file, then renamed: a reader never sees half a file)."""
        save_state(path, self.to_dict())


@lru_cache(maxsize=4)
def load_router(path: str = str(ROUTER_PATH)) -> CueRouter | None:
    """The shipped router (``None`` when the package ships none or the file does not parse)."""
    try:
        state = json.loads(Path(path).read_text())
        weights = {str(k): {str(t): float(w) for t, w in ws.items()} for k, ws in state["weights"].items()}
        return CueRouter(weights, {str(k): float(b) for k, b in state["bias"].items()}, state.get("meta", {}))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def learned_cues(question: str) -> set[str]:
    """The kinds the shipped router routes ``question`` to (none where no router is shipped)."""
    router = load_router()
    return router.routed(question) if router is not None else set()
