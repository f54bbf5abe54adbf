"""Bad input for the small policy's moves (issue 28): a file whose structure detection fails, a question no move
fits, an empty or binary input, a question in another language. Each run ends typed -- ``Extracted`` with a note
or ``Failed`` with a reason -- never a wrong ``Submitted``, never a crash. The policies here take their own
steps (no LM for them); the extraction at the step limit gets a scripted LM that answers a wrong value."""

from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM

from dspy_rlm import RLM
from dspy_rlm.profiles.scripted import RandomMovePolicy, ScriptedMovePolicy

TABLE = "name,os,cores\n" + "\n".join(f"host-{i},{'Debian' if i % 3 else 'Fedora'},{i * 4}" for i in range(1, 40))
CASES = {
    "no structure": ("x" * 3000 + "\n" + "}{][" * 500, "What is the owner of host-7?"),
    "no move fits": (TABLE, "Why is the sky blue at noon?"),
    "empty input": ("", "What is the os of host-7?"),
    "binary input": (bytes(range(256)).decode("latin-1") * 40, "What is the os of host-7?"),
    "another language": (TABLE, "¿Cuál es el sistema operativo del servidor host-7?"),
}
WRONG = "Windows"


@pytest.mark.parametrize("policy", [ScriptedMovePolicy, lambda: RandomMovePolicy(seed=3)], ids=["scripted", "random"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_ends_typed_and_never_submits_a_wrong_value(case, policy):
    context, question = CASES[case]
    lm = DummyLM([{"answer": WRONG}] * 50)
    with dspy.context(lm=lm):
        pred = RLM("context, question -> answer", policy=policy(), max_iters=3)(context=context, question=question)
    result = pred.rlm_result
    assert result.kind in ("submitted", "extracted", "failed")
    if result.kind == "submitted":  # a Submitted answer must be one the reads support: the right one here
        assert case == "another language" and pred.answer == "Debian", (case, pred.answer)
    elif result.kind == "extracted":
        assert result.confidence is not None and result.confidence <= 0.5
        assert result.reason or result.notes
    else:
        assert result.reason
