"""What the second probe (``benchmarks/asked/probe2.json``: ten more real files no benchmark used, questions by
someone who never saw the code) showed, each rebuilt here on a small file of its shape:

* formats read wrong: directive blocks (``chip "x-*"`` over indented ``label fan1 "PSU Fan"`` lines), a profile
  file (``[section]`` over ``name = { ... }`` blocks), a tab-indented config read as TSV, Java properties with
  ``\\`` continuations and an empty ``KEY=`` (the parse failed: lines), two colon-joined columns with no space
  (``mime:icon``, first row taken for names), stanzas under a one-line header;
* wrong answers ``Submitted``: "no" from a plain word missing beside identifiers present, a count of whole parts
  where other values hold the word, a token after an identifier read as its value, a key several records share
  with different values, a ranking over one of several named fields, a lookup for a ranking, the first step of a
  two-step question, a field named by the file's description ("the linker *flag* table") or by an identifier
  naming the file ("in *java.security*").
"""

from __future__ import annotations

import json

from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted as _ask

PROFILE = (
    "[defaults]\n\tblocksize = 4096\n\tinode_size = 256\n\tinode_ratio = 16384\n\n[fs_types]\n"
    "\tfast = {\n\t\tfeatures = journal,extent,checksum\n\t}\n"
    "\ttiny = {\n\t\tblocksize = 1024\n\t\tinode_ratio = 4096\n\t}\n"
    "\tvast = {\n\t\tinode_ratio = 4194304\n\t\tnested = {\n\t\t\tdepth = 2\n\t\t}\n\t}\n"
    "\tplain = {\n\t\tfeatures = journal\n\t}\n"
)
PROPERTIES = (
    "#\n# Settings of the engine.\n#\n"
    + "".join(f"engine.slot.{i}=Module{chr(64 + i)}\n" for i in range(1, 8))
    + "store.type=pkcs12\nstore.fallback=\nlimits.list=alpha, beta, \\\n    gamma, delta\n"
    + "retry.policy=tryLast\nmax.hops=5\n"
)
ICONS = "\n".join(
    f"{kind}/{name}:{icon}"
    for kind, name, icon in [
        ("application", "x-tar", "package-x-generic"),
        ("application", "x-zip", "package-x-generic"),
        ("text", "x-csv", "x-office-spreadsheet"),
        ("inode", "directory", "folder"),
        ("application", "pkcs7-mime", "text-x-generic"),
        ("text", "x-log", "text-x-generic"),
        ("application", "msword", "x-office-document"),
        ("application", "rtf", "x-office-document"),
        ("text", "x-tex", "x-office-document"),
    ]
)
STANZAS = "ChangelogURI: http://example.org/%s/changelog\n\n" + "\n".join(
    f"Suite: {name}\nRepositoryType: deb\nDescription: {desc}\nComponent: main\n"
    for name, desc in [
        ("alpha", "Distro 10.0 'Alpha'"),
        ("alpha", "Disc with Distro 10.0 'Alpha'"),
        ("bravo", "Distro 6.0 'Bravo'"),
        ("bravo", "Disc with Distro 6.0 'Bravo'"),
        ("charlie", "Distro 3.0 'Charlie'"),
    ]
)
CASING = "# code; lower; title; upper; condition; # name\n" + "\n".join(
    [
        "0130; 0069; 0130; 0130; tr; # CAPITAL I WITH DOT",
        "0307; ; 0307; 0307; tr After_I; # COMBINING DOT",
        "0049; 0131; 0049; 0049; tr Not_Before_Dot; # CAPITAL I",
        "0069; 0069; 0130; 0130; tr; # SMALL I",
        "03A3; 03C2; 03A3; 03A3; Final_Sigma; # CAPITAL SIGMA",
        "00CC; 0069 0307 0300; 00CC; 00CC; lt; # CAPITAL I WITH GRAVE",
    ]
)
NEWS = "What's New in 3.9.0\n==================\n\ngh-1001 Support tab completion in the shell.\nPatch by Ann Lee.\n\n"
PRICES = "Date,Open,High,Low,Close,Volume,Adj Close\n" + "\n".join(
    f"{d}-Jun-03,{o},{o + 1},{lo},{c},{v},{c - 0.02:.2f}"
    for d, o, lo, c, v in [(20, 25, 24.5, 25.2, 100), (23, 26, 23.1, 25.9, 300), (24, 25, 24.0, 24.8, 200)]
)


CHIPS = (
    "# sensors\n\n"
    'chip "alpha-*" "alpha2-*"\n\n    label temp1 "Board Temp"\n\n'
    'chip "bravo-*"\n\n    label in0 "Vcore"\n    label in1 "+3.3V"\n    label fan1 "PSU Fan"\n'
    "    set in1_min 3.3 * 0.95\n    set in1_max 3.3 * 1.05\n\n"
    'chip "charlie-*"\n\n    label in0 "Vcore"\n    label in1 "+3.3V"\n    label temp1 "CPU1 Temp"\n'
    '    ignore fan2\n\nchip "delta-*"\n    label in0 "+3.3V"\n'
)


def test_a_profile_file_is_read_as_blocks_and_sections():
    s = detect(PROFILE)
    assert s.kind == "profile"
    assert [r.key for r in s.records] == ["defaults", "fast", "tiny", "vast", "plain"]
    assert s.records[3].get("nested.depth") == "2" and s.records[0].get("inode_size") == "256"
    assert _ask("Which filesystem type has the biggest inode_ratio?", PROFILE, "str") == ("vast", "submitted")
    assert _ask("What inode size is the default?", PROFILE, "str") == ("256", "submitted")
    assert _ask("Does the fast profile turn on the checksum feature?", PROFILE, "bool")[0] is True


def test_tab_indented_lines_are_no_tab_separated_table():
    assert detect("[a]\n\tx = 1\n\ty = 2\n\tz = 3\n[b]\n\tx = 4\n").kind != "table"


def test_properties_continue_past_a_backslash_and_keep_an_empty_value():
    s = detect(PROPERTIES)
    assert s.kind == "assignments"
    assert s.records[0].get("engine.slot.1") == "ModuleA"
    lists = next(r for r in s.records if r.key == "limits.list")
    assert lists.get("limits.list") == "alpha, beta, gamma, delta"
    assert next(r for r in s.records if r.key == "store.fallback").get("store.fallback") == ""
    assert _ask("tell me the default store type", PROPERTIES, "str") == ("pkcs12", "submitted")
    assert _ask("Which property in engine.properties is set to tryLast?", PROPERTIES, "str") == (
        "retry.policy",
        "submitted",
    )


def test_two_columns_joined_by_a_colon_are_a_table_whose_first_row_is_data():
    s = detect(ICONS)
    assert s.kind == "table" and s.field_names == ("col1", "col2") and len(s.records) == 9
    assert _ask("which mime type gets the folder icon?", ICONS, "str") == ("inode/directory", "submitted")
    assert _ask("How many MIME types use text-x-generic as their icon?", ICONS, "int") == (2, "submitted")
    answer, kind = _ask("Which generic icon is assigned to the most MIME types?", ICONS, "str")
    assert kind != "submitted" or answer == "x-office-document"  # never a record's value for a ranking


def test_stanzas_under_a_one_line_header_and_a_key_several_records_share():
    s = detect(STANZAS)
    assert s.kind == "stanzas" and [r.key for r in s.records][1:3] == ["alpha", "alpha"]
    assert _ask("Which suite is version 6.0?", STANZAS, "str") == ("bravo", "submitted")
    # two records keyed "alpha" hold different descriptions: the first one's is no sure answer
    answer, kind = _ask("Give the description of the disc entry for the alpha suite.", STANZAS, "str")
    assert kind != "submitted" or answer == "Disc with Distro 10.0 'Alpha'"


def test_a_plain_word_missing_beside_identifiers_present_is_no_no():
    # "profile" is no word of the file; "fast" and "checksum" are: its absence says nothing
    assert _ask("Does the fast profile turn on the checksum feature?", PROFILE, "bool") != (False, "submitted")
    assert _ask("Is there a fs type named zzz-99?", PROFILE, "bool") == (False, "submitted")  # an identifier


def test_a_count_of_whole_parts_where_other_values_hold_the_word_is_not_sure():
    answer, kind = _ask("how many casing entries are conditioned on Turkish (tr)?", CASING, "int")
    assert kind != "submitted" or answer == 4


def test_a_token_after_an_identifier_in_prose_is_no_value_of_it():
    answer, kind = _ask("Who is credited with the patch for gh-1001?", NEWS, "str")
    assert kind != "submitted" or answer == "Ann Lee"


def test_a_ranking_over_one_of_several_named_fields_and_the_field_asked_of_its_record():
    answer, kind = _ask("give the adjusted close for the day that had the lowest intraday low", PRICES, "str")
    assert kind != "submitted" or answer == "25.88"
    assert _ask("On which date was the trading volume the highest?", PRICES, "str") == ("23-Jun-03", "submitted")


def test_the_first_step_of_a_two_step_question_is_no_answer():
    for question in (
        "Take the value of max.hops and give me the engine slot registered under that number.",
        "retry.policy has a value. Which property has that value too?",
    ):
        assert _ask(question, PROPERTIES, "str")[1] != "submitted", question


def test_words_describing_the_file_name_no_field():
    from dspy_rlm.profiles.moves import MoveBook

    flags = json.dumps([{"name": n, "switch": f"{n[:2]}{i}", "flags": ["UserValue"]} for i, n in enumerate("ABCAAB")])
    book = MoveBook(
        {"question": "In the linker flag table, which setting name has the most entries?"},
        {"context": flags},
        {"answer": str},
    )
    assert "flags" not in book.named_fields("context") and "name" in book.named_fields("context")
    book = MoveBook({"question": "Which property in java.security is set to tryLast?"}, {"context": PROPERTIES}, {})
    assert book.fields["context"] == []


def test_directive_blocks_are_records_keyed_by_their_header():
    s = detect(CHIPS)
    assert s.kind == "blocks" and [r.key for r in s.records] == ["alpha-*", "bravo-*", "charlie-*", "delta-*"]
    assert s.records[1].get("label fan1") == "PSU Fan" and s.records[2].get("ignore") == "fan2"
    assert s.records[0].get("chip") == "alpha-* alpha2-*"
    assert _ask("What label does the bravo chip give to fan1?", CHIPS, "str") == ("PSU Fan", "submitted")
    assert _ask('which chip has a temperature labeled "CPU1 Temp"?', CHIPS, "str") == ("charlie-*", "submitted")
    # "label" names a family of fields (label in0, label in1, ...), none of them: no ranking of one is sure
    answer, kind = _ask("what is the most common label text across all the chips?", CHIPS, "str")
    assert kind != "submitted" or answer == "+3.3V"
    ssh = "Include /etc/ssh/conf.d/*.conf\nHost *\n    SendEnv LANG LC_*\n    HashKnownHosts yes\n"
    assert detect(ssh).kind == "blocks" and detect(ssh).records[1].get("HashKnownHosts") == "yes"
    code = "def f(x):\n    y = x + 1\n    return y\n\ndef g():\n    return f(2)\n"
    assert detect(code).kind != "blocks"
