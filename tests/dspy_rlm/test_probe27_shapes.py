"""Shapes the twenty-seventh probe read wrong, each made up here: a ranking cue on a field beside a most-common
cue that glosses it, a field of numbers ranked "shortest", a tox ``{[section]key}`` reference, a directive named
by a value, a YAML value with a trailing comment, a group of names by their written prefix, a requirement's
pinned version, and a yes/no whose statement its subject's record holds only negated. Each positive test fails
before its change; each negative one guards an answer that must not be ``Submitted``."""

from __future__ import annotations

import json

import pytest

from dspy_rlm.library import lookup, superlatives
from dspy_rlm.library.structure import detect
from dspy_rlm.profiles.said import expanded
from tests.dspy_rlm.scripted import ask_scripted

_POLLERS = json.dumps(
    {
        "version": 2,
        "pollers": {
            "DiskReady": {"delay": 15, "maxTries": 40, "call": "ListDisks"},
            "LinkUp": {"delay": 3, "maxTries": 10, "call": "ListLinks"},
            "ImageBuilt": {"delay": 15, "maxTries": 40, "call": "ListImages"},
            "QueueEmpty": {"delay": 15, "maxTries": 60, "call": "ListQueues"},
            "VolumeGone": {"delay": 20, "maxTries": 30, "call": "ListDisks"},
        },
    },
    indent=2,
)


def test_a_ranking_cue_on_a_field_beats_a_most_common_cue_glossing_it():
    q = "Which poller checks most frequently, that is, has the shortest delay between tries?"
    assert ask_scripted(q, _POLLERS) == ("LinkUp", "submitted")


def test_a_field_of_numbers_ranked_by_longest_is_ranked_by_number():
    assert ask_scripted("Which poller has the longest delay?", _POLLERS) == ("VolumeGone", "submitted")


_TOX = """[tox]
envlist = py311,lint

[testenv]
deps = pytest

[testenv:cover]
basepython = python3.12
commands = coverage run -m pytest

[testenv:report]
basepython = {[testenv:cover]basepython}
commands = coverage report

[testenv:lint]
basepython = python3.11
deps =
    flake8==7.1.0
    black
commands = flake8 src
"""


def test_a_tox_section_reference_is_expanded_where_the_question_asks_what_it_ends_up_as():
    q = "The report environment takes its basepython from another section. Which interpreter does it end up using?"
    assert ask_scripted(q, _TOX) == ("python3.12", "submitted")


def test_a_requirements_pinned_version_is_read_after_its_name():
    assert ask_scripted("Which version of flake8 is pinned for the lint environment?", _TOX) == ("7.1.0", "submitted")


def test_sections_are_counted_by_the_form_of_their_names():
    q = "How many named environments (sections of the form [testenv:NAME]) does this file define?"
    assert ask_scripted(q, _TOX, "int") == (3, "submitted")


def test_an_unpinned_requirement_has_no_version_submitted():
    _, kind = ask_scripted("Which version of black is pinned for the lint environment?", _TOX)
    assert kind != "submitted"


_UNIT = """[Unit]
Description=Widget Sync Daemon
ConditionVirtualization=!container
ConditionPathExists=/etc/widget.conf

[Service]
Type=notify
User=widget
ProtectSystem=strict
ProtectHome=read-only
Restart=always
"""


def test_a_directive_is_named_by_its_value():
    assert ask_scripted("Which directive in the [Service] section is set to strict?", _UNIT) == (
        "ProtectSystem",
        "submitted",
    )


def test_a_condition_held_only_negated_answers_no_yes():
    _, kind = ask_scripted("Will this unit start when the machine is a container?", _UNIT, "bool")
    assert kind != "submitted"


_CLUSTER = """# An example cluster.
cluster_name: demo

provider:
    type: cloudco
    region: north-2
    zone: "auto"    # let the cloud pick one
    group: demo-group
    tag: "blue # green"

cloudco_params:
    size: small
    image: base-2204
"""


def test_a_yaml_values_trailing_comment_is_no_part_of_it():
    assert ask_scripted('In the provider section, which setting is given the value "auto"?', _CLUSTER) == (
        "zone",
        "submitted",
    )
    assert lookup.field_of(_CLUSTER, "provider", "zone") == "auto"
    assert lookup.field_of(_CLUSTER, "provider", "tag") == "blue # green"  # a mark inside quotes is the value's


_HEADER = """#ifndef _GADGET_H
#define _GADGET_H

#define GT_NONE\t0\t/* nothing */
#define GT_DISK\t1\t/* a disk */
#define GT_LINK\t2\t/* a link */

#define GOP_OPEN\t1\t/* open it */
#define GOP_CLOSE\t2\t/* close it */
#define GOP_READ\t3\t/* read it */

#endif
"""


def test_names_are_counted_by_their_written_prefix():
    q = "How many gadget operation codes (the GOP_ ones) does this header define?"
    assert ask_scripted(q, _HEADER, "int") == (3, "submitted")
    assert lookup.count_records(_HEADER, "GT_*") == 3


_PATHS = """[paths]
root = /srv/app
logs = ${root}/logs

[service]
log_dir = ${paths:logs}
name = app
"""


def test_a_reference_to_another_sections_key_is_expanded_there():
    records = list(detect(_PATHS).records)
    service = next(r for r in records if r.key == "service")
    assert expanded(service.get("log_dir") or "", service, records) == "/srv/app/logs"


_RECORD = """pkg/__init__.py,sha256=aa,120
pkg/api.py,sha256=bb,3000
pkg/models.py,sha256=cc,9000
pkg/utils.py,sha256=dd,4000
pkg/sub/one.py,sha256=ee,100
pkg/sub/two.py,sha256=ff,200
pkg-1.0.dist-info/METADATA,sha256=gg,500
pkg-1.0.dist-info/RECORD,,
"""


def test_the_directory_holding_the_most_paths_is_ranked_by_each_paths_directory():
    assert superlatives.most_common(_RECORD, "col1", None, "dir") == "pkg"
    assert ask_scripted("Which directory holds the most files in this RECORD?", _RECORD) == ("pkg", "submitted")


def test_most_common_refuses_an_unknown_by():
    with pytest.raises(ValueError, match="by="):
        superlatives.most_common(_RECORD, "col1", None, "suffix")


_FILES = """path,size
/usr/share/doc/pkg/README,100
/usr/share/doc/pkg/NEWS,200
/usr/share/doc/pkg/copyright,300
/usr/bin/pkg,400
/usr/lib/pkg/plugin.so,500
"""


def test_the_directory_holding_the_most_absolute_paths_is_ranked():
    assert ask_scripted("Which directory holds the most files?", _FILES) == ("/usr/share/doc/pkg", "submitted")
