"""Formats the sixth probe (``benchmarks/asked/probe6.json``) met and the structure detector misread, each
rebuilt here as a small made-up file of its shape: CSS, TOML, XML with plain-text entities, nested containers
and records under several named parents, a table under ``#### banner ####`` comments, and tab-separated rows
whose last cell holds colons."""

from __future__ import annotations

import sys

import pytest

from dspy_rlm.library.helpers import standalone_source
from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted as _ask

CSS = """/* A made-up theme */
.theme {
  /* colours shared by both modes */
  --theme-text: #000;
  --theme-accent: cornflowerblue;
}

.theme.dark {
  --theme-text: white;
  --theme-icon: #878787;
}

.theme div.box span {
  box-shadow: 2pt 2pt 4pt #999;
  display: inline-block !important;
}

@media (max-width: 600px) {
  .theme div.box {
    width: 100%;
  }
}
"""

TOML = """# A made-up project
[build-system]
requires = ["flit_core>=3.2,<4"]
build-backend = "flit_core.buildapi"

[project]
name = "quietlake"
description = "Reads lakes, quietly and well."
keywords = ["lake", "water"]
authors = [{name = "Cy Dale", email = "cy@example.org"}]
maintainers = [
  {name = "Ada Brook", email = "ada@example.org"},
  {name = "Bo Reed", email="bo@example.org"},
]

[project.optional-dependencies]
fast = ["numpy>=1.26"]
docs = ["sphinx", "furo"]

[tool.mypy]
warn_return_any = true
strict = false
"""

DBUS = """<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd" [
  <!ENTITY ERROR_DENIED "org.example.Denied">
]>
<node name="/" xmlns:doc="http://www.freedesktop.org/dbus/1.0/doc.dtd">
  <interface name="org.example.Lake">
    <method name="Fill">
      <arg type="u" name="litres" direction="in">
        <doc:doc><doc:summary><doc:para>The litres.</doc:para></doc:summary></doc:doc>
      </arg>
      <arg type="b" name="slowly" direction="in">
        <doc:doc><doc:summary><doc:para>The slowly.</doc:para></doc:summary></doc:doc>
      </arg>
    </method>
    <method name="Drain">
      <arg type="s" name="outlet" direction="in">
        <doc:doc><doc:summary><doc:para>The outlet.</doc:para></doc:summary></doc:doc>
      </arg>
      <arg type="t" name="seconds" direction="out">
        <doc:doc><doc:summary><doc:para>The seconds.</doc:para></doc:summary></doc:doc>
      </arg>
    </method>
    <method name="Sign">
      <arg type="s" name="sig_kind" direction="in">
        <doc:doc><doc:summary><doc:para>The sig_kind.</doc:para></doc:summary></doc:doc>
      </arg>
    </method>
  </interface>
</node>
"""

FONTS = """<?xml version="1.0"?>
<fontconfig>
  <alias><family>Cambria</family><default><family>serif</family></default></alias>
  <alias><family>Calibri</family><default><family>sans-serif</family></default></alias>
  <alias><family>Consolas</family><default><family>monospace</family></default></alias>
  <alias><family>Zapfino</family><default><family>cursive</family></default></alias>
</fontconfig>
"""

BANNERED = """# Abbreviations of a made-up clock

#################### NORTH ####################

NST     3600    # North Standard Time
NDT     7200 D  # North Daylight Time

#################### SOUTH ####################

SST    -3600    # South Standard Time
MART  -34200    # Marsh Time
"""

KEYMAPS = """# Made up from a model list.
# consolelayout\t\txlayout\txmodel\t\txvariant\txoptions
sg\t\t\tch\tpc105\t\tde_nodeadkeys\tterminate:ctrl_alt_bksp
nl\t\t\tnl\tpc105\t\t-\t\tterminate:ctrl_alt_bksp
et\t\t\tee\tpc105\t\t-\t\tterminate:ctrl_alt_bksp
es-dvorak\t\tes\tmicrosoftpro\tdvorak\tterminate:ctrl_alt_bksp
"""

needs_tomllib = pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is new in Python 3.11")


def test_css_rules_are_records_keyed_by_selector():
    s = detect(CSS)
    assert s.kind == "css"
    by_key = {r.key: r for r in s.records}
    assert set(by_key) == {".theme", ".theme.dark", ".theme div.box span", ".theme div.box"}
    assert by_key[".theme.dark"].get("--theme-icon") == "#878787"
    assert by_key[".theme div.box span"].get("box-shadow") == "2pt 2pt 4pt #999"  # no ";" kept
    assert by_key[".theme"].line == 2
    q = "In the dark block (.theme.dark), what is --theme-icon set to?"
    assert _ask(q, CSS) == ("#878787", "submitted")


@needs_tomllib
def test_toml_tables_and_tables_in_arrays_are_records():
    s = detect(TOML)
    assert s.kind == "toml"
    by_key = {r.key: r for r in s.records}
    assert by_key["project"].get("description") == "Reads lakes, quietly and well."
    assert by_key["optional-dependencies"].get("docs") == "sphinx, furo"
    assert by_key["optional-dependencies"].get("block") == "project"  # a table is keyed by its own name
    assert by_key["Bo Reed"].fields == (("name", "Bo Reed"), ("email", "bo@example.org"), ("in", "project.maintainers"))
    assert by_key["mypy"].get("warn_return_any") == "true"
    assert by_key["project"].get("maintainers") == "Ada Brook, Bo Reed"  # a table names the items of its arrays
    assert _ask("What is the project description given in this pyproject?", TOML)[0] == "Reads lakes, quietly and well."
    assert _ask("Who is the author of quietlake?", TOML) == ("Cy Dale", "submitted")


def test_plain_text_entities_are_read_and_records_name_their_parent():
    s = detect(DBUS)
    assert s.kind == "xml"
    assert [(r.get("name"), r.get("method")) for r in s.records] == [
        ("litres", "Fill"),
        ("slowly", "Fill"),
        ("outlet", "Drain"),
        ("seconds", "Drain"),
        ("sig_kind", "Sign"),
    ]
    assert _ask("Which method takes an argument called sig_kind?", DBUS) == ("Sign", "submitted")


def test_a_container_of_leaves_gives_its_parent_dotted_fields():
    s = detect(FONTS)
    assert [(r.key, r.get("default.family")) for r in s.records][:2] == [
        ("Cambria", "serif"),
        ("Calibri", "sans-serif"),
    ]
    assert _ask("Is Calibri mapped to the serif generic family?", FONTS, "bool") == (False, "submitted")
    assert _ask("Zapfino gets which generic family as its default?", FONTS) == ("cursive", "submitted")


def test_a_banner_comment_is_no_header():
    s = detect(BANNERED)
    assert s.kind == "table"
    assert "NORTH" not in s.field_names and not any(set(n) <= {"#"} for n in s.field_names)
    mart = next(r for r in s.records if r.key == "MART")
    assert "-34200" in [v for _, v in mart.fields]


def test_tab_separated_rows_with_colons_in_a_cell_are_no_colon_table():
    s = detect(KEYMAPS)
    assert s.field_names[:5] == ("consolelayout", "xlayout", "xmodel", "xvariant", "xoptions")
    assert _ask("Which X layout does the console keymap 'et' map to?", KEYMAPS) == ("ee", "submitted")


def test_the_new_parsers_are_in_the_standalone_helpers():
    scope: dict = {}
    exec(compile(standalone_source(), "<helpers>", "exec"), scope)
    assert scope["detect"](CSS).kind == "css"
    assert scope["detect"](DBUS).kind == "xml"


POLICY = (
    """<?xml version="1.0" encoding="UTF-8"?>
<policyconfig>
"""
    + "".join(
        f"""  <action id="org.example.lake.{name}">
    <description>{name.title()} the lake</description>
    <defaults>
      <allow_any>{anyone}</allow_any>
      <allow_inactive>{anyone}</allow_inactive>
      <allow_active>yes</allow_active>
    </defaults>
  </action>
"""
        for name, anyone in [
            ("fill", "no"),
            ("drain", "auth_admin_keep"),
            ("freeze", "no"),
            ("thaw", "auth_admin_keep"),
            ("stock", "auth_admin_keep"),
        ]
    )
    + "</policyconfig>\n"
)


def test_a_name_said_as_written_names_the_dotted_field_that_ends_with_it():
    s = detect(POLICY)
    assert "defaults.allow_any" in s.field_names
    assert _ask("How many actions have allow_any set to 'no' in their defaults?", POLICY, "int") == (2, "submitted")
    q = "What's the most common allow_any default value across the actions in this policy file?"
    assert _ask(q, POLICY) == ("auth_admin_keep", "submitted")
