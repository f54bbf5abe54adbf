"""The ``dspy-rlm`` command line.

Commands:
    dspy-rlm run --context PATH_OR_DIR --query "..." [--lm MODEL] [--sub-lm MODEL] [--max-iters N]
                 [--budget-usd X] [--max-file-mb MB] [--trace out.json] [--html out.html] [--json] [--strict]
    dspy-rlm bench tiers|longcontext|repl [BENCHMARK ARGS...]
    dspy-rlm view trace.json [--out trace.html] [--no-open]

Limits of ``run`` (each refusal is one line, exit 2, before any LM call): the query must not be empty; a context
file over ``--max-file-mb`` (default 20 MB, after decompression) is refused, and skipped inside a directory; a
binary file is refused (skipped in a directory). The RLM's own size thresholds (warn 100 KB, chunk 1 MB, total
10 MB) only warn. ``view`` never overwrites a file it did not write: next to the JSON it picks a free name.

``run`` answers a query over a file (variable ``context``: str) or a directory (variable ``files``: dict
of relative path -> text). The answer goes to stdout; progress (iteration, depth, LM calls, tokens,
spend) and a summary go to stderr: a live line on a terminal, plain lines otherwise. ``--lm`` is
``embedded`` (default: SmolLM2-135M-Instruct on CPU via ``dspy_outlines.OutlinesLM``), a local ``.gguf`` file
or mlx-lm / Hugging Face model directory (``OutlinesLM(path)``), or a LiteLLM model string such as
``openai/gpt-4o-mini``.

Exit codes:
    0   the run ended Submitted or Extracted (the answer is printed either way; the kind is in the summary)
    1   with ``--strict`` only: the run ended Extracted (a limit was hit, the answer was forced)
    2   usage error: bad arguments (an empty query), a missing, unreadable, binary or too large context, an unknown
        LM, an API LM that is not configured (no key, a mistyped model: its first call says so, no retry), a
        local model that does not load, a missing optional dependency; or a ``--trace`` / ``--html`` file that
        could not be written after the run (the answer is printed first)
    3   the run ended Failed (no answer could be produced); the reason is printed
    130 interrupted (Ctrl-C): a local model's call in progress stops within a second (an API call in flight
        is waited for), the trace, HTML and ``--json`` result (``failed``, reason ``interrupted``) are written
``bench`` returns the benchmark's own exit code; ``view`` returns 0 or 2.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dspy_rlm.budget import StopReason
from dspy_rlm.cli_inputs import (
    UsageError,
    _check_output_path,
    _local_model_path,  # noqa: F401 - part of this module's interface
    _positive_float,
    _positive_int,
    load_context,
    resolve_lm,
)
from dspy_rlm.errors import RunInterrupted
from dspy_rlm.files import SKIP_DIRS  # noqa: F401 - part of this module's interface (tests, callers)

EXIT_OK, EXIT_EXTRACTED_STRICT, EXIT_USAGE, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
BENCHES = {"tiers": "benchmarks.tiers", "longcontext": "benchmarks.longcontext", "repl": "benchmarks.repl_overhead"}


# -- run ----------------------------------------------------------------------------------------------
def _summary(pred: Any) -> str:
    result, usage = pred.result, pred.trace.totals()
    detail = getattr(result, "source", None) or getattr(result, "limit", None) or ""
    extra = f" confidence {result.confidence:.2f}" if result.kind == "extracted" else ""
    tokens = usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)
    return (
        f"result: {result.kind}{f' ({detail})' if detail else ''}{extra} | iterations {usage['iterations']} | "
        f"LM calls {usage.get('lm_calls_total', 0)} | tokens {tokens:,} | ${usage.get('cost', 0):.4f} | "
        f"{pred.trace.duration_s:.1f}s"
    )


def _viewer():
    try:
        from dspy_rlm import viewer
    except ImportError as e:
        raise UsageError(f"the HTML trace viewer (dspy_rlm.viewer) is not available: {e}") from e
    return viewer


def cmd_run(args: argparse.Namespace) -> int:
    if not args.query.strip():
        raise UsageError("--query is empty: ask a question, e.g. --query 'Which port does ssh use?'")
    if args.html:
        _viewer()  # fail before the (slow) run, not after
    _check_output_path(args.trace, "--trace")
    _check_output_path(args.html, "--html")
    name, value = load_context(args.context, args.max_file_mb)
    lm = resolve_lm(args.lm, args.max_tokens)
    sub_lm = resolve_lm(args.sub_lm, args.max_tokens) if args.sub_lm else None

    import dspy

    from dspy_rlm import RLM
    from dspy_rlm.progress import progress_display

    sig = f"{name}: {'str' if name == 'context' else 'dict[str, str]'}, query: str -> answer: str"
    # A local OutlinesLM takes the small-model profile on its own (profile="auto"), as in the quickstart:
    # constrained, guided action steps; an API model keeps the default profile and its configured adapter.
    from dspy_rlm.sandbox.errors import SandboxUnavailable

    try:
        rlm = RLM(
            sig,
            max_iters=args.max_iters,
            max_llm_calls=args.max_llm_calls,
            max_cost=args.budget_usd,
            max_time=args.max_time,
            sub_lm=sub_lm,
        )
    except SandboxUnavailable as e:  # no sandbox here: the ways out, one line, exit 2
        raise UsageError(str(e)) from e
    interrupted = False
    with progress_display(rich=None if not args.quiet else False) as callback:
        callbacks = [] if args.quiet else [callback]
        with dspy.context(lm=lm, callbacks=[*(dspy.settings.callbacks or []), *callbacks]):
            try:
                pred = rlm(**{name: value, "query": args.query})
            except RunInterrupted as e:  # Ctrl-C: the run so far (Failed, interrupted) is still written
                pred, interrupted = e.prediction, True
    paths = _write_outputs(pred, args)
    failed_write = paths.pop("failed", None) is not None
    kind = pred.result.kind
    if kind == "failed" and pred.result.limit == StopReason.LM_CONFIG and not args.json:
        raise UsageError(pred.result.reason)  # a configuration error: one line, exit 2, like a bad --lm name
    _print_result(pred, args, paths)
    if interrupted:
        print("dspy-rlm: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if failed_write or (kind == "failed" and pred.result.limit == StopReason.LM_CONFIG):
        return EXIT_USAGE
    if kind == "failed":
        return EXIT_FAILED
    return EXIT_EXTRACTED_STRICT if (kind == "extracted" and args.strict) else EXIT_OK


def _write_outputs(pred: Any, args: argparse.Namespace) -> dict[str, str]:
    """Write the trace JSON / HTML; a write that fails now (the disk filled during the run) is reported on
    stderr and the answer is still printed."""
    paths = {}
    try:
        if args.trace:
            pred.trace.to_json(args.trace)
            paths["trace"] = str(args.trace)
        if args.html:
            paths["html"] = str(_viewer().write_html(pred.trace, args.html, made_by="run"))
    except OSError as e:
        print(f"dspy-rlm: error: could not write {e.filename or 'an output file'}: {e.strerror or e}", file=sys.stderr)
        paths["failed"] = str(e.filename or "")
    return paths


def _print_result(pred: Any, args: argparse.Namespace, paths: dict[str, str]) -> None:
    result = pred.result
    if args.json:
        print(
            json.dumps(
                {
                    "answer": pred.answer,
                    "result": {k: v for k, v in result.to_dict().items() if k != "history"},
                    "usage": pred.trace.totals(),
                    **paths,
                },
                default=str,
            )
        )
    elif result.kind != "failed":
        print(pred.answer)
    if result.kind == "failed" and result.limit != StopReason.INTERRUPTED:
        print(f"error: the run failed: {result.reason}", file=sys.stderr)
    print(_summary(pred), file=sys.stderr)
    for kind, path in paths.items():
        print(f"{kind}: {path}", file=sys.stderr)


# -- bench / view -------------------------------------------------------------------------------------
def _benchmarks_importable() -> None:
    """Make the repository's ``benchmarks`` package importable (it is not installed with the wheel)."""
    import importlib.util

    if importlib.util.find_spec("benchmarks") is not None:
        return
    for root in (Path.cwd(), Path(__file__).resolve().parents[1]):
        if (root / "benchmarks" / "__init__.py").exists():
            sys.path.insert(0, str(root))
            return
    raise UsageError("the benchmarks/ folder was not found: run from a checkout of dspy-rlm")


def cmd_bench(args: argparse.Namespace) -> int:
    import runpy

    _benchmarks_importable()
    module = BENCHES[args.name]
    saved = sys.argv
    sys.argv = [module, *args.bench_args]
    # A package's __main__ imported earlier in this process (a test, a notebook) makes runpy warn that it
    # may run stale code: drop it so the benchmark always runs fresh.
    sys.modules.pop(f"{module}.__main__", None)
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except ImportError as e:
        raise UsageError(f"benchmark {args.name!r} cannot run: {e}") from e
    finally:
        sys.argv = saved
    return EXIT_OK


def cmd_view(args: argparse.Namespace) -> int:
    from dspy_rlm.trace import TraceNode

    src = Path(args.trace)
    if not src.is_file():
        raise UsageError(f"trace file not found: {args.trace}")
    try:
        trace = TraceNode.from_json(src)
    except (ValueError, TypeError, KeyError) as e:
        raise UsageError(f"{args.trace} is not a dspy-rlm trace JSON ({type(e).__name__}: {e})") from e
    viewer = _viewer()
    if args.out:
        out = Path(args.out)
        if out.exists() and not viewer.made_by_view(out):
            raise UsageError(
                f"--out {args.out} exists and was not written by dspy-rlm view; remove it or choose another path"
            )
    else:
        out = viewer.free_view_path(src.with_suffix(".html"))
    path = viewer.write_html(trace, out, made_by=viewer.VIEW_MARK)
    print(path)
    if not args.no_open and sys.stdout.isatty():
        import webbrowser

        webbrowser.open(Path(path).resolve().as_uri())
    return EXIT_OK


# -- parser -------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dspy-rlm",
        description="Recursive Language Models for DSPy.",
        epilog="Exit codes: 0 submitted/extracted, 1 extracted with --strict, "
        "2 usage error (an empty query, a context over --max-file-mb or binary, an LM not configured), "
        "3 failed run, 130 interrupted (the trace and --json result are still written).",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level, with tracebacks")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser(
        "run",
        help="answer a query over a file or directory",
        description="Answer a query over a text file or a directory of them. Refused, exit 2 before any LM "
        "call: an empty --query; a --context file over --max-file-mb (default 20 MB, after decompression; "
        "inside a directory such files are skipped) or binary (skipped in a directory).",
    )
    run.add_argument(
        "--context", required=True, help="a text file (.gz/.bz2/.xz too), or a directory (becomes `files`)"
    )
    run.add_argument("--query", required=True)
    run.add_argument(
        "--lm",
        default="embedded",
        help="'embedded' (default), a .gguf file or model directory, or a LiteLLM model string",
    )
    run.add_argument("--sub-lm", default=None, help="LM for llm_query / sub-RLMs (default: --lm)")
    run.add_argument("--max-iters", type=_positive_int, default=6)
    run.add_argument("--max-llm-calls", type=_positive_int, default=20)
    run.add_argument("--max-tokens", type=_positive_int, default=256, help="completion tokens per LM call")
    run.add_argument("--max-time", type=_positive_float, default=None, help="wall-time limit in seconds")
    run.add_argument("--budget-usd", type=_positive_float, default=None, help="USD limit for the whole run")
    run.add_argument(
        "--max-file-mb",
        type=_positive_float,
        default=20.0,
        help="refuse a context file larger than this (exit 2); in a directory, skip such files (default 20)",
    )
    run.add_argument("--trace", default=None, help="write the trace JSON here")
    run.add_argument("--html", default=None, help="write the trace HTML viewer here")
    run.add_argument("--json", action="store_true", help="print one JSON object instead of the bare answer")
    run.add_argument("--strict", action="store_true", help="exit 1 when the answer was extracted")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    run.set_defaults(func=cmd_run)
    bench = sub.add_parser("bench", help="run a benchmark (extra arguments go to it)")
    bench.add_argument("name", choices=sorted(BENCHES))
    bench.add_argument("bench_args", nargs=argparse.REMAINDER)
    bench.set_defaults(func=cmd_bench)
    view = sub.add_parser(
        "view",
        help="write (and open) the HTML viewer for a trace JSON",
        description="Write the HTML viewer of a trace JSON. It never overwrites a file it did not write: next "
        "to the JSON it takes trace.html, or trace.view.html (trace.view-2.html ...) when that name is taken "
        "(by run --html, say); an --out that exists and is not its own is refused (exit 2).",
    )
    view.add_argument("trace")
    view.add_argument("--out", default=None, help="HTML path (default: next to the JSON, a free name)")
    view.add_argument("--no-open", action="store_true", help="do not open a browser")
    view.set_defaults(func=cmd_view)
    return parser


class _Formatter(logging.Formatter):
    """Compact log lines; tracebacks only with --verbose."""

    def __init__(self, verbose: bool):
        super().__init__("%(levelname)s %(name)s: %(message)s")
        self.verbose = verbose

    def formatException(self, ei: Any) -> str:
        return super().formatException(ei) if self.verbose else ""

    def format(self, record: logging.LogRecord) -> str:
        if not self.verbose:
            record.exc_text = None
            text = super().format(logging.makeLogRecord({**record.__dict__, "exc_info": None, "exc_text": None}))
            return text.splitlines()[0] if text else text
        return super().format(record)


def _setup_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Formatter(verbose))
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, handlers=[handler], force=True)
    for noisy in ("LiteLLM", "litellm", "httpx", "dspy"):
        logging.getLogger(noisy).setLevel(logging.INFO if verbose else logging.ERROR)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``dspy-rlm``; returns the exit code (see the module docstring)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network fetch of the price table
    parser = build_parser()
    args = parser.parse_args(argv)
    _setup_logging(args.verbose)
    try:
        return args.func(args)
    except UsageError as e:
        print(f"dspy-rlm: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("dspy-rlm: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
