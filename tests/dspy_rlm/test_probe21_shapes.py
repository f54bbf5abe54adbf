"""Shapes met while probing for the twenty-first time, on made-up files: a shipped config whose settings are all
commented out (its documented defaults); blocks of ``keyword "value"`` lines (a gettext catalogue); a field
named by its words' short forms ("message context": ``msgctxt``); a Python stub's classes and their members; a
C header's anonymous enum, ``#define`` lines and comments across lines; a set phrase ("by default") that is no
key; a value stated after a word across a clause or a sentence, or a verb ("are kept in"), that is no value."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.guided import stated_pairs
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.spellings import field_forms
from tests.dspy_rlm.scripted import ask_scripted as _ask

DAEMON = """#  This file is part of exampled.
#
# Entries in this file show the compile time defaults.
# Uncomment a setting to change it.

[Daemon]
#LogLevel=notice
#MaxWorkers=8
#IdleTimeoutSec=45s
#EnableSwap=no
#EnableCache=yes
#EnableTrace=no
"""


def test_a_section_of_commented_settings_reads_them_as_its_defaults():
    s = st.detect(DAEMON)
    assert s.kind == "ini" and [r.key for r in s.records] == ["Daemon"]
    assert s.records[0].get("MaxWorkers") == "8" and s.records[0].get("IdleTimeoutSec") == "45s"
    live = st.detect("[Daemon]\n#MaxWorkers=8\nLogLevel=info\n")  # a live setting: the comments are no setting
    assert live.records[0].fields == (("LogLevel", "info"),)
    assert _ask("What is the default value of MaxWorkers?", DAEMON, "int") == (8, "submitted")


CATALOGUE = """# Translations of the example tool.
#, fuzzy
msgid ""
msgstr ""
"Project-Id-Version: example 1.0\\n"
"Content-Type: text/plain; charset=UTF-8\\n"

#: main.c:10
msgid "open"
msgstr "ouvrir"

#: main.c:22
msgctxt "menu"
msgid "close"
msgstr "fermer"

#: main.c:31
msgctxt "door"
msgid "close"
msgstr "proche"

#: main.c:40
msgctxt "noun"
msgid "file"
msgid_plural "files"
msgstr[0] "fichier"
msgstr[1] "fichiers"
"""


def test_blocks_of_keyword_lines_are_records_keyed_by_the_keyword_every_block_holds():
    s = st.detect(CATALOGUE)
    assert s.kind == "stanzas" and s.detail == "keyword stanzas"
    assert [r.key for r in s.records] == ["", "open", "close", "close", "file"]
    assert s.records[0].get("msgstr").startswith("Project-Id-Version: example 1.0\nContent-Type")
    assert s.records[4].get("msgstr[1]") == "fichiers"
    assert _ask('Which message context goes with the translation "proche"?', CATALOGUE, "str") == ("door", "submitted")
    assert _ask("How many entries carry a msgctxt?", CATALOGUE, "int") == (3, "submitted")


def test_a_field_is_named_by_its_words_short_forms():
    assert "+msgctxt" in field_forms(["message", "context"], {"msgctxt", "msgid"})
    assert "+stdout" in field_forms(["standard", "output"], {"stdout", "stderr"})
    assert "+builddir" in field_forms(["build", "directory"], {"BUILDDIR"})  # a beginning, as before
    assert not field_forms(["message", "count"], {"msgctxt"})  # "count" writes no "ctxt"


STUB = """from enum import Enum, IntEnum

class Coercive(Enum):  # no members
    @classmethod
    def coerce(cls, value: str) -> Coercive: ...

class Shade(Coercive):
    LIGHT = "L"
    DARK = "D"

class Brush(Coercive):
    FLAT = "F"
    ROUND = "R"
    FAN = "N"

class Level(IntEnum):
    LOW = 1
    MID = 5
    HIGH = 9

class Stroke(Coercive):
    SOLID = "S"
    DASHED = "-"
"""


def test_a_python_stubs_classes_are_entries_with_their_bases_and_their_members_entries_of_the_class():
    s = st.detect(STUB)
    assert s.kind == "assignments" and s.detail == "literals"
    keyed = {r.key: r for r in s.records}
    assert keyed["Brush"].get("bases") == "Coercive" and keyed["Level"].get("bases") == "IntEnum"
    assert keyed["FAN"].get("value") == "N" and keyed["FAN"].get("block") == "Brush"
    assert keyed["HIGH"].get("block") == "Level"
    assert _ask("Which base class is used by the most classes?", STUB, "str") == ("Coercive", "submitted")
    assert _ask("How many members are listed in the Brush enum?", STUB, "int") == (3, "submitted")  # "enum"
    # names what Brush is: no second condition (a class's bases say "Enum" too)


SCHEMA = """type: map
mapping:
  name:
    type: text
  owner:
    type: map
    mapping:
      email:
        type: text
      team:
        type: text
  tags:
    type: seq
  size:
    type: int
"""


def test_a_count_by_a_block_name_that_several_blocks_share_vouches_nothing():
    answer = _ask("How many keys are defined under mapping?", SCHEMA, "int")
    assert answer[1] != "submitted" or answer[0] == 4  # the nested mapping's email and team are no top-level keys


HEADER = """/* Copyright (C) 2001 Example Project.
   This library is free software; you can redistribute it
   under the terms of the license, version 2.1 or later.  */

#ifndef _EXAMPLE_H
#define _EXAMPLE_H 1

/* Known services.  */
enum
  {
    SVC_ECHO = 7,	/* Echo service.  */
#define SVC_ECHO SVC_ECHO
    SVC_DAYTIME = 13,	/* Time of day.  */
    SVC_FTP = 21,	/* File transfer.  */
    SVC_TELNET = 23,	/* Remote terminal.  */
    SVC_SMTP = 25,	/* Mail transfer.  */
    SVC_WHOIS = 43,	/* Directory lookup.  */
    SVC_TFTP = 69,	/* Trivial file transfer.  */
    SVC_FINGER = 79,	/* User information.  */
    SVC_RESERVED = 1024
  };

struct svc_entry
  {
    unsigned short port;
    char name[16];
  };

#define SVC_MAX_NAME 16	/* longest name */
#define SVC_HASH(x) ((x) % 31)

#endif
"""


def test_a_c_headers_anonymous_enum_and_defines_are_entries():
    s = st.detect(HEADER)
    assert s.kind == "assignments" and s.detail == "literals"
    keyed = {r.key: r for r in s.records}
    assert keyed["SVC_FINGER"].get("value") == "79" and keyed["SVC_FINGER"].get("block") == "enum"
    assert keyed["SVC_FINGER"].get("comment") == "User information."
    assert keyed["port"].get("block") == "svc_entry"
    assert keyed["SVC_MAX_NAME"].get("value") == "16"
    assert keyed["SVC_ECHO"].get("value") == "7"  # "#define SVC_ECHO SVC_ECHO" names the entry again
    assert "SVC_HASH" not in keyed and "This" not in keyed  # a macro with arguments, a comment's words
    assert _ask("Which service constant has the value 79?", HEADER, "str") == ("SVC_FINGER", "submitted")


def test_a_glob_in_a_string_opens_no_comment():
    text = "const defaults = {\n" + "".join(f'  k{i}: "src/**/*.ts",\n' for i in range(12)) + "};\n"
    keyed = {r.key: r for r in st.detect(text).records}
    assert len(keyed) == 12 and keyed["k11"].get("value") == "src/**/*.ts"


def test_a_set_phrase_is_no_key():
    text = "[Main]\nMode=default\nShowStatus=yes\nAccounting=no\n"
    book = MoveBook({"question": "Is accounting turned on by default?"}, {"context": text}, {"answer": bool})
    assert "default" not in [k.text.casefold() for k in book.keys["context"]]  # a record holds it: no matter
    book = MoveBook({"question": "Is the mode default?"}, {"context": text}, {"answer": bool})
    assert "default" in [k.text.casefold() for k in book.keys["context"]]  # the word alone is a key as before


def test_a_value_after_a_new_clause_or_sentence_or_a_verb_is_not_the_words():
    q = {"question": "Which directory holds the cache on Posix?"}
    line = "Cache files are kept in ~/.cache on Posix, or %AppData% on Windows."
    assert ("Posix", "AppData") not in stated_pairs([line], q, ["AppData", "kept"])
    assert ("Posix", "AppData") in stated_pairs(["on Posix AppData"], q, ["AppData"])
    assert ("cache", "Files") not in stated_pairs(["See the cache. Files are kept."], q, ["Files"])
    prose = (
        "See the cache page.\nCache files are kept in ~/.cache on Posix, or %AppData%/cache on Windows.\n"
        "When the global flag is set, npm installs things into this directory.\n"
    )
    for question in ("On Posix, where are the cache files kept?", "Which directory holds npm's cache files?"):
        answer = _ask(question, prose, "str")
        assert answer[1] != "submitted" or answer[0] == "~/.cache"  # never a verb, a conjunction or Windows' place
