"""The sandbox worker's lifecycle, host side: started (from the zygote, forked or spawned, falling back a
level when the namespaces fail), paused between requests, stopped or killed, and cleaned up after.
:class:`WorkerLifecycle` is a base class of :class:`~dspy_rlm.sandbox.backend.SubprocessREPL`, which sets the
attributes below."""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from dspy_rlm.sandbox import launch
from dspy_rlm.sandbox.errors import SandboxUnavailable, WorkerDied, unavailable_message

logger = logging.getLogger("dspy_rlm.sandbox.backend")  # one log for the backend

_READY_TIMEOUT_S = 120.0
FULL_LEVEL = "userns+pidns+mountns+netns+newroot+nobody"
_SAID: set[str] = set()  # levels below the full one already named in the log (once per process)


class WorkerLifecycle:
    """Start, pause, stop and kill the worker; the settings and state are :class:`SubprocessREPL`'s."""

    tools: dict[str, Callable[..., Any]]
    output_fields: list[str]
    timeout_s: float | None
    memory_mb: int | None
    max_output_chars: int
    allow_network: bool
    start_method: str
    isolation_mode: str
    seccomp: bool
    helper_style: str
    sandbox_env: dict[str, str]
    max_processes: int
    scratch_mb: int
    mounts: dict[str, tuple[str, bool]]
    cpu_s_per_block: float | None
    cpu_s_per_run: float | None
    isolation: str
    isolation_info: dict[str, Any]
    network_isolation: str
    _inputs: dict[str, Any]
    _conn: Connection | None
    _pid: int | None
    _pidfd: int | None
    _pgid: int | None
    _child_pid: int | None
    _exit_how: str | None
    _host_scratch: str | None
    _user_variables: list[str]

    def load_inputs(self, inputs: dict[str, Any]) -> None:
        """Bind the run's inputs. Done once per run; a running worker is restarted to see them."""
        self._inputs = dict(inputs)
        if self._conn is not None:
            self._stop()
            self.start()

    def _config(self) -> dict[str, Any]:
        from dspy_rlm.sandbox.isolation import sandbox_environment

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
            "mounts": self.mounts,
            "cpu_s_per_block": self.cpu_s_per_block,
            "cpu_s_per_run": self.cpu_s_per_run,
        }

    def start(self) -> None:
        """Start the worker (a no-op if it runs). Retries once: a zygote killed meanwhile is started again."""
        if self._conn is not None:
            return
        config = self._config()
        failed: list[str] = []
        for attempt in range(2):
            if self.start_method == "zygote":
                self._conn = launch.from_zygote(self._inputs, config)
            else:
                starter = launch.fork if self.start_method == "fork" else launch.spawn
                self._conn, self._child_pid = starter(self._inputs, config)
            try:
                info = self._await_ready()
                break
            except WorkerDied as exc:
                self._finish(kill=True)
                failed.append(f"{config['isolation']}: {exc}")
                if attempt:
                    raise WorkerDied("; ".join(failed)) from exc
                if config["isolation"] == "auto":  # the namespaces failed: the next level, with the reason
                    config = {**config, "isolation": "landlock"}
                logger.warning("the sandbox worker did not start (%s); trying %s", exc, config["isolation"])
        info["notes"] = [*(f"level {f} failed" for f in failed), *info.get("notes", [])]
        if info.get("isolation", "none") == "none" and self.isolation_mode != "none":
            self._finish(kill=True)
            raise SandboxUnavailable(unavailable_message(info))
        level = info.get("isolation", "none")
        if self.isolation_mode == "auto" and level not in (FULL_LEVEL, *_SAID) and not self.allow_network:
            _SAID.add(level)
            notes = "; ".join(info.get("notes") or [])
            logger.warning("dspy-rlm sandbox: %s, not the full level%s", level, f" ({notes})" if notes else "")
        self.isolation_info = info
        self.isolation = info.get("isolation", "none")
        self.network_isolation = info.get("network", "unknown")
        self._host_scratch = info.get("host_scratch")
        self._pgid = self._pid  # the namespace's init, or the worker itself, leads the sandbox's group
        self._user_variables = []
        self._pause(True)
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
            elif kind in ("exited", "failed"):
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

    def shutdown(self) -> None:
        self._stop()

    def _pause(self, stop: bool) -> None:
        """Stop the sandbox between requests (no CPU while the LM writes), continue it before the next."""
        launch.pause(self._pgid, stop)

    def _stop(self) -> None:
        if self._conn is not None:
            self._pause(False)
            try:
                self._conn.send(("shutdown",))
            except OSError:
                pass
        self._finish(kill=False)

    def _finish(self, kill: bool) -> str:
        """End the worker (killing it if asked, or if it lingers), release everything; say how it ended."""
        conn, pid, child, pidfd = self._conn, self._pid, self._child_pid, self._pidfd
        how, self._exit_how = self._exit_how, None
        self._conn = self._pid = self._child_pid = self._pidfd = self._pgid = None
        if kill:
            self._kill(pid, pidfd)
        if conn is not None:
            how = launch.drain(conn, lambda: self._kill(pid, pidfd)) or how
            conn.close()
        if child is not None:
            how = launch.reap(child) if how is None else (launch.reap(child) and how)
        if pidfd is not None:
            os.close(pidfd)
        if self._host_scratch:
            shutil.rmtree(self._host_scratch, ignore_errors=True)
            self._host_scratch = None
        return how or "gone"

    def _kill(self, pid: int | None, pidfd: int | None) -> None:
        # Without a PID namespace, the worker's whole process group; with one, its init takes all down.
        launch.kill(pid, pidfd, group="pidns" not in self.isolation)

    def worker_pids(self) -> list[int]:
        """Host-side pids of the sandbox's processes (its init and everything below), for measurements."""
        return launch.process_tree(self._pid)
