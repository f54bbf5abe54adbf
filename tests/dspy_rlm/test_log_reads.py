"""A log reads as a table with no header (``col1`` .. ``colN``): its first column, a date most lines share, names
no record, and the last column is the line's message, whose parts the question asks for ("which incident was
opened": the word after "incident"). Before, the date was offered as a supported reverse lookup and the message
only whole."""

from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM

from dspy_rlm import RLM
from dspy_rlm.profiles.kinds import evaluate
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.reads import keys_identify
from dspy_rlm.profiles.scripted import ScriptedMovePolicy

ROWS = [f"2024-05-17 10:{i // 60 % 60:02d}:{i % 60:02d} INFO worker-{i % 7}: queue depth {i}" for i in range(300)]
ROWS[200] = "2024-05-17 14:02:51 ERROR mailer: job calm-island failed, opened incident INC-3820"
LOG = "\n".join(ROWS)


def _scripted(question: str, text: str = LOG) -> dspy.Prediction:
    with dspy.context(lm=DummyLM([{"answer": "unknown"}] * 10)):
        return RLM("context, question -> answer", policy=ScriptedMovePolicy(), max_iters=4)(
            context=text, question=question
        )


def test_a_shared_date_is_no_record_key_and_a_message_part_is_supported():
    book = MoveBook({"question": "Which incident was opened when job calm-island failed?"}, {"context": LOG}, {})
    assert not keys_identify(book, "context")
    record = next(m for m in book.read_moves() if m.code == "print(record_of(context, 'calm-island'))")
    found = {(c.value, c.supported) for c in evaluate(book, record, "")}
    assert ("INC-3820", True) in found and ("2024-05-17", True) not in found
    assert not any(m.kind == "key_of" for m in book.read_moves())


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Which incident was opened when job calm-island failed?", "INC-3820"),
        ("What incident ID did the ERROR line open?", "INC-3820"),
        ("What was the queue depth at 10:03:17?", "197"),
    ],
)
def test_the_scripted_policy_reads_a_part_of_a_log_message(question, answer):
    pred = _scripted(question)
    result = pred.rlm_result  # Submitted, or Extracted where this support falls below the calibrated threshold
    assert pred.answer == answer and (result.kind == "submitted" or "calibrated threshold" in result.reason)
    assert result.confidence > 0.5  # a supported read, far above an unsupported guess


def test_a_question_the_message_does_not_answer_is_not_vouched_for():
    pred = _scripted("At what time did job calm-island fail?")
    assert pred.answer == "14:02:51" or pred.rlm_result.confidence < 0.5  # never the shared date, vouched for


def test_a_table_keyed_by_distinct_names_keeps_its_reverse_lookup():
    text = "\n".join(f"svc{i}\t{1000 + i}/tcp\t# service number {i}" for i in range(30))
    book = MoveBook({"question": "Which service uses 1007/tcp?"}, {"context": text}, {})
    assert keys_identify(book, "context")
    assert any(m.kind == "key_of" for m in book.read_moves())
    pred = _scripted("Which service uses 1007/tcp?", text)
    assert pred.answer == "svc7"


@pytest.mark.real_model
@pytest.mark.timeout(600)
def test_the_embedded_model_reads_an_incident_from_a_log_or_does_not_vouch():
    from dspy_outlines import OutlinesLM

    with dspy.context(lm=OutlinesLM(max_tokens=96)):
        pred = RLM("context, question -> answer", max_iters=4)(
            context=LOG, question="Which incident was opened when job calm-island failed?"
        )
    assert (pred.rlm_result.kind == "submitted" and pred.answer == "INC-3820") or pred.rlm_result.confidence < 0.5
    assert pred.answer != "2024-05-17" or pred.rlm_result.confidence < 0.5
