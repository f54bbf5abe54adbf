"""Starting, pausing and ending the sandbox worker's processes (the host side of :mod:`dspy_rlm.sandbox.worker`).

Three ways to start (``SubprocessREPL(start_method=...)``): forked by the zygote (default on Linux), forked
from the host, or a fresh interpreter. Between blocks the sandbox's process group is stopped (SIGSTOP) so a
thread or process the model's code left running burns no CPU while the LM writes the next block; it is
continued (SIGCONT) before the next request. The seccomp filter refuses ``setsid`` / ``setpgid``, so
nothing the model starts leaves the group. A stopped sandbox still dies with its host: SIGKILL reaches
stopped processes, and the process outside the namespace watches the zygote or the host (see
:func:`dspy_rlm.sandbox.isolation.enter`).
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
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

logger = logging.getLogger(__name__)

# One fork at a time per process: libraries' fork hooks (filelock's audit hook refuses an os.fork while another
# thread is inside one) are not written for concurrent forks, and runs under dspy.Evaluate(num_threads=8)
# start their workers at the same moment.
_FORK_LOCK = threading.Lock()
_FORK_RETRIES = 40


def from_zygote(inputs: dict[str, Any], config: dict[str, Any]) -> Connection:
    """Ask the zygote for a worker; returns the host's end of its connection."""
    from dspy_rlm.sandbox import zygote

    parent_sock, child_sock = socket.socketpair()
    inputs_fd = zygote.write_inputs(inputs)
    try:
        zygote.get_zygote().spawn(config, child_sock.fileno(), inputs_fd)
    finally:
        os.close(inputs_fd)  # the worker has its own descriptor now; the file goes when both are closed
        child_sock.close()
    return Connection(parent_sock.detach())


def fork(inputs: dict[str, Any], config: dict[str, Any]) -> tuple[Connection, int]:
    """Fork the worker from this process (falls back to :func:`spawn` if forks keep being refused)."""
    from dspy_rlm.sandbox import rootfs, zygote
    from dspy_rlm.sandbox.seccomp import preload_seccomp
    from dspy_rlm.sandbox.worker import child_main  # imported before fork: the child pays nothing

    preload_seccomp()  # likewise the seccomp binding
    rootfs.plan_root()  # and the minimal root's plan (cached in this process)
    parent_sock, child_sock = socket.socketpair()
    pid = _fork_once()
    if pid is None:  # fork kept being refused (a library's fork hook): a fresh interpreter instead
        logger.warning("os.fork was refused %d times; starting the REPL worker with spawn", _FORK_RETRIES)
        parent_sock.close()
        child_sock.close()
        return spawn(inputs, config)
    if pid == 0:  # child
        try:
            parent_sock.close()
            zyg = zygote.current()
            for fd in zyg.host_fds() if zyg is not None else ():
                os.close(fd)  # the zygote must see EOF when the host dies, whatever we do
            child_main(Connection(child_sock.detach()), inputs, config)
        finally:
            os._exit(1)
    child_sock.close()
    return Connection(parent_sock.detach()), pid


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


def spawn(inputs: dict[str, Any], config: dict[str, Any]) -> tuple[Connection, int]:
    """A fresh interpreter (``python -m dspy_rlm.sandbox.worker FD``); the inputs are pickled to it once."""
    parent_sock, child_sock = socket.socketpair()
    fd = child_sock.fileno()
    proc = subprocess.Popen(
        [sys.executable, "-m", "dspy_rlm.sandbox.worker", str(fd)],
        pass_fds=[fd],
        stdin=subprocess.DEVNULL,
        env=config["env"],
    )
    child_sock.close()
    proc.returncode = 0  # we reap it ourselves (os.waitpid); keep Popen.__del__ quiet
    conn = Connection(parent_sock.detach())
    conn.send(("init", inputs, config))
    return conn, proc.pid


def drain(conn: Connection, kill_it: Callable[[], None]) -> str | None:
    """Read what the worker still sends until it closes the connection (killing it if that takes > 1 s);
    returns how it ended, if its namespace's init said so."""
    how = None
    deadline, killed = time.monotonic() + 1.0, False
    while True:
        try:
            if not conn.poll(max(deadline - time.monotonic(), 0)):
                if killed:
                    return how
                kill_it()
                deadline, killed = time.monotonic() + 5.0, True
                continue
            msg = conn.recv()
        except (EOFError, OSError, ValueError):
            return how
        except Exception:  # noqa: BLE001 - a frame cut by a kill: the stream is over
            return how
        if isinstance(msg, tuple) and msg and msg[0] == "exited":
            how = msg[1]


def reap(pid: int) -> str:
    """Wait for our own child (fork / spawn) to exit, killing it if it lingers; describe how it ended."""
    from dspy_rlm.sandbox.isolation import describe_status

    deadline = time.monotonic() + 1.0
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return "exited"
        if done:
            return describe_status(status)
        if time.monotonic() > deadline:
            kill(pid, None, group=True)
            deadline = time.monotonic() + 5.0
        time.sleep(0.002)


def kill(pid: int | None, pidfd: int | None, group: bool) -> None:
    """SIGKILL the sandbox: its namespace's init (which takes the namespace down), or its process group."""
    if pid is None:
        return
    if group:
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


def pause(pgid: int | None, stop: bool) -> None:
    """Stop (SIGSTOP) or continue (SIGCONT) the sandbox's process group; a gone group is no error."""
    if pgid is None:
        return
    try:
        os.killpg(pgid, signal.SIGSTOP if stop else signal.SIGCONT)
    except (ProcessLookupError, PermissionError):
        pass


def process_tree(pid: int | None) -> list[int]:
    """Host-side pids of ``pid`` and everything below it."""
    pids, todo = [], [pid] if pid is not None else []
    while todo:
        pid = todo.pop()
        pids.append(pid)
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as fh:
                todo.extend(int(p) for p in fh.read().split())
        except OSError:
            pass
    return pids
