"""Counting the records that have a field (``count_if(V, F, 'present')``): "how many entries carry at least one
Documentation line?" (the fourteenth probe's message catalog); a bound in words ("at least one", "at most 2")
is no ranking cue, and a numeric bound is a test the count applies."""

from __future__ import annotations

import pytest

from dspy_rlm.library import lookup
from tests.dspy_rlm.scripted import ask_scripted as _ask

PACKAGES = "\n".join(
    f"Package: {name}\nVersion: {version}\nInstalled-Size: {size}\n"
    + (f"Homepage: https://{name}.example.org\n" if home else "")
    + (f"Recommends: {rec}\n" if rec else "")
    + f"Description: the {name} tool\n"
    for name, version, size, home, rec in [
        ("anchor", "1.2", 120, True, "rope"),
        ("buoy", "0.9", 640, False, ""),
        ("cleat", "2.0", 75, True, ""),
        ("davit", "3.1", 980, True, "winch, rope"),
        ("eyelet", "1.0", 30, False, ""),
        ("fender", "4.4", 510, False, "rope"),
    ]
)


def test_the_present_test_counts_records_with_a_value():
    assert lookup.count_if(PACKAGES, "Homepage", "present") == 3
    assert lookup.count_if(PACKAGES, "Homepage", "empty") == 3
    with pytest.raises(ValueError, match="present"):
        lookup.count_if(PACKAGES, "Homepage", "there")


def test_a_count_of_the_records_having_a_field_is_submitted():
    assert _ask("How many packages have a Homepage?", PACKAGES, "int") == (3, "submitted")
    assert _ask("How many entries carry at least one Recommends line?", PACKAGES, "int") == (3, "submitted")


def test_a_numeric_bound_is_applied_and_a_narrower_count_is_not_vouched_for():
    assert _ask("How many packages have an Installed-Size of at least 510?", PACKAGES, "int") == (3, "submitted")
    answer, kind = _ask("How many packages recommend rope and have a Homepage?", PACKAGES, "int")
    assert kind != "submitted" or answer == 2


def test_a_bound_outside_a_count_is_still_a_test_no_read_applies():
    answer, kind = _ask("Does any package have an Installed-Size of at least 990?", PACKAGES, "bool")
    assert kind != "submitted" or answer is False  # 980 is the largest
