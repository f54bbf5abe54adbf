"""The suite registry: name -> generator of ``n_tasks`` tasks at one context length."""

from __future__ import annotations

from collections.abc import Callable

from benchmarks.longcontext import niah, oolong
from benchmarks.longcontext.task import Task

SUITES: dict[str, Callable[[int, int, int], list[Task]]] = {
    "niah": niah.generate,
    "oolong": oolong.generate,
    "pairs": oolong.generate_pairs,
}


def generate_suite(name: str, size_tokens: int, n_tasks: int = 1, seed: int = 0) -> list[Task]:
    """Generate ``n_tasks`` tasks of suite ``name`` with contexts of about ``size_tokens`` tokens.

    Raises:
        ValueError: If ``name`` is not a known suite.
    """
    if name not in SUITES:
        raise ValueError(f"Unknown suite {name!r}; choose one of {', '.join(SUITES)} (or 'all' on the CLI).")
    return SUITES[name](size_tokens, n_tasks, seed)
