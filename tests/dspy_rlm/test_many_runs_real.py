"""Issue 12, item 0: many RLM runs in one process on the embedded model never hang starting their sandbox.

The hang this guards against: forking the sandbox worker from a process whose native thread pools
(OpenBLAS, tokenizers, MLX) are live can deadlock in an ``atfork`` handler. The test makes those pools live
first (the model is loaded and generates before any REPL starts), checks that the host really has extra
native threads when each REPL starts, then runs 20 RLMs in a row and 8 at once. A watchdog dumps every
thread's stack and ends the process if anything hangs, so a regression shows where it sits.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import dspy
import pytest

from dspy_rlm import RLM, Failed
from dspy_rlm.prediction import run_info
from dspy_rlm.sandbox.backend import SubprocessREPL

pytestmark = pytest.mark.real_model
WATCHDOG_S = 1500  # 28 short runs take a few minutes on 2 busy cores; a hang never ends


@pytest.fixture(scope="module")
def warm_lm():
    try:
        from dspy_outlines import OutlinesLM

        lm = OutlinesLM(engine="mlx", max_tokens=16)
    except (ImportError, FileNotFoundError) as exc:
        pytest.skip(f"embedded model unavailable: {exc}")
    lm("Say hello.")  # native pools (BLAS, tokenizers, MLX) have now run in this process
    return lm


def _native_threads() -> int:
    return len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else threading.active_count()


class _Recorder:
    """An interpreter factory that notes, at each REPL creation, how many threads the host has."""

    def __init__(self):
        self.threads_at_start: list[int] = []
        self.repls: list[SubprocessREPL] = []
        self._lock = threading.Lock()

    def __call__(self) -> SubprocessREPL:
        repl = SubprocessREPL(timeout_s=30)
        with self._lock:
            self.threads_at_start.append(_native_threads())
            self.repls.append(repl)
        return repl


def _rlm(factory: _Recorder):
    from dspy_outlines import OutlinesAdapter

    return RLM(
        "context, question -> answer",
        max_iters=1,
        max_llm_calls=1,
        interpreter_factory=factory,
        action_adapter=OutlinesAdapter(tiers=("tier3",)),
    )


def _one_run(lm, factory: _Recorder, i: int):
    with dspy.context(lm=lm):
        return _rlm(factory)(context=f"Order {i} shipped on day {i % 7}.", question="When did it ship?")


@pytest.fixture
def watchdog():
    faulthandler.dump_traceback_later(WATCHDOG_S, exit=True, file=sys.__stderr__)
    yield
    faulthandler.cancel_dump_traceback_later()


def _assert_ran(preds, factory: _Recorder, expected: int):
    """Every run started its sandbox, ran the model's step there and ended with an answer (a sandbox that failed
    to start, or died, ends ``Failed``)."""
    assert len(preds) == expected
    failed = [run_info(p).result for p in preds if isinstance(run_info(p).result, Failed)]
    assert failed == []
    assert all(p.trajectory and p.trajectory[0]["output"] for p in preds)
    assert not any("SandboxDead" in p.trajectory[0]["output"] for p in preds)
    assert len(factory.repls) == expected
    assert all(r.start_method == "zygote" for r in factory.repls)
    # The hang risk was real: the host had native threads beside the main one when the REPLs started.
    assert min(factory.threads_at_start) > 1, factory.threads_at_start


def _same_input_same_run(preds, inputs):
    """Greedy decoding is deterministic: runs on the same input give the same steps and answer, whenever and
    beside whatever they ran (state leaking between runs or REPLs would break this)."""
    by_input: dict[int, tuple] = {}
    for i, p in zip(inputs, preds):
        seen = (p.answer, [(e["code"], e["output"]) for e in p.trajectory])
        assert by_input.setdefault(i, seen) == seen, f"input {i}: {by_input[i]} then {seen}"


def test_twenty_runs_in_a_row_on_the_real_model_do_not_hang(warm_lm, watchdog):
    assert _native_threads() > 1  # the model's pools are up before the first REPL exists
    factory = _Recorder()
    inputs = [i % 10 for i in range(20)]  # each input twice, ten runs apart
    preds = [_one_run(warm_lm, factory, i) for i in inputs]
    _assert_ran(preds, factory, 20)
    _same_input_same_run(preds, inputs)


def test_eight_runs_at_once_on_the_real_model_do_not_hang(warm_lm, watchdog):
    factory = _Recorder()
    inputs = [0, 1, 2, 3] * 2  # each input twice, at the same time
    with ThreadPoolExecutor(max_workers=8) as pool:
        preds = list(pool.map(lambda i: _one_run(warm_lm, factory, i), inputs))
    _assert_ran(preds, factory, 8)
    _same_input_same_run(preds, inputs)
    assert max(factory.threads_at_start) >= 8  # the 8 runs' own threads were alive at once
