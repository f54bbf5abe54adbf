"""The MLX engine: mlx-lm generation and Outlines' ``MLXLM``, on Apple Silicon and on Linux CPU.

Unconstrained calls go straight to ``mlx_lm.stream_generate``; constrained calls add an Outlines logits
processor (``dspy_outlines.processors``). Every generation of the process runs on one long-lived MLX thread
(:mod:`dspy_outlines.models.thread`) under :data:`generation_lock`.

Each call reuses the longest token prefix already computed by an earlier call
(:class:`~dspy_outlines.models.prompt_cache.PrefixCache`) and prefills only the rest, in chunks of
``prefill_chunk`` tokens. Logits processors still see the whole token history (prompt, then generated
tokens), as without the cache.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dspy_outlines.contract import stop_requested
from dspy_outlines.engines.base import Completion, EngineState, GenerationRequest
from dspy_outlines.engines.cpu import register as register_engine
from dspy_outlines.engines.mlx_decode import JumpForward, responses
from dspy_outlines.models import embedded_model_path, load_model, mlx_on_cpu, require_mlx
from dspy_outlines.models.prefix_store import (
    DEFAULT_STORE_MB,
    PersistSetting,
    PrefixStore,
    model_fingerprint,
    store_directory,
)
from dspy_outlines.models.prompt_cache import DEFAULT_PREFIX_CACHE_MB, PrefixCache
from dspy_outlines.models.thread import run_on_mlx_thread

logger = logging.getLogger(__name__)

__all__ = ["MLXEngine", "generation_lock"]

#: MLX evaluation is not safe to interleave across threads (dspy.Evaluate and dspy.Parallel run
#: predictors in threads); every generation in this process holds this lock.
generation_lock = threading.RLock()

_shared_class: list[type] = []

#: Prompt tokens per prefill step on CPU: bounds the attention scores (chunk x context) on long prompts.
#: Measured (CPU seconds, 2k-token prompt, SmolLM2-135M): 256 -> 163 tok/s, 512 -> 135, one 2,048 chunk -> ~60.
DEFAULT_PREFILL_CHUNK = 256


def outlines_mlx_model(mlx_model: Any, tokenizer: Any, name: str) -> Any:
    """``outlines.from_mlxlm(mlx_model, tokenizer)``, made safe for DSPy's per-call deepcopy.

    DSPy 3.4 deep-copies the request (which includes ``lm.model``) on every call; copying the
    weights each time would be slow, so the Outlines model returns itself from ``__deepcopy__``.
    """
    if not _shared_class:
        from outlines.models.mlxlm import MLXLM

        class SharedMLXLM(MLXLM):
            """An Outlines ``MLXLM`` shared by reference when copied."""

            model_name = "mlx"

            def __deepcopy__(self, memo: dict) -> SharedMLXLM:
                return self

            def __repr__(self) -> str:
                return f"<Outlines MLXLM {self.model_name}>"

            def __str__(self) -> str:
                # DSPy reports usage under str(lm.model): the name keeps it a local model's ("local/..."),
                # which dspy_rlm prices at 0 without importing litellm (seconds at a process's first call).
                return self.model_name

        _shared_class.append(SharedMLXLM)
    model = _shared_class[0](mlx_model, tokenizer)
    model.model_name = name
    return model


class MLXEngine:
    """mlx-lm generation with Outlines constraints.

    Args:
        model: ``None`` (embedded SmolLM2 GGUF), a ``.gguf`` path, an mlx-lm / Hugging Face model
            directory, or a loaded ``(mlx_model, tokenizer)`` pair.
        dequantize: See :func:`dspy_outlines.models.load_model`.
        backend: Outlines structured-generation backend for constrained calls (``None``: default).
        prefix_cache_mb: Memory budget of the prefix KV cache in MiB (``0``: off; the environment variable
            ``DSPY_OUTLINES_NO_PREFIX_CACHE=1`` also turns it off).
        prefill_chunk: Prompt tokens per prefill step (mlx-lm's ``prefill_step_size``); ``None``: 256 when MLX
            runs on the CPU, mlx-lm's 2048 on a GPU (Metal or CUDA: fused attention, no chunk x context scores).
        persist_prefix: Store the shared prompt prefix's KV on disk for the next process: ``True`` (the
            user's cache directory), ``False``, or a directory (:mod:`dspy_outlines.models.prefix_store`).
            Only for a model loaded from a file (a GGUF), not a loaded pair or a directory.
        persist_prefix_mb: Disk budget of the stored states of this model.
        jump_forward: In greedy constrained calls, take the tokens the constraint forces without a forward
            pass each and evaluate them in one batch (:mod:`~dspy_outlines.engines.mlx_decode`); the text is
            the same either way.
    """

    name = "mlx"

    def __init__(
        self,
        model: str | Path | tuple[Any, Any] | None = None,
        *,
        dequantize: bool | None = None,
        backend: str | None = None,
        prefix_cache_mb: float = DEFAULT_PREFIX_CACHE_MB,
        prefill_chunk: int | None = None,
        persist_prefix: PersistSetting = True,
        persist_prefix_mb: float = DEFAULT_STORE_MB,
        jump_forward: bool = True,
        adapter: str | Path | None = None,
    ) -> None:
        if prefill_chunk is not None and (
            isinstance(prefill_chunk, bool) or not isinstance(prefill_chunk, int) or prefill_chunk < 1
        ):
            raise ValueError(
                f"prefill_chunk must be a positive int (e.g. {DEFAULT_PREFILL_CHUNK}), not {prefill_chunk!r}."
            )
        self.prefix_cache = PrefixCache(prefix_cache_mb)
        root = store_directory(persist_prefix)
        require_mlx()
        self.prefix_cache_mb, self.prefill_chunk_option = prefix_cache_mb, prefill_chunk
        self.prefill_chunk = prefill_chunk or (DEFAULT_PREFILL_CHUNK if mlx_on_cpu() else 2048)
        if isinstance(model, tuple):
            self.mlx_model, self.tokenizer = model
            self.model_name, self.source = "local/mlx-model", None
        else:
            path = embedded_model_path() if model is None else Path(model)
            if adapter is not None:  # a private float copy with the LoRA weights merged in
                from dspy_outlines.lora_files import check_adapter
                from dspy_outlines.models import load_private

                check_adapter(adapter, path)  # another base model's adapter: refused before any generation
                self.mlx_model, self.tokenizer = load_private(path, adapter)
                dequantize = True
            else:
                self.mlx_model, self.tokenizer = load_model(path, dequantize=dequantize)
            self.model_name, self.source = f"local/{Path(path).name}", str(path)
            if adapter is not None:
                self.model_name += f"+lora-{Path(adapter).name}"
        self.adapter = None if adapter is None else str(adapter)
        self.dequantize, self.backend = dequantize, backend
        self.persist_prefix, self.persist_prefix_mb = persist_prefix, persist_prefix_mb
        self.jump_forward = bool(jump_forward)
        if root is not None and self.prefix_cache.enabled and self.source is not None and Path(self.source).is_file():
            self.prefix_cache.disk = _store(root, Path(self.source), self.mlx_model, persist_prefix_mb, self.adapter)
        self.outlines_model = outlines_mlx_model(self.mlx_model, self.tokenizer, self.model_name)
        # Direct ``lm.model(prompt, output_type)`` calls bypass our generate path, so the CPU
        # token bitmask (Outlines only ships a Metal kernel) must be in place from the start.
        from dspy_outlines.cpu_bitmask import install_cpu_bitmask

        install_cpu_bitmask()
        register_engine(self)  # counted among the process's local engines (MLX sizes its own thread pools)

    #: MLX picks its own CPU threads: :mod:`dspy_outlines.engines.cpu` counts this engine, never resizes it.
    auto_threads = False

    def set_threads(self, n_threads: int, n_threads_batch: int | None = None) -> None:
        """Not used: MLX sizes its own thread pools (``auto_threads`` is ``False``)."""

    # -- prompt ---------------------------------------------------------------------------------
    def render_prompt(self, messages: list[dict[str, str]]) -> str:
        tokenizer = self.tokenizer
        if not getattr(tokenizer, "has_chat_template", False):
            return "\n\n".join(m["content"] for m in messages) + "\n\n"
        try:
            return tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        except Exception as e:  # some templates reject the system role: fold it into the user turn
            if not messages or messages[0]["role"] != "system" or len(messages) < 2:
                raise
            logger.debug("Chat template rejected the system role (%s); merging it into the user turn", e)
            merged = [{"role": messages[1]["role"], "content": f"{messages[0]['content']}\n\n{messages[1]['content']}"}]
            return tokenizer.apply_chat_template(merged + messages[2:], add_generation_prompt=True, tokenize=False)

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    # -- generation -----------------------------------------------------------------------------
    def generate(self, prompt_ids: list[int], request: GenerationRequest) -> Completion:
        return run_on_mlx_thread(self._generate_locked, list(prompt_ids), request)

    def _generate_locked(self, prompt_ids: list[int], request: GenerationRequest) -> Completion:
        with generation_lock:
            if request.seed is not None:
                import mlx.core as mx

                mx.random.seed(int(request.seed))
            return self._generate(prompt_ids, request)

    def _generate(self, prompt_ids: list[int], request: GenerationRequest) -> Completion:
        import mlx.core as mx
        from mlx_lm import stream_generate
        from mlx_lm.sample_utils import make_sampler

        started = time.perf_counter()
        cache, reused = self.prefix_cache.checkout(self.mlx_model, prompt_ids)
        processors = None
        if request.constraint is not None:
            from dspy_outlines.cpu_bitmask import install_cpu_bitmask
            from dspy_outlines.processors import get_logits_processor

            install_cpu_bitmask()
            processor = get_logits_processor(self.outlines_model, request.constraint, self.backend)
            processors = [_with_history(processor, prompt_ids[:reused])]
        sampler = make_sampler(temp=request.temperature, top_p=float(request.top_p or 0.0))
        text, generated, used, reason, first_token_s = "", [], 0, "length", None
        jump = None
        if processors is not None and not request.temperature and self.jump_forward:
            rest, check = prompt_ids[reused:], _prefill_deadline(request.deadline)
            jump = JumpForward(self.mlx_model, cache, rest, processors[0], self.prefill_chunk, check)
        stream = (
            responses(jump, self.tokenizer, request.max_tokens)
            if jump is not None
            else stream_generate(
                self.mlx_model,
                self.tokenizer,
                mx.array(prompt_ids[reused:]),
                max_tokens=request.max_tokens,
                sampler=sampler,
                logits_processors=processors,
                prompt_cache=cache,
                prefill_step_size=self.prefill_chunk,
                prompt_progress_callback=_prefill_deadline(request.deadline),
            )
        )
        try:
            for response in stream:
                if first_token_s is None:
                    first_token_s = time.perf_counter() - started
                text += response.text
                generated.append(int(response.token))
                used = response.generation_tokens
                reason = response.finish_reason or reason
                hit = next((s for s in request.stop if s in text), None)
                if hit is not None:
                    text, reason = text[: text.index(hit)], "stop"
                    break
                if response.finish_reason is None and (
                    (request.deadline is not None and time.monotonic() >= request.deadline) or stop_requested()
                ):
                    reason = "deadline"
                    break
        except _DeadlineInPrefill:  # the chunks read so far stay in the cache: stored below, reused next call
            reason = "deadline"
        stream.close()  # finish the generator: the cache is ours again
        self.prefix_cache.store(prompt_ids + generated, cache, prompt_len=len(prompt_ids))
        total = time.perf_counter() - started
        prefill = first_token_s or 0.0
        return Completion(
            text,
            used,
            reason,
            len(prompt_ids),
            reused,
            {"prefill_s": round(prefill, 4), "decode_s": round(total - prefill, 4)},
            forced_tokens=min(jump.forced, used) if jump is not None else 0,
        )

    # -- reporting ------------------------------------------------------------------------------
    def stats(self) -> dict[str, float]:
        """Prefix-cache counters: ``calls``, ``prompt_tokens``, ``cached_tokens``, ``hits``, ``evictions``,
        ``entries``, ``bytes``, ``max_bytes``."""
        return self.prefix_cache.stats()

    def dump_state(self) -> EngineState:
        state: EngineState = {"model": self.source, "engine": self.name, "backend": self.backend}
        if self.dequantize is not None:
            state["dequantize"] = self.dequantize
        if self.prefix_cache_mb != DEFAULT_PREFIX_CACHE_MB:
            state["prefix_cache_mb"] = self.prefix_cache_mb
        if self.prefill_chunk_option is not None:
            state["prefill_chunk"] = self.prefill_chunk_option
        if self.persist_prefix is not True:
            state["persist_prefix"] = (
                self.persist_prefix if isinstance(self.persist_prefix, bool) else str(self.persist_prefix)
            )
        if self.persist_prefix_mb != DEFAULT_STORE_MB:
            state["persist_prefix_mb"] = self.persist_prefix_mb
        if not self.jump_forward:
            state["jump_forward"] = False
        if self.adapter is not None:
            state["adapter"] = self.adapter
        return state


def _store(root: Path, source: Path, mlx_model: Any, max_mb: float, adapter: str | None = None) -> PrefixStore:
    """The on-disk prefix states of ``source`` as loaded here (MLX and mlx-lm versions, weight dtype, and the
    adapter's weights: a state computed with one adapter is never reused with another, or with none)."""
    import mlx.core as mx
    from mlx.utils import tree_flatten

    from dspy_outlines.models.prefix_store import library_versions

    flat: Any = tree_flatten(mlx_model.parameters())
    weights = [pair[1] for pair in flat]
    dtype = str(weights[0].dtype).rsplit(".", 1)[-1] if weights else "none"
    library = f"{library_versions('mlx', 'mlx-lm')}-{mx.default_device().type.name}-{dtype}"
    model = model_fingerprint(source)
    if adapter is not None:
        model += "-lora-" + model_fingerprint(Path(adapter) / "adapters.safetensors")
    return PrefixStore(root, engine="mlx", library=library, model=model, max_mb=max_mb)


class _DeadlineInPrefill(Exception):
    """Raised from mlx-lm's prefill progress callback when the request's deadline has passed."""


def _prefill_deadline(deadline: float | None) -> Callable[[int, int], None]:
    """mlx-lm's ``prompt_progress_callback``, called after every prefill chunk: stops the prefill between
    chunks once ``deadline`` (``time.monotonic()``) has passed or the caller asked to stop
    (:func:`dspy_outlines.contract.stop_scope`), as the llama.cpp engine does."""

    def check(done: int, total: int) -> None:
        if done < total and ((deadline is not None and time.monotonic() >= deadline) or stop_requested()):
            raise _DeadlineInPrefill

    return check


def _with_history(processor: Any, prefix_ids: list[int]) -> Any:
    """``processor`` called with the full token history although mlx-lm only saw the uncached suffix.

    mlx-lm hands logits processors the tokens it was given (here the prompt after the reused prefix) plus
    the generated ones; prepending the reused prefix gives them exactly the history they see without a cache.
    """
    if not prefix_ids:
        return processor
    import mlx.core as mx

    prefix = mx.array(prefix_ids)

    def process(tokens: Any, logits: Any) -> Any:
        return processor(mx.concatenate([prefix, tokens.astype(prefix.dtype)]), logits)

    return process
