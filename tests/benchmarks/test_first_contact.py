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
