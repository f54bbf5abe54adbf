"""CPU threads for the local engines: the cores this process may use, shared by the engines it loaded.

``os.cpu_count()`` counts the machine's cores, not the ones this process may run on: a container limited
to 1.5 CPUs of a 64-core host, or a process pinned to 2 cores, still sees 64. llama.cpp's worker threads
spin while they wait for each other, so more threads than cores (or two engines of one process each
taking every core) makes every step many times slower instead of a little. :func:`usable_cpus` reads
what the scheduler really grants (``os.sched_getaffinity``, the cgroup CPU quota), and
:func:`auto_threads` splits half of it between the local engines loaded in this process: an engine built
without ``n_threads`` registers here and is given its share, and the engines loaded before it give
theirs back (:class:`ThreadUser`). An explicit ``n_threads`` (``engine_options``) is never changed.

The prompt's prefill is one large batch of matrix products, compute-bound: on an idle machine it runs on
every usable core (:func:`batch_threads`, split between the engines), where generation, one token at a
time and barrier-bound, keeps to half of them. But a prefill thread that must share its core stalls all
the others at every barrier: on this 2-core machine with two other jobs running, a 900-token prefill took
28 s on 2 threads against 8 s on 1, and three model processes at once went from 3.2 s to 16.6 s a step
(``benchmarks/threads.py``). So the extra prefill threads are taken only on cores that are free at that
moment (:func:`prefill_threads`, :func:`free_cpus`: the machine's busy CPU time since the last prefill, less
this process's own), split between the engines of this process computing at that moment, not those only
loaded (:func:`computing_share`).
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple, Protocol

__all__ = [
    "CGROUP_ROOT",
    "ThreadUser",
    "Threads",
    "auto_threads",
    "batch_threads",
    "cgroup_cpu_quota",
    "computing",
    "computing_share",
    "free_cpus",
    "prefill_threads",
    "register",
    "usable_cpus",
]

CGROUP_ROOT = Path("/sys/fs/cgroup")

_lock = threading.Lock()
_users: weakref.WeakSet[ThreadUser] = weakref.WeakSet()


class ThreadUser(Protocol):
    """A local engine that computes on CPU threads."""

    auto_threads: bool
    """Whether its thread count is picked here (``False``: the user set ``n_threads``)."""

    def set_threads(self, n_threads: int, n_threads_batch: int | None = None) -> None:
        """Generate on ``n_threads`` threads and prefill on ``n_threads_batch`` (``None``: ``n_threads``) from now
        on."""
        ...


class Threads(NamedTuple):
    """An engine's share: ``n_threads`` for generation, ``n_threads_batch`` for the prompt's prefill."""

    n_threads: int
    n_threads_batch: int


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


def batch_threads(engines: int = 1) -> int:
    """Prefill threads for one of ``engines`` local engines: every usable core, split between the engines.

    Measured with llama-cpp-python on a 2-core machine, 1,000 prompt tokens of SmolLM2-135M: 4.42 s on one
    batch thread, 2.46 s on two; generation speed the same either way (issue 31). Three such processes at
    once: ``benchmarks/threads.py``.
    """
    return max(1, usable_cpus() // max(1, engines))


class _OthersBusy:
    """How many cores the other processes kept busy since the last look: the machine's busy CPU seconds
    (``/proc/stat``) less this process's own (``time.process_time``, every thread), per wall second. A look
    within 0.2 s of the one before gives the same figure. Where ``/proc/stat`` is missing (macOS) the 1-minute
    load average less this process's own CPU share stands in."""

    def __init__(self, stat: Path = Path("/proc/stat")) -> None:
        self.stat = stat
        self.last = self._sample()
        self.figure = 0.0

    def _sample(self) -> tuple[float, float | None, float]:
        busy = None
        try:
            ticks = [int(v) for v in self.stat.read_text().split("\n", 1)[0].split()[1:9]]
            busy = (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # less idle and iowait
        except (OSError, ValueError, IndexError, AttributeError):
            pass
        return time.monotonic(), busy, time.process_time()

    def __call__(self) -> float:
        now = self._sample()
        wall = now[0] - self.last[0]
        if wall < 0.2:
            return self.figure
        own = (now[2] - self.last[2]) / wall
        if now[1] is not None and self.last[1] is not None:
            self.figure = max(0.0, (now[1] - self.last[1]) / wall - own)
        else:
            try:
                self.figure = max(0.0, os.getloadavg()[0] - own)
            except (AttributeError, OSError):
                self.figure = float(usable_cpus())  # nothing to tell: assume busy, keep the extra threads off
        self.last = now
        return self.figure


_others_busy = _OthersBusy()


def free_cpus() -> float:
    """Usable cores that the other processes left free since this process last looked (the engine looks
    before each prefill; the first look covers the model's load). An instant count of runnable tasks misses a
    job between its bursts, and the load average lags a minute behind: both misjudged the machine here."""
    return max(0.0, usable_cpus() - _others_busy())


def prefill_threads(n_threads: int, n_threads_batch: int) -> int:
    """Threads for the prefill about to start: ``n_threads`` plus the free cores, at most ``n_threads_batch``
    (an engine's :func:`batch_threads` share)."""
    return max(n_threads, min(n_threads_batch, n_threads + int(free_cpus())))


_computing = 0  # engines of this process inside a call now (computing())


@contextlib.contextmanager
def computing() -> Iterator[None]:
    """Count an engine's call among those of this process computing now (:func:`computing_share`)."""
    global _computing
    with _lock:
        _computing += 1
    try:
        yield
    finally:
        with _lock:
            _computing -= 1


def computing_share() -> int:
    """Prefill threads for an engine computing now: every usable core, split between the engines of this process
    that are computing at this moment. An engine only loaded takes none: a process holding several (a main and
    a sub-LM, a test session's fixtures) prefilled on one thread each while the others idled."""
    return batch_threads(max(1, _computing))


def register(user: ThreadUser) -> Threads:
    """Count ``user`` among the local engines of this process; returns its share (:class:`Threads`).

    Engines registered earlier that pick their threads here get their new, smaller share at once.
    """
    with _lock:
        _users.add(user)
        share = Threads(auto_threads(len(_users)), batch_threads(len(_users)))
        others = [u for u in _users if u is not user and u.auto_threads]
    for other in others:
        other.set_threads(*share)
    return share
