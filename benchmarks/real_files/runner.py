"""Run the questions through ``dspy_rlm.RLM`` under each method's LM, score them, and summarize.

A method is a name in :data:`METHODS` mapping to a factory called once per benchmark run. The factory returns a
DSPy LM, or a :class:`Method` when the method also needs RLM keyword arguments (e.g. a policy)::

    from benchmarks.real_files.runner import METHODS, Method
    METHODS["scripted"] = lambda: Method(lm=my_lm, rlm_kwargs={"policy": MyPolicy()})
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dspy

from benchmarks.longcontext.harness import LMMeter
from benchmarks.real_files.core import Question
from benchmarks.real_files.scoring import is_correct

logger = logging.getLogger(__name__)


@dataclass
class Method:
    """What a method runs with: the LM, and extra keyword arguments for ``RLM(...)``."""

    lm: Any
    rlm_kwargs: dict[str, Any] = field(default_factory=dict)


def _embedded_model(**kwargs: Any) -> Any:
    """The embedded model (the small policy runs its steps on the shipped adapter, :mod:`dspy_rlm.profiles.tuned`,
    when the package ships one); ``REAL_FILES_THREADS=N`` sets llama.cpp's threads (1 on a machine busy with
    other work: spinning threads of several processes slow every step many times over)."""
    from dspy_outlines import OutlinesLM

    threads = os.environ.get("REAL_FILES_THREADS")
    return OutlinesLM(engine_options={"n_threads": int(threads)} if threads else {}, **kwargs)


def _base_model() -> Any:
    """The embedded model without the shipped adapter (``OutlinesLM(adapter=None)``): the shipped demos alone."""
    return _embedded_model(adapter=None)


def _random_moves() -> Method:
    """A uniformly random choice among the small policy's grounded moves each step (seed 0): the grammar's floor."""
    from dspy_rlm.profiles.scripted import RandomMovePolicy

    return Method(lm=_embedded_model(), rlm_kwargs={"policy": RandomMovePolicy(seed=0)})


def _scripted_moves() -> Method:
    """Fixed rules over the same moves, reading the question only: the grammar's ceiling for such a policy."""
    from dspy_rlm.profiles.scripted import ScriptedMovePolicy

    return Method(lm=_embedded_model(), rlm_kwargs={"policy": ScriptedMovePolicy()})


def _ranked_moves() -> Method:
    """The learned ranker's best move each step (no LM for the action): the chooser the oracle taught."""
    from dspy_rlm.profiles.scripted import RankedMovePolicy

    return Method(lm=_embedded_model(), rlm_kwargs={"policy": RankedMovePolicy()})


def _model_unranked() -> Method:
    """The model choosing among every grounded move (the small policy before the ranker cut them)."""
    from dataclasses import replace

    from dspy_rlm.profiles import SMALL
    from dspy_rlm.profiles.steps import SmallPolicy

    return Method(lm=_embedded_model(), rlm_kwargs={"policy": SmallPolicy(replace(SMALL, ranked_moves=0))})


def _no_demos() -> Method:
    """The model zero-shot: the small policy with no demos at all."""
    from dspy_rlm.profiles.steps import SmallPolicy

    return Method(lm=_embedded_model(), rlm_kwargs={"policy": SmallPolicy(kind_demos={})})


TUNED_ADAPTER = Path(__file__).resolve().parents[1] / "results" / "small_policy_adapter"
"""The adapter ``benchmarks.train_small_policy`` trained through ``dspy.BootstrapFinetune`` (not shipped)."""


def _tuned() -> Method:
    """The small policy on the embedded model plus a LoRA adapter (``$REAL_FILES_ADAPTER``, else
    :data:`TUNED_ADAPTER`), with the prompt it was trained on (``SMALL_TUNED``: one-line instructions, no demos)."""
    from dspy_rlm.profiles import SMALL_TUNED
    from dspy_rlm.profiles.steps import SmallPolicy

    adapter = os.environ.get("REAL_FILES_ADAPTER") or str(TUNED_ADAPTER)
    return Method(lm=_embedded_model(adapter=adapter), rlm_kwargs={"policy": SmallPolicy(SMALL_TUNED)})


MethodFactory = Callable[[], Any]
METHODS: dict[str, MethodFactory] = {
    "model": _embedded_model,
    "model_base": _base_model,
    "no_demos": _no_demos,
    "model_unranked": _model_unranked,
    "random": _random_moves,
    "ranked": _ranked_moves,
    "scripted": _scripted_moves,
    "tuned": _tuned,
}


def make_method(name: str) -> Method:
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; choose from {', '.join(METHODS)}")
    made = METHODS[name]()
    return made if isinstance(made, Method) else Method(lm=made)


def signature(question: Question) -> str:
    return f"context: str, question: str -> answer: {question.output_type}"


def run_question(
    question: Question,
    context: str,
    method_name: str,
    method: Method,
    max_iters: int,
    max_time: float | None = None,
) -> dict[str, Any]:
    """One question under one method; a crash is recorded as a failed run, never raised."""
    from dspy_rlm import RLM

    record: dict[str, Any] = {"id": question.id, "source": question.source, "kind": question.kind}
    record.update(method=method_name, result_kind="failed", answer=None, confidence=None, error=None)
    with LMMeter() as meter:
        try:
            with dspy.context(lm=method.lm):
                limits = {"max_iters": max_iters, "max_time": max_time, **method.rlm_kwargs}
                rlm = RLM(signature(question), **limits)
                pred = rlm(context=context, question=question.question)
            result = getattr(pred, "rlm_result", None)
            record["result_kind"] = getattr(result, "kind", "failed")
            record["confidence"] = getattr(result, "confidence", None)
            record["answer"] = getattr(pred, "answer", None)
            record["notes"] = (getattr(result, "notes", None) or "")[:400] or None  # why the ending: what backed it
        except Exception as e:  # noqa: BLE001 - a benchmark records a crash as a failed run and goes on
            logger.warning("%s on %s crashed: %s", method_name, question.id, e)
            record["error"] = f"{type(e).__name__}: {e}"[:500]
    record["correct"] = record["result_kind"] != "failed" and is_correct(
        record["answer"], question.gold, question.output_type, question.alternatives
    )
    record["seconds"] = round(meter.seconds, 3)
    record["lm_calls"] = len(meter.entries)
    if isinstance(record["answer"], str) and len(record["answer"]) > 300:
        record["answer"] = record["answer"][:300] + "..."
    return record


def run_method(
    name: str,
    questions: list[Question],
    contexts: dict[str, str],
    max_iters: int,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    max_time: float | None = None,
) -> list[dict[str, Any]]:
    method = make_method(name)
    records = []
    for q in questions:
        record = run_question(q, contexts[q.source], name, method, max_iters, max_time)
        records.append(record)
        if on_record is not None:
            on_record(record)
    return records


def load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
