"""Shapes from probe 63's first run, on invented data: the words of an owner's phrase closing a question ("in
Seaward's North tide set") name the data, no condition a record must meet; whether a thing may be left out ("may
the user leave off the harbour?") is no question of its presence; one scalar of a JSON object whose other members
are nested objects is no value the object vouches for; an fstab's last two columns, one space apart, are two
columns, as are two angle-bracketed names one space apart; a path spells a hyphenated name joined, and a word that is a
path's whole last part names its record; a heading comment over a CSV's rows writes its words in the data, and an
owner's name for the data before a yes/no's verb is no phrase asked; an identifier the question writes stays a key
beside one its words spell joined (probe 60's). Each test fails on the code before its change."""

from __future__ import annotations

import json

from tests.dspy_rlm.scripted import ask_scripted

TIDES = """#
# NOTE:
#   A template of tide marks for harbours you could need.
#
NHT      420    # Northern Basin High Tide
NLT      35   L # Northern Basin Low Tide
SHT      390    # South Quay High Tide
SLT      28   L # North Quay Low Tide (old gauge)
EHT      405    # East Pier High Tide
ELT      31   L # East Pier Low Tide (old gauge)
WHT      398    # West Wall High Tide
WLT      30   L # North Wall Low Tide
MHT      377    # Mill Pond High Tide
MLT      22   L # Mill Pond Low Tide (old gauge)
OLT      North/Wall # Old Low Tide (obsolete)
"""


def test_the_words_of_an_owners_phrase_closing_the_question_state_nothing_of_the_record():
    answer, ending = ask_scripted("Is NLT marked as a low-water mark in Seaward's North tide set?", TIDES, "bool")
    assert (answer, ending) == (True, "submitted")  # Submitted False before: OLT's North/Wall holds "North"


PAGE = r""".\" A template for a page of one program
.TH TIDEMARK 1
.SH NAME
tidemark \- print the tide marks of a harbour
.SH SYNOPSIS
A short usage summary.
.PP
.B tidemark
[
.B \-l
]
.I harbour
[
.I gauge...
]
.SH DESCRIPTION
Prints each tide mark of the harbour.
.SH OPTIONS
.TP
.B \-l
List low-water marks only.
.TP
.I harbour
The last
.I harbour
is required, because it is not in brackets.
.TP
.I gauge
means that the user can name more gauges at the end.
.SH "EXIT STATUS"
Zero when every mark was read.
"""


def test_whether_a_thing_may_be_left_out_is_no_question_of_its_presence():
    q = "According to the sample man page, may the user leave off the harbour in the synopsis?"
    answer, ending = ask_scripted(q, PAGE, "bool")
    assert ending != "submitted" or answer is False  # Submitted True before: "harbour" is there


RETRIES = json.dumps(
    {
        "definitions": {"gauge_down": {"applies_when": {"response": {"service_error_code": "GaugeDown"}}}},
        "retry": {
            "__default__": {"max_attempts": 7},
            **{
                harbour: {
                    "__default__": {
                        "policies": {
                            f"{harbour}_{code}": {
                                "applies_when": {"response": {"service_error_code": code, "http_status_code": 400 + n}}
                            }
                            for n, code in enumerate(codes)
                        }
                    }
                }
                for harbour, codes in {
                    "northbay": ["TideTooLow", "GaugeOffline"],
                    "millpond": ["SluiceClosed", "PumpStalled", "WeirBlocked"],
                    "eastpier": ["BerthTaken", "CraneBusy"],
                }.items()
            },
        },
    },
    indent=4,
)


def test_one_scalar_of_an_object_of_nested_ones_is_no_answer_the_record_vouches_for():
    q = "For which harbour does the tide service retry when it gets the GaugeOffline error code?"
    answer, ending = ask_scripted(q, RETRIES)
    assert ending != "submitted" or answer == "northbay"  # Submitted max_attempts' 7 before


MOORINGS = """# /etc/moortab: static mooring information.
#
# Format:
#  <berth>         <boat>   <kind>  <options>	<watch>	<tide>
#
# The `tender' option marks a berth served by the harbour tender.
B1	/sloop		keel	defaults			0 1
B2	/ketch		keel	defaults,tender		0 2
B3	/dinghy		flat	defaults			0 2

# The `noauto' option keeps a berth out of the nightly count.
B4	/barge		flat	defaults,noauto,ro		1 0
"""


def test_a_rows_last_cells_one_space_apart_under_as_many_named_columns_are_each_a_column():
    answer, ending = ask_scripted("Which tide number does the /ketch boat get?", MOORINGS, "int")
    assert (answer, ending) == (2, "submitted")  # '0 2' was one 'watch' cell, and no 'tide' column, before


def test_a_path_spells_a_hyphenated_name_of_five_letters_or_more_joined():
    from dspy_rlm.profiles.id_spellings import spelled_as

    assert spelled_as("/dev/lifeboat\t/lifeboat\tflat\tdefaults,ro\t0 0\n", "life-boat") == "lifeboat"  # None before
    assert spelled_as("data: QmFy/x3Zm9v+YmF6\n", "X-3") is None  # a short one inside base64 is still no spelling


DEVICES = """# /etc/devtab: the devices of the bench rig.
#  <device>        <target>       <kind>   <flags>              <keep> <order>
/dev/sda1          /              ext4     defaults             0 1
/dev/sdb1          /data          ext4     defaults,noatime     0 2
/dev/scanner       /scanner       usbfs    rw,noexec,user       0 0
/dev/lp0           /printer       lpfs     defaults,noauto      0 0
"""


def test_a_word_that_is_a_paths_whole_last_part_names_its_record():
    answer, ending = ask_scripted("Which flags does the device table give the scanner?", DEVICES)
    assert (answer, ending) == ("rw,noexec,user", "submitted")  # Extracted '/dev/scanner' before: 'scanner' only
    # ever after a '/' counted as a part inside a name, no record's own word


def test_two_angle_bracketed_names_one_space_apart_in_a_header_are_two_columns():
    answer, ending = ask_scripted("What order number does the device table give /data?", DEVICES, "int")
    assert (answer, ending) == (2, "submitted")  # Submitted 0 before: '0 2' one '<keep> <order>' cell, read as 0


RATES = """kind,input,output,tol
## small values ##
f32,0x00000001,0x3f800000,3
f32,0x00000002,0x3f800000,3
f64,0x0000000000000001,0x3ff0000000000000,1
## large values, inf, nan ##
f64,0x7ff0000000000000,0x7ff0000000000000,1
f64,0x7ff8000000000000,0x7ff8000000000000,1
f32,0x7fc00000,0x7fc00000,3
f32,0x42b17218,0x7f800000,3
"""


def test_a_word_of_a_heading_comment_over_the_rows_is_written_in_the_data():
    answer, ending = ask_scripted("Does the cosh validation table include NaN inputs?", RATES, "bool")
    assert ending != "submitted" or answer is True  # Submitted False before: '## ..., nan ##' is no commented row
    answer, ending = ask_scripted("Does the cosh validation table include denormal inputs?", RATES, "bool")
    assert (answer, ending) == (False, "submitted")  # a word written nowhere: still no


def test_an_owners_name_for_the_data_before_its_verb_is_no_phrase_asked():
    answer, ending = ask_scripted("Does Acme's cosh validation table include NaN inputs?", RATES, "bool")
    assert ending != "submitted" or answer is True  # Submitted False before: exists(context, 'Acme')
    answer, ending = ask_scripted("Does Acme's cosh validation table include denormal inputs?", RATES, "bool")
    assert (answer, ending) == (False, "submitted")


STEPS = """set -e
cd "$SRC"
if pack_mode
then
	run_pack_cmd "$1"
fi
echo "packing in $SRC"
list_pack_candidates
tools="zstd"
echo "$tools xz lz4"
printf '%s\\n' "$tools"
test -n "$tools" || exit 1
rm -f "$TMP"/*.part
exit 0
"""


def test_an_identifier_the_question_writes_stays_a_key_beside_one_its_words_spell_joined():
    from dspy_rlm.profiles.moves import MoveBook

    q = "After list_pack_candidates, what is tools set to when running in pack mode?"
    book = MoveBook({"question": q}, {"context": STEPS}, {"answer": str})
    keys = [k.text for k in book.keys["context"]]
    assert "pack_mode" in keys and "list_pack_candidates" in keys  # dropped before: 'pack mode' spelled pack_mode
    # outside every record had made the question's loose words no keys, its written identifier among them
