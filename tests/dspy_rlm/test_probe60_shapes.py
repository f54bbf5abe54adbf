"""Shapes from probe 60's first run, on invented data. A keyfile's settings that each list items (``KEY = a;b;c``)
are ranked by their own lists where the question names no list ("which key cycles through the fewest items?"),
and a list of single characters between semicolons holds quotes and brackets as items (``.;,;';";(;)``). A
changelog's title ("the Node.js 5 changelog") names the document, no record: a release the question asks of is
checked, and ``5.6`` elsewhere is no ``5.6.1`` cut short where the text writes ``5.6.0``. A question asking a
date ("what day was ...?") takes no version as its answer. Each test fails on the
code before its change."""

from __future__ import annotations

from dspy_rlm.library import items
from tests.dspy_rlm.scripted import ask_scripted

TAPS = """# Tap-cycle table for the Wren handheld
# Press a key on the left repeatedly to step through the items listed on its right, separated by ";".
[taps]
T_1 = .;,;?;!;';";1;-;(;)
T_2 = p;q;r;2
T_3 = s;t;u;v;3
T_4 = w;x;4
T_5 = y;z;5;6;7
"""


def test_a_list_of_single_characters_holds_quotes_and_brackets():
    assert items.list_items(""".;,;?;!;';";1;-;(;)""") == [".", ",", "?", "!", "'", '"', "1", "-", "(", ")"]
    assert items.list_items("1,2,3") == ["1", "2", "3"]  # as before


def test_settings_are_ranked_by_their_own_lists_where_no_list_is_named():
    assert ask_scripted("Which key in the tap table cycles through the fewest symbols?", TAPS) == ("T_4", "submitted")
    assert ask_scripted("Which key has the longest list of symbols?", TAPS) == ("T_1", "submitted")
    assert str(items.most_items(TAPS, "*")) == "T_1: 10"


KILN_CHANGES = """# Kiln 4 ChangeLog

<table><tr><td>
<a href="#4.2.0">4.2.0</a><br/>
<a href="#4.1.1">4.1.1</a><br/>
<a href="#4.1.0">4.1.0</a><br/>
<a href="#4.0.0">4.0.0</a><br/>
</td></tr></table>

## 2031-06-23, Version 4.2.0 (Stable), @mira

### Notable changes

* **glaze**: cone 10 profiles added
* **firing**: slower ramp below 600 degrees

## 2031-05-05, Version 4.1.1 (Stable), @mira

### Notable changes

* **glaze**: celadon tint fixed

## 2031-04-20, Version 4.1.0 (Stable), @oren

### Notable changes

* **kiln**: a second thermocouple is read
* **firing**: hold times in minutes

## 2031-03-01, Version 4.0.0 (Stable), @oren

### Notable changes

* **kiln**: the first release of the 4 line
"""


def test_a_changelogs_title_names_the_document_not_a_record_a_release_asked_is_checked():
    for version, there in (("4.1.0", True), ("4.1.2", False), ("4.2.0", True), ("4.9.1", False)):
        question = f"Does the Kiln 4 changelog include a {version} release?"
        assert ask_scripted(question, KILN_CHANGES, "bool") == (there, "submitted"), version


GLAZES = """[glazes]
celadon = iron;silica;kaolin
tenmoku = iron;silica;kaolin;whiting;ash
shino = feldspar;spodumene;kaolin
cone = 10
atmosphere = reduction
kiln = gas
"""


def test_own_lists_are_ranked_only_where_the_settings_are_lists_and_no_value_is_counted_across_records():
    assert str(items.most_items(GLAZES, "*")).startswith("no settings")  # half the settings are no lists
    # a value found in the most records, no setting's own list ('T_1' was submitted)
    assert ask_scripted("Which symbol is used by the most keys?", TAPS) == ("taps", "extracted")


def test_a_question_asking_a_date_takes_no_version_as_its_answer():
    from dspy_rlm.profiles.candidates import asks_date

    assert asks_date("On what date did their earliest one come out?")
    assert asks_date("What day was the latest release by oren?")
    assert not asks_date("What date format does the changelog use?")
    assert not asks_date("Which version came out on the earliest date?")
    answer, ending = ask_scripted("What day was the latest release by oren?", KILN_CHANGES)
    assert not (ending == "submitted" and answer == "4.2.0")  # a version, and mira's: submitted before the change
    assert ask_scripted("On what date was Kiln 4.1.0 released?", KILN_CHANGES) == ("2031-04-20", "submitted")
