"""Ctrl-C during a run (issue 31): the LM call in progress stops at once, and the run still ends typed,
``Failed`` (reason ``interrupted``) with its trace, carried by :class:`~dspy_rlm.errors.RunInterrupted`."""

from __future__ import annotations

import signal
import threading
import time

import dspy
import pytest

from dspy_outlines.contract import stop_requested
from dspy_rlm import RLM, InProcessREPL
from dspy_rlm.budget import StopReason
from dspy_rlm.errors import RunInterrupted
from tests.dspy_rlm.scripted_lm import ScriptedLM, action


@pytest.fixture
def sigint_raises(monkeypatch):
    """SIGINT as in a terminal (a background job inherits it ignored, and then nothing would be interrupted)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_an_interrupt_stops_the_lm_call_and_ends_the_run_failed_with_its_trace(sigint_raises):
    stopped: list[float] = []

    def respond(call):
        if call.iteration == 1:
            return action("found = 'INC-1'\nprint(found)")
        while not stop_requested():  # a local engine's generation: it checks the stop between tokens
            time.sleep(0.01)
            if len(stopped) > 1000:
                break
        stopped.append(time.monotonic())
        return action("print('cut')")

    rlm = RLM("context, query -> answer", max_iters=5, interpreter_factory=InProcessREPL)
    interrupt_at: list[float] = []

    main = threading.main_thread().ident

    def interrupt() -> None:  # a real SIGINT at the main thread, as Ctrl-C delivers it (it wakes the event loop)
        interrupt_at.append(time.monotonic())
        signal.pthread_kill(main, signal.SIGINT)

    timer = threading.Timer(1.0, interrupt)
    timer.start()
    started = time.monotonic()
    with dspy.context(lm=ScriptedLM(respond)), pytest.raises(RunInterrupted) as info:
        rlm(context="log text", query="Which incident?")
    timer.cancel()
    assert isinstance(info.value, KeyboardInterrupt)  # still an interrupt for callers that catch only that
    assert stopped and stopped[0] - interrupt_at[0] < 1.0  # the LM call in progress stopped within 1 s
    assert time.monotonic() - started < 10
    pred = info.value.prediction
    assert pred.result.kind == "failed" and pred.result.reason == "interrupted"
    assert pred.result.limit == StopReason.INTERRUPTED and pred.answer is None
    assert pred.trace.result_kind == "failed" and pred.trace.answer_source == "interrupted"
    assert pred.trace.iterations[0].code_executions[0].stdout.strip() == "INC-1"  # the steps before it are kept
    assert pred.final_reasoning == "Run failed: interrupted"
