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

#: Tokens a stored prefix must add to what memory holds to be loaded from disk.
STORE_MIN_TOKENS = 64
#: Shared prompt tokens worth a file on disk.
PERSIST_MIN_TOKENS = 128

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
        store: Prefix states on disk (:mod:`dspy_outlines.models.prefix_store`): a prompt's first shared
            prefix is stored there once per prompt family, and a lookup that finds a longer prefix on disk
            than in memory loads it (as the llama.cpp engine does).

    Raises:
        ValueError: ``max_mb`` is negative or not a number.
    """

    def __init__(self, max_mb: float = DEFAULT_PREFIX_CACHE_MB, store: Any = None) -> None:
        # store: a prefix_store.PrefixStore (not imported here: prefix_store imports this module)
        if isinstance(max_mb, bool) or not isinstance(max_mb, (int, float)) or max_mb < 0:
            raise ValueError(f"prefix_cache_mb must be a number >= 0 (0 turns the cache off), not {max_mb!r}.")
        if os.environ.get(DISABLE_ENV):
            max_mb = 0
        self.max_bytes = int(max_mb * 1024 * 1024)
        self._entries: list[_Entry] = []  # least recently used first
        self._lock = threading.Lock()
        self.disk = store if self.max_bytes > 0 else None
        self._families: list[tuple[int, ...]] = []  # prefixes this process stored or loaded
        self._stats = {
            "calls": 0,
            "prompt_tokens": 0,
            "cached_tokens": 0,
            "hits": 0,
            "evictions": 0,
            "stored_states": 0,
            "loaded_states": 0,
            "loaded_tokens": 0,
        }

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
        if self.disk is not None and _plain(cache):
            entry, reused = self._disk(cache, prompt_ids, entry, reused)
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
            if entry is not None and reused > 0 and entry in self._entries:
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

    # -- on disk --------------------------------------------------------------------------------
    def _disk(
        self, cache: list[Any], prompt_ids: Sequence[int], entry: _Entry | None, reused: int
    ) -> tuple[_Entry | None, int]:
        """Load a longer prefix from the store, or store the prefix found shared in memory (once per family)."""
        assert self.disk is not None
        found = self.disk.best(prompt_ids)
        on_disk = min(found[1], len(prompt_ids) - 1) if found is not None else 0
        if found is not None and on_disk >= reused + STORE_MIN_TOKENS:
            loaded = self._load(found[0], cache)
            if loaded is not None:
                self._families.append(found[0].tokens)
                with self._lock:
                    self._stats["loaded_states"] += 1
                    self._stats["loaded_tokens"] += on_disk
                return loaded, on_disk
        elif entry is not None and self._worth_storing(prompt_ids, reused, on_disk):
            self._families.append(tuple(int(t) for t in prompt_ids[:reused]))
            if self.disk.save(prompt_ids[:reused], _serialize(entry.layers, reused)) is not None:
                with self._lock:
                    self._stats["stored_states"] += 1
        return entry, reused

    def _worth_storing(self, prompt_ids: Sequence[int], reused: int, on_disk: int) -> bool:
        """Once per prompt family (prompts sharing :data:`PERSIST_MIN_TOKENS` with a prefix this process stored
        or loaded), and only when that much longer than what the disk holds for it."""
        if reused < on_disk + PERSIST_MIN_TOKENS:
            return False
        return all(common_prefix_length(t, prompt_ids) < PERSIST_MIN_TOKENS for t in self._families)

    def _load(self, stored: Any, cache: list[Any]) -> _Entry | None:
        assert self.disk is not None
        payload = self.disk.load(stored)
        if payload is None:
            return None
        try:
            layers = _deserialize(payload, len(stored.tokens), cache)
        except (ValueError, KeyError, OSError) as e:
            self.disk.discard(stored, f"its arrays do not fit this model ({e})")
            return None
        nbytes = sum(k.nbytes + v.nbytes for k, v in layers)
        entry = _Entry(stored.tokens, len(stored.tokens), layers, nbytes)
        with self._lock:
            if nbytes <= self.max_bytes:
                self._entries.append(entry)
        return entry

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


def _serialize(layers: list[tuple[Any, Any]], length: int) -> bytes:
    """The first ``length`` positions of every layer's keys and values, as an ``.npz`` archive."""
    import io

    import mlx.core as mx
    import numpy as np

    arrays: dict[str, Any] = {}
    for i, (keys, values) in enumerate(layers):
        for name, array in (("k", keys), ("v", values)):
            part = array[..., :length, :]
            arrays[f"{name}{i}"] = np.array(part.astype(mx.float32) if part.dtype == mx.bfloat16 else part)
    arrays["dtype"] = np.array(str(layers[0][0].dtype))
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _deserialize(payload: bytes, length: int, cache: list[Any]) -> list[tuple[Any, Any]]:
    """Layers from :func:`_serialize`, checked against the shape of ``cache``'s model.

    Raises:
        ValueError: The archive does not hold ``length`` positions for every layer of the model.
    """
    import io

    import mlx.core as mx
    import numpy as np

    with np.load(io.BytesIO(payload), allow_pickle=False) as archive:
        if len(archive.files) != 2 * len(cache) + 1:
            raise ValueError(f"{(len(archive.files) - 1) // 2} layers, the model has {len(cache)}")
        dtype = getattr(mx, str(archive["dtype"]).rsplit(".", 1)[-1])
        layers = []
        for i in range(len(cache)):
            keys, values = archive[f"k{i}"], archive[f"v{i}"]
            if keys.ndim != 4 or keys.shape[2] != length or keys.shape != values.shape:
                raise ValueError(f"layer {i} has shape {keys.shape}")
            layers.append((mx.array(keys).astype(dtype), mx.array(values).astype(dtype)))
    mx.eval(layers)
    return layers


def _plain(cache: list[Any]) -> bool:
    """Whether every layer is a plain mlx-lm ``KVCache`` (the only kind sliced and reused here)."""
    from mlx_lm.models.cache import KVCache

    return bool(cache) and all(type(layer) is KVCache for layer in cache)
