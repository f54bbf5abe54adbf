"""Shapes the seventeenth probe met, on made-up files: a glob the data writes is one key phrase ("debian/*"); a YAML
list whose items are mappings is a list of those items, and a "no" read in it is not vouched for; a field the
question gives the key as ("whose output is X", "profile = black") is no answer; a field of dates ranks by date,
and the ranked value is what "the F of the most recent ..." asks for."""

from __future__ import annotations

import json

from dspy_rlm.library.items import has_item, items_of, list_items
from dspy_rlm.library.superlatives import max_of, min_of
from dspy_rlm.profiles.stated import binds
from tests.dspy_rlm.scripted import ask_scripted as _ask

COPYRIGHT = (
    "Format: https://example.org/copyright-format/1.0/\nUpstream-Name: zed\n\n"
    "Files: *\nCopyright: 2019, Ann Example\nLicense: MIT\n\n"
    "Files: tools/*\nCopyright: 2020, Bo Sample\nLicense: GPL-2+\n\n"
    "Files: debian/*\nCopyright: 2021, Cy Packager\nLicense: MIT\n\n"
    "License: MIT\n Permission is granted.\n"
)
WORKFLOW = (
    "name: build\non: [push]\njobs:\n  linux:\n    strategy:\n      matrix:\n        os:\n          - debian\n"
    "          - alpine\n    runs-on: ubuntu-latest\n    steps:\n"
    "      - uses: actions/checkout@v4\n"
    "      - run: |\n          sudo apt install -y make gcc \\\n          zlib1g-dev libffi-dev\n"
    "      - env:\n          ROOT: /opt/x\n        run: make test\n"
    "      - run: make dist\n"
)
SETUP_CFG = (
    "[metadata]\nname = kite\n\n[flake8]\nmax-line-length = 100\n\n"
    "[tool:isort]\nprofile = black\nline_length = 100\n\n[mypy]\nstrict = true\n"
)
VECTORS = "dtype,input,output\nf32,0x00000000,0xff800000\nf32,0x3f800000,0x00000000\nf32,0x40000000,0x3f317218\n"
POSTS = json.dumps(
    [
        {"thread": "Tabs or spaces?", "posted_by": "ann", "posted_on": "2021-03-02T09:15:00"},
        {"thread": "Tabs or spaces?", "posted_by": "bo", "posted_on": "2021-03-02T17:40:12"},
        {"thread": "Best editor", "posted_by": "cy", "posted_on": "2020-11-30T08:00:00"},
        {"thread": "Best editor", "posted_by": "ann", "posted_on": "2021-01-15T12:05:59"},
    ],
    indent=2,
)


def test_a_glob_the_data_writes_is_one_key():
    assert _ask("Does the copyright file have a Files stanza covering debian/*?", COPYRIGHT, "bool") == (
        True,
        "submitted",
    )
    assert _ask("What license applies to the files matching tools/*?", COPYRIGHT) == ("GPL-2+", "submitted")


def test_a_yaml_list_of_mappings_lists_its_items_and_vouches_no_absence():
    value = (
        "- uses: a@v1\n      - run: |\n          make x \\\n          y\n      - env:\n          A: 1\n        run: z"
    )
    assert list_items(value) == ["uses: a@v1", "run: |\nmake x \\\ny", "env:\nA: 1\nrun: z"]
    assert list_items('- "3.10"\n  - "3.11"') == ["3.10", "3.11"]  # one line each: as before
    assert items_of(WORKFLOW, "steps") == 4
    assert has_item(WORKFLOW, "steps", "gcc") is False  # no step is named gcc: it is a word of a command
    answer, kind = _ask("Does the apt install step include gcc among the packages?", WORKFLOW, "bool")
    assert (answer, kind) != (False, "submitted")


def test_a_field_the_question_gives_the_key_as_is_no_answer():
    assert binds("which section sets profile = black?", "black", "profile")
    assert binds("Tell me the input whose expected output is 0x00000000.", "0x00000000", "output")
    assert not binds("Give the country name of DK.", "DK", "name")  # "the F of K" reads K's F
    assert not binds("Which service has port 163?", "163", "port")
    assert _ask("which section sets profile = black?", SETUP_CFG) == ("tool:isort", "submitted")
    from dspy_rlm.profiles.kinds import evaluate
    from dspy_rlm.profiles.moves import MoveBook

    book = MoveBook({"question": "which section sets profile = black?"}, {"context": SETUP_CFG}, {"answer": str})
    found = [c for m in book.read_moves() if m.kind in ("record", "field") for c in evaluate(book, m, "")]
    assert not [c for c in found if c.supported and c.value == "black"]  # the key phrase states profile's value
    # 0x00000000 is an input of one row and the output of another: the first row's output is no answer
    answer, kind = _ask("Tell me the input whose expected output is 0x00000000.", VECTORS)
    assert (answer, kind) != ("0xff800000", "submitted")


def test_a_field_of_dates_ranks_by_date():
    assert max_of(POSTS, "posted_on") == ("Tabs or spaces?", "2021-03-02T17:40:12")  # the year alone ties
    assert min_of(POSTS, "posted_on")[1] == "2020-11-30T08:00:00"
    assert max_of('when,who\n1 Jan 1991,a\n3 Feb 1990,b\n"Mar 5, 1991",c\n', "when")[1] == "Mar 5, 1991"
    assert _ask("Give me the posted_on timestamp of the most recent post.", POSTS) == (
        "2021-03-02T17:40:12",
        "submitted",
    )
    answer, kind = _ask("Who wrote the oldest post?", POSTS)
    assert kind != "submitted" or answer == "cy"


NOTES = (
    "# Tool - Release Notes\n\nCopyright 2020 Someone.\n\n"
    "## 3.1.0 (2024-02-10)\n\n### Core\n\n* Added a flag.\n\n### Docs\n\n* Fixed a typo.\n\n"
    "## 3.0.0 (2023-12-01)\n\n### Core\n\n* Dropped Python 3.7.\n\n"
    "## 2.9.1 (2023-06-15)\n\n### Core\n\n* Fixed a crash.\n\n"
    "## 2.9.0 (2022-11-30)\n\n### Core\n\n* First public release.\n"
)
POM = (
    '<?xml version="1.0"?>\n<!-- a comment\n over lines -->\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
    "  <groupId>org.example</groupId>\n  <artifactId>kite</artifactId>\n  <version>1.4.0</version>\n"
    "  <parent>\n    <groupId>org.example</groupId>\n    <artifactId>kite-parent</artifactId>\n  </parent>\n"
    "  <properties>\n    <kite.releaseManagerName>Dana Smith</kite.releaseManagerName>\n"
    "    <kite.jira.id>KITE</kite.jira.id>\n    <java.version>17</java.version>\n  </properties>\n</project>\n"
)


def test_dated_release_headings_are_records_with_their_subheadings_inside():
    from dspy_rlm.library import structure as st

    s = st.detect(NOTES)
    assert s.detail == "dated sections" and [r.key for r in s.records][1:] == ["3.1.0", "3.0.0", "2.9.1", "2.9.0"]
    assert _ask("What date was Tool 3.0.0 released?", NOTES) == ("2023-12-01", "submitted")
    assert _ask("Which release came out on 2023-06-15?", NOTES) == ("2.9.1", "submitted")
    assert _ask("what is the oldest version in these release notes?", NOTES) == ("2.9.0", "submitted")


def test_an_xml_document_of_sections_reads_each_element_as_a_record():
    from dspy_rlm.library import structure as st

    s = st.detect(POM)
    assert s.kind == "xml" and [r.key for r in s.records] == ["project", "parent", "properties"]
    assert s.records[2].get("kite.jira.id") == "KITE" and s.records[0].get("properties.java.version") is None
    assert _ask("What java version do the properties set?", POM) == ("17", "submitted")
    assert _ask("What is the artifactId of the parent?", POM) == ("kite-parent", "submitted")


def test_a_field_named_in_camel_case_or_before_a_word_for_records():
    groups = ["org.a", "org.b", "org.a", "org.c"]
    sbom = json.dumps({"components": [{"group": g, "name": f"c{i}"} for i, g in enumerate(groups)]}, indent=2)
    assert _ask("Which groupId shows up most often among the components?", sbom) == ("org.a", "submitted")
    assert _ask("How many Files: paragraphs does this copyright file have?", COPYRIGHT, "int") == (3, "submitted")
    # a section named like its list is no word for records counted: the loggers are
    ini = "[loggers]\nkeys = root,db,web\n\n[handlers]\nkeys = console\n\n[formatters]\nkeys = plain\n"
    assert _ask("How many loggers are declared in the [loggers] section?", ini, "int") == (3, "submitted")


def test_a_record_named_like_the_asking_word_is_an_answer():
    page = (
        '.TH TOOL 1 "1 Jan 2024"\n.SH NAME\ntool \\- do things\n.SH COMMANDS\n'
        ".TP\n.B init\nCreate a workspace\n.TP\n.B which\nDisplay the full path to an executable\n"
        ".TP\n.B prune\nRemove unused files\n"
    )
    # since stop 81 the page's title record holds its NAME line's description ("do things"), and the scripted
    # rules read the title's description first: the answer the page gives is not found, and nothing wrong is
    # submitted (it was ('which', 'submitted') before)
    answer, ending = _ask("Which tool command is described as 'Display the full path to an executable'?", page)
    assert (answer, ending) == ("which", "submitted") or ending != "submitted"


PRESETS = json.dumps(
    {
        "version": 6,
        "configurePresets": [
            {"name": "default", "generator": "Ninja", "binaryDir": "build/default"},
            {"name": "clang", "inherits": "default", "generator": "Ninja Multi-Config"},
        ],
        "buildPresets": [{"name": "default", "configurePreset": "default"}],
        "workflowPresets": [
            {
                "name": "default",
                "steps": [
                    {"type": "configure", "name": "default"},
                    {"type": "build", "name": "default"},
                    {"type": "test", "name": "default"},
                ],
            }
        ],
    },
    indent=2,
)
BOM = json.dumps(
    {
        "bomFormat": "CycloneDX",
        "components": [
            {"name": "alpha", "group": "org.x", "licenses": [{"license": {"id": "MIT"}}]},
            {"name": "beta", "group": "org.y", "licenses": [{"license": {"name": "Go License"}}]},
            {"name": "gamma", "group": "org.x", "licenses": [{"license": {"id": "Apache-2.0"}}]},
        ],
        "dependencies": [{"ref": "alpha", "dependsOn": ["beta"]}, {"ref": "beta", "dependsOn": []}],
    },
    indent=2,
)


def test_lists_of_one_kind_are_read_together_and_a_list_of_objects_by_their_names():
    from dspy_rlm.library import structure as st

    s = st.detect(PRESETS)
    assert [(r.key, r.get("block")) for r in s.records] == [
        ("default", "configurePresets"),
        ("clang", "configurePresets"),
        ("default", "buildPresets"),
        ("default", "workflowPresets"),
    ]
    assert _ask("how many steps does the default workflow preset have", PRESETS, "int") == (3, "submitted")
    s = st.detect(BOM)  # the dependency links are keyed by ref: no components
    assert [r.key for r in s.records] == ["alpha", "beta", "gamma"] and s.records[1].get("licenses") == "Go License"
    assert _ask("Which component is licensed under the Go License?", BOM) == ("beta", "submitted")
