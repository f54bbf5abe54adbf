"""What the third probe (``benchmarks/asked/probe3.json``: ten more real files no benchmark used, questions by
someone who never saw the code) showed, each rebuilt here on a small file of its shape:

* wrong answers ``Submitted``: the other of two fields of a JSON object's record for "which provider ..." (its
  name is a key apart from its fields), a length ranking over a field that shares one word with the question
  (``base_class``) where another is named whole (``base_url``), "is X's temperature_max set to 2?" answered
  yes because X exists, a record read by one phrase of the question that lacks another ("163" in the "name TR"
  line), a parsed field where the question points to comments, "no" from the file's own name missing beside a
  zone that is there;
* a date asked where no field is named so ("which date is written next to entry N?") names the field of dates,
  and a date is no number to rank.
"""

from __future__ import annotations

import json

from dspy_rlm.profiles.moves import MoveBook
from tests.dspy_rlm.scripted import ask_scripted as _ask

PROVIDERS = json.dumps(
    {
        "acme": {"base_url": "https://api.acme.example/v1", "api_key_env": "ACME_KEY"},
        "bolt": {"base_url": "https://bolt.example/v1", "api_key_env": "BOLT_SECRET_KEY"},
        "cirrus": {
            "base_url": "https://inference.cirrus.example.org/remote/v2/models",
            "api_key_env": "CIRRUS_KEY",
            "headers": {"api-subscription-key": "CIRRUS_SUB"},
        },
        "delta": {
            "base_url": "https://d.example/v1",
            "api_key_env": "DELTA_KEY",
            "base_class": "OpenAILikeChatConfigForEveryModelListedHereAndMore",
            "constraints": {"temperature_max": 1.99},
        },
        "echo": {"base_url": "https://e.example/v1", "api_key_env": "ECHO_KEY", "constraints": {"temperature_max": 2}},
    },
    indent=2,
)
FONT = (
    "# Times Roman font description\n# full name: Times Roman\nname TR\ninternalname Times-Roman\nspacewidth 250\n"
    "charset\n"
    + "".join(f"{n}\t{w}\t2\t{c}\n" for n, w, c in [("Po", 500, 163), ("Ye", 500, 165), ("Sc", 500, 167)])
    + "".join(f"g{i}\t{400 + i}\t0\t{200 + i}\n" for i in range(6))
)
ZONES = "# version 2024a\n# This zic input file is in the public domain.\n" + "".join(
    f"R E{i} 19{70 + i} o - Mar lastSu 1u 1 S\nZ Europe/Zone{i} 1:0{i} - LMT 1891 Mar 16\n1 E{i} CE%sT 1945\n{i} - CE\n"
    for i in range(8)
)
LEAPS = "# NTP seconds, offset, date\n" + "".join(
    f"{2272060800 + i * 31536000}      {10 + i}      # 1 {'Jan' if i % 2 else 'Jul'} {1972 + i}\n" for i in range(8)
)


def test_the_name_of_a_json_record_is_no_field_left_over():
    q = "Which provider reads its API key from the BOLT_SECRET_KEY environment variable?"
    assert _ask(q, PROVIDERS) == ("bolt", "submitted")


def test_a_length_ranking_ranks_the_field_named_whole():
    q = "Which provider in providers.json has the longest base_url?"
    assert _ask(q, PROVIDERS) == ("cirrus", "submitted")


def test_a_number_the_question_states_of_a_named_field_is_checked():
    assert _ask("Is the temperature_max constraint for delta set to 2?", PROVIDERS, "bool") == (False, "submitted")
    assert _ask("Is the temperature_max constraint for delta set to 1.5?", PROVIDERS, "bool") == (False, "submitted")
    assert _ask("Is the temperature_max constraint for echo set to 2?", PROVIDERS, "bool") == (True, "submitted")


def test_a_record_lacking_another_phrase_of_the_question_answers_nothing_sure():
    # record_of('name') reads the "name TR" line: TR, its other field, was Submitted for the character of code 163
    from dspy_rlm.profiles import kinds

    q = "Which groff character name is assigned output code 163 in the TR font?"
    book = MoveBook({"question": q}, {"context": FONT}, {"answer": str})
    by_key = {m.args[0]: m for m in book.read_moves() if m.helper == "record_of"}
    assert {"name", "163"} <= set(by_key)
    found = kinds.evaluate(book, by_key["name"], "")
    assert "TR" in [c.value for c in found] and not any(c.supported for c in found)
    assert "the record read does not hold" in found[0].why
    assert _ask(q, FONT)[1] == "extracted"  # the code-163 row is read too, but the question's "TR" is not in it


def test_a_question_pointing_to_comments_is_no_field_read():
    assert _ask("According to the header comments, what is the font's full name?", FONT)[1] == "extracted"


def test_a_missing_file_name_beside_an_identifier_present_is_no_no():
    from dspy_rlm.profiles import kinds

    q = "Does zones.zi define a zone named Europe/Zone5?"
    book = MoveBook({"question": q}, {"context": ZONES}, {"answer": bool})
    by_key = {m.args[0]: m for m in book.read_moves() if m.helper == "exists"}
    assert [(c.value, c.supported) for c in kinds.evaluate(book, by_key["zones.zi"], "")] == [(False, False)]
    assert _ask(q, ZONES, "bool")[1] == "extracted"
    assert _ask("Does zones.zi define a zone named Europe/Zone9?", ZONES, "bool") == (False, "submitted")


def test_a_date_word_names_the_field_of_dates_and_a_date_ranks_as_no_number():
    assert _ask("Which date is written next to the entry with NTP timestamp 2303596800?", LEAPS) == (
        "1 Jan 1973",
        "submitted",
    )
    assert _ask("Which leap second came after the longest wait? Give its date as written.", LEAPS)[1] == "extracted"


SYSCALLS = (
    '<?xml version="1.0"?>\n<!-- The file mentioned above belongs to the Linux Kernel. -->\n<syscalls_info>\n'
    + "".join(
        f'  <syscall name="{n}" number="{150 + i}" groups="{g}"/>\n'
        for i, (n, g) in enumerate(
            [("read", "descriptor"), ("write", "descriptor"), ("open", "descriptor,file"), ("kill", "signal")]
            + [("prctl", "process"), ("pivot_root", "file"), ("tee", "descriptor")]
        )
    )
    + "</syscalls_info>\n"
)


def test_xml_elements_are_records_and_a_hyphened_ranking_word_ranks():
    # an XML file of one element per record was read as lines; "the highest-numbered syscall" was taken for an
    # identifier, and "of the ... syscall in this file" for a phrase naming the file
    # a reverse lookup: one record alone holds number 154, and the question asks nothing else of it (until stop 50
    # key_of also wanted the `name` field the answer is in named, which a record read's reverse candidate never did)
    assert _ask("Which syscall has number 154 in gdb's Linux syscall list?", SYSCALLS) == ("prctl", "submitted")
    assert _ask("What is the name of the highest-numbered syscall in this file?", SYSCALLS) == ("tee", "submitted")
