"""Shapes the ninth probe (``benchmarks/asked/probe9.json``) met on its first run, each rebuilt as a small
made-up file: directive lines (a C header's ``#define``s with closing comments, a Tcl catalog's ``mcset`` lines
continued with ``\\``), a plain word of a yes/no question missing beside two phrases found, a plain word after
a key in a list item, and a value that names another setting of the same file."""

from __future__ import annotations

from dspy_rlm.library.structure import detect
from dspy_rlm.profiles.kinds import evaluate
from dspy_rlm.profiles.moves import MoveBook
from tests.dspy_rlm.scripted import ask_scripted as _ask

HEADER = """/* made-up lake error codes */
#ifndef _LAKE_ERRNO_H
#define _LAKE_ERRNO_H

#include <lake/base.h>

#define\tEBOATLOST\t40\t/* The boat drifted away */
#define\tEOARGONE\t41\t/* No oar left on the dock */
/*
 * A block comment: these lines are no records.
 * Nor is this one.
 */
#define\tESAILTORN\t42\t/* Sail torn by the wind */
#define\tEDOCKFULL\t43\t/* Every mooring is taken */
#define\tEBOATGONE\tEBOATLOST
#define\tEFOGBANK\t47\t// Too foggy to row

#endif
"""

CATALOG = """# made-up catalog
namespace eval ::lake::clock {
    ::msgcat::mcset xx BOATS_SHORT [list \\
        "Ka"\\
        "Ru"]
    ::msgcat::mcset xx AM "vorm."
    ::msgcat::mcset xx PM "nachm."
    ::msgcat::mcset xx BCE "v. Bt."
    ::msgcat::mcset xx CE "n. Bt."
    ::msgcat::mcset xx DATE_FORMAT "%d.%m.%Y"
}
"""


def test_define_lines_are_records_keyed_by_name():
    s = detect(HEADER)
    assert (s.kind, s.detail) == ("keywords", "directives")  # before: a markdown list (the comment's " * ")
    records = {r.key: dict(r.fields) for r in s.records}
    assert records["EOARGONE"] == {"value": "41", "comment": "No oar left on the dock"}
    assert records["EFOGBANK"]["comment"] == "Too foggy to row" and records["EBOATGONE"] == {"value": "EBOATLOST"}
    assert "A" not in records and len(s.records) == 7  # the block comment's lines are none


def test_a_header_answers_reverse_and_comment_questions():
    assert _ask("Which error macro in this header has the number 42?", HEADER) == ("ESAILTORN", "submitted")
    assert _ask("Give me the comment text that describes EDOCKFULL.", HEADER) == (
        "Every mooring is taken",
        "submitted",
    )


def test_a_catalog_of_mcset_lines_with_continuations():
    s = detect(CATALOG)
    assert (s.kind, s.detail) == ("keywords", "directives")  # before: lines
    records = {r.key: dict(r.fields)["value"] for r in s.records}
    assert records["BCE"] == "v. Bt." and records["BOATS_SHORT"] == '[list "Ka" "Ru"]'
    assert _ask("what string is used for BCE dates here?", CATALOG) == ("v. Bt.", "submitted")


def test_lines_opening_with_one_word_that_repeats_its_next_are_no_directives():
    text = "\n".join(f"The boat {n} left the dock at {n} o'clock." for n in range(12))
    assert detect(text).detail != "directives"


DTD = """<!-- made-up lake DTD -->
<!ELEMENT lake (boat)*>
<!ELEMENT boat (#PCDATA)>
<!ATTLIST boat
\tname CDATA #REQUIRED
\tcolour CDATA #IMPLIED>
"""


def test_a_plain_word_missing_beside_two_phrases_found_is_no_no():
    # "attribute" is the asker's word for what the DTD calls ATTLIST: its absence says nothing of the answer
    # (read as a DTD since stop 67: boat's attribute list says #REQUIRED)
    answer, kind = _ask("Is the name attribute of the boat element required?", DTD, "bool")
    assert (answer, kind) == (True, "submitted")  # before: False, Submitted; then True, Extracted


NEWS = """Lakeview release notes

  * Remove dynamic building of Lakeview class
  * Fix oars
  * Add boats
"""


def test_a_lower_case_word_after_a_plain_key_in_a_list_item_is_prose():
    book = MoveBook({"question": "When was lakeview 1.2 released?"}, {"context": NEWS}, {"answer": str})
    found = [c for m in book.read_moves() for c in evaluate(book, m, "")]
    assert not [c for c in found if c.supported and c.value == "class"]  # before: 'class', Submitted


PC = """prefix=/usr
root_prefix=
rootprefix=${root_prefix}
unit_dir=${rootprefix}/lib/lake/system

Name: lake
Version: 7
"""


def test_a_value_naming_another_setting_is_submitted_expanded_not_as_written():
    asked = "tell me what unit_dir expands to once all the variables are substituted"
    assert _ask(asked, PC) == ("/lib/lake/system", "submitted")  # probe 9: as written; stop 75: expanded


HISTORY = """2.0.0 / 2024-08-31
==================

  * Drop rafts
  * Add an option for sails

1.1.0 / 2022-01-22
==================

  * Revert "Paint every boat"

## [1.0.0] - Mar 3, 2019

  * Paint every boat
  * Fix oars
"""


def test_dated_headings_are_records_keyed_by_their_version():
    s = detect(HISTORY)
    assert (s.kind, s.detail) == ("markdown_list", "dated sections")  # before: one record per item
    assert [(r.key, r.get("date")) for r in s.records] == [
        ("2.0.0", "2024-08-31"),
        ("1.1.0", "2022-01-22"),
        ("1.0.0", "Mar 3, 2019"),
    ]
    assert "Fix oars" in s.records[2].text


def test_a_changelog_answers_when_and_which_version():
    assert _ask("When was 1.1.0 released?", HISTORY) == ("2022-01-22", "submitted")
    assert _ask("which version came out on 2024-08-31?", HISTORY) == ("2.0.0", "submitted")


NEWS_PARAGRAPHS = """What's New in Lake 3.10.0
(since 3.9.0)
Released on 2021-10-04
=========================

bpo-11: Boats float.

What's New in Lake 3.9.0
(since 3.8.0)
Released on 2020-10-05
=========================

bpo-12: Oars row.
"""


def test_an_underline_heads_its_whole_paragraph_and_asides_name_no_record():
    s = detect(NEWS_PARAGRAPHS)
    assert [(r.key, r.get("date")) for r in s.records] == [
        ("3.10.0", "2021-10-04"),  # the heading's one version names it ("What's New in Lake 3.10.0 Released on")
        ("3.9.0", "2020-10-05"),  # "(since 3.8.0)" does not name it
    ]
    assert _ask("When was Lake 3.9.0 released?", NEWS_PARAGRAPHS) == ("2020-10-05", "submitted")


FENCED = HISTORY.replace(
    "  * Fix oars\n",
    "  * Fix oars\n\n```sh\n# 9.9.9 / 2000-01-01\nrow --fast\n```\n",
)


def test_a_heading_in_a_code_fence_is_no_section():
    s = detect(FENCED)
    assert [r.key for r in s.records] == ["2.0.0", "1.1.0", "1.0.0"]  # before: a fourth record, "9.9.9"
    assert "row --fast" in s.records[2].text
