"""Outlines' structured-generation backends behind Tier 3: which one, and a cache of their logits processors.

* **Backends.** ``outlines_core``, ``llguidance`` and ``xgrammar`` (optional: it pulls in torch) are selectable
  with ``backend=``; :data:`DEFAULT_BACKEND` is the fastest here of those without torch.
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
from typing import Any

from dspy_outlines.constraints import close_schema, constraint_key
from dspy_outlines.cpu_bitmask import outlines_internal

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "available_backends", "cache_info", "clear_cache", "get_logits_processor"]

BACKENDS = ("outlines_core", "llguidance", "xgrammar")


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
    """The backends usable in this environment (xgrammar only when installed)."""
    names = ["outlines_core"]
    names += [name for name in ("llguidance", "xgrammar") if importlib.util.find_spec(name) is not None]
    return names


def _check_backend(name: str | None) -> str:
    name = name or DEFAULT_BACKEND
    if name not in BACKENDS:
        raise ValueError(f"Unknown Outlines backend {name!r}; choose one of {', '.join(BACKENDS)}.")
    if name not in available_backends():
        extra = "dspy-rlm[xgrammar]" if name == "xgrammar" else "dspy-rlm[mlx]"
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
        import outlines.backends

        get_backend = outlines_internal(outlines.backends, "_get_backend")
        backend = get_backend(name, outlines_model)  # builds the backend's vocabulary once
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


def _build(backend: Any, name: str, kind: str, definition: str) -> Any:
    if kind == "json":
        if name == "llguidance":
            definition = _llguidance_schema(definition)
        return backend.get_json_schema_logits_processor(definition)
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
