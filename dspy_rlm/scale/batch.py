"""``run_batch``: one call runs a DSPy program over a list of examples, on threads or on a Ray cluster."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dspy_rlm.scale.results import (
    BatchBudget,
    BatchInterrupted,
    BatchResult,
    ItemError,
    ItemResult,
    add_usage,
    empty_usage,
)
from dspy_rlm.scale.runner import ProgramPackage, example_inputs

logger = logging.getLogger(__name__)

RUNNERS = ("threads", "ray")


def run_batch(
    program: Any,
    examples: Sequence[Any],
    *,
    runner: str = "threads",
    max_concurrency: int = 4,
    budget: BatchBudget | dict[str, Any] | None = None,
    trace_dir: str | Path | None = None,
    progress: bool = True,
    lm: Any = None,
    adapter: Any = None,
    max_retries: int = 2,
    ray_options: dict[str, Any] | None = None,
) -> BatchResult:
    """Run ``program`` (an ``RLM`` or any DSPy module that calls one) on every example.

    Every example gets a record (:class:`~dspy_rlm.scale.results.ItemResult`): the typed RLM result or the
    item's error, its usage and its traces. The program and the LM travel to the workers pickled (see
    :mod:`dspy_rlm.scale.runner`), so the same call works on threads and on a Ray cluster.

    Args:
        program: The DSPy module to run; called as ``program(**inputs)``.
        examples: ``dspy.Example`` objects (their ``inputs()``) or dicts of keyword inputs.
        runner: The batch runner: ``"threads"`` (a thread pool in this process) or ``"ray"`` (one Ray task per
            item; needs the ``ray`` extra and uses the cluster ``ray.init`` connected to, else a local one).
        max_concurrency: Items running at once.
        budget: Limits for the whole batch (:class:`~dspy_rlm.scale.results.BatchBudget` or its fields as a
            dict); items not started once a limit is reached end as ``BudgetExhausted`` errors.
        trace_dir: Write each item's traces there (``item-00012.json``) instead of keeping them in memory.
        progress: Show a progress bar (tqdm) with the counts of each outcome and the spend.
        lm: The LM to run under (default: the configured ``dspy.settings.lm``).
        adapter: The adapter to run under (default: the configured one, if any).
        max_retries: Ray only: times a task whose worker died is re-run before the item is reported lost.
        ray_options: Ray only: extra task options, e.g. ``{"num_cpus": 0.25}``.

    Returns:
        A :class:`~dspy_rlm.scale.results.BatchResult` with one record per example, in input order.

    Raises:
        ValueError: An unknown runner, a bad ``max_concurrency`` or budget.
        TypeError: An example that is neither a ``dspy.Example`` nor a dict; an unpicklable program.
        BatchInterrupted: The driver got ``KeyboardInterrupt``; ``.batch`` holds the finished items.
    """
    import dspy

    if runner not in RUNNERS:
        raise ValueError(f"runner must be one of {RUNNERS}, got {runner!r}")
    if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int) or max_concurrency < 1:
        raise ValueError(f"max_concurrency must be an integer >= 1, got {max_concurrency!r}")
    if isinstance(budget, dict):
        budget = BatchBudget(**budget)
    elif budget is not None and not isinstance(budget, BatchBudget):
        raise TypeError(f"budget must be a BatchBudget, a dict of its fields or None, not {type(budget).__name__}")
    jobs = [(i, example_inputs(example, i)) for i, example in enumerate(examples)]
    lm = lm if lm is not None else dspy.settings.lm
    adapter = adapter if adapter is not None else dspy.settings.adapter
    pack = ProgramPackage.build if runner == "ray" else ProgramPackage.local
    package = pack(program, lm, adapter)
    pool = _runner(runner, max_concurrency, max_retries, ray_options)
    collector = _Collector(len(jobs), budget, Path(trace_dir) if trace_dir is not None else None, progress)
    started = time.perf_counter()
    try:
        pool.run(package, jobs, collector.add)
    except KeyboardInterrupt:
        batch = collector.batch(runner, time.perf_counter() - started, interrupted=True)
        raise BatchInterrupted(batch) from None
    finally:
        collector.close()
    collector.skip_unstarted()
    return collector.batch(runner, time.perf_counter() - started)


def _runner(runner: str, max_concurrency: int, max_retries: int, ray_options: dict[str, Any] | None) -> Any:
    if runner == "ray":
        from dspy_rlm.scale.ray_runner import RayRunner, import_ray

        import_ray()
        return RayRunner(max_concurrency, max_retries=max_retries, ray_options=ray_options)
    from dspy_rlm.scale.threads import ThreadRunner

    return ThreadRunner(max_concurrency)


class _Collector:
    """Driver-side bookkeeping: records, traces (in memory or on disk), the budget and the progress bar."""

    def __init__(self, n: int, budget: BatchBudget | None, trace_dir: Path | None, progress: bool):
        from tqdm.auto import tqdm  # type: ignore[import-untyped]

        self.n, self.budget, self.trace_dir = n, budget, trace_dir
        self.items: dict[int, ItemResult] = {}
        self.counts: dict[str, int] = {}
        self.spent = empty_usage()
        self.stopped_by: str | None = None
        if trace_dir is not None:
            trace_dir.mkdir(parents=True, exist_ok=True)
        self.bar = tqdm(total=n, desc="rlm batch", unit="item", disable=not progress, dynamic_ncols=True)

    def add(self, item: ItemResult) -> bool:
        """Keep one finished item; return whether more items may start.

        The item is kept before its traces are written, so a Ctrl-C that lands while they are written (or as soon
        as one is on disk) never loses a finished item."""
        self.items[item.index] = item
        self._traces(item)
        add_usage(self.spent, item.usage)
        if item.error is not None:
            logger.info("batch item %d: %s: %s", item.index, item.error.type, item.error.message[:200])
        self.counts[item.kind] = self.counts.get(item.kind, 0) + 1
        self.bar.set_postfix({**self.counts, "usd": f"{self.spent['cost']:.4f}"}, refresh=False)
        self.bar.update(1)
        if self.budget is not None and self.stopped_by is None:
            self.stopped_by = self.budget.exhausted(self.spent)
        return self.stopped_by is None

    def _traces(self, item: ItemResult) -> None:
        from dspy_rlm.trace import TraceNode

        if self.trace_dir is None:
            item.traces = [TraceNode.from_dict(t) if isinstance(t, dict) else t for t in item.traces]
            return
        import json

        traces = item.traces
        for k, trace in enumerate(traces):
            suffix = "" if len(traces) == 1 else f".{k}"
            path = self.trace_dir / f"item-{item.index:05d}{suffix}.json"
            data = trace if isinstance(trace, dict) else trace.to_dict()
            partial = path.with_name(path.name + ".partial")  # a trace file on disk is always whole
            partial.write_text(json.dumps(data, default=repr), encoding="utf-8")
            partial.replace(path)
            item.trace_paths.append(str(path))
        item.traces = []  # cleared once all are on disk: an interrupt midway leaves the rest in memory

    def skip_unstarted(self) -> None:
        """Give every example that never started (the budget was spent) its error record."""
        for index in range(self.n):
            if index not in self.items:
                reason = f"not started: the batch budget ({self.stopped_by}) was spent"
                self.items[index] = ItemResult(index, error=ItemError("BudgetExhausted", reason, attempts=0))

    def batch(self, runner: str, elapsed: float, interrupted: bool = False) -> BatchResult:
        items = [self.items[i] for i in sorted(self.items)]
        return BatchResult(items, self.n, runner, elapsed_s=elapsed, interrupted=interrupted)

    def close(self) -> None:
        self.bar.close()
