"""Shapes from probe 46's wrong answers, on invented data: in a YAML mapping of mappings, a key whose list sits at
the key's own indent (``channels:`` then ``- stable``) holds its items, not the text ``- stable``."""

from __future__ import annotations

from dspy_rlm.library import lookup, superlatives
from dspy_rlm.library import structure as st
from tests.dspy_rlm.scripted import ask_scripted

_ORCHARD = "".join(
    f"{farm}:\n"
    + "".join(
        f"  {plot}:\n"
        + (f"    keeper: {farm}.{plot}\n" if i == 1 else "")
        + "    channels:\n"
        + "".join(f"    - {c}\n" for c in chans)
        for i, (plot, chans) in enumerate(
            [("rows", ["stable"]), ("rows.east", ["beta4"]), ("rows.west", ["stable", "beta4"])]
        )
    )
    for farm in ("kestrel", "plover", "wren")
)


def test_a_list_at_the_keys_indent_is_its_items_not_dashes():
    s = st.detect(_ORCHARD)
    assert s.kind == "yaml", s.detail
    east = next(r for r in s.records if r.key == "rows.east" and r.get("block") == "plover")
    assert east.get("channels") == "beta4"  # one item: the item ('- beta4' before)
    west = next(r for r in s.records if r.key == "rows.west" and r.get("block") == "plover")
    assert west.get("channels") == "- stable\n- beta4"  # several: one item a line, as a list under a deeper key
    assert lookup.field_of(_ORCHARD, "plover.rows.east", "channels") == "beta4"


def test_the_field_of_a_record_found_by_another_field_is_the_item():
    # "which API version is listed under supported_apis for the collection whose home_directory is dataflow.jobs?"
    # '- v1b3' was Submitted
    answer = ask_scripted("Which channel is listed for the plot whose keeper is wren.rows.east?", _ORCHARD)
    assert answer[1] != "submitted" or answer[0] == "beta4", answer


_LAUNCHES = "canoe = 1996-02-29\nkayak = 1997-05-15\npunt = 1996-02-29\nraft = 1998-07-22\nskiff = 2000-03-22\n"

_RIGHTS = "".join(
    f"Files: {files}\nCopyright: 2031 {holder}\nLicense: {lic}\n\n"
    for files, holder, lic in [
        ("*", "The Quill Team", "Quill-1"),
        ("net/*", "Ada Brook", "Vine-2"),
        ("net/raw.c", "Ada Brook", "Reed-3"),
        ("doc/tide.md", "Otto Fen", "Vine-2"),
        ("gfx/*", "Mae Lark", "Reed-3"),
        ("gfx/pixel.c", "Mae Lark", "Reed-3"),
    ]
)


def test_key_of_passes_over_the_record_named_by_but():
    assert superlatives.key_of(_LAUNCHES, "1996-02-29") == "canoe"
    assert superlatives.key_of(_LAUNCHES, "1996-02-29", but="canoe") == "punt"
    assert superlatives.key_of(_LAUNCHES, "1997-05-15", but="kayak") is None


def test_another_record_holding_the_same_value_is_read_by_key_of_but():
    # "Perl 5.020000 was released on a certain day per CoreList. What other version number has exactly the same
    # release date?": the date was read, and no read found the other version
    asked = "The canoe was launched on some day. What other boat has exactly the same launch date?"
    assert ask_scripted(asked, _LAUNCHES) == ("punt", "submitted")


def test_the_field_a_record_read_gives_by_the_same_noun_is_looked_up_in_the_others():
    # "mpi/* is released under a particular license. Which other Files entry uses that same license?"
    asked = "net/* is released under some license. Which other Files entry in this file uses that same license?"
    assert ask_scripted(asked, _RIGHTS) == ("doc/tide.md", "submitted")
    several = "gfx/* is released under some license. Which other Files entry in this file uses that same license?"
    answer = ask_scripted(several, _RIGHTS)  # two others hold Reed-3: neither is the one
    assert answer[1] != "submitted", answer


def test_the_same_day_as_another_record_asks_that_record_not_the_day():
    # "pyasn1 revision 0.4.2 came out on the same day as another revision. Which one?": the date was Submitted
    lines = "".join(
        f"Release {v}, out {d}\n  - fixes\n\n"
        for v, d in [("2.1", "03-04-2031"), ("2.0", "03-04-2031"), ("1.9", "01-02-2031")]
    )
    answer = ask_scripted("Release 2.1 came out on the same day as another release. Which one?", lines)
    assert answer[1] != "submitted" or answer[0] == "2.0", answer


_CODES = (
    "package Harbor::Codes;\nuse strict;\nuse warnings;\n\nour $VERSION = '0.02';\n\n"
    "# Tide codes, from the harbour log\n"
    "use constant {\n    TIDE_OK => 0,\n    TIDE_LOW => 7,\n    TIDE_HIGH => 12,\n    TIDE_STORM => 31,\n};\n\n"
    "my %tide_text = (\n    TIDE_OK() => N_('calm water'),\n    TIDE_LOW() => N_('mud flats showing'),\n"
    "    TIDE_HIGH() => N_('quay awash'),\n);\n\nsub tide_text {\n    my $code = shift;\n"
    "    return $tide_text{$code} // 'unknown';\n}\n\n1;\n"
)


def test_a_fat_comma_line_is_a_key_and_its_value():
    # Dpkg's "OPENPGP_KEY_IS_PROTECTED => 67,": the line's value was '> 67,' (split at its '=')
    assert lookup.field_of(_CODES, "TIDE_LOW", "TIDE_LOW") == "7"
    assert superlatives.key_of(_CODES, "31") == "TIDE_STORM"
    assert lookup.field_of(_CODES, "TIDE_HIGH()", "TIDE_HIGH()") == "quay awash"  # a string passed through a call


_PAGE = (
    '.TH "KNOT" "1" "2031" "knot 2" "User Commands"\n.SH NAME\nknot \\- tie archive files\n.SH OPTIONS FOR KNOT\n'
    ".TP\n\\f[CR]\\-\\-loop\\f[R] \\f[I]count\\f[R]\nTies the loop count times.\n"
    ".TP\n\\f[CR]\\-\\-skip\\f[R] \\f[I]pattern\\-list\\f[R]\nSkips files matching one of these forms:\n"
    ".RS\n.IP \\(bu 2\n\\f[I]glob\\-pattern\\f[R]\n.IP \\(bu 2\n\\f[CR]regex:\\f[R]\\f[I]regex\\-pattern\\f[R]\n"
    "See the matcher notes.\n.RE\n"
    ".TP\n\\f[CR]\\(at\\f[R]\\f[I]filename\\f[R]\nReads options from the file.\n.RS\nAn options file holds options.\n"
    ".IP\n.EX\n#Sun Jan 01 2031\n\\-\\-loop 3\n.EE\n.RE\n.SH EXAMPLES\nknot \\-\\-loop 2 rope\n"
)


def test_bullets_and_examples_inside_an_options_indented_block_are_its_description():
    # jmod's "OPTIONS FOR JMOD": the --exclude option's '.IP \(bu' pattern forms and the @filename option's example
    # were entries of the section (25 where its .TP paragraphs are 21)
    s = st.detect(_PAGE)
    assert [r.key for r in s.records if r.get("section") == "OPTIONS FOR KNOT"] == [
        "--loop count",
        "--skip pattern-list",
        "@filename",
    ]
    skip = next(r for r in s.records if r.key == "--skip pattern-list")
    assert "regex:regex-pattern" in skip.get("description") and "matcher notes" in skip.get("description")
    assert lookup.count_where(_PAGE, "section", "OPTIONS FOR KNOT") == 3


_FONT = "name ZQX\nspacewidth 250\ncharset\nspace\t250\t0\t32\tspace\n" + "".join(
    f"---\t{800 + i * 3},{600 + i}\t3\t{33 + i}\tq{i}\n" for i in range(60)
)


def test_a_line_of_one_cell_over_tab_separated_rows_is_no_header():
    # groff's font description ZDR: "name ZDR" named the first column of its charset's rows
    s = st.detect(_FONT)
    assert s.kind == "table", s.detail
    assert "name ZQX" not in s.field_names and s.field_names[:2] == ("col1", "col2")
    assert lookup.count_where(_FONT, "col4", "35") == 1
