"""X resource files as records (dspy_rlm.library.xresourceformat): a resource per ``spec: value`` line, its field
named by the spec's last component; a translation table's bindings one record each, their ``action`` and ``block``;
values going on past a backslash; strict detection; a few questions through the scripted policy. Invented files
only (app-defaults of an imaginary "Kilnview")."""

import pytest

from dspy_rlm.library.structure import _detect, detect
from dspy_rlm.library.xresourceformat import looks_xresources, parse_xresources
from tests.dspy_rlm.scripted import ask_scripted

KILNVIEW = """! Kilnview.ad: app-defaults for the Kilnview kiln monitor
! (edit with care: the menus below are read at start-up)

Kilnview.geometry:\t\t640x480
*allowShellResize: true
*shelfbox*ShapeStyle: oval
#ifdef COLOR
*customization: -color
#endif

*Porthole.BorderWidth: 3
*Porthole.resizable: on
*Gauge*BorderWidth: 1
*Tree*Toggle*BorderWidth: 0
*Dial.BorderWidth: 2

*shelfbox.view.Label: View
*shelfbox.view.viewMenu.showShelves.Label: Show Kiln Shelves
*shelfbox.view.viewMenu.hideShelves.Label: Hide Kiln Shelves
*shelfbox.view.viewMenu.showCones.Label: Show Witness Cones
*shelfbox.fire.Label: Fire
*shelfbox.fire.fireMenu.startFiring.Label: Start a Bisque Firing
*quit.Label: Quit

*statusLine.font: \\
-misc-fixed-medium-r-normal--*-120-*-*-*-*-iso8859-1

*Tree.baseTranslations: #override \\n\\
<Key>q: Quit() \\n\\
<Key>space: Select(nothing) \\n\\
Ctrl<Key>r: Rescan(shelves) \\n\\
<Btn1Down>,<Btn1Up>: Select(cone) Notify()

*Gauge.translations: #augment \\n\\
\t<Key>plus: Zoom(in) \\n\\
\tShift<Key>minus: Zoom(out)
"""


def _record(text: str, key: str, field: str):
    """The first record keyed ``key`` that holds ``field``."""
    return next(r for r in detect(text).records if r.key == key and r.get(field) is not None)


def test_each_resource_is_a_record_keyed_by_its_widget_and_named_by_its_last_component():
    s = detect(KILNVIEW)
    assert (s.kind, s.detail) == ("assignments", "xresources")
    geometry = _record(KILNVIEW, "geometry", "geometry")  # the file's own class name keys no record of its own
    assert geometry.fields == (("geometry", "640x480"),) and geometry.line == 4
    assert _record(KILNVIEW, "allowShellResize", "allowShellResize").fields == (("allowShellResize", "true"),)
    porthole = _record(KILNVIEW, "Porthole", "BorderWidth")
    assert porthole.get("BorderWidth") == "3" and porthole.line == 11 and porthole.text == "*Porthole.BorderWidth: 3"
    assert _record(KILNVIEW, "Porthole", "resizable").get("resizable") == "on"  # one widget, two records
    assert _record(KILNVIEW, "Gauge", "BorderWidth").get("BorderWidth") == "1"
    assert _record(KILNVIEW, "Tree*Toggle", "BorderWidth").get("BorderWidth") == "0"
    shelves = _record(KILNVIEW, "shelfbox.view.viewMenu.showShelves", "Label")
    assert shelves.fields == (("Label", "Show Kiln Shelves"),) and shelves.line == 18
    assert _record(KILNVIEW, "customization", "customization").get("customization") == "-color"  # under #ifdef
    assert sum(1 for x in s.records if x.get("Label") is not None) == 7
    assert not any(x.key.startswith(("#", "!")) or "COLOR" in x.text for x in s.records)


def test_a_value_goes_on_past_a_backslash():
    font = _record(KILNVIEW, "statusLine", "font")
    assert font.get("font") == "-misc-fixed-medium-r-normal--*-120-*-*-*-*-iso8859-1"
    assert (font.line, font.end_line) == (25, 26)
    raws, _ = parse_xresources(["*sample: one \\", "two \\", "three", "*next.Label: Next"])
    assert [(a, b, f, k) for a, b, f, k, _ in raws] == [
        (0, 2, [("sample", "one \\\ntwo \\\nthree")], "sample"),
        (3, 3, [("Label", "Next")], "next"),
    ]


def test_a_translation_table_is_a_record_per_binding():
    s = detect(KILNVIEW)
    tree = [x for x in s.records if x.get("block") == "*Tree.baseTranslations"]
    assert [x.key for x in tree] == ["<Key>q", "<Key>space", "Ctrl<Key>r", "<Btn1Down>,<Btn1Up>"]
    assert [x.get("action") for x in tree] == ["Quit()", "Select(nothing)", "Rescan(shelves)", "Select(cone) Notify()"]
    assert [x.line for x in tree] == [29, 30, 31, 32] and all(x.end_line == x.line for x in tree)
    head = _record(KILNVIEW, "Tree", "baseTranslations")
    assert head.fields == (("baseTranslations", "#override"),) and (head.line, head.end_line) == (28, 28)
    gauge = [x for x in s.records if x.get("block") == "*Gauge.translations"]
    assert [(x.key, x.get("action"), x.line) for x in gauge] == [
        ("<Key>plus", "Zoom(in)", 35),
        ("Shift<Key>minus", "Zoom(out)", 36),
    ]


def test_a_binding_on_the_resource_line_and_one_over_two_lines():
    text = "*Command.shapeStyle: oval\n*baseTranslations: #override :<Key>Return: kiln-exit()\n" + (
        "*Dialog.translations: #override \\\n<Map>: get-size(1) \\\n\tset-size(1, 2)\n*a.b: 1\n*c.d: 2\n*e.f: 3\n"
    )
    s = detect(text)
    assert s.detail == "xresources"
    r = {x.key: x for x in s.records}
    assert r[":<Key>Return"].get("action") == "kiln-exit()" and r[":<Key>Return"].line == 2
    assert r["baseTranslations"].text.endswith("#override")  # the head's text holds no binding: none counted twice
    assert r["<Map>"].get("action") == "get-size(1) \\\n\tset-size(1, 2)"
    assert (r["<Map>"].line, r["<Map>"].end_line) == (4, 5)


DOTTED = """! ~/.Xresources: several applications' resources
Xft.dpi: 96
Xft.antialias: true
URxvt.font: xft:DejaVu Sans Mono:size=10
URxvt.scrollBar: false
URxvt.saveLines: 4000
XTerm*faceName: Monospace
XTerm*saveLines: 2000
XTerm*VT100.background: black
"""


def test_a_user_file_keys_each_application_by_its_class():
    s = detect(DOTTED)
    assert s.detail == "xresources"
    assert _record(DOTTED, "URxvt", "saveLines").get("saveLines") == "4000"
    assert _record(DOTTED, "XTerm", "saveLines").get("saveLines") == "2000"
    assert _record(DOTTED, "XTerm*VT100", "background").line == 9


def test_every_value_is_a_span_and_every_record_lies_on_its_lines():
    for text in (KILNVIEW, DOTTED):
        lines = text.split("\n")
        for r in _detect(text).records:
            assert 1 <= r.line <= r.end_line <= len(lines)
            assert r.key in "\n".join(lines[r.line - 1 : r.end_line])
            assert all(v in text for _, v in r.fields), r


YAML = """server:
  port: 8080
  host: kiln.local
logging:
  level: debug
  file: /var/log/kiln.log
shelves:
  - top
  - middle
"""
FLAT_YAML = """server.port: 8080
server.host: kiln.local
logging.level: debug
logging.file: /var/log/kiln.log
kiln.cones: 6
"""
CONTROL = """Package: kilnview
Version: 2.4-1
Architecture: amd64
Maintainer: Ada Potter <ada@example.org>
Depends: libc6 (>= 2.34), libxaw7
Description: kiln monitor for X
 Kilnview shows the shelves and cones of a kiln.
"""
TEMPLATES = """Template: kilnview/shelves
Type: select
Choices: one, two, three
Choices-de.UTF-8: eins, zwei, drei
Choices-fr.UTF-8: un, deux, trois
Choices-es.UTF-8: uno, dos, tres
Description: How many shelves?
Description-de.UTF-8: Wie viele Regale?
Description-fr.UTF-8: Combien d'étagères ?
"""
MAIL = """From: Ada Potter <ada@example.org>
To: kiln-users@example.org
Subject: Re: cone 6 firing
Date: Tue, 3 Mar 2026 10:12:00 +0000
Message-ID: <kiln.42@example.org>
X-Mailer: Kilnmail 1.2

The bisque came out fine.
"""
JSON = '{\n  "Kilnview.geometry": "640x480",\n  "*allowShellResize": true,\n  "*quit.Label": "Quit"\n}\n'
CSS = """.shelf:hover { color: red; }
a.cone:visited {
  color: blue;
  border: 1px solid;
}
div.kiln:first-child { margin: 0; }
"""
MAKEFILE = """CC = gcc
all: kilnview
kilnview.o: kilnview.c kiln.h
\t$(CC) -c kilnview.c
Makefile.in: Makefile.am
\tautomake
kiln.o: kiln.c
\t$(CC) -c kiln.c
"""
INI = "[display]\ngeometry: 640x480\nborder: 3\n\n[menu]\nlabel: View\nshelves: 4\n"
MATPLOTLIBRC = """# kiln plot style
lines.linewidth : 1.0  # in points
lines.color     : C0
axes.titlesize  : large
axes.grid       : True
figure.dpi      : 100
"""
PROSE = """Note: the kiln must cool before the door opens.
Warning: cones bend at their rated temperature.
Tip: a witness cone sits beside each shelf.
Remember: Kilnview only reads the thermocouple.
Summary: fire slowly, cool slowly.
"""


@pytest.mark.parametrize(
    "text", [YAML, FLAT_YAML, CONTROL, TEMPLATES, MAIL, JSON, CSS, MAKEFILE, INI, MATPLOTLIBRC, PROSE]
)
def test_detection_refuses_other_formats(text):
    assert looks_xresources(text.split("\n")) == 0.0
    assert detect(text).detail != "xresources"


def test_comments_and_preprocessor_lines_are_no_resources_nor_continued():
    raws, _ = parse_xresources(["! a comment \\", "*a.Label: A", '#include "Kilnview"', "*b.Label: B"])
    assert [(a, key) for a, _, _, key, _ in raws] == [(1, "a"), (3, "b")]


@pytest.mark.parametrize(
    "question, answer, out",
    [
        ("Does the Kilnview app-defaults file set allowShellResize to true?", True, "bool"),
        ("What BorderWidth does the Kilnview Porthole get?", 3, "int"),
        ("What BorderWidth does the Gauge get?", 1, "int"),  # keyed *Gauge*BorderWidth: no field name read as key
        ("Which action does Ctrl<Key>r invoke in the tree's translations?", "Rescan(shelves)", "str"),
        ("How many resources set a Label?", 7, "int"),
        ("What label does the showShelves entry get?", "Show Kiln Shelves", "str"),
        ("What geometry does Kilnview start with?", "640x480", "str"),
        ("Is the Porthole resizable?", True, "bool"),
        ("Which key binding invokes Rescan(shelves)?", "Ctrl<Key>r", "str"),
    ],
)
def test_questions_about_an_app_defaults_file(question, answer, out):
    assert ask_scripted(question, KILNVIEW, out) == (answer, "submitted")


@pytest.mark.parametrize(
    "question, answer, out",
    [("What saveLines does XTerm use?", 2000, "int"), ("How many saveLines does URxvt keep?", 4000, "int")],
)
def test_questions_about_a_user_file_read_the_application_asked(question, answer, out):
    assert ask_scripted(question, DOTTED, out) == (answer, "submitted")


@pytest.mark.parametrize(
    "question, answer, out",
    [
        # the right value, extracted: the View menu's own record (keyed by "View") rivals showShelves's
        ("What label does Kilnview give the showShelves entry of its View menu?", "Show Kiln Shelves", "str"),
        ("How many key bindings does the Tree translation table have?", 4, "int"),
        ("What label does the quit button show?", "Quit", "str"),  # the value is the key's own word
        ("Which menu entry is labelled Show Witness Cones?", "showCones", "str"),
        ("What background does XTerm use?", "black", "str"),  # XTerm*VT100's, beside URxvt*background
    ],
)
def test_questions_the_policy_is_unsure_of_are_never_submitted_wrong(question, answer, out):
    got, ending = ask_scripted(question, DOTTED if "XTerm" in question else KILNVIEW, out)
    assert ending != "submitted" or got == answer, got


def test_the_longest_label_is_its_text():  # the ranked record's key had been Submitted
    got, ending = ask_scripted("Which label text is the longest?", KILNVIEW)
    assert ending != "submitted" or got == "Start a Bisque Firing", got
