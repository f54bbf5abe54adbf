"""Shapes and doubts from probe 43's wrong answers, on invented data: entries of ``key="value"`` pairs continued
over lines (Debian's menu files), a rule's ``+=`` adding to a value said before, a count of values equal to a
word that other records hold among other parts, a yes/no over one of two parts named alike, "which N ... with a
F field" past a path, a file's name before a document noun, and a value saying the record's key among other words."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted

_MENU = (
    '?package(tools):\\\n needs="x11"\\\n section="Apps/Viewers"\\\n title="Zview"\\\n command="term -e zview"\n'
    '?package(tools):\\\n needs="x11"\\\n section="Apps/Editors"\\\n hints="Text"\\\n title="Zedit"\\\n'
    ' command="zedit"\n'
    '?package(tools):needs="text" section="Apps/Viewers" \\\n  title="Zcat" \\\n  command="/usr/bin/zcat"\n'
)


def test_continued_lines_of_pairs_read_as_one_record_each():
    # (x11-utils' menu file was lines: 'hints: "Fonts"\' answered which program has a hints field)
    from dspy_rlm.library import structure as st

    s = st.detect(_MENU)
    assert s.kind == "logfmt"
    got = {r.key: dict(r.fields) for r in s.records}
    assert set(got) == {"Zview", "Zedit", "Zcat"}
    assert got["Zview"]["command"] == "term -e zview" and got["Zcat"]["section"] == "Apps/Viewers"
    assert got["Zedit"]["hints"] == "Text" and "hints" not in got["Zview"]
    assert (s.records[0].line, s.records[0].key) == (1, "Zview")


def test_lines_that_go_on_below_but_hold_no_pairs_are_no_entries():
    from dspy_rlm.library.jsonformats import looks_continued_logfmt

    shell = ["./configure \\", "  --prefix=/usr \\", "  --enable-x", "make all \\", "  -j4"]
    assert looks_continued_logfmt(shell) < 0.8
    assert looks_continued_logfmt(['a="1" b="2"', 'a="3" b="4"']) == 0.0  # nothing goes on below: plain logfmt


def test_a_value_saying_the_records_key_among_other_words_is_read():
    # "what command does the Xev entry run?": command="x-terminal-emulator -e xev" holds 'Xev' as a word, and
    # was taken for the key itself, so no read of the field was offered
    answer = ask_scripted("What command does the Zview entry run?", _MENU)
    assert answer == ("term -e zview", "submitted")


def test_which_record_has_a_field_past_a_path_asks_for_the_record():
    # the one record holding the field named is the answer, not the field's value ('Fonts' was submitted)
    answer = ask_scripted("Which program in /usr/share/menu/tools is the only one with a hints field?", _MENU)
    assert answer == ("Zedit", "submitted")
    assert ask_scripted("Which program has the hints field?", _MENU) == ("Zedit", "submitted")


def test_the_value_of_a_field_one_record_holds_is_still_its_value():
    assert ask_scripted("What hints does the menu file give?", _MENU) == ("Text", "submitted")


def test_a_field_two_records_hold_names_no_one_holder():
    menu = _MENU.replace('title="Zview"', 'hints="Images"\\\n title="Zview"')
    assert 'hints="Images"' in menu
    answer = ask_scripted("Which program is the one with a hints field?", menu)
    assert answer[1] != "submitted" or answer[0] not in ("Text", "Images")


def test_an_added_tag_keeps_the_ones_before():
    # (71-seat.rules: TAG+="seat", TAG+="master-of-seat" kept 'seat' only, and "tag drm cards as master-of-seat?"
    # was answered no)
    from dspy_rlm.library import structure as st

    rules = (
        '# invented seat rules\nACTION=="remove", GOTO="seat_end"\n\n'
        'SUBSYSTEM=="gpu", KERNEL=="card*", TAG+="seat", TAG+="lead-of-seat"\n'
        'SUBSYSTEM=="input", TAG+="input-seat"\n'
        'SUBSYSTEM=="snd", KERNEL=="pcm*", ENV{ID_SEAT}=="1", TAG+="seat", TAG+="audio"\n'
        'SUBSYSTEM=="net", NAME="eth0", NAME="eth1"\n\nLABEL="seat_end"\n'
    )
    s = st.detect(rules)
    assert s.kind == "logfmt"
    got = {r.get("SUBSYSTEM"): r for r in s.records}
    assert got["gpu"].get("TAG") == "seat lead-of-seat" and got["input"].get("TAG") == "input-seat"
    assert got["net"].get("NAME") == "eth0"  # '=' says it again: the first stays
    answer = ask_scripted("Do the rules tag gpu card devices as lead-of-seat?", rules, "bool")
    assert answer[1] != "submitted" or answer[0] is True


_GROUPED = "\n".join(
    f'<call name="c{i}" number="{i}" groups="{g}"/>'
    for i, g in enumerate(["net"] * 6 + ["file,net"] + ["file"] * 5 + ["ipc"] * 3)
)


def test_a_count_of_equal_values_leaves_out_the_records_holding_it_among_other_parts():
    # (gdb's syscalls XML: groups="network" 18 times and "descriptor,network" once; the count said 18 of 19)
    from dspy_rlm.profiles.count_doubts import parts_uncounted
    from dspy_rlm.profiles.move import read
    from dspy_rlm.profiles.moves import MoveBook

    text = f"<calls>\n{_GROUPED}\n</calls>\n"
    book = MoveBook({"question": "How many calls are in the net group?"}, {"context": text}, {})
    move = read("count_where", "", "count_where", "context", "groups", "net")
    assert "1 more records" in (parts_uncounted(book, move, None, None, "6") or "")
    ipc = read("count_where", "", "count_where", "context", "groups", "ipc")
    assert parts_uncounted(book, ipc, None, None, "3") is None
    noted = text.replace('groups="file,net"', 'groups="one of: file, net, ipc"')  # a sample entry's note: no value
    book = MoveBook({"question": "How many calls are in the net group?"}, {"context": noted}, {})
    assert parts_uncounted(book, move, None, None, "6") is None
    answer = ask_scripted("How many calls are in the net group?", text, "int")
    assert answer[1] != "submitted" or answer[0] == 7


_PC = (
    "# Process this file with autoconf to produce a pkg-config metadata file.\n\n# Author: Nobody\n\n"
    "prefix=/usr\nexec_prefix=${prefix}\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\n"
    "Name: Zedtls\nDescription: An invented library\nURL: https://zed.invalid/\nVersion: 1.2.3\n"
    "Libs: -L${libdir} -lzedtls\nLibs.private:        -lgmp -lzstr -latomic \n"
    "Requires.private: alpha, beta, gamma, delta, p11-kit-1\nCflags: -I${includedir}\n"
)


def test_a_list_lacking_the_item_says_no_no_where_another_part_is_named_alike():
    # ("is libgmp among the private link flags?": Requires.private lacks it, Libs.private holds -lgmp)
    answer = ask_scripted("Is libgmp among the private link flags?", _PC, "bool")
    assert answer[1] != "submitted" or answer[0] is True
    answer = ask_scripted("Is omega among the private requirements?", _PC, "bool")
    assert answer[1] != "submitted" or answer[0] is False


_HELP = (
    "*notes9.txt*  For Zed version 9.0.  Last change: 2022 Nov 23\n\n"
    + "".join(f"Item {i}\tthe change number {i} of the release\n" for i in range(30))
    + "Zed\tversion 9.0 is dedicated to Ann Rivers, who wrote the first notes\n"
)


def test_a_files_name_before_a_document_noun_names_no_record():
    # ("according to Vim's version9.txt help file, to whom is Vim 9.0 dedicated?" read the title line by
    # 'version9.txt' and Submitted its text)
    from dspy_rlm.profiles.doubts import _document_read
    from dspy_rlm.profiles.move import read
    from dspy_rlm.profiles.moves import MoveBook
    from dspy_rlm.profiles.phrases import Key

    book = MoveBook({"question": "In the notes9.txt help file, who is it dedicated to?"}, {"context": _HELP}, {})
    move = read("record", "", "record_of", "context", "notes9.txt")
    key = Key("notes9.txt", 1, True, False)
    assert _document_read(book, move, None, key, "") is not None
    asked = MoveBook({"question": "Which line holds notes9.txt?"}, {"context": _HELP}, {})
    assert _document_read(asked, move, None, key, "") is None  # no document noun after it: a record asked
    answer = ask_scripted("According to Zed's notes9.txt help file, to whom is Zed 9.0 dedicated?", _HELP)
    assert answer[1] != "submitted" or "Ann Rivers" in str(answer[0])


_LICENSES = "".join(
    f"Files: src/{n}.c\nCopyright: 2001 Someone {n}\nLicense: {lic}\n\n" for n, lic in (("a", "MIT"), ("b", "ZPL-9"))
) + "".join(
    f"License: {lic}\n Permission is granted to use {lic} code.\n .\n The {lic} text ends here.\n\n"
    for lic in ("MIT", "ZPL-9")
)


def test_a_license_paragraphs_text_under_its_name_is_no_answer_of_which_file():
    # ("which file is covered by the Apache-2.0 license?" read the License paragraph's own text, first line the
    # name asked, once a value saying its record's key among other words was read)
    answer = ask_scripted("Which file is covered by the ZPL-9 license?", _LICENSES)
    assert answer[1] != "submitted" or answer[0] == "src/b.c"
