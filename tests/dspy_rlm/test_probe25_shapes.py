"""Shapes the twenty-fifth probe read wrong, each made up here: a list item naming a package with its version in
brackets, a two-step question through a record's "successor", a settings element beside an XML document's
records, a YAML list whose items sit at their key's indent, a JSON Schema's top-level properties beside its
definitions, a ranking by the list a word before the counted noun names, and questions whose words are a
field's ("the minimum of X", "option 3"). Each positive test fails before its change; each negative one guards
an answer that must not be ``Submitted``."""

from __future__ import annotations

import json

from dspy_rlm.library.structure import detect
from dspy_rlm.library.wordmatch import stem
from tests.dspy_rlm.scripted import ask_scripted

_HISTORY = """Start-Date: 2024-01-02  10:00:00
Commandline: apt-get install leftpad
Install: leftpad:amd64 (3.1.4-2), libquux1:amd64 (1.0-1, automatic)
End-Date: 2024-01-02  10:00:05

Start-Date: 2024-02-03  11:00:00
Commandline: apt-get install zed
Install: zed:amd64 (0.9-1)
End-Date: 2024-02-03  11:00:09
"""


def test_the_version_in_brackets_after_a_named_item_is_the_answer():
    assert ask_scripted("Which version of leftpad got installed according to this log?", _HISTORY) == (
        "3.1.4-2",
        "submitted",
    )


def test_a_version_in_brackets_is_no_answer_where_another_field_is_asked():
    answer, kind = ask_scripted("The apt run that installed zed - at what time did it end?", _HISTORY)
    assert not (kind == "submitted" and answer == "0.9-1")


_RUNTIMES = json.dumps(
    {
        "alpha1": {"deprecated": "2021-03-01", "successor": "alpha3", "create-block": "2021-06-01"},
        "alpha2": {"deprecated": "2022-03-01", "successor": "alpha3", "create-block": "2022-06-01"},
        "alpha3": {"deprecated": "2027-09-30", "successor": "alpha4", "create-block": "2028-01-31"},
        "alpha4": {"deprecated": "2030-01-15", "successor": "gamma1", "create-block": "2030-05-01"},
        "beta7": {"deprecated": "2023-11-11", "successor": "alpha4", "create-block": "2020-01-01"},
    },
    indent=1,
)


def test_a_field_asked_of_the_record_another_field_names_takes_two_steps():
    q = "What is the deprecation date of the runtime listed as alpha1's successor?"
    assert ask_scripted(q, _RUNTIMES) == ("2027-09-30", "submitted")


def test_a_date_word_after_a_dated_fields_name_names_that_field_alone():
    q = "Which runtime has the earliest deprecation date in this file?"
    assert ask_scripted(q, _RUNTIMES) == ("alpha1", "submitted")  # beta7's create-block is earlier


def test_a_field_read_of_the_key_itself_is_no_answer_when_another_field_of_it_is_asked():
    from dspy_rlm.profiles.moves import MoveBook
    from dspy_rlm.profiles.naming import possessed

    q = "What is the deprecation date of the runtime listed as alpha1's successor?"
    book = MoveBook({"question": q}, {"context": _RUNTIMES}, {"answer": str})
    key = next(k for k in book.keys["context"] if k.text == "alpha1")
    assert possessed(book, "context", key) == "successor"


_POM = """<?xml version="1.0"?>
<project>
  <properties>
    <project.encoding>UTF-8</project.encoding>
    <acme.junit.version>5.4.2</acme.junit.version>
    <acme.jacoco.version>0.7.1</acme.jacoco.version>
    <acme.javadoc.link>${acme.javadoc8.link}</acme.javadoc.link>
    <acme.javadoc8.link>https://docs.example.org/8/</acme.javadoc8.link>
    <acme.site.url>https://site.example.org/</acme.site.url>
    <acme.release.name>Acme</acme.release.name>
    <acme.compiler.fork>false</acme.compiler.fork>
  </properties>
  <build>
    <plugins>
      <plugin><groupId>org.example</groupId><artifactId>compile-plugin</artifactId></plugin>
      <plugin><groupId>org.example</groupId><artifactId>jar-plugin</artifactId></plugin>
      <plugin><groupId>org.example</groupId><artifactId>test-plugin</artifactId></plugin>
    </plugins>
  </build>
</project>
"""


def test_a_settings_element_beside_the_records_is_a_record_of_its_own():
    s = detect(_POM)
    props = next(r for r in s.records if r.key == "properties")
    assert props.get("acme.junit.version") == "5.4.2"
    assert [r.key for r in s.records].count("plugins") == 0  # a list of records is no settings element
    assert ask_scripted("Which JUnit version is pinned in this POM?", _POM) == ("5.4.2", "submitted")


def test_which_property_holds_a_value_is_answered_by_its_name():
    assert ask_scripted("which property is set to 0.7.1?", _POM) == ("acme.jacoco.version", "submitted")


def test_a_field_the_question_names_is_not_answered_by_another_field_beside_it():
    q = "acme.javadoc.link is defined by pointing at another property. What URL does it end up as?"
    answer, kind = ask_scripted(q, _POM)
    assert not (kind == "submitted" and answer == "https://site.example.org/")


_SCHEMA_YAML = """title: an export schema
type: object
properties:
  mode:
    description: How responses are cached.
    type: string
    enum:
    - ALL
    - STATIC
    - NONE
    - ORIGIN
  ttl:
    description: Seconds to keep a response.
    type: integer
  negative:
    description: Whether negative answers are cached.
    type: boolean
"""


def test_list_items_at_their_keys_indent_are_its_value():
    assert ask_scripted("How many values are allowed in the mode enum?", _SCHEMA_YAML, "int") == (4, "submitted")


_SCHEMA_JSON = json.dumps(
    {
        "type": "object",
        "required": ["format", "items"],
        "properties": {
            "format": {"description": "Major format number.", "type": "integer", "minimum": 3, "maximum": 3},
            "format_minor": {"description": "Minor format number.", "type": "integer", "minimum": 2},
            "items": {"description": "The items.", "type": "array"},
        },
        "definitions": {
            "item_id": {"description": "An identifier.", "type": "string", "maxLength": 32},
            "text_item": {"description": "A text item.", "type": "object", "required": ["id", "text"]},
            "code_item": {"description": "A code item.", "type": "object", "required": ["id", "code", "lang"]},
            "raw_item": {"description": "A raw item.", "type": "object", "required": ["id"]},
            "item": {"type": "object", "oneOf": ["text_item", "code_item", "raw_item", "other_item"]},
        },
    },
    indent=1,
)


def test_a_schemas_properties_beside_its_definitions_are_records():
    s = detect(_SCHEMA_JSON)
    minor = next(r for r in s.records if r.key == "format_minor")
    assert (minor.get("minimum"), minor.get("block")) == ("2", "properties")
    assert next(r for r in s.records if r.key == "code_item").get("block") == "definitions"


def test_the_minimum_of_a_named_record_is_its_field_not_a_ranking():
    q = "What is the minimum allowed value of format_minor in this schema?"
    assert ask_scripted(q, _SCHEMA_JSON, "int") == (2, "submitted")


def test_a_ranking_counts_the_list_named_just_before_its_noun():
    q = "Which item definition has the largest number of required fields?"
    assert ask_scripted(q, _SCHEMA_JSON) == ("code_item", "submitted")


_TELNET = """#define OPT_ALPHA 1 /* alpha mode */
#define OPT_BETA 2 /* beta mode */
#define OPT_GAMMA 3 /* gamma mode */
#define OPT_DELTA 4 /* delta mode */
"""


def test_an_option_numbered_in_the_question_asks_no_field_name():
    answer, kind = ask_scripted("what display name is given to option 3 (OPT_GAMMA)?", _TELNET)
    assert not (kind == "submitted" and answer == "value")


def test_a_noun_and_its_participle_share_a_stem():
    assert stem("deprecation") == stem("deprecated") == stem("deprecate")
    assert stem("option") == "option" and stem("section") == "section"  # short words keep their ending


_SCHEMES = """[unix]
bin = {base}/bin
lib = {base}/lib
include = {base}/include
data = {base}
man = {base}/man

[home]
bin = {home}/bin
lib = {home}/lib
data = {home}

[windows]
bin = {base}/Scripts
lib = {base}/Lib
include = {base}/Include
data = {base}
"""


def test_a_ranking_by_how_many_keys_ranks_sections_that_share_their_keys():
    assert ask_scripted("Which section has the most keys?", _SCHEMES)[0] == "unix"  # ranked; shared keys: not vouched


_SMB = """[global]
# naming
  workgroup = HOMEGROUP

# the server's description
  server string = Files %v

# printing: one more setting, indented deeper than the last
   printcap name = lpstat
   load printers = yes

[printers]
  path = /var/spool
  printable = yes
"""


def test_a_comment_line_ends_an_ini_value():
    s = detect(_SMB)
    glob = next(r for r in s.records if r.key == "global")
    assert glob.get("server string") == "Files %v"
    assert glob.get("printcap name") == "lpstat" and len(glob.fields) == 4
