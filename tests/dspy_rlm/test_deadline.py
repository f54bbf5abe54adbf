"""``max_time`` holds for the whole run (issue 11 item 5): LM calls get deadlines, extraction a reserved slice.

Scripted slow LMs (they sleep) show the rule; the embedded model shows it on real local generation.
"""

from __future__ import annotations

import time

import dspy
import outlines.types.dsl  # noqa: F401
import pytest

import dspy_outlines.adapter  # noqa: F401 - one-time imports of the extraction (outlines: ~2 s), not timed
from dspy_outlines.contract import DEADLINE_KWARG, current_deadline
from dspy_rlm import RLM, Extracted
from dspy_rlm.budget import Budget, Limits, extraction_reserve
from dspy_rlm.calls import deadline_config, deadline_kwargs
from dspy_rlm.repl.inprocess import InProcessREPL

from .scripted_lm import Call, ScriptedLM, action, fields

#: Scheduling slack allowed on top of max_time in the scripted runs (thread hops, the REPL start).
SLACK_S = 0.6


class DeadlineLM(ScriptedLM):
    """A local-style LM (reads the deadline scope, takes Tier 3's constraint as a keyword) that needs ``delay``
    seconds per call and stops at the deadline, returning what it had: half an answer, like a generation cut
    between tokens."""

    accepts_outlines_constraint = True

    def __init__(self, respond, *, delay: float):
        super().__init__(respond, model="local/deadline-lm")
        self.slow = delay
        self.deadlines: list[float | None] = []
        self.cut = 0

    def constraint_kwargs(self, output_type):
        return {"_outlines_constraint": output_type}

    def forward(self, prompt=None, messages=None, **kwargs):
        assert DEADLINE_KWARG not in kwargs  # the deadline is a scope, never an LM keyword
        deadline = current_deadline()
        self.deadlines.append(deadline)
        stop = time.monotonic() + self.slow
        cut = deadline is not None and deadline < stop
        time.sleep(max(0.0, (deadline if cut else stop) - time.monotonic()))
        response = self._response(prompt, messages)
        if "_outlines_constraint" in kwargs:  # Tier 3 of the extraction: the raw value
            response.choices[0].message["content"] = "42"
        if cut:
            self.cut += 1
            text = response.choices[0].message.content
            response.choices[0].message["content"] = text[: len(text) // 2]
            response.choices[0]["finish_reason"] = "deadline"
        return response


def _respond(call: Call) -> str:
    return fields(answer="42") if call.role == "extract" else action("x = 41 + 1")


def test_extraction_reserve_rule():
    assert extraction_reserve(150) == 15.0  # 10% of max_time
    assert extraction_reserve(60) == 10.0  # at least 10 s
    assert extraction_reserve(8) == 4.0  # at most half of max_time


def test_budget_deadlines_and_no_step_inside_the_reserve():
    budget = Budget(Limits(max_time=4.0))
    end = budget.started + 4.0
    assert budget.end() == pytest.approx(end)
    assert budget.step_deadline() == pytest.approx(end - 2.0)
    assert budget.extraction_deadline() == pytest.approx(end)
    budget.started -= 2.1  # 2.1 s have passed: only the reserve is left
    assert budget.start_iteration() == "time" and budget.spent.iterations == 0
    budget.started -= 10  # long past the end: the extraction still gets its minimum
    assert budget.extraction_deadline() >= time.monotonic() + 1.9
    assert Budget(Limits()).step_deadline() is None and Budget(Limits()).extraction_deadline() is None


def test_child_deadline_is_bounded_by_the_parent():
    root = Budget(Limits(max_time=10.0, max_depth=2))
    child = root.child()
    assert child.end() <= root.end() and child.step_deadline() < child.end()


def test_deadline_kwargs_per_lm_kind():
    deadline = time.monotonic() + 30
    local = DeadlineLM(_respond, delay=0)
    assert deadline_kwargs(local, deadline) == {"_deadline": deadline}
    api = dspy.LM("openai/gpt-4o-mini")
    assert 29 < deadline_kwargs(api, deadline)["timeout"] <= 30
    passed = time.monotonic() - 5
    assert deadline_kwargs(api, passed) == {"_deadline": passed, "timeout": 1.0}  # passed: the shortest timeout
    assert deadline_kwargs(ScriptedLM(_respond), deadline) == {"_deadline": deadline}  # a scope, no LM keyword
    assert deadline_kwargs(local, None) == {}
    with dspy.context(lm=local):
        assert deadline_config(dspy.Predict("q -> a"), deadline) == {"config": {"_deadline": deadline}}
    assert deadline_config(object(), deadline) == {}  # a user-replaced predictor keeps its own signature


def test_slow_local_lm_run_ends_within_max_time_and_typed():
    lm = DeadlineLM(_respond, delay=1.0)
    rlm = RLM("question -> answer", max_iters=50, max_time=3.0, interpreter_factory=InProcessREPL)
    t0 = time.monotonic()
    with dspy.context(lm=lm):
        pred = rlm(question="q")
    elapsed = time.monotonic() - t0
    assert elapsed <= 3.0 + SLACK_S, elapsed
    assert isinstance(pred.result, Extracted) and pred.result.limit == "time" and pred.answer == "42"
    assert lm.roles()[-1] == "extract"
    assert lm.cut >= 1  # an action step was stopped at the step deadline ...
    assert all(d is not None for d in lm.deadlines)  # ... and every call carried a deadline
    extraction_deadline, step_deadlines = lm.deadlines[-1], lm.deadlines[:-1]
    assert all(d < extraction_deadline for d in step_deadlines)  # steps end before the reserved slice


def test_slow_lm_without_deadline_support_still_stops_at_the_reserve():
    lm = ScriptedLM(
        _respond, delay=0.8, model="local/scripted"
    )  # takes no deadline keyword: each call runs its full 0.8 s
    rlm = RLM("question -> answer", max_iters=50, max_time=3.0, interpreter_factory=InProcessREPL)
    t0 = time.monotonic()
    with dspy.context(lm=lm):
        pred = rlm(question="q")
    elapsed = time.monotonic() - t0
    # Steps start until 1.5 s (the reserve is 1.5 s): at most 0.8 s of step past that, then 0.8 s of extraction.
    assert elapsed <= 1.5 + 0.8 + 0.8 + SLACK_S, elapsed
    assert isinstance(pred.result, Extracted) and pred.result.limit == "time"


# -- the embedded model ---------------------------------------------------------------------------------
@pytest.mark.real_model
def test_real_model_run_passes_deadlines_and_ends_typed():
    """Every local LM call of a max_time run carries its deadline; steps stop before the extraction's slice.

    The wall-clock overrun is measured, not asserted (house rule: timings go to benchmarks): generation stops
    between tokens, but a prompt prefill already running is not interrupted by the engine.
    """
    try:
        from dspy_outlines import OutlinesLM

        lm = OutlinesLM(max_tokens=256)
    except (ImportError, FileNotFoundError) as exc:
        pytest.skip(f"embedded model unavailable: {exc}")
    rlm = RLM("context -> count: int", max_iters=20, max_time=20.0, interpreter_factory=InProcessREPL)
    t0 = time.monotonic()
    with dspy.context(lm=lm):
        pred = rlm(context="Items: a, b, a, c. How many items are there?")
    end = t0 + 20.0
    deadlines = [(entry["response"].provider_data or {}).get("deadline") for entry in lm.history]
    assert deadlines and all(d is not None for d in deadlines), deadlines
    if pred.result.kind != "submitted":  # the last call is the extraction: the end (or 2 s from its start)
        assert pred.result.limit in ("time", "lm_errors"), pred.result
        assert all(d < deadlines[-1] for d in deadlines[:-1])
        assert deadlines[-1] <= max(end + 0.5, t0 + (time.monotonic() - t0) + 2.5)
    assert all(d <= end for d in deadlines[:-1])  # action steps never get time past the run's end
