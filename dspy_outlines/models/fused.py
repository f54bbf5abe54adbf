"""Fused decoding steps for mlx-lm llama blocks on CPU: fewer MLX ops per generated token.

Generating one token runs every transformer block on a single position. On CPU, MLX has no
native ``fast.rms_norm`` / ``fast.rope`` kernels and falls back to a dozen small ops each, and
every op costs scheduling time comparable to the arithmetic of a 576-wide vector. Per block,
:class:`FusedBlock` runs two compiled functions (``mx.compile``), shared by all blocks of a shape:

* in: RMSNorm, the q/k/v projections, the head reshapes and RoPE;
* out: the output projection and residual, RMSNorm, the SwiGLU MLP and its residual;

and, between them, mlx-lm's own KV-cache update and attention (their shapes grow every step, so
they stay uncompiled). The ops are mlx-lm's own, in the same order: logits are bit-identical.
Prompt processing (more than one position) runs mlx-lm's code unchanged.

:func:`fuse_for_cpu` swaps the class of each eligible block (plain llama blocks: bias-free
``nn.Linear`` layers, ``nn.RMSNorm``, plain ``nn.RoPE``); weights, parameter names and
``isinstance`` checks are unchanged, so saving, reloading and ``load_weights`` keep working.
"""

from __future__ import annotations

import logging
import os
from functools import partial
from typing import Any

logger = logging.getLogger(__name__)

__all__ = ["DISABLE_ENV", "fuse_for_cpu", "is_fused"]

#: Environment switch that keeps mlx-lm's unfused blocks (to measure the difference).
DISABLE_ENV = "DSPY_OUTLINES_NO_FUSED_DECODE"

_compiled: dict[tuple, tuple[Any, Any]] = {}
_block_class: list[type] = []


def _attn_in(h, norm_w, wq, wk, wv, offset, *, eps, n_heads, n_kv_heads, rope):
    import mlx.core as mx

    x = mx.fast.rms_norm(h, norm_w, eps)
    batch, length, _ = x.shape
    q = (x @ wq.T).reshape(batch, length, n_heads, -1).transpose(0, 2, 1, 3)
    k = (x @ wk.T).reshape(batch, length, n_kv_heads, -1).transpose(0, 2, 1, 3)
    v = (x @ wv.T).reshape(batch, length, n_kv_heads, -1).transpose(0, 2, 1, 3)
    dims, traditional, base, scale = rope
    q = mx.fast.rope(q, dims, traditional=traditional, base=base, scale=scale, offset=offset)
    k = mx.fast.rope(k, dims, traditional=traditional, base=base, scale=scale, offset=offset)
    return q, k, v


def _attn_out_mlp(h, attn, wo, norm_w, w_gate, w_up, w_down, *, eps):
    import mlx.core as mx
    import mlx.nn as nn

    batch, _, length, _ = attn.shape
    h = h + attn.transpose(0, 2, 1, 3).reshape(batch, length, -1) @ wo.T
    x = mx.fast.rms_norm(h, norm_w, eps)
    return h + (nn.silu(x @ w_gate.T) * (x @ w_up.T)) @ w_down.T


def _functions(block: Any) -> tuple[Any, Any]:
    """The compiled (in, out) pair for this block's hyperparameters, built once per process."""
    import mlx.core as mx

    attn, rope = block.self_attn, block.self_attn.rope
    key = (
        block.input_layernorm.eps,
        block.post_attention_layernorm.eps,
        attn.n_heads,
        attn.n_kv_heads,
        (rope.dims, rope.traditional, rope.base, rope.scale),
    )
    if key not in _compiled:
        eps_in, eps_out, n_heads, n_kv_heads, rope_args = key
        _compiled[key] = (
            mx.compile(partial(_attn_in, eps=eps_in, n_heads=n_heads, n_kv_heads=n_kv_heads, rope=rope_args)),
            mx.compile(partial(_attn_out_mlp, eps=eps_out)),
        )
    return _compiled[key]


def _fused_class() -> type:
    if not _block_class:
        import mlx.core as mx
        from mlx_lm.models import llama

        class FusedBlock(llama.TransformerBlock):
            """A llama block whose single-position (decoding) step runs two compiled functions."""

            def __call__(self, x: Any, mask: Any = None, cache: Any = None) -> Any:
                if cache is None or x.shape[1] != 1:
                    return super().__call__(x, mask, cache)
                attn_in, out_mlp = _functions(self)
                attn, mlp = self.self_attn, self.mlp
                q, k, v = attn_in(
                    x,
                    self.input_layernorm.weight,
                    attn.q_proj.weight,
                    attn.k_proj.weight,
                    attn.v_proj.weight,
                    mx.array(cache.offset),  # an input, not a constant: one trace for all steps
                )
                k, v = cache.update_and_fetch(k, v)
                out = mx.fast.scaled_dot_product_attention(q, k, v, scale=attn.scale, mask=mask)
                return out_mlp(
                    x,
                    out,
                    attn.o_proj.weight,
                    self.post_attention_layernorm.weight,
                    mlp.gate_proj.weight,
                    mlp.up_proj.weight,
                    mlp.down_proj.weight,
                )

        _block_class.append(FusedBlock)
    return _block_class[0]


def _eligible(block: Any) -> bool:
    import mlx.nn as nn
    from mlx_lm.models import llama

    if type(block) is not llama.TransformerBlock or type(block.mlp) is not llama.MLP:
        return False
    attn = block.self_attn
    mlp = block.mlp
    linears = (attn.q_proj, attn.k_proj, attn.v_proj, attn.o_proj, mlp.gate_proj, mlp.up_proj, mlp.down_proj)
    return (
        type(attn.rope) is nn.RoPE
        and all(type(m) is nn.Linear and "bias" not in m for m in linears)
        and all(type(n) is nn.RMSNorm for n in (block.input_layernorm, block.post_attention_layernorm))
    )


def fuse_for_cpu(model: Any) -> int:
    """Use fused decoding steps in every eligible llama block of ``model`` (CPU only, in place).

    Does nothing with a Metal GPU (MLX's native kernels are already fused there) or when
    ``DSPY_OUTLINES_NO_FUSED_DECODE`` is set. Blocks of other architectures, quantized layers,
    biases or RoPE variants are left as they are.

    Args:
        model: An mlx-lm model.

    Returns:
        The number of blocks switched to the fused step.
    """
    import mlx.core as mx

    if mx.metal.is_available() or os.environ.get(DISABLE_ENV):
        return 0
    layers = getattr(getattr(model, "model", None), "layers", None) or []
    fused = _fused_class()
    count = 0
    for block in layers:
        if _eligible(block):
            block.__class__ = fused
            count += 1
    if count:
        logger.debug("Fused the decoding step of %d/%d blocks", count, len(layers))
    return count


def is_fused(model: Any) -> bool:
    """Whether any block of ``model`` runs the fused decoding step."""
    layers = getattr(getattr(model, "model", None), "layers", None) or []
    return bool(_block_class) and any(type(block) is _block_class[0] for block in layers)
