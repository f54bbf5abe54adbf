"""The loop with scripted LMs: protocol, typing, fallback extraction, and that every run ends typed."""

import dspy
import pytest
from dspy.utils import DummyLM

from dspy_rlm import RLM, Extracted, Failed, Submitted

from .scripted import AlwaysFailingLM, FailingExtractLM, act, prompts_of

CONTEXT = "invoice 1 OVERDUE\ninvoice 2 paid\ninvoice 3 OVERDUE\n"


def run(script, signature="context, query -> answer", lm=None, **kwargs):
    lm = lm or DummyLM(script)
    rlm = RLM(signature, **{"max_iters": 5, **kwargs})
    with dspy.context(lm=lm):
        pred = rlm(context=CONTEXT, query="How many invoices are overdue?")
    return pred, lm


def test_submit_after_exploring():
    pred, _ = run([act("n = count_matches(context, 'OVERDUE')\nprint(n)"), act("SUBMIT(answer=str(n))")])
    assert pred.answer == "2"
    assert isinstance(pred.result, Submitted) and pred.result.iterations == 2 and pred.result.confidence == 1.0
    assert [e["output"] for e in pred.trajectory] == ["2", "FINAL: {'answer': '2'}"]
    assert pred.final_reasoning == "step"
    assert pred.trace.answer_source == "submit"


def test_values_are_coerced_to_output_types_and_bad_values_are_reported():
    pred, _ = run([act("SUBMIT(count='two')"), act("SUBMIT(count='2')")], signature="context, query -> count: int")
    assert pred.count == 2 and isinstance(pred.count, int)
    assert "[Type Error] count: expected int" in pred.trajectory[0]["output"]


def test_missing_output_field_is_recoverable():
    pred, _ = run(
        [act("SUBMIT(total=1)"), act("SUBMIT(total=1, names=['a'])")],
        signature="context, query -> total: int, names: list[str]",
    )
    assert "Missing output fields: ['names']" in pred.trajectory[0]["output"]
    assert pred.total == 1 and pred.names == ["a"]


@pytest.mark.parametrize(
    "code, source",
    [
        ("FINAL('direct')", "final_direct"),
        ("best = 'from var'\nFINAL_VAR('best')", "final_var"),
    ],
)
def test_final_and_final_var_in_code(code, source):
    pred, _ = run([act(code)])
    assert pred.result.source == source and pred.trace.answer_source == source
    assert pred.answer in ("direct", "from var")


def test_final_var_written_as_text_outside_code():
    pred, _ = run([{"reasoning": "r", "code": "```python\nresult = 'two'\n```\nFINAL_VAR(result)"}])
    assert pred.answer == "two" and pred.result.source == "final_var"


def test_several_blocks_run_in_order_and_stop_at_the_first_final():
    code = (
        "I will count first.\n```python\nn = 2\n```\nThen submit.\n```repl\nSUBMIT(answer=str(n))\n```\n"
        "```python\nprint('SHOULD NOT RUN')\n```"
    )
    pred, _ = run([{"reasoning": "r", "code": code}])
    assert pred.answer == "2"
    iteration = pred.trace.iterations[0]
    assert [e.code for e in iteration.code_executions] == ["n = 2", "SUBMIT(answer=str(n))"]
    assert "I will count first." in iteration.thinking


def test_max_iters_ends_in_extraction_with_confidence():
    script = [act("found = 'two'\nprint(found)"), act("print('still looking')"), {"answer": "two"}]
    pred, lm = run(script, max_iters=2)
    assert isinstance(pred.result, Extracted)
    assert pred.answer == "two" and pred.result.limit == "iterations"
    assert pred.result.confidence == pytest.approx(0.99)  # in the variables (+0.3) and the history (+0.2)
    assert pred.final_reasoning == "Extract forced final output"
    extraction_prompt = prompts_of(lm)[-1]
    assert "found = str, len=3: two" in extraction_prompt and "reached the iterations limit" in extraction_prompt
    assert "Budget exhausted, answer was forced" in pred.trace.warnings


def test_extraction_failure_ends_failed_with_partial_outputs_and_history():
    lm = FailingExtractLM([act("SUBMIT(count='many')")])
    pred, _ = run(None, signature="context, query -> count: int", lm=lm, max_iters=1)
    assert isinstance(pred.result, Failed)
    assert pred.result.partial_outputs == {"count": "many"}
    assert pred.count == "many" and pred.result.confidence == 0.0
    assert len(pred.result.history) == 1 and "extraction LM is down" in pred.result.reason


def test_lm_that_always_fails_still_ends_typed():
    lm = AlwaysFailingLM()
    pred, _ = run(None, lm=lm, max_iters=10)
    assert isinstance(pred.result, Failed) and pred.answer is None
    assert "3 times in a row" in pred.result.reason
    assert len(pred.trajectory) == 3


@pytest.mark.parametrize("code", ["", "   ", "None"])
def test_empty_code_is_told_to_the_model_and_the_run_goes_on(code):
    pred, _ = run([{"reasoning": "thinking only", "code": code}, act("SUBMIT(answer='ok')")])
    assert pred.answer == "ok"
    assert pred.trajectory[0]["output"].startswith("[No code]") or "no output" in pred.trajectory[0]["output"]


def test_rebinding_an_input_keeps_the_original_reachable():
    pred, _ = run([act("context = context.upper()"), act("SUBMIT(answer=inputs['context'][:7])")])
    assert "inputs['context']" in pred.trajectory[0]["output"]
    assert pred.answer == "invoice"


def test_root_prompt_has_summaries_not_the_content():
    big = "filler sentence. " * 60_000 + "the needle is 4242. " + "more filler. " * 60_000
    lm = DummyLM([act("SUBMIT(answer='4242')")])
    with dspy.context(lm=lm):
        RLM("context, query -> answer")(context=big, query="find the needle")
    prompt = prompts_of(lm)[0]
    assert "4242" not in prompt and len(prompt) < 12_000
    assert "1.7 MB" in prompt and "RequiresChunking" not in prompt and "never print it whole" in prompt
    assert "find the needle" in prompt


def test_errors_show_type_line_and_source():
    pred, _ = run([act("x = 1\ny = {}['k']"), act("SUBMIT(answer='done')")])
    out = pred.trajectory[0]["output"]
    assert "KeyError" in out and "line 2" in out and "y = {}['k']" in out


def test_recovery_off_shows_plain_errors():
    pred, _ = run([act("1/0"), act("SUBMIT(answer='done')")], recovery=False)
    assert pred.trajectory[0]["output"].startswith("[Error] ZeroDivisionError at line 1")


async def test_acall_runs_the_same_loop():
    lm = DummyLM([act("SUBMIT(answer='async ok')")])
    with dspy.context(lm=lm):
        pred = await RLM("context, query -> answer").acall(context="c", query="q")
    assert pred.answer == "async ok" and isinstance(pred.result, Submitted)


def test_sync_call_inside_a_running_event_loop():
    import asyncio

    async def main():
        lm = DummyLM([act("SUBMIT(answer='nested ok')")])
        with dspy.context(lm=lm):
            return RLM("context, query -> answer")(context="c", query="q")

    assert asyncio.run(main()).answer == "nested ok"


def test_user_tools_sync_and_async():
    async def lookup(key: str) -> str:
        return {"a": "alpha"}[key]

    def double(x: int) -> int:
        return 2 * x

    lm = DummyLM([act("SUBMIT(answer=lookup('a') + str(double(21)))")])
    rlm = RLM("context, query -> answer", tools=[lookup, double])
    assert set(rlm.tools) == {"lookup", "double"}
    with dspy.context(lm=lm):
        assert rlm(context="c", query="q").answer == "alpha42"


def test_llm_query_uses_sub_lm_and_counts_calls():
    sub = DummyLM([{"response": "sub says hi"}] * 3)
    root = DummyLM([act("r = llm_query('hello')\nprint(r)"), act("SUBMIT(answer=r)")])
    rlm = RLM("context, query -> answer", sub_lm=sub)
    with dspy.context(lm=root):
        pred = rlm(context="c", query="q")
    assert "sub says hi" in pred.answer
    assert pred.result.llm_calls == 1 and len(sub.history) == 1  # sub-LM calls, as dspy's max_llm_calls counts
    # every LM call of the run: the two action steps and the sub-LM call, as the CLI and the trace say
    assert pred.result.lm_calls == len(root.history) + len(sub.history) == 3
    assert pred.result.lm_calls == pred.trace.totals()["lm_calls_total"]


def test_llm_call_limit_fails_the_call_inside_the_repl_and_the_run_goes_on():
    """As in dspy.RLM: the call over max_llm_calls raises inside the REPL; the run continues to SUBMIT."""
    sub = DummyLM([{"response": "x"}] * 5)
    root = DummyLM(
        [act("a = llm_query('1'); b = llm_query('2')"), act("c = llm_query('3')"), act("SUBMIT(answer=a + b)")]
    )
    rlm = RLM("context, query -> answer", sub_lm=sub, max_llm_calls=2, recovery=False)
    with dspy.context(lm=root):
        pred = rlm(context="c", query="q")
    assert isinstance(pred.result, Submitted) and pred.answer.count("x") == 2
    assert "BudgetExhausted" in pred.trajectory[1]["output"] and "0 call(s) left" in pred.trajectory[1]["output"]
    assert pred.trace.usage["llm_calls"] == 2


def test_time_limit_triggers_extraction():
    lm = DummyLM([act("import time; time.sleep(1.5)"), {"answer": "late"}])
    with dspy.context(lm=lm):
        pred = RLM("context, query -> answer", max_time=1.0)(context="c", query="q")
    assert isinstance(pred.result, Extracted) and pred.result.limit == "time"
    assert len(pred.trajectory) == 1


@pytest.mark.parametrize("recovery", [True, False])
def test_worker_death_mid_run_names_every_lost_variable_and_the_run_goes_on(recovery):
    names = [f"intermediate_result_number_{i}" for i in range(12)]  # long enough to overflow a clipped message
    setup = "\n".join(f"{n} = {i}" for i, n in enumerate(names))
    pred, _ = run(
        [act(setup), act("import os\nos._exit(3)"), act("SUBMIT(answer=str(len(context.splitlines())))")],
        recovery=recovery,
    )
    assert pred.answer == "3" and isinstance(pred.result, Submitted)
    told = pred.trajectory[1]["output"]
    assert "restarted" in told and all(n in told for n in names)
