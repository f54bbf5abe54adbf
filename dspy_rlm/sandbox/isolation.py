"""Operating-system isolation for the sandbox worker (Linux namespaces through raw ``unshare``).

:func:`enter` runs in a freshly started worker process and returns in the process that will run the model's
code. With the full level, ``"userns+pidns+mountns+netns+newroot+nobody"``, the process tree is::

    W0  (outside)   unshare(user | pid | mount | net); reports W1's pid to the host; waits for W1 (and
                    ends it if the process that started W0 dies)
    W1  pid 1       the namespace's init: builds the minimal root (:mod:`dspy_rlm.sandbox.rootfs`) and
                    pivots into it, pid limit; reaps; reports how the worker ended; when it exits the
                    kernel kills everything in the namespace
    W2  pid 2       the worker: becomes uid/gid 65534 (nobody), locks the mounts in a nested user + mount
                    namespace, drops its capabilities; the model's code runs here

so the model's code sees no host process (``os.getppid()`` is 1, ``/proc`` holds only its namespace), cannot
signal one, sees only the interpreter, its packages, ``/usr`` and what ``mounts=`` names (no home, project,
``/etc``, ``/root``, ``/run``), cannot write outside ``/tmp`` (its scratch directory ``/tmp/scratch`` is the
working directory), has no network, at most ``pid_max`` processes and threads, and runs as an identity that
owns no host file: where the host runs as root, the user namespace maps uid and gid 65534 to the host's
65534 (written by the zygote, which is outside the namespace, or by a helper forked for the ``fork`` and
``spawn`` start methods), so root-only files stay unreadable even through a bind; elsewhere the host's own
uid is the only one mapped. The nested namespace keeps the model's
code from remounting anything writable or unmounting ``/proc``.

Fallback steps, each named in the level string (``SubprocessREPL.isolation``): without ``+newroot`` the
worker sees the host's root read-only with secret paths of the home directory masked by name; without
``+nobody`` it keeps the host's uid (root stays root). Below the minimal root, Landlock
(:mod:`dspy_rlm.sandbox.landlock`) is stacked on whatever was reached: ``"landlock"`` where the kernel refuses
user namespaces (Docker, Ubuntu >= 23.10, uid 65534 on hardened hosts; ``isolation="landlock"`` asks for it
directly) reads only the interpreter, its packages, ``/usr`` and ``mounts=``, writes only its scratch
directory (a fresh host temp directory), has no TCP (Landlock) and no socket but AF_UNIX and no ``connect``
(seccomp), cannot signal out, and a non-root user's processes are capped by RLIMIT_NPROC at the user's count
plus ``max_processes``. ``"none"`` (not Linux, or neither namespaces nor Landlock) is reported so that the
host refuses to run the model's code, unless ``isolation="none"`` asked for exactly that. bubblewrap was not
used: it would need an ``exec`` of a fresh interpreter per worker (hundreds of ms), where ``unshare`` in a
forked process costs ~2 ms, and where it works unprivileged it needs the same user namespaces.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from typing import Any

from dspy_rlm.sandbox import rootfs
from dspy_rlm.sandbox.seccomp import CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWUSER, install_seccomp
from dspy_rlm.sandbox.userns import (  # noqa: F401 - the names it held before the split stay here
    MAPPER,
    NOBODY,
    _ask_mapper,
    _close,
    _libc,
    _map_ids,
    _nobody_mapped,
    _unshare,
    _write,
    write_maps,
)

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 1, 4, 38
ENV_ALLOWLIST = frozenset(
    {
        "PATH",
        "HOME",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TERM",
        "USER",
        "LOGNAME",
        "SHELL",
        "PYTHONPATH",
        "PYTHONHASHSEED",
        "PYTHONIOENCODING",
        "PYTHONUTF8",
        "PYTHONDONTWRITEBYTECODE",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "SYSTEMROOT",
    }
)


def sandbox_environment(host_env: dict[str, str], extra: dict[str, str] | None = None) -> dict[str, str]:
    """The worker's environment: allowlisted host variables (``LC_*`` included) plus ``extra``.

    Nothing named like a credential survives (``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``AWS_*``, ...): only
    names on the allowlist pass, so a new secret variable is scrubbed without anyone listing it.
    """
    env = {k: v for k, v in host_env.items() if k in ENV_ALLOWLIST or k.startswith("LC_")}
    env.update(extra or {})
    return env


def _levels(allow_network: bool) -> list[tuple[int, list[str]]]:
    net = [] if allow_network else [(CLONE_NEWNET, "netns")]
    full = [(CLONE_NEWUSER, "userns"), (CLONE_NEWPID, "pidns"), (CLONE_NEWNS, "mountns"), *net]
    steps = [full, [(CLONE_NEWUSER, "userns"), *net], net]
    return [(sum(f for f, _ in step), [n for _, n in step]) for step in steps if step]


def prctl(option: int, value: int) -> None:
    _libc().prctl(option, value, 0, 0, 0)


def enter(conn: Connection, config: dict[str, Any], worker_fds: tuple[int, ...] = ()) -> dict[str, Any]:
    """Isolate this (freshly started, single-threaded) process; returns in the worker with a description.

    May fork: intermediate processes never return from this call. The description holds ``isolation``
    (the level reached), ``network``, ``pids_limit``, ``identity``, ``scratch`` (the worker's working
    directory), ``host_scratch`` (a host directory the host removes at shutdown, or None) and ``mounts``.
    ``worker_fds`` are closed in the intermediate processes (only the worker may keep the inputs file alive).
    """
    env = dict(config.get("env") or {})
    mode = config.get("isolation", "auto")
    levels = _levels(bool(config.get("allow_network"))) if mode == "auto" and sys.platform.startswith("linux") else []
    starter = os.getppid()
    libc = _libc() if levels else None
    reached: list[str] = []
    refused = []
    for flags, names in levels:
        if libc is not None and _unshare(libc, flags):
            reached = names
            break
        refused.append(f"{'+'.join(names)} refused ({os.strerror(ctypes.get_errno())})")
    if MAPPER:  # no user namespace was tried: release the zygote
        _close(tuple(MAPPER))
        MAPPER.clear()
    info: dict[str, Any] = {"isolation": "+".join(reached) or "none", "pids_limit": "none", "notes": refused}
    info["network"] = (
        "allowed"
        if config.get("allow_network")
        else (
            "userns+netns" if {"userns", "netns"} <= set(reached) else "netns" if "netns" in reached else "audit-hook"
        )
    )
    info["identity"] = f"host uid {os.getuid()}"
    info["mounts"] = {dst: src + (":rw" if rw else "") for dst, (src, rw) in (config.get("mounts") or {}).items()}
    if "pidns" in reached and libc is not None:
        _split_off_init(conn, config, libc, info, worker_fds, starter)  # returns only in the worker (pid 2)
        env["HOME"] = info["scratch"] if "newroot" in info["isolation"] else env.get("HOME", "/tmp/scratch")
    else:
        os.setpgid(0, 0)  # so the host can stop and kill what the worker starts, with killpg
        info["host_scratch"] = info["scratch"] = tempfile.mkdtemp(prefix="dspy-rlm-scratch-")
        os.makedirs(os.path.join(info["scratch"], "tmp"))
        env["TMPDIR"] = os.path.join(info["scratch"], "tmp")
        if info["mounts"]:
            info["notes"].append("mounts not applied (no mount namespace): the worker sees the host's paths")
    if "userns" in reached:  # counted per user namespace: only this sandbox's processes (not for root)
        limit = int(config.get("max_processes") or 64)
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
        if info["pids_limit"] == "none":
            info["pids_limit"] = f"RLIMIT_NPROC={limit}"
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    if mode != "none" and "newroot" not in info["isolation"]:
        _landlock(config, info, env)
    no_net = info["network"] == "landlock" or (info["network"] == "audit-hook" and mode != "none")
    info["seccomp"] = (
        install_seccomp(no_network=no_net)
        if sys.platform.startswith("linux") and config.get("seccomp", True)
        else "off"
    )
    if no_net and not info["seccomp"].startswith("deny-list"):
        info["notes"].append("UDP and UNIX sockets not refused (no seccomp filter): TCP only, by Landlock")
    os.chdir(info["scratch"])
    os.environ.clear()
    os.environ.update(env)
    if "TMPDIR" not in env:
        os.environ["TMPDIR"] = "/tmp"
    tempfile.tempdir = None  # recomputed from TMPDIR on next use
    return info


def _landlock(config: dict[str, Any], info: dict[str, Any], env: dict[str, str]) -> None:
    """Where no minimal root was built: Landlock confines reads to what the worker needs, writes to its scratch
    directory, and (kernel permitting) TCP and signals to nothing. Named in the level as ``+landlock``."""
    from dspy_rlm.sandbox import landlock

    if "userns" not in info["isolation"] and os.getuid() != 0:  # no namespace to count in: the user's tasks
        limit = _user_tasks(os.getuid()) + int(config.get("max_processes") or 64)
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
        info["pids_limit"] = f"RLIMIT_NPROC={limit} (this user's tasks + {config.get('max_processes') or 64})"
    plan = rootfs.plan_root()
    mounts = config.get("mounts") or {}
    read_only = [src for src, _dst in plan.binds] + [src for src, rw in mounts.values() if not rw]
    read_only += ["/dev/urandom", "/dev/random", "/dev/zero", f"/proc/{os.getpid()}"]
    read_write = [info["scratch"], "/dev/null", *(src for src, rw in mounts.values() if rw)]
    try:
        info.update(landlock.restrict(read_only, read_write))
    except OSError as exc:
        info["notes"].append(f"no Landlock ({exc})")
        return
    info["isolation"] = "+".join(p for p in (info["isolation"], "landlock") if p != "none")
    if info["network"] == "audit-hook":
        info["network"] = "landlock"
    if mounts:
        info["notes"] = [n for n in info["notes"] if not n.startswith("mounts not applied")]
        info["notes"].append("mounts shown at their host paths (no mount namespace)")


def _user_tasks(uid: int) -> int:
    """Threads of this real uid on the host (what RLIMIT_NPROC counts), read from /proc before Landlock."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as fh:
                fields = dict(line.split(":", 1) for line in fh if ":" in line)
        except OSError:
            continue
        if int(fields.get("Uid", "-1").split()[0]) == uid:
            total += int(fields.get("Threads", "1"))
    return total


def _split_off_init(
    conn: Connection,
    config: dict[str, Any],
    libc: ctypes.CDLL,
    info: dict[str, Any],
    worker_fds: tuple[int, ...],
    starter: int,
) -> None:
    """W0 forks W1 (pid 1 of the new namespace), tells the host W1's pid, and waits; W1 forks the worker."""
    plan = rootfs.plan_root() if "mountns" in info["isolation"] else None  # cached in the zygote
    nobody = _nobody_mapped()
    release_r, release_w = os.pipe()
    pid = os.fork()
    if pid:  # W0: outside the namespace
        _close((release_r, *worker_fds))
        try:
            conn.send(("spawned", {"kill_pid": pid}))
        finally:
            os.close(release_w)  # W1 goes on only once the host knows whom to kill
        conn.close()
        _wait_and_exit(pid, starter)
    os.close(release_w)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # W0 died (its zygote died): take the namespace down
    os.read(release_r, 1)
    os.close(release_r)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # init ignores default-action signals sent from inside
    os.setpgid(0, 0)  # the sandbox's process group: the host stops it between blocks
    info["host_scratch"] = None
    info["scratch"] = "/tmp/scratch"
    if plan is not None:
        _mount_root(libc, plan, config, info, NOBODY if nobody else None)
    info["pids_limit"] = _limit_pids(config)
    worker = os.fork()
    if worker == 0:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if "mountns" in info["isolation"]:
            _become_nobody(libc, info, nobody)
        return
    _close(worker_fds)
    _serve_as_init(conn, worker)


def _mount_root(
    libc: ctypes.CDLL, plan: rootfs.RootPlan, config: dict[str, Any], info: dict[str, Any], owner: int | None
) -> None:
    """W1: the minimal root, or (the kernel refused a step before leaving the host's root) the fallback."""
    scratch_mb = int(config.get("scratch_mb") or 256)
    t0 = time.perf_counter()
    try:
        info["notes"] += rootfs.build_root(libc, plan, config.get("mounts") or {}, scratch_mb, owner)
        info["root_build_ms"] = round((time.perf_counter() - t0) * 1000, 3)
        info["isolation"] += "+newroot"
        info["binds"] = [dst for _src, dst in plan.binds]
        return
    except OSError as exc:
        if os.path.isdir("/oldroot"):  # half-way: neither root is whole; the host sees the worker fail
            raise
        info["notes"].append(f"no minimal root ({exc}): the host's root read-only, secrets masked by name")
    info["notes"] += rootfs.readonly_host(libc, scratch_mb)
    if info["mounts"]:
        info["notes"].append("mounts not applied (no minimal root): the worker sees the host's paths")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _become_nobody(libc: ctypes.CDLL, info: dict[str, Any], nobody_mapped: bool) -> None:
    """W2: uid/gid 65534 (host 65534 where mapped), mounts locked in a nested user + mount namespace, no
    capabilities left. Where only the host's uid is mapped, the worker shows as 65534 but is that uid."""
    uid, gid = os.getuid(), os.getgid()
    if nobody_mapped:
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)  # leaves uid 0: every capability is dropped
        prctl(PR_SET_DUMPABLE, 1)  # else /proc/self is root's, and the nested maps cannot be written
        uid = gid = NOBODY
    # The nested namespace locks every mount above: no remount writable, no unmounting /proc.
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
        info["notes"].append("mounts not locked (nested user namespace refused)")
    else:
        _map_ids(uid, gid, inside=NOBODY)
        libc.capset(ctypes.byref(_CapHeader(0x20080522, 0)), (_CapData * 2)())
    if uid != 0:
        info["isolation"] += "+nobody"
    info["identity"] = f"uid {os.getuid()} inside, host uid {uid}"


def _limit_pids(config: dict[str, Any]) -> str:
    """A per-namespace pid_max (Linux >= 6.14; 301 is the kernel's minimum): processes and threads."""
    want = max(int(config.get("max_processes") or 64), 301)
    try:
        _write("/proc/sys/kernel/pid_max", str(want))
        return f"pid_max={want}"
    except OSError:
        return "none"


def _serve_as_init(conn: Connection, worker: int) -> None:
    """W1: reap every process of the namespace; when the worker ends, tell the host how, and end it all."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(0)
        except InterruptedError:
            continue
        if pid == worker:
            try:
                conn.send(("exited", describe_status(status)))
            except OSError:
                pass
            os._exit(0)


def _wait_and_exit(pid: int, starter: int) -> None:
    """W0: wait for W1; if the process that started us (the zygote, or the host itself with ``fork`` and
    ``spawn``) dies first, exit, which kills W1 and so the namespace (a stopped worker cannot notice)."""
    import select

    try:
        fds = [os.pidfd_open(pid), os.pidfd_open(starter)]
    except (AttributeError, OSError):
        fds = []
    while fds:
        try:
            ready, _, _ = select.select(fds, [], [])
        except InterruptedError:
            continue
        if fds[1] in ready:
            os._exit(0)
        break
    while True:
        try:
            os.waitpid(pid, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            pass
        os._exit(0)


def describe_status(status: int) -> str:
    """A wait status in words: 'killed by signal SIGKILL' or 'exited with code 3'."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            return f"killed by signal {signal.Signals(sig).name}"
        except ValueError:
            return f"killed by signal {sig}"
    return f"exited with code {os.WEXITSTATUS(status)}"
