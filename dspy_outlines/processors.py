"""Outlines' structured-generation backends behind Tier 3: which one, and a cache of their logits processors.

* **Backends.** ``outlines_core``, ``llguidance`` and ``xgrammar`` (optional: it pulls in torch) are selectable
  with ``backend=``; :data:`DEFAULT_BACKEND` is the fastest here of those without torch.
  :func:`register_constraint_backend` adds more by name (an object with Outlines' backend methods,
  ``get_json_schema_logits_processor`` / ``get_regex_logits_processor`` / ``get_cfg_logits_processor``); an
  unknown name is an error listing the registered ones.
* **Cache.** Building a processor (outlines_core's regex index over the vocabulary, llguidance's grammar) is
  done once per (tokenizer, backend, constraint key); the tokenizer is the MLX one or Outlines' llama.cpp
  tokenizer (whose processors work on numpy logits: no bitmask patch needed). Each call gets a shallow copy,
  reset: the copy shares the immutable index/grammar and gets its own guides/matchers, so concurrent or
  nested generations never share per-generation state.
"""

from __future__ import annotations

import copy
import importlib.util
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from dspy_outlines.constraints import close_schema, constraint_key
from dspy_outlines.cpu_bitmask import outlines_internal

__all__ = [
    "BACKENDS",
    "DEFAULT_BACKEND",
    "ConstraintBackend",
    "available_backends",
    "cache_info",
    "clear_cache",
    "get_logits_processor",
    "register_constraint_backend",
]

#: The built-in backends (:func:`available_backends` lists the registered ones usable here).
BACKENDS = ("outlines_core", "llguidance", "xgrammar")


@runtime_checkable
class ConstraintBackend(Protocol):
    """What a backend object provides (Outlines' ``BaseBackend``): a logits processor per kind of constraint."""

    def get_json_schema_logits_processor(self, json_schema: str) -> Any: ...

    def get_regex_logits_processor(self, regex: str) -> Any: ...

    def get_cfg_logits_processor(self, grammar: str) -> Any: ...


@dataclass(frozen=True)
class _Backend:
    factory: Callable[[Any], ConstraintBackend]  # outlines_model -> backend object (built once per vocabulary)
    requires: str | None = None  # a module that must be importable
    extra: str = "dspy-rlm[mlx]"  # what to install when it is not
    json_schema: Callable[[str], str] | None = None  # the schema as this backend should read it


_BACKENDS: dict[str, _Backend] = {}


def register_constraint_backend(
    name: str,
    factory: Callable[[Any], ConstraintBackend],
    *,
    requires: str | None = None,
    extra: str = "dspy-rlm[mlx]",
    json_schema: Callable[[str], str] | None = None,
) -> None:
    """Make ``backend=name`` (``OutlinesLM(backend=...)``, :func:`get_logits_processor`) build its processors with
    ``factory(outlines_model)`` (called once per vocabulary).

    Args:
        name: The backend's name.
        factory: ``outlines_model -> backend object`` (:class:`ConstraintBackend`).
        requires: A module that must be importable for the backend to be available.
        extra: What ``pip install`` names when ``requires`` is missing.
        json_schema: Rewrites a JSON schema before this backend builds it.

    Raises:
        ValueError: ``name`` is empty or not a string.
        TypeError: ``factory`` is not callable.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"a backend name must be a non-empty string, got {name!r}")
    if not callable(factory):
        raise TypeError(f"a backend factory must be callable (outlines_model) -> backend, got {factory!r}")
    _BACKENDS[name] = _Backend(factory, requires, extra, json_schema)


# Measured with `python -m benchmarks.tiers --backends --max-tokens 16` (2-core x86 CPU shared with other
# jobs, SmolLM2-135M float32, greedy; 6 signatures, one warm-up round, then medians over 5 build samples and
# 3 generations per signature and backend, backends interleaved):
#                                   outlines_core        llguidance
#   build, first use (fresh cache)  49 ms (18-203)       0.2 ms (compiles lazily, in every generation)
#   build, second use (cache hit)   0.26 ms (max 0.28)   0.13 ms (max 0.13)
#   per-generation setup + 1st mask 0.7 ms               2.5 ms  (an LLMatcher per generation)
#   token mask, per token           1.1 ms               1.4 ms
#   constrained generation          2.90 s (18.0 s all)  2.88 s (17.9 s all)  -> equal within noise
# After warm-up outlines_core is the cheaper per call (~1.8 ms + 0.25 ms/token less); it pays its index
# build once per schema and process (the earlier 4.4 ms second-use figure was a warm-up artifact).
# It stays the default. CFGs go to llguidance (outlines_core has no CFG support).
DEFAULT_BACKEND = "outlines_core"


_MAX_CACHED = 256
_lock = threading.Lock()
# tokenizer -> OrderedDict[(backend, kind, definition) -> processor template]; plus backend objects.
_processors: weakref.WeakKeyDictionary[Any, OrderedDict] = weakref.WeakKeyDictionary()
_backend_objects: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()
_stats = {"hits": 0, "misses": 0, "build_s": 0.0}


def available_backends() -> list[str]:
    """The registered backends usable in this environment (xgrammar only when installed)."""
    return [
        name
        for name, spec in _BACKENDS.items()
        if spec.requires is None or importlib.util.find_spec(spec.requires) is not None
    ]


def _check_backend(name: str | None) -> str:
    name = name or DEFAULT_BACKEND
    if name not in _BACKENDS:
        raise ValueError(
            f"Unknown Outlines backend {name!r}; choose one of {', '.join(_BACKENDS)} "
            "(dspy_outlines.processors.register_constraint_backend adds more)."
        )
    if name not in available_backends():
        extra = _BACKENDS[name].extra
        raise ImportError(f"The {name} backend is not installed. Install it with: pip install '{extra}'")
    return name


def _tokenizer_of(outlines_model: Any) -> Any:
    """The cache key of a model's vocabulary: ``MLXLM.mlx_tokenizer`` or ``LlamaCpp.tokenizer``."""
    tokenizer = getattr(outlines_model, "mlx_tokenizer", None)
    return tokenizer if tokenizer is not None else outlines_model.tokenizer


def _backend_object(outlines_model: Any, name: str) -> Any:
    tokenizer = _tokenizer_of(outlines_model)
    with _lock:
        backend = _backend_objects.setdefault(tokenizer, {}).get(name)
    if backend is None:
        backend = _BACKENDS[name].factory(outlines_model)  # builds the backend's vocabulary once
        with _lock:
            backend = _backend_objects[tokenizer].setdefault(name, backend)
    return backend


def _llguidance_schema(definition: str) -> str:
    """The schema as outlines_core reads it: compact separators, objects closed unless they say not.

    llguidance otherwise allows free whitespace and, per the JSON-schema spec, extra properties,
    which lets a small model ramble inside the object until ``max_tokens``.
    """
    import json

    schema = close_schema(json.loads(definition))
    schema.setdefault("x-guidance", {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "})
    return json.dumps(schema)


def _outlines_backend(name: str) -> Callable[[Any], ConstraintBackend]:
    """The factory of one of Outlines' own backends."""

    def factory(outlines_model: Any) -> ConstraintBackend:
        import outlines.backends

        backend: ConstraintBackend = outlines_internal(outlines.backends, "_get_backend")(name, outlines_model)
        return backend

    return factory


register_constraint_backend("outlines_core", _outlines_backend("outlines_core"))
register_constraint_backend(
    "llguidance", _outlines_backend("llguidance"), requires="llguidance", json_schema=_llguidance_schema
)
register_constraint_backend("xgrammar", _outlines_backend("xgrammar"), requires="xgrammar", extra="dspy-rlm[xgrammar]")


def _build(backend: Any, name: str, kind: str, definition: str) -> Any:
    if kind == "json":
        rewrite = _BACKENDS[name].json_schema
        return backend.get_json_schema_logits_processor(rewrite(definition) if rewrite else definition)
    if kind == "cfg":
        return backend.get_cfg_logits_processor(definition)
    return backend.get_regex_logits_processor(definition)


def get_logits_processor(outlines_model: Any, output_type: Any, backend: str | None = None) -> Any:
    """A ready-to-use logits processor for ``output_type``, built once and then copied.

    Args:
        outlines_model: An Outlines ``MLXLM`` or ``LlamaCpp`` (``OutlinesLM.model``).
        output_type: Any output type Outlines accepts (a type, a Regex/CFG term, a pydantic model).
        backend: ``"outlines_core"``, ``"llguidance"``, ``"xgrammar"`` or ``None`` for
            :data:`DEFAULT_BACKEND`. CFGs need ``llguidance`` (chosen automatically when
            ``backend`` is ``None``).

    Returns:
        A fresh processor (its own per-generation state) sharing the cached index/grammar.
    """
    kind, definition = constraint_key(output_type)
    name = _check_backend("llguidance" if backend is None and kind == "cfg" else backend)
    key = (name, kind, definition)
    tokenizer = _tokenizer_of(outlines_model)
    with _lock:
        cached = _processors.setdefault(tokenizer, OrderedDict())
        template = cached.get(key)
        if template is not None:
            cached.move_to_end(key)
            _stats["hits"] += 1
    if template is None:
        started = time.perf_counter()
        template = _build(_backend_object(outlines_model, name), name, kind, definition)
        with _lock:
            _stats["misses"] += 1
            _stats["build_s"] += time.perf_counter() - started
            cached[key] = template
            while len(cached) > _MAX_CACHED:
                cached.popitem(last=False)
    processor = copy.copy(template)
    processor.reset()
    return processor


def cache_info() -> dict[str, Any]:
    """Processor-cache counters: ``hits``, ``misses``, ``build_s`` (total build time), ``size``."""
    with _lock:
        return {**_stats, "size": sum(len(entries) for entries in _processors.values())}


def clear_cache() -> None:
    """Drop all cached processors and backend objects, and zero the counters."""
    with _lock:
        _processors.clear()
        _backend_objects.clear()
        _stats.update(hits=0, misses=0, build_s=0.0)
