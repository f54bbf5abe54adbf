"""Shapes from probe 51's first run, on invented data: a count of the records whose field is a value misses those
listing it among other parts (a JSON list of flags; not a sentence naming it among others: "one of: chat,
rerank"); a word is no misspelt field name where its first letter differs ("gschema" is no ``schema``); "how many
<field> declarations" counts the records having that field, a loose word before the document noun ("the kiln
*locale* file") tests no value, nor is the count one of every record; a word in capitals some records hold whole
as written (a manual page's section ``NAME``) keys those records, however many hold it in other cases, and
``record_of`` finds them before a key holding the word in another case ("-n name"); "which year saw the most
releases" ranks the years of the dates. Each test fails on the code before its change."""

from __future__ import annotations

import json

from tests.dspy_rlm.scripted import ask_scripted

FLAGS = json.dumps(
    [
        {"name": "Zs", "switch": "Zs", "comment": "Syntax only", "value": "true", "flags": []},
        {"name": "Zi", "switch": "Zi", "comment": "Debug info", "value": "true", "flags": []},
        {"name": "Fo", "switch": "Fo", "comment": "Object file", "value": "", "flags": ["Solid"]},
        {"name": "Fl", "switch": "Fl", "comment": "Listing file", "value": "", "flags": ["Solid"]},
        {"name": "D", "switch": "D", "comment": "Defines", "value": "", "flags": ["Solid", "Glossy"]},
        {"name": "I", "switch": "I", "comment": "Include paths", "value": "", "flags": ["Solid", "Glossy"]},
        {"name": "FR", "switch": "FR", "comment": "Browse file", "value": "", "flags": ["Solid", "Glossy"]},
        {"name": "W0", "switch": "W0", "comment": "Warning level 0", "value": "0", "flags": []},
        {"name": "W1", "switch": "W1", "comment": "Warning level 1", "value": "1", "flags": []},
        {"name": "W2", "switch": "W2", "comment": "Warning level 2", "value": "2", "flags": []},
        {"name": "W3", "switch": "W3", "comment": "Warning level 3", "value": "3", "flags": []},
        {"name": "Gd", "switch": "Gd", "comment": "Use C calls", "value": "1", "flags": []},
    ],
    indent=2,
)


def test_a_count_of_a_listed_flag_counts_the_lists_holding_it_among_others():
    # "How many entries in v12_MASM.json carry the UserValue flag?": 2 whose flags are just UserValue, of 5
    assert ask_scripted("How many entries in the kiln flag table carry the Solid flag?", FLAGS, "int") == (
        5,
        "submitted",
    )


MODES = json.dumps(
    {
        "sample_spec": {"mode": "one of: chat, embedding, rerank, search", "max_tokens": "the most tokens"},
        "fire-1": {"mode": "chat", "max_tokens": 4096},
        "fire-2": {"mode": "rerank", "max_tokens": 512},
        "fire-3": {"mode": "chat", "max_tokens": 8192},
        "glaze-1": {"mode": "rerank", "max_tokens": 512},
        "glaze-2": {"mode": "embedding", "max_tokens": 1024},
        "glaze-3": {"mode": "rerank", "max_tokens": 256},
        "kiln-1": {"mode": "search", "max_tokens": 128},
    },
    indent=4,
)


def test_a_sentence_naming_a_value_among_others_is_no_list_of_it():
    # litellm's sample_spec: "one of: chat, embedding, ..., rerank, search" is no model listing rerank
    q = 'How many models in the kiln price table have mode set to "rerank"?'
    assert ask_scripted(q, MODES, "int") == (3, "submitted")


GSCHEMA = """<?xml version="1.0" encoding="UTF-8"?>
<schemalist gettext-domain="kiln">
  <schema id="org.kiln.fire" path="/org/kiln/fire/">
    <key name="mode" enum="org.kiln.FireMode">
      <default>'none'</default>
      <summary>Firing mode</summary>
      <description>How the kiln is fired: none, manual or auto.</description>
    </key>
    <key name="cone-url" type="s">
      <default>''</default>
      <summary>Cone lookup URL</summary>
      <description>URL that gives the cone chart when mode is auto.</description>
    </key>
    <key name="ignore-shelves" type="as">
      <default>[ 'top', 'bottom' ]</default>
      <summary>Shelves left cold</summary>
      <description>Shelves the kiln does not heat.</description>
    </key>
    <key name="use-fan" type="b">
      <default>false</default>
      <summary>Fan on</summary>
      <description>Whether the fan runs while firing.</description>
    </key>
  </schema>
  <schema id="org.kiln.fire.gas" path="/org/kiln/fire/gas/">
    <key name="pressure" type="i">
      <default>8</default>
      <summary>Gas pressure</summary>
      <description>The gas pressure in millibar.</description>
    </key>
    <key name="valve" type="s">
      <default>'main'</default>
      <summary>Gas valve</summary>
      <description>The valve opened first.</description>
    </key>
  </schema>
</schemalist>
"""


def test_a_word_whose_first_letter_differs_is_no_misspelt_field_name():
    # "What's the summary line for the autoconfig-url key in the GNOME proxy gschema?": the schema's id
    assert ask_scripted("What's the summary line for the cone-url key in the kiln fire gschema?", GSCHEMA) == (
        "Cone lookup URL",
        "submitted",
    )


LOCALE = (
    """comment_char %
escape_char /

% Kiln locale for testing, invented
% Source: nowhere

LC_IDENTIFICATION
title      "Kiln locale for Kilnland"
source     "Kiln Works"
address    "1 Clay Road, Kilnton"
email      "locales@kiln.example"
language   "Kiln"
territory  "Kilnland"
revision   "1.0"
date       "2026-01-01"
category "i18n:2012";LC_IDENTIFICATION
category "i18n:2012";LC_COLLATE
END LC_IDENTIFICATION

LC_COLLATE
copy "iso14651_t1"

% the letters of Kiln after their Latin neighbours
"""
    + "".join(f"collating-symbol <{c}-ring>\n" for c in "aeiouyz")
    + "".join(
        f"reorder-after <U00{61 + i:02X}>\n<U01{i:02X}> <{c}-ring>;<BASE>;<MIN>;IGNORE\n" for i, c in enumerate("aeiou")
    )
    + """reorder-end
END LC_COLLATE

LC_NUMERIC
decimal_point ","
thousands_sep "<U00A0>"
grouping 3;3
END LC_NUMERIC
"""
)


def test_a_field_counted_by_its_name_counts_the_records_having_it():
    # "How many collating-symbol declarations does glibc's pl_PL locale file contain?": "locale" tested in titles
    assert ask_scripted("How many collating-symbol declarations does the Kiln locale file contain?", LOCALE, "int") == (
        7,
        "submitted",
    )


MANUAL = r""".\" Invented manual page
.TH "KILNCTL" "1" "2026" "Kiln 3.1.0" "Kiln Commands"
.SH NAME
kilnctl \- fire and cool the kiln from the command line
.SH SYNOPSIS
\f[CR]kilnctl\f[R] [\f[I]options\f[R]] \f[I]name\f[R]
.SH DESCRIPTION
The \f[CR]kilnctl\f[R] command fires the kiln by name.
The name of a kiln is set in its configuration file.
.SH OPTIONS
.TP
\f[CR]\-n\f[R] \f[I]name\f[R]
The name of the kiln to fire.
.TP
\f[CR]\-c\f[R]
Cool the kiln named instead of firing it.
.TP
\f[CR]\-q\f[R]
Print no name of the kilns fired.
.TP
\f[CR]\-v\f[R]
Print the name and state of each kiln.
.SH FILES
.TP
\f[I]/etc/kiln.conf\f[R]
The names of the kilns and their cones.
.SH EXAMPLES
Fire the kiln by its name:
.IP
.EX
kilnctl \-n big
.EE
.SH SEE ALSO
kiln(5)
"""


def test_a_value_in_capitals_keys_the_records_holding_it_whole_as_written():
    # "What one-line description does the NAME section of jps.1 give?": "name" held by 12 records, no key
    assert ask_scripted("What one-line description does the NAME section of kilnctl.1 give?", MANUAL) == (
        "fire and cool the kiln from the command line",
        "submitted",
    )


CHANGELOG = """v3.1.0 (2026-02-01)
===================

- Add ``kilnpy.cones.lookup()``.

- Fix the cooling curve.


v3.0.0 (2025-06-12)
===================

- Drop Python 3.8.


v2.2.0 (2023-11-30)
===================

- Add the gas kiln.


v2.1.0 (2023-05-02)
===================

- Add shelves.


v2.0.0 (2023-01-20)
===================

- New firing schedule format.


v1.1.0 (2022-08-08)
===================

- Add glazes.


v1.0.0 (2022-02-14)
===================

- First stable release.
"""


def test_which_year_saw_the_most_releases_ranks_the_years_of_the_dates():
    # "Which year saw the most cachetools releases according to the CHANGELOG.rst?": no cue word said a ranking
    assert ask_scripted(
        "Which year saw the most kilnpy releases according to its CHANGELOG.rst?", CHANGELOG, "int"
    ) == (
        2023,
        "submitted",
    )
