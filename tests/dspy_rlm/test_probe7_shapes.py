"""Shapes the seventh probe (``benchmarks/asked/probe7.json``) met, each rebuilt as a small made-up file: a
two-column rules table keyed by single characters (``ß -> ss``), a phrase in single quotes, a key of symbols
only, a package's METADATA (a header over a README body), and a samba-style INI whose settings are indented
under their section, with ``-----`` separator lines."""

from __future__ import annotations

from dspy_rlm.library.structure import detect
from dspy_rlm.profiles.grounding import said_in
from tests.dspy_rlm.scripted import ask_scripted as _ask

RULES = "\n".join(
    ["¡\t!", "±\t+/-", "¼\t 1/4", "ß\tss", "ẞ\tSS", "㏌\tin", "É\tE", "È\tE", "é\te", "Ł\tL", "ł\tl", "æ\tae"]
)

METADATA = """Metadata-Version: 2.4
Name: quietlake
Version: 1.2.0
Summary: Reads lakes, quietly
Maintainer-email: Ada Brook <ada@example.org>
Requires-Python: >=3.10
Provides-Extra: fast
Requires-Dist: numpy>=1.26; extra == "fast"

# quietlake

quietlake reads lakes. Install it with pip install quietlake.

## Maintainer

The maintainer answers issues on Tuesdays.
"""

SAMBA = """# A made-up samba configuration
#
#======================= Global Settings =====================================
[global]

# the workgroup of this server
  workgroup = LAKEGROUP
;  netbios name = <name>
  server string = Lake Server %v
  security = user

#============================ Share Definitions ==============================
[homes]
   comment = Home Directories
   browseable = no
   writable = yes
-----------------------------------------------------------
[scratch]
   comment = Temporary file space
   path = /var/scratch
   read only = no
-----------------------------------------------------------
[pdf-writer]
   path = /var/pdf
   printable = Yes
   comment = PDF Writer (valid users only)
   print command = /usr/bin/pdf-writer %s \\
        --quiet
"""


def test_a_character_said_alone_is_a_key_and_in_is_no_value():
    # before: "In" (a whole value "in" of the rules) was the key and the answer "㏌" was Submitted
    answer, kind = _ask("In the unaccent rules, what does the character ß get replaced with?", RULES)
    assert answer != "㏌"
    assert (answer, kind) == ("ss", "extracted")  # the columns are unnamed: the read is not sure which is asked


def test_a_single_quoted_phrase_of_symbols_is_a_key():
    # before: '+/-' was no key (only double quotes made one) and "±" repeated the key's (no) words
    assert _ask("Which character is rewritten to '+/-'?", RULES) == ("±", "submitted")


def test_a_value_that_only_folds_like_a_question_word_is_no_repeat():
    assert not said_in("ss", "what does the character ß become?")  # "ß".casefold() is "ss"
    assert not said_in("ss", "which class is it?")  # a part of a word
    assert said_in("Lake Server", "is the lake server listed?")


def test_metadata_is_one_record_keyed_by_its_name():
    s = detect(METADATA)
    assert s.kind == "stanzas" and len(s.records) == 1  # before: each README paragraph was a record
    assert s.records[0].key == "quietlake"
    assert _ask("Who is listed as the maintainer of quietlake (name only)?", METADATA) == ("Ada Brook", "submitted")


def test_indented_settings_under_a_section_are_settings_not_one_value():
    s = detect(SAMBA)
    assert s.kind == "ini"  # before: the "-----" lines made it no INI
    by_key = {r.key: r for r in s.records}
    assert by_key["global"].get("security") == "user"  # before: every setting continued the first one
    assert by_key["pdf-writer"].get("comment") == "PDF Writer (valid users only)"
    assert by_key["pdf-writer"].get("print command").split() == ["/usr/bin/pdf-writer", "%s", "\\", "--quiet"]
    assert _ask("What's the comment of the pdf-writer share?", SAMBA) == ("PDF Writer (valid users only)", "submitted")
    assert _ask("What path is configured for the share whose comment is 'Temporary file space'?", SAMBA) == (
        "/var/scratch",
        "submitted",
    )


MAKEFILE = """# A made-up Makefile
VERSION=	3.12
SOABI=		cpython-312-x86_64-linux-gnu
CC ?= gcc
CFLAGS += -O2 \\
	-Wall
INSTALL=	/usr/bin/install -c
INSTALL_DATA=	${INSTALL} -m 644  # data files
MODULE__GDBM_STATE=missing
MODULE__SCPROXY_STATE=n/a
defines = -DLAKE
define BANNER
hello = world
endef

all: build

build: main.o
	$(CC) $(CFLAGS) -o main main.o
	@echo SOABI=done

ifeq ($(CC),gcc)
EXTRA=-fno-common
endif
"""


def test_makefile_variables_are_records_and_recipes_are_not():
    s = detect(MAKEFILE)
    assert s.kind == "assignments"  # before: lines, and a variable was no field
    values = {r.key: r.fields[0][1] for r in s.records if r.fields and r.fields[0][0] == r.key}
    assert values["SOABI"] == "cpython-312-x86_64-linux-gnu" and values["CC"] == "gcc"
    assert values["CFLAGS"] == "-O2 -Wall" and values["INSTALL_DATA"] == "${INSTALL} -m 644"
    assert "all" not in values and "EXTRA" in values and len(values) == 10  # the recipe's SOABI=done is none
    rules = {r.key: dict(r.fields) for r in s.records if r.key not in values}  # rules: records of their own
    assert rules == {
        "all": {"prerequisites": "build"},
        "build": {"prerequisites": "main.o", "recipe": "$(CC) $(CFLAGS) -o main main.o\n@echo SOABI=done"},
    }
    assert values["defines"] == "-DLAKE" and "hello" not in values  # a define block's lines are its value
    assert _ask("What is SOABI set to in this Makefile?", MAKEFILE) == ("cpython-312-x86_64-linux-gnu", "submitted")


TIERS = """# Tool support tiers

Tools are listed in tiers. A tool moves between tiers when its tests change.

## Tier 1

| Tool Type | Tool Name       | Regular Testing in CI | Target Tier |
| --------- | --------------- | --------------------- | ----------- |
| Report    | diagnostic dump | Yes                   | 1           |
|           |                 |                       |             |

## Tier 2

| Tool Type | Tool Name        | Regular Testing in CI | Target Tier |
| --------- | ---------------- | --------------------- | ----------- |
| Profiling | cpu sampler      | Partial (engine tests) | 1          |
| Profiling | flame graphs     | Yes                   | 2           |
| Debugger  | stepper          | No                    | 2           |

## Tier 3

| Tool Type | Tool Name   | Regular Testing in CI | Target Tier |
| --------- | ----------- | --------------------- | ----------- |
| Profiling | heap walker | No                    | 3           |
| Tracing   | span log    | No                    | 3           |
"""


def test_tables_under_several_headings_are_records_with_their_section():
    s = detect(TIERS)
    assert s.kind == "markdown_table"  # before: prose (the text around the tables)
    rows = [r for r in s.records if r.get("Tool Name")]
    assert [(r.get("Tool Name"), r.get("section")) for r in rows][:2] == [
        ("diagnostic dump", "Tier 1"),
        ("cpu sampler", "Tier 2"),
    ]
    assert len(rows) == 6  # the empty row is none
    # a field's name in quotes names the field; the field the question names best is the one ranked
    q = "what does the 'Regular Testing in CI' column say for the cpu sampler?"
    assert _ask(q, TIERS)[0] == "Partial (engine tests)"
    assert _ask("Across all the tier tables, which Tool Type occurs most often?", TIERS) == ("Profiling", "submitted")
