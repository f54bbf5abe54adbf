"""One long-lived thread for every MLX generation of the process.

``mx.compile`` keeps its cache of compiled graphs in thread-local storage, and the entries hold Python
callables. When a short-lived worker thread that ran compiled code (``asyncio.to_thread``, a DSPy thread
pool) exits during interpreter shutdown, the cache's thread-exit destructor asks for the GIL after
finalization has begun; CPython then unwinds the thread through MLX's ``noexcept`` C++ frames and the
process aborts ("terminate called without an active exception", about one exit in two on Linux CPU,
where the fused decode steps are compiled). Running every generation on one daemon thread that never
exits keeps that cache alive until the process ends, when no thread destructor runs at all.
"""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

_queue: queue.SimpleQueue = queue.SimpleQueue()
_thread: list[threading.Thread] = []
_start_lock = threading.Lock()


def run_on_mlx_thread(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Call ``fn(*args, **kwargs)`` on the MLX thread, in the caller's context (its stop scope, see
    :func:`dspy_outlines.contract.stop_scope`), and return its result (or raise its exception)."""
    if _thread and threading.current_thread() is _thread[0]:
        return fn(*args, **kwargs)  # nested call from the MLX thread itself
    _ensure_started()
    future: Future = Future()
    _queue.put((future, contextvars.copy_context().run, (fn, *args), kwargs))
    return future.result()


def _ensure_started() -> None:
    if _thread:
        return
    with _start_lock:
        if not _thread:
            thread = threading.Thread(target=_serve, name="dspy-outlines-mlx", daemon=True)
            thread.start()
            _thread.append(thread)


def _serve() -> None:
    while True:
        future, fn, args, kwargs = _queue.get()
        if not future.set_running_or_notify_cancel():
            continue
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, whatever it is
            future.set_exception(exc)
