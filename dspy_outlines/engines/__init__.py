"""Generation engines behind :class:`~dspy_outlines.lm.OutlinesLM`: one protocol, one module per engine.

``OutlinesLM`` turns DSPy messages into a prompt and a :class:`GenerationRequest`; an engine owns the
model, its tokenizer and chat template, its prompt (KV) cache, and generates, constrained or not:

* ``mlx`` (:mod:`dspy_outlines.engines.mlx`): mlx-lm + Outlines' ``MLXLM``; Apple Silicon (Metal) and
  Linux CPU (``mlx[cpu]`` with OpenBLAS).
* ``llamacpp`` (:mod:`dspy_outlines.engines.llamacpp`): llama-cpp-python + Outlines' ``LlamaCpp``
  (the ``llamacpp`` extra); the faster engine on Linux CPU.

``engine="auto"`` picks MLX on Apple Silicon, llama.cpp on other platforms when llama-cpp-python is
installed, MLX otherwise (:func:`resolve_engine`). :func:`register_engine` adds more by name
(``OutlinesLM(engine=name)``); an unknown name is an error listing the registered ones.
"""

from __future__ import annotations

import importlib.util
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dspy_outlines.engines.base import Completion, Engine, GenerationRequest

__all__ = [
    "ENGINES",
    "Completion",
    "Engine",
    "EngineFactory",
    "GenerationRequest",
    "engine_names",
    "load_engine",
    "register_engine",
    "resolve_engine",
]

#: The built-in engines (:func:`engine_names` lists the registered ones, these and any added).
ENGINES = ("mlx", "llamacpp")
LLAMACPP_EXTRA_HINT = "pip install 'dspy-rlm[llamacpp]'"

#: ``factory(model, **options) -> Engine``: load ``model`` (``None``: the embedded GGUF) on one engine.
EngineFactory = Callable[..., Engine]


def llamacpp_installed() -> bool:
    """Whether llama-cpp-python can be imported (without importing it)."""
    return importlib.util.find_spec("llama_cpp") is not None


def _mlx(model: str | Path | tuple[Any, Any] | None, **options: Any) -> Engine:
    from dspy_outlines.engines.mlx import MLXEngine

    return MLXEngine(model, **options)


def _llamacpp(model: str | Path | tuple[Any, Any] | None, **options: Any) -> Engine:
    if isinstance(model, tuple):
        raise TypeError(
            "engine='llamacpp' takes a .gguf path or None, not a loaded (model, tokenizer) pair; "
            "use engine='mlx' for that."
        )
    if not llamacpp_installed():
        raise ImportError(f"engine='llamacpp' needs llama-cpp-python. Install it with: {LLAMACPP_EXTRA_HINT}")
    from dspy_outlines.engines.llamacpp import LlamaCppEngine

    return LlamaCppEngine(model, **options)


_ENGINES: dict[str, EngineFactory] = {"mlx": _mlx, "llamacpp": _llamacpp}


def register_engine(name: str, factory: EngineFactory) -> None:
    """Make ``OutlinesLM(engine=name)`` (and :func:`load_engine`) load models with ``factory(model, **options)``.

    Raises:
        ValueError: ``name`` is empty, not a string, or ``"auto"``.
        TypeError: ``factory`` is not callable.
    """
    if not isinstance(name, str) or not name or name == "auto":
        raise ValueError(f"an engine name must be a non-empty string other than 'auto', got {name!r}")
    if not callable(factory):
        raise TypeError(f"an engine factory must be callable (model, **options) -> Engine, got {factory!r}")
    _ENGINES[name] = factory


def engine_names() -> tuple[str, ...]:
    """The registered engines."""
    return tuple(_ENGINES)


def resolve_engine(name: str | None) -> str:
    """The engine ``name`` stands for: ``"auto"`` / ``None`` -> MLX on Apple Silicon, llama.cpp elsewhere
    when installed, MLX otherwise.

    Raises:
        ValueError: ``name`` is not ``"auto"`` or a registered engine (the message lists them).
    """
    if name in (None, "auto"):
        if sys.platform == "darwin" and platform.machine() == "arm64":
            return "mlx"
        return "llamacpp" if llamacpp_installed() else "mlx"
    if name not in _ENGINES:
        raise ValueError(
            f"Unknown engine {name!r}; choose 'auto' or one of {', '.join(_ENGINES)} "
            "(dspy_outlines.engines.register_engine adds more)."
        )
    return name


def load_engine(name: str | None, model: str | Path | tuple[Any, Any] | None, **options: Any) -> Engine:
    """Build the engine ``name`` (see :func:`resolve_engine`) over ``model``.

    Args:
        name: ``"auto"``, ``"mlx"``, ``"llamacpp"`` or a registered name; ``"auto"`` always takes MLX for a
            loaded pair or a model directory.
        model: ``None`` (the embedded SmolLM2 GGUF), a path, or (MLX only) a loaded ``(model, tokenizer)``.
        **options: Engine options (MLX: ``dequantize``, ``prefill_chunk``; llama.cpp: ``n_ctx``, ``n_threads``;
            both: ``backend``, ``prefix_cache_mb``, ``persist_prefix``, ``persist_prefix_mb``, ``jump_forward``,
            ``adapter``; llama.cpp also ``adapter_mode``, ``adapter_cache``).
    """
    resolved = resolve_engine(name)
    if name in (None, "auto") and (isinstance(model, tuple) or (model is not None and Path(model).is_dir())):
        resolved = "mlx"  # a loaded MLX pair or an mlx-lm / Hugging Face directory: only MLX reads those
    return _ENGINES[resolved](model, **options)
