"""Sub-LM routing: ``sub_lms={name: lm}`` with ``llm_query(prompt, model=name)``, ``sub_lm_by_depth``, calls and
cost per model in the trace, a clear error for an unknown name, sub-RLMs inheriting the routing."""

from __future__ import annotations

import dspy
import pytest

from dspy_rlm import RLM, InProcessREPL, SubprocessREPL
from tests.dspy_rlm.scripted_lm import ScriptedLM, action, fields


def sub_model(name: str, cost: float) -> ScriptedLM:
    """A sub-LM that answers plain prompts with its own name, and sub-RLM steps by submitting the same."""

    def respond(call):
        if call.role == "sub":
            return action(f"SUBMIT(answer='{name}-child:' + llm_query('x'))")
        return f"{name}:{call.user[:20]}"

    return ScriptedLM(respond, cost=cost, model=f"scripted/{name}")


def run(root_code, repl=InProcessREPL, **kwargs):
    def respond(call):
        if call.role == "extract":
            return fields(answer="extracted")
        return action(root_code(call.iteration))

    root = ScriptedLM(respond, model="scripted/root")
    rlm = RLM("question -> answer", interpreter_factory=repl, **kwargs)
    with dspy.context(lm=root):
        return rlm(question="q"), root


@pytest.fixture
def lms():
    return {"fast": sub_model("fast", 0.001), "strong": sub_model("strong", 0.01)}


@pytest.mark.parametrize("repl", [InProcessREPL, SubprocessREPL], ids=["inprocess", "sandbox"])
def test_a_named_model_answers_and_is_counted_per_model(lms, repl):
    code = (
        "a = llm_query('hi', model='fast')\nb = llm_query_batched(['x', 'y'], model='strong')\n"
        "SUBMIT(answer=a + '|' + '|'.join(b))"
    )
    pred, root = run(lambda i: code, repl=repl, sub_lms=lms)
    assert pred.answer == "fast:hi|strong:x|strong:y"
    assert [n.model for n in pred.trace.subcalls] == ["fast", "strong", "strong"]
    by_model = pred.trace.totals()["by_model"]
    assert by_model["fast"]["calls"] == 1 and by_model["strong"]["calls"] == 2
    assert by_model["strong"]["cost"] == pytest.approx(0.02) and by_model["fast"]["cost"] == pytest.approx(0.001)
    assert "model=NAME" in root.calls[0].system and "'fast', 'strong'" in root.calls[0].system


def test_an_unknown_name_is_an_error_the_model_reads_and_the_run_goes_on(lms):
    steps = {1: "try:\n    llm_query('hi', model='fastest')\nexcept Exception as e:\n    err = str(e)\nprint(err)"}
    pred, _ = run(lambda i: steps.get(i, "SUBMIT(answer=err)"), sub_lms=lms)
    assert "no sub-LM named 'fastest'" in pred.answer and "['fast', 'strong']" in pred.answer
    assert pred.trace.usage["llm_calls"] == 0  # nothing was charged for it


def test_depth_defaults_and_children_inherit_the_routing(lms):
    """Root's sub-calls go to sub_lm_by_depth[0], a child's steps too, and the child's own calls to [1]."""
    code = "SUBMIT(answer=llm_query('top') + ' / ' + rlm_query('sub task'))"
    pred, _ = run(lambda i: code, sub_lms=lms, sub_lm_by_depth=["strong", "fast"], max_depth=1)
    assert pred.answer == "strong:top / strong-child:fast:x"
    llm_top, child = pred.trace.subcalls
    assert (llm_top.model, child.model) == ("strong", "strong")
    assert [n.model for n in child.subcalls] == ["fast"]
    assert pred.trace.totals()["by_model"]["fast"]["calls"] == 1


def test_without_routing_sub_calls_use_sub_lm_and_the_trace_names_it():
    sub = sub_model("only", 0.0)
    pred, _ = run(lambda i: "SUBMIT(answer=llm_query('hi'))", sub_lm=sub)
    assert pred.answer == "only:hi"
    assert pred.trace.subcalls[0].model == "scripted/only"


@pytest.mark.parametrize(
    ("settings", "error", "says"),
    [
        ({"sub_lms": {"fast": "gpt"}}, TypeError, "identifier names to LMs"),
        ({"sub_lms": []}, TypeError, "non-empty dict"),
        ({"sub_lm_by_depth": ["fast"]}, ValueError, "not in sub_lms"),
        ({"sub_lm_by_depth": "fast"}, TypeError, "list of sub_lms names"),
    ],
)
def test_bad_routing_is_refused_at_construction(settings, error, says):
    with pytest.raises(error, match=says):
        RLM("question -> answer", **settings)


@pytest.mark.real_model
def test_a_named_embedded_model_answers_through_the_sandbox():
    from dspy_outlines import OutlinesLM

    local = OutlinesLM(max_tokens=16)
    pred, _ = run(
        lambda i: "SUBMIT(answer=llm_query('Name one color.', model='local'))",
        repl=SubprocessREPL,
        sub_lms={"local": local},
    )
    assert pred.answer.strip() and not pred.answer.startswith("[ERROR]")
    (node,) = pred.trace.subcalls
    assert node.model == "local" and node.usage["completion_tokens"] > 0
    assert pred.trace.totals()["by_model"]["local"]["calls"] == 1
