"""Shapes from probe 68's first run, on invented data: the functions a script defines are counted by the lines that
open a definition in its language (a shell script's records are its functions and its top-level assignments: a
count of records said 25 for 18); a ranking of a column whose values lack the part of a value the question asks
for ("which region, the part before the slash") is no answer (an offset column ranked for zone names held in
comments: a wrong Submitted "0"); a compound word the question qualifies its records by, said only in the text's
comments ("among the *user-settable* options": a comment heads some records), leaves a ranking of all of them
unsure (a wrong Submitted 65535 for 37). Each test fails on the code before its change, but the guards marked so."""

from __future__ import annotations

import json

from tests.dspy_rlm.scripted import ask_scripted

SCRIPT = "#!/bin/sh\n# frob-helper: keeps the frob tree tidy\nPROGNAME=frob\nVERSION=2.4.1\nROOT=/srv/frob\n\n"
SCRIPT += "".join(
    f'{name}() {{\n  local arg="$1"\n  echo "{name} $arg"\n}}\n\n'
    for name in ("usage", "tidy_tree", "prune_old", "check_lock", "report")
)
SCRIPT += (
    'function cleanup {\n  rm -f "$ROOT/lock"\n}\n\ncase "$1" in\n  tidy) tidy_tree "$2" ;;\n  *) usage ;;\nesac\n'
)


def test_a_scripts_functions_are_counted_by_their_definitions():
    q = "How many shell functions does frob-helper define?"
    answer, _kind = ask_scripted(q, SCRIPT, "int")
    assert answer == 6


def test_only_the_functions_defined_are_counted():  # a guard
    from dspy_rlm.profiles.definitions import asks_definitions, script_language

    assert asks_definitions("How many functions are defined in frob.sh?")
    assert not asks_definitions("How many functions does frob.sh call?")
    assert not asks_definitions("How many test functions does frob.sh define?")  # some of them only
    assert script_language("#!/usr/bin/awk -f\nfunction f(a) { return a }\n") == "awk"
    assert script_language("just some prose (with parens) here\n") is None


ZONES = "# zone abbreviations of the far north\n\n"
for abbr, offset, zones in (
    ("NRT", "-10800", ["Boreal/Ice", "Boreal/Snow", "Polar/Tundra"]),
    ("NST", "-14400", ["Boreal/Fjord", "Boreal/Moss", "Boreal/Lichen", "Polar/Floe"]),
    ("QQT", "0", ["Polar/Drift"]),
    ("QQS", "0", ["Polar/Berg"]),
    ("WZT", "0", ["Polar/Floe"]),
    ("XZT", "-3600", ["Boreal/Moss"]),
):
    ZONES += f"{abbr}    {offset}    # {abbr.title()} Time\n" + "".join(f"             #     ({z})\n" for z in zones)


def test_a_column_lacking_the_part_asked_is_no_ranking_of_it():
    q = "Among the zone names in parentheses under the abbreviations, which region (the part before the slash) is most"
    q += " frequent?"
    answer, kind = ask_scripted(q, ZONES)
    assert not (answer == "0" and kind == "submitted")


HEADER = "/*\n * Frob-settable options (used with frobctl).\n */\n" + "".join(
    f"#define FROB_{name}\t{k + 1}\t/* {name.lower()} */\n"
    for k, name in enumerate(["NODELAY", "MAXSEG", "CORK", "IDLE", "COUNT", "LINGER"])
)
SIZES = HEADER + "\n/* Sizes of the frob window. */\n#define FROB_MSS\t512\n#define FROB_MAXWIN\t65535\n"


def test_a_qualifier_said_only_in_comments_leaves_a_ranking_unsure():
    q = "Among the frob-settable FROB_* options at the top of frob.h, what is the highest option number?"
    answer, kind = ask_scripted(q, SIZES, "int")
    assert not (answer == 65535 and kind == "submitted")


def test_a_qualifier_over_every_record_is_no_doubt():  # a guard: the comment heads them all
    q = "Among the frob-settable FROB_* options at the top of frob.h, what is the highest option number?"
    assert ask_scripted(q, HEADER, "int") == (6, "submitted")


def test_comments_are_left_out_in_one_pass():  # a guard
    from dspy_rlm.profiles.comment_doubts import uncommented

    assert "settable" not in uncommented(HEADER) and "FROB_CORK" in uncommented(HEADER)
    assert uncommented("a /* open\nb\n") == "a /* open\nb\n"  # no close: no comment


def _flag(name: str, switch: str, comment: str, value: int) -> dict:
    return {"name": name, "switch": switch, "comment": comment, "value": str(value), "flags": []}


FLAGS = json.dumps(
    [_flag("Level", f"L{k}", f"Strictness Level {k} (/L{k})", k) for k in range(4)]
    + [_flag("Align", f"A{2**k}", f"Align to {2**k} bytes (/A{2**k})", k + 1) for k in range(5)],
    indent=2,
)


def test_records_sharing_a_key_are_ranked_among_themselves():
    # a JSON member "value" the question says names that field; the ranked 3 stays supported beside the lone 3 of
    # "Strictness Level 3 (/L3)"; the records keyed Level are the block ranked within
    assert ask_scripted("What is the highest Level value listed in flags.json?", FLAGS, "int") == (3, "submitted")


def test_a_key_that_names_a_field_is_no_block_and_a_value_stated_names_no_field():  # guards, from the host check
    from dspy_rlm.library import structure as st
    from dspy_rlm.library.superlatives import records_within
    from dspy_rlm.profiles.definitions import asks_definitions
    from dspy_rlm.profiles.spans import value_field_said

    rows = [{"name": "kind", "kind": k, "value": "1"} for k in "abc"] + [{"name": "size", "kind": "a", "value": "2"}]
    s = st.detect(json.dumps(rows, indent=2))
    assert [r.key for r in s.records].count("kind") == 3 and "kind" in s.field_names
    assert len(records_within(s, "kind")) != 3  # "which kind is listed most often" ranks the field, in no block
    assert value_field_said("Which switch selects the Level value StrictDebug?", [s]) == []
    assert value_field_said("What is the highest Level value listed?", [s]) == ["value"]
    assert not asks_definitions("How many functions whose names begin with open_ are defined in the script?")
    assert not asks_definitions("How many procedures are defined at top level in this file?")
