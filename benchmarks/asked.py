"""Questions of every kind over real files the project never used, written by someone who never saw the code.

The real-files splits share their question templates and were scored many times while the rules changed; the
yes/no cases (:mod:`benchmarks.yes_no`) ask one kind. These cases ask all of them (lookup, reverse, count,
min_max, most_common, yes_no, multi_word, two_hop), in a user's words, over files no code, test or demo names.

Case files (``benchmarks/asked/*.json``: ``file``, ``question``, ``type`` (``str`` / ``int`` / ``float`` / ``bool``),
``gold``, ``alternatives``, ``kind``, ``note``; ``{site-packages}`` in a path is the running interpreter's):
``probe.json`` is read while building; ``heldout.json`` (other files) was fixed in one commit before its first
run, is never opened while building and is run once; each run is logged in ``benchmarks/results/asked_runs.jsonl``.
A file this machine lacks skips its questions, and says so.

Run:
    python -m benchmarks.asked --cases benchmarks/asked/heldout.json --methods model,scripted,random \
        --out benchmarks/results/asked_heldout.json --log benchmarks/results/asked_runs.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import sysconfig
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.real_files.core import Question
from benchmarks.real_files.runner import load_average, now
from benchmarks.yes_no import finish, run_methods, score

TYPES = ("str", "int", "float", "bool")


def load_cases(path: Path) -> tuple[list[Question], dict[str, str], list[str]]:
    """The questions of a case file whose files this machine has, their texts, and the files it lacks."""
    site = sysconfig.get_paths()["purelib"]
    questions, texts, missing = [], {}, []
    for i, case in enumerate(json.loads(path.read_text())):
        if case["type"] not in TYPES:
            raise ValueError(f"{path}: case {i} has type {case['type']!r}; expected one of {TYPES}")
        file = case["file"].replace("{site-packages}", site)
        if file not in texts:
            try:
                texts[file] = Path(file).read_text(errors="replace")
            except OSError:
                missing.append(file)
                continue
        qid, kind = f"{path.stem}-{i:03d}", case.get("kind", "case")
        gold, alternatives = case["gold"], list(case.get("alternatives") or ())
        questions.append(
            Question(qid, file, path.stem, kind, "case", case["question"], case["type"], gold, alternatives)
        )
    return questions, texts, sorted(set(missing))


def by_kind(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[r["kind"]].append(r)
    return {k: score(v) for k, v in sorted(groups.items())}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.asked", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=Path, default=Path("benchmarks/asked/probe.json"))
    ap.add_argument("--methods", default="scripted", help="comma-separated: model, scripted, random, ...")
    ap.add_argument("--max-iters", type=int, default=4)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--log", type=Path, help="append the figures of this run to this JSON-lines file")
    args = ap.parse_args(argv)
    questions, texts, missing = load_cases(args.cases)
    out: dict[str, Any] = {"command": " ".join(["python -m benchmarks.asked", *(argv or sys.argv[1:])])}
    out.update(started=now(), load_start=load_average(), cases=str(args.cases), missing_files=missing)
    out["methods"], out["records"] = run_methods(
        questions, texts, args.methods, args.max_iters, lambda records: score(records) | {"by_kind": by_kind(records)}
    )
    finish(out, args.out, args.log, ("command", "commit", "started", "load_start", "load_end", "methods"))
    print(json.dumps({k: out[k] for k in ("methods", "missing_files")}, indent=1))
    return out


if __name__ == "__main__":
    main()
