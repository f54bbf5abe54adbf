"""A prefix KV cache for mlx-lm: reuse the longest already computed token prefix of a prompt.

An RLM calls its LM again and again with a prompt that only grows at the end (instructions, then the
history so far). :class:`PrefixCache` keeps the KV caches of recent generations (prompt plus the tokens
generated after it), finds the entry sharing the longest token prefix with a new prompt, and hands out
a working cache holding that prefix, so only the rest of the prompt is prefilled (SGLang's RadixAttention
and vLLM's automatic prefix caching do the same on GPUs; llama.cpp's ``cache_prompt`` for one slot).

Ownership, because ``mlx_lm.stream_generate`` updates the cache it is given in place:

* :meth:`PrefixCache.checkout` gives a *new* list of ``KVCache`` objects whose keys/values are slices of
  the entry's arrays, exactly ``offset`` long. The first ``update_and_fetch`` then concatenates into a
  fresh buffer (mlx-lm grows a full cache that way), so an entry's arrays are never written to.
* :meth:`PrefixCache.store` takes ownership of the working cache after the generation (nobody else holds
  it) and records it under the tokens it really holds. An entry that the new one extends is dropped.

Only plain ``KVCache`` layers are cached (llama, Qwen, Mistral...); models with rotating, quantized or
state-space caches simply run without reuse. Entries are evicted least recently used first when their
bytes (the arrays' full capacity) exceed the budget. Not thread-safe by itself beyond its counters: the
MLX engine calls it on its one MLX thread under ``generation_lock``.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_PREFIX_CACHE_MB", "DISABLE_ENV", "PrefixCache", "common_prefix_length"]

#: Default memory budget of the prefix cache, in MiB (SmolLM2-135M float32: ~46 KB per token).
DEFAULT_PREFIX_CACHE_MB = 1024

#: Environment switch that turns the prefix cache off whatever ``prefix_cache_mb`` says.
DISABLE_ENV = "DSPY_OUTLINES_NO_PREFIX_CACHE"


def common_prefix_length(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token sequences."""
    import numpy as np

    n = min(len(a), len(b))
    if n == 0:
        return 0
    diff = np.asarray(a[:n], dtype=np.int64) != np.asarray(b[:n], dtype=np.int64)
    return int(diff.argmax()) if diff.any() else n


@dataclass(eq=False)  # identity: comparing arrays elementwise is not what list.remove needs
class _Entry:
    tokens: tuple[int, ...]
    prompt_len: int  # tokens[:prompt_len] was the prompt, the rest generated
    layers: list[tuple[Any, Any]]  # (keys, values) per layer, full capacity; the first len(tokens) valid
    nbytes: int


class PrefixCache:
    """LRU cache of KV caches keyed by token sequences, with longest-common-prefix lookup.

    Args:
        max_mb: Memory budget in MiB; ``0`` turns the cache off (every lookup misses, nothing is kept).

    Raises:
        ValueError: ``max_mb`` is negative or not a number.
    """

    def __init__(self, max_mb: float = DEFAULT_PREFIX_CACHE_MB) -> None:
        if isinstance(max_mb, bool) or not isinstance(max_mb, (int, float)) or max_mb < 0:
            raise ValueError(f"prefix_cache_mb must be a number >= 0 (0 turns the cache off), not {max_mb!r}.")
        if os.environ.get(DISABLE_ENV):
            max_mb = 0
        self.max_bytes = int(max_mb * 1024 * 1024)
        self._entries: list[_Entry] = []  # least recently used first
        self._lock = threading.Lock()
        self._stats = {"calls": 0, "prompt_tokens": 0, "cached_tokens": 0, "hits": 0, "evictions": 0}

    @property
    def enabled(self) -> bool:
        """Whether anything is cached at all (budget above 0)."""
        return self.max_bytes > 0

    # -- lookup ---------------------------------------------------------------------------------
    def checkout(self, model: Any, prompt_ids: Sequence[int]) -> tuple[list[Any], int]:
        """A working prompt cache for ``prompt_ids`` and how many of its tokens it already holds.

        At most ``len(prompt_ids) - 1`` tokens are reused: the last prompt token must run through the model
        to give the first logits. The returned cache is the caller's: it may be updated in place.

        Args:
            model: The mlx-lm model (``make_prompt_cache(model)`` builds the cache).
            prompt_ids: The full prompt's token ids.

        Returns:
            ``(cache, reused)``: pass ``prompt_ids[reused:]`` and ``cache`` to ``stream_generate``.
        """
        from mlx_lm.models.cache import KVCache, make_prompt_cache

        cache = make_prompt_cache(model)
        entry, reused = self._best(prompt_ids) if self.enabled and _plain(cache) else (None, 0)
        if entry is not None and reused > 0:
            for layer, (keys, values) in zip(cache, entry.layers):
                layer.keys, layer.values = keys[..., :reused, :], values[..., :reused, :]
                layer.offset = reused
            assert all(type(layer) is KVCache for layer in cache)
        with self._lock:
            self._stats["calls"] += 1
            self._stats["prompt_tokens"] += len(prompt_ids)
            self._stats["cached_tokens"] += reused
            self._stats["hits"] += reused > 0
            if entry is not None and reused > 0:
                self._entries.remove(entry)
                self._entries.append(entry)  # most recently used
                if reused >= entry.prompt_len:
                    # the new prompt extends the entry's prompt (an agent loop's next step): the working cache
                    # will hold all of it, and its store() supersedes the entry
                    self._drop(entry)
        return cache, reused

    def _best(self, prompt_ids: Sequence[int]) -> tuple[_Entry | None, int]:
        best, best_len = None, 0
        with self._lock:
            entries = list(self._entries)
        for entry in entries:
            length = min(common_prefix_length(entry.tokens, prompt_ids), len(prompt_ids) - 1)
            if length > best_len:
                best, best_len = entry, length
        return best, best_len

    # -- storing --------------------------------------------------------------------------------
    def store(self, tokens: Sequence[int], cache: list[Any], prompt_len: int | None = None) -> None:
        """Keep ``cache`` (taking ownership: do not use it afterwards) as the KV of ``tokens``.

        Args:
            tokens: The token ids the generation saw: the prompt, then the generated tokens. The cache may
                hold fewer (generation stopped) or more (a look-ahead token) positions; it is cut to the
                tokens both agree on.
            cache: The working cache from :meth:`checkout`, after ``stream_generate``.
            prompt_len: How many of ``tokens`` were the prompt (default: all); a later prompt that extends
                the prompt part replaces this entry instead of adding another.
        """
        if not self.enabled or not cache or not _plain(cache) or cache[0].keys is None:
            return
        import mlx.core as mx

        length = min(cache[0].offset, len(tokens))
        if length <= 0:
            return
        layers = [(layer.keys, layer.values) for layer in cache]
        mx.eval(layers)
        nbytes = sum(k.nbytes + v.nbytes for k, v in layers)
        if nbytes > self.max_bytes:
            logger.debug("Prefix cache: an entry of %d bytes exceeds the budget of %d", nbytes, self.max_bytes)
            with self._lock:
                self._stats["evictions"] += 1
            return
        prompt_len = min(length, len(tokens) if prompt_len is None else prompt_len)
        entry = _Entry(tuple(int(t) for t in tokens[:length]), prompt_len, layers, nbytes)
        with self._lock:
            self._entries = [e for e in self._entries if e.tokens != entry.tokens]
            self._entries.append(entry)
            while sum(e.nbytes for e in self._entries) > self.max_bytes:
                self._drop(self._entries[0])
                self._stats["evictions"] += 1

    def _drop(self, entry: _Entry) -> None:
        if entry in self._entries:
            self._entries.remove(entry)

    def clear(self) -> None:
        """Forget every entry (counters are kept)."""
        with self._lock:
            self._entries.clear()

    # -- reporting ------------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        """Counters: ``calls``, ``prompt_tokens``, ``cached_tokens``, ``hits``, ``evictions``; and ``entries``,
        ``bytes`` (held now) and ``max_bytes``."""
        with self._lock:
            return {
                **self._stats,
                "entries": len(self._entries),
                "bytes": sum(e.nbytes for e in self._entries),
                "max_bytes": self.max_bytes,
            }


def _plain(cache: list[Any]) -> bool:
    """Whether every layer is a plain mlx-lm ``KVCache`` (the only kind sliced and reused here)."""
    from mlx_lm.models.cache import KVCache

    return bool(cache) and all(type(layer) is KVCache for layer in cache)
