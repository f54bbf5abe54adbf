"""Two policies that take every step themselves over the small policy's grounded moves (no LM call for the
action): the yardsticks a model is measured against.

* :class:`RandomMovePolicy` picks uniformly among the moves each step admits: what the grammar alone is worth.
* :class:`RankedMovePolicy` takes the learned ranker's best move (weights fit on the training corpus).
* :class:`ScriptedMovePolicy` picks by fixed rules from the question's wording (a yes/no question checks
  existence, "how many" counts, "most common" / "largest" rank, a value of the data asks for its key, a
  named field is read), then submits the first supported value: the ceiling of the grammar for a policy
  that reads the question but never the answer.

Both are ordinary :class:`~dspy_rlm.profiles.base.StepPolicy` objects (``RLM(..., policy=RandomMovePolicy())``);
the extraction at a limit still calls the configured LM.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from dspy_rlm.profiles import Profile
from dspy_rlm.profiles.base import RunView, StepView
from dspy_rlm.profiles.naming import counted_field
from dspy_rlm.profiles.steps import SmallPolicy, SmallPolicyRun

if TYPE_CHECKING:
    from dspy_rlm.profiles.moves import Move, MoveBook

__all__ = ["RandomMovePolicy", "RankedMovePolicy", "ScriptedMovePolicy", "scripted_choice"]

_READ_ORDER = {
    "yes_no": ("any_if", "has_item", "exists"),
    "count": (
        "count_empty",
        "count_all",
        "count_flag",
        "count_items",
        "size_of",
        "count_setting",
        "count_where",
        "count_if",
        "count_present",
        "count",
    ),
    "most_common": ("most_common_setting", "most_common", "most_items"),
    "max": ("most_items", "max_length", "max", "max_setting", "max_field"),
    "min": ("fewest_items", "min_length", "min", "min_setting", "min_field"),
}
_DEFAULT_ORDER = ("field", "key_of", "record", "search", "peek")


class _DecidingRun(SmallPolicyRun):
    """A small-policy run whose steps are chosen by :meth:`choose` instead of the LM."""

    uses_ranker = False  # it chooses among every move itself

    def decide(self, step: StepView) -> tuple[str, str] | None:
        moves = self.moves or self.step_moves(step)
        move = self.choose(moves)
        return move.reasoning, move.code

    def choose(self, moves: list[Move]) -> Move:
        raise NotImplementedError


class _RandomRun(_DecidingRun):
    def __init__(self, name: str, profile: Profile, run: RunView, rng: random.Random) -> None:
        super().__init__(name, profile, run)
        self.rng = rng

    def choose(self, moves: list[Move]) -> Move:
        return self.rng.choice(moves)


def _reads(move: Move, keys: tuple[str, ...], field: str) -> bool:
    return move.args[0] in keys and move.args[1] == field


def scripted_choice(book: MoveBook, moves: list[Move]) -> Move:
    """The move the fixed rules pick among ``moves`` (see the module doc)."""
    submits = [m for m in moves if m.kind == "submit"]
    supported = [m for m in submits if m.candidate is not None and m.candidate.supported]
    if supported:
        return supported[0]
    reads = sum(m.kind != "submit" for m in moves)
    if submits and ((book.reads and len(book.reads) >= 2) or not reads):
        return submits[0]  # nothing supported after two reads: the first value, which ends as a guess
    counted = [m for m in moves if m.kind == "field" and (c := counted_field(book, m.var)) and _reads(m, *c)]
    if "count" in book.cues and counted:  # "how many replicas does web run": web's replicas field
        return counted[0]
    order = [k for cue, kinds in _READ_ORDER.items() if cue in book.cues for k in kinds] + list(_DEFAULT_ORDER)
    order = ["key_of", *order] if book.kind() == "reverse" else order  # a record asked by a value it holds
    order = ["record_at", *order]  # offered only for a record asked by its place ("which action is defined last?")
    order = ["count_lines", *order]  # offered only for lines counted by a quoted start ("lines starting with ':'")
    order = ["count_defs", *order]  # offered only for a script's functions counted ("how many functions ...")
    for kind in order:
        found = [m for m in moves if m.kind == kind]
        tested = [m for m in found if kind == "count_if" and m.args[1] in _STATED_TESTS]
        if tested:  # "how many ... are .pyi files", "... above 100": the test the question states
            return tested[0]
        if found and kind in ("count", "count_where", "count_if"):  # what is counted: the phrase most records hold
            keys = sorted((k for ks in book.keys.values() for k in ks), key=lambda k: -k.records)
            ranked = [m for k in keys for m in found if repr(k.text) in m.code]
            return ranked[0] if ranked else found[0]
        if found:
            return found[0]
    return submits[0] if submits else moves[0]


_STATED_TESTS = ("starts", "ends", "<", "<=", ">", ">=")
"""Tests a question states in words ("ending in .pyi", "above 100"), not a phrase found in the data."""


class _ScriptedRun(_DecidingRun):
    def choose(self, moves: list[Move]) -> Move:
        return scripted_choice(self.book(), moves)


class _RankedRun(_DecidingRun):
    def choose(self, moves: list[Move]) -> Move:
        from dspy_rlm.profiles.ranker import load_ranker

        ranker = load_ranker()
        if ranker is None:
            raise RuntimeError("no move ranker is shipped (python -m benchmarks.train_ranker --write)")
        return ranker.rank(self.book(), moves)[0]


class RandomMovePolicy(SmallPolicy):
    """Each step, a move drawn uniformly from the grammar's moves (seeded: runs repeat).

    Args:
        seed: The random generator's seed.
    """

    name = "random-moves"

    def __init__(self, seed: int = 0, profile: Profile | None = None) -> None:
        super().__init__(profile)
        self.rng = random.Random(seed)

    def start(self, run: RunView) -> SmallPolicyRun:
        return _RandomRun(self.name, self.profile, run, self.rng)


class ScriptedMovePolicy(SmallPolicy):
    """Each step, the move fixed rules pick from the question's wording; then the first supported value."""

    name = "scripted-moves"

    def start(self, run: RunView) -> SmallPolicyRun:
        return _ScriptedRun(self.name, self.profile, run)


class RankedMovePolicy(SmallPolicy):
    """Each step, the move the learned ranker (:mod:`dspy_rlm.profiles.ranker`) scores best: the chooser fit on
    the training corpus by the oracle, with no LM call for the action."""

    name = "ranked-moves"

    def start(self, run: RunView) -> SmallPolicyRun:
        return _RankedRun(self.name, self.profile, run)
