"""Probe 42's wrong `Submitted` answers at first contact, on invented data: a roff comment's file name taken for a
record; a count that leaves out an identifier the question states ("have the SIGNED_RATIONAL type"); a count
under a heading every release of a changelog repeats; an existence check where the question asks how often; a
reverse lookup answering a list item's first three words. Each test fails before its change."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted


def test_roff_comment_lines_are_comments():
    from dspy_rlm.library.formats import is_comment

    assert is_comment('.\\" quire.tmac') and is_comment("'\\\" t") and is_comment('\\" note')
    assert not is_comment(".ds paper-q1-width 10c") and not is_comment(".TH QUIRE 7")


_TMAC = (
    '.\\" quire.tmac\n.\\"\n.\\" Paper sizes for quire, except q9.\n.\\"\n.\n'
    + "".join(f".  ds paper-q{i}-width {10 + i}c\n.  ds paper-q{i}-length {20 + i}c\n" for i in range(6))
    + ".nr _C 0\n"
)


def test_the_file_name_in_a_roff_header_comment_is_no_existence_answer():
    answer = ask_scripted("Does quire.tmac define dimensions for Q9 paper?", _TMAC, "bool")
    assert answer[1] != "submitted" or answer[0] is False


_CONSTANTS = (
    "SHORT = 3\nLONG = 4\nRATIONAL = 5\nSIGNED_RATIONAL = 10\n\n_tags_v9 = {\n"
    + "".join(f'    {n}: ("Tag{n}", {"SIGNED_RATIONAL" if n % 4 == 0 else "SHORT"}, 1),\n' for n in range(200, 230))
    + "}\n"
)


def test_a_count_leaving_out_an_identifier_the_question_states_is_doubted():
    answer = ask_scripted("How many tags in the _tags_v9 table have the SIGNED_RATIONAL type?", _CONSTANTS, "int")
    assert answer[1] != "submitted" or answer[0] == 8


def test_an_identifier_said_of_the_data_narrows_no_count():
    from dspy_rlm.profiles.second_condition import names_data

    assert names_data("How many entries in harbour's dist-info RECORD are stubs?", "dist-info")
    assert not names_data("How many properties refer to #/definitions/commands?", "/definitions/commands")


_CHANGELOG = (
    "# Changelog\n\n"
    + "".join(
        f"## [{v}.0.0](https://example.org/v{v})\n\n\n### Core\n\n"
        + "".join(
            f"* tidy the module loader part {v}{i} ([#{v}{i}](https://example.org/{v}{i}))\n" for i in range(v + 1)
        )
        + "\n\n### Bug Fixes\n\n"
        + "".join(f"* mend the cache for release {v} case {i} ([#9{i}](https://example.org/9{i}))\n" for i in range(6))
        + "\n\n"
        for v in (5, 4, 3, 2)
    )
    + "## v1.0.0\n\n### Core\n\n* the first release, undated as old entries often are\n"
)


def test_a_count_under_a_heading_every_release_repeats_is_doubted():
    question = "How many entries are listed under the Core heading of the 4.0.0 section in this CHANGELOG.md?"
    answer = ask_scripted(question, _CHANGELOG, "int")
    assert answer[1] != "submitted" or answer[0] == 5


def test_the_runs_of_a_block_name_are_counted_apart():
    from dspy_rlm.profiles.count_doubts import blocks_alike
    from dspy_rlm.profiles.move import read
    from dspy_rlm.profiles.moves import MoveBook

    book = MoveBook({"question": "How many Core entries are there?"}, {"context": _CHANGELOG}, {"answer": int})
    move = read("count_where", "", "count_where", "context", "section", "Core")
    assert blocks_alike(book, move, None, None, _CHANGELOG) == "5 blocks apart are named 'Core': the count joins them"
    one = MoveBook({"question": "How many?"}, {"context": _CHANGELOG.split("## [4")[0]}, {"answer": int})
    assert blocks_alike(one, move, None, None, "") is None


_CONVERT = "[org.example.wm.keys]\nclose = /apps/wm/keys/close\nbell-type = /apps/wm/general/bell\n" + "".join(
    f"move-{i} = /apps/wm/keys/move_{i}\n" for i in range(8)
)


def test_an_existence_check_answers_no_question_of_how_often():
    from dspy_rlm.profiles.doubts import _times_asked
    from dspy_rlm.profiles.move import read
    from dspy_rlm.profiles.moves import MoveBook

    question = "Is the key bell-type listed more than once in the [org.example.wm.keys] section?"
    book = MoveBook({"question": question}, {"context": _CONVERT}, {"answer": bool})
    move = read("exists", "", "exists", "context", "bell-type")
    assert "more than once" in (_times_asked(book, move, None, None, _CONVERT) or "")
    plain = MoveBook({"question": "Is the key bell-type listed?"}, {"context": _CONVERT}, {"answer": bool})
    assert _times_asked(plain, move, None, None, _CONVERT) is None


_NOTES = "# Changes\n\n" + "".join(
    f"## {v}\n\n### Bug Fixes\n\n* {verb} the {name} platform ([#1{v[0]}](x))\n"
    f"* gyp: raise the minimum version to {v}\n\n"
    for v, name, verb in [("3.1.0", "Quokka", "add support for"), ("3.0.2", "Wombat", "add adaptation for")]
)


def test_a_list_items_first_three_words_are_no_name():
    # (node-gyp's changelog answered "which release added the adaptation for the OpenHarmony platform?" with the
    # item's first words, vouched for as a reverse lookup; on this invented one the lookup is not vouched for
    # anyway, so the check itself is tested)
    from dspy_rlm.library.mdformats import item_named
    from dspy_rlm.profiles.key_of import keyed_by_name
    from dspy_rlm.profiles.moves import MoveBook

    assert not item_named("* add support for the Quokka platform")
    assert item_named("* gyp: update to v2") and item_named("* tidy loader")
    book = MoveBook({"question": "Which release?"}, {"context": _NOTES}, {"answer": str})
    assert not keyed_by_name(book, "context", "add adaptation for") and keyed_by_name(book, "context", "gyp")


_LOCALE = (
    "comment_char %\nescape_char /\n\n% Invented locale for a test\n% Source: Nobody\n% Language: xx\n\n"
    'LC_IDENTIFICATION\ntitle      "Invented locale"\nsource     "Tests"\nEND LC_IDENTIFICATION\n\n'
    'LC_TIME\nabmon    "jan";"feb";/\n         "m<U00E4>r"\nd_fmt    "%d.%m.%Y"\nt_fmt    "%H.%M.%S"\n'
    'END LC_TIME\n\nLC_PAPER\ncopy "i18n"\nEND LC_PAPER\n'
)


def test_a_posix_locale_source_reads_as_keyword_lines_in_their_categories():
    from dspy_rlm.library import structure as st

    s = st.detect(_LOCALE)
    assert (s.kind, s.detail) == ("assignments", "locale")
    got = {r.key: dict(r.fields) for r in s.records}
    assert got["d_fmt"] == {"d_fmt": "%d.%m.%Y", "section": "LC_TIME"}
    assert got["abmon"]["abmon"] == "jan;feb;m\u00e4r"  # continued by the escape character, <U00E4> as written
    assert got["source"]["source"] == "Tests" and "Source" not in got  # "% Source: Nobody" is a comment
    assert ask_scripted("What d_fmt date format does this locale define?", _LOCALE) == ("%d.%m.%Y", "submitted")


def test_a_text_declaring_no_comment_char_is_no_locale():
    from dspy_rlm.library.localeformat import looks_locale

    assert not looks_locale(["LC_TIME", "d_fmt x", "END LC_TIME"])
    assert not looks_locale(["comment_char %", "d_fmt x"])


_LOCALE_MONEY = _LOCALE.replace('source     "Tests"\n', 'source     "Tests"\nlanguage   "Zorbish"\n') + (
    'LC_MONETARY\nint_curr_symbol "ZRB "\ncurrency_symbol "zb"\nmon_decimal_point ","\nEND LC_MONETARY\n'
)


def test_a_reverse_lookup_answers_no_question_naming_another_record():
    # ("what currency symbol does the Swedish locale use?" was answered 'language', the keyword holding Swedish)
    answer = ask_scripted("What currency symbol does the Zorbish locale use?", _LOCALE_MONEY)
    assert answer in (("zb", "submitted"), ("zb", "extracted")) or answer[1] != "submitted"


def test_a_key_the_question_writes_joined_names_no_other_record():
    from dspy_rlm.profiles.key_of import record_named
    from dspy_rlm.profiles.moves import MoveBook

    text = "TOOL_DOC = tool-doc.1\nTOOL = tool\nSAVE_EXACT = 1\n"
    joined = MoveBook({"question": "Which variable holds tool-doc.1, the save_exact page?"}, {"context": text}, {})
    assert record_named(joined, "context", "TOOL_DOC") is None
    spaced = MoveBook({"question": "Which variable is the save exact flag?"}, {"context": text}, {})
    assert record_named(spaced, "context", "TOOL_DOC") == "SAVE_EXACT"


_MACROS = (
    '.\\" sizes.tmac: an invented macro package\n.\\"\n.do if !d size-set \\{\\\n'
    + "".join(
        f".  ds size-{s}{n}-length {40 - 3 * n}.{n}c\n.  ds size-{s}{n}-width {20 - n}c\n"
        for s in "qr"
        for n in range(6)
    )
    + '.  ds size-note "  spaced \\(em here\n.  nr size-count 12 1\n.\\}\n'
    + ".de size-apply\n.  pl \\\\*[size-\\\\$1-length]\n..\n"
)


def test_a_macro_package_reads_its_strings_and_registers_as_settings():
    # (groff's papersize.tmac was a table of whitespace columns: '.' one column, "ds paper-b5-width 17.6c" the next)
    from dspy_rlm.library import structure as st

    s = st.detect(_MACROS)
    assert (s.kind, s.detail) == ("assignments", "roff definitions")
    got = {r.key: dict(r.fields) for r in s.records}
    assert got["size-r2-width"] == {"size-r2-width": "18c"} and got["size-q5-length"] == {"size-q5-length": "25.5c"}
    assert got["size-note"] == {"size-note": "spaced \u2014 here"}  # the leading '"' dropped, \(em decoded
    assert got["size-count"] == {"size-count": "12"}  # a register's value, not its increment
    assert "size-apply" not in got  # a macro defines no setting
    assert ask_scripted("What width does sizes.tmac define for R2 size?", _MACROS) == ("18c", "submitted")


def test_a_manual_page_or_a_few_definitions_are_no_macro_package():
    from dspy_rlm.library.roffformat import looks_roff_definitions

    page = [".TH TOOL 1", ".SH NAME", *[f".ds s{i} v{i}" for i in range(30)]]
    assert looks_roff_definitions(page) == 0.0  # a title: a manual page's own strings
    assert looks_roff_definitions([f".ds s{i} v{i}" for i in range(5)] + [".br"] * 5) == 0.0  # too few to tell
    prose = [f".ds s{i} v{i}" for i in range(30)] + [f"a line of text {i}" for i in range(10)]
    assert looks_roff_definitions(prose) == 0.0  # a tenth of the lines or more are text
