"""A negation or a test no read applies ("how many packages do *not* have priority optional", "a UID of 100 *or
more*") vouches for nothing a read produced: count_where counted the packages that *do* (666 of 737) and the run
ended Submitted, wrong. The run now ends Extracted; the same question without the negation is still Submitted."""

from __future__ import annotations

import json

import dspy
import pytest
from dspy.utils import DummyLM

from dspy_rlm import RLM
from dspy_rlm.profiles.conditions import unread_test
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.scripted import ScriptedMovePolicy

STANZAS = "\n\n".join(
    f"Package: pkg{i}\nPriority: {'optional' if i % 4 else 'required'}\nInstalled-Size: {100 * i}" for i in range(1, 41)
)
ROWS = "name,state\n" + "\n".join(f"opt{i},{'not set' if i % 3 == 0 else 'set'}" for i in range(1, 31))


def _ask(question: str, context: str = STANZAS) -> dspy.Prediction:
    with dspy.context(lm=DummyLM([{"answer": "0"}] * 10)):
        return RLM("context, question -> answer: int", policy=ScriptedMovePolicy(), max_iters=4)(
            context=context, question=question
        )


def test_the_question_without_a_negation_is_submitted():
    pred = _ask("How many packages have priority optional?")
    assert (pred.answer, pred.rlm_result.kind) == (30, "submitted")


@pytest.mark.parametrize(
    "question",
    [
        "How many packages do not have priority optional?",
        "How many packages don't have priority optional?",
        "Count the packages with a priority other than optional.",
        "How many packages have an installed size of 3000 or more?",
    ],
)
def test_a_negation_or_an_unread_test_ends_extracted(question):
    assert _ask(question).rlm_result.kind != "submitted"


def test_a_bound_after_at_least_is_applied_by_count_if():
    pred = _ask("How many packages have an installed size of at least 3000?")  # 3000 to 4000: 11 packages
    assert (pred.answer, pred.rlm_result.kind) == (11, "submitted")
    assert any("count_if(context, 'Installed-Size', '>=', '3000')" in s["code"] for s in pred.trajectory)


def test_a_negation_inside_a_key_phrase_is_the_value():
    book = MoveBook({"question": 'How many options are "not set"?'}, {"context": ROWS}, {"answer": int})
    assert unread_test(book) is None  # the quoted "not set" is a whole value of the data
    book = MoveBook({"question": "How many options are not set?"}, {"context": ROWS}, {"answer": int})
    assert unread_test(book) == "not"  # unquoted, "not" is no key's edge: set is counted, 30 where 10 are meant
    book = MoveBook({"question": "How many options are not opt3?"}, {"context": ROWS}, {"answer": int})
    assert unread_test(book) == "not"


DEPS = json.dumps(
    {
        "dependencies": [
            {"ref": f"registry+https://crates.io#crate{i}@1.{i}.0", "dependsOn": [f"registry+https://crates.io#c{i}"]}
            for i in range(12)
        ]
    },
    indent=2,
)


def test_a_named_field_no_word_of_the_question_names_is_no_answer():
    # a record of two named fields, one holding the key: "What version of crate3 is used?" is no question about
    # its dependsOn, which the two-field rule (meant for KEY=value and col1 col2) vouched for
    with dspy.context(lm=DummyLM([{"answer": "x"}] * 10)):
        pred = RLM("context, question -> answer: str", policy=ScriptedMovePolicy(), max_iters=4)(
            context=DEPS, question="What version of crate3 is used?"
        )
    assert pred.rlm_result.kind != "submitted"


PRICES = "Date,IBM,AAPL\n" + "\n".join(f"20{y:02d}-01-01,{[50, 90, 70, 60][y % 4]}.5,{y}.25" for y in range(1, 13))


def test_the_key_field_is_not_what_is_ranked_when_the_question_names_another():
    # max_of over the Date column (the records' key) gave the latest date, supported (the model chose it and
    # Submitted it); IBM is what the question ranks
    from dspy_rlm.profiles import kinds

    book = MoveBook({"question": "On which date was IBM's price the highest?"}, {"context": PRICES}, {"answer": str})
    by_move = {m.args[0]: m for m in book.read_moves() if m.helper == "max_of"}
    assert "IBM" in by_move  # a date is no number to rank (max_of would rank 2001-01-01 as 2001): not offered
    assert "Date" not in by_move or not any(c.supported for c in kinds.evaluate(book, by_move["Date"], ""))
    assert [c.value for c in kinds.evaluate(book, by_move["IBM"], "") if c.supported][:1] == ["2001-01-01"]
