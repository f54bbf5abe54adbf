"""A random mlx-lm llama small enough to compare logits, losses and gradients exactly (tests only)."""

from __future__ import annotations

from typing import Any


def tiny_llama(seed: int | None = None, **overrides: Any) -> Any:
    """A llama with grouped-query attention (4 heads, 2 key/value heads, 2 layers unless ``overrides`` say
    otherwise), its parameters evaluated; ``seed`` seeds MLX's generator first."""
    import mlx.core as mx
    from mlx_lm.models import llama

    if seed is not None:
        mx.random.seed(seed)
    args: dict[str, Any] = {
        "model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "intermediate_size": 96,
        "num_attention_heads": 4, "num_key_value_heads": 2, "rms_norm_eps": 1e-5, "vocab_size": 16,
        "rope_theta": 10000.0,
    }  # fmt: skip
    model = llama.Model(llama.ModelArgs(**{**args, **overrides}))
    mx.eval(model.parameters())
    return model
