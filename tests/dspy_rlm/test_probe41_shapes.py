"""Probe 41's wrong `Submitted` answers at first contact, on invented data: a JSON object of nested objects
counted by its names, not its flattened ``name.part`` fields; the question's own statement of a setting's value
("'override' => 1") no field to answer with; a version the question states that the read record does not hold; a
glob read as a pattern counting none of the records holding it. Each test fails before its change."""

from __future__ import annotations

import json

from tests.dspy_rlm.scripted import ask_scripted

_LOCK = json.dumps(
    {
        "_meta": {"hash": {"sha256": "ab12"}, "requires": {"python_version": "3.6"}},
        "default": {"pyasn1": {"hashes": ["sha256:1", "sha256:2"], "version": "==0.4.8"}},
        "develop": {
            name: {"hashes": [f"sha256:{i}"], "version": version}
            for i, (name, version) in enumerate(
                [("alabaster", "==0.7.12"), ("attrs", "==19.3.0"), ("babel", "==2.8.0"), ("tox", "==3.14.6")]
                + [("packaging", "==20.3"), ("virtualenv", "==20.0.18"), ("wheel", "==0.34.2")]
            )
        },
    },
    indent=4,
)


def test_a_json_objects_nested_entries_are_counted_by_name():
    question = "How many packages are locked in the develop section of this Pipfile.lock?"
    assert ask_scripted(question, _LOCK, "int") == (7, "submitted")


def test_a_version_the_question_states_that_the_read_lacks_vouches_for_nothing():
    answer = ask_scripted("In this Pipfile.lock, which develop package is locked at version ==20.0.18?", _LOCK)
    assert answer[1] != "submitted" or answer[0] == "virtualenv"


_PERL = (
    "our %feature = (\n"
    + "".join(
        f"\t'{name}' => {{\n\t\t'sub' => \\&feature_{name},\n\t\t'override' => {o},\n\t\t'default' => [0]}},\n"
        for name, o in [("blame", 0), ("snapshot", 0), ("grep", 0), ("pickaxe", 0), ("privacy", 1), ("search", 0)]
    )
    + ");\n"
)


def _read(question: str, text: str, code: str, answer: type = str) -> list[tuple]:
    from dspy_rlm.profiles.kinds import evaluate
    from dspy_rlm.profiles.moves import MoveBook

    book = MoveBook({"question": question}, {"context": text}, {"answer": answer})
    move = next(m for m in book.read_moves() if m.code == f"print({code})")
    return [(c.value, c.supported) for c in evaluate(book, move, "")]


def test_the_value_a_question_states_of_a_setting_is_no_answer():
    # (gitweb's own %feature hash read record_of('override') as blame's 0, vouched for; this invented one is doubted
    # for other reasons already, so the doubt itself is checked)
    from dspy_rlm.profiles.doubts import _value_stated
    from dspy_rlm.profiles.moves import MoveBook

    def doubt(question: str) -> str | None:
        book = MoveBook({"question": question}, {"context": _PERL}, {"answer": str})
        move = next(m for m in book.read_moves() if m.code == "print(record_of(context, 'override'))")
        key = next(k for k in book.keys["context"] if k.text == "override")
        return _value_stated(book, move, None, key, _PERL)

    assert doubt("Which feature in the %feature table is the only one with 'override' => 1?")
    assert doubt("What does the 'override' setting of the blame feature hold?") is None


_PRESET = (
    "# Settings for units.\n\n"
    + "".join(f"enable unit{i}.service\n" for i in range(5))
    + "\n"
    + "".join(f"disable other{i}.service\n" for i in range(4))
    + "disable journal-upload.*\n"
)


def test_a_glob_counting_none_of_the_records_holding_it_vouches_for_nothing():
    question = "How many 'disable' lines does this preset contain (glob patterns like journal-upload.* count too)?"
    assert _read(question, _PRESET, "count_records(context, 'journal-upload.*')", int) == [("0", False)]
