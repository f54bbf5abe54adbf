"""Submitted values checked against the signature's output types, with errors written for the model."""

from __future__ import annotations

from typing import Any

import pydantic
from dspy.adapters.utils import parse_value

from dspy_rlm.errors import model_error


def coerce_outputs(signature: Any, raw: Any) -> tuple[dict[str, Any], str | None]:
    """``(values, None)`` with every output field of ``signature`` coerced to its type, or ``({}, error)``
    where ``error`` tells the model what to fix (not a dict, missing fields, a value of the wrong type)."""
    names = list(signature.output_fields)
    usage = f"SUBMIT({', '.join(n + '=...' for n in names)})"
    if not isinstance(raw, dict):
        return {}, model_error(f"SUBMIT got {type(raw).__name__}; expected {usage}")
    missing = [n for n in names if n not in raw]
    extra = [k for k in raw if k not in names]
    if missing:
        hint = f" (unknown: {extra})" if extra else ""
        return {}, model_error(f"Missing output fields: {missing}{hint}. Use {usage}")
    values, errors = {}, []
    for n in names:
        annotation = signature.output_fields[n].annotation
        try:
            values[n] = parse_value(raw[n], annotation)
        except (ValueError, TypeError, pydantic.ValidationError) as exc:
            tname = getattr(annotation, "__name__", str(annotation))
            errors.append(f"{n}: expected {tname}, got {type(raw[n]).__name__} {str(raw[n])[:80]!r}: {str(exc)[:200]}")
    if errors:
        return {}, model_error("; ".join(errors) + ". Fix the values and SUBMIT again.", kind="Type Error")
    return values, None
