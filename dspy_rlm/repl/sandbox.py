"""The default REPL backend: a long-lived, resource-limited, OS-isolated worker process per run.

How workers start (``start_method``):

- ``"zygote"`` (default on Linux): forked from a small fork server (:mod:`dspy_rlm.repl.zygote`) started
  before it is first needed, never from your process, whose native thread pools (OpenBLAS, tokenizers, MLX,
  llama.cpp) can deadlock a fork. The inputs are pickled once into a memory-mapped file the worker reads
  in place; the worker holds one copy of them. Your process's memory (API keys in objects, loaded models)
  is not in the worker at all.
- ``"fork"``: forked from your process (inputs shared copy-on-write, no copy). Only safe while no other
  thread runs native code; the worker's memory is a copy of yours, secrets included.
- ``"spawn"`` (default elsewhere): a fresh interpreter; inputs are pickled to it once.

Isolation (``isolation="auto"``, the default; see :mod:`dspy_rlm.repl.isolation`), strongest first, the level
reached is ``SubprocessREPL.isolation`` and in ``repr``:

- ``"userns+pidns+mountns+netns"``: new user, PID, mount and network namespaces. The model's code sees no
  host process and cannot signal one (``os.getppid()`` is the namespace's init), the file system is read-only
  except a private ``/tmp`` (a size-capped tmpfs; the working directory is ``/tmp/scratch``), ``/proc`` shows
  only the sandbox, common secret paths in the home directory (``~/.ssh``, ``~/.aws``, ...) are empty,
  there is no network, and processes + threads are capped (a per-namespace ``pid_max`` on Linux >= 6.14,
  ``RLIMIT_NPROC`` for non-root users).
- ``"userns+netns"`` / ``"netns"``: network only; files, processes and signals are the user's.
- ``"none"`` (macOS, Windows, or kernels that refuse namespaces; or ``isolation="none"``): a guard rail,
  not a boundary. The network is refused by a Python audit hook, which ``ctypes`` bypasses.

At every level: the environment is scrubbed to an allowlist (``PATH``, ``HOME``, ``LANG``, ``LC_*``, ...;
never ``*_KEY`` / ``*_TOKEN`` / cloud credentials; ``sandbox_env=`` adds variables explicitly), the working
directory is a per-run scratch directory removed at shutdown, ``TMPDIR`` is private, memory is capped
(RLIMIT_AS), each block has a wall-time limit, output is capped, and a crashed or hung worker is restarted
with the inputs bound again and the model told which of its variables were lost.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from typing import Any

from dspy_rlm.errors import tool_failure
from dspy_rlm.repl.base import HELPER_STYLE, VARIABLES, ErrorInfo, ExecResult, FinalAnswer, to_dspy_result

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MEMORY_MB = 4096
START_METHODS = ("zygote", "fork", "spawn")
_KILL_GRACE_S = 2.0
_READY_TIMEOUT_S = 120.0
# One fork at a time per process: libraries' fork hooks (filelock's audit hook refuses an os.fork while another
# thread is inside one) are not written for concurrent forks, and runs under dspy.Evaluate(num_threads=8)
# start their workers at the same moment.
_FORK_LOCK = threading.Lock()
_FORK_RETRIES = 40


class WorkerDied(RuntimeError):
    """The worker process ended unexpectedly."""


class SubprocessREPL:
    """Runs model code in a separate, isolated worker process.

    Args:
        tools: Host functions callable from code by name (``llm_query``, user tools, ...). Arguments and
            results cross the process boundary by pickle.
        output_fields: The signature's output field names (for SUBMIT / FINAL).
        timeout_s: Wall-time limit per block, excluding time spent in host functions.
        memory_mb: Extra address space the worker may map beyond what it starts with.
        max_output_chars: Cap on captured output per block.
        allow_network: Skip the network isolation.
        start_method: ``"zygote"`` (default on Linux), ``"fork"`` or ``"spawn"``; see the module docstring.
        isolation: ``"auto"`` (the strongest level the kernel allows) or ``"none"`` (guard rails only).
        sandbox_env: Environment variables to pass to the worker on top of the allowlisted ones.
        max_processes: Processes (and, with a PID namespace, threads) the sandbox may hold.
        scratch_mb: Size cap of the private ``/tmp`` (scratch) file system, with a mount namespace.
        seccomp: Load the seccomp deny-list (:data:`~dspy_rlm.repl.isolation.DENIED_SYSCALLS`) on Linux;
            what was installed is ``isolation_info["seccomp"]`` and in ``repr``.
    """

    capabilities = frozenset({VARIABLES, HELPER_STYLE})
    execution_instructions = (
        "Code runs in a persistent, sandboxed CPython worker process: state persists between blocks, "
        "each block has a time limit, there is no network, the file system is read-only except the "
        "working directory and /tmp, and the input variables are already loaded."
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
        isolation: str = "auto",
        seccomp: bool = True,
        sandbox_env: Mapping[str, str] | None = None,
        max_processes: int = 64,
        scratch_mb: int = 256,
    ):
        from dspy_rlm.repl import zygote

        if start_method is None:
            start_method = "zygote" if zygote.available() else "spawn"
        if start_method not in START_METHODS:
            raise ValueError(f"start_method={start_method!r} is not one of {START_METHODS}")
        if start_method in ("zygote", "fork") and not hasattr(os, "fork"):
            raise ValueError(f"start_method={start_method!r} needs os.fork; use start_method='spawn' here")
        if isolation not in ("auto", "none"):
            raise ValueError(f"isolation={isolation!r} must be 'auto' (strongest available) or 'none'")
        if sandbox_env is not None and not (
            isinstance(sandbox_env, Mapping)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in sandbox_env.items())
        ):
            raise TypeError("sandbox_env must map str names to str values, e.g. sandbox_env={'MY_FLAG': '1'}")
        for name, value in (("max_processes", max_processes), ("scratch_mb", scratch_mb)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive int, not {value!r}")
        self.tools: dict[str, Callable[..., Any]] = dict(tools or {})
        self.output_fields = list(output_fields or [])
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self.max_output_chars = max_output_chars
        self.allow_network = allow_network
        self.start_method = start_method
        self.isolation_mode = isolation
        self.seccomp = seccomp
        self.sandbox_env = dict(sandbox_env or {})
        self.max_processes = max_processes
        self.scratch_mb = scratch_mb
        self._inputs: dict[str, Any] = {}
        self._conn: Connection | None = None
        self._pid: int | None = None  # the host-side pid whose SIGKILL ends the whole sandbox
        self._pidfd: int | None = None
        self._child_pid: int | None = None  # our own child (fork / spawn), to wait for
        self._exit_how: str | None = None
        self._host_scratch: str | None = None
        self._user_variables: list[str] = []
        self._lock = threading.Lock()
        self.isolation = "not started"
        self.isolation_info: dict[str, Any] = {}
        self.network_isolation = "none"
        self.restarts = 0
        self.helper_style = "default"  # "lines" under the small-model profile (set by the run)

    def __repr__(self) -> str:
        return (
            f"SubprocessREPL(isolation={self.isolation!r}, start_method={self.start_method!r}, "
            f"timeout_s={self.timeout_s}, memory_mb={self.memory_mb}, "
            f"pids_limit={self.isolation_info.get('pids_limit', 'n/a')!r}, "
            f"seccomp={self.isolation_info.get('seccomp', 'n/a')!r})"
        )

    # -- lifecycle --------------------------------------------------------------------------------
    def load_inputs(self, inputs: dict[str, Any]) -> None:
        """Bind the run's inputs. Done once per run; a running worker is restarted to see them."""
        self._inputs = dict(inputs)
        if self._conn is not None:
            self._stop()
            self.start()

    def _config(self) -> dict[str, Any]:
        from dspy_rlm.repl.isolation import sandbox_environment

        return {
            "timeout_s": self.timeout_s,
            "memory_mb": self.memory_mb,
            "output_fields": self.output_fields,
            "max_output_chars": self.max_output_chars,
            "bridge_names": list(self.tools),
            "allow_network": self.allow_network,
            "isolation": self.isolation_mode,
            "seccomp": self.seccomp,
            "helper_style": self.helper_style,
            "env": sandbox_environment(dict(os.environ), self.sandbox_env),
            "max_processes": self.max_processes,
            "scratch_mb": self.scratch_mb,
        }

    def start(self) -> None:
        """Start the worker (a no-op if it runs). Retries once: a zygote killed meanwhile is started again."""
        if self._conn is not None:
            return
        config = self._config()
        for attempt in range(2):
            parent_sock, child_sock = socket.socketpair()
            launch = {"zygote": self._from_zygote, "fork": self._fork, "spawn": self._spawn}[self.start_method]
            launch(parent_sock, child_sock, config)
            try:
                info = self._await_ready()
                break
            except WorkerDied as exc:
                self._finish(kill=True)
                if attempt:
                    raise
                logger.warning("the sandbox worker did not start (%s); trying again", exc)
        self.isolation_info = info
        self.isolation = info.get("isolation", "none")
        self.network_isolation = info.get("network", "unknown")
        self._host_scratch = info.get("host_scratch")
        self._user_variables = []
        logger.info("sandbox worker ready: %r", self)

    def _await_ready(self) -> dict[str, Any]:
        assert self._conn is not None
        deadline = time.monotonic() + _READY_TIMEOUT_S
        while True:
            try:
                if not self._conn.poll(max(deadline - time.monotonic(), 0)):
                    raise WorkerDied(f"the worker did not start within {_READY_TIMEOUT_S:g} s")
                kind, info = self._conn.recv()
            except (EOFError, OSError) as exc:
                raise WorkerDied(f"the worker ended while starting ({exc or 'connection closed'})") from exc
            if kind == "spawned":
                self._set_kill_target(info["kill_pid"])
            elif kind == "exited":
                raise WorkerDied(f"the worker ended while starting ({info})")
            elif kind == "ready":
                if self._pid is None:
                    self._set_kill_target(info["pid"])
                return info

    def _set_kill_target(self, pid: int) -> None:
        self._pid = pid
        try:
            self._pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self._pidfd = None

    def _from_zygote(self, parent_sock: socket.socket, child_sock: socket.socket, config: dict) -> None:
        from dspy_rlm.repl import zygote

        inputs_fd = zygote.write_inputs(self._inputs)
        try:
            zygote.get_zygote().spawn(config, child_sock.fileno(), inputs_fd)
        finally:
            os.close(inputs_fd)  # the worker has its own descriptor now; the file goes when both are closed
            child_sock.close()
        self._conn = Connection(parent_sock.detach())

    def _fork(self, parent_sock: socket.socket, child_sock: socket.socket, config: dict) -> None:
        from dspy_rlm.repl import zygote
        from dspy_rlm.repl.isolation import preload_seccomp
        from dspy_rlm.repl.worker import child_main  # imported before fork: the child pays nothing

        preload_seccomp()  # likewise the seccomp binding
        pid = self._fork_once()
        if pid is None:  # fork kept being refused (a library's fork hook): a fresh interpreter instead
            logger.warning("os.fork was refused %d times; starting the REPL worker with spawn", _FORK_RETRIES)
            self._spawn(parent_sock, child_sock, config)
            return
        if pid == 0:  # child
            try:
                parent_sock.close()
                zyg = zygote.current()
                for fd in zyg.host_fds() if zyg is not None else ():
                    os.close(fd)  # the zygote must see EOF when the host dies, whatever we do
                child_main(Connection(child_sock.detach()), self._inputs, config)
            finally:
                os._exit(1)
        child_sock.close()
        self._child_pid = pid
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
        proc = subprocess.Popen(
            [sys.executable, "-m", "dspy_rlm.repl.worker", str(fd)],
            pass_fds=[fd],
            stdin=subprocess.DEVNULL,
            env=config["env"],
        )
        child_sock.close()
        self._child_pid = proc.pid
        proc.returncode = 0  # we reap it ourselves (os.waitpid); keep Popen.__del__ quiet
        self._conn = Connection(parent_sock.detach())
        self._conn.send(("init", self._inputs, config))

    def shutdown(self) -> None:
        self._stop()

    def _stop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.send(("shutdown",))
            except OSError:
                pass
        self._finish(kill=False)

    def _finish(self, kill: bool) -> str:
        """End the worker (killing it if asked, or if it lingers), release everything; say how it ended."""
        conn, pid, child, pidfd = self._conn, self._pid, self._child_pid, self._pidfd
        how, self._exit_how = self._exit_how, None
        self._conn = self._pid = self._child_pid = self._pidfd = None
        if kill:
            self._kill(pid, pidfd)
        if conn is not None:
            how = self._drain(conn, pid, pidfd) or how
            conn.close()
        if child is not None:
            how = self._reap(child) if how is None else (self._reap(child) and how)
        if pidfd is not None:
            os.close(pidfd)
        if self._host_scratch:
            shutil.rmtree(self._host_scratch, ignore_errors=True)
            self._host_scratch = None
        return how or "gone"

    def _drain(self, conn: Connection, pid: int | None, pidfd: int | None) -> str | None:
        """Read what the worker still sends until it closes the connection; kill it if it takes > 1 s."""
        how = None
        deadline, killed = time.monotonic() + 1.0, False
        while True:
            try:
                if not conn.poll(max(deadline - time.monotonic(), 0)):
                    if killed:
                        return how
                    self._kill(pid, pidfd)
                    deadline, killed = time.monotonic() + 5.0, True
                    continue
                msg = conn.recv()
            except (EOFError, OSError, ValueError):
                return how
            except Exception:  # noqa: BLE001 - a frame cut by a kill: the stream is over
                return how
            if isinstance(msg, tuple) and msg and msg[0] == "exited":
                how = msg[1]

    def _reap(self, pid: int) -> str:
        """Wait for our own child (fork / spawn) to exit, killing it if it lingers; describe how it ended."""
        from dspy_rlm.repl.isolation import describe_status

        deadline = time.monotonic() + 1.0
        while True:
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                return "exited"
            if done:
                return describe_status(status)
            if time.monotonic() > deadline:
                self._kill(pid, None)
                deadline = time.monotonic() + 5.0
            time.sleep(0.002)

    def _kill(self, pid: int | None, pidfd: int | None) -> None:
        if pid is None:
            return
        if "pidns" not in self.isolation:  # without a PID namespace, the worker's process group
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            if pidfd is not None:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass

    def worker_pids(self) -> list[int]:
        """Host-side pids of the sandbox's processes (its init and everything below), for measurements."""
        if self._pid is None:
            return []
        pids, todo = [], [self._pid]
        while todo:
            pid = todo.pop()
            pids.append(pid)
            try:
                with open(f"/proc/{pid}/task/{pid}/children") as fh:
                    todo.extend(int(p) for p in fh.read().split())
            except OSError:
                pass
        return pids

    # -- execution --------------------------------------------------------------------------------
    def run(self, code: str) -> ExecResult:
        """Run one block and return a typed result. Never raises for problems caused by the code."""
        with self._lock:
            t0 = time.perf_counter()
            try:
                self.start()
            except WorkerDied as exc:
                error = ErrorInfo(
                    type="WorkerDied", message=f"the REPL worker could not be started: {exc}", recoverable=False
                )
                return ExecResult(error=error, duration_s=time.perf_counter() - t0)
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
            if msg[0] == "exited":  # the namespace's init reports how the worker ended
                self._exit_how = msg[1]
                raise WorkerDied(msg[1])
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
        except Exception as exc:  # noqa: BLE001 - re-raised in the model's code as the same errors.py type
            failure = tool_failure(name, exc)
            reply = ("raise", (type(failure).__name__, str(failure), getattr(failure, "limit", None)))
        try:
            self._conn.send(reply)
        except (TypeError, AttributeError) as exc:  # unpicklable result
            self._conn.send(
                ("raise", ("ToolError", f"{name}() returned a value that cannot cross into the sandbox: {exc}", None))
            )
        except OSError as exc:
            raise WorkerDied(str(exc)) from exc

    def _recover(self, exc: BaseException, elapsed: float) -> ExecResult:
        """The worker hung or died: restart it, bind the inputs again, report what was lost."""
        how = self._finish(kill=True)
        lost = list(self._user_variables)
        self.restarts += 1
        try:
            self.start()
        except WorkerDied as died:  # reported; the next block tries again
            how = f"{how}; it could not be restarted yet: {died}"
        if isinstance(exc, TimeoutError):
            etype, what = "TimeoutError", f"{exc}; the worker did not respond and was restarted"
        else:
            detail = how if str(exc) in (how, "") else f"{how}: {exc}"
            etype, what = "WorkerDied", f"the REPL worker died ({detail}) and was restarted"
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

    def __enter__(self) -> SubprocessREPL:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def __del__(self) -> None:  # best effort: never leave a worker behind
        try:
            if self._pid is not None:
                self._kill(self._pid, self._pidfd)
            if self._child_pid is not None:
                os.waitpid(self._child_pid, 0)
            if self._pidfd is not None:
                os.close(self._pidfd)
            if self._host_scratch:
                shutil.rmtree(self._host_scratch, ignore_errors=True)
        except Exception:  # noqa: BLE001
            pass


_MISSING = object()
