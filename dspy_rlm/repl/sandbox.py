"""The default REPL backend: a long-lived, resource-limited worker process per run.

What it isolates: the host's memory and stdout from the model's code, runaway blocks (wall time), memory
bombs (address-space cap), crashes (``os._exit``, segfaults: the worker is restarted, the inputs are bound
again and the model is told which of its variables were lost), and the network (a fresh network namespace
where the OS allows it, otherwise a Python audit hook).

What it does NOT isolate: the file system (the worker runs as your user and can read and write what you
can), other processes and signals, CPU use between blocks, and code that deliberately escapes Python-level
checks (``ctypes``) where the OS gave no network namespace. It is a guard rail for model mistakes, not a
security boundary for hostile code: run untrusted models in a container or VM.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from multiprocessing.connection import Connection
from typing import Any, Callable

from dspy_rlm.repl.base import to_dspy_result, ErrorInfo, ExecResult, FinalAnswer

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MEMORY_MB = 4096
_KILL_GRACE_S = 2.0
# One fork at a time per process: libraries' fork hooks (filelock's audit hook refuses an os.fork while another
# thread is inside one) are not written for concurrent forks, and runs under dspy.Evaluate(num_threads=8)
# start their workers at the same moment.
_FORK_LOCK = threading.Lock()
_FORK_RETRIES = 40


class WorkerDied(RuntimeError):
    """The worker process ended unexpectedly."""


class SubprocessREPL:
    """Runs model code in a separate worker process.

    Args:
        tools: Host functions callable from code by name (``llm_query``, user tools, ...). Arguments and
            results cross the process boundary by pickle; the inputs never do.
        output_fields: The signature's output field names (for SUBMIT / FINAL).
        timeout_s: Wall-time limit per block, excluding time spent in host functions.
        memory_mb: Extra address space the worker may map beyond what it starts with.
        max_output_chars: Cap on captured output per block.
        allow_network: Skip the network isolation.
        start_method: ``"fork"`` (default where available: inputs shared copy-on-write, ~ms start) or
            ``"spawn"`` (a fresh interpreter; inputs are pickled to it once).
    """

    execution_instructions = (
        "Code runs in a persistent, sandboxed CPython worker process: state persists between blocks, "
        "each block has a time limit, there is no network, and the input variables are already loaded."
    )

    def __init__(
        self,
        tools: dict[str, Callable[..., Any]] | None = None,
        output_fields: list[str] | None = None,
        *,
        timeout_s: float | None = DEFAULT_TIMEOUT_S,
        memory_mb: int | None = DEFAULT_MEMORY_MB,
        max_output_chars: int = 10_000,
        allow_network: bool = False,
        start_method: str | None = None,
    ):
        self.tools: dict[str, Callable[..., Any]] = dict(tools or {})
        self.output_fields = list(output_fields or [])
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.max_output_chars = max_output_chars
        self.allow_network = allow_network
        self.start_method = start_method or ("fork" if hasattr(os, "fork") else "spawn")
        self._inputs: dict[str, Any] = {}
        self._conn: Connection | None = None
        self._pid: int | None = None
        self._proc: subprocess.Popen | None = None
        self._user_variables: list[str] = []
        self._lock = threading.Lock()
        self.network_isolation = "none"
        self.restarts = 0
        self.helper_style = "default"  # "lines" under the small-model profile (set by the run)

    # -- lifecycle --------------------------------------------------------------------------------
    def load_inputs(self, inputs: dict[str, Any]) -> None:
        """Bind the run's inputs. Done once per run; a running worker is restarted to see them."""
        self._inputs = dict(inputs)
        if self._conn is not None:
            self._stop()
            self.start()

    def start(self) -> None:
        if self._conn is not None:
            return
        config = {
            "timeout_s": self.timeout_s, "memory_mb": self.memory_mb, "output_fields": self.output_fields,
            "max_output_chars": self.max_output_chars, "bridge_names": list(self.tools),
            "allow_network": self.allow_network, "helper_style": self.helper_style,
        }
        parent_sock, child_sock = socket.socketpair()
        if self.start_method == "fork":
            self._fork(parent_sock, child_sock, config)
        else:
            self._spawn(parent_sock, child_sock, config)
        kind, info = self._conn.recv()
        self.network_isolation = info.get("network", "unknown")
        self._user_variables = []

    def _fork(self, parent_sock: socket.socket, child_sock: socket.socket, config: dict) -> None:
        from dspy_rlm.repl.worker import child_main  # imported before fork: the child pays nothing

        pid = self._fork_once()
        if pid is None:  # fork kept being refused (a library's fork hook): a fresh interpreter instead
            logger.warning("os.fork was refused %d times; starting the REPL worker with spawn", _FORK_RETRIES)
            self._spawn(parent_sock, child_sock, config)
            return
        if pid == 0:  # child
            try:
                parent_sock.close()
                child_main(Connection(child_sock.detach()), self._inputs, config)
            finally:
                os._exit(1)
        child_sock.close()
        self._pid = pid
        self._conn = Connection(parent_sock.detach())

    @staticmethod
    def _fork_once() -> int | None:
        """``os.fork()`` under the process-wide fork lock, retried while a fork hook refuses (RuntimeError)."""
        for attempt in range(_FORK_RETRIES):
            with _FORK_LOCK, warnings.catch_warnings():  # Python >= 3.12 warns about fork() with threads
                warnings.simplefilter("ignore", DeprecationWarning)
                try:
                    return os.fork()
                except RuntimeError:  # e.g. filelock: "os.fork is unsafe while filelock is changing ..."
                    pass
            time.sleep(0.002 * (attempt + 1))
        return None

    def _spawn(self, parent_sock: socket.socket, child_sock: socket.socket, config: dict) -> None:
        fd = child_sock.fileno()
        self._proc = subprocess.Popen([sys.executable, "-m", "dspy_rlm.repl.worker", str(fd)], pass_fds=[fd],
                                      stdin=subprocess.DEVNULL)
        child_sock.close()
        self._pid = self._proc.pid
        self._conn = Connection(parent_sock.detach())
        self._conn.send(("init", self._inputs, config))

    def shutdown(self) -> None:
        self._stop()

    def _stop(self) -> None:
        conn, pid = self._conn, self._pid
        self._conn = self._pid = None
        if conn is not None:
            try:
                conn.send(("shutdown",))
            except OSError:
                pass
            conn.close()
        if pid is not None:
            self._reap(pid, kill=False)

    def _reap(self, pid: int, kill: bool) -> str:
        """Wait for the worker to exit (killing it if asked or if it lingers); describe how it ended."""
        if kill:
            self._kill(pid)
        deadline = time.monotonic() + 1.0
        while True:
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                return "exited"
            if done:
                if os.WIFSIGNALED(status):
                    sig = os.WTERMSIG(status)
                    return f"killed by signal {signal.Signals(sig).name}" if sig in signal.Signals.__members__.values() \
                        else f"killed by signal {sig}"
                return f"exited with code {os.WEXITSTATUS(status)}"
            if time.monotonic() > deadline:
                self._kill(pid)
                deadline = time.monotonic() + 5.0
            time.sleep(0.002)

    @staticmethod
    def _kill(pid: int) -> None:
        for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
            try:
                target()
            except (ProcessLookupError, PermissionError):
                pass

    # -- execution --------------------------------------------------------------------------------
    def run(self, code: str) -> ExecResult:
        """Run one block and return a typed result. Never raises for problems caused by the code."""
        with self._lock:
            self.start()
            t0 = time.perf_counter()
            try:
                reply = self._round_trip(("exec", code))
            except (WorkerDied, TimeoutError) as exc:
                failure: BaseException = exc
            else:
                return self._to_result(reply, time.perf_counter() - t0)
            # Outside the except block, so the restarted (forked) worker inherits no exception context.
            return self._recover(failure, time.perf_counter() - t0)

    def _round_trip(self, message: tuple) -> dict[str, Any]:
        """Send a request and serve host calls until the worker answers."""
        assert self._conn is not None
        try:
            self._conn.send(message)
        except OSError as exc:
            raise WorkerDied(f"could not reach the worker: {exc}") from exc
        budget = None if self.timeout_s is None else self.timeout_s + _KILL_GRACE_S
        while True:
            start = time.monotonic()
            try:
                ready = self._conn.poll(budget)
            except OSError as exc:
                raise WorkerDied(str(exc)) from exc
            if not ready:
                raise TimeoutError(f"the block ran longer than its {self.timeout_s:g} s limit")
            try:
                msg = self._conn.recv()
            except (EOFError, OSError) as exc:
                raise WorkerDied(str(exc) or "connection closed") from exc
            if budget is not None:
                budget -= time.monotonic() - start
            if msg[0] != "call":
                return msg[1]
            self._serve_call(msg[1], msg[2], msg[3])

    def _serve_call(self, name: str, args: tuple, kwargs: dict) -> None:
        assert self._conn is not None
        tool = self.tools.get(name)
        try:
            if tool is None:
                raise NameError(f"no host function named {name!r}")
            reply = ("return", tool(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - reported to the model's code as ToolError
            reply = ("raise", f"{type(exc).__name__}: {exc}")
        try:
            self._conn.send(reply)
        except (TypeError, AttributeError) as exc:  # unpicklable result
            self._conn.send(("raise", f"{name}() returned a value that cannot cross into the sandbox: {exc}"))
        except OSError as exc:
            raise WorkerDied(str(exc)) from exc

    def _recover(self, exc: BaseException, elapsed: float) -> ExecResult:
        """The worker hung or died: restart it, bind the inputs again, report what was lost."""
        pid = self._pid
        conn = self._conn
        self._conn = self._pid = None
        if conn is not None:
            conn.close()
        how = self._reap(pid, kill=True) if pid is not None else "gone"
        lost = list(self._user_variables)
        self.restarts += 1
        self.start()
        if isinstance(exc, TimeoutError):
            etype, what = "TimeoutError", f"{exc}; the worker did not respond and was restarted"
        else:
            etype, what = "WorkerDied", f"the REPL worker died ({how}: {exc}) and was restarted"
        lost_txt = ", ".join(lost) if lost else "none"
        message = f"{what}. Inputs are loaded again. Your variables that were lost: {lost_txt}"
        logger.warning("REPL worker restarted: %s", message)
        error = ErrorInfo(type=etype, message=message, worker_restarted=True)
        return ExecResult(error=error, duration_s=elapsed, restarted=True, lost_variables=lost)

    def _to_result(self, reply: dict[str, Any], elapsed: float) -> ExecResult:
        self._user_variables = reply.get("user_variables", [])
        err = reply.get("error")
        final = reply.get("final")
        return ExecResult(
            stdout=reply.get("stdout", ""),
            error=ErrorInfo(**err) if err else None,
            final=FinalAnswer(**final) if final else None,
            duration_s=elapsed,
            truncated_chars=reply.get("truncated_chars", 0),
            user_variables=self._user_variables,
            rebound_inputs=reply.get("rebound_inputs", []),
        )

    def snapshot(self, max_chars_per_var: int = 2_000, max_vars: int = 40) -> dict[str, str]:
        """Describe the model's variables (for fallback extraction). Empty if the worker is unreachable."""
        with self._lock:
            if self._conn is None:
                return {}
            try:
                return self._round_trip(("snapshot", max_chars_per_var, max_vars))
            except (WorkerDied, TimeoutError):
                return {}

    def dump_variables(self) -> dict[str, Any]:
        """The model's variables, pickled one by one in the worker (see ``NamespaceExecutor.dump_variables``)."""
        with self._lock:
            if self._conn is None:
                return {"blobs": {}, "skipped": {}}
            return self._round_trip(("dump",))

    def load_variables(self, blobs: dict[str, bytes]) -> dict[str, Any]:
        """Bind variables saved by :meth:`dump_variables` in the worker (starting it if needed)."""
        with self._lock:
            self.start()
            reply = self._round_trip(("load", blobs))
            self._user_variables = sorted(set(self._user_variables) | set(reply["restored"]))
            return reply

    # -- DSPy CodeInterpreter compatibility --------------------------------------------------------
    def execute(self, code: str, variables: dict[str, Any] | None = None) -> Any:
        """DSPy's ``CodeInterpreter.execute``: returns stdout, or ``FinalOutput``; raises on errors."""
        if variables:
            fresh = {k: v for k, v in variables.items() if self._inputs.get(k, _MISSING) is not v}
            if fresh:
                with self._lock:
                    self.start()
                    self._round_trip(("set", fresh))
        return to_dspy_result(self.run(code))

    def __enter__(self) -> "SubprocessREPL":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def __del__(self) -> None:  # best effort: never leave a worker behind
        try:
            if self._pid is not None:
                self._kill(self._pid)
                os.waitpid(self._pid, 0)
        except Exception:  # noqa: BLE001
            pass


_MISSING = object()
