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

from typing import Any

from dspy_outlines.internals import InternalsGuard

__all__ = [
    "LLAMA_ATTRIBUTES",
    "LLAMA_CPP",
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


LLAMA_CPP = InternalsGuard("llama-cpp-python", "llama-cpp-python", SUPPORTED_LLAMA_CPP, LlamaCppVersionError)


def llamacpp_version() -> str:
    """The installed llama-cpp-python version, or ``"(version unknown)"``."""
    return LLAMA_CPP.version()


def llamacpp_internal(owner: Any, name: str) -> Any:
    """``getattr(owner, name)`` for a private llama-cpp-python attribute, failing fast with the fix when gone.

    Raises:
        LlamaCppVersionError: ``owner`` has no ``name``: names the attribute, the installed version and the
            supported range to install.
    """
    return LLAMA_CPP.attr(owner, name)


def check_llama(llama: Any) -> None:
    """Read every private attribute the engine uses on ``llama`` once, at load time.

    Raises:
        LlamaCppVersionError: One of :data:`LLAMA_ATTRIBUTES` is missing.
    """
    for name, inner in LLAMA_ATTRIBUTES.items():
        value = llamacpp_internal(llama, name)
        for attribute in inner:
            llamacpp_internal(value, attribute)
