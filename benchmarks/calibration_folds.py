"""Does the ending's calibration carry to questions written by others? A two-fold cross-fit on the probes.

    python -m benchmarks.calibration_folds --out benchmarks/results/calibration_folds.json

The chooser fit (:func:`benchmarks.calibrate.fit_chooser`: a logistic combination of the support class's precision
and the ranker's probability, a threshold for 95% precision, an unsupported SUBMIT's accuracy) is fit on the
templated training corpus, the dev split and needle lookups. The probes (``benchmarks/asked/probe*.json``) are
questions people wrote over real files no code names; each was first run before any mend for it
(:mod:`benchmarks.first_contact`), and its first contact shows the shipped confidence overstated there. This splits
the first-contact probes into two folds by the parity of their number; for each fold it acts the ranked chooser
out on the host (no LM), then scores that fold's endings under three fits: the one shipped, the shipped data
*pooled* with the other fold's endings, and the other fold's endings *alone*. Nothing is fit on the fold it scores.
A run's confidence is its ending's, Submitted when it reaches the fit's threshold; the ECE is
:func:`benchmarks.real_files.summary.reliability`'s over the endings (runs with no SUBMIT are left out).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from benchmarks.real_files.summary import reliability
from benchmarks.report import emit


def scored(endings: list[tuple[bool, float, float, bool]], chooser: dict[str, Any]) -> dict[str, Any]:
    """The endings under a chooser fit: how many end Submitted, how many of those are right, and the ECE."""
    from dspy_rlm.profiles.calibration import combine

    records = []
    for supported, conf, choice, right in endings:
        confidence = combine(chooser, conf, choice) if supported else float(chooser["unsupported"])
        submitted = supported and confidence >= float(chooser["threshold"])
        records.append({"confidence": confidence, "correct": right, "submitted": submitted})
    sub = [r for r in records if r["submitted"]]
    n = max(1, len(records))
    return {
        "endings": len(records),
        "submitted": len(sub),
        "submitted_right_pct": round(100 * sum(r["correct"] for r in sub) / n, 1),
        "submitted_wrong": sum(not r["correct"] for r in sub),
        "submitted_precision_pct": round(100 * sum(r["correct"] for r in sub) / max(1, len(sub)), 1),
        "right_pct": round(100 * sum(r["correct"] for r in records) / n, 1),
        "ece": reliability(records)["ece"],
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    from benchmarks.calibrate import base_endings, chooser_endings, fit_chooser
    from benchmarks.first_contact import probe_questions
    from dspy_rlm.profiles.calibration import load_calibration

    p = argparse.ArgumentParser(prog="python -m benchmarks.calibration_folds", description=__doc__.split("\n\n")[0])
    p.add_argument("--train", type=int, default=1500)
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    start = time.perf_counter()
    shipped = load_calibration().chooser
    assert shipped is not None, "no chooser fit shipped: python -m benchmarks.calibrate --chooser --write"
    base, _info = base_endings(args.seed, args.train)
    folds = {parity: chooser_endings(*probe_questions(parity)) for parity in (0, 1)}
    result: dict[str, Any] = {"base_endings": len(base), "folds": {}}
    for parity, held in folds.items():
        other = folds[1 - parity]
        fits = {
            "shipped": shipped,
            "pooled": fit_chooser(base + other, args.seed),
            "probes_alone": fit_chooser(other, args.seed),
        }
        result["folds"][f"parity{parity}"] = {
            name: {"fit": {k: fit[k] for k in ("weights", "bias", "threshold", "unsupported")}} | scored(held, fit)
            for name, fit in fits.items()
        }
    result |= {"seconds": round(time.perf_counter() - start, 1), "load": list(os.getloadavg())}
    emit(result, args.out)
    return result


if __name__ == "__main__":
    main()
