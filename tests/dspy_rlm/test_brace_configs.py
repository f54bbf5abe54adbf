"""Nested brace configs (library/braceformat.py) on small texts written here in the shape of ALSA's .conf files,
Java policy files and nginx: a record per top-level block keyed by its name, fields named by their path below it;
C code is no brace config."""

from __future__ import annotations

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st

SOUND = """# sound device definitions
defaults.pcm.card 0
defaults.pcm.rate 44100   # the mixer's rate

<confdir:pcm/front.conf>

pcm.hardware {
\t@args [ CARD DEV ]
\t@args.CARD { type string }
\t@args.DEV {
\t\ttype integer
\t\tdefault {
\t\t\t@func refer
\t\t\tname defaults.pcm.device
\t\t}
\t}
\ttype hw
\tcard $CARD
\thint {
\t\tshow on
\t\tdescription "Raw device, no conversions"
\t}
}

pcm.mixer {
\ttype plug
\tslave.pcm "hardware"
\tstrings [
\t\t"left"
\t\t"right"
\t]
\thint.description "Software mixing"
}

ctl.hardware {
\ttype hw
\tcard $CARD
}
"""

POLICY = """// modules and what they may do
grant codeBase "jrt:/example.net" {
    permission java.lang.RuntimePermission "accessClassInPackage.sun.net";
    permission java.lang.RuntimePermission
                   "accessClassInPackage.sun.net.util";
    permission java.util.PropertyPermission "user.home", "read";
};

grant codeBase "jrt:/example.all" {
    permission java.security.AllPermission;
};

grant codeBase "jrt:/example.files" {
    permission java.io.FilePermission "<<ALL FILES>>", "read,write";
    permission java.util.PropertyPermission "os.name", "read";
};
"""


def _record(structure, key):
    return next(r for r in structure.records if r.key == key)


def test_alsa_style_blocks_are_records_with_fields_named_by_their_path():
    s = st.detect(SOUND)
    assert (s.kind, s.detail) == ("blocks", "braces")
    hardware = dict(_record(s, "pcm.hardware").fields)
    assert hardware["hint.description"] == "Raw device, no conversions"
    assert hardware["@args.DEV.default.name"] == "defaults.pcm.device"
    assert hardware["@args.CARD.type"] == "string"  # a block on one line
    assert hardware["@args"] == "CARD DEV" and hardware["type"] == "hw"
    mixer = dict(_record(s, "pcm.mixer").fields)
    assert mixer["strings"] == "left right" and mixer["slave.pcm"] == "hardware"  # a list over lines, unquoted
    assert dict(_record(s, "defaults.pcm.rate").fields) == {"defaults.pcm.rate": "44100"}  # a setting at the top
    assert _record(s, "ctl.hardware").line == SOUND.split("\n").index("ctl.hardware {") + 1
    assert lookup.field_of(SOUND, "pcm.hardware", "hint.description") == "Raw device, no conversions"


def test_policy_grants_are_keyed_by_their_code_base_and_repeated_words_named_by_their_class():
    s = st.detect(POLICY)
    assert (s.kind, s.detail) == ("blocks", "braces")
    assert [r.key for r in s.records] == ["jrt:/example.net", "jrt:/example.all", "jrt:/example.files"]
    net = _record(s, "jrt:/example.net").fields
    assert ("grant", "codeBase jrt:/example.net") in net
    runtime = [v for n, v in net if n == "permission java.lang.RuntimePermission"]
    assert runtime == ["accessClassInPackage.sun.net", "accessClassInPackage.sun.net.util"]  # over two lines
    assert ("permission java.util.PropertyPermission", "user.home, read") in net
    assert ("permission", "java.security.AllPermission") in _record(s, "jrt:/example.all").fields


def test_nginx_style_nested_blocks_and_semicolons():
    text = "\n".join(
        [
            "worker_processes 2;",
            "events {",
            "    worker_connections 512;",
            "}",
            "server {",
            "    listen 8080;",
            "    server_name example.test;",
            "    location /api {",
            "        proxy_pass http://127.0.0.1:9000;",
            "    }",
            "}",
        ]
    )
    s = st.detect(text)
    assert (s.kind, s.detail) == ("blocks", "braces")
    server = dict(_record(s, "server").fields)
    assert server["listen"] == "8080" and server["location /api.proxy_pass"] == "http://127.0.0.1:9000"
    assert dict(_record(s, "worker_processes").fields) == {"worker_processes": "2"}


def test_c_code_and_css_are_not_brace_configs():
    c_code = "\n".join(
        ["static int count = 0;", "int add(int a, int b) {", "    return a + b;", "}"] * 4
        + ["struct point {", "    int x;", "    int y;", "};"]
    )
    assert st.detect(c_code).detail != "braces"
    css = "body {\n  color: red;\n}\n" * 4
    assert st.detect(css).kind == "css"
