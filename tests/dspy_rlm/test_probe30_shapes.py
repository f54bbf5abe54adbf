"""Shapes the thirtieth probe read wrong, each made up here: a JSON template's named parameters beside its list of
resources, a TOML table's array of author tables, a possessive ``'s`` that named a ``-s`` flag, a bullet holding
only the heading it sits under, a list continued over lines of comma-separated names, tabs among the spaces of a
JSON block, and a file of settings counted or ranked by each setting's own value. Each positive test fails before
its change; each negative one guards an answer that must not be ``Submitted``."""

from __future__ import annotations

from dspy_rlm.library import lookup, superlatives
from dspy_rlm.library import structure as st
from dspy_rlm.library.items import list_items
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.oracle import host_reader
from tests.dspy_rlm.scripted import ask_scripted

_TEMPLATE = """{
    "$schema": "https://example.org/deploymentTemplate.json#",
    "contentVersion": "1.0.0.0",
    "parameters": {
        "boxName": {
            "type": "string",
            "metadata": {"description": "The name of the box."}
        },
        "tier": {
            "type": "string",
            "defaultValue": "Bronze",
            "metadata": {"description": "Which service tier the box runs in."}
        },
\t"boxCount": {
            "type": "int",
            "defaultValue": 2
        },
        "openPort": {
            "type": "bool",
            "defaultValue": true
        }
    },
    "resources": [
        {
            "type": "Example.Compute/boxes",
            "name": "[parameters('boxName')]",
            "properties": {"tier": "[parameters('tier')]", "count": "[parameters('boxCount')]"}
        },
        {
            "type": "Example.Network/ports",
            "apiVersion": "2024-07-01",
            "name": "[concat(parameters('boxName'), '-port')]",
            "location": "[resourceGroup().location]",
            "dependsOn": ["[resourceId('Example.Compute/boxes', parameters('boxName'))]"],
            "properties": {
                "open": "[parameters('openPort')]",
                "protocol": "Tcp",
                "frontendPort": 8080,
                "backendPort": 80,
                "idleTimeoutInMinutes": 4,
                "enableFloatingIP": false
            }
        }
    ]
}
"""


def test_named_objects_beside_a_list_of_records_are_read_too():
    s = st.detect(_TEMPLATE)
    blocks = [(r.key, r.get("block")) for r in s.records]
    assert ("tier", "parameters") in blocks and ("boxCount", "parameters") in blocks
    assert sum(b == "resources" for _, b in blocks) == 2
    q = "What is the default value of the tier parameter in this template?"
    assert ask_scripted(q, _TEMPLATE) == ("Bronze", "submitted")  # not the resource's "[parameters('tier')]"


def test_a_tab_among_spaces_is_the_same_block_when_counting():
    q = "How many parameters are declared in the parameters section of the template?"
    assert ask_scripted(q, _TEMPLATE, "int") == (4, "submitted")


def test_a_json_schemas_definitions_stay_apart_from_its_properties():
    schema = """{
  "properties": {
    "name": {"type": "string", "description": "The name."},
    "modules": {"type": "array", "items": {"$ref": "#/definitions/module"}}
  },
  "definitions": {
    "module": {"title": "A module", "properties": {"name": {"type": "string"}}},
    "flag": {"title": "A flag", "type": "boolean"}
  }
}
"""
    assert {r.get("block") for r in st.detect(schema).records} == {None}  # the properties, as before


_PYPROJECT = """[build-system]
requires = ["flit_core >=3.2,<4"]
build-backend = "flit_core.buildapi"

[project]
name = "quillpen"
description = "Writes with quills"
authors = [
  {name = "Orla Finch", email = "orla@example.org"}
]
maintainers = [
  {name = "Piet Vos", email = "piet@example.org"},
  {name = "Rhea Moss", email = "rhea@example.org"},
]
requires-python = ">=3.8"
"""


def test_a_tables_array_of_tables_is_named_in_the_table_too():
    s = st.detect(_PYPROJECT)
    project = next(r for r in s.records if r.key == "project")
    assert project.get("authors") == "Orla Finch"
    assert project.get("maintainers") == "Piet Vos, Rhea Moss"
    assert ask_scripted("Who is listed as the author of the quillpen package?", _PYPROJECT) == (
        "Orla Finch",
        "submitted",
    )


def test_the_list_a_record_sits_in_is_no_other_field_asked():
    q = {"question": "Which maintainer has the email address rhea@example.org?"}
    book = MoveBook(q, {"context": _PYPROJECT}, {"answer": str})
    move = next(m for m in book.read_moves() if m.code == "print(key_of(context, 'rhea@example.org'))")
    book.record_read(move.code, host_reader(book.data)(move))
    submits = {m.candidate.value: m.candidate.supported for m in book.submit_moves() if m.candidate is not None}
    assert submits.get("Rhea Moss") is True  # its ``in`` is project.maintainers: the field "maintainers" names it


_ALIASES = r""".TH "FROB" "7" "May 2026" "frob 2.1" ""
.SH "NAME"
\fBfrob\fR - the frob tool
.SS "Levels"
.P
The default value of \fBlevel\fR is \fB"notice"\fR and every level prints the ones above it.
.SS "Aliases"
.P
The levels have aliases:
.RS 0
.IP \(bu 4
\fB-d\fR: \fB--level info\fR
.IP \(bu 4
\fB-q\fR: \fB--level warn\fR
.IP \(bu 4
\fB-s\fR: \fB--level silent\fR
.RE 0
"""


def test_a_possessive_s_names_no_flag():
    answer = ask_scripted("According to frob's aliases page, what's the default level?", _ALIASES)
    assert answer != ("--level silent", "submitted")


def test_a_bullet_holding_only_its_heading_answers_nothing():
    page = """# Logs and Secrets

Frob writes its logs under the cache directory.

- frob tokens
- passwords inside basic auth URLs

Secrets are replaced with three stars.
"""
    answer = ask_scripted("Apart from frob tokens, what does frob try to hide from its logs?", page)
    assert answer != ("Logs and Secrets", "submitted")


def test_a_list_continued_over_lines_of_names_between_commas():
    listed = ["py38", "py39", "py310", "cover", "docs", "build"]
    assert list_items("py38, py39, py310\n    cover, docs, build") == listed
    assert list_items("first line, with a comma and words\nsecond line") == [
        "first line, with a comma and words",
        "second line",
    ]
    tox = """[tox]
minversion = 3.18.0
envlist =
    py38, py39, py310
    cover, docs, build
isolated_build = true
"""
    assert ask_scripted("How many environments are listed in the envlist of that tox.ini?", tox, "int") == (
        6,
        "submitted",
    )


_MAPPING = """# which package ships each tool
frob-core: frob-cli
frob-docs: unavailable
frob-lint: frob-cli-lint
frob-gui: unavailable
frob-net: frob-cli
frob-old: unavailable
frob-test: frob-cli-test
frob-web: frob-cli
frob-zip: frob-cli
"""


def test_settings_are_counted_by_their_own_value():
    q = "How many tools are marked unavailable in the mapping?"
    assert ask_scripted(q, _MAPPING, "int") == (3, "submitted")
    assert lookup.count_where(_MAPPING, "*", "unavailable") == 3
    assert lookup.count_if(_MAPPING, "*", "starts", "frob-cli-") == 2


def test_the_value_most_settings_have():
    assert superlatives.most_common(_MAPPING, "*") == "frob-cli"
    assert ask_scripted("Which package appears most often in the mapping?", _MAPPING) == ("frob-cli", "submitted")


def test_a_value_also_inside_longer_settings_is_no_count_of_the_whole_ones():
    credits = "".join(
        f"{n} = {who}\n" for n, who in [("cat", "Ann Lee"), ("cut", "Ann Lee, Bo Ito"), ("tac", "Ann Lee")]
    )
    credits += "tee = Bo Ito\nyes = Ann Lee, Cy Orr\n"
    answer = ask_scripted("How many programs list Ann Lee among their authors?", credits, "int")
    assert answer != (2, "submitted")


def test_a_few_settings_heading_a_long_list_are_no_file_of_settings():
    head = "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nOrigin: Frob\nLabel: Frob\nSuite: stable\n"
    head += "Codename: frobnik\nVersion: 12\nDate: Sat, 11 Jul 2026 10:16:37 UTC\nAcquire-By-Hash: yes\nMD5Sum:\n"
    sums = "".join(f" {i % 7:032x} {100 + i} main/binary-{i}/Packages\n" for i in range(60))
    answer = ask_scripted("Which checksum shows up most often in the MD5Sum list?", head + sums)
    assert answer != ("Frob", "submitted")
