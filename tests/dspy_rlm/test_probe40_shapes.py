"""Shapes from probe 40's first contact, on invented data: a Python enum written without commas read member by
member in its class; a reverse lookup within a class whose members' names repeat elsewhere in the file; the
document's own name (a path in its header comment, a name before "copyright file") no evidence for "no"; the
exact spelling a question gives in brackets the item checked; "more than one version of X" a count of X's
records; a ranking over all records doubted where the question names a few records' path; a reverse lookup
doubted where the block the question names does not hold the value; a count of a part's items doubted where
the question states a field's value of some records; a wheel's METADATA read as its header and its
changelog's dated sections. Each test fails before its change, but the last, which guards the body's reading: a
README heading that repeats the header's name does not stand for the header."""

from __future__ import annotations

from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted

_ENUMS = (
    "from enum import IntEnum\n\n\nclass Base(IntEnum):\n"
    + "".join(f"    Tag{i} = 0x{i:04X}\n" for i in range(1, 30))
    + "    LampKind = 0x9208\n\n\nclass LampKind(IntEnum):\n"
    + "".join(f"    {n} = 0x{v:02X}\n" for n, v in [("Dusk", 1), ("Noon", 2), ("Haze", 0x15), ("Glow", 0x16)])
    + "\n\nclass Deck(IntEnum):\n"
    + "".join(f"    Deck{i} = {i - 1}\n" for i in range(1, 6))
    + "\n\nclass Rig(IntEnum):\n"
    + "".join(f"    Rig{i} = 0x{i:02X}\n" for i in range(1, 8))
)


def test_a_python_enum_without_commas_is_read_member_by_member_in_its_class():
    s = detect(_ENUMS)
    haze = next(r for r in s.records if r.key == "Haze")
    assert dict(haze.fields) == {"value": "0x15", "block": "LampKind"}
    assert ask_scripted("Which member of the LampKind enum has the value 0x15?", _ENUMS) == ("Haze", "submitted")
    assert ask_scripted("How many members does the Rig enum define?", _ENUMS, "int") == (7, "submitted")


_MEMBERS = [("PAIR", 0), ("PUB", 1), ("SUB", 2), ("REQ", 3), ("REP", 4), ("PUSH", 8), ("PEER", 19), ("RAW", 20)]
_SOCKETS = (
    "from enum import IntEnum\n\n\nclass SockKind(IntEnum):\n"
    + "".join(f"    {n} = {v}\n" for n, v in _MEMBERS)
    + "\n\nclass Mode(IntEnum):\n"
    + "".join(f"    {n} = {v}\n" for n, v in [("LOOSE", 7), ("TIGHT", 19), ("OPEN", 3), ("SHUT", 5)])
    + "\n\n"
    + "".join(f"{n}: SockKind = SockKind.{n}\n" for n, _ in _MEMBERS)
    + "\n__all__ = [\n"
    + "".join(f'    "{n}",\n' for n, _ in _MEMBERS)
    + "]\n"
)


def test_a_reverse_lookup_within_a_class_whose_members_names_repeat_elsewhere():
    assert ask_scripted("Which SockKind member has the value 19?", _SOCKETS) == ("PEER", "submitted")


_XATTR = (
    "# /etc/harbour.conf\n#\n# Format:\n# <pattern> <action>\n\n"
    + "".join(f"{p}\t\t{a}\n" for p, a in [("sys.acl_one", "keep"), ("sys.acl_two", "keep"), ("tmp.*", "skip")])
    + "".join(f"vendor{i}.*\t\tskip\n" for i in range(6))
    + "afs.*\t\tskip\t# AFS data\n"
)


def test_the_documents_own_path_absent_from_its_records_is_no_evidence_for_no():
    answer = ask_scripted("Does /etc/harbour.conf tell tools to skip afs.* attributes when copying?", _XATTR, "bool")
    assert answer[1] != "submitted" or answer[0] is True


_COPYRIGHT = (
    "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
    "Upstream-Name: harbour\nFiles-Excluded:\n *.pdf\n doc/html\n\n"
    + "".join(f"Files: src/part{i}.c\nCopyright: 2001 Someone {i}\nLicense: BSL-1.0\n\n" for i in range(12))
)


def test_the_exact_spelling_in_brackets_is_the_item_checked_not_the_documents_name():
    question = "Does the Files-Excluded list of the harbour-tools2.1 copyright file exclude PDF files (*.pdf)?"
    assert ask_scripted(question, _COPYRIGHT, "bool") == (True, "submitted")


_SBOM = (
    '{"components": [\n'
    + ",\n".join(
        f'  {{"name": "{n}", "version": "{v}", "type": "library"}}'
        for n, v in [("serde", "1.0.1"), ("itertools", "0.13.0"), ("itertools", "0.14.0"), ("libc", "0.2.1")]
        + [(f"crate{i}", "1.0.0") for i in range(8)]
    )
    + "\n]}\n"
)


def test_more_than_one_version_of_a_name_counts_its_records():
    question = "Does the SBOM list more than one version of the itertools crate?"
    assert ask_scripted(question, _SBOM, "bool") == (True, "submitted")
    assert ask_scripted("Does the SBOM list more than one version of the serde crate?", _SBOM, "bool") == (
        False,
        "submitted",
    )


_RECORD = "".join(f"pkg/mod{i}/__init__.py,sha256=abc{i},{i * 3}\n" for i in range(40)) + "".join(
    f"pkg/lib/lib{n}.so,sha256=def{n},{s}\n" for n, s in [("alpha", 900), ("beta", 400), ("gamma", 700)]
)


def test_a_ranking_over_every_record_is_doubted_where_the_question_names_a_few_records_path():
    question = "Among the .so libraries directly inside pkg/lib/, which one is the smallest?"
    assert ask_scripted(question, _RECORD)[1] != "submitted"  # min over all rows: pkg/mod0/__init__.py, 0


_TYPES = ["tide", "ebb", "reef", "buoy", "quay", "moor", "dock", "pier", "keel", "helm", "mast", "sail"]
_MAPPINGS = (
    "CONFIG_NAMES = OrderedDict(\n    [\n"
    + "".join(f'        ("{m}", "{m.title()}Config"),\n' for m in _TYPES)
    + "    ]\n)\n\nEXTRACTOR_NAMES = OrderedDict(\n    [\n"
    + "".join(f'        ("{m}", "{m.title()}Extractor"),\n' for m in _TYPES[::2])
    + "    ]\n)\n"
)


def test_a_reverse_lookup_is_doubted_where_the_block_the_question_names_does_not_hold_the_value():
    from dspy_rlm.profiles.moves import MoveBook
    from dspy_rlm.profiles.oracle import host_reader

    question = "Take the model type whose config class is TideConfig: which extractor does EXTRACTOR_NAMES give for it?"
    assert ask_scripted(question, _MAPPINGS) != ("tide", "submitted")
    book = MoveBook({"question": question}, {"context": _MAPPINGS}, {"answer": str})
    read = next(m for m in book.step_moves([], []) if m.code == "print(record_of(context, 'TideConfig'))")
    out = host_reader({"context": _MAPPINGS})(read)
    book.record_read(read.code, out)
    keys = [
        m.candidate for m in book.step_moves([read.code], [out]) if m.kind == "submit" and m.candidate.value == "tide"
    ]
    assert keys and not any(c.supported for c in keys)  # the record read's key: the first hop, not the answer


_THEME = (
    "[Icon Theme]\nName=Harbour\nDirectories="
    + ",".join(f"d{i}" for i in range(20))
    + "\n\n"
    + "".join(f"[d{i}]\nSize={16 + i}\nType={'Scalable' if i % 4 == 0 else 'Fixed'}\n\n" for i in range(20))
)


def test_a_count_of_a_parts_items_is_doubted_where_the_question_states_a_fields_value():
    answer = ask_scripted("How many directory sections in the theme's index have Type=Scalable?", _THEME, "int")
    assert answer[1] != "submitted" or answer[0] == 5


def test_a_name_no_record_of_the_block_the_question_names_holds_is_a_supported_no():
    from dspy_rlm.profiles.moves import MoveBook

    def submits(question: str, phrase: str) -> dict:
        book = MoveBook({"question": question}, {"context": _SOCKETS}, {"answer": bool})
        code = f"print(exists(context, {phrase!r}))"
        book.record_read(code, "True")
        return {
            m.candidate.value: m.candidate.supported for m in book.step_moves([code], ["True"]) if m.kind == "submit"
        }

    assert submits("Does the Mode enum include a PEER member?", "PEER") == {True: False, False: True}  # SockKind's
    assert submits("Does the Mode enum include a TIGHT member?", "TIGHT")[False] is False  # it does


_METADATA = (
    "Metadata-Version: 2.4\nName: tidewater\nVersion: 2.1.0\nSummary: Read tide tables\n"
    "Classifier: Programming Language :: Python :: 3.10\nClassifier: Programming Language :: Python :: 3.11\n"
    "Requires-Python: >=3.10\n\n"
    "# tidewater\n\nReads tide tables from harbour offices.\n\n## Getting Started\n\nInstall it with pip.\n\n"
    "# Changelog\n\nAll notable changes are listed here.\n\n"
    + "".join(
        f"## [{v}] - {d}\n\n- Fixed a thing in {v}.\n\n"
        for v, d in [
            ("2.1.0", "2025-10-26"),
            ("2.0.1", "2025-10-26"),
            ("2.0.0", "2024-03-02"),
            ("1.4.0", "2023-02-24"),
            ("1.3.0", "2022-07-01"),
            ("1.2.0", "2021-01-15"),
        ]
    )
    + "Dropped support for Python 3.9 in 2.0.0.\n"
)


def test_a_header_stanza_over_a_changelog_reads_the_changelogs_dated_sections():
    s = detect(_METADATA)
    assert s.records[0].get("Name") == "tidewater" and s.records[0].line == 1
    release = next(r for r in s.records if r.key == "1.4.0")
    assert (
        release.get("date") == "2023-02-24"
        and release.line == _METADATA.split("\n").index("## [1.4.0] - 2023-02-24") + 1
    )


def test_a_heading_that_repeats_the_headers_name_does_not_stand_for_its_record():
    question = "Does tidewater's METADATA include a classifier declaring support for Python 3.9?"
    assert ask_scripted(question, _METADATA, "bool") == (False, "submitted")
