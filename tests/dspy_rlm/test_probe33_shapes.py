"""Shapes the thirty-third probe read wrong, each made up here: a table whose rows open with a type code then
the entry's name (systemd's sysusers.d: ``g adm   4   -``), a one-character value the question quotes ('g'),
a ranking among the records holding a quoted value, and a second step by what the first record names (an alias:
SIGCLD is SIGCHLD). Each positive test fails before its change; each guard fails without its check."""

from __future__ import annotations

import dspy
from dspy.utils import DummyLM

from dspy_rlm import RLM
from dspy_rlm.library import items, superlatives
from dspy_rlm.library import structure as st
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


_RULES = """# Rules for joining pipes. Each entry names a joint and the sealant of each side.
- name: elbow(Pipe inner) -> Pipe
  inner: hemp_wrap(seal)

- name: tee(Pipe inner, Pipe b) -> Pipe
  # the older joints used hemp; the fitting formula below replaces it
  inner: tape_wrap(seal)
  b: dope(seal)

- name: elbowsweep(Pipe inner) -> Pipe
  inner: solder(seal, flux)

- name: union(Pipe inner) -> Pipe
  inner: weld(seal)

- name: union_(Pipe(a!) a) -> Pipe(a!)
  inner: weld_(seal)

- name: union_backward(Pipe g, Pipe inner) -> Pipe
  g: union_backward(g, inner)
  inner: zeros_like(g)
"""


def test_a_key_phrase_a_record_holds_only_in_a_comment_line_supports_none_of_its_values():
    q = "In this rules file, what is the backward formula given for inner in the union entry?"
    assert ask_scripted(q, _RULES)[1] != "submitted"  # not tee's tape_wrap(seal): 'formula' is in its comment


_MIMES = """<?xml version="1.0"?>
<mime-info>
  <mime-type type="application/x-bale">
    <comment>hay bale archive</comment>
    <generic-icon name="package-x-generic"/>
    <glob pattern="*.bale"/>
  </mime-type>
  <mime-type type="text/x-furrow">
    <comment>furrow plan</comment>
    <generic-icon name="text-x-generic"/>
    <glob pattern="*.furrow"/>
  </mime-type>
  <mime-type type="image/x-silo">
    <comment>silo image</comment>
    <generic-icon name="image-x-generic"/>
    <glob pattern="*.silo"/>
  </mime-type>
</mime-info>
"""


def test_words_before_a_value_that_name_its_field_describe_the_value_not_the_field_asked():
    q = "Which MIME type is associated with the file name pattern *.furrow?"
    assert ask_scripted(q, _MIMES) == ("text/x-furrow", "submitted")  # not text-x-generic: a "name" field


_BOOK = """[book]
title = "Gate codes"
description = "Every gate code of the farm"

[output.html.search]
enable = true
expand = true
limit-results = 20
"""


def test_a_file_name_the_question_reads_in_is_no_absent_phrase_of_a_yes_no():
    q = "Is the search 'expand' option enabled in the farm's gate codes book_config.toml?"
    assert ask_scripted(q, _BOOK, "bool") != (False, "submitted")  # book_config.toml is absent: not a "no"


def test_a_dotted_setting_the_question_asks_of_may_be_absent():
    q = "is there a setting called search.folds?"
    assert ask_scripted(q, _BOOK, "bool") == (False, "submitted")


_CAPS = """/* Made-up workshop capabilities */
#ifndef _WORKSHOP_CAPS_H
#define _WORKSHOP_CAPS_H

/* Allow whittling of any wood */
#define CAP_WHITTLE          4

/* Allow splicing ropes */
#define CAP_SPLICE           2

/* Allow lighting the forge */
#define CAP_FORGE            9

/* Allow tempering blades */
#define CAP_TEMPER           7

/* Allow sharpening */
#define CAP_HONE             5

#endif
"""


def test_the_number_of_define_lines_is_their_value_ranked():
    assert ask_scripted("Which capability has the lowest number in this header?", _CAPS) == ("CAP_SPLICE", "submitted")


def test_a_tables_dotted_path_is_its_key_and_its_size_leaves_out_where_it_sits():
    assert items.size_of(_BOOK, "output.html.search") == 3  # enable, expand, limit-results: not its block
    q = "How many keys are set in the [output.html.search] table of book_config.toml?"
    assert ask_scripted(q, _BOOK, "int") == (3, "submitted")


_STEPS = """- name: grind(Blade b) -> Blade
  b: hone(b)
  result: auto_linear

- name: polish(Blade b) -> Blade
  b: buff(b)
  result: auto_linear

- name: quench(Blade b) -> Blade
  b: cool(b)
  result: auto_element_wise

- name: temper(Blade b) -> Blade
  b: heat(b)
"""


def test_a_field_quoted_as_the_file_writes_it_is_named():
    q = "Which value of the 'result:' field occurs most often in this file?"
    assert ask_scripted(q, _STEPS) == ("auto_linear", "submitted")
