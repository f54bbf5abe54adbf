"""Shapes and wordings the twelfth probe (``benchmarks/asked/probe12.json``) met on its first run, each rebuilt
as a small made-up file: X resources, YAML mappings of mappings, XML settings named by an attribute, an HTML
table; a count whose condition is a nested flag field, a flag read for a "which" question, a "no" beside a
phrase found, a closing "in this <kind of file>". Each test failed before."""

from __future__ import annotations

from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted as _ask

XRESOURCES = """! Made-up app-defaults for Boatyard.

Boatyard.Geometry:			640x480

*ShapeStyle:				Oval
*Dock*ShapeStyle:			Rectangle

! Button names
*Box.launch.Label:			Launch Boat
*Box.moor.Label:			Moor
*Box.repaint.Label:		Repaint Hull
*label7: Welcome to the Boatyard manager version 2.3
*label8: No boat is selected.
"""


def test_x_resources_are_definitions_not_a_whitespace_table():
    s = detect(XRESOURCES)
    # before: a whitespace table, "!" lines records; then resource definitions keyed whole; now X resources,
    # keyed by the widget path less the application's class (tests/dspy_rlm/test_xresourceformat.py)
    assert (s.kind, s.detail) == ("assignments", "xresources")
    by_key = {r.key: r for r in s.records}
    assert by_key["label7"].fields == (("label7", "Welcome to the Boatyard manager version 2.3"),)
    assert by_key["Geometry"].fields == (("Geometry", "640x480"),)
    assert not any(r.key.startswith("!") for r in s.records)


def test_a_resources_value_and_the_resource_holding_a_value_are_read():
    assert _ask("What's the default window geometry for Boatyard?", XRESOURCES) == ("640x480", "submitted")
    assert _ask("what message text does it use for label7?", XRESOURCES) == (
        "Welcome to the Boatyard manager version 2.3",
        "submitted",
    )  # before: "Welcome", the second column of a whitespace table


NESTED_YAML = """root_dir: generated/apis
apis:
  harbor:
    v1:
      doc: harbor_v1.json
      default: true
    v2beta:
      doc: harbor_v2beta.json
  lighthouse:
    v1:
      doc: lighthouse_v1.json
    v3:
      doc: lighthouse_v3.json
      default: true
surfaces:
  harbor:
    name: harbor
    command: port authority harbor
  lighthouse:
    name: lighthouse
    command: coast beacon lighthouse
    hidden: true
"""


def test_a_yaml_mapping_of_mappings_gives_a_record_per_mapping():
    s = detect(NESTED_YAML)
    assert s.kind == "yaml"
    got = [(r.key, r.get("block"), r.get("doc") or r.get("command")) for r in s.records]
    assert got == [
        ("root_dir", None, None),
        ("v1", "harbor", "harbor_v1.json"),
        ("v2beta", "harbor", "harbor_v2beta.json"),
        ("v1", "lighthouse", "lighthouse_v1.json"),
        ("v3", "lighthouse", "lighthouse_v3.json"),
        ("harbor", "surfaces", "port authority harbor"),
        ("lighthouse", "surfaces", "coast beacon lighthouse"),
    ]  # before: three records, "apis" holding every version's fields


def test_a_reverse_lookup_in_nested_yaml_names_the_mapping():
    assert _ask("what gets exposed as `coast beacon lighthouse`?", NESTED_YAML) == ("lighthouse", "submitted")


def test_a_flag_is_no_answer_to_which():
    # "which version is flagged as the default one?": the flag read is "true", which is no version
    answer, kind = _ask("For the harbor API, which version is flagged as the default one?", NESTED_YAML)
    assert not (kind == "submitted" and str(answer).casefold() == "true")


JFC = """<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0">
  <event name="boat.Launch">
    <setting name="enabled">true</setting>
    <setting name="threshold">20 ms</setting>
  </event>
  <event name="boat.Moor">
    <setting name="enabled">true</setting>
    <setting name="period">everyChunk</setting>
  </event>
  <event name="boat.Repaint">
    <setting name="enabled">false</setting>
    <setting name="threshold">1000 ms</setting>
  </event>
</configuration>
"""


def test_xml_children_named_by_an_attribute_are_fields_of_that_name():
    s = detect(JFC)
    repaint = next(r for r in s.records if r.key == "boat.Repaint")
    assert (repaint.get("threshold"), repaint.get("enabled")) == ("1000 ms", "false")
    assert repaint.get("setting") == "false, 1000 ms"  # the joined values stay
    assert _ask("what threshold is configured for the boat.Repaint event?", JFC) == ("1000 ms", "submitted")


TEAMS = """<html><head><title>Crews</title></head><body>
<h1>Crews</h1>
<table border="1">
  <tr><th>Boat</th><th>Code</th><th>Crew address</th></tr>
  <tr><td><a href="a.html">Albatross</a></td><td>alb</td><td><a href="mailto:x">crew@albatross.example</a></td></tr>
  <tr><td><a href="b.html">Bittern &amp; Co</a></td><td>bit</td><td>(nothing)</td></tr>
  <tr><td>Cormorant</td><td>cor_N</td><td>cormorant@lists.example</td></tr>
  <tr><td>Dunlin</td><td>dun</td><td>(nothing)</td></tr>
  <tr><td>Eider</td><td>eid</td><td>eider@lists.example</td></tr>
</table>
</body></html>
"""


def test_an_html_table_is_a_table_of_its_rows():
    s = detect(TEAMS)
    assert (s.kind, s.detail) == ("table", "html")  # before: lines
    assert s.field_names == ("Boat", "Code", "Crew address")
    assert [r.key for r in s.records] == ["Albatross", "Bittern & Co", "Cormorant", "Dunlin", "Eider"]
    assert _ask("Which boat goes with the code cor_N?", TEAMS) == ("Cormorant", "submitted")
    assert _ask("whats the crew address of the Eider?", TEAMS) == ("eider@lists.example", "submitted")


def test_a_page_of_prose_with_a_small_table_stays_prose():
    prose = "<html><body>" + "<p>" + "A long paragraph about boats and harbors. " * 200 + "</p>"
    prose += "<table>" + "<tr><td>a</td><td>1</td></tr>" * 6 + "</table></body></html>"
    assert detect(prose).detail != "html"


FLAGS = """{
  "alpha": {"title": "Alpha", "url": "https://ex.org/providers/alpha", "endpoints": {"chat": true, "ocr": true}},
  "beta": {"title": "Beta", "url": "https://ex.org/providers/beta", "endpoints": {"chat": true, "ocr": false}},
  "gamma": {"title": "Gamma", "url": "https://ex.org/providers/gamma", "endpoints": {"chat": false, "ocr": true}},
  "delta": {"title": "Delta", "url": "https://ex.org/providers/delta", "endpoints": {"chat": true, "ocr": false}}
}
"""


def test_a_count_of_records_is_no_answer_where_a_nested_flag_field_is_named():
    # every url holds "providers", the counted noun; the condition is endpoints.ocr, which the question names
    # by its last part
    answer, kind = _ask("How many providers in this matrix are marked as supporting OCR?", FLAGS, "int")
    assert not (kind == "submitted" and answer == 4)


def test_a_link_names_a_url_field():
    assert _ask("where do the docs for gamma live? just give me the link", FLAGS) == (
        "https://ex.org/providers/gamma",
        "submitted",
    )


HEADER = """#ifndef _BOAT_CODES_H
#define _BOAT_CODES_H
#define BOAT_NONE		0
#define BOAT_CANOE		1	/* a canoe */
#define BOAT_PUNT		2	/* a punt */
#define BOAT_RAFT		3
#define BOAT_SAILING_DINGHY	4	/* Show/hide sailing dinghy (ROW12) */
#define BOAT_MAX		5
#endif
"""


def test_no_is_not_vouched_for_beside_a_phrase_of_the_question_found():
    # "keycode" is the asker's word for a line that says "sailing dinghy"
    answer, kind = _ask("is there a keycode defined for an sailing dinghy key in this header?", HEADER, "bool")
    assert not (kind == "submitted" and answer is False)


def test_the_words_of_a_closing_this_phrase_are_no_key():
    manifest = '[meta]\nmanifest-version = "2"\ndate = "2026-01-01"\n\n[boats.punt]\nversion = "1.2.0"\n'
    manifest += "".join(f"\n[boats.punt.target.t{i}]\navailable = true\n" for i in range(30))
    answer, kind = _ask("What version string is recorded for punt in this yard manifest?", manifest)
    assert not (kind == "submitted" and answer == "2")  # before: the meta record's manifest-version


CHANGELOG = """## Version History

## v2.1.0
* Add harbor maps by @gull in https://example.org/pull/31
* Speed up mooring by @tern in https://example.org/pull/30

## v2.0.1
* Fix the tide table

## v2.0.0
* Rename docks by @gull in https://example.org/pull/21
* Drop punts by @heron in https://example.org/pull/20
* Add rafts by @gull in https://example.org/pull/19
"""


def test_a_list_item_under_a_heading_has_its_section():
    s = detect(CHANGELOG)
    assert s.kind == "markdown_list"
    assert [r.get("section") for r in s.records if r.get("section")] == ["v2.1.0"] * 2 + ["v2.0.1"] + ["v2.0.0"] * 3
    assert _ask("How many changes are listed under v2.0.0?", CHANGELOG, "int") == (3, "submitted")


def test_yaml_nested_deeper_than_python_recurses_is_read_flat():
    deep = "top:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(1500)) + "  " * 1501 + "v: 1\n"
    s = detect("name: x\nversion: 1\n" * 30 + deep)
    assert s.kind == "yaml" and s.records[0].key == "name"  # before the guard: RecursionError, read as lines
