"""Drop-in for dspy.RLM across its API generations (3.1-3.2, 3.3, 3.4), and its validation."""

import inspect

import dspy
import pytest
from dspy.primitives.local_interpreter import LocalInterpreter
from dspy.utils import DummyLM

from dspy_rlm import RLM, InProcessREPL, Submitted

from .scripted import act


def _lm():
    return DummyLM([act("SUBMIT(answer=context[:5])")])


def test_constructor_defaults_match_dspy():
    ours = inspect.signature(RLM.__init__).parameters
    theirs = inspect.signature(dspy.RLM.__init__).parameters
    for name in ("signature", "max_iters", "max_llm_calls", "max_output_chars", "verbose", "tools", "sub_lm"):
        assert name in ours
        if theirs[name].default is not inspect.Parameter.empty:
            assert ours[name].default == theirs[name].default, name
    assert ours["interpreter_factory"].default is None


def test_public_attributes_and_predictors():
    rlm = RLM("context, query -> answer", max_iters=7, tools=[len])
    assert rlm.max_iters == 7 and set(rlm.tools) == {"len"}
    assert isinstance(rlm.generate_action, dspy.Predict) and isinstance(rlm.extract, dspy.Predict)
    assert set(rlm.generate_action.signature.output_fields) == {"reasoning", "code"}
    # dspy's outputs, then our optional notes field (a reply without it still parses: see test_rlm_loop)
    assert list(rlm.extract.signature.output_fields) == ["answer", "extraction_notes"]
    assert not rlm.extract.signature.output_fields["extraction_notes"].is_required()
    assert {name for name, _ in rlm.named_predictors()} == {"generate_action", "extract"}
    assert list(rlm.signature.input_fields) == ["context", "query"]


def test_dspy_31_names_max_iterations_and_interpreter_instance():
    interp = LocalInterpreter()
    rlm = RLM("context -> answer", max_iterations=3, interpreter=interp)
    assert rlm.max_iters == 3
    with dspy.context(lm=_lm()):
        pred = rlm(context="hello world")
    assert pred.answer == "hello" and isinstance(pred.result, Submitted)
    assert interp.execute("print(1 + 1)").strip() == "2"  # caller-owned: not shut down
    interp.shutdown()


def test_dspy_33_interpreter_as_first_positional_argument():
    repl = InProcessREPL()
    with dspy.context(lm=_lm()):
        pred = RLM("context -> answer")(repl, context="hello world")
    assert pred.answer == "hello"


def test_dspy_34_interpreter_factory_in_forward_and_settings():
    made = []

    def factory():
        made.append(LocalInterpreter())
        return made[-1]

    with dspy.context(lm=_lm()):
        assert RLM("context -> answer")(context="hello world", interpreter_factory=factory).answer == "hello"
    with dspy.context(lm=_lm(), interpreter_factory=factory):
        assert RLM("context -> answer")(context="hello world").answer == "hello"
    assert len(made) == 2


def test_forward_and_aforward_exist_with_dspy_signature():
    assert callable(RLM.forward) and inspect.iscoroutinefunction(RLM.aforward)
    assert "interpreter_factory" in inspect.signature(RLM.forward).parameters


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"tools": {"f": len}}, TypeError, "tools must be a list"),
        ({"tools": [42]}, TypeError, "must be callable"),
        ({"tools": [dspy.Tool(len, name="llm_query")]}, ValueError, "conflicts with built-in"),
        ({"max_iters": 0}, ValueError, "max_iters"),
        ({"interpreter_factory": LocalInterpreter()}, TypeError, "interpreter instance"),
        ({"max_iters": 5, "max_iterations": 6}, ValueError, "pass one"),
    ],
)
def test_constructor_validation(kwargs, error, match):
    with pytest.raises(error, match=match):
        RLM("context -> answer", **kwargs)


@pytest.mark.parametrize(
    "signature, match",
    [
        ("llm_query -> answer", "conflict with built-in"),
        ("peek, context -> answer", "conflict with built-in"),
        ("context -> trajectory", "conflict with RLM result metadata"),
    ],
)
def test_signature_validation(signature, match):
    with pytest.raises(ValueError, match=match):
        RLM(signature)


def test_forward_requires_declared_inputs_only():
    rlm = RLM("context, query -> answer")
    with pytest.raises(ValueError, match="Missing required inputs: \\['query'\\]"):
        rlm(context="x")
    with pytest.raises(ValueError, match="Unexpected inputs"):
        rlm(context="x", query="q", other=1)
    with pytest.raises(TypeError, match="keyword arguments"):
        rlm("positional text", query="q")


def test_a_dspy_rlm_script_drives_ours():
    """The same DummyLM script (reasoning/code, then extract outputs) gives the same answers in both."""
    script = [
        {"reasoning": "look", "code": "print(context[:3])"},
        {"reasoning": "go", "code": "print('x')"},
        {"answer": "extracted"},
    ]
    with dspy.context(lm=DummyLM(list(script))):
        ours = RLM("context -> answer", max_iters=2)(context="abcdef")
    assert ours.answer == "extracted" and [e["output"] for e in ours.trajectory] == ["abc", "x"]
    assert list(ours.trajectory[0]) == ["reasoning", "code", "output"]
