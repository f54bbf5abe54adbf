"""The step-policy interface: the loop asks the policy, sub-RLMs inherit it, users bring their own, and the
task input is chosen by the signature (not by length alone)."""

from __future__ import annotations

import dspy
import pytest

from dspy_rlm import RLM
from dspy_rlm.profiles.base import PolicyRun, StepPolicy, task_split
from dspy_rlm.profiles.default import BasePolicyRun, DefaultPolicy
from dspy_rlm.profiles.resolve import resolve_policy
from dspy_rlm.profiles.steps import SmallPolicy

from .test_profiles import UNRANKED, ScriptedLocalLM

SMALL_TEXT = "Answer the query by writing Python in a REPL"  # the small policy's compact instructions


def test_built_in_policies_have_the_protocol_shape():
    assert isinstance(DefaultPolicy(), StepPolicy) and isinstance(SmallPolicy(), StepPolicy)
    assert isinstance(resolve_policy("small", None), SmallPolicy)
    assert isinstance(resolve_policy("auto", ScriptedLocalLM([])), SmallPolicy)
    assert isinstance(resolve_policy("auto", None), DefaultPolicy)
    with pytest.raises(TypeError, match="StepPolicy"):
        RLM("context, query -> answer", policy=42)
    with pytest.raises(ValueError, match="not both"):
        RLM("context, query -> answer", policy="small", profile="default")


def test_a_sub_rlm_under_the_small_profile_uses_the_small_policy():
    codes = [
        "x = rlm_query('Find the code word', context); print(x)",  # root, step 1
        "print(search(context, 'code'))",  # the child, step 1
        "SUBMIT(answer='heron')",  # the child, step 2
        "SUBMIT(answer=x)",  # root, step 2
    ]
    lm = ScriptedLocalLM(codes)
    context = "line one\nthe code word is heron\nline three"
    with dspy.context(lm=lm):
        pred = RLM("context, query -> answer", max_iters=4, max_depth=1, grounded_submit=False, profile=UNRANKED)(
            context=context, query="What is the code word?"
        )
    assert pred.answer == "heron"
    # this scripted LM writes code the grounded moves never offered: its SUBMITs are judged by value, and no
    # grounded read backs 'heron', so the run ends a labelled guess (the embedded model stays on the moves)
    assert pred.result.kind == "extracted" and "guess" in pred.result.notes
    child = pred.trace.subcalls[0]
    assert "profile: small" in child.warnings
    action_prompts = [p for p in lm.prompts if "`code`" in p[0]["content"]]
    assert len(action_prompts) == 4
    assert all(SMALL_TEXT in p[0]["content"] for p in action_prompts)  # root and child alike
    # the child's search printed `line N:` rows: the small policy's helper style
    assert child.iterations[0].code_executions[0].stdout.startswith("line 2:")


class RecordingPolicy:
    """A user's policy: the default behaviour, plus a note in every step's budget and a refused first SUBMIT."""

    name = "recording"

    def __init__(self) -> None:
        self.steps: list[int] = []

    def start(self, run):
        policy = self

        class Run(BasePolicyRun):
            refused = False

            def prepare(self, step):
                policy.steps.append(step.index)
                step.kwargs["budget"] = "custom budget line"

            async def check_submit(self, values, outputs, variables):
                if not Run.refused:
                    Run.refused = True
                    return "Check your answer once more."
                return None

        return Run(self.name, __import__("dspy_rlm.profiles", fromlist=["DEFAULT"]).DEFAULT, run)


def test_a_users_policy_shapes_the_steps_and_checks_submits():
    policy = RecordingPolicy()
    lm = ScriptedLocalLM(["SUBMIT(answer='a')", "SUBMIT(answer='b')"])
    with dspy.context(lm=lm, adapter=dspy.JSONAdapter()):
        pred = RLM("context, query -> answer", max_iters=3, policy=policy)(context="text", query="q?")
    assert pred.answer == "b" and policy.steps == [1, 2]
    assert pred.trajectory[0]["output"].endswith("Check your answer once more.")
    assert "custom budget line" in lm.prompts[0][-1]["content"]
    assert isinstance(policy.start, object) and isinstance(BasePolicyRun, type)
    assert issubclass(BasePolicyRun, object) and isinstance(
        BasePolicyRun("x", __import__("dspy_rlm.profiles", fromlist=["DEFAULT"]).DEFAULT, _view()), PolicyRun
    )


def _view():
    from dspy_rlm.profiles.base import RunView
    from dspy_rlm.trace import TraceNode

    rlm = RLM("context, query -> answer")
    return RunView(rlm.config, rlm.run_predictors(), {"context": "c", "query": "q"}, TraceNode(task="q"), None)


@pytest.mark.parametrize(
    "signature, inputs, task_field, task",
    [
        ("context, query -> answer", {"context": "x" * 10, "query": "a long question " * 40}, None, ["query"]),
        ("document, question -> answer", {"document": "short", "question": "Which one?"}, None, ["question"]),
        ("report, ask -> answer", {"report": "r" * 500, "ask": "What?"}, None, ["ask"]),  # the shortest text
        ("report, ask -> answer", {"report": "r", "ask": "What is it?"}, "ask", ["ask"]),
        ("context -> answer", {"context": "only data"}, None, []),
    ],
)
def test_the_task_input_comes_from_the_signature(signature, inputs, task_field, task):
    from dspy.signatures.signature import ensure_signature

    question, data = task_split(ensure_signature(signature), inputs, task_field)
    assert list(question) == task and set(data) == set(inputs) - set(task)


def test_a_short_context_is_data_and_a_long_question_is_the_task():
    """A 70-character context is still data: its value is offered to the model, not taken for the question."""
    lm = ScriptedLocalLM(["print(search(context, 'incident'))", "SUBMIT(answer='INC-4821')"])
    with dspy.context(lm=lm):
        pred = RLM("context, query -> answer", max_iters=3, profile=UNRANKED)(
            context="2024-05-17 ERROR payment-gateway: opened incident INC-4821", query="What is the error id?"
        )
    assert pred.answer == "INC-4821"  # the value reached the answer (its kind says whether it was supported)
    first = lm.prompts[0][-1]["content"]
    assert "- query: 'What is the error id?'" in first and "context: text, 58 chars" in first
    with pytest.raises(ValueError, match="task_field='nope'"):
        RLM("context, query -> answer", task_field="nope")
