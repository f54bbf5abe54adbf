"""Which record's list is longest / shortest (``most_items`` / ``fewest_items``), asked in words, and a JSON
document that is one object (a manifest, a settings file) read as one record."""

from __future__ import annotations

import json

import pytest

from dspy_rlm.library import structure as st
from dspy_rlm.library.items import fewest_items, items_of, most_items
from dspy_rlm.library.results import Nothing
from dspy_rlm.profiles.kinds import evaluate
from dspy_rlm.profiles.moves import MoveBook
from tests.dspy_rlm.scripted import ask_scripted as _ask

TEAMS = (
    "[web]\nmembers = ann, bob, cy\nowner = xa\n\n[ops]\nmembers = dee, eve\nowner = yo\n\n"
    "[data]\nmembers = fay, gus, hal, ivy\nowner = zed\nid = 7\n"
)
EXTRAS = (
    '[project]\nname = "kite"\ndependencies = ["rich"]\n\n[project.optional-dependencies]\n'
    'brotli = ["brotli>=1", "brotlicffi"]\nsocks = ["pysocks"]\nzstd = ["zstandard", "backports.zstd", "cffi"]\n'
)
APIS = (
    "apis:\n  - name: hub\n    versions:\n      - v1\n      - v1beta\n      - v2\n"
    "  - name: compute\n    versions:\n      - v1\n  - name: dns\n    versions: [v1, v2]\n"
)
POOLS = json.dumps(
    {"version": "2.1", "pools": {"east": ["h1", "h2"], "west": ["h3", "h4", "h5"], "north": ["h6"]}}, indent=2
)


def test_the_longest_and_shortest_list_in_every_shape():
    assert tuple(most_items(TEAMS, "members")) == ("data", "4")
    assert tuple(fewest_items(TEAMS, "members")) == ("ops", "2")
    assert tuple(most_items(EXTRAS, "optional-dependencies")) == ("zstd", "3")  # the fields of a record
    assert tuple(most_items(APIS, "versions")) == ("hub", "3")  # a YAML list of mappings
    assert tuple(fewest_items(POOLS, "pools")) == ("north", "1")  # a dotted group of one JSON object


def test_ties_numbers_and_missing_lists_say_why_there_is_no_answer():
    tied = "[a]\nm = x, y\n\n[b]\nm = z, w\n\n[c]\nm = q\n"
    assert isinstance(most_items(tied, "m"), Nothing) and "tie" in str(most_items(tied, "m"))
    assert tuple(fewest_items(tied, "m")) == ("c", "1")
    assert isinstance(most_items(TEAMS, "owner"), Nothing)  # one item each: no lists to compare
    assert isinstance(most_items(TEAMS, "nothing"), Nothing)
    assert items_of("[a]\nsize = 1,250\n", "size") == 1  # a number with a thousands separator is one item


def test_a_json_document_of_one_object_is_one_record():
    s = st.detect(POOLS)
    assert s.kind == "json" and len(s.records) == 1
    assert dict(s.records[0].fields)["pools.west"] == "h3, h4, h5"
    assert items_of(POOLS, "pools.west") == 3


@pytest.mark.parametrize(
    ("question", "text", "gold"),
    [
        ("Which team has the most members?", TEAMS, "data"),
        ("which section lists the fewest members?", TEAMS, "ops"),
        ("Which optional-dependencies extra lists the most requirements?", EXTRAS, "zstd"),
        ("Which API lists the largest number of versions?", APIS, "hub"),
        ("Which pool has the fewest hosts?", POOLS, "north"),
    ],
)
def test_which_record_lists_the_most_is_submitted(question, text, gold):
    assert _ask(question, text) == (gold, "submitted")


def test_a_ranking_by_value_is_no_ranking_by_list():
    book = MoveBook({"question": "Which team has the largest id?"}, {"context": TEAMS}, {"answer": str})
    assert not [m for m in book.read_moves() if m.kind == "most_items"]
    book = MoveBook({"question": "Which team's members has the longest name?"}, {"context": TEAMS}, {"answer": str})
    found = [c for m in book.read_moves() if m.kind == "most_items" for c in evaluate(book, m, "")]
    assert not any(c.supported for c in found)  # no count of items asked ("the most X")
    zones = "[east]\ncodes = US, CA, MX\n\n[west]\ncodes = US\n\n[north]\ncodes = CA, US\n"
    book = MoveBook(
        {"question": "Which of the codes is shared by the most zones?"}, {"context": zones}, {"answer": str}
    )
    found = [c for m in book.read_moves() if m.kind == "most_items" for c in evaluate(book, m, "")]
    assert found and not any(c.supported for c in found)  # the zones are counted, not the codes a zone lists


def test_a_setting_is_named_by_its_last_word_where_nothing_names_more_of_it():
    profiles = "[savo]\noptional_locales = a_B, c_D, e_F\n\n[ostven]\noptional_locales = g_H\n\n[anguix]\n"
    profiles += "optional_locales = i_J, k_L\nowner = mo\n"
    assert _ask("Which profile has the most locales?", profiles) == ("savo", "submitted")
    assert _ask("How many locales are listed for anguix?", profiles, "int") == (2, "submitted")


def test_a_setting_named_as_the_data_spells_it_is_counted():
    package = json.dumps(
        {"name": "kite", "dependencies": {"a": "1", "b": "2"}, "devDependencies": {"c": "1", "d": "2", "e": "3"}},
        indent=2,
    )
    assert _ask("how many devDependencies are listed?", package, "int") == (3, "submitted")
    assert _ask("How many dependencies does this package declare?", package, "int") == (2, "submitted")
