"""Shared fixtures for dspy_outlines tests: the embedded model, loaded once per session.

``embedded_lm`` is an :class:`~dspy_outlines.lm.OutlinesLM` over the embedded SmolLM2-135M GGUF on the MLX
engine (float32 on Linux CPU); ``llamacpp_lm`` is the same model on the llama.cpp engine. Tests using them
should be marked ``@pytest.mark.real_model`` and keep ``max_tokens`` small (<= 48) so the whole suite stays
fast on a 2-core CPU.
"""

from __future__ import annotations

import os

import pytest

from dspy_outlines.models.blas import ensure_fast_blas

# Route MLX's BLAS to OpenBLAS before any test module imports mlx; never reach the Hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ensure_fast_blas()


def _skip_reason() -> str | None:
    """Why real-model fixtures cannot run here, or ``None`` when they can."""
    try:
        from dspy_outlines.models import embedded_model_path, require_mlx

        require_mlx()
        embedded_model_path()
    except (ImportError, FileNotFoundError) as e:
        return str(e)
    return None


@pytest.fixture(scope="session")
def embedded_model():
    """``(mlx_model, tokenizer)`` of the embedded GGUF, loaded once (default dequantize policy)."""
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    from dspy_outlines.models import load_model

    return load_model()


@pytest.fixture(scope="session")
def embedded_lm(embedded_model):
    """A session-wide ``OutlinesLM`` over the embedded model (greedy, ``max_tokens=48``).

    Per-call options (``lm(..., max_tokens=8)``) leave it unchanged; use ``embedded_lm.copy(...)``
    for different defaults.
    """
    from dspy_outlines.lm import OutlinesLM

    return OutlinesLM(None, engine="mlx", max_tokens=48, temperature=0.0)


def _llamacpp_skip_reason() -> str | None:
    """Why the llama.cpp engine cannot run here, or ``None``. Under CI a missing dependency is a failure."""
    from dspy_outlines.engines import LLAMACPP_EXTRA_HINT, llamacpp_installed

    reason = None
    if not llamacpp_installed():
        reason = f"llama-cpp-python is not installed ({LLAMACPP_EXTRA_HINT})"
    else:
        try:
            from dspy_outlines.models import embedded_model_path

            embedded_model_path()
        except FileNotFoundError as e:
            reason = str(e)
    if reason and os.environ.get("CI") == "true":
        pytest.fail(f"CI installs the dev extra, which includes llama-cpp-python: {reason}")
    return reason


@pytest.fixture(scope="session")
def llamacpp_lm():
    """A session-wide ``OutlinesLM`` over the embedded GGUF on the llama.cpp engine (greedy, ``max_tokens=48``)."""
    reason = _llamacpp_skip_reason()
    if reason:
        pytest.skip(reason)
    from dspy_outlines.lm import OutlinesLM

    return OutlinesLM(None, engine="llamacpp", max_tokens=48, temperature=0.0)
