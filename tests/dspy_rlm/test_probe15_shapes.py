"""The fifteenth probe's general lessons, on made-up texts: a superlative that opens the question asks the ranked
value, not the record holding it; a quoted phrase the data holds is what a yes/no question asks about."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted as _ask

CRATES = "crate,weight,colour\n" + "".join(
    f"{name},{w}kg,{c}\n"
    for name, w, c in [("anchor", 12, "red"), ("buoy", 3, "blue"), ("cleat", 40, "red"), ("davit", 7, "green")]
)


def test_a_superlative_opening_the_question_asks_the_ranked_value():
    assert _ask("What's the smallest weight in the list?", CRATES, "str") == ("3kg", "submitted")
    assert _ask("whats the largest weight given anywhere?", CRATES, "str") == ("40kg", "submitted")
    assert _ask("Which crate has the smallest weight?", CRATES, "str") == ("buoy", "submitted")


ENTITIES = (
    "package  Pod::Marks;\nuse  strict;\nPod::Marks  - maps entity names to code points\n"
    + "".join(
        f" '{n}'   , {c},\n"
        for n, c in [("amp", 38), ("lt", 60), ("gt", 62), ("quot", 34), ("hellip", 8230), ("trade", 8482)]
        + [("copy", 169), ("reg", 174)]
    )
    + "entity  declarations follow the usual table.\nuse  Pod::Marks qw(e2char);\n"
)


def test_a_quoted_phrase_found_is_what_a_yes_no_question_asks_about():
    # the module's name is in many lines, none holding 'hellip'; the quoted entity is in the data: never "no"
    # (the record keyed by the module's name does not hold it: that said "no", Submitted)
    assert _ask("does Pod::Marks know the 'hellip' entity?", ENTITIES, "bool") == (True, "extracted")


KEYS = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<schemalist>\n  <schema id="org.example.wm.keys" path="/org/example/">\n'
    + "".join(
        f'    <key name="{n}" type="as">\n      <default><![CDATA[{d}]]></default>\n'
        f"      <summary>{s}</summary>\n    </key>\n"
        for n, d, s in [
            ("close", "['<Alt>F4']", "Close window"),
            ("minimize", "['<Super>h']", "Hide window"),
            ("maximize", "['<Super>Up']", "Maximize window"),
            ("show-desktop", "@as []", "Hide all normal windows"),
            ("panel-run-dialog", "['<Alt>F2']", "Show the run command prompt"),
        ]
    )
    + "  </schema>\n</schemalist>\n"
)


def test_a_one_item_list_value_is_its_item():
    # a GSettings default is a list literal: the shortcut is its one item, not the brackets and quotes
    assert _ask("What's the default shortcut to close a window?", KEYS, "str") == ("<Alt>F4", "submitted")
    assert _ask("What is the default for maximize?", KEYS, "str") == ("<Super>Up", "submitted")
