"""The extract step runs through dspy_outlines' OutlinesAdapter (issue 3, item 5).

Scripted LMs prove the routing and that one adapter per RLM keeps its metrics across runs; the embedded
SmolLM2-135M proves the point of it: a run that hits its limit still ends with schema-valid outputs, and
an ``OutlinesAdapter`` on the action step gives a parseable action.
"""

from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM

from dspy_outlines import OutlinesAdapter
from dspy_rlm import RLM, Extracted, Failed
from dspy_rlm.repl.inprocess import InProcessREPL

from .scripted import act
from .scripted_lm import ScriptedLM, action

TYPED = "context -> count: int, label: Literal['a', 'b']"


def test_auto_extract_adapter_is_one_outlines_adapter_per_rlm():
    rlm = RLM("context -> answer", max_iters=1, interpreter_factory=InProcessREPL)
    assert getattr(rlm, "extract_adapter_instance", None) is None  # created at the first extraction
    lm = DummyLM([act("x = 41 + 1"), {"answer": "42"}, act("y = 1"), {"answer": "43"}])
    with dspy.context(lm=lm):
        first = rlm(context="c")
        adapter = rlm.extract_adapter_instance
        second = rlm(context="c")
    assert isinstance(first.result, Extracted) and first.answer == "42" and second.answer == "43"
    assert isinstance(adapter, OutlinesAdapter) and rlm.extract_adapter_instance is adapter
    metrics = adapter.metrics
    assert metrics["tier1"]["success"] == 2  # both runs' extractions, on the same adapter
    assert metrics["tier1"]["failure"] == metrics["tier2"]["success"] == metrics["tier3"]["success"] == 0


def test_extract_falls_back_to_json_tier_for_typed_outputs():
    def respond(call):
        if call.role == "action":
            return action("n = 3")
        # Tier 1 (ChatAdapter markers) gets prose it cannot parse; Tier 2 (JSON prompt) gets JSON.
        return '{"count": 3, "label": "b"}' if "JSON" in call.system + call.user else "It is three, label b."

    rlm = RLM(TYPED, max_iters=1, interpreter_factory=InProcessREPL)
    with dspy.context(lm=ScriptedLM(respond)):
        pred = rlm(context="c")
    assert isinstance(pred.result, Extracted)
    assert pred.count == 3 and pred.label == "b"
    metrics = rlm.extract_adapter_instance.metrics
    assert (metrics["tier1_failures"], metrics["tier2_success"]) == (1, 1)


def test_explicit_or_none_extract_adapter_is_not_replaced():
    mine = OutlinesAdapter()
    lm = DummyLM([act("x = 1"), {"answer": "a"}, act("x = 1"), {"answer": "b"}])
    with dspy.context(lm=lm):
        RLM("context -> answer", max_iters=1, extract_adapter=mine)(context="c")
        plain = RLM("context -> answer", max_iters=1, extract_adapter=None)
        plain(context="c")
    assert mine.metrics["tier1_success"] == 1
    assert getattr(plain, "extract_adapter_instance", None) is None


# -- the embedded model -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_lm():
    """The embedded SmolLM2-135M with a small completion budget (every call prefills a long prompt)."""
    try:
        from dspy_outlines import OutlinesLM

        return OutlinesLM(max_tokens=40)
    except (ImportError, FileNotFoundError) as exc:
        pytest.skip(f"embedded model unavailable: {exc}")


@pytest.mark.real_model
def test_real_model_run_at_its_limit_extracts_schema_valid_outputs(small_lm):
    # One action call (no DSPy JSON retry of an unparsable action: ~1,400 prompt tokens saved), then the
    # extraction through the auto OutlinesAdapter, whose tiers end in constrained generation.
    no_retry = dspy.ChatAdapter(use_json_adapter_fallback=False)
    rlm = RLM(TYPED, max_iters=1, action_adapter=no_retry, interpreter_factory=InProcessREPL)
    with dspy.context(lm=small_lm):
        pred = rlm(context="There are 3 items. The most common label is a.")
    assert isinstance(pred.result, Extracted), pred.result
    assert (pred.count, pred.label) == (3, "a")  # read from the context the history shows
    assert set(pred.result.outputs) == {"count", "label"}
    metrics = rlm.extract_adapter_instance.metrics
    assert sum(metrics[f"{tier}_success"] for tier in ("tier1", "tier2", "tier3")) == 1


@pytest.mark.real_model
def test_real_model_action_step_through_outlines_adapter_parses(small_lm):
    adapter = OutlinesAdapter()
    # The extraction goes straight to Tier 3 here (the auto ladder is the test above): fewer long prefills.
    rlm = RLM(
        TYPED,
        max_iters=1,
        action_adapter=adapter,
        extract_adapter=OutlinesAdapter(tiers=("tier3",)),
        interpreter_factory=InProcessREPL,
    )
    with dspy.context(lm=small_lm):
        pred = rlm(context="There are 3 items. The most common label is a.")
    assert not isinstance(pred.result, Failed), pred.result
    assert (pred.count, pred.label) == (3, "a")
    metrics = adapter.metrics
    if sum(metrics[f"{tier}_success"] for tier in ("tier1", "tier2", "tier3")) == 1:
        assert pred.trajectory[0]["code"].strip()  # the action parsed: it carried code
    else:  # 40 tokens cannot hold this model's action: a reported truncation, never a repaired action
        assert metrics["tier3_truncated"] == 1, metrics
        assert "truncated at max_tokens" in pred.trajectory[0]["output"]
        assert pred.trajectory[0]["code"] == ""


@pytest.mark.real_model
def test_real_model_extraction_is_one_lm_call():
    """Issue 11: the embedded model's extraction takes 1 LM call (Tier 3 at once), not 3 (every tier)."""
    try:
        from dspy_outlines import OutlinesLM

        extract_lm = OutlinesLM(engine="mlx", max_tokens=24)
    except (ImportError, FileNotFoundError) as exc:
        pytest.skip(f"embedded model unavailable: {exc}")
    rlm = RLM(TYPED, max_iters=1, interpreter_factory=InProcessREPL)
    rlm.extract.lm = extract_lm  # the action step is scripted; the extraction is the real model
    with dspy.context(lm=ScriptedLM(lambda call: action("n = 3\nlabel = 'b'"))):
        pred = rlm(context="Items: b, b, a. Count them.")
    assert isinstance(pred.result, Extracted), pred.result
    assert type(pred.count) is int and pred.label in ("a", "b")
    assert len(extract_lm.history) == 1  # one LM call for the whole extraction
    assert "dspy_outlines" in extract_lm.history[0]["request"].config.extensions  # the constraint, in the request
    metrics = rlm.extract_adapter_instance.metrics
    assert (metrics["tier1_skipped"], metrics["tier2_skipped"], metrics["tier3_success"]) == (1, 1, 1)
