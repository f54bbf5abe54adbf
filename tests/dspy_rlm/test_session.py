"""Sessions (dspy_rlm/session.py): one REPL over many calls, earlier turns in the prompt, budgets per call and
per session, use after close, a failed call leaving the session usable, checkpoints; dspy.History inputs."""

from __future__ import annotations

import dspy
import pytest

from dspy_rlm import RLM, InProcessREPL
from dspy_rlm.sandbox.backend import SubprocessREPL
from dspy_rlm.session import SessionClosed
from tests.dspy_rlm.scripted_lm import ScriptedLM, action, fields


class Script:
    """Answers action steps with ``steps[turn](iteration)`` (the turn read from the prompt); records prompts."""

    def __init__(self, steps, cost: float = 0.0):
        self.steps, self.prompts = steps, []
        self.lm = ScriptedLM(self.respond, cost=cost)

    def respond(self, call):
        if call.role == "extract":
            return fields(answer="extracted")
        self.prompts.append(call.user)
        turn = next((t for t in range(9, 1, -1) if f"This is turn {t} of a session" in call.user), 1)
        return action(self.steps[turn](call.iteration))


def rlm(**kwargs):
    kwargs.setdefault("interpreter_factory", InProcessREPL)
    return RLM("query -> answer", profile="default", **kwargs)


@pytest.mark.parametrize("factory", [InProcessREPL, SubprocessREPL], ids=["inprocess", "subprocess"])
def test_variables_persist_and_the_next_prompt_gives_the_earlier_turns(factory):
    script = Script(
        {1: lambda i: "total = 41\nSUBMIT(answer='set:' + query)", 2: lambda i: "SUBMIT(answer=str(total + 1))"}
    )
    with dspy.context(lm=script.lm), rlm(interpreter_factory=factory).session() as s:
        first, second = s(query="remember 41"), s(query="add one")
        assert s.repl is not None
    assert (first.answer, second.answer) == ("set:remember 41", "42")
    assert first.result.kind == second.result.kind == "submitted"
    prompt = script.prompts[-1]
    assert "This is turn 2 of a session" in prompt
    assert "turn 1 (submitted): query: remember 41 -> answer: set:remember 41" in prompt
    assert "Variables kept in the REPL from earlier turns: total (int: 41)" in prompt
    assert s.repl is None and len(s.turns) == 2 and s.spent.iterations == 2


def test_a_call_after_close_raises_and_says_what_to_do():
    script = Script({1: lambda i: "SUBMIT(answer='a')"})
    with dspy.context(lm=script.lm):
        with rlm().session() as s:
            s(query="q")
        with pytest.raises(SessionClosed, match="this session is closed; open a new one"):
            s(query="again")
        s.close()  # idempotent


def test_a_failed_call_leaves_the_session_usable():
    def first(i):
        raise RuntimeError("the provider is down")

    script = Script({1: first, 2: lambda i: "SUBMIT(answer='fine')"})

    def respond(call):
        if call.role == "extract" and "This is turn 2" not in call.user:
            raise RuntimeError("the provider is down")
        return Script.respond(script, call)

    script.lm.respond = respond
    with dspy.context(lm=script.lm), rlm().session() as s:
        failed = s(query="one")
        ok = s(query="two")
    assert failed.result.kind == "failed" and "provider is down" in failed.result.reason
    assert ok.answer == "fine" and ok.result.kind == "submitted"
    assert "turn 1 (failed)" in script.prompts[-1]


def test_session_budgets_hold_over_calls_on_top_of_each_calls_own():
    script = Script({t: (lambda i: "print(1)") for t in range(1, 5)}, cost=0.01)
    with dspy.context(lm=script.lm), rlm(max_iters=2).session(max_iters=3) as s:
        one, two, three = s(query="a"), s(query="b"), s(query="c")
    assert one.result.kind == "extracted" and one.result.fallback.allowed == 2  # the call's own limit
    assert two.result.kind == "extracted" and two.result.fallback.allowed == 1  # what the session had left
    assert three.result.kind == "failed" and "the session's max_iters=3 is spent (used 3)" in three.result.reason
    assert s.spent.iterations == 3
    with dspy.context(lm=script.lm), rlm(max_iters=5).session(max_cost=0.015) as s:
        first, second = s(query="a"), s(query="b")
    assert first.result.limit == "cost" and second.result.kind == "failed" and "max_cost=0.015" in second.result.reason
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_depth'"):
        rlm().session(max_depth=3)
    with pytest.raises(ValueError, match="max_cost must be a number above 0"):
        rlm().session(max_cost=0)


def test_a_session_checkpoint_brings_back_turns_and_variables(tmp_path):
    path = tmp_path / "session.ckpt"
    script = Script({1: lambda i: "notes = ['alpha']\nSUBMIT(answer='kept')", 2: lambda i: "SUBMIT(answer=notes[0])"})
    with dspy.context(lm=script.lm):
        with rlm().session(checkpoint=path) as s:
            s(query="keep alpha")
        with rlm().session(checkpoint=path) as again:
            pred = again(query="what did you keep?")
    assert pred.answer == "alpha" and len(again.turns) == 2
    assert "turn 1 (submitted): query: keep alpha -> answer: kept" in script.prompts[-1]
    assert "notes (restored from the session checkpoint)" in script.prompts[-1]


class Chat(dspy.Signature):
    """Answer the question in the light of the conversation."""

    history: dspy.History = dspy.InputField()
    question: str = dspy.InputField()
    answer: str = dspy.OutputField()


def test_a_dspy_history_input_is_shown_as_the_conversation_and_readable_in_the_repl():
    script = Script({1: lambda i: "SUBMIT(answer=history[-1]['answer'] + '!')"})
    convo = dspy.History(messages=[{"question": "capital of France?", "answer": "Paris"}])
    with dspy.context(lm=script.lm):
        pred = RLM(Chat, interpreter_factory=InProcessREPL, profile="default")(history=convo, question="sure?")
    assert pred.answer == "Paris!"
    assert "Conversation so far (`history`, a list of 1 dicts in the REPL):" in script.prompts[0]
    assert "- turn 1: question: capital of France?; answer: Paris" in script.prompts[0]


def test_acall_and_an_interpreter_the_caller_owns_stays_open():
    import asyncio

    script = Script({1: lambda i: "x = 1\nSUBMIT(answer='a')", 2: lambda i: "SUBMIT(answer=str(x + 1))"})
    mine = InProcessREPL()
    module = RLM("query -> answer", profile="default", interpreter=mine)

    async def two_turns(s):
        return [(await s.acall(query=q)).answer for q in ("one", "two")]

    with dspy.context(lm=script.lm), module.session() as s:
        answers = asyncio.run(two_turns(s))
    assert answers == ["a", "2"]
    assert mine.run("print(x)").stdout.strip() == "1"  # not shut down by the session: the caller's


def test_spent_session_sub_lm_calls_fail_inside_the_repl_and_the_turn_goes_on():
    code = "try:\n    r = llm_query('hi')\nexcept Exception as e:\n    r = type(e).__name__\nSUBMIT(answer=str(r))"
    script = Script({1: lambda i: code, 2: lambda i: code})
    respond = script.respond
    script.lm.respond = lambda call: "sub says hi" if call.role == "llm" else respond(call)
    with dspy.context(lm=script.lm), rlm().session(max_llm_calls=1) as s:
        first, second = s(query="one"), s(query="two")
    assert first.answer == "sub says hi"
    assert second.answer == "BudgetExhausted" and second.result.kind == "submitted"
