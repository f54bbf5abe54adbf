"""What a batch returns: one typed record per example, usage per item and in total, and the interrupt.

Every example gets an :class:`ItemResult`: the typed RLM result (``Submitted`` / ``Extracted`` /
``Failed``) or an :class:`ItemError` (the item's exception, a worker that died past its retries, or an
item skipped because the batch budget was spent). Nothing is dropped: the only items a
:class:`BatchResult` lacks are those still pending when the driver was interrupted, listed in
:attr:`BatchResult.pending`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

USAGE_KEYS = ("lm_calls", "prompt_tokens", "completion_tokens", "cost")


def empty_usage() -> dict[str, Any]:
    """Usage counters at zero: LM calls, prompt / completion tokens and USD cost."""
    return {"lm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0}


def add_usage(total: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
    """Add ``usage`` into ``total`` (in place) and return ``total``."""
    for key in USAGE_KEYS:
        total[key] = total.get(key, 0) + (usage.get(key) or 0)
    return total


@dataclass
class BatchBudget:
    """Spending limits for a whole batch, checked on the driver as items finish.

    Once the spent total reaches a limit no further item starts; items not started end as
    :class:`ItemError` with ``type="BudgetExhausted"``. Items already running finish, so the total can
    overrun by what they spend. Per-run limits stay the RLM's own (``max_cost``, ``max_tokens``...).

    Args:
        max_cost: USD for the whole batch (from the LMs' reported usage).
        max_tokens: Prompt + completion tokens for the whole batch.
    """

    max_cost: float | None = None
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_cost", "max_tokens"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
                raise ValueError(f"BatchBudget.{name} must be a positive number or None, got {value!r}")

    def exhausted(self, usage: dict[str, Any]) -> str | None:
        """The name of the limit ``usage`` has reached, or ``None``."""
        if self.max_cost is not None and usage.get("cost", 0) >= self.max_cost:
            return f"max_cost=${self.max_cost}"
        tokens = usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)
        if self.max_tokens is not None and tokens >= self.max_tokens:
            return f"max_tokens={self.max_tokens}"
        return None


@dataclass
class ItemError:
    """An item that produced no RLM result: its exception, a lost worker, or a skip.

    Attributes:
        type: The exception's class name (``ValueError``, ``WorkerCrashedError``, ``BudgetExhausted``...).
        message: Its message.
        traceback: The formatted traceback where one exists (empty otherwise).
        attempts: How many times the item was started (Ray retries a task whose worker died).
    """

    type: str
    message: str
    traceback: str = ""
    attempts: int = 1

    kind = "error"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}


@dataclass
class ItemResult:
    """One example's outcome.

    Attributes:
        index: The example's position in the input list.
        result: The typed RLM result of the program's (last) RLM call, or ``None``.
        error: The :class:`ItemError` when the item raised, its worker was lost or it was skipped.
        outputs: The program's prediction fields (RLM metadata such as the trajectory left out).
        usage: LM calls, prompt / completion tokens and USD cost of the item (all its RLM calls).
        traces: The RLM traces (``TraceNode``), brought back to the driver; empty when written to disk.
        trace_paths: Where the traces were written (``run_batch(trace_dir=...)``).
        seconds: Wall time of the item on its worker.
        worker: ``host:pid`` of the process that ran it.
    """

    index: int
    result: Any = None
    error: ItemError | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=empty_usage)
    traces: list[Any] = field(default_factory=list)
    trace_paths: list[str] = field(default_factory=list)
    seconds: float = 0.0
    worker: str = ""

    @property
    def kind(self) -> str:
        """``submitted`` | ``extracted`` | ``failed`` | ``error`` | ``none`` (a program without an RLM)."""
        if self.error is not None:
            return self.error.kind
        return self.result.kind if self.result is not None else "none"

    @property
    def ok(self) -> bool:
        """Whether the item produced outputs (submitted, extracted, or a program without an RLM)."""
        return self.kind in ("submitted", "extracted", "none")

    @property
    def trace(self) -> Any:
        """The last RLM trace of the item, or ``None``."""
        return self.traces[-1] if self.traces else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kind": self.kind,
            "result": self.result.to_dict() if self.result is not None else None,
            "error": self.error.to_dict() if self.error is not None else None,
            "outputs": _jsonable(self.outputs),
            "usage": dict(self.usage),
            "trace_paths": list(self.trace_paths),
            "seconds": round(self.seconds, 4),
            "worker": self.worker,
        }


@dataclass
class BatchResult:
    """The outcome of :func:`dspy_rlm.scale.run_batch`, one :class:`ItemResult` per finished example.

    Attributes:
        items: Finished items in input order.
        n_examples: How many examples the batch was given.
        runner: The batch runner, ``threads`` or ``ray``.
        elapsed_s: Wall time of the batch on the driver.
        interrupted: The driver was interrupted (``KeyboardInterrupt``); :attr:`pending` lists what did not finish.
    """

    items: list[ItemResult]
    n_examples: int
    runner: str
    elapsed_s: float = 0.0
    interrupted: bool = False

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def __getitem__(self, position: int) -> ItemResult:
        return self.items[position]

    @property
    def pending(self) -> list[int]:
        """Indices of the examples with no record (only after an interrupt)."""
        done = {item.index for item in self.items}
        return [i for i in range(self.n_examples) if i not in done]

    @property
    def usage(self) -> dict[str, Any]:
        """Total LM calls, tokens and USD cost over the finished items."""
        total = empty_usage()
        for item in self.items:
            add_usage(total, item.usage)
        return total

    @property
    def counts(self) -> dict[str, int]:
        """How many items ended each way (``submitted``, ``extracted``, ``failed``, ``error``, ``none``)."""
        out: dict[str, int] = {}
        for item in self.items:
            out[item.kind] = out.get(item.kind, 0) + 1
        return out

    def results(self) -> list[Any]:
        """Per finished item: its typed RLM result, or its :class:`ItemError`."""
        return [item.error if item.error is not None else item.result for item in self.items]

    def to_dict(self) -> dict[str, Any]:
        return {
            "runner": self.runner,
            "n_examples": self.n_examples,
            "elapsed_s": round(self.elapsed_s, 4),
            "interrupted": self.interrupted,
            "pending": self.pending,
            "counts": self.counts,
            "usage": self.usage,
            "items": [item.to_dict() for item in self.items],
        }


class BatchInterrupted(KeyboardInterrupt):
    """The driver was interrupted; ``.batch`` holds the items that finished (``.batch.pending`` the rest).

    A ``KeyboardInterrupt``, so a script stops as it would; catch it to keep the partial results::

        try:
            batch = run_batch(program, examples)
        except BatchInterrupted as stop:
            batch = stop.batch
    """

    def __init__(self, batch: BatchResult):
        super().__init__(f"batch interrupted: {len(batch.items)} of {batch.n_examples} items finished")
        self.batch = batch


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=lambda v: v.model_dump() if hasattr(v, "model_dump") else repr(v)))
