"""A local model as a DSPy engine: DSPy 3.4's ``complete(Request) -> Response`` over our inference engines.

``dspy.LM("local/smollm2", engine=LocalEngine.load())`` is a DSPy LM like any other: DSPy owns its cache,
retries, history, callbacks and usage tracking; the engine runs one request on the llama.cpp or MLX
inference engine (:mod:`dspy_outlines.engines`) and answers with one ``dspy.lm15.Response``.
:class:`~dspy_outlines.OutlinesLM` is the one-line convenience that builds this pair.

What a request may carry (anything else is refused with ``UnsupportedFeatureError``, never dropped):
messages with text, a system prompt, ``max_tokens``, ``temperature``, ``top_p``, ``stop``, ``seed``, and in
``Config.extensions`` the Outlines constraint Tier 3 sets (:mod:`dspy_outlines.contract`). The deadline of
:func:`dspy_outlines.contract.deadline_scope` holds in the prefill and between tokens; a generation it cuts
ends ``finish_reason="length"`` with ``provider_data["finish_reason"] == "deadline"``; a response generated
under a deadline carries it in ``provider_data["deadline"]``.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

from dspy.clients.engines.base import validate_request
from dspy.lm15 import (
    Message,
    Request,
    Response,
    TextPart,
    UnsupportedFeatureError,
    Usage,
    response_to_events,
)

from dspy_outlines.contract import (
    DEADLINE_FINISH,
    EXTENSION,
    constraint_extension,
    constraint_key_of,
    current_deadline,
)
from dspy_outlines.engines import Engine, GenerationRequest, load_engine

__all__ = ["DEFAULT_MAX_TOKENS", "AsyncLocalEngine", "LocalEngine", "local_request"]

#: The completion budget of a request that sets no ``max_tokens``.
DEFAULT_MAX_TOKENS = 512


def local_request(model: str, messages: str | list[dict[str, Any]], output_type: Any = None, **config: Any) -> Request:
    """A ``dspy.lm15.Request`` for a local LM, held to ``output_type`` when given: ``lm(local_request(lm.model,
    "Yes or no?", Literal["yes", "no"], max_tokens=4))`` returns a ``Response`` (text, finish reason, usage).

    Args:
        model: The LM's model name (``lm.model``; DSPy checks they match).
        messages: A user message, or chat messages (``[{"role": ..., "content": ...}, ...]``).
        output_type: ``None`` or any Outlines output type (it travels in ``Config.extensions``).
        **config: Chat-completion options: ``max_tokens``, ``temperature``, ``top_p``, ``stop``, ``seed``.
    """
    from dataclasses import replace

    from dspy.lm15 import request_from_openai_chat

    chat = [{"role": "user", "content": messages}] if isinstance(messages, str) else messages
    request = request_from_openai_chat({"model": str(model), "messages": chat, **config})
    if output_type is None:
        return request
    extensions = {**(request.config.extensions or {}), **constraint_extension(output_type)}
    return replace(request, config=replace(request.config, extensions=extensions))


def _system_text(system: Any) -> str | None:
    if system is None or isinstance(system, str):
        return system
    return "".join(getattr(part, "text", "") or "" for part in system)


class LocalEngine:
    """DSPy's ``Engine`` protocol (``complete`` / ``stream`` / ``close``) over one local inference engine.

    Args:
        local: The inference engine (:func:`dspy_outlines.engines.load_engine`).
        backend: The Outlines structured backend of constrained requests (``None``: the engine's default).

    Attributes:
        local: The inference engine: ``name``, ``encode``, ``render_prompt``, ``generate``, ``stats()``.
        model_name: The model's readable name (``Response.model``).
    """

    #: Tier 3 may put an Outlines output type in ``Config.extensions`` (read by :mod:`dspy_outlines.contract`).
    accepts_outlines_constraint = True
    #: A small local model: ``dspy_rlm`` picks its small-model profile.
    is_local = True

    def __init__(self, local: Engine, *, backend: str | None = None) -> None:
        # A local model has no price: LiteLLM (if anything imports it later) reads its bundled cost table
        # instead of fetching one over the network, which prints retries offline. A user's own value wins.
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        self.local = local
        self.backend = backend
        self.model_name = local.model_name

    @classmethod
    def load(
        cls, model: str | Path | tuple[Any, Any] | None = None, *, engine: str = "auto", **options: Any
    ) -> LocalEngine:
        """Load a model (``None``: the embedded SmolLM2) on ``engine`` (``"auto"``, ``"mlx"``, ``"llamacpp"``).

        ``options`` are the inference engine's (``backend``, ``n_ctx``, ``prefix_cache_mb``, ``dequantize``...).
        """
        return cls(load_engine(engine, model, **options), backend=options.get("backend"))

    # -- DSPy's Engine protocol -----------------------------------------------------------------------

    def complete(self, request: Request) -> Response:
        """Generate one completion for ``request`` (see the module docstring for what it may carry)."""
        validate_request(request)
        generation = self._generation(request)
        prompt_ids = self.local.encode(self.local.render_prompt(self._messages(request)))
        completion = self.local.generate(prompt_ids, generation)
        cut_by_deadline = completion.finish_reason == DEADLINE_FINISH
        provider_data: dict[str, Any] = {}
        if generation.deadline is not None:
            provider_data["deadline"] = generation.deadline
        if cut_by_deadline:
            provider_data["finish_reason"] = DEADLINE_FINISH
        return Response(
            id=f"local-{uuid.uuid4().hex[:12]}",
            model=self.model_name,
            message=Message.assistant([TextPart(completion.text)]),
            finish_reason="length" if cut_by_deadline else completion.finish_reason,
            usage=Usage(
                input_tokens=completion.prompt_tokens,
                output_tokens=completion.completion_tokens,
                cache_read_tokens=completion.cached_tokens,
            ),
            provider_data=provider_data or None,
        )

    def stream(self, request: Request) -> Iterator[Any]:
        """The completion as DSPy stream events (generated whole, then replayed)."""
        return response_to_events(self.complete(request))

    def close(self) -> None:
        """Nothing to release: the model stays loaded for the other LMs that share it."""

    # -- saving (dspy.LM.dump_state records the class path and this state) ----------------------------

    def dump_state(self) -> dict[str, Any]:
        """The options needed to load the same model on the same inference engine (JSON, no weights)."""
        return dict(self.local.dump_state())

    @classmethod
    def load_state(cls, state: dict[str, Any]) -> LocalEngine:
        """Load the engine :meth:`dump_state` described."""
        options = dict(state)
        return cls.load(options.pop("model", None), engine=str(options.pop("engine", "auto")), **options)

    # -- request -> generation ------------------------------------------------------------------------

    @staticmethod
    def _messages(request: Request) -> list[dict[str, str]]:
        messages = []
        system = _system_text(request.system)
        if system:
            messages.append({"role": "system", "content": system})
        for message in request.messages:
            if message.text is None:
                raise UnsupportedFeatureError(
                    f"a local model reads text messages only; a {message.role} message carries "
                    f"{sorted({type(part).__name__ for part in message.parts})}",
                    feature="multimodal",
                )
            role = "system" if message.role == "developer" else message.role
            messages.append({"role": role, "content": message.text})
        return messages

    def _generation(self, request: Request) -> GenerationRequest:
        config = request.config
        unsupported = [
            name
            for name, value in (
                ("tools", request.tools),
                ("response_format", config.response_format),
                ("logprobs", config.logprobs),
                ("reasoning", config.reasoning),
                ("tool_choice", config.tool_choice),
                ("top_k", config.top_k),
            )
            if value
        ]
        unsupported += sorted(set(config.extensions or {}) - {EXTENSION})
        if unsupported:
            raise UnsupportedFeatureError(
                f"the local model does not support {unsupported}; for structured output use "
                "dspy_outlines.OutlinesAdapter, which constrains generation itself",
                feature=unsupported[0],
            )
        return GenerationRequest(
            max_tokens=config.max_tokens or DEFAULT_MAX_TOKENS,
            temperature=config.temperature or 0.0,
            top_p=config.top_p,
            stop=config.stop,
            constraint=constraint_key_of(config.extensions),  # the key the adapter computed, as it is
            seed=config.seed,
            deadline=current_deadline(),
        )

    def __repr__(self) -> str:
        return f"LocalEngine({self.model_name!r}, engine={self.local.name!r})"


class AsyncLocalEngine:
    """DSPy's ``AsyncEngine`` protocol over a :class:`LocalEngine`: each request runs in a worker thread
    (the inference engine serializes generations), with the caller's context (its deadline)."""

    accepts_outlines_constraint = True
    is_local = True

    def __init__(self, sync: LocalEngine) -> None:
        self.sync = sync

    async def complete(self, request: Request) -> Response:
        return await asyncio.to_thread(self.sync.complete, request)

    async def stream(self, request: Request) -> AsyncIterator[Any]:
        for event in response_to_events(await self.complete(request)):
            yield event

    async def aclose(self) -> None:
        self.sync.close()

    def dump_state(self) -> dict[str, Any]:
        return self.sync.dump_state()

    @classmethod
    def load_state(cls, state: dict[str, Any]) -> AsyncLocalEngine:
        return cls(LocalEngine.load_state(state))
