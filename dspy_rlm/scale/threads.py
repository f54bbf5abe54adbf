"""The ``threads`` batch runner: items run on a thread pool in the driver's process.

Each item gets its own RLM run and sandbox (``RLM`` runs do not share state), like
``dspy.Evaluate(num_threads=N)``. On an interrupt the items not started are cancelled; items already
running cannot be stopped from outside a thread and finish in the background.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
from collections.abc import Callable
from typing import Any

from dspy_rlm.scale.results import ItemResult
from dspy_rlm.scale.runner import ProgramPackage, run_item

logger = logging.getLogger(__name__)

#: How often (seconds) the driver wakes while waiting, so a Ctrl-C is handled promptly.
POLL_S = 0.2


class ThreadRunner:
    """Runs items on ``max_concurrency`` threads of the driver's process.

    Args:
        max_concurrency: Items running at once.
    """

    name = "threads"

    def __init__(self, max_concurrency: int):
        self.max_concurrency = max_concurrency

    def run(
        self, package: ProgramPackage, jobs: list[tuple[int, dict[str, Any]]], on_done: Callable[[ItemResult], bool]
    ) -> None:
        """Run ``jobs`` (``(index, inputs)``); ``on_done`` gets each record and returns whether to go on."""
        import contextvars

        queue = list(reversed(jobs))
        pool = cf.ThreadPoolExecutor(self.max_concurrency, thread_name_prefix="dspy-rlm-batch")
        running: set[cf.Future] = set()
        go_on = True
        try:
            while queue or running:
                while go_on and queue and len(running) < self.max_concurrency:
                    index, inputs = queue.pop()
                    context = contextvars.copy_context()  # the caller's dspy.context(...) holds in the thread
                    running.add(pool.submit(context.run, run_item, package, index, inputs))
                if not go_on:
                    queue.clear()
                if not running:
                    break
                done, running = cf.wait(running, timeout=POLL_S, return_when=cf.FIRST_COMPLETED)
                for future in done:
                    go_on = on_done(future.result()) and go_on
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
