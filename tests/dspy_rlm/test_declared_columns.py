"""Probe 5's leftovers on a table whose columns are declared above its rows (ARFF), each rebuilt on a small
made-up file of that shape:

* the rows were read as unnamed cells (``col1``..), so no question could name a column;
* a question says a column's name in two words ("sepal width") that the file writes joined (``sepalwidth``);
* "does any X have a Y above 2?" tests a number over the records X names: it was answered by whether the
  question's words exist, not by the test.
"""

from __future__ import annotations

from dspy_rlm.library.structure import detect
from dspy_rlm.profiles.spellings import field_forms
from tests.dspy_rlm.scripted import ask_scripted as _ask

ROWS = [
    (5.0, 3.1, 1.2, "Alba"),
    (5.4, 3.4, 1.5, "Alba"),
    (4.9, 3.0, 1.4, "Alba"),
    (6.1, 2.2, 4.1, "Borea"),
    (6.3, 2.9, 4.4, "Borea"),
    (5.8, 3.4, 3.9, "Borea"),
    (7.0, 3.4, 5.9, "Cyra"),
    (6.6, 3.0, 5.2, "Cyra"),
]
ARFF = (
    "% A made-up sample of three kinds of leaf\n"
    "%\n"
    "% Source: nobody, 2026\n"
    "\n"
    "@RELATION leaves\n"
    "\n"
    "@ATTRIBUTE bladelength REAL\n"
    "@ATTRIBUTE bladewidth\tREAL\n"
    "@ATTRIBUTE stemlength REAL\n"
    "@ATTRIBUTE kind {Alba,Borea,Cyra}\n"
    "\n"
    "@DATA\n" + "".join(f"{a},{b},{c},{k}\n" for a, b, c, k in ROWS) + "%\n"
)


def test_columns_declared_above_the_rows_name_the_fields():
    s = detect(ARFF)
    assert (s.kind, s.detail) == ("table", "declared")
    assert s.field_names == ("bladelength", "bladewidth", "stemlength", "kind")
    assert len(s.records) == len(ROWS)
    assert s.records[3].fields == (
        ("bladelength", "6.1"),
        ("bladewidth", "2.2"),
        ("stemlength", "4.1"),
        ("kind", "Borea"),
    )
    assert s.records[0].line == 13  # the rows keep their own line numbers


def test_words_written_apart_name_a_field_written_joined():
    fields = {"bladelength", "bladewidth", "kind"}
    assert field_forms(["blade", "width"], fields) == {"bladewidth", "+bladewidth"}  # "+": named by words joined
    assert field_forms(["blade", "kind"], fields) == set()  # no join names a field
    assert field_forms(["kind"], {"kind", "kind_name"}) == set()  # a name said as its own words needs no join


def test_a_column_said_in_two_words_is_ranked_and_counted():
    assert _ask("What kind is the leaf with the smallest blade width?", ARFF)[0] == "Borea"
    assert _ask("Which blade width value shows up most often in the data?", ARFF) == ("3.4", "submitted")


def test_a_number_test_over_the_records_a_value_names():
    assert _ask("Does any Alba sample have a stem length above 2?", ARFF, "bool") == (False, "submitted")
    assert _ask("Does any Borea sample have a stem length above 4?", ARFF, "bool") == (True, "submitted")
    assert _ask("Do all Cyra samples have a stem length above 5.5?", ARFF, "bool") == (False, "submitted")
