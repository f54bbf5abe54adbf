"""A count that states no condition ("how many packages are listed?") counts every record: ``count_records(V)``
with no word, offered only where the question's other words name the records as a whole. The model had peeked
and then written a 19-digit number."""

from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM

from dspy_rlm import RLM
from dspy_rlm.library import lookup, structure, tail
from dspy_rlm.profiles.conditions import counts_every_record
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.scripted import ScriptedMovePolicy

MODELS = "name,type,status\n" + "\n".join(
    f"m{i},{['model', 'dataset', 'tool'][i % 3]},{'active' if i % 4 else 'down'}" for i in range(1, 14)
)
PACKAGES = "\n\n".join(f"Package: pkg{i}\nVersion: 1.{i}\nMaintainer: Team {i % 3}\nEssential: no" for i in range(9))


def _counts_all(question: str, text: str) -> bool:
    return counts_every_record(MoveBook({"question": question}, {"context": text}, {"answer": int}), "context")


@pytest.mark.parametrize(
    ("question", "text", "every"),
    [
        ("How many records does the file have?", MODELS, True),
        ("How many rows are there in total?", MODELS, True),
        ("Count the entries in this file.", MODELS, True),
        ("How many packages are listed?", PACKAGES, True),  # the noun names the records' key field
        ("How many models are listed?", MODELS, False),  # some records' type is model: which count is meant?
        ("How many hosts are down?", MODELS, False),  # a stop word that is a value states a condition
        ("How many maintainers are there?", PACKAGES, False),  # a field's values: distinct ones, not records
        ("How many lines does the file have?", MODELS, False),  # a unit of the text
        ("How many packages are not listed?", PACKAGES, False),  # a negation no read applies
        ("How many packages have version 1.2?", PACKAGES, False),  # a condition
    ],
)
def test_only_a_count_with_no_condition_counts_every_record(question, text, every):
    assert _counts_all(question, text) is every


def test_the_scripted_rules_count_every_record():
    with dspy.context(lm=DummyLM([{"answer": "0"}] * 10)):
        pred = RLM("context, question -> answer: int", policy=ScriptedMovePolicy(), max_iters=4)(
            context=PACKAGES, question="How many packages are listed?"
        )
    assert pred.answer == 9 and pred.rlm_result.kind == "submitted"
    assert pred.trajectory[0]["code"] == "print(count_records(context))"


def test_count_records_without_a_word_counts_past_the_parse_cap_and_says_it_does_not_stream(monkeypatch):
    monkeypatch.setattr(structure, "MAX_PARSE_CHARS", 20_000)
    text = "# hosts\n" + "\n".join(f"host{i} 10.0.{i // 250}.{i % 250} up" for i in range(3000)) + "\n"
    assert structure.detect(text).parsed_chars is not None
    assert lookup.count_records(text) == 3000
    assert lookup.count_records(MODELS) == 13
    assert not tail.reads_whole(text, "count_records", ())  # a best-effort line count: it supports nothing
    assert tail.reads_whole(text, "count_records", ("up",))


def test_a_flag_field_the_question_names_counts_the_records_where_it_holds():
    flagged = "\n\n".join(
        f"Package: pkg{i}\nVersion: 1.{i}" + ("\nEssential: yes" if i % 3 == 0 else "") for i in range(12)
    )
    for question in ("How many packages are essential?", "How many essential packages are there?"):
        with dspy.context(lm=DummyLM([{"answer": "0"}] * 10)):
            pred = RLM("context, question -> answer: int", policy=ScriptedMovePolicy(), max_iters=4)(
                context=flagged, question=question
            )
        assert (pred.answer, pred.rlm_result.kind) == (4, "submitted"), question
    assert not _counts_all("How many essential packages are there?", flagged)  # a field named: no count of all
    with dspy.context(lm=DummyLM([{"answer": "0"}] * 10)):
        pred = RLM("context, question -> answer: int", policy=ScriptedMovePolicy(), max_iters=4)(
            context=flagged, question="How many packages are not essential?"
        )
    assert pred.rlm_result.kind != "submitted"  # a negation no read applies


def test_a_count_of_one_condition_is_no_answer_where_the_question_states_two():
    flagged = "\n\n".join(
        f"Package: pkg{i}\nPriority: {'required' if i % 2 else 'optional'}" + ("\nEssential: yes" if i % 3 == 0 else "")
        for i in range(12)
    )

    def ask(question: str) -> tuple:
        with dspy.context(lm=DummyLM([{"answer": "0"}] * 10)):
            pred = RLM("context, question -> answer: int", policy=ScriptedMovePolicy(), max_iters=4)(
                context=flagged, question=question
            )
        return pred.answer, pred.rlm_result.kind

    assert ask("How many packages have priority required?") == (6, "submitted")
    assert ask("How many packages are essential and required?")[1] != "submitted"  # 2 are both; one read: 6 or 4
