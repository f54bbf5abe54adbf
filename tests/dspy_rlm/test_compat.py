"""Drop-in for dspy.RLM across its API generations (3.1-3.2, 3.3, 3.4), and its validation.

The API-generation tests pin the forms each dspy release accepted. Everything about names and behaviour is
read from the installed dspy instead: the second half runs dspy.RLM (on its LocalInterpreter) and ours side by
side on the same DummyLM script and asserts the same outcome, whatever dspy version is installed.
"""

import functools
import inspect
import logging
import warnings

import dspy
import pytest
from dspy.primitives.local_interpreter import LocalInterpreter
from dspy.utils import DummyLM

from dspy_rlm import RLM, InProcessREPL, Submitted
from dspy_rlm.config import SETTINGS
from dspy_rlm.names import EXTRA_NAMES, RESULT_EXTRAS
from dspy_rlm.prediction import run_info
from dspy_rlm.profiles import small

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
        ({"max_iters": 0}, ValueError, "max_iters must be an integer >= 1, or None for no limit"),
        ({"max_iters": -1}, ValueError, "max_iters must be an integer >= 1, or None for no limit"),
        ({"max_time": 0}, ValueError, "max_time must be a number above 0"),
        ({"max_time": -5}, ValueError, "max_time must be a number above 0"),
        ({"max_tokens": 0}, ValueError, "max_tokens must be an integer >= 1"),
        ({"max_cost": 0}, ValueError, "max_cost must be a number above 0"),
        ({"max_llm_calls": -1}, ValueError, "max_llm_calls must be an integer >= 0"),
        ({"max_depth": -1}, ValueError, "max_depth must be an integer >= 0; got -1"),
        ({"interpreter_factory": LocalInterpreter()}, TypeError, "interpreter instance"),
        ({"max_iters": 5, "max_iterations": 6}, ValueError, "pass one"),
    ],
)
def test_constructor_validation(kwargs, error, match):
    with pytest.raises(error, match=match):
        RLM("context -> answer", **kwargs)


def test_forward_requires_declared_inputs_only():
    rlm = RLM("context, query -> answer")
    with pytest.raises(ValueError, match="Missing required inputs: \\['query'\\]"):
        rlm(context="x")
    with pytest.raises(ValueError, match="Unexpected inputs"):
        rlm(context="x", query="q", other=1)
    with pytest.raises(TypeError, match="keyword arguments"):
        rlm("positional text", query="q")


def test_a_signature_without_outputs_is_refused_at_construction():
    with pytest.raises(ValueError, match=r'no output fields.*RLM\("context, query -> answer"\)'):
        RLM("context, query ->")


def test_no_lm_configured_raises_before_the_run():
    with dspy.context(lm=None), pytest.raises(ValueError, match="No LM is loaded"):
        RLM("context -> answer")(context="x")


# -- side by side with the installed dspy.RLM ------------------------------------------------------------
def _dspy_rlm(signature, **kwargs):
    return dspy.RLM(signature, interpreter_factory=LocalInterpreter, **kwargs)


BOTH = pytest.mark.parametrize("make", [_dspy_rlm, RLM], ids=["dspy", "ours"])


def _outcome(build):
    """'ok' when ``build()`` works, else the exception type's name."""
    try:
        with warnings.catch_warnings():  # pydantic warns for a field shadowing a Signature attribute (`fields`)
            warnings.simplefilter("ignore")
            build()
    except (ValueError, TypeError) as exc:
        return type(exc).__name__
    return "ok"


#: Names to try: everything the installed dspy reserves, and every name ours puts in the REPL or the result.
_NAMES = sorted(
    {
        *getattr(dspy.RLM, "_RESERVED_SANDBOX_NAMES", ()),
        *getattr(dspy.RLM, "_RESERVED_RESULT_NAMES", ()),
        *EXTRA_NAMES,
        *RESULT_EXTRAS,
        "dspy",
        "_dspy_x",
        "interpreter",
        "checkpoint",
        "interpreter_factory",
        "context2",
    }
)


def _tool(name):
    def fn(q: str) -> str:
        """A user tool."""
        return f"tool:{q}"

    return dspy.Tool(fn, name=name)


@pytest.mark.parametrize("name", _NAMES)
def test_names_accepted_and_refused_as_in_the_installed_dspy(name):
    """A tool, input or output name works in ours exactly when it works in dspy.RLM."""
    builds = {
        "tool": lambda cls: cls("context -> answer", tools=[_tool(name)]),
        "input": lambda cls: cls(f"{name}, query -> answer"),
        "output": lambda cls: cls(f"context -> {name}"),
    }
    if not name.isidentifier() or name.startswith("_"):
        builds.pop("input"), builds.pop("output")  # not a signature field name in either
    for kind, build in builds.items():
        theirs = _outcome(lambda: build(functools.partial(dspy.RLM, interpreter_factory=LocalInterpreter)))
        assert _outcome(lambda: build(RLM)) == theirs, f"a {kind} named {name!r}: dspy says {theirs}"


@BOTH
@pytest.mark.parametrize("name", ["search", "peek", "summarize", "chunk_text", "rlm_query", "FINAL", "FINAL_VAR"])
def test_a_tool_named_like_one_of_our_helpers_is_the_users(make, name):
    with dspy.context(lm=DummyLM([act(f"SUBMIT(answer={name}(q='y'))")])):
        pred = make("context -> answer", tools=[_tool(name)])(context="abc")
    assert pred.answer == "tool:y"


def test_a_hidden_helper_is_named_in_the_prompt():
    rlm = RLM("context -> answer", tools=[_tool("search")])
    text = rlm.generate_action.signature.instructions
    assert "these names are your tools or inputs, not the built-in functions described above: `search`" in text
    assert "search(var" not in text and "peek(var" in text  # the helper's own line is gone, the others stay
    compact = small.instructions(rlm.signature, rlm.tools)  # the small profile's prompt says it too
    assert "not the built-in functions described above: `search`" in compact


@BOTH
@pytest.mark.parametrize("name", ["interpreter", "checkpoint", "search", "inputs", "FINAL"])
def test_an_input_named_like_our_runtime_or_helpers_is_the_users(make, name):
    with dspy.context(lm=DummyLM([act(f"SUBMIT(answer={name}[:3])")])):
        pred = make(f"{name} -> answer")(**{name: "abcdef"})
    assert pred.answer == "abc"


@BOTH
@pytest.mark.parametrize("name", RESULT_EXTRAS)
def test_an_output_field_named_like_our_extras_is_the_users(make, name):
    with dspy.context(lm=DummyLM([act(f"SUBMIT({name}='mine')")])):
        pred = make(f"context -> {name}")(context="abc")
    assert pred[name] == "mine" and getattr(pred, name) == "mine"


def test_our_result_and_trace_stay_reachable_whatever_the_outputs_are_named():
    with dspy.context(lm=DummyLM([act("SUBMIT(result='mine', trace='t')")])):
        pred = RLM("context -> result, trace")(context="abc")
    info = run_info(pred)
    assert (pred.result, pred.trace) == ("mine", "t")
    assert isinstance(info.result, Submitted) and isinstance(pred.rlm_result, Submitted)
    assert info.trace is pred.rlm_trace and pred.usage["iterations"] == 1


@BOTH
def test_failing_steps_never_end_the_run_before_max_iters(make):
    with dspy.context(lm=DummyLM([act("1/0")] * 6 + [act("SUBMIT(answer='late')")])):
        pred = make("context -> answer", max_iters=8)(context="abc")
    assert pred.answer == "late" and len(pred.trajectory) == 7


@BOTH
def test_the_call_over_max_llm_calls_fails_inside_the_repl_and_the_run_goes_on(make):
    sub = DummyLM([{"response": "s"}] * 5)
    script = [act("a = llm_query('1'); b = llm_query('2')"), act("c = llm_query('3')"), act("SUBMIT(answer='on')")]
    with dspy.context(lm=DummyLM(script)):
        pred = make("context -> answer", max_iters=5, max_llm_calls=2, sub_lm=sub)(context="abc")
    assert pred.answer == "on" and "LM call" in pred.trajectory[1]["output"]  # the third call failed, shown
    assert len(sub.history) == 2


@BOTH
def test_verbose_logs_each_step_and_the_repl_output(make, caplog):
    loggers = [logging.getLogger(name) for name in ("dspy", "dspy_rlm")]  # dspy's may not propagate to the root
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(caplog.handler)
        lg.setLevel(logging.INFO)
    try:
        with dspy.context(lm=DummyLM([act("print('seen-' + 'in-log')"), act("SUBMIT(answer='a')")])):
            make("context -> answer", verbose=True)(context="abc")
    finally:
        for lg, level in zip(loggers, levels):
            lg.removeHandler(caplog.handler)
            lg.setLevel(level)
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "RLM iteration 1/20" in text and "seen-in-log" in text


@BOTH
def test_the_trajectory_and_final_reasoning_have_dspys_shape(make):
    script = [{"reasoning": "look", "code": "print(context[:3])"}, {"reasoning": "go", "code": "print('x')"}]
    with dspy.context(lm=DummyLM([*script, {"answer": "extracted"}])):
        pred = make("context -> answer", max_iters=2)(context="abcdef")
    with dspy.context(lm=DummyLM([*script, {"answer": "extracted"}])):
        theirs = _dspy_rlm("context -> answer", max_iters=2)(context="abcdef")
    assert pred.answer == "extracted" and pred.final_reasoning == theirs.final_reasoning
    assert [list(e) for e in pred.trajectory] == [list(e) for e in theirs.trajectory]
    assert [e["output"] for e in pred.trajectory] == [e["output"] for e in theirs.trajectory]
    assert set(theirs.keys()) <= set(pred.keys())


@BOTH
def test_no_lm_configured_raises_as_in_dspy(make):
    with dspy.context(lm=None), pytest.raises(ValueError, match="No LM is loaded"):
        make("context -> answer")(context="x")


@pytest.mark.parametrize(
    "text", ["Done.\nFINAL(answer='x', n=2)", 'Done.\nFINAL({"answer": "x", "n": "2"})', "FINAL(answer='x', n=2)"]
)
def test_final_with_several_outputs_is_read(text):
    """Ours only (dspy.RLM has no FINAL): FINAL(...) with two outputs, as text outside code or as code."""
    with dspy.context(lm=DummyLM([{"reasoning": "done", "code": text}])):
        pred = RLM("context -> answer, n: int")(context="abc")
    assert (pred.answer, pred.n) == ("x", 2) and isinstance(pred.rlm_result, Submitted)


# -- settings: declared once, as fields of the run configuration ---------------------------------------------
def test_every_setting_is_an_argument_and_an_attribute_with_its_fields_default():
    rlm = RLM("context -> answer")
    for name, (path, default) in SETTINGS.items():
        assert getattr(rlm, name) == default, name
        assert functools.reduce(getattr, path, rlm.config) == default, name
    changed = RLM("context -> answer", max_time=5.0, repl_timeout=3.0, sub_max_iters=2)
    assert (changed.max_time, changed.config.repl.timeout_s, changed.config.child.sub_max_iters) == (5.0, 3.0, 2)


def test_an_unknown_setting_is_refused_with_the_closest_names():
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_iter'; did you mean max_iters"):
        RLM("context -> answer", max_iter=3)


def test_a_setting_assigned_later_is_validated_like_at_construction():
    rlm = RLM("context -> answer")
    rlm.max_iters = 3
    assert rlm.config.limits.max_iters == 3
    with pytest.raises(ValueError, match="max_iters must be an integer >= 1"):
        rlm.max_iters = 0


def test_the_repl_names_are_the_ones_names_py_declares():
    """The bridges, helpers and protocol functions in a REPL are exactly those dspy_rlm.names lists."""
    import dspy_rlm.names as names
    from dspy_rlm.bridges import RunState, make_bridges
    from dspy_rlm.budget import Budget
    from dspy_rlm.repl.executor import NamespaceExecutor
    from dspy_rlm.trace import TraceNode

    config = RLM("context -> answer").config
    bridges = make_bridges(RunState(config, Budget(config.limits), TraceNode(task="t")))
    assert set(bridges) == {*names.LLM_BRIDGES, *names.RLM_BRIDGES, names.MEDIA_BRIDGE}
    namespace = NamespaceExecutor({"context": "x"}, bridges, ["answer"]).namespace
    ours = {n for n in namespace if not n.startswith("__")} - {"context"}
    assert ours == {*names.EXTRA_NAMES, *names.LLM_BRIDGES, names.SUBMIT}
