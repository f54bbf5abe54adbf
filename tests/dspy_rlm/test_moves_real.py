"""The embedded model on the small policy's grounded moves, one case per move kind, on small documents written
for these tests (not the needles templates, not the real-files benchmark): the answer is asserted, and
whether the run vouched for it (Submitted) or labelled it a guess (Extracted)."""

from __future__ import annotations

import dspy
import pytest

pytestmark = pytest.mark.real_model

STANZAS = "\n\n".join(
    f"Name: {name}\nOwner: {owner}\nColor: {color}\nWeight: {weight}\nHabitat: {habitat}"
    for name, owner, color, weight, habitat in [
        ("amber-falcon", "Ines Moreau", "red", "1,250", "Coastal cliffs of Zürich-7"),
        ("brisk-heron", "Tom Okafor", "blue", "830", "Wetlands"),
        ("calm-otter", "Ines Moreau", "green", "2,410", "River banks"),
        ("dusky-lynx", "Ana Ruiz", "blue", "1,975", "Pine forest"),
        ("eager-wren", "Tom Okafor", "blue", "120", "Hedgerows"),
    ]
)


@pytest.fixture(scope="module")
def lm():
    from dspy_outlines import OutlinesLM

    return OutlinesLM(max_tokens=96)


def ask(lm, question: str, answer_type: str = "str"):
    from dspy_rlm import RLM

    with dspy.context(lm=lm):
        return RLM(f"context, question -> answer: {answer_type}", max_iters=4)(context=STANZAS, question=question)


@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    "question, answer_type, gold",
    [
        ("Who is the owner of dusky-lynx?", "str", "Ana Ruiz"),  # a multi-word field value
        ("What is the habitat of amber-falcon?", "str", "Coastal cliffs of Zürich-7"),  # non-ASCII, a later line
        ("What is the weight of calm-otter?", "int", 2410),  # a number as printed, normalized for int
        ("Is there an entry named frosty-owl?", "bool", False),  # existence
    ],
)
def test_the_embedded_model_answers_each_kind(lm, question, answer_type, gold):
    pred = ask(lm, question, answer_type)
    assert pred.answer == gold, pred.trajectory
    assert pred.result.kind in ("submitted", "extracted"), pred.result  # extracted: labelled a guess


@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    "question, gold",
    [
        ("Which bird has the largest weight?", "calm-otter"),  # ranking: the record's key, over a numeric field
        ("Which bird has the smallest weight?", "eager-wren"),
        ("What is the most common color?", "blue"),  # most common: over a field whose values repeat
    ],
)
def test_the_embedded_model_ranks_and_vouches_for_it(lm, question, gold):
    pred = ask(lm, question)
    assert pred.answer == gold, pred.trajectory
    assert pred.result.kind == "submitted", pred.result  # the field ranked is the one the question names


@pytest.mark.timeout(600)
def test_a_ranking_asked_as_a_number_gives_the_ranked_value(lm):
    """Asked as an ``int``, the largest weight is the ranked value (as printed, normalized), not the bird."""
    pred = ask(lm, "Which weight is the largest one?", "int")
    assert pred.answer == 2410, pred.trajectory
    assert pred.result.kind == "submitted"
