"""Shapes the eleventh probe (``benchmarks/asked/probe11.json``) met on its first run, each rebuilt as a small
made-up file: a C-like interface file of constants and enums with ``/* */`` comments, a TypeScript declaration
file of types and class methods, and an X-macro table whose parameters a ``#define`` names. Each test failed
before."""

from __future__ import annotations

from dspy_rlm.library.callformat import looks_calls, parse_calls
from dspy_rlm.library.structure import detect
from dspy_rlm.profiles.kinds import evaluate
from dspy_rlm.profiles.moves import MoveBook
from tests.dspy_rlm.scripted import ask_scripted as _ask

XDR = """/*
 * A made-up lake protocol
 */
const LAKE_PORT       = 4711;
const LAKE_MAXNAME    = 64;
const LAKE_MAXBOATS   = 12;	/* per dock */

enum lakestat {
	LAKE_OK = 0,		/* all calm */
	LAKEERR_WAVE = 3,	/* waves too high */
	LAKEERR_ICE = 7,	/* frozen over */
	LAKEERR_FULL = 11,	/* no free mooring */
	LAKEERR_GONE = 19	/* boat not found */
};

enum boattype {
	BOAT_NONE = 0,	/* no boat */
	BOAT_CANOE = 1,	/* canoe */
	BOAT_PUNT = 2,	/* punt */
	BOAT_RAFT = 3	/* raft */
};

struct mooring {
	unsigned dock;		/* dock number */
	boattype kind;		/* what is moored */
	opaque tag<LAKE_MAXNAME>;
};
"""


def test_constants_and_enums_with_c_comments_are_literal_records():
    s = detect(XDR)
    assert (s.kind, s.detail) == ("assignments", "literals")  # before: lines
    by_key = {r.key: r for r in s.records}
    assert list(by_key["LAKEERR_FULL"].fields) == [
        ("value", "11"),
        ("block", "lakestat"),
        ("comment", "no free mooring"),
    ]
    assert by_key["LAKE_PORT"].get("value") == "4711"
    assert (by_key["dock"].get("value"), by_key["dock"].get("block")) == ("unsigned", "mooring")  # a declaration


def test_a_literals_value_beside_its_block_and_comment_is_vouched_for():
    # the one number of the record's own fields (its block says where it sits; its comment is words)
    assert _ask("What number does LAKEERR_FULL carry in the lakestat enum?", XDR, "int") == (11, "submitted")


TS = """/// a made-up declaration file
type Depths = {
  shallow: number; // in metres
  deep: number;
  /**
   * @deprecated use `deep` instead.
   */
  abyss: number;
};
type Paddle = (side: string) => boolean;
type Options<T = unknown> = {
  harbour: string;
  maxBoats?: number;
  paddle?: Paddle;
  quiet: boolean;
  tide?: T;
};
declare class Dock<T extends Depths = Depths> {
  private name?;
  constructor(options?: Partial<Options>);
  withHarbour(harbour: string): this;
  withMaxBoats(limit: number): this;
  launch(): Promise<T>;
}
export { Depths, Dock, Options };
"""


def test_typescript_declarations_are_literal_records_in_their_type():
    s = detect(TS)
    assert (s.kind, s.detail) == ("assignments", "literals")  # before: lines
    options = [r.key for r in s.records if r.get("block") == "Options"]
    assert options == ["harbour", "maxBoats", "paddle", "quiet", "tide"]  # "maxBoats?" is maxBoats
    by_key = {r.key: r for r in s.records}
    assert (by_key["withMaxBoats"].get("value"), by_key["withMaxBoats"].get("block")) == (
        "(limit: number): this",
        "Dock",
    )
    assert by_key["Paddle"].get("value") == "(side: string) => boolean"


def test_a_records_block_is_no_field_named_by_a_value():
    # "Dock" names the block the record sits in, not a field holding a value the question asks about
    book = MoveBook({"question": "which Dock method takes a parameter called limit?"}, {"context": TS}, {"answer": str})
    found = [c for m in book.read_moves() if m.kind == "record" for c in evaluate(book, m, "")]
    assert not [c for c in found if c.supported and c.label == "field name"]


def test_the_entries_of_a_named_block_are_counted_by_their_block():
    # before: count_records(context, 'Options') counted the lines naming Options (3), unsupported
    assert _ask("How many properties are declared in the Options type?", TS, "int") == (5, "submitted")


def test_a_field_the_question_names_that_the_record_lacks_leaves_its_value_unvouched():
    # "the note on abyss": the data has comments, abyss's entry none (its note is a doc comment above it); before,
    # reading its record vouched for its one own value ("number")
    q = "What does the @deprecated note on the abyss field of the Depths type say?"
    book = MoveBook({"question": q}, {"context": TS}, {"answer": str})
    record = next(m for m in book.read_moves() if m.kind == "record" and "'abyss'" in m.code)
    assert [c.value for c in evaluate(book, record, "")][:1] == ["number"]
    assert not [c for c in evaluate(book, record, "") if c.supported]


DEF = """//===-- a made-up X-macro table --===//
#ifndef HANDLE_BOAT
#define HANDLE_BOAT(ID, NAME, SEATS, YARD)
#endif
#ifndef HANDLE_OAR
#define HANDLE_OAR(ID, NAME)
#endif

// Boats.
HANDLE_BOAT(0x01, canoe, 2, LAKE)
HANDLE_BOAT(0x02, kayak, 1, LAKE)
HANDLE_BOAT(0x03, punt, 4, RIVER)
HANDLE_BOAT(0x04, raft, 6, LAKE)
HANDLE_BOAT(0x05, dinghy, 3, SEA)
HANDLE_BOAT(0x06, skiff, 2, SEA)
// Oars.
HANDLE_OAR(0x01, feather)
HANDLE_OAR(0x02, spoon)
HANDLE_OAR(0x03, flat)
HANDLE_OAR(0x04, sculling)
HANDLE_OAR(0x05,
           sweep)

#undef HANDLE_BOAT
#undef HANDLE_OAR
"""


def test_an_x_macro_table_is_a_table_of_calls_named_by_its_defines():
    s = detect(DEF)
    assert (s.kind, s.detail) == ("table", "calls")  # before: lines
    by_key = {r.key: r for r in s.records}
    assert list(by_key["punt"].fields) == [
        ("call", "HANDLE_BOAT"),
        ("ID", "0x03"),
        ("NAME", "punt"),
        ("SEATS", "4"),
        ("YARD", "RIVER"),
    ]
    assert list(by_key["sweep"].fields) == [("call", "HANDLE_OAR"), ("ID", "0x05"), ("NAME", "sweep")]  # two lines
    assert _ask("What's the BOAT code for the punt?", DEF) == ("0x03", "submitted")  # "code" names the field ID


def test_a_program_calling_many_functions_is_no_call_table():
    program = "\n".join(f"step_{i}(boat, {i})" for i in range(20))  # twenty callees: a program, not a table
    assert looks_calls(program.splitlines()) == 0.0
    rows, names = parse_calls(['ENTRY("canoe, red", 2)', "ENTRY('punt', 4);  // long"])
    assert [r[2] for r in rows] == [[("call", "ENTRY"), ("arg1", "canoe, red"), ("arg2", "2")],
                                    [("call", "ENTRY"), ("arg1", "punt"), ("arg2", "4")]]  # fmt: skip
    assert names == ["call", "arg1", "arg2"]


def test_a_line_of_two_calls_is_no_call():
    rows, _ = parse_calls(["F(1,", "  2)", "G(a) + H(b)", "K(1, (2))"])
    assert [(r[0], r[1], r[2][0][1]) for r in rows] == [(0, 1, "F"), (3, 3, "K")]  # before: G(a) + H(b) as G's
