"""A fork server for sandbox workers: workers are never forked from the user's (threaded) process.

Forking a process with live native thread pools (OpenBLAS, tokenizers, MLX, llama.cpp) can deadlock in an
``atfork`` handler waiting on a lock another thread held at the moment of the fork. The zygote is a small
single-threaded interpreter, started once per host process (on the first sandbox start, with ``subprocess``,
which execs at once and runs no ``atfork`` handler), that has imported only what the worker needs; workers
are forked from it on request.

Requests travel over a ``SOCK_SEQPACKET`` socket pair: a small pickled config plus two file descriptors
(SCM_RIGHTS): the worker's end of its own connection to the host, and a memory-mapped file (``memfd``) in
which the host pickled the inputs once. The worker unpickles the inputs from the mapping in place.

Lifetime: the zygote exits when the host end of its socket closes (the host died or shut it down); each
worker's first process has ``PR_SET_PDEATHSIG`` on the zygote, so workers die with it. A zygote that died
(killed by the model's code where no PID namespace hides it, or by anything else) is started again on the
next request.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import pickle
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from typing import Any

logger = logging.getLogger(__name__)

_MAX_REQUEST = 1 << 20


def available() -> bool:
    """Whether the zygote start method can work here (Linux: fork, SEQPACKET sockets, fd passing)."""
    return sys.platform.startswith("linux") and hasattr(socket, "send_fds")


def write_inputs(inputs: dict[str, Any]) -> int:
    """Pickle the inputs once into an anonymous memory file; returns its fd (the caller closes it)."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("dspy-rlm-inputs", os.MFD_CLOEXEC)
    else:  # pragma: no cover - non-Linux
        fh = tempfile.TemporaryFile()  # noqa: SIM115 - closed below once its descriptor is duplicated
        fd = os.dup(fh.fileno())
        fh.close()
    try:
        with open(fd, "wb", closefd=False, buffering=1 << 20) as out:
            pickle.dump(inputs, out, protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:
        os.close(fd)
        raise
    return fd


class Zygote:
    """The host side: starts the zygote on first use, sends it spawn requests, restarts it if it died."""

    def __init__(self, env: dict[str, str]):
        self._env = env
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._sock: socket.socket | None = None
        self.starts = 0

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def spawn(self, config: dict[str, Any], worker_fd: int, inputs_fd: int) -> None:
        """Ask the zygote to fork a worker that talks on ``worker_fd`` and reads its inputs from ``inputs_fd``."""
        payload = pickle.dumps(("spawn", config), protocol=pickle.HIGHEST_PROTOCOL)
        if len(payload) > _MAX_REQUEST:
            raise ValueError(f"sandbox config too large ({len(payload):,} bytes); pass data as inputs instead")
        with self._lock:
            for attempt in range(2):
                if self._proc is None or self._proc.poll() is not None:
                    self._start()
                assert self._sock is not None  # _start() connected it
                try:
                    socket.send_fds(self._sock, [payload], [worker_fd, inputs_fd])
                    return
                except OSError as exc:
                    if attempt:
                        raise
                    logger.warning("the sandbox zygote is gone (%s); starting a new one", exc)
                    self._close()

    def _start(self) -> None:
        self._close()
        host, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        code = (
            "import json, sys; sys.path[:] = json.loads(sys.argv[2]); "
            "from dspy_rlm.sandbox.zygote import main; main(int(sys.argv[1]))"
        )
        with child:
            self._proc = subprocess.Popen(
                [sys.executable, "-c", code, str(child.fileno()), json.dumps(sys.path)],
                pass_fds=[child.fileno()],
                env=self._env,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self._sock = host
        self.starts += 1
        logger.debug("sandbox zygote started (pid %d)", self._proc.pid)

    def _close(self) -> None:
        sock, proc = self._sock, self._proc
        self._sock = self._proc = None
        if sock is not None:
            sock.close()  # the zygote sees EOF and exits
        if proc is not None:
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def close(self) -> None:
        """Stop the zygote (running workers die with it)."""
        with self._lock:
            self._close()

    def host_fds(self) -> list[int]:
        """File descriptors a process forked from the host must close (so the zygote can see EOF)."""
        return [self._sock.fileno()] if self._sock is not None else []


_ZYGOTE: Zygote | None = None
_ZYGOTE_LOCK = threading.Lock()


def get_zygote() -> Zygote:
    """The process-wide zygote client (created on first use; the zygote starts on the first spawn)."""
    global _ZYGOTE
    with _ZYGOTE_LOCK:
        if _ZYGOTE is None:
            from dspy_rlm.sandbox.isolation import sandbox_environment

            _ZYGOTE = Zygote(sandbox_environment(dict(os.environ)))
            atexit.register(_ZYGOTE.close)
        return _ZYGOTE


def current() -> Zygote | None:
    """The zygote client if one was created (never creates one)."""
    return _ZYGOTE


# -- the zygote process ---------------------------------------------------------------------------------
def main(fd: int) -> None:
    """The zygote's loop: one fork per request; exits when the host closes its end."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps our direct children
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import gc

    from dspy_rlm.sandbox import isolation, rootfs, seccomp, worker  # noqa: F401 - loaded once, shared by workers

    seccomp.preload_seccomp()
    rootfs.plan_root()  # what the workers' minimal root holds: computed once, inherited by every fork

    gc.freeze()  # keep the imported modules' pages shared with the workers (no refcount-driven copies)
    sock = socket.socket(fileno=fd)
    mapping: dict[int, tuple[int, int]] = {}  # pipe from a worker -> (its pid, pipe back)
    while True:
        try:
            ready, _, _ = select.select([sock.fileno(), *mapping], [], [])
        except InterruptedError:
            continue
        for rfd in ready:
            if rfd == sock.fileno():
                _serve_request(sock, mapping)
            else:
                _map_worker(rfd, *mapping.pop(rfd))


def _serve_request(sock: socket.socket, mapping: dict[int, tuple[int, int]]) -> None:
    try:
        data, fds, _flags, _addr = socket.recv_fds(sock, _MAX_REQUEST, 4)
    except InterruptedError:
        return
    except OSError:
        os._exit(0)
    if not data:
        os._exit(0)  # the host is gone
    try:
        _op, config = pickle.loads(data)
    except Exception:  # noqa: BLE001 - a malformed request: drop it; the host sees its worker never start
        for f in fds:
            os.close(f)
        return
    # As root, the worker's user namespace maps uid 65534 too, which only a process outside it may write:
    # the worker tells us when it has unshared, we write its maps (no helper process per worker).
    pipes = [*os.pipe(), *os.pipe()] if os.geteuid() == 0 else []
    pid = os.fork()
    if pid == 0:
        sock.close()
        for rfd, (_pid, wfd) in mapping.items():
            os.close(rfd)
            os.close(wfd)
        if pipes:
            os.close(pipes[0])
            os.close(pipes[3])
            from dspy_rlm.sandbox import isolation

            isolation.MAPPER[:] = [pipes[1], pipes[2]]
        _child(fds, config)
    for f in fds:
        os.close(f)
    if pipes:
        os.close(pipes[1])
        os.close(pipes[2])
        mapping[pipes[0]] = (pid, pipes[3])


def _map_worker(rfd: int, pid: int, wfd: int) -> None:
    from dspy_rlm.sandbox import isolation

    try:
        if os.read(rfd, 1) == b"y":
            isolation.write_maps(pid)
            os.write(wfd, b"k")
    except OSError:  # the worker died meanwhile: it started no namespace worth mapping
        pass
    finally:
        os.close(rfd)
        os.close(wfd)


def _child(fds: list[int], config: dict[str, Any]) -> None:
    from multiprocessing.connection import Connection

    from dspy_rlm.sandbox import isolation
    from dspy_rlm.sandbox.worker import child_main

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    zygote = os.getppid()
    isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != zygote:  # the zygote died before the death signal was armed
        os._exit(1)
    worker_fd, inputs_fd = fds
    child_main(Connection(worker_fd), inputs_fd, config)
