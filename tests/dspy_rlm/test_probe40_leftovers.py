"""Probe 40's wrong `Submitted` answers, on invented data: a ranking within the class the question writes as the
data names it ("the Event flag class": the class Event, whose name many other records mention, not the class
Flag), and a value joining names with OR / AND read as one expression, not a list of its words ("MIT OR
Apache-2.0" is the most common licence, not "MIT"). Each test fails before its change."""

from __future__ import annotations

import json

from dspy_rlm.library.items import list_items
from tests.dspy_rlm.scripted import ask_scripted

_CLASSES = {
    "Errno": [(f"E_{i}", str(100 + i)) for i in range(15)],
    "Flag": [("DONTWAIT", "1"), ("SNDMORE", "2")],
    "Event": [(f"EV_{i}", f"0x{1 << i:X}") for i in range(30)] + [("EV_TOP", "0x30000000")],
}
_FLAGS = (
    "from enum import IntEnum, IntFlag\n\n\n"
    + "".join(
        f"class {c}(IntFlag):\n" + "".join(f"    {n} = {v}\n" for n, v in members) + "\n\n"
        for c, members in _CLASSES.items()
    )
    # each member again at the top, its class named: the word Event in more records than a key phrase may hold
    + "".join(f"{n}: {c} = {c}.{n}\n" for c, members in _CLASSES.items() for n, _ in members)
    + "\n__all__ = [\n"
    + "".join(f'    "{c}",\n' for c in _CLASSES)
    + "".join(f'    "{n}",\n' for members in _CLASSES.values() for n, _ in members)
    + "]\n"
)


def test_a_ranking_within_the_class_the_question_writes_as_named():
    assert ask_scripted("Which member of the Event flag class has the largest numeric value?", _FLAGS) == (
        "EV_TOP",
        "submitted",
    )


def test_names_joined_by_or_and_are_one_expression():
    assert list_items("MIT OR Apache-2.0") == ["MIT OR Apache-2.0"]
    assert list_items("MIT AND (MIT AND PSF-2.0)") == ["MIT AND (MIT AND PSF-2.0)"]
    assert list_items("AF_UNIX AF_INET") == ["AF_UNIX", "AF_INET"]  # names between spaces still listed
    licences = ["MIT OR Apache-2.0"] * 5 + ["MIT"] * 3 + ["Apache-2.0 OR MIT"] * 2 + ["Zlib"]
    doc = json.dumps(
        {
            "components": [
                {"name": f"crate{i}", "version": f"1.{i}.0", "licenses": [{"expression": e}]}
                for i, e in enumerate(licences)
            ]
        }
    )
    answer = ask_scripted("Which license expression appears on the most components?", doc)
    assert answer == ("MIT OR Apache-2.0", "submitted")


_COPYRIGHT = (
    "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
    "Upstream-Name: harbour\nFiles-Excluded: *.o *.pdf\n\n"
    + "".join(
        f"Files: src/mod{i}.c\nCopyright: 20{i:02d} Someone {i}\nLicense: {'Zlib' if i % 3 else 'BSL-1.0'}\n\n"
        for i in range(14)
    )
    + "License: Zlib\n Debian systems keep a copy of this license text.\n\n"
    + "License: BSL-1.0\n On Debian systems see /usr/share/common-licenses.\n"
)


def test_a_count_of_the_records_having_a_field_beside_a_word_describing_the_document():
    question = 'How many "Files:" stanzas does the Debian copyright file of libharbour2.1 contain?'
    assert ask_scripted(question, _COPYRIGHT, "int") == (14, "submitted")


_RULES = (
    "# /etc/harbour-attrs.conf\n#\n# Format:\n# <pattern> <action>\n#\n# Actions:\n"
    "#   keep - copy when preserving.\n#   drop - do not copy.\n\n"
    + "".join(f"sys.acl_{i}\t\t\tkeep\n" for i in range(3))
    + "".join(f"vendor{i}.*\t\t\tdrop\t\t# vendor {i} data\n" for i in range(5))
    + "kern.seal\t\t\tdrop\t\t# may only be written by the kernel\n"
    + "afs.*\t\t\t\tdrop\t\t# AFS metadata\n"
)


def test_columns_named_in_angle_brackets_in_the_comments_above_the_rows():
    from dspy_rlm.library.structure import detect

    s = detect(_RULES)
    assert s.field_names[:2] == ("pattern", "action")
    assert ask_scripted("Which action is used for the most patterns in /etc/harbour-attrs.conf?", _RULES) == (
        "drop",
        "submitted",
    )
    question = "Which attribute pattern in this file carries the comment that it may only be written by the kernel?"
    assert ask_scripted(question, _RULES) == ("kern.seal", "submitted")


def test_a_glob_is_one_key_and_the_documents_own_name_absent_is_no_doubt():
    question = "Does /etc/harbour-attrs.conf tell tools to drop afs.* attributes when copying?"
    assert ask_scripted(question, _RULES, "bool") == (True, "submitted")
    question = "Does /etc/harbour-attrs.conf tell tools to keep afs.* attributes when copying?"
    assert ask_scripted(question, _RULES, "bool") != (True, "submitted")  # (left Extracted: no wrong yes)


_RECORD = (
    "".join(
        f"harbour/{d}/{n}.{ext},sha256=abc{i},{100 + i}\n"
        for i, (d, n, ext) in enumerate(
            [("core", f"m{k}", "py") for k in range(12)]
            + [("core", f"m{k}", "pyi") for k in range(5)]
            + [("lib", f"libh{k}", "so") for k in range(3)]
        )
    )
    + "harbour-1.0.dist-info/RECORD,,\n"
)


def test_a_count_of_the_values_ending_in_a_suffix_the_question_writes():
    question = "How many entries in harbour's dist-info RECORD are .pyi stub files?"
    assert ask_scripted(question, _RECORD, "int") == (5, "submitted")


_MAPPINGS = (
    "CONFIG_NAMES = OrderedDict(\n    [\n"
    + "".join(f'        ("kind{i}", "Kind{i}Config"),\n' for i in range(30))
    + "    ]\n)\n\nSPECIAL_KIND_TO_MODULE = OrderedDict(\n    [\n"
    + "".join(
        f'        ("{k}", "{m}"),\n'
        for k, m in [("a-1", "omni"), ("a-2", "omni"), ("a-3", "omni"), ("b-1", "vision"), ("c-1", "text")]
    )
    + "    ]\n)\n\nMODEL_NAMES = OrderedDict(\n    [\n"
    + "".join(f'        ("kind{i}", "{"Shared" if i % 2 else "Kind"}Model"),\n' for i in range(30))
    + "    ]\n)\n"
)


def test_the_most_common_value_within_the_block_the_question_names():
    from dspy_rlm.library.superlatives import most_common

    assert most_common(_MAPPINGS, "value", within="SPECIAL_KIND_TO_MODULE") == "omni"
    question = "Which module name appears most often as a value in SPECIAL_KIND_TO_MODULE?"
    assert ask_scripted(question, _MAPPINGS) == ("omni", "submitted")


_KINDS = (
    "definitions:\n"
    + "".join(f"  - name: d{i}\n    kind: {k}\n" for i, k in enumerate(["struct"] * 5 + ["union"] * 2 + ["enum"] * 3))
    + "enum:\n"
    + "".join(f"  - name: e{i}\n    value: {i}\n" for i in range(4))
)


def test_a_value_of_the_ranked_field_is_no_block_to_rank_within():
    question = "What is the most common kind among the definitions here: struct, union or enum?"
    assert ask_scripted(question, _KINDS) == ("struct", "submitted")


def test_an_identifier_before_file_is_what_is_asked_not_the_document():
    record = "".join(f"harbour/m{i}.py,sha256=x{i},{10 + i}\n" for i in range(6)) + "harbour/py.typed,,\n"
    assert ask_scripted("Does the package include a py.typed marker file?", record, "bool") != (False, "submitted")
