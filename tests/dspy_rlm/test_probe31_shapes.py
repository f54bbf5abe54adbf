"""Shapes the thirty-first probe read wrong, each made up here: a field named only inside the phrase naming the
file ("the Debian *copyright* file"), a path given for "who", a field read by the phrase it holds, a JSON key
named with the object the question names, JSON keys holding dots, a date after its label, and a YAML list of
block scalars. Each positive test fails before its change; each negative one guards an answer that must not be
``Submitted``."""

from __future__ import annotations

from dspy_rlm.library.items import items_of
from tests.dspy_rlm.scripted import ask_scripted

_COPYRIGHT = """Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: quill
Source: https://example.org/quill

Files: *
Copyright: 2019-2023 Mara Quill <mara@example.org>
License: MIT

Files: debian/*
Copyright: 2021 Tomas Reed <tomas@example.org>
License: GPL-2+

Files: src/ink.c
Copyright: 2021 Tomas Reed <tomas@example.org>
License: MIT

Files: tools/press.*
Copyright: 1988-1990, Edith Lane.
License: custom-1

Files: tests/blot_test.cc
Copyright: 2022 Ada Byron
License: MIT

Files: docs/*
Copyright: 2021 Tomas Reed <tomas@example.org>
License: CC-BY-4.0
"""

_THEME = """{
  "name": "dawn",
  "colors": {
    "Header": "#004CFF",
    "Title": "ansigreen",
    "Tb.Name": "ansimagenta",
    "Tb.NameEm": "ansired",
    "Prompt": "ansiblue",
    "Prompt.Continuation.L1": "ansiwhite",
    "Prompt.Continuation.L2": "ansiblack"
  },
  "symbols": {"arrow": ">"}
}
"""

_PORT = """- package: quill/quill
  version: 2.3.0
  notes:
    - Rename variables that shadow built-ins, e.g.
      - `max` -> `maximum`
      - `len` -> `length`
    - |
      Convert loops to while loops
      in every module.
    - |
      Options are a plain dictionary.
      Upstream: https://example.org/issues/7, kept for order.
    - Use the native string type
    - Allow a custom renderer
"""


def test_a_field_named_only_in_the_files_own_name_is_not_the_one_ranked():
    q = "Which license appears most often in the Files stanzas of quill's Debian copyright file?"
    assert ask_scripted(q, _COPYRIGHT) == ("MIT", "submitted")  # not the most common Copyright line


def test_a_path_answers_no_who():
    q = "Who holds the oldest copyright (earliest year) mentioned in quill's copyright file?"
    assert ask_scripted(q, _COPYRIGHT)[1] != "submitted"  # not tools/press.*


def test_a_field_read_by_the_phrase_it_holds_gives_the_phrase_back():
    q = "Which file's stanza in quill's copyright lists Ada Byron as copyright holder?"
    answer, ending = ask_scripted(q, _COPYRIGHT)
    assert not (ending == "submitted" and answer == "2022 Ada Byron")


def test_a_json_key_is_answered_without_the_object_the_question_names():
    q = 'Which colors key in the dawn theme is set to "ansigreen"?'
    assert ask_scripted(q, _THEME) == ("Title", "submitted")  # not colors.Title


def test_json_keys_holding_dots_are_one_entry_each():
    assert items_of(_THEME, "colors") == 7  # not 4: Tb.Name and Tb.NameEm are two keys, not one group Tb
    q = "How many entries are there in the colors object of the dawn theme?"
    assert ask_scripted(q, _THEME, "int") == (7, "submitted")


def test_a_date_after_its_label_is_given_whole():
    text = "# Version 2026111700, Last Updated Tue Nov 17 07:07:01 2026 UTC\nAAA\nAARP\nABB\nABBOTT\n"
    q = "According to its header line, when was this list last updated?"
    assert ask_scripted(q, text) == ("Tue Nov 17 07:07:01 2026 UTC", "submitted")  # not 'Tue'


def test_a_yaml_list_of_block_scalars_counts_each_block_once():
    assert items_of(_PORT, "notes") == 5  # a "- |" block is one item; the sub-items belong to their item
    q = "How many notes are listed in quill's port file describing its differences?"
    assert ask_scripted(q, _PORT, "int") == (5, "submitted")
