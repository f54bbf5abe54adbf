"""What a question asks *of* a record, on invented data: "what permission mode is the spool directory created
with?" names the record (SPOOL_DIR) but asks for another sort of value than its own (a path), so reading the
record's value is no supported answer, in a file of settings, an INI section or a shell script; the same value
asked for as itself ("what is the spool directory?", "what directory is the spool dir?") stays Submitted. A count
of a shell script's functions "whose names begin with" a prefix tests their names, not what they run, and a count of
the records keyed ``open_*`` applies that test. The
doubts fail on the code before their change (the value was Submitted)."""

from __future__ import annotations

from dspy_rlm.profiles.asked_noun import asked_noun
from tests.dspy_rlm.scripted import ask_scripted, run_scripted

SETTINGS = """# kiln daemon defaults
SPOOL_DIR=/var/spool/kiln
LOG_LEVEL=notice
MAX_JOBS=12
RUN_AS=potter
"""

SECTION = """[daemon]
spool_dir = /var/spool/kiln
log_level = notice
max_jobs = 12
run_as = potter
"""

SCRIPT = """#!/bin/sh
# kilnctl: start and stop the kiln daemon
SPOOL_DIR=/var/spool/kiln
PIDFILE=/run/kiln.pid
RETRIES=3

open_spool() {
    mkdir -p "$SPOOL_DIR"
    chmod 0750 "$SPOOL_DIR"
}

open_log() {
    touch /var/log/kiln.log
}

open_socket() {
    open_spool
    kiln-sock --listen
}

open_pipe() {
    mkfifo /run/kiln.fifo
}

close_all() {
    open_cleanup --all
}

restart() {
    open_log
    open_socket
}

restart
"""


def test_the_noun_asked_is_read_from_the_question():
    assert asked_noun("What permission mode are the spool directories created with?") == ["permission", "mode"]
    assert asked_noun("What default port does it listen on?") == ["port"]  # a default asks for any value
    assert asked_noun("What is the spool directory?") == []
    assert asked_noun("What value is MAX_JOBS set to?") == []


def test_another_sort_of_value_than_the_records_own_is_no_supported_answer():
    q = "What permission mode are the spool directories created with?"
    for context in (SETTINGS, SECTION, SCRIPT):  # (the script's ending is Extracted anyway: its note says why)
        pred = run_scripted(q, context)
        assert (pred.answer, pred.rlm_result.kind) == ("/var/spool/kiln", "extracted")
        assert "the question asks for its 'permission mode'" in pred.rlm_result.notes


def test_the_records_own_value_asked_as_itself_is_still_submitted():
    assert ask_scripted("What is the spool directory?", SETTINGS) == ("/var/spool/kiln", "submitted")
    assert ask_scripted("What directory is the spool dir?", SETTINGS) == ("/var/spool/kiln", "submitted")
    assert ask_scripted("What user does the daemon run as?", SECTION) == ("potter", "submitted")


def test_a_count_of_names_that_begin_with_a_prefix_tests_the_names():
    q = "How many functions whose names begin with open_ are defined?"
    answer, _ = ask_scripted(q, SCRIPT, "int")  # (a shell script's reads are unmeasured: Extracted, calibration.py)
    assert answer == 4  # not the 3 whose commands begin with open_


ENTRY_POINTS = """[console_scripts]
kiln.fire = kiln.cli.fire:main
kiln.cool = kiln.cli.cool:main
kiln.status = kiln.cli.status:main
"""


def test_a_noun_asked_of_an_identifier_the_question_writes_says_the_sort_of_its_value():
    q = "What object does the kiln.fire console script point to?"
    assert ask_scripted(q, ENTRY_POINTS) == ("kiln.cli.fire:main", "submitted")
