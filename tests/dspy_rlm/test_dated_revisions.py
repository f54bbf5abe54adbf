"""Shapes from probe 46's changelog questions, on an invented changelog whose headings say "Revision X, released
DD-MM-YYYY" (day first, dashes) over a line of dashes: its revisions are records keyed by their version with a
date field; the year most of them fall in, the earliest, another revision of the same day and the one whose text
says a phrase are read from them. Each test failed before its change (the text read as lines; no year grouping;
"same day" named no field; "count ... headings that carry a date" read as a count and a second step)."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from dspy_rlm.library import superlatives
from dspy_rlm.library.valueforms import _date, _year
from tests.dspy_rlm.scripted import ask_scripted

_REVISIONS = [
    ("2.4.0", "14-03-2026", "Added the kettle whistle"),
    ("2.3.1", "02-11-2025", "Fixed the lid hinge"),
    ("2.3.0", "02-11-2025", "Added a second spout"),
    ("2.2.0", "19-06-2025", "Reworded the pouring guide"),
    ("2.1.0", "30-01-2024", "Dropped the copper base"),
    ("2.0.0", "", "First glazed release"),
]
CHANGES = "".join(
    f"Revision {v}{', released ' + d if d else ''}\n{'-' * 40}\n\n- {text}\n  [pr #{n}](https://example.org/{n})\n\n"
    for n, (v, d, text) in enumerate(_REVISIONS)
)


def test_a_day_first_date_reads_as_a_date_and_a_month_first_one_where_the_day_cannot_be_first():
    assert _year("14-03-2026") == 2026 and _year("03.07.2019") == 2019
    assert _date("02-11-2025") > _date("19-06-2025")  # the 2nd of November after the 19th of June
    assert _date("12-31-2020") is not None  # no 31st month: the month is first


def test_revision_headings_with_day_first_dates_are_records_keyed_by_their_version():
    s = st.detect(CHANGES)
    assert s.detail == "dated sections"  # before: one record per line
    assert [(r.key, r.get("date")) for r in s.records][:2] == [("2.4.0", "14-03-2026"), ("2.3.1", "02-11-2025")]
    assert s.records[-1].key == "2.0.0" and s.records[-1].get("date") is None  # an undated revision: no date


def test_the_year_most_dated_records_fall_in():
    assert superlatives.most_common(CHANGES, "date", None, "year") == "2025"
    answer = ask_scripted("In which year were the most revisions released?", CHANGES, "int")
    assert answer == (2025, "submitted")


def test_a_count_instruction_after_the_question_names_no_count_and_no_second_step():
    q = "In which year were the most revisions released? Only count revision headings that carry a release date."
    assert ask_scripted(q, CHANGES, "int") == (2025, "submitted")  # before: 6 (the revisions), Extracted


def test_the_earliest_dated_revision_ranks_day_first_dates_by_date():
    q = "Of the revisions that state a release date, which one was released earliest?"
    assert ask_scripted(q, CHANGES) == ("2.1.0", "submitted")


def test_another_revision_of_the_same_day():
    q = "Revision 2.3.1 came out on the same day as another revision. Which one?"
    assert ask_scripted(q, CHANGES) == ("2.3.0", "submitted")  # before: the date, Extracted


_RELEASES = [
    ("kiln-3.1.0", "14 March 2026", ["Glaze rule editor", "Faster cooling"]),
    ("kiln-3.0.2", "02 November 2025", ["Door seal fix"]),
    ("kiln-3.0.1", "02 November 2025", []),
    ("kiln-3.0.0", "19 June 2025", ["New firing planner", "Vent schedule", "Bisque presets"]),
    ("kiln-2.9.0", "30 January 2024", ["Writes the firing log to VERSION.txt readers"]),
]
PLAIN = "".join(
    f"{name} - {date}\n" + "".join(f" + {100 + n} {item}\n" for n, item in enumerate(items)) + "\n"
    for name, date, items in _RELEASES
)


def test_plain_dated_lines_over_lists_are_releases():
    s = st.detect(PLAIN)
    assert s.detail == "dated sections"  # before: one record per '+' item, the release lines none
    assert [(r.key, r.get("date")) for r in s.records][:3] == [
        ("kiln-3.1.0", "14 March 2026"),
        ("kiln-3.0.2", "02 November 2025"),
        ("kiln-3.0.1", "02 November 2025"),  # a release of no items: the next release line follows
    ]
    assert "Vent schedule" in s.records[3].text
    assert superlatives.most_common(PLAIN, "date", None, "year") == "2025"


def test_a_version_after_a_dash_names_its_release_and_the_file_named_as_the_source_none():
    # "When was jetty 12.0.18 released, according to the VERSION.txt shipped with X?": the file's name, which
    # one release's notes mention, was read, and that release's date Submitted
    q = "When was kiln 3.0.0 released, according to the VERSION.txt shipped with the yard kit?"
    assert ask_scripted(q, PLAIN) == ("19 June 2025", "submitted")


def test_a_logs_dated_lines_head_no_sections():
    log = "".join(f"2024-05-{d:02d} 10:00:00 INFO kiln: firing {d} done\n" for d in range(1, 20))
    log += "2024-05-20 10:00:00 WARN kiln: items left\n- cup\n- bowl\n"
    assert st.detect(log).detail != "dated sections"  # every line is dated: one over a list makes no changelog
