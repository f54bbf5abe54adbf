"""OutlinesLM: a DSPy language model running a local model through Outlines.

The work is done by an engine (:mod:`dspy_outlines.engines`): mlx-lm on Apple Silicon and Linux CPU, or
llama.cpp. Calls carrying the ``_outlines_constraint`` keyword (set by
:class:`dspy_outlines.OutlinesAdapter` at Tier 3) generate under an Outlines logits processor.
:meth:`OutlinesLM.generate` is constrained generation without DSPy: ``lm.generate(prompt, Literal["A", "B"])``
(the chat template, the engine's lock and prefix cache); ``lm.model`` is the Outlines model itself, so
``lm.model(raw_prompt, Literal["A", "B"])`` works too (no chat template).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import dspy

from dspy_outlines.engines import Completion, Engine, GenerationRequest, load_engine
from dspy_outlines.engines.mlx import generation_lock

logger = logging.getLogger(__name__)

__all__ = ["OutlinesLM", "generation_lock"]

CONSTRAINT_KWARG = "_outlines_constraint"
#: Per-call keyword: a ``time.monotonic()`` instant at which generation stops (``finish_reason="deadline"``).
DEADLINE_KWARG = "_deadline"


class _AttrDict(dict):
    """A dict with attribute access: DSPy reads responses both ways (``dict(usage)``, ``.choices``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(name) from e


def _text(content: Any) -> str:
    """Flatten OpenAI-style content (a string or a list of parts) to text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return "" if content is None else str(content)


class OutlinesLM(dspy.BaseLM):
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
        **kwargs: Forwarded to ``dspy.BaseLM`` (``dequantize=`` is taken out first and given to the engine).

    Attributes:
        model: The Outlines model; call it with an output type (``lm.model(prompt, Literal["A", "B"])``).
        engine: The :class:`~dspy_outlines.engines.Engine` generating for this LM.
        model_name: A readable name, also reported as ``response.model``.
    """

    #: The adapter's Tier 3 hands this LM an Outlines output type instead of a JSON-schema response_format.
    accepts_outlines_constraint = True
    #: A small local model: dspy_rlm picks its small-model profile for it (``RLM(profile="auto")``).
    is_local = True

    def __init__(
        self,
        model: str | Path | tuple[Any, Any] | None = None,
        *,
        engine: str = "auto",
        max_tokens: int = 512,
        temperature: float = 0.0,
        backend: str | None = None,
        engine_options: dict[str, Any] | None = None,
        persist_prefix: bool | str | Path = True,
        **kwargs: Any,
    ) -> None:
        options = dict(engine_options or {})
        if persist_prefix is not True:
            options["persist_prefix"] = persist_prefix
        if "dequantize" in kwargs:
            options["dequantize"] = kwargs.pop("dequantize")
        kwargs.setdefault("cache", False)
        self.engine: Engine = load_engine(engine, model, backend=backend, **options)
        super().__init__(model=self.engine.model_name, max_tokens=max_tokens, temperature=temperature, **kwargs)
        self.model_name = self.engine.model_name
        self.model = self.engine.outlines_model
        self.backend = backend

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
            The generated text; under ``output_type`` it matches the type unless ``max_tokens`` cut it.

        Raises:
            TypeError: ``prompt`` is neither a str nor a list of messages, or Outlines does not support
                ``output_type``.
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
        request = GenerationRequest(
            max_tokens=int(max_tokens or 512), temperature=float(temperature or 0.0), constraint=output_type
        )
        return self.engine.generate(self.engine.encode(self.render_prompt(messages)), request).text

    def forward(self, prompt: str | None = None, messages: list[dict] | None = None, **kwargs: Any) -> Any:
        """Generate completions; returns an OpenAI-style chat completion response.

        Args:
            prompt: A plain prompt, used as one user message when ``messages`` is ``None``.
            messages: Chat messages.
            **kwargs: Per-call options overriding the defaults: ``max_tokens``, ``temperature``,
                ``top_p``, ``n`` / ``num_generations``, ``stop``, ``seed``, ``_outlines_constraint``
                (any output type Outlines accepts) and ``_deadline`` (a ``time.monotonic()`` instant).

        Returns:
            A response with ``choices[i].message.content``, ``usage`` (prompt, completion and
            total tokens, and ``cached_tokens``: prompt tokens served from the prefix cache) and ``model``.
        """
        options = {**self.kwargs, **kwargs}
        n = int(options.get("n") or options.get("num_generations") or 1)
        stop = options.get("stop") or []
        seed = options.get("seed")
        request = GenerationRequest(
            max_tokens=int(options.get("max_tokens") or 512),
            temperature=float(options.get("temperature") or 0.0),
            top_p=options.get("top_p"),
            stop=(stop,) if isinstance(stop, str) else tuple(stop),
            constraint=options.get(CONSTRAINT_KWARG),
            seed=None if seed is None else int(seed),
            deadline=options.get(DEADLINE_KWARG),
        )
        text_prompt = self.render_prompt(messages or [{"role": "user", "content": prompt or ""}])
        prompt_ids = self.engine.encode(text_prompt)
        # Seeded once per call: the n completions of a seeded call differ from each other, and repeat together.
        completions = [
            self.engine.generate(prompt_ids, request if i == 0 else replace(request, seed=None)) for i in range(n)
        ]
        return self._response(completions, len(prompt_ids))

    def _response(self, completions: list[Completion], prompt_tokens: int) -> Any:
        choices = [
            _AttrDict(index=i, message=_AttrDict(role="assistant", content=c.text), finish_reason=c.finish_reason)
            for i, c in enumerate(completions)
        ]
        completion_tokens = sum(c.completion_tokens for c in completions)
        usage = _AttrDict(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
            cached_tokens=completions[0].cached_tokens if completions else 0,
        )
        return _AttrDict(
            id=f"outlines-{uuid.uuid4().hex[:12]}",
            object="chat.completion",
            created=int(time.time()),
            model=self.model_name,
            choices=choices,
            usage=usage,
            _hidden_params={"response_cost": 0.0},
        )

    async def aforward(self, prompt: str | None = None, messages: list[dict] | None = None, **kwargs: Any) -> Any:
        """Async :meth:`forward`: runs the (blocking, engine-serialized) generation in a thread."""
        return await asyncio.to_thread(self.forward, prompt, messages, **kwargs)

    def dump_state(self) -> dict[str, Any]:
        """Reconstruction state: the model path (not the weights), the engine and the default kwargs."""
        state = super().dump_state()
        engine_state = self.engine.dump_state()
        state["model"] = engine_state.pop("model", None)
        state.update(engine_state)
        return state

    def __repr__(self) -> str:
        return f"OutlinesLM({self.model_name!r}, engine={self.engine.name!r}, backend={self.backend!r})"
