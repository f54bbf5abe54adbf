"""The corpus's files of records that list items (training only): every ranking's gold is the record the library's
``most_items`` / ``fewest_items`` read, every count what ``items_of`` reads and a stdlib parser agrees with, every
membership what ``has_item`` reads."""

from __future__ import annotations

import json
import random

import pytest
import tomllib

from benchmarks.corpus import grammar
from benchmarks.corpus.build import build
from benchmarks.corpus.rosters import COUNT_SHAPES, FORMATS, MEMBER_SHAPES, SHAPES, phrase, roster_file
from dspy_rlm.library.items import fewest_items, has_item, items_of, most_items


def _file(seed: int):
    return roster_file(random.Random(f"test:{seed}"))


@pytest.mark.parametrize("seed", range(40))
def test_every_ranking_and_count_is_what_the_file_lists(seed):
    text, facts, fmt = _file(seed)
    name = facts[0].slots["name"]
    most, fewest = (f.gold for f in facts if f.kind == "min_max")
    assert most_items(text, name)[0] == most, fmt
    assert fewest_items(text, name)[0] == fewest, fmt
    parsed = json.loads(text) if fmt.startswith("json") else tomllib.loads(text) if fmt == "toml" else None
    for f in (f for f in facts if f.kind == "count"):
        key = f.slots["key"]
        read = items_of(text, key) if fmt == "group" else items_of(text, name, key)
        assert read == f.gold, (fmt, key)
        if isinstance(parsed, dict) and fmt != "json_list":
            assert len(parsed[key][name]) == f.gold
    for f in (f for f in facts if f.kind == "lookup"):
        assert str(f.gold) in text
    members = [f for f in facts if f.kind == "yes_no"]
    assert {f.gold for f in members} == {True, False}
    for f in members:
        key, item = f.slots["key"], f.slots["item"]
        if fmt == "group":
            assert has_item(text, key, item) is f.gold, (fmt, key, item)
        elif fmt == "group_json":
            assert has_item(text, f"{name}.{key}", item) is f.gold, (fmt, key, item)
        else:
            assert has_item(text, name, item, key) is f.gold, (fmt, key, item)


def test_the_seeds_cover_every_format():
    assert {_file(seed)[2] for seed in range(80)} >= set(FORMATS) - {"group"} | {"group_json"}


def test_every_family_asks_and_keeps_the_names_as_written():
    assert set(SHAPES) == set(COUNT_SHAPES) == set(MEMBER_SHAPES) == set(grammar.FAMILIES)
    _, facts, _ = _file(3)
    rng = random.Random(0)
    for fact in facts:
        for family in grammar.TRAINING:
            asked = phrase(fact, family, rng)
            if fact.kind in ("count", "yes_no"):
                assert fact.slots["key"] in asked, asked
            if fact.kind == "yes_no":
                assert fact.slots["item"] in asked, asked
            if fact.kind == "min_max":
                assert any(n in asked for n in (fact.slots["name"], *fact.slots["nouns"])), asked


def test_only_the_training_split_holds_roster_files():
    assert not [s for s in build("test").sources if s["name"].startswith("roster")]
    train = build("train", generated=0, listings_files=0)
    rostered = [q for q in train.questions if q.source.startswith("roster")]
    assert len({q.source for q in rostered}) >= 50 and {q.family for q in rostered} <= set(grammar.TRAINING)
