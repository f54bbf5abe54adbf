"""Which sandbox a run gets when it names none: the strongest this machine allows, said once, never none.

In order: our worker process (:class:`~dspy_rlm.sandbox.backend.SubprocessREPL`) where the kernel lets any
user confine a process, with user namespaces (the full level) or else Landlock; dspy's own Deno/Pyodide
interpreter where Deno is installed (what ``dspy.RLM`` users run; our helpers are installed into it); else
:class:`~dspy_rlm.sandbox.backend.SandboxUnavailable`, naming the ways out. Running the model's code
unsandboxed is only ever asked for by name (``repl="unsandboxed"`` or ``SubprocessREPL(isolation="none")``).
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import sys
from dataclasses import dataclass

from dspy_rlm.sandbox.errors import SandboxUnavailable, unavailable_message

logger = logging.getLogger(__name__)

CLONE_NEWUSER = 0x10000000


@dataclass(frozen=True)
class Choice:
    """``backend``: ``"subprocess"`` or ``"deno"``; ``why``: what was found, in words."""

    backend: str
    why: str


def _userns_refused() -> str | None:
    """Why a new user namespace is refused to this user (``None``: allowed); tried in a forked child."""
    from dspy_rlm.sandbox.launch import _fork_once

    libc = ctypes.CDLL(None, use_errno=True)
    pid = _fork_once()
    if pid is None:
        return "user namespaces not probed (fork refused)"
    if pid == 0:  # only a syscall and _exit here: safe in the child of a threaded process
        rc = libc.unshare(CLONE_NEWUSER)
        os._exit(0 if rc == 0 else min(ctypes.get_errno(), 255) or 1)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return None if code == 0 else f"user namespaces refused ({os.strerror(code) if code > 0 else 'killed'})"


@functools.cache
def os_sandbox() -> tuple[bool, str]:
    """Whether our worker process can be confined here, and on what (cached per process). Landlock is asked
    first (one syscall); the namespaces are tried only where it is missing."""
    if not sys.platform.startswith("linux"):
        return False, f"no Linux namespaces or Landlock on {sys.platform}"
    from dspy_rlm.sandbox import landlock

    version = landlock.abi()
    if version >= 1:
        return True, f"Landlock ABI {version}, and user namespaces where allowed"
    refused = _userns_refused()
    if refused is None:
        return True, "user namespaces"
    return False, f"{refused}, and no Landlock on this kernel"


@functools.cache
def choose() -> Choice:
    """The sandbox for runs that name none (our worker says its level once, in its own log line)."""
    ok, why = os_sandbox()
    if ok:
        return Choice("subprocess", why)
    from dspy_rlm.repl.deno import deno_executable

    if deno_executable() is not None:
        logger.warning("dspy-rlm sandbox: %s: the model's code runs in dspy's Deno/Pyodide interpreter", why)
        return Choice("deno", why)
    raise SandboxUnavailable(unavailable_message({"notes": [why, "Deno is not installed"]}))
