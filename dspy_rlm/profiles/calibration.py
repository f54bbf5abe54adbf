"""Calibrated endings for the small policy (issue 28, item 5): how sure a supported SUBMIT is, and whether it may end
``Submitted``.

A submitted value's *support class* is what backs it, in general terms: the output type, the kind of value (a
record's key, a field, a count, an answer) and why the reads support it (``the record matches the question's key``,
``counted``, ``ranked`` ...). Its confidence is the precision that class showed where the answers are known
(``benchmarks/calibrate.py`` fits it on the dev split, training questions and generated needle lookups: every
supported value any chooser could have submitted, right or wrong), smoothed toward the precision of its output
type and kind of value on its family of structures (text or records: :meth:`Calibration.confidence`). A run
ends ``Submitted`` only when its confidence reaches the fitted threshold (the lowest at which the fitting data's
precision is 95% or more); below it, ``Extracted`` with its confidence and a note. An unsupported value keeps the
flat 0.25 guess.

With a *chooser fit* (``python -m benchmarks.calibrate --chooser``), the confidence also weighs how sure the
chooser was of the SUBMIT it made: the learned move ranker's probability of that move
(:mod:`dspy_rlm.profiles.ranker`), combined with the class's precision by a logistic fit on the endings the ranked
chooser reaches where the answers are known (held-back training files, dev, needles), with its own threshold for
95% precision, and the observed accuracy of an unsupported SUBMIT in place of the flat 0.25.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from dspy_rlm.profiles.candidates import Candidate

__all__ = [
    "CALIBRATION_PATH",
    "PRIOR_WEIGHT",
    "TEXT_SHAPES",
    "UNMEASURED_DETAILS",
    "Calibration",
    "combine",
    "data_shape",
    "load_calibration",
    "support_class",
]

CALIBRATION_PATH = Path(__file__).with_name("calibration.json")
_GENERIC_LABELS = ("key", "count", "answer")
TEXT_SHAPES = ("lines", "prose", "markdown_list")
"""Structures read as text (a value follows its key in a line or sentence); every other structure holds records
whose values sit in fields. A class on records never borrows the precision of text: a read of the raw text after
a key is a fallback that ignores the records' fields, and where both were measured (the fit before stop 69) a
string "stated after the key" was right on 60 of 69 text reads and 0 of 101 record reads. A class on text may
borrow from records where no text shows it (a line parsed into records is read by the same record moves)."""
UNMEASURED_DETAILS = ("shell",)
"""Structure details whose reads no fit has measured where the answers are known (a shell script's options,
variables and functions, :mod:`dspy_rlm.library.shellformat`): a class on them is a family of its own, borrowing
from no other, so it is :attr:`Calibration.unseen` until a fit sees it. The record families' precision does not
carry over: vouched for by it at 0.94-0.99, shell reads gave 8 wrong Submits beside 10 right ones on probes 1-52
(the host check of stop 100), a field named ``sets`` or ``runs`` read for "what umask does it *set*"."""
PRIOR_WEIGHT = 4
"""How many observations a class's prior (its type and kind of value over its family) weighs: chosen, not fit."""
IN_SENTENCE = "stated after the key in a sentence"
"""Why a token of a field that is a sentence ("the vault access code is 31337.") is supported."""


def support_class(candidate: Candidate, answer_type: Any, shape: str = "table") -> str:
    """``str|field|the record matches the question's key|table``: the type, the kind of value, why it is
    supported and the detected structure of the data read (a value stated after the key is a sentence's in a log
    line, but the next column's in a table). A field's own name is data, so every field is ``field``."""
    label = candidate.label if candidate.label in _GENERIC_LABELS else "ranked" if " " in candidate.label else "field"
    why = candidate.why
    if why == IN_SENTENCE:  # a field that is a sentence reads as a line of text
        why, shape = "stated after the key", "lines"
    return f"{getattr(answer_type, '__name__', str(answer_type))}|{label}|{why}|{shape}"


def data_shape(book: Any) -> str:
    """The detected structure kind of the (first, longest) text the run reads: ``table``, ``jsonl``, ``lines``...;
    ``lines`` past the parser's cap (the records cover only the head: the reads there are line searches); the
    detail where no fit measured it (``shell``: :data:`UNMEASURED_DETAILS`)."""
    s = next(iter(book.structs.values()), None)
    if s is None or s.parsed_chars is not None:
        return "lines"
    return s.detail if s.detail in UNMEASURED_DETAILS else s.kind


@dataclass(frozen=True)
class Calibration:
    """Counts per support class and the threshold a Submitted ending needs.

    Attributes:
        counts: ``{class: [right, seen]}``.
        threshold: The lowest confidence that ends ``Submitted``.
        unseen: The confidence of a class the fitting data never showed.
    """

    counts: dict[str, list[int]] = field(default_factory=dict)
    threshold: float = 0.0
    unseen: float = 0.5
    chooser: dict[str, Any] | None = None
    """The chooser fit: ``weights`` (on the logits of the class precision and the ranker's probability),
    ``bias``, ``threshold`` and ``unsupported`` (the confidence of an unsupported SUBMIT)."""

    def confidence(self, cls: str) -> float:
        """The class's precision, smoothed toward its *prior*: the precision of every class of its output type and
        kind of value (``int|count|*``) on its family of structures (text or records, :data:`TEXT_SHAPES`; text
        may borrow from records), weighing :data:`PRIOR_WEIGHT` observations, so a class seen once or twice is
        not judged by those alone. A structure never seen backs off to the class over the other structures of its
        family, then, on text only, over every structure, then over every output type too (``*|count|counted|*``);
        a class its back-off never saw is :attr:`unseen`."""
        if cls.count("|") < 3:
            right, seen = self.counts.get(cls, (0, 0))
            return round((right + 1) / (seen + 2), 3) if seen else self.unseen
        head, shape = cls.rsplit("|", 1)
        text = shape in TEXT_SHAPES
        family = [n for n in self.counts if _family(n.rsplit("|", 1)[1]) == _family(shape)]
        wider = list(self.counts) if text else []
        right, seen = self.counts.get(cls, (0, 0))
        if not seen:
            kind_why = head.split("|")[1:3]
            right, seen = self._pooled(
                (family, lambda n: n.rsplit("|", 1)[0] == head),
                (wider, lambda n: n.rsplit("|", 1)[0] == head),
                (family, lambda n: n.split("|")[1:3] == kind_why),
                (wider, lambda n: n.split("|")[1:3] == kind_why),
            )
        if not seen:
            return self.unseen
        type_kind = head.split("|")[:2]
        r0, n0 = self._pooled(
            (family, lambda n: n.split("|")[:2] == type_kind), (wider, lambda n: n.split("|")[:2] == type_kind)
        )
        prior = (r0 + 1) / (n0 + 2) if n0 else self.unseen
        return round((right + PRIOR_WEIGHT * prior) / (seen + PRIOR_WEIGHT), 3)

    def measured(self, cls: str) -> bool:
        """Whether the fit saw any class of ``cls``'s family of structures (:data:`UNMEASURED_DETAILS`: no)."""
        fam = _family(cls.rsplit("|", 1)[-1])
        return any(_family(n.rsplit("|", 1)[-1]) == fam for n in self.counts)

    def _pooled(self, *levels: tuple[list[str], Any]) -> tuple[int, int]:
        """The summed ``[right, seen]`` of the first level (class names, a test of a name) that saw any."""
        for names, same in levels:
            pooled = [self.counts[n] for n in names if same(n)]
            right, seen = sum(c[0] for c in pooled), sum(c[1] for c in pooled)
            if seen:
                return right, seen
        return 0, 0

    def combined(self, cls: str, choice: float | None) -> float:
        """The confidence of a supported value of class ``cls`` the chooser submitted with probability ``choice``
        (``None``: no ranker scored it): the chooser fit's logistic combination, else the class's precision."""
        base = self.confidence(cls)
        if self.chooser is None or choice is None or not self.measured(cls):
            return base  # (a family no fit measured: the chooser's certainty lifts no unmeasured class)
        return combine(self.chooser, base, choice)

    def cutoff(self, choice: float | None) -> float:
        """The confidence a Submitted ending needs: the chooser fit's threshold where it applies."""
        return float(self.chooser["threshold"]) if self.chooser is not None and choice is not None else self.threshold

    def unsupported(self) -> float:
        """The confidence of a SUBMIT the reads do not support."""
        return float(self.chooser["unsupported"]) if self.chooser is not None else 0.25

    def to_dict(self) -> dict[str, Any]:
        out = {"counts": self.counts, "threshold": self.threshold, "unseen": self.unseen}
        return out | ({"chooser": self.chooser} if self.chooser is not None else {})


def _family(shape: str) -> str:
    """A structure's family: ``text`` (:data:`TEXT_SHAPES`), ``unmeasured`` (:data:`UNMEASURED_DETAILS`) or
    ``records``."""
    return "text" if shape in TEXT_SHAPES else "unmeasured" if shape in UNMEASURED_DETAILS else "records"


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def combine(chooser: dict[str, Any], precision: float, choice: float) -> float:
    """The chooser fit's confidence for a class precision and the ranker's probability of the choice."""
    a, b = chooser["weights"]
    z = a * _logit(precision) + b * _logit(choice) + chooser["bias"]
    return round(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))), 3)


@lru_cache(maxsize=4)
def load_calibration(path: str = str(CALIBRATION_PATH)) -> Calibration:
    """The shipped calibration (no file: every supported value ends Submitted at confidence 1.0)."""
    file = Path(path)
    if not file.is_file():
        return Calibration(unseen=1.0)
    state = json.loads(file.read_text())
    chooser = state.get("chooser")
    return Calibration(
        dict(state.get("counts", {})),
        float(state.get("threshold", 0.0)),
        float(state.get("unseen", 0.5)),
        chooser if isinstance(chooser, dict) else None,
    )
