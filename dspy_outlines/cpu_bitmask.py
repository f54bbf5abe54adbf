"""Outlines' MLX token bitmask on CPU, and the guard for Outlines' private attributes.

Outlines applies each structured-generation backend's token bitmask to MLX logits with a Metal kernel
(``mx.fast.metal_kernel``), which fails with "No Metal back-end" on Linux, CPU or CUDA alike.
:func:`install_cpu_bitmask` swaps, at runtime and only where that Metal kernel cannot run, the three
processors' ``_bias_logits_mlx`` for :func:`apply_token_bitmask_cpu` (``mx.where`` over the unpacked bits).
Installed packages are never edited.

That swap reads Outlines' private attributes (``_bias_logits_mlx``, ``_guides``, ``_bitmasks``,
``ll_matchers``, ``bitmask``, ``tensor_adapter``...), and :mod:`dspy_outlines.processors` builds backends
with the private ``outlines.backends._get_backend``. Each is read through :func:`outlines_internal`, so an
Outlines release that renames one fails at once with :class:`OutlinesVersionError` naming the attribute and
the installed version, instead of an ``AttributeError`` deep in a generation (or an unconstrained one).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from dspy_outlines.internals import InternalsGuard

logger = logging.getLogger(__name__)

__all__ = [
    "OUTLINES",
    "SUPPORTED_OUTLINES",
    "OutlinesVersionError",
    "apply_token_bitmask_cpu",
    "install_cpu_bitmask",
    "outlines_internal",
]

#: The method of Outlines' three logits processors that applies the token bitmask to MLX logits (Metal only).
_PATCHED_METHOD = "_bias_logits_mlx"


#: The Outlines releases whose internals this module was written against (the pyproject bound, too).
SUPPORTED_OUTLINES = ">=1.2,<1.4"


class OutlinesVersionError(RuntimeError):
    """The installed Outlines lacks an internal attribute dspy_outlines relies on (a release changed it)."""


OUTLINES = InternalsGuard("outlines", "Outlines", SUPPORTED_OUTLINES, OutlinesVersionError)
_lock = threading.Lock()
_cpu_installed = False


def outlines_internal(owner: Any, name: str) -> Any:
    """``getattr(owner, name)`` for a private Outlines attribute, failing fast with the fix when it is gone.

    Args:
        owner: An Outlines class, module, or object (e.g. a logits processor).
        name: The attribute (e.g. ``"_guides"``).

    Raises:
        OutlinesVersionError: ``owner`` has no ``name``: names the attribute, the installed Outlines version
            and the supported range to install.
    """
    return OUTLINES.attr(owner, name)


def apply_token_bitmask_cpu(logits: Any, bitmask: Any) -> Any:
    """Set the logits of tokens whose bit is 0 to ``-inf`` (the Metal kernel's job, on CPU).

    Args:
        logits: ``mx.array`` of shape ``(batch, vocab)`` or ``(vocab,)``.
        bitmask: ``int32`` array (numpy, or anything ``np.asarray`` takes) of shape
            ``(batch, words)`` or ``(words,)``; bit ``j % 32`` of word ``j // 32`` allows token ``j``.
            Tokens beyond the mask (a model vocabulary padded past the tokenizer's) are disallowed.

    Returns:
        The masked logits, shape ``(batch, vocab)``.
    """
    import mlx.core as mx
    import numpy as np

    mask = np.asarray(bitmask)
    mask = mask.reshape(1, -1) if mask.ndim == 1 else mask
    logits = logits.reshape(1, -1) if logits.ndim == 1 else logits
    vocab = logits.shape[-1]
    # Little-endian int32 words unpacked LSB-first give token order: bit k of word w = token 32w+k.
    words = np.ascontiguousarray(mask.astype("<i4", copy=False)).view(np.uint8)
    bits = np.unpackbits(words, axis=-1, bitorder="little")
    if bits.shape[-1] < vocab:
        bits = np.pad(bits, ((0, 0), (0, vocab - bits.shape[-1])))
    allowed = mx.array(bits[:, :vocab].astype(np.bool_))
    return mx.where(allowed, logits, mx.array(-np.inf, dtype=logits.dtype))


def _outlines_core_bias_cpu(self: Any, batch_size: int, logits: Any) -> Any:
    import mlx.core as mx
    from outlines_core.kernels.mlx import fill_next_token_bitmask

    guides, bitmasks = outlines_internal(self, "_guides"), outlines_internal(self, "_bitmasks")
    rows = []
    for i in range(batch_size):
        fill_next_token_bitmask(guides[i], bitmasks[i])
        rows.append(apply_token_bitmask_cpu(logits[i], bitmasks[i]))
    return mx.concatenate(rows, axis=0)


def _llguidance_bias_cpu(self: Any, input_ids: Any, logits: Any) -> Any:
    import llguidance.numpy
    import mlx.core as mx

    adapter, matchers = outlines_internal(self, "tensor_adapter"), outlines_internal(self, "ll_matchers")
    bitmask = outlines_internal(self, "bitmask")
    rows = []
    for i in range(adapter.shape(input_ids)[0]):
        llguidance.numpy.fill_next_token_bitmask(matchers[i], bitmask, i)
        rows.append(apply_token_bitmask_cpu(logits[i], bitmask[i]))
    return mx.concatenate(rows, axis=0)


def _xgrammar_bias_cpu(self: Any, input_ids: Any, logits: Any) -> Any:  # pragma: no cover - needs torch
    adapter, matchers = outlines_internal(self, "tensor_adapter"), outlines_internal(self, "_matchers")
    bitmask = outlines_internal(self, "_bitmask")
    for i in range(adapter.shape(input_ids)[0]):
        if not matchers[i].is_terminated():
            matchers[i].fill_next_token_bitmask(bitmask, i)
    return apply_token_bitmask_cpu(logits, bitmask.numpy())


def install_cpu_bitmask() -> bool:
    """Route Outlines' MLX bitmask through :func:`apply_token_bitmask_cpu` where Metal is absent.

    Idempotent and thread-safe; does nothing with Metal (Apple Silicon). Call it before any
    constrained MLX generation, including direct ``lm.model(prompt, output_type)`` calls
    (the engines call it themselves).

    Returns:
        Whether the CPU path is in use.
    """
    global _cpu_installed
    from dspy_outlines.models.blas import ensure_fast_blas

    ensure_fast_blas()  # a no-op after a model load; routes BLAS if this is the process's first mlx import
    import mlx.core as mx

    if mx.metal.is_available():  # Outlines' kernel needs Metal, not just a GPU: MLX on CUDA takes our path too
        return False
    with _lock:
        if not _cpu_installed:
            from outlines.backends.llguidance import LLGuidanceLogitsProcessor
            from outlines.backends.outlines_core import OutlinesCoreLogitsProcessor
            from outlines.backends.xgrammar import XGrammarLogitsProcessor

            patches = (
                (OutlinesCoreLogitsProcessor, _outlines_core_bias_cpu),
                (LLGuidanceLogitsProcessor, _llguidance_bias_cpu),
                (XGrammarLogitsProcessor, _xgrammar_bias_cpu),
            )
            for cls, _ in patches:  # a renamed method would leave Outlines' Metal kernel in place
                outlines_internal(cls, _PATCHED_METHOD)
            for cls, bias in patches:  # a runtime patch of a method: setattr says so (and mypy agrees)
                setattr(cls, _PATCHED_METHOD, bias)
            _cpu_installed = True
            logger.debug("Outlines MLX token bitmask routed to the CPU path (no Metal).")
    return True
