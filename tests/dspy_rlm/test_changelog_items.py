"""A changelog's releases list their items in a field, ``changelog``: one ``- item`` line per bullet (its lines
joined, its commas kept, those under a release's ``### Fixes`` too), so the field helpers count, rank and search
them ("which release has the longest list of bullet points?", "how many changes are listed for v2.1.0?", "which
release deprecated the ClayCache class?"). Invented changelogs: an RST one underlined with ``=``, a Markdown one
of ``## [X] - date`` headings, plain dated lines over ``+`` items. Each test failed before the field was given
(the items were only in the record's text)."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from dspy_rlm.library.items import fewest_items, items_of, list_items, most_items
from dspy_rlm.library.lookup import count_records
from dspy_rlm.library.superlatives import key_of
from tests.dspy_rlm.scripted import ask_scripted

RST = """Kiln changelog
==============

v2.2.0 (2025-03-14)
===================

- Add the glaze rule editor, with presets.

- Faster cooling.


v2.1.0 (2024-11-02)
===================

- Add a second vent, a damper and a fan.

- Deprecate the ``ClayCache`` class.

- Fix the door seal
  on tall kilns, again.

- Update CI environment.


v2.0.0 (2024-06-19)
===================

- Drop Python 3.8, 3.9 and 3.10.


v1.9.0 (2024-01-05)
===================

A quiet release: the same kiln, rebuilt.
"""

MD = """# Changelog

## [Unreleased]

- Nothing yet
- Still nothing

## [3.1.0] - 2026-03-14

### Added
* Glaze rule editor
* Bisque presets, cone 04 and cone 06
  * cone 06 for low fire

### Fixes
* Door seal fix

```yaml
- name: not an item
- name: nor this one
```

## [3.0.0] - 2025-06-19

+ New firing planner
+ Vent schedule, hourly

## [2.9.0] - 2024-01-30

Nothing listed.
"""

PLAIN = """kiln-4.2.0 - 14 March 2026
 + 101 Glaze rule editor
 + 102 Faster cooling, lower power
      on the small kilns

kiln-4.1.0 - 02 November 2025
 + 103 Door seal fix

kiln-4.0.0 - 19 June 2025
 + 104 New firing planner
 + 105 Vent schedule
 + 106 Bisque presets, cone 04

kiln-3.9.0 - 30 January 2024
"""


def _changes(text: str) -> dict[str, list[str]]:
    return {r.key: list_items(v) for r in st.detect(text).records if (v := r.get("changelog")) is not None}


def test_rst_releases_hold_their_bullets_one_item_each():
    s = st.detect(RST)
    assert s.detail == "dated sections" and s.field_names == ("date", "changelog", "body")
    assert s.records[-1].get("body") == "A quiet release: the same kiln, rebuilt."  # it lists no items: its words
    assert [(r.key, r.get("date")) for r in s.records] == [
        ("Kiln changelog", None),
        ("v2.2.0", "2025-03-14"),
        ("v2.1.0", "2024-11-02"),
        ("v2.0.0", "2024-06-19"),
        ("v1.9.0", "2024-01-05"),
    ]  # keys and dates as before
    assert _changes(RST) == {
        "v2.2.0": ["Add the glaze rule editor, with presets.", "Faster cooling."],
        "v2.1.0": [
            "Add a second vent, a damper and a fan.",
            "Deprecate the ``ClayCache`` class.",
            "Fix the door seal on tall kilns, again.",  # its two lines, one item
            "Update CI environment.",
        ],
        "v2.0.0": ["Drop Python 3.8, 3.9 and 3.10."],  # one bullet: one item, commas and all
    }  # v1.9.0 lists nothing: no field; the title lists nothing either
    assert s.records[2].fields[0] == ("date", "2024-11-02")  # the date first, as before


def test_markdown_releases_take_the_items_of_their_subheadings_and_no_code():
    s = st.detect(MD)
    assert s.detail == "dated sections"
    assert _changes(MD) == {
        "3.1.0": [
            "Glaze rule editor",
            "Bisque presets, cone 04 and cone 06",
            "cone 06 for low fire",  # a nested bullet: an item of its own
            "Door seal fix",  # under ### Fixes
        ],  # the "- name:" lines of the fenced code: no items
        "3.0.0": ["New firing planner", "Vent schedule, hourly"],
    }  # [Unreleased] is no dated release; 2.9.0 lists nothing
    assert s.records[-1].key == "2.9.0" and s.records[-1].get("changelog") is None


def test_plain_dated_lines_over_plus_items():
    assert _changes(PLAIN) == {
        "kiln-4.2.0": ["101 Glaze rule editor", "102 Faster cooling, lower power on the small kilns"],
        "kiln-4.1.0": ["103 Door seal fix"],
        "kiln-4.0.0": ["104 New firing planner", "105 Vent schedule", "106 Bisque presets, cone 04"],
    }


def test_the_helpers_count_rank_and_search_the_changes():
    assert tuple(most_items(RST, "changelog")) == ("v2.1.0", "4")
    assert tuple(fewest_items(RST, "changelog")) == ("v2.0.0", "1")
    assert items_of(RST, "changelog", "v2.1.0") == 4 and items_of(RST, "changelog", "v2.0.0") == 1
    assert key_of(RST, "ClayCache") == "v2.1.0" and count_records(RST, "ClayCache") == 1
    assert tuple(most_items(MD, "changelog")) == ("3.1.0", "4")
    assert items_of(MD, "changelog", "3.0.0") == 2
    assert key_of(MD, "Door seal fix") == "3.1.0"
    assert tuple(most_items(PLAIN, "changelog")) == ("kiln-4.0.0", "3")
    assert items_of(PLAIN, "changelog", "kiln-4.2.0") == 2


def test_a_value_of_bullet_lines_lists_one_item_per_line():
    assert list_items("- Add a, b and c") == ["Add a, b and c"]  # before: "Add a", "b and c"
    assert list_items("* one, two\n* three") == ["one, two", "three"]
    assert list_items("+ 13033 a, b,\n+ 13034 c") == ["13033 a, b", "13034 c"]  # before: the first line split
    assert list_items("* | text()") == ["*", "text()"]  # an XPath union, no bullet


def test_the_longest_list_of_bullet_points_through_the_scripted_policy():
    q = "Which kiln release has the longest list of bullet points in its changelog?"
    assert ask_scripted(q, RST) == ("v2.1.0", "submitted")  # most_items(context, 'changelog'); before: "rebuilt"
    assert ask_scripted("Which release lists the most changes?", RST) == ("v2.1.0", "submitted")  # before: Kiln
    assert ask_scripted("Which release has the fewest changes?", MD) == ("3.0.0", "submitted")  # before: Changelog


def test_how_many_changes_a_release_lists_through_the_scripted_policy():
    assert ask_scripted("How many changes are listed for v2.1.0?", RST, "int") == (4, "submitted")  # before: 1
    assert ask_scripted("How many changes are listed for 3.1.0?", MD, "int") == (4, "submitted")
    assert ask_scripted("How many changes does kiln-4.2.0 list?", PLAIN, "int") == (2, "submitted")  # before: 14
    # the verb "changed" names no field (a field "changes" was read for it): the release is asked, as before
    assert ask_scripted("Which release changed the door seal on tall kilns?", RST) == ("v2.1.0", "submitted")
