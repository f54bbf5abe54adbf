"""OutlinesLM: a DSPy language model running a local model through mlx-lm and Outlines.

Unconstrained calls go straight to ``mlx_lm.stream_generate`` (the fast path); calls carrying the
``_outlines_constraint`` keyword (set by :class:`dspy_outlines.OutlinesAdapter` at Tier 3) go to
``dspy_outlines.backends.generate_constrained``, which applies an Outlines logits processor.
``lm.model`` is the Outlines model, so ``lm.model(prompt, Literal["A", "B"])`` works directly.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import dspy

from dspy_outlines.models import embedded_model_path, load_model, require_mlx
from dspy_outlines.models.thread import run_on_mlx_thread

logger = logging.getLogger(__name__)

__all__ = ["OutlinesLM", "generation_lock"]

CONSTRAINT_KWARG = "_outlines_constraint"

#: MLX evaluation is not safe to interleave across threads (dspy.Evaluate and dspy.Parallel run
#: predictors in threads); every generation in this process holds this lock.
generation_lock = threading.RLock()

_shared_class: list[type] = []


class _AttrDict(dict):
    """A dict with attribute access: DSPy reads responses both ways (``dict(usage)``, ``.choices``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(name) from e


def _outlines_model(mlx_model: Any, tokenizer: Any, name: str) -> Any:
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

        _shared_class.append(SharedMLXLM)
    model = _shared_class[0](mlx_model, tokenizer)
    model.model_name = name
    return model


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
            Hugging Face model directory, or an already loaded ``(mlx_model, tokenizer)`` pair.
        max_tokens: Default completion budget per call.
        temperature: Default sampling temperature (0.0 is greedy).
        backend: Outlines structured-generation backend for constrained calls (``None``: default).
        **kwargs: Forwarded to ``dspy.BaseLM`` (e.g. ``dequantize=`` is taken out first and
            passed to :func:`dspy_outlines.models.load_model`).

    Attributes:
        model: The Outlines model (``outlines.from_mlxlm``); call it with an output type.
        mlx_model: The mlx-lm model.
        tokenizer: The mlx-lm ``TokenizerWrapper``.
        model_name: A readable name, also reported as ``response.model``.
    """

    def __init__(
        self,
        model: str | Path | tuple[Any, Any] | None = None,
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        backend: str | None = None,
        **kwargs: Any,
    ) -> None:
        dequantize = kwargs.pop("dequantize", None)
        kwargs.setdefault("cache", False)
        require_mlx()
        if isinstance(model, tuple):
            self.mlx_model, self.tokenizer = model
            name, self._source = "local/mlx-model", None
        else:
            path = embedded_model_path() if model is None else Path(model)
            self.mlx_model, self.tokenizer = load_model(path, dequantize=dequantize)
            name, self._source = f"local/{Path(path).name}", str(path)
        super().__init__(model=name, max_tokens=max_tokens, temperature=temperature, **kwargs)
        self.model_name = name
        self.model = _outlines_model(self.mlx_model, self.tokenizer, name)
        self.backend = backend
        # Direct ``lm.model(prompt, output_type)`` calls bypass our generate path, so the CPU
        # token bitmask (Outlines only ships a Metal kernel) must be in place from the start.
        from dspy_outlines.backends import install_cpu_bitmask

        install_cpu_bitmask()
        self._dequantize = dequantize

    def render_prompt(self, messages: list[dict[str, Any]]) -> str:
        """Render DSPy / OpenAI-style messages with the model's chat template.

        Args:
            messages: ``[{"role": "system" | "user" | "assistant", "content": ...}, ...]``.

        Returns:
            The prompt text, ending with the assistant generation prompt.
        """
        chat = [{"role": m.get("role", "user"), "content": _text(m.get("content"))} for m in messages]
        if not getattr(self.tokenizer, "has_chat_template", False):
            return "\n\n".join(m["content"] for m in chat) + "\n\n"
        try:
            return self.tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
        except Exception as e:  # some templates reject the system role: fold it into the user turn
            if not chat or chat[0]["role"] != "system" or len(chat) < 2:
                raise
            logger.debug("Chat template rejected the system role (%s); merging it into the user turn", e)
            merged = [{"role": chat[1]["role"], "content": f"{chat[0]['content']}\n\n{chat[1]['content']}"}]
            return self.tokenizer.apply_chat_template(
                merged + chat[2:], add_generation_prompt=True, tokenize=False
            )

    def count_tokens(self, text: str) -> int:
        """Number of tokens of ``text`` under this model's tokenizer (no special tokens added)."""
        return len(self.tokenizer.encode(text, add_special_tokens=False))

    def forward(self, prompt: str | None = None, messages: list[dict] | None = None, **kwargs: Any) -> Any:
        """Generate completions; returns an OpenAI-style chat completion response.

        Args:
            prompt: A plain prompt, used as one user message when ``messages`` is ``None``.
            messages: Chat messages.
            **kwargs: Per-call options overriding the defaults: ``max_tokens``, ``temperature``,
                ``top_p``, ``n`` / ``num_generations``, ``stop``, ``seed``, and
                ``_outlines_constraint`` (any output type Outlines accepts).

        Returns:
            A response with ``choices[i].message.content``, ``usage`` (prompt, completion and
            total tokens) and ``model``.
        """
        options = {**self.kwargs, **kwargs}
        constraint = options.pop(CONSTRAINT_KWARG, None)
        max_tokens = int(options.get("max_tokens") or 512)
        temperature = float(options.get("temperature") or 0.0)
        n = int(options.get("n") or options.get("num_generations") or 1)
        stop = options.get("stop") or []
        stop = [stop] if isinstance(stop, str) else list(stop)
        text_prompt = self.render_prompt(messages or [{"role": "user", "content": prompt or ""}])
        prompt_ids = self.tokenizer.encode(text_prompt, add_special_tokens=False)

        choices, completion_tokens = run_on_mlx_thread(
            self._complete, prompt_ids, text_prompt, constraint, options, n, max_tokens, temperature, stop
        )
        usage = _AttrDict(
            prompt_tokens=len(prompt_ids),
            completion_tokens=completion_tokens,
            total_tokens=len(prompt_ids) + completion_tokens,
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

    def _complete(
        self,
        prompt_ids: list[int],
        text_prompt: str,
        constraint: Any,
        options: dict[str, Any],
        n: int,
        max_tokens: int,
        temperature: float,
        stop: list[str],
    ) -> tuple[list[Any], int]:
        """The ``n`` completions and their token count (runs on the MLX thread, see ``models.thread``)."""
        choices, completion_tokens = [], 0
        with generation_lock:
            if options.get("seed") is not None:
                import mlx.core as mx

                mx.random.seed(int(options["seed"]))
            for i in range(n):
                if constraint is not None:
                    text, used, reason = self._generate_constrained(
                        text_prompt, constraint, max_tokens, temperature
                    )
                else:
                    text, used, reason = self._generate(
                        prompt_ids, max_tokens, temperature, options.get("top_p"), stop
                    )
                completion_tokens += used
                choices.append(
                    _AttrDict(
                        index=i,
                        message=_AttrDict(role="assistant", content=text),
                        finish_reason=reason,
                    )
                )
        return choices, completion_tokens

    async def aforward(
        self, prompt: str | None = None, messages: list[dict] | None = None, **kwargs: Any
    ) -> Any:
        """Async :meth:`forward`: runs the (blocking, lock-serialized) generation in a thread."""
        return await asyncio.to_thread(self.forward, prompt, messages, **kwargs)

    def _generate(
        self,
        prompt_ids: list[int],
        max_tokens: int,
        temperature: float,
        top_p: float | None,
        stop: list[str],
    ) -> tuple[str, int, str]:
        """Unconstrained generation with mlx-lm; returns ``(text, tokens, finish_reason)``."""
        from mlx_lm import stream_generate
        from mlx_lm.sample_utils import make_sampler

        sampler = make_sampler(temp=temperature, top_p=float(top_p or 0.0))
        text, used, reason = "", 0, "length"
        for response in stream_generate(
            self.mlx_model, self.tokenizer, prompt_ids, max_tokens=max_tokens, sampler=sampler
        ):
            text += response.text
            used = response.generation_tokens
            reason = response.finish_reason or reason
            hit = next((s for s in stop if s in text), None)
            if hit is not None:
                return text[: text.index(hit)], used, "stop"
        return text, used, reason

    def _generate_constrained(
        self, text_prompt: str, constraint: Any, max_tokens: int, temperature: float
    ) -> tuple[str, int, str]:
        """Constrained generation through ``dspy_outlines.backends`` (imported lazily)."""
        from dspy_outlines.backends import generate_constrained

        text = generate_constrained(
            self.model,
            text_prompt,
            constraint,
            max_tokens=max_tokens,
            temperature=temperature,
            backend=self.backend,
        )
        text = text if isinstance(text, str) else str(text)
        used = self.count_tokens(text)
        return text, used, "length" if used >= max_tokens else "stop"

    def dump_state(self) -> dict[str, Any]:
        """Reconstruction state: the model path (not the weights) and the default kwargs."""
        state = super().dump_state()
        state["model"] = self._source
        state["backend"] = self.backend
        if self._dequantize is not None:
            state["dequantize"] = self._dequantize
        return state

    def __repr__(self) -> str:
        return f"OutlinesLM({self.model_name!r}, backend={self.backend!r})"
