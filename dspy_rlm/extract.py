"""Fallback extraction: when a limit is hit before SUBMIT, still produce typed outputs.

Inputs to the ``extract`` predictor: the REPL history, the current values of the model's variables
(summarized, size-capped), the output field specs (its signature) and the reason. The result is
:class:`Extracted` with the seed's confidence rule, or :class:`Failed` with whatever partial outputs exist.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any

import dspy

from dspy_outlines.contract import accepts_constraint
from dspy_rlm.budget import Budget, FallbackReason
from dspy_rlm.calls import call_predictor, deadline_config
from dspy_rlm.config import RunConfig
from dspy_rlm.errors import UserPredictorError
from dspy_rlm.results import Extracted, Failed
from dspy_rlm.signatures import NOTES_FIELD

logger = logging.getLogger(__name__)
VARIABLES_CHARS = 6_000


def format_variables(snapshot: dict[str, str], limit: int = VARIABLES_CHARS) -> str:
    """The model's variables, newest last, within ``limit`` characters."""
    if not snapshot:
        return "(no variables were created)"
    lines = [f"- {name} = {desc}" for name, desc in snapshot.items()]
    text = "\n".join(lines)
    return text if len(text) <= limit else "...\n" + text[-limit:]


def confidence(outputs: dict[str, Any], history: list[dict[str, Any]], variables_text: str) -> float:
    """The confidence of an extracted answer: 0.5 base, +0.3 if the outputs appear in the variables, +0.2 if
    recent history mentions them, -0.3 x the share of null fields; clamped to [0.1, 0.99]."""
    values = [v for v in outputs.values() if not _is_null(v)]
    texts = [str(v).strip() for v in values if str(v).strip()]
    score = 0.5
    if texts and all(t in variables_text for t in texts):
        score += 0.3
    recent = "\n".join(str(e.get("output", "")) + str(e.get("code", "")) for e in history[-3:])
    if texts and any(t in recent for t in texts):
        score += 0.2
    if outputs:
        score -= 0.3 * (sum(_is_null(v) for v in outputs.values()) / len(outputs))
    return max(0.1, min(0.99, round(score, 4)))


def _is_null(value: Any) -> bool:
    return value is None or (isinstance(value, (str, list, dict)) and len(value) == 0)


_adapter_lock = threading.Lock()


def extraction_adapter(config: RunConfig) -> Any:
    """The adapter the extract step runs under.

    ``config.extract_adapter``: ``"auto"`` = dspy_outlines' tiered ``OutlinesAdapter(tiers="auto")`` when
    importable (a local ``OutlinesLM`` goes straight to constrained generation: one LM call; other LMs climb
    the tiers, skipping those that keep failing for them), created at the first extraction and kept in
    ``config.slots`` (``rlm.extract_adapter_instance``) so its tier metrics can be read after a run; ``None`` =
    the configured adapter; anything else is used as given.
    """
    setting = config.extract_adapter
    if setting != "auto":
        return setting
    if config.slots.extract is not None:
        return config.slots.extract
    try:
        from dspy_outlines.adapter import OutlinesAdapter
    except ImportError:
        return None
    with _adapter_lock:  # concurrent extractions (batches, threads) share one adapter
        if config.slots.extract is None:
            config.slots.extract = OutlinesAdapter(tiers="auto")  # a local OutlinesLM: Tier 3 at once, one call
    return config.slots.extract


def _local_signature(predictor: Any, names: list[str]) -> dict[str, Any]:
    """For a local constrained LM, the extract signature without the notes field: a single output is then
    generated as its bare value (the form a small model fills reliably), not a JSON object."""
    sig = getattr(predictor, "signature", None)
    lm = getattr(predictor, "lm", None) or dspy.settings.lm
    if (
        not isinstance(predictor, dspy.Predict)
        or sig is None
        or NOTES_FIELD not in sig.output_fields
        or NOTES_FIELD in names
        or not accepts_constraint(lm)
    ):
        return {}
    return {"signature": sig.delete(NOTES_FIELD)}


async def run_extraction(
    config: RunConfig,
    predictor: Any,
    *,
    history: Any,
    variables_info: str,
    snapshot: dict[str, str],
    reason: FallbackReason,
    use_async: bool,
    last_submit: dict[str, Any] | None = None,
    budget: Budget | None = None,
    shown: Any = None,
) -> Extracted | Failed:
    """Call the ``extract`` predictor and type its result. Never raises for LM or parse failures.

    With a ``budget`` that has ``max_time``, the LM call gets :meth:`Budget.extraction_deadline` (taken just
    before the call) through ``runtime.deadline_config``: a local generation stops there, an API call gets a
    timeout. ``shown`` is the history the prompt shows (compacted, :mod:`dspy_rlm.compaction`; default
    ``history``); the result keeps ``history`` whole. The model's :data:`~dspy_rlm.signatures.NOTES_FIELD`
    (which outputs it could not determine) becomes ``Extracted.notes``, with the outputs that came back empty.
    """
    variables_text = format_variables(snapshot)
    entries = [e.model_dump() for e in history]
    adapter = extraction_adapter(config)
    ctx = dspy.context(adapter=adapter) if adapter is not None else contextlib.nullcontext()
    names = config.output_names
    deadline = budget.extraction_deadline() if budget is not None else None
    try:
        with ctx:
            pred = await call_predictor(
                predictor,
                use_async,
                variables_info=variables_info,
                repl_history=history if shown is None else shown,
                fallback_reason=str(reason),
                variables=variables_text,
                **_local_signature(predictor, names),
                **deadline_config(predictor, deadline),
            )
        outputs = {n: getattr(pred, n, None) for n in names}
    except Exception as exc:
        if not isinstance(predictor, dspy.Predict):  # the user's own predictor: its exceptions are the caller's
            raise UserPredictorError(exc) from exc
        # handled: the run ends Failed with this reason, in the trace; the log gets one line, at debug level
        logger.debug("fallback extraction failed: %s", type(exc).__name__, exc_info=exc)
        partial = dict(last_submit or {})
        parsed = getattr(exc, "parsed_result", None)
        if isinstance(parsed, dict):
            partial.update({k: v for k, v in parsed.items() if k in names})
        return Failed(
            reason=f"{reason}; extraction failed: {type(exc).__name__}: {exc}",
            partial_outputs=partial or None,
            history=entries,
            limit=reason.stop,
            fallback=reason,
        )
    nulls = [n for n, v in outputs.items() if _is_null(v)]
    said = getattr(pred, NOTES_FIELD, None) if NOTES_FIELD not in names else None
    notes = (
        "; ".join(
            part
            for part in (str(said).strip() if said else "", f"fields without a value: {nulls}" if nulls else "")
            if part
        )
        or None
    )
    return Extracted(
        outputs=outputs,
        confidence=confidence(outputs, entries, variables_text),
        reason=str(reason),
        notes=notes,
        limit=reason.stop,
        fallback=reason,
    )
