"""Load a llama-family GGUF file as an mlx-lm ``llama.Model`` plus tokenizer.

``mx.load`` reads GGUF directly: Q4_0 / Q4_1 / Q8_0 tensors arrive as MLX affine-quantized
weights (``.weight`` packed uint32 with ``.scales`` / ``.biases``, group size 32), other tensors as
plain arrays, and the llama hyperparameters plus the tokenizer arrive as metadata. This module maps
llama.cpp tensor names to mlx-lm's, undoes llama.cpp's q/k row permutation, infers the bit width
per tensor (files mix 8-bit embeddings with 4-bit layers), and either keeps the weights quantized
(fast on Apple Silicon) or dequantizes them to float32 (fast on Linux CPU with OpenBLAS).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from dspy_outlines.models.blas import ensure_fast_blas

logger = logging.getLogger(__name__)

__all__ = ["gguf_config", "load_gguf"]

GROUP_SIZE = 32  # every GGUF block format MLX reads (Q4_0, Q4_1, Q8_0) uses 32-wide blocks

_GLOBAL_NAMES = {
    "token_embd": "model.embed_tokens",
    "output_norm": "model.norm",
    "output": "lm_head",
}
_BLOCK_NAMES = {
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}
_BLOCK_RE = re.compile(r"^blk\.(\d+)\.([a-z_]+)\.(weight|scales|biases|bias)$")
_GLOBAL_RE = re.compile(r"^([a-z_]+)\.(weight|scales|biases|bias)$")


def _scalar(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def _check_architecture(arch: Any) -> None:
    if arch != "llama":
        raise ValueError(
            f"GGUF architecture {arch!r} is not supported; only 'llama' family models "
            "(Llama, SmolLM, TinyLlama, Mistral-as-llama) can be loaded from GGUF."
        )


def gguf_config(metadata: dict[str, Any], weights: dict[str, Any]) -> dict[str, Any]:
    """Translate GGUF llama metadata into an mlx-lm / Hugging Face ``config.json`` dict.

    Args:
        metadata: GGUF metadata from ``mx.load(..., return_metadata=True)``.
        weights: The GGUF tensors (used for the vocabulary size and weight tying).

    Returns:
        A config dict for ``mlx_lm.models.llama.ModelArgs``.

    Raises:
        ValueError: If the file is not a llama-family model.
    """
    _check_architecture(metadata.get("general.architecture"))

    def get(key: str, default: Any = None) -> Any:
        return _scalar(metadata.get(f"llama.{key}", default))

    heads = int(get("attention.head_count"))
    hidden = int(get("embedding_length"))
    vocab = int(get("vocab_size", 0)) or int(weights["token_embd.weight"].shape[0])
    config = {
        "model_type": "llama",
        "hidden_size": hidden,
        "num_hidden_layers": int(get("block_count")),
        "intermediate_size": int(get("feed_forward_length")),
        "num_attention_heads": heads,
        "num_key_value_heads": int(get("attention.head_count_kv", heads)),
        "head_dim": int(get("attention.key_length", 0)) or hidden // heads,
        "rms_norm_eps": float(get("attention.layer_norm_rms_epsilon", 1e-5)),
        "rope_theta": float(get("rope.freq_base", 10000.0)),
        "max_position_embeddings": int(get("context_length", 2048)),
        "vocab_size": vocab,
        "tie_word_embeddings": "output.weight" not in weights,
    }
    scaling = metadata.get("llama.rope.scaling.type")
    if scaling not in (None, "none"):
        factor = float(get("rope.scaling.factor", 1.0))
        config["rope_scaling"] = {"type": str(scaling), "factor": factor}
    return config


def _rename(name: str) -> str | None:
    """Map a llama.cpp tensor name to mlx-lm's, or ``None`` for tensors the model ignores."""
    if m := _BLOCK_RE.match(name):
        layer, part, suffix = m.groups()
        if part not in _BLOCK_NAMES:
            return None
        return f"model.layers.{layer}.{_BLOCK_NAMES[part]}.{suffix}"
    if (m := _GLOBAL_RE.match(name)) and m.group(1) in _GLOBAL_NAMES:
        return f"{_GLOBAL_NAMES[m.group(1)]}.{m.group(2)}"
    return None


def _unpermute_rows(w: Any, n_heads: int) -> Any:
    """Undo llama.cpp's RoPE row permutation of a q/k projection (rows = output features).

    llama.cpp stores ``w.reshape(h, 2, d/2, ...).swapaxes(1, 2)``; the inverse swaps back. Rows of
    packed quantized weights, scales and biases move together, so this works on all three.
    """
    rows = w.shape[0]
    return w.reshape(n_heads, rows // n_heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def _bits(packed: Any, scales: Any) -> int:
    """Bits per weight of an MLX affine-quantized tensor: packed uint32 columns vs groups."""
    return packed.shape[-1] * 32 // (scales.shape[-1] * GROUP_SIZE)


def convert_weights(raw: dict[str, Any], config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, int]]]:
    """Rename GGUF tensors, undo the q/k permutation and find each quantized module's bits.

    Args:
        raw: Tensors from ``mx.load`` of a GGUF file.
        config: The config from :func:`gguf_config`.

    Returns:
        ``(weights, quantized)``: mlx-lm named weights, and for each quantized module path its
        ``{"group_size", "bits"}``.
    """
    weights: dict[str, Any] = {}
    for name, value in raw.items():
        new = _rename(name)
        if new is None:
            logger.debug("Ignoring GGUF tensor %s", name)
            continue
        if ".self_attn.q_proj." in new:
            value = _unpermute_rows(value, config["num_attention_heads"])
        elif ".self_attn.k_proj." in new:
            value = _unpermute_rows(value, config["num_key_value_heads"])
        weights[new] = value
    quantized = {
        key[: -len(".scales")]: {
            "group_size": GROUP_SIZE,
            "bits": _bits(weights[key[: -len(".scales")] + ".weight"], value),
        }
        for key, value in weights.items()
        if key.endswith(".scales")
    }
    return weights, quantized


def _dequantize(weights: dict[str, Any], quantized: dict[str, dict[str, int]]) -> dict[str, Any]:
    import mlx.core as mx

    out = {k: v for k, v in weights.items() if not k.endswith((".scales", ".biases"))}
    for path, q in quantized.items():
        # float32 scales/biases: dequantize exactly as llama.cpp does, not in float16
        out[f"{path}.weight"] = mx.dequantize(
            weights[f"{path}.weight"],
            weights[f"{path}.scales"].astype(mx.float32),
            weights[f"{path}.biases"].astype(mx.float32),
            group_size=q["group_size"],
            bits=q["bits"],
        )
    return {k: v.astype(mx.float32) if v.dtype == mx.float16 else v for k, v in out.items()}


def load_gguf(path: str | Path, *, dequantize: bool) -> tuple[Any, Any, dict[str, Any]]:
    """Load a llama-family GGUF file into mlx-lm.

    Args:
        path: The ``.gguf`` file.
        dequantize: Convert every weight to float32 (fast on Linux CPU) instead of keeping the
            GGUF's 4/8-bit blocks as MLX quantized layers.

    Returns:
        ``(model, tokenizer, config)``: an ``mlx_lm.models.llama.Model``, an mlx-lm
        ``TokenizerWrapper`` and the config dict (with a ``quantization`` entry when quantized, in
        the per-module form ``mlx_lm.utils.load_model`` reads back).
    """
    ensure_fast_blas()
    import mlx.core as mx
    import mlx.nn as nn
    from mlx_lm.models import llama

    from dspy_outlines.models.gguf_header import check_gguf, read_header
    from dspy_outlines.models.gguf_tokenizer import tokenizer_from_gguf_metadata

    # Not GGUF, a truncated header, not llama, truncated tensors, no tokenizer: said before MLX reads weights.
    _check_architecture(read_header(path)["metadata"].get("general.architecture"))
    check_gguf(path)
    loaded = mx.load(str(path), return_metadata=True)
    if not isinstance(loaded, tuple):
        raise ValueError(f"{path} did not load as a GGUF file (no metadata); pass a llama-family .gguf file.")
    raw, metadata = loaded
    config = gguf_config(metadata, raw)
    weights, quantized = convert_weights(raw, config)
    model = llama.Model(llama.ModelArgs.from_dict(config))
    if dequantize or not quantized:
        weights = _dequantize(weights, quantized)
    else:
        bits = [q["bits"] for q in quantized.values()]
        default = max(set(bits), key=bits.count)
        nn.quantize(
            model,
            group_size=GROUP_SIZE,
            bits=default,
            class_predicate=lambda p, _m: quantized.get(p, False),
        )
        config["quantization"] = {"group_size": GROUP_SIZE, "bits": default}
        config["quantization"].update({p: q for p, q in quantized.items() if q["bits"] != default})
    model.load_weights(list(weights.items()), strict=True)
    model.eval()
    mx.eval(model.parameters())
    tokenizer = tokenizer_from_gguf_metadata(metadata)
    return model, tokenizer, config
