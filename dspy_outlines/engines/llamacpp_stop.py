"""How a llama.cpp engine call stops early: a deadline or the caller's stop (:func:`passed`), llama.cpp's abort
callback for a decode in progress (:func:`abortable`), and a logits processor whose exception is kept for the
engine to raise (:class:`GuardedProcessor`)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

from dspy_outlines.contract import current_stop, stop_requested
from dspy_outlines.engines.llamacpp_internals import llamacpp_internal

__all__ = ["GuardedProcessor", "abortable", "passed"]


class GuardedProcessor:
    """A logits processor whose exceptions are kept, not lost: llama.cpp calls it through a ctypes callback,
    where an exception is printed and dropped and generation would go on unconstrained."""

    def __init__(self, processor: Any) -> None:
        self.processor = processor
        self.error: Exception | None = None

    def __call__(self, input_ids: Any, logits: Any) -> Any:
        if self.error is None:
            try:
                return self.processor(input_ids, logits)
            except Exception as e:  # noqa: BLE001 - re-raised by the engine once llama.cpp returns
                self.error = e
        logits[:] = float("-inf")
        return logits


@contextlib.contextmanager
def abortable(llama: Any) -> Iterator[None]:
    """llama.cpp aborts a decode in progress (between two graph nodes) once the caller's stop is set
    (:func:`dspy_outlines.contract.stop_scope`, an interrupt): a prefill chunk, the last one ``Llama.generate``
    reads, or a token. Measured: 64 generated tokens 0.72-0.73 s with the callback set or not. A deadline keeps
    to chunk boundaries, so a cut prefill keeps the chunks read."""
    stop = current_stop()
    if stop is None:
        yield
        return
    import llama_cpp

    ctx = llamacpp_internal(llama, "_ctx").ctx
    callback = llama_cpp.ggml_abort_callback(lambda _data: stop.is_set())  # referenced until reset below
    llama_cpp.llama_set_abort_callback(ctx, callback, None)
    try:
        yield
    finally:
        llama_cpp.llama_set_abort_callback(ctx, llama_cpp.ggml_abort_callback(), None)


def passed(deadline: float | None) -> bool:
    """Whether ``deadline`` (a ``time.monotonic()`` instant, or ``None`` for none) has passed, or the caller
    asked to stop (:func:`dspy_outlines.contract.stop_scope`: an interrupt ends the call as its deadline would)."""
    return (deadline is not None and time.monotonic() >= deadline) or stop_requested()
