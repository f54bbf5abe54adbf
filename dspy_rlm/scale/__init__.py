"""Run an RLM program over many examples: on a thread pool, or on a Ray cluster.

Example:
    >>> from dspy_rlm.scale import run_batch
    >>> batch = run_batch(rlm, examples, runner="ray", max_concurrency=64, trace_dir="traces/")
    >>> batch.counts, batch.usage            # {'submitted': 61, 'extracted': 2, 'error': 1}, tokens and USD
    >>> batch[0].result, batch[0].usage      # Submitted(...), per-item usage

Ray is optional (``pip install 'dspy-rlm[ray]'``) and imported only for ``runner="ray"``.
"""

from __future__ import annotations

from dspy_rlm.scale.batch import RUNNERS, run_batch
from dspy_rlm.scale.results import BatchBudget, BatchInterrupted, BatchResult, ItemError, ItemResult

__all__ = ["RUNNERS", "BatchBudget", "BatchInterrupted", "BatchResult", "ItemError", "ItemResult", "run_batch"]
