"""benchmarks/learn_policy: DSPy compiles the small policy's per-kind demos from the oracle teacher's traces,
on training questions only; the same seed gives the same demos. No model: BootstrapFewShot needs none."""

from __future__ import annotations

import dspy

from benchmarks.learn_policy import by_kind, compile_kind
from dspy_rlm.profiles.oracle import OracleLM


def _compile(kinds):
    with dspy.context(lm=OracleLM()):
        return {k: compile_kind(v, "bootstrap", 28, 4) for k, v in sorted(kinds.items())}


def test_demos_are_the_oracles_moves_on_training_questions_and_reproducible():
    kinds = by_kind(3, seed=28)
    assert {"lookup", "yes_no", "count"} <= set(kinds)
    assert all(
        ex.qid.startswith(("gen", "limits", "ubuntu", "debian", "pygments", "language", "former", "mpl"))
        for v in kinds.values()
        for ex in v
    )
    demos = _compile(kinds)
    assert sum(len(v) for v in demos.values()) >= 7  # at least one per kind the moves see
    for kind_demos in demos.values():
        for d in kind_demos:
            assert d["code"].startswith(("print(", "SUBMIT(")) and d["variables_info"] and d["reasoning"]
    assert _compile(by_kind(3, seed=28)) == demos
