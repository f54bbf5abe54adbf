"""Shapes met while probing for the nineteenth time, on made-up files: a page's prose around its table is no
record of it (a count of every record counts the rows); a CSV whose rows leave their empty last cells out; an
order the question states ("right after") that no read applies; one pipe table that is most of a page, its links
read as their text; a Dockerfile's instructions; a list under comment headings (.gitignore); a batch file's
``set NAME=value``, and a name said in words cut short ("build directory": BUILDDIR)."""

from __future__ import annotations

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.spellings import spelled_by
from tests.dspy_rlm.scripted import ask_scripted as _ask
from tests.dspy_rlm.test_probe18_shapes import GRID


def test_a_count_of_every_record_skips_the_prose_around_a_table():
    s = st.detect(GRID)
    assert len(s.records) > 4  # the page's heading and sentences are records of no fields
    assert lookup.count_records(GRID) == 4
    assert _ask("How many rows are in the table?", GRID, "int") == (4, "submitted")
    # the words naming the table ("the renames table") state no condition of the count
    assert _ask("How many entries does the module renames table have?", GRID, "int") == (4, "submitted")
    settings = "A = 1\nB = 2\nexport A B\nC = 3\n"  # a line no assignment is no setting
    assert lookup.count_records(settings) == 3
    prose = "One line.\nAnother line.\n"  # no record has a key or fields: the lines are what there is
    assert lookup.count_records(prose) == len(st.detect(prose).records)


RELEASES = (
    "version,codename,series,created,release,eol,eol-server,eol-esm\n"
    "4.10,Warty Warthog,warty,2004-03-05,2004-10-20,2006-04-30\n"
    "6.06 LTS,Dapper Drake,dapper,2005-10-12,2006-06-01,2009-07-14,2011-06-01\n"
    "6.10,Edgy Eft,edgy,2006-06-01,2006-10-26,2008-04-25\n"
    "8.04 LTS,Hardy Heron,hardy,2007-10-18,2008-04-24,2011-05-12,2013-05-09\n"
    "8.10,Intrepid Ibex,intrepid,2008-04-24,2008-10-30,2010-04-30\n"
    "12.04 LTS,Precise Pangolin,precise,2011-10-13,2012-04-26,2017-04-28,2017-04-28,2019-04-26\n"
)


def test_a_csv_whose_rows_leave_their_empty_last_cells_out_is_a_table():
    s = st.detect(RELEASES)
    assert (s.kind, s.detail, len(s.records)) == ("table", "csv", 6)
    assert s.records[-1].get("eol-esm") == "2019-04-26" and s.records[0].get("eol-server") is None
    assert _ask("Which version went by the name Edgy Eft?", RELEASES) == ("6.10", "submitted")
    # prose with commas, or rows wider than the first line: no ragged table
    assert st.detect("Hello, world, again\nOne, two\nThree, four, five, six\n" * 3).kind != "table"


def test_an_order_no_read_applies_vouches_for_no_record():
    full = "version,codename,release\n4.10,Warty Warthog,2004-10-20\n5.04,Hoary Hedgehog,2005-04-08\n"
    full += "5.10,Breezy Badger,2005-10-12\n6.06,Dapper Drake,2006-06-01\n6.10,Edgy Eft,2006-10-26\n"
    assert _ask("Which release date does Dapper Drake have?", full) == ("2006-06-01", "submitted")
    # the release right after it is another record: Dapper's own date is no answer, nor any value it holds
    _answer, kind = _ask("What was the codename of the release that came right after Dapper Drake?", full)
    assert kind != "submitted"


NODE_DOCS = (
    "# About this documentation\n\nSome prose about the docs.\n\n## Stability overview\n\n"
    "| API | Stability |\n| --- | --------- |\n"
    "| [Assert](assert.html) | Stable |\n| [Async hooks](async_hooks.html) | Experimental |\n"
    "| [Buffer](buffer.html) | Stable |\n| [Domain](domain.html) | Deprecated |\n"
    "| [`node:module` API](module.html) | Release candidate |\n| [Punycode](punycode.html) | Deprecated |\n"
    "| [Stream](stream.html) | Stable |\n\n## JSON output\n\nEvery page is also JSON.\n"
)


def test_one_pipe_table_that_is_most_of_a_page_reads_as_its_rows_links_as_their_text():
    s = st.detect(NODE_DOCS)
    rows = [r for r in s.records if r.fields and r.key]
    assert s.kind == "markdown_table" and [r.key for r in rows][:2] == ["Assert", "Async hooks"]
    assert rows[4].key == "node:module API"
    assert _ask("Which API is marked release candidate?", NODE_DOCS) == ("node:module API", "submitted")
    assert _ask("What is the most common stability?", NODE_DOCS) == ("Stable", "submitted")
    # a table of four rows in a long page: the page is prose
    page = "\n".join(f"Sentence {i} of the page says something." for i in range(40))
    assert st.detect(page + "\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n").kind != "markdown_table"


DOCKERFILE = (
    '# Built by hand\nFROM ruby:3.2\nARG BUNDLER_VERSION="2.4"\n'
    "RUN apt-get update \\\n    && apt-get install -y nodejs \\\n    && apt-get clean\n"
    "ENV RACK_ENV=production \\\n    RAILS_ENV=production \\\n    PORT=8080\n"
    'COPY . /app/\nRUN bundle install --without="development test"\nEXPOSE 8080\nCMD ["rails", "server"]\n'
)


def test_a_dockerfiles_instructions_are_records_with_their_pairs():
    s = st.detect(DOCKERFILE)
    assert (s.kind, s.detail) == ("keywords", "instructions")
    assert [r.key for r in s.records] == ["FROM", "ARG", "RUN", "ENV", "COPY", "RUN", "EXPOSE", "CMD"]
    assert s.records[2].get("arguments") == "apt-get update && apt-get install -y nodejs && apt-get clean"
    assert s.records[3].get("PORT") == "8080" and s.records[1].get("BUNDLER_VERSION") == "2.4"
    assert _ask("Which instruction is used most often?", DOCKERFILE) == ("RUN", "submitted")
    assert _ask("What is PORT set to?", DOCKERFILE) == ("8080", "submitted")
    # a value of the data before the counted noun is a condition, not every record
    assert _ask("How many RUN instructions are there?", DOCKERFILE, "int") == (2, "submitted")


IGNORE = (
    "# Created by a generator\n\nworking/*\n\n### Editors ###\n# Covers several IDEs\n\n# User-specific stuff:\n"
    ".idea\n*.iws\n\n# Distribution / packaging\nbuild/\ndist/\n*.egg-info/\nwheels/\n\n"
    "# PyInstaller\n#  written by a script before PyInstaller builds the exe\n*.manifest\n*.spec\n\n"
    "# Translations\n*.mo\n*.pot\n"
)


def test_a_list_under_comment_headings_reads_each_entry_with_its_section():
    s = st.detect(IGNORE)
    assert (s.kind, s.detail) == ("markdown_list", "commented sections")
    by_key = {r.key: r.get("section") for r in s.records}
    assert by_key["working/*"] is None and by_key[".idea"] == "User-specific stuff"
    assert by_key["*.spec"] == "PyInstaller" and by_key["*.mo"] == "Translations"
    assert lookup.count_records(IGNORE, "Translations") == 2  # the heading above holds its entries too
    assert _ask("How many entries are listed under the Distribution / packaging heading?", IGNORE, "int") == (
        4,
        "submitted",
    )
    assert _ask("Which commented section lists the most patterns?", IGNORE) == ("Distribution / packaging", "submitted")
    assert _ask("Is *.mo ignored?", IGNORE, "bool") == (True, "submitted")
    # blocks under comments (valgrind's suppressions: a lone brace opens each) are no list
    blocks = "".join(f"# rule {i}\n{{\n   name-{i}\n   Memcheck:Cond\n   fun:f{i}\n}}\n" for i in range(4))
    assert st.detect(blocks).detail != "commented sections"


MAKE_BAT = (
    "@ECHO OFF\r\n\r\nREM Command file for Sphinx documentation\r\n\r\n"
    'if "%SPHINXBUILD%" == "" (\r\n\tset SPHINXBUILD=sphinx-build\r\n)\r\n'
    "set BUILDDIR=_build\r\nset ALLSPHINXOPTS=-d %BUILDDIR%/doctrees %SPHINXOPTS% .\r\n\r\n"
    'if "%1" == "help" (\r\n\t:help\r\n\techo.Please use `make ^<target^>` where ^<target^> is one of\r\n'
    "\techo.  html       to make standalone HTML files\r\n\techo.  json       to make JSON files\r\n"
    "\tgoto end\r\n)\r\n\r\n"
    'if "%1" == "html" (\r\n\t%SPHINXBUILD% -b html %ALLSPHINXOPTS% %BUILDDIR%/html\r\n'
    "\techo.Build finished. The HTML pages are in %BUILDDIR%/html.\r\n\tgoto end\r\n)\r\n\r\n:end\r\n"
)


def test_a_name_said_in_words_cut_short_names_a_setting():
    s = st.detect(MAKE_BAT)
    assert "BUILDDIR" in s.field_names  # a batch file's "set NAME=value" is an assignment, as "export" is
    assert spelled_by("BUILDDIR", ["the", "build", "directory"]) and spelled_by("RAILS_ENV", ["rails", "environment"])
    assert not spelled_by("BUILDDIR", ["build", "d"]) and not spelled_by("BD", ["build", "directory"])
    assert _ask("What is the default build directory?", MAKE_BAT) == ("_build", "submitted")
