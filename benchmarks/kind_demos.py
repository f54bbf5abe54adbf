"""Bootstrap the small policy's demos per question kind from the scripted teacher, on dev sources only.

    python -m benchmarks.kind_demos            # writes the "kind_demos" of dspy_rlm/profiles/small_program.json

For each dev question of ``benchmarks/real_files`` (in id order), :class:`ScriptedMovePolicy` runs the RLM (its
steps are its own; no LM is called for them); a run that ends ``Submitted`` with the gold answer gives its
steps -- the exact action inputs of each step (variables, history, iteration, budget) and the move taken -- as
demos. The question's kind is the one the small policy itself sees (:meth:`MoveBook.kind`), so at run time the
policy shows the model the demos of the kind it detects. The first successful run of each kind is kept
(deterministic: a re-run writes the same file). Test sources are never read.

This is bootstrapping in the sense of DSPy's ``BootstrapFewShot`` (a teacher's successful traces become
demos), done directly: the teacher takes its steps through the policy's ``decide()``, which DSPy's trace
collection does not see. No validation with the student is run here (the real-files benchmark does that).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import dspy
from dspy.utils import DummyLM

from benchmarks.real_files.dataset import build_dataset
from benchmarks.real_files.scoring import is_correct
from dspy_rlm import RLM
from dspy_rlm.profiles.base import StepView
from dspy_rlm.profiles.scripted import ScriptedMovePolicy, _ScriptedRun

logger = logging.getLogger(__name__)
PER_KIND = 1
"""Successful teacher runs kept per kind (each gives one demo per step)."""


class _Recording(_ScriptedRun):
    """The scripted teacher, recording each step's action inputs and the move it took."""

    steps: list[dict[str, Any]]

    def decide(self, step: StepView) -> tuple[str, str] | None:
        decided = super().decide(step)
        assert decided is not None
        kw = step.kwargs
        self.steps.append(
            {
                "variables_info": kw["variables_info"],
                "repl_history": kw["repl_history"].format(),
                "iteration": kw["iteration"],
                "budget": kw["budget"],
                "reasoning": decided[0],
                "code": decided[1],
            }
        )
        return decided


class _RecordingPolicy(ScriptedMovePolicy):
    def __init__(self) -> None:
        super().__init__()
        self.last: _Recording | None = None

    def start(self, run: Any) -> _Recording:
        self.last = _Recording(self.name, self.profile, run)
        self.last.steps = []
        return self.last


def bootstrap(max_iters: int = 4) -> dict[str, list[dict[str, Any]]]:
    """``{kind: [demo, ...]}`` from the first successful teacher runs on dev questions."""
    data = build_dataset("dev")
    extraction = DummyLM([{"answer": "none"}] * 10_000)  # the teacher never needs it on a kept run
    demos: dict[str, list[dict[str, Any]]] = {}
    kept: dict[str, int] = {}
    for q in sorted(data.questions, key=lambda q: q.id):
        policy = _RecordingPolicy()
        with dspy.context(lm=extraction):
            rlm = RLM(f"context: str, question: str -> answer: {q.output_type}", max_iters=max_iters, policy=policy)
            pred = rlm(context=data.contexts[q.source], question=q.question)
        run = policy.last
        if run is None or pred.rlm_result.kind != "submitted":
            continue
        if not is_correct(pred.answer, q.gold, q.output_type, q.alternatives):
            continue
        kind = run.book().kind()
        if kept.get(kind, 0) >= PER_KIND:
            continue
        kept[kind] = kept.get(kind, 0) + 1
        demos.setdefault(kind, []).extend({**s, "augmented": True, "source_question": q.id} for s in run.steps)
    return demos


def main(argv: list[str] | None = None) -> int:
    from dspy_rlm.profiles.small import DEMOS_PATH

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEMOS_PATH)
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    demos = bootstrap()
    state = json.loads(args.out.read_text()) if args.out.is_file() else {}
    state["kind_demos"] = demos
    args.out.write_text(json.dumps(state, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps({k: [d["code"] for d in v] for k, v in demos.items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
