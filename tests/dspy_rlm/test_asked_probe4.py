"""What the fourth probe (``benchmarks/asked/probe4.json``: ten more real files no benchmark used, questions by
someone who never saw the code) showed, each rebuilt here on a small file of its shape:

* a YAML block scalar (``desc: |`` then indented lines) was read as the value ``|``;
* "is X listed up to version 3.13?" answered yes because X exists, though its record says 3.0-3.12;
* an alias (``family=family_light``) ``Submitted`` as the font that alias leads to;
* "most frequently" (an adverb) was no cue of a ranking, so one record's list was ``Submitted``;
* "the longest description" ranked the key field ``tag`` by length: ``desc`` was no field the question named;
* in a text of lines, the table's header line (read by "official", a word of "official name") gave a column's
  name, though the question's digraph "th" is not on it.
"""

from __future__ import annotations

from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted as _ask

TAGS = "".join(
    f"- tag: {name}\n  desc: |\n          {desc}\n          See the notes: kept for old code.\n"
    for name, desc in [
        ("inplace", "Marks operators that change their input in place."),
        ("legacy_flag", "Deprecated, does nothing. Use the new flag instead."),
        ("generated", "Operators the code generator wrote without an entry."),
        ("pointwise", "Operators that act on each element alone."),
    ]
)
VERSIONS = (
    "# Each line: a module, a colon, a space and a version range ('X.Y-A.B' or 'X.Y-').\n"
    "# 'X.Y-A.B': introduced in X.Y, last available in A.B; 'X.Y-': still available in the latest Python.\n"
) + "".join(
    f"{m}: {r}\n"
    for m, r in [("abc", "3.0-"), ("gopherlib", "3.0-3.12"), ("chunkio", "3.0-3.12"), ("zipx", "3.3-")]
    + [(f"mod{i}", f"3.{i % 9}-") for i in range(20)]
    + [("imp", "3.0-3.11"), ("tomlx", "3.13-"), ("annot", "3.14-")]
)
FONTS = (
    "# aliases\nserif=serif_regular\ngaramond=garamond_light\ngaramond_light=garamond_light\n"
    "garamond_bold=garamond_bold\n# fonts\ngaramond_light.latin1.plain=Garamond-Light\n"
    "garamond_bold.latin1.plain=Garamond-Bold\nserif_regular.latin1.plain=Times-Roman\n"
)
APPS = (
    "<conf>\n"
    + "".join(
        f'  <application name="{app}" executable="{app.lower()}.bin">\n'
        + "".join(f'    <option name="{o}" value="true"/>\n' for o in opts)
        + "  </application>\n"
        for app, opts in [
            ("Alpha", ["glthread", "zero_vram"]),
            ("Beta", ["glthread"]),
            ("workarounds", ["full_subgroups", "fp64_fix"]),
            ("Gamma", ["glthread", "fp64_fix"]),
            ("Delta", ["glthread"]),
            ("Epsilon", ["zero_vram"]),
            ("Zeta", ["glthread"]),
        ]
    )
    + "</conf>\n"
)


HELP = (
    "*digraphs.txt*\tFor Vim version 9.0.\n"
    + "".join(f"\t\t\t\t\t\t*digraph-{i}* *i_CTRL-K_{i}*\n{{char{i}}} CTRL-K |{i}|\n" for i in range(30))
    + "DEFAULT DIGRAPHS\n"
    "char  digraph\thex\tdec\tofficial name ~\n"
    "\u00fe\tth\t0xfe\t254\tLATIN SMALL LETTER THORN (Icelandic)\n"
    "\u00de\tTH\t0xde\t222\tLATIN CAPITAL LETTER THORN (Icelandic)\n"
    "\u00e6\tae\t0xe6\t230\tLATIN SMALL LETTER AE\n"
    "\u00df\tss\t0xdf\t223\tLATIN SMALL LETTER SHARP S (German)\n"
    "The official names come from the Unicode standard.\n"
)


def test_a_header_line_without_the_asked_phrase_is_no_answer():
    from dspy_rlm.profiles import kinds
    from dspy_rlm.profiles.moves import MoveBook

    q = "What's the official name of the character produced by the digraph th?"
    book = MoveBook({"question": q}, {"context": HELP}, {"answer": str})
    assert book.structs["context"].kind == "lines"
    header = next(m for m in book.read_moves() if m.helper == "record_of" and m.args == ("official",))
    found = kinds.evaluate(book, header, "")
    assert "hex" in [c.value for c in found] and not any(c.supported for c in found)
    assert "'th'" in found[0].why


def test_a_yaml_block_scalar_is_the_lines_under_its_key():
    s = detect(TAGS)
    assert s.kind == "yaml"
    record = next(r for r in s.records if r.key == "legacy_flag")
    # the block's own "See the notes: ..." line is text of the value, not a field
    assert record.fields == (
        ("tag", "legacy_flag"),
        ("desc", "Deprecated, does nothing. Use the new flag instead.\nSee the notes: kept for old code."),
    )
    folded = detect("a: >-\n  one\n  two\nb: |\n  x: 1\n  y\nc: plain\n")
    assert [r.fields for r in folded.records] == [(("a", "one two"),), (("b", "x: 1\ny"),), (("c", "plain"),)]


def test_a_yaml_block_value_is_submitted_whole():
    answer, kind = _ask("What does the desc say for the legacy_flag tag?", TAGS)
    assert "|" not in answer and kind == "submitted"
    assert answer.startswith("Deprecated, does nothing.")


def test_a_spelled_out_field_name_is_the_one_ranked():
    assert _ask("Which tag has the longest description?", TAGS) == ("generated", "submitted")


def test_a_number_the_record_does_not_hold_is_no_yes():
    from dspy_rlm.profiles import kinds
    from dspy_rlm.profiles.moves import MoveBook

    def exists(q: str) -> list[tuple]:
        book = MoveBook({"question": q}, {"context": VERSIONS}, {"answer": bool})
        move = next(m for m in book.read_moves() if m.helper == "exists" and m.args == ("gopherlib",))
        return [(c.value, c.supported) for c in kinds.evaluate(book, move, "")]

    assert exists("Is gopherlib listed as available up to Python 3.13?") == [(False, False)]  # no sure answer
    assert exists("Is gopherlib listed?") == [(True, True)]
    assert _ask("Is gopherlib listed as available up to Python 3.13?", VERSIONS, "bool")[1] == "extracted"


def test_an_alias_is_no_answer_for_what_it_leads_to():
    answer, kind = _ask("Which PostScript font is used for plain latin1 text when the family is 'garamond'?", FONTS)
    assert kind == "extracted", answer
    # the record read by its own key still answers
    assert _ask("What is garamond_bold.latin1.plain mapped to?", FONTS) == ("Garamond-Bold", "submitted")


def test_most_frequently_asks_a_ranking():
    from dspy_rlm.profiles import kinds
    from dspy_rlm.profiles.moves import MoveBook

    for q in ("What option name is set most frequently?", "Which option name is most commonly set?"):
        book = MoveBook({"question": q}, {"context": APPS}, {"answer": str})
        assert "most_common" in book.cues, q
        ranked = [m for m in book.read_moves() if m.helper == "most_common"]
        assert ranked and ranked[0].args == ("option.name",)
        assert [(c.value, c.supported) for c in kinds.evaluate(book, ranked[0], "")] == [("glthread", True)]
