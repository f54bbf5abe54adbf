"""Shapes the twenty-sixth probe read wrong, each made up here: a C macro defined as another macro, a value asked
by its form ("what hex value"), a setting's flag answering a yes/no, a shell script's KEY="a b c" lists, an
option asked with its dashes where the data names it bare, a quoted phrase the data lacks, and the items of a
list of mappings deep inside a YAML document. Each positive test fails before its change; each negative one
guards an answer that must not be ``Submitted``."""

from __future__ import annotations

import json

from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted

_HEADER = """/* widget flags */
#ifndef _WIDGET_H
#define _WIDGET_H 1

struct widget
  {
    unsigned short int w_flags;
    short int w_pad;
  };

#define WF_UP		0x0001		/* Widget is up.  */
#define WF_DOWN		0x0004		/* Widget is down.  */
#define WF_SPIN		0x0008		/* Widget spins.  */
#define WF_COLD		0x0020		/* Widget is cold.  */
#define WF_WARM		0x0040		/* Widget is warm.  */
#define WF_LOUD		0x0080		/* Widget is loud.  */
#define WF_SOFT		0x0100		/* Widget is soft.  */
#define WF_LIT		0x0002		/* Widget is lit.  */
#define WF_BIG		0x0010		/* Oversized widget.  */
#define WF_HUGE		WF_BIG		/* Compatibility.  */
#define WF_GONE		0x0200		/* Widget removed.  */

#endif
"""


def test_a_macro_defined_as_another_ends_up_as_that_ones_value():
    q = "WF_HUGE is defined as an alias of another flag - what numeric value does it end up with?"
    assert ask_scripted(q, _HEADER) == ("0x0010", "submitted")


def test_a_macro_alias_is_not_submitted_resolved_where_its_definition_is_asked():
    answer, kind = ask_scripted("What is WF_HUGE defined as?", _HEADER)
    assert not (kind == "submitted" and answer == "0x0010")


def test_the_value_of_the_form_the_question_says_is_the_answer():
    assert ask_scripted("What hex value does widget.h give the WF_GONE flag?", _HEADER) == ("0x0200", "submitted")


_MAKE = """## settings
prefix = /usr
exec_prefix = ${prefix}
bindir = ${exec_prefix}/bin
ENABLE_RPATH = NO
ENABLE_SHARED = YES
TOOL_STUBNAME = tl
"""


def test_a_settings_flag_answers_a_yes_no():
    assert ask_scripted("Is RPATH enabled in this makefile include?", _MAKE, "bool") == (False, "submitted")
    assert ask_scripted("Is SHARED enabled in this makefile include?", _MAKE, "bool") == (True, "submitted")


_SCRIPT = """#!/bin/sh
# set up the repository
set -eu

MIRROR="https://example.org/repo"
REPO_DISTS="sid bookworm bullseye buster jammy focal"
OLD_DISTS="stretch jessie wheezy xenial bionic"

case "$1" in
    -s) SRC=1 ;;
esac

echo "Using $MIRROR"
if echo "$REPO_DISTS" | grep -qw "$CODENAME"; then
    echo "supported"
fi
"""


# a shell script's records are read right, and end Extracted until a calibration fit measures shell scripts
# (dspy_rlm.profiles.calibration.UNMEASURED_DETAILS)


def test_a_scripts_list_of_names_is_counted():
    assert ask_scripted("How many distribution codenames are listed in REPO_DISTS?", _SCRIPT, "int") == (
        6,
        "extracted",
    )


def test_a_name_absent_from_a_scripts_list_answers_no():
    q = "Is Ubuntu trusty among the codenames in OLD_DISTS?"
    assert ask_scripted(q, _SCRIPT, "bool") == (False, "extracted")


def test_a_name_in_a_scripts_list_is_not_answered_no_beside_a_word_describing_it():
    answer, kind = ask_scripted("Is Ubuntu xenial among the codenames in OLD_DISTS?", _SCRIPT, "bool")
    assert not (kind == "submitted" and answer is False)


def test_lower_case_names_between_spaces_are_items_and_a_sentence_is_not():
    from dspy_rlm.library.items import list_items

    assert list_items("sid bookworm bullseye") == ["sid", "bookworm", "bullseye"]
    assert list_items("reject the route now") == ["reject the route now"]


_OPTIONS = json.dumps(
    {
        "options": {
            "debug": {"action": "store_true", "help": "<p>Turn on debug logging.</p>"},
            "output": {"choices": ["json", "text", "table"], "help": "<p>The output format.</p>"},
            "color": {"choices": ["on", "off", "auto"], "default": "auto", "help": "<p>Colour output.</p>"},
            "profile": {"help": "<p>A named profile. This option overrides the one set in the config.</p>"},
            "region": {"help": "<p>The region to use. Overrides the region set in the config.</p>"},
        }
    },
    indent=4,
)


def test_an_option_set_to_a_value_the_data_never_says_answers_no():
    q = "Can the --output option be set to yaml according to this file?"
    assert ask_scripted(q, _OPTIONS, "bool") == (False, "submitted")


_MANUAL = """.TH TOOL 1
.SH OPTIONS
.TP
.B \\-q
Quiet.
.TP
.BI "\\-X " option
Set implementation-specific option.  The following options are available:

    -X faulthandler: enable faulthandler

    -X importtime: show how long each import takes
"""


def test_a_quoted_phrase_the_data_lacks_is_what_a_yes_no_asks():
    q = "Does the man page document a '-X perf' implementation option?"
    assert ask_scripted(q, _MANUAL, "bool") == (False, "submitted")


_SURFACE = """- release_tracks: [GA]
  help_text:
    brief: Create a gizmo.
  arguments:
    params:
    - arg_name: zone
      help_text: The zone of the gizmo.
    - arg_name: tier
      help_text: The service tier.
      choices:
      - enum_value: BASIC
        arg_value: basic
      - enum_value: PREMIUM
        arg_value: premium
    - arg_name: snapshot-period
      help_text: Period between snapshots.
      choices:
      - enum_value: ONE_HOUR
        arg_value: 1h
      - enum_value: SIX_HOURS
        arg_value: 6h
      - enum_value: DAILY
        arg_value: 24h
    - arg_name: size
      type: int
      default: 1
      help_text: Memory size in GiB.
"""


def test_the_items_of_a_deep_list_of_mappings_are_records():
    s = detect(_SURFACE)
    assert [r.key for r in s.records][1:] == ["zone", "tier", "snapshot-period", "size"]
    assert next(r for r in s.records if r.key == "size").get("default") == "1"
