"""``python -m benchmarks.real_files [--split dev|test|all] [--out FILE] [--methods model,...] [--limit N]
[--max-iters N] [--seed S]``: build the questions, run each method, print and write the JSON."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.real_files.dataset import DEFAULT_SEED, build_dataset
from benchmarks.real_files.runner import METHODS, load_average, now, run_method
from benchmarks.real_files.summary import summarize


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.real_files", description=__doc__)
    p.add_argument(
        "--split",
        choices=("dev", "test", "test_v1", "all"),
        default="dev",
        help="test: the fresh split of benchmarks.corpus (issue 28; every run is logged); test_v1: the earlier one",
    )
    p.add_argument("--out", type=Path, default=None, help="write the JSON here too")
    p.add_argument("--methods", default="model", help=f"comma-separated, from: {', '.join(METHODS)}")
    p.add_argument("--limit", type=int, default=None, help="run a seeded sample of N questions (stratified by kind)")
    p.add_argument("--max-iters", type=int, default=6)
    p.add_argument("--max-time", type=float, default=None, help="seconds per question (RLM max_time); none by default")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="question-generation (and sampling) seed")
    p.add_argument("--dataset-only", action="store_true", help="print the questions and gold, run nothing")
    return p.parse_args(argv)


TEST_RUNS = Path(__file__).resolve().parents[1] / "results" / "real_files_test_runs.jsonl"
"""Every run of the fresh test split, appended (issue 28: each is reported, none is dropped)."""


def log_test_run(payload: dict[str, Any], argv: list[str] | None) -> None:
    """Append this test-split run's commit, date, command and figures to :data:`TEST_RUNS`."""
    import subprocess

    def git(*a: str) -> str:
        done = subprocess.run(["git", *a], capture_output=True, text=True, cwd=TEST_RUNS.parent, check=False)
        return done.stdout.strip()

    methods = payload["summary"]["methods"]
    keys = ("n", "solved_pct", "submitted_solved_pct", "submitted_precision_pct", "mean_seconds", "median_seconds")
    entry = {
        "commit": git("rev-parse", "--short", "HEAD"),
        "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        "date": payload["started"],
        "command": "python -m benchmarks.real_files " + " ".join(sys.argv[1:] if argv is None else argv),
        "load": [payload["load_start"], payload["load_end"]],
        "wall_seconds": payload["wall_seconds"],
        "complete": payload["complete"],
        "methods": {m: {k: s.get(k) for k in keys} | {"by_family": s.get("by_family")} for m, s in methods.items()},
    }
    with TEST_RUNS.open("a") as f:
        f.write(json.dumps(entry, default=str) + "\n")


def fresh_test(seed: int) -> Any:
    """The fresh test split (``benchmarks.corpus``, seed 28 unless ``--seed`` says otherwise)."""
    from benchmarks.corpus.build import DEFAULT_SEED as CORPUS_SEED
    from benchmarks.corpus.build import build

    return build("test", CORPUS_SEED if seed == DEFAULT_SEED else seed)


def limited(questions: list[Any], limit: int | None, seed: int) -> list[Any]:
    """A seeded sample, round-robin over kinds so that each kind keeps its share; file order kept."""
    if limit is None or limit >= len(questions):
        return questions
    rng = random.Random(f"limit:{seed}")
    by_kind: dict[str, list[Any]] = {}
    for q in questions:
        by_kind.setdefault(q.kind, []).append(q)
    for pool in by_kind.values():
        rng.shuffle(pool)
    chosen: list[Any] = []
    while len(chosen) < limit:
        for pool in by_kind.values():
            if pool and len(chosen) < limit:
                chosen.append(pool.pop())
    keep = {q.id for q in chosen}
    return [q for q in questions if q.id in keep]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise SystemExit(f"unknown methods {unknown}; choose from {', '.join(METHODS)}")
    data = fresh_test(args.seed) if args.split == "test" else build_dataset(args.split, args.seed)
    questions = limited(data.questions, args.limit, args.seed)
    config = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    payload: dict[str, Any] = {"config": config, "started": now(), "load_start": load_average()}
    payload["sources"] = data.sources
    payload["questions"] = [q.to_dict() for q in questions]
    records: list[dict[str, Any]] = []
    start = time.perf_counter()

    def finish(complete: bool) -> None:
        payload.update(wall_seconds=round(time.perf_counter() - start, 1), load_end=load_average(), complete=complete)
        payload["summary"] = summarize(records, questions, data.contexts)
        payload["records"] = records
        if args.out is not None:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(payload, indent=1, ensure_ascii=False, default=str) + "\n")

    def progress(r: dict[str, Any]) -> None:
        records.append(r)
        finish(complete=False)  # an interrupted long run still leaves its records and summary so far
        mark = "ok " if r["correct"] else "-- "
        line = f"{mark}{r['method']:8} {r['id']:28} {r['result_kind']:9} {r['seconds']:6.1f}s {r['answer']!r:.60}"
        print(line, file=sys.stderr, flush=True)

    if not args.dataset_only:
        for method in methods:
            run_method(method, questions, data.contexts, args.max_iters, progress, args.max_time)
    finish(complete=True)
    if args.split == "test" and not args.dataset_only:
        log_test_run(payload, argv)
    print(
        json.dumps({"summary": payload["summary"], "sources": data.sources}, indent=1, ensure_ascii=False, default=str)
    )
    return payload


if __name__ == "__main__":
    main()
