"""How much of a split the small policy's moves can solve: the oracle teacher's coverage (issue 28, item 2).

    python -m benchmarks.oracle_coverage --split train --limit 1000 --out benchmarks/results/oracle_coverage_train.json
    python -m benchmarks.oracle_coverage --cases benchmarks/asked/probe60.json --out F   # a probe's questions
    python -m benchmarks.oracle_coverage --cases benchmarks/asked/probe60.json --at bf5156d --out F  # as first met

``--at COMMIT`` measures with that commit's library (a temporary ``git worktree`` beside the user's home, this
script copied into it, removed after): the coverage a probe's first run met, which ``benchmarks.first_contact``
sets beside that run as its ceiling (``oracle_coverage_probeN_<commit>.json``).

For each question, :func:`dspy_rlm.profiles.oracle.plan` searches the moves (breadth-first, up to 3 reads) for
a sequence whose SUBMIT is the gold with support. Covered questions are what a perfect chooser over these
moves reaches; the rest are reported by why (``gold never read``: no move reads it; ``gold read without
support``: a read shows it but the support rules do not back it). ``supported_wrong_pct``: the questions where a
single read makes a wrong value *supported* (where a policy could end ``Submitted`` and wrong). No LM is called.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from benchmarks.real_files.core import Question
from benchmarks.report import emit
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.oracle import host_reader, matches, plan

TYPES = {"str": str, "int": int, "bool": bool, "float": float}


def questions(split: str, limit: int | None, seed: int) -> tuple[list[Question], dict[str, str]]:
    from benchmarks.real_files.__main__ import limited

    if split in ("train", "test"):
        from benchmarks.corpus.build import build

        data = build(split)
    else:
        from benchmarks.real_files.dataset import build_dataset

        data = build_dataset(split)
    return limited(data.questions, limit, seed), data.contexts


def asked_questions(paths: list[str]) -> tuple[list[Question], dict[str, str]]:
    """The questions of :mod:`benchmarks.asked` case files (a probe's, the held-out cases) that this machine has."""
    from benchmarks.asked import load_cases

    qs: list[Question] = []
    contexts: dict[str, str] = {}
    for path in paths:
        found, texts, _missing = load_cases(Path(path))
        qs += found
        contexts.update(texts)
    return qs, contexts


def _rates(c: Counter[str]) -> dict[str, Any]:
    n = sum(c.values())
    return {"n": n, "covered_pct": round(100 * c["covered"] / n, 1), **c}


def exposed(book: MoveBook, gold: Any, alternatives: Any, reader: Any) -> bool:
    """Whether some single read makes the grammar offer a *supported* SUBMIT of a wrong value: a question where a
    policy could end ``Submitted`` and wrong after one read (the support rules' precision risk)."""
    for move in book.read_moves():
        book.reads = {}
        book.record_read(move.code, reader(move))
        for s in book.submit_moves():
            if s.candidate is not None and s.candidate.supported and not matches(s.candidate.value, gold, alternatives):
                return True
    return False


def coverage(qs: list[Question], contexts: dict[str, str]) -> dict[str, Any]:
    why: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    lengths: Counter[int] = Counter()
    per_question = {}
    uncovered: dict[str, str] = {}
    start = time.perf_counter()
    for q in qs:
        book = MoveBook({"question": q.question}, {"context": contexts[q.source]}, {"answer": TYPES[q.output_type]})
        found = plan(book, q.gold, q.alternatives)
        key = "covered" if found.covered else found.why
        why[key] += 1
        kinds[q.kind][key] += 1
        per_question[q.id] = found.covered
        uncovered[q.id] = key
        wrong[q.kind] += exposed(book, q.gold, q.alternatives, host_reader(book.data))
        if found.covered:
            lengths[len(found.moves)] += 1
    n = len(qs)
    return {
        "n": n,
        "covered_pct": round(100 * why["covered"] / max(1, n), 1),
        "why": dict(why),
        "by_kind": {k: _rates(c) for k, c in sorted(kinds.items())},
        "supported_wrong_pct": round(100 * sum(wrong.values()) / max(1, n), 1),
        "supported_wrong_by_kind": dict(sorted(wrong.items())),
        "moves_in_plan": dict(sorted(lengths.items())),
        "seconds": round(time.perf_counter() - start, 1),
        "covered_ids": per_question,
        "why_by_id": {k: v for k, v in uncovered.items() if v != "covered"},
    }


def at_commit(commit: str, cases: list[str]) -> dict[str, Any]:
    """The coverage of ``cases`` measured with the library of ``commit`` (this script's own code measures)."""
    root = Path(__file__).resolve().parents[1]
    git = ["git", "-C", str(root)]
    verify = [*git, "rev-parse", "--verify", "-q", f"{commit}^{{commit}}"]
    found = subprocess.run(verify, capture_output=True, text=True)
    if found.returncode:
        raise SystemExit(f"--at {commit}: no such commit in {root} (a clone with its history is needed)")
    sha = found.stdout.strip()
    where = Path(tempfile.mkdtemp(prefix=".oracle-coverage-at-", dir=Path.home()))  # the sandbox mounts its own /tmp
    tree, out = where / sha[:7], where / "coverage.json"
    try:
        subprocess.run([*git, "worktree", "add", "-q", "--detach", str(tree), sha], check=True, capture_output=True)
        shutil.copy2(Path(__file__), tree / "benchmarks" / "oracle_coverage.py")
        files = [str(Path(c).resolve()) for c in cases]
        cmd = [sys.executable, "-m", "benchmarks.oracle_coverage", "--cases", *files, "--out", str(out)]
        env = {**os.environ, "PYTHONPATH": str(tree)}
        subprocess.run(cmd, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
        result: dict[str, Any] = json.loads(out.read_text())
    finally:
        subprocess.run([*git, "worktree", "remove", "--force", str(tree)], capture_output=True)
        shutil.rmtree(where, ignore_errors=True)
    return {**result, "cases": cases, "commit": sha[:7]}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.oracle_coverage", description=__doc__.split("\n\n")[0])
    p.add_argument("--split", choices=("train", "dev", "test_v1", "test"), default="train")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--cases", nargs="+", default=None, help="case files of benchmarks.asked, in place of a split")
    p.add_argument("--at", default=None, help="a commit: measure with its library, as a probe's first run met it")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    if args.at:
        if not args.cases:
            p.error("--at measures case files: give --cases")
        result = at_commit(args.at, args.cases)
        emit(result, args.out)
        return result
    if args.cases:
        qs, contexts = asked_questions(args.cases)
    else:
        qs, contexts = questions(args.split, args.limit, args.seed)
    where = {"cases": args.cases} if args.cases else {"split": args.split, "limit": args.limit}
    result = {**where, "load": list(os.getloadavg()), **coverage(qs, contexts)}
    emit(result, args.out)
    return result


if __name__ == "__main__":
    main()
