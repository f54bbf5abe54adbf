"""Shapes the thirty-second probe read wrong, each made up here: a manual page's one-line NAME description, a
question naming the section it reads ("according to the NAME section"), an owner's possessive ending in s ("of
plumtools' copyright file"), a record read by a phrase one of its fields holds, a YAML list of one item written
at its key's indent, and a yes/no naming its file by path. Each positive test fails before its change; each
negative one guards an answer that must not be ``Submitted``."""

from __future__ import annotations

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from tests.dspy_rlm.scripted import ask_scripted

_MAN = r"""'\" t
.TH ferrule 1 2024-03-02 "" ""
.SH NAME
ferrule \- join pipe segments into one stream
.SH SYNOPSIS
\fBferrule\fR [\fB-n\fR] [\fB-q\fR]
.SH OPTIONS
.TP
\fB-n\fR, \fB--name\fR
Give the stream a name. Without a name, ferrule picks one from the first segment.
.TP
\fB-q\fR, \fB--quiet\fR
Print nothing but errors.
"""

_MDOC = """.Dd March 2, 2024
.Dt GASKET 1
.Os
.Sh NAME
.Nm gasket
.Nd seal a directory against writes
.Sh DESCRIPTION
The
.Nm
utility marks a directory read-only.
"""


def test_a_manual_pages_name_line_is_its_title_records_description():
    head = st.detect(_MAN).records[0]
    assert (head.key, head.get("description"), head.get("section")) == (
        "ferrule",
        "join pipe segments into one stream",
        "NAME",
    )
    assert lookup.field_of(_MDOC, "GASKET", "description") == "seal a directory against writes"


def test_the_name_sections_description_is_read_by_the_section_the_question_names():
    q = "What is the short description given in the NAME section of the man page ferrule.1?"
    assert ask_scripted(q, _MAN) == ("join pipe segments into one stream", "submitted")  # not -n's description


def test_a_phrase_naming_the_section_read_is_no_record_to_read_a_section_of():
    q = "According to the NAME section, what does ferrule do?"
    assert ask_scripted(q, _MAN)[1] != "submitted"  # not OPTIONS: the section of the record holding "name"


_COPYRIGHT = """Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: plumtools

Files: *
Copyright: 2019, Rhea Plum
License: GPL-2+

Files: src/elbow.c
Copyright: 2016, Otto Brenner
License: GPL-2+

Files: src/tee.c
Copyright: 2014, Rhea Plum
  2014, Ida Voss
License: Expat

Files: src/valve.c
Copyright: 2014, Rhea Plum
  2014, Ida Voss
License: GPL-2+

Files: src/union.c
Copyright: 2014, Rhea Plum
  2014, Ida Voss
License: LGPL-3
"""


def test_an_owners_possessive_ending_in_s_names_the_file_not_a_field():
    q = "Which license is assigned most often to the Files stanzas of plumtools' Debian copyright file?"
    assert ask_scripted(q, _COPYRIGHT) == ("GPL-2+", "submitted")  # not the most common Copyright


def test_a_record_read_by_a_phrase_its_field_holds_does_not_give_that_field_back():
    q = "According to the plumtools copyright file, which file is copyrighted by Otto Brenner?"
    assert ask_scripted(q, _COPYRIGHT)[0] != "2016, Otto Brenner"


_FEATURES = """supported:
- path:
    admin_api: vpcAccess.name
    app_yaml: vpc_access.name
  flags:
  - --vpc-connector
- path:
    admin_api: vpcAccess.egress
    app_yaml: vpc_access.egress
  flags:
  - --vpc-egress
- path:
    admin_api: scaling.max
    app_yaml: scaling.max_instances
  flags:
  - --min-instances
  - --max-instances
"""


def test_a_yaml_list_of_one_item_at_its_keys_indent_is_that_item():
    assert lookup.field_of(_FEATURES, "vpc_access.egress", "flags") == "--vpc-egress"  # not '- --vpc-egress'
    assert lookup.field_of(_FEATURES, "scaling.max_instances", "flags") == "- --min-instances\n- --max-instances"


_PYPROJECT = """[project]
name = "quillpkg"

[tool.flit.sdist]
include = ["docs/", "tests/", "tox.ini"]
exclude = ["docs/_build"]
"""


def test_a_yes_no_does_not_test_the_path_that_names_its_file():
    q = "Does the [tool.flit.sdist] include list in /opt/quill/src/pyproject.toml contain tox.ini?"
    assert ask_scripted(q, _PYPROJECT, "bool") == (True, "submitted")


_RANGES = """range_limited:
- path:
    app_yaml: resources.cpu
  range:
    max: 8
    min: 0
- path:
    app_yaml: resources.disk_gb
  range:
    max: 40
    min: 10
- path:
    app_yaml: scaling.max_instances
  range:
    max: 1000
    min: 1
value_limited:
- path:
    app_yaml: runtime_config.python_version
  allowed_values:
  - 3
"""


def test_a_ranking_over_every_record_is_no_answer_about_the_one_named():
    q = "What is the minimum of the allowed range for resources.disk_gb in this features file?"
    assert ask_scripted(q, _RANGES, "int")[1] != "submitted"  # the smallest allowed value (3), not disk_gb's


_RC = """# Defaults for the frobber.
#
# Which classes of commentary are shown.
frob all
# The metrics shown by default.
dmetrics i.alpha:e!alpha
dmetrics i.beta:e!beta
dmetrics i!gamma:e.gamma
dmetrics i!delta:e.delta
dmetrics ei.epsilon
dmetrics i.zeta:e!zeta
dmetrics i!eta:e!.eta
dmetrics i!theta:e!.theta
dmetrics ei.iota
dmetrics i!kappa:e!.kappa
dmetrics i.lambda:e!lambda
dmetrics i!mu:e.mu
dmetrics ei.nu
dmetrics i!xi:e!.xi
dmetrics i.omicron:e!omicron
dmetrics i!pi:e.pi
# The sort order.
dsort ei.any:name
# The view: user, expert or machine.
viewmode expert
compare off
preload_dirs ../lib:../lib64
"""


def test_a_keyword_line_among_directive_lines_is_a_record():
    s = st.detect(_RC)
    assert s.kind == "keywords" and len(s.records) == 21
    assert lookup.field_of(_RC, "preload_dirs", "value") == "../lib:../lib64"


def test_a_key_written_as_one_word_is_found_by_its_words_apart():
    assert ask_scripted("What view mode does this rc file set?", _RC) == ("expert", "submitted")
    assert ask_scripted("Which directive is given the value ei.any:name?", _RC) == ("dsort", "submitted")


_CALLBACKS = """[
  {"id": "acme", "displayName": "Acme", "logo": "acme.png",
   "params": {"acme_key": {"type": "password", "ui_name": "Acme Key"}}},
  {"id": "northwind", "displayName": "North Wind", "logo": "northwind.png",
   "params": {"northwind_region": {"type": "text", "ui_name": "North Wind Region (us or eu)"}}},
  {"id": "zenith", "displayName": "Zenith", "logo": "zenith.png",
   "params": {"zenith_key": {"type": "password", "ui_name": "Zenith Key"}}}
]
"""


def test_a_records_key_is_no_answer_for_a_part_the_data_names_deeper():
    q = "Look up the integration whose displayName is 'North Wind': what ui_name is shown for its region parameter?"
    assert ask_scripted(q, _CALLBACKS)[1] != "submitted"  # not northwind


def test_a_count_of_records_having_a_field_the_question_quotes_with_its_colon():
    q = "How many 'Files:' paragraphs does the Debian copyright file /usr/share/doc/plumtools/copyright contain?"
    assert ask_scripted(q, _COPYRIGHT, "int") == (5, "submitted")
