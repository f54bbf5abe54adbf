"""Budget: thread-safe reservations, the child allocation rule, and every limit ending a run typed."""

from __future__ import annotations

import threading

import dspy
import pytest

from dspy_rlm import RLM, Budget, BudgetExhausted, Extracted, InProcessREPL, Limits
from tests.dspy_rlm.scripted_lm import ScriptedLM, action, fields


def test_reservations_never_overspend_under_races():
    budget = Budget(Limits(max_llm_calls=7))
    barrier = threading.Barrier(20)
    won, lost = [], []

    def worker() -> None:
        barrier.wait()
        try:
            budget.reserve_llm_calls(1)
            won.append(1)
        except BudgetExhausted as exc:
            lost.append(exc.limit)

    threads = [threading.Thread(target=worker) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert budget.spent.llm_calls == 7 and len(won) == 7
    assert lost == ["llm_calls"] * 13


def test_children_racing_against_the_root_stop_at_the_root_limit():
    root = Budget(Limits(max_llm_calls=7, max_depth=2))
    children = [root.child(share=1.0, n_children=1) for _ in range(4)]  # each may take up to 7 on its own
    barrier = threading.Barrier(20)

    def worker(i: int) -> None:
        barrier.wait()
        try:
            children[i % 4].reserve_llm_calls(1)
        except BudgetExhausted:
            pass

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert root.spent.llm_calls == 7
    assert sum(c.spent.llm_calls for c in children) == 7


def test_child_allocation_rule():
    root = Budget(Limits(max_iters=20, max_llm_calls=40, max_tokens=1000, max_cost=1.0, max_time=60, max_depth=2))
    root.reserve_llm_calls(8)  # 32 left
    child = root.child(share=0.5, n_children=4, max_iters=5)
    lim = child.limits
    assert (lim.max_llm_calls, lim.max_tokens, lim.max_iters, child.depth) == (4, 125, 5, 1)
    assert lim.max_cost == pytest.approx(0.125) and 0 < lim.max_time <= 7.5
    child.charge_usage(prompt_tokens=10, completion_tokens=5, cost=0.01)
    assert root.spent.tokens == 15 and root.spent.cost == pytest.approx(0.01)  # ancestors are charged
    text = child.describe()
    assert "allocated to you by the parent" in text and "the parent has left" in text and "depth 1 of max 2" in text


def test_start_iteration_and_can_proceed():
    root = Budget(Limits(max_iters=2, max_llm_calls=3, max_depth=1))
    assert root.can_proceed("iteration") and root.can_proceed("llm_call", 3) and not root.can_proceed("llm_call", 4)
    assert root.can_proceed("subcall") and not root.child().can_proceed("subcall")
    with pytest.raises(ValueError, match="iteration"):
        root.can_proceed("iterations")
    assert root.start_iteration() is None and root.start_iteration() is None
    assert root.start_iteration() == "iterations" and root.spent.iterations == 2
    child = Budget(Limits(max_iters=5, max_llm_calls=3, max_depth=1)).child(share=1.0)
    assert [child.start_iteration() for _ in range(4)] == [None, None, None, "llm_calls"]  # steps are calls
    assert child.parent.spent.llm_calls == 3
    spent = Budget(Limits(max_iters=5, max_llm_calls=1))
    spent.reserve_llm_calls(1)
    assert spent.start_iteration() is None  # the root's sub-LM calls fail in the REPL; they never end the run


def test_limits_validation():
    with pytest.raises(ValueError, match="max_cost"):
        Limits(max_cost=-1)
    with pytest.raises(ValueError, match="max_iters"):
        Limits(max_iters=0)


# -- every limit ends a run through fallback extraction, naming the limit ---------------------------
def _lm(step_code: str, **usage) -> ScriptedLM:
    def respond(call):
        if call.role == "extract":
            return fields(answer="extracted")
        if call.role == "llm":
            return "sub answer"
        return action(step_code)

    return ScriptedLM(respond, **usage)


@pytest.mark.parametrize(
    "limit, rlm_kwargs, code, usage",
    [
        ("iterations", {"max_iters": 2}, "x = 1", {}),
        ("tokens", {"max_tokens": 40}, "x = 1", {"prompt_tokens": 10, "completion_tokens": 5}),
        ("cost", {"max_cost": 0.025}, "x = 1", {"cost": 0.01}),
        ("time", {"max_time": 0.25}, "x = 1", {"delay": 0.1}),
    ],
)
def test_each_limit_ends_typed(limit, rlm_kwargs, code, usage):
    lm = _lm(code, **usage)
    rlm = RLM("question -> answer", interpreter_factory=InProcessREPL, **rlm_kwargs)
    with dspy.context(lm=lm):
        pred = rlm(question="q")
    assert isinstance(pred.result, Extracted), pred.result
    assert pred.result.limit == limit and pred.answer == "extracted"
    assert pred.trace.answer_source == "forced"
    assert "Budget exhausted, answer was forced" in pred.trace.warnings
    assert lm.roles()[-1] == "extract"
    if limit == "tokens":
        assert pred.trace.usage["prompt_tokens"] + pred.trace.usage["completion_tokens"] >= 40
    if limit == "cost":
        assert pred.trace.usage["cost"] >= 0.025
