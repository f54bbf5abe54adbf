"""Prefix reuse for the llama.cpp engine: the live context, saved states in memory, and states on disk.

Three sources of a prompt's already computed KV, tried in this order of cost:

* **The live context.** The KV entries of the longest token prefix the prompt shares with the previous call's
  prompt on this ``Llama`` stay; only the rest is prefilled (llama.cpp's ``cache_prompt``): the append-only
  prompts of an RLM loop are read once.
* **Saved states** (``prefix_cache_mb`` > 0). When a call is about to drop a prompt prefix of
  :data:`SAVE_MIN_TOKENS` or more from the live context (interleaved prompts: an action step, then an
  extraction, then the next action step), that sequence's KV state is saved first
  (``llama_state_seq_get_data``, ~23 KB/token for SmolLM2-135M) into an LRU cache bounded by bytes
  (``llama_cpp.LlamaRAMCache``); a later call whose prompt shares a longer prefix with a saved state
  than with the live context restores it instead of prefilling.
* **Stored states** (``persist_prefix``, :class:`~dspy_outlines.models.prefix_store.PrefixStore`). The first
  time a call shares a prefix of :data:`PERSIST_MIN_TOKENS` or more with the live context (the program's
  instructions, demos and signature text, found shared by its second call), that prefix's state is written
  to disk, once per prefix family; the first call of the next process restores the part of it its prompt
  shares, instead of prefilling it.

A restored state keeps only the tokens the prompt shares (the KV after them is removed before the prefill).
"""

from __future__ import annotations

import ctypes
import logging
import time
from typing import Any

from dspy_outlines.engines.llamacpp_internals import llamacpp_internal, llamacpp_version
from dspy_outlines.models.prefix_store import PrefixStore, StoredPrefix

logger = logging.getLogger(__name__)

__all__ = ["MIN_LAST_BATCH", "PERSIST_MIN_TOKENS", "SAVE_MIN_TOKENS", "PrefixReuse", "common_prefix"]

#: Prompt tokens a call evaluates at least (when it has as many): llama.cpp's CPU kernels for a one-token batch
#: give other logits and KV than the same token in a longer batch (up to 0.5 apart on SmolLM2-135M, enough to
#: change a greedy answer), so a prompt whose prefix was reused up to its last token, or whose reused KV was
#: generated a token at a time, would answer otherwise than the same prompt prefilled. With every prompt
#: token evaluated in a batch of two or more, a greedy answer depends on the prompt only, not on the calls
#: before it.
MIN_LAST_BATCH = 2
#: Prompt tokens a call must drop from the live context (or gain from a saved state) to save (restore) it.
SAVE_MIN_TOKENS = 64
#: Shared prompt tokens worth a file on disk (the first ~128 tokens prefill in well under a second).
PERSIST_MIN_TOKENS = 128


def common_prefix(a: Any, b: Any) -> int:
    """Length of the common prefix of two token sequences."""
    import numpy as np

    n = min(len(a), len(b))
    differ = np.flatnonzero(np.asarray(a[:n]) != np.asarray(b[:n]))
    return int(differ[0]) if differ.size else n


class PrefixReuse:
    """Prepares a ``Llama``'s context for each prompt from the cheapest source of its prefix's KV.

    Args:
        llama: The engine's ``Llama``.
        prefix_cache_mb: Memory for saved states; 0 turns all reuse off (every call prefills its prompt).
        store: Stored states on disk, or ``None``.
        stats: The engine's counters, updated in place.
    """

    def __init__(self, llama: Any, prefix_cache_mb: float, store: PrefixStore | None, stats: dict[str, float]):
        from llama_cpp import LlamaRAMCache

        self.llama, self.store, self.stats = llama, store, stats
        self.saved = LlamaRAMCache(int(prefix_cache_mb * 2**20)) if prefix_cache_mb > 0 else None
        if self.saved is not None:
            llamacpp_internal(self.saved, "_find_longest_prefix_key")
        self.live_prompt_len = 0
        self.last_restore_s = 0.0
        self._families: list[tuple[int, ...]] = []  # prefixes this process stored or loaded
        for key in ("saved_states", "restored_states", "stored_states", "loaded_states", "loaded_tokens"):
            stats[key] = 0
        for key in ("save_s", "restore_s", "store_s", "load_s"):
            stats[key] = 0.0

    @property
    def ctx(self) -> Any:
        return llamacpp_internal(self.llama, "_ctx")

    def prepare(self, prompt_ids: list[int]) -> int:
        """Prepare the context for ``prompt_ids``; returns how many prompt tokens are already in it."""
        llama, self.last_restore_s = self.llama, 0.0
        if self.saved is None:
            llama.n_tokens = 0
            return 0
        # Only the live context's prompt part is reused: its completion's KV was computed a token at a time,
        # and llama.cpp's one-token batches give other numbers than a prefill's (see :data:`MIN_LAST_BATCH`).
        live = min(common_prefix(llamacpp_internal(llama, "_input_ids"), prompt_ids), self.live_prompt_len)
        find = llamacpp_internal(self.saved, "_find_longest_prefix_key")
        key = find(tuple(prompt_ids))
        saved = common_prefix(key, prompt_ids) if key is not None else 0
        stored = self.store.best(prompt_ids) if self.store is not None else None
        on_disk = stored[1] if stored is not None else 0
        dropped = self.live_prompt_len - live
        if dropped >= SAVE_MIN_TOKENS or max(saved, on_disk) >= live + SAVE_MIN_TOKENS:
            self._save_live()
        if key is not None and saved >= live + SAVE_MIN_TOKENS and saved >= on_disk and self._restore(key):
            live = saved
        elif stored is not None and on_disk >= live + SAVE_MIN_TOKENS and self._load(stored[0], on_disk):
            live = on_disk
        elif self._worth_storing(prompt_ids, live, on_disk):
            self._store(prompt_ids[:live])  # the first shared prefix of this family: the static part
        # A state llama.cpp rejected left the context empty (n_tokens 0): nothing of it is reused then.
        # The last batch holds MIN_LAST_BATCH prompt tokens or more, as an uncached prefill's does.
        llama.n_tokens = min(live, llama.n_tokens, max(len(prompt_ids) - MIN_LAST_BATCH, 0))
        return int(llama.n_tokens)

    def _worth_storing(self, prompt_ids: list[int], live: int, on_disk: int) -> bool:
        """Whether to store the prefix ``live`` this prompt shares with the live context: once per prompt family
        (prompts extending a prefix this process stored or loaded, but for less than :data:`PERSIST_MIN_TOKENS`
        of it: the growing history of one program), and only when it is that much longer than what the disk
        already holds for it. Another program's prompt (another signature: it parts from a stored prefix in
        its first few hundred tokens) is a family of its own: its prefix is stored too."""
        if self.store is None or live < on_disk + PERSIST_MIN_TOKENS:
            return False
        return all(common_prefix(tokens, prompt_ids) < len(tokens) - PERSIST_MIN_TOKENS for tokens in self._families)

    # -- sequence state ---------------------------------------------------------------------------
    def _state_bytes(self) -> bytes:
        import llama_cpp

        ctx = self.ctx.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_seq_get_data(ctx, buffer, size, 0)
        return ctypes.string_at(buffer, written)

    def _set_state(self, data: bytes, tokens: Any) -> bool:
        """Replace the context with the state ``data`` of ``tokens``; ``False`` (context empty) if rejected."""
        import llama_cpp

        llama = self.llama
        self.ctx.kv_cache_seq_rm(-1, 0, -1)
        buffer = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        if llama_cpp.llama_state_seq_set_data(self.ctx.ctx, buffer, len(data), 0) == 0:
            llama.n_tokens, self.live_prompt_len = 0, 0
            return False
        llama.input_ids[: len(tokens)] = tokens
        llama.n_tokens = len(tokens)
        return True

    # -- saved states (memory) ---------------------------------------------------------------------
    def _save_live(self) -> None:
        import llama_cpp
        import numpy as np

        llama, started, saved = self.llama, time.perf_counter(), self.saved
        input_ids = llamacpp_internal(llama, "_input_ids")
        tokens = tuple(int(t) for t in input_ids[: self.live_prompt_len])
        if saved is None or len(tokens) < SAVE_MIN_TOKENS or tokens in saved.cache_state:
            return
        # The sequence holds the prompt and the completion; the key is the prompt, whose KV is a prefix.
        data = self._state_bytes()
        state = llama_cpp.LlamaState(
            input_ids=np.asarray(input_ids, dtype=np.intc).copy(),
            scores=np.empty((0, 0), dtype=np.single),
            n_tokens=llama.n_tokens,
            llama_state=data,
            llama_state_size=len(data),
            seed=0,
        )
        for other in [k for k in saved.cache_state if tokens[: len(k)] == k]:
            del saved.cache_state[other]  # a shorter prefix of the same prompt: superseded
        saved[tokens] = state
        self.stats["saved_states"] += 1
        self.stats["save_s"] += time.perf_counter() - started

    def _restore(self, key: tuple[int, ...]) -> bool:
        started = time.perf_counter()
        if self.saved is None:
            return False
        state = self.saved[key]
        if not self._set_state(state.llama_state, state.input_ids[: state.n_tokens]):
            logger.warning("Restoring a saved prefix state failed; prefilling the prompt instead.")
            return False
        self.live_prompt_len = len(key)
        self.stats["restored_states"] += 1
        self.last_restore_s = time.perf_counter() - started
        self.stats["restore_s"] += self.last_restore_s
        return True

    # -- stored states (disk) ----------------------------------------------------------------------
    def _store(self, tokens: list[int]) -> None:
        started = time.perf_counter()
        self.ctx.kv_cache_seq_rm(-1, len(tokens), -1)  # keep the shared prefix only (re-evaluated from there)
        self.llama.n_tokens = len(tokens)
        self._families.append(tuple(tokens))
        if self.store is not None and self.store.save(tokens, self._state_bytes()) is not None:
            self.stats["stored_states"] += 1
        self.stats["store_s"] += time.perf_counter() - started

    def _load(self, entry: StoredPrefix, shared: int) -> bool:
        started = time.perf_counter()
        if len(entry.tokens) >= self.llama.n_ctx():  # written by a process with a longer context
            return False
        data = self.store.load(entry) if self.store is not None else None
        if data is None:
            return False
        if not self._set_state(data, entry.tokens):
            if self.store is not None:
                self.store.discard(entry, "llama.cpp rejected its state")
            return False
        self.live_prompt_len = shared
        self._families.append(entry.tokens)
        self.stats["loaded_states"] += 1
        self.stats["loaded_tokens"] += shared
        self.last_restore_s = time.perf_counter() - started
        self.stats["load_s"] += self.last_restore_s
        return True


def library_version() -> str:
    """What wrote a stored state: the llama-cpp-python version (its state format follows llama.cpp's)."""
    return f"llama-cpp-python-{llamacpp_version()}"
