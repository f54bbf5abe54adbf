"""Shapes the eighteenth probe met, on made-up files: a camel-case field said but for its last word ("release
manager": releaseManagerName); XML translations and lists inside records; a value that is a record's own
setting, one of several values of a field, a count of a record named like a value, a ranking of one record,
words that describe (no evidence of "no"); settings at an index; "how wide"; RST grid tables; Makefile rules."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from dspy_rlm.profiles.reads import ranked_names
from tests.dspy_rlm.scripted import ask_scripted as _ask

POM = (
    '<?xml version="1.0"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
    "  <groupId>org.example</groupId>\n  <artifactId>kite</artifactId>\n  <version>1.4.0</version>\n"
    "  <properties>\n    <kite.releaseManagerName>Dana Smith</kite.releaseManagerName>\n"
    "    <kite.release.version>1.4.0</kite.release.version>\n"
    "    <kite.jira.id>KITE</kite.jira.id>\n    <java.version>17</java.version>\n  </properties>\n</project>\n"
)


def _stems(question: str) -> set[str]:
    return {st.stem(w) for w in st.words(question.casefold())}


def test_a_camel_field_is_said_but_for_its_last_word_where_one_field_is():
    q = _stems("who is the release manager of the pom")
    assert ranked_names(q, ["kite.releaseManagerName", "kite.release.version"])[0] == "kite.releaseManagerName"
    # two fields said alike (a manager's name and key): the question names neither
    assert ranked_names(q, ["kite.releaseManagerName", "kite.releaseManagerKey"]) == []
    assert ranked_names(_stems("what is the full name"), ["FullName"]) == ["FullName"]  # said whole, as before
    assert _ask("Who is the release manager listed in the pom properties?", POM) == ("Dana Smith", "submitted")
    two = POM.replace("<kite.jira.id>", "<kite.releaseManagerKey>86FD</kite.releaseManagerKey>\n    <kite.jira.id>")
    answer, kind = _ask("Who is the release manager listed in the pom properties?", two)
    assert (answer, kind) != ("86FD", "submitted")


METAINFO = (
    '<?xml version="1.0" encoding="utf-8"?>\n<component type="console-application">\n  <id>org.example.kite</id>\n'
    "  <name>Kite</name>\n"
    + "".join(f'  <name xml:lang="{lang}">Kite {lang}</name>\n' for lang in ("de", "fr", "es", "it", "nl", "pt"))
    + "  <description>\n    <p>Flies programs.</p>\n"
    + "".join(f'    <p xml:lang="{lang}">Programme {lang}.</p>\n' for lang in ("de", "fr", "es", "it", "nl", "pt"))
    + "  </description>\n  <releases>\n"
    + "".join(
        f'    <release type="stable" version="{v}" date="{d}">\n      <description>\n        <p>Changes:</p>\n'
        f"        <ul>\n          <li>Fix <code>{v}</code> thing</li>\n          <li>Other</li>\n        </ul>\n"
        "      </description>\n    </release>\n"
        for v, d in (("1.2.0", "2024-03-01"), ("1.1.0", "2023-11-20"), ("1.0.1", "2023-06-02"), ("1.0.0", "2023-01-15"))
    )
    + "  </releases>\n</component>\n"
)


def test_xml_translations_and_lists_inside_records_are_no_records():
    s = st.detect(METAINFO)
    assert [r.key for r in s.records] == ["1.2.0", "1.1.0", "1.0.1", "1.0.0"]  # keyed by version, not type
    assert s.records[1].get("date") == "2023-11-20"
    assert _ask("When did version 1.0.1 come out?", METAINFO) == ("2023-06-02", "submitted")
    assert _ask("Which is the oldest release in this metainfo file?", METAINFO) == ("1.0.0", "submitted")


PYPROJECT = (
    '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n'
    '[project]\nname = "kite"\ndescription = "Fly programs"\nrequires-python = ">=3.9"\n\n'
    "[project.scripts]\n"
    'kite-go = "kite.cli:go"\nkite-check = "kite.cli:check"\nkite-serve = "kite.server:main"\n\n'
    '[tool.black]\nline-length = 100\ntarget-version = ["py39"]\n'
)
METADATA = (
    "Metadata-Version: 2.1\nName: kite\nVersion: 1.0\nSummary: Fly programs\n"
    "Provides-Extra: docs\nProvides-Extra: ssh\nProvides-Extra: test\n"
    'Requires-Dist: sphinx ; extra == "docs"\nRequires-Dist: bcrypt>=3.1 ; extra == "ssh"\n'
    'Requires-Dist: pytest>=6 ; extra == "test"\n\nKite flies programs.\n'
)
COPYRIGHT = (
    "Format: https://example.org/copyright-format/1.0/\nUpstream-Name: kite\n\n"
    + "".join(f"Files: m4/{n}.m4\nCopyright: 2010 Someone\nLicense: FSFULLR\n\n" for n in ("a", "b", "c"))
    + "Files: *\nCopyright: 2020 Kite\nLicense: GPL-3+\n\n"
    + "License: FSFULLR\n This file is free software;\n you may copy it\n with or without changes\n .\n so long\n"
)
CSS = (
    "/* -- main layout -- */\n\nbody {\n    margin: 0;\n    padding: 0 0 0 1em;\n}\n\n"
    "div.side {\n    float: left;\n    width: 230px;\n    margin-left: -100%;\n}\n\n"
    "div.body {\n    min-width: 360px;\n    max-width: 800px;\n}\n\n"
    "a.headerlink {\n    visibility: hidden;\n}\n\n"
    "@media print {\n    div.side {\n        display: none;\n    }\n}\n"
)


def test_a_value_that_is_a_records_own_setting_is_no_sure_reverse_answer():
    # the table project.scripts holds the value as its own setting kite-serve: "which command" asks that name
    answer, kind = _ask("Which console command runs kite.server:main?", PYPROJECT)
    assert (answer, kind) != ("scripts", "submitted") and (answer, kind) != ("project.scripts", "submitted")
    # a field the question names stays a sure reverse lookup (its record is asked)
    assert _ask("Which table sets line-length = 100?", PYPROJECT)[1] == "submitted"


def test_one_of_several_values_of_a_field_is_no_answer():
    answer, kind = _ask("Which extra would pull in bcrypt?", METADATA)
    assert (answer, kind) != ("docs", "submitted")
    assert _ask("What is the summary of kite?", METADATA) == ("Fly programs", "submitted")  # a field said once
    # one record ranked alone: its key is no answer to which of several is largest
    answer, kind = _ask("Which extra has the longest list of requirements?", METADATA)
    assert (answer, kind) != ("kite", "submitted")


def test_a_count_of_a_records_items_is_unsure_where_its_name_is_a_value_of_others():
    answer, kind = _ask("How many Files entries are under the FSFULLR license?", COPYRIGHT, "int")
    assert kind != "submitted" or answer == 3
    # "the most Files entries": the records having Files are counted, by the license asked
    assert _ask("Which license is given to the most Files entries?", COPYRIGHT) == ("FSFULLR", "submitted")


def test_absent_words_that_describe_are_no_evidence_of_no():
    from dspy_rlm.profiles.spans import subject_span

    q = "Does the stylesheet have print-specific rules?"
    assert q[slice(*subject_span(q))] == "stylesheet have"
    assert subject_span("Is kite listed?") is None
    # the verb is no key either: "define" is absent, 'const' is what is asked about
    answer, kind = _ask("Does this stylesheet define a 'headerlink' class?", CSS, "bool")
    assert (answer, kind) != (False, "submitted")
    answer, kind = _ask(q, CSS, "bool")
    assert (answer, kind) != (False, "submitted")
    answer, kind = _ask("In the top-level block, is display set to none?", CSS, "bool")
    assert (answer, kind) != (False, "submitted")
    # an identifier absent is still a sure "no"
    assert _ask("Does the stylesheet style div.footer-x?", CSS, "bool") == (False, "submitted")


INDEXED = (
    "# settings for each service\n# user[name] = value  (an example)\n"
    "skel = /etc/skel\nmode = 0755\n\n"
    'service = web\nuser[web] = www\nlinkname[web] = "public_html"\nsubdir[web] = "doc/web"\n\n'
    'service = ftp\nuser[ftp] = ftp\nlinkname[ftp] = "public_ftp"\nsubdir[ftp] = "doc/ftp"\n\n'
    'service = mail\nuser[mail] = mail\nsubdir[mail] = "doc/restricted"\n'
)


def test_settings_at_an_index_are_one_record_per_index():
    s = st.detect(INDEXED)
    assert [r.key for r in s.records] == ["skel", "mode", "web", "ftp", "mail"]
    assert s.records[3].fields == (
        ("service", "ftp"),
        ("user", "ftp"),
        ("linkname", "public_ftp"),
        ("subdir", "doc/ftp"),
    )
    assert _ask("What link name is used for the ftp service?", INDEXED) == ("public_ftp", "submitted")  # linkname
    assert _ask("Which service keeps its directory under doc/restricted?", INDEXED) == ("mail", "submitted")
    from dspy_rlm.library.lookup import count_if

    assert count_if(INDEXED, "service", "present") == 3


def test_how_wide_asks_for_a_width():
    assert _ask("How wide is the side panel (div.side) in this stylesheet?", CSS) == ("230px", "submitted")


GRID = (
    "Kite\n====\n\nKite flies programs. Some modules moved:\n\n"
    "+-----------------+-----------------------+---------------------------+\n"
    "| Name            | Old name              | New name                  |\n"
    "+=================+=======================+===========================+\n"
    "| ``web_server``  | :mod:`old:WebServer`  | :mod:`new:web.server`     |\n"
    "+-----------------+-----------------------+---------------------------+\n"
    "| ``cgi_server``  | :mod:`old:CgiServer`  | :mod:`new:web.server`     |\n"
    "+-----------------+-----------------------+---------------------------+\n"
    "| ``cookies``     | :mod:`old:cookielib`  | :mod:`new:web.cookies`    |\n"
    "+-----------------+-----------------------+---------------------------+\n"
    "| ``long_name``   | :func:`old:a.very`    | :class:`new:b.quite`      |\n"
    "|                 | long.name             | long.one (3.3+)           |\n"
    "+-----------------+-----------------------+---------------------------+\n\n"
    "See :ref:`the guide <guide>` for more.\n"
)


def test_an_rst_grid_table_reads_as_its_rows():
    s = st.detect(GRID)
    rows = [r for r in s.records if r.fields]
    assert s.detail == "rst grid" and [r.key for r in rows] == ["web_server", "cgi_server", "cookies", "long_name"]
    assert rows[3].get("Old name") == "a.very long.name" and rows[3].get("New name") == "b.quite long.one (3.3+)"
    assert _ask("In the table, what old name sits behind cookies?", GRID) == ("cookielib", "submitted")
    assert _ask("Which name corresponds to the old CgiServer?", GRID) == ("cgi_server", "submitted")
    assert _ask("Which new name is the target of the most entries?", GRID) == ("web.server", "submitted")


MAKEFILE = (
    "PACKAGE = kite\nVERSION = 1.4\nSHELL = /bin/sh\n\n.SUFFIXES:\n.SUFFIXES: .po .gmo .sed\n\n"
    "all: all-yes\n\nall-yes: stamp-po\n\ttouch stamp-po\n\n"
    "mostlyclean:\n\trm -f core *.o\n\nclean: mostlyclean\n\n"
    "distclean: clean\n\trm -f Makefile POTFILES\n\n"
    "maintainer-clean: distclean\n\t@echo cleaning more\n\trm -f $(PACKAGE).pot\n"
)


def test_a_makefiles_rules_are_records_of_prerequisites_and_recipe():
    s = st.detect(MAKEFILE)
    rules = {r.key: dict(r.fields) for r in s.records if r.key not in ("PACKAGE", "VERSION", "SHELL")}
    assert rules["distclean"] == {"prerequisites": "clean", "recipe": "rm -f Makefile POTFILES"}
    assert rules["maintainer-clean"]["recipe"] == "@echo cleaning more\nrm -f $(PACKAGE).pot"
    assert rules["mostlyclean"] == {"recipe": "rm -f core *.o"}
    assert s.records[0].fields == (("PACKAGE", "kite"),)  # the variables as before
    assert _ask("What does the distclean target depend on?", MAKEFILE) == ("clean", "submitted")
    assert _ask("What is VERSION set to in this Makefile?", MAKEFILE) == ("1.4", "submitted")
    # two rules of one name, the first empty: the one that lists something is read
    assert _ask("How many file suffixes are registered on the .SUFFIXES line?", MAKEFILE, "int") == (3, "submitted")


def test_a_word_key_beside_a_records_key_vouches_for_nothing():
    inner = "".join(f"div.side {tag} {{\n    margin: 0;\n}}\n\n" for tag in ("ul", "form", "input", "h3"))
    css = CSS + "\n" + inner + "div.sidebar,\naside.sidebar {\n    width: 40%;\n}\n"  # div.side in many records
    from dspy_rlm.profiles.kinds import evaluate
    from dspy_rlm.profiles.moves import MoveBook

    q = "How wide is the sidebar (div.side) in this stylesheet?"
    book = MoveBook({"question": q}, {"context": css}, {"answer": str})
    found = [c for m in book.read_moves() if m.kind == "field" for c in evaluate(book, m, "")]
    assert [c.value for c in found if c.supported] == ["230px"]  # not the 40% of div.sidebar-box


def test_a_count_of_records_having_a_field_is_unsure_without_that_test():
    from dspy_rlm.profiles.kinds import evaluate
    from dspy_rlm.profiles.moves import MoveBook

    q = "How many Files entries are under the FSFULLR license?"
    book = MoveBook({"question": q}, {"context": COPYRIGHT}, {"answer": int})
    counts = [m for m in book.read_moves() if m.kind.startswith("count")]
    found = [c for m in counts for c in evaluate(book, m, "") if c.supported]
    assert counts and not [c for c in found if c.value != "3"]  # 4: the License paragraph keyed FSFULLR too


def test_one_of_several_values_read_with_the_record_is_no_answer():
    from dspy_rlm.profiles.kinds import evaluate
    from dspy_rlm.profiles.moves import MoveBook

    book = MoveBook({"question": "Which extra would pull in bcrypt?"}, {"context": METADATA}, {"answer": str})
    found = [c for m in book.read_moves() if m.kind == "record" for c in evaluate(book, m, "")]
    assert not [c for c in found if c.supported and c.value in ("docs", "ssh", "test")]
