"""Tiered structured output for DSPy (ChatAdapter -> JSON -> Outlines-constrained) and an OutlinesLM
that runs local models through Outlines + mlx-lm on Apple Silicon and Linux CPU.

Heavy imports (mlx, outlines) happen lazily, so ``import dspy_outlines`` works without MLX installed.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["OutlinesAdapter", "OutlinesLM", "embedded_model_path", "load_model"]


class _NoTorchNotice(logging.Filter):
    """Drops the one notice transformers logs when it is imported without PyTorch ("PyTorch was not found.
    Models won't be available..."). Outlines imports transformers whole, dspy_outlines uses it for tokenizers
    only, and the local extras install no torch: the notice would be noise on stderr at every first call.
    Every other transformers record passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("PyTorch was not found")


# On the transformers logger before any of our lazy imports reaches Outlines (and so transformers); adding a
# filter imports nothing. Once per process: a re-import finds it there.
_transformers_logger = logging.getLogger("transformers")
if not any(isinstance(f, _NoTorchNotice) for f in _transformers_logger.filters):
    _transformers_logger.addFilter(_NoTorchNotice())


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
