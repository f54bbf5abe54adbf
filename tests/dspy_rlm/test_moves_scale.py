"""Past the structure parser's cap (issue 28, item 8): a phrase found only in the unparsed tail of a huge text
is still offered, as a search (which streams over the whole text), and the run reads the answer there."""

from __future__ import annotations

import dspy
from dspy.utils import DummyLM

from dspy_rlm import RLM
from dspy_rlm.library import structure
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.scripted import ScriptedMovePolicy


def _log(lines: int, needle_at: int) -> str:
    rows = [f"2024-05-17 10:{i // 60 % 60:02d}:{i % 60:02d} INFO worker-{i % 7}: queue depth {i}" for i in range(lines)]
    rows[needle_at] = "2024-05-17 14:02:51 ERROR mailer: job calm-island failed, opened incident INC-3820"
    return "\n".join(rows)


def test_a_phrase_past_the_parse_cap_is_offered_as_a_search(monkeypatch):
    monkeypatch.setattr(structure, "MAX_PARSE_CHARS", 200_000)
    text = _log(30_000, 29_000)  # about 1.8 MB; the needle 1.7 MB in
    question = "Which incident was opened when job calm-island failed?"
    book = MoveBook({"question": question}, {"context": text}, {"answer": str})
    assert book.structs["context"].parsed_chars is not None
    codes = [m.code for m in book.read_moves()]
    assert "print(search(context, 'calm-island', ignore_case=True))" in codes
    assert not any("record_of(context, 'calm-island')" in c for c in codes)
    with dspy.context(lm=DummyLM([{"answer": "unknown"}] * 10)):
        pred = RLM("context, question -> answer", policy=ScriptedMovePolicy(), max_iters=4)(
            context=text, question=question
        )
    assert pred.answer == "INC-3820"
    assert pred.rlm_result.kind in ("submitted", "extracted") and pred.rlm_result.confidence > 0.25
