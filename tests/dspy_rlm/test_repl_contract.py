"""One contract, every REPL backend: state, errors with lines, SUBMIT / FINAL / FINAL_VAR, host calls."""

import pytest
from dspy.primitives.code_interpreter import CodeExecutionError, FinalOutput
from dspy.primitives.local_interpreter import LocalInterpreter

from dspy_rlm.repl.base import REBIND
from dspy_rlm.repl.foreign import ForeignREPL
from dspy_rlm.repl.inprocess import InProcessREPL
from dspy_rlm.sandbox.backend import SubprocessREPL

BACKENDS = {
    "subprocess-fork": lambda tools, fields: SubprocessREPL(tools, fields, timeout_s=10),
    "subprocess-spawn": lambda tools, fields: SubprocessREPL(tools, fields, timeout_s=10, start_method="spawn"),
    "inprocess": lambda tools, fields: InProcessREPL(tools, fields, timeout_s=10),
    "dspy-local": lambda tools, fields: ForeignREPL(LocalInterpreter(tools=tools), fields),
}


@pytest.fixture(params=list(BACKENDS))
def repl(request):
    tools = {"shout": lambda text: text.upper(), "llm_query": lambda prompt: f"LM says: {prompt}"}
    backend = BACKENDS[request.param](tools, ["answer"])
    backend.load_inputs({"context": "alpha beta gamma\nsecond line", "query": "what?"})
    backend.start()
    yield backend
    backend.shutdown()


class TestREPLContract:
    def test_inputs_are_variables(self, repl):
        res = repl.run("print(len(context), query)")
        assert res.ok and res.stdout.strip() == "28 what?"

    def test_state_persists_between_blocks(self, repl):
        assert repl.run("x = 41").ok
        assert repl.run("print(x + 1)").stdout.strip() == "42"

    def test_error_has_type_message_and_line(self, repl):
        res = repl.run("a = 1\nb = {}\nc = b['missing']")
        assert res.error is not None and res.error.type == "KeyError"
        assert "missing" in res.error.message
        if not isinstance(repl, ForeignREPL):  # DSPy's interpreters report no line numbers
            assert res.error.line == 3 and res.error.source_line == "c = b['missing']"

    def test_syntax_error_is_recoverable(self, repl):
        res = repl.run("def broken(:\n  pass")
        assert res.error.type == "SyntaxError"
        assert repl.run("print('still alive')").stdout.strip() == "still alive"

    def test_submit_ends_with_outputs(self, repl):
        res = repl.run("x = 'found'\nSUBMIT(answer=x)\nprint('not reached')")
        assert res.final is not None and res.final.value == {"answer": "found"}
        assert "not reached" not in res.stdout

    def test_final_and_final_var(self, repl):
        assert repl.run("FINAL('direct')").final.value == {"answer": "direct"}
        res = repl.run("result = 7 * 6\nFINAL_VAR('result')")
        assert res.final.value == {"answer": 42}

    def test_submit_cannot_be_swallowed_by_except_exception(self, repl):
        res = repl.run("try:\n    SUBMIT(answer='kept')\nexcept Exception:\n    print('swallowed')")
        assert res.final is not None and res.final.value == {"answer": "kept"}

    def test_host_functions_cross_the_boundary(self, repl):
        res = repl.run("print(shout('hi')); print(llm_query('ping'))")
        assert res.stdout.split("\n")[:2] == ["HI", "LM says: ping"]

    def test_helpers_are_available(self, repl):
        res = repl.run("print(count_matches(context, 'a'))")
        assert res.ok and res.stdout.strip() == "5"

    def test_a_sessions_next_inputs_keep_the_variables(self, repl):
        """Sessions (session.py): the next call's inputs replace the last call's; the model's variables stay."""
        assert repl.run("kept = query + '!'").ok
        if REBIND in repl.capabilities:
            repl.rebind_inputs({"context": "new text", "query": "next?"})
        else:  # a foreign interpreter takes the inputs with every block
            repl.load_inputs({"context": "new text", "query": "next?"})
        res = repl.run("print(kept, query, context, inputs['query'] if 'inputs' in globals() else query)")
        assert res.ok and res.stdout.strip() == "what?! next? new text next?"
        assert "query" not in repl.snapshot()  # still an input, not a variable of the model


@pytest.mark.parametrize("name", [n for n in BACKENDS if n != "dspy-local"])
def test_native_backends_honour_dspys_execute_contract(name):
    repl = BACKENDS[name]({}, ["answer"])
    repl.load_inputs({"context": "c"})
    try:
        assert repl.execute("print('out')").strip() == "out"
        assert repl.execute("SUBMIT(answer=context)") == FinalOutput({"answer": "c"})
        with pytest.raises(CodeExecutionError, match="ZeroDivisionError"):
            repl.execute("1/0")
        with pytest.raises(SyntaxError):
            repl.execute("def (")
        assert repl.execute("print(extra)", variables={"extra": 5}).strip() == "5"
    finally:
        repl.shutdown()
