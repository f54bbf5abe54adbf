"""Yes/no questions an existence check does not answer: a setting named in camel case with a function word inside
("ForwardToSyslog" for "forward ... to syslog") is a field the question names, so a plain word of it missing from
the data ("journald") is no "no"; and a key found on a line that gives a word of the question as a setting's name
("secret": false) is asked about that setting, not whether it is there. Each test fails before its change."""

from __future__ import annotations

import json

from dspy_rlm.profiles.moves import MoveBook
from tests.dspy_rlm.scripted import ask_scripted

_CONF = "[Harbour]\n#Storage=auto\n#Compress=yes\n#ForwardToConsole=no\n#ForwardToWall=yes\n#MaxLevelStore=debug\n"
_REGISTRY = json.dumps(
    [
        {"name": "tide", "category": "Ports", "env_vars": [{"name": "TIDE_TOKEN", "secret": True}]},
        {"name": "quay", "category": "Ports", "env_vars": [{"name": "QUAY_DB_PATH", "secret": False}]},
        {"name": "buoy", "category": "Lights", "env_vars": [{"name": "BUOY_URL", "secret": False}]},
    ],
    indent=1,
)


def test_a_camel_case_setting_is_named_past_a_function_word():
    book = MoveBook(
        {"question": "By default, does harbourd forward its messages to wall?"}, {"context": _CONF}, {"answer": bool}
    )
    assert "ForwardToWall" in book.named_fields("context")


def test_a_plain_word_missing_beside_a_named_setting_is_no_answer():
    answer, ending = ask_scripted("By default, does harbourd forward its messages to wall?", _CONF, "bool")
    assert not (answer is False and ending == "submitted")


def test_a_setting_named_on_the_keys_line_is_what_is_asked():
    answer, ending = ask_scripted("Is the QUAY_DB_PATH variable marked as a secret?", _REGISTRY, "bool")
    assert not (answer is True and ending == "submitted")
    # a word the line gives as the key's own name is no other setting: the existence check answers
    assert ask_scripted("Is there an environment variable with the name BUOY_URL?", _REGISTRY, "bool") == (
        True,
        "submitted",
    )
