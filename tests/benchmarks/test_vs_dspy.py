"""benchmarks/vs_dspy.py: one JSON object, dspy.RLM (LocalInterpreter) and ours both correct, Deno skipped
with a reason where it cannot run."""

from __future__ import annotations

import json

from benchmarks import vs_dspy


def test_context_has_the_needle_count_it_claims():
    text, n = vs_dspy.make_context(0.3)
    assert abs(len(text) - 300_000) < 1000 and n == text.count(vs_dspy.NEEDLE) >= 1
    assert vs_dspy.make_context(0.3) == (text, n)


def test_deno_missing_is_a_reason(monkeypatch):
    monkeypatch.setattr(vs_dspy.shutil, "which", lambda name: None)
    monkeypatch.setattr(vs_dspy.os.path, "isfile", lambda path: False)
    assert "deno is not installed" in vs_dspy.deno_status()


def test_quick_run_prints_one_json_object(capsys):
    assert vs_dspy.main(["--sizes", "0.05", "--iterations", "3", "--timeout", "180", "--repeat", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(vs_dspy.RUNNERS) <= set(report)
    deno = report["dspy_rlm_deno"]
    assert "skipped" in deno or deno["0.05MB"]["correct"]
    for runner in ("dspy_rlm_local", "ours"):
        row = report[runner]["0.05MB"]
        assert "error" not in row, row
        assert row["correct"] is True and row["iterations"] == 3
        assert row["iteration_s"] > 0 and row["first_lm_call_s"] > 0
        assert report[runner]["cold_start_s"] > 0
    assert report["ours"]["0.05MB"]["result_kind"] == "submitted"
