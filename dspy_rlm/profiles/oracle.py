"""An oracle teacher over the small policy's moves (issue 28, item 2).

On a question whose answer is known, :func:`plan` searches the moves breadth-first (up to ``depth`` reads) for
the shortest sequence whose SUBMIT is the gold *with support*: the reads a student could have made, then the
submit the grammar offers for what they printed. Reads run on the host with the REPL's own helpers. A question
no sequence solves is reported with why (the gold was never read, or read without support): the grammar's
coverage, measured.

:class:`OraclePolicy` acts the plan out in a run, as a :class:`~dspy_rlm.profiles.base.StepPolicy`. With
``through_lm=True`` it does not take the step itself: it sets the move it wants and the action predictor asks
the LM, which must be an :class:`OracleLM` -- so DSPy's trace records the predictor's call with the oracle's
move, and ``BootstrapFewShot(...).compile(student, teacher=teacher, trainset=...)`` turns those calls into
demos (the teacher: an ``RLM`` with this policy, run under ``teacher_settings={"lm": OracleLM()}``).
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import dspy

from dspy_outlines.replies import chat_reply
from dspy_rlm.profiles import Profile
from dspy_rlm.profiles.base import RunView, StepView
from dspy_rlm.profiles.moves import Move, MoveBook
from dspy_rlm.profiles.steps import SmallPolicy, SmallPolicyRun

__all__ = ["OracleLM", "OraclePolicy", "Plan", "first_reads", "matches", "plan"]


@dataclass
class Plan:
    """The oracle's answer for one question.

    Attributes:
        moves: The reads, then the submit (empty when not covered).
        covered: A sequence ends in the gold with support.
        why: For an uncovered question: ``gold never read`` or ``gold read without support``.
        expanded: How many read sequences were tried.
    """

    moves: list[Move] = field(default_factory=list)
    covered: bool = False
    why: str = ""
    expanded: int = 0


def matches(value: Any, gold: Any, alternatives: Sequence[Any] = ()) -> bool:
    """``value`` is the gold (or a tied alternative): case and spacing aside, numbers and booleans by value."""
    for g in (gold, *alternatives):
        if isinstance(g, bool) or isinstance(value, bool):
            if str(value).strip().casefold() in ("true", "yes") and g is True:
                return True
            if str(value).strip().casefold() in ("false", "no") and g is False:
                return True
            continue
        if " ".join(str(value).split()).casefold() == " ".join(str(g).split()).casefold():
            return True
        try:
            if float(str(value).replace(",", "")) == float(str(g)):
                return True
        except ValueError:
            pass
    return False


def host_reader(data: Mapping[str, Any]) -> Callable[[Move], str]:
    """Run a read's code on the host with the REPL's helpers (search rows as ``line N: text``); its stdout."""
    from dspy_rlm.library.helpers import make_helpers

    namespace = {**make_helpers(style="lines"), **data}
    cache: dict[str, str] = {}

    def run(move: Move) -> str:
        if move.code not in cache:
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    exec(move.code, dict(namespace))
            except Exception as exc:  # noqa: BLE001 - a read that fails prints its error, as in the REPL
                out.write(f"{type(exc).__name__}: {exc}")
            cache[move.code] = out.getvalue()
        return cache[move.code]

    return run


def plan(
    book: MoveBook,
    gold: Any,
    alternatives: Sequence[Any] = (),
    depth: int = 3,
    max_expanded: int = 400,
    reader: Callable[[Move], str] | None = None,
) -> Plan:
    """The shortest read sequence (breadth-first, at most ``depth`` reads, ``max_expanded`` sequences) after
    which the grammar offers a supported SUBMIT of ``gold``. ``book`` is left as it was found."""
    reader = reader or host_reader(book.data)
    saved = dict(book.reads)
    frontier: list[list[Move]] = [[]]
    result = Plan(why="gold never read")
    try:
        for _ in range(depth):
            nxt: list[list[Move]] = []
            for done in frontier:
                for move in [m for m in book.read_moves() if m.code not in {d.code for d in done}]:
                    if result.expanded >= max_expanded:
                        return result
                    result.expanded += 1
                    seq = [*done, move]
                    book.reads = dict(saved)
                    stdouts = []
                    for m in seq:
                        stdouts.append(reader(m))
                        book.record_read(m.code, stdouts[-1])
                    hits = [
                        s for s in book.submit_moves() if s.candidate and matches(s.candidate.value, gold, alternatives)
                    ]
                    supported = [s for s in hits if s.candidate is not None and s.candidate.supported]
                    if supported:
                        return Plan([*seq, supported[0]], True, "", result.expanded)
                    if hits:
                        result.why = "gold read without support"
                    nxt.append(seq)
            frontier = nxt
        return result
    finally:
        book.reads = saved


def first_reads(
    book: MoveBook, gold: Any, alternatives: Sequence[Any] = (), reader: Callable[[Move], str] | None = None
) -> tuple[set[str], int]:
    """The first reads on a one-read path to the gold (their code: after it the grammar offers a supported SUBMIT
    of ``gold``), and how many reads the first step offers. ``book`` is left as it was found."""
    reader = reader or host_reader(book.data)
    saved = dict(book.reads)
    good: set[str] = set()
    moves = book.read_moves()
    try:
        for move in moves:
            book.reads = dict(saved)
            book.record_read(move.code, reader(move))
            offered = book.submit_moves()
            if any(
                s.candidate and s.candidate.supported and matches(s.candidate.value, gold, alternatives)
                for s in offered
            ):
                good.add(move.code)
    finally:
        book.reads = saved
    return good, len(moves)


# -- acting the plan out ------------------------------------------------------------------------------------
_FORCED: contextvars.ContextVar[Move | None] = contextvars.ContextVar("oracle_move", default=None)
"""The move the oracle wants this step (a context variable: the LM call may run in a worker thread)."""


class _OracleRun(SmallPolicyRun):
    uses_ranker = False  # its move must be offered, ranked or not

    def __init__(self, name: str, profile: Profile, run: RunView, policy: OraclePolicy) -> None:
        super().__init__(name, profile, run)
        self.policy = policy
        self._plan: Plan | None = None

    def next_move(self, step: StepView) -> Move:
        moves = self.moves or self.step_moves(step)
        if self._plan is None:
            gold = self.policy.answer_for(self.question)
            self._plan = plan(self.book(), *gold) if gold is not None else Plan(why="no answer known")
        done = set(step.codes)
        for move in self._plan.moves:
            if move.code not in done:
                return next((m for m in moves if m.code == move.code), move)
        submits = [m for m in moves if m.kind == "submit"]
        return submits[0] if submits else moves[0]  # uncovered: the first offered move (it ends as a guess)

    def decide(self, step: StepView) -> tuple[str, str] | None:
        move = self.next_move(step)
        if self.policy.through_lm:
            _FORCED.set(move)  # the action predictor asks the OracleLM, which answers with this move
            return None
        return move.reasoning, move.code


class OraclePolicy(SmallPolicy):
    """The oracle as a policy: each run acts out :func:`plan` for its question's known answer.

    Args:
        answers: The known answers, by question text (the run's task inputs, joined by a space), each a gold
            or a ``(gold, alternatives)`` pair.
        through_lm: Let the action predictor ask an :class:`OracleLM` for the move (so DSPy traces it) instead
            of taking the step without an LM call.
        profile, kind_demos: As :class:`SmallPolicy`'s: the prompts the action predictor sees are the student's.
    """

    name = "oracle"

    def __init__(
        self,
        answers: Mapping[str, Any],
        through_lm: bool = False,
        profile: Profile | None = None,
        kind_demos: dict[str, list[Any]] | None = None,
    ) -> None:
        super().__init__(profile, kind_demos)
        self.answers = dict(answers)
        self.through_lm = through_lm

    @classmethod
    def from_examples(cls, examples: Sequence[Any], question: str, answer: str, **kwargs: Any) -> OraclePolicy:
        """From ``dspy.Example``s: their ``question`` input's text -> their ``answer`` field."""
        return cls({str(getattr(e, question)): getattr(e, answer) for e in examples}, **kwargs)

    def answer_for(self, question: Mapping[str, str]) -> tuple[Any, Sequence[Any]] | None:
        text = " ".join(question.values())
        found = self.answers.get(text)
        if found is None:
            return None
        return (found[0], found[1]) if isinstance(found, tuple) else (found, ())

    def start(self, run: RunView) -> SmallPolicyRun:
        started = _OracleRun(self.name, self.profile, run, self)
        started.kind_demos = self.kind_demos  # the student's prompts, demos included (``{}``: none)
        return started


class OracleLM(dspy.BaseLM):
    """The LM an :class:`OraclePolicy` with ``through_lm=True`` runs under: it answers the action step with the
    move the oracle chose (a JSON object ``{"reasoning", "code"}``, inside the step's constraint), and anything
    else (an extraction at a limit) with an empty JSON object."""

    accepts_outlines_constraint = True
    is_local = True

    def __init__(self, record: bool = False) -> None:
        super().__init__(model="local/oracle", model_type="chat", temperature=0.0, max_tokens=256, cache=False)
        self.record = record
        self.conversations: list[dict[str, Any]] = []
        """With ``record=True``: each action step answered, as DSPy chat-format training data (``{"messages":
        [..., {"role": "assistant", "content": reply}]}``): the prompt the student sees and the oracle's move."""

    def constraint_kwargs(self, output_type: Any) -> dict[str, Any]:
        return {"_outlines_constraint": output_type}

    def forward(self, prompt: Any = None, messages: Any = None, **kwargs: Any) -> Any:
        move = _FORCED.get()
        if move is None:
            return chat_reply(self.model, "{}")
        # exactly as the step's constraint admits it (moves_pattern: compact separators, text not escaped)
        text = json.dumps({"reasoning": move.reasoning, "code": move.code}, ensure_ascii=False)
        if self.record and messages:
            self.conversations.append({"messages": [*messages, {"role": "assistant", "content": text}]})
        return chat_reply(self.model, text)
