"""The corpus's settings files that list items (training only): every count's gold is what the file lists, read
back by a stdlib parser where the format has one and by the library's ``items_of`` in every format."""

from __future__ import annotations

import json
import random

import pytest
import tomllib

from benchmarks.corpus import grammar
from benchmarks.corpus.build import build
from benchmarks.corpus.listings import SHAPES, listing_file, phrase
from dspy_rlm.library.items import items_of


def _counts(seed: int):
    rng = random.Random(f"test:{seed}")
    text, facts, fmt = listing_file(rng)
    return text, fmt, [f for f in facts if f.kind == "count"], [f for f in facts if f.kind == "lookup"]


@pytest.mark.parametrize("seed", range(40))
def test_every_count_is_what_the_file_lists(seed):
    text, fmt, counts, lookups = _counts(seed)
    assert counts and lookups
    parsed = json.loads(text) if fmt == "json" else tomllib.loads(text) if fmt == "toml" else None
    for f in counts:
        name, section = f.slots["name"], f.slots["section"]
        if parsed is not None:
            assert len(parsed[section][name]) == f.gold
        read = items_of(text, name)
        read = read if isinstance(read, int) else items_of(text, name, section)
        assert read == f.gold, (fmt, name)
    for f in lookups:
        assert str(f.gold) in text


def test_every_family_asks_for_items_and_keeps_the_name_as_written():
    assert set(SHAPES) == set(grammar.FAMILIES)
    _, _, counts, _ = _counts(1)
    rng = random.Random(0)
    for family in grammar.TRAINING:
        for _ in range(5):
            text = phrase(counts[0], family, rng)
            assert counts[0].slots["name"] in text or counts[0].slots["spoken"] in text.casefold(), text


def test_only_the_training_split_holds_listing_files():
    assert not [s for s in build("test").sources if s["name"].startswith("list")]
    train = build("train", generated=0)
    listed = [q for q in train.questions if q.source.startswith("list")]
    assert len({q.source for q in listed}) >= 50 and {q.family for q in listed} <= set(grammar.TRAINING)
