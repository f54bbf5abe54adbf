"""Words of a question that change what the moves read and support (profiles/vocabulary.py): a synonym names a
field ("description" a trailing ``# comment``), a code in capitals is a key even where the English word is a stop
word (``AS``, ``IN``), "short" asks for a multi-line value's first line, a name keeps a bracketed qualifier."""

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
    "Package: tar\nDescription: archiving utility\n It saves many files together.\n .\n More text.\n\n"
    "Package: gzip\nDescription: compression utility\n It reduces the size of files.\n\n"
    "Package: sed\nDescription: stream editor\n It reads the input.\n"
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
    assert "Samoa (American)" in _supported(b)  # a bracketed qualifier belongs to the name (an address would not)
    assert "Samoa" not in _supported(b)
    lower = MoveBook({"question": "Which country is known as France?"}, {"context": CODES}, {"answer": str})
    assert [k.text for k in lower.keys["context"]] == ["France"]  # "as" in lower case stays a stop word


def test_short_asks_for_the_first_line_of_a_multi_line_value():
    b = _read_all("What is the short description of the package tar?", STANZAS)
    read = b.reads["print(field_of(context, 'tar', 'Description'))"]
    assert (read[0].value, read[0].supported) == ("archiving utility", True)
    assert read[1].value.startswith("archiving utility\n")  # the whole value after it
    full = _read_all("What is the description of the package tar?", STANZAS)
    assert full.reads["print(field_of(context, 'tar', 'Description'))"][1].value == "archiving utility"
    assert make_helpers()["field_of"](STANZAS, "tar", "Description").startswith("archiving utility\n")


BUNDLE = "\n".join(
    f'# Issuer: CN={label} O={org}\n# Label: "{label}"\n# Serial: {serial}\n# MD5 Fingerprint: {md5}\n'
    f"# SHA1 Fingerprint: {sha1}\n-----BEGIN BLOCK-----\nQUJDREVGR0g=\n-----END BLOCK-----\n"
    for label, org, serial, md5, sha1 in [
        ("Alpha Root R1", "Alpha Trust", 1001, "aa:01", "bb:01"),
        ("Beta Root R1", "Beta Ltd.", 2002, "aa:02", "bb:02"),
        ("Gamma Root R2", "Alpha Trust", 3003, "aa:03", "bb:03"),
        ("Delta Root R3", "Delta AG", 4004, "aa:04", "bb:04"),
        ("Omega Root R1", "Alpha Trust", 5005, "aa:05", "bb:05"),
    ]
)


def test_commented_stanzas_are_records_keyed_by_their_label_with_inline_pairs_as_fields():
    from dspy_rlm.library import structure as st

    s = st.detect(BUNDLE)
    assert s.kind == "stanzas" and len(s.records) == 5
    assert s.records[1].key == "Beta Root R1"  # the distinct, identifier-named field (the quotes dropped)
    assert s.records[1].get("Issuer O") == "Beta Ltd." and s.records[1].get("Issuer CN") == "Beta Root R1"
    assert make_helpers()["most_common"](BUNDLE, "Issuer O") == "Alpha Trust"


def test_a_field_said_whole_outranks_fields_said_in_part():
    b = _read_all('What SHA1 Fingerprint is recorded for "Beta Root R1"?', BUNDLE)
    assert b.fields["context"] == ["SHA1 Fingerprint"]  # not "MD5 Fingerprint"
    assert _supported(b)[0] == "bb:02" and "aa:02" not in _supported(b)
    org = _read_all('Which issuer organization belongs to "Beta Root R1"?', BUNDLE)
    assert org.fields["context"] == ["Issuer O"]  # "organization" says the O; "Issuer" alone is inside it
    assert "Beta Ltd." in _supported(org)


def test_the_records_key_is_supported_when_the_question_names_nothing_else():
    b = _read_all("Name the certificate whose Serial is 2002.", BUNDLE)
    assert "Beta Root R1" in _supported(b)
    other = _read_all("What is the fingerprint color of the certificate whose Serial is 2002?", BUNDLE)
    assert "Beta Root R1" not in _supported(other)  # more is asked than the record
