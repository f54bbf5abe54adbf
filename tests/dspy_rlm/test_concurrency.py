"""Async and threads: acall with async tools and async sub-calls; dspy.Evaluate(num_threads=8) without cross-talk."""

from __future__ import annotations

import asyncio
import re

import dspy

from dspy_rlm import RLM, InProcessREPL
from tests.dspy_rlm.scripted_lm import AsyncScriptedLM, ScriptedLM, action, fields


async def test_acall_with_async_tool_and_async_sub_calls():
    loop = asyncio.get_running_loop()
    seen_loops = []

    async def lookup(key: str) -> str:
        """Look a key up (async)."""
        seen_loops.append(asyncio.get_running_loop())
        await asyncio.sleep(0.01)
        return f"value-of-{key}"

    def respond(call):
        if call.role == "llm":
            return "sub:" + call.user
        if call.role == "extract":
            return fields(answer="x")
        if call.role == "sub":
            return action("SUBMIT(answer=lookup(key=task) + '+' + llm_query('deep'))")
        return action(
            "a = lookup('k1')\nb = llm_query_batched(['p1', 'p2'])\nc = rlm_query('k2')\n"
            "SUBMIT(answer=' '.join([a, *b, c]))"
        )

    lm = AsyncScriptedLM(respond, delay=0.01)
    rlm = RLM("question -> answer", tools=[lookup], max_depth=1, interpreter_factory=InProcessREPL)
    with dspy.context(lm=lm):
        pred = await rlm.acall(question="q")
    assert pred.answer == "value-of-k1 sub:p1 sub:p2 value-of-k2+sub:deep"
    assert seen_loops[0] is loop  # the root's async tool ran on the caller's event loop
    assert sorted(lm.roles()) == ["action", "llm", "llm", "llm", "sub"]
    assert pred.trace.usage["llm_calls"] == 4  # 2 batched prompts + the child's step + its llm_query


async def test_acall_runs_concurrently_on_one_loop():
    def respond(call):
        question = re.search(r"value: '(q\d+)'", call.user).group(1)
        return action(f"SUBMIT(answer={question!r} + '!')")

    rlm = RLM("question -> answer", interpreter_factory=InProcessREPL)
    with dspy.context(lm=AsyncScriptedLM(respond, delay=0.05)):
        preds = await asyncio.gather(*(rlm.acall(question=f"q{i}") for i in range(6)))
    assert [p.answer for p in preds] == [f"q{i}!" for i in range(6)]


def test_evaluate_num_threads_8_without_cross_talk():
    def respond(call):
        if call.role == "llm":
            return call.user.upper()
        if call.role == "extract":
            return fields(answer="x")
        if call.iteration == 1:
            return action("secret = question[::-1]\nshout = llm_query('say ' + question)\nprint(secret)")
        return action("SUBMIT(answer=question + '|' + secret + '|' + shout)")

    # The default backend: 8 threads start sandbox workers at once (forks are serialized and retried
    # against filelock's fork audit hook, which refuses concurrent forks).
    rlm = RLM("question -> answer")
    devset = [dspy.Example(question=f"item-{i:02d}").with_inputs("question") for i in range(16)]

    def metric(example, pred, trace=None):
        q = example.question
        return pred.answer == f"{q}|{q[::-1]}|SAY {q.upper()}"

    with dspy.context(lm=ScriptedLM(respond, delay=0.02)):
        result = dspy.Evaluate(devset=devset, metric=metric, num_threads=8)(rlm)
    assert result.score == 100.0
    for example, pred, score in result.results:
        q = example.question
        assert score and pred.trace.task == f"question={q}"
        assert pred.trajectory[0]["output"].strip() == q[::-1]
        assert [n.task for n in pred.trace.subcalls] == [f"say {q}"]
        assert pred.trace.usage["llm_calls"] == 1 and pred.trace.usage["iterations"] == 2
