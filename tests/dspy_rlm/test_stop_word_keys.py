"""A stop word that is a field's whole value is a key: "How many hosts are down?" counted nothing before, because
"down" (like "up", "off", "no") is an English stop word and no phrase of the question was offered as a key."""

from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM

from dspy_rlm import RLM
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.phrases import may_be_value
from dspy_rlm.profiles.scripted import ScriptedMovePolicy

ROWS = ["host,status,zone"] + [f"web{i},{'down' if i % 3 == 0 else 'up'},eu-{i % 2}" for i in range(1, 31)]
TABLE = "\n".join(ROWS)


def _keys(question: str, output: type = int) -> list[str]:
    return [k.text for k in MoveBook({"question": question}, {"context": TABLE}, {"answer": output}).keys["context"]]


def test_a_stop_word_that_is_a_whole_value_is_a_key():
    assert _keys("How many hosts are down?") == ["down"]
    assert _keys("Count the hosts that are up.") == ["up"]
    assert "down" in _keys("Is web3 down?", bool)


def test_a_stop_word_inside_values_only_or_a_function_word_is_no_key():
    assert _keys("How many hosts are in the list?") == []  # "in": no field's whole value
    text = "name,note\nalpha,is down now\nbeta,fine"
    book = MoveBook({"question": "How many notes are down?"}, {"context": text}, {"answer": int})
    assert [k.text for k in book.keys["context"]] == []  # "down" is only part of a value
    assert not may_be_value("the") and not may_be_value("how") and not may_be_value("many")
    assert may_be_value("off") and may_be_value("down")


def test_the_scripted_policy_counts_the_hosts_that_are_down():
    with dspy.context(lm=DummyLM([{"answer": "0"}] * 10)):
        pred = RLM("context, question -> answer: int", policy=ScriptedMovePolicy(), max_iters=4)(
            context=TABLE, question="How many hosts are down?"
        )
    assert pred.answer == 10 and pred.rlm_result.kind == "submitted"


@pytest.mark.real_model
@pytest.mark.timeout(600)
def test_the_embedded_model_counts_a_stop_word_value_or_does_not_vouch():
    from dspy_outlines import OutlinesLM

    with dspy.context(lm=OutlinesLM(max_tokens=96)):
        pred = RLM("context, question -> answer: int", max_iters=4)(context=TABLE, question="How many hosts are down?")
    codes = [e.code for it in pred.trace.iterations for e in it.code_executions]
    assert any("'down'" in code for code in codes)  # a move on the value was offered and taken
    assert (pred.rlm_result.kind == "submitted" and pred.answer == 10) or pred.rlm_result.confidence < 0.5
