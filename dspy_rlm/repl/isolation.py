"""Operating-system isolation for the sandbox worker (Linux namespaces through raw ``unshare``).

:func:`enter` runs in a freshly started worker process and returns in the process that will run the model's
code. With the full level, ``"userns+pidns+mountns+netns"``, the process tree is::

    W0  (outside)   unshare(user | pid | mount | net); reports W1's pid to the host; waits for W1
    W1  pid 1       the namespace's init: read-only root, private /tmp, fresh /proc, pid limit; reaps;
                    reports how the worker ended; when it exits the kernel kills everything in the namespace
    W2  pid 2       the worker: the model's code runs here

so the model's code sees no host process (``os.getppid()`` is 1, ``/proc`` holds only its namespace), cannot
signal one, cannot write outside ``/tmp`` (its scratch directory ``/tmp/scratch`` is the working directory),
has no network, and at most ``pid_max`` processes and threads. The mounts are locked by a second, nested
user namespace, so the model's code cannot remount them writable or unmount ``/proc``.

Fallback steps, each named in the level string (``SubprocessREPL.isolation``): ``"userns+netns"``, ``"netns"``
(root without user namespaces), ``"none"`` (not Linux, or the kernel refused): file system, processes and
signals are then the user's, the network is refused by a Python audit hook only, and the scratch directory is
a host temp directory. bubblewrap was not used: it would need an ``exec`` of a fresh interpreter per worker
(hundreds of ms), where ``unshare`` in a forked process costs ~2 ms.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import tempfile
from multiprocessing.connection import Connection
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC, _MS_PRIVATE = 2, 4, 8, 4096, 0x4000, 1 << 18
_MOUNT_ATTR_RDONLY, _AT_RECURSIVE, _AT_FDCWD, _SYS_MOUNT_SETATTR = 1, 0x8000, -100, 442
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38
# Secrets commonly kept in the home directory: masked (empty, read-only) inside the mount namespace.
_SECRET_HOME_PATHS = (
    ".ssh",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".gnupg",
    ".config/gcloud",
    ".config/gh",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
)
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


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def sandbox_environment(host_env: dict[str, str], extra: dict[str, str] | None = None) -> dict[str, str]:
    """The worker's environment: allowlisted host variables (``LC_*`` included) plus ``extra``.

    Nothing named like a credential survives (``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``AWS_*``, ...): only
    names on the allowlist pass, so a new secret variable is scrubbed without anyone listing it.
    """
    env = {k: v for k, v in host_env.items() if k in ENV_ALLOWLIST or k.startswith("LC_")}
    env.update(extra or {})
    return env


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as fh:
        fh.write(text)


def _map_ids(uid: int, gid: int) -> None:
    """Map our own uid/gid into the user namespace just created (files keep reading as ours)."""
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")


def _unshare(libc: ctypes.CDLL, flags: int) -> bool:
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(flags) != 0:
        return False
    if flags & CLONE_NEWUSER:
        _map_ids(uid, gid)
    return True


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
    (the level reached), ``network``, ``pids_limit``, ``scratch`` (the worker's working directory) and
    ``host_scratch`` (a host directory the host removes at shutdown, or None). ``worker_fds`` are closed in
    the intermediate processes (e.g. the inputs file: only the worker may keep it alive).
    """
    env = dict(config.get("env") or {})
    levels = (
        []
        if config.get("isolation") == "none" or not sys.platform.startswith("linux")
        else _levels(bool(config.get("allow_network")))
    )
    libc = _libc() if levels else None
    assert libc is not None or not levels
    reached: list[str] = []
    for flags, names in levels:
        if libc is not None and _unshare(libc, flags):
            reached = names
            break
    info: dict[str, Any] = {"isolation": "+".join(reached) or "none", "pids_limit": "none"}
    info["network"] = (
        "allowed"
        if config.get("allow_network")
        else (
            "userns+netns" if {"userns", "netns"} <= set(reached) else "netns" if "netns" in reached else "audit-hook"
        )
    )
    if "pidns" in reached and libc is not None:
        _split_off_init(conn, config, libc, info, worker_fds)  # returns only in the worker (pid 2)
    else:
        os.setpgid(0, 0)  # so the host can kill what the worker starts, with killpg
        info["host_scratch"] = info["scratch"] = tempfile.mkdtemp(prefix="dspy-rlm-scratch-")
        os.makedirs(os.path.join(info["scratch"], "tmp"))
        env["TMPDIR"] = os.path.join(info["scratch"], "tmp")
    if "userns" in reached:  # counted per user namespace: only this sandbox's processes (not for root)
        limit = int(config.get("max_processes") or 64)
        resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
        if info["pids_limit"] == "none":
            info["pids_limit"] = f"RLIMIT_NPROC={limit}"
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    info["seccomp"] = install_seccomp() if sys.platform.startswith("linux") and config.get("seccomp", True) else "off"
    os.chdir(info["scratch"])
    os.environ.clear()
    os.environ.update(env)
    if "TMPDIR" not in env:
        os.environ["TMPDIR"] = "/tmp"
    tempfile.tempdir = None  # recomputed from TMPDIR on next use
    return info


#: Syscalls the model's code never needs and the namespaces do not take away: kernel attack surface (bpf,
#: perf, userfaultfd, keyrings, io_uring), inspecting or entering other processes and namespaces (ptrace,
#: process_vm_*, setns, unshare, namespace-creating clone), and host-wide state (mount, modules, clock,
#: swap, reboot). Each fails with EPERM; everything else is allowed.
DENIED_SYSCALLS = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
    "setns",
    "unshare",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "open_by_handle_at",
    "name_to_handle_at",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "mount_setattr",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "syslog",
    "quotactl",
    "vhangup",
    "iopl",
    "ioperm",
    "lookup_dcookie",
    "personality",
)
#: clone() flags that make a namespace (user, mount, pid, net, ipc, uts, cgroup): refused, so model code
#: cannot nest namespaces of its own.
_CLONE_NAMESPACE_FLAGS = (CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET, 0x08000000, 0x04000000, 0x02000000)


def preload_seccomp() -> None:
    """Import the seccomp binding (it loads libseccomp) in a process that will fork workers, so each worker
    shares its pages instead of loading its own copy."""
    try:
        import pyseccomp  # noqa: F401
    except (ImportError, OSError):
        pass


def install_seccomp() -> str:
    """Load a seccomp filter (libseccomp through ``pyseccomp``) on this process and its future children:
    :data:`DENIED_SYSCALLS` and namespace-creating ``clone`` fail with EPERM, ``clone3`` with ENOSYS (so libc
    falls back to ``clone``, whose flags the filter can read). Returns what was installed, for ``repr``."""
    import errno

    try:
        import pyseccomp as seccomp
    except (ImportError, OSError) as exc:  # OSError: libseccomp.so.2 is missing
        return f"unavailable ({type(exc).__name__}: {exc})"
    flt = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    denied = 0
    for name in DENIED_SYSCALLS:
        try:
            flt.add_rule(seccomp.ERRNO(errno.EPERM), name)
            denied += 1
        except (RuntimeError, ValueError, OSError):  # not a syscall on this architecture
            continue
    for flag in _CLONE_NAMESPACE_FLAGS:
        flt.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    try:
        flt.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    except (RuntimeError, ValueError, OSError):
        pass
    flt.load()
    return f"deny-list ({denied} syscalls + namespace clone)"


def _close(fds: tuple[int, ...]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def _split_off_init(
    conn: Connection, config: dict[str, Any], libc: ctypes.CDLL, info: dict[str, Any], worker_fds: tuple[int, ...]
) -> None:
    """W0 forks W1 (pid 1 of the new namespace), tells the host W1's pid, and waits; W1 forks the worker."""
    release_r, release_w = os.pipe()
    pid = os.fork()
    if pid:  # W0: outside the namespace
        _close((release_r, *worker_fds))
        try:
            conn.send(("spawned", {"kill_pid": pid}))
        finally:
            os.close(release_w)  # W1 goes on only once the host knows whom to kill
        conn.close()
        _wait_and_exit(pid)
    os.close(release_w)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # W0 died (its zygote died): take the namespace down
    os.read(release_r, 1)
    os.close(release_r)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # init ignores default-action signals sent from inside
    info["host_scratch"] = None
    info["scratch"] = "/tmp/scratch"
    notes = _setup_mounts(libc, config) if "mountns" in info["isolation"] else ["mounts: unchanged"]
    info["notes"] = notes
    info["pids_limit"] = _limit_pids(config)
    # A nested user + mount namespace locks every mount above: no remount writable, no unmounting /proc.
    if "mountns" in info["isolation"] and not _unshare(libc, CLONE_NEWUSER | CLONE_NEWNS):
        notes.append("mounts not locked (nested user namespace refused)")
    worker = os.fork()
    if worker == 0:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        return
    _close(worker_fds)
    _serve_as_init(conn, worker)


def _setup_mounts(libc: ctypes.CDLL, config: dict[str, Any]) -> list[str]:
    notes = []
    _check(libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "make mounts private")
    attr = _MountAttr(attr_set=_MOUNT_ATTR_RDONLY)
    if libc.syscall(_SYS_MOUNT_SETATTR, _AT_FDCWD, b"/", _AT_RECURSIVE, ctypes.byref(attr), ctypes.sizeof(attr)) != 0:
        notes.append(f"root file system left writable (mount_setattr: {os.strerror(ctypes.get_errno())})")
    size = int(config.get("scratch_mb") or 256)
    _check(
        libc.mount(b"tmpfs", b"/tmp", b"tmpfs", _MS_NOSUID | _MS_NODEV, f"size={size}m,mode=1777".encode()),
        "mount a private /tmp",
    )
    os.mkdir("/tmp/scratch")
    if os.path.isdir("/dev/shm"):
        libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", _MS_NOSUID | _MS_NODEV, b"size=64m,mode=1777")
    if libc.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None) != 0:
        notes.append(f"host /proc still visible ({os.strerror(ctypes.get_errno())})")
    home = os.path.expanduser("~")
    for rel in _SECRET_HOME_PATHS:
        path = os.path.join(home, rel)
        if os.path.isdir(path):
            libc.mount(b"tmpfs", path.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, b"size=4k,mode=0500")
        elif os.path.exists(path):
            libc.mount(b"/dev/null", path.encode(), None, _MS_BIND, None)
    return notes


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


def _wait_and_exit(pid: int) -> None:
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
