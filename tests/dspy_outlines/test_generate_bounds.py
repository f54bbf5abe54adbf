"""OutlinesLM.generate never returns a cut value: a list is bounded as Tier 3 bounds one, and a constrained value
cut at max_tokens (or the deadline) is a TruncatedOutputError with its advice. On a scripted engine and on the
embedded model."""

from __future__ import annotations

import json
from typing import Literal

import pytest

from dspy_outlines.constraints import TruncatedOutputError
from dspy_outlines.lm import OutlinesLM
from dspy_outlines.local_engine import LocalEngine

from .scripted_engine import ScriptedEngine


def _lm(monkeypatch, answers, **kwargs) -> tuple[OutlinesLM, ScriptedEngine]:
    engine = ScriptedEngine(answers)
    monkeypatch.setattr(LocalEngine, "load", classmethod(lambda cls, *a, **k: cls(engine)))
    return OutlinesLM(**kwargs), engine


def test_a_list_goes_to_the_engine_bounded_as_tier3_bounds_it(monkeypatch):
    from outlines.types import JsonSchema

    lm, engine = _lm(monkeypatch, [('["blue", "red"]', "stop")], max_tokens=24)
    assert lm.generate("List three colors.", list[str]) == '["blue", "red"]'
    (request,) = engine.requests
    assert isinstance(request.constraint, JsonSchema)
    schema = json.loads(request.constraint.schema)
    assert schema["maxItems"] == 2 and schema["items"]["maxLength"] == 6  # the bounds' split of 24 tokens


def test_a_cut_value_is_an_error_with_advice_never_a_result(monkeypatch):
    lm, _ = _lm(monkeypatch, [('["blue", "red", "re', "length")], max_tokens=24)
    with pytest.raises(TruncatedOutputError, match=r"cut at max_tokens=24 before its value closed; .*raise max_tokens"):
        lm.generate("List three colors.", list[str])


def test_a_list_that_cannot_close_in_the_budget_says_the_budget_it_needs(monkeypatch):
    lm, _ = _lm(monkeypatch, [("[", "length")])
    with pytest.raises(TruncatedOutputError, match=r"needs max_tokens >= \d+"):
        lm.generate("List colors.", list[str], max_tokens=3)


def test_the_deadline_cut_says_raise_the_time_budget(monkeypatch):
    lm, _ = _lm(monkeypatch, [("pos", "deadline")])
    with pytest.raises(TruncatedOutputError, match=r"the deadline.*raise the time budget"):
        lm.generate("Review?", Literal["positive", "negative"])


def test_free_text_cut_at_max_tokens_is_returned_and_other_types_go_as_given(monkeypatch):
    lm, engine = _lm(monkeypatch, [("Hello the", "length"), ("positive", "stop")], max_tokens=2)
    assert lm.generate("Say hello.") == "Hello the"  # no constraint: no value to close
    assert lm.generate("Review?", Literal["positive", "negative"]) == "positive"
    assert engine.requests[0].constraint is None
    assert engine.requests[1].constraint == Literal["positive", "negative"]


@pytest.mark.real_model
def test_the_embedded_model_lists_three_colors_closed_or_raises(llamacpp_lm):
    lm = llamacpp_lm.copy(max_tokens=24)
    try:
        text = lm.generate("List three colors.", list[str])
    except TruncatedOutputError as error:
        assert "raise max_tokens" in str(error)
    else:
        values = json.loads(text)  # a closed JSON list, never '["blue", "red", ..., "red-blue",'
        assert isinstance(values, list) and 1 <= len(values) <= 2 and all(len(v) <= 6 for v in values)


@pytest.mark.real_model
def test_the_embedded_model_closes_an_integer(llamacpp_lm):
    """The number regex allows 19 digits at most, so the model's run of digits ends in a value, never a cut."""
    lm = llamacpp_lm.copy(max_tokens=64)
    text = lm.generate("How many hosts are down? web1 up, web2 down, db1 down. Answer with a number.", int)
    assert text.lstrip("+-").isdigit() and len(text.lstrip("+-")) <= 19
