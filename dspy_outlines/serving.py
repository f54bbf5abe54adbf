"""LMs behind OpenAI-compatible serving engines, with the constraint enforced on the server.

:class:`ServerLM` is a ``dspy.LM`` pointed at a server (vLLM, SGLang, llama.cpp's ``llama-server``,
llama-cpp-python's ``python -m llama_cpp.server``) that also takes the Outlines output type
:class:`~dspy_outlines.OutlinesAdapter` builds at Tier 3 (``accepts_outlines_constraint``). It turns that
type into the request fields the named server understands (:meth:`ServerLM.constraint_kwargs`), so the
server constrains decoding and the adapter parses the text exactly as it does for a local model:

What each server kind receives (:data:`SERVER_KINDS`), for a JSON schema (pydantic models, lists, numbers...)
/ a regex / a ``Literal`` or ``Enum`` choice / a ``CFG``:

- ``vllm``: ``structured_outputs`` with ``json`` / ``regex`` / ``choice`` / ``grammar`` (the grammar as written).
- ``vllm-guided`` (vLLM < 0.12): ``guided_json`` / ``guided_regex`` / ``guided_choice`` / ``guided_grammar``.
- ``sglang``: ``response_format`` (``json_schema``) / ``regex`` / ``regex`` (the choice as one) / ``ebnf``.
- ``llama.cpp`` (``llama-server``): ``json_schema`` / ``grammar`` (GBNF, converted) / ``grammar`` / ``grammar``
  (GBNF only).
- ``llama-cpp-python``: ``response_format`` (``json_object`` with a ``schema``) / ``grammar`` (GBNF, converted)
  / ``grammar`` / ``grammar`` (GBNF only). Its server is not llama.cpp's: it takes neither ``json_schema``
  nor a ``json_schema``-typed ``response_format``.

Engine-specific fields travel in ``extra_body``. Regexes become GBNF grammars for the llama.cpp servers
through llama-cpp-python's own regex-to-grammar converter (:func:`regex_to_gbnf`; needs llama-cpp-python
installed on the client). Usage (prompt and completion tokens) comes from the server's response as for any
``dspy.LM``; a self-hosted server reports no price, so the cost is 0.

Example:
    >>> lm = ServerLM("smollm2", api_base="http://127.0.0.1:8000/v1", server="vllm", max_tokens=256)
    >>> dspy.configure(lm=lm, adapter=OutlinesAdapter(tiers="auto"))   # tier 3 first: one constrained call
"""

from __future__ import annotations

import enum
import json
import logging
import re
import typing
from typing import Any

import dspy

from dspy_outlines.constraints import close_schema

logger = logging.getLogger(__name__)

__all__ = ["SERVER_KINDS", "ServerLM", "describe_constraint", "regex_to_gbnf", "request_kwargs"]

#: The server kinds :func:`request_kwargs` knows, and what each calls its structured-output fields.
SERVER_KINDS = ("vllm", "vllm-guided", "sglang", "llama.cpp", "llama-cpp-python")


def describe_constraint(output_type: Any) -> tuple[str, Any]:
    """What an Outlines output type asks for: ``("json", schema)``, ``("choice", [str])``, ``("regex", pattern)``
    or ``("grammar", definition)``.

    ``Literal`` / ``Enum`` become choices; Outlines ``Regex`` / ``CFG`` terms their pattern / grammar; anything
    else (pydantic models, ``list``, ``dict``, ``int``, ``float``, ``bool``) a closed JSON schema.

    Raises:
        TypeError: pydantic cannot make a JSON schema of the type.
    """
    kind = type(output_type).__name__
    if kind == "Regex" and hasattr(output_type, "pattern"):
        return "regex", output_type.pattern
    if kind == "CFG" and hasattr(output_type, "definition"):
        return "grammar", output_type.definition
    if kind == "JsonSchema" and isinstance(getattr(output_type, "schema", None), str):  # Tier 3's bounded lists
        return "json", close_schema(json.loads(output_type.schema))
    if typing.get_origin(output_type) is typing.Literal:
        return "choice", [str(v) for v in typing.get_args(output_type)]
    if isinstance(output_type, type) and issubclass(output_type, enum.Enum):
        return "choice", [str(member.value) for member in output_type]
    import pydantic

    try:
        schema = pydantic.TypeAdapter(output_type).json_schema()
    except Exception as exc:
        raise TypeError(f"No JSON schema for the output type {output_type!r}: {exc}") from exc
    return "json", close_schema(schema)


def request_kwargs(output_type: Any, server: str) -> dict[str, Any]:
    """The request keywords (for ``dspy.LM`` / litellm) that make ``server`` constrain to ``output_type``.

    Args:
        output_type: The Outlines output type :class:`~dspy_outlines.OutlinesAdapter` builds at Tier 3.
        server: One of :data:`SERVER_KINDS`.

    Returns:
        ``{"response_format": ...}`` and / or ``{"extra_body": {...}}``.

    Raises:
        ValueError: An unknown server, or a constraint the server cannot take (a Lark ``CFG`` for llama.cpp,
            which reads GBNF only; a regex the GBNF converter does not handle).
    """
    if server not in SERVER_KINDS:
        raise ValueError(f"Unknown server kind {server!r}; choose one of {', '.join(SERVER_KINDS)}")
    kind, value = describe_constraint(output_type)
    if server == "vllm":
        return {"extra_body": {"structured_outputs": {kind: value}}}
    if server == "vllm-guided":
        return {"extra_body": {f"guided_{kind}": value}}
    if server == "sglang":
        if kind == "json":
            return {"response_format": {"type": "json_schema", "json_schema": {"name": "Outputs", "schema": value}}}
        if kind == "grammar":
            return {"extra_body": {"ebnf": value}}
        return {"extra_body": {"regex": value if kind == "regex" else _choice_regex(value)}}
    if kind == "json":  # the llama.cpp servers
        if server == "llama.cpp":
            return {"extra_body": {"json_schema": value}}
        return {"response_format": {"type": "json_object", "schema": value}}
    if kind == "grammar" and "::=" not in value:
        raise ValueError(
            "llama.cpp servers take GBNF grammars (rules written 'name ::= ...'); this CFG looks like "
            "Lark. Write the grammar in GBNF, or serve with vLLM / SGLang for Lark/EBNF grammars"
        )
    grammar = value if kind == "grammar" else _choice_gbnf(value) if kind == "choice" else regex_to_gbnf(value)
    return {"extra_body": {"grammar": grammar}}


def _choice_regex(choices: list[str]) -> str:
    return "|".join(re.escape(choice) for choice in choices)


def _choice_gbnf(choices: list[str]) -> str:
    return "root ::= " + " | ".join(json.dumps(choice, ensure_ascii=False) for choice in choices)


# -- regex -> GBNF -------------------------------------------------------------------------------------

_CLASS_MEMBERS = {"d": r"0-9", "w": r"0-9A-Za-z_", "s": r" \x09\x0A\x0B\x0C\x0D"}
_ANY = r"[\x00-\U0010FFFF]"


def _hex(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}"


_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}


def _gbnf_ready(pattern: str) -> str:
    """Rewrite a Python regex into the subset llama-cpp-python's converter turns into valid GBNF: class
    escapes (``\\d \\w \\s`` and their negations) as brackets, escaped and special characters as ``\\xHH``
    inside brackets, ``(?:`` as ``(``.

    Raises:
        ValueError: Lookarounds, backreferences, named groups, anchors inside the pattern, or a negated class
            escape inside a bracket (other than the any-character idiom ``[\\s\\S]``).
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt.lower() in _CLASS_MEMBERS:
                members = _CLASS_MEMBERS[nxt.lower()]
                out.append(f"[{members}]" if nxt.islower() else f"[^{members}]")
            elif nxt in _SIMPLE_ESCAPES or not nxt.isalnum():
                out.append(f"[{_hex(_SIMPLE_ESCAPES.get(nxt, nxt))}]")
            else:
                raise ValueError(f"The regex escape \\{nxt} (at {i} of {pattern!r}) has no GBNF form here")
            i += 2
        elif char == "[":
            end, body = _bracket(pattern, i)
            out.append(body)
            i = end
        elif char == "(" and pattern.startswith("(?", i):
            if not pattern.startswith("(?:", i):
                raise ValueError(
                    f"Regex group syntax {pattern[i : i + 3]!r} (lookaround, named group, flags) "
                    "cannot become a GBNF grammar"
                )
            out.append("(")
            i += 3
        elif char in "^$":
            raise ValueError(f"Anchor {char!r} inside the regex {pattern!r}: a grammar matches the whole output")
        elif char == '"':
            out.append("[\\x22]")
            i += 1
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _bracket(pattern: str, start: int) -> tuple[int, str]:
    """Translate the character class at ``start``; return (index after it, GBNF class)."""
    i = start + 1
    negate = pattern.startswith("^", i)
    i += negate
    parts: list[str] = []
    negated_escapes: set[str] = set()
    first = True
    while i < len(pattern) and (pattern[i] != "]" or first):
        char = pattern[i]
        first = False
        if char == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt.lower() in _CLASS_MEMBERS:
                if nxt.isupper():
                    negated_escapes.add(nxt.lower())
                else:
                    parts.append(_CLASS_MEMBERS[nxt])
            elif nxt in _SIMPLE_ESCAPES or not nxt.isalnum():
                parts.append(_hex(_SIMPLE_ESCAPES.get(nxt, nxt)))
            else:
                raise ValueError(f"The regex escape \\{nxt} inside [...] of {pattern!r} has no GBNF form here")
            i += 2
        elif char == "-" and parts and i + 1 < len(pattern) and pattern[i + 1] != "]":
            parts.append("-")
            i += 1
        else:
            parts.append(_hex(char) if char in '"[]\\^-' else char)
            i += 1
    if i >= len(pattern):
        raise ValueError(f"Unclosed [ in the regex {pattern!r}")
    if negated_escapes:  # [\s\S], [\d\D], [\w\W]: any character; anything else is beyond a GBNF class
        if negate or len(negated_escapes) != 1 or parts != [_CLASS_MEMBERS[next(iter(negated_escapes))]]:
            raise ValueError(
                f"The class {pattern[start : i + 1]!r} mixes negated escapes with other members; "
                "GBNF classes cannot express it"
            )
        return i + 1, _ANY
    return i + 1, "[" + ("^" if negate else "") + "".join(parts) + "]"


def regex_to_gbnf(pattern: str) -> str:
    """A GBNF grammar whose ``root`` matches exactly the strings ``pattern`` matches in full.

    Uses llama-cpp-python's regex converter (``llama_cpp.llama_grammar.SchemaConverter``, raw-pattern mode)
    after :func:`_gbnf_ready` rewrites the pattern into the subset it handles.

    Raises:
        ValueError: The regex uses syntax a GBNF grammar cannot express (see :func:`_gbnf_ready`).
        ImportError: llama-cpp-python is not installed (``pip install llama-cpp-python``).
    """
    try:
        from llama_cpp.llama_grammar import SchemaConverter
    except ImportError as exc:
        raise ImportError(
            "Converting a regex to a llama.cpp grammar needs llama-cpp-python on the client: "
            "pip install 'dspy-rlm[llamacpp]'"
        ) from exc
    from dspy_outlines.engines.llamacpp_internals import llamacpp_internal

    converter = SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=True)
    try:
        llamacpp_internal(converter, "_visit_pattern")("^" + _gbnf_ready(pattern) + "$", "root")
    except AssertionError as exc:  # the converter checks its input with asserts
        raise ValueError(f"llama-cpp-python cannot convert the regex {pattern!r} to GBNF: {exc}") from exc
    return converter.format_grammar()


# -- the LM ---------------------------------------------------------------------------------------------


class ServerLM(dspy.LM):
    """A ``dspy.LM`` for an OpenAI-compatible server that constrains decoding on the server at Tier 3.

    Args:
        model: The served model's name (``openai/`` is prefixed when missing: the OpenAI-compatible route).
        api_base: The server's OpenAI base URL, e.g. ``http://127.0.0.1:8000/v1``.
        server: Which server it is (:data:`SERVER_KINDS`): decides the structured-output fields.
        small: The served model is small: ``dspy_rlm.RLM(profile="auto")`` picks its small-model profile.
        api_key: The server's key (self-hosted servers usually take any).
        **kwargs: As for ``dspy.LM`` (``max_tokens``, ``temperature``, ``cache``...).

    Raises:
        ValueError: An unknown ``server`` or an empty ``api_base``.
    """

    #: The adapter's Tier 3 asks this LM for the call keywords of its constraint; the server enforces it.
    accepts_outlines_constraint = True

    def __init__(
        self,
        model: str,
        *,
        api_base: str,
        server: str = "vllm",
        small: bool = False,
        api_key: str = "none",
        **kwargs: Any,
    ):
        if server not in SERVER_KINDS:
            raise ValueError(f"Unknown server kind {server!r}; choose one of {', '.join(SERVER_KINDS)}")
        if not api_base:
            raise ValueError("ServerLM needs api_base, the server's OpenAI base URL, e.g. http://127.0.0.1:8000/v1")
        model = model if model.startswith("openai/") else f"openai/{model}"
        super().__init__(model, api_base=api_base, api_key=api_key, **kwargs)
        self.server, self.is_small = server, bool(small)

    def constraint_kwargs(self, output_type: Any) -> dict[str, Any]:
        """The call keywords that make this server constrain decoding to ``output_type`` (Tier 3 adds them
        to the call: :data:`dspy_outlines.contract.CONSTRAINT_KWARGS_METHOD`); see :func:`request_kwargs`."""
        return request_kwargs(output_type, self.server)

    def dump_state(self) -> dict[str, Any]:
        state = super().dump_state()
        state.pop("model_type", None)
        return {**state, "server": self.server, "small": self.is_small}

    def __repr__(self) -> str:
        return f"ServerLM({self.model!r}, server={self.server!r}, api_base={self.kwargs.get('api_base')!r})"
