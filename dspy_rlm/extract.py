"""Fallback extraction (SPEC-27): when a limit is hit before SUBMIT, still produce typed outputs.

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

from dspy_rlm.budget import Budget
from dspy_rlm.results import Extracted, Failed
from dspy_rlm.runtime import call_predictor, deadline_config

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
    """SPEC-27.04: 0.5 base, +0.3 if the outputs appear in the variables, +0.2 if recent history mentions
    them, -0.3 x the share of null fields; clamped to [0.1, 0.99]."""
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


#: Attribute of an RLM holding the adapter its ``extract_adapter="auto"`` resolved to (read its metrics).
ADAPTER_ATTR = "extract_adapter_instance"
_adapter_lock = threading.Lock()


def extraction_adapter(rlm: Any) -> Any:
    """The adapter ``rlm``'s extract step runs under.

    ``rlm.extract_adapter``: ``"auto"`` = dspy_outlines' tiered ``OutlinesAdapter(tiers="auto")`` when
    importable (a local ``OutlinesLM`` goes straight to constrained generation: one LM call; other LMs
    climb the tiers, skipping those that keep failing for them), one per RLM, created at the first extraction and kept as ``rlm.extract_adapter_instance`` so
    its tier metrics can be read after a run; ``None`` = the configured adapter; anything else is
    used as given.
    """
    setting = rlm.extract_adapter
    if setting != "auto":
        return setting
    adapter = getattr(rlm, ADAPTER_ATTR, None)
    if adapter is not None:
        return adapter
    try:
        from dspy_outlines.adapter import OutlinesAdapter
    except ImportError:
        return None
    with _adapter_lock:  # concurrent extractions (batches, threads) share one adapter
        adapter = getattr(rlm, ADAPTER_ATTR, None)
        if adapter is None:
            adapter = OutlinesAdapter(tiers="auto")  # a local OutlinesLM: Tier 3 at once, one call
            setattr(rlm, ADAPTER_ATTR, adapter)
    return adapter


async def run_extraction(rlm: Any, *, history: Any, variables_info: str, snapshot: dict[str, str],
                         reason: str, limit: str | None, use_async: bool,
                         last_submit: dict[str, Any] | None = None, budget: Budget | None = None) -> Extracted | Failed:
    """Call the ``extract`` predictor and type its result. Never raises for LM or parse failures.

    With a ``budget`` that has ``max_time``, the LM call gets :meth:`Budget.extraction_deadline` (taken just
    before the call) through ``runtime.deadline_kwargs``: a local generation stops there, an API call gets a
    timeout.
    """
    variables_text = format_variables(snapshot)
    entries = [e.model_dump() for e in history]
    adapter = extraction_adapter(rlm)
    ctx = dspy.context(adapter=adapter) if adapter is not None else contextlib.nullcontext()
    names = list(rlm.signature.output_fields)
    deadline = budget.extraction_deadline() if budget is not None else None
    try:
        with ctx:
            pred = await call_predictor(rlm.extract, use_async, variables_info=variables_info,
                                        repl_history=history, fallback_reason=reason, variables=variables_text,
                                        **deadline_config(rlm.extract, deadline))
        outputs = {n: getattr(pred, n, None) for n in names}
    except Exception as exc:  # noqa: BLE001 - LM / adapter failures end typed
        logger.warning("fallback extraction failed: %s: %s", type(exc).__name__, exc)
        partial = dict(last_submit or {})
        parsed = getattr(exc, "parsed_result", None)
        if isinstance(parsed, dict):
            partial.update({k: v for k, v in parsed.items() if k in names})
        return Failed(reason=f"{reason}; extraction failed: {type(exc).__name__}: {exc}",
                      partial_outputs=partial or None, history=entries, limit=limit)
    nulls = [n for n, v in outputs.items() if _is_null(v)]
    notes = f"fields without a value: {nulls}" if nulls else None
    return Extracted(outputs=outputs, confidence=confidence(outputs, entries, variables_text), reason=reason,
                     notes=notes, limit=limit)
