"""With the default OutlinesAdapter, a Tier-1 or Tier-2 LM call cut at max_tokens is counted as truncated in that
tier's metrics (DSPy warns "LM response was truncated" for the same call), parsed or not; sync and async alike."""

from __future__ import annotations

import asyncio
import logging

import dspy
import pytest

from dspy_outlines.adapter import OutlinesAdapter
from dspy_outlines.lm import OutlinesLM
from dspy_outlines.local_engine import LocalEngine

from .scripted_engine import ScriptedEngine

SIG = dspy.Signature("question -> answer")
CUT_CHAT = "I think the answer is a long story that goes on and"  # no field markers: Tier 1 cannot parse it
CUT_JSON = '{"answer": "Paris is the capital and'  # json-repair closes it: Tier 2 parses it


def _lm(monkeypatch, answers) -> OutlinesLM:
    engine = ScriptedEngine(answers)
    monkeypatch.setattr(LocalEngine, "load", classmethod(lambda cls, *a, **k: cls(engine)))
    return OutlinesLM(max_tokens=24)


@pytest.mark.parametrize("is_async", [False, True])
def test_cut_tier1_and_tier2_calls_are_counted_as_truncated(monkeypatch, caplog, is_async):
    lm, adapter = _lm(monkeypatch, [(CUT_CHAT, "length"), (CUT_JSON, "length")]), OutlinesAdapter()
    with caplog.at_level(logging.WARNING, logger="dspy.clients.lm"), dspy.context(lm=lm, adapter=adapter):
        predict = dspy.Predict(SIG)
        result = asyncio.run(predict.acall(question="Capital?")) if is_async else predict(question="Capital?")
    assert result.answer.startswith("Paris")
    assert sum("truncated" in record.getMessage() for record in caplog.records) == 2  # DSPy saw both cut
    m = adapter.metrics
    assert (m["tier1"]["failure"], m["tier1"]["truncated"]) == (1, 1)
    assert (m["tier2"]["success"], m["tier2"]["truncated"]) == (1, 1)  # parsed, and still counted as cut
    assert (m["tier1_truncated"], m["tier2_truncated"], m["tier3_truncated"]) == (1, 1, 0)


def test_calls_that_end_are_not_counted(monkeypatch):
    lm, adapter = _lm(monkeypatch, [("[[ ## answer ## ]]\nParis\n\n[[ ## completed ## ]]", "stop")]), OutlinesAdapter()
    with dspy.context(lm=lm, adapter=adapter):
        assert dspy.Predict(SIG)(question="Capital?").answer == "Paris"
    assert adapter.metrics["tier1_truncated"] == 0 and adapter.metrics["tier1_success"] == 1
