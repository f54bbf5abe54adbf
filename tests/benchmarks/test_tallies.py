"""The corpus's whole-file tallies and registries (training only): every count's and extreme's gold is what the file
holds, read back by a stdlib parser (JSON) or by the records' own lines, and every family asks for it."""

from __future__ import annotations

import json
import random
import re

import pytest

from benchmarks.corpus import grammar
from benchmarks.corpus.build import build
from benchmarks.corpus.registries import COUNT_SHAPES, RANK_SHAPES, registry_file
from benchmarks.corpus.registries import phrase as phrase_registry
from benchmarks.corpus.tallies import _ALL, _HAVING, phrase, tally_file


def _records(text: str, fmt: str) -> list[dict[str, str]]:
    """The file's records read back without the generator's rows."""
    if fmt == "json":
        return json.loads(text)
    if fmt == "json_by_key":
        return list(json.loads(text).values())
    if fmt == "jsonl":
        return [json.loads(line) for line in text.splitlines()]
    if fmt == "stanzas":
        return [dict(line.split(": ", 1) for line in block.splitlines()) for block in text.split("\n\n") if block]
    if fmt == "ini":
        return [dict(line.split(" = ", 1) for line in block.splitlines()[1:]) for block in text.split("\n\n") if block]
    return [dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line)) for line in text.splitlines()]  # logfmt


@pytest.mark.parametrize("seed", range(30))
def test_every_tally_is_what_the_file_holds(seed):
    text, facts, fmt = tally_file(random.Random(f"test:{seed}"))
    records = _records(text, fmt)
    assert facts[0].slots["tally"] == "all" and facts[0].gold == len(records)
    for fact in facts[1:]:
        names = fact.slots["field"]
        have = sum(any(n in r for n in names) for r in records)
        assert fact.gold == have and 0 < have < len(records), (fmt, names)


def test_every_family_asks_both_tallies_and_keeps_the_field_as_written():
    assert set(_ALL) == set(_HAVING) == set(grammar.FAMILIES)
    rng = random.Random(0)
    for seed in range(10):
        _, facts, _ = tally_file(random.Random(f"test:{seed}"))
        for fact in facts[1:]:
            for family in grammar.FAMILIES:
                asked = phrase(fact, family, rng)
                assert any(n in asked or n in asked.casefold() for n in fact.slots["field"]), asked


def test_only_the_training_split_holds_tally_files():
    assert not [s for s in build("test").sources if s["name"].startswith("tally")]
    train = build("train", generated=0, listings_files=0, roster_files=0)
    tallied = [q for q in train.questions if q.source.startswith("tally")]
    assert len({q.source for q in tallied}) == 60 and {q.family for q in tallied} <= set(grammar.TRAINING)
    assert {q.kind for q in tallied} == {"count"} and len(tallied) >= 250
    registered = [q for q in train.questions if q.source.startswith("registry")]
    assert len({q.source for q in registered}) == 40 and {q.kind for q in registered} == {"count", "min_max"}
    assert not [s for s in build("test").sources if s["name"].startswith("registry")]


@pytest.mark.parametrize("seed", range(20))
def test_every_registry_count_and_extreme_is_what_its_sections_hold(seed):
    text, facts, fmt = registry_file(random.Random(f"test:{seed}"))
    if fmt == "json":
        sizes = {name: len(entries) for name, entries in json.loads(text).items()}
    else:  # a section's header, then one entry per indented or ``=`` line
        sizes, name = {}, ""
        for line in text.splitlines():
            if line and not line.startswith(" ") and ("=" not in line):
                name = line.strip("[]:").strip('"')
                sizes[name] = 0
            elif line.strip():
                sizes[name] += 1
    assert len(set(sizes.values())) == len(sizes)  # every size differs: the extremes are unique
    for fact in facts:
        if fact.kind == "count":
            assert fact.gold == sizes[fact.slots["key"]]
        else:
            pick = max if "most" in fact.slots["extreme"] else min
            assert fact.gold == pick(sizes, key=sizes.__getitem__)


def test_every_family_asks_a_registry_for_its_section_by_name():
    assert set(COUNT_SHAPES) == set(RANK_SHAPES) == set(grammar.FAMILIES)
    rng = random.Random(0)
    _, facts, _ = registry_file(random.Random("test:1"))
    for family in grammar.FAMILIES:
        asked = phrase_registry(facts[0], family, rng)
        assert facts[0].slots["key"] in asked, asked
