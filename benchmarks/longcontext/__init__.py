"""Long-context suites (S-NIAH, OOLONG-style aggregation, OOLONG-Pairs) generated offline by code.

Run ``python -m benchmarks.longcontext --suite all --sizes 8192 --lm oracle --out results/`` to compare
the RLM with the same LM called directly; see :mod:`benchmarks.longcontext.harness`.
"""

from __future__ import annotations

from benchmarks.longcontext.suites import SUITES, generate_suite

__all__ = ["SUITES", "generate_suite"]
