"""How many items one part of a text lists (:func:`dspy_rlm.library.items.items_of`, the ``count_items`` read):
a list value, a key written once per item, a dotted group's keys, a record of one list; offered and vouched for
only where the question names that part (made-up files)."""

from __future__ import annotations

import pytest

from dspy_rlm.library import structure as st
from dspy_rlm.library.items import items_of, list_items
from dspy_rlm.profiles.kinds import evaluate
from dspy_rlm.profiles.moves import MoveBook
from tests.dspy_rlm.scripted import ask_scripted as _ask

PACKAGE = (
    '{"name": "kite", "version": "1.2.0", "dependencies": {"string": "^4.1", "tail": "^2.0", "spool": "^5.3"},'
    ' "devDependencies": {"wind": "^29.0", "gust": "^8.5"}}'
)
PROJECT = (
    '[project]\nname = "kite"\nversion = "0.3.1"\ndependencies = [\n  "string>=2.3",\n  "tail",\n  "spool>=0.9",\n'
    '  "reel>=2",\n]\n\n[project.optional-dependencies]\ntest = ["wind", "gust"]\n'
)
UNIT = (
    "[Unit]\nDescription=Kite flying daemon\nAfter=network.target\n\n[Service]\nExecStart=/usr/bin/kited\n"
    "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6\nDeviceAllow=/dev/kite0 rw\nDeviceAllow=/dev/kite1 rw\n"
    "DeviceAllow=/dev/spool r\nUser=kite\n\n[Install]\nWantedBy=multi-user.target\n"
)
TOX = (
    "[tox]\nenvlist = lint,py310,py311,py312\n\n[testenv]\ndeps = pytest\ncommands = pytest\n\n"
    "[testenv:lint]\ndeps =\n    ruff\n    mypy\ncommands = ruff check .\n"
)
SERVER = (
    "server:\n  host: 0.0.0.0\n  port: 8080\n  trusted_proxies:\n    - 10.0.0.1\n    - 10.0.0.2\n"
    "allowed_origins:\n  - https://a.example.com\n  - https://b.example.com\n  - https://c.example.com\n"
    "log_level: info\n"
)
PLUGINS = (
    "[console_scripts]\nkite = kite.cli:main\nreel = kite.cli:reel\n\n"
    "[kite.plugins]\na = kite.plugins:a\nb = kite.plugins:b\nc = kite.plugins:c\n"
)
PACKAGES = (
    "Package: kite\nVersion: 1.0\nDepends: string, tail, spool\n\nPackage: reel\nVersion: 2.1\nDepends: kite\n\n"
    "Package: spool\nVersion: 0.3\nDepends: kite, tail\n"
)


@pytest.mark.parametrize(
    ("value", "items"),
    [
        ("a, b, c", ["a", "b", "c"]),
        ("['x', 'y']", ["x", "y"]),
        ("- one\n- two\n- three", ["one", "two", "three"]),
        ("ruff\nmypy", ["ruff", "mypy"]),
        ("AF_UNIX AF_INET", ["AF_UNIX", "AF_INET"]),
        ("a.service b.target", ["a.service", "b.target"]),
        ("Kite flying daemon", ["Kite flying daemon"]),  # words of a sentence: one value
        ("/dev/kite0 rw", ["/dev/kite0 rw"]),  # a word among the names: one value
        ("f(a, b), c", ["f(a, b)", "c"]),
        ("PySocks>=1.5.6,<2.0,!=1.5.7, h2>=4", ["PySocks>=1.5.6,<2.0,!=1.5.7", "h2>=4"]),  # one requirement's bounds
        ("1,250", ["1,250"]),  # a number with a thousands separator
        ("", []),
    ],
)
def test_a_value_splits_into_the_items_it_lists(value, items):
    assert list_items(value) == items


def test_items_of_reads_a_list_value_a_repeated_key_a_dotted_group_and_a_record_of_one_list():
    assert items_of(UNIT, "RestrictAddressFamilies") == 3
    assert items_of(UNIT, "DeviceAllow") == 3  # written once per item
    assert items_of(PACKAGE, "dependencies") == 3  # the keys under dependencies.*, not devDependencies
    assert items_of(PROJECT, "dependencies") == 4
    assert items_of(TOX, "envlist") == 4
    assert items_of(SERVER, "allowed_origins") == 3  # a top-level key of list items: its record
    assert items_of(SERVER, "trusted_proxies") == 2  # a list under a nested key
    assert items_of(PLUGINS, "kite.plugins") == 3  # a record's entries, as size_of


def test_items_of_names_the_record_where_several_hold_the_field_and_says_what_is_wrong():
    assert "name one" in str(items_of(TOX, "deps"))
    assert items_of(TOX, "deps", "testenv:lint") == 2
    assert items_of(PACKAGES, "Depends", "kite") == 3
    assert "no field, group or record" in str(items_of(TOX, "nothing"))
    with pytest.raises(TypeError):
        items_of(TOX, "")


def test_a_yaml_list_under_a_nested_key_is_that_keys_value():
    s = st.detect(SERVER)
    assert s.records[0].get("trusted_proxies") == "- 10.0.0.1\n- 10.0.0.2"
    mapping = "jobs:\n  build:\n    steps:\n      - name: fetch\n        uses: get\n      - name: make\n"
    assert "name" in st.detect(mapping).field_names  # a list of mappings: its keys stay fields


@pytest.mark.parametrize(
    ("question", "text", "gold"),
    [
        ("How many dependencies does the package declare?", PACKAGE, "3"),
        ("how many runtime dependencies are listed?", PROJECT, "4"),
        ("How many address families is the service restricted to?", UNIT, "3"),
        ("how many device access rules does the service allow?", UNIT, "3"),
        ("How many environments are in the envlist?", TOX, "4"),
        ("how many allowed origins are configured?", SERVER, "3"),
        ("How many plugins are registered under [kite.plugins]?", PLUGINS, "3"),
        ("How many dependencies does kite have?", PACKAGES, "3"),
    ],
)
def test_how_many_items_a_named_part_lists_is_submitted(question, text, gold):
    assert _ask(question, text, "int") == (int(gold), "submitted")


def _items_read(question: str, text: str):
    book = MoveBook({"question": question}, {"context": text}, {"answer": int})
    move = next((m for m in book.read_moves() if m.kind == "count_items"), None)
    return move, (evaluate(book, move, "") if move else [])


def test_a_count_of_records_or_of_items_passing_a_test_is_not_the_items_count():
    # "how many packages depend on kite" counts records: the counted noun names no part of Depends
    assert _items_read("How many packages depend on kite?", PACKAGES)[0] is None
    move, found = _items_read("How many allowed origins end with example.com?", SERVER)
    assert move is not None and not found[0].supported and "test" in found[0].why
