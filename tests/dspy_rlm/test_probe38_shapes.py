"""Shapes the thirty-eighth probe read wrong, each made up here: a count whose noun every record holds (the block
they sit in) beside the phrase that picks some; the fields of one record ranked where it holds one; the first item
of a list asked by its place; a column of bare hex codes; two kinds of XML element beside each other; a record
asked whether it has a thing the data never names. Each positive test fails before its change; each guard fails
without its check."""

from __future__ import annotations

from dspy_rlm.library.items import most_items
from dspy_rlm.library.structure import detect
from dspy_rlm.library.superlatives import max_of
from dspy_rlm.profiles.kind_registry import KINDS
from dspy_rlm.profiles.move import read
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.oracle import host_reader
from tests.dspy_rlm.scripted import ask_scripted


def _mapping() -> str:
    rows = []
    for i in range(30):
        module = f"harbour.boats.{('sail', 'motor', 'row')[i % 3]}"
        globs = ", ".join(repr(f"*.b{i}{j}") for j in range(i % 4))
        rows.append(f"    'Boat{i}': ('{module}', 'Boat {i}', ('b{i}',), ({globs}{',' if i % 4 == 1 else ''})),\n")
    return "# generated\n\nBOATS = {\n" + "".join(rows) + "}\n"


_MAPPING = _mapping()


def _candidates(question: str, text: str, kind: str, answer: type = str) -> list:
    book = MoveBook({"question": question}, {"context": text}, {"answer": answer})
    move = next(m for m in book.step_moves([], []) if m.kind == kind)
    out = host_reader(book.data)(move)
    book.record_read(move.code, out)
    return [m.candidate for m in book.step_moves([move.code], [out]) if m.kind == "submit" and m.candidate]


def test_a_count_of_the_noun_every_record_holds_is_no_answer():
    ends = _candidates("How many boats live in the harbour.boats.sail module?", _MAPPING, "count_where", int)
    assert ends and not any(c.supported for c in ends if str(c.value) == "30")
    assert "noun counted" in next(c for c in ends if str(c.value) == "30").why


def test_a_record_holding_one_list_ranks_nothing():
    # a key phrase found in one record's key ("module" in 'Modula2Lexer') ranks that record's fields by their items
    book = MoveBook({"question": "Which boat module holds the most boats?"}, {"context": _MAPPING}, {"answer": str})
    move = read("most_items", "I will find the longest list.", "most_items", "context", "Boat3")
    result = most_items(_MAPPING, "Boat3")
    assert result[0] == "value"
    ends = KINDS["most_items"].evaluate(book, move, str(result), None, result)
    assert ends and not any(c.supported for c in ends) and "one list" in ends[0].why


_STYLE = """font.family : serif
font.fantasy : Comic Sans MS, Chicago, Charcoal, Impact
font.cursive : Apple Chancery, Textile, cursive
lines.linewidth : 1.0
"""


def test_the_first_item_of_a_list_asked_by_its_place():
    assert ask_scripted("What is the first font listed under font.fantasy?", _STYLE) == ("Comic Sans MS", "submitted")
    assert ask_scripted("What is the last font named under font.cursive?", _STYLE) == ("cursive", "submitted")
    whole = ask_scripted("What fonts does font.fantasy list?", _STYLE)  # no place asked: the list whole
    assert whole[0] == "Comic Sans MS, Chicago, Charcoal, Impact"


_ETHER = """# a table of frame types
IPv4\t 0800  \tip ip4\t\t# Internet IP (IPv4)
ARP\t\t0806  \tether-arp\t#
RARP\t\t8035\t\t\t\t# Reverse ARP
IPv6\t\t86DD  \tip6\t\t# IP version 6
LoWPAN\t\tA0ED\t\t\t\t# 6LoWPAN
ROCE\t\t8915\t\t\t\t# RDMA over Converged Ethernet
"""


def test_a_column_of_bare_hex_codes_ranks_in_hex():
    s = detect(_ETHER)
    field = s.field_names[1]
    assert max_of(_ETHER, field) == ("LoWPAN", "A0ED")
    decimal = "a 10\nb 9\nc 100\nd 55\n"  # plain numbers stay decimal
    assert max_of(decimal, detect(decimal).field_names[1]) == ("c", "100")


_CODES = """<?xml version="1.0" encoding="UTF-8"?>
<codes>
	<code letter="AAA" number="001" name="Alpha Pound"/>
	<code letter="BBB" number="002" name="Beta Mark"/>
	<code letter="CCC" number="003" name="Gamma Dollar"/>
	<old_code letter="DDD" number="004" name="Beta Mark" withdrawn="1999"/>
	<old_code letter="EEE" number="005" name="Beta Mark" withdrawn="2001"/>
	<old_code letter="FFF" number="006" name="Gamma Dollar" withdrawn="2002"/>
</codes>
"""


def test_two_kinds_of_element_side_by_side_are_records_each_saying_its_kind():
    s = detect(_CODES)
    assert len(s.records) == 6 and "element" in s.field_names
    assert [r.get("element") for r in s.records].count("old_code") == 3
    answer, _ = ask_scripted("Which name appears most often, counting both current and old codes?", _CODES)
    assert answer == "Beta Mark"


_RPC = "portmapper\t100000\tportmap sunrpc rpcbind\nrstatd\t\t100001\trstat rup perfmeter\nypbind\t\t100007\n"


def test_a_record_asked_whether_it_has_a_thing_the_data_never_names():
    _answer, ending = ask_scripted("Does ypbind have any aliases listed?", _RPC, "bool")
    assert ending != "submitted"
    assert ask_scripted("Is ypbind listed?", _RPC, "bool") == (True, "submitted")


_ZONES = (
    "#code\tcoordinates\tTZ\t\t\tcomments\n"
    + "".join(
        f"C{i}\t{'+' if i % 2 else '-'}{(i * 7) % 90:02d}{i % 60:02d}{'+' if i % 3 else '-'}{i:03d}00\tArea/Z{i}\t"
        f"{'summer time' if i in (3, 5) else 'zone ' + str(i)}\n"
        for i in range(1, 12)
    )
    + "C12\t+394421-1045903\tArea/Far\tfar north\n"
)


def test_a_comment_header_aligned_by_tabs_names_the_columns():
    assert detect(_ZONES).field_names == ("code", "coordinates", "TZ", "comments")
    assert ask_scripted("What comment does zone.tab give for Area/Z7?", _ZONES) == ("zone 7", "submitted")


def test_coordinates_of_two_numbers_rank_nothing_and_time_zone_says_tz():
    # "+394421-1045903" ranked by its first number beats every "+DDMM": no answer; "time" is a word of "time
    # zone" (the field TZ by its initials), no key of the two records whose comments say "time"
    _answer, ending = ask_scripted("Which time zone has the northernmost coordinates?", _ZONES)
    assert ending != "submitted"
    ends = _candidates("Which TZ has the largest coordinates?", _ZONES, "max")
    assert ends and not any(c.supported for c in ends) and "two numbers" in ends[0].why
    book = MoveBook(
        {"question": "Which time zone has the northernmost coordinates?"}, {"context": _ZONES}, {"answer": str}
    )
    assert "time" not in [k.text for k in book.keys["context"]]
