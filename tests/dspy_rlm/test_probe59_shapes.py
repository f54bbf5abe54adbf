"""Shapes from probe 59's first run, on invented data. A ranking asked as "which site do *most of the* links point
to?" leaves one record's stated value unsupported (``4`` of "the Selectors 4 spec" was submitted). A Java
``.properties`` file whose values hold commas is settings, not a CSV table. A name said in two words that the text
writes joined outside the records (``<kilnVersion>`` among a POM's properties, its records the dependencies) is a
key. A dated section's one change answers "what was the change". A flag's value with its dash (``-lkilnstub2.1``)
is no identifier the records lack. NMAKE's ``!IF`` lines are a makefile's directives, and a list of
``$(DIR)\\name.exe`` paths counts its items. The record a question names by its
key inside its subject is no reverse answer. Each test fails on the code before its change."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.candidates import Candidate, typed
from tests.dspy_rlm.scripted import ask_scripted

SELECTORS = """# Kiln selectors

The kiln query command exposes a selector syntax (after the [Glaze Selectors 4 Spec](https://glaze.example/s4/)):

- Unlocks the ability to answer complex questions about the kiln tree
- Standardizes the query language used by other tools

#### Pseudo Selectors
- [`:not(<selector>)`](https://developer.mozilla.org/en-US/docs/Web/CSS/:not)
- [`:has(<selector>)`](https://developer.mozilla.org/en-US/docs/Web/CSS/:has)
- [`:is(<selector list>)`](https://developer.mozilla.org/en-US/docs/Web/CSS/:is)
- [`:root`](https://developer.mozilla.org/en-US/docs/Web/CSS/:root) matches the root node
- `:private` matches a kiln marked private
- `:fired` matches a kiln that was fired
"""


def test_a_ranking_asked_as_most_of_the_things_is_no_single_stated_value():
    answer = ask_scripted(
        "In the Pseudo Selectors list of the kiln query docs, which website do most of the links point to?", SELECTORS
    )
    assert answer == ("Pseudo Selectors", "extracted")  # a guess ('4' was submitted); no move tallies link sites


KILN_CONFIG = """# kilnConfig.sh --
#
# This shell script (for sh) is generated automatically by Kiln's
# configure script.

# Kiln's version number.
KILN_VERSION='2.1'
KILN_PATCH_LEVEL='.4'

# Flag, 1: we built a shared lib, 0 we didn't
KILN_SHARED_BUILD=1

# The name of the Kiln stub library file.
KILN_STUB_LIB_FILE='libkilnstub2.1.a'

# -l flag to pass to the linker to pick up the Kiln stub library
KILN_STUB_LIB_FLAG='-lkilnstub2.1'

# String to pass to linker to pick up the Kiln stub library from its build directory.
KILN_BUILD_STUB_LIB_SPEC='-L/opt/kiln/lib -lkilnstub2.1'

# String to pass to linker to pick up the Kiln stub library from its installed directory.
KILN_STUB_LIB_SPEC='-L/opt/kiln/lib -lkilnstub2.1'
"""


def test_a_flag_asked_whole_with_its_dash_names_the_setting_holding_it():
    answer = ask_scripted("Which variable in the Kiln configure script is set to exactly '-lkilnstub2.1'?", KILN_CONFIG)
    assert answer == ("KILN_STUB_LIB_FLAG", "submitted")


PROPERTIES = """# A default kiln logging configuration.
#
# Copyright 2026 Nobody

log.appender.K1=org.kiln.log.ConsoleAppender
log.appender.K1.layout=org.kiln.log.PatternLayout
log.appender.K1.layout.ConversionPattern=%d{HH:mm:ss,SSS} %-5p [%c] - %m%n

# Tighten the glaze categories
log.category.Glaze.Core=WARN, K1
log.category.Glaze.Cache=WARN, K1
log.category.Glaze.Store=WARN, K1
log.category.Glaze.Query=WARN, K1
log.category.Glaze.Index=WARN, K1
log.category.Glaze.Plugin=WARN, K1
log.category.Glaze.Schema=WARN, K1
log.category.Glaze.Enhancer=WARN, K1
log.category.Glaze.Loader=WARN, K1
log.category.Glaze.Tool=WARN, K1
log.category.Glaze.Values=WARN, K1
log.category.Glaze.Meta=WARN, K1
log.category.Glaze.Utility=WARN, K1
"""


def test_a_properties_file_whose_values_hold_commas_is_settings():
    assert st.detect(PROPERTIES).kind == "assignments"
    answer = ask_scripted("What conversion pattern does appender K1 use in this logging config?", PROPERTIES)
    assert answer == ("%d{HH:mm:ss,SSS} %-5p [%c] - %m%n", "submitted")


POM = """<?xml version="1.0" encoding="UTF-8"?>
<project>
	<modelVersion>4.0.0</modelVersion>
	<groupId>org.kiln</groupId>
	<artifactId>kiln-parent</artifactId>
	<version>2.4.1</version>
	<properties>
		<javaVersion>8</javaVersion>
		<kilnVersion>3.9.12</kilnVersion>
		<glazeVersion>0.7.2</glazeVersion>
	</properties>
	<dependencyManagement>
		<dependencies>
			<dependency>
				<groupId>org.kiln</groupId>
				<artifactId>kiln-api</artifactId>
				<version>2.4.1</version>
			</dependency>
			<dependency>
				<groupId>org.kiln</groupId>
				<artifactId>kiln-core</artifactId>
				<version>2.4.1</version>
			</dependency>
			<dependency>
				<groupId>org.glaze</groupId>
				<artifactId>glaze-api</artifactId>
				<version>0.7.2</version>
			</dependency>
		</dependencies>
	</dependencyManagement>
</project>
"""


def test_a_name_said_in_two_words_and_written_joined_outside_the_records_is_read():
    answer = ask_scripted("What kiln version is set in the properties of this POM?", POM)
    assert answer == ("3.9.12", "extracted")  # an element's text: a read the fit has not vouched for


CHANGES = """
Revision 0.2.0, released 23-11-2025
-----------------------------------

- Glaze tables read whole
- Imports tidied

Revision 0.1.4, released 07-09-2025
-----------------------------------

- Typo fixed in the kiln spec

Revision 0.1.3, released 01-09-2025
-----------------------------------

- Kiln firing curves added
- Tests moved
"""


def test_the_one_change_of_a_dated_section_answers_what_the_change_was():
    assert ask_scripted("What was the only change in revision 0.1.4?", CHANGES) == (
        "Typo fixed in the kiln spec",
        "submitted",
    )


def test_a_value_of_one_bulleted_item_offers_the_item():
    read = Candidate("- Typo fixed in the kiln spec", "changelog", True, "the record matches")
    assert [(c.value, c.supported) for c in typed(str, [read])] == [
        ("Typo fixed in the kiln spec", True),
        ("- Typo fixed in the kiln spec", False),
    ]


NMAKE = """# Kiln examples, NMAKE

KILN_STATIC = yes
KILN_OBJS_DIR = build
KILN_EXAMPLES = \\
\t$(KILN_OBJS_DIR)\\fire1.exe \\
\t$(KILN_OBJS_DIR)\\fire2.exe \\
\t$(KILN_OBJS_DIR)\\glaze1.exe \\
\t$(KILN_OBJS_DIR)\\glaze2.exe \\
\t$(KILN_OBJS_DIR)\\cool1.exe \\

!IF "$(KILN_STATIC)" == "yes"
KILN_LIBS = kiln_a.lib glaze_a.lib
!ELSE
KILN_LIBS = kiln.lib glaze.lib
!ENDIF

CC = cl.exe
CFLAGS = /nologo /W1

all : $(KILN_OBJS_DIR) $(KILN_EXAMPLES)

clean:
\tif exist $(KILN_OBJS_DIR) rmdir /S /Q $(KILN_OBJS_DIR)
"""


def test_an_nmake_makefile_lists_its_example_programs():
    assert ask_scripted(
        "How many example programs does this makefile build (entries in KILN_EXAMPLES)?", NMAKE, "int"
    ) == (
        5,
        "submitted",
    )


PRESETS = """{
  "fast": {
    "label": "Fast",
    "complex_model": "kiln-pro",
    "model_configs": [{"model_name": "kiln-deep", "params": {"reasoning_effort": "low"}}],
    "mode": "every_request"
  },
  "wide": {
    "label": "Wide",
    "complex_model": "glaze-pro",
    "model_configs": [{"model_name": "kiln-deep", "params": {"reasoning_effort": "high"}}],
    "mode": "first_request"
  },
  "lite": {
    "label": "Lite",
    "complex_model": "kiln-mini",
    "model_configs": [{"model_name": "kiln-mini", "params": {"reasoning_effort": "max"}}],
    "mode": "every_request"
  }
}
"""


def test_an_identifier_asked_that_no_field_holds_doubts_a_field_read():
    question = "In the Lite preset, what reasoning_effort is set for the complex model?"
    # complex_model's kiln-mini was submitted (it names the model); now a guess: no read reaches its params
    assert ask_scripted(question, PRESETS) == ("kiln-pro", "extracted")


PINS = """
Revision 0.2.0, released 23-11-2025
-----------------------------------

- Glaze tables read whole

Revision 0.1.1, released 27-08-2025
-----------------------------------

- Tests refactored
- Pinned to glaze 0.3.3

Revision 0.1.0, released 04-08-2025
-----------------------------------

- Pinned to glaze 0.2.9
"""


def test_a_key_that_names_the_subject_of_the_question_is_no_reverse_answer():
    # the release of 27-08-2025 is 0.1.1: the record holding the key, where the glaze version asked is read
    answer = ask_scripted("Which glaze version did the kiln release of 27-08-2025 pin to?", PINS)
    assert answer == ("0.1.1", "extracted")  # a guess (it was Submitted); no read takes the version after "Pinned to"
    assert ask_scripted("Which revision was released on 27-08-2025?", PINS) == ("0.1.1", "submitted")


FONTS_MAKE = """# Kiln font makefile
SPECIALFONTS=S
GREEKFONTS=SS
TEXTFONTS=AB ABI AI AR \\
\tBMB BMBI BMI BMR \\
\tCB CBI CI CR

FONTS=$(TEXTFONTS) $(SPECIALFONTS) $(GREEKFONTS) EURO

all: $(FONTS)

$(TEXTFONTS): textmap
\tafmtodit $@

clean:
\t$(RM) $(FONTS)
"""


def test_the_part_the_question_writes_whole_is_counted_not_one_its_noun_names():
    assert ask_scripted("How many fonts are listed in the TEXTFONTS variable?", FONTS_MAKE, "int") == (12, "submitted")
