"""The Outlines model over a llama.cpp engine's ``Llama``: ``lm.outlines_model`` (``outlines.from_llamacpp``), shared
by reference when DSPy deep-copies a request and serialized with the engine's own generations by its lock."""

from __future__ import annotations

import threading
from typing import Any

#: The structured backend when none is asked for. Outlines' outlines_core masks numpy logits with a numba
#: kernel (numba, ~45 MB with llvmlite, and a JIT compile of seconds at the first constrained call of each
#: process); llguidance masks them natively, and takes CFGs too. ``backend="outlines_core"`` works once
#: numba is installed.
DEFAULT_BACKEND = "llguidance"

_shared_class: list[type] = []


def outlines_llamacpp_model(llama: Any, lock: threading.RLock, name: str, backend: str | None = None) -> Any:
    """``outlines.from_llamacpp(llama)``, shared by reference when deep-copied and serialized by ``lock``.

    DSPy deep-copies the request (which includes ``lm.model``) on every call; a ``Llama`` holds native
    pointers, so the Outlines model returns itself from ``__deepcopy__``. Direct ``lm.model(...)`` calls
    take the engine's lock, so they never interleave with the engine's own generations, and use ``backend``
    (default :data:`DEFAULT_BACKEND`) unless they name one.
    """
    if not _shared_class:
        from outlines.models.llamacpp import LlamaCpp

        class SharedLlamaCpp(LlamaCpp):
            """An Outlines ``LlamaCpp`` shared by reference when copied, generating under a lock."""

            model_name = "llamacpp"
            default_backend = DEFAULT_BACKEND
            lock: threading.RLock

            def __deepcopy__(self, memo: dict) -> SharedLlamaCpp:
                return self

            def __call__(
                self, model_input: Any, output_type: Any = None, backend: str | None = None, **kwargs: Any
            ) -> Any:
                return super().__call__(model_input, output_type, backend or self.default_backend, **kwargs)

            def stream(
                self, model_input: Any, output_type: Any = None, backend: str | None = None, **kwargs: Any
            ) -> Any:
                return super().stream(model_input, output_type, backend or self.default_backend, **kwargs)

            def generate(self, model_input: Any, output_type: Any = None, **kwargs: Any) -> str:
                with self.lock:
                    return super().generate(model_input, output_type, **kwargs)

            def generate_stream(self, model_input: Any, output_type: Any = None, **kwargs: Any) -> Any:
                with self.lock:
                    yield from super().generate_stream(model_input, output_type, **kwargs)

            def __repr__(self) -> str:
                return f"<Outlines LlamaCpp {self.model_name}>"

            def __str__(self) -> str:
                # DSPy reports usage under str(lm.model): the name keeps it a local model's ("local/..."),
                # which dspy_rlm prices at 0 without importing litellm (seconds at a process's first call).
                return self.model_name

        _shared_class.append(SharedLlamaCpp)
    model = _shared_class[0](llama)
    model.lock, model.model_name, model.default_backend = lock, name, backend or DEFAULT_BACKEND
    return model
