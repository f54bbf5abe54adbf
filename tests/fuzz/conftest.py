"""Hypothesis profiles for the fuzz suite, and a count of the examples each target ran.

Profiles (pick one with ``HYPOTHESIS_PROFILE``; ``ci`` is the default under ``CI=true``, ``dev`` otherwise):

- ``ci``: derandomized (the same examples on every run, so CI is deterministic), no example database,
  ``max_examples`` 200 for pure parsers (heavier targets ask for fewer through :func:`examples`).
- ``dev``: random examples, the local database remembers failures; the same counts.
- ``deep``: 10x the examples, for a long local session (``HYPOTHESIS_PROFILE=deep pytest tests/fuzz``).

Every fuzz test calls :func:`count` once per example. The counts are printed at the end of the session and,
when ``FUZZ_STATS=path.json`` is set, written there (``benchmarks/load.py`` reads them into its report).
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter

from hypothesis import HealthCheck, settings

_BASE = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
settings.register_profile("ci", max_examples=200, derandomize=True, database=None, print_blob=True, **_BASE)
settings.register_profile("dev", max_examples=200, **_BASE)
settings.register_profile("deep", max_examples=2000, **_BASE)
_PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI", "").lower() == "true" else "dev")
settings.load_profile(_PROFILE)

_COUNTS: Counter[str] = Counter()
_LOCK = threading.Lock()


def examples(n: int) -> int:
    """``n`` examples for a heavy target, scaled like the profile (``deep`` runs 10x)."""
    return n * settings.default.max_examples // 200


def count(target: str) -> None:
    """Record one example run against ``target`` (a name like ``protocol.parse_response``)."""
    with _LOCK:
        _COUNTS[target] += 1


def pytest_terminal_summary(terminalreporter):
    if not _COUNTS:
        return
    terminalreporter.write_sep("-", f"fuzz examples run (hypothesis profile {_PROFILE})")
    for target, n in sorted(_COUNTS.items()):
        terminalreporter.write_line(f"{target}: {n}")
    path = os.environ.get("FUZZ_STATS")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"profile": _PROFILE, "examples": dict(sorted(_COUNTS.items()))}, f, indent=2)
