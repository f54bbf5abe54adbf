"""Shapes from probe 58's first run, on invented data. A question that writes its key right after a word ("the
capital *letter* Γ") states what follows that word: a token the data writes after the same word ("GREEK CAPITAL
LETTER GAMMA") names the key again and is no answer (``GAMMA`` was submitted for "which key types it?"). A mapping
literal of one name and one value (``{"class": "a.b.C"}``) offers its value, as a list of one item does. Each test
fails on the code before its change."""

from __future__ import annotations

from dspy_rlm.profiles.candidates import Candidate, typed
from tests.dspy_rlm.scripted import ask_scripted

KEYMAP = """" Keymap for the kiln studio's Greek glaze labels
" Maintainer: nobody

let b:keymap_name = "kg"

loadkeymap
A       Α       GREEK CAPITAL LETTER ALPHA
B       Β       GREEK CAPITAL LETTER BETA
G       Γ       GREEK CAPITAL LETTER GAMMA
D       Δ       GREEK CAPITAL LETTER DELTA
E       Ε       GREEK CAPITAL LETTER EPSILON
Z       Ζ       GREEK CAPITAL LETTER ZETA
a       α       GREEK SMALL LETTER ALPHA
b       β       GREEK SMALL LETTER BETA
g       γ       GREEK SMALL LETTER GAMMA
d       δ       GREEK SMALL LETTER DELTA
e       ε       GREEK SMALL LETTER EPSILON
z       ζ       GREEK SMALL LETTER ZETA
"""


def test_a_token_after_the_word_the_question_writes_before_its_key_is_no_answer():
    answer, kind = ask_scripted("With this keymap active, which key do I press to type the capital letter Γ?", KEYMAP)
    assert (answer, kind) == ("G", "extracted")


def test_a_mapping_of_one_name_and_value_answers_with_its_value():
    # fsspec's known_implementations: "file": {"class": "fsspec.implementations.local.LocalFileSystem"}, read as
    # a literal's value, was submitted whole for "which class path does it end up importing?"
    read = Candidate('{"class": "kiln.storage.memory.MemoryStore"}', "value", True, "the record matches")
    offered = typed(str, [read])
    assert [(c.value, c.supported) for c in offered] == [
        ("kiln.storage.memory.MemoryStore", True),
        ('{"class": "kiln.storage.memory.MemoryStore"}', False),
    ]
    two = Candidate('{"class": "kiln.remote.RemoteStore", "err": "Install it"}', "value", True, "the record matches")
    assert [(c.value, c.supported) for c in typed(str, [two])] == [(two.value, True)]


def test_a_line_that_sets_the_key_above_a_table_answers_with_its_value():
    # 'let b:keymap_name = "kg"' is one cell of the keymap's table: the value past the key, unquoted, is its value
    assert ask_scripted("What short name does this keymap set in b:keymap_name?", KEYMAP) == ("kg", "submitted")
