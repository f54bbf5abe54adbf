"""Scripted LMs for loop tests (DSPy's DummyLM plus one that fails on purpose)."""

from __future__ import annotations

from dspy.utils import DummyLM


def act(code: str, reasoning: str = "step") -> dict[str, str]:
    """One action-step answer with the code fenced as a model would send it."""
    return {"reasoning": reasoning, "code": f"```python\n{code}\n```"}


class FailingExtractLM(DummyLM):
    """Answers action steps from the script, raises on the extraction prompt."""

    def forward(self, prompt=None, messages=None, **kwargs):
        if "fallback_reason" in str(messages):
            raise RuntimeError("extraction LM is down")
        return super().forward(prompt=prompt, messages=messages, **kwargs)


class AlwaysFailingLM(DummyLM):
    def __init__(self):
        super().__init__([])
        self.calls = 0

    def forward(self, prompt=None, messages=None, **kwargs):
        self.calls += 1
        raise ConnectionError("provider unreachable")


def run_scripted(question: str, context: str, out: str = "str"):
    """The prediction of the scripted move policy (no LM for its steps) on one question: its answer, its
    ``rlm_result`` (kind, notes) and its trajectory (the code of each step)."""
    import dspy

    from dspy_rlm import RLM
    from dspy_rlm.profiles.scripted import ScriptedMovePolicy

    with dspy.context(lm=DummyLM([{"answer": "0"}] * 10)):
        return RLM(f"context, question -> answer: {out}", policy=ScriptedMovePolicy(), max_iters=4)(
            context=context, question=question
        )


def ask_scripted(question: str, context: str, out: str = "str") -> tuple:
    """The answer and ending kind of the scripted move policy (no LM for its steps) on one question."""
    pred = run_scripted(question, context, out)
    return pred.answer, pred.rlm_result.kind


def read_candidates(question: str, text: str, kind: str, out: type = str) -> list:
    """The candidates of every read of ``kind`` (``record``, ``field`` ...) the move book offers on ``text``, each
    read run on the host as the REPL would."""
    import io
    from contextlib import redirect_stdout

    from dspy_rlm.library.helpers import make_helpers
    from dspy_rlm.profiles.kinds import evaluate
    from dspy_rlm.profiles.moves import MoveBook

    book = MoveBook({"question": question}, {"context": text}, {"answer": out})
    names = dict(make_helpers(), context=text)
    found = []
    for move in book.read_moves():
        if move.kind == kind:
            with redirect_stdout(buf := io.StringIO()):
                exec(move.code, names)
            found += evaluate(book, move, buf.getvalue())
    return found


def prompts_of(lm) -> list[str]:
    """The user-visible text of every call the LM received."""
    return ["\n".join(str(m.get("content")) for m in entry["messages"]) for entry in lm.history]
