"""Summaries: solve rates overall and per kind for each method, Submitted precision, and trivial baselines."""

from __future__ import annotations

import itertools
import statistics
from collections import Counter, defaultdict
from typing import Any

from benchmarks.real_files.core import KINDS, Question
from benchmarks.real_files.scoring import is_correct


def pct(n: int, d: int) -> float | None:
    return round(100.0 * n / d, 1) if d else None


def rates(records: list[dict[str, Any]]) -> dict[str, Any]:
    """``solved``: the run ended Submitted or Extracted with a correct answer (the headline);
    ``submitted_solved``: ended Submitted and correct; ``submitted_precision``: correct among Submitted runs."""
    submitted = [r for r in records if r["result_kind"] == "submitted"]
    ends = Counter(r["result_kind"] for r in records)
    return {
        "n": len(records),
        "solved_pct": pct(sum(r["correct"] for r in records), len(records)),
        "submitted_solved_pct": pct(sum(r["correct"] for r in submitted), len(records)),
        "submitted_precision_pct": pct(sum(r["correct"] for r in submitted), len(submitted)),
        "ended": {k: ends.get(k, 0) for k in ("submitted", "extracted", "failed")},
        "mean_seconds": round(sum(r["seconds"] for r in records) / len(records), 2) if records else None,
        "median_seconds": round(statistics.median(r["seconds"] for r in records), 2) if records else None,
        "mean_lm_calls": round(sum(r["lm_calls"] for r in records) / len(records), 2) if records else None,
    }


BINS = (0.0, 0.3, 0.6, 0.8, 0.95, 1.0001)
"""Confidence bins of the reliability table (the last holds 1.0: a Submitted run)."""


def reliability(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Confidence bins against observed accuracy, and the expected calibration error (ECE: the bins' gaps
    weighted by their share of runs). A run's confidence is its result's (Submitted 1.0, Failed 0.0)."""
    rows = []
    gap = 0.0
    for lo, hi in itertools.pairwise(BINS):
        inside = [r for r in records if lo <= float(r.get("confidence") or 0.0) < hi]
        if not inside:
            continue
        conf = sum(float(r.get("confidence") or 0.0) for r in inside) / len(inside)
        acc = sum(bool(r["correct"]) for r in inside) / len(inside)
        gap += len(inside) * abs(conf - acc)
        rows.append(
            {"bin": [lo, min(hi, 1.0)], "n": len(inside), "mean_confidence": round(conf, 3), "accuracy": round(acc, 3)}
        )
    return {"bins": rows, "ece": round(gap / len(records), 3) if records else None}


def method_summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_kind[r["kind"]].append(r)
    out = rates(records)
    out["by_kind"] = {k: rates(by_kind[k]) for k in KINDS if by_kind[k]}
    out["calibration"] = reliability(records)
    return out


def baselines(questions: list[Question], contexts: dict[str, str]) -> dict[str, Any]:
    """What trivial policies reach without any LM, per kind and overall.

    ``majority_gold``: answer the most frequent gold of the question's kind in this very set (an optimistic
    trivial policy: it peeks at the gold distribution); ``first_word``: answer the first word of the file.
    """
    majority: dict[str, Any] = {}
    for kind in KINDS:
        golds = Counter(repr(q.gold) for q in questions if q.kind == kind)
        if golds:
            best = golds.most_common(1)[0][0]
            majority[kind] = next(q.gold for q in questions if q.kind == kind and repr(q.gold) == best)
    policies = {
        "majority_gold": lambda q: majority[q.kind],
        "first_word": lambda q: (contexts[q.source].split() or [""])[0],
    }
    out: dict[str, Any] = {}
    for name, answer in policies.items():
        hits: dict[str, list[bool]] = defaultdict(list)
        for q in questions:
            hits[q.kind].append(is_correct(answer(q), q.gold, q.output_type, q.alternatives))
        total = [h for k in hits for h in hits[k]]
        out[name] = {
            "solved_pct": pct(sum(total), len(total)),
            "by_kind": {k: {"solved_pct": pct(sum(hits[k]), len(hits[k]))} for k in KINDS if hits[k]},
        }
    out["majority_gold"]["answers"] = dict(majority)
    return out


def by_family(records: list[dict[str, Any]], questions: list[Question]) -> dict[str, Any]:
    """Rates for questions in phrasing families training uses (``seen``) and held out of it (``unseen``)."""
    seen = {q.id: q.family_seen for q in questions if q.family_seen is not None}
    groups = {"seen": [r for r in records if seen.get(r["id"]) is True]}
    groups["unseen"] = [r for r in records if seen.get(r["id"]) is False]
    return {k: rates(v) for k, v in groups.items() if v}


def summarize(records: list[dict[str, Any]], questions: list[Question], contexts: dict[str, str]) -> dict[str, Any]:
    methods = sorted({r["method"] for r in records})
    per_method = {m: method_summary([r for r in records if r["method"] == m]) for m in methods}
    for m, summary in per_method.items():
        families = by_family([r for r in records if r["method"] == m], questions)
        if families:
            summary["by_family"] = families
    model = per_method.get("model")
    random_policy = per_method.get("random")
    overall = {
        "method": "model",
        "solved_definition": "ended Submitted or Extracted with a correct answer",
        "solved_pct": model["solved_pct"] if model else None,
        "submitted_solved_pct": model["submitted_solved_pct"] if model else None,
        "submitted_precision_pct": model["submitted_precision_pct"] if model else None,
        "random_policy_pct": random_policy["solved_pct"] if random_policy else None,
        "n": model["n"] if model else 0,
    }
    by_kind = model["by_kind"] if model else {}
    return {
        "overall": overall,
        "by_kind": by_kind,
        "methods": per_method,
        "baselines": baselines(questions, contexts),
        "questions": {
            "n": len(questions),
            "by_kind": dict(Counter(q.kind for q in questions)),
            "by_source": dict(Counter(q.source for q in questions)),
        },
    }
