"""The ``ray`` batch runner: each item is a Ray task, so a batch spreads over every node of a Ray cluster.

A task unpacks the program once per worker process (:class:`~dspy_rlm.scale.runner.ProgramPackage`), runs
the item with its own RLM sandbox on that worker, and returns the item's record. A worker that dies (a
crash, the OOM killer, a lost node) makes Ray run the task again, up to ``max_retries`` times; after that
the item's record is an :class:`~dspy_rlm.scale.results.ItemError` naming Ray's error — never a gap.
Exceptions raised by the program are caught inside the task (they are the item's record), so Ray does not
retry them.

Needs the ``ray`` extra: ``pip install 'dspy-rlm[ray]'``. Connect first with ``ray.init(address=...)``;
without a connection the runner starts a local Ray instance.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from dspy_rlm.scale.results import ItemError, ItemResult
from dspy_rlm.scale.runner import ProgramPackage, run_item

logger = logging.getLogger(__name__)

#: How often (seconds) the driver wakes while waiting, so a Ctrl-C is handled promptly.
POLL_S = 0.2


def import_ray() -> Any:
    """Import ray, or raise ImportError naming the extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise ImportError("runner='ray' needs Ray: pip install 'dspy-rlm[ray]'") from exc
    return ray


def _ray_item(package: ProgramPackage, index: int, inputs: dict[str, Any]) -> ItemResult:
    return run_item(package, index, inputs)


class RayRunner:
    """Runs items as Ray tasks, at most ``max_concurrency`` in flight.

    Args:
        max_concurrency: Tasks submitted at once (Ray also queues tasks by the cluster's free CPUs).
        max_retries: Times Ray re-runs a task whose worker died.
        ray_options: Extra ``.options(...)`` for each task, e.g. ``{"num_cpus": 0.25}`` for items that mostly
            wait on a remote LM, or ``{"resources": {...}}``.
    """

    name = "ray"

    def __init__(self, max_concurrency: int, max_retries: int = 2, ray_options: dict[str, Any] | None = None):
        if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
            raise ValueError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        self.max_concurrency, self.max_retries = max_concurrency, max_retries
        self.ray_options = dict(ray_options or {})

    def run(
        self, package: ProgramPackage, jobs: list[tuple[int, dict[str, Any]]], on_done: Callable[[ItemResult], bool]
    ) -> None:
        """Run ``jobs`` (``(index, inputs)``); ``on_done`` gets each record and returns whether to go on."""
        ray = import_ray()
        if not ray.is_initialized():
            logger.info("Ray is not initialized: starting a local instance (ray.init(address=...) joins a cluster)")
            ray.init(include_dashboard=False)
        remote = ray.remote(_ray_item).options(max_retries=self.max_retries, retry_exceptions=False, **self.ray_options)
        package_ref = ray.put(package)
        queue = list(reversed(jobs))
        in_flight: dict[Any, int] = {}
        go_on = True
        try:
            while queue or in_flight:
                while go_on and queue and len(in_flight) < self.max_concurrency:
                    index, inputs = queue.pop()
                    in_flight[remote.remote(package_ref, index, inputs)] = index
                if not go_on:
                    queue.clear()
                if not in_flight:
                    break
                ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=POLL_S)
                for ref in ready:
                    go_on = on_done(self._collect(ray, ref, in_flight.pop(ref))) and go_on
        finally:
            for ref in in_flight:  # interrupted: stop what is still queued or running
                ray.cancel(ref, force=True)

    def _collect(self, ray: Any, ref: Any, index: int) -> ItemResult:
        try:
            return ray.get(ref)
        except ray.exceptions.RayError as exc:  # the worker died past its retries, the task was lost...
            logger.warning("batch item %d lost: %s", index, type(exc).__name__)
            return ItemResult(
                index, error=ItemError(type(exc).__name__, str(exc)[:4000], attempts=self.max_retries + 1)
            )
