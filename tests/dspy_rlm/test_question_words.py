"""Wrong or missed endings the scripted policy had on a sample of the training corpus (never an evaluation
split), each rebuilt on a small made-up file: a count asked as "Number of ...", a demonstrative "that" read as a
relative word, a tuple's whole text vouched for as one of its parts, a placeholder as the most common value, and
a text's lines counted as its entries. Each test failed before, the tuple's on this change's first version (a
literal's ``block`` no longer counts among its values: its tuple became the one value, vouched for)."""

from __future__ import annotations

from dspy_rlm.library import superlatives
from tests.dspy_rlm.scripted import ask_scripted as _ask

ACCOUNTS = """user=ada uid=20981 group=boka shell=/bin/sh
user=brin uid=20982 group=lake shell=/bin/sh
user=cole uid=20983 group=boka shell=/bin/zsh
user=dara uid=20984 group=dock shell=/bin/sh
user=emil uid=20985 group=boka shell=/bin/bash
user=fern uid=20986 group=lake shell=/bin/sh
"""


def test_a_question_opening_with_number_of_counts():
    # before: no count cue ("the number of" only), so the one number of a record holding "boka" was submitted
    assert _ask("Number of accounts with group boka", ACCOUNTS, "int") == (3, "submitted")


def test_that_after_does_is_no_relative_word():
    # "what group does that account have": the group is asked, not the record's key (before: the key, submitted)
    assert _ask("user cole: what group does that account have?", ACCOUNTS) == ("boka", "submitted")


LEXERS = """LEXERS = {
    'BoatLexer': ('lake.lexers.boat', 'Boat', ('boat',), ('*.boat',), ()),
    'CanoeLexer': ('lake.lexers.canoe', 'Canoe', ('canoe', 'cn'), ('*.cn',), ('text/x-canoe',)),
    'DockLexer': ('lake.lexers.dock', 'Dock', ('dock',), ('*.dock',), ()),
    'KayakLexer': ('lake.lexers.kayak', 'Kayak', ('kayak',), ('*.kyk',), ()),
    'PuntLexer': ('lake.lexers.punt', 'Punt', ('punt',), ('*.punt',), ()),
    'RaftLexer': ('lake.lexers.raft', 'Raft', ('raft',), ('*.raft',), ()),
    'SkiffLexer': ('lake.lexers.skiff', 'Skiff', ('skiff',), ('*.skf',), ()),
    'SloopLexer': ('lake.lexers.sloop', 'Sloop', ('sloop',), ('*.slp',), ()),
    'YachtLexer': ('lake.lexers.yacht', 'Yacht', ('yacht',), ('*.yt',), ()),
    'YawlLexer': ('lake.lexers.yawl', 'Yawl', ('yawl',), ('*.yawl',), ()),
}
"""


def test_a_tuple_is_no_answer_for_one_of_its_parts():
    _answer, ending = _ask("Find the module for the lexer CanoeLexer.", LEXERS)
    assert ending == "extracted"  # before: the whole tuple submitted (the literal's one own field)


FIXED = """NAME      YEAR  BATTERY
canoe     1986  58
punt      -     -
raft      -     -
kayak     1986  58
skiff     -     -
dinghy    1990  41
sloop     -     -
yawl      1986  12
"""


def test_a_placeholder_is_no_most_common_value():
    assert superlatives.most_common(FIXED, "YEAR") == "1986"  # before: "-", the empty cells
    assert superlatives.most_common("A B\nx -\ny -\n", "B") == "-"  # all placeholders: the placeholder


SUBTITLES = """1
00:00:01,000 --> 00:00:03,000
The lake is calm.

2
00:00:04,000 --> 00:00:06,000
A canoe drifts by.

3
00:00:07,000 --> 00:00:09,500
Nobody is rowing.
"""


def test_a_texts_lines_are_no_entries_to_count():
    _answer, ending = _ask("how many subtitle entries are in this file?", SUBTITLES, "int")
    assert ending == "extracted"  # before: the 9 non-empty lines, submitted as the entries
