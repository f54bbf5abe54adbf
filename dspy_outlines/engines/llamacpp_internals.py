"""The private llama-cpp-python attributes dspy_outlines reads, each through one guard.

The llama.cpp engine reuses KV state across calls and masks logits itself, which llama-cpp-python's public
API does not offer: it reads ``Llama._ctx`` (the context, for ``llama_state_seq_*`` and KV removal),
``Llama._model`` (vocabulary), ``Llama._input_ids`` (the tokens in the context),
``llama_cpp._internals.LlamaModel`` (GGUF metadata without the weights),
``LlamaRAMCache._find_longest_prefix_key`` (saved prefix lookup) and, for the GBNF server path,
``SchemaConverter._visit_pattern``. Every one is read through :func:`llamacpp_internal`, so a release that
renames one fails at once with :class:`LlamaCppVersionError` naming the attribute, the installed version
and the supported range, instead of an ``AttributeError`` deep in a generation.
:func:`check_llama` reads the ones a ``Llama`` needs when the engine loads.
"""

from __future__ import annotations

import importlib.metadata
import types
from typing import Any

__all__ = [
    "LLAMA_ATTRIBUTES",
    "SUPPORTED_LLAMA_CPP",
    "LlamaCppVersionError",
    "check_llama",
    "llamacpp_internal",
    "llamacpp_version",
]

#: The llama-cpp-python releases these internals were tested with (the pyproject bound, too).
SUPPORTED_LLAMA_CPP = ">=0.3.36,<0.3.37"

#: The private attributes of a ``Llama`` the engine reads, and those it reads on them in turn.
LLAMA_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "_ctx": ("ctx", "kv_cache_seq_rm"),
    "_model": ("vocab", "token_get_text"),
    "_input_ids": (),
}


class LlamaCppVersionError(RuntimeError):
    """The installed llama-cpp-python lacks an internal attribute dspy_outlines relies on (a release changed it)."""


def llamacpp_version() -> str:
    """The installed llama-cpp-python version, or ``"(version unknown)"``."""
    try:
        return importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown)"


def llamacpp_internal(owner: Any, name: str) -> Any:
    """``getattr(owner, name)`` for a private llama-cpp-python attribute, failing fast with the fix when gone.

    Args:
        owner: A llama-cpp-python module, class or object (e.g. a ``Llama``).
        name: The attribute (e.g. ``"_ctx"``).

    Raises:
        LlamaCppVersionError: ``owner`` has no ``name``: names the attribute, the installed version and the
            supported range to install.
    """
    try:
        return getattr(owner, name)
    except AttributeError as e:
        if isinstance(owner, types.ModuleType):
            where = owner.__name__
        else:
            cls = owner if isinstance(owner, type) else type(owner)
            where = f"{cls.__module__}.{cls.__qualname__}"
        raise LlamaCppVersionError(
            f"dspy_outlines needs llama-cpp-python's internal attribute {where}.{name}, which the installed "
            f"llama-cpp-python {llamacpp_version()} does not have; dspy_outlines supports "
            f"llama-cpp-python{SUPPORTED_LLAMA_CPP}. Install a supported version: "
            f"pip install 'llama-cpp-python{SUPPORTED_LLAMA_CPP}'."
        ) from e


def check_llama(llama: Any) -> None:
    """Read every private attribute the engine uses on ``llama`` once, at load time.

    Raises:
        LlamaCppVersionError: One of :data:`LLAMA_ATTRIBUTES` is missing.
    """
    for name, inner in LLAMA_ATTRIBUTES.items():
        value = llamacpp_internal(llama, name)
        for attribute in inner:
            llamacpp_internal(value, attribute)
