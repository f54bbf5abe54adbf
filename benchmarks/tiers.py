"""OutlinesAdapter tiers on the embedded model (issue 3, Numbers).

For six signatures (Literal, int, multi-field, nested pydantic, list, Regex) x N inputs, each tier is
run *alone* (``OutlinesAdapter(tiers=(tier,))``) on the embedded SmolLM2-135M, so every tier's own
success rate and median latency are measured. For Tier 3 it also times constrained against
unconstrained generation for the same prompt and token count, and the constraint (logits processor)
build on first and second use, for each backend installed without torch.

Each tier reports ``success_rate`` (parsed and type-checked), and Tier 3 separately: ``complete_valid_rate``
(a complete value within max_tokens), ``truncated_rate`` (cut at max_tokens: a failure, never repaired) and
``correct_rate`` (equal to the gold answer, over the inputs that have one; the regex signature has none).

Run:
    python -m benchmarks.tiers            # 10 inputs per signature, 2 ratio samples per backend
    python -m benchmarks.tiers --quick    # 3 inputs per signature, 1 ratio sample
    python -m benchmarks.tiers --quick --inputs 1 --tiers tier3 --out /tmp/tiers   # smoke run
    python -m benchmarks.tiers --backends --max-tokens 16   # which backend is the default (backends.json)
    python -m benchmarks.tiers --signatures list --tiers tier3 --engine llamacpp --name tiers_list_24   # one row

Prints one JSON object; writes NAME.json (default tiers.json) to --out (benchmarks/results/), and with every
signature and tier on the MLX engine tiers.md and tiers.png.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import dspy

from benchmarks.constraint_speed import backend_choice, build_times, constrained_vs_unconstrained, median
from benchmarks.tier_cases import DEMOS, GOLD, is_correct, signatures

TIERS = ("tier1", "tier2", "tier3")
RESULTS = Path(__file__).resolve().parent / "results"


def run_tier(
    lm: Any, tier: str, signature: type[dspy.Signature], value: str, max_tokens: int, demos: list | None = None
) -> dict[str, Any]:
    from dspy_outlines import OutlinesAdapter
    from dspy_outlines.constraints import TruncatedOutputError

    adapter = OutlinesAdapter(tiers=(tier,))
    inputs = {next(iter(signature.input_fields)): value}
    started = time.perf_counter()
    fields, truncated = None, False
    try:
        fields = adapter(lm, {"max_tokens": max_tokens}, signature, demos or [], inputs)[0]
        ok, error = True, None
    except Exception as exc:  # noqa: BLE001 - a failed parse is a data point, whatever its type
        ok, error, truncated = False, type(exc).__name__, isinstance(exc, TruncatedOutputError)
    return {
        "ok": ok,
        "latency_s": time.perf_counter() - started,
        "error": error,
        "fields": fields,
        "truncated": truncated,
    }


# -- backend choice: which constraint backend is the default (issue 3, item 4) ---------------------------


def benchmark(
    n_inputs: int,
    n_ratio: int,
    max_tokens: int,
    tiers: tuple[str, ...] = TIERS,
    engine: str = "mlx",
    names: tuple[str, ...] | None = None,
    demos: bool = False,
) -> dict[str, Any]:
    """Run ``tiers`` on the signatures ``names`` (default all), zero-shot unless ``demos`` (:data:`DEMOS`).

    The constrained / unconstrained time ratio and the constraint build times are measured on the MLX engine
    only (they call its generation loop directly)."""
    from dspy_outlines import OutlinesLM
    from dspy_outlines.bounds import bounded_constraint
    from dspy_outlines.processors import DEFAULT_BACKEND, available_backends, clear_cache

    started = time.perf_counter()
    lm = OutlinesLM(engine=engine, max_tokens=max_tokens)  # the full tiers table is of the MLX engine
    load_s = time.perf_counter() - started
    mlx = lm.engine.name == "mlx"
    backends = [b for b in available_backends() if b != "xgrammar"] if mlx else []  # xgrammar needs torch
    n_ratio = n_ratio if mlx else 0
    clear_cache()
    report: dict[str, Any] = {"signatures": {}}
    for name, (signature, values) in signatures().items():
        if names is not None and name not in names:
            continue
        output_type = bounded_constraint(signature, max_tokens).output_type  # what Tier 3 generates with
        row: dict[str, Any] = {"inputs": len(values[:n_inputs]), "build": {}, "ratio": {}}
        for backend in backends:
            row["build"][backend] = build_times(lm, output_type, backend)
        tier3_prompts = []
        for tier in tiers:
            runs = []
            for value in values[:n_inputs]:
                runs.append(run_tier(lm, tier, signature, value, max_tokens, DEMOS.get(name) if demos else None))
                if tier == "tier3" and len(tier3_prompts) < n_ratio:  # the Tier-3 prompt, as the LM saw it
                    tier3_prompts.append(lm.render_prompt(lm.history[-1]["messages"]))
            gold = GOLD[name][:n_inputs]
            graded = [
                is_correct(name, r["fields"], g) if r["ok"] else False for r, g in zip(runs, gold) if g is not None
            ]
            row[tier] = {
                "success_rate": sum(r["ok"] for r in runs) / len(runs),
                "median_latency_s": median([r["latency_s"] for r in runs]),
                "errors": sorted({r["error"] for r in runs if r["error"]}),
                "truncated_rate": sum(r["truncated"] for r in runs) / len(runs),
                "correct_rate": sum(graded) / len(graded) if graded else None,
            }
            if tier == "tier3":  # a Tier-3 success is a complete value: truncation is never repaired
                row[tier]["complete_valid_rate"] = row[tier]["success_rate"]
        for backend in backends if tier3_prompts else ():
            samples = [constrained_vs_unconstrained(lm, p, output_type, backend, max_tokens) for p in tier3_prompts]
            row["ratio"][backend] = {key: median([s[key] for s in samples]) for key in samples[0]}
        report["signatures"][name] = row
        print(f"[tiers] {name} done at {time.perf_counter() - started:.0f}s", file=sys.stderr)
    report["summary"] = summarize(report["signatures"], backends if n_ratio and "tier3" in tiers else [], tiers)
    report["setup"] = {
        "model": lm.model_name,
        "engine": lm.engine.name,
        "load_s": load_s,
        "max_tokens": max_tokens,
        "demos": demos,
        "inputs_per_signature": n_inputs,
        "ratio_samples_per_signature": n_ratio,
        "backends": backends,
        "tiers": list(tiers),
        "default_backend": DEFAULT_BACKEND,
        "machine": f"{platform.machine()} {platform.system()}, {os.cpu_count()} cores",
        "total_s": time.perf_counter() - started,
    }
    return report


def summarize(rows: dict[str, Any], backends: list[str], tiers: tuple[str, ...] = TIERS) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for tier in tiers:
        correct = [r[tier]["correct_rate"] for r in rows.values() if r[tier]["correct_rate"] is not None]
        summary[tier] = {
            "success_rate": statistics.mean(r[tier]["success_rate"] for r in rows.values()),
            "median_latency_s": median([r[tier]["median_latency_s"] for r in rows.values()]),
            "truncated_rate": statistics.mean(r[tier]["truncated_rate"] for r in rows.values()),
            "correct_rate": statistics.mean(correct) if correct else None,
        }
    for backend in backends:
        summary[backend] = {
            "ratio": median([r["ratio"][backend]["ratio"] for r in rows.values()]),
            "ratio_per_token": median([r["ratio"][backend]["ratio_per_token"] for r in rows.values()]),
            "build_first_ms": median([r["build"][backend]["first_ms"] for r in rows.values()]),
            "build_second_ms": max(r["build"][backend]["second_ms"] for r in rows.values()),
            "generation_tps": median([r["ratio"][backend]["generation_tps"] for r in rows.values()]),
            "prompt_tps": median([r["ratio"][backend]["prompt_tps"] for r in rows.values()]),
        }
    return summary


def markdown(report: dict[str, Any]) -> str:
    backends = report["setup"]["backends"]
    head = ["signature"] + [f"{t} ok / median s" for t in TIERS] + ["T3 complete+valid / truncated / correct"]
    head += [f"T3/free ({b})" for b in backends] + [f"build 1st/2nd ms ({b})" for b in backends]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def cells(row: dict[str, Any]) -> list[str]:
        out = [f"{row[t]['success_rate']:.0%} / {row[t]['median_latency_s']:.2f}" for t in TIERS]
        out.append(_tier3_quality(row["tier3"]))
        out += [f"{row['ratio'][b]['ratio']:.2f}x" for b in backends]
        out += [f"{row['build'][b]['first_ms']:.1f} / {row['build'][b]['second_ms']:.3f}" for b in backends]
        return out

    for name, row in report["signatures"].items():
        lines.append("| " + " | ".join([name, *cells(row)]) + " |")
    s = report["summary"]
    total = [f"{s[t]['success_rate']:.0%} / {s[t]['median_latency_s']:.2f}" for t in TIERS]
    total.append(_tier3_quality(s["tier3"]))
    total += [f"{s[b]['ratio']:.2f}x" for b in backends]
    total += [f"{s[b]['build_first_ms']:.1f} / {s[b]['build_second_ms']:.3f} (max)" for b in backends]
    lines.append("| " + " | ".join(["**all**", *total]) + " |")
    setup = report["setup"]
    speed = s[backends[0]]
    lines.append("")
    lines.append(
        f"{setup['model']}, {setup['machine']}, max_tokens={setup['max_tokens']}, "
        f"{setup['inputs_per_signature']} inputs/signature; unconstrained speed: "
        f"{speed['prompt_tps']:.0f} prompt tok/s, {speed['generation_tps']:.1f} generation tok/s; "
        f"T3/free = constrained / unconstrained time, same prompt and token count."
    )
    return "\n".join(lines) + "\n"


def _tier3_quality(row: dict[str, Any]) -> str:
    correct = "n/a" if row["correct_rate"] is None else f"{row['correct_rate']:.0%}"
    return f"{row['success_rate']:.0%} / {row['truncated_rate']:.0%} / {correct}"


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(report["signatures"])
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True)
    width = 0.26
    for i, tier in enumerate(TIERS):
        xs = [j + (i - 1) * width for j in range(len(names))]
        top.bar(xs, [report["signatures"][n][tier]["success_rate"] * 100 for n in names], width, label=tier)
        bottom.bar(xs, [report["signatures"][n][tier]["median_latency_s"] for n in names], width, label=tier)
    top.set_ylabel("success %")
    top.set_ylim(0, 105)
    top.legend(ncol=3, fontsize=8)
    bottom.set_ylabel("median latency (s)")
    bottom.set_xticks(range(len(names)), names, rotation=15)
    fig.suptitle(f"OutlinesAdapter tiers, each run alone - {report['setup']['model']}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 inputs per signature, 1 ratio sample")
    parser.add_argument("--inputs", type=int, default=None, help="inputs per signature (default 10, quick 3)")
    parser.add_argument("--max-tokens", type=int, default=24, help="completion budget per call")
    parser.add_argument("--out", type=Path, default=RESULTS, help="directory for tiers.json/.md/.png")
    parser.add_argument(
        "--tiers",
        nargs="+",
        choices=TIERS,
        default=list(TIERS),
        help="tiers to run (the smoke run: --tiers tier3; the table and plot need all three)",
    )
    parser.add_argument(
        "--signatures",
        nargs="+",
        choices=list(GOLD),
        default=None,
        help="signatures to run (default all six; the table and plot need all)",
    )
    parser.add_argument(
        "--engine",
        choices=["mlx", "llamacpp", "auto"],
        default="mlx",
        help="the OutlinesLM engine (the T3/free ratio and build times are measured on mlx only)",
    )
    parser.add_argument("--demos", action="store_true", help="give the signatures that have one a worked example")
    parser.add_argument("--name", default="tiers", help="file stem of the JSON report in --out (default tiers)")
    parser.add_argument(
        "--backends",
        action="store_true",
        help="only compare the constraint backends (build, per-call setup, generation time); writes backends.json",
    )
    args = parser.parse_args(argv)
    if args.backends:
        report = backend_choice(max_tokens=args.max_tokens)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "backends.json").write_text(json.dumps(report, indent=2))
        print(json.dumps(report["summary"], indent=2))
        return 0
    n_inputs = args.inputs or (3 if args.quick else 10)
    tiers = tuple(t for t in TIERS if t in args.tiers)
    names = tuple(args.signatures) if args.signatures else None
    report = benchmark(n_inputs, 1 if args.quick else 2, args.max_tokens, tiers, args.engine, names, args.demos)
    report["setup"]["command"] = "python -m benchmarks.tiers " + " ".join(sys.argv[1:] if argv is None else argv)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(json.dumps(report, indent=2, default=str))
    if tiers == TIERS and names is None and report["setup"]["backends"]:
        (args.out / "tiers.md").write_text(markdown(report))
        plot(report, args.out / "tiers.png")
    print(json.dumps(report, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
