"""Shapes probes 35 and 36 read wrong, each made up here: a C header whose #defines sit around a struct's
block, grouped under short comments ("/* Error codes. */"); a grammar of ``NAME: rule`` lines under ``//``
comments; a lone digit said as a value ("has the value 6"); a rule said whole with its brackets and operators
("(CR? LF)+"); an HTML page that is no table (a generated API page). Each positive test fails before its
change; each guard fails without its check."""

from __future__ import annotations

from dspy_rlm.library import lookup
from dspy_rlm.library.htmlpage import looks_html_page, page_lines
from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted

_HEADER = """/*
 * Copyright (c) 1983, 1993
 *	The Regents of a made-up harbour.
 */
#ifndef _HARBOUR_H
#define	_HARBOUR_H 1

#define	BERTHSIZE	64		/* berths a quay holds */

/*
 * Signal kinds.
 */
#define	HAIL	01			/* hail a pilot */
#define	MOOR	02			/* moor request */
#define	CAST	03			/* cast off */
struct	quayhdr {
	short	q_kind;			/* signal kind */
	union {
		unsigned short	qu_berth;	/* berth # */
		short	qu_code;		/* fault code */
	} q_u;
	char	q_name[0];		/* quay name */
};
#define	q_berth	q_u.qu_berth
#define	q_code	q_u.qu_code

/*
 * Fault codes.
 */
#define	FNONE		0		/* no fault */
#define	FFOUL		1		/* fouled anchor */
#define	FDRIFT		2		/* drifting */
#define	FGROUND		3		/* run aground */
#define	FFIRE		4		/* fire on board */
#define	FSTORM		5		/* storm warning */
#endif /* harbour.h */
"""


def test_defines_around_a_struct_are_directives_under_their_comments():
    s = detect(_HEADER)
    assert (s.kind, s.detail) == ("keywords", "directives")
    fire = next(r for r in s.records if r.key == "FFIRE")
    assert (fire.get("value"), fire.get("section"), fire.get("comment")) == ("4", "Fault codes", "fire on board")
    assert next(r for r in s.records if r.key == "q_code").get("section") is None  # the struct ended "Signal kinds"


def test_a_lone_digit_said_as_a_value_is_a_key():
    assert ask_scripted("Which fault code has the value 3?", _HEADER) == ("FGROUND", "submitted")


def test_a_ranking_among_a_commented_group_keeps_to_it():
    assert ask_scripted("Among the fault codes, which one has the highest value?", _HEADER) == ("FSTORM", "submitted")


def test_braces_holding_the_data_are_not_collapsed():
    enum = "enum tide {\n" + "".join(f"\tT{i} = {i},\n" for i in range(12)) + "};\n#define TIDES 12\n#define T_MAX 11\n"
    assert detect(enum).kind != "keywords"  # the members inside the braces are the data


_GRAMMAR = """// A made-up grammar of harbour signals
// Shared terminals

//
// Digits
//
DIGIT: "0".."9"
INT: DIGIT+
_SIGN: "+"|"-"
SIGNED_INT: _SIGN? INT
BERTH: "B" INT
// a berth pair
PAIR: BERTH "-" BERTH
CR : /\\r/
LF : /\\n/
NEWLINE: (CR? LF)+
"""


def test_a_grammar_under_slash_comments_is_its_definitions():
    s = detect(_GRAMMAR)
    assert (s.kind, s.detail, len(s.records)) == ("assignments", "definitions", 9)


def test_a_rule_said_whole_with_its_signs_is_one_key():
    assert ask_scripted("Which terminal is defined as (CR? LF)+ ?", _GRAMMAR) == ("NEWLINE", "extracted")


_PAGE = """<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "x.dtd">
<html><head><title>Module quay</title><style type="text/css">
td { color: red }
</style></head><body><h1>The made-up harbour library</h1><h2>Module quay from harbour</h2>
<ul><li><a href="index.html">Main Menu</a></li><li><a href="api.html">API Menu</a></li></ul>
<p>the quay module keeps <b>berths</b> &amp; tides.</p>
<h3>Enum <a name="quayOption" id="quayOption">quayOption</a></h3><pre class="programlisting">Enum quayOption {
    <a name="QUAY_MOOR_BOW" id="QUAY_MOOR_BOW">QUAY_MOOR_BOW</a> = 1
    <a name="QUAY_MOOR_STERN" id="QUAY_MOOR_STERN">QUAY_MOOR_STERN</a> = 2
    <a name="QUAY_CAST_OFF" id="QUAY_CAST_OFF">QUAY_CAST_OFF</a> = 3
    <a name="QUAY_HAIL_PILOT" id="QUAY_HAIL_PILOT">QUAY_HAIL_PILOT</a> = 4
}
</pre><h3><a name="quayCheck"></a>Function: quayCheck</h3><pre>int	quayCheck	(<a href="#p">quayPtr</a> q)
</pre><p>Check if the berth is free</p>
<h3><a name="quayFree"></a>Function: quayFree</h3><pre>void	quayFree	(<a href="#p">quayPtr</a> q)
</pre><p>Free a quay</p>
</body></html>
"""


def test_an_html_page_reads_as_the_markdown_a_browser_shows():
    assert looks_html_page(_PAGE)
    shown, at = page_lines(_PAGE)
    assert "## Module quay from harbour" in shown.split("\n")
    assert "the quay module keeps berths & tides." in shown.split("\n")
    assert "    QUAY_CAST_OFF = 3" in shown.split("\n")  # a listing keeps its spaces
    assert "td { color" not in shown  # the style is dropped
    assert at == sorted(at) and at[shown.split("\n").index("    QUAY_CAST_OFF = 3")] == 11  # the page's line


def test_a_record_of_an_html_page_is_found_on_its_line():
    assert lookup.field_of(_PAGE, "QUAY_CAST_OFF", "QUAY_CAST_OFF") == "3"
    assert "QUAY_HAIL_PILOT" in str(lookup.record_of(_PAGE, "QUAY_HAIL_PILOT"))
    assert ask_scripted("What value does QUAY_MOOR_STERN have in the quay docs?", _PAGE, "int")[0] == 2


def test_a_few_tags_in_text_make_no_page():
    text = "Notes on <b>berths</b>\n" + "plain line\n" * 40
    assert not looks_html_page(text)


def test_hash_comments_above_directives_are_notes_not_headings():
    rc = "".join(f"# Set the {w} metric\ndmetric {w} e.user\n" for w in ("cpu", "io", "heap", "lock", "wait", "net"))
    s = detect(rc + "# Set View mode to user\nviewmode user\n")
    assert (s.kind, s.detail) == ("keywords", "directives") and "section" not in s.field_names
    assert (
        ask_scripted("What view mode does the rc file set?", rc + "# Set View mode to user\nviewmode user\n")[0]
        == "user"
    )


def test_keysyms_in_angle_brackets_make_no_page():
    compose = "".join(
        f'<Multi_key> <p> <{k}>\t: "{k}"\tU00{i:02d} # SIGN {k.upper()}\n'
        for i, k in enumerate("abcdefghijklmnopqrstuv")
    )
    assert not looks_html_page("<p>\n" + compose)
