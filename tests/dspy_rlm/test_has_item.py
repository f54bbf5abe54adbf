"""Whether an item is one of the items a named part of the data lists (``has_item``), asked yes/no in words: the
phrase asked about is told from the record holding the list, the words qualifying either, and the words of the
asking; an existence check does not answer it where the item is listed elsewhere."""

from __future__ import annotations

import json

import pytest

from dspy_rlm.library import structure as st
from dspy_rlm.library.items import has_item, items_of
from dspy_rlm.library.results import Nothing
from dspy_rlm.profiles.kinds import evaluate
from dspy_rlm.profiles.members import item_phrase, member_parts
from dspy_rlm.profiles.moves import MoveBook
from tests.dspy_rlm.scripted import ask_scripted as _ask

TEAMS = "[web]\nowner = ada\nmembers = ada, bob, cy\n\n[db]\nowner = dee\nmembers = eve, fay\n"
PACKAGE = json.dumps(
    {
        "name": "demo-app",
        "version": "1.2.0",
        "dependencies": {"express": "^4.0.0", "chalk": "^5.0.0"},
        "devDependencies": {"jest": "^29.0.0", "eslint": "^8.0.0"},
    },
    indent=2,
)
UNIT = (
    "[Service]\nExecStart=/usr/bin/foo\nRestrictAddressFamilies=AF_UNIX AF_NETLINK\nSystemCallFilter=@system-service\n"
)
STAGES = (
    "stages:\n  - name: build\n    image: gcc\n    steps: [fetch, compile, link]\n"
    "  - name: test\n    image: py\n    steps: [fetch, pytest]\n"
)
MIRRORS = "[east]\nmirrors = https://a.example.org/pub, https://b.example.org/pub\n\n[west]\nmirrors = /srv/mirror\n"
GROUPS = json.dumps({"version": "2", "pools": {"east": ["h1.org", "h2.org"], "west": ["h3.org"]}}, indent=2)


def test_has_item_reads_lists_groups_and_versions():
    assert has_item(TEAMS, "members", "bob", "web") is True
    assert has_item(TEAMS, "members", "eve", "web") is False  # another record lists it
    assert has_item(PACKAGE, "dependencies", "jest") is False and has_item(PACKAGE, "devDependencies", "JEST") is True
    assert has_item(UNIT, "RestrictAddressFamilies", "AF_INET") is False
    assert has_item("[a]\nrequires = requests>=2.0, libc6 (>= 2.34)\n", "requires", "libc6") is True
    assert has_item("[a]\nrequires = requests>=2.0\n", "requires", "requests>=2.0") is True
    assert has_item("[a]\nrequires = AF_INET6\n", "requires", "AF_INET") is False  # a name, not a prefix
    assert isinstance(has_item(TEAMS, "members", "bob"), Nothing)  # two records list members: name one
    assert isinstance(has_item(TEAMS, "nothing", "bob"), Nothing)
    assert items_of(TEAMS, "members", "web") == 3  # the count reads the same items


@pytest.mark.parametrize(
    ("question", "text", "gold"),
    [
        ("Is bob one of the members of web?", TEAMS, True),
        ("Is eve among web's members?", TEAMS, False),
        ("Is zed one of the db members?", TEAMS, False),
        ("is jest one of demo-app's runtime dependencies?", PACKAGE, False),
        ("Is chalk one of the dependencies?", PACKAGE, True),
        ("Is eslint listed in devDependencies?", PACKAGE, True),
        ("Is AF_UNIX one of the address families the service may use?", UNIT, True),
        ("Is AF_INET6 among the allowed address families?", UNIT, False),
        ("Does the test stage have compile among its steps?", STAGES, False),
        ("Is link one of the steps of the build stage?", STAGES, True),
        ("Check whether https://b.example.org/pub is one of east's mirrors.", MIRRORS, True),
        ("/srv/mirror: is it one of the mirrors of east?", MIRRORS, False),
        ("Is h3.org one of the hosts of the west pool?", GROUPS, True),
    ],
)
def test_membership_asked_in_words_is_submitted(question, text, gold):
    assert _ask(question, text, "bool") == (gold, "submitted")


def test_the_item_is_told_from_the_owner_its_noun_qualifiers_and_the_asking():
    def item(question: str, text: str) -> str | None:
        book = MoveBook({"question": question}, {"context": text}, {"answer": bool})
        (name, _owner), *rest = member_parts(book, "context")
        assert not rest
        return item_phrase(book, "context", name)

    assert item("is jest one of demo-app's runtime dependencies?", PACKAGE) == "jest"
    assert item("Does the team web list cy among its members?", TEAMS) == "cy"  # not the team's noun
    assert item("Chekc whether bob is one of web's members", TEAMS) == "bob"  # a typo of the asking
    assert item("Confirm if web lists zed as a member", TEAMS) == "zed"
    assert item("Check whether https://b.example.org/pub is one of east's mirrors", MIRRORS) == (
        "https://b.example.org/pub"  # the whole address, not its first word
    )


def test_no_list_named_leaves_the_existence_check():
    book = MoveBook({"question": "Is there a section called db?"}, {"context": TEAMS}, {"answer": bool})
    assert not member_parts(book, "context") and not [m for m in book.read_moves() if m.kind == "has_item"]
    assert _ask("Is there a section called db?", TEAMS, "bool") == (True, "submitted")
    # a setting of one value is no list: "is the owner of web ada?" is no membership
    book = MoveBook({"question": "Is ada the owner of web?"}, {"context": TEAMS}, {"answer": bool})
    assert not member_parts(book, "context")


def test_an_existence_check_does_not_answer_a_membership():
    book = MoveBook({"question": "Is jest one of the dependencies?"}, {"context": PACKAGE}, {"answer": bool})
    found = [c for m in book.read_moves() if m.kind == "exists" for c in evaluate(book, m, "")]
    assert found and not any(c.supported for c in found)  # jest is in the file, in devDependencies
    two = "[a]\nusers = x, y\nadmins = x, z\n"
    book = MoveBook({"question": "Is x one of the users and admins?"}, {"context": two}, {"answer": bool})
    found = [c for m in book.read_moves() if m.kind == "has_item" for c in evaluate(book, m, "")]
    assert found and not any(c.supported for c in found)  # two lists named: no one answer


def test_a_folded_value_with_blank_lines_does_not_end_the_header():
    metadata = (
        "Metadata-Version: 2.4\nName: kite\nVersion: 1.0\nLicense: MIT License\n        \n"
        "        Permission is hereby granted, free of charge.\n        \n        THE SOFTWARE IS PROVIDED AS IS.\n"
        "Requires-Python: >=3.10\nRequires-Dist: requests>=2.0\nRequires-Dist: rich; extra == 'cli'\n\n"
        "# kite\n\nA README body.\n"
    )
    s = st.detect(metadata)
    assert s.kind == "stanzas" and len(s.records) == 1 and s.records[0].key == "kite"
    assert "Requires-Dist" in s.field_names and items_of(metadata, "Requires-Dist") == 2
    assert _ask("Does kite require rich (Requires-Dist)?", metadata, "bool") == (True, "submitted")
    assert _ask("Is httpx one of the packages kite lists in Requires-Dist?", metadata, "bool") == (False, "submitted")
    # an empty line still ends a stanza: two Debian paragraphs stay two records
    control = "Package: a\nDepends: x, y\n\nPackage: b\nDepends: z\n"
    assert len(st.detect(control).records) == 2
