"""Words of a question that change what the moves read and support (profiles/vocabulary.py): a synonym names a
field ("description" a trailing ``# comment``), a code in capitals is a key even where the English word is a stop
word (``AS``, ``IN``), "short" asks for a multi-line value's first line, "full" keeps a name's bracketed tail."""

from __future__ import annotations

from dspy_rlm.library.helpers import make_helpers
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.oracle import host_reader

SERVICES = "".join(
    f"{n}\t\t{p}/tcp\t\t# {c}\n"
    for n, p, c in [("ssh", 22, "Secure Shell"), ("smtp", 25, "Mail transfer"), ("http", 80, "World Wide Web")]
)
CODES = "code\tname\n" + "".join(
    f"{c}\t{n}\n" for c, n in [("AS", "Samoa (American)"), ("IN", "India"), ("NO", "Norway"), ("FR", "France")]
)
STANZAS = (
    "Package: tar\nDescription: archiving utility\n Tar saves many files together.\n .\n More text.\n\n"
    "Package: gzip\nDescription: compression utility\n Gzip reduces the size of files.\n\n"
    "Package: sed\nDescription: stream editor\n Sed reads the input.\n"
)


def _read_all(question: str, text: str) -> MoveBook:
    b = MoveBook({"question": question}, {"context": text}, {"answer": str})
    run = host_reader(b.data)
    for m in b.read_moves():
        b.record_read(m.code, run(m))
    return b


def _supported(b: MoveBook) -> list[str]:
    return [m.candidate.value for m in b.submit_moves() if m.candidate is not None and m.candidate.supported]


def test_a_description_names_the_comment_field():
    b = _read_all("What is the full description of the service smtp?", SERVICES)
    assert b.fields["context"] == ["comment"]
    assert "Mail transfer" in _supported(b)
    plain = _read_all("What is the port of the service smtp?", SERVICES)
    assert "comment" not in plain.fields["context"]


def test_a_code_in_capitals_is_a_key_though_the_word_is_a_stop_word():
    b = _read_all("Give the complete country name listed for AS.", CODES)
    assert b.keys["context"][0].text == "AS" and b.keys["context"][0].is_key
    assert "Samoa (American)" in _supported(b)  # "complete": the bracketed tail stays
    assert "Samoa" not in _supported(b)
    lower = MoveBook({"question": "Which country is known as France?"}, {"context": CODES}, {"answer": str})
    assert [k.text for k in lower.keys["context"]] == ["France"]  # "as" in lower case stays a stop word


def test_short_asks_for_the_first_line_of_a_multi_line_value():
    b = _read_all("What is the short description of the package tar?", STANZAS)
    supported = _supported(b)
    assert supported[0] == "archiving utility"
    assert make_helpers()["field_of"](STANZAS, "tar", "Description").startswith("archiving utility\n")
