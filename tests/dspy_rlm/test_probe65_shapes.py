"""Shapes from probe 65's first run (two wrong Submitted answers and the reads they lead to), on invented data: a
release heading whose date is the line under it ("What's New in Widget 3.4?" / "===" / "*Release date:
07-MAR-2019*") is a dated release, its version the key; two headings of one version ("0.9 Alpha 1", "0.9 Alpha 2")
keep their whole names apart; a yes/no saying of a named record words the data holds nowhere ("does the 2.0
section give an *actual* day?") is not answered by that record's being there; a phrase every record holds (the
block's name, "which of the example *relays*") names no record. Each test fails on the code before its change."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from tests.dspy_rlm.scripted import ask_scripted

NEWS = """What's New in Widget 2.0? (Merged into the 3 line later.)
=======================
*Release date: XX-XXX-2012*

- The parser was rewritten for speed.

- Colour themes can be loaded from a file.

What's New in Widget 3.4?
=========================
*Release date: 07-MAR-2019*

- Tab completion handles quoted paths.

- The status bar shows the column.

What's New in Widget 3.3?
=========================
*Release date: 21-Jan-2018*, folded into the 3.4 notes above

- Undo keeps the selection.

What's New in Gadget 0.9 Alpha 2?
=================================
*Release date: 14-FEB-2016*

- Remote calls use a socket pair.

What's New in Gadget 0.9 Alpha 1?
=================================
*Release date: 02-Dec-2015*

- First public release.
"""


def test_a_date_under_a_release_heading_dates_it():
    found = st.detect(NEWS)
    dates = {r.key: r.get("date") for r in found.records}
    assert dates.get("3.4") == "07-MAR-2019" and dates.get("3.3") == "21-Jan-2018"  # read as prose before


def test_a_release_is_found_by_the_date_the_question_gives():
    answer, ending = ask_scripted("Which Widget release in the old notes came out on 7 March 2019?", NEWS)
    assert (answer, ending) == ("3.4", "submitted")  # a guess from prose before (the real file's date was Submitted)


def test_two_headings_of_one_version_keep_their_whole_names():
    keys = [r.key for r in st.detect(NEWS).records]
    assert len(keys) == len(set(keys)) and any("Alpha 2" in k for k in keys)


def test_a_named_records_being_there_answers_no_statement_in_words_the_data_lacks():
    answer, ending = ask_scripted(
        "Does the Widget 2.0 section of the notes give an actual day and month for its release?", NEWS, "bool"
    )
    assert not (ending == "submitted" and answer is True)  # exists('2.0'), once 2.0 is a record, was Submitted
    # (fails with the date-line parse and without existence._said_of_key)


RELAYS = """# Example relay settings
relays:
  - relay_name: "north-direct"
    params:
      relay: acme_relays
      target_id: "sensor-a"
      use_direct_server: true   # true for a direct server, false for the hub
  - relay_name: "south-hub"
    params:
      relay: acme_relays
      target_id: "sensor-a"
      use_direct_server: false  # talk to the hub instead of a direct server
  - relay_name: "east-direct"
    params:
      relay: acme_relays
      target_id: "sensor-b"
      use_direct_server: true
"""


def test_a_phrase_every_record_holds_names_no_record():
    answer, ending = ask_scripted("Which of the example relays talks to the hub rather than a direct server?", RELAYS)
    assert ending != "submitted" or answer == "south-hub"  # sensor-a, the first record's target_id, before


GUARDS = """guards:
  - guard_name: "north-watch"
    params:
      guard: acme_guards
      threshold: 0.8
  - guard_name: "south-watch"
    params:
      guard: acme_guards
      threshold: 0.7
  - guard_name: "east-watch"
    params:
      guard: acme_guards
      threshold: 0.5
"""


def test_a_ranking_asked_by_the_blocks_noun_answers_the_record():
    answer, _ = ask_scripted("In the example config, which guard uses the lowest threshold?", GUARDS)
    assert answer == "east-watch"  # the winner's 'guard' field, acme_guards, was given before


MODES = """guards:
  - guard_name: "north-watch"
    params:
      guard: acme_guards
      mode: post_check
  - guard_name: "south-watch"
    params:
      guard: acme_guards
      mode: pre_check
  - guard_name: "east-watch"
    params:
      guard: acme_guards
      mode: pre_check
"""


def test_a_field_read_by_a_phrase_every_record_holds_is_no_answer_where_they_differ():
    _, ending = ask_scripted("What mode is set for the acme_guards?", MODES)
    assert ending != "submitted"  # the first record's post_check was Submitted: every record holds acme_guards


def test_what_most_of_the_records_do_is_the_most_common_value():
    answer, ending = ask_scripted("Which mode do most of the guards in the example config run in?", MODES)
    assert (answer, ending) == ("pre_check", "submitted")  # the first record's post_check was Submitted before
