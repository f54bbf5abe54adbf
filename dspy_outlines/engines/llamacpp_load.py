"""Loading a GGUF for the llama.cpp engine: the model path checked, its metadata read without the weights,
the default context length, and the ``Llama`` closed at exit."""

from __future__ import annotations

import weakref
from pathlib import Path

from dspy_outlines.engines.llamacpp_internals import llamacpp_internal
from dspy_outlines.models import embedded_model_path

#: Context length when the model's trained context is unknown, and the cap on the default.
DEFAULT_N_CTX = 8192


def _close_at_exit(ref: weakref.ref) -> None:
    """Free a still-open ``Llama`` while the interpreter is whole: left to ``Llama.__del__`` at shutdown, it runs
    after llama_cpp's module globals are gone and prints ``TypeError: 'NoneType' object is not callable``."""
    llama = ref()
    if llama is not None:
        llama.close()


def _gguf_metadata(path: Path) -> dict[str, str]:
    """GGUF metadata (string values) read with the vocabulary only: no weights, no context."""
    import llama_cpp
    import llama_cpp._internals

    LlamaModel = llamacpp_internal(llama_cpp._internals, "LlamaModel")
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = LlamaModel(path_model=str(path), params=params, verbose=False)
    try:
        return dict(model.metadata())
    finally:
        model.close()


def default_n_ctx(metadata: dict[str, str]) -> int:
    """The model's trained context length, capped at :data:`DEFAULT_N_CTX` (or that when unknown)."""
    arch = metadata.get("general.architecture", "llama")
    try:
        trained = int(metadata.get(f"{arch}.context_length", 0))
    except ValueError:
        trained = 0
    return min(trained, DEFAULT_N_CTX) if trained > 0 else DEFAULT_N_CTX


def resolve_gguf_path(model: str | Path | None) -> Path:
    """The ``.gguf`` file the engine loads: ``None`` is the embedded SmolLM2 model."""
    if model is None:
        return embedded_model_path().resolve()
    if not isinstance(model, (str, Path)):
        raise TypeError(
            f"engine='llamacpp' takes a .gguf path or None, not {type(model).__name__}; "
            "a loaded (model, tokenizer) pair needs engine='mlx'."
        )
    path = Path(model).expanduser()
    if path.is_dir():
        raise ValueError(
            f"{path} is a directory; engine='llamacpp' loads .gguf files only. Load an mlx-lm / "
            "Hugging Face model directory with engine='mlx'."
        )
    if not path.is_file():
        raise FileNotFoundError(
            f"Model file {path} does not exist. Pass a .gguf file, or None for the "
            "embedded SmolLM2 model (models are never downloaded)."
        )
    if path.suffix.lower() != ".gguf":
        raise ValueError(
            f"Model file {path} is not a .gguf file; engine='llamacpp' loads GGUF files only "
            "(use engine='mlx' for an mlx-lm / Hugging Face directory)."
        )
    return path.resolve()
