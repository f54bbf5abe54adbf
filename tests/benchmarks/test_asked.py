"""The mixed-kind case benchmark runs end to end: typed golds and their alternatives, kinds scored apart, a file
the machine lacks skipped, a bad type refused, the run logged."""

from __future__ import annotations

import json

import pytest

from benchmarks import asked


def _table(tmp_path):
    table = tmp_path / "hosts.csv"
    table.write_text(
        "host,os,cores\n" + "\n".join(f"h{i},{'Debian' if i % 3 else 'Fedora'},{i * 2}" for i in range(1, 22))
    )
    return table


def test_the_benchmark_scores_each_kind_and_accepts_an_alternative(tmp_path):
    table = str(_table(tmp_path))
    cases = [
        {"file": table, "question": "What is the os of h3?", "type": "str", "gold": "Fedora", "kind": "lookup"},
        {"file": table, "question": "How many hosts have os Fedora?", "type": "int", "gold": 7, "kind": "count"},
        {"file": table, "question": "Is h9 listed?", "type": "bool", "gold": True, "kind": "yes_no"},
        # the gold is deliberately not what the data says; the alternative is: it must be accepted
        {"file": table, "question": "What is the os of h4?", "type": "str", "gold": "Debian GNU/Linux",
         "alternatives": ["Debian"], "kind": "lookup"},
        {"file": str(tmp_path / "absent.txt"), "question": "Is x there?", "type": "bool", "gold": False},
    ]  # fmt: skip
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    log = tmp_path / "runs.jsonl"
    out = asked.main(["--cases", str(tmp_path / "cases.json"), "--methods", "scripted", "--log", str(log)])
    scripted = out["methods"]["scripted"]
    assert out["missing_files"] == [str(tmp_path / "absent.txt")] and scripted["n"] == 4
    assert scripted["submitted_solved_pct"] == 100.0 and scripted["submitted_wrong"] == 0
    assert scripted["by_kind"]["lookup"]["n"] == 2 and scripted["by_kind"]["count"]["n"] == 1
    assert json.loads(log.read_text())["methods"]["scripted"]["n"] == 4


def test_a_case_of_an_unknown_type_is_refused(tmp_path):
    cases = [{"file": str(_table(tmp_path)), "question": "q?", "type": "date", "gold": "2026-11-27"}]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    with pytest.raises(ValueError, match="type 'date'"):
        asked.load_cases(tmp_path / "cases.json")
