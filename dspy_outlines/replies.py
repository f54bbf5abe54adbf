"""OpenAI-shaped chat replies for LMs that answer without a model: a teacher (``dspy_rlm.profiles.oracle``),
scripted LMs in tests and benchmarks. ``dspy.BaseLM.forward`` must return what an OpenAI client would; DSPy
reads it both as attributes (``response.choices[0].message.content``) and as a dict (``response["usage"]``).

    >>> reply = chat_reply("scripted/lm", '{"answer": "4"}', prompt_tokens=10, completion_tokens=5)
    >>> reply.choices[0].message.content, reply["usage"]["total_tokens"]
    ('{"answer": "4"}', 15)
"""

from __future__ import annotations

import time
import uuid
from typing import Any

__all__ = ["Reply", "chat_reply"]


class Reply(dict):
    """A dict readable as attributes (``AttributeError`` when a key is missing), as DSPy reads responses."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(name) from e


def chat_reply(
    model: str,
    text: str,
    *,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    cost: float | None = None,
) -> Reply:
    """One assistant message ``text`` with its usage; ``cost`` (USD) goes where LiteLLM puts it
    (``usage.cost`` and ``_hidden_params["response_cost"]``), for budgets that count dollars."""
    usage = Reply(
        prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, total_tokens=prompt_tokens + completion_tokens
    )
    message = Reply(role="assistant", content=text, tool_calls=None)
    choice = Reply(index=0, message=message, finish_reason="stop", logprobs=None)
    reply = Reply(id=uuid.uuid4().hex, created=int(time.time()), model=model, usage=usage, choices=[choice])
    if cost is not None:
        usage["cost"] = cost
        reply["_hidden_params"] = {"response_cost": cost}
    return reply
