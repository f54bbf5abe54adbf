"""The corpus's tables without a header row (training only): every line keeps its columns (a missing cell is
``-``), a lookup's gold stands on its key's line in its field's column, read back from the text alone, and only
``columns_named`` names the columns."""

from __future__ import annotations

import random

import pytest

from benchmarks.corpus import grammar
from benchmarks.corpus.build import build
from benchmarks.corpus.unheaded import LAYOUTS, unheaded_file


def _lines(text: str) -> list[tuple[list[str], str]]:
    """Each row's whitespace cells and its trailing comment or last several-word field (``""`` when none)."""
    rows = []
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        body, _, comment = line.partition("   # ")
        rows.append((body.split(), comment))
    return rows


@pytest.mark.parametrize("seed", range(40))
def test_every_row_keeps_its_columns_and_every_lookup_is_on_its_keys_line(seed):
    text, facts, layout = unheaded_file(random.Random(f"test:{seed}"))
    assert layout in LAYOUTS
    rows = _lines(text)
    keys = [cells[0] for cells, _ in rows]
    assert len(keys) == len(set(keys)) >= 10
    if layout == "pairs":
        assert all(len(cells) >= 1 for cells, _ in rows)
    for fact in facts:
        if fact.kind == "lookup":
            cells, comment = rows[keys.index(fact.slots["key"])]
            line = " ".join(cells) + " " + comment
            assert str(fact.gold) in line, (layout, fact)
        if fact.kind == "yes_no" and fact.gold is True:
            assert fact.slots["key"] in keys


def test_only_the_named_layout_names_its_columns():
    named = bare = 0
    for seed in range(40):
        text, facts, layout = unheaded_file(random.Random(f"test:{seed}"))
        comments = [line for line in text.splitlines() if line.startswith("#")]
        fields = {f.replace(" ", "_") for fact in facts for f in fact.slots.get("field", ())}
        if layout == "columns_named":
            named += 1
            assert fields <= set(comments[-1].replace("#", " ").split()), (comments[-1], fields)
        else:
            bare += 1
            assert len(comments) == 2 and not any(f in " ".join(comments) for f in fields), (layout, comments)
    assert named and bare


def test_a_missing_cell_is_a_dash_so_the_columns_stay_aligned():
    checked = 0
    for seed in range(60):
        text, _, layout = unheaded_file(random.Random(f"test:{seed}"))
        if layout != "columns_named":
            continue
        header = [line for line in text.splitlines() if line.startswith("# ")][-1][2:]
        columns = header.partition(" # ")[0].split()
        rows = _lines(text)
        assert all(len(cells) >= len(columns) - 1 for cells, _ in rows), (seed, columns)
        assert any("-" in cells[1:] for cells, _ in rows) or all(len(c) >= len(columns) for c, _ in rows)
        checked += 1
    assert checked >= 10


def test_only_the_training_split_holds_headerless_files():
    assert not [s for s in build("test").sources if s["name"].startswith("bare")]
    train = build("train", generated=0, listings_files=0, roster_files=0, tally_files=0, registry_files=0)
    bare = [q for q in train.questions if q.source.startswith("bare")]
    assert len({q.source for q in bare}) == 60 and {q.family for q in bare} <= set(grammar.TRAINING)
