"""Faster LoRA training of llama-family MLX models on a CPU: vectorizable exp, chunked causal attention, and a
malloc that keeps its freed buffers.

MLX's CPU backend computes ``exp``, ``sigmoid`` and the softmax inside ``mx.fast.scaled_dot_product_attention``
one element at a time (about 12 ns each on the 2-core x86_64 machine here), while plain arithmetic runs
vectorized (about 0.25 ns). In one SmolLM2-135M block over 4 x 256 tokens, SiLU (25 ms) and the attention
softmax (27 ms) took half of the block's 97 ms; the matrix products, all of them, about 30 ms.

* :func:`fast_exp` is ``exp`` from arithmetic alone: ``2**n * p(f)`` with ``n`` the integer part of
  ``x * log2(e)`` (built into the float's exponent bits) and ``p`` the degree-7 Taylor polynomial of ``2**f``
  on ``[0, 1)``; relative error under 1e-6 (float32's rounding is 6e-8), ``2**-126`` for anything smaller, its gradient
  the output itself (a custom VJP, so the bit tricks are never differentiated).
* :func:`swiglu` and :func:`attention` use it: ``silu(g) * x`` as ``g / (1 + exp(-g)) * x``; causal
  attention one block of 128 queries at a time, each against only the keys it may see (0.75 of the scores at
  256 tokens, 0.63 at 512), the masked ones given ``-1e9`` before the softmax.
* :func:`keep_freed_memory` raises glibc's mmap threshold while training: every buffer MLX frees on the CPU
  goes back to the kernel (``munmap``) and the next one of that size faults in page by page; with the
  threshold at 32 MiB they are reused from the heap (``fast_exp`` over 2.4 M floats: 23 ms -> 12 ms).
* :func:`speed_up` swaps these into a model's blocks: it changes the class of each ``mlx_lm`` llama
  ``Attention`` and ``MLP`` (not their weights or children, so LoRA layers still attach by name). The attention
  only for inputs without a KV cache (training, a prompt read whole); with a cache MLX's own runs.

Measured by ``python -m benchmarks.finetune`` (``fast_kernels`` on and off in ``train_kwargs``). Only where
MLX runs on the CPU; on Metal these operations are already vectorized, and nothing changes.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import math
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ["attention", "fast_exp", "keep_freed_memory", "speed_up", "swiglu"]

_LOG2E = 1.4426950408889634
_TAYLOR = [math.log(2) ** k / math.factorial(k) for k in range(8)]  # 2**f = sum (f ln 2)**k / k!
QUERY_BLOCK = 128
_MASKED = -1e9
_fns: dict[str, Any] = {}
_classes: dict[type, type] = {}


def _build() -> dict[str, Any]:
    if _fns:
        return _fns
    import mlx.core as mx

    def exp_forward(x: Any) -> Any:
        y = mx.clip(x * _LOG2E, -126.0, 127.0)
        n = (y + 126.0).astype(mx.int32)  # y + 126 >= 0, so truncation is the floor
        f = y - (n - 126).astype(mx.float32)
        p: Any = _TAYLOR[7]
        for c in reversed(_TAYLOR[:7]):
            p = p * f + c
        return mx.view(mx.left_shift(n + 1, 23), mx.float32) * p  # 2**(n - 126) as float32 bits

    @mx.custom_function
    def exp(x: Any) -> Any:
        return exp_forward(x.astype(mx.float32)).astype(x.dtype)

    @exp.vjp
    def exp_vjp(primals: Any, cotangent: Any, output: Any) -> Any:
        return cotangent * output

    _fns["exp"] = exp
    return _fns


def fast_exp(x: Any) -> Any:
    """``mx.exp(x)`` from vectorizable arithmetic (see the module doc); float32 inside."""
    return _build()["exp"](x)


def swiglu(gate: Any, x: Any) -> Any:
    """``silu(gate) * x``, as mlx-lm's llama MLP computes it."""
    return gate / (1.0 + fast_exp(-gate)) * x


def _softmax(scores: Any) -> Any:
    import mlx.core as mx

    top = mx.stop_gradient(scores.max(axis=-1, keepdims=True))
    e = fast_exp(scores - top)
    return e / e.sum(axis=-1, keepdims=True)


def attention(queries: Any, keys: Any, values: Any, scale: float, mask: Any) -> Any:
    """``mx.fast.scaled_dot_product_attention(queries, keys, values, scale=scale, mask=mask)`` for ``mask``
    ``"causal"``, ``None`` or an array, with as many or fewer key heads than query heads (grouped queries)."""
    import mlx.core as mx

    b, heads, length, dim = queries.shape
    kv_heads, seen = keys.shape[1], keys.shape[2]
    group = heads // kv_heads
    grouped = (queries * scale).reshape(b, kv_heads, group, length, dim)
    causal = isinstance(mask, str)
    if causal and mask != "causal":
        raise ValueError(f"unknown attention mask {mask!r}")
    step = QUERY_BLOCK if causal else length
    offset = seen - length  # keys before the first query (0 without a cache)
    outputs = []
    for start in range(0, length, step):
        stop = min(start + step, length)
        width = offset + stop if causal else seen  # the keys these queries may see
        q = grouped[:, :, :, start:stop, :].reshape(b, kv_heads, group * (stop - start), dim)
        s = (q @ keys[:, :, :width, :].swapaxes(-1, -2)).reshape(b, kv_heads, group, stop - start, width)
        if causal:
            rows = mx.arange(offset + start, offset + stop)[:, None]
            s = s + mx.where(rows >= mx.arange(width)[None, :], 0.0, _MASKED).astype(s.dtype)
        elif mask is not None:
            part = _grouped_mask(mask, kv_heads, group)
            s = mx.where(part, s, _MASKED) if part.dtype == mx.bool_ else s + part
        p = _softmax(s).reshape(b, kv_heads, group * (stop - start), width)
        outputs.append((p @ values[:, :, :width, :]).reshape(b, kv_heads, group, stop - start, dim))
    out = outputs[0] if len(outputs) == 1 else mx.concatenate(outputs, axis=3)
    return out.reshape(b, heads, length, dim)


def _grouped_mask(mask: Any, kv_heads: int, group: int) -> Any:
    """A mask of (queries, keys), (batch, 1, queries, keys) or (batch, heads, queries, keys), shaped to broadcast
    against scores of (batch, key heads, queries per key head, queries, keys)."""
    if mask.ndim < 4:
        return mask
    if mask.shape[1] == 1:
        return mask[:, :, None]
    return mask.reshape(mask.shape[0], kv_heads, group, *mask.shape[2:])


def _attention_call(self: Any, x: Any, mask: Any = None, cache: Any = None) -> Any:
    if cache is not None:
        return super(type(self), self).__call__(x, mask, cache)
    b, length, _ = x.shape
    queries, keys, values = self.q_proj(x), self.k_proj(x), self.v_proj(x)
    queries = self.rope(queries.reshape(b, length, self.n_heads, -1).transpose(0, 2, 1, 3))
    keys = self.rope(keys.reshape(b, length, self.n_kv_heads, -1).transpose(0, 2, 1, 3))
    values = values.reshape(b, length, self.n_kv_heads, -1).transpose(0, 2, 1, 3)
    out = attention(queries, keys, values, self.scale, mask)
    return self.o_proj(out.transpose(0, 2, 1, 3).reshape(b, length, -1))


def _mlp_call(self: Any, x: Any) -> Any:
    return self.down_proj(swiglu(self.gate_proj(x), self.up_proj(x)))


def _swap(module: Any, call: Any) -> None:
    cls = type(module)
    fast = _classes.get(cls)
    if fast is None:
        fast = _classes[cls] = type(f"CPU{cls.__name__}", (cls,), {"__call__": call, "__module__": __name__})
    module.__class__ = fast


def speed_up(model: Any) -> int:
    """Swap the fast forward into each block of an mlx-lm llama-family ``model`` when MLX runs on the CPU; the
    number of blocks changed (0: not such a model, or a GPU)."""
    import mlx.core as mx

    if mx.default_device() != mx.cpu:
        return 0
    try:
        from mlx_lm.models import llama
    except ImportError:  # pragma: no cover - mlx-lm is installed beside mlx
        return 0
    changed = 0
    for block in getattr(model, "layers", []):
        attn, mlp = getattr(block, "self_attn", None), getattr(block, "mlp", None)
        if type(attn) is llama.Attention and type(mlp) is llama.MLP:
            _swap(attn, _attention_call)
            _swap(mlp, _mlp_call)
            changed += 1
    return changed


_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3
_GLIBC_DEFAULTS = {_M_TRIM_THRESHOLD: 128 * 1024, _M_TOP_PAD: 128 * 1024, _M_MMAP_THRESHOLD: 128 * 1024}


@contextlib.contextmanager
def keep_freed_memory(enabled: bool = True) -> Iterator[bool]:
    """While inside, glibc keeps freed buffers up to 32 MiB for reuse instead of unmapping them; on leaving,
    its defaults come back and the kept memory is returned (``malloc_trim``). Yields whether it applied (glibc
    on Linux only)."""
    libc = _glibc() if enabled else None
    if libc is None:
        yield False
        return
    settings = {_M_MMAP_THRESHOLD: 32 * 1024 * 1024, _M_TRIM_THRESHOLD: 1 << 30, _M_TOP_PAD: 64 * 1024 * 1024}
    for key, value in settings.items():
        libc.mallopt(key, value)
    try:
        yield True
    finally:
        for key, value in _GLIBC_DEFAULTS.items():
            libc.mallopt(key, value)
        libc.malloc_trim(0)


def _glibc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt.argtypes, libc.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        libc.malloc_trim.argtypes, libc.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
        return libc
    except (OSError, AttributeError):  # musl and others: no mallopt
        return None
