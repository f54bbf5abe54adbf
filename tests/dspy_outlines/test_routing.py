"""Tier routing that learns (issue 11 item 3): per-LM skips, re-probing, ``tiers="auto"``, metrics.

Scripted LMs make every decision deterministic; the real embedded model shows ``tiers="auto"`` takes one
call for an ``OutlinesLM``.
"""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import dspy
import pytest

from dspy_outlines.adapter import ConstrainedGenerationUnavailableError, OutlinesAdapter, accepts_outlines_constraint
from dspy_outlines.routing import TierRouter

from .test_adapter import CHAT_REPLY, GARBAGE, JSON_REPLY, ScriptedLM, run


def constrained(call):
    assert call["constraint"] is not None  # Tier 3's constraint, in the request
    return JSON_REPLY


def tiers_called(lm: ScriptedLM) -> list[str]:
    """Which tier made each recorded call: tier 3 carries a constraint, tier 2 a JSON prompt."""
    out = []
    for call in lm.calls:
        if call.get("constraint") or "response_format" in call:
            out.append("tier3")
        elif "[[ ## answer ## ]]" in call["messages"][0]["content"]:
            out.append("tier1")
        else:
            out.append("tier2")
    return out


def test_lm_failing_tier1_three_times_starts_at_tier2():
    adapter = OutlinesAdapter(skip_after=3, reprobe_every=None)
    lm = ScriptedLM([GARBAGE, JSON_REPLY] * 3 + [JSON_REPLY] * 2)
    for _ in range(5):
        assert run(adapter, lm) == [{"answer": 4, "label": "yes"}]
    assert tiers_called(lm) == ["tier1", "tier2"] * 3 + ["tier2", "tier2"]
    m = adapter.metrics
    assert (m["tier1_failures"], m["tier1_skipped"], m["tier2_success"]) == (3, 2, 5)
    (state,) = m["routing"].values()
    assert state["starts_at"] == "tier2" and state["consecutive_failures"] == {"tier1": 3, "tier2": 0}
    assert state["skipped"] == {"tier1": 2} and state["calls"] == 5


def test_both_failing_tiers_skipped_straight_to_tier3():
    adapter = OutlinesAdapter(skip_after=2, reprobe_every=None)
    lm = ScriptedLM([GARBAGE, GARBAGE, constrained] * 2 + [constrained], local=True)
    for _ in range(3):
        run(adapter, lm)
    assert tiers_called(lm)[-1:] == ["tier3"] and len(lm.calls) == 7
    assert adapter.metrics["tier1_skipped"] == adapter.metrics["tier2_skipped"] == 1


def test_reprobe_every_kth_skipping_call_and_success_resets_the_streak():
    adapter = OutlinesAdapter(skip_after=1, reprobe_every=2)
    # call 1 fails tier1; calls 2, 3 skip it; call 4 re-probes and tier1 now parses; call 5 starts at tier1.
    lm = ScriptedLM([GARBAGE, JSON_REPLY, JSON_REPLY, JSON_REPLY, CHAT_REPLY, CHAT_REPLY])
    for _ in range(5):
        run(adapter, lm)
    assert tiers_called(lm) == ["tier1", "tier2", "tier2", "tier2", "tier1", "tier1"]
    (state,) = adapter.metrics["routing"].values()
    assert state["reprobes"] == 1 and state["consecutive_failures"]["tier1"] == 0


def test_routing_is_per_lm():
    adapter = OutlinesAdapter(skip_after=1, reprobe_every=None)
    bad, good = ScriptedLM([GARBAGE, JSON_REPLY, JSON_REPLY]), ScriptedLM([CHAT_REPLY, CHAT_REPLY])
    run(adapter, bad), run(adapter, good), run(adapter, bad), run(adapter, good)
    assert tiers_called(bad) == ["tier1", "tier2", "tier2"] and tiers_called(good) == ["tier1", "tier1"]
    assert len(adapter.metrics["routing"]) == 2


def test_never_skips_to_a_tier_the_lm_cannot_run():
    adapter = OutlinesAdapter(skip_after=1, reprobe_every=None)
    lm = ScriptedLM([GARBAGE, GARBAGE, JSON_REPLY])  # an API model without structured outputs
    with pytest.raises(ConstrainedGenerationUnavailableError):
        run(adapter, lm)
    run(adapter, lm)  # tier1 and tier2 both failed once: tier2 is the last runnable tier, so it stays
    assert tiers_called(lm) == ["tier1", "tier2", "tier2"]
    assert (adapter.metrics["tier1_skipped"], adapter.metrics["tier2_skipped"]) == (1, 0)


def test_skip_after_none_never_skips():
    adapter = OutlinesAdapter(skip_after=None)
    lm = ScriptedLM([GARBAGE, JSON_REPLY] * 5)
    for _ in range(5):
        run(adapter, lm)
    assert tiers_called(lm) == ["tier1", "tier2"] * 5 and adapter.metrics["tier1_skipped"] == 0


def test_auto_starts_local_lm_at_tier3_and_api_lm_at_tier1():
    adapter = OutlinesAdapter(tiers="auto")
    local, api = ScriptedLM([constrained, constrained], local=True), ScriptedLM([CHAT_REPLY])
    run(adapter, local), run(adapter, local), run(adapter, api)
    assert tiers_called(local) == ["tier3", "tier3"] and tiers_called(api) == ["tier1"]
    m = adapter.metrics
    assert (m["tier1_skipped"], m["tier2_skipped"], m["tier3_success"], m["tier1_success"]) == (2, 2, 2, 1)


def test_auto_with_tool_calls_signature_keeps_tiers_1_and_2():
    sig = dspy.Signature("question -> calls: dspy.ToolCalls")
    lm = ScriptedLM(['[[ ## calls ## ]]\n{"tool_calls": []}\n\n[[ ## completed ## ]]'], local=True)
    run(OutlinesAdapter(tiers="auto"), lm, sig, {"question": "q"})
    assert len(lm.calls) == 1


@pytest.mark.parametrize("bad", [{"skip_after": 0}, {"reprobe_every": -1}, {"skip_after": 1.5}, {"tiers": "tier9"}])
def test_bad_routing_options_are_rejected(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        OutlinesAdapter(**bad)


def test_accepts_outlines_constraint_checks_the_attribute_only():
    class Plain:
        pass

    class Local:
        accepts_outlines_constraint = True

    assert accepts_outlines_constraint(Local()) and not accepts_outlines_constraint(Plain())
    import dspy_outlines.adapter as adapter_module

    assert "dspy_outlines.lm" not in Path(adapter_module.__file__).read_text()  # no import for the check


def test_router_thread_safe_and_forgets_collected_lms():
    router = TierRouter(skip_after=2, reprobe_every=None)
    lms = [ScriptedLM([]) for _ in range(4)]

    def work(lm):
        for _ in range(200):
            router.plan(lm, ["tier1", "tier2"], ["tier1", "tier2"], False)
            router.record(lm, "tier1", parsed=False)

    threads = [threading.Thread(target=work, args=(lm,)) for lm in lms]
    [t.start() for t in threads]
    [t.join() for t in threads]
    snap = router.snapshot()
    assert sorted(s["calls"] for s in snap.values()) == [200] * 4
    assert all(s["skipped"] == {"tier1": 198} for s in snap.values())
    del lms, threads, snap
    gc.collect()
    assert router.snapshot() == {}
