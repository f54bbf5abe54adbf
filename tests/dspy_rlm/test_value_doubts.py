"""Values no read vouches for, whatever read gave them: a count of one record (it more often names the record the
question is about: every count of 1 submitted on first contact with the fourteen probes' files was wrong), a
line's label and a mark of the layout."""

from __future__ import annotations

from dspy_rlm.profiles.value_doubts import _label_or_mark
from tests.dspy_rlm.scripted import ask_scripted as _ask
from tests.dspy_rlm.test_count_present import PACKAGES


def test_a_count_of_one_record_is_not_vouched_for():
    # a count of 1 more often names the record the question is about than counts anything (aws-cn's services);
    # it is still the answer given, Extracted; a count of 2 by the same test is vouched for
    assert _ask("How many packages have an Installed-Size of at least 980?", PACKAGES, "int") == (1, "extracted")
    assert _ask("How many packages have version 2.0?", PACKAGES, "int") == (1, "extracted")
    assert _ask("How many packages have an Installed-Size of at least 600?", PACKAGES, "int") == (2, "submitted")


def test_a_label_or_a_layout_mark_is_no_value():
    assert _label_or_mark(None, None, None, "Editres.Geometry:") == "'Editres.Geometry:' is a label (it ends with ':')"
    assert _label_or_mark(None, None, None, "|") == "'|' is only ASCII punctuation"
    assert _label_or_mark(None, None, None, "\u00b1") is None  # a sign or an emoji is a value
    assert _label_or_mark(None, None, None, "\U0001f9a6") is None
    assert _label_or_mark(None, None, None, "500x568") is None
    assert _label_or_mark(None, None, None, "a:b") is None
