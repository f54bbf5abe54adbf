"""benchmarks/vs_dspy.py: one JSON object, dspy.RLM (LocalInterpreter) and ours both correct; dspy.RLM on
Deno + Pyodide run offline through benchmarks/deno_offline where deno is installed, skipped with a reason
where it is not."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from benchmarks import deno_offline, vs_dspy


def test_context_has_the_needle_count_it_claims():
    text, n = vs_dspy.make_context(0.3)
    assert abs(len(text) - 300_000) < 1000 and n == text.count(vs_dspy.NEEDLE) >= 1
    assert vs_dspy.make_context(0.3) == (text, n)


def test_deno_missing_is_a_reason(monkeypatch):
    monkeypatch.setattr(vs_dspy.deno_offline.shutil, "which", lambda name: None)
    monkeypatch.setattr(vs_dspy.deno_offline.os.path, "isfile", lambda path: False)
    assert "deno is not installed" in vs_dspy.deno_status()


def test_deno_missing_skips_the_runner_in_the_report(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(vs_dspy.deno_offline, "deno_executable", lambda: None)
    out = tmp_path / "r.json"
    assert vs_dspy.main(["--runners", "dspy_rlm_deno", "--sizes", "0.05", "--repeat", "1", "--out", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "deno is not installed" in report["dspy_rlm_deno"]["skipped"]
    assert json.loads(out.read_text()) == report


def test_std_shim_reads_lines_like_std(tmp_path):
    """The import map's readLines: CRLF, empty lines, a long line with multi-byte text, no final newline."""
    exe = deno_offline.deno_executable()
    if exe is None:
        pytest.skip(vs_dspy.deno_status())
    script = tmp_path / "lines.ts"
    script.write_text(
        'import { readLines } from "https://deno.land/std@0.186.0/io/mod.ts";\n'
        "const out = [];\nfor await (const l of readLines(Deno.stdin)) out.push(l);\n"
        "console.log(JSON.stringify(out));\n"
    )
    lines = ["a", "", "\u00e9" * 5000 + "x", "last"]
    text = "a\r\n\n" + lines[2] + "\nlast"
    proc = subprocess.run(
        [exe, "run", "--no-config", "--no-lock", f"--import-map={deno_offline.IMPORT_MAP}", str(script)],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "DENO_NO_PACKAGE_JSON": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == lines


def test_dspy_rlm_on_deno_runs_offline():
    """dspy.RLM with dspy's own Deno + Pyodide interpreter, end to end on a small context (skipped without deno)."""
    if deno_offline.deno_executable() is None:
        pytest.skip(vs_dspy.deno_status())
    ok, message = deno_offline.prefetch(timeout=120)
    if not ok:  # no npm registry reachable and nothing cached: a setup limit, not a failure of ours
        pytest.skip(f"cannot cache npm:pyodide for dspy's runner.js: {message}")
    t0 = time.perf_counter()
    row = vs_dspy.run_worker("dspy_rlm_deno", 0.05, 3, timeout=120)
    assert "error" not in row, row
    assert row["correct"] is True and row["iterations"] == 3 and row["iteration_s"] > 0
    assert time.perf_counter() - t0 < 120


def test_quick_run_prints_one_json_object(capsys):
    args = [
        "--sizes",
        "0.05",
        "--iterations",
        "3",
        "--timeout",
        "180",
        "--repeat",
        "1",
        "--runners",
        "dspy_rlm_local,ours",
    ]
    assert vs_dspy.main(args) == 0
    report = json.loads(capsys.readouterr().out)
    for runner in ("dspy_rlm_local", "ours"):
        row = report[runner]["0.05MB"]
        assert "error" not in row, row
        assert row["correct"] is True and row["iterations"] == 3
        assert row["iteration_s"] > 0 and row["first_lm_call_s"] > 0
        assert report[runner]["cold_start_s"] > 0
    assert report["ours"]["0.05MB"]["result_kind"] == "submitted"
