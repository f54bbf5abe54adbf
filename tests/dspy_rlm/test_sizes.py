"""The size reads (:mod:`dspy_rlm.profiles.sizes`): how many entries a record lists, and the record listing the
most / fewest, offered only where the records list entries of their own (made-up files)."""

from __future__ import annotations

from dspy_rlm.library import items
from dspy_rlm.profiles.kinds import evaluate
from dspy_rlm.profiles.moves import MoveBook

GROUPS = """[lake.commands]
row = lake.boats:row
sail = lake.boats:sail
anchor = lake.boats:anchor
moor = lake.dock:moor
drift = lake.boats:drift

[lake.writers]
log.txt = lake.writers:write_log
map.txt = lake.writers:write_map

[lake.hooks]
before = lake.hooks:before
after = lake.hooks:after
cleanup = lake.hooks:cleanup
"""

STANZAS = """Package: oar
Version: 1.0
Depends: wood, glue

Package: boat
Version: 2.1
Depends: oar
Priority: optional

Package: dock
Version: 0.3
"""


def _book(question: str, text: str, out: type = str) -> MoveBook:
    return MoveBook({"question": question}, {"context": text}, {"answer": out})


def _read(book: MoveBook, helper: str):
    move = next((m for m in book.read_moves() if m.helper == helper), None)
    return move, (evaluate(book, move, "") if move else [])


def test_the_helpers_count_and_rank_entries():
    assert items.size_of(GROUPS, "lake.writers") == 2 and items.size_of(GROUPS, "no.such.group") == 0
    assert tuple(items.most_fields(GROUPS)) == ("lake.commands", "5")
    assert tuple(items.fewest_fields(GROUPS)) == ("lake.writers", "2")
    assert str(items.most_fields("")) == "no record has fields"


def test_how_many_entries_a_named_group_lists_is_supported():
    move, found = _read(_book("How many commands are registered under [lake.commands]?", GROUPS, int), "size_of")
    assert move is not None and (found[0].value, found[0].supported) == ("5", True)


def test_an_entry_named_makes_the_size_no_answer():
    book = _book("How many arguments does sail take in [lake.commands]?", GROUPS, int)
    move, found = _read(book, "size_of")
    assert move is not None and (found[0].value, found[0].supported) == ("5", False)


def test_the_group_with_the_most_and_fewest_entries():
    _, found = _read(_book("Which group in this file contains the most entries?", GROUPS), "most_fields")
    assert [(c.value, c.supported) for c in found] == [("lake.commands", True), ("5", False)]
    _, found = _read(_book("which group has the fewest entries?", GROUPS), "fewest_fields")
    assert found[0].value == "lake.writers" and found[0].supported


def test_records_of_one_schema_list_no_entries():
    # a package's size is no answer: "how many ... does oar have" asks for something else
    assert _read(_book("How many fields does the boat package have?", STANZAS, int), "size_of")[0] is None
    assert _read(_book("Which package has the most dependencies?", STANZAS), "most_fields")[0] is None


def test_an_entry_named_in_a_ranking_leaves_it_supported_but_a_shared_field_does_not():
    # "map.txt" is one group's entry (a file's name, say), no field the ranking could be by
    _, found = _read(_book("Which group, map.txt's among them, lists the most entries?", GROUPS), "most_fields")
    assert (found[0].value, found[0].supported) == ("lake.commands", True)  # before: unsupported
    ranked = GROUPS.replace("]\n", "]\npriority = 1\n")
    _, found = _read(_book("Which group with a priority lists the most entries?", ranked), "most_fields")
    assert found[0].value == "lake.commands" and not found[0].supported
