"""The llama.cpp engine: llama-cpp-python generation with Outlines constraints and a prefix KV cache.

Outlines' ``LlamaCpp`` model (``lm.outlines_model``) supplies the vocabulary the structured backends index;
generation calls ``Llama.generate`` on token ids with a fresh logits processor from
:func:`dspy_outlines.processors.get_logits_processor` (Outlines' ``LlamaCpp.generate`` resets the context).

Prefix reuse (:mod:`dspy_outlines.engines.llamacpp_prefix`): the live context, saved states in memory
(``prefix_cache_mb``) and states stored on disk for the next process (``persist_prefix``);
``prefix_cache_mb=0`` turns all of it off: every call prefills its whole prompt.

Jump-forward (:mod:`dspy_outlines.engines.llamacpp_decode`): in greedy constrained calls, the tokens the
constraint forces are taken without a forward pass each and evaluated in one batch (``jump_forward=False``
decodes token by token; the text is the same).

Threads: without ``n_threads`` the engine takes its share of the cores this process may use
(:mod:`dspy_outlines.engines.cpu`): half of them to generate, all of them to prefill; llama-cpp-python's
private attributes are read through
:func:`~dspy_outlines.engines.llamacpp_internals.llamacpp_internal`.

Deadlines (``GenerationRequest.deadline``) hold in the prefill too (read :data:`PREFILL_CHUNK` tokens at a
time): a call whose deadline passes before its first token returns ``finish_reason="deadline"`` with no text;
the chunks read stay in the live context, so the same prompt asked again goes on from there.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from dspy_outlines.contract import stop_requested
from dspy_outlines.engines.base import Completion, EngineState, GenerationRequest, JSONValue, PromptTooLong
from dspy_outlines.engines.cpu import auto_threads, batch_threads, computing, computing_share, prefill_threads
from dspy_outlines.engines.cpu import register as register_engine
from dspy_outlines.engines.llamacpp_decode import JumpForward
from dspy_outlines.engines.llamacpp_internals import check_llama, llamacpp_internal
from dspy_outlines.engines.llamacpp_load import (
    DEFAULT_N_CTX,
    _close_at_exit,
    _gguf_metadata,
    default_n_ctx,
    resolve_gguf_path,
)
from dspy_outlines.engines.llamacpp_outlines import DEFAULT_BACKEND, outlines_llamacpp_model
from dspy_outlines.engines.llamacpp_prefix import MIN_LAST_BATCH, SAVE_MIN_TOKENS, PrefixReuse, library_version
from dspy_outlines.engines.llamacpp_prompt import ChatPrompt
from dspy_outlines.engines.llamacpp_stop import GuardedProcessor, abortable
from dspy_outlines.engines.llamacpp_stop import passed as _passed  # module-level: tests patch it here
from dspy_outlines.models.gguf_header import GGUFError, describe_gguf
from dspy_outlines.models.prefix_store import (
    DEFAULT_STORE_MB,
    PersistSetting,
    PrefixStore,
    model_fingerprint,
    store_directory,
)

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_BACKEND", "DEFAULT_N_CTX", "PREFILL_CHUNK", "SAVE_MIN_TOKENS", "LlamaCppEngine"]

DEFAULT_PREFIX_CACHE_MB = 256
#: Prompt tokens evaluated between two deadline checks (llama.cpp's default ``n_batch`` is 512): a prompt
#: is cut within one chunk's time of its deadline (~1-2 s for SmolLM2-135M on 2 CPU cores).
PREFILL_CHUNK = 256
#: New prompt tokens from which a prefill may take more threads than generation (on cores free then).
WIDE_PREFILL_TOKENS = 128


class LlamaCppEngine(ChatPrompt):
    """llama-cpp-python generation with Outlines constraints and a prefix KV cache.

    Args:
        model: ``None`` (the embedded SmolLM2 GGUF) or a ``.gguf`` path.
        n_ctx: Context length in tokens (default: the model's trained context, at most 8192).
        n_threads: CPU threads, for generation and prefill alike (default: this engine's share of the cores
            this process may use, half of them to generate and all of them to prefill, see
            :mod:`dspy_outlines.engines.cpu`; re-balanced when another local engine loads).
        backend: Outlines structured-generation backend for constrained calls (``None``:
            :data:`DEFAULT_BACKEND`).
        prefix_cache_mb: Memory for saved prefix states (see the module docstring); 0 turns prefix
            reuse off entirely (the stored states too).
        persist_prefix: Store the shared prompt prefix's state on disk for the next process: ``True`` (the
            user's cache directory), ``False``, or a directory (:mod:`dspy_outlines.models.prefix_store`).
        persist_prefix_mb: Disk budget of the stored states of this model.
        jump_forward: In greedy constrained calls, take the tokens the constraint forces without a forward
            pass each and evaluate them in one batch (:mod:`~dspy_outlines.engines.llamacpp_decode`); the
            text is the same either way.
        adapter: A LoRA adapter directory written by ``lm.finetune`` (:mod:`dspy_outlines.lora`), trained on
            this model; refused before loading when it was trained on another one.
        adapter_mode: ``"lora"`` (a GGUF LoRA adapter beside the model) or ``"fused"`` (a copy of the model
            with the adapter merged in); see :mod:`~dspy_outlines.engines.llamacpp_adapter`.
        adapter_cache: Where the adapter's llama.cpp form is written once (default: the user's cache).

    Raises:
        FileNotFoundError: The model file does not exist.
        ValueError: The path is not a ``.gguf`` file, or an option is out of range.
    """

    name = "llamacpp"

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        n_ctx: int | None = None,
        n_threads: int | None = None,
        backend: str | None = None,
        prefix_cache_mb: float = DEFAULT_PREFIX_CACHE_MB,
        persist_prefix: PersistSetting = True,
        persist_prefix_mb: float = DEFAULT_STORE_MB,
        jump_forward: bool = True,
        adapter: str | Path | None = None,
        adapter_mode: str | None = None,
        adapter_cache: str | Path | None = None,
        **unknown: Any,
    ) -> None:
        from llama_cpp import Llama

        if unknown:
            raise ValueError(
                f"engine='llamacpp' has no option {', '.join(map(repr, unknown))} (MLX engine options "
                "such as dequantize need engine='mlx'); its options are n_ctx, n_threads, backend, "
                "prefix_cache_mb, persist_prefix, persist_prefix_mb, jump_forward, adapter, adapter_mode and "
                "adapter_cache."
            )

        path = self._resolve(model)
        for option, value in (("n_ctx", n_ctx), ("n_threads", n_threads)):
            if value is not None and (not isinstance(value, int) or value <= 0):
                raise ValueError(f"{option} must be a positive int, not {value!r}; leave it out for the default.")
        if not isinstance(prefix_cache_mb, (int, float)) or prefix_cache_mb < 0:
            raise ValueError(
                f"prefix_cache_mb must be a number >= 0 (0 turns the prefix cache off), not {prefix_cache_mb!r}."
            )
        self.source, self.model_name = str(path), f"local/{path.name}"
        self._options: dict[str, JSONValue] = {
            k: v for k, v in (("n_ctx", n_ctx), ("n_threads", n_threads)) if v is not None
        }
        extras: tuple[tuple[str, object, object], ...] = (
            ("prefix_cache_mb", prefix_cache_mb, DEFAULT_PREFIX_CACHE_MB),
            ("persist_prefix", persist_prefix, True),
            ("persist_prefix_mb", persist_prefix_mb, DEFAULT_STORE_MB),
            ("jump_forward", jump_forward, True),
            ("adapter", adapter, None),
            ("adapter_mode", adapter_mode, None),
            ("adapter_cache", adapter_cache, None),
        )
        for name, setting, default in extras:
            if setting != default:
                self._options[name] = setting if isinstance(setting, (bool, int, float)) else str(setting)
        prepared = None
        if adapter is not None:  # checked and converted before anything loads
            from dspy_outlines.engines.llamacpp_adapter import prepare_adapter

            prepared = prepare_adapter(adapter, path, adapter_mode, adapter_cache)
            self.model_name += f"+lora-{Path(adapter).name}"
        self.adapter = None if adapter is None else str(adapter)
        root = store_directory(persist_prefix)
        store = None
        if root is not None and prefix_cache_mb > 0:
            store = PrefixStore(  # keyed by the adapter's weights too: no state is shared across adapters
                root,
                engine=self.name,
                library=library_version(),
                model=model_fingerprint(path) + (f"-lora-{prepared.key}-{prepared.mode}" if prepared else ""),
                max_mb=persist_prefix_mb,
            )
        try:
            self.n_ctx = n_ctx or default_n_ctx(_gguf_metadata(path))
            self.auto_threads = n_threads is None
            self.n_threads = n_threads or auto_threads(1)
            self.n_threads_batch = n_threads or batch_threads(1)
            self._prefill_threads_now = self.n_threads_batch
            self.backend, self.prefix_cache_mb, self.jump_forward = backend, prefix_cache_mb, bool(jump_forward)
            self.llama = Llama(
                str(prepared.model_path if prepared is not None else path),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads_batch,
                lora_path=str(prepared.lora_path) if prepared is not None and prepared.lora_path else None,
                verbose=False,
            )
        except ValueError as exc:  # llama.cpp says only "Failed to load model from file": say why
            if prepared is not None:
                where = prepared.lora_path or prepared.model_path
                raise GGUFError(
                    f"llama.cpp could not load {path} with the adapter {adapter} ({where}; delete that file to have "
                    f"it written again): {describe_gguf(path)}"
                ) from exc
            raise GGUFError(f"llama.cpp could not load {path}: {describe_gguf(path)}") from exc
        check_llama(self.llama)
        atexit.register(_close_at_exit, weakref.ref(self.llama))
        self.lock = threading.RLock()
        self.outlines_model = outlines_llamacpp_model(self.llama, self.lock, self.model_name, backend)
        self._formatter = self._chat_formatter()
        self._stats: dict[str, float] = {
            "calls": 0,
            "prompt_tokens": 0,
            "cached_tokens": 0,
            "deadline_before_first_token": 0,
            "forced_tokens": 0,
        }
        self._prefix = PrefixReuse(self.llama, prefix_cache_mb, store, self._stats)
        shared = register_engine(self)
        if self.auto_threads and shared != (self.n_threads, self.n_threads_batch):
            self.set_threads(*shared)

    def set_threads(self, n_threads: int, n_threads_batch: int | None = None) -> None:
        """Generate on ``n_threads`` threads and prefill on ``n_threads_batch`` (``None``: ``n_threads``) from
        the next call on (:mod:`dspy_outlines.engines.cpu`)."""
        import llama_cpp

        with self.lock:
            self.n_threads, self.n_threads_batch = n_threads, n_threads_batch or n_threads
            self._prefill_threads_now = self.n_threads_batch
            ctx = llamacpp_internal(self.llama, "_ctx").ctx
            llama_cpp.llama_set_n_threads(ctx, self.n_threads, self.n_threads_batch)

    def _fit_prefill_threads(self, new_tokens: int) -> None:
        """Prefill on the engine's share of the cores that are free now (:func:`~dspy_outlines.engines.cpu.
        prefill_threads` of :func:`~dspy_outlines.engines.cpu.computing_share`: the engines computing now split
        the cores, not those only loaded) for a long prefill (:data:`WIDE_PREFILL_TOKENS` new tokens or more); a
        short one, a later step's few new tokens, stays on ``n_threads``, where a shared core costs least. An
        explicit ``n_threads`` is kept for both."""
        if not self.auto_threads:
            return
        wide = new_tokens >= WIDE_PREFILL_TOKENS  # the cores of the engines loaded but idle now are free too
        threads = prefill_threads(self.n_threads, computing_share()) if wide else 0
        threads = threads or self.n_threads
        import llama_cpp

        if threads != self._prefill_threads_now:
            self._prefill_threads_now = threads
            ctx = llamacpp_internal(self.llama, "_ctx").ctx
            llama_cpp.llama_set_n_threads(ctx, self.n_threads, threads)

    _resolve = staticmethod(resolve_gguf_path)

    # -- generation -----------------------------------------------------------------------------
    def generate(self, prompt_ids: list[int], request: GenerationRequest) -> Completion:
        prompt_ids = list(prompt_ids)
        if not prompt_ids:
            raise ValueError("The prompt is empty (0 tokens); pass at least one token.")
        if len(prompt_ids) >= self.n_ctx:
            raise PromptTooLong(
                f"The prompt has {len(prompt_ids)} tokens, more than the context of {self.n_ctx} "
                "allows; pass a larger engine_options={'n_ctx': ...} or a shorter prompt.",
                tokens=len(prompt_ids),
                window=self.n_ctx,
            )
        processor = None
        if request.constraint is not None:
            from dspy_outlines.processors import get_logits_processor

            backend = self.backend or DEFAULT_BACKEND
            processor = GuardedProcessor(get_logits_processor(self.outlines_model, request.constraint, backend))
        with self.lock, abortable(self.llama), computing():
            return self._generate(prompt_ids, request, processor)

    def _generate(self, prompt_ids: list[int], request: GenerationRequest, processor: Any) -> Completion:
        import llama_cpp
        from llama_cpp import LLAMA_DEFAULT_SEED, LogitsProcessorList

        llama, started = self.llama, time.perf_counter()
        if _passed(request.deadline):
            return self._finish(prompt_ids, 0, Completion("", 0, "deadline", len(prompt_ids), 0, {"prefill_s": 0.0}))
        cached = self._prefix.prepare(prompt_ids)
        self._fit_prefill_threads(len(prompt_ids) - cached)
        if not self._prefill(prompt_ids, request.deadline):
            prefill = round(time.perf_counter() - started, 4)
            return self._finish(
                prompt_ids, cached, Completion("", 0, "deadline", len(prompt_ids), cached, {"prefill_s": prefill})
            )
        self._prefix.live_prompt_len = len(prompt_ids)
        llama.set_seed(LLAMA_DEFAULT_SEED if request.seed is None else int(request.seed) & 0xFFFFFFFF)
        jump = JumpForward(llama, prompt_ids[llama.n_tokens :], processor) if self._jumps(request, processor) else None
        tokens = (
            iter(jump)
            if jump is not None
            else llama.generate(
                prompt_ids[llama.n_tokens :],
                reset=False,
                temp=request.temperature,
                top_p=float(request.top_p or 1.0),
                top_k=0,
                min_p=0.0,
                typical_p=1.0,
                repeat_penalty=1.0,
                logits_processor=LogitsProcessorList([processor]) if processor is not None else None,
            )
        )
        vocab, budget = llamacpp_internal(llama, "_model").vocab, min(request.max_tokens, self.n_ctx - len(prompt_ids))
        data, used, forced, reason, first_token_s, text = b"", 0, 0, "length", None, ""
        try:
            for token in tokens if budget > 0 else ():
                if first_token_s is None:
                    first_token_s = time.perf_counter() - started
                if processor is not None and processor.error is not None:
                    break
                if llama_cpp.llama_vocab_is_eog(vocab, token):
                    reason = "stop"
                    break
                used += 1
                forced = jump.forced if jump is not None else 0
                data += llama.detokenize([token])
                if request.stop:
                    text = data.decode("utf-8", errors="ignore")
                    hit = next((s for s in request.stop if s in text), None)
                    if hit is not None:
                        text, reason = text[: text.index(hit)], "stop"
                        break
                if used >= budget:
                    break
                if _passed(request.deadline):
                    reason = "deadline"
                    break
        except RuntimeError:  # llama_decode aborted (returned 2): the caller stopped (an interrupt)
            if not stop_requested():
                raise
            reason = "deadline"
            self._prefix.live_prompt_len = min(self._prefix.live_prompt_len, llama.n_tokens)  # what the KV holds
        tokens.close()
        if processor is not None and processor.error is not None:
            self.llama.n_tokens, self._prefix.live_prompt_len = 0, 0  # the context ends in a token no one chose
            backend = self.backend or DEFAULT_BACKEND
            raise RuntimeError(f"The {backend} logits processor failed: {processor.error!r}") from processor.error
        if reason != "stop" or not request.stop:
            text = data.decode("utf-8", errors="ignore")
        total = time.perf_counter() - started
        prefill = first_token_s or 0.0
        self._stats["forced_tokens"] += forced
        return self._finish(
            prompt_ids,
            cached,
            Completion(
                text,
                used,
                reason,
                len(prompt_ids),
                cached,
                forced_tokens=forced,
                timings={
                    "prefill_s": round(prefill, 4),
                    "decode_s": round(total - prefill, 4),
                    "restore_s": round(self._prefix.last_restore_s, 4),
                },
            ),
        )

    def _jumps(self, request: GenerationRequest, processor: Any) -> bool:
        """Whether this call decodes with jump-forward (:mod:`~dspy_outlines.engines.llamacpp_decode`):
        constrained and greedy, unless ``jump_forward=False``."""
        return self.jump_forward and processor is not None and not request.temperature

    def _prefill(self, prompt_ids: list[int], deadline: float | None) -> bool:
        """Evaluate the prompt up to its last chunk, :data:`PREFILL_CHUNK` tokens at a time, checking
        ``deadline`` and the caller's stop between chunks; the last chunk is left to ``Llama.generate`` (its
        logits give the first token). A stop also aborts the chunk in progress (``abortable``: a chunk
        takes seconds on a busy CPU). Returns ``False`` when the deadline passed or a stop came first: the
        context keeps the chunks evaluated, and a later call with the same prompt goes on from there."""
        llama = self.llama
        while len(prompt_ids) - llama.n_tokens >= PREFILL_CHUNK + MIN_LAST_BATCH and not _passed(deadline):
            try:
                llama.eval(prompt_ids[llama.n_tokens : llama.n_tokens + PREFILL_CHUNK])
            except RuntimeError:  # llama_decode aborted (returned 2): the chunk is dropped from the cache
                if not stop_requested():
                    raise
        if _passed(deadline):
            self._prefix.live_prompt_len = llama.n_tokens
            return False
        return True

    def _finish(self, prompt_ids: list[int], cached: int, completion: Completion) -> Completion:
        self._stats["calls"] += 1
        self._stats["prompt_tokens"] += len(prompt_ids)
        self._stats["cached_tokens"] += cached
        if completion.finish_reason == "deadline" and not completion.completion_tokens:
            self._stats["deadline_before_first_token"] += 1
        return completion

    # -- reporting ------------------------------------------------------------------------------
    def stats(self) -> dict[str, float]:
        with self.lock:
            stats = dict(self._stats)
            saved = self._prefix.saved
            stats["saved_bytes"] = saved.cache_size if saved is not None else 0
            return stats

    def dump_state(self) -> EngineState:
        state: EngineState = {"model": self.source, "engine": self.name, "backend": self.backend}
        if self._options:  # only what was asked for: defaults (threads, context) follow the machine
            state["engine_options"] = dict(self._options)
        return state
