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


COLORS = """" Name:         kiln
" Description:  Dark background colorscheme.
" Maintainer:   nobody
" Last Updated: Fri 02 Sep 2026 09:39:21 UTC

set background=dark

hi clear
let g:colors_name = 'kiln'

let s:t_Co = exists('&t_Co') && !has('gui_running') ? (&t_Co ?? 0) : -1

if (has('termguicolors') && &termguicolors) || has('gui_running')
  let g:terminal_ansi_colors = ['#7f7f8c', '#cd5c5c', '#9acd32', '#bdb76b']
endif
hi! link Terminal Normal
hi! link LineNrAbove LineNr
hi! link CurSearch Search
hi Normal guifg=#ffffff guibg=#333333 gui=NONE cterm=NONE
hi Cursor guifg=#708090 guibg=#f0e68c gui=NONE cterm=NONE
hi DiffAdd guifg=NONE guibg=#5f875f gui=NONE cterm=NONE
hi DiffText guifg=NONE guibg=#c0c0c0 gui=NONE cterm=NONE
hi Search guifg=#f5deb3 guibg=#cd853f gui=NONE cterm=NONE
"""


def test_a_plain_word_of_the_question_set_above_a_table_is_no_setting_asked():
    # "a gui background of #5f875f" asks a highlight group; 'set background=dark' is no answer to it. A guard:
    # on Vim's desert.vim the first form of the setting-line rule Submitted 'dark' (probe 13's host check); this
    # invented file does not reproduce that parse, so it passes on the code before the rule too
    question = "Which highlight group in the kiln colorscheme has a gui background of #5f875f?"
    assert ask_scripted(question, COLORS) == ("dark", "extracted")  # a guess, never Submitted
