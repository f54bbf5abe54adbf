"""Run the long-context suites against the RLM and against the same LM called directly.

For every task the harness runs each method and records score, LM calls, tokens, cost, wall time and
how the run ended. The direct baseline is ``dspy.Predict("context, query -> answer")`` with the whole
context in the prompt, cut to fit the LM's window (``window_tokens`` minus room for the instructions
and the answer), so past the window it reads only the head of the context. A reply the adapter cannot parse is
scored as raw text, as RULER scores raw generations.

LM calls are metered from DSPy's global LM history, so sub-LM calls made inside the RLM's REPL (and
calls on copies of the LM) are counted too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import dspy

from benchmarks.longcontext.report import summarize, write_reports
from benchmarks.longcontext.suites import SUITES, generate_suite
from benchmarks.longcontext.task import CHARS_PER_TOKEN, Task

logger = logging.getLogger(__name__)

METHODS = ("rlm", "direct")
TRUNCATION_MARKER = "\n[... context truncated to fit the model's window ...]"


@dataclass
class BenchConfig:
    """What to run and under which limits.

    Attributes:
        suites: Suite names (``niah``, ``oolong``, ``pairs``).
        sizes: Context lengths in estimated tokens.
        n_tasks: Tasks per suite and size.
        seed: Generation seed; the same seed gives the same tasks.
        methods: ``rlm`` and/or ``direct``.
        window_tokens: The LM's context window, used to truncate the direct baseline's context.
        reserve_tokens: Tokens of the window kept for the instructions, the query and the answer.
        max_iters: RLM iteration limit.
        max_llm_calls: RLM sub-LM call limit.
    """

    suites: list[str] = field(default_factory=lambda: list(SUITES))
    sizes: list[int] = field(default_factory=lambda: [8192])
    n_tasks: int = 2
    seed: int = 0
    methods: tuple[str, ...] = METHODS
    window_tokens: int = 8192
    reserve_tokens: int = 768
    max_iters: int = 6
    max_llm_calls: int = 10

    def __post_init__(self) -> None:
        unknown = [s for s in self.suites if s not in SUITES]
        if unknown:
            raise ValueError(f"Unknown suites {unknown}; choose from {', '.join(SUITES)}.")
        bad = [m for m in self.methods if m not in METHODS]
        if bad:
            raise ValueError(f"Unknown methods {bad}; choose from {', '.join(METHODS)}.")
        if self.window_tokens <= self.reserve_tokens:
            raise ValueError(
                f"window_tokens ({self.window_tokens}) must exceed reserve_tokens ({self.reserve_tokens})."
            )


def default_rlm_factory(config: BenchConfig) -> dspy.Module:
    """Our RLM with the benchmark's signature and limits."""
    from dspy_rlm import RLM

    return RLM("context, query -> answer", max_iters=config.max_iters, max_llm_calls=config.max_llm_calls)


def truncate_context(
    context: str, window_tokens: int, reserve_tokens: int, count_tokens: Callable[[str], int] | None = None
) -> tuple[str, bool]:
    """Keep the head of ``context`` that fits ``window_tokens - reserve_tokens`` tokens: estimated at 4 chars per
    token, then, with the LM's ``count_tokens``, cut further until the real count fits (JSON lines or digits run
    well under 4 chars a token, and an overflowing prompt is an error, not a baseline)."""
    tokens = window_tokens - reserve_tokens
    budget = tokens * CHARS_PER_TOKEN
    if len(context) <= budget and count_tokens is None:
        return context, False
    head = context[:budget]
    for _ in range(8):
        n = count_tokens(head) if count_tokens is not None else len(head) // CHARS_PER_TOKEN
        if n <= tokens:
            break
        head = head[: int(len(head) * tokens / n * 0.98)]
    if len(head) >= len(context):
        return context, False
    return head[: max(0, len(head) - len(TRUNCATION_MARKER))] + TRUNCATION_MARKER, True


class LMMeter:
    """Collects the LM calls recorded in DSPy's global history while the ``with`` block runs."""

    def __enter__(self) -> LMMeter:
        from dspy.clients.base_lm import GLOBAL_HISTORY

        self._history = GLOBAL_HISTORY
        self._marker = GLOBAL_HISTORY[-1].get("uuid") if GLOBAL_HISTORY else None
        self._start = time.perf_counter()
        self.entries: list[dict[str, Any]] = []
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._start
        history = list(self._history)
        start = 0
        if self._marker is not None:
            uuids = [entry.get("uuid") for entry in history]
            start = len(history) - uuids[::-1].index(self._marker) if self._marker in uuids else 0
        self.entries = history[start:]

    def stats(self) -> dict[str, Any]:
        """Calls, prompt/completion/total tokens, cost (USD, 0 when unpriced) and seconds."""
        prompt = completion = 0
        cost = 0.0
        for entry in self.entries:
            usage = entry.get("usage") or {}
            prompt += int(usage.get("prompt_tokens") or 0)
            completion += int(usage.get("completion_tokens") or 0)
            cost += float(entry.get("cost") or 0.0)
        return {
            "lm_calls": len(self.entries),
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "cost_usd": cost,
            "seconds": round(self.seconds, 3),
        }


def _result_kind(pred: Any) -> str | None:
    result = getattr(pred, "result", None)
    if result is None:
        return None
    return getattr(result, "kind", None) or type(result).__name__.lower()


def _direct_answer(context: str, query: str, record: dict[str, Any]) -> Any:
    """The direct baseline; a reply the adapter cannot parse is scored as raw text (as RULER scores)."""
    from dspy.utils.exceptions import AdapterParseError

    try:
        return dspy.Predict("context, query -> answer")(context=context, query=query)
    except AdapterParseError as e:
        record["parse_failed"] = True
        return dspy.Prediction(answer=e.lm_response)


def run_task(
    task: Task,
    method: str,
    lm: Any,
    config: BenchConfig,
    rlm_factory: Callable[[BenchConfig], dspy.Module] = default_rlm_factory,
) -> dict[str, Any]:
    """Run one method on one task and return its record (never raises for a failing model)."""
    record: dict[str, Any] = {
        "task_id": task.id,
        "suite": task.suite,
        "size_tokens": task.size_tokens,
        "context_tokens": task.context_tokens,
        "method": method,
        "metric": task.metric,
        "query": task.query,
        "gold": task.gold,
        "meta": task.meta,
        "answer": None,
        "score": 0.0,
        "result_kind": None,
        "iterations": None,
        "truncated": False,
        "parse_failed": False,
        "error": None,
    }
    with LMMeter() as meter:
        try:
            with dspy.context(lm=lm):
                if method == "rlm":
                    pred = rlm_factory(config)(context=task.context, query=task.query)
                    record["result_kind"] = _result_kind(pred)
                    record["iterations"] = len(getattr(pred, "trajectory", None) or []) or None
                else:
                    context, record["truncated"] = truncate_context(
                        task.context, config.window_tokens, config.reserve_tokens, getattr(lm, "count_tokens", None)
                    )
                    pred = _direct_answer(context, task.query, record)
            record["answer"] = getattr(pred, "answer", None)
        except Exception as e:  # noqa: BLE001 - a benchmark records a model's failure as a zero, it does not stop
            logger.warning("%s on %s failed: %s", method, task.id, e)
            record["error"] = f"{type(e).__name__}: {e}"[:500]
    record.update(meter.stats())
    record["score"] = task.score(record["answer"]) if record["error"] is None else 0.0
    if isinstance(record["answer"], str) and len(record["answer"]) > 2000:
        record["answer"] = record["answer"][:2000] + "..."
    return record


def run_benchmark(
    lm: Any,
    config: BenchConfig,
    out_dir: str | Path | None = None,
    rlm_factory: Callable[[BenchConfig], dspy.Module] = default_rlm_factory,
    lm_name: str | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Run every suite x size x task x method; write JSON, markdown and PNG when ``out_dir`` is given.

    Args:
        lm: The DSPy LM under test (used by the RLM and by the direct baseline).
        config: Suites, sizes, task count, seed and limits.
        out_dir: Where ``longcontext.json``, ``longcontext.md`` and ``longcontext.png`` go.
        rlm_factory: Builds the RLM from the config (default: ``dspy_rlm.RLM``).
        lm_name: Label for the LM in the reports (default: ``lm.model``).
        on_record: Called with each record as it finishes (progress display).

    Returns:
        ``{"config", "lm", "records", "summary", "files"}``.
    """
    records = []
    for suite in config.suites:
        for size in config.sizes:
            for task in generate_suite(suite, size, config.n_tasks, config.seed):
                for method in config.methods:
                    record = run_task(task, method, lm, config, rlm_factory)
                    records.append(record)
                    if on_record is not None:
                        on_record(record)
    payload: dict[str, Any] = {
        "config": asdict(config),
        "lm": lm_name or str(getattr(lm, "model", type(lm).__name__)),
        "records": records,
        "summary": summarize(records),
        "files": {},
    }
    if out_dir is not None:
        payload["files"] = write_reports(payload, Path(out_dir))
    return payload
