"""``python -m benchmarks.corpus --split train [--out FILE] [--questions FILE]``: build a split, print its
manifest (files, packages, checksums, question counts by kind and family) as JSON; ``--questions`` writes the
questions themselves as JSON lines (training split only: the test split is not printed, see manifest.py)."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.corpus.build import DEFAULT_SEED, build
from benchmarks.report import emit


def manifest(split: str, seed: int) -> dict[str, Any]:
    data = build(split, seed)
    real = [s for s in data.sources if s.get("package") != "generated"]
    generated = [s for s in data.sources if s.get("package") == "generated"]
    return {
        "split": split,
        "seed": seed,
        "questions": len(data.questions),
        "by_kind": dict(Counter(q.kind for q in data.questions)),
        "by_family": dict(Counter(q.family for q in data.questions)),
        "real_files": real,
        "generated_files": {"n": len(generated), "by_format": dict(Counter(s["format"] for s in generated))},
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.corpus", description=__doc__)
    p.add_argument("--split", choices=("train", "test"), default="train")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--questions", type=Path, default=None, help="write the training questions here (JSON lines)")
    args = p.parse_args(argv)
    result = manifest(args.split, args.seed)
    if args.questions is not None:
        if args.split != "train":
            raise SystemExit("--questions writes the training split only")
        lines = (json.dumps(q.to_dict(), ensure_ascii=False) for q in build("train", args.seed).questions)
        args.questions.write_text("\n".join(lines) + "\n")
    emit(result, str(args.out) if args.out else None)
    return result


if __name__ == "__main__":
    main()
