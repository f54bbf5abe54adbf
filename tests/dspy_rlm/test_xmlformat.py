"""XML documents as records (dspy_rlm.library.xmlformat behind structure.detect): attribute records, child-element
records, namespaces, a prolog of comments and a DOCTYPE, and the texts that must not read as xml (an entity
declaration, malformed XML, an HTML page), with the lookup helpers over the records."""

import time

from dspy_rlm.library.helpers import make_helpers, standalone_source
from dspy_rlm.library.structure import detect
from dspy_rlm.library.xmlformat import looks_xml, parse_xml

H = make_helpers()

SYSCALLS = """<?xml version="1.0"?>
<!DOCTYPE syscalls_info SYSTEM "syscalls.dtd">
<!-- A comment header
     over two lines. -->
<syscalls_info>
  <syscall name="read" number="0" groups="descriptor"/>
  <syscall name="write" number="1" groups="descriptor"/>
  <syscall name="open" number="2" groups="descriptor,file"/>
  <syscall name="mmap" number="9" groups="descriptor,memory"/>
  <syscall name="prctl" number="157"/>
  <syscall name="brk" number="12" groups="memory"/>
</syscalls_info>
"""

BOOKS = """<catalog>
  <book lang="en">
    <title>Dune</title>
    <author>Frank Herbert</author>
    <year>1965</year>
  </book>
  <book lang="fr">
    <title>Vendredi</title>
    <author>Michel Tournier</author>
    <year>1967</year>
  </book>
  <book>
    <title>Good Omens</title>
    <author>Terry Pratchett</author>
    <author>Neil Gaiman</author>
    <year>1990</year>
    <isbn kind="13">978-0060853983</isbn>
  </book>
</catalog>
"""

NAMESPACED = """<?xml version="1.0" encoding="UTF-8"?>
<inv:inventory xmlns:inv="urn:example:inventory" xmlns="urn:example:default">
  <inv:item sku="A-1" qty="40">bolt</inv:item>
  <inv:item sku="A-2" qty="7">wing nut</inv:item>
  <inv:item sku="B-9" qty="40">washer &amp; ring</inv:item>
</inv:inventory>
"""

ENTITY = """<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<lolz>
  <lol a="&lol4;"/>
  <lol a="&lol4;"/>
  <lol a="&lol4;"/>
</lolz>
"""

MALFORMED = """<servers>
  <server name="web-1" port="80"/>
  <server name="db-1" port="5432">
  <server name="cache & co" port="6379"/>
</servers>
"""

HTML = """<!DOCTYPE html>
<html lang="en">
  <head><meta charset="utf-8"/><title>Links</title></head>
  <body>
    <a href="/one" class="x">One</a>
    <a href="/two" class="x">Two</a>
    <a href="/three" class="x">Three</a>
  </body>
</html>
"""


def test_attribute_records_keyed_by_name_at_their_lines():
    s = detect(SYSCALLS)
    assert s.kind == "xml" and len(s.records) == 6 and s.field_names == ("name", "number", "groups")
    r = s.records[4]
    assert r.key == "prctl" and r.fields == (("name", "prctl"), ("number", "157")) and r.line == r.end_line == 10
    assert r.text.strip() == '<syscall name="prctl" number="157"/>'
    assert looks_xml(SYSCALLS.split("\n")) >= 0.9


def test_lookups_over_attribute_records():
    assert H["field_of"](SYSCALLS, "prctl", "number") == "157"
    assert H["record_of"](SYSCALLS, "prctl").get("number") == "157"
    assert H["key_of"](SYSCALLS, "157") == "prctl"
    assert str(H["max_of"](SYSCALLS, "number")) == "prctl: 157"
    assert H["most_common"](SYSCALLS, "groups") == "descriptor"
    assert H["count_where"](SYSCALLS, "groups", "memory") == 1
    assert H["count_if"](SYSCALLS, "groups", "part", "memory") == 2


def test_child_element_records_join_a_repeated_child():
    s = detect(BOOKS)
    assert s.kind == "xml" and [r.key for r in s.records] == ["Dune", "Vendredi", "Good Omens"]
    assert s.field_names == ("lang", "title", "author", "year", "isbn", "isbn.kind")
    omens = s.records[2]
    assert omens.get("author") == "Terry Pratchett, Neil Gaiman" and omens.get("isbn.kind") == "13"
    assert (omens.line, omens.end_line) == (12, 18) and "<year>1990</year>" in omens.text
    assert s.records[0].fields[0] == ("lang", "en")  # attributes come first, then the leaf children
    assert H["field_of"](BOOKS, "Vendredi", "year") == "1967"
    assert H["count_if"](BOOKS, "author", "part", "Neil Gaiman") == 1


def test_namespaced_tags_read_by_local_name_and_xmlns_is_no_field():
    s = detect(NAMESPACED)
    assert s.kind == "xml" and s.field_names == ("sku", "qty", "text")
    assert [r.key for r in s.records] == ["A-1", "A-2", "B-9"]
    assert s.records[2].get("text") == "washer & ring" and s.records[2].line == 5


def test_a_prolog_of_comments_and_doctype_and_leading_blanks_keep_the_line_numbers():
    s = detect("\n\n  " + SYSCALLS)
    assert s.kind == "xml" and s.records[0].line == 8 and s.records[0].key == "read"


def test_an_entity_declaration_is_refused_quickly():
    start = time.perf_counter()
    assert looks_xml(ENTITY.split("\n")) == 0.0 and parse_xml(ENTITY.split("\n")) == ([], [])
    assert detect(ENTITY).kind != "xml"
    assert time.perf_counter() - start < 1.0


def test_malformed_xml_is_not_xml_and_detect_does_not_raise():
    assert looks_xml(MALFORMED.split("\n")) == 0.0
    assert detect(MALFORMED).kind != "xml"
    assert detect("<a><b x='1'/><b x='2'/><b x='3'/></a> trailing prose").kind != "xml"


def test_an_html_page_is_not_xml_records():
    assert looks_xml(HTML.split("\n")) == 0.0 and detect(HTML).kind != "xml"
    assert detect(HTML.replace("<!DOCTYPE html>\n", "")).kind != "xml"


def test_records_on_one_line_each_show_their_own_element():
    s = detect('<r><e id="a" v="1"/><e id="b" v="2"/><e id="c" v="3"/></r>')
    assert s.kind == "xml" and [r.key for r in s.records] == ["a", "b", "c"]
    assert s.records[1].text == '<e id="b" v="2">'
    assert H["record_of"]('<r><e id="a" v="1"/><e id="b" v="2"/><e id="c" v="3"/></r>', "b").get("v") == "2"


def test_leaves_under_a_repeated_parent_are_its_fields_not_records():
    text = "<types>\n" + "".join(
        f'  <type name="t{i}">\n    <comment>T {i}</comment>\n    <comment lang="de">D {i}</comment>\n'
        f'    <comment lang="fr">F {i}</comment>\n    <glob pattern="*.t{i}"/>\n  </type>\n'
        for i in range(3)
    )
    s = detect(text + "</types>\n")
    assert s.kind == "xml" and [r.key for r in s.records] == ["t0", "t1", "t2"]
    assert s.records[1].get("comment") == "T 1, D 1, F 1" and s.records[1].get("glob.pattern") == "*.t1"


def test_a_cut_document_still_reads_its_whole_elements():
    s = detect(SYSCALLS.split("</syscalls_info>")[0] + '  <syscall name="exit" numb')
    assert s.kind == "xml" and len(s.records) == 6


def test_xml_in_the_standalone_helpers():
    ns: dict = {}
    exec(compile(standalone_source(), "<helpers-standalone>", "exec"), ns)
    assert ns["make_helpers"]()["field_of"](SYSCALLS, "mmap", "groups") == "descriptor,memory"
