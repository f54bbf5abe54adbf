"""Shapes and wordings the thirteenth probe (``benchmarks/asked/probe13.json``) met on its first run, each rebuilt
as a small made-up file: program literals read as comma-separated tables (a Perl hash, a Python dict, a list of
pairs), Vim-like ``hi NAME key=value`` lines, a field named by two words joined ("gui bg"), a reverse read whose
record is keyed by the phrase asked, a ranking of a value answered by the record with the most entries."""

from __future__ import annotations

from dspy_rlm.library.helpers import make_helpers
from dspy_rlm.library.structure import detect
from dspy_rlm.profiles.moves import MoveBook
from tests.dspy_rlm.scripted import ask_scripted as _ask

PERL_HASH = "package Boat::Config;\n\nour %Module = (\n" + "".join(
    f"    '{name}'{' ' * (12 - len(name))}=> 'Boat::{kind}',\n"
    for name, kind in [
        ("dinghy", "Small"), ("kayak", "Small"), ("canoe", "Small"), ("sloop", "Sail"), ("ketch", "Sail"),
        ("yawl", "Sail"), ("schooner", "Sail"), ("tug", "Motor"), ("trawler", "Motor"), ("barge", "Motor"),
        ("junk", "Sail"), ("punt", "Small"),
    ]
) + ");\n\n1;\n"  # fmt: skip

PY_DICT = "BOATS = {\n" + "".join(f'    "{n}": "{v}",\n' for n, v in [
    ("red_dinghy", "R1"), ("blue_dinghy", "B1"), ("green_kayak", "G7"), ("old_sloop", "S9"), ("new_sloop", "S10"),
    ("grey_tug", "T2"), ("big_barge", "X4"), ("tall_schooner", "Q5"), ("fast_ketch", "K3"), ("slow_punt", "P8"),
    ("tiny_canoe", "C6"), ("long_junk", "J2"),
]) + "}\n"  # fmt: skip

PAIRS = "import collections\n\nHULL_MAP = collections.OrderedDict([\n" + "".join(
    f'    ("{a}", ("{b}", CONV_HULL, API_BOAT)),\n' for a, b in [
        ("oakHull", "pineHull"), ("oakMast", "pineMast"), ("oakKeel", "pineKeel"), ("oakDeck", "pineDeck"),
        ("oakOar", "pineOar"), ("oakRudder", "pineRudder"), ("oakTiller", "pineTiller"), ("oakBoom", "pineBoom"),
        ("oakCleat", "pineCleat"), ("oakHatch", "pineHatch"), ("OAK_ERROR_SUNK", "pineErrorSunk"),
    ]
) + "])\n"  # fmt: skip


def test_program_literals_are_no_comma_separated_tables():
    perl, py, pairs = detect(PERL_HASH), detect(PY_DICT), detect(PAIRS)
    assert (perl.kind, perl.detail) == ("assignments", "literals")  # before: a CSV table, a line its one cell
    assert {r.key: r.get("value") for r in perl.records}["ketch"] == "Boat::Sail"
    assert (py.kind, py.detail) == ("assignments", "literals")
    assert {r.key: r.get("value") for r in py.records}["green_kayak"] == "G7"
    assert (pairs.kind, pairs.detail) == ("assignments", "literals")  # before: CSV, '("oakHull"' a key
    by_key = {r.key: r for r in pairs.records}
    assert by_key["oakKeel"].get("value") == "pineKeel" and by_key["oakKeel"].get("block") == "HULL_MAP"


def test_literal_entries_are_read_both_ways():
    assert _ask("Which Boat module handles the ketch?", PERL_HASH) == ("Boat::Sail", "submitted")
    assert _ask("what does the map replace oakRudder with?", PAIRS) == ("pineRudder", "submitted")
    assert _ask("which identifier gets translated to pineErrorSunk?", PAIRS) == ("OAK_ERROR_SUNK", "submitted")


VIM = """" Made-up colour scheme
set background=dark
hi clear
let g:colors_name = "harbour"

hi Normal guifg=#ffffff guibg=#333333 gui=NONE cterm=NONE
hi Cursor guifg=#000000 guibg=#aaaa00 gui=NONE cterm=NONE
hi Pmenu guifg=#ffffff guibg=#666666 gui=NONE cterm=NONE
hi PmenuSel guifg=#333333 guibg=#ffde9b gui=NONE cterm=NONE
hi Search guifg=#f0e68c guibg=#7f7f8c gui=NONE cterm=NONE
hi Visual guifg=#f0e68c guibg=#6b8e24 gui=NONE cterm=NONE
hi DiffAdd guifg=#ffffff guibg=#5f875f gui=NONE cterm=NONE
hi Comment guifg=#6dceeb guibg=NONE gui=NONE cterm=NONE

"""


def test_key_value_arguments_of_a_directive_are_fields_and_two_words_name_one():
    pmenu = [r for r in detect(VIM).records if r.key == "Pmenu"]
    assert pmenu[0].get("guibg") == "#666666"  # before: one field "hi" holding the whole line
    # "gui bg" names guibg, not gui (whose value NONE was Submitted)
    assert _ask("gui bg color for Pmenu in this scheme?", VIM) == ("#666666", "submitted")


def test_a_nothing_value_answers_no_which_question():
    answer, kind = _ask("which highlight group has a gui background of #5f875f?", VIM)
    assert (answer, kind) != ("NONE", "submitted")


COMPOSE = "".join(f"{table}/Compose\t\t{locale}\n" for table, locale in [
    ("iso8859-1", "en_US.ISO8859-1"), ("iso8859-1", "de_DE.ISO8859-1"), ("iso8859-2", "pl_PL.ISO8859-2"),
    ("iso8859-2", "cs_CZ.ISO8859-2"), ("koi8-r", "ru_RU.KOI8-R"), ("tatar-cyr", "tt_RU.TATAR-CYR"),
    ("georgian-academy", "ka_GE.GEORGIAN-ACADEMY"), ("en_US.UTF-8", "en_US.UTF-8"), ("en_US.UTF-8", "fr_FR.UTF-8"),
])  # fmt: skip


def test_a_record_keyed_by_the_phrase_asked_gives_no_reverse_answer():
    answer, kind = _ask("Which locale is mapped to the tatar-cyr compose table?", COMPOSE)
    assert (answer, kind) != ("tatar-cyr/Compose", "submitted")  # before: Submitted, the table asked about


UNIT = """[Unit]
Description=Made-up Harbour Daemon
After=network.target

[Service]
ExecStart=/usr/lib/harbourd
Restart=always
RestartSec=5
LimitNOFILE=4096
FileDescriptorStoreMax=128
DeviceAllow=char-tty rw
DeviceAllow=char-input rw
DeviceAllow=block-* r
"""


def test_a_ranking_of_a_value_is_not_the_record_with_the_most_entries():
    answer, kind = _ask("Which directive in this unit file is set to the largest number?", UNIT)
    assert (answer, kind) != ("Service", "submitted")  # before: Submitted, the section with the most fields


def test_a_field_name_misspelt_by_one_letter_is_still_named():
    assert _ask("What's the descripton of this unit?", UNIT) == ("Made-up Harbour Daemon", "submitted")


def test_a_count_that_drops_the_questions_test_is_not_vouched_for():
    # "how many emoji names start with family_?": every entry of the EMOJI block counted is no answer
    book = MoveBook({"question": "How many BOATS entries start with tall_?"}, {"context": PY_DICT}, {"answer": int})
    code = "print(count_where(context, 'block', 'BOATS'))"
    book.record_read(code, str(make_helpers()["count_where"](PY_DICT, "block", "BOATS")))
    assert book.reads[code][0].value == "12" and not book.reads[code][0].supported  # before: vouched for
