"""Load a local mlx-lm / Hugging Face model directory, never touching the Hub.

A directory with ``config.json``, ``*.safetensors`` and tokenizer files (as written by
``mlx_lm.convert``, ``mlx_lm.utils.save_model``, or a Hugging Face snapshot) is loaded with
mlx-lm's own loader. Quantized directories can be dequantized to float32 for Linux CPU.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from dspy_outlines.models.blas import ensure_fast_blas

logger = logging.getLogger(__name__)

__all__ = ["load_model_dir", "save_model_dir"]


def load_model_dir(path: str | Path, *, dequantize: bool) -> tuple[Any, Any, dict[str, Any]]:
    """Load an mlx-lm / Hugging Face model directory.

    Args:
        path: A local directory holding ``config.json`` and safetensors weights.
        dequantize: Replace quantized layers by float32 ones (fast path on Linux CPU).

    Returns:
        ``(model, tokenizer, config)`` with an mlx-lm model and ``TokenizerWrapper``.

    Raises:
        FileNotFoundError: If the directory has no ``config.json`` or no safetensors weights.
    """
    path = Path(path)
    if not (path / "config.json").is_file():
        raise FileNotFoundError(
            f"{path} is not an mlx-lm / Hugging Face model directory: config.json is missing. "
            "Pass a directory containing config.json and *.safetensors, or a .gguf file."
        )
    if not any(path.glob("*.safetensors")):
        raise FileNotFoundError(
            f"No *.safetensors weights in {path}. Convert the checkpoint first, e.g. "
            f"`mlx_lm.convert --hf-path {path} --mlx-path {path}-mlx`."
        )
    ensure_fast_blas()
    import mlx.core as mx
    from mlx_lm.utils import dequantize_model, load

    loaded = load(str(path), return_config=True)
    if len(loaded) != 3:  # mlx-lm's load returns (model, tokenizer, config) when asked for the config
        raise RuntimeError(f"mlx_lm.load returned no config for {path}; this mlx-lm version is not supported.")
    model, tokenizer, config = loaded
    if dequantize and ("quantization" in config or "quantization_config" in config):
        # float32 scales first, so the dequantized weights are exact rather than float16
        model.update(_tree_to_float32(model.parameters()))
        model = dequantize_model(model)
        mx.eval(model.parameters())
    return model, tokenizer, config


def _tree_to_float32(tree: Any) -> Any:
    import mlx.core as mx
    from mlx.utils import tree_map

    return tree_map(lambda a: a.astype(mx.float32) if a.dtype in (mx.float16, mx.bfloat16) else a, tree)


def save_model_dir(model: Any, tokenizer: Any, config: dict[str, Any], path: str | Path) -> Path:
    """Write a loaded model as an mlx-lm directory that :func:`load_model_dir` reads back.

    Args:
        model: An mlx-lm model.
        tokenizer: Its ``TokenizerWrapper`` (or a Hugging Face tokenizer).
        config: The model config (from ``load_model(..., return_config=True)`` or GGUF).
        path: Target directory (created).

    Returns:
        The directory path.
    """
    from mlx_lm.utils import save_config, save_model

    path = Path(path)
    save_model(path, model)
    hf_tokenizer = getattr(tokenizer, "_tokenizer", tokenizer)
    hf_tokenizer.save_pretrained(str(path))
    config = dict(config)
    eos = sorted(getattr(tokenizer, "eos_token_ids", []) or [])
    if eos:
        config.setdefault("eos_token_id", eos if len(eos) > 1 else eos[0])
    save_config(config, path / "config.json")
    return path
