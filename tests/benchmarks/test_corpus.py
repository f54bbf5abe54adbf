"""The question corpus (issue 28): a training set apart from every evaluation, a fresh test split, a grammar."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from benchmarks.corpus import grammar, tables
from benchmarks.corpus.build import build
from benchmarks.corpus.facts import table_facts
from benchmarks.corpus.generated import FORMATS, SCHEMAS, make_rows, render
from benchmarks.corpus.manifest import TEST, TRAIN
from benchmarks.real_files.core import KINDS, Fact
from benchmarks.real_files.sources import SOURCES

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def train():
    return build("train")


@pytest.fixture(scope="module")
def test_split():
    return build("test")


def test_training_set_is_large_and_uses_training_families_only(train):
    assert len(train.questions) >= 5000
    assert {q.family for q in train.questions} == set(grammar.TRAINING)
    assert not {q.family for q in train.questions} & set(grammar.HELD_OUT)
    assert {q.kind for q in train.questions} == set(KINDS) - {"later_line"}
    assert len({q.id for q in train.questions}) == len(train.questions)


def test_several_phrasings_per_fact(train):
    per_fact: dict[tuple, set[str]] = {}
    for q in train.questions:
        per_fact.setdefault((q.source, q.kind, repr(q.gold)), set()).add(q.question)
    assert sum(len(v) >= 2 for v in per_fact.values()) >= 0.6 * len(per_fact)


def test_splits_share_no_file():
    def path(p):
        found = p() if callable(p) else p
        return str(found) if found else None

    evaluation = {path(s.path) for s in SOURCES} | {path(f.path) for f in TEST}
    training = {path(f.path) for f in TRAIN}
    assert not (training - {None}) & evaluation
    assert all(f.split == "test" for f in TEST) and all(f.split == "train" for f in TRAIN)


def test_gold_is_in_the_file_and_the_build_is_deterministic(train, test_split):
    for data in (train, test_split):
        for q in data.questions:
            if q.output_type == "str":
                assert q.gold in data.contexts[q.source], q.id
    again = build("train")
    assert [q.to_dict() for q in again.questions] == [q.to_dict() for q in train.questions]


def test_test_split_has_every_kind_and_pairs_seen_with_held_out_families(test_split):
    if not test_split.questions:
        pytest.skip("none of the test split's files is on this machine")
    assert {q.split for q in test_split.questions} == {"test"}
    seen = [q for q in test_split.questions if q.family_seen]
    assert seen and len(seen) < len(test_split.questions)
    assert {q.family for q in test_split.questions if not q.family_seen} <= set(grammar.HELD_OUT)


def test_library_code_names_no_value_of_the_test_split(test_split):
    """No rule in library code keyed to a word of the evaluation files: no key or value the test split asks
    about (five characters or more, not a plain number) appears in dspy_rlm/ or dspy_outlines/."""
    code = "\n".join(p.read_text() for d in ("dspy_rlm", "dspy_outlines") for p in (ROOT / d).rglob("*.py"))
    code = code.casefold()
    asked = {str(q.gold) for q in test_split.questions if q.output_type == "str"}
    named = {w for w in asked if len(w) >= 5 and not re.fullmatch(r"[\d.,-]+", w)}
    found = sorted(w for w in named if re.search(rf"(?<![\w-]){re.escape(w.casefold())}(?![\w-])", code))
    assert not found


@pytest.mark.parametrize("fmt", ["csv", "tsv", "json", "json_by_key", "jsonl"])
def test_generated_renderings_parse_back_to_their_rows(fmt):
    rng = random.Random(3)
    schema = SCHEMAS[2]
    rows = make_rows(schema, rng, 30)
    names = {f: f for r in rows for f in r}
    text = render(rows, fmt, names, schema.key[0])
    if fmt in ("csv", "tsv"):
        back = tables.csv_rows(text, "," if fmt == "csv" else "\t")
    elif fmt == "json_by_key":
        back = [{schema.key[0]: r.pop("_key"), **r} for r in tables.json_records(text)]
    elif fmt == "jsonl":
        back = [tables.json_records("[" + ",".join(text.splitlines()) + "]")][0]
    else:
        back = tables.json_records(text)
    assert back == rows


def test_every_format_renders_every_key():
    rng = random.Random(5)
    rows = make_rows(SCHEMAS[0], rng, 12)
    names = {f: f for r in rows for f in r}
    for fmt in FORMATS:
        text = render(rows, fmt, names, SCHEMAS[0].key[0])
        assert all(r[SCHEMAS[0].key[0]] in text for r in rows), fmt


def test_grammar_covers_every_kind_in_every_family_and_keeps_slots_exact():
    rng = random.Random(0)
    slots = {"noun": "host", "nouns": "hosts", "key": "ab-12 X", "field": ("owner", "Owner"), "value": "Qu Ix"}
    slots |= {"via": "site", "measure": "cores", "extreme": ("largest",)}
    for family, shapes in grammar.FAMILIES.items():
        assert set(shapes) == set(KINDS) - {"later_line"}, family
        for kind in shapes:
            for _ in range(20):
                text = grammar.phrase(Fact(kind, slots, "x"), family, rng)
                if "{key}" in "".join(shapes[kind]):
                    assert "ab-12 X" in text
                assert "{" not in text


def test_facts_of_a_small_table():
    rows = [{"k": f"id{i}", "color": "red" if i % 3 else "blue", "size": str(i * 7)} for i in range(12)]
    table = tables.Table(("thing", "things"), "k", rows)
    facts = table_facts(table, random.Random(1))
    by_kind = {f.kind: f for f in facts}
    assert by_kind["most_common"].gold == "red"
    count = next(f for f in facts if f.kind == "count")
    assert count.gold == sum(r["color"] == count.slots["value"] for r in rows)
    extreme = by_kind["min_max"]
    assert extreme.gold in ("id11", "id0")


def test_parsers_read_their_formats():
    afm = "C 32 ; WX 250 ; N space ; B 0 0 0 0 ;\nC 65 ; WX 722 ; N A ; B 15 0 706 674 ;\n"
    assert tables.afm_glyphs(afm)[1] == {"N": "A", "C": "65", "WX": "722"}
    assert tables.line_table("IPv4  0800  ip ip4  # IP (IPv4)\n", ("name", "number"), rest="aliases") == [
        {"name": "IPv4", "number": "0800", "aliases": "ip ip4", "comment": "IP (IPv4)"}
    ]
    src = "LEXERS = {'ALexer': ('m.a', 'A', ('a', 'aa'), ('*.a',), ())}\n"
    assert (
        tables.python_dict(src, "LEXERS", ("lexer", "module", "name", "aliases", "filenames"))[0]["aliases"] == "a, aa"
    )
    assert tables.colon_pairs("# c\nlines.linewidth: 1.0  # w\n", "setting", "value") == [
        {"setting": "lines.linewidth", "value": "1.0"}
    ]
