"""Tier 3 of :class:`~dspy_outlines.OutlinesAdapter`: one call's constrained generation of all output fields.

How the constraint reaches the model depends on the LM (:mod:`dspy_outlines.contract`):

* **in the request** -- a local model (``OutlinesLM``, or any ``dspy.LM(engine=LocalEngine(...))``): the
  adapter formats the messages, builds a ``dspy.lm15.Request`` whose ``Config.extensions`` carries the Outlines
  output type, and reads the ``Response``'s text and finish reason (DSPy 3.5's request/response contract);
* **as the LM's own keywords** -- an LM with ``constraint_kwargs(output_type)`` (``ServerLM``: the server's
  structured-output fields), called through DSPy's adapter pipeline;
* **as a JSON schema** -- an API model with structured outputs: a strict ``response_format``.

A generation cut at ``max_tokens`` or at the deadline is a :class:`TruncatedOutputError`, never repaired.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from dspy.adapters.chat_adapter import FieldInfoWithName
from dspy.adapters.json_adapter import JSONAdapter
from dspy.adapters.utils import format_field_value, get_annotation_name, translate_field_type
from dspy.clients.base_lm import BaseLM
from dspy.signatures.signature import Signature

from dspy_outlines import seen
from dspy_outlines.bounds import bounded_constraint
from dspy_outlines.constraints import (
    OutputConstraint,
    build_constraint,
    output_model,
    response_format,
)
from dspy_outlines.contract import (
    CONSTRAINT_KWARGS_METHOD,
    accepts_constraint,
    constraint_extension,
    current_deadline,
)
from dspy_outlines.dspy_internal import dspy_internal
from dspy_outlines.truncation import truncated_call

logger = logging.getLogger(__name__)

__all__ = ["ConstrainedTier", "constraint_mode"]

#: Keys of a call's options that are DSPy's, not the request's.
_CALL_KEYS = ("cache", "rollout_id")
_FANOUT_KEYS = ("n", "num_generations")


def constraint_mode(lm: BaseLM) -> str:
    """How Tier 3 hands ``lm`` its constraint: ``"request"``, ``"kwargs"`` or ``"schema"`` (see the module)."""
    if not accepts_constraint(lm):
        return "schema"
    return "kwargs" if callable(getattr(lm, CONSTRAINT_KWARGS_METHOD, None)) else "request"


class ConstrainedTier(JSONAdapter):
    """Tier 3: one call's constrained generation. A fresh instance per call holds its constraint."""

    def __init__(self, mode: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.mode = mode
        self.constraint: OutputConstraint | None = None
        self.messages: Any = None  # the call's chat messages, for seen.note

    # -- the constraint ---------------------------------------------------------------------------

    def _constrain(self, lm: BaseLM, lm_kwargs: dict[str, Any], signature: Any) -> None:
        for key in _FANOUT_KEYS:
            if (lm_kwargs.pop(key, None) or 1) > 1:
                logger.warning("OutlinesAdapter tier3 returns a single completion; ignoring %s > 1.", key)
        if self.mode == "schema":  # providers return a JSON object, whatever the number of fields
            constraint = replace(build_constraint(signature), output_type=output_model(signature), field=None)
            lm_kwargs["response_format"] = response_format(signature)
        else:  # length-aware: free text and lists fit max_tokens, so the value closes instead of being cut
            max_tokens = lm_kwargs.get("max_tokens") or (getattr(lm, "kwargs", None) or {}).get("max_tokens")
            constraint = bounded_constraint(signature, int(max_tokens) if max_tokens else None)
            if self.mode == "kwargs":
                extra = dict(getattr(lm, CONSTRAINT_KWARGS_METHOD)(constraint.output_type))
                if "extra_body" in extra:  # keep the caller's own extra_body fields
                    extra["extra_body"] = {**(lm_kwargs.get("extra_body") or {}), **extra["extra_body"]}
                lm_kwargs.update(extra)
        self.constraint = constraint

    def _built(self) -> OutputConstraint:
        if self.constraint is None:
            raise RuntimeError("tier3 parsed before its constraint was built.")
        return self.constraint

    def parse(self, signature, completion):
        return self._built().parse(completion)

    def _read(self, signature: type[Signature], text: str, finish_reason: str | None) -> list[dict[str, Any]]:
        constraint = self._built()
        values = constraint.parse(text, finish_reason)
        return [{name: values.get(name) for name in signature.output_fields}]

    # -- the request path (a local model) -----------------------------------------------------------

    def _request(self, lm: BaseLM, lm_kwargs: dict[str, Any], signature, demos, inputs) -> tuple[Any, dict]:
        from dspy.lm15 import request_from_openai_chat

        processed = dspy_internal(JSONAdapter, "_call_preprocess")(self, lm, lm_kwargs, signature, inputs)
        self._constrain(lm, lm_kwargs, processed)
        messages = self.format(processed, demos, inputs)
        options = {**(getattr(lm, "kwargs", None) or {}), **lm_kwargs}
        call = {key: options.pop(key) for key in _CALL_KEYS if options.get(key) is not None}
        if current_deadline() is not None:  # a cut generation must not be served from the cache later
            call["cache"] = False
        body = {"model": lm.model, "messages": messages, **{k: v for k, v in options.items() if v is not None}}
        request = request_from_openai_chat(body)
        extensions = {**(request.config.extensions or {}), **constraint_extension(self._built().output_type)}
        return replace(request, config=replace(request.config, extensions=extensions)), call

    def _from_response(self, signature, response: Any) -> list[dict[str, Any]]:
        seen.note(self.messages, response.text)
        reason = (response.provider_data or {}).get("finish_reason") or response.finish_reason  # "deadline"
        return self._read(signature, response.text or "", reason)

    def call_request(self, lm, lm_kwargs, signature, demos, inputs) -> list[dict[str, Any]]:
        request, call = self._request(lm, lm_kwargs, signature, demos, inputs)
        with _truncation_handled():
            response = lm(request, **call)
        return self._from_response(signature, response)

    async def acall_request(self, lm, lm_kwargs, signature, demos, inputs) -> list[dict[str, Any]]:
        request, call = self._request(lm, lm_kwargs, signature, demos, inputs)
        with _truncation_handled():
            response = await lm.acall(request, **call)
        return self._from_response(signature, response)

    # -- DSPy's pipeline (kwargs and schema modes): its private hooks, through the guard --------------

    def _call_preprocess(self, lm, lm_kwargs, signature, inputs):
        signature = dspy_internal(JSONAdapter, "_call_preprocess")(self, lm, lm_kwargs, signature, inputs)
        self._constrain(lm, lm_kwargs, signature)
        return signature

    def format(self, signature, demos, inputs):
        self.messages = super().format(signature, demos, inputs)
        return self.messages

    def _call_postprocess(self, processed_signature, original_signature, outputs, lm, lm_kwargs):
        text = (outputs[0].get("text") if isinstance(outputs[0], dict) else outputs[0]) if outputs else None
        seen.note(self.messages, text)
        truncated = truncated_call(lm, outputs)
        if truncated is not None:
            self._built().parse(str(text or ""), truncated)
        postprocess = dspy_internal(JSONAdapter, "_call_postprocess")
        return postprocess(self, processed_signature, original_signature, outputs, lm, lm_kwargs)

    # -- the single-field prompt (the text is the raw value) ------------------------------------------

    def _single_field(self, signature):
        if self.constraint is None or self.constraint.field is None:
            return None
        return self.constraint.field, signature.output_fields[self.constraint.field]

    def format_field_structure(self, signature):
        single = self._single_field(signature)
        if single is None:
            return super().format_field_structure(signature)
        name, info = single
        inputs = {
            FieldInfoWithName(name=field_name, info=field): translate_field_type(field_name, field)
            for field_name, field in signature.input_fields.items()
        }
        return "\n\n".join(
            [
                "All interactions will be structured in the following way, with the appropriate values filled in.",
                "Inputs will have the following structure:",
                self.format_field_with_value(inputs, role="user"),
                f"The output is the value of `{name}` alone ({get_annotation_name(info.annotation)}), "
                "with no field name, quotes or explanation.",
            ]
        )

    def user_message_output_requirements(self, signature):
        single = self._single_field(signature)
        if single is None:
            return super().user_message_output_requirements(signature)
        name, info = single
        return f"Respond with only the value of `{name}` ({get_annotation_name(info.annotation)})."

    def format_assistant_message_content(self, signature, outputs, missing_field_message=None):
        single = self._single_field(signature)
        if single is None:
            return super().format_assistant_message_content(signature, outputs, missing_field_message)
        name, info = single
        return str(format_field_value(info, outputs.get(name, missing_field_message)))


_handling_truncation: contextvars.ContextVar[bool] = contextvars.ContextVar("tier3_truncation", default=False)


class _HandledTruncation(logging.Filter):
    """Moves DSPy's "LM response was truncated; increase max_tokens" warning to our debug log for the calls
    whose truncation Tier 3 handles itself (a :class:`TruncatedOutputError` that says which limit cut it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _handling_truncation.get() and record.levelno == logging.WARNING and record.funcName == "_result":
            logger.debug("DSPy: %s", record.getMessage())
            return False
        return True


_FILTER = _HandledTruncation()


@contextlib.contextmanager
def _truncation_handled() -> Iterator[None]:
    dspy_logger = logging.getLogger("dspy.clients.lm")
    if _FILTER not in dspy_logger.filters:
        dspy_logger.addFilter(_FILTER)
    token = _handling_truncation.set(True)
    try:
        yield
    finally:
        _handling_truncation.reset(token)
