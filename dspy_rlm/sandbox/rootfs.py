"""The sandbox worker's file system: a minimal root built in its mount namespace.

:func:`plan_root` runs once per process that forks workers (the zygote; computed on first use and reused),
and lists what the worker needs to see: the interpreter's prefix, the site-packages directories on
``sys.path``, the top-level packages the zygote imported from anywhere else (``dspy_rlm`` itself, wherever
it is installed), ``/usr`` (system libraries and the commands a ``subprocess`` may run),
``/etc/ld.so.cache`` and ``/etc/localtime``, plus any shared library mapped from elsewhere.

:func:`build_root` runs in the namespace's init, before the model's code: a fresh tmpfs root holding
read-only binds of the plan and of the user's ``mounts``, a size-capped private ``/tmp`` (the working
directory is ``/tmp/scratch``), a fresh ``/proc``, a ``/dev`` with ``null``, ``zero``, ``random`` and
``urandom`` only, and a private ``/dev/shm``; then ``pivot_root`` into it and the host's root is detached.
There is no home directory (``HOME`` is the scratch directory), no project directory, no ``/etc`` beyond
the two files, no ``/root``, no ``/run``.
It follows bubblewrap's sequence (pivot into a staging tmpfs, bind from ``/oldroot``, pivot again) without
its ``exec``.

:func:`readonly_host` is the fallback where ``pivot_root`` is refused: the host's root read-only, secret
paths in the home directory masked by name, a private ``/tmp`` and ``/proc``.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import sys
from dataclasses import dataclass

_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 0x4000, 1 << 18
_MNT_DETACH = 2
_MOUNT_ATTR_RDONLY, _AT_RECURSIVE, _AT_FDCWD, _SYS_MOUNT_SETATTR = 1, 0x8000, -100, 442
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
_STAGE = "/tmp"  # the staging tmpfs is mounted here, in our mount namespace only
DEVICES = ("null", "zero", "random", "urandom")
# Secrets commonly kept in the home directory: masked (empty, read-only) by the fallback.
SECRET_HOME_PATHS = (
    ".ssh",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".gnupg",
    ".config/gcloud",
    ".config/gh",
    ".config/dspy-rlm",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
)
_FORBIDDEN_TARGETS = ("/", "/proc", "/dev", "/tmp", "/tmp/scratch")


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


@dataclass(frozen=True)
class RootPlan:
    """What the minimal root holds: read-only binds (host path, path inside) and symlinks (path, target)."""

    binds: tuple[tuple[str, str], ...]
    symlinks: tuple[tuple[str, str], ...]


def parse_mounts(mounts: dict[str, str] | None) -> dict[str, tuple[str, bool]]:
    """Check ``SubprocessREPL(mounts=...)``: ``{host path: path inside}``, read-only unless the inside path
    ends with ``":rw"``. Returns ``{path inside: (absolute host path, writable)}``; raises with the fix."""
    if mounts is None:
        return {}
    if not isinstance(mounts, dict):
        raise TypeError(
            f"mounts must be a dict {{host path: path inside}}, e.g. {{'/data/corpus': '/data'}}, "
            f"not {type(mounts).__name__}"
        )
    out: dict[str, tuple[str, bool]] = {}
    for host, inside in mounts.items():
        if not isinstance(host, (str, os.PathLike)) or not isinstance(inside, str):
            raise TypeError(
                f"mounts maps host paths to str paths inside, e.g. {{'/data/corpus': '/data'}}; "
                f"got {host!r}: {inside!r}"
            )
        writable = inside.endswith(":rw")
        inside = inside.removesuffix(":rw").removesuffix(":ro")
        src = os.path.realpath(os.path.expanduser(os.fspath(host)))
        if not os.path.exists(src):
            raise ValueError(f"mounts: the host path {os.fspath(host)!r} does not exist")
        if not os.access(src, os.R_OK | (os.X_OK if os.path.isdir(src) else 0)):
            raise ValueError(
                f"mounts: you cannot read the host path {os.fspath(host)!r} (uid {os.getuid()}): the sandbox "
                "shows only what you may read; fix its permissions or mount another path"
            )
        norm = os.path.normpath(inside)
        if not inside.startswith("/") or norm in _FORBIDDEN_TARGETS or norm.startswith(("/proc/", "/dev/")):
            raise ValueError(
                f"mounts: the path inside must be absolute and not one of {', '.join(_FORBIDDEN_TARGETS)} "
                f"or under /proc or /dev; got {inside!r} (e.g. '/data', or '/data:rw' for a writable mount)"
            )
        if norm in out:
            raise ValueError(f"mounts: two host paths are mounted at {norm!r}")
        out[norm] = (src, writable)
    return out


def _under(path: str, roots: set[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _module_roots(covered: set[str]) -> set[str]:
    """Top-level packages imported from outside ``covered`` (an editable install, a ``PYTHONPATH`` entry)."""
    found: set[str] = set()
    for name, mod in list(sys.modules.items()):
        top = sys.modules.get(name.partition(".")[0], mod)
        paths = list(getattr(top, "__path__", None) or [])
        file = getattr(top, "__file__", None)
        for path in paths or ([file] if file else []):
            if isinstance(path, str) and os.path.isabs(path) and os.path.exists(path):
                real = os.path.realpath(path)
                if not _under(real, covered):
                    found.add(real)
    return found


def _mapped_libraries(covered: set[str]) -> set[str]:
    """Shared objects this process has mapped from outside ``covered`` (e.g. a library under /opt)."""
    found: set[str] = set()
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                path = line.split(None, 5)[-1].strip() if line.count(" ") >= 5 else ""
                if path.startswith("/") and not path.endswith(")") and os.path.isfile(path):
                    real = os.path.realpath(path)
                    if not _under(real, covered):
                        found.add(real)
    except OSError:
        pass
    return found


@functools.lru_cache(maxsize=1)
def plan_root() -> RootPlan:
    """What the worker needs to see (computed once in the process that forks workers)."""
    roots: set[str] = set()
    for path in ("/usr", "/etc/ld.so.cache", "/etc/localtime", sys.prefix, sys.base_prefix, sys.exec_prefix):
        if os.path.exists(path):
            roots.add(os.path.realpath(path))
    for entry in sys.path:
        real = os.path.realpath(entry) if entry else ""
        if real and os.path.isdir(real) and os.path.basename(real) in ("site-packages", "dist-packages"):
            roots.add(real)
    roots |= _module_roots(roots)
    roots |= _mapped_libraries(roots)
    symlinks = []
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = "/" + name
        if os.path.islink(path):
            symlinks.append((path, os.readlink(path)))
        elif os.path.isdir(path):
            roots.add(path)
    kept = sorted(r for r in roots if not any(r != o and _under(r, {o}) for o in roots))  # outermost only
    return RootPlan(binds=tuple((r, r) for r in kept), symlinks=tuple(symlinks))


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(libc: ctypes.CDLL, src: str | None, dst: str, fstype: str | None, flags: int, data: str = "") -> None:
    enc = lambda s: s.encode() if s is not None else None  # noqa: E731
    _check(libc.mount(enc(src), enc(dst), enc(fstype), flags, enc(data or None)), f"mount {dst}")


def _readonly(libc: ctypes.CDLL, path: str, recursive: bool = True) -> None:
    attr = _MountAttr(attr_set=_MOUNT_ATTR_RDONLY)
    flags = _AT_RECURSIVE if recursive else 0
    if libc.syscall(_SYS_MOUNT_SETATTR, _AT_FDCWD, path.encode(), flags, ctypes.byref(attr), ctypes.sizeof(attr)):
        # Kernels before 5.12: a remount keeping the flags the kernel locked (nosuid, nodev, noexec).
        st = os.statvfs(path)
        keep = st.f_flag & (_MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
        _mount(libc, None, path, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | keep)


def _pivot(libc: ctypes.CDLL, new_root: str, put_old: str) -> None:
    number = _SYS_PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise OSError(38, f"pivot_root: unknown syscall number on {platform.machine()}")
    _check(libc.syscall(number, new_root.encode(), put_old.encode()), "pivot_root")


def _make_target(path: str, like: str) -> None:
    if os.path.isdir(like):
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.exists(path):
            open(path, "w").close()


def build_root(
    libc: ctypes.CDLL,
    plan: RootPlan,
    mounts: dict[str, tuple[str, bool]],
    scratch_mb: int,
    scratch_owner: int | None,
) -> list[str]:
    """Build the minimal root and ``pivot_root`` into it (in the namespace's init). Raises OSError if the
    kernel refuses a step; the caller falls back to :func:`readonly_host`. Returns notes for ``repr``."""
    notes: list[str] = []
    _mount(libc, "none", "/", None, _MS_REC | _MS_PRIVATE)
    _mount(libc, "tmpfs", _STAGE, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=1m,mode=0755")
    os.chdir(_STAGE)
    os.mkdir("newroot")
    os.mkdir("oldroot")
    _mount(libc, "newroot", "newroot", None, _MS_BIND | _MS_REC)
    _pivot(libc, ".", "oldroot")
    os.chdir("/")
    new = "/newroot"
    for src, dst in plan.binds:
        _make_target(new + dst, "/oldroot" + src)
        _mount(libc, "/oldroot" + src, new + dst, None, _MS_BIND | _MS_REC)
    for link, target in plan.symlinks:
        os.makedirs(os.path.dirname(new + link), exist_ok=True)
        os.symlink(target, new + link)
    writable = []
    for dst, (src, rw) in sorted(mounts.items()):
        _make_target(new + dst, "/oldroot" + src)
        _mount(libc, "/oldroot" + src, new + dst, None, _MS_BIND | _MS_REC)
        if rw:
            writable.append(dst)
    for name in DEVICES:
        _make_target(f"{new}/dev/{name}", "/oldroot/dev/null")
        _mount(libc, f"/oldroot/dev/{name}", f"{new}/dev/{name}", None, _MS_BIND)
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        os.symlink(target, f"{new}/dev/{name}")
    for path in ("/dev/shm", "/tmp", "/proc"):
        os.makedirs(new + path, exist_ok=True)
    # Read-only all at once (the root and every bind under it), then the writable places on top.
    _readonly(libc, new)
    for dst in writable:
        _mount(libc, "/oldroot" + mounts[dst][0], new + dst, None, _MS_BIND | _MS_REC)
    _mount(libc, "tmpfs", new + "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, f"size={scratch_mb}m,mode=1777")
    os.mkdir(new + "/tmp/scratch")
    if scratch_owner is not None:
        os.chown(new + "/tmp/scratch", scratch_owner, scratch_owner)
    _mount(libc, "tmpfs", new + "/dev/shm", "tmpfs", _MS_NOSUID | _MS_NODEV, "size=64m,mode=1777")
    # /proc before the host's root goes: the kernel mounts a proc only where one is already fully visible.
    _mount(libc, "proc", new + "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
    os.chdir(new)
    _pivot(libc, ".", ".")
    # One lazy unmount takes the staging root and the host's root below it: each umount waits ~6 ms for
    # the kernel (measured under load), so the host's root is not unmounted on its own first.
    _check(libc.umount2(b".", _MNT_DETACH), "detach the staging root and the host's root")
    os.chdir("/")
    return notes


def readonly_host(libc: ctypes.CDLL, scratch_mb: int) -> list[str]:
    """Fallback without ``pivot_root``: the host's root read-only, secrets masked by name, private /tmp, /proc."""
    notes = []
    _mount(libc, "none", "/", None, _MS_REC | _MS_PRIVATE)
    try:
        _readonly(libc, "/")
    except OSError as exc:
        notes.append(f"root file system left writable ({exc})")
    _mount(libc, "tmpfs", "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, f"size={scratch_mb}m,mode=1777")
    os.mkdir("/tmp/scratch")
    if os.path.isdir("/dev/shm"):
        libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", _MS_NOSUID | _MS_NODEV, b"size=64m,mode=1777")
    if libc.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None) != 0:
        notes.append(f"host /proc still visible ({os.strerror(ctypes.get_errno())})")
    home = os.path.expanduser("~")
    for rel in SECRET_HOME_PATHS:
        path = os.path.join(home, rel)
        if os.path.isdir(path):
            libc.mount(b"tmpfs", path.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, b"size=4k,mode=0500")
        elif os.path.exists(path):
            libc.mount(b"/dev/null", path.encode(), None, _MS_BIND, None)
    return notes
