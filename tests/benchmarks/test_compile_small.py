"""The compile script's smoke run (#10 item 7): the teacher's bootstrapped demos, saved with ``save()``, load
into the small profile, and a re-run writes the same file (seeded)."""

from __future__ import annotations

import json
import re

from benchmarks import compile_small
from dspy_rlm.profiles.small import CODE_PATTERN, load_demos


def test_smoke_compile_saves_loadable_reproducible_demos(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert compile_small.main(["--smoke", "--out", str(first)]) == 0
    assert compile_small.main(["--smoke", "--out", str(second)]) == 0
    assert json.loads(first.read_text()) == json.loads(second.read_text())  # seeded: the same program
    demos = load_demos(str(first))
    assert 1 <= len(demos) <= 2
    for demo in demos:  # teacher steps: a search for the query's key or a SUBMIT of the value it read
        assert re.fullmatch(CODE_PATTERN, demo.code) and demo.code.split("(")[0] in ("print", "SUBMIT")
        assert "- query:" in demo.variables_info and demo.reasoning.startswith(("I will search for", "The "))
