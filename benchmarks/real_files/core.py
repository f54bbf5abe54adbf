"""The benchmark's data types: a fact (gold computed from a file) and a question (a fact put in words)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

KINDS = (
    "lookup",
    "multi_word",
    "reverse",
    "later_line",
    "count",
    "most_common",
    "min_max",
    "yes_no",
    "two_hop",
)

Gold = str | int | bool
T = TypeVar("T")


@dataclass(frozen=True)
class Fact:
    """One answerable fact about a source, computed by the source's own parser.

    ``slots`` fill the kind's question templates (see ``templates.py``); a slot given as a tuple offers
    alternative wordings (e.g. the field name as a user says it and as the file spells it) and the builder
    picks one with the seeded RNG. ``repeat`` asks for that many different phrasings of the same fact (used
    where a file offers few facts of a kind, e.g. one most-common field).
    """

    kind: str
    slots: Mapping[str, Any]  # str, or a tuple of alternative wordings
    gold: Gold
    alternatives: tuple[Gold, ...] = ()
    repeat: int = 1

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind {self.kind!r}; choose from {', '.join(KINDS)}")


@dataclass(frozen=True)
class Question:
    """One benchmark item: the question, where its context comes from, and its gold answer."""

    id: str
    source: str
    split: str
    kind: str
    phrasing: str
    question: str
    output_type: str  # "str" | "int" | "float" | "bool"
    gold: Gold
    alternatives: list[Gold] = field(default_factory=list)
    family: str | None = None  # the phrasing family (benchmarks.corpus.grammar), for corpus questions
    family_seen: bool | None = None  # whether training questions use that family

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def output_type(gold: Gold) -> str:
    if isinstance(gold, bool):
        return "bool"
    return "int" if isinstance(gold, int) else "str"


def sample(rng: random.Random, items: Sequence[T], k: int) -> list[T]:
    """Up to ``k`` items, drawn without replacement, in a deterministic order for a given RNG state."""
    return rng.sample(list(items), min(k, len(items)))


def unique_by(items: Iterable[T], key: Any) -> list[T]:
    """The items whose ``key(item)`` occurs exactly once (a question about them has one answer)."""
    items = list(items)
    counts = Counter(key(item) for item in items)
    return [item for item in items if counts[key(item)] == 1]


def top(counter: Counter) -> tuple[Any, tuple[Any, ...]]:
    """The most common value and the values tied with it (in first-seen order)."""
    best = max(counter.values())
    tied = [value for value, n in counter.items() if n == best]
    return tied[0], tuple(tied[1:])


def extreme(items: Sequence[T], measure: Any, largest: bool) -> tuple[T, tuple[T, ...]]:
    """The item with the largest (or smallest) measure and the items tied with it."""
    values = [measure(item) for item in items]
    best = max(values) if largest else min(values)
    tied = [item for item, value in zip(items, values, strict=True) if value == best]
    return tied[0], tuple(tied[1:])


Slots = dict[str, Any]  # a Fact's template slots


def varied(rng: random.Random, items: Sequence[T], k: int, value: Any) -> list[T]:
    """Up to ``k`` items, more than half of them (when there are enough) with a ``value`` other than the most
    common one, so that a file dominated by one value (every upload ``urgency=low``) does not make the gold
    guessable."""
    if not items:
        return []
    common = Counter(value(item) for item in items).most_common(1)[0][0]
    rare = [i for i, item in enumerate(items) if value(item) != common]
    chosen = sample(rng, rare, k - k // 2)
    rest = [i for i in range(len(items)) if i not in chosen]
    chosen += sample(rng, rest, k - len(chosen))
    return [items[i] for i in chosen]
