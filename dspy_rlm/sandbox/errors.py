"""The sandbox's own failures: a worker that died, and no sandbox at all (with the ways out)."""

from __future__ import annotations

from typing import Any


class WorkerDied(RuntimeError):
    """The worker process ended unexpectedly."""


class SandboxUnavailable(WorkerDied):
    """No sandbox level works here and running unsandboxed was not asked for (``isolation="none"``)."""


def unavailable_message(info: dict[str, Any]) -> str:
    """Why no sandbox level works here (``info["notes"]``), and the ways out."""
    why = "; ".join(info.get("notes") or []) or "the kernel refused user namespaces and Landlock"
    return (
        f"no sandbox is available here for the model's code ({why}). Ways out: allow unprivileged user "
        "namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu >= 23.10 "
        "kernel.apparmor_restrict_unprivileged_userns=0; in Docker run with a seccomp profile that allows "
        "unshare), use a kernel with Landlock (Linux >= 5.13), install Deno (pip install deno) so that "
        "RLM falls back to dspy's Deno/Pyodide interpreter, or pass SubprocessREPL(isolation='none') / "
        "RLM(..., repl='unsandboxed') to accept running the model's code with your own rights"
    )
