"""The task record every suite produces, and the scorers that grade an answer against its gold.

Scorers follow the papers the suites come from:

* S-NIAH (RULER's task): the whole answer against the needles (not RULER's containment; see score_niah).
* OOLONG numeric questions: ``0.75 ** |error|``; label / month questions: exact match after light
  normalization (case, quotes, surrounding punctuation, an ``Answer:`` / ``Label:`` prefix).
* OOLONG-Pairs: F1 between the set of unordered id pairs in the answer and the gold set.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

CHARS_PER_TOKEN = 4
"""Token estimate used to size contexts (RULER and OOLONG size by tokens; we estimate 4 chars each)."""

DEFAULT_SIZES = [2**k for k in range(13, 19)]
"""Context lengths in tokens, 2^13 (8K) to 2^18 (256K)."""

Metric = Literal["niah", "numeric", "exact", "pairs_f1"]
METRICS: tuple[str, ...] = ("niah", "numeric", "exact", "pairs_f1")


@dataclass
class Task:
    """One generated question over one generated context.

    Attributes:
        id: Stable identifier, ``{suite}-{size}-{seed}-{index}``.
        suite: ``niah``, ``oolong`` or ``pairs``.
        size_tokens: The target context length in (estimated) tokens.
        context: The long input text.
        query: The question asked about ``context``.
        gold: The gold answer: a list of strings (niah), a number (numeric), a string (exact) or a
            list of ``[low_id, high_id]`` pairs (pairs_f1).
        metric: Which scorer grades the answer.
        meta: Generation details (needle depth, question family, parameters) for reports and tests.
    """

    id: str
    suite: str
    size_tokens: int
    context: str
    query: str
    gold: Any
    metric: Metric
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def context_tokens(self) -> int:
        """Estimated tokens in the context (``len(context) / 4``)."""
        return estimate_tokens(self.context)

    def score(self, answer: Any) -> float:
        """Grade ``answer`` with this task's metric; returns a score in ``[0, 1]``."""
        return score_answer(self.metric, answer, self.gold)

    def summary(self) -> dict[str, Any]:
        """The task without its context, for JSON reports."""
        data = asdict(self)
        data.pop("context")
        data["context_chars"] = len(self.context)
        data["context_tokens"] = self.context_tokens
        return data


def estimate_tokens(text: str) -> int:
    """Estimate the token count of ``text`` at 4 characters per token."""
    return len(text) // CHARS_PER_TOKEN


def task_rng(suite: str, size: int, seed: int, index: int) -> random.Random:
    """A generator seeded by the task's coordinates, so every task is reproducible on its own.

    ``random.Random`` seeded with a string is stable across processes (no hash randomization).
    """
    return random.Random(f"{suite}:{size}:{seed}:{index}")


# --------------------------------------------------------------------------------------------- scoring


def score_answer(metric: str, answer: Any, gold: Any) -> float:
    """Dispatch to the scorer named by ``metric``.

    Raises:
        ValueError: If ``metric`` is not one of ``niah``, ``numeric``, ``exact``, ``pairs_f1``.
    """
    if metric == "niah":
        return score_niah(answer, gold)
    if metric == "numeric":
        return score_numeric(answer, gold)
    if metric == "exact":
        return score_exact(answer, gold)
    if metric == "pairs_f1":
        return score_pairs_f1(answer, gold)
    raise ValueError(f"Unknown metric {metric!r}; choose one of {', '.join(METRICS)}.")


def score_niah(answer: Any, gold: list[str]) -> float:
    """The whole answer against the needles (issue 28: not RULER's containment, which credits an answer that
    pastes a whole line or lists every candidate): the answer's items (a list's elements, or its text split on
    commas, semicolons, new lines and " and ") normalized, then the gold items found among them over the larger
    of the two counts. One needle: 1.0 only when the answer is exactly it."""
    if not gold:
        return 1.0
    if isinstance(answer, (list, tuple, set)):
        items = [normalize_label(a) for a in answer]
    else:
        items = [normalize_label(p) for p in re.split(r"[,;\n]|\s+and\s+", _as_text(answer))]
    items = [i for i in items if i]
    wanted = {normalize_label(g) for g in gold}
    found = len(wanted & set(items))
    return found / max(len(wanted), len(set(items))) if items else 0.0


_NUMBER = re.compile(r"-?\d+(?:,\d{3})*(?:\.\d+)?")


def parse_number(answer: Any) -> float | None:
    """The number an answer gives: the answer itself if numeric, else the last number in its text."""
    if isinstance(answer, bool):
        return None
    if isinstance(answer, (int, float)):
        return float(answer)
    matches = _NUMBER.findall(_as_text(answer))
    if not matches:
        return None
    return float(matches[-1].replace(",", ""))


def score_numeric(answer: Any, gold: float) -> float:
    """OOLONG's numeric score, ``0.75 ** |answer - gold|``; 0 when the answer holds no number."""
    value = parse_number(answer)
    if value is None:
        return 0.0
    return 0.75 ** abs(value - float(gold))


_PREFIX = re.compile(r"^(?:final\s+)?(?:answer|label|month)\s*[:=-]\s*", re.IGNORECASE)


def normalize_label(text: Any) -> str:
    """Lowercase, collapse whitespace, drop quotes, brackets, trailing punctuation and a label prefix."""
    out = " ".join(_as_text(text).split()).strip()
    out = _PREFIX.sub("", out)
    out = out.strip(" \t\"'`*[](){}.,;:!?").lower()
    return out


def score_exact(answer: Any, gold: str) -> float:
    """1.0 when the normalized answer equals the normalized gold, else 0.0."""
    return 1.0 if normalize_label(answer) == normalize_label(gold) else 0.0


_PAIR = re.compile(r"[(\[]\s*['\"]?(\d+)['\"]?\s*,\s*['\"]?(\d+)['\"]?\s*[)\]]")


def parse_pairs(answer: Any) -> set[tuple[str, str]]:
    """Unordered id pairs written as ``(a, b)`` or ``[a, b]`` anywhere in the answer."""
    if isinstance(answer, (list, tuple, set)) and all(isinstance(p, (list, tuple)) for p in answer):
        raw = [(str(p[0]), str(p[1])) for p in answer if len(p) == 2]
    else:
        raw = _PAIR.findall(_as_text(answer))
    return {(min(a, b, key=int), max(a, b, key=int)) for a, b in raw if a != b}


def score_pairs_f1(answer: Any, gold: list[list[str]]) -> float:
    """F1 between the answer's pairs and the gold pairs (1.0 when both are empty)."""
    predicted = parse_pairs(answer)
    expected = {(min(a, b, key=int), max(a, b, key=int)) for a, b in gold}
    if not predicted and not expected:
        return 1.0
    hits = len(predicted & expected)
    if hits == 0:
        return 0.0
    precision = hits / len(predicted)
    recall = hits / len(expected)
    return 2 * precision * recall / (precision + recall)


def _as_text(answer: Any) -> str:
    return "" if answer is None else str(answer)
