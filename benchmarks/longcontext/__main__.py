"""CLI: ``python -m benchmarks.longcontext --suite all --sizes 8192,16384 --lm oracle --out DIR``.

``--lm`` is ``embedded`` (the bundled SmolLM2 through ``dspy_outlines.OutlinesLM``), ``oracle`` (the
scripted oracle policy, which must score 1.0 with the RLM) or any LiteLLM model name for ``dspy.LM``.
Prints the markdown table and the paths of the JSON / markdown / PNG reports.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

# litellm (through dspy) would try to download its price table at import; it is offline here.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmarks.longcontext.harness import METHODS, BenchConfig, run_benchmark
from benchmarks.longcontext.report import markdown_table
from benchmarks.longcontext.suites import SUITES


def _int_list(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from e


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.longcontext", description=__doc__)
    parser.add_argument("--suite", default="all", choices=[*SUITES, "all"], help="suite to run (default all)")
    parser.add_argument("--sizes", type=_int_list, default=[8192], help="context tokens, e.g. 8192,16384")
    parser.add_argument("--lm", default="embedded", help="embedded | oracle | <litellm model name>")
    parser.add_argument("--out", default="benchmarks/results/longcontext", help="output directory")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tasks", type=int, default=2, help="tasks per suite and size (default 2)")
    parser.add_argument("--methods", default="rlm,direct", help="comma-separated: rlm,direct")
    parser.add_argument("--window", type=int, default=8192, help="direct baseline's window in tokens")
    parser.add_argument("--max-iters", type=int, default=6)
    parser.add_argument("--max-llm-calls", type=int, default=10)
    parser.add_argument("--max-tokens", type=int, default=512, help="completion budget per LM call")
    return parser


def make_lm(name: str, max_tokens: int) -> Any:
    """Resolve ``--lm``: ``embedded``, ``oracle`` or a LiteLLM model name."""
    if name == "oracle":
        from benchmarks.longcontext.oracle import oracle_lm

        return oracle_lm()
    if name == "embedded":
        from dspy_outlines import OutlinesLM

        return OutlinesLM(max_tokens=max_tokens)
    import dspy

    return dspy.LM(name, max_tokens=max_tokens)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    methods = tuple(m.strip() for m in args.methods.split(",") if m.strip())
    try:
        config = BenchConfig(
            suites=list(SUITES) if args.suite == "all" else [args.suite],
            sizes=args.sizes,
            n_tasks=args.tasks,
            seed=args.seed,
            methods=methods,
            window_tokens=args.window,
            max_iters=args.max_iters,
            max_llm_calls=args.max_llm_calls,
        )
        lm = make_lm(args.lm, args.max_tokens)
    except (ValueError, ImportError) as e:
        print(f"error: {e} (methods: {', '.join(METHODS)})", file=sys.stderr)
        return 2

    def progress(record: dict[str, Any]) -> None:
        status = record["error"] or record["result_kind"] or "ok"
        print(
            f"{record['task_id']:<22} {record['method']:<6} score={record['score']:.3f} "
            f"calls={record['lm_calls']} tokens={record['total_tokens']} {record['seconds']:.1f}s {status}",
            flush=True,
        )

    payload = run_benchmark(lm, config, out_dir=args.out, lm_name=args.lm, on_record=progress)
    print()
    print(markdown_table(payload))
    for kind, path in payload["files"].items():
        print(f"{kind}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
