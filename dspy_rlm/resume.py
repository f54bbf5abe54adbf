"""Resuming a run from its checkpoint: restore what the checkpoint holds, tell the model what came back, and
write the run's state after each iteration (the file format is :mod:`dspy_rlm.checkpoint`)."""

from __future__ import annotations

import logging
import time
from typing import Any

from dspy.primitives.repl_types import REPLEntry, REPLHistory

from dspy_rlm.budget import Spent
from dspy_rlm.checkpoint import RunSnapshot
from dspy_rlm.loop_state import LoopState
from dspy_rlm.repl.base import VARIABLES
from dspy_rlm.trace import TraceNode

logger = logging.getLogger("dspy_rlm.loop")  # one log for the run


def restore(run: LoopState, snap: RunSnapshot) -> None:
    """Continue where the checkpointed run stopped: history, budget, trace, fix state."""
    assert run.ckpt is not None  # only a run with a checkpoint resumes
    run.history = REPLHistory(
        entries=[REPLEntry(**e) for e in snap.history], max_output_chars=run.config.repl.max_output_chars
    )
    run.budget.spent = Spent(**snap.spent)
    run.budget.started = time.monotonic() - snap.elapsed_s
    run.trace = TraceNode.from_dict(snap.trace)
    if run.recovery is not None and snap.recovery is not None:
        run.recovery = snap.recovery
    run.last_submit, run.told_rebound = snap.last_submit, set(snap.told_rebound)
    if snap.result is None:
        run.trace.warn(f"Resumed from checkpoint {run.ckpt.path} after iteration {snap.iterations_done}")


def resume_note(run: LoopState) -> str:
    snap = run.resumed
    if snap is None:
        return ""
    note = (
        f"\n\nThis run was resumed from a checkpoint after iteration {snap.iterations_done}. Restored "
        f"variables: {', '.join(snap.variables) or 'none'}."
    )
    if VARIABLES not in run.repl.capabilities and snap.variables:
        note = (
            f"\n\nThis run was resumed from a checkpoint after iteration {snap.iterations_done}; this REPL "
            f"cannot restore variables, recompute what you need: {', '.join(snap.variables)}."
        )
    if snap.unsaved_variables:
        note += (
            " Not restorable (recompute them if you need them): "
            + "; ".join(f"{n} ({why})" for n, why in snap.unsaved_variables.items())
            + "."
        )
    return note


def save_checkpoint(run: LoopState, result: Any = None) -> None:
    """Write the checkpoint after an iteration (or with the final result). A failed write is a warning:
    the run goes on."""
    assert run.ckpt is not None  # only called for a run with a checkpoint
    try:
        dumped = (
            run.repl.dump_variables()
            if result is None and VARIABLES in run.repl.capabilities
            else {"blobs": {}, "skipped": {}}
        )
        spent = run.budget.spent
        snap = RunSnapshot(
            fingerprint=run.ckpt.fingerprint,
            iterations_done=spent.iterations,
            history=[e.model_dump() for e in run.history],
            spent=dict(spent.__dict__),
            elapsed_s=run.budget.elapsed(),
            trace=run.trace.to_dict(),
            recovery=run.recovery,
            last_submit=run.last_submit,
            told_rebound=sorted(run.told_rebound),
            variables=dumped["blobs"],
            unsaved_variables=dumped["skipped"],
            result=result,
        )
        run.ckpt.save(snap)
    except Exception as exc:  # noqa: BLE001 - e.g. disk full: the run itself is not at fault
        logger.warning("could not write the checkpoint %s: %s", run.ckpt.path, exc)
        run.trace.warn(f"Checkpoint not written: {type(exc).__name__}: {exc}")
