"""A held-out benchmark on real files of this machine (issue 19, item 6).

Questions of nine kinds (lookup, multi_word, reverse, later_line, count, most_common, min_max, yes_no, two_hop)
about files the project did not write (netbase tables, tzdata tables, the dpkg database, a Debian changelog and
DEP-5 copyright file, certifi's CA bundle ...), with gold answers computed at run time by the benchmark's own
parsers from the same bytes. Sources are split dev/test up front (``sources.py``).

Run: ``python -m benchmarks.real_files --split dev --out benchmarks/results/real_files_dev.json``.
"""

from benchmarks.real_files.core import KINDS, Fact, Question
from benchmarks.real_files.dataset import build_dataset

__all__ = ["KINDS", "Fact", "Question", "build_dataset"]
