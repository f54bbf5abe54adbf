"""dspy's sandbox facade in our REPL (dspy.Predict / ChainOfThought / ReActV2 / RLM built by the model's code),
side by side with dspy 3.4.1's own ``dspy.RLM``; budgets, trace, depth, routing, bad input, the real model."""

from __future__ import annotations

import json

import dspy
import pytest
from dspy.primitives.local_interpreter import LocalInterpreter

from dspy_rlm import RLM, InProcessREPL, SubprocessREPL
from tests.dspy_rlm.scripted_lm import ScriptedLM, action, fields

ASK = "import dspy\np = dspy.Predict('question -> answer')\nr = p(question='What is 2+2?')\nSUBMIT(answer=r.answer)"


def scripted(steps, agent_answer="four", **lm_kwargs):
    """Root steps from ``steps`` (a dict by iteration, or one code for all); sub-agent calls answer."""

    def respond(call):
        if call.role == "extract":
            return fields(answer="extracted")
        if "variables_info" not in call.system:  # a sub-agent's own predictor call
            if "tool_calls" in call.system:  # ReActV2: call the tool once, then submit what it returned
                if "LOOKED-UP" not in str(call.messages):
                    return fields(
                        next_thought="look",
                        tool_calls=json.dumps({"tool_calls": [{"name": "lookup", "args": {"key": "looked-up"}}]}),
                    )
                return fields(
                    next_thought="done",
                    tool_calls=json.dumps({"tool_calls": [{"name": "submit", "args": {"answer": "LOOKED-UP"}}]}),
                )
            return (
                fields(reasoning="r", answer=agent_answer)
                if "reasoning" in call.system
                else fields(answer=agent_answer)
            )
        code = steps if isinstance(steps, str) else steps.get(call.iteration, "SUBMIT(answer='fallthrough')")
        return action(code)

    return ScriptedLM(respond, **lm_kwargs)


def run(steps, repl=InProcessREPL, lm=None, **kwargs):
    lm = lm or scripted(steps)
    rlm = RLM("question -> answer", interpreter_factory=repl, **kwargs)
    with dspy.context(lm=lm):
        return rlm(question="q"), lm


@pytest.mark.parametrize("repl", [InProcessREPL, SubprocessREPL], ids=["inprocess", "sandbox"])
def test_a_predict_sub_agent_answers_and_is_charged_and_traced(repl):
    pred, lm = run(ASK, repl=repl, sub_lm=None)
    assert pred.answer == "four" and pred.result.kind == "submitted"
    (node,) = pred.trace.subcalls
    assert node.kind == "agent" and node.task == "dspy.Predict(question -> answer)"
    assert node.usage["llm_calls"] == 1 and node.outputs == {"answer": "four"}
    assert pred.trace.usage["llm_calls"] == 1
    # its tokens are the run's too: every call of the scripted LM reports 10 prompt tokens
    assert node.usage["prompt_tokens"] == 10 and pred.trace.usage["prompt_tokens"] == 10 * len(lm.calls)
    assert "Sub-agents (dspy)" in lm.calls[0].system  # dspy's own guidance in the prompt


def test_side_by_side_with_dspy_rlm():
    """The same trajectory through dspy 3.4.1's RLM and ours: the same answer, the same sub-agent LM calls."""
    ours, ours_lm = run(ASK)
    theirs_lm = scripted(ASK)
    theirs = dspy.RLM("question -> answer", interpreter_factory=LocalInterpreter)
    with dspy.context(lm=theirs_lm):
        their_pred = theirs(question="q")
    assert their_pred.answer == ours.answer == "four"
    agent_calls = [sum("variables_info" not in c.system for c in lm.calls) for lm in (ours_lm, theirs_lm)]
    assert agent_calls[0] == agent_calls[1] == 1


def test_the_budget_holds_for_sub_agents():
    code = {
        1: "import dspy\np = dspy.Predict('question -> answer')\na = p(question='one').answer\n"
        "try:\n    p(question='two')\nexcept Exception as e:\n    err = type(e).__name__ + ': ' + str(e)\nprint(err)",
        2: "SUBMIT(answer=a + ' | ' + err)",
    }
    pred, _ = run(code, max_llm_calls=1)
    assert pred.answer.startswith("four | ")
    assert "llm_calls" in pred.answer  # the second call was refused on the run's budget, typed
    assert pred.trace.usage["llm_calls"] == 1


def test_chain_of_thought_and_react_with_a_provided_tool():
    def lookup(key: str) -> str:
        """Look a key up."""
        return key.upper()

    code = (
        "import dspy\nc = dspy.ChainOfThought('question -> answer')(question='x').answer\n"
        "agent = dspy.ReActV2('question -> answer', tools=[lookup])\nr = agent(question='y')\n"
        "SUBMIT(answer=c + '/' + str(r.answer))"
    )
    pred, _ = run(code, tools=[lookup])
    assert pred.answer == "four/LOOKED-UP"
    assert [n.task.split("(")[0] for n in pred.trace.subcalls] == ["dspy.ChainOfThought", "dspy.ReActV2"]


def test_a_nested_rlm_is_ours_and_refused_past_max_depth():
    code = {
        1: "import dspy\ntry:\n    sub = dspy.RLM('question -> answer')\n    out = sub(question='inner').answer\n"
        "except Exception as e:\n    out = str(e)\nprint(out)",
        2: "SUBMIT(answer=out)",
    }
    pred, _ = run(code, max_depth=0)
    assert "past max_depth=0" in pred.answer


@pytest.mark.parametrize(
    "code, says",
    [
        ("import dspy\ndspy.Predict('question -> -> answer')(question='x')", "must contain exactly one '->'"),
        ("import dspy\ndspy.ReActV2('q -> a', tools=[print])(q='x')", "cannot be handed to a bridged sub-predictor"),
    ],
)
def test_bad_sub_agents_end_the_block_typed_and_the_run_goes_on(code, says):
    pred, _ = run({1: code, 2: "SUBMIT(answer='went on')"})
    assert pred.answer == "went on"
    error = pred.trace.iterations[0].code_executions[0].error
    assert error["type"] == "ToolError" and error["recoverable"] and says in error["message"]


def test_the_small_profile_offers_no_facade_unless_asked():
    from types import SimpleNamespace

    from dspy_rlm.loop import Run

    def offered(policy_name, **settings):
        return Run._sub_agents(
            SimpleNamespace(config=RLM("q -> a", **settings).config), SimpleNamespace(name=policy_name)
        )

    assert (offered("default"), offered("small"), offered("small", sub_agents=True)) == (True, False, True)
    assert offered("default", sub_agents=False) is False
    assert "Sub-agents (dspy)" not in RLM("q -> a", sub_agents=False).generate_action.signature.instructions


@pytest.mark.real_model
def test_a_predict_sub_agent_on_the_embedded_model():
    from dspy_outlines import OutlinesLM

    local = OutlinesLM(max_tokens=32)
    code = (
        "import dspy\nr = dspy.Predict('question -> answer')(question='Name one color.')\nSUBMIT(answer=str(r.answer))"
    )
    pred, _ = run(code, repl=SubprocessREPL, sub_lm=local)
    (node,) = pred.trace.subcalls
    assert node.kind == "agent" and node.usage["llm_calls"] >= 1 and node.usage["completion_tokens"] > 0
    assert pred.result.kind == "submitted" and pred.answer.strip()
