"""A scripted oracle policy LM: proves the scorers, the generators and the harness end to end.

The oracle is an ordinary ``dspy.LM`` backed by a custom engine (``complete(Request) -> Response``), so
it goes through DSPy's adapters, history and usage accounting like any model. It reads the prompt to
see which output fields are asked for:

* **RLM action** (outputs ``reasoning`` and ``code``): it answers with the source of
  :mod:`benchmarks.longcontext.solvers` as the code, ending in ``SUBMIT(answer=solve(context, query))``.
  The code runs in the RLM's REPL and computes the answer from the ``context`` variable.
* **Direct baseline / extraction** (output ``answer``): it parses the ``context`` and ``query`` fields out
  of the prompt (truncated context included, so the direct oracle is as blind as the window makes it)
  and runs the same solver in process. Without a context field it answers ``unknown``.
* **Anything else** (e.g. an ``llm_query`` sub-call): plain text ``unknown``.

It is never handed a gold answer. Token counts are estimated at 4 characters per token; cost is 0.
"""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

import dspy

from benchmarks.longcontext import solvers

ORACLE_MODEL = "oracle/policy"
_FIELD_LIST = re.compile(r"Your output fields are:\s*\n(.*?)(?:\n\s*\n|All interactions)", re.DOTALL)
_FIELD_NAME = re.compile(r"^\s*\d+\.\s*`(\w+)`", re.MULTILINE)
_INPUT_FIELD = r"\[\[ ## {name} ## \]\]\n(.*?)(?=\n\n\[\[ ## \w+ ## \]\]|\n\nRespond with|\Z)"


def solver_code() -> str:
    """The action code the oracle writes: the solver module's source plus a SUBMIT call."""
    source = inspect.getsource(solvers)
    return (
        source.rstrip()
        + "\n\n\n_answer = solve(context, query)\n"
        + "print('oracle answer:', str(_answer)[:200])\n"
        + "SUBMIT(answer=str(_answer))\n"
    )


def requested_fields(system: str) -> list[str]:
    """Output field names listed in a DSPy adapter's system message (empty when there is none)."""
    match = _FIELD_LIST.search(system)
    return _FIELD_NAME.findall(match.group(1)) if match else []


def input_field(text: str, name: str) -> str | None:
    """The value of input field ``name`` in a ChatAdapter/JSONAdapter user message, or None."""
    match = re.search(_INPUT_FIELD.format(name=re.escape(name)), text, re.DOTALL)
    return match.group(1) if match else None


def _format_fields(values: dict[str, Any], as_json: bool) -> str:
    if as_json:
        return json.dumps(values)
    from dspy.adapters.chat_adapter import FieldInfoWithName
    from dspy.signatures.field import OutputField

    fields = {FieldInfoWithName(name=k, info=OutputField()): v for k, v in values.items()}
    return dspy.ChatAdapter().format_field_with_value(fields) + "\n\n[[ ## completed ## ]]"


def oracle_reply(system: str, user: str) -> str:
    """What the oracle answers to one prompt (``system`` and the concatenated ``user`` turns)."""
    fields = requested_fields(system)
    as_json = "Respond with a JSON object" in user
    if "code" in fields:
        values = {
            "reasoning": "Oracle: parse the context with the task's rules and submit the computed answer.",
            "code": "```python\n" + solver_code() + "```",
        }
    elif fields:
        context, query = input_field(user, "context"), input_field(user, "query")
        answer = "unknown"
        if context is not None and query is not None:
            try:
                answer = str(solvers.solve(context, query))
            except (AttributeError, ValueError, TypeError, IndexError):
                answer = "unknown"  # a truncated context can cut a line or the needle in half
        values = dict.fromkeys(fields, "")
        values["answer"] = answer
        values.pop("reasoning", None)
        if "reasoning" in fields:
            values = {"reasoning": "Oracle: computed from the context in the prompt.", **values}
    else:
        return "unknown"
    return _format_fields({k: v for k, v in values.items() if k in fields or k == "answer"}, as_json)


class OracleEngine:
    """A DSPy engine (``complete(Request) -> Response``) that answers like :func:`oracle_reply`."""

    def complete(self, request):
        from dspy.lm15 import Message, Response, TextPart, Usage

        system = request.system or ""
        if not isinstance(system, str):
            system = "".join(getattr(part, "text", "") or "" for part in system)
        users = [m.text or "" for m in request.messages if m.role == "user"]
        user = users[-1] if users else ""  # earlier user turns are demos
        text = oracle_reply(system, user)
        prompt_chars = len(system) + sum(len(m.text or "") for m in request.messages)
        return Response(
            id=None,
            model=ORACLE_MODEL,
            message=Message.assistant([TextPart(text)]),
            finish_reason="stop",
            usage=Usage(input_tokens=prompt_chars // 4, output_tokens=len(text) // 4),
        )

    def stream(self, request):
        from dspy.lm15 import response_to_events

        return response_to_events(self.complete(request))

    def close(self) -> None:
        """Nothing to release."""


def oracle_lm() -> dspy.LM:
    """A fresh oracle LM (no response cache, so every call is counted)."""
    return dspy.LM(ORACLE_MODEL, engine=OracleEngine(), cache=False)
