"""A column named by its place in the row ("the 4th column", "column 2", "the last column"): on a table that names
no column (a CSV without a header row) it is the only name a field has, and the read of that column is vouched for."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from dspy_rlm.library.structure import detect
from dspy_rlm.profiles.naming import column_fields
from tests.dspy_rlm.scripted import ask_scripted


def _rows() -> list[list[str]]:
    rng = random.Random(21)
    return [
        [f"{rng.uniform(1, 9):.1f}", f"{rng.uniform(1, 9):.1f}", rng.choice(["0.2", "0.2", "1.3", "1.8"]), f"k{i}"]
        for i in range(60)
    ]


def _csv(rows: list[list[str]]) -> str:
    return "".join(",".join(r) + "\n" for r in rows)


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("what value appears most often in the 3rd column?", ["col3"]),
        ("In column 2, how many values exceed 5?", ["col2"]),
        ("Which value is the most common in the third column (width)?", ["col3"]),
        ("what is in the last column of the row?", ["col4"]),
        ("what is in the 9th column?", []),  # no such column
    ],
)
def test_a_place_names_the_column(question, named):
    assert column_fields(question, detect(_csv(_rows()))) == named


def test_a_place_names_no_field_of_what_is_no_table():
    assert column_fields("the second column", detect("[a]\nx = 1\ny = 2\n\n[b]\nx = 3\n")) == []


def test_the_most_common_value_of_a_column_named_by_its_place():
    rows = _rows()
    top = Counter(r[2] for r in rows).most_common(1)[0][0]
    assert ask_scripted("What value appears most often in the 3rd column?", _csv(rows)) == (top, "submitted")


def test_a_count_over_a_column_named_by_its_place():
    rows = _rows()
    gold = sum(float(r[1]) > 5 for r in rows)
    question = "How many rows have a width (2nd column) greater than 5?"
    assert ask_scripted(question, _csv(rows), "int") == (gold, "submitted")


def test_a_first_line_of_counts_and_names_does_not_outrank_the_rows():
    rows = [[f"{i % 7 + 1}.{i % 10}", f"{i % 4 + 2}.0", f"{i % 5}.5", f"0.{i % 9}", str(i % 3)] for i in range(60)]
    text = "60,4,small,medium,large\n" + _csv(rows)  # a header of counts and class names, read as a row
    answer, kind = ask_scripted("What is the biggest value in the first column?", text, "float")
    assert not (kind == "submitted" and answer == 60.0), (answer, kind)
