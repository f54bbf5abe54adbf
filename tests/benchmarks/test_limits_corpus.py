"""The corpus's settings files of numeric limits (training only): every extreme's and lookup's gold is what the
file holds, read back without the generator (JSON by the stdlib, the other formats by their ``key = value`` /
``key: value`` lines), every family asks for it, and no evaluation split holds these files."""

from __future__ import annotations

import json
import random
import re

import pytest

from benchmarks.corpus import grammar
from benchmarks.corpus.build import build
from benchmarks.corpus.limits import FILE_SHAPES, LOOKUP_SHAPES, RANK_SHAPES, VALUE_SHAPES, limits_file, phrase


def _sections(text: str, fmt: str) -> dict[str, dict[str, str]]:
    if fmt == "json":
        return {k: {n: str(v) for n, v in s.items()} for k, s in json.loads(text).items()}
    out: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        if line and not line.startswith(" ") and "=" not in line:
            name = line.strip("[]:")
            out[name] = {}
        elif line.strip():
            k, v = re.split(r"\s*[=:]\s*", line.strip(), maxsplit=1)
            out[name][k] = v
    return out


def _numbers(settings: dict[str, str]) -> dict[str, int]:
    return {k: int(v) for k, v in settings.items() if re.fullmatch(r"-?\d+", v)}


@pytest.mark.parametrize("seed", range(30))
def test_every_extreme_and_lookup_is_what_the_file_holds(seed):
    text, facts, fmt = limits_file(random.Random(f"test:{seed}"))
    sections = _sections(text, fmt)
    every = {k: v for s in sections.values() for k, v in _numbers(s).items()}
    assert len(set(every.values())) == len(every)  # every number differs: the extremes are unique
    for fact in facts:
        shape, key = fact.slots.get("shape", "lookup"), fact.slots.get("key")
        numbers = _numbers(sections[key]) if key else every
        if shape == "lookup":
            assert numbers[fact.slots["name"]] == fact.gold
        elif shape == "value":
            assert fact.gold == max(numbers.values())
        else:
            pick = max if "largest" in fact.slots["extreme"] else min
            assert fact.gold == pick(numbers, key=numbers.__getitem__), (fmt, shape)


def test_every_family_asks_each_shape_naming_its_section():
    assert set(RANK_SHAPES) == set(VALUE_SHAPES) == set(FILE_SHAPES) == set(LOOKUP_SHAPES) == set(grammar.FAMILIES)
    rng = random.Random(0)
    _, facts, _ = limits_file(random.Random("test:1"))
    for fact in facts:
        for family in grammar.FAMILIES:
            asked = phrase(fact, family, rng)
            assert fact.slots.get("key", "") in asked and fact.slots.get("name", "") in asked, asked


def test_only_the_training_split_holds_limits_files():
    assert not [s for s in build("test").sources if s["name"].startswith("limits")]
    train = build("train", generated=0, listings_files=0, roster_files=0, tally_files=0, registry_files=0)
    limited = [q for q in train.questions if q.source.startswith("limits")]
    assert len({q.source for q in limited}) == 60 and {q.family for q in limited} <= set(grammar.TRAINING)
    assert {q.kind for q in limited} == {"min_max", "lookup"} and len(limited) >= 600
