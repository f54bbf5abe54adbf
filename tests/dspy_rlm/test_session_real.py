"""Sessions and dspy.History inputs on the embedded model (#30 item 3): two turns in one REPL, both typed,
the second prompt giving the first turn; a conversation shown to the model."""

from __future__ import annotations

import dspy
import pytest

pytestmark = pytest.mark.real_model

TABLE = "\n".join(f"{name} {port}/tcp" for name, port in [("ssh", 22), ("smtp", 25), ("http", 80), ("imap", 143)])


@pytest.fixture(scope="module")
def lm():
    from dspy_outlines import OutlinesLM

    return OutlinesLM(max_tokens=96)


@pytest.mark.timeout(900)
def test_two_turns_share_one_repl_and_the_second_prompt_gives_the_first(lm):
    from dspy_rlm import RLM

    rlm = RLM("context, query -> answer", max_iters=4, max_llm_calls=5)
    with dspy.context(lm=lm), rlm.session(max_iters=8) as s:
        first = s(context=TABLE, query="Which port does ssh use?")
        second = s(context=TABLE, query="Which port does http use?")
        repl = s.repl
    assert first.result.kind in ("submitted", "extracted", "failed")
    assert second.result.kind in ("submitted", "extracted", "failed")
    assert repl is not None and s.repl is None  # one REPL for the session, shut down at its end
    assert s.spent.iterations <= 8 and len(s.turns) == 2
    user = [m["content"] for entry in lm.history[-6:] for m in entry["messages"] if m["role"] == "user"]
    assert any("This is turn 2 of a session" in text and "Which port does ssh use?" in text for text in user)


class Chat(dspy.Signature):
    """Answer the question in the light of the conversation."""

    history: dspy.History = dspy.InputField()
    question: str = dspy.InputField()
    answer: str = dspy.OutputField()


@pytest.mark.timeout(900)
def test_a_history_input_reaches_the_prompt_of_a_real_run(lm):
    from dspy_rlm import RLM

    convo = dspy.History(messages=[{"question": "Which port does smtp use?", "answer": "25"}])
    with dspy.context(lm=lm):
        pred = RLM(Chat, max_iters=3, max_llm_calls=3)(history=convo, question="And which port does imap use?")
    assert pred.result.kind in ("submitted", "extracted", "failed")
    user = [m["content"] for entry in lm.history[-4:] for m in entry["messages"] if m["role"] == "user"]
    assert any("Conversation so far" in text and "Which port does smtp use?" in text for text in user)
