"""Shapes the thirty-third probe read wrong, each made up here: a table whose rows open with a type code then
the entry's name (systemd's sysusers.d: ``g adm   4   -``), a one-character value the question quotes ('g'),
a ranking among the records holding a quoted value, and a second step by what the first record names (an alias:
SIGCLD is SIGCHLD). Each positive test fails before its change; each guard fails without its check."""

from __future__ import annotations

import dspy
from dspy.utils import DummyLM

from dspy_rlm import RLM
from dspy_rlm.library import structure as st
from dspy_rlm.library import superlatives
from dspy_rlm.profiles.scripted import ScriptedMovePolicy
from tests.dspy_rlm.scripted import ask_scripted

_ROSTER = """# made-up accounts, generated
g wheelers    7     -
g pumpers     9     -
g riggers     31    -
g fitters     12    -
g haulers     44    -
u captain     3       - /home/captain      /bin/sh
u mate        5:9     - /home/mate         /bin/sh
u cook        40:44   - /home/cook         /usr/sbin/nologin
"""

_ALIASES = """#define SIGNAL_A\t4\t/* first */
#define SIGNAL_B\t6\t/* second */
#define SIGNAL_C\t11\t/* third */
#define SIGNAL_OLD\tSIGNAL_C\t/* the old name */
#define SIGNAL_D\t15\t/* fourth */
"""


def test_a_type_code_opening_each_row_is_a_column_and_the_name_is_the_key():
    s = st.detect(_ROSTER)
    first, last = s.records[0], s.records[-1]
    assert (first.key, first.get("col1"), first.get("col3")) == ("wheelers", "g", "7")
    assert (last.key, last.get("col1"), last.get("col5")) == ("cook", "u", "/home/cook")


def test_a_reverse_lookup_in_a_type_coded_table_gives_the_name_alone():
    assert ask_scripted("Which group is assigned GID 44 in this file?", _ROSTER) == ("haulers", "submitted")


def test_a_one_character_value_the_question_quotes_is_counted():
    q = "How many group entries (lines of type 'g') are declared here?"
    assert ask_scripted(q, _ROSTER, "int") == (5, "submitted")


def test_records_within_a_value_some_records_hold_whole():
    within = superlatives.records_within(st.detect(_ROSTER), "u")
    assert [r.key for r in within] == ["captain", "mate", "cook"]


def test_a_ranking_among_the_records_holding_a_quoted_value_ranks_them_alone():
    q = "Among the groups declared on 'g' lines, which one has the lowest GID?"
    assert ask_scripted(q, _ROSTER) == ("wheelers", "submitted")  # not captain (3), a 'u' line


def test_a_ranking_over_every_record_of_a_type_coded_table():
    q = "Of all the entries, which one has the lowest number in the third column?"
    assert ask_scripted(q, _ROSTER)[0] == "captain"  # no line type named: every record is ranked


def test_a_second_step_reads_the_record_the_first_records_value_names():
    q = "SIGNAL_OLD is defined as an alias of another signal. What number does that other signal have?"
    assert ask_scripted(q, _ALIASES, "int")[0] == 11  # not 4: the first record holding "signal"


def test_a_calibrated_submit_says_what_backs_it():
    with dspy.context(lm=DummyLM([{"answer": "0"}] * 10)):
        pred = RLM("context, question -> answer: int", policy=ScriptedMovePolicy(), max_iters=4)(
            context=_ROSTER, question="What GID does this file give the riggers group?"
        )
    assert pred.answer == 31 and pred.rlm_result.kind == "submitted"
    assert pred.rlm_result.notes.startswith("supported: int|")
