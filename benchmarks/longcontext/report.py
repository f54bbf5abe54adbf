"""Reports for a long-context run: per-(suite, size, method) summary, JSON, a markdown table, a PNG plot."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

JSON_NAME = "longcontext.json"
MARKDOWN_NAME = "longcontext.md"
PLOT_NAME = "longcontext.png"


def summarize(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mean score, calls, tokens and seconds, total cost and error count per (suite, size, method)."""
    groups: dict[tuple[str, int, str], list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        groups[(record["suite"], record["size_tokens"], record["method"])].append(record)
    rows = []
    for (suite, size, method), group in sorted(groups.items()):
        n = len(group)
        rows.append(
            {
                "suite": suite,
                "size_tokens": size,
                "method": method,
                "n": n,
                "score": sum(r["score"] for r in group) / n,
                "lm_calls": sum(r["lm_calls"] for r in group) / n,
                "total_tokens": sum(r["total_tokens"] for r in group) / n,
                "cost_usd": sum(r["cost_usd"] for r in group),
                "seconds": sum(r["seconds"] for r in group) / n,
                "errors": sum(1 for r in group if r["error"]),
            }
        )
    return rows


def markdown_table(payload: dict[str, Any]) -> str:
    """The summary as a markdown table, headed by the LM and the run settings."""
    config = payload["config"]
    lines = [
        f"# Long-context benchmark: {payload['lm']}",
        "",
        f"seed {config['seed']}, {config['n_tasks']} task(s) per suite and size, direct window "
        f"{config['window_tokens']} tokens, RLM max_iters {config['max_iters']}, "
        f"max_llm_calls {config['max_llm_calls']}. Scores are means in [0, 1]; calls, tokens and "
        "seconds are means per task; cost is the total.",
        "",
        "| suite | context tokens | method | n | score | LM calls | tokens | cost (USD) | seconds | errors |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in payload["summary"]:
        lines.append(
            f"| {row['suite']} | {row['size_tokens']} | {row['method']} | {row['n']} | {row['score']:.3f} | "
            f"{row['lm_calls']:.1f} | {row['total_tokens']:.0f} | {row['cost_usd']:.4f} | "
            f"{row['seconds']:.2f} | {row['errors']} |"
        )
    return "\n".join(lines) + "\n"


def plot_scores(summary: list[dict[str, Any]], path: Path, title: str = "") -> Path:
    """Score vs context length, one panel per suite, one line per method (matplotlib, Agg canvas).

    Uses ``Figure`` + ``FigureCanvasAgg`` directly, so no pyplot state or backend switch leaks into the
    caller's process.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    suites = sorted({row["suite"] for row in summary})
    fig = Figure(figsize=(4.2 * max(1, len(suites)), 3.6), dpi=100)
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, max(1, len(suites)), squeeze=False)[0]
    for ax, suite in zip(axes, suites):
        for method in sorted({row["method"] for row in summary if row["suite"] == suite}):
            rows = sorted(
                (r for r in summary if r["suite"] == suite and r["method"] == method),
                key=lambda r: r["size_tokens"],
            )
            ax.plot([r["size_tokens"] for r in rows], [r["score"] for r in rows], marker="o", label=method)
        ax.set_xscale("log", base=2)
        ax.set_ylim(-0.05, 1.05)
        ax.set_title(suite)
        ax.set_xlabel("context length (tokens)")
        ax.set_ylabel("score")
        ax.grid(True, alpha=0.3)
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, format="png")
    return path


def write_reports(payload: dict[str, Any], out_dir: Path) -> dict[str, str]:
    """Write ``longcontext.json`` / ``.md`` / ``.png`` into ``out_dir``; return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {
        "json": str(out_dir / JSON_NAME),
        "markdown": str(out_dir / MARKDOWN_NAME),
        "plot": str(out_dir / PLOT_NAME),
    }
    (out_dir / MARKDOWN_NAME).write_text(markdown_table(payload))
    plot_scores(payload["summary"], out_dir / PLOT_NAME, title=payload["lm"])
    with open(out_dir / JSON_NAME, "w") as fh:
        json.dump({**payload, "files": files}, fh, indent=2, default=str)
    return files
