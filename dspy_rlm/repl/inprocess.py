"""In-process REPL backend for trusted code.

THIS IS NOT A SANDBOX. Model code runs in your own Python process with your privileges: it can read your
files, use the network, change your modules and crash your program. Use it only when you trust the model
and the inputs (tests, notebooks, debugging) and want zero start-up cost. The per-block time limit is
best effort (an exception injected into the running thread between bytecodes; C code that never returns
to the interpreter cannot be interrupted), and there is no memory cap.
"""

from __future__ import annotations

import builtins
import ctypes
import functools
import threading
import time
from collections.abc import Callable
from typing import Any

from dspy_rlm.defaults import MAX_OUTPUT_CHARS, REPL_TIMEOUT_S
from dspy_rlm.repl.base import (
    HELPER_STYLE,
    REBIND,
    VARIABLES,
    BlockTimeout,
    ErrorInfo,
    ExecResult,
    FinalAnswer,
    to_dspy_result,
)
from dspy_rlm.repl.executor import CappedWriter, NamespaceExecutor


class InProcessREPL:
    """Runs model code in the current process (trusted code only; see the module docstring).

    Args:
        tools: Host functions callable from code by name.
        output_fields: The signature's output field names (for SUBMIT / FINAL).
        timeout_s: Best-effort wall-time limit per block.
        max_output_chars: Cap on captured output per block (only ``print`` output is captured).
    """

    capabilities = frozenset({VARIABLES, HELPER_STYLE, REBIND})
    execution_instructions = (
        "Code runs in a persistent in-process Python namespace: state persists between blocks and the input "
        "variables are already loaded."
    )

    def __init__(
        self,
        tools: dict[str, Callable[..., Any]] | None = None,
        output_fields: list[str] | None = None,
        *,
        timeout_s: float | None = REPL_TIMEOUT_S,
        max_output_chars: int = MAX_OUTPUT_CHARS,
    ):
        self.tools: dict[str, Callable[..., Any]] = dict(tools or {})
        self.output_fields = list(output_fields or [])
        self.timeout_s = timeout_s
        self.max_output_chars = max_output_chars
        self._inputs: dict[str, Any] = {}
        self._executor: NamespaceExecutor | None = None
        self._writer: CappedWriter | None = None
        self._lock = threading.Lock()
        self.helper_style = "default"  # "lines" under the small-model profile (set by the run)

    def load_inputs(self, inputs: dict[str, Any]) -> None:
        self._inputs = dict(inputs)
        self._executor = None

    def start(self) -> None:
        if self._executor is None:
            self._executor = NamespaceExecutor(
                self._inputs, dict(self.tools), self.output_fields, self.max_output_chars, self.helper_style
            )
            # print() is rebound per namespace, so concurrent runs in threads never mix their output.
            self._executor.namespace["print"] = functools.partial(self._print)
            self._executor.reserved |= {"print"}  # ours, not a variable of the model

    def _print(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("file") is None and self._writer is not None:
            kwargs["file"] = self._writer
        builtins.print(*args, **kwargs)  # the model's own print, into its captured output

    def shutdown(self) -> None:
        self._executor = None

    def run(self, code: str) -> ExecResult:
        with self._lock:
            self.start()
            assert self._executor is not None
            self._writer = out = CappedWriter(self.max_output_chars)
            timer = self._arm_timeout(threading.get_ident())
            t0 = time.perf_counter()
            try:
                reply = self._executor.exec_block(code, out)
            finally:
                if timer is not None:
                    timer.cancel()
                self._writer = None
            err, final = reply["error"], reply["final"]
            return ExecResult(
                stdout=out.getvalue(),
                error=ErrorInfo(**err) if err else None,
                final=FinalAnswer(**final) if final else None,
                duration_s=time.perf_counter() - t0,
                truncated_chars=out.dropped,
                user_variables=reply["user_variables"],
                rebound_inputs=reply["rebound_inputs"],
            )

    def _arm_timeout(self, thread_id: int) -> threading.Timer | None:
        if not self.timeout_s:
            return None

        def interrupt() -> None:
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(BlockTimeout))

        timer = threading.Timer(self.timeout_s, interrupt)
        timer.daemon = True
        timer.start()
        return timer

    def snapshot(self, max_chars_per_var: int = 2_000, max_vars: int = 40) -> dict[str, str]:
        return self._executor.snapshot(max_chars_per_var, max_vars) if self._executor else {}

    def dump_variables(self) -> dict[str, Any]:
        """The model's variables, pickled one by one (see ``NamespaceExecutor.dump_variables``)."""
        return self._executor.dump_variables() if self._executor else {"blobs": {}, "skipped": {}}

    def rebind_inputs(self, inputs: dict[str, Any]) -> None:
        """A session's next call: its inputs and host functions replace the last call's (variables kept)."""
        self._inputs = dict(inputs)
        if self._executor is not None:
            self._executor.rebind_inputs(self._inputs, dict(self.tools))

    def load_variables(self, blobs: dict[str, bytes]) -> dict[str, Any]:
        self.start()
        assert self._executor is not None  # start() made it
        return self._executor.load_variables(blobs)

    def execute(self, code: str, variables: dict[str, Any] | None = None) -> Any:
        """DSPy's ``CodeInterpreter.execute``: returns stdout, or ``FinalOutput``; raises on errors."""
        self.start()
        assert self._executor is not None  # start() made it
        if variables:
            self._executor.set_variables(variables)
        return to_dspy_result(self.run(code))
