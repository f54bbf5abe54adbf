"""Yes/no questions that state a value of a record ("Is the UID of user daemon 5?", "Did job X fail?"), beside
plain existence questions, over real files of the machine: a kind of question the real-files benchmark does not
ask (its yes/no questions only ask whether a name is listed). A yes that only checks the name exists is wrong on
every "no" of this kind.

Case files (``benchmarks/yes_no/*.json``: ``file``, ``question``, ``gold``; ``{site-packages}`` in a path is the
running interpreter's): ``dev.json`` was written while the conditions were built; ``heldout.json`` was written by
someone who never saw the code, fixed in one commit before its first run, and is run once (each run is logged in
``benchmarks/results/yes_no_runs.jsonl``). A file this machine lacks skips its questions, and says so.

Run:
    python -m benchmarks.yes_no --cases benchmarks/yes_no/heldout.json --methods model,scripted \
        --out benchmarks/results/yes_no_heldout.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

from benchmarks.real_files.core import Question
from benchmarks.real_files.runner import load_average, make_method, now, run_question

BASELINES = {"always_yes": True, "always_no": False}
"""Trivial answers, scored as if each were Submitted."""


def load_cases(path: Path) -> tuple[list[Question], dict[str, str], list[str]]:
    """The questions of a case file whose files this machine has, their texts, and the files it lacks."""
    site = sysconfig.get_paths()["purelib"]
    questions, texts, missing = [], {}, []
    for i, case in enumerate(json.loads(path.read_text())):
        file = case["file"].replace("{site-packages}", site)
        if file not in texts:
            try:
                texts[file] = Path(file).read_text(errors="replace")
            except OSError:
                missing.append(file)
                continue
        q = Question(f"{path.stem}-{i:03d}", file, path.stem, "yes_no", "case", case["question"], "bool", case["gold"])
        questions.append(q)
    return questions, texts, sorted(set(missing))


def score(records: list[dict[str, Any]]) -> dict[str, Any]:
    submitted = [r for r in records if r["result_kind"] == "submitted"]
    right = [r for r in records if r["correct"]]
    n = max(1, len(records))
    return {
        "n": len(records),
        "correct_pct": round(100 * len(right) / n, 1),
        "submitted_solved_pct": round(100 * sum(r["correct"] for r in submitted) / n, 1),
        "submitted_wrong": sum(not r["correct"] for r in submitted),
        "submitted_precision_pct": round(100 * sum(r["correct"] for r in submitted) / max(1, len(submitted)), 1),
        "median_seconds": round(statistics.median(r["seconds"] for r in records), 2) if records else None,
    }


def run_methods(
    questions: list[Question], texts: dict[str, str], methods: str, max_iters: int, summarize: Any = score
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Each comma-separated method on every question: its figures (``summarize``) and the records."""
    figures: dict[str, Any] = {}
    everything: list[dict[str, Any]] = []
    for name in methods.split(","):
        method = make_method(name)
        records = [run_question(q, texts[q.source], name, method, max_iters) for q in questions]
        for q, r in zip(questions, records, strict=True):
            r.update(question=q.question, gold=q.gold)
        figures[name] = summarize(records)
        everything += records
        print(name, json.dumps(figures[name]), file=sys.stderr)
    return figures, everything


def finish(out: dict[str, Any], path: Path | None, log: Path | None, keep: tuple[str, ...]) -> None:
    """The run's end: load and commit noted, the JSON written to ``path``, the ``keep`` keys appended to ``log``."""
    out["load_end"] = load_average()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    out["commit"] = commit.stdout.strip() or None
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(out, indent=1, default=str) + "\n")
    if log:
        with log.open("a") as f:
            f.write(json.dumps({k: out[k] for k in keep}) + "\n")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=Path, default=Path("benchmarks/yes_no/dev.json"))
    ap.add_argument("--methods", default="scripted", help="comma-separated: model, scripted, random, ...")
    ap.add_argument("--max-iters", type=int, default=4)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--log", type=Path, help="append the figures of this run to this JSON-lines file")
    args = ap.parse_args(argv)
    questions, texts, missing = load_cases(args.cases)
    out: dict[str, Any] = {"command": " ".join(["python -m benchmarks.yes_no", *(argv or sys.argv[1:])])}
    out.update(started=now(), load_start=load_average(), cases=str(args.cases), missing_files=missing)
    golds = [q.gold for q in questions]
    out["baselines"] = {
        name: round(100 * sum(g == answer for g in golds) / max(1, len(golds)), 1) for name, answer in BASELINES.items()
    }
    out["methods"], out["records"] = run_methods(questions, texts, args.methods, args.max_iters)
    finish(out, args.out, args.log, ("command", "commit", "started", "load_start", "load_end", "baselines", "methods"))
    print(json.dumps({k: out[k] for k in ("baselines", "methods", "missing_files")}, indent=1))
    return out


if __name__ == "__main__":
    main()
