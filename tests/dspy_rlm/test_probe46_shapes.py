"""Shapes from probe 46's wrong answers, on invented data: in a YAML mapping of mappings, a key whose list sits at
the key's own indent (``channels:`` then ``- stable``) holds its items, not the text ``- stable``."""

from __future__ import annotations

from dspy_rlm.library import lookup
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
