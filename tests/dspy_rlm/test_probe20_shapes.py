"""Shapes met while probing for the twentieth time, on made-up files: a count of the records dated in a year (a
date's year is a part of it); YAML whose list items fold a block (``- >-``) and a flow mapping closed on its own
line; elements of leaves keyed by the leaf that tells them apart (a POM's ``artifactId``, not its ``groupId``); a
count whose closing subject is the data ("does the project declare"); a quantity asked in its unit ("after how
many idle minutes"); an mdoc manual page; prose in numbered sections; a headerless table's one numeric column;
a contraction's letter ("don't") that is no key; a ranking by the records a value covers."""

from __future__ import annotations

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from tests.dspy_rlm.scripted import ask_scripted as _ask

CHANGES = "# Changelog\n\n" + "".join(
    f"## [{v}](https://example.org/compare/{v}) ({d})\n\n### Bug Fixes\n\n* Fix number {i} ([#1{i}](x))\n\n"
    for i, (v, d) in enumerate(
        [("3.1.0", "2024-02-01"), ("3.0.2", "2023-12-18"), ("3.0.1", "2023-11-30"), ("3.0.0", "2023-06-05")]
        + [("2.9.0", "2022-12-31"), ("2.8.1", "2022-03-04")]
    )
)


def test_a_count_of_the_records_dated_in_a_year_reads_the_dates_year():
    assert lookup.count_if(CHANGES, "date", "part", "2023") == 3
    assert lookup.count_where(CHANGES, "date", "2023") == 0  # no date is the year itself
    assert lookup.count_if("name,when\na,2023/01/02\nb,2023-05\n", "when", "part", "2023") == 1  # a part by "/"
    assert _ask("How many releases in this changelog are dated in 2023?", CHANGES, "int") == (3, "submitted")
    assert _ask("How many releases are listed with a 2022 release date?", CHANGES, "int") == (2, "submitted")


CLUSTER = """cluster_name: default
max_workers: 2
idle_timeout_minutes: 5
available_node_types:
    head_default:
        resources: {"CPU": 2}
        node_config:
            machineType: n1-standard-2
    worker_small:
        min_workers: 0
        node_config:
            machineType: n1-standard-4
head_node_type: head_default
file_mounts: {
}
setup_commands:
    - >-
        (stat /opt/conda/bin/ &> /dev/null &&
        echo 'export PATH' >> ~/.bashrc) || true
    - which ray || pip install -U ray
head_setup_commands:
  - pip install google-api-python-client==1.7.8
start_commands:
    - ray stop
    - >-
      ulimit -n 65536;
      ray start
      --head
      --port=6379
"""


def test_yaml_with_folded_list_items_and_a_flow_mapping_across_lines_is_yaml():
    s = st.detect(CLUSTER)
    assert s.kind == "yaml"  # the folded items' lines were no "key: value": read as NAME: value definitions
    assert "}" not in [r.key for r in s.records]  # the bracket closing "file_mounts: {" is no record
    assert lookup.field_of(CLUSTER, "worker_small", "min_workers") == "0"
    assert lookup.field_of(CLUSTER, "head_setup_commands", "head_setup_commands").startswith("pip install")  # no "- "
    # "after how many idle minutes": a value in its unit, looked up (no records counted); the field whose words
    # the question says the most (idle_timeout_minutes, not head_node_type) is read
    assert _ask("After how many idle minutes does a node get removed?", CLUSTER, "int") == (5, "submitted")


POM = (
    "<project>\n  <dependencies>\n"
    + "".join(
        f"    <dependency>\n      <groupId>{g}</groupId>\n      <artifactId>{a}</artifactId>\n"
        f"      <version>{v}</version>\n    </dependency>\n"
        for g, a, v in [
            ("com.google.inject", "guice", "debian"),
            ("org.codehaus.plexus", "plexus-component-annotations", "1.5.5"),
            ("org.codehaus.plexus", "plexus-classworlds", "debian"),
            ("org.codehaus.plexus", "plexus-utils", "2.x"),
            ("junit", "junit", "4.x"),
        ]
    )
    + "  </dependencies>\n</project>\n"
)


def test_elements_of_leaves_are_keyed_by_the_leaf_that_tells_them_apart():
    s = st.detect(POM)
    assert [r.key for r in s.records][:3] == ["guice", "plexus-component-annotations", "plexus-classworlds"]
    assert _ask("Which dependency is pinned to version 1.5.5?", POM) == ("plexus-component-annotations", "submitted")
    # the data as the subject closing a count, in words no record says: no condition
    assert _ask("How many dependencies does the project declare?", POM, "int") == (5, "submitted")
    # a word of that subject that some record says is one
    _answer, kind = _ask("How many dependencies does the junit project declare?", POM, "int")
    assert kind != "submitted"


MDOC = """.Dd May 18, 2004
.Dt TOOL 1
.Sh NAME
.Nm tool
.Nd tool for turning fonts into text
.Sh DESCRIPTION
.Nm
converts
.Ql .ttf
files.
.Ss "General options"
.Bl -tag -width ".Fl t Ar table"
.It Fl h
Display usage information.
.It Fl d Ar dir
Write the output files to directory
.Ar dir .
.It Fl v
Be verbose.  Write more messages to the standard output describing what
is being done.
.El
.Ss "Dump options"
.Bl -tag -width ".Fl t Ar table"
.It Fl l
List table information.
.It Fl t Ar table
Dump table
.Ar table .
.El
.Sh SEE ALSO
.Xr ls 1
"""


def test_an_mdoc_manual_page_reads_its_items_as_options():
    s = st.detect(MDOC)
    assert (s.kind, s.detail) == ("markdown_list", "roff")
    keyed = {r.key: r for r in s.records if r.key}
    assert list(keyed)[:6] == ["TOOL", "-h", "-d dir", "-v", "-l", "-t table"]  # the page's title record first
    assert keyed["-d dir"].get("description") == "Write the output files to directory dir."
    assert keyed["-l"].get("section") == "DESCRIPTION / Dump options"
    assert any(r.text == ".Xr ls 1" for r in s.records)
    # the options' section names what is counted ("options"): a count of the sections holding that word is none
    _answer, kind = _ask("How many options are listed under the dump options section?", MDOC, "int")
    assert kind != "submitted" or _answer == 2


LICENSE = """                                 Some License
                           Version 2.0, January 2004

   TERMS AND CONDITIONS FOR USE

   1. Definitions.

      "License" shall mean the terms and conditions for use, reproduction,
      and distribution as defined by Sections 1 through 4 of this document.

   2. Grant of Copyright License. Subject to the terms and conditions of
      this License, each Contributor hereby grants to You a license to use
      trademarks in the ways this section says.

   3. Trademarks. This License does not grant permission to use the trade
      names, trademarks, service marks, or product names of the Licensor.

   4. Disclaimer of Warranty. Unless required by applicable law or
      agreed to in writing, Licensor provides the Work "AS IS".

   END OF TERMS AND CONDITIONS

   Some closing words of the appendix, a paragraph of prose that goes on
   for a line or two.
"""


def test_numbered_sections_of_prose_are_records():
    s = st.detect(LICENSE)
    assert (s.kind, s.detail) == ("markdown_list", "numbered sections")
    keyed = [r for r in s.records if r.key]
    assert [(r.key, r.get("heading")) for r in keyed] == [
        ("1", "Definitions"),
        ("2", "Grant of Copyright License"),
        ("3", "Trademarks"),
        ("4", "Disclaimer of Warranty"),
    ]
    assert (keyed[2].get("text") or "").startswith("This License does not grant")
    assert _ask("What's the heading of section 4?", LICENSE) == ("Disclaimer of Warranty", "submitted")
    assert _ask("How many numbered sections do the terms and conditions have?", LICENSE, "int") == (4, "submitted")
    # the record whose value is the word, before one whose sentence holds it
    assert _ask("Which section number deals with trademarks?", LICENSE, "int") == (3, "submitted")
    assert st.detect("1. Install it.\n2. Run it.\n3. Done.\n").detail != "numbered sections"  # a list, no text


def test_a_headerless_table_ranks_its_one_numeric_column():
    record = "pkg/__init__.py,sha256=abc,3100\npkg/core.py,sha256=def,149005\npkg/parser.py,sha256=ghi,19052\n"
    record += "pkg/py.typed,sha256=jkl,0\npkg-1.0.dist-info/RECORD,,\n"
    assert _ask("Which file in this install record is the largest?", record) == ("pkg/core.py", "submitted")


def test_a_contraction_is_no_key_and_its_negation_is_said():
    from dspy_rlm.profiles.spans import uncontracted

    assert uncontracted("Where does it live if you don't override it? It won't; can't.") == (
        "Where does it live if you do not override it? It will not; can not."
    )
    make = "T = $(sort $(wildcard t*.sh))\nPERL_PATH ?= /usr/bin/perl\nSHELL_PATH ?= /bin/sh\n"
    _answer, kind = _ask("Where does it expect perl to live if you don't override the path?", make)
    assert kind != "submitted" or _answer == "/usr/bin/perl"  # never the T read by the contraction's letter


def test_a_ranking_by_how_many_records_a_value_covers():
    text = "".join(f"Files: src/{f}.c\nCopyright: 2001 Someone\nLicense: {lic}\n\n" for f, lic in [
        ("a", "GPL-2"), ("b", "MIT"), ("c", "MIT"), ("d", "BSD-3"), ("e", "MIT"),
    ])  # fmt: skip
    assert _ask("Which license covers the most Files blocks?", text) == ("MIT", "submitted")


def test_a_count_of_names_is_no_count_of_the_records_that_set_them():
    docker = "FROM ruby:3.2\nARG V=1\nENV RBENV_VERSION=3.2\nRUN gem update\nRUN bundle install\n"
    docker += (
        "ENV RACK_ENV=production \\\n    RAILS_ENV=production \\\n    RAILS_SERVE_STATIC_FILES=true\nCMD rails s\n"
    )
    _answer, kind = _ask("How many environment variables does this Dockerfile set with ENV?", docker, "int")
    assert kind != "submitted" or _answer == 4  # two ENV instructions set four names
    assert _ask("How many RUN instructions are there?", docker, "int") == (2, "submitted")
