"""The sandbox worker: the child side of :class:`~dspy_rlm.sandbox.backend.SubprocessREPL`.

It is normally forked from the zygote (:mod:`dspy_rlm.sandbox.zygote`), with the inputs in a memory-mapped file
the host wrote once; it can also be forked from the host itself (``start_method="fork"``: inputs shared
copy-on-write) or started as ``python -m dspy_rlm.sandbox.worker FD`` (``"spawn"``: inputs pickled over the
connection). In every case it first enters the OS isolation of :mod:`dspy_rlm.sandbox.isolation`.

Limits applied in the child: an address-space cap (RLIMIT_AS), a per-block wall-time limit (an interval
timer raising :class:`BlockTimeout` between bytecodes; the host kills the worker if that does not land),
CPU time (RLIMIT_CPU: its soft limit, moved before each block to the CPU used so far plus the block's
allowance, raises :class:`BlockTimeout` through SIGXCPU; its hard limit, the run's allowance, kills the
worker), an output cap, and no network: a fresh network namespace where the OS allows it, plus an audit hook that
refuses socket connects / binds / DNS look-ups in any case.
"""

from __future__ import annotations

import faulthandler
import math
import os
import pickle
import resource
import signal
import sys
from multiprocessing.connection import Connection
from typing import Any

from dspy_rlm.defaults import MAX_OUTPUT_CHARS
from dspy_rlm.errors import rebuild
from dspy_rlm.repl.base import BlockTimeout
from dspy_rlm.repl.executor import CappedWriter, NamespaceExecutor, restore_stdio

_NET_EVENTS = frozenset(
    {
        "socket.connect",
        "socket.bind",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.gethostbyaddr",
        "socket.sendto",
        "socket.sendmsg",
    }
)


def _deny_network(event: str, args: tuple) -> None:
    if event in _NET_EVENTS:
        raise PermissionError(f"network access is disabled in the dspy-rlm sandbox ({event})")


def load_inputs_fd(fd: int) -> dict[str, Any]:
    """Unpickle the inputs from the memory-mapped file the host wrote (read in place, then unmapped)."""
    import mmap

    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return {}
        with mmap.mmap(fd, size, prot=mmap.PROT_READ) as mm, memoryview(mm) as view:
            return pickle.loads(view)
    finally:
        os.close(fd)


def cap_memory(extra_mb: int | None) -> None:
    """Limit the address space to what the process maps now plus ``extra_mb``."""
    if not extra_mb:
        return
    try:
        with open("/proc/self/statm") as f:
            vm_now = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        vm_now = 0
    limit = vm_now + extra_mb * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Worker:
    """Serves exec / snapshot / set requests from the host over one connection."""

    def __init__(self, conn: Connection, inputs: dict[str, Any], config: dict[str, Any]):
        self.conn = conn
        self.timeout_s = config.get("timeout_s")
        self._timer_left = 0.0
        bridges = {name: self._bridge(name) for name in config.get("bridge_names", ())}
        self.executor = NamespaceExecutor(
            inputs,
            bridges,
            config.get("output_fields", []),
            config.get("max_output_chars", MAX_OUTPUT_CHARS),
            config.get("helper_style", "default"),
        )
        signal.signal(signal.SIGALRM, self._on_alarm)
        self._in_block = False
        self.cpu_block = config.get("cpu_s_per_block")
        run = config.get("cpu_s_per_run")
        self.cpu_hard = resource.RLIM_INFINITY if run is None else math.ceil(_cpu_used() + run)
        if self.cpu_block is not None or run is not None:
            signal.signal(signal.SIGXCPU, self._on_cpu_limit)
            resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_hard, self.cpu_hard))
        # A process the model's code forks must not talk to the host on our connection (its replies would
        # answer the host's next request): it runs on without one and ends when its code does.
        os.register_at_fork(after_in_child=self._orphan)

    def _orphan(self) -> None:
        try:
            os.close(self.conn.fileno())
        except OSError:
            pass
        self.conn = None  # type: ignore[assignment]

    def _on_alarm(self, signum: int, frame: Any) -> None:
        raise BlockTimeout(
            f"the block ran longer than its {self.timeout_s:g} s limit and was interrupted; "
            "your variables are intact. Work on smaller pieces or use faster code"
        )

    def _on_cpu_limit(self, signum: int, frame: Any) -> None:
        if not self._in_block:  # a late signal after the block ended: the next block re-arms the limit
            return
        raise BlockTimeout(
            f"the block used more than its {self.cpu_block:g} s of CPU time (threads and all) and was "
            "interrupted; your variables are intact. Use less CPU per block, or stop threads you started"
        )

    def _arm_cpu_limit(self) -> None:
        """The soft RLIMIT_CPU for the next block: CPU used so far + the block's allowance (whole seconds)."""
        if self.cpu_block is None:
            return
        soft = math.ceil(_cpu_used() + self.cpu_block)
        if self.cpu_hard != resource.RLIM_INFINITY:
            soft = min(soft, self.cpu_hard - 1)  # SIGXCPU a second before the run's SIGKILL
        resource.setrlimit(resource.RLIMIT_CPU, (max(soft, 1), self.cpu_hard))

    def _bridge(self, name: str):
        def call(*args: Any, **kwargs: Any) -> Any:
            # The block's own time limit pauses while the host works (an LM call may take a while).
            left = signal.setitimer(signal.ITIMER_REAL, 0)[0]
            try:
                try:
                    self.conn.send(("call", name, args, kwargs))
                except (pickle.PicklingError, TypeError, AttributeError) as exc:
                    raise TypeError(
                        f"{name}(): arguments must be plain data (str, numbers, lists, dicts): {exc}"
                    ) from None
                kind, payload = self.conn.recv()
            finally:
                if left > 0:
                    signal.setitimer(signal.ITIMER_REAL, left)
            if kind == "raise":  # the host sent (type name, message, limit): the same type as in-process
                raise rebuild(*payload)
            return payload

        call.__name__ = name
        return call

    def serve(self) -> None:
        while True:
            if self.conn is None:  # a forked copy of the worker: nothing to serve
                return
            try:
                msg = self.conn.recv()
            except (EOFError, OSError):
                return
            op = msg[0]
            if op == "exec":
                result = self._exec(msg[1])
                if self.conn is None:  # the block forked and this is the copy
                    return
                self._send_safely(("done", result))
            elif op == "snapshot":
                self.conn.send(("snapshot", self.executor.snapshot(*msg[1:])))
            elif op == "dump":
                self.conn.send(("dump", self.executor.dump_variables()))
            elif op == "load":
                self.conn.send(("load", self.executor.load_variables(msg[1])))
            elif op == "set":
                self.executor.set_variables(msg[1])
                self.conn.send(("ok", None))
            elif op == "rebind":
                self.executor.rebind_inputs(msg[1])
                self.conn.send(("ok", None))
            elif op == "shutdown":
                return

    def _exec(self, code: str) -> dict[str, Any]:
        out = CappedWriter(self.executor.max_output_chars)
        sys.stdout = sys.stderr = out
        self._arm_cpu_limit()
        if self.timeout_s:
            signal.setitimer(signal.ITIMER_REAL, self.timeout_s)
        self._in_block = True
        try:
            result = self.executor.exec_block(code, out)
        finally:
            self._in_block = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            restore_stdio()
        result["stdout"] = out.getvalue()
        result["truncated_chars"] = out.dropped
        return result

    def _send_safely(self, message: tuple) -> None:
        """Send a result; a final value that cannot be pickled is sent as its repr, with a note."""
        try:
            self.conn.send(message)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as exc:
            result = message[1]
            final = result.get("final")
            if final is not None:
                final["value"] = {k: repr(v) for k, v in dict(final["value"]).items()}
                result["stdout"] += f"\n[note] the submitted value could not be transferred ({exc}); sent as repr"
            self.conn.send(message)


def child_main(conn: Connection, inputs: dict[str, Any] | int, config: dict[str, Any]) -> None:
    """Entry point in the child: isolate, load the inputs (a dict, or the fd of the host's inputs file), serve.

    Never returns into the caller's code.
    """
    from dspy_rlm.sandbox import isolation

    code = 0
    try:
        faulthandler.disable()  # a host's faulthandler (pytest's) would dump a crash report for model segfaults
        info = isolation.enter(
            conn, config, (inputs,) if isinstance(inputs, int) else ()
        )  # may fork: returns only in the process that runs the model's code
        if not config.get("allow_network"):
            sys.addaudithook(_deny_network)
        if isinstance(inputs, int):
            try:
                inputs = load_inputs_fd(inputs)
            except Exception as exc:
                conn.send(("failed", _inputs_failure(exc)))
                raise
        conn.send(("ready", {**info, "pid": os.getpid()}))
        cap_memory(config.get("memory_mb"))
        Worker(conn, inputs, config).serve()
    except BaseException as exc:  # noqa: BLE001 - the host sees a dead worker and reports why
        code = 1
        try:
            conn.send(("failed", f"{type(exc).__name__}: {exc}"))
        except Exception:  # noqa: BLE001 - the connection is gone too: the exit code is all there is
            pass
    finally:
        os._exit(code)


def _inputs_failure(exc: Exception) -> str:
    why = f"the inputs could not be loaded in the sandbox ({type(exc).__name__}: {exc})"
    if isinstance(exc, ImportError):
        why += (
            "; a class they hold lives in a module the sandbox cannot see (only the interpreter, its "
            "site-packages and the packages dspy_rlm needs are mounted): pass plain data, install that "
            "module as a package, or mount its directory with SubprocessREPL(mounts={...})"
        )
    return why


def main(argv: list[str]) -> None:
    """``python -m dspy_rlm.sandbox.worker FD``: the spawn start method."""
    conn = Connection(int(argv[1]))
    _op, inputs, config = conn.recv()
    child_main(conn, inputs, config)


if __name__ == "__main__":
    main(sys.argv)
