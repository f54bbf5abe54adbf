"""The first-contact figures pool each probe's earliest kept run, per method."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.first_contact import first_runs, summarize


def _run(path: Path, started: str, answers: list[tuple[str, bool]]) -> None:
    records = [
        {"method": "model", "result_kind": kind, "correct": ok, "confidence": 0.98 if kind == "submitted" else 0.1}
        for kind, ok in answers
    ]
    path.write_text(json.dumps({"started": started, "commit": path.stem[-7:], "records": records}))


def test_the_earliest_run_of_each_probe_is_pooled(tmp_path: Path) -> None:
    _run(tmp_path / "asked_probe3_aaaaaaa.json", "2026-11-01T10:00", [("submitted", False), ("extracted", True)])
    _run(tmp_path / "asked_probe3.json", "2026-11-02T10:00", [("submitted", True), ("submitted", True)])
    _run(tmp_path / "asked_probe4_bbbbbbb.json", "2026-11-03T10:00", [("submitted", True), ("extracted", False)])
    (tmp_path / "asked_heldout.json").write_text("{}")  # not a probe
    files = first_runs(tmp_path)
    assert {p: f.name for p, f in files.items()} == {
        "probe3": "asked_probe3_aaaaaaa.json",
        "probe4": "asked_probe4_bbbbbbb.json",
    }
    model = summarize(files)["methods"]["model"]
    assert (model["n"], model["submitted"], model["submitted_precision_pct"], model["solved_pct"]) == (4, 2, 50.0, 50.0)
    assert model["calibration"]["ece"] is not None


def test_the_calibration_folds_are_the_first_contact_probes_split_by_parity() -> None:
    from benchmarks.calibration_folds import scored
    from benchmarks.first_contact import NOT_FIRST_CONTACT, probe_questions

    even, odd = probe_questions(0), probe_questions(1)
    probes = {q.split for q in even[0]} | {q.split for q in odd[0]}
    assert probes == set(first_runs()) and not probes & set(NOT_FIRST_CONTACT)  # never heldout.json, nor an unrun probe
    assert all(int(p.removeprefix("probe") or 0) % 2 == 0 for p in {q.split for q in even[0]})
    assert {q.source for q in even[0]} <= set(even[1])
    chooser = {"weights": [1.0, 0.0], "bias": 0.0, "threshold": 0.6, "unsupported": 0.2}
    got = scored(
        [(True, 0.9, 0.5, True), (True, 0.9, 0.5, False), (True, 0.3, 0.5, True), (False, 0.0, 0.1, False)], chooser
    )
    assert (got["endings"], got["submitted"], got["submitted_wrong"], got["submitted_precision_pct"]) == (4, 2, 1, 50.0)


def test_the_ceiling_counts_each_methods_right_answers_inside_the_oracles_coverage(tmp_path: Path) -> None:
    from benchmarks.first_contact import ceiling

    records = [
        {"id": "probe7-000", "method": "model", "result_kind": "submitted", "correct": True},
        {"id": "probe7-001", "method": "model", "result_kind": "submitted", "correct": True},
        {"id": "probe7-002", "method": "model", "result_kind": "extracted", "correct": True},
        {"id": "probe7-000", "method": "scripted", "result_kind": "submitted", "correct": False},
    ]
    (tmp_path / "asked_probe7_ccccccc.json").write_text(
        json.dumps({"started": "x", "commit": "ccccccc", "records": records})
    )
    coverage = {"n": 3, "why": {"covered": 2, "gold never read": 1}}
    coverage["covered_ids"] = {"probe7-000": True, "probe7-001": False, "probe7-002": True}
    (tmp_path / "oracle_coverage_probe7_ccccccc.json").write_text(json.dumps(coverage))
    got = ceiling(first_runs(tmp_path))["pooled"]
    assert (got["covered_pct"], got["model"]["submitted_right"], got["model"]["inside_covered"]) == (66.7, 2, 1)
    assert got["scripted"]["submitted_right"] == 0 and got["why_pct"]["gold never read"] == 33.3
