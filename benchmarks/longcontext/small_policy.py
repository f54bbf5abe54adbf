"""A scripted teacher for the small-model profile: the two steps a small model should take on a lookup.

Step 1 searches for the query's key (``print(search(context, 'quiet-otter', ignore_case=True))``); step 2 reads the
line and submits the value the query asks for (``SUBMIT(answer='INC-4821')``). It reads only the prompt
(the query in ``variables_info``, the printed lines in ``repl_history``), never a gold answer, so the demos
it produces show a model how to get from a query to an answer. ``benchmarks/compile_small.py`` uses it as
the teacher of DSPy's BootstrapFewShot; the student is the embedded model.

It is a ``dspy.BaseLM`` that takes the Tier-3 constraint keyword like ``OutlinesLM`` and writes what the small
profile's guided moves admit (``I will search for 'KEY'.`` / ``The KEY is VALUE.`` with the matching code, see
:mod:`dspy_rlm.profiles.guided`); cost 0, tokens estimated at 4 characters each.
"""

from __future__ import annotations

import json
import re
from typing import Any

import dspy

from dspy_outlines.replies import chat_reply

_QUERY = re.compile(r"- query: (['\"])(.*?)\1\s*$", re.MULTILINE)
_KEY = re.compile(r"\b([a-z]+[-_][a-z]+(?:_pin)?)\b")
_LINE = re.compile(r"^(?:item \S+ )?line \d+: (.*)$", re.MULTILINE)
# What the value looks like on its line, per question family (the first match wins).
_VALUE_RULES = (
    (re.compile(r"incident ID", re.I), re.compile(r"incident (INC-\d+)")),
    (re.compile(r"account_number", re.I), re.compile(r"^[^,]*,[^,]*,[^,]*,(\d+),")),
    (re.compile(r"token", re.I), re.compile(r"\"token\": \"([^\"]+)\"")),
    (re.compile(r"secret code", re.I), re.compile(r" is (\d+)")),
    (re.compile(r"value of", re.I), re.compile(r"= (\S+)")),
    (re.compile(r"codename", re.I), re.compile(r"codename ([\w-]+)")),
    (re.compile(r"magic number", re.I), re.compile(r"is: (\d+)")),
)


def query_key(query: str) -> str | None:
    """The lookup key a query names (``quiet-otter``, ``quiet_otter_pin``)."""
    keys = [k for k in _KEY.findall(query) if k not in ("account_number",)]
    return max(keys, key=len) if keys else None


def value_on_line(query: str, line: str) -> str | None:
    """The value the query asks for, read off one printed line."""
    for asks, rule in _VALUE_RULES:
        if asks.search(query):
            found = rule.search(line)
            return found.group(1) if found else None
    return None


def _lead(query: str, line: str, value: str, key: str) -> str:
    """The word said before the value: the word the query asks for when the line names it before the value
    (``incident INC-4821``), else the key (the guided moves offer exactly these, see ``guided.focus_pairs``)."""
    from dspy_rlm.profiles.guided import question_words

    words = question_words({"query": query})
    before = line[: line.find(value)].casefold()
    return words[0] if words and re.search(rf"(?<![\w-]){re.escape(words[0].casefold())}(?![\w-])", before) else key


def _field(user: str, name: str) -> str:
    match = re.search(rf"\[\[ ## {name} ## \]\]\n(.*?)(?=\n\n\[\[ ## \w+ ## \]\]|\n\nRespond with|\Z)", user, re.DOTALL)
    return match.group(1) if match else ""


def policy_step(variables_info: str, history: str) -> dict[str, str]:
    """The teacher's ``reasoning`` and ``code`` for one action step."""
    found = _QUERY.search(variables_info)
    query = found.group(2) if found else ""
    key = query_key(query)
    if key is None:
        return {"reasoning": "I look at the start of the context.", "code": "print(peek(context, 0, 300))"}
    for line in _LINE.findall(history):
        if key in line:
            value = value_on_line(query, line)
            if value is not None:
                return {
                    "reasoning": f"The {_lead(query, line, value, key)} is {value}.",
                    "code": f"SUBMIT(answer='{value}')",
                }
    return {"reasoning": f"I will search for '{key}'.", "code": f"print(search(context, '{key}', ignore_case=True))"}


class SmallPolicyLM(dspy.BaseLM):
    """The teacher as an LM: answers the RLM action step with :func:`policy_step`, anything else 'unknown'."""

    accepts_outlines_constraint = True
    is_local = True

    def __init__(self) -> None:
        super().__init__(model="local/small-policy", model_type="chat", temperature=0.0, max_tokens=256, cache=False)

    def constraint_kwargs(self, output_type: Any) -> dict[str, Any]:
        """Tier 3's constraint as this LM's own keyword (``dspy_outlines.contract.CONSTRAINT_KWARGS_METHOD``)."""
        return {"_outlines_constraint": output_type}

    def forward(self, prompt: str | None = None, messages: list[dict] | None = None, **kwargs: Any) -> Any:
        messages = messages or [{"role": "user", "content": prompt or ""}]
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        user = [m["content"] for m in messages if m["role"] == "user"][-1]
        if "`code`" in system:
            text = json.dumps(policy_step(_field(user, "variables_info"), _field(user, "repl_history")))
        else:
            text = json.dumps({"answer": "unknown"})
        prompt_tokens = sum(len(str(m["content"])) for m in messages) // 4
        return chat_reply(self.model, text, prompt_tokens=prompt_tokens, completion_tokens=len(text) // 4, cost=0.0)
