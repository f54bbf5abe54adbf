"""Shapes from the yes/no host check of stop 103, on invented data. An existence check of a record vouches for
nothing where another phrase of the question is held, not by that record, but by a record beside it that names
it (``polish: tidy`` then ``rm -f crumbs``: "does the tidy target remove crumbs?" asks of tidy's own rule). A hex
number written with a prefix (``0x9C``, ``U+0150``) is no identifier a table of bare hex cells lacks. A plain word
absent beside a column's name and a number ("does every row use a margin of 3?") is the asker's verb, not a
thing asked. "The same colour the style uses for X" asks a second step; an identifier before the noun counted
("how many *org.example.Job* methods") is a second condition of the count. Each test fails on the code before its
change, but for the polish target's, which guards that a record holding the word itself still answers yes."""

from __future__ import annotations

from dspy_rlm.profiles.chains import chained
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.second_condition import other_condition
from tests.dspy_rlm.scripted import ask_scripted

MAKEFILE = """# Makefile for the kiln manual
SHELL = /bin/sh

srcdir=pages
TXT2HTML=txt2html
STYLE=$(srcdir)/kiln.css
TFLAG=-s $(STYLE)
PAGES=intro.html glazes.html firing.html \\
\tglossary.html index.html

all: $(PAGES)

%.html: %.txt
\ttxt2html $< > $@

tidy:
\trm -f index.tmp pages.log

scrub: tidy
\trm -f $(PAGES)

polish: scrub
\trm -f crumbs *~

.PHONY: all tidy scrub polish
"""

GRID = """# Encoding file: kiln8, single-byte
S
003F 0 1
00
0000000100020003000400050006000700080009000A000B000C000D000E000F
0010001100120013001400150016001700180019001A001B001C001D001E001F
00200021002200230024002500260027002800290003A02B002C002D002E002F
20AC0081201A0192201E20262020202102C62030016020390152008D017D008F
0090201820192017201D20222013201402DC21220161203A0153009D017E0178
"""

TABLE = "kind,low,high,margin\n" + "".join(f"glaze,{i}.5,{i + 2}.25,3\n" for i in range(12))


def test_a_target_whose_rule_lacks_what_a_rule_naming_it_holds_is_no_yes():
    # groff's font Makefile: 'realclean: clean' / '$(RM) $(FONTS)'; 'extraclean: realclean' / '$(RM) core *~'
    _, kind = ask_scripted("Does running the scrub target remove crumbs?", MAKEFILE, "bool")
    assert kind == "extracted"  # True, a guess: what polish's rule says is not asked of scrub


def test_a_target_whose_own_rule_holds_the_word_is_still_a_yes():
    answer, kind = ask_scripted("Does running the polish target remove crumbs?", MAKEFILE, "bool")
    assert (answer, kind) == (True, "submitted")


def test_a_prefixed_hex_number_is_not_missing_from_a_grid_of_bare_hex_cells():
    # Tcl's cp1252.enc: "does byte 0x9F map to U+0178?" was False at 1.0 because "0x9F" is written nowhere
    _, kind = ask_scripted("Does byte 0x9C map to U+0153 in this encoding?", GRID, "bool")
    assert kind == "extracted"  # a guess, not a checked no


def test_a_plain_word_beside_a_column_name_and_a_number_is_the_askers_verb():
    # numpy's umath validation csv: "does every row use an ulperrortol of 2?" checked whether "use" exists
    _, kind = ask_scripted("Does every row use a margin of 3?", TABLE, "bool")
    assert kind == "extracted"  # a guess, not a checked no


STYLE = """class KilnStyle(Style):
    background_color = "#1e1f29"
    highlight_color = "#3b3d4f"
    line_number_color = "#f1f1ec"

    styles = {
        Comment: "#5f6a8a",
        Keyword: "#ff6fc1",
        Generic.Heading: "#f1f1ec bold",
        Generic.Output: "#3b3d4f",
        Generic.Prompt: "#50fa7b",
        Name.Tag: "#ff6fc1",
    }
"""

POLICY = (
    """<busconfig>
  <policy context="default">
    <deny send_destination="org.example.Kiln"/>
    <allow send_destination="org.example.Kiln" send_interface="org.example.Kiln.Job" send_member="Cancel"/>
    <allow send_destination="org.example.Kiln" send_interface="org.example.Kiln.Job" send_member="Status"/>
"""
    + "".join(
        f'  <allow send_destination="org.example.Kiln" send_interface="org.example.Kiln.Manager" send_member="G{i}"/>\n'
        for i in range(9)
    )
    + """  </policy>
</busconfig>
"""
)


def test_the_same_colour_the_style_uses_for_a_setting_asks_a_second_step():
    # Dracula's Pygments style: "which Generic token is painted in the same colour the style uses for
    # highlight_color?" Submitted highlight_color's own colour
    question = "Which Generic token is painted in the same colour the style uses for highlight_color?"
    assert chained(MoveBook({"question": question}, {"context": STYLE}, {"answer": str}))
    plain = "Which Generic token is painted in the colour of highlight_color?"  # one step: no chain
    assert not chained(MoveBook({"question": plain}, {"context": STYLE}, {"answer": str}))


def test_an_identifier_before_the_noun_counted_is_a_second_condition():
    # systemd1's bus policy: "how many org.freedesktop.systemd1.Job methods does it let the default context
    # send?" counted every rule of the default context (93)
    question = "How many org.example.Kiln.Job methods does this policy let the default context send?"
    book = MoveBook({"question": question}, {"context": POLICY}, {"answer": int})
    assert other_condition(book, "context", "default", "policy") == "org.example.Kiln.Job"
    alone = "How many org.example.Kiln.Job does this policy let the default context send?"  # what is counted
    book = MoveBook({"question": alone}, {"context": POLICY}, {"answer": int})
    assert other_condition(book, "context", "default", "policy") is None


PROPS = """# kiln printer fonts
Kiln-Gothic-H=11
Kiln-Mincho-H=12
Kiln-Serif-H=13
Kiln-Sans-H=14

font.11=Kiln-Gothic-H findfont
font.12=Kiln-Mincho-H findfont
font.13=Kiln-Serif-H findfont
font.14=Kiln-Sans-H findfont
"""


def test_a_number_that_is_one_records_value_and_part_of_anothers_key_names_neither():
    # Java's psfont.properties.ja: "which PostScript font has been given the number 13?" read font.13's value,
    # 'Ryumin-Light-H findfont', where 'Ryumin-Light-H=13' gives the number 13 too
    _, kind = ask_scripted("Which font has been given the number 13?", PROPS)
    assert kind == "extracted"
