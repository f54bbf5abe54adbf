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
