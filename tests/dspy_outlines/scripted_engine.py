"""A scripted inference engine: OutlinesLM's whole DSPy path (engine contract, history, finish reasons) without a
model."""

from __future__ import annotations

from dspy_outlines.engines import Completion, GenerationRequest


class ScriptedEngine:
    """An inference engine that answers from a script and records each request."""

    name = "scripted"
    model_name = "scripted"
    outlines_model = None

    def __init__(self, answers: list[tuple[str, str]]):
        self.answers = list(answers)
        self.requests: list[GenerationRequest] = []

    def render_prompt(self, messages):
        return "\n".join(m["content"] for m in messages)

    def encode(self, text):
        return [ord(c) for c in text]

    def generate(self, prompt_ids, request):
        self.requests.append(request)
        text, finish = self.answers.pop(0)
        return Completion(text=text, completion_tokens=len(text), finish_reason=finish, prompt_tokens=len(prompt_ids))

    def stats(self):
        return {"calls": len(self.requests)}

    def dump_state(self):
        return {"engine": "scripted"}
