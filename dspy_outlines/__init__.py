"""Tiered structured output for DSPy (ChatAdapter -> JSON -> Outlines-constrained) and an OutlinesLM
that runs local models through Outlines + mlx-lm on Apple Silicon and Linux CPU.

Heavy imports (mlx, outlines) happen lazily, so ``import dspy_outlines`` works without MLX installed.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OutlinesAdapter", "OutlinesLM", "embedded_model_path", "load_model"]


def __getattr__(name: str) -> Any:
    if name == "OutlinesAdapter":
        from dspy_outlines.adapter import OutlinesAdapter

        return OutlinesAdapter
    if name == "OutlinesLM":
        from dspy_outlines.lm import OutlinesLM

        return OutlinesLM
    if name in ("load_model", "embedded_model_path"):
        from dspy_outlines import models

        return getattr(models, name)
    raise AttributeError(f"module 'dspy_outlines' has no attribute {name!r}")
