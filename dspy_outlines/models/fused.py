"""Fused decoding steps for mlx-lm llama blocks on CPU: fewer MLX ops per generated token.

Generating one token runs every transformer block on a single position. On CPU, MLX has no
native ``fast.rms_norm`` / ``fast.rope`` kernels and falls back to a dozen small ops each, and
every op costs scheduling time comparable to the arithmetic of a 576-wide vector. Per block,
:class:`FusedBlock` runs two compiled functions (``mx.compile``), shared by all blocks of a shape:

* in: RMSNorm, the q/k/v projections, the head reshapes and RoPE;
* out: the output projection and residual, RMSNorm, the SwiGLU MLP and its residual;

and, between them, mlx-lm's own KV-cache update and attention (their shapes grow every step, so
they stay uncompiled). The ops are mlx-lm's own, in the same order: logits are bit-identical.

Prompt processing (more than one position, causal mask) uses the same two compiled halves, but
MLX's scalar CPU ``exp`` -- a third of a 512-token prefill, in the attention softmax and the SiLU
-- is replaced by :func:`_fast_exp`, a compiled Cephes ``expf`` (Estrin form, so it fuses into few
kernels) about 1.7x faster and as accurate, and the attention is written out (grouped-query matmuls,
softmax normalized after the value products) in two key blocks: the cached past, seen by every new
position (no mask), and the chunk's own causal block. With chunked prefill (the MLX engine's
``prefill_chunk``) no score array is larger than chunk x context, and a suffix prefilled after a
prefix-cache hit takes the same path. Logits then differ from
mlx-lm's by float32 rounding only (~1e-6 relative); ``DSPY_OUTLINES_NO_FAST_PREFILL=1`` keeps
mlx-lm's prompt processing, and with it bit-identical logits everywhere.

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

__all__ = ["DISABLE_ENV", "DISABLE_PREFILL_ENV", "fuse_for_cpu", "is_fused"]

#: Environment switch that keeps mlx-lm's unfused blocks (to measure the difference).
DISABLE_ENV = "DSPY_OUTLINES_NO_FUSED_DECODE"

#: Environment switch that keeps mlx-lm's prompt processing (exact ``mx.exp`` softmax / SiLU).
DISABLE_PREFILL_ENV = "DSPY_OUTLINES_NO_FAST_PREFILL"

_compiled: dict[tuple, tuple[Any, Any, Any]] = {}
_fast_prefill = [True]
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


def _fast_exp(x):
    """``exp`` for float32 from MLX elementwise ops (Cephes ``expf``), fused by ``mx.compile``.

    MLX's CPU ``exp`` is scalar and dominates prompt processing (softmax, SiLU); this range
    reduction plus degree-6 polynomial compiles to a few fused loops, is faster and at least as
    accurate (max relative error ~1e-7 against float64, vs ~3e-7 for ``mx.exp``).
    """
    import mlx.core as mx

    x = mx.clip(x, -87.3, 88.3)  # exp(88.3) < FLT_MAX: 2**n stays a normal float
    t = x * 1.4426950408889634 + 12582912.0  # 1.5 * 2**23: the low bits now hold round(x / ln 2)
    n = t - 12582912.0
    r = (x - n * 0.693145751953125) - n * 1.428606765330187e-06  # ln 2 in two parts (Cody-Waite): exact
    # Cephes' degree-6 polynomial in Estrin's form: the same terms, half the dependency depth, so
    # mx.compile fuses it into fewer kernels (fewer passes over a chunk x context score array)
    r2 = r * r
    p = ((r * 1.9875691500e-4 + 1.3981999507e-3) * r2 + (r * 8.3334519073e-3 + 4.1665795894e-2)) * r2
    p = (p + (r * 1.6666665459e-1 + 5.0000001201e-1)) * r2 + r + 1.0
    # The integer bits of t are 0x4B400000 + n; shifted into the exponent field only n + 127 stays
    return p * mx.view((mx.view(t, mx.int32) + 127) << 23, mx.float32)


def _attn_out_mlp_prefill(h, attn, wo, norm_w, w_gate, w_up, w_down, *, eps):
    import mlx.core as mx

    batch, _, length, _ = attn.shape
    h = h + attn.transpose(0, 2, 1, 3).reshape(batch, length, -1) @ wo.T
    x = mx.fast.rms_norm(h, norm_w, eps)
    gate = x @ w_gate.T
    return h + (gate / (1.0 + _fast_exp(-gate)) * (x @ w_up.T)) @ w_down.T


def _split_softmax(past, diag, keep):
    """Unnormalized softmax weights over past keys (all visible) and the chunk's own keys (causal).

    One maximum over both parts keeps them on a common scale; the caller divides by ``total`` after
    the products with the values (a chunk x head_dim array, not chunk x context).
    """
    import mlx.core as mx

    diag = mx.where(keep, diag, -mx.inf)
    m = mx.maximum(past.max(axis=-1, keepdims=True), diag.max(axis=-1, keepdims=True))
    e_past = _fast_exp(past - m)
    e_diag = mx.where(keep, _fast_exp(diag - m), 0.0)
    return e_past, e_diag, e_past.sum(axis=-1, keepdims=True) + e_diag.sum(axis=-1, keepdims=True)


def _causal_softmax(diag, keep):
    """Unnormalized causal softmax weights of a chunk over its own keys, and their row sums."""
    import mlx.core as mx

    diag = mx.where(keep, diag, -mx.inf)
    e = mx.where(keep, _fast_exp(diag - diag.max(axis=-1, keepdims=True)), 0.0)
    return e, e.sum(axis=-1, keepdims=True)


_softmax_compiled: dict[str, Any] = {}


def _prefill_attention(q, k, v, scale: float, offset: int):
    """Causal attention of ``L`` new positions over ``offset + L`` cached ones, fast softmax.

    Keys split into two blocks: the ``offset`` earlier positions, which every new position sees (no mask,
    no ``where``), and the chunk's own ``L`` positions (a causal ``L x L`` mask). With chunked prefill
    the score arrays are ``L x (offset + L)`` per head, never ``n x n`` for the whole prompt, and the
    probabilities are normalized after the products with the values.
    """
    import mlx.core as mx

    if not _softmax_compiled:
        _softmax_compiled.update(split=mx.compile(_split_softmax), causal=mx.compile(_causal_softmax))
    batch, heads, length, dim = q.shape
    kv_heads = k.shape[1]
    rep = heads // kv_heads
    q = (q * scale).reshape(batch, kv_heads, rep * length, dim)
    k_diag, v_diag = k[:, :, offset:], v[:, :, offset:]
    # row r of the (rep * length) query rows is position r % length of the chunk
    keep = mx.arange(length)[None, :] <= mx.arange(length)[:, None]
    keep = mx.broadcast_to(keep[None], (rep, length, length)).reshape(rep * length, length)
    diag = q @ k_diag.swapaxes(-1, -2)
    if offset == 0:
        e_diag, total = _softmax_compiled["causal"](diag, keep)
        out = e_diag @ v_diag
    else:
        past = q @ k[:, :, :offset].swapaxes(-1, -2)
        e_past, e_diag, total = _softmax_compiled["split"](past, diag, keep)
        out = e_past @ v[:, :, :offset] + e_diag @ v_diag
    return (out / total).reshape(batch, heads, length, dim)


def _functions(block: Any) -> tuple[Any, Any, Any]:
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
            mx.compile(partial(_attn_out_mlp_prefill, eps=eps_out)),
        )
    return _compiled[key]


def _fused_class() -> type:
    if not _block_class:
        import mlx.core as mx
        from mlx_lm.models import llama

        class FusedBlock(llama.TransformerBlock):
            """A llama block whose single-position (decoding) step runs two compiled functions."""

            def __call__(self, x: Any, mask: Any = None, cache: Any = None) -> Any:
                length = x.shape[1]
                if cache is None or (length != 1 and not (_fast_prefill[0] and isinstance(mask, str))):
                    return super().__call__(x, mask, cache)
                attn_in, out_mlp, out_mlp_prefill = _functions(self)
                attn, mlp = self.self_attn, self.mlp
                offset = cache.offset
                q, k, v = attn_in(
                    x,
                    self.input_layernorm.weight,
                    attn.q_proj.weight,
                    attn.k_proj.weight,
                    attn.v_proj.weight,
                    mx.array(offset),  # an input, not a constant: one trace for all steps
                )
                k, v = cache.update_and_fetch(k, v)
                if length == 1:
                    out = mx.fast.scaled_dot_product_attention(q, k, v, scale=attn.scale, mask=mask)
                else:
                    out = _prefill_attention(q, k, v, attn.scale, offset)
                    out_mlp = out_mlp_prefill
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

    Does nothing when MLX runs on a GPU, Metal or CUDA (its native kernels are already fused there), or when
    ``DSPY_OUTLINES_NO_FUSED_DECODE`` is set. Blocks of other architectures, quantized layers,
    biases or RoPE variants are left as they are.

    Args:
        model: An mlx-lm model.

    Returns:
        The number of blocks switched to the fused step.
    """
    from dspy_outlines.models.device import device_is_cpu  # the model is loaded: MLX is routed already

    if not device_is_cpu() or os.environ.get(DISABLE_ENV):
        return 0
    _fast_prefill[0] = not os.environ.get(DISABLE_PREFILL_ENV)
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
