"""Calibrated endings for the small policy (issue 28, item 5): how sure a supported SUBMIT is, and whether it may end
``Submitted``.

A submitted value's *support class* is what backs it, in general terms: the output type, the kind of value (a
record's key, a field, a count, an answer) and why the reads support it (``the record matches the question's key``,
``counted``, ``ranked`` ...). Its confidence is the precision that class showed where the answers are known
(``benchmarks/calibrate.py`` fits it on the dev split, training questions and generated needle lookups: every
supported value any chooser could have submitted, right or wrong), smoothed (``(right + 1) / (seen + 2)``). A run
ends ``Submitted`` only when its confidence reaches the fitted threshold (the lowest at which the fitting data's
precision is 95% or more); below it, ``Extracted`` with its confidence and a note. An unsupported value keeps the
flat 0.25 guess. Not yet combined with the model's own probability of its choice: the engines do not return log-
probabilities of the constrained action.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from dspy_rlm.profiles.candidates import Candidate

__all__ = ["CALIBRATION_PATH", "Calibration", "data_shape", "load_calibration", "support_class"]

CALIBRATION_PATH = Path(__file__).with_name("calibration.json")
_GENERIC_LABELS = ("key", "count", "answer")
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
    ``lines`` past the parser's cap (the records cover only the head: the reads there are line searches)."""
    s = next(iter(book.structs.values()), None)
    return "lines" if s is None or s.parsed_chars is not None else s.kind


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

    def confidence(self, cls: str) -> float:
        """The class's smoothed precision; a structure never seen backs off to the class over every structure
        (``int|count|counted|*``), then over every output type too (``*|count|counted|*``); a class never seen
        at all is :attr:`unseen`."""
        right, seen = self.counts.get(cls, (0, 0))
        if not seen:  # back off: any structure, then any output type too
            kind, why = cls.split("|")[1:3] if cls.count("|") >= 3 else ("", "")
            for same in (
                lambda n: n.rsplit("|", 1)[0] == cls.rsplit("|", 1)[0],
                lambda n: n.split("|")[1:3] == [kind, why],
            ):
                pooled = [c for name, c in self.counts.items() if same(name)]
                right, seen = sum(c[0] for c in pooled), sum(c[1] for c in pooled)
                if seen:
                    break
        return round((right + 1) / (seen + 2), 3) if seen else self.unseen

    def to_dict(self) -> dict[str, Any]:
        return {"counts": self.counts, "threshold": self.threshold, "unseen": self.unseen}


@lru_cache(maxsize=4)
def load_calibration(path: str = str(CALIBRATION_PATH)) -> Calibration:
    """The shipped calibration (no file: every supported value ends Submitted at confidence 1.0)."""
    file = Path(path)
    if not file.is_file():
        return Calibration(unseen=1.0)
    state = json.loads(file.read_text())
    return Calibration(
        dict(state.get("counts", {})), float(state.get("threshold", 0.0)), float(state.get("unseen", 0.5))
    )
