"""Shapes from probe 45's wrong answers, on invented data: a list of URLs under ``#HEADING`` comments (a URL's
``://`` is no colon-separated cell), a heading that records sit under is found by ``exists``, and a program of
``name : { ... }`` blocks under a ``/* ... */`` licence is no whitespace table (a word of the licence was a key)."""

from __future__ import annotations

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from tests.dspy_rlm.scripted import ask_scripted

_ZONES = ["NO", "PE", "QR", "SU", "TV", "UW", "VA", "WB", "XC", "YD", "ZE", "AF"]
_HOSTS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta"]
_URLS = "".join(
    f"#ZONE:{zone}\n" + "".join(f"https://{h}.{zone.lower()}.example.org/pool/\n" for h in _HOSTS[: 3 + i % 5])
    for i, zone in enumerate(_ZONES)
)


def test_urls_under_comment_headings_are_entries_of_sections_not_a_colon_table():
    s = st.detect(_URLS)
    assert s.kind != "table", s.detail
    assert s.records[0].key == "https://alpha.no.example.org/pool/"
    assert s.records[0].get("section") == "ZONE:NO"


def test_a_heading_with_records_under_it_exists():
    assert lookup.exists(_URLS, "ZONE:PE")
    assert not lookup.exists(_URLS, "ZONE:XY")


def test_a_section_present_in_the_file_is_not_answered_absent():
    # "Is there an Iceland section (#LOC:IS)?": 'LOC:IS' heads one mirror; False was Submitted
    answer = ask_scripted("Is there a Peru section (#ZONE:PE) in this list of pool mirrors?", _URLS, "bool")
    assert answer[1] != "submitted" or answer[0] is True


_SCRIPT = (
    "/* Default layout script, for plain programs */\n"
    "/* Copyright (C) 2031 Nobody.\n"
    "   Copying of this layout is allowed; the loader won't look for a file to match a\n"
    "   pattern unless told so.  */\n"
    'FORMAT("obj-q9", "obj-q9")\n'
    "START(_begin)\n"
    "AREAS\n"
    "{\n"
    + "".join(f"  .{name:<12}  : {{ *(.{name}) }}\n" for name in ["alpha", "beta", "gamma", "delta", "eps", "zeta"])
    + "  .huge   :\n  {\n    *(.huge .huge.*)\n    *(HUGE_SHARED)\n  }\n}\n"
)


def test_a_program_of_brace_blocks_under_a_licence_comment_is_no_whitespace_table():
    s = st.detect(_SCRIPT)
    assert (s.kind, s.detail) != ("table", "whitespace")
    assert not any(r.key == "pattern" or r.key == "loader" for r in s.records)


def test_no_word_of_a_licence_comment_is_read_as_a_record_holding_the_answer():
    # "What entry point symbol does the linker script declare?": the licence line "linker won't look ..." was a
    # record keyed 'linker' and its rest Submitted
    answer = ask_scripted("What start symbol does this loader script for plain programs declare?", _SCRIPT, "str")
    assert answer[1] != "submitted" or answer[0] == "_begin"


def test_a_block_comment_that_never_closes_is_no_comment():
    from dspy_rlm.library.whitespacetable import _block_comments

    assert _block_comments(["/* a", " b */", "c d"]) == {0, 1}
    assert _block_comments(["/** r,", "/usr/** rw,", "x y"]) == set()  # AppArmor's globs: paths, not comments


_WORDS = ["mass", "inertia", "input", "output", "unit", "solve", "frame", "body", "point", "particle"]
_WORDS += ["torque", "force", "gravity", "speed", "spin"]
_GRAMMAR = (
    "grammar Toy;\n\noptions {\n    target = Lang7;\n}\n\nunit:   stmt+;\n\n"
    "stmt:   decl\n    |   call\n    |   tunings\n    ;\n\n"
    "term:   term '^' term           # Power\n"
    "    |   term ('*'|'/') term     # MulDiv\n"
    "    |   '-' term                # Negate\n"
    "    |   NAME('\\'')*            # Primed\n"
    "    |   NUM                     # Number\n"
    "    |   '(' term ')'            # Group\n"
    "    ;\n\n"
    "tunings:   NAME (NUM|NAME)?;\n"
    "decl:   NAME ':' NAME;\n"
    "call:   NAME '(' term ')';\n"
    + "".join(f"{w.capitalize()}: ('{w[0].upper()}'|'{w[0]}') '{w[1:]}';\n" for w in _WORDS)
    + "NAME: [a-z]+;\nNUM: [0-9]+;\n"
)


def test_an_escaped_quote_inside_quotes_does_not_hide_the_separators_after_it():
    from dspy_rlm.library.textkit import split_outside

    assert split_outside("a '\\'' b | c | d", "|") == ["a '\\'' b", "c", "d"]
    assert split_outside('"x\\\\", y', ",") == ['"x\\\\"', "y"]  # an escaped backslash closes nothing


def test_the_alternatives_after_an_escaped_quote_are_counted():
    # the 'expr' rule's 16 alternatives counted 8: the quote of ID('\'')* hid the rest
    answer = ask_scripted("How many labelled alternatives does the term rule of this grammar have?", _GRAMMAR, "int")
    assert answer[1] != "submitted" or answer[0] == 6


def test_a_verb_of_the_question_that_stems_like_a_rule_name_keys_no_record():
    # "the grammar sets a target language in its options block": 'sets' named the rule 'settings', whose own
    # definition was Submitted
    answer = ask_scripted("The Toy grammar tunes a target in its options block. Which one?", _GRAMMAR, "str")
    assert answer[1] != "submitted" or answer[0] == "Lang7"


_PROPS = "".join(
    f"def {name:<18}: NodeProp;   // {comment}\n"
    for name, comment in [
        ("PropSwaps", "X op Y == Y op X"),
        ("PropChains", "R/W chain operand and result"),
        ("PropReads", "May read memory, sets 'readsMem'."),
        ("PropWrites", "May write memory, sets 'writesMem'."),
        ("PropGlue", "Write a glue result"),
        ("PropVarArgs", "Node has variable arguments."),
    ]
)


def test_a_comment_quoting_the_one_word_asked_is_no_answer_to_which():
    # "per its comment, which instruction flag does SDNPMayStore set?": the whole comment was Submitted
    answer = ask_scripted("Per its comment, which memory flag does PropWrites set?", _PROPS, "str")
    assert answer[1] != "submitted" or answer[0] == "writesMem"


def test_the_quote_doubt_leaves_a_sentence_asked_for_alone():
    answer = ask_scripted("What is the comment of PropGlue?", _PROPS, "str")
    assert answer == ("Write a glue result", "submitted")


_RELAY = (
    "-- Widget Relay action that forwards a parcel to the least busy depot.\n"
    "-- Filled in at start-up; values below are the shipped defaults.\n\n"
    'local PARCEL_HEADER = "x-parcel-tag"\n'
    "local MAX_HOPS = 12\n"
    "local RETRY_MS = 250\n\n"
    "local function pick(depots)\n"
    "    local best = nil\n"
    "    for _, d in ipairs(depots) do\n"
    "        if best == nil or d.load < best.load then best = d end\n"
    "    end\n"
    "    return best\n"
    "end\n\n"
    "local function forward(parcel)\n"
    "    parcel.headers[PARCEL_HEADER] = parcel.id\n"
    "    return pick(parcel.depots)\n"
    "end\n\n"
    "return { pick = pick, forward = forward }\n"
)


def test_a_phrase_only_the_opening_comment_says_names_the_document_not_a_record():
    # "What header name is REQUEST_ID_HEADER set to in Ray Serve's HAProxy Lua template?": 'HAProxy Lua' is said
    # only by the file's first comment line, and the read of REQUEST_ID_HEADER was doubted for lacking it
    from dspy_rlm.profiles.header_comment import names_opening_comment

    assert names_opening_comment(_RELAY, "Widget Relay")
    assert names_opening_comment(_RELAY, "least busy")  # (two words: a description of the document too)
    assert not names_opening_comment(_RELAY, "pick")  # said again below the comment
    assert not names_opening_comment(_RELAY, "depot")  # a plain word
    answer = ask_scripted("What is MAX_HOPS set to in the Widget Relay code?", _RELAY, "int")
    assert answer == (12, "submitted")


def test_a_quoted_value_closed_by_a_semicolon_is_read_without_either():
    from dspy_rlm.library.formats import _line_kv

    assert _line_kv('    indicator.offColor= "grey40";') == [("indicator.offColor", "grey40")]
    assert _line_kv("    width= 421;") == [("width", "421;")]  # (no quotes: as before)
    assert _line_kv('    label= "a;b"') == [("label", "a;b")]


_PATCH = """From: A. Nobody <nobody@example.org>
Subject: Tag the sockets of both widget connections

diff --git a/widgets/net.py b/widgets/net.py
--- a/widgets/net.py
+++ b/widgets/net.py
@@ -210,6 +210,9 @@ class PlainWidgetConnection(base.Conn
             self.sock = make_socket(kind)
             self.sock.settimeout(self.timeout)
+            # tag: PLAIN_WIDGET
+            self.sock.setsockopt(LEVEL, 0x7F00, 41)
+            self.tagged = True
             self.sock.connect(self.address)
@@ -305,7 +308,9 @@ def open_secure_widget(address, context
     sock = make_socket(kind)
-    sock.settimeout(3)
+    sock.settimeout(timeout)
+    # tag: SECURE_WIDGET
+    sock.setsockopt(LEVEL, 0x7F00, 42)
     return context.wrap(sock)
"""


def test_a_unified_diff_is_read_as_its_changed_lines():
    s = st.detect(_PATCH)
    assert (s.kind, s.detail) == ("table", "diff")
    assert [r.get("change") for r in s.records] == ["added"] * 3 + ["removed"] + ["added"] * 3
    tagged = s.records[1]
    assert tagged.key == "self.sock.setsockopt(LEVEL, 0x7F00, 41)"
    assert (tagged.get("file"), tagged.get("hunk"), tagged.get("line")) == (
        "widgets/net.py",
        "PlainWidgetConnection",
        "213",
    )
    assert s.records[3].get("hunk") == "open_secure_widget" and s.records[3].get("line") == "306"
    assert lookup.count_where(_PATCH, "change", "added") == 6


def test_the_class_a_changed_line_sits_in_is_its_hunk():
    answer = ask_scripted("Which class does the hunk that passes 41 to setsockopt patch?", _PATCH, "str")
    assert answer[1] != "submitted" or answer[0] == "PlainWidgetConnection"
    assert answer[0] == "PlainWidgetConnection"


def test_text_that_only_quotes_diff_lines_is_no_diff():
    prose = "The fix:\n--- a/x\n+++ b/x\nwas applied by hand, as the README says.\nNo hunk follows.\n"
    assert st.detect(prose).detail != "diff"


def test_a_value_stated_after_a_word_is_the_next_token_not_one_past_a_common_one():
    # 'shape "TALL" { { [ 18,37] }, { [2,1], [16,36] } };': TALL is printed too often in the text to be offered,
    # and 16, past it, was Submitted as "stated after" shape
    from dspy_rlm.profiles import guided

    question = {"question": "which key outline is drawn with an outer size of 18 by 37?"}
    out = 'record 10 (line 14):\n  outline "PILLAR" { { [ 18,37] }, { [2,1], [16,36] } };'
    values = [v for v in guided.output_values([out], question, {}) if v != "PILLAR"]  # (as if printed too often)
    assert guided.stated_pairs([out], question, values) == []
    assert guided.stated_pairs([out], question, [*values, "PILLAR"]) == [("outline", "PILLAR")]
    stated = guided.stated_pairs(["the vault access code is 31337"], {"question": "the access code?"}, ["31337"])
    assert ("code", "31337") in stated  # (a function word between: still stated)


_TCL = (
    "# Map symbolic pointer names to platform pointers.\n\nnamespace eval gx {\n    variable Pointers\n"
    "    array set Pointers {\n"
    + "".join(
        f"        {a}\t{b}\n"
        for a, b in [
            ("plain", "arrow"),
            ("busy", "watch"),
            ("nope", "pirate_skull"),
            ("grab", "fleur"),
            ("text", "xterm"),
            ("link", "hand2"),
        ]
    )
    + "    }\n    switch -- $::platform {\n        web {\n            array set Pointers {\n"
    + "".join(f"                {a}\t{b}\n" for a, b in [("busy", "wait"), ("nope", "not-allowed"), ("text", "text")])
    + "            }\n        }\n    }\n}\n"
)


def test_rows_inside_a_block_opened_and_closed_on_other_lines_are_still_a_table():
    # cursors.tcl's "array set Cursors {" rows: the linker-script guard (braces on most lines) took them for code
    s = st.detect(_TCL)
    assert (s.kind, s.detail) == ("table", "whitespace")
    assert ask_scripted("Which symbolic pointer maps to the 'pirate_skull' pointer?", _TCL) == ("nope", "submitted")


def test_the_opening_comment_is_line_comments_or_one_block_comment_not_quoted_rows():
    from dspy_rlm.profiles.header_comment import names_opening_comment

    block = "/* Widget Relay forwarder\n * (shipped defaults)\n */\nint hops = 12;\nint retry_ms = 250;\n"
    assert names_opening_comment(block, "Widget Relay")
    rows = '"name","value"\n"Widget Relay","on"\n"hops","12"\n'  # a CSV's quoted rows are no comment
    assert not names_opening_comment(rows, "Widget Relay")
    listed = "* Widget Relay\n* Parcel Store\n\nBoth ship with the kit.\n"  # a list's items are records
    assert not names_opening_comment(listed, "Widget Relay")
    docstring = '"""Widget Relay constants."""\n# generated\n\nHOPS = 12\nRETRY = 250\n'  # a module's docstring is one
    assert names_opening_comment(docstring, "Widget Relay")
