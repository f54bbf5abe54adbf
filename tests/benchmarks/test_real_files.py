"""The real-files benchmark: its dataset (sizes, split, gold grounded in the files), scorer and runner plumbing."""

from __future__ import annotations

from collections import defaultdict

import pytest
from dspy.utils import DummyLM

from benchmarks.real_files import KINDS, build_dataset
from benchmarks.real_files.__main__ import limited
from benchmarks.real_files.__main__ import main as cli_main
from benchmarks.real_files.runner import METHODS, Method
from benchmarks.real_files.scoring import is_correct, normalize_text, to_bool, to_int
from benchmarks.real_files.sources import SOURCES


@pytest.fixture(scope="module")
def data():
    return build_dataset("all")


def test_every_source_is_on_this_machine_and_gives_questions(data):
    assert len(SOURCES) >= 10
    missing = [s["name"] for s in data.sources if not s["available"]]
    assert missing == [], f"sources not found on this machine: {missing}"
    assert all(s["questions"] >= 20 for s in data.sources), data.sources


def test_dataset_size_kinds_and_phrasings(data):
    assert len(data.questions) >= 240
    assert {q.kind for q in data.questions} == set(KINDS)
    phrasings = defaultdict(set)
    for q in data.questions:
        phrasings[q.kind].add(q.phrasing)
    assert all(len(p) >= 3 for p in phrasings.values()), phrasings
    assert len({q.id for q in data.questions}) == len(data.questions)
    assert len({(q.source, q.question) for q in data.questions}) == len(data.questions)


def test_split_is_by_source_and_every_kind_is_in_both(data):
    dev = {q.source for q in data.questions if q.split == "dev"}
    test = {q.source for q in data.questions if q.split == "test_v1"}
    assert dev and test and not dev & test
    for split in ("dev", "test_v1"):
        kinds = {q.kind for q in data.questions if q.split == split}
        assert kinds == set(KINDS), f"{split} lacks {set(KINDS) - kinds}"
    only_dev = build_dataset("dev")
    assert {q.split for q in only_dev.questions} == {"dev"}
    assert set(only_dev.contexts) == dev


def test_gold_is_deterministic(data):
    again = build_dataset("all")
    assert [q.to_dict() for q in again.questions] == [q.to_dict() for q in data.questions]
    other = build_dataset("all", seed=20)
    assert [q.question for q in other.questions] != [q.question for q in data.questions]


def test_string_gold_occurs_in_its_source(data):
    for q in data.questions:
        assert q.output_type == {bool: "bool", int: "int", str: "str"}[type(q.gold)]
        if q.output_type == "str":
            assert q.gold in data.contexts[q.source], (q.id, q.gold)


def test_yes_no_has_both_answers_and_counts_are_plausible(data):
    for split in ("dev", "test_v1"):
        answers = [q.gold for q in data.questions if q.kind == "yes_no" and q.split == split]
        assert True in answers and False in answers
    assert all(0 <= q.gold <= 10_000 for q in data.questions if q.kind == "count")


@pytest.mark.parametrize(
    ("answer", "gold", "kind", "expected"),
    [
        ("  'Michael  Stone'. ", "Michael Stone", "str", True),
        ("MICHAEL STONE", "Michael Stone", "str", True),
        ("Stone", "Michael Stone", "str", False),  # never a substring match
        ("Michael Stone and others", "Michael Stone", "str", False),
        ("1,234", 1234, "int", True),
        ("1234.", 1234, "int", True),
        (1234.0, 1234, "int", True),
        ("12345", 1234, "int", False),
        ("about 1234", 1234, "int", False),
        ("Yes", True, "bool", True),
        ("false", False, "bool", True),
        ("no", True, "bool", False),
        ("maybe", False, "bool", False),
        (None, "x", "str", False),
        ("2.2090496998585441e-05", 2.209049699858544e-05, "float", True),
        (0.5, 0.5, "float", True),
        ("0.50001", 0.5, "float", False),
        ("half", 0.5, "float", False),
        (True, 1.0, "float", False),
    ],
)
def test_scorer_normalization(answer, gold, kind, expected):
    assert is_correct(answer, gold, kind) is expected


def test_scorer_accepts_tied_alternatives():
    assert is_correct("SUB_GID_MAX", "SUB_UID_MAX", "str", ["SUB_GID_MAX"])
    assert normalize_text('"Europe/Paris"') == "europe/paris"
    assert to_int("1 234 567") == 1234567 and to_int(True) is None
    assert to_bool("TRUE") is True and to_bool("yes.") is True


def test_runner_end_to_end_with_a_scripted_lm(monkeypatch, tmp_path):
    """Three dev questions through the real RLM under an LM that submits each gold: all scored solved."""
    data = build_dataset("dev")
    chosen = limited(data.questions, 3, 19)
    script = [{"reasoning": "r", "code": f"```python\nSUBMIT(answer={q.gold!r})\n```"} for q in chosen]
    monkeypatch.setitem(METHODS, "scripted_gold", lambda: Method(lm=DummyLM(script)))
    out = tmp_path / "rf.json"
    payload = cli_main(["--split", "dev", "--limit", "3", "--methods", "scripted_gold", "--out", str(out)])
    records = payload["records"]
    assert [r["id"] for r in records] == [q.id for q in chosen]
    assert all(r["result_kind"] == "submitted" and r["correct"] for r in records), records
    assert all("notes" in r for r in records)  # what backed each ending is kept beside it
    summary = payload["summary"]["methods"]["scripted_gold"]
    assert summary["solved_pct"] == 100.0 and summary["submitted_precision_pct"] == 100.0
    assert payload["summary"]["overall"]["solved_pct"] is None  # no "model" run here
    assert out.read_text().startswith("{")
