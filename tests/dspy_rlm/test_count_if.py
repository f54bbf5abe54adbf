"""Counting records by a test on a field (``count_if``: prefix, suffix, whole word, part of a compound value,
number below / above) and ranking a text by its length (``max_of(..., by="length")``): the helpers, the moves
that offer them and what they support; a question's ``Field: value`` phrase; and two whitespace-table parses
that counting depends on (texts written here, not benchmark files)."""

from __future__ import annotations

import pytest

from dspy_rlm.library import structure as st
from dspy_rlm.library.helpers import make_helpers
from dspy_rlm.profiles.moves import MoveBook

H = make_helpers()
count_if = H["count_if"]

PORTS = "".join(
    f"{name}\t\t{port}/{proto}\t\t{alias}\t# {note}\n"
    for name, port, proto, alias, note in [
        ("echo", 7, "tcp", "", "echo service"),
        ("echo", 7, "udp", "", "echo service"),
        ("ssh", 22, "tcp", "", "secure shell, tcp only"),
        ("domain", 53, "tcp", "", "name server"),
        ("domain", 53, "udp", "", "name server"),
        ("http", 80, "tcp", "www", "world wide web"),
        ("ntp", 123, "udp", "", "network time"),
        ("https", 443, "tcp", "", "http over tls"),
        ("syslog", 514, "udp", "", "system log"),
        ("rsync", 873, "tcp", "", "file sync"),
    ]
)
PEOPLE = "id,name,city\n" + "".join(
    f"{i},{n},{c}\n"
    for i, (n, c) in enumerate(
        [("Grace Hopper", "New York"), ("Alan Turing", "London"), ("Ada Lovelace", "London"),
         ("Greta Garbo", "Stockholm"), ("Gustav Mahler", "Vienna"), ("Linus Torvalds", "Portland")]
    )
)  # fmt: skip
STANZAS = "".join(
    f"Package: p{i}\nPriority: {'required' if i % 3 == 0 else 'optional'}\nSection: {['admin', 'utils'][i % 2]}\n\n"
    for i in range(12)
)


def test_count_if_tests_a_field_by_prefix_suffix_word_part_and_number():
    assert count_if(PEOPLE, "name", "starts", "g") == 3
    assert count_if(PEOPLE, "name", "ends", "ER") == 2  # Hopper, Mahler
    assert count_if(PEOPLE, "city", "contains", "york") == 1
    assert count_if(PEOPLE, "name", "contains", "Ada Love") == 0  # whole words only
    assert count_if(PORTS, "col2", "part", "udp") == 4
    assert count_if(PORTS, "col2", "<", "100") == 6
    assert count_if(PORTS, "col2", ">=", "443") == 3
    assert count_if(PORTS, "col3", "empty") == 9


def test_count_if_refuses_an_unknown_test_a_missing_number_and_an_unknown_field():
    with pytest.raises(ValueError, match="test must be one of"):
        count_if(PEOPLE, "name", "like", "G")
    with pytest.raises(TypeError, match="needs a number"):
        count_if(PORTS, "col2", "<", "many")
    with pytest.raises(ValueError, match="no field 'age'"):
        count_if(PEOPLE, "age", "<", "3")


def _book(text: str, question: str) -> MoveBook:
    return MoveBook({"question": question}, {"context": text}, {"answer": int})


def _count_if(b: MoveBook) -> dict[str, bool]:
    """Each count_if move offered, read on the host, with whether its count is supported."""
    out = {}
    for m in b.read_moves():
        if m.kind == "count_if":
            b.record_read(m.code, str(count_if(b.texts["context"], *m.args)))
            out[m.code] = b.reads[m.code][0].supported
    return out


def test_a_stated_test_is_offered_on_the_fields_it_holds_in_and_a_named_field_is_supported():
    moves = _count_if(_book(PEOPLE, "How many people have a name starting with G?"))
    assert moves == {"print(count_if(context, 'name', 'starts', 'G'))": True}  # no city starts with G


def test_a_number_is_compared_only_in_numeric_fields_and_the_only_such_field_is_supported():
    moves = _count_if(_book(PORTS, "How many entries have a port below 100?"))
    assert "print(count_if(context, 'col2', '<', '100'))" in moves
    assert moves["print(count_if(context, 'col2', '<', '100'))"]
    assert not any("'col1', '<'" in c or "'col4', '<'" in c for c in moves)


def test_a_whole_part_of_one_field_is_supported_a_word_in_a_sentence_is_not():
    moves = _count_if(_book(PORTS, "How many entries use udp?"))
    assert moves["print(count_if(context, 'col2', 'part', 'udp'))"]
    moves = _count_if(_book(PORTS, "How many entries mention shell?"))
    assert moves == {"print(count_if(context, 'comment', 'contains', 'shell'))": False}  # a word of a note


def test_a_field_colon_value_phrase_counts_the_value_in_that_field():
    b = _book(STANZAS, "Count the packages that have Priority: required.")
    assert b.keys["context"][0].text == "required"
    code = "print(count_where(context, 'Priority', 'required'))"
    assert code in [m.code for m in b.read_moves()]
    b.record_read(code, str(H["count_where"](STANZAS, "Priority", "required")))
    assert b.reads[code][0].value == "4" and b.reads[code][0].supported


def test_an_aligned_table_row_written_with_single_spaces_is_split_but_a_key_value_line_is_not():
    text = PORTS + "afs3-fileserver 7000/udp\n"
    rec = st.detect(text).records[-1]
    assert rec.get("col1") == "afs3-fileserver" and rec.get("col2") == "7000/udp"
    kv = "alpha.beta\t\t1\nalpha.gamma\t\t2\nalpha.delta\t\t3\nalpha.limits : -7, 7\n"
    assert st.detect(kv).records[-1].get("col1") == "alpha.limits : -7, 7"


def test_the_last_line_of_a_comment_paragraph_is_no_header():
    text = "# These settings will soon move elsewhere and are\n# no more supported\n" + "".join(
        f"KEY_{i}\t\t{i}\n" for i in range(6)
    )
    assert st.detect(text).field_names == ("col1", "col2")
    assert st.detect("# name value\n" + text.split("\n", 2)[2]).field_names == ("name", "value")


def test_max_of_by_length_ranks_a_text_field_and_is_offered_for_longest():
    assert tuple(H["max_of"](PEOPLE, "name", "length"))[:2] == ("5", "Linus Torvalds")
    assert tuple(H["min_of"](PEOPLE, "city", by="length"))[:2] == ("1", "London")
    with pytest.raises(ValueError, match="by must be"):
        H["max_of"](PEOPLE, "name", "size")
    b = MoveBook({"question": "Which person has the longest name?"}, {"context": PEOPLE}, {"answer": str})
    code = "print(max_of(context, 'name', 'length'))"
    assert code in [m.code for m in b.read_moves()]
    b.record_read(code, "5: Linus Torvalds")
    assert [(c.value, c.supported) for c in b.reads[code]] == [("5", True), ("Linus Torvalds", True)]
    plain = MoveBook({"question": "Which person has the largest id?"}, {"context": PEOPLE}, {"answer": str})
    assert not any(m.kind == "max_length" for m in plain.read_moves())  # no length word: no length ranking
