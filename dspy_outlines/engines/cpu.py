"""CPU threads for the local engines: the cores this process may use, shared by the engines it loaded.

``os.cpu_count()`` counts the machine's cores, not the ones this process may run on: a container limited
to 1.5 CPUs of a 64-core host, or a process pinned to 2 cores, still sees 64. llama.cpp's worker threads
spin while they wait for each other, so more threads than cores (or two engines of one process each
taking every core) makes every step many times slower instead of a little. :func:`usable_cpus` reads
what the scheduler really grants (``os.sched_getaffinity``, the cgroup CPU quota), and
:func:`auto_threads` splits half of it between the local engines loaded in this process: an engine built
without ``n_threads`` registers here and is given its share, and the engines loaded before it give
theirs back (:class:`ThreadUser`). An explicit ``n_threads`` (``engine_options``) is never changed.
"""

from __future__ import annotations

import math
import os
import threading
import weakref
from pathlib import Path
from typing import Protocol

__all__ = ["CGROUP_ROOT", "ThreadUser", "auto_threads", "cgroup_cpu_quota", "register", "usable_cpus"]

CGROUP_ROOT = Path("/sys/fs/cgroup")

_lock = threading.Lock()
_users: weakref.WeakSet[ThreadUser] = weakref.WeakSet()


class ThreadUser(Protocol):
    """A local engine that computes on CPU threads."""

    auto_threads: bool
    """Whether its thread count is picked here (``False``: the user set ``n_threads``)."""

    def set_threads(self, n_threads: int) -> None:
        """Compute on ``n_threads`` threads from now on."""
        ...


def cgroup_cpu_quota(root: Path = CGROUP_ROOT) -> float | None:
    """The cgroup's CPU quota in cores (``1.5`` for ``cpu.max = 150000 100000``), or ``None`` for none.

    Reads cgroup v2 (``cpu.max``) or v1 (``cpu/cpu.cfs_quota_us`` over ``cpu.cfs_period_us``).
    """
    for quota_file, period_file in ((root / "cpu.max", None), (root / "cpu" / "cpu.cfs_quota_us", "cpu.cfs_period_us")):
        try:
            if period_file is None:
                quota, period = quota_file.read_text().split()[:2]
            else:
                quota, period = quota_file.read_text().strip(), (quota_file.parent / period_file).read_text().strip()
            if quota in ("max", "-1"):
                return None
            cores = int(quota) / int(period)
        except (OSError, ValueError):
            continue
        if cores > 0:
            return cores
    return None


def usable_cpus(root: Path = CGROUP_ROOT) -> int:
    """Cores this process may use: its CPU affinity, capped by the cgroup quota (rounded up), at least 1."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS, Windows: no affinity API
        cpus = os.cpu_count() or 1
    quota = cgroup_cpu_quota(root)
    if quota is not None:
        cpus = min(cpus, math.ceil(quota))
    return max(1, cpus)


def auto_threads(engines: int = 1) -> int:
    """Threads for one of ``engines`` local engines sharing this process's cores: at least 1.

    Half the usable cores (llama-cpp-python's own default halves ``os.cpu_count()``: hyperthreads add little
    to its matrix products), split between the engines. The spare half is what keeps llama.cpp fast on a
    machine something else also uses: its threads spin at every barrier, and one descheduled thread stalls
    the others for a whole time slice. Measured on a 2-core machine at load ~3 (other jobs), a 300-token
    prompt: 1.5-2.4 s with 1 thread, 7.3-10.9 s with 2 (``benchmarks/threads.py`` for the process counts).
    """
    return max(1, usable_cpus() // 2 // max(1, engines))


def register(user: ThreadUser) -> int:
    """Count ``user`` among the local engines of this process; returns its thread count.

    Engines registered earlier that pick their threads here get their new, smaller share at once.
    """
    with _lock:
        _users.add(user)
        share = auto_threads(len(_users))
        others = [u for u in _users if u is not user and u.auto_threads]
    for other in others:
        other.set_threads(share)
    return share
