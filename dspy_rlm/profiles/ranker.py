"""A learned chooser over the small policy's moves (issue 28): which move to take, scored from features of the
move, the question and the reads so far, with weights fit on the training corpus by the oracle teacher
(``python -m benchmarks.train_ranker --write``), never on an evaluation split.

:func:`move_features` describes a move in general terms: its kind; the kind crossed with the question's cue
classes, the output type, the step and the data's shape; what its key phrase is in the data (a record's key, a
whole value, how many records hold it, its rank among the question's phrases); whether its field is one the
question names; for a submit, whether the reads support it and the precision its support class showed
(:mod:`dspy_rlm.profiles.calibration`); and the question's words crossed with the move's kind, so the phrasings
that ask for a count or a ranking are *learned* from the training questions instead of listed by hand (the cue
lists of :mod:`dspy_rlm.profiles.vocabulary` are one feature among these). :class:`MoveRanker` is a linear
model over them (a logistic regression: weights in ``move_ranker.json``, scored with no dependency);
:class:`RankedMovePolicy` takes the best-scored move each step; the small policy uses the ranker to order and
cut the moves its model chooses among (:attr:`~dspy_rlm.profiles.Profile.ranked_moves`).
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.calibration import data_shape, load_calibration, support_class
from dspy_rlm.profiles.phrases import counted_nouns
from dspy_rlm.profiles.reads import parts
from dspy_rlm.profiles.state import save_state

if TYPE_CHECKING:
    from dspy_rlm.profiles.move import Move
    from dspy_rlm.profiles.moves import MoveBook

__all__ = ["RANKER_PATH", "MoveRanker", "load_ranker", "move_features", "question_terms", "step_state"]

RANKER_PATH = Path(__file__).with_name("move_ranker.json")


def _bucket(n: int, edges: tuple[int, ...] = (0, 1, 2, 3, 10, 50)) -> str:
    for e in edges:
        if n <= e:
            return str(e)
    return f">{edges[-1]}"


def question_terms(book: MoveBook) -> list[str]:
    """The question's words as features: case-folded, digits and the words of its key phrases left out (a key
    is data, not phrasing), each once, plus adjacent pairs ("how many", "most common")."""
    keyed = {w for ks in book.keys.values() for k in ks for w in st.words(k.text.casefold())}
    said = [w for w in st.words(book.text_q.casefold()) if not any(c.isdigit() for c in w)]
    plain = [w if w not in keyed else "_key_" for w in said]
    terms = {w for w in plain if w != "_key_"}
    terms |= {f"{a}_{b}" for a, b in itertools.pairwise(plain) if "_key_" not in (a, b)}
    return sorted(terms)


def _field_of(book: MoveBook, move: Move) -> str | None:
    names = set(book.structs[move.var].field_names) if move.var in book.structs else set()
    return next((a for a in move.args if isinstance(a, str) and a in names), None)


def step_state(book: MoveBook, moves: list[Move]) -> dict[str, Any]:
    """What every move of a step shares (computed once per step)."""
    memo = book.memo.get(("ranker-static",))
    if memo is None:
        shape = data_shape(book)
        totals = {str(len(x.records)) for x in book.structs.values() if x.records}
        memo = {
            "counted": counted_nouns(st.words(book.text_q.casefold())),
            "totals": totals,
            "terms": question_terms(book),
            "cues": sorted(book.cues) or ["none"],
            "type": getattr(book.answer_type, "__name__", "other"),
            "shape": shape,
            "kind": book.kind(),
            "keys": {var: [k.text for k in ks] for var, ks in book.keys.items()},
        }
        book.memo[("ranker-static",)] = memo
    supported = [m for m in moves if m.kind == "submit" and m.candidate is not None and m.candidate.supported]
    return {**memo, "reads": len(book.reads), "any_supported": bool(supported)}


def move_features(
    book: MoveBook, move: Move, moves: list[Move], state: dict[str, Any] | None = None
) -> dict[str, float]:
    """The features of ``move`` among this step's ``moves`` (binary ones at 1.0, a few numbers)."""
    s = state if state is not None else step_state(book, moves)
    k = move.kind
    f: dict[str, float] = {f"k={k}": 1.0, f"k={k}|reads={_bucket(s['reads'], (0, 1, 2))}": 1.0}
    f[f"k={k}|type={s['type']}"] = 1.0
    f[f"k={k}|shape={s['shape']}"] = 1.0
    f[f"k={k}|qkind={s['kind']}"] = 1.0
    f[f"k={k}|supported_offered={s['any_supported']}"] = 1.0
    for cue in s["cues"]:
        f[f"k={k}|cue={cue}"] = 1.0
    for term in s["terms"]:
        f[f"k={k}|w={term}"] = 1.0
    same = [m for m in moves if m.kind == k]
    f[f"k={k}|pos={_bucket(same.index(move) if move in same else 9, (0, 1, 2, 4))}"] = 1.0
    if k == "submit":
        c = move.candidate
        if c is not None:
            cls = support_class(c, book.answer_type, s["shape"])
            conf = load_calibration().confidence(cls) if c.supported else 0.0
            label = cls.split("|")[1]
            f[f"sub|supported={c.supported}"] = 1.0
            f[f"sub|label={label}|supported={c.supported}"] = 1.0
            f[f"sub|why={c.why}"] = 1.0
            f["sub|confidence"] = conf
            f[f"sub|reads={_bucket(s['reads'], (1, 2))}|supported={c.supported}"] = 1.0
            latest = next(reversed(book.reads.values()), []) if book.reads else []
            f[f"sub|latest={any(d.value == c.value for d in latest)}"] = 1.0
            f[f"sub|words={_bucket(len(str(c.value).split()), (1, 2, 4))}"] = 1.0
            if label == "count":  # a count of every record counted the records themselves, no condition
                f[f"sub|count_is_total={str(c.value) in s['totals']}"] = 1.0
        return f
    _, key = book.key_of(move)
    if key is not None:
        f[f"k={k}|key_is_key={key.is_key}"] = 1.0
        f[f"k={k}|key_is_value={key.is_value}"] = 1.0
        f[f"k={k}|key_records={_bucket(key.records)}"] = 1.0
        f[f"k={k}|key_words={_bucket(len(key.text.split()), (1, 2, 3))}"] = 1.0
        f[f"k={k}|key_inner={key.inner}"] = 1.0
        counted = bool(s["counted"]) and set(st.words(key.text.casefold())) <= s["counted"]
        f[f"k={k}|key_counted_noun={counted}"] = 1.0  # "how many time zones ...": what is counted, not a condition
        f[f"k={k}|key_beyond={key.beyond}"] = 1.0
        most = max((k2.records for k2 in book.keys.get(move.var, [])), default=0)
        f[f"k={k}|key_most_records={key.records == most}"] = 1.0
        ranks = s["keys"].get(move.var, [])
        f[f"k={k}|key_rank={_bucket(ranks.index(key.text) if key.text in ranks else 9, (0, 1, 2))}"] = 1.0
    name = _field_of(book, move)
    if name is not None:
        named = book.fields.get(move.var, [])
        said = book.named_fields(move.var)
        rank = named.index(name) if name in named else None
        f[f"k={k}|field_rank={'-' if rank is None else _bucket(rank, (0, 1))}"] = 1.0
        f[f"k={k}|field_said={name in said}"] = 1.0
        whole = bool(parts(name)) and all(st.stem(p) in book.q_stems for p in parts(name))
        f[f"k={k}|field_whole={whole}"] = 1.0
    return f


@dataclass(frozen=True)
class MoveRanker:
    """A linear score over :func:`move_features` (a logistic regression's weights).

    Attributes:
        weights: Feature name -> weight; a feature not listed weighs nothing.
        bias: The intercept.
        meta: How it was fit (data, command, seed, scores).
    """

    weights: dict[str, float]
    bias: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    def score(self, book: MoveBook, moves: list[Move]) -> list[float]:
        """Each move's probability of being a move the oracle takes from here."""
        state = step_state(book, moves)
        out = []
        for move in moves:
            z = self.bias + sum(
                v * self.weights.get(n, 0.0) for n, v in move_features(book, move, moves, state).items()
            )
            out.append(1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))))
        return out

    def rank(self, book: MoveBook, moves: list[Move]) -> list[Move]:
        """``moves``, best first (ties keep the offered order)."""
        scores = self.score(book, moves)
        order = sorted(range(len(moves)), key=lambda i: (-scores[i], i))
        return [moves[i] for i in order]

    def to_dict(self) -> dict[str, Any]:
        return {"bias": self.bias, "weights": self.weights, "meta": self.meta}

    def save(self, path: str | Path) -> None:
        """Write to ``path`` (:func:`save_state`)."""
        save_state(path, self.to_dict())


@lru_cache(maxsize=4)
def load_ranker(path: str = str(RANKER_PATH)) -> MoveRanker | None:
    """The shipped ranker (``None`` when the package ships none or the file does not parse)."""
    file = Path(path)
    try:
        state = json.loads(file.read_text())
        return MoveRanker(
            {str(n): float(w) for n, w in state["weights"].items()},
            float(state.get("bias", 0.0)),
            state.get("meta", {}),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
