"""A scripted ``dspy.BaseLM`` for engine tests: the response is picked by a function of the messages.

``ScriptedLM(respond)`` calls ``respond(call)`` where ``call`` is a :class:`Call` (role of the call — action
step, sub-RLM action step, extraction, plain sub-LM prompt — its depth and iteration, the full messages). Every
response reports usage (prompt/completion tokens and a USD ``cost``), so token and cost budgets can be tested.
:class:`AsyncScriptedLM` adds a native ``aforward``.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import dspy

from dspy_outlines.replies import Reply, chat_reply


@dataclass
class Call:
    """One LM call as the script sees it."""

    messages: list[dict]

    @property
    def system(self) -> str:
        return self.messages[0]["content"] if len(self.messages) > 1 else ""

    @property
    def user(self) -> str:
        return self.messages[-1]["content"]

    @property
    def role(self) -> str:
        """'llm' (a plain sub-LM prompt), 'extract' (fallback extraction), 'sub' (sub-RLM step) or 'action'."""
        if len(self.messages) == 1:
            return "llm"
        if "reached its limit" in self.system:
            return "extract"
        return "sub" if "You are a sub-RLM at depth" in self.system else "action"

    @property
    def depth(self) -> int:
        m = re.search(r"sub-RLM at depth (\d+)", self.system)
        return int(m.group(1)) if m else 0

    @property
    def iteration(self) -> int:
        m = re.search(r"\[\[ ## iteration ## \]\]\s*(\d+)/", self.user)
        return int(m.group(1)) if m else 0


def action(code: str, reasoning: str = "scripted step") -> str:
    """A ChatAdapter-formatted action answer."""
    return f"[[ ## reasoning ## ]]\n{reasoning}\n\n[[ ## code ## ]]\n```python\n{code}\n```\n\n[[ ## completed ## ]]"


def fields(**values: Any) -> str:
    """A ChatAdapter-formatted answer with the given output fields (for extraction)."""
    body = "\n\n".join(f"[[ ## {k} ## ]]\n{v}" for k, v in values.items())
    return f"{body}\n\n[[ ## completed ## ]]"


class ScriptedLM(dspy.BaseLM):
    """Blocking scripted LM. ``calls`` records every :class:`Call` (thread-safe)."""

    def __init__(
        self,
        respond: Callable[[Call], str],
        *,
        delay: float = 0.0,
        prompt_tokens: int = 10,
        completion_tokens: int = 5,
        cost: float = 0.0,
        model: str = "scripted/lm",
    ):
        super().__init__(model, cache=False)
        self.respond, self.delay = respond, delay
        self.prompt_tokens, self.completion_tokens, self.cost = prompt_tokens, completion_tokens, cost
        self.calls: list[Call] = []
        self._lock = threading.Lock()

    def _response(self, prompt: str | None, messages: list[dict] | None) -> Reply:
        call = Call(messages or [{"role": "user", "content": prompt or ""}])
        with self._lock:
            self.calls.append(call)
        text = self.respond(call)
        return chat_reply(
            self.model, text, prompt_tokens=self.prompt_tokens, completion_tokens=self.completion_tokens, cost=self.cost
        )

    def forward(self, prompt=None, messages=None, **kwargs):
        if self.delay:
            time.sleep(self.delay)
        return self._response(prompt, messages)

    def roles(self) -> list[str]:
        with self._lock:
            return [c.role for c in self.calls]


class AsyncScriptedLM(ScriptedLM):
    """:class:`ScriptedLM` with a native ``aforward``."""

    async def aforward(self, prompt=None, messages=None, **kwargs):
        if self.delay:
            await asyncio.sleep(self.delay)
        return self._response(prompt, messages)
