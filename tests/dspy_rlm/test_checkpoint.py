"""Checkpoint and resume: a killed run resumes from its last iteration without repeating LM calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import dspy
import pytest
from dspy.utils import DummyLM

from dspy_rlm import RLM
from dspy_rlm.checkpoint import Checkpoint, CheckpointMismatch, fingerprint
from dspy_rlm.code_step import run_code
from dspy_rlm.repl.inprocess import InProcessREPL
from tests.dspy_rlm.scripted import act
from tests.dspy_rlm.scripted_lm import ScriptedLM, action

ROOT = Path(__file__).resolve().parents[2]


def _victim(ckpt: Path, log: Path, crash: bool) -> subprocess.CompletedProcess:
    args = [sys.executable, "-m", "tests.dspy_rlm.checkpoint_victim", str(ckpt), str(log)] + (
        ["crash"] if crash else []
    )
    return subprocess.run(
        args, cwd=ROOT, capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )


def test_killed_run_resumes_without_repeating_lm_calls(tmp_path):
    ckpt, log = tmp_path / "run.ckpt", tmp_path / "calls.log"
    first = _victim(ckpt, log, crash=True)
    assert first.returncode == -9, first.stderr[-2000:]  # SIGKILL, mid-iteration 2
    calls_before = log.read_text().splitlines()
    # iteration 1 (action + llm_query) and iteration 2's action + llm_query were paid for before the kill
    assert [c.split()[:2] for c in calls_before] == [["action", "1"], ["llm", "0"], ["action", "2"], ["llm", "0"]]
    assert ckpt.exists()

    second = _victim(ckpt, log, crash=False)
    assert second.returncode == 0, second.stderr[-2000:]
    out = json.loads(second.stdout.strip().splitlines()[-1])
    assert out["kind"] == "submitted"
    # x came back from the checkpoint (y = x + 1), both notes from the journal / checkpoint
    assert out["answer"] == "42|NOTE<note>|NOTE<one>"
    assert any("Resumed from checkpoint" in w for w in out["warnings"])
    calls = log.read_text().splitlines()
    assert len(calls) == len(set(calls)) == 5, calls  # only iteration 3's action is new
    assert calls[-1].split()[:2] == ["action", "3"]

    # The finished run's checkpoint holds its result: a third call makes no LM call at all.
    third = _victim(ckpt, log, crash=False)
    assert json.loads(third.stdout.strip().splitlines()[-1])["answer"] == "42|NOTE<note>|NOTE<one>"
    assert len(log.read_text().splitlines()) == 5


def _counting_lm(steps):
    def respond(call):
        return action(steps[min(call.iteration, len(steps)) - 1]) if call.role == "action" else "sub answer"

    return ScriptedLM(respond)


def test_resume_restores_variables_and_tells_the_model(tmp_path):
    ckpt = tmp_path / "r.ckpt"
    inputs = {"query": "sum"}
    rlm = RLM("query -> answer", max_iters=5, interpreter_factory=lambda: InProcessREPL(timeout_s=5))
    fp = fingerprint(rlm.signature, inputs)
    # Run one iteration, then stop the run by exhausting iterations on a separate module with max_iters=1
    first = RLM("query -> answer", max_iters=1, interpreter_factory=lambda: InProcessREPL(timeout_s=5))
    assert fingerprint(first.signature, inputs) == fp
    lm = _counting_lm(["data = [1, 2, 3]\ngen = (i for i in data)\nprint('ok')"])
    # Write a checkpoint after iteration 1 the way a crashed run leaves it: no result yet.
    from dspy_rlm.budget import Budget
    from dspy_rlm.loop import Run

    run = Run(first.config, first.run_predictors(), inputs, Budget(first.limits()), use_async=False, checkpoint=ckpt)

    async def one_iteration():
        import asyncio

        from dspy_rlm.bridges import RunState, make_bridges
        from dspy_rlm.repl.backends import make_repl

        state = RunState(first.config, run.budget, run.trace, loop=asyncio.get_running_loop(), checkpoint=run.ckpt)
        run.repl, _ = make_repl(first.config.repl, run.output_names, make_bridges(state))
        run.variables_info = run._prepare_context()
        run._repl_ready = asyncio.ensure_future(asyncio.to_thread(run._start_repl))
        run.budget.start_iteration()
        from dspy_rlm.trace import IterationRecord

        record = IterationRecord(index=1)
        run.trace.iterations.append(record)
        reasoning, code = await run._act(record)
        assert await run_code(run, record, reasoning, code) is None
        await run._checkpoint_iteration()
        run.repl.shutdown()

    import asyncio

    with dspy.context(lm=lm):
        asyncio.run(one_iteration())
    snap = Checkpoint(ckpt, fp).load()
    assert snap.iterations_done == 1 and snap.result is None
    assert set(snap.variables) == {"data"} and "gen" in snap.unsaved_variables

    lm2 = _counting_lm(["unused", "SUBMIT(answer=str(sum(data)))"])
    with dspy.context(lm=lm2):
        pred = rlm(query="sum", checkpoint=ckpt)
    assert pred.answer == "6" and pred.result.kind == "submitted"
    assert [c.iteration for c in lm2.calls] == [2]  # iteration 1 was not asked again
    prompt = lm2.calls[0].user
    assert "resumed from a checkpoint after iteration 1" in prompt
    assert "Restored variables: data" in prompt and "gen (generator cannot be saved" in prompt
    assert len(pred.trajectory) == 2 and pred.trace.usage["iterations"] == 2


def test_checkpoint_of_other_inputs_is_refused(tmp_path):
    ckpt = tmp_path / "x.ckpt"
    lm = _counting_lm(["SUBMIT(answer='a')"])
    rlm = RLM("query -> answer", max_iters=2, interpreter_factory=lambda: InProcessREPL(timeout_s=5))
    with dspy.context(lm=lm):
        rlm(query="first", checkpoint=ckpt)
        with pytest.raises(CheckpointMismatch, match="other inputs"):
            rlm(query="second", checkpoint=ckpt)
    ckpt.write_bytes(b"not a pickle")
    with pytest.raises(CheckpointMismatch, match="could not read"), dspy.context(lm=lm):
        rlm(query="first", checkpoint=ckpt)
    assert issubclass(CheckpointMismatch, ValueError)


def test_an_input_named_checkpoint_is_the_users_and_the_constructor_checkpoint_still_applies(tmp_path):
    """dspy.RLM accepts an input named ``checkpoint``; then ``checkpoint=`` at call time is that input."""
    ckpt = tmp_path / "run.ckpt"
    rlm = RLM("checkpoint, query -> answer", checkpoint=ckpt)
    with dspy.context(lm=DummyLM([act("SUBMIT(answer=checkpoint.upper())")])):
        pred = rlm(checkpoint="mine", query="q")
    assert pred.answer == "MINE" and ckpt.exists()
