"""Wrong answers the probe cases (``benchmarks/asked/probe.json``: real files no benchmark used, questions by
someone who never saw the code) ended ``Submitted``, each rebuilt here on a small file of its shape:

* a yes/no question naming a field whose value says false ("does the launcher run in a terminal?");
* a statement true of the record another key phrase names ("is gold 255 215 0?": 215 is also a record's key);
* a count of the records that have a phrase *in their name* (contains, not equals);
* a key several records share, where another phrase of the question tells them apart;
* a comment line saying a default row (``# @missing: 0000..10FFFF; No_Block``) read as the columns' names.
"""

from __future__ import annotations

import json

from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted as _ask

DESKTOP = (
    "[Desktop Entry]\nName=Orbit Browser\nExec=/usr/bin/orbit %U\nTerminal=false\nStartupNotify=true\nIcon=orbit\n"
)
COLOURS = "code,shade,name\n215,7,DebianRed\n100,215,gold\n" + "\n".join(
    f"{i},{i % 9},grey{i}" for i in range(300, 340)
)
BLOCKS = "# Blocks\n#\n# @missing: 0000..10FFFF; No_Block\n\n" + "\n".join(
    f"{0x100 * i:04X}..{0x100 * i + 0xFF:04X}; {name}"
    for i, name in enumerate(
        ["Basic Latin", "Cyrillic", "Cyrillic Supplement", "Greek", "Cyrillic Extended-A", "Arabic", "Thai", "Lao"]
    )
)
FLAGS = json.dumps(
    [
        {"name": "Optimization", "switch": "O1", "value": "MinSpace"},
        {"name": "RuntimeLibrary", "switch": "MT", "value": "MultiThreaded"},
        {"name": "RuntimeLibrary", "switch": "MTd", "value": "MultiThreadedDebug"},
        {"name": "RuntimeLibrary", "switch": "MD", "value": "MultiThreadedDLL"},
        {"name": "RuntimeLibrary", "switch": "MDd", "value": "MultiThreadedDebugDLL"},
        {"name": "WarningLevel", "switch": "W4", "value": "Level4"},
    ],
    indent=2,
)


def test_a_named_field_that_says_false_answers_no():
    assert _ask("Does the Orbit launcher run in a terminal?", DESKTOP, "bool") == (False, "submitted")
    assert _ask("Is Terminal false for Orbit?", DESKTOP, "bool") == (True, "submitted")  # the question says it


def test_no_no_where_the_statement_holds_of_the_record_another_key_phrase_names():
    from dspy_rlm.profiles.moves import MoveBook
    from dspy_rlm.profiles.oracle import host_reader

    book = MoveBook({"question": "Is the shade of gold 215?"}, {"context": COLOURS}, {"answer": bool})
    read, checked = host_reader(book.data), []
    for move in book.read_moves():  # whichever phrase a chooser checks, 215 or gold: no supported "no"
        book.reads = {}
        book.record_read(move.code, read(move))
        supported = [s.candidate.value for s in book.submit_moves() if s.candidate and s.candidate.supported]
        assert False not in supported, move.code
        checked += [move.code] if move.kind == "exists" else []
    assert "print(exists(context, '215'))" in checked


def test_a_phrase_in_their_name_counts_the_records_containing_it():
    assert _ask("How many blocks have 'Cyrillic' in their name?", BLOCKS, "int") == (3, "submitted")
    assert _ask("How many blocks have names containing Cyrillic?", BLOCKS, "int") == (3, "submitted")
    # one record named so, but a count of one is not vouched for (test_count_present): no count is Submitted
    assert _ask("How many blocks are named Cyrillic?", BLOCKS, "int")[1] == "extracted"


def test_a_key_several_records_share_is_told_apart_by_the_questions_other_phrase():
    assert _ask("Which switch selects the RuntimeLibrary value MultiThreadedDebugDLL?", FLAGS, "str") == (
        "MDd",
        "submitted",
    )
    assert _ask("Which switch does Optimization use?", FLAGS, "str") == ("O1", "submitted")  # a key of one record


def test_a_comment_saying_a_default_row_is_no_header():
    s = detect(BLOCKS)
    assert s.field_names == ("col1", "col2") and s.records[1].get("col2") == "Cyrillic"
    zone = "# tz table\n#codes\tcoordinates\tTZ\n" + "\n".join(f"A{i}\t+{i}0\tZone/{i}" for i in range(5))
    assert detect(zone).field_names[:3] == ("codes", "coordinates", "TZ")


def test_which_x_has_the_most_y_ranks_by_what_y_names():
    from dspy_rlm.profiles.moves import MoveBook

    oses, lists = ["Debian", "Fedora", "Debian", "Arch"], ['"a, b"', "c"]
    rows = [f"h{i},{oses[i % 4]},{i * 2},{lists[i % 2]}" for i in range(1, 13)]
    hosts = "host,os,cores,packages\n" + "\n".join(rows)

    def ranking(question: str) -> set[str]:
        book = MoveBook({"question": question}, {"context": hosts}, {"answer": str})
        return book.cues & {"most_common", "max"}

    assert ranking("Which os has the most entries?") == {"most_common"}  # the records are counted
    assert ranking("Which host has the most cores?") == {"max"}  # a field of numbers
    assert ranking("Which host has the most packages?") == {"max"}  # a list: the longest one
    assert _ask("Which host has the most packages?", hosts, "str")[1] != "submitted"  # six lists tie: no answer
    assert _ask("Which os has the most entries?", hosts, "str") == ("Debian", "submitted")
    assert _ask("Which host has the most cores?", hosts, "str") == ("h12", "submitted")


def test_section_lines_over_a_table_are_no_stanzas():
    codes = [("00000", "S", "successful_completion"), ("01000", "W", "warning"), ("01003", "W", "null_eliminated")]
    codes += [(f"40P0{i}", "E", f"rollback_{i}") for i in range(6)]

    def section(k: int, chunk: list) -> str:
        rows = "\n".join(f"{code}    {level}    ERRCODE_{name.upper()}    {name}" for code, level, name in chunk)
        return f"Section: Class {chunk[0][0][:2]} - Group {k}\n\n{rows}"

    body = "\n\n".join(section(k, chunk) for k, chunk in enumerate([codes[:1], codes[1:3], codes[3:]]))
    s = detect("# error codes\n\n" + body)
    assert s.kind != "stanzas" and any(r.get("col1") == "40P03" and r.get("col4") == "rollback_3" for r in s.records)
    stanzas = "Package: a\nVersion: 1\n\nPackage: b\nVersion: 2\n\nPackage: c\nVersion: 3\n"
    assert detect(stanzas).kind == "stanzas"  # records of several fields are stanzas still


def test_a_verb_names_the_field_of_its_agent_noun():
    packages = "\n\n".join(
        f"Package: pkg{i}\nVersion: 1.{i}\nMaintainer: Team {i % 4} <t{i % 4}@example.org>\nOwners: group{i}"
        for i in range(9)
    )
    assert _ask("Who maintains pkg6?", packages, "str") == ("Team 2 <t2@example.org>", "submitted")
    assert _ask("Which group owns pkg5?", packages, "str") == ("group5", "submitted")


def test_a_line_holding_a_question_word_inside_a_sentence_vouches_for_nothing():
    from dspy_rlm.profiles.moves import MoveBook
    from dspy_rlm.profiles.oracle import host_reader

    codes = "\n".join(f"{4000 + i}    E    ERRCODE_X{i}    cond_{i}" for i in range(30))
    text = "Section: Class 58 - System Error (errors external to PostgreSQL itself)\n" + codes
    book = MoveBook(
        {"question": "What code does PostgreSQL use for the condition cond_7?"}, {"context": text}, {"answer": str}
    )
    read, supported = host_reader(book.data), set()
    for move in book.read_moves():
        book.reads = {}
        book.record_read(move.code, read(move))
        supported |= {str(s.candidate.value) for s in book.submit_moves() if s.candidate and s.candidate.supported}
    assert "itself" not in supported and not any("System Error" in v for v in supported)
