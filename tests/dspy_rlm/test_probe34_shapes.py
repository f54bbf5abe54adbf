"""Shapes the thirty-fourth probe read wrong, each made up here: what an acronym stands for (the words whose
initials spell it, not the definition they open), a yes/no setting named without its ``Is`` (``IsRoundHull``: "is
it declared as a round-hull boat?"), a count of the records setting a flag the question writes as ``name: value``,
and the unit an answer is asked in ("in seconds"). Each positive test fails before its change; each guard fails
without its check."""

from __future__ import annotations

from dspy_rlm.profiles.initials import spelled_run
from dspy_rlm.profiles.spans import without_container
from tests.dspy_rlm.scripted import ask_scripted

_GLOSSARY = """# Made-up glossary of the harbour crew

* **ABC**: Always Be Coiling - keep every line coiled when it is not in use.
* **FOTD**: Fender Of The Day - the fender chosen to take the first bump of a mooring.
* **OK**: all is well.
* **SLW**: a short line watch, kept by one hand at night.
"""

_HULL = """# made-up hull metrics
HullName = Wavecutter Deluxe
FamilyName = Wavecutter
Weight = Heavy
IsRoundHull = true
IsKeeled = false
Length = 412
Beam = 96
Draft = 31
"""

_DOCKS = """- berth: pier1.a
  sheltered: True
- berth: pier1.b
  sheltered: False
- berth: pier2.a
  sheltered: True
- berth: pier2.b
- berth: pier3.a
  sheltered: True
- berth: pier3.b
  sheltered: False
"""

_SAMPLE = """# Configuration of the made-up tide gauge.
#
# The gauge reads the water level each few seconds.
# sample_interval = 30
#
# Readings further apart than the gap are flagged.
# The gap is counted in seconds from the last reading;
# a gap of zero turns the check off, and a gap must
# stay below one hour (3600 seconds).
# gap = 90
"""


def test_the_words_whose_initials_spell_an_acronym():
    assert spelled_run("FOTD", "Fender Of The Day - the fender chosen") == "Fender Of The Day"
    assert spelled_run("EPUB", "Electronic PUBlication") == "Electronic PUBlication"
    assert spelled_run("IEEE", "the Institute of Electrical and Electronics Engineers") == (
        "Institute of Electrical and Electronics Engineers"
    )
    assert spelled_run("FOTD", "FOTD is the fender") is None  # the acronym itself is no expansion
    assert spelled_run("ok", "Oscar Kilo") is None  # no capitals: no acronym


def test_what_an_acronym_stands_for_is_its_expansion_not_its_definition():
    assert ask_scripted("What does FOTD stand for?", _GLOSSARY) == ("Fender Of The Day", "submitted")


def test_without_asking_what_it_stands_for_the_definition_stays_whole():
    answer, _ = ask_scripted("What is FOTD?", _GLOSSARY)
    assert answer.startswith("Fender Of The Day - the fender")


def test_a_yes_no_setting_named_without_its_is_answers_by_its_flag():
    q = "Is the Wavecutter Deluxe declared as a round-hull boat?"
    assert ask_scripted(q, _HULL, "bool") == (True, "submitted")
    q = "Is the Wavecutter Deluxe declared as a round hull boat?"  # said in two words apart
    assert ask_scripted(q, _HULL, "bool") == (True, "submitted")


def test_a_count_of_the_records_setting_a_flag_written_name_value():
    q = "How many berths set sheltered: True?"
    assert ask_scripted(q, _DOCKS, "int") == (3, "submitted")


def test_the_unit_an_answer_is_asked_in_is_no_key():
    q = "What is the default gap in this tide gauge config, in seconds?"
    assert ask_scripted(q, _SAMPLE, "int")[0] == 90


def test_the_document_as_the_subject_of_a_verb_names_no_field():
    asked = without_container("Which command does the hoist manual rate as High impact?", {"manual", "impact"})
    assert "manual" not in asked and "hoist" not in asked
    assert "impact" in without_container("Which command does the hoist manual rate as High impact?", {"impact"})
    kept = without_container("Which manual section does the hoist page belong to?", {"manual section"})
    assert "manual" in kept  # no document noun as the subject of a verb: the field is named
