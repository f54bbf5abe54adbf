"""Grounded SUBMIT: a submitted value the run never saw gets one verification step.

A small model often submits a word of the question ("ERROR") or a demo's answer instead of the value on the
line it found. Before a SUBMIT is accepted, each submitted value (as text) is looked for in what the run has
seen: the REPL outputs so far, the inputs (except the query-like short inputs) and the model's variables. A
value found nowhere, or one that only repeats the question, gets a verification message telling the model
what was wrong and where to look; submitting the same values again is accepted (the model insists).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

__all__ = ["GroundedSubmit", "ungrounded_values", "verification_message"]

_MIN_CHARS = 2  # one-character answers ("7", "A") are too short to check


def _texts(value: Any) -> list[str]:
    if isinstance(value, (list, tuple, set)):
        return [t for v in value for t in _texts(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if value is None or isinstance(value, bool):
        return []
    text = str(value).strip()
    return [text] if len(text) >= _MIN_CHARS else []


def _found(text: str, haystacks: Iterable[Any]) -> bool:
    folded = text.casefold()
    for hay in haystacks:
        if isinstance(hay, str):
            if text in hay or (len(hay) < 1_000_000 and folded in hay.casefold()):
                return True
        elif isinstance(hay, (list, tuple, dict)) and _found(text, hay.values() if isinstance(hay, dict) else hay):
            return True
    return False


def ungrounded_values(
    values: dict[str, Any],
    *,
    outputs: list[str],
    inputs: dict[str, Any],
    question_inputs: dict[str, str],
    variables: dict[str, str],
) -> dict[str, str]:
    """The submitted values that need verification, each with the reason.

    Args:
        values: The submitted outputs.
        outputs: Every REPL output of the run so far (this step's included).
        inputs: The run's inputs that hold data (searched as they are, never copied).
        question_inputs: Short text inputs that state the task (a value equal to a phrase of these only
            repeats the question).
        variables: Descriptions of the model's REPL variables.

    Returns:
        ``{field: "never seen" | "repeats the question"}`` for each suspicious value.
    """
    problems: dict[str, str] = {}
    for name, value in values.items():
        for text in _texts(value):
            in_question = any(said_in(text, q) for q in question_inputs.values())
            seen = _found(text, outputs) or _found(text, inputs.values()) or _found(text, variables.values())
            if in_question and not _only_question_word(text, outputs):
                problems[name] = "repeats the question"
            elif not seen and not in_question:
                problems[name] = "never seen"
    return problems


def said_in(text: str, question: str) -> bool:
    """Whether ``text`` is a phrase of the question, whole words in any case ("ss" is no phrase of "ß", nor of
    "class")."""
    said = text.strip().lower()
    return bool(said) and re.search(rf"(?<!\w){re.escape(said)}(?!\w)", question.lower()) is not None


def _only_question_word(text: str, outputs: list[str]) -> bool:
    """A question word that also occurs in an output line *with more on it* is still just the search term;
    it counts as an answer only when an output consists of it alone (e.g. a printed variable)."""
    return any(line.strip().strip("'\"") == text for out in outputs for line in out.splitlines())


def verification_message(problems: dict[str, str], values: dict[str, Any]) -> str:
    """What the model is told instead of ending the run."""
    parts = []
    for name, why in problems.items():
        shown = str(values.get(name))[:80]
        if why == "repeats the question":
            parts.append(
                f"{name}={shown!r} only repeats words of the query; the answer is a value found in the "
                "data, e.g. on the line your search printed"
            )
        else:
            parts.append(f"{name}={shown!r} appears in no output you have seen, in no input and in no variable")
    return (
        "[Check] Not submitted yet: " + "; ".join(parts) + ". Look at the printed output again and SUBMIT the "
        "value copied from it. If you are sure, SUBMIT the same value again."
    )


class GroundedSubmit:
    """One run's grounded-SUBMIT check: a value seen nowhere, or one that only repeats the question, gets one
    verification message; the same values submitted again are accepted (the model insists)."""

    def __init__(self, question: dict[str, str], data: dict[str, Any], warn: Callable[[str], None]) -> None:
        self.question, self.data, self.warn = question, data, warn
        self.verified: list[dict[str, Any]] = []

    async def check(
        self, values: dict[str, Any], outputs: list[str], variables: Callable[[], Awaitable[dict[str, str]]]
    ) -> str | None:
        """A verification message, or None to accept ``values``."""
        if values in self.verified:
            return None
        problems = ungrounded_values(
            values, outputs=outputs, inputs=self.data, question_inputs=self.question, variables={}
        )
        if any(why == "never seen" for why in problems.values()):  # variables are fetched only when needed
            problems = ungrounded_values(
                values, outputs=outputs, inputs=self.data, question_inputs=self.question, variables=await variables()
            )
        if not problems:
            return None
        self.verified.append(values)
        self.warn(f"grounded SUBMIT: verification asked for {sorted(problems)}")
        return verification_message(problems, values)
