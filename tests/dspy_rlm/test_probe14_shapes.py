"""Shapes and wordings the fourteenth probe (``benchmarks/asked/probe14.json``) met on its first run, each rebuilt
as a small made-up file: records opened by a marker line over ``Key: value`` headers and a body (a message
catalog, ``git log``), a reStructuredText simple table amid prose, a brace tree under a long ``/* */`` comment,
quoted ``name=value`` list items, and counts that leave out a number, a wildcard or a quoted value's words."""

from __future__ import annotations

from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted as _ask

CATALOG = "# Made-up message catalog\n\n" + "".join(
    f"-- {mid}\nSubject: {subject}\nDefined-By: harbourd\nSupport: https://harbour.example/help\n"
    + (f"Documentation: man:{doc}\n" if doc else "")
    + f"\nThe harbour daemon logged: {subject.lower()}.\nNothing needs to be done.\n\n"
    for mid, subject, doc in [
        ("a1b2c3d4e5f60718293a4b5c6d7e8f90", "Boat docked", "dock(8)"),
        ("0f1e2d3c4b5a69788796a5b4c3d2e1f0", "Boat left the harbour", "dock(8)"),
        ("11223344556677889900aabbccddeeff", "Crane stopped", ""),
        ("ffeeddccbbaa00998877665544332211", "Tide warning raised", "tide(5)"),
        ("5a5a5a5a6b6b6b6b7c7c7c7c8d8d8d8d", "Pier closed", ""),
    ]
)

GIT_LOG = "".join(
    f"commit {sha}\nAuthor: {who} <{who.lower()}@harbour.example>\nDate:   Mon Mar 2 1{n}:00:00 2026 +0000\n\n"
    f"    {subject}\n\n"
    for n, (sha, who, subject) in enumerate(
        [
            ("9f8e7d6c5b4a39281706f5e4d3c2b1a098765432", "Ada", "Add the tide table"),
            ("1234567890abcdef1234567890abcdef12345678", "Brook", "Fix the crane timeout"),
            ("abcdefabcdefabcdefabcdefabcdefabcdefabcd", "Cove", "Document the pier hours"),
        ]
    )
)


def test_records_open_at_a_marker_line_over_headers_and_a_body():
    catalog = detect(CATALOG)
    assert (catalog.kind, catalog.detail, len(catalog.records)) == ("stanzas", "marked", 5)  # before: lines
    crane = {r.key: r for r in catalog.records}["11223344556677889900aabbccddeeff"]
    assert crane.get("Subject") == "Crane stopped" and crane.get("id") == crane.key
    assert "logged: crane stopped" in (crane.get("text") or "")
    log = detect(GIT_LOG)
    assert (log.kind, log.detail) == ("stanzas", "marked")
    assert [r.get("Author") for r in log.records][1] == "Brook <brook@harbour.example>"
    assert log.records[2].get("text") == "Document the pier hours"


def test_a_marked_record_is_read_both_ways():
    assert _ask("what's the Subject of catalog message 11223344556677889900aabbccddeeff?", CATALOG) == (
        "Crane stopped",
        "submitted",
    )
    assert _ask("Give the message ID whose subject is 'Tide warning raised'.", CATALOG) == (
        "ffeeddccbbaa00998877665544332211",
        "submitted",
    )


RST = """.. _boats:

Harbour boats dataset
---------------------

The harbour office measured the boats that moored here over one summer. Each boat was
weighed and measured twice, and the figures below are the summary of those visits.

:Summary Statistics:

=================== ===== ====== ====== =====
                      Min    Max   Mean    SD
=================== ===== ====== ====== =====
Length:              4.1   18.2    9.9   3.1
Beam:                1.6    5.5    3.2   0.9
Draft:               0.3    2.8    1.1   0.5
Mast Height:         0.0   24.0   11.4   6.2
Crew:                  1     12      4     2
=================== ===== ====== ====== =====

:Missing Attribute Values: None
:Creator: The Harbour Office

The figures were rounded to one decimal. The office keeps the raw measurements.
Boats that moored for less than one night were left out of the summary above.
A boat that came back later in the summer was measured again on each visit.
"""


def test_a_simple_table_amid_prose_is_read_by_its_columns():
    s = detect(RST)
    assert s.kind == "prose"
    rows = {r.key: r for r in s.records if r.key}
    assert rows["Mast Height"].fields == (("Min", "0.0"), ("Max", "24.0"), ("Mean", "11.4"), ("SD", "6.2"))
    assert {"Creator", "Missing Attribute Values"} <= set(s.field_names)
    assert _ask("What's the mean Beam value?", RST) == ("3.2", "submitted")  # before: 1.6 after 'Beam:'
    assert _ask("which measurement has the largest SD?", RST) == ("Mast Height", "submitted")


APT_LIKE = (
    "/* Made-up index of the harbour configuration.\n   Every option of the tree is listed below:\n"
    "   Scope notation such as Harbour::Crane::Timeout works too.\n*/\n\n"
    'Harbour {\n  Name "<STRING>";\n  Crane {\n    Timeout "<INT>"; // seconds (default: 30)\n'
    '    Operator "<STRING>";\n  };\n  Pier {\n    Hours "<STRING>";\n    Lights "<BOOL>";\n  };\n};\n\n'
    'Tide {\n  Source "tide.example";\n  Refresh "<INT>";\n};\n\n'
    'Dock {\n  Berths "12";\n  Agent "Harbour Office HTTP/1.1";\n};\n'
)


def test_a_brace_tree_under_a_block_comment_is_read_as_blocks():
    s = detect(APT_LIKE)
    assert (s.kind, s.detail) == ("blocks", "braces")  # before: lines (the comment's lines were judged)
    assert {r.key: r for r in s.records}["Harbour"].get("Crane.Timeout") == "<INT>"
    assert _ask("Which agent string does the Dock section give?", APT_LIKE) == ("Harbour Office HTTP/1.1", "submitted")


def test_quoted_name_value_items_are_fields():
    text = 'set(RELEASES\n  "R2020a=4.8"\n  "R2020b=4.9"\n  "R2021a=4.10"\n)\n'
    s = detect(text)
    assert {f: v for r in s.records for f, v in r.fields}["R2021a"] == "4.10"


MODULES = "# module FROM TO FILE COST\n" + "".join(
    f"module {a}// {b}// {a} {cost}\n" for a, b, cost in [("BOAT", "INTERNAL", 1), ("SHIP", "INTERNAL", 2),
    ("RAFT", "INTERNAL", 1), ("YACHT", "INTERNAL", 2), ("SKIFF", "INTERNAL", 1), ("SLOOP", "INTERNAL", 1)]
) + "".join(f"alias {a}// {b}//\n" for a, b in [("DINGHY", "BOAT"), ("LINER", "SHIP"), ("PUNT", "RAFT")])  # fmt: skip

SWITCHES = "".join(
    f"{name} = {value}\n"
    for name, value in [("enable_tide", "yes"), ("enable_crane", "no"), ("with_pier", "yes"), ("enable_dock", "yes"),
    ("with_lights", "no"), ("enable_radio", "yes"), ("mooring", "auto")]
)  # fmt: skip


def test_a_count_that_leaves_out_a_stated_number_or_wildcard_is_not_submitted():
    answer, kind = _ask("How many module lines have a cost of 2?", MODULES)
    assert kind != "submitted" or answer == 2  # before: 6 module lines, submitted
    answer, kind = _ask("How many of the enable_* switches are set to yes?", SWITCHES)
    assert kind != "submitted" or answer == 3


def test_a_word_of_a_quoted_value_is_no_answer():
    text = "".join(
        f'{k:<10} "{v}"\n'
        for k, v in [("title", "Harbour locale for Northport"), ("source", "Harbour Office"), ("language", "Harbour"),
        ("territory", "Northport"), ("revision", "1.2"), ("date", "2024-03-01")]
    )  # fmt: skip
    answer, kind = _ask("What's the locale's title?", "LC_IDENTIFICATION\n" + text + "END LC_IDENTIFICATION\n")
    assert kind != "submitted" or answer == "Harbour locale for Northport"  # before: 'Northport', submitted


def test_the_largest_value_of_one_column_is_no_answer_for_another_column_named():
    from dspy_rlm.profiles import kinds
    from dspy_rlm.profiles.moves import MoveBook

    def largest_max(q: str) -> list[tuple]:
        book = MoveBook({"question": q}, {"context": RST}, {"answer": float})
        move = next(m for m in book.read_moves() if m.helper == "max_of" and m.args[:1] == ("Max",))
        return [(c.value, c.supported) for c in kinds.evaluate(book, move, "") if c.value in ("24.0", 24.0)]

    assert not any(ok for _, ok in largest_max("Find the measurement with the highest Max and tell me its SD."))
    assert any(ok for _, ok in largest_max("What is the highest Max value of any measurement?"))
    answer, kind = _ask("Find the measurement with the highest Max and tell me its SD.", RST, "float")
    assert kind != "submitted" or answer == 6.2
    assert _ask("What is the highest Max value of any measurement?", RST, "float") == (24.0, "submitted")
