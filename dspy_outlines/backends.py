"""Outlines structured-generation backends: selection, a CPU bitmask for MLX, a constraint cache.

* **Backends.** ``outlines_core``, ``llguidance`` and ``xgrammar`` (optional: it pulls in torch)
  are selectable with ``backend=``; :data:`DEFAULT_BACKEND` is the fastest here of those without
  torch.
* **CPU bitmask.** Outlines 1.3.3 applies each backend's token bitmask to MLX logits with a Metal
  kernel (``mx.fast.metal_kernel``), which fails with "No Metal back-end" on Linux, CPU or CUDA alike.
  :func:`install_cpu_bitmask` swaps, at runtime and only where that Metal kernel cannot run, the three
  processors' ``_bias_logits_mlx`` for :func:`apply_token_bitmask_cpu` (``mx.where`` over the
  unpacked bits). Installed packages are never edited.
* **Version guard.** That swap reads Outlines' private attributes (``_bias_logits_mlx``, ``_guides``,
  ``_bitmasks``, ``ll_matchers``, ``bitmask``, ``tensor_adapter``...) and the cache builds backends with the
  private ``outlines.backends._get_backend``. Each is read through :func:`outlines_internal`, so an Outlines
  release that renames one fails at once with :class:`OutlinesVersionError` naming the attribute and the
  installed version, instead of an ``AttributeError`` deep in a generation (or an unconstrained one).
* **Cache.** Building a processor (outlines_core's regex index over the vocabulary, llguidance's
  grammar) is done once per (tokenizer, backend, constraint key); the tokenizer is the MLX one or
  Outlines' llama.cpp tokenizer (whose processors work on numpy logits: no bitmask patch needed).
  Each call gets a shallow copy, reset: the copy shares the immutable index/grammar and gets its own
  guides/matchers, so concurrent or nested generations never share per-generation state.
"""

from __future__ import annotations

import copy
import importlib.metadata
import importlib.util
import logging
import threading
import time
import types
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from dspy_outlines.constraints import close_schema, constraint_key

logger = logging.getLogger(__name__)

__all__ = [
    "BACKENDS",
    "DEFAULT_BACKEND",
    "SUPPORTED_OUTLINES",
    "Generation",
    "OutlinesVersionError",
    "apply_token_bitmask_cpu",
    "available_backends",
    "cache_info",
    "clear_cache",
    "generate",
    "generate_constrained",
    "get_logits_processor",
    "install_cpu_bitmask",
    "outlines_internal",
]

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
_cpu_installed = False

#: The method of Outlines' three logits processors that applies the token bitmask to MLX logits (Metal only).
_PATCHED_METHOD = "_bias_logits_mlx"

#: The Outlines releases whose internals this module was written against (the pyproject bound, too).
SUPPORTED_OUTLINES = ">=1.2,<1.4"


class OutlinesVersionError(RuntimeError):
    """The installed Outlines lacks an internal attribute dspy_outlines relies on (a release changed it)."""


def _outlines_version() -> str:
    try:
        return importlib.metadata.version("outlines")
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown)"


def outlines_internal(owner: Any, name: str) -> Any:
    """``getattr(owner, name)`` for a private Outlines attribute, failing fast with the fix when it is gone.

    Args:
        owner: An Outlines class, module, or object (e.g. a logits processor).
        name: The attribute (e.g. ``"_guides"``).

    Raises:
        OutlinesVersionError: ``owner`` has no ``name``: names the attribute, the installed Outlines version
            and the supported range to install.
    """
    try:
        return getattr(owner, name)
    except AttributeError as e:
        if isinstance(owner, types.ModuleType):
            where = owner.__name__
        else:
            cls = owner if isinstance(owner, type) else type(owner)
            where = f"{cls.__module__}.{cls.__qualname__}"
        raise OutlinesVersionError(
            f"dspy_outlines needs Outlines' internal attribute {where}.{name}, which the installed Outlines "
            f"{_outlines_version()} does not have; dspy_outlines supports outlines{SUPPORTED_OUTLINES}. "
            f"Install a supported version: pip install 'outlines{SUPPORTED_OUTLINES}'."
        ) from e


# -- the CPU bitmask ---------------------------------------------------------------------------


def apply_token_bitmask_cpu(logits: Any, bitmask: Any) -> Any:
    """Set the logits of tokens whose bit is 0 to ``-inf`` (the Metal kernel's job, on CPU).

    Args:
        logits: ``mx.array`` of shape ``(batch, vocab)`` or ``(vocab,)``.
        bitmask: ``int32`` array (numpy, or anything ``np.asarray`` takes) of shape
            ``(batch, words)`` or ``(words,)``; bit ``j % 32`` of word ``j // 32`` allows token ``j``.
            Tokens beyond the mask (a model vocabulary padded past the tokenizer's) are disallowed.

    Returns:
        The masked logits, shape ``(batch, vocab)``.
    """
    import mlx.core as mx
    import numpy as np

    mask = np.asarray(bitmask)
    mask = mask.reshape(1, -1) if mask.ndim == 1 else mask
    logits = logits.reshape(1, -1) if logits.ndim == 1 else logits
    vocab = logits.shape[-1]
    # Little-endian int32 words unpacked LSB-first give token order: bit k of word w = token 32w+k.
    words = np.ascontiguousarray(mask.astype("<i4", copy=False)).view(np.uint8)
    bits = np.unpackbits(words, axis=-1, bitorder="little")
    if bits.shape[-1] < vocab:
        bits = np.pad(bits, ((0, 0), (0, vocab - bits.shape[-1])))
    allowed = mx.array(bits[:, :vocab].astype(np.bool_))
    return mx.where(allowed, logits, mx.array(-np.inf, dtype=logits.dtype))


def _outlines_core_bias_cpu(self: Any, batch_size: int, logits: Any) -> Any:
    import mlx.core as mx
    from outlines_core.kernels.mlx import fill_next_token_bitmask

    guides, bitmasks = outlines_internal(self, "_guides"), outlines_internal(self, "_bitmasks")
    rows = []
    for i in range(batch_size):
        fill_next_token_bitmask(guides[i], bitmasks[i])
        rows.append(apply_token_bitmask_cpu(logits[i], bitmasks[i]))
    return mx.concatenate(rows, axis=0)


def _llguidance_bias_cpu(self: Any, input_ids: Any, logits: Any) -> Any:
    import llguidance.numpy
    import mlx.core as mx

    adapter, matchers = outlines_internal(self, "tensor_adapter"), outlines_internal(self, "ll_matchers")
    bitmask = outlines_internal(self, "bitmask")
    rows = []
    for i in range(adapter.shape(input_ids)[0]):
        llguidance.numpy.fill_next_token_bitmask(matchers[i], bitmask, i)
        rows.append(apply_token_bitmask_cpu(logits[i], bitmask[i]))
    return mx.concatenate(rows, axis=0)


def _xgrammar_bias_cpu(self: Any, input_ids: Any, logits: Any) -> Any:  # pragma: no cover - needs torch
    adapter, matchers = outlines_internal(self, "tensor_adapter"), outlines_internal(self, "_matchers")
    bitmask = outlines_internal(self, "_bitmask")
    for i in range(adapter.shape(input_ids)[0]):
        if not matchers[i].is_terminated():
            matchers[i].fill_next_token_bitmask(bitmask, i)
    return apply_token_bitmask_cpu(logits, bitmask.numpy())


def install_cpu_bitmask() -> bool:
    """Route Outlines' MLX bitmask through :func:`apply_token_bitmask_cpu` where Metal is absent.

    Idempotent and thread-safe; does nothing with Metal (Apple Silicon). Call it before any
    constrained MLX generation, including direct ``lm.model(prompt, output_type)`` calls
    (``generate_constrained`` calls it itself).

    Returns:
        Whether the CPU path is in use.
    """
    global _cpu_installed
    from dspy_outlines.models.blas import ensure_fast_blas

    ensure_fast_blas()  # a no-op after a model load; routes BLAS if this is the process's first mlx import
    import mlx.core as mx

    if mx.metal.is_available():  # Outlines' kernel needs Metal, not just a GPU: MLX on CUDA takes our path too
        return False
    with _lock:
        if not _cpu_installed:
            from outlines.backends.llguidance import LLGuidanceLogitsProcessor
            from outlines.backends.outlines_core import OutlinesCoreLogitsProcessor
            from outlines.backends.xgrammar import XGrammarLogitsProcessor

            patches = (
                (OutlinesCoreLogitsProcessor, _outlines_core_bias_cpu),
                (LLGuidanceLogitsProcessor, _llguidance_bias_cpu),
                (XGrammarLogitsProcessor, _xgrammar_bias_cpu),
            )
            for cls, _ in patches:  # a renamed method would leave Outlines' Metal kernel in place
                outlines_internal(cls, _PATCHED_METHOD)
            for cls, bias in patches:  # a runtime patch of a method: setattr says so (and mypy agrees)
                setattr(cls, _PATCHED_METHOD, bias)
            _cpu_installed = True
            logger.debug("Outlines MLX token bitmask routed to the CPU path (no Metal).")
    return True


# -- backends and the processor cache ----------------------------------------------------------


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


# -- generation --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Generation:
    """One generation: its text, token counts, wall time, speeds (tokens/s) and why it stopped."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    finish_reason: str
    prompt_tps: float = 0.0
    generation_tps: float = 0.0


def generate(
    outlines_model: Any,
    prompt: str | list[int],
    output_type: Any = None,
    *,
    max_tokens: int = 256,
    temperature: float = 0.0,
    backend: str | None = None,
) -> Generation:
    """Generate from an already chat-templated prompt, constrained when ``output_type`` is given.

    Args:
        outlines_model: An Outlines ``MLXLM``.
        prompt: The prompt text (already templated: it is not templated again) or token ids.
        output_type: An Outlines output type, or ``None`` for unconstrained generation.
        max_tokens: Completion budget.
        temperature: Sampling temperature (0.0 is greedy).
        backend: See :func:`get_logits_processor`.

    Returns:
        A :class:`Generation`.
    """
    from mlx_lm import stream_generate
    from mlx_lm.sample_utils import make_sampler

    processors = None
    if output_type is not None:
        install_cpu_bitmask()
        processors = [get_logits_processor(outlines_model, output_type, backend)]
    tokenizer = outlines_model.mlx_tokenizer
    ids = tokenizer.encode(prompt, add_special_tokens=False) if isinstance(prompt, str) else list(prompt)
    started = time.perf_counter()
    text, used, reason, response = "", 0, "length", None
    for response in stream_generate(
        outlines_model.model,
        tokenizer,
        ids,
        max_tokens=max_tokens,
        sampler=make_sampler(temp=temperature),
        logits_processors=processors,
    ):
        text += response.text
        used = response.generation_tokens
        reason = response.finish_reason or reason
    seconds = time.perf_counter() - started
    speeds = (response.prompt_tps, response.generation_tps) if response is not None else (0.0, 0.0)
    return Generation(text, len(ids), used, seconds, reason, *speeds)


def generate_constrained(
    outlines_model: Any,
    prompt_text: str,
    output_type: Any,
    *,
    max_tokens: int = 256,
    temperature: float = 0.0,
    backend: str | None = None,
) -> str:
    """Constrained generation for ``OutlinesLM``: the text of :func:`generate`."""
    return generate(
        outlines_model, prompt_text, output_type, max_tokens=max_tokens, temperature=temperature, backend=backend
    ).text
