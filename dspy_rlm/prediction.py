"""The Prediction an RLM call returns: the signature's outputs, dspy's ``trajectory`` / ``final_reasoning``, and
our extras where they do not clash.

Output fields may be named anything dspy allows (``result``, ``trace``, ``usage`` ...): the outputs always win.
Our extras (:data:`~dspy_rlm.names.RESULT_EXTRAS`: ``result`` / ``rlm_result``, ``trace`` / ``rlm_trace``,
``usage``) are set only where no output field has the name; :func:`run_info` reads them from any RLM
prediction, whatever its fields are called.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dspy_rlm.names import RESULT_EXTRAS, result_names

if TYPE_CHECKING:
    import dspy

    from dspy_rlm.results import Extracted, Failed, Submitted
    from dspy_rlm.trace import TraceNode

_ATTR = "_rlm_run"  # a private attribute: never a field name (dspy signatures cannot start fields with "_")


@dataclass(frozen=True)
class RunInfo:
    """How one RLM call went: its typed result, its trace and its usage totals (``trace.totals()``)."""

    result: Submitted | Extracted | Failed
    trace: TraceNode
    usage: dict[str, Any]

    def extras(self) -> dict[str, Any]:
        """The Prediction keys this adds where free, by name (see :data:`~dspy_rlm.names.RESULT_EXTRAS`)."""
        values = {"result": self.result, "trace": self.trace, "usage": self.usage}
        values.update(rlm_result=self.result, rlm_trace=self.trace)
        return {name: values[name] for name in RESULT_EXTRAS}


def make_prediction(
    outputs: dict[str, Any], trajectory: list[dict[str, Any]], final_reasoning: str, info: RunInfo
) -> dspy.Prediction:
    """A dspy.Prediction with ``outputs``, dspy's two result keys, and our extras where no output has the name."""
    import dspy

    extras = {k: v for k, v in info.extras().items() if k not in outputs}
    pred = dspy.Prediction(**outputs, trajectory=trajectory, final_reasoning=final_reasoning, **extras)
    setattr(pred, _ATTR, info)
    return pred


def result_prediction(
    result: Submitted | Extracted | Failed, history: Any, output_names: list[str], trace: TraceNode
) -> dspy.Prediction:
    """A run's Prediction as dspy.RLM shapes it: the outputs (a failed run's partial ones, ``None`` where
    missing), ``trajectory`` from the REPL ``history`` and ``final_reasoning``; records the outputs on ``trace``."""
    from dspy_rlm.results import Extracted, Failed

    if isinstance(result, Failed):
        outputs = {n: (result.partial_outputs or {}).get(n) for n in output_names}
        final_reasoning = f"Run failed: {result.reason}"
    else:
        outputs = dict(result.outputs)
        last = history.entries[-1].reasoning if history.entries else ""
        final_reasoning = _extracted_reasoning(result) if isinstance(result, Extracted) else last
    trace.outputs = outputs
    trajectory = [e.model_dump() for e in history]
    return make_prediction(outputs, trajectory, final_reasoning, RunInfo(result, trace, trace.totals()))


#: dspy.RLM's ``final_reasoning`` after its fallback extraction (kept word for word: the drop-in's contract).
EXTRACT_FORCED = "Extract forced final output"


def _extracted_reasoning(result: Extracted) -> str:
    """How an Extracted run really ended: a limit's fallback extraction (dspy's words), or a SUBMIT the step
    policy judged a guess (no limit: the run's own value kept, labelled)."""
    if result.fallback is not None or result.limit is not None:
        return EXTRACT_FORCED
    return f"Submitted value kept as Extracted, {result.reason}"


def run_info(prediction: Any) -> RunInfo | None:
    """The :class:`RunInfo` of an RLM prediction (``None`` for any other object)."""
    try:
        info = getattr(prediction, _ATTR, None)
    except Exception:  # noqa: BLE001 - an object whose attribute lookup raises is no RLM prediction
        return None
    return info if isinstance(info, RunInfo) else None


def extra_keys(prediction: Any) -> frozenset[str]:
    """The keys of ``prediction`` that are not outputs: dspy's result names and the extras we set on it."""
    info = run_info(prediction)
    if info is None:
        return frozenset()
    keys = set(prediction.keys())
    return frozenset(result_names() | {k for k, v in info.extras().items() if k in keys and prediction[k] is v})
