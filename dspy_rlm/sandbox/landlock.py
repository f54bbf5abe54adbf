"""Landlock (Linux >= 5.13): file-system, TCP and signal limits that any user may set on their own process.

The sandbox's level where the kernel refuses user namespaces (Docker's default seccomp profile, Ubuntu >= 23.10's
AppArmor default, ``nobody`` on hardened hosts): no namespace, no privilege, no helper binary. After
:func:`restrict` the process and everything it starts can

- read (and execute) only beneath the paths named read-only: the interpreter, its packages, ``/usr`` and what
  ``mounts=`` names; write only beneath the scratch directory; nothing else, ``/proc`` of other processes,
  the home directory and ``/etc`` included;
- neither bind nor connect TCP sockets (ABI >= 4; the seccomp filter refuses the other socket families);
- neither signal nor connect to abstract UNIX sockets of processes outside the sandbox (ABI >= 6).

Each limit the running kernel lacks is named in what :func:`restrict` returns. The rules are stacked on the
process for good: nothing inside can lift them.
"""

from __future__ import annotations

import ctypes
import os
import platform

# Syscall numbers are the same on every architecture (the unified table, since Linux 5.13).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

# LANDLOCK_ACCESS_FS_* and the ABI that introduced each
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_ABI1 = (1 << 13) - 1  # execute .. make_sym
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1

READ = _EXECUTE | _READ_FILE | _READ_DIR


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def abi() -> int:
    """The kernel's Landlock ABI version; 0 where there is none (not Linux, disabled, or refused by seccomp)."""
    if platform.system() != "Linux":
        return 0
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(ctypes.c_long(_CREATE_RULESET), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(version), 0)


def _fs_rights(version: int) -> int:
    rights = _FS_ABI1
    if version >= 2:
        rights |= _REFER
    if version >= 3:
        rights |= _TRUNCATE
    if version >= 5:
        rights |= _IOCTL_DEV
    return rights


def _check(rc: int, what: str) -> int:
    if rc < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock {what}: {os.strerror(err)}")
    return rc


def restrict(read_only: list[str], read_write: list[str]) -> dict[str, str]:
    """Confine this process (and its future children) to ``read_only`` / ``read_write`` paths, no TCP, no
    signals out. Paths that do not exist are skipped. Raises OSError where Landlock is missing or refused.

    Returns what was enforced, for ``isolation_info``: ``{"landlock": "abi 6: fs, tcp, signals", ...}``.
    """
    version = abi()
    if version < 1:
        raise OSError("Landlock is not available on this kernel (Linux >= 5.13 with landlock in its LSMs)")
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    fs = _fs_rights(version)
    attr = _RulesetAttr(fs, 0, 0)
    size = 8
    limits = ["fs"]
    if version >= 4:
        attr.net, size = _NET_BIND_TCP | _NET_CONNECT_TCP, 16
        limits.append("tcp")
    if version >= 6:
        attr.scoped, size = _SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL, 24
        limits.append("signals")
    ruleset = _check(
        libc.syscall(ctypes.c_long(_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)),
        "create_ruleset",
    )
    try:
        for paths, rights in ((read_only, READ), (read_write, fs)):
            for path in paths:
                _allow(libc, ruleset, path, rights)
        _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _check(libc.syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)), "restrict")
    finally:
        os.close(ruleset)
    missing = [name for name, need in (("tcp", 4), ("signals", 6)) if version < need]
    return {
        "landlock": f"abi {version}: " + ", ".join(limits),
        **({"landlock_missing": ", ".join(missing) + " (kernel too old)"} if missing else {}),
    }


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV  # file rights only
        rule = _PathBeneath(rights, fd)
        _check(
            libc.syscall(
                ctypes.c_long(_ADD_RULE),
                ctypes.c_int(ruleset),
                ctypes.c_int(_RULE_PATH_BENEATH),
                ctypes.byref(rule),
                ctypes.c_uint32(0),
            ),
            f"add_rule {path}",
        )
    finally:
        os.close(fd)
