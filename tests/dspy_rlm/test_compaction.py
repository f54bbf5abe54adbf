"""Compaction (dspy_rlm/compaction.py): the history_processor hook, the default compaction at the threshold,
a refused prompt compacted and retried, and a processor that fails leaving the run going."""

from __future__ import annotations

import dspy
import pytest
from dspy.primitives.repl_types import REPLHistory

from dspy_rlm import RLM, InProcessREPL
from dspy_rlm.compaction import LEVELS, compact, is_context_overflow
from tests.dspy_rlm.scripted_lm import ScriptedLM, action, fields


def big(i: int) -> str:
    return f"print('{i}' + 'x' * 3000)"  # a long output, another at each step (a repeated one is shown once)


def run(code_for, respond_extra=None, **kwargs):
    """A run whose action step ``i`` runs ``code_for(i)``; returns the prediction and every action prompt."""
    prompts: list[str] = []

    def respond(call):
        if call.role == "extract":
            return fields(answer="extracted")
        prompts.append(call.user)
        if respond_extra is not None:
            respond_extra(call)
        return action(code_for(call.iteration))

    kwargs.setdefault("interpreter_factory", InProcessREPL)
    kwargs.setdefault("profile", "default")
    kwargs.setdefault("max_output_chars", 20_000)
    with dspy.context(lm=ScriptedLM(respond)):
        pred = RLM("question -> answer", **kwargs)(question="q")
    return pred, prompts


def history(*outputs: str) -> REPLHistory:
    h = REPLHistory()
    for i, out in enumerate(outputs):
        h = h.append(reasoning="r" * 500, code=f"step_{i} = {i}", output=out)
    return h


def test_compact_keeps_code_errors_and_submit_attempts_and_the_last_steps_whole():
    h = history("a" * 2000, "ERR" * 500, "b" * 2000, "c" * 2000, "d" * 2000, "e" * 2000)
    h = h.append(code="SUBMIT(answer=1)", output="S" * 2000)
    out = compact(h, 0, keep=[1])
    assert [e.code for e in out] == [e.code for e in h]  # every step's code, verbatim
    assert out.entries[1].output == "ERR" * 500  # the failed step's output, verbatim
    assert out.entries[0].output != h.entries[0].output and "chars compacted" in out.entries[0].output
    assert len(out.entries[0].reasoning) < 300
    assert out.entries[-LEVELS[0].keep_recent :] == h.entries[-LEVELS[0].keep_recent :]  # the last steps whole
    merged = compact(h, len(LEVELS) - 1, keep=[1])
    assert len(merged) == 2 and "step_0 = 0" in merged.entries[0].code and "step 2: ERRERR" in merged.entries[0].output
    dropped = compact(h, len(LEVELS) - 1, keep=[1], dropped=2)  # when even the code does not fit
    assert "step_0 = 0" not in dropped.entries[0].code and "step_2 = 2" in dropped.entries[0].code
    assert dropped.entries[0].output.startswith("Steps 1-2 left out. Steps 3-6 compacted to their code")


def test_the_default_compaction_starts_at_the_threshold_and_keeps_code_and_errors_verbatim():
    codes = {1: "print('first step')", 2: "1/0", **{i: big(i) for i in range(3, 12)}}
    pred, prompts = run(lambda i: codes.get(i, "SUBMIT(answer='done')"), max_iters=14, context_window=6000)
    assert pred.answer == "done" and pred.result.kind == "submitted"
    assert all(len(p) // 3 < 6000 for p in prompts)  # the estimate the scripted LM is counted with
    assert not any("chars compacted" in p for p in prompts[:2])  # under 85% of the window: nothing compacted
    last = prompts[-1]
    assert "chars compacted" in last
    assert "print('first step')" in last and "1/0" in last and "ZeroDivisionError" in last
    assert any(w.startswith("history compacted") for w in pred.trace.warnings)
    assert all(len(e["output"]) >= 3000 for e in pred.trajectory[2:11])  # the run's own history stays whole


def test_no_window_no_compaction():
    pred, prompts = run(lambda i: big(i) if i < 6 else "SUBMIT(answer='done')", max_iters=8)
    assert pred.answer == "done" and not any("chars compacted" in p for p in prompts)


def test_a_prompt_the_lm_refuses_as_too_long_is_compacted_and_retried():
    def too_long(call):
        if len(call.user) > 12_000:
            raise dspy.ContextWindowExceededError(model="scripted", message="prompt too long")

    pred, _ = run(lambda i: big(i) if i < 8 else "SUBMIT(answer='done')", too_long, max_iters=10)
    assert pred.answer == "done" and pred.result.kind == "submitted"
    assert any(w.startswith("history compacted") for w in pred.trace.warnings)
    assert (
        not is_context_overflow(RuntimeError("x"))
        and is_context_overflow(ValueError("y").with_traceback(None)) is False
    )


def test_the_history_processor_shapes_what_the_model_sees():
    seen: list[int] = []

    def last_two(h: REPLHistory) -> REPLHistory:
        seen.append(len(h))
        return REPLHistory(entries=h.entries[-2:], max_output_chars=h.max_output_chars)

    codes = {1: "print('marker-one')", 2: "print(2)", 3: "print(3)"}
    pred, prompts = run(lambda i: codes.get(i, "SUBMIT(answer='ok')"), history_processor=last_two, max_iters=6)
    assert pred.answer == "ok" and seen == [0, 1, 2, 3]
    assert "marker-one" in prompts[2] and "marker-one" not in prompts[3]
    assert len(pred.trajectory) == 4  # the run's history is whole


@pytest.mark.parametrize(
    "processor, cause",
    [(lambda h: 1 / 0, "raised ZeroDivisionError"), (lambda h: "garbage", "returned str, not a REPLHistory")],
    ids=["raises", "garbage"],
)
def test_a_history_processor_that_fails_leaves_the_history_as_it_was(processor, cause):
    pred, prompts = run(
        lambda i: "print('kept')" if i == 1 else "SUBMIT(answer='ok')", history_processor=processor, max_iters=4
    )
    assert pred.answer == "ok" and pred.result.kind == "submitted"
    assert "kept" in prompts[1]
    assert any(cause in w and "unprocessed history" in w for w in pred.trace.warnings)


def test_settings_are_validated():
    with pytest.raises(TypeError, match="history_processor must be a callable"):
        RLM("q -> a", history_processor=5)
    with pytest.raises(ValueError, match="context_window must be an integer >= 256"):
        RLM("q -> a", context_window=10)
    with pytest.raises(ValueError, match="compact_at must be a share"):
        RLM("q -> a", compact_at=1.5)


def test_a_repeated_step_is_shown_by_reference():
    from dspy.primitives.repl_types import REPLEntry, REPLHistory

    from dspy_rlm.compaction import repeated

    page = "x" * 500
    h = REPLHistory(
        entries=[
            REPLEntry(reasoning="look", code="print(peek(t, 0, 500))", output=page),
            REPLEntry(reasoning="look", code="print(peek(t, 0, 500))", output=page),
            REPLEntry(reasoning="count", code="print(len(t))", output="12"),
            REPLEntry(reasoning="count", code="print(len(t))", output="12"),  # short: shown as it is
        ]
    )
    shown = repeated(h)
    assert [e.output for e in shown.entries] == [page, "(the same output as step 1)", "12", "12"]
    assert [e.code for e in shown.entries] == [e.code for e in h.entries] and len(h.entries[1].output) == 500
