"""The default REPL backend: a long-lived, resource-limited, OS-isolated worker process per run.

How workers start (``start_method``; the plumbing is :mod:`dspy_rlm.sandbox.launch`):

- ``"zygote"`` (default on Linux): forked from a small fork server (:mod:`dspy_rlm.sandbox.zygote`) started
  before it is first needed, never from your process, whose native thread pools (OpenBLAS, tokenizers, MLX,
  llama.cpp) can deadlock a fork. The inputs are pickled once into a memory-mapped file the worker reads
  in place; the worker holds one copy of them. Your process's memory (API keys in objects, loaded models)
  is not in the worker at all.
- ``"fork"``: forked from your process (inputs shared copy-on-write, no copy). Only safe while no other
  thread runs native code; the worker's memory is a copy of yours, secrets included.
- ``"spawn"`` (default elsewhere): a fresh interpreter; inputs are pickled to it once.

Isolation (``isolation="auto"``, the default; see :mod:`dspy_rlm.sandbox.isolation` and
:mod:`dspy_rlm.sandbox.rootfs`), strongest first, the level reached is ``SubprocessREPL.isolation`` and in
``repr``:

- ``"userns+pidns+mountns+netns+newroot+nobody"``: new user, PID, mount and network namespaces. The model's
  code sees no host process and cannot signal one (``os.getppid()`` is the namespace's init); its root is a
  fresh tmpfs holding read-only binds of the interpreter, its packages, ``/usr`` and the directories you pass
  as ``mounts=`` (no home, project, ``/etc``, ``/root`` or ``/run``), a private size-capped ``/tmp`` (the
  working directory is ``/tmp/scratch``), its own ``/proc`` and a minimal ``/dev``; it runs as uid/gid
  65534 without capabilities (root-only host files stay unreadable); there is no network, and processes +
  threads are capped (a per-namespace ``pid_max`` on Linux >= 6.14, ``RLIMIT_NPROC`` for non-root users).
- without ``+newroot``: the host's root read-only, ``~/.ssh``-like paths masked by name; without ``+nobody``:
  the host's uid inside (root stays root).
- ``"landlock"`` (user namespaces refused; ``isolation="landlock"`` asks for it): Landlock confines reads to
  the interpreter, its packages, ``/usr`` and ``mounts=`` and writes to the scratch directory, refuses TCP and
  signals out; seccomp refuses every socket but AF_UNIX and ``connect``; RLIMIT_NPROC caps processes.
- ``"none"``: with ``isolation="auto"`` the worker refuses to start (:class:`SandboxUnavailable`, naming the
  ways out; ``RLM`` then takes dspy's Deno/Pyodide interpreter where Deno is installed). Only
  ``isolation="none"`` runs it so: a guard rail, not a boundary (a Python audit hook refuses sockets;
  ``ctypes`` bypasses it).

At every level: the environment is scrubbed to an allowlist (``PATH``, ``HOME``, ``LANG``, ``LC_*``, ...;
never ``*_KEY`` / ``*_TOKEN`` / cloud credentials; ``sandbox_env=`` adds variables explicitly), the working
directory is a per-run scratch directory removed at shutdown, ``TMPDIR`` is private, memory is capped
(RLIMIT_AS), each block has a wall-time and a CPU-time limit and the run a CPU-time limit (RLIMIT_CPU), the
worker's process group is stopped between blocks (no CPU while the LM writes), output is capped, and a
crashed or hung worker is restarted with the inputs bound again and the model told which of its variables
were lost.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from typing import Any

from dspy_rlm.defaults import MAX_OUTPUT_CHARS, REPL_MEMORY_MB, REPL_TIMEOUT_S
from dspy_rlm.errors import tool_failure
from dspy_rlm.repl.base import HELPER_STYLE, REBIND, VARIABLES, ErrorInfo, ExecResult, FinalAnswer, to_dspy_result
from dspy_rlm.sandbox import launch  # noqa: F401 - kept importable here
from dspy_rlm.sandbox.errors import SandboxUnavailable, WorkerDied, unavailable_message  # noqa: F401 - kept here
from dspy_rlm.sandbox.lifecycle import (  # noqa: F401 - the names it held before the split stay here
    _READY_TIMEOUT_S,
    _SAID,
    FULL_LEVEL,
    WorkerLifecycle,
)

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = REPL_TIMEOUT_S
DEFAULT_MEMORY_MB = REPL_MEMORY_MB
DEFAULT_CPU_S_PER_BLOCK = 60.0
DEFAULT_CPU_S_PER_RUN = 1800.0
START_METHODS = ("zygote", "fork", "spawn")
_KILL_GRACE_S = 2.0


ISOLATION_MODES = ("auto", "landlock", "none")


class SubprocessREPL(WorkerLifecycle):
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
        isolation: ``"auto"`` (the strongest level the kernel allows; none at all raises SandboxUnavailable),
            ``"landlock"`` (skip the namespaces) or ``"none"`` (unsandboxed: guard rails only).
        sandbox_env: Environment variables to pass to the worker on top of the allowlisted ones.
        max_processes: Processes (and, with a PID namespace, threads) the sandbox may hold.
        scratch_mb: Size cap of the private ``/tmp`` (scratch) file system, with a mount namespace.
        seccomp: Load the seccomp deny-list (:data:`~dspy_rlm.sandbox.seccomp.DENIED_SYSCALLS`) on Linux;
            what was installed is ``isolation_info["seccomp"]`` and in ``repr``.
        mounts: Host directories or files to show the model's code, ``{host path: path inside}``, e.g.
            ``{"/data/corpus": "/data"}``; read-only unless the inside path ends with ``":rw"``. Named in
            ``repr``. Needs the ``+newroot`` level (elsewhere the worker sees host paths as they are).
        cpu_s_per_block: CPU seconds a block may use, its threads and all (whole seconds, RLIMIT_CPU);
            over it the block ends with a recoverable ``TimeoutError``. ``None``: no limit.
        cpu_s_per_run: CPU seconds the worker may use in all (the hard RLIMIT_CPU: over it the worker is
            killed and restarted). ``None``: no limit.
    """

    capabilities = frozenset({VARIABLES, HELPER_STYLE, REBIND})
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
        max_output_chars: int = MAX_OUTPUT_CHARS,
        allow_network: bool = False,
        start_method: str | None = None,
        isolation: str = "auto",
        seccomp: bool = True,
        sandbox_env: Mapping[str, str] | None = None,
        max_processes: int = 64,
        scratch_mb: int = 256,
        mounts: dict[str, str] | None = None,
        cpu_s_per_block: float | None = DEFAULT_CPU_S_PER_BLOCK,
        cpu_s_per_run: float | None = DEFAULT_CPU_S_PER_RUN,
    ):
        from dspy_rlm.sandbox import zygote
        from dspy_rlm.sandbox.rootfs import parse_mounts

        if start_method is None:
            start_method = "zygote" if zygote.available() else "spawn"
        if start_method not in START_METHODS:
            raise ValueError(f"start_method={start_method!r} is not one of {START_METHODS}")
        if start_method in ("zygote", "fork") and not hasattr(os, "fork"):
            raise ValueError(f"start_method={start_method!r} needs os.fork; use start_method='spawn' here")
        if isolation not in ISOLATION_MODES:
            raise ValueError(
                f"isolation={isolation!r} must be 'auto' (the strongest level available), 'landlock' (skip the "
                "namespaces) or 'none' (run unsandboxed, guard rails only)"
            )
        if sandbox_env is not None and not (
            isinstance(sandbox_env, Mapping)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in sandbox_env.items())
        ):
            raise TypeError("sandbox_env must map str names to str values, e.g. sandbox_env={'MY_FLAG': '1'}")
        for name, value in (("max_processes", max_processes), ("scratch_mb", scratch_mb)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive int, not {value!r}")
        for name, limit in (("cpu_s_per_block", cpu_s_per_block), ("cpu_s_per_run", cpu_s_per_run)):
            if limit is not None and (not isinstance(limit, (int, float)) or isinstance(limit, bool) or limit <= 0):
                raise ValueError(f"{name} must be a positive number of seconds or None (no limit), not {limit!r}")
        self.mounts = parse_mounts(mounts)
        self.cpu_s_per_block = cpu_s_per_block
        self.cpu_s_per_run = cpu_s_per_run
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
        self._pgid: int | None = None  # the sandbox's process group, stopped between blocks
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
            f"seccomp={self.isolation_info.get('seccomp', 'n/a')!r}, "
            f"identity={self.isolation_info.get('identity', 'n/a')!r}, mounts={self._mounts_repr()}, "
            f"cpu_s_per_block={self.cpu_s_per_block}, cpu_s_per_run={self.cpu_s_per_run})"
        )

    def _mounts_repr(self) -> dict[str, str]:
        return {src: dst + (":rw" if rw else ":ro") for dst, (src, rw) in self.mounts.items()}

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
        self._pause(False)
        try:
            return self._serve_until_reply(message)
        finally:
            self._pause(True)

    def _serve_until_reply(self, message: tuple) -> dict[str, Any]:
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

    def rebind_inputs(self, inputs: dict[str, Any]) -> None:
        """A session's next call: its inputs replace the last call's in the running worker (variables kept)."""
        with self._lock:
            self._inputs = dict(inputs)
            if self._conn is not None:
                self._round_trip(("rebind", self._inputs))

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
