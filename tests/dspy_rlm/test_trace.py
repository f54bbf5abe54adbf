"""Execution traces: the tree of a recursive run, answer sources, warnings, usage and the JSON round trip."""

from __future__ import annotations

import json

import dspy

from dspy_rlm import RLM, InProcessREPL, TraceNode
from dspy_rlm.trace import ANSWER_SOURCES
from tests.dspy_rlm.scripted_lm import ScriptedLM, action, fields


def _recursive(call):
    """Each RLM level below 3 asks one level deeper; level 3 asks the sub-LM."""
    if call.role == "llm":
        return "leaf"
    if call.role == "extract":
        return fields(answer="forced")
    depth = call.depth
    if depth < 3:
        return (
            action(f"print('level {depth}')\nr = rlm_query('level {depth + 1}')", "go deeper")
            if call.iteration == 1
            else action("SUBMIT(answer=r + '<' + str(len(r)))")
        )
    return action("SUBMIT(answer=llm_query('the leaf'))")


def _depth3_run() -> dspy.Prediction:
    rlm = RLM("question -> answer", max_depth=3, max_llm_calls=100, interpreter_factory=InProcessREPL)
    with dspy.context(lm=ScriptedLM(_recursive, prompt_tokens=10, completion_tokens=5, cost=0.001)):
        return rlm(question="go")


def test_depth3_tree_and_totals():
    pred = _depth3_run()
    trace = pred.trace
    assert pred.answer.startswith("leaf")
    assert sorted({n.depth for n in trace.walk() if n.kind == "rlm"}) == [0, 1, 2, 3]
    chain, node = [], trace
    while node.subcalls:
        (node,) = node.subcalls
        chain.append((node.kind, node.depth, node.parent_iteration))
    assert chain == [("rlm", 1, 1), ("rlm", 2, 1), ("rlm", 3, 1), ("llm", 4, 1)]
    first = trace.iterations[0]
    assert first.reasoning == "go deeper" and first.code_executions[0].stdout == "level 0\n"
    assert first.code_executions[0].duration_s > 0 and first.budget["spent"]["iterations"] == 1
    assert all(n.answer_source in ANSWER_SOURCES for n in trace.walk())
    totals = trace.totals()
    assert totals["nodes"] == 5 and totals["iterations"] == 2 + 2 + 2 + 1
    # 7 action steps + 1 llm_query, each 15 tokens and $0.001: the root's usage is the tree's total
    assert totals["lm_calls_total"] == 8 and totals["prompt_tokens"] + totals["completion_tokens"] == 120
    assert abs(totals["cost"] - 0.008) < 1e-9
    assert pred.usage == totals
    child = trace.subcalls[0]
    assert child.usage["lm_calls_total"] == 6  # its own 2 steps + everything below it


def test_json_round_trip_is_exact(tmp_path):
    trace = _depth3_run().trace
    text = trace.to_json()
    again = TraceNode.from_json(text)
    assert again.to_dict() == trace.to_dict()
    path = tmp_path / "trace.json"
    trace.to_json(path)
    assert TraceNode.from_json(path).to_dict() == json.loads(text)
    assert isinstance(again.subcalls[0].iterations[0].code_executions[0].code, str)


def test_forced_answer_and_errors_are_recorded():
    def respond(call):
        if call.role == "extract":
            return fields(answer="best guess")
        return action("x = 1 / 0")

    rlm = RLM("question -> answer", max_iters=2, interpreter_factory=InProcessREPL, recovery=False)
    with dspy.context(lm=ScriptedLM(respond)):
        pred = rlm(question="q")
    trace = pred.trace
    assert trace.answer_source == "forced" and trace.result_kind == "extracted"
    assert trace.warnings == ["Budget exhausted, answer was forced"]
    error = trace.iterations[0].code_executions[0].error
    assert error["type"] == "ZeroDivisionError"
    again = TraceNode.from_json(trace.to_json())
    assert again.iterations[1].code_executions[0].error == error
