"""Live progress of RLM runs (iteration, depth, LM calls, tokens, spend), for the CLI and notebooks.

The progress is observed through DSPy's callback system, so it needs no hook in the loop:
:class:`ProgressCallback` watches every ``dspy.Predict`` call whose inputs carry ``iteration`` and
``budget`` (an RLM action step: the root and every sub-RLM), every call with a ``fallback_reason``
(fallback extraction) and every LM call (tokens and cost from the LM's history entry). Events go to a
*reporter*: :class:`PlainReporter` writes one line per event (logs, CI, pipes) and
:class:`RichReporter` keeps a live status line on a terminal.

Example:
    >>> with progress_display() as callback, dspy.context(callbacks=[callback]):
    ...     pred = rlm(context=text, query="...")
"""

from __future__ import annotations

import contextlib
import re
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

from dspy.utils.callback import BaseCallback

_DEPTH = re.compile(r"depth (\d+) of max (\d+)")


@dataclass
class ProgressState:
    """What a run has done so far, as seen from the callbacks."""

    iteration: str = "-"
    depth: int = 0
    max_depth: int = 0
    lm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    phase: str = "starting"
    started: float = field(default_factory=time.monotonic)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def line(self) -> str:
        """One human-readable status line."""
        tokens = self.prompt_tokens + self.completion_tokens
        return (
            f"{self.phase} | iteration {self.iteration} | depth {self.depth}/{self.max_depth} | "
            f"LM calls {self.lm_calls} | tokens {tokens:,} | ${self.cost:.4f} | {self.elapsed:.1f}s"
        )


class Reporter(Protocol):
    """Where progress events go."""

    def update(self, state: ProgressState, event: str) -> None: ...

    def close(self) -> None: ...


class PlainReporter:
    """One plain line per event: ``[rlm] <event> | iteration 2/3 | depth 0/1 | ...``.

    Args:
        stream: Where to write (default ``sys.stderr``).
        show_lm_calls: Also write a line after every LM call (local models are slow: shows the spend move).
    """

    def __init__(self, stream: TextIO | None = None, show_lm_calls: bool = True):
        self.stream = stream or sys.stderr
        self.show_lm_calls = show_lm_calls

    def update(self, state: ProgressState, event: str) -> None:
        if event == "lm" and not self.show_lm_calls:
            return
        self.stream.write(f"[rlm] {state.line()}\n")
        self.stream.flush()

    def close(self) -> None:
        """Nothing to release."""


class RichReporter:
    """A live status line on a terminal (rich); iteration starts are also kept as log lines."""

    def __init__(self, stream: TextIO | None = None):
        from rich.console import Console

        self.console = Console(file=stream or sys.stderr, log_path=False)
        self.status = self.console.status("[bold]RLM starting...", spinner="dots")
        self.status.start()

    def update(self, state: ProgressState, event: str) -> None:
        self.status.update(f"[bold]{state.line()}")
        if event in ("iteration", "extract"):
            self.console.log(state.line(), highlight=False)

    def close(self) -> None:
        self.status.stop()


class ProgressCallback(BaseCallback):
    """A DSPy callback that turns RLM predictor and LM calls into progress events.

    Args:
        reporter: Receives ``(state, event)`` with event ``iteration``, ``extract`` or ``lm``.
    """

    def __init__(self, reporter: Reporter):
        self.reporter = reporter
        self.state = ProgressState()
        self._lms: dict[str, Any] = {}
        self._lock = threading.Lock()

    def on_module_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        if set(inputs) == {"args", "kwargs"} and isinstance(inputs.get("kwargs"), dict):
            inputs = inputs["kwargs"]  # dspy 3.4 passes the call's args and kwargs
        if "iteration" in inputs and "budget" in inputs:
            match = _DEPTH.search(str(inputs.get("budget", "")))
            with self._lock:
                self.state.iteration = str(inputs["iteration"])
                if match:
                    self.state.depth, self.state.max_depth = int(match.group(1)), int(match.group(2))
                self.state.phase = "thinking" if self.state.depth == 0 else "sub-RLM"
            self._emit("iteration")
        elif "fallback_reason" in inputs:
            with self._lock:
                self.state.phase = f"extracting ({str(inputs['fallback_reason'])[:60]})"
            self._emit("extract")

    def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        with self._lock:
            self._lms[call_id] = instance

    def on_lm_end(self, call_id: str, outputs: Any, exception: Exception | None = None) -> None:
        with self._lock:
            lm = self._lms.pop(call_id, None)
            entry = (getattr(lm, "history", None) or [{}])[-1] if lm is not None else {}
            usage = entry.get("usage") or {}
            self.state.lm_calls += 1
            self.state.prompt_tokens += int(_get(usage, "prompt_tokens") or 0)
            self.state.completion_tokens += int(_get(usage, "completion_tokens") or 0)
            self.state.cost += float(entry.get("cost") or 0.0)
        self._emit("lm")

    def _emit(self, event: str) -> None:
        try:
            self.reporter.update(self.state, event)
        except Exception:  # noqa: BLE001 - a broken display must never break a run
            pass


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def make_reporter(stream: TextIO | None = None, rich: bool | None = None) -> Reporter:
    """A :class:`RichReporter` when ``stream`` is a terminal (or ``rich=True``), else a :class:`PlainReporter`."""
    stream = stream or sys.stderr
    if rich is None:
        rich = bool(getattr(stream, "isatty", lambda: False)())
    return RichReporter(stream) if rich else PlainReporter(stream)


@contextlib.contextmanager
def progress_display(stream: TextIO | None = None, rich: bool | None = None) -> Iterator[ProgressCallback]:
    """A :class:`ProgressCallback` with the right reporter, closed on exit.

    Install it with ``dspy.context(callbacks=[callback])`` around the run.
    """
    reporter = make_reporter(stream, rich)
    callback = ProgressCallback(reporter)
    try:
        yield callback
    finally:
        reporter.close()
