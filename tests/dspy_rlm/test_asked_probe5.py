"""What the fifth probe (``benchmarks/asked/probe5.json``: ten more real files no benchmark used, questions by
someone who never saw the code) showed, each rebuilt here on a small file of its shape:

* a Vim script's ``" comment`` lines were table rows: "which character code" was answered by a comment's word;
* a key of one capital letter ("the key J") was no key phrase;
* a sample config whose settings are all commented out (``#figure.figsize: 6.4, 4.8  # in inches``) was read
  as lines, and the value cut at its comma;
* ``<LVL3> = 92;`` statements were read as a semicolon-separated table (one cell, ``<LVL3> =   92``);
* "is pdf the default savefig.format?" was answered yes: the setting exists, and its line lists pdf among
  the choices beside its value, png;
* "what keycode does the alias <MENU> resolve to?" read ``<COMP>`` and stopped there: no read was keyed by a
  value a read produced (the second hop);
* "which top-level media type do most aliases fall under?" read the one record holding "media" (inside
  ``application/x-quicktime-media-link``) and ``Submitted`` its key;
* at the iteration limit, a small model's int grammar ran to 19 digits (``1000000000000000000``): a value no
  read printed replaced the reads' own best guess.
"""

from __future__ import annotations

from dspy.utils.dummies import DummyLM

from dspy_rlm.library.formats import is_comment
from dspy_rlm.library.structure import detect
from dspy_rlm.profiles.calibration import load_calibration
from tests.dspy_rlm.scripted import ask_scripted as _ask

KEYMAP = (
    '" Vim Keymap file for a made-up alphabet\n'
    '" Maintainer: nobody <nobody@example.org>\n'
    '" The character after a tone mark is problematic: type it twice.\n'
    "\n"
    'let b:keymap_name = "mk"\n'
    "loadkeymap\n"
    + "".join(
        f'{key}\t<char-0x{code:04X}>\t" MADE-UP {"CAPITAL" if key.isupper() else "SMALL"} LETTER {name}\n'
        for key, code, name in [
            ("A", 0x391, "ALPHA"),
            ("B", 0x392, "BETA"),
            ("J", 0x39E, "XI"),
            ("U", 0x398, "THETA"),
            ("a", 0x3B1, "ALPHA"),
            ("j", 0x3BE, "XI"),
            ("u", 0x3B8, "THETA"),
            (";a", 0x3AC, "ALPHA WITH TONOS"),
        ]
    )
)
RC = (
    "#### A SAMPLE CONFIG FILE\n"
    "## Every setting below is a default, commented out: remove the leading # to change one.\n"
    "## Values are written without quotes.\n"
    "\n"
    "## Figure settings\n"
    "#figure.figsize:     6.4, 4.8  # figure size in inches\n"
    "#figure.dpi:         100       # figure dots per inch\n"
    "#figure.facecolor:   white     # figure face color\n"
    "#figure.autolayout:  False     # automatically adjust subplot parameters\n"
    "\n"
    "## Saving figures\n"
    "#savefig.dpi:        figure    # figure dots per inch or 'figure'\n"
    "#savefig.format:     png       # {png, ps, pdf, svg}\n"
    "#savefig.bbox:       standard  # 'tight' or 'standard'.\n"
    "#savefig.transparent: False    # whether figures are saved with a transparent background\n"
)
KEYCODES = (
    "// translation from scancodes to named keycodes\n"
    'default xkb_keycodes "made_up" {\n'
    "\tminimum = 8;\n"
    "\tmaximum = 255;\n"
    "\t<ESC> = 9;\n"
    "\t<AE01> = 10;\t// #define KEY_1 2\n"
    "\t<AE02> = 11;\t// #define KEY_2 3\n"
    "\t<TAB> = 23;\n"
    "\t<COMP> = 135;\n"
    "\talias <MENU> = <COMP>;\n"
    "\t<LVL3> = 92;\n"
    '\tindicator 1 = "Caps Lock";\n'
    '\tindicator 2 = "Num Lock";\n'
    "};\n"
)


def test_a_line_opening_a_quote_it_never_closes_is_a_comment():
    assert is_comment('" Vim Keymap file') and is_comment('  "') and is_comment("# a") and is_comment("; b")
    assert not is_comment('"Smith, John",42') and not is_comment('"a" = 1')
    s = detect(KEYMAP)
    assert s.kind == "table" and not any(r.key.startswith('"') for r in s.records)


def test_a_capital_letter_alone_is_a_key_where_a_record_has_it():
    from dspy_rlm.profiles.moves import MoveBook

    book = MoveBook({"question": "What character code is the key J mapped to?"}, {"context": KEYMAP}, {"answer": str})
    assert "J" in [k.text for k in book.keys["context"]]
    assert any(m.helper == "record_of" and m.args == ("J",) for m in book.read_moves())
    # no record keyed "A": the article is no key
    book = MoveBook({"question": "Which key gives A made-up letter XI?"}, {"context": "x\ty\nz\tw\nq\tr\n"}, {})
    assert "A" not in [k.text for k in book.keys["context"]]


def test_commented_out_settings_are_read_as_settings():
    s = detect(RC)
    assert (s.kind, s.detail) == ("assignments", "commented")
    assert [r.fields for r in s.records[:2]] == [(("figure.figsize", "6.4, 4.8"),), (("figure.dpi", "100"),)]
    assert _ask("What's the default figure.figsize?", RC) == ("6.4, 4.8", "submitted")


def test_a_choice_the_line_lists_beside_the_value_is_no_yes():
    assert _ask("Is pdf the default savefig.format?", RC, "bool") == (False, "submitted")
    assert _ask("Is png the default savefig.format?", RC, "bool") == (True, "submitted")


def test_name_equals_value_statements_are_records():
    s = detect(KEYCODES)
    assert (s.kind, s.detail) == ("assignments", "statements")
    by_key = {r.key: r for r in s.records}
    assert by_key["<LVL3>"].fields == (("<LVL3>", "92"),)
    assert by_key["alias <MENU>"].fields == (("alias <MENU>", "<COMP>"),)
    assert by_key["indicator 2"].fields == (("indicator 2", "Num Lock"),)
    assert by_key["<AE01>"].fields == (("<AE01>", "10"), ("comment", "#define KEY_1 2"))
    assert _ask("What keycode is assigned to <LVL3>?", KEYCODES, "int") == (92, "submitted")


def test_a_field_value_that_keys_another_record_is_read_next():
    from dspy_rlm.profiles.moves import MoveBook

    assert _ask("What numeric keycode does the alias <MENU> end up resolving to?", KEYCODES, "int") == (
        135,
        "submitted",
    )
    # a key read's value is a record's key already: no hop from it
    book = MoveBook({"question": "Which key has the code 92?"}, {"context": KEYCODES}, {"answer": str})
    for m in book.read_moves():
        if m.helper == "key_of":
            book.record_read(m.code, "<LVL3>")
    assert not any(k.hop for k in book.keys["context"])


def test_an_extracted_value_no_read_printed_gives_way_to_the_reads_guess():
    import dspy

    from dspy_rlm import RLM
    from dspy_rlm.profiles.scripted import ScriptedMovePolicy

    rows = [("root", 0, 0, "/root", "/bin/bash"), ("daemon", 1, 1, "/usr/sbin", "/usr/sbin/nologin")]
    rows += [(n, i, i, h, "/usr/sbin/nologin") for n, i, h in [("bin", 2, "/bin"), ("sys", 3, "/dev")]]
    rows += [("sync", 4, 65534, "/bin", "/bin/sync"), ("games", 5, 60, "/usr/games", "/usr/sbin/nologin")]
    rows += [
        (n, i, i, h, "/usr/sbin/nologin")
        for n, i, h in [("man", 6, "/var/cache/man"), ("lp", 7, "/var/spool/lpd"), ("mail", 8, "/var/mail")]
        + [("news", 9, "/var/spool/news"), ("uucp", 10, "/var/spool/uucp"), ("proxy", 13, "/bin")]
        + [("www-data", 33, "/var/www"), ("backup", 34, "/var/backups"), ("list", 38, "/var/list")]
        + [("irc", 39, "/run/ircd")]
    ]
    rows += [("_apt", 42, 65534, "/nonexistent", "/usr/sbin/nologin")]
    rows += [("nobody", 65534, 65534, "/nonexistent", "/usr/sbin/nologin")]
    table = "".join(f"{n}:*:{u}:{g}:{n}:{h}:{s}\n" for n, u, g, h, s in rows)
    q = "What primary group ID is shared by the most accounts?"
    with dspy.context(lm=DummyLM([{"answer": "1000000000000000000"}] * 10)):
        pred = RLM("context, question -> answer: int", policy=ScriptedMovePolicy(), max_iters=3)(
            context=table, question=q
        )
    r = pred.rlm_result
    # three reads rank the columns (the password column, "*" throughout, is none); the last, the group IDs,
    # printed 65534; no SUBMIT within three steps
    assert r.kind == "extracted" and pred.answer == 65534, (pred.answer, r)
    assert "read nowhere" in (r.notes or "") and r.confidence <= load_calibration().unsupported() < 0.5, r


ALIASES = "".join(
    f"{a} {b}\n"
    for a, b in [
        ("application/x-quicktimeplayer", "application/x-quicktime-media-link"),
        ("application/x-tar-gz", "application/x-compressed-tar"),
        ("image/x-tga", "image/x-targa"),
        ("text/xml", "application/xml"),
        ("audio/x-wav", "audio/wav"),
    ]
)


def test_a_word_found_only_inside_a_name_names_no_record():
    from dspy_rlm.profiles.moves import MoveBook

    q = "Looking at the alias names, which top-level media type do most of them fall under?"
    book = MoveBook({"question": q}, {"context": ALIASES}, {"answer": str})
    media = next(k for k in book.keys["context"] if k.text == "media")
    assert media.records == 1 and media.inner
    assert _ask(q, ALIASES)[1] == "extracted"
    # at a name's head a word still names its record ("tar" is inside x-tar-gz and x-compressed-tar: inner too)
    book = MoveBook({"question": "Where does the audio alias point?"}, {"context": ALIASES}, {"answer": str})
    said = {k.text: k.inner for k in book.keys["context"]}
    assert said.get("audio") is False, said


def test_a_number_read_nowhere_with_no_guess_has_no_confidence():
    # a changelog's prose asked a ranking no read gives: the extraction's runaway int stays, at confidence 0
    import dspy

    from dspy_rlm import RLM
    from dspy_rlm.profiles.scripted import ScriptedMovePolicy

    text = "".join(
        f"## Notes {chr(65 + i % 26)}\n\nThe crew met on a grey morning by the harbour.\n\n" for i in range(40)
    )
    with dspy.context(lm=DummyLM([{"answer": "1000000000000000000"}] * 10)):
        pred = RLM("context, question -> answer: int", policy=ScriptedMovePolicy(), max_iters=4)(
            context=text, question="In which year were the most widgets shipped?"
        )
    r = pred.rlm_result
    assert r.kind == "extracted" and r.confidence == 0.0 and "no read gave a value" in (r.notes or ""), r
