"""Shapes the tenth probe (``benchmarks/asked/probe10.json``) met on its first run, each rebuilt as a small
made-up file: a program's literal tables (a Perl hash, a JavaScript array and object), a whitespace table whose
last column is optional, directive lines naming a quoted string and closing with a ``#`` comment, a qualified name
asked where the text writes it unqualified, a plain word missing beside a name found, and a ranking asked in
words no cue lists."""

from __future__ import annotations

from dspy_rlm.library.structure import detect
from dspy_rlm.profiles.id_spellings import unqualified
from dspy_rlm.profiles.kinds import evaluate
from dspy_rlm.profiles.moves import MoveBook
from tests.dspy_rlm.scripted import ask_scripted as _ask

PERL = """package Lake::Boats;
use strict;

our %launched = (
    1.001    => '1994-10-17',
    1.002    => '1996-02-29',
    1.003    => '1996-02-29',
    1.004    => '1997-05-15',
    1.005    => '1998-07-22',
    1.006    => '2000-03-22',
);

our %crew = (
    1.001 => {
        captain => 'Ada',
        cook    => undef,
    },
    1.002 => {
        captain => 'Brin',
        cook    => undef,
    },
    1.003 => {
        captain => 'Cole',
        cook    => undef,
    },
);
1;
"""

JS = """const lake = require('lake')

// the boats, sorted
const boats = [
  'canoe',
  'dinghy',
  'kayak',
  'punt',
  'raft',
  'skiff',
  'yacht',
]

const aliases = {
  c: 'canoe',
  can: 'canoe',
  cano: 'canoe',
  k: 'kayak',
  yat: 'yacht',
}

module.exports = { boats, aliases }
"""


def test_a_programs_literal_tables_are_records_with_their_block():
    s = detect(PERL)
    assert (s.kind, s.detail) == ("assignments", "literals")  # before: a whitespace table keyed by 'our', '1.001'
    launched = [r for r in s.records if r.get("block") == "launched"]
    assert [(r.key, r.get("value")) for r in launched][:2] == [("1.001", "1994-10-17"), ("1.002", "1996-02-29")]
    assert [(r.key, r.get("value"), r.get("block")) for r in s.records if r.key == "captain"][1] == (
        "captain",
        "Brin",
        "crew.1.002",
    )
    js = detect(JS)
    assert (js.kind, js.detail) == ("assignments", "literals")  # before: lines
    assert [r.key for r in js.records if not r.fields] == ["canoe", "dinghy", "kayak", "punt", "raft", "skiff", "yacht"]
    assert {r.key: r.get("value") for r in js.records if r.get("block") == "aliases"}["yat"] == "yacht"


def test_a_literal_table_reads_a_lookup_and_a_reverse_lookup():
    # the value is the record's one own field (its block says where it sits): vouched for (before probe 11's
    # mends: not, as one of two fields neither of which the question names)
    assert _ask("In the %launched hash, what date is recorded for 1.004?", PERL) == ("1997-05-15", "submitted")
    # the right name, not vouched for: "yacht" is also an item of the boats list, a record of its own
    assert _ask("which alias points at yacht?", JS) == ("yat", "extracted")


def test_a_ranking_over_entries_of_several_tables_is_no_answer():
    # the most common value of every entry is undef (the crew table's); the question ranks one table's dates
    # (since probe 40: ranked within the table the question names, that table's most common date is vouched for)
    book = MoveBook({"question": "Which date has the most entries in %launched?"}, {"context": PERL}, {"answer": str})
    moves = [m for m in book.read_moves() if m.kind == "most_common"]
    ranked = [c for m in moves if m.within is None for c in evaluate(book, m, "")]
    assert ranked and not [c for c in ranked if c.supported]
    scoped = [c for m in moves if m.within == "launched" for c in evaluate(book, m, "")]
    assert [(c.value, c.supported) for c in scoped] == [("1996-02-29", True)]


def test_a_list_item_read_by_its_name_gives_no_block_as_its_answer():
    # the item "dinghy" is read (no alias names it): its line's neighbours are no answer, and none is vouched for
    assert _ask("tell me the alias that resolves to the dinghy boat", JS) == ("{ boats, aliases }", "extracted")


MOUNTS = """# Type Path Mode User Group Age Argument
d /run/lake 0755 root root -
d /run/lake/boats 0755 root root -
f /run/lake/dock 0644 root lake -
L /run/lake/oar - - - - /usr/share/lake/oar
d /var/lib/lake 0700 root root 3d
C /run/lake/map - - - - /usr/share/lake/map
"""


def test_a_whitespace_table_whose_last_column_is_optional():
    s = detect(MOUNTS)
    assert (s.kind, s.detail) == ("table", "whitespace")  # before: lines (three rows of six cells, three of seven)
    assert s.records[4].get("Age") == "3d" and s.records[3].get("Argument") == "/usr/share/lake/oar"


PATTERNS = """macro (CHECK_LAKE_PATTERNS _VAR)
  set(${_VAR}
    FAIL_REGEX "[Uu]nknown .*oar"                  # Rowco, Sailco
    FAIL_REGEX "oar .* is not supported"           # Rowco
    FAIL_REGEX "invalid boat option"               # Paddler
    FAIL_REGEX "no such dock"                      # Keelson
    FAIL_REGEX "WARNING: unknown anchor"           # Mooring
    FAIL_REGEX "bad sail size"                     # Rowco
    FAIL_REGEX "rudder .* ignored"                 # Sailco
    FAIL_REGEX "mast option not recognized"        # Rowco
    FAIL_REGEX "no hull given"                     # Tiller
    FAIL_REGEX "ignoring unknown knot"             # Sailco
  )
endmacro ()
"""


def test_directive_lines_naming_a_quoted_string_with_a_hash_comment():
    s = detect(PATTERNS)
    assert (s.kind, s.detail) == ("keywords", "directives")
    assert (s.records[0].key, s.records[0].get("comment")) == (
        "[Uu]nknown .*oar",
        "Rowco, Sailco",
    )  # before: '"[Uu]nknown'
    assert _ask("What failure regex is there for the Keelson tool?", PATTERNS) == ("no such dock", "submitted")
    assert _ask("Is there a pattern in that module attributed to Paddler?", PATTERNS, "bool") == (True, "submitted")


def test_a_plain_word_missing_beside_a_name_found_is_no_no():
    # "pattern" and "module" are the asker's words; the file says FAIL_REGEX; before: False, Submitted
    answer, kind = _ask("Is there a pattern in that module credited to Mooring?", PATTERNS, "bool")
    assert (answer, kind) == (True, "submitted")


def test_a_ranking_in_words_no_cue_lists_is_not_one_records_value():
    book = MoveBook(
        {"question": "Judging by the comments, which tool gets credited on the most patterns?"},
        {"context": PATTERNS},
        {"answer": str},
    )
    found = [c for m in book.read_moves() if m.kind in ("record", "field") for c in evaluate(book, m, "")]
    assert not [c for c in found if c.supported]


ENUM = """class LakeStatus(IntEnum):
    \"\"\"Statuses of a lake.\"\"\"
    CALM = 100, 'Calm', 'No wind at all'
    BREEZY = 200, 'Breezy'
    STORMY = (300, 'Stormy',
        'Boats stay at the dock')
    FROZEN = 400, 'Frozen'
"""


def test_a_qualified_name_asked_reads_the_name_the_text_writes():
    assert unqualified(ENUM.casefold(), "LakeStatus.STORMY") == "STORMY"
    assert unqualified("3.9 is here", "3.9.0") is None  # a version is no qualified name
    book = MoveBook(
        {"question": "What's the description text for LakeStatus.STORMY?"}, {"context": ENUM}, {"answer": str}
    )
    assert [k.text for k in book.keys["context"]][:1] == ["STORMY"]  # before: 'text' alone, read in 'Text Coffee'


LAUNCHES = """canoe = 1996-02-29
kayak = 1997-05-15
punt = 1996-02-29
raft = 1998-07-22
skiff = 2000-03-22
"""


def test_another_record_with_the_same_value_is_a_second_step():
    asked = "The canoe was launched on some day. What other boat has exactly the same launch date?"
    book = MoveBook({"question": asked}, {"context": LAUNCHES}, {"answer": str})
    found = [c for m in book.read_moves() if m.kind in ("record", "field") for c in evaluate(book, m, "")]
    assert ("1996-02-29", False) in [(c.value, c.supported) for c in found]  # before: supported, the first hop
    assert not [c for c in found if c.supported]
