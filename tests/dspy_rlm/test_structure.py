"""Structure detection (dspy_rlm.library.structure) and the REPL helpers over it (dspy_rlm.library.lookup):
per-kind detection on small texts, real files of this machine checked against an independent parse,
the helpers inside the sandbox worker, and a property test that detection never raises."""

import glob
import json
import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dspy_rlm.library import structure as structure_module
from dspy_rlm.library.helpers import make_helpers, standalone_source
from dspy_rlm.library.structure import KINDS, detect, matches, stem, words

H = make_helpers()
records, fields, record_of, field_of = H["records"], H["fields"], H["record_of"], H["field_of"]
count_records, count_where, most_common = H["count_records"], H["count_where"], H["most_common"]
max_of, min_of, exists, key_of = H["max_of"], H["min_of"], H["exists"], H["key_of"]

CSV = 'name,city,population\nAmber Falcon,Zürich,"1,234,567"\nBlue Heron,Oslo,700\nRed Kite,Zürich,12\n'
TSV = "# inventory\nsku\tname\tqty\nA-1\tbolt\t40\nA-2\twing nut\t7\nB-9\twasher\t40\n"
PIPES = "host | role | zone\nweb-1 | frontend | eu\ndb-1 | database | us\ncache-1 | cache | eu\n"
PASSWD = (
    "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice A.:/home/alice:/bin/zsh\n"
    "bob:x:1001:1001::/home/bob:/bin/sh\n"
)
SERVICES = (
    "# name port/proto aliases\n\nssh\t\t22/tcp\t\t\t# SSH Remote Login Protocol\n"
    "smtp\t\t25/tcp\t\tmail\ndiscard\t\t9/tcp\t\tsink null\nhttp\t\t80/tcp\t\twww\t# WorldWideWeb HTTP\n"
)
JSONL = '{"id": "u1", "name": "Ann Lee", "age": 31, "city": "Zürich-7"}\n{"id": "u2", "name": "Bo", "age": 27}\n'
STANZAS = (
    "Package: bash\nVersion: 5.2-1\nDescription: GNU shell\n The Bourne Again SHell.\n .\n More text.\n\n"
    "Package: dash\nVersion: 0.5.12-2\nDescription: POSIX shell\n\nPackage: zsh\nVersion: 5.9\n"
)
INI = "; settings\n[server]\nhost = example.org\nport = 8080\n\n[client]\nport = 445\nretries: 3\n"
YAML = "name: demo app\nversion: 1.4.2\nserver:\n  host: localhost\n  port: 8000\ntags:\n  - web\n  - api\n"
ASSIGN = '# os\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_ID="12"\nID=debian\nDSHELL = /bin/bash\n'
MD_TABLE = "| Tool | Language | Stars |\n|---|---|---|\n| ruff | Rust | 30,000 |\n| mypy | Python | 18,000 |\n"
MD_LIST = "- **ruff**: a fast linter\n- **mypy**: a type checker\n  with plugins\n- black - a formatter\n"
PROSE = (
    "The river rose overnight. Residents of Lyon were told to leave, e.g. those near the quay!\n"
    "Officials expect the water to fall by Friday. Dr. Martin leads the response team.\n"
)
LINES = "alpha\nERROR disk full on host-7\nuser: carol\nplain words here\n"


@pytest.mark.parametrize(
    "text, kind, detail, names",
    [
        (CSV, "table", "csv", ("name", "city", "population")),
        (TSV, "table", "tsv", ("sku", "name", "qty")),
        (PIPES, "table", "pipes", ("host", "role", "zone")),
        (PASSWD, "table", "colon", tuple(f"col{k}" for k in range(1, 8))),
        (SERVICES, "table", "whitespace", ("name", "port/proto", "aliases", "comment")),
        (JSONL, "jsonl", "", ("id", "name", "age", "city")),
        (STANZAS, "stanzas", "", ("Package", "Version", "Description")),
        (INI, "ini", "", ("host", "port", "retries")),
        (YAML, "yaml", "", ("name", "version", "host", "port", "tags")),
        (ASSIGN, "assignments", "", ("PRETTY_NAME", "VERSION_ID", "ID", "DSHELL")),
        (MD_TABLE, "markdown_table", "", ("Tool", "Language", "Stars")),
        (MD_LIST, "markdown_list", "", ("ruff", "mypy")),
        (PROSE, "prose", "", ()),
        (LINES, "lines", "", ("user",)),
    ],
)
def test_detect_each_kind(text, kind, detail, names):
    s = detect(text)
    assert s.kind == kind and s.kind in KINDS and s.detail == detail
    assert s.field_names == names


def test_records_fields_and_keys_per_kind():
    table = detect(CSV)
    assert [r.key for r in table.records] == ["Amber Falcon", "Blue Heron", "Red Kite"]
    assert table.records[0].get("POPULATION") == "1,234,567" and table.records[0].line == 2
    assert detect(SERVICES).records[3].fields == (
        ("name", "http"),
        ("port/proto", "80/tcp"),
        ("aliases", "www"),
        ("comment", "WorldWideWeb HTTP"),
    )
    assert detect(SERVICES).records[2].get("aliases") == "sink null"  # the rest of the line, one span
    assert detect(JSONL).records[0].key == "u1" and detect(JSONL).records[0].get("age") == "31"
    bash = detect(STANZAS).records[0]
    assert (bash.key, bash.line, bash.end_line) == ("bash", 1, 6)
    assert bash.get("description") == "GNU shell\n The Bourne Again SHell.\n .\n More text."
    ini = detect(INI)
    assert [(r.key, r.get("port")) for r in ini.records] == [("server", "8080"), ("client", "445")]
    yaml = detect(YAML)
    assert [r.key for r in yaml.records] == ["name", "version", "server", "tags"]
    assert yaml.records[2].get("port") == "8000" and "- api" in yaml.records[3].get("tags")
    assert detect(ASSIGN).records[0].fields == (("PRETTY_NAME", "Debian GNU/Linux 12 (bookworm)"),)
    assert detect(MD_TABLE).records[1].get("stars") == "18,000"
    assert [r.key for r in detect(MD_LIST).records] == ["ruff", "mypy", "black"]
    sentences = [r.text for r in detect(PROSE).records]
    assert sentences == [
        "The river rose overnight.",
        "Residents of Lyon were told to leave, e.g. those near the quay!",
        "Officials expect the water to fall by Friday.",
        "Dr. Martin leads the response team.",
    ]
    assert detect(PROSE).records[2].line == 2
    assert detect(LINES).records[2].fields == (("user", "carol"),)


def test_empty_and_cache():
    assert detect("") == structure_module.Structure("lines", (), ())
    assert detect(" \n\n ").records == ()
    text = "a = 1\nb = 2\n" * 10
    assert detect(text) is detect(text)
    with pytest.raises(TypeError, match="detect"):
        detect(b"bytes")  # type: ignore[arg-type]


def test_a_huge_text_is_parsed_up_to_the_cap_and_says_so(monkeypatch):
    monkeypatch.setattr(structure_module, "MAX_PARSE_CHARS", 60)
    text = "".join(f"k{i} = value {i}\n" for i in range(20))  # 13 chars a line up to k9
    s = detect(text)
    assert s.kind == "assignments" and s.parsed_chars == 51  # the last line break before char 60
    assert [r.key for r in s.records] == ["k0", "k1", "k2", "k3"]
    assert "(of the first 51 chars only)" in repr(s)
    assert "search() reads the rest" in str(records(text, "value"))


def test_stem_words_matches():
    assert {stem(w) for w in ("licenses", "license", "licensed", "licensing", "LICENSE")} == {"licens"}
    assert stem("running") == stem("runs") == "run" and stem("policies") == stem("policy")
    assert stem("status") == "status" and stem("x86_64") == "x86_64"
    assert words("Zürich-7, en_US.UTF-8 costs 1,234,567 (a@b.org)") == [
        "Zürich-7",
        "en_US.UTF-8",
        "costs",
        "1,234,567",
        "a@b.org",
    ]
    assert matches("license", "GPL Licenses apply") and matches("Amber Falcon", "x amber  falcon y")
    assert not matches("22", "port 220") and matches("22", "22/tcp")
    assert matches("zürich", "ZÜRICH") and not matches("cat", "concatenate")
    assert not matches("", "text") and matches("c++", "we use C++ here")


# -- the helpers ----------------------------------------------------------------------------------------------
def test_helpers_on_small_texts():
    out = str(records(CSV, "zurich"))
    assert out == "no record contains 'zurich'"  # ü is not u: no silent transliteration
    out = str(records(CSV, "Zürich"))
    assert out.startswith("record 0 (line 2):\n  name: Amber Falcon\n  city: Zürich") and "record 2 (line 4)" in out
    assert str(record_of(STANZAS, "dash")).startswith("record 1 (lines 8-10):\n  Package: dash")
    assert field_of(STANZAS, "zsh", "version") == "5.9" and field_of(STANZAS, "zsh", "Description") is None
    assert field_of(INI, "client", "port") == "445" and key_of(INI, "8080") == "server"
    assert count_records(CSV, "zürich") == 2 and count_where(CSV, "city", " ZÜRICH ") == 2
    assert count_where(TSV, "qty", "40") == 2 and most_common(TSV, "qty") == "40"
    assert str(max_of(CSV, "population")) == "Amber Falcon: 1,234,567" and min_of(CSV, "population").key == "Red Kite"
    assert exists(PROSE, "officials") and not exists(PROSE, "tsunami")
    assert key_of(SERVICES, "mail") == "smtp" and key_of(SERVICES, "25/tcp") == "smtp" and key_of(CSV, "zzz") is None
    assert dict(fields(TSV)) == {"sku": 3, "name": 3, "qty": 3} and str(fields(TSV)).startswith("sku (3 records)")
    none = record_of(CSV, "nowhere")
    assert not none and none == None and str(none) == "no record contains 'nowhere'"  # noqa: E711
    assert str(H["structure"](TSV)) == "table (tsv), 3 records\nfields: sku, name, qty"
    items = ["a: 1", "b: 2"]
    assert records(items, "b")[0].line == 2  # a list of one-line strs: one record per item
    assert H["structure"](items) is H["structure"](items)  # detected once, not per call


def test_helper_results_survive_pickling_back_to_the_host():
    import pickle

    for value in (max_of(CSV, "population"), records(CSV, "Zürich"), record_of(CSV, "x"), fields(CSV), detect(INI)):
        back = pickle.loads(pickle.dumps(value))
        assert str(back) == str(value) and type(back) is type(value)
    assert pickle.loads(pickle.dumps(max_of(CSV, "population"))).record.key == "Amber Falcon"


def test_helper_errors_say_the_fix():
    with pytest.raises(ValueError, match=r"no field 'pop' in this table; fields are: name, city, population"):
        most_common(CSV, "pop")
    with pytest.raises(TypeError, match=r"call it per value: records\(var\['key'\], ...\)"):
        records({"a": "x"}, "x")
    with pytest.raises(TypeError, match="word must be a non-empty str"):
        record_of(CSV, "  ")


def test_markdown_document_is_prose_with_code_headings_and_items_as_their_own_records():
    doc = (
        "# Tool\n\nA fast tool for checking code. It reads every file once.\n\n```python\nx = run(1)\n"
        "print(x)\n```\n\n- item one: first\n- item two\n\nMore text follows here. The end.\n"
    )
    s = detect(doc)
    assert s.kind == "prose"
    assert [r.text for r in s.records] == [
        "# Tool",
        "A fast tool for checking code.",
        "It reads every file once.",
        "```python",
        "x = run(1)",
        "print(x)",
        "```",
        "- item one: first",
        "- item two",
        "More text follows here.",
        "The end.",
    ]
    assert s.records[4].fields == () and s.records[7].fields == (("item one", "first"),)


def test_a_log_is_lines_and_underscores_separate_words():
    log = "".join(
        f"2024-05-{d:02d} 1{d % 10}:0{d % 6}:51 {lvl} billing: job {name} done in {d * 7} ms\n"
        for d, lvl, name in [(1, "INFO", "calm-otter"), (2, "WARN", "brave-quartz"), (3, "INFO", "odd-heron")] * 4
    )
    assert detect(log).kind == "lines" and count_records(log, "brave-quartz") == 4
    cfg = "[gateway_0]\nlively_raven_port = 5425\n\n[cart_1]\nbrave_jasper_pin = 9443193\n"
    assert record_of(cfg, "brave_jasper").key == "cart_1" and matches("jasper", "brave_jasper_pin")
    assert field_of(cfg, "cart_1", "brave_jasper_pin") == "9443193"


def test_python_source_is_not_read_as_yaml_ini_or_stanzas():
    code = "import os\n\n\nclass Config:\n    name: str = 'x'\n    port: int = 1\n\n\ntry:\n    import a\n"
    code += "except ImportError:\n    a = None\n\n\ntry:\n    import b\nexcept ImportError:\n    b = None\n"
    assert detect(code).kind == "lines"


def test_yaml_list_of_mappings_is_one_record_per_item():
    text = (
        "# models\nmodel_list:\n  # first\n  - model_name: small\n    model: a/b\n  - model_name: big\n    model: c/d\n"
    )
    s = detect(text + "settings:\n  debug: true\n")
    assert s.kind == "yaml" and [r.key for r in s.records] == ["small", "big", "settings"]
    assert field_of(text, "big", "model") == "c/d" and key_of(text, "a/b") == "small"


def test_lookups_find_every_sentence_of_a_shared_line_and_decoded_json_values():
    prose = "Cats sleep. Dogs run fast. Cats purr!\n\nBirds sing at dawn, and cats listen.\n"
    assert [r.text for r in records(prose, "cat")] == [
        "Cats sleep.",
        "Cats purr!",
        "Birds sing at dawn, and cats listen.",
    ]
    assert (
        count_records(prose, "running") == 1 and str(record_of(prose, "dog")) == "record 1 (line 1):\n  Dogs run fast."
    )
    escaped = '{"id": "a", "city": "Z\\u00fcrich"}\n{"id": "b", "city": "Oslo"}\n'
    assert detect(escaped).records[0].get("city") == "Zürich"
    assert key_of(escaped, "zürich") == "a" and count_records(escaped, "Zürich") == 1


def test_structure_helpers_in_the_in_process_repl():
    from dspy_rlm.repl.inprocess import InProcessREPL

    repl = InProcessREPL(output_fields=["answer"])
    repl.load_inputs({"cfg": INI})
    try:
        result = repl.run("print(field_of(cfg, 'server', 'host'), most_common(cfg, 'port'), fields(cfg)['port'])")
    finally:
        repl.shutdown()
    assert result.error is None, result.error
    assert result.stdout.split() == ["example.org", "8080", "2"]


# -- real files of this machine, checked against a straightforward independent parse ----------------------
def _read(path: str) -> str:
    if not os.path.exists(path):
        pytest.skip(f"{path} is not on this machine (a stock Debian/Ubuntu has it)")
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def test_real_dpkg_status():
    status = _read("/var/lib/dpkg/status")
    blocks = [b for b in status.split("\n\n") if b.strip()]
    parsed = [dict(re.findall(r"^([\w-]+): (.*)$", b, flags=re.MULTILINE)) for b in blocks]
    s = detect(status)
    assert s.kind == "stanzas" and len(s.records) == len(parsed)
    bash = next(p for p in parsed if p.get("Package") == "bash")
    assert field_of(status, "bash", "Version") == bash["Version"]
    assert record_of(status, "bash").key == "bash"
    assert count_where(status, "Priority", "required") == sum(p.get("Priority") == "required" for p in parsed)
    biggest = max(parsed, key=lambda p: int(p.get("Installed-Size", "0")))
    assert max_of(status, "Installed-Size").key == biggest["Package"]


def test_real_passwd_and_os_release():
    passwd = _read("/etc/passwd")
    rows = [ln.split(":") for ln in passwd.splitlines() if ln.strip() and not ln.startswith("#")]
    assert detect(passwd).kind == "table" and detect(passwd).detail == "colon"
    assert field_of(passwd, "root", "col7") == rows[0][6] and key_of(passwd, rows[-1][5]) == rows[-1][0]
    release = _read("/etc/os-release")
    values = dict(ln.split("=", 1) for ln in release.splitlines() if "=" in ln and not ln.startswith("#"))
    assert detect(release).kind == "assignments"
    assert field_of(release, "ID", "ID") == values["ID"].strip('"')


def test_real_services_and_zone_tables():
    services = _read("/etc/services")
    s = detect(services)
    assert (s.kind, s.detail) == ("table", "whitespace")
    ssh = next(ln.split() for ln in services.splitlines() if re.match(r"ssh\s", ln))
    assert field_of(services, "ssh", "col2") == ssh[1] and key_of(services, "22/tcp") == "ssh"
    zones = _read("/usr/share/zoneinfo/zone1970.tab")
    rows = [ln.split("\t") for ln in zones.splitlines() if ln and not ln.startswith("#")]
    z = detect(zones)
    assert (z.kind, z.detail, z.field_names[:3]) == ("table", "tsv", ("codes", "coordinates", "TZ"))
    assert len(z.records) == len(rows) and key_of(zones, "Europe/Paris") == next(
        r[0] for r in rows if r[2] == "Europe/Paris"
    )


def test_real_python_metadata_header():
    paths = sorted(glob.glob(os.path.join(os.path.dirname(pytest.__file__), "..", "pytest-*.dist-info", "METADATA")))
    text = _read(paths[0] if paths else "/nonexistent/pytest METADATA")
    s = detect(text)
    assert s.kind == "stanzas" and s.records[0].get("Name") == "pytest"
    assert s.records[0].get("Version") == pytest.__version__


# -- inside the sandbox worker and standalone ----------------------------------------------------------------
def test_structure_helpers_inside_the_sandbox_worker():
    from dspy_rlm.sandbox.backend import SubprocessREPL

    with SubprocessREPL(output_fields=["answer"], timeout_s=60) as repl:
        repl.load_inputs({"pkgs": STANZAS, "cfg": INI})
        result = repl.run(
            "print(record_of(pkgs, 'dash'))\nprint(field_of(cfg, 'client', 'port'), count_records(pkgs, 'shell'),"
            " key_of(cfg, '8080'), exists(pkgs, 'zsh'))\nprint(structure(cfg))"
        )
    assert result.error is None, result.error
    assert result.stdout.splitlines() == [
        "record 1 (lines 8-10):",
        "  Package: dash",
        "  Version: 0.5.12-2",
        "  Description: POSIX shell",
        "445 2 server True",
        "ini, 2 records",
        "fields: host, port, retries",
    ]


def test_structure_helpers_in_a_standalone_namespace():
    ns: dict = {}
    exec(compile(standalone_source(), "<helpers-standalone>", "exec"), ns)
    helpers = ns["make_helpers"]()
    assert helpers["field_of"](STANZAS, "bash", "Version") == "5.2-1"
    assert str(helpers["max_of"](CSV, "population")) == "Amber Falcon: 1,234,567"


# -- property: detection never raises, and every field value is a span of the text ------------------------
LINE = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["", "# c", "[sec]", "k = v", "Key: value", " cont", "- item", "| a | b |", "|---|---|"]),
    st.builds(lambda a, b: f"{a}:{b}", st.text(max_size=8), st.text(max_size=8)),
    st.builds(lambda a, b: f"{a}\t{b}", st.text(max_size=8), st.text(max_size=8)),
    st.builds(lambda a, b: f'{{"{a}": "{b}"}}', st.text("ab", max_size=3), st.text(max_size=5)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=12).map("\n".join))
def test_detect_never_raises_and_values_are_spans(text):
    s = structure_module._detect(text)  # unguarded: a parser bug fails here instead of falling back
    assert s.kind in KINDS
    for r in s.records:
        assert 1 <= r.line <= r.end_line <= text.count("\n") + 1
        for _, value in r.fields:
            if s.kind == "jsonl":
                assert json.dumps(value, ensure_ascii=False)[1:-1] in text or value in text
            else:
                assert value in text or value.replace('"', '""') in text, (value, text)


@settings(max_examples=200, deadline=None)
@given(st.lists(LINE, max_size=12).map("\n".join), st.data())
def test_records_found_by_one_pass_are_the_records_containing_the_word(text, data):
    tokens = words(text)
    word = data.draw(st.sampled_from(tokens) if tokens else st.just("x"))
    every = [
        r.index for r in detect(text).records if matches(word, r.text) or any(matches(word, v) for _, v in r.fields)
    ]
    assert [r.index for r in records(text, word, limit=10**6)] == every
    assert count_records(text, word) == len(every) and exists(text, word) == bool(every)


# -- a JSON document of records, key=value lines, a whitespace table's header row (issue 28) ---------------------
def test_a_json_array_of_objects_is_records_spanning_their_own_lines():

    text = json.dumps([{"id": f"h{i}", "os": "Debian", "cores": i} for i in range(5)], indent=2)
    s = detect(text)
    assert s.kind == "json" and len(s.records) == 5 and s.field_names == ("id", "os", "cores")
    r = s.records[2]
    assert r.key == "h2" and r.get("cores") == "2" and '"id": "h2"' in r.text and '"h3"' not in r.text


def test_an_object_of_objects_one_level_down_is_keyed_by_member_names():

    text = json.dumps({"version": 3, "items": {f"k{i}": {"name": f"N {i}", "size": i} for i in range(4)}}, indent=1)
    s = detect(text)
    assert s.kind == "json" and [r.key for r in s.records] == ["k0", "k1", "k2", "k3"]
    assert s.records[1].get("name") == "N 1"


def test_of_two_arrays_of_records_the_one_holding_most_of_the_text_is_the_records():
    # an SBOM's shape: a few large component records, many short dependency links after them
    components = [
        {"name": f"crate{i}", "version": f"1.{i}.0", "purl": f"pkg:cargo/crate{i}@1.{i}.0", "sha256": f"{i}" * 64}
        for i in range(6)
    ]
    links = [{"ref": f"crate{i % 6}", "dependsOn": []} for i in range(20)]
    document = {"bomFormat": "CycloneDX", "components": components, "dependencies": links}
    s = detect(json.dumps(document, indent=1))
    assert s.kind == "json" and len(s.records) == 6 and s.records[2].get("version") == "1.2.0"


def test_a_json_document_without_records_is_not_json_records():
    assert detect('{"a": 1, "b": {"c": 2}}').kind != "json"


def test_logfmt_lines_are_records_of_their_pairs():
    text = "\n".join(f'user=u{i} level=info msg="took {i} ms" status={200 + i}' for i in range(6))
    s = detect(text)
    assert s.kind == "logfmt" and s.records[3].get("msg") == "took 3 ms" and s.records[3].key == "u3"


def test_a_whitespace_table_header_row_names_the_columns_but_a_names_only_table_keeps_its_first_row():
    rows = [f"host-{i}    10.0.0.{i}    Debian {i % 2}    {i * 4}" for i in range(6)]
    s = detect("\n".join(["hostname  address    os          cores", *rows]))
    assert s.field_names[:4] == ("hostname", "address", "os", "cores") and len(s.records) == 6
    names = detect("\n".join(["POSIX    C", "en_US    en_US.UTF-8", "de_DE    de_DE.UTF-8", "fr_FR    fr_FR.UTF-8"]))
    assert names.records[0].key == "POSIX"


def test_a_makefile_rule_keeps_its_values_spans_of_the_text():
    # found by the property above: a carriage return inside a rule's prerequisites had been read as a space
    text = "A=\nA=\nA=\n0:0\r0"
    assert all(v in text for r in structure_module._detect(text).records for _, v in r.fields)
