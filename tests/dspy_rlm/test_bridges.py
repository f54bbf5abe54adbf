"""Bridges: llm_query, llm_query_batched, rlm_query, batch_rlm_query, downgrade, fallback, sub_lm, prompts."""

from __future__ import annotations

import dspy
import pytest

from dspy_rlm import RLM, InProcessREPL, Submitted
from dspy_rlm.bridges import NO_BUDGET_TEXT
from tests.dspy_rlm.scripted_lm import ScriptedLM, action, fields


def run(lm, code_for, sub_code_for=None, **kwargs):
    """Run an RLM whose root step ``i`` runs ``code_for(i)`` and whose sub-RLM steps run ``sub_code_for(call)``."""

    def respond(call):
        if call.role == "llm":
            if "FAIL" in call.user:
                raise RuntimeError("sub-LM broke")
            return f"echo:{call.user[:40]}"
        if call.role == "extract":
            return fields(answer="extracted")
        if call.role == "sub":
            return action(sub_code_for(call) if sub_code_for else "SUBMIT(answer=task.upper())")
        return action(code_for(call.iteration))

    lm.respond = respond
    kwargs.setdefault("interpreter_factory", InProcessREPL)
    rlm = RLM("question -> answer", **kwargs)
    with dspy.context(lm=lm):
        return rlm(question="q")


def test_llm_query_reaches_the_repl_and_is_traced():
    lm = ScriptedLM(None, prompt_tokens=7, completion_tokens=3, cost=0.001)
    pred = run(lm, lambda i: "r = llm_query('hello')\nprint(r)" if i == 1 else "SUBMIT(answer=r)")
    assert pred.answer == "echo:hello"
    assert "echo:hello" in pred.trace.iterations[0].code_executions[0].stdout
    (node,) = pred.trace.subcalls
    assert node.kind == "llm" and node.outputs == {"answer": "echo:hello"} and node.parent_iteration == 1
    assert node.usage["prompt_tokens"] == 7 and node.usage["cost"] == pytest.approx(0.001)
    assert pred.trace.usage["llm_calls"] == 1 and pred.trace.usage["lm_calls_total"] == 3


def test_llm_query_batched_types_failures_per_item():
    lm = ScriptedLM(None)
    pred = run(lm, lambda i: "SUBMIT(answer=repr(llm_query_batched(['a', 'FAIL b', 'c'])))")
    answers = eval(pred.answer)
    assert answers[0] == "echo:a" and answers[2] == "echo:c"
    assert answers[1].startswith("[ERROR] RuntimeError") and "sub-LM broke" in answers[1]
    assert [n.answer_source for n in pred.trace.subcalls].count("error") == 1
    assert pred.trace.usage["llm_calls"] == 3


def test_rlm_query_runs_a_child_with_context_and_sub_budget():
    lm = ScriptedLM(None)
    pred = run(
        lm,
        lambda i: "SUBMIT(answer=rlm_query('count', context=[1, 2, 3]))",
        sub_code_for=lambda call: "SUBMIT(answer=str(len(context)) + ':' + task)",
        max_depth=1,
    )
    assert pred.answer == "3:count"
    (child,) = pred.trace.subcalls
    assert child.kind == "rlm" and child.depth == 1 and child.answer_source == "submit"
    assert child.usage["limits"]["max_llm_calls"] == 25  # child_share 0.5 of 50
    sub_prompt = next(c for c in lm.calls if c.role == "sub")
    assert "allocated to you by the parent" in sub_prompt.user and "the parent has left" in sub_prompt.user
    assert "depth 1 of max 1" in sub_prompt.system and "prefer llm_query over rlm_query" in sub_prompt.system
    assert "2-5 iterations" in sub_prompt.system


def test_batch_rlm_query_types_failures_per_item():
    lm = ScriptedLM(None)

    def sub(call):
        return "raise SystemExit" if "bad" in call.user else "SUBMIT(answer=task.upper())"

    pred = run(
        lm,
        lambda i: "SUBMIT(answer=repr(batch_rlm_query(['a', ('b', {'k': 1}), {'task': 'bad'}])))",
        sub_code_for=sub,
        max_depth=1,
        sub_max_iters=2,
    )
    a, b, bad = eval(pred.answer)
    assert (a, b) == ("A", "B")
    assert bad == "extracted"  # the failing child ended through its own fallback extraction
    kinds = sorted(n.answer_source for n in pred.trace.subcalls)
    assert kinds == ["forced", "submit", "submit"]  # the seed's name for an extracted answer


def test_batch_runs_what_the_budget_affords_and_downgrades_the_rest():
    lm = ScriptedLM(None)
    pred = run(
        lm,
        lambda i: "SUBMIT(answer=repr(batch_rlm_query([f't{j}' for j in range(5)])))",
        max_depth=1,
        max_llm_calls=13,
        downgrade_threshold=3,
    )
    answers = eval(pred.answer)
    # 13 calls left, child_share 0.5: floor(13 * 0.5 / 3) = 2 sub-RLMs, each allocated >= 3 calls
    assert answers[:2] == ["T0", "T1"]
    assert all(a.startswith("echo:t") for a in answers[2:])
    assert [n.kind for n in pred.trace.subcalls].count("llm") == 3
    assert all(n.usage["limits"]["max_llm_calls"] >= 3 for n in pred.trace.subcalls if n.kind == "rlm")
    assert pred.trace.usage["llm_calls"] <= 13
    assert any("downgraded" in w for w in pred.trace.warnings)


def test_rlm_query_downgrades_at_max_depth():
    lm = ScriptedLM(None)
    pred = run(
        lm,
        lambda i: "SUBMIT(answer=rlm_query('outer'))",
        sub_code_for=lambda call: "SUBMIT(answer=rlm_query('inner'))",
        max_depth=1,
    )
    assert pred.answer == "echo:inner"
    (child,) = pred.trace.subcalls
    (grandchild,) = child.subcalls
    assert grandchild.kind == "llm" and grandchild.depth == 2
    assert any("depth 1 is the maximum" in w for w in child.warnings)


def test_rlm_query_with_nothing_left_returns_the_direct_answer_fallback():
    lm = ScriptedLM(None)
    pred = run(lm, lambda i: "a = llm_query('x')\nSUBMIT(answer=rlm_query('more'))", max_llm_calls=1)
    assert pred.answer == NO_BUDGET_TEXT.format(limit="llm_calls")
    fallback = pred.trace.subcalls[-1]
    assert fallback.kind == "fallback" and fallback.answer_source == "forced"
    assert "Budget exhausted, answer was forced" in fallback.warnings


def test_sub_lm_routes_sub_calls_and_sub_rlm_actions():
    main, cheap = ScriptedLM(None), ScriptedLM(None, model="scripted/cheap")
    cheap.respond = lambda call: (
        "cheap" if call.role == "llm" else action("SUBMIT(answer=llm_query('leaf') + '/' + task)")
    )

    def respond(call):
        assert call.role == "action", "only the root's own steps go to the main LM"
        return action("SUBMIT(answer=llm_query('x') + '|' + rlm_query('t'))")

    main.respond = respond
    rlm = RLM("question -> answer", sub_lm=cheap, max_depth=1, interpreter_factory=InProcessREPL)
    with dspy.context(lm=main):
        pred = rlm(question="q")
    assert pred.answer == "cheap|cheap/t"
    assert sorted(cheap.roles()) == ["llm", "llm", "sub"]


def test_root_prompt_shows_budget_helpers_and_guidance():
    lm = ScriptedLM(None)
    run(lm, lambda i: "SUBMIT(answer='x')", max_cost=2.0, max_depth=2)
    call = lm.calls[0]
    for text in (
        "llm_query(prompt)",
        "llm_query_batched(prompts)",
        "rlm_query(task, context=None)",
        "batch_rlm_query(tasks)",
        "SUBMIT(",
        "FINAL(",
        "FINAL_VAR(",
        "run in order",
    ):
        assert text in call.system, text
    assert call.system.count("```python") >= 2  # the batched-blocks example
    assert "cost: $2.0000 left" in call.user and "iterations: 1 used, 19 left" in call.user
    assert "depth 0 of max 2" in call.user


@pytest.mark.real_model
def test_embedded_model_as_sub_lm_of_llm_query():
    try:
        from dspy_outlines import OutlinesLM

        sub = OutlinesLM(max_tokens=32)
    except (ImportError, FileNotFoundError) as exc:
        pytest.skip(f"embedded model unavailable: {exc}")
    root = ScriptedLM(
        lambda call: action("r = llm_query('Say hello in one short sentence.')\nprint(r)\nSUBMIT(answer=r)")
    )
    rlm = RLM("question -> answer", sub_lm=sub, interpreter_factory=InProcessREPL)
    with dspy.context(lm=root):
        pred = rlm(question="q")
    assert isinstance(pred.result, Submitted)
    assert isinstance(pred.answer, str) and pred.answer.strip()
    assert pred.answer.strip() in pred.trace.iterations[0].code_executions[0].stdout
    (node,) = pred.trace.subcalls
    assert node.usage["prompt_tokens"] > 0 and node.usage["completion_tokens"] > 0
    assert pred.trace.usage["prompt_tokens"] >= root.prompt_tokens + node.usage["prompt_tokens"]


def test_rlm_query_in_the_parents_last_iteration_still_runs_the_child():
    lm = ScriptedLM(None)
    pred = run(lm, lambda i: "SUBMIT(answer=rlm_query('last'))", max_iters=1, max_depth=1)
    assert pred.answer == "LAST"  # the child ran its own step (task.upper()), it was not cut off
    (child,) = pred.trace.subcalls
    assert child.kind == "rlm" and child.answer_source == "submit" and len(child.iterations) == 1


@pytest.mark.parametrize(("max_iters", "sub_max_iters", "child_iters"), [(3, 5, 3), (6, 2, 2)])
def test_a_childs_prompt_and_budget_agree_on_its_iterations(max_iters, sub_max_iters, child_iters):
    lm = ScriptedLM(None)
    pred = run(
        lm,
        lambda i: "SUBMIT(answer=rlm_query('loop'))",
        sub_code_for=lambda call: "print('still working')",  # never submits: it runs until its limit
        max_depth=1,
        max_iters=max_iters,
        sub_max_iters=sub_max_iters,
    )
    (child,) = pred.trace.subcalls
    sub_steps = [c for c in lm.calls if c.role == "sub"]
    assert len(sub_steps) == child_iters  # the budget stopped it there
    assert all(f"/{child_iters}" in c.user for c in sub_steps)  # and every prompt said so
    assert child.usage["limits"]["max_iters"] == child_iters
