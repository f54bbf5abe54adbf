"""OutlinesLM: a local model as a ``dspy.LM``, in one line.

``OutlinesLM()`` is ``dspy.LM("local/<model>", engine=LocalEngine(...))``: DSPy's own LM class (its cache,
retries, history, callbacks, usage tracking), generating on a local inference engine through DSPy 3.4's
engine contract (:mod:`dspy_outlines.local_engine`). Tier 3 of :class:`dspy_outlines.OutlinesAdapter` puts an
Outlines constraint in the request's ``Config.extensions`` (:mod:`dspy_outlines.contract`).
:meth:`OutlinesLM.generate` is constrained generation without DSPy: ``lm.generate(prompt, Literal["A", "B"])``
(the chat template, the engine's lock and prefix cache). ``lm.model`` is the model name DSPy routes by; calling
it runs Outlines' own generation, ``lm.model(raw_prompt, Literal["A", "B"])`` (no chat template), on
``lm.outlines_model``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import dspy

from dspy_outlines.bounds import bounded_output_type
from dspy_outlines.constraints import TRUNCATING_FINISH_REASONS, TruncatedOutputError
from dspy_outlines.engines import Engine, GenerationRequest
from dspy_outlines.engines.mlx import generation_lock
from dspy_outlines.finetune import LocalProvider
from dspy_outlines.local_engine import DEFAULT_MAX_TOKENS, AsyncLocalEngine, LocalEngine

logger = logging.getLogger(__name__)

__all__ = ["LocalModelName", "OutlinesLM", "generation_lock"]

#: ``OutlinesLM(adapter=DEFAULT_ADAPTER)`` (the default): no adapter in the LM itself, but a program that ships
#: one for this model may run its own steps with it (``dspy_rlm``'s small policy on the embedded model).
DEFAULT_ADAPTER = "default"
#: The provider prefix of a local model's name (``local/SmolLM2-135M-Instruct...``).
LOCAL_PREFIX = "local/"
#: What a TruncatedOutputError of :meth:`OutlinesLM.generate` names as expected (the text is the one output).
_GENERATE_SIGNATURE = dspy.Signature("prompt -> output")


class LocalModelName(str):
    """The model name DSPy routes by (a ``str``) that also calls the Outlines model, as ``lm.model`` did
    before ``OutlinesLM`` became a ``dspy.LM``: ``lm.model(prompt, Literal["A", "B"], max_tokens=4)``.

    Copies and pickles are plain strings (the Outlines model holds native handles).
    """

    outlines_model: Any

    def __new__(cls, name: str, outlines_model: Any) -> LocalModelName:
        value = super().__new__(cls, name)
        value.outlines_model = outlines_model
        return value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.outlines_model(*args, **kwargs)

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        return str, (str(self),)

    def __copy__(self) -> LocalModelName:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> LocalModelName:
        return self


def _text(content: Any) -> str:
    """Flatten OpenAI-style content (a string or a list of parts) to text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return "" if content is None else str(content)


class OutlinesLM(dspy.LM):
    """A local model as a DSPy LM, with Outlines-constrained generation on request.

    Args:
        model: ``None`` for the embedded SmolLM2-135M-Instruct, a ``.gguf`` path, a local mlx-lm /
            Hugging Face model directory (MLX engine), or an already loaded ``(mlx_model, tokenizer)`` pair.
        engine: ``"auto"`` (MLX on Apple Silicon, llama.cpp elsewhere when llama-cpp-python is installed,
            MLX otherwise), ``"mlx"`` or ``"llamacpp"``; see :mod:`dspy_outlines.engines`.
        max_tokens: Default completion budget per call.
        temperature: Default sampling temperature (0.0 is greedy).
        backend: Outlines structured-generation backend for constrained calls (``None``: default).
        engine_options: Engine options (MLX: ``dequantize``; llama.cpp: ``n_ctx``, ``n_threads``; both:
            ``prefix_cache_mb``, ``persist_prefix_mb``, ``jump_forward``).
        persist_prefix: Keep the KV state of the prompts' shared prefix on disk, so the next process restores
            it instead of prefilling it: ``True`` (``~/.cache/dspy-outlines/prefix-states``), ``False``, or a
            directory (see :mod:`dspy_outlines.models.prefix_store`).
        adapter: A LoRA adapter directory from :meth:`finetune`, trained on this model: the MLX engine merges it
            into its weights, the llama.cpp engine runs its GGUF form (``engine_options`` ``adapter_mode``:
            ``"fused"`` or ``"lora"``, ``adapter_cache``: see :mod:`dspy_outlines.engines.llamacpp_adapter`).
            ``"default"`` (:data:`DEFAULT_ADAPTER`): none in this LM, but a program that ships an adapter for
            this model runs its own steps with it (``dspy_rlm``'s small policy on the embedded model, see
            :attr:`adapter_setting`); ``None``: no adapter anywhere.
        **kwargs: Forwarded to ``dspy.LM`` (``cache`` defaults to ``False``; ``dequantize=`` is taken out
            first and given to the engine).

    Attributes:
        model: The model name (``local/<file>``), callable as the Outlines model (see :class:`LocalModelName`).
        outlines_model: The Outlines model: ``lm.outlines_model(prompt, output_type)``.
        engine: The inference :class:`~dspy_outlines.engines.Engine` generating for this LM.
        dspy_engine: The :class:`~dspy_outlines.local_engine.LocalEngine` DSPy calls.
        model_name: A readable name, also reported as ``response.model``.
    """

    #: The adapter's Tier 3 hands this LM an Outlines constraint in the request (``dspy_outlines.contract``).
    accepts_outlines_constraint = True
    #: A small local model: dspy_rlm picks its small-model profile for it (``RLM(profile="auto")``).
    is_local = True

    def __init__(
        self,
        model: str | Path | tuple[Any, Any] | None = None,
        *,
        engine: str = "auto",
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        backend: str | None = None,
        engine_options: dict[str, Any] | None = None,
        persist_prefix: bool | str | Path = True,
        adapter: str | Path | None = DEFAULT_ADAPTER,
        **kwargs: Any,
    ) -> None:
        options = dict(engine_options or {})
        # a LoRA adapter (dspy_outlines.lora): merged on MLX, converted on llama.cpp
        if adapter is not None and adapter != DEFAULT_ADAPTER:
            options["adapter"] = str(adapter)
        if persist_prefix is not True:
            options["persist_prefix"] = persist_prefix
        if "dequantize" in kwargs:
            options["dequantize"] = kwargs.pop("dequantize")
        kwargs.setdefault("cache", False)
        kwargs.setdefault("provider", LocalProvider())  # lm.finetune trains locally (dspy_outlines.finetune)
        local = LocalEngine.load(model, engine=engine, backend=backend, **options)
        name = local.model_name if "/" in local.model_name else LOCAL_PREFIX + local.model_name
        super().__init__(
            name,
            engine=local,
            async_engine=AsyncLocalEngine(local),
            max_tokens=max_tokens,
            temperature=temperature,
            **kwargs,
        )
        self.model = LocalModelName(name, local.local.outlines_model)
        self.model_name = local.model_name
        self.backend = backend
        #: The adapter this LM runs (a directory), or ``"default"`` / ``None`` when it runs none (see ``adapter``).
        self.adapter_setting: str | None = (
            str(options["adapter"]) if options.get("adapter") else None if adapter is None else DEFAULT_ADAPTER
        )

    @property
    def dspy_engine(self) -> LocalEngine:
        """The DSPy engine (``complete(Request) -> Response``) this LM was built with."""
        engine: LocalEngine = self._engine_spec
        return engine

    @property
    def engine(self) -> Engine:
        """The inference engine (``name``, ``encode``, ``generate``, ``stats()``); DSPy reads ``dspy_engine``."""
        return self.dspy_engine.local

    @property
    def outlines_model(self) -> Any:
        """The Outlines model: ``lm.outlines_model(prompt, output_type)`` (no chat template)."""
        return self.engine.outlines_model

    # MLX engine internals, kept as attributes for code written against the MLX-only OutlinesLM.
    @property
    def mlx_model(self) -> Any:
        return getattr(self.engine, "mlx_model", None)

    @property
    def tokenizer(self) -> Any:
        return getattr(self.engine, "tokenizer", None)

    def render_prompt(self, messages: list[dict[str, Any]]) -> str:
        """Render DSPy / OpenAI-style messages with the model's chat template.

        Args:
            messages: ``[{"role": "system" | "user" | "assistant", "content": ...}, ...]``.

        Returns:
            The prompt text, ending with the assistant generation prompt.
        """
        chat = [{"role": m.get("role", "user"), "content": _text(m.get("content"))} for m in messages]
        return self.engine.render_prompt(chat)

    def count_tokens(self, text: str) -> int:
        """Number of tokens of ``text`` under this model's tokenizer (no special tokens added)."""
        return len(self.engine.encode(text))

    def generate(
        self,
        prompt: str | list[dict[str, Any]],
        output_type: Any = None,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> str:
        """Generate one completion, held to ``output_type`` when given: constrained generation without DSPy.

        The prompt goes through the chat template and the engine (its lock, prefix cache and structured
        backend), as a DSPy call would.

        Args:
            prompt: A user message, or chat messages (``[{"role": ..., "content": ...}, ...]``).
            output_type: ``None`` (free text) or any Outlines output type: ``Literal["a", "b"]``, ``int``,
                ``outlines.types.Regex(...)``, ``outlines.types.CFG(...)`` (llguidance), a pydantic model or
                a JSON schema (the text is then the JSON).
            max_tokens: Completion budget (default: the LM's ``max_tokens``).
            temperature: Sampling temperature (default: the LM's; 0.0 is greedy).

        Returns:
            The generated text; under ``output_type`` it is a complete value of the type. A list of scalars is
            bounded to close within ``max_tokens`` as Tier 3 bounds a list field (:mod:`dspy_outlines.bounds`:
            ``list[str]`` at 24 tokens is at most 2 items of 6 characters).

        Raises:
            TypeError: ``prompt`` is neither a str nor a list of messages, or Outlines does not support
                ``output_type``.
            TruncatedOutputError: ``max_tokens`` (or the deadline) cut a constrained value before it closed; the
                message says what helps. A cut value is never returned.
        """
        if isinstance(prompt, str):
            messages = [{"role": "user", "content": prompt}]
        elif isinstance(prompt, list) and all(isinstance(m, dict) for m in prompt):
            messages = prompt
        else:
            raise TypeError(
                f"prompt must be a str or a list of message dicts, not {type(prompt).__name__}; "
                "e.g. lm.generate('Is it good?', Literal['yes', 'no'])."
            )
        max_tokens = self.kwargs.get("max_tokens") if max_tokens is None else max_tokens
        temperature = self.kwargs.get("temperature") if temperature is None else temperature
        budget = int(max_tokens or DEFAULT_MAX_TOKENS)
        constraint, advice = (None, "") if output_type is None else bounded_output_type(output_type, budget)
        request = GenerationRequest(max_tokens=budget, temperature=float(temperature or 0.0), constraint=constraint)
        completion = self.engine.generate(self.engine.encode(self.render_prompt(messages)), request)
        if output_type is not None and completion.finish_reason in TRUNCATING_FINISH_REASONS:
            limit = f"max_tokens={budget}" if completion.finish_reason == "length" else "the deadline"
            fix = "raise the time budget" if completion.finish_reason == "deadline" else advice
            raise TruncatedOutputError(
                adapter_name="OutlinesLM.generate",
                signature=_GENERATE_SIGNATURE,
                lm_response=completion.text,
                message=f"The constrained output was cut at {limit} before its value closed; {fix}.",
            )
        return completion.text

    def finetune(
        self,
        train_data: list[dict[str, Any]],
        train_data_format: Any = None,
        train_kwargs: dict[str, Any] | None = None,
    ) -> Any:
        """Train a LoRA adapter on ``train_data`` (DSPy chat format); the job's ``result()`` is a new
        ``OutlinesLM`` on this base model plus the adapter (see :mod:`dspy_outlines.finetune`)."""
        from dspy_outlines.finetune import start_job

        if not getattr(self.provider, "finetunable", False):
            return super().finetune(train_data, train_data_format, train_kwargs)
        return start_job(self, train_data, train_data_format, train_kwargs or self.train_kwargs)

    def base_model_path(self) -> str:
        """The model file this LM was loaded from (what an adapter is trained on)."""
        source = getattr(self.engine, "source", None) or getattr(self.engine, "model_path", None)
        if not source:
            raise ValueError("this OutlinesLM was built from loaded weights, not a file: fine-tuning needs the file")
        return str(source)

    def with_adapter(self, adapter: str | Path) -> OutlinesLM:
        """A new ``OutlinesLM`` on the same base model, engine, engine options and settings, plus ``adapter``."""
        options = dict(self.dump_state().get("engine_options") or {})
        options.pop("adapter", None)
        return type(self)(
            self.base_model_path(),
            engine=self.engine.name,
            adapter=adapter,
            max_tokens=self.kwargs.get("max_tokens", DEFAULT_MAX_TOKENS),
            temperature=self.kwargs.get("temperature", 0.0),
            backend=self.backend,
            engine_options=options,
        )

    def dump_state(self) -> dict[str, Any]:
        """Reconstruction state: the model path (not the weights), the engine, its options and the default
        kwargs; ``dspy.BaseLM.load_state(state, allow_custom_lm_class=True)`` loads the model again."""
        state = dspy.BaseLM.dump_state(self)
        options = dict(self.engine.dump_state())
        state["model"] = options.pop("model", None)
        state["engine"] = options.pop("engine", self.engine.name)
        state["backend"] = options.pop("backend", self.backend)
        nested = options.pop("engine_options", None)  # llama.cpp nests them, MLX does not
        if isinstance(nested, dict):
            options.update(nested)
        if options:
            state["engine_options"] = options
        if getattr(self, "adapter_setting", DEFAULT_ADAPTER) is None:
            state["adapter"] = None  # "no shipped adapter either" survives a save and load
        return state

    @classmethod
    def load_state(cls, state: dict[str, Any], *, allow_custom_lm_class: bool = False) -> OutlinesLM:
        """Rebuild from :meth:`dump_state` (loads the model again)."""
        return cls(**state)

    def __repr__(self) -> str:
        return f"OutlinesLM({self.model_name!r}, engine={self.engine.name!r}, backend={self.backend!r})"
