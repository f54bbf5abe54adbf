"""OutlinesAdapter tier routing, metrics and ChatAdapter parity, with scripted LMs.

Tier 3 against the real embedded model lives at the end (``real_model``).
"""

from __future__ import annotations

import asyncio
import copy
import json
import threading
from typing import Annotated, Any, Literal

import dspy
import pydantic
import pytest
from dspy.utils.exceptions import AdapterParseError, ContextWindowExceededError
from outlines.types import Regex

from dspy_outlines.adapter import ConstrainedGenerationUnavailableError, OutlinesAdapter


class ScriptedLM(dspy.BaseLM):
    """Answers from a script, one reply per call (a callable gets the call's kwargs); records calls."""

    def __init__(self, replies: list[Any], *, response_schema: bool = False, local: bool = False):
        super().__init__(model="scripted/test", cache=False)
        self.replies = list(replies)
        self.calls: list[dict[str, Any]] = []
        self._response_schema = response_schema
        self.accepts_outlines_constraint = local

    @property
    def supports_response_schema(self) -> bool:
        return self._response_schema

    def __call__(self, prompt=None, *, messages=None, **kwargs):
        self.calls.append({"messages": messages, **kwargs})
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return [reply(kwargs) if callable(reply) else reply]

    async def acall(self, prompt=None, *, messages=None, **kwargs):
        return self(prompt, messages=messages, **kwargs)


SIG = dspy.Signature("question -> answer: int, label: Literal['yes', 'no']")
CHAT_REPLY = "[[ ## answer ## ]]\n4\n\n[[ ## label ## ]]\nyes\n\n[[ ## completed ## ]]"
JSON_REPLY = '{"answer": 4, "label": "yes"}'
GARBAGE = "I think it is four, probably."


def run(adapter, lm, signature=SIG, inputs=None, **lm_kwargs):
    return adapter(lm, lm_kwargs, signature, [], inputs or {"question": "2+2?"})


def counts(adapter):
    m = adapter.metrics
    return {tier: (m[tier]["success"], m[tier]["failure"]) for tier in ("tier1", "tier2", "tier3")}


def test_tier1_success_matches_chat_adapter():
    adapter, lm = OutlinesAdapter(), ScriptedLM([CHAT_REPLY])
    result = run(adapter, lm)
    assert result == [{"answer": 4, "label": "yes"}]
    assert counts(adapter) == {"tier1": (1, 0), "tier2": (0, 0), "tier3": (0, 0)}
    expected = dspy.ChatAdapter().format(SIG, [], {"question": "2+2?"})
    assert lm.calls[0]["messages"] == expected


def test_format_and_parse_identical_to_chat_adapter():
    demos = [{"question": "1+1?", "answer": 2, "label": "yes"}]
    inputs = {"question": "2+2?"}
    assert OutlinesAdapter().format(SIG, demos, inputs) == dspy.ChatAdapter().format(SIG, demos, inputs)
    assert OutlinesAdapter().parse(SIG, CHAT_REPLY) == dspy.ChatAdapter().parse(SIG, CHAT_REPLY)
    with pytest.raises(AdapterParseError):
        OutlinesAdapter().parse(SIG, GARBAGE)


def test_tier2_json_when_tier1_fails():
    adapter, lm = OutlinesAdapter(), ScriptedLM([GARBAGE, JSON_REPLY])
    assert run(adapter, lm) == [{"answer": 4, "label": "yes"}]
    assert counts(adapter) == {"tier1": (0, 1), "tier2": (1, 0), "tier3": (0, 0)}
    # Tier 2 prompts for JSON without constraining the provider; DSPy's own fallback never ran.
    assert "response_format" not in lm.calls[1]
    assert "JSON object" in lm.calls[1]["messages"][-1]["content"]
    assert len(lm.calls) == 2


def test_tier2_parses_with_json_repair():
    adapter = OutlinesAdapter()
    assert run(adapter, ScriptedLM([GARBAGE, "```json\n{'answer': 4, 'label': 'yes',}\n```"])) == [
        {"answer": 4, "label": "yes"}
    ]


def test_tier3_local_constraint_when_tiers_1_and_2_fail():
    lm = ScriptedLM([GARBAGE, '{"answer": "four"}', JSON_REPLY], local=True)
    adapter = OutlinesAdapter()
    assert run(adapter, lm) == [{"answer": 4, "label": "yes"}]
    assert counts(adapter) == {"tier1": (0, 1), "tier2": (0, 1), "tier3": (1, 0)}
    output_type = lm.calls[2]["_outlines_constraint"]
    assert issubclass(output_type, pydantic.BaseModel)
    assert list(output_type.model_fields) == ["answer", "label"]


def test_tier3_single_field_keeps_raw_annotation():
    sig = dspy.Signature("review -> sentiment: Literal['positive', 'negative']")
    lm = ScriptedLM([GARBAGE, GARBAGE, "negative"], local=True)
    assert run(OutlinesAdapter(), lm, sig, {"review": "bad"}) == [{"sentiment": "negative"}]
    assert lm.calls[2]["_outlines_constraint"] == Literal["positive", "negative"]
    assert "Respond with only the value of `sentiment`" in lm.calls[2]["messages"][-1]["content"]


def test_tier3_failure_is_counted_and_raised():
    adapter = OutlinesAdapter()
    with pytest.raises(AdapterParseError):
        run(adapter, ScriptedLM([GARBAGE, GARBAGE, '{"answer": 4, "lab'], local=True))
    assert counts(adapter) == {"tier1": (0, 1), "tier2": (0, 1), "tier3": (0, 1)}


def test_tier3_api_model_gets_json_schema_response_format():
    lm = ScriptedLM([GARBAGE, GARBAGE, JSON_REPLY], response_schema=True)
    assert run(OutlinesAdapter(), lm) == [{"answer": 4, "label": "yes"}]
    fmt = lm.calls[2]["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["schema"]["required"] == ["answer", "label"]
    assert "_outlines_constraint" not in lm.calls[2]


def test_tier3_api_single_field_still_json_object():
    sig = dspy.Signature("review -> sentiment: Literal['positive', 'negative']")
    lm = ScriptedLM([GARBAGE, GARBAGE, '{"sentiment": "positive"}'], response_schema=True)
    assert run(OutlinesAdapter(), lm, sig, {"review": "ok"}) == [{"sentiment": "positive"}]


def test_tier3_unavailable_names_both_ways_out():
    adapter = OutlinesAdapter()
    with pytest.raises(ConstrainedGenerationUnavailableError, match="OutlinesLM") as info:
        run(adapter, ScriptedLM([GARBAGE, GARBAGE]))
    assert "structured outputs" in str(info.value)
    assert isinstance(info.value.__cause__, AdapterParseError)
    assert counts(adapter)["tier3"] == (0, 0)


def test_context_window_error_is_not_retried():
    lm = ScriptedLM([ContextWindowExceededError(model="scripted/test"), JSON_REPLY], local=True)
    adapter = OutlinesAdapter()
    with pytest.raises(ContextWindowExceededError):
        run(adapter, lm)
    assert len(lm.calls) == 1
    assert counts(adapter) == {"tier1": (0, 1), "tier2": (0, 0), "tier3": (0, 0)}


def test_tool_calls_signature_skips_tier3():
    sig = dspy.Signature(
        {"tools": (list[dspy.Tool], dspy.InputField()), "calls": (dspy.ToolCalls, dspy.OutputField())}
    )
    lm = ScriptedLM([GARBAGE, GARBAGE], local=True)
    with pytest.raises(AdapterParseError):
        run(OutlinesAdapter(), lm, sig, {"tools": []})
    assert len(lm.calls) == 2


def test_n_greater_than_one_at_tier3_warns_and_returns_one(caplog):
    lm = ScriptedLM([GARBAGE, GARBAGE, JSON_REPLY], local=True)
    with caplog.at_level("WARNING", logger="dspy_outlines.adapter"):
        result = run(OutlinesAdapter(), lm, n=2)
    assert result == [{"answer": 4, "label": "yes"}]
    assert "n" not in lm.calls[2]
    assert "single completion" in caplog.text


class Code(dspy.Signature):
    text: str = dspy.InputField()
    code: Annotated[str, Regex(r"[A-Z]{3}-[0-9]{3}")] = dspy.OutputField()


def test_regex_field_rejected_at_tier1_then_constrained():
    lm = ScriptedLM(["[[ ## code ## ]]\nabc\n\n[[ ## completed ## ]]", '{"code": "x"}', "ABC-123"], local=True)
    adapter = OutlinesAdapter()
    assert run(adapter, lm, Code, {"text": "t"}) == [{"code": "ABC-123"}]
    assert counts(adapter) == {"tier1": (0, 1), "tier2": (0, 1), "tier3": (1, 0)}


async def test_acall_routes_like_call():
    adapter = OutlinesAdapter()
    lm = ScriptedLM([GARBAGE, GARBAGE, JSON_REPLY], local=True)
    result = await adapter.acall(lm, {}, SIG, [], {"question": "2+2?"})
    assert result == [{"answer": 4, "label": "yes"}]
    assert counts(adapter) == {"tier1": (0, 1), "tier2": (0, 1), "tier3": (1, 0)}


def test_predict_with_configured_and_nested_context_adapter():
    adapter = OutlinesAdapter()
    lm = ScriptedLM([GARBAGE, JSON_REPLY, CHAT_REPLY])
    with dspy.context(lm=lm, adapter=adapter):
        pred = dspy.Predict(SIG)(question="2+2?")
    assert (pred.answer, pred.label) == (4, "yes")
    with dspy.context(lm=lm):  # configured elsewhere, used for one block
        with dspy.context(adapter=adapter):
            pred = dspy.Predict(SIG)(question="2+2?")
    assert pred.answer == 4
    assert counts(adapter) == {"tier1": (1, 1), "tier2": (1, 0), "tier3": (0, 0)}


def test_chain_of_thought_through_tier3():
    lm = ScriptedLM([GARBAGE, GARBAGE, '{"reasoning": "2+2", "answer": 4}'], local=True)
    with dspy.context(lm=lm, adapter=OutlinesAdapter()):
        pred = dspy.ChainOfThought("question -> answer: int")(question="2+2?")
    assert pred.answer == 4
    assert list(lm.calls[2]["_outlines_constraint"].model_fields) == ["reasoning", "answer"]


def test_metrics_shape_reset_and_thread_safety():
    adapter = OutlinesAdapter()

    def work():
        for _ in range(25):
            run(adapter, ScriptedLM([GARBAGE, JSON_REPLY]))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    m = adapter.metrics
    assert (m["tier1_failures"], m["tier2_success"]) == (100, 100)
    assert m["tier1"]["latency_s"] > 0 and set(m["tier3"]) == {"success", "failure", "latency_s"}
    m["tier1"]["failure"] = -1  # a snapshot: editing it changes nothing
    assert adapter.metrics["tier1"]["failure"] == 100
    adapter.reset_metrics()
    assert counts(adapter) == {"tier1": (0, 0), "tier2": (0, 0), "tier3": (0, 0)}
    clone = copy.deepcopy(adapter)
    assert run(clone, ScriptedLM([CHAT_REPLY])) and clone.metrics["tier1_success"] == 1


def test_concurrent_async_calls():
    adapter = OutlinesAdapter()

    async def many():
        lms = [ScriptedLM([GARBAGE, JSON_REPLY]) for _ in range(8)]
        return await asyncio.gather(*(adapter.acall(lm, {}, SIG, [], {"question": "q"}) for lm in lms))

    results = asyncio.run(many())
    assert all(r == [json.loads(JSON_REPLY)] for r in results)
    assert adapter.metrics["tier2_success"] == 8
