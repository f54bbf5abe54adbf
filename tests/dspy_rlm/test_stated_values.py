"""A yes/no question states more than a key: "Did job green_hill fail?" names a job *and* a value its record must
hold. The answer was the key's existence (True, Submitted, wrong); now a record holding the key must also hold
each other word of the question that is some record's whole value. And an identifier the data spells another
way (``quiet_lagoon`` for ``quiet-lagoon``, ``INC4821`` for ``INC-4821``) is read as that spelling, never
"absent, so no"."""

from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM

from dspy_rlm import RLM
from dspy_rlm.profiles.id_spellings import near_spelled, spelled_as
from dspy_rlm.profiles.scripted import ScriptedMovePolicy

JOBS = [("amber_river", "ok"), ("quiet_lagoon", "failed"), ("calm_island", "ok"), ("green_hill", "ok")]
LOG = "\n".join(f"2026-03-0{1 + i % 9} 10:{i:02d}:00 job {name} {state}" for i, (name, state) in enumerate(JOBS * 6))


def _ask(question: str, context: str = LOG) -> dspy.Prediction:
    with dspy.context(lm=DummyLM([{"answer": "False"}] * 10)):
        return RLM("context, question -> answer: bool", policy=ScriptedMovePolicy(), max_iters=4)(
            context=context, question=question
        )


def test_spellings_of_an_identifier():
    text = "job quiet_lagoon failed\nINC4821 opened\npython 3.11 installed\nday 2024-01-07\n3, 12\n"
    assert spelled_as(text, "quiet-lagoon") == "quiet_lagoon"
    assert spelled_as(text, "inc-4821") == "INC4821"
    assert spelled_as(text, "3.11.2") is None and near_spelled(text, "3.11.2")  # a version cut short
    assert not near_spelled(text, "2024-01-05")  # a date's month is not the date
    assert not near_spelled(text, "3.12")  # "3, 12" is no spelling of a number
    assert not near_spelled(text, "quiet-lagoons") and not near_spelled(text, "INC-482")
    assert not near_spelled("pL/QlwVKvOoYKAKQv+R4CSFx09F9HdkWsKlhPdAKACL8x3vLCWRF\n", "X3")  # base64 spells anything
    assert spelled_as("runs python3.11 now", "3.11.4") is None and near_spelled("runs python3.11 now", "3.11.4")


@pytest.mark.parametrize(
    "question, answer",
    [
        ("Did job green_hill fail?", False),  # listed, and its record says ok where others say failed
        ("Did job quiet_lagoon fail?", True),
        ("Is job green_hill ok?", True),
        ("Is job quiet_lagoon ok?", False),
        ("Is there a job named green_hill?", True),  # nothing stated beside the name
        ("Did job quiet-lagoon fail?", True),  # spelled with "_" in the log
        ("Did job silent-meadow fail?", False),  # absent however it is spelled
    ],
)
def test_a_yes_no_reads_what_the_question_states_of_the_record(question, answer):
    pred = _ask(question)
    assert (pred.answer, pred.rlm_result.kind) == (answer, "submitted")


def test_a_stated_value_the_record_leaves_empty_is_not_vouched_for():
    table = "job,status,owner\n" + "\n".join(f"{n},{'' if n == 'green_hill' else s},ops" for n, s in JOBS * 3)
    pred = _ask("Did job green_hill fail?", table)
    assert pred.rlm_result.kind != "submitted" or pred.answer is False


def test_an_absent_identifier_spelled_as_a_version_cut_short_is_no_no():
    table = "tool,version\n" + "\n".join(f"tool{i},1.{i}" for i in range(20)) + "\npython,3.11\n"
    pred = _ask("Is version 3.11.2 listed?", table)
    assert not (pred.rlm_result.kind == "submitted" and pred.answer is False)


@pytest.mark.real_model
@pytest.mark.timeout(600)
def test_the_embedded_model_does_not_vouch_for_a_job_that_did_not_fail():
    from dspy_outlines import OutlinesLM

    with dspy.context(lm=OutlinesLM(max_tokens=96)):
        pred = RLM("context, question -> answer: bool", max_iters=4)(context=LOG, question="Did job green_hill fail?")
    assert pred.answer is False or pred.rlm_result.kind != "submitted"


STANZAS = "\n\n".join(
    f"Package: {name}\n" + ("Essential: yes\n" if i % 3 == 0 else "") + f"Architecture: {'all' if i % 2 else 'amd64'}"
    f"\nVersion: 1.{i}"
    for i, name in enumerate(["bash", "apt", "tar", "gzip", "sed", "grep", "less", "nano"])
)


def test_a_stop_word_value_and_a_field_the_record_lacks():
    # "all" is an English stop word, and here the whole Architecture of half the packages
    pred = _ask("Is the architecture of bash all?", STANZAS)
    assert (pred.answer, pred.rlm_result.kind) == (False, "submitted")
    pred = _ask("Is the architecture of apt all?", STANZAS)
    assert (pred.answer, pred.rlm_result.kind) == (True, "submitted")
    # apt's stanza has no Essential field at all: listed, yet no "yes" is vouched for
    pred = _ask("Is apt an essential package?", STANZAS)
    assert not (pred.rlm_result.kind == "submitted" and pred.answer is True)
    pred = _ask("Is the version of tar 1.2? Answer yes or no.", STANZAS)  # "yes", "no": words of the answer
    assert (pred.answer, pred.rlm_result.kind) == (True, "submitted")


OS_RELEASE = (
    'NAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\nID=debian\nHOME_URL="https://x.org/"\n'
)


def test_a_value_the_data_never_says_vouches_for_no_yes():
    pred = _ask("Is the ID ubuntu?", OS_RELEASE)  # ID is there; ubuntu is nowhere in the data
    assert not (pred.rlm_result.kind == "submitted" and pred.answer is True)
    pred = _ask("Is the ID debian?", OS_RELEASE)
    assert (pred.answer, pred.rlm_result.kind) == (True, "submitted")


PRICES = "# Data source: a made-up feed\nDate,IBM,AAPL,^GSPC\n" + "\n".join(
    f"2000-0{m}-01,{100 + m}.5,0.{m}9,{1400 + m}.25" for m in range(1, 10)
)


def test_a_header_after_a_comment_and_a_test_the_question_states():
    from dspy_rlm.library import structure as st

    assert st.detect(PRICES).field_names == ("Date", "IBM", "AAPL", "^GSPC")  # ^GSPC: a header cell
    pred = _ask("Was AAPL above 1 on 2000-03-01?", PRICES)  # no read compares: no yes vouched for
    assert not (pred.rlm_result.kind == "submitted" and pred.answer is True)


LANGS = "\n".join(
    ["["]
    + [
        f'  {{"alpha_2": "{a}", "alpha_3": "{b}", "name": "{n}"}},'
        for a, b, n in [("it", "ita", "Italian"), ("de", "deu", "German"), ("fr", "fra", "French")]
    ]
    + [
        f'  {{"alpha_3": "{b}", "name": "{n}", "successor_model": "x"}},'
        for b, n in [("tlh", "Klingon"), ("jbo", "Lojban")]
    ]
    + ['  {"alpha_3": "kon", "name": "Kongo"}', "]"]
)


def test_a_pronoun_a_classifying_noun_and_part_of_a_field_name_state_nothing():
    # "it" is Italian's alpha_2 here, yet "is it in the file?" asks about tlh; "model" is one word of the field
    # successor_model, not the field
    for question in ("The language tlh - is it in the file?", "Is there a model called tlh?"):
        pred = _ask(question, LANGS)
        assert (pred.answer, pred.rlm_result.kind) == (True, "submitted"), question
