"""Run Python code as another user, the way users run us: a regular uid, uid 65534, with user namespaces refused.

CI runs as root. :func:`run_as` starts ``python -c CODE`` under another uid/gid (no supplementary groups) with
``NO_NEW_PRIVS``, optionally under a seccomp filter that refuses ``unshare`` and namespace-creating ``clone``
with EPERM (what Docker's default profile does; Ubuntu 24.04's AppArmor default refuses the same for
unprivileged users). The child gets a home directory of its own (or none, or a read-only one) and prints one
JSON line last, which :func:`run_as` returns.

Where the interpreter, its packages or this checkout sit under a directory other users cannot enter (``/root``
is 0700 on most machines; CI clones there), the launcher first gives the child a private mount namespace in
which each such directory is a tmpfs holding only binds of what must be reached: nothing of the host changes,
and everything else in those directories stays out of reach.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_LAUNCHER = r"""
import ctypes, errno, json, os, sys
cfg = json.loads(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
def check(rc, what):
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"{what}: {os.strerror(e)}")
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 1 << 18
if cfg["expose"]:
    check(libc.unshare(0x00020000), "unshare(CLONE_NEWNS)")
    check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
    for n, (closed, keep) in enumerate(cfg["expose"]):
        hidden = f"{cfg['stash']}/{n}"
        os.makedirs(hidden, exist_ok=True)
        check(libc.mount(closed.encode(), hidden.encode(), None, MS_BIND | MS_REC, None), "bind " + closed)
        check(libc.mount(b"tmpfs", closed.encode(), b"tmpfs", 0, b"mode=0755"), "tmpfs on " + closed)
        for rel in keep:
            dst = os.path.join(closed, rel)
            src = os.path.join(hidden, rel)
            if os.path.isdir(src):
                os.makedirs(dst, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                open(dst, "a").close()
            check(libc.mount(src.encode(), dst.encode(), None, MS_BIND | MS_REC, None), "bind " + dst)
os.setgroups([])
os.setresgid(cfg["gid"], cfg["gid"], cfg["gid"])
os.setresuid(cfg["uid"], cfg["uid"], cfg["uid"])
libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS: the filter below needs it as a non-root user
if cfg["refuse_userns"]:
    import pyseccomp as sc
    f = sc.SyscallFilter(defaction=sc.ALLOW)
    f.add_rule(sc.ERRNO(errno.EPERM), "unshare")
    f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, 0x10000000, 0x10000000))
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    if cfg["refuse_landlock"]:  # an older kernel, or a container profile without it
        for name in ("landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"):
            f.add_rule(sc.ERRNO(errno.ENOSYS), name)
    f.load()
os.chdir(cfg["cwd"])
os.execve(sys.executable, [sys.executable, "-c", cfg["code"]], cfg["env"])
"""


@dataclass(frozen=True)
class Identity:
    """Who the child runs as."""

    name: str
    uid: int
    gid: int
    refuse_userns: bool = False
    refuse_landlock: bool = False
    home: str = "own"  # "own" (a fresh 0700 home owned by the uid), "missing", "readonly"


REGULAR = Identity("regular uid 1501", 1501, 1501)
NOBODY = Identity("uid 65534 (nobody)", 65534, 65534)
NO_USERNS = Identity("uid 1501, user namespaces refused", 1501, 1501, refuse_userns=True)
NO_SANDBOX = Identity("uid 1501, user namespaces and Landlock refused", 1501, 1501, True, True)
IDENTITIES = (REGULAR, NOBODY, NO_USERNS)


def _others_can_enter(path: Path) -> bool:
    return bool(path.stat().st_mode & stat.S_IXOTH)


def _closed_ancestors(paths: list[Path]) -> list[tuple[str, list[str]]]:
    """Each directory on the way to ``paths`` (or one of them) that others cannot enter, outermost first, with
    what inside it must be reached: the next step on the way, or everything in a closed directory that is
    itself needed (a checkout cloned into ``mktemp -d``, 0700, under ``/root``, 0700)."""
    need: dict[Path, set[str]] = {}
    for path in paths:
        path = path.resolve()
        for parent in [*reversed(path.parents), path]:
            if parent == Path("/") or not parent.is_dir() or _others_can_enter(parent):
                continue
            if parent == path:
                need.setdefault(parent, set()).update(os.listdir(parent))
            else:
                need.setdefault(parent, set()).add(str(path.relative_to(parent)).split(os.sep)[0])
    return [(str(d), sorted(need[d])) for d in sorted(need, key=lambda d: len(d.parts))]


def reachable_paths() -> list[Path]:
    """What the child's interpreter must reach: the interpreter, its prefixes and packages, this checkout."""
    paths = {Path(sys.executable).resolve().parent, Path(sys.prefix), Path(sys.base_prefix), REPO}
    paths |= {Path(p) for p in sys.path if p and Path(p).is_dir()}
    return sorted(paths)


def run_as(who: Identity, code: str, env: dict[str, str] | None = None, timeout: float = 300) -> dict:
    """Run ``code`` as ``who``; returns the JSON object it printed last (raises with its output if none)."""
    base = Path(tempfile.mkdtemp(prefix="identity-", dir=os.environ.get("IDENTITY_BASE")))
    os.chmod(base, 0o755)
    home = base / "home"
    if who.home != "missing":
        home.mkdir(mode=0o700)
        os.chown(home, who.uid, who.gid)
    work = base / "work"
    work.mkdir(mode=0o700)
    os.chown(work, who.uid, who.gid)
    child_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "PYTHONPATH": str(REPO),
        "IDENTITY_WORK": str(work),
        **(env or {}),
    }
    for name in ("VIRTUAL_ENV", "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "DENO_CERT"):
        if os.environ.get(name):  # a user's own environment has its certificate settings too
            child_env.setdefault(name, os.environ[name])
    cfg = {
        "uid": who.uid,
        "gid": who.gid,
        "refuse_userns": who.refuse_userns,
        "refuse_landlock": who.refuse_landlock,
        "expose": _closed_ancestors(reachable_paths()),
        "stash": str(base / "stash"),
        "cwd": str(work),
        "env": child_env,
        "code": code,
    }
    try:
        if who.home == "readonly":
            os.chmod(home, 0o500)
        proc = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, json.dumps(cfg)],
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise AssertionError(
            f"{who.name}: no result (exit {proc.returncode})\n"
            f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"
        )
    result = json.loads(lines[-1])
    result["_stderr"] = proc.stderr
    return result
