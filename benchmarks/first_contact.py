"""How the small policy does on files the day it first meets them: each probe's first run, before any work on it.

    python -m benchmarks.first_contact --out benchmarks/results/first_contact.json

Every probe of :mod:`benchmarks.asked` (``benchmarks/asked/probe*.json``) was committed before it was first run,
and that first run is kept in ``benchmarks/results/`` (``asked_probeN_<commit>.json``, or the only run of the
probe) before the work that read its files. Those first runs are the closest thing this project has to files and
phrasings no rule was written for: the real-files splits share question templates with dev, and a probe's later
runs come after its fixes. This script reads the earliest run of each probe (by its ``started`` time) and pools
them per method: ``Submitted`` and right, ``Submitted`` precision, right with ``Extracted``, and the reliability
table and ECE (:func:`benchmarks.real_files.summary.reliability`) of every run. No LM is called.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.real_files.summary import reliability
from benchmarks.report import emit

RESULTS = Path(__file__).parent / "results"
ASKED = Path(__file__).parent / "asked"
_NAME = re.compile(r"asked_(probe\d*)(?:_\w+)?\.json")


NOT_FIRST_CONTACT = {
    "probe38": "three of its twelve files are the test split's (ptmr8a.afm, the litellm model-price JSON, "
    "/etc/ethertypes) and three the training corpus's (debian.csv, Pygments' _mapping.py, classic.mplstyle)",
    "probe50": "five of its twelve files are heldout.json's (amdgpu.ids, postgresql.conf.sample, sql_features.txt, "
    "ci-info's vendors.json, vim.desktop), which the scripted host checks read; its first run on the "
    "seven others (28 questions): model 17.9% Submitted and right with 6 wrong, on the five 40.0% with none",
}
"""Probes whose first run is no first contact, and why: left out of the pool."""


def first_runs(results: Path = RESULTS) -> dict[str, Path]:
    """The earliest kept run of each probe, by the time it started (:data:`NOT_FIRST_CONTACT` left out)."""
    runs: dict[str, list[tuple[str, Path]]] = defaultdict(list)
    for file in results.glob("asked_probe*.json"):
        match = _NAME.fullmatch(file.name)
        if match and match.group(1) not in NOT_FIRST_CONTACT:
            runs[match.group(1)].append((str(json.loads(file.read_text()).get("started", "")), file))
    return {probe: min(found)[1] for probe, found in sorted(runs.items())}


def probe_questions(parity: int | None = None) -> tuple[list[Any], dict[str, str]]:
    """The questions and texts of the probes with a first contact (:func:`first_runs`: a kept
    run, :data:`NOT_FIRST_CONTACT` left out; never ``heldout.json``, nor a probe not
    yet run); ``parity`` 0 or 1 keeps the probes whose number has it."""
    from benchmarks.asked import load_cases

    questions: list[Any] = []
    texts: dict[str, str] = {}
    for stem in first_runs():
        path = ASKED / f"{stem}.json"
        number = int(re.sub(r"\D", "", stem) or 0)
        if parity is not None and number % 2 != parity:
            continue
        qs, found, _missing = load_cases(path)
        questions += qs
        texts |= found
    return questions, texts


def rates(records: list[dict[str, Any]]) -> dict[str, Any]:
    submitted = [r for r in records if r["result_kind"] == "submitted"]
    right = sum(bool(r["correct"]) for r in submitted)
    n = len(records)
    return {
        "n": n,
        "submitted": len(submitted),
        "submitted_solved_pct": round(100 * right / n, 1) if n else None,
        "submitted_precision_pct": round(100 * right / len(submitted), 1) if submitted else None,
        "solved_pct": round(100 * sum(bool(r["correct"]) for r in records) / n, 1) if n else None,
    }


def summarize(files: dict[str, Path]) -> dict[str, Any]:
    pooled: dict[str, list[dict[str, Any]]] = defaultdict(list)
    per_probe: dict[str, dict[str, Any]] = {}
    for probe, file in files.items():
        data = json.loads(file.read_text())
        methods: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in data["records"]:
            methods[r["method"]].append(r)
        per_probe[probe] = {
            "file": file.name,
            "commit": data.get("commit"),
            **{m: rates(rs) for m, rs in methods.items()},
        }
        for m, rs in methods.items():
            pooled[m] += rs
    return {
        "probes": per_probe,
        "methods": {m: rates(rs) | {"calibration": reliability(rs)} for m, rs in sorted(pooled.items())},
        "by_eight": by_eight(files),
        "ceiling": ceiling(files),
    }


def ceiling(files: dict[str, Path]) -> dict[str, Any]:
    """The oracle's coverage on first contact against each method's first run, for the probes whose coverage was
    measured on the code of their first run (``oracle_coverage_probeN_<commit>.json``: ``git checkout <commit>``,
    then ``python -m benchmarks.oracle_coverage --cases benchmarks/asked/probeN.json``): how many questions any
    choice among that code's moves could have ``Submitted`` right, and how many each method did, inside and
    outside that set."""
    per: dict[str, dict[str, Any]] = {}
    for probe, file in files.items():
        records = json.loads(file.read_text())
        commit = records.get("commit")
        cov_file = file.parent / f"oracle_coverage_{probe}_{commit}.json"
        if not cov_file.exists():
            continue
        cov = json.loads(cov_file.read_text())
        covered = {q for q, ok in cov["covered_ids"].items() if ok}
        row: dict[str, Any] = {"n": cov["n"], "covered": len(covered), "why": cov["why"]}
        for method in ("model", "scripted", "random"):
            right = {
                r["id"]
                for r in records["records"]
                if r["method"] == method and r["correct"] and r["result_kind"] == "submitted"
            }
            row[method] = {"submitted_right": len(right), "inside_covered": len(right & covered)}
        per[probe] = row
    n = sum(r["n"] for r in per.values())
    why: dict[str, int] = defaultdict(int)
    for r in per.values():
        for k, v in r["why"].items():
            why[k] += v
    pooled: dict[str, Any] = {"n": n}
    if n:
        pooled["covered_pct"] = round(100 * sum(r["covered"] for r in per.values()) / n, 1)
        pooled["why_pct"] = {k: round(100 * v / n, 1) for k, v in sorted(why.items())}
        for m in ("model", "scripted", "random"):
            right = sum(r[m]["submitted_right"] for r in per.values())
            inside = sum(r[m]["inside_covered"] for r in per.values())
            pooled[m] = {"submitted_right_pct": round(100 * right / n, 1), "submitted_right": right}
            pooled[m]["inside_covered"] = inside
    return {"probes": per, "pooled": pooled}


def by_eight(files: dict[str, Path], method: str = "model") -> dict[str, dict[str, Any]]:
    """``method``'s first-contact rates over probes 1-8, 9-16, ... (by number; ``probe`` is 1): does first contact
    improve as the rules grow? Each later probe met code that had been mended on every earlier one."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for probe, file in files.items():
        number = int(re.sub(r"\D", "", probe) or 1)
        low = (number - 1) // 8 * 8 + 1
        records = [r for r in json.loads(file.read_text())["records"] if r["method"] == method]
        groups[f"{low}-{low + 7}"] += records
    return {name: rates(rs) for name, rs in sorted(groups.items(), key=lambda kv: int(kv[0].split("-")[0]))}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.first_contact", description=__doc__.split("\n\n")[0])
    p.add_argument("--results", type=Path, default=RESULTS)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    result = {**summarize(first_runs(args.results)), "left_out": NOT_FIRST_CONTACT}
    emit(result, args.out)
    return result


if __name__ == "__main__":
    main()
