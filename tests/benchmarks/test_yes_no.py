"""The yes/no benchmark runs end to end on a case file, skips a file the machine lacks, and scores the trivial
baselines beside the method."""

from __future__ import annotations

import json

from benchmarks import yes_no


def test_the_benchmark_scores_the_scripted_rules_and_the_baselines(tmp_path):
    table = tmp_path / "jobs.csv"
    table.write_text("job,state\n" + "\n".join(f"job{i},{'failed' if i % 4 == 0 else 'ok'}" for i in range(1, 21)))
    cases = [
        {"file": str(table), "question": "Did job4 fail?", "gold": True},
        {"file": str(table), "question": "Did job5 fail?", "gold": False},
        {"file": str(table), "question": "Is job7 ok?", "gold": True},
        {"file": str(tmp_path / "absent.txt"), "question": "Is x there?", "gold": False},
    ]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    log = tmp_path / "runs.jsonl"
    out = yes_no.main(["--cases", str(tmp_path / "cases.json"), "--methods", "scripted", "--log", str(log)])
    assert out["missing_files"] == [str(tmp_path / "absent.txt")]
    assert out["baselines"] == {"always_yes": 66.7, "always_no": 33.3}
    assert out["methods"]["scripted"]["submitted_wrong"] == 0 and out["methods"]["scripted"]["n"] == 3
    assert out["methods"]["scripted"]["submitted_solved_pct"] == 100.0
    assert json.loads(log.read_text())["methods"]["scripted"]["n"] == 3
