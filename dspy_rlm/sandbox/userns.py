"""User namespaces for the sandbox worker: ``unshare`` with our own ids mapped, and uid/gid 65534 mapped
beside them where the host runs as root (the maps written by the zygote, or by a helper forked before
``unshare`` for the ``fork`` and ``spawn`` start methods); and the small libc, file and descriptor helpers
:mod:`dspy_rlm.sandbox.isolation` uses. Imported by it at load, so the zygote holds it before any worker forks."""

from __future__ import annotations

import ctypes
import os

from dspy_rlm.sandbox.seccomp import CLONE_NEWUSER

NOBODY = 65534


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _write(path: str, text: str) -> None:
    with open(path, "w") as fh:
        fh.write(text)


def _map_ids(uid: int, gid: int, inside: int | None = None) -> None:
    """Map our own uid/gid (as ``inside``, default the same) into the user namespace just created."""
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid if inside is None else inside} {uid} 1")
    _write("/proc/self/gid_map", f"{gid if inside is None else inside} {gid} 1")


def write_maps(pid: int) -> None:
    """From outside its new user namespace (CAP_SETUID there): map our ids and 65534 for process ``pid``."""
    uid, gid = os.getuid(), os.getgid()
    _write(f"/proc/{pid}/uid_map", f"{uid} {uid} 1\n{NOBODY} {NOBODY} 1")
    _write(f"/proc/{pid}/gid_map", f"{gid} {gid} 1\n{NOBODY} {NOBODY} 1")


#: (write end, read end) of pipes to the zygote, which writes this process's maps (set in zygote workers)
MAPPER: list[int] = []


def _ask_mapper(done: bool) -> None:
    """Tell whoever maps our ids whether unshare worked; wait until it has written the maps."""
    to_mapper, from_mapper = MAPPER
    MAPPER.clear()
    try:
        os.write(to_mapper, b"y" if done else b"n")
        if done:
            os.read(from_mapper, 1)
    finally:
        _close((to_mapper, from_mapper))


def _unshare(libc: ctypes.CDLL, flags: int) -> bool:
    """unshare(); a new user namespace maps our own ids, plus uid/gid 65534 where we are root outside (written
    by the zygote, or by a helper forked before unshare for the fork and spawn start methods)."""
    uid, gid = os.getuid(), os.getgid()
    if not flags & CLONE_NEWUSER or os.geteuid() != 0:
        if libc.unshare(flags) != 0:
            return False
        if flags & CLONE_NEWUSER:
            _map_ids(uid, gid)
        return True
    helper = None
    if not MAPPER:  # no zygote: a helper left outside the namespace writes the maps
        go_r, go_w = os.pipe()
        ack_r, ack_w = os.pipe()
        helper = os.fork()
        if helper == 0:
            _close((go_w, ack_r))
            try:
                if os.read(go_r, 1) == b"y":
                    write_maps(os.getppid())
            finally:
                os._exit(0)  # closing ack_w answers
        _close((go_r, ack_w))
        MAPPER[:] = [go_w, ack_r]
    done = libc.unshare(flags) == 0
    _ask_mapper(done)
    if helper is not None:
        try:
            os.waitpid(helper, 0)
        except ChildProcessError:  # a host that ignores SIGCHLD reaps it itself
            pass
    if done and not _nobody_mapped():
        _map_ids(uid, gid)
    return done


def _nobody_mapped() -> bool:
    """Whether uid 65534 is mapped beside our own uid (root outside). A host uid 65534 maps only itself: the
    worker is then nobody already, and ``setgroups`` is denied in its namespace."""
    if os.getuid() == NOBODY:
        return False
    try:
        with open("/proc/self/uid_map") as fh:
            return any(line.split()[:2] == [str(NOBODY), str(NOBODY)] for line in fh)
    except OSError:
        return False


def _close(fds: tuple[int, ...]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
