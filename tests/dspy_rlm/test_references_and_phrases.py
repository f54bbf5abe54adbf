"""Shapes the twenty-fifth probe's leftovers showed, each made up here: a setting whose value refers to another
(``${name}``), a field named by a phrase of its words ("the maximum retries" for ``maxRetries``, "the default
log level" for a dotted setting), what a value starts with, a command-line flag in prose, a record's missing
field in a yes/no, a word as range ("between") that is no range, sections counted by their noun, and an
identifier one record holds deep inside. Each positive test fails before its change; each negative one guards
an answer that must not be ``Submitted``."""

from __future__ import annotations

import json

from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted

_SETTINGS = """# build settings
app.home=/opt/zither
app.lib.dir=${app.home}/lib
app.plugin.dir=${app.lib.dir}/plugins
app.docs.url=https://docs.example.org/zither/
app.help.link=${app.docs.url}
app.mirror.url=https://mirror.example.net/
"""


def test_a_reference_to_another_setting_is_expanded_where_the_question_asks_what_it_ends_up_as():
    q = "app.help.link is defined by pointing at another property. What URL does it end up as?"
    assert ask_scripted(q, _SETTINGS) == ("https://docs.example.org/zither/", "submitted")


def test_references_expand_through_several_settings():
    from dspy_rlm.profiles.said import expanded

    records = detect(_SETTINGS).records
    assert expanded("${app.lib.dir}/plugins", None, records) == "/opt/zither/lib/plugins"
    assert expanded("$(UNKNOWN)/x", None, records) is None


def test_a_reference_is_not_submitted_expanded_where_the_value_as_written_is_asked():
    answer, kind = ask_scripted("What is app.help.link set to?", _SETTINGS)
    assert not (kind == "submitted" and answer == "https://docs.example.org/zither/")


def _waiter(delay: int, attempts: int, fault: str | None) -> dict:
    acceptors = [{"matcher": "pathAll", "argument": "Items[].Status", "state": "success", "expected": "ready"}]
    if fault:
        acceptors.append({"matcher": "error", "state": "success", "expected": fault})
    acceptors.append({"matcher": "pathAny", "argument": "Items[].Status", "state": "failure", "expected": "failed"})
    return {"delay": delay, "maxAttempts": attempts, "operation": "DescribeItems", "acceptors": acceptors}


_WAITERS = json.dumps(
    {
        "version": 2,
        "waiters": {
            "QueueDrained": _waiter(20, 30, "QueueMissingFault"),
            "QueueReady": _waiter(10, 60, None),
            "TopicReady": _waiter(15, 45, None),
            "TopicGone": _waiter(30, 50, "TopicMissingFault"),
        },
    },
    indent=2,
)


def test_a_field_named_by_its_words_in_full_ranks_by_the_other_cue():
    assert ask_scripted("Which waiter allows the fewest maximum attempts?", _WAITERS) == ("QueueDrained", "submitted")


def test_an_identifier_one_record_holds_inside_names_that_record():
    q = "Which waiter counts a TopicMissingFault error as success?"
    assert ask_scripted(q, _WAITERS) == ("TopicGone", "submitted")


def test_between_without_a_range_is_no_test():
    q = "What delay in seconds does the TopicReady waiter use between polls?"
    assert ask_scripted(q, _WAITERS, "int") == (15, "submitted")


_LOGGER = """# simple logger
org.example.log.defaultLogLevel=warn
org.example.log.showDateTime=false
org.example.log.logFile=System.err
org.example.log.log.Sisu=info
org.example.log.log.Wire=off
"""


def test_a_dotted_setting_named_by_the_words_of_its_last_part_is_read():
    q = "What is the default log level set in this logger config?"
    assert ask_scripted(q, _LOGGER) == ("warn", "submitted")


_GRAMMAR = """# toy grammar
file_input: (NEWLINE | stmt)* ENDMARKER
decorator: '@' dotted_name [ '(' [arglist] ')' ] NEWLINE
decorated: decorator (classdef | funcdef)
pass_stmt: 'pass'
"""


def test_what_a_value_starts_with_is_its_first_token():
    assert ask_scripted("what token does a decorator start with?", _GRAMMAR) == ("@", "submitted")


_NOTES = """Release notes
=============

UI, Workflows & Features

 * A new "--include-spaces" option is added to "git patch-hash", and
   the output no longer strips them.

 * "git log" learned to show notes by default.
"""


def test_a_flag_in_prose_keeps_its_dashes():
    answer, _ = ask_scripted("what new option was added to git patch-hash in this release?", _NOTES)
    assert answer == "--include-spaces"


_SCHEMES = """[posix_prefix]
stdlib = {base}/lib
purelib = {base}/site

[posix_home]
stdlib = {base}/lib/python
scripts = {base}/bin

[nt]
stdlib = {base}/Lib
scripts = {base}/Scripts
"""


def test_a_section_lacking_a_key_others_set_answers_no():
    assert ask_scripted("Does the posix_prefix section set a scripts key?", _SCHEMES, "bool") == (False, "submitted")


def test_a_section_setting_the_key_is_not_answered_no():
    answer, kind = ask_scripted("Does the nt section set a scripts key?", _SCHEMES, "bool")
    assert not (kind == "submitted" and answer is False)


def test_sections_counted_by_their_noun_are_the_records():
    assert ask_scripted("How many install scheme sections are defined in this file?", _SCHEMES, "int") == (
        3,
        "submitted",
    )


_RUNTIMES = json.dumps(
    {
        "alpha1": {"deprecated": "2021-03-01", "successor": "alpha3"},
        "alpha2": {"deprecated": "2022-03-01", "successor": "alpha3"},
        "alpha3": {"deprecated": "2027-09-30"},
    },
    indent=1,
)


def test_the_one_field_asked_is_answered_where_its_value_names_a_record_lacking_it():
    assert ask_scripted("what's the successor runtime for alpha1?", _RUNTIMES) == ("alpha3", "submitted")


_STAFF = """id,full_name,department,salary
E101,Lori Senraix,Andelvo,51000
E102,Mira Tolk,Bexar,62000
E103,Anu Pell,Andelvo,48000
E104,Ravi Oom,Castel,70500
"""


def test_a_field_written_whole_beside_another_said_in_words_keeps_both():
    q = "full_name Lori Senraix: what department does that employee have?"
    assert ask_scripted(q, _STAFF) == ("Andelvo", "submitted")


_COMPLETION = """_lakectl() {
    local -A OPTS=(
        [STANDALONE]='--help -h --version --no-pager'
        [ARG]='--host -H --kill-whom --property -p --signal -s'
    )
}
"""


def test_a_flag_after_a_flag_is_the_next_of_a_list_not_its_value():
    answer, kind = ask_scripted("What values does it suggest after --kill-whom?", _COMPLETION)
    assert not (kind == "submitted" and answer == "--property")
