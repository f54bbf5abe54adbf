"""Generation engines behind :class:`~dspy_outlines.lm.OutlinesLM`: one protocol, one module per engine.

``OutlinesLM`` turns DSPy messages into a prompt and a :class:`GenerationRequest`; an engine owns the
model, its tokenizer and chat template, its prompt (KV) cache, and generates, constrained or not:

* ``mlx`` (:mod:`dspy_outlines.engines.mlx`): mlx-lm + Outlines' ``MLXLM``; Apple Silicon (Metal) and
  Linux CPU (``mlx[cpu]`` with OpenBLAS).
* ``llamacpp`` (:mod:`dspy_outlines.engines.llamacpp`): llama-cpp-python + Outlines' ``LlamaCpp``
  (the ``llamacpp`` extra); the faster engine on Linux CPU.

``engine="auto"`` picks MLX on Apple Silicon, llama.cpp on other platforms when llama-cpp-python is
installed, MLX otherwise (:func:`resolve_engine`).
"""

from __future__ import annotations

import importlib.util
import platform
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "ENGINES",
    "Completion",
    "Engine",
    "GenerationRequest",
    "load_engine",
    "resolve_engine",
]

ENGINES = ("mlx", "llamacpp")
LLAMACPP_EXTRA_HINT = "pip install 'dspy-rlm[llamacpp]'"


@dataclass(frozen=True)
class GenerationRequest:
    """What to generate for one prompt.

    Attributes:
        max_tokens: Completion budget.
        temperature: Sampling temperature (0.0 is greedy).
        top_p: Nucleus sampling mass (``None`` or 0: off).
        stop: Strings that end generation (not included in the text).
        constraint: An Outlines output type (``Literal``, pydantic model, ``Regex``, ``CFG``...) or ``None``.
        seed: Sampling seed.
        deadline: A ``time.monotonic()`` instant; generation stops there with ``finish_reason="deadline"``.
    """

    max_tokens: int
    temperature: float = 0.0
    top_p: float | None = None
    stop: tuple[str, ...] = ()
    constraint: Any = None
    seed: int | None = None
    deadline: float | None = None


@dataclass(frozen=True)
class Completion:
    """One generated completion.

    Attributes:
        text: The generated text.
        completion_tokens: Tokens generated.
        finish_reason: ``"stop"`` (end of sequence, stop string, or a complete constrained value),
            ``"length"`` (``max_tokens`` reached) or ``"deadline"`` (the request's deadline passed).
        prompt_tokens: Tokens in the prompt.
        cached_tokens: Prompt tokens served from the engine's prefix cache (not computed again).
        timings: Seconds spent in ``prefill`` and ``decode``.
    """

    text: str
    completion_tokens: int
    finish_reason: str
    prompt_tokens: int
    cached_tokens: int = 0
    timings: dict[str, float] = field(default_factory=dict)


@runtime_checkable
class Engine(Protocol):
    """What ``OutlinesLM`` needs of an engine."""

    name: str
    """``"mlx"`` or ``"llamacpp"``."""

    model_name: str
    """A readable model name (reported as ``response.model``)."""

    outlines_model: Any
    """The Outlines model (``lm.model``): ``lm.model(prompt, output_type)`` works directly."""

    def render_prompt(self, messages: list[dict[str, str]]) -> str:
        """Messages (string contents) rendered with the model's chat template, ending at the assistant turn."""
        ...

    def encode(self, text: str) -> list[int]:
        """Token ids of an already templated prompt (no special tokens added)."""
        ...

    def generate(self, prompt_ids: list[int], request: GenerationRequest) -> Completion:
        """One completion. Thread-safe: concurrent callers are serialized by the engine."""
        ...

    def stats(self) -> dict[str, Any]:
        """Counters (prefix-cache hits, cached tokens, ...), for benchmarks and metrics."""
        ...

    def dump_state(self) -> dict[str, Any]:
        """The options needed to rebuild the engine (``OutlinesLM.dump_state``)."""
        ...


def llamacpp_installed() -> bool:
    """Whether llama-cpp-python can be imported (without importing it)."""
    return importlib.util.find_spec("llama_cpp") is not None


def resolve_engine(name: str | None) -> str:
    """The engine ``name`` stands for: ``"auto"`` / ``None`` -> MLX on Apple Silicon, llama.cpp elsewhere
    when installed, MLX otherwise.

    Raises:
        ValueError: ``name`` is not ``"auto"``, ``"mlx"`` or ``"llamacpp"``.
    """
    if name in (None, "auto"):
        if sys.platform == "darwin" and platform.machine() == "arm64":
            return "mlx"
        return "llamacpp" if llamacpp_installed() else "mlx"
    if name not in ENGINES:
        raise ValueError(f"Unknown engine {name!r}; choose 'auto' or one of {', '.join(ENGINES)}.")
    return name


def load_engine(name: str | None, model: str | Path | tuple[Any, Any] | None, **options: Any) -> Engine:
    """Build the engine ``name`` (see :func:`resolve_engine`) over ``model``.

    Args:
        name: ``"auto"``, ``"mlx"`` or ``"llamacpp"``; ``"auto"`` always takes MLX for a loaded pair or a
            model directory.
        model: ``None`` (the embedded SmolLM2 GGUF), a path, or (MLX only) a loaded ``(model, tokenizer)``.
        **options: Engine options (MLX: ``dequantize``, ``backend``, ``prefix_cache_mb``; llama.cpp:
            ``n_ctx``, ``n_threads``, ``backend``, ``prefix_cache_mb``).
    """
    resolved = resolve_engine(name)
    if name in (None, "auto") and (isinstance(model, tuple) or (model is not None and Path(model).is_dir())):
        resolved = "mlx"  # a loaded MLX pair or an mlx-lm / Hugging Face directory: only MLX reads those
    if resolved == "llamacpp":
        if not llamacpp_installed():
            raise ImportError(f"engine='llamacpp' needs llama-cpp-python. Install it with: {LLAMACPP_EXTRA_HINT}")
        from dspy_outlines.engines.llamacpp import LlamaCppEngine

        return LlamaCppEngine(model, **options)
    from dspy_outlines.engines.mlx import MLXEngine

    return MLXEngine(model, **options)
