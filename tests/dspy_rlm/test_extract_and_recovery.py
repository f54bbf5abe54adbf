import dspy
import pytest
from dspy.utils import DummyLM

from dspy_rlm import RLM, Extracted, Submitted
from dspy_rlm.extract import confidence
from dspy_rlm.recovery import RecoveryTracker
from dspy_rlm.repl.base import ErrorInfo
from dspy_rlm.repl.inprocess import InProcessREPL

from .scripted import act


@pytest.mark.parametrize(
    "outputs, variables, history, expected",
    [
        ({"a": "42"}, "- x = int: 42", [{"output": "42"}], 0.99),
        ({"a": "42"}, "- x = int: 42", [], 0.8),
        ({"a": "42"}, "", [{"output": "it is 42"}], 0.7),
        ({"a": "42"}, "", [], 0.5),
        ({"a": "42", "b": None}, "", [], 0.35),
        ({"a": None}, "", [], 0.2),
    ],
)
def test_confidence_rule(outputs, variables, history, expected):
    assert confidence(outputs, history, variables) == pytest.approx(expected)


def test_fix_step_ids_and_clearing_on_success():
    t = RecoveryTracker(max_fix_attempts=3)
    msg = t.on_failure(3, 1, ErrorInfo("NameError", "name 'df' is not defined", line=4, source_line="df.head()"))
    assert msg.startswith("[FIX 3.1] Fix: NameError: name 'df' is not defined at line 4")
    assert "Offending line 4: df.head()" in msg and "(fix 3.1.1)" in msg
    t.on_failure(4, 1, ErrorInfo("NameError", "again"))
    assert t.history["3.1"].attempts == 2
    t.on_success(4)  # a later block of the failing answer is no fix
    assert t.open is not None
    t.on_success(5)
    t.on_failure(6, 2, ErrorInfo("KeyError", "'k'"))
    assert set(t.history) == {"3.1", "6.2"} and t.history["6.2"].attempts == 1


def test_scripted_lm_that_fixes_on_the_second_try():
    lm = DummyLM([act("print(df)"), act("df = [1, 2]\nprint(len(df))"), act("SUBMIT(answer=str(len(df)))")])
    with dspy.context(lm=lm):
        pred = RLM("context -> answer")(context="c")
    assert pred.answer == "2"
    assert pred.trajectory[0]["output"].startswith("[FIX 1.1] Fix: NameError")
    fixes = pred.trace.fix_history
    assert {k: v for k, v in fixes["1.1"].items() if k != "failures"} == {
        "attempts": 1,
        "fixTaskIds": ["1.1.1"],
        "errors": ["NameError: name 'df' is not defined at line 1"],
        "lastError": "NameError: name 'df' is not defined at line 1",
    }
    assert fixes["1.1"]["failures"] == [
        {
            "iteration": 1,
            "block": 1,
            "type": "NameError",
            "message": "name 'df' is not defined",
            "line": 1,
            "source_line": "print(df)",
            "code": "print(df)",
        }
    ]


def test_never_fixed_goes_on_by_default_and_the_model_is_told_to_change_approach():
    lm = DummyLM([act("1/0")] * 4 + [act("print('other way')"), act("SUBMIT(answer='done')")])
    with dspy.context(lm=lm):
        pred = RLM("context -> answer", max_fix_attempts=3)(context="c")
    assert isinstance(pred.result, Submitted) and pred.answer == "done"
    assert pred.trajectory[3]["output"].startswith("[FIX 1.1] Max fix attempts (3) reached for step 1.1")
    assert "different approach" in pred.trajectory[3]["output"]


def test_end_on_failed_fixes_reaches_the_limit_then_extraction_follows():
    lm = DummyLM([act("1/0")] * 4 + [{"answer": "extracted anyway"}])
    with dspy.context(lm=lm):
        pred = RLM("context -> answer", max_fix_attempts=3, end_on_failed_fixes=True)(context="c")
    assert isinstance(pred.result, Extracted) and pred.result.limit == "fix_attempts"
    assert pred.result.reason.startswith("Max fix attempts (3) reached for step 1.1. Fix history: [")
    assert len(pred.trajectory) == 4 and pred.answer == "extracted anyway"


def test_a_clean_block_after_a_failing_one_in_the_same_answer_is_no_fix():
    # Each answer: a failing block, then a block that runs. The step must still count up to the limit.
    step = {"reasoning": "r", "code": "```python\n1/0\n```\n```python\nprint('fine')\n```"}
    lm = DummyLM([step] * 4 + [{"answer": "extracted"}])
    with dspy.context(lm=lm):
        pred = RLM(
            "context -> answer", max_fix_attempts=3, end_on_failed_fixes=True, interpreter_factory=InProcessREPL
        )(context="c")
    assert pred.result.limit == "fix_attempts"
    assert pred.trace.fix_history["1.1"]["attempts"] == 3


def test_recovery_off_behaves_like_dspy():
    lm = DummyLM([act("1/0")] * 5 + [{"answer": "x"}])
    with dspy.context(lm=lm):
        pred = RLM("context -> answer", recovery=False, max_iters=5)(context="c")
    assert pred.result.limit == "iterations" and pred.trace.fix_history == {}
    assert all(e["output"].startswith("[Error] ZeroDivisionError") for e in pred.trajectory)
