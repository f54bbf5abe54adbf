"""Shapes and doubts from probe 44's wrong answers, on invented data: a count of records where the question counts
distinct things and the records repeat, a yes/no over a one-line JSON object whose ``is_X`` flag answers it, and
command lines of a few kinds (Vim's ``syn keyword NAME<TAB>words``) read as records keyed by their names."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted

_MAPPING = "".join(
    f"{db}/DB{sep}\t\t\t{name}\n"
    for sep in ("", ":")
    for db, name in [
        ("cp-x", "aa_AA.CPX"),
        ("cp-x", "bb_BB.CPX"),
        ("cp-y", "cc_CC.CPY"),
        ("cp-x", "dd_DD.CPX"),
        ("cp-z", "ee_EE.CPZ"),
        ("cp-y", "ff_FF.CPY"),
    ]
)


def test_a_count_of_repeated_records_is_no_count_of_distinct_things():
    # locale.dir lists each mapping twice (with and without ':'): 6 records, 3 names; 6 was Submitted
    answer = ask_scripted("How many distinct locale names are mapped to the cp-x database?", _MAPPING, "int")
    assert answer[1] != "submitted" or answer[0] == 3


def test_the_distinct_doubt_leaves_plain_counts_alone():
    from dspy_rlm.profiles.move import read
    from dspy_rlm.profiles.moves import MoveBook
    from dspy_rlm.profiles.repeats import repeats_counted

    def doubt(question: str) -> str | None:
        book = MoveBook({"question": question}, {"context": _MAPPING}, {"answer": int})
        move = read("count_if", "count", "count_if", "context", "col1", "part", "cp-x")
        return repeats_counted(book, move, None, None, _MAPPING)

    assert doubt("How many distinct locale names are mapped to the cp-x database?")
    assert doubt("How many locale names are mapped to the cp-x database?") is None
    once = _MAPPING.split("cp-x/DB:")[0]  # each mapping listed once: nothing repeats
    book = MoveBook({"question": "How many different names map to cp-x?"}, {"context": once}, {"answer": int})
    move = read("count_if", "count", "count_if", "context", "col1", "part", "cp-x")
    assert repeats_counted(book, move, None, None, once) is None


_PERSON = (
    '{"name": "jdoe", "display_name": "J. Doe", "is_team": false, "karma": 0, '
    '"self_link": "http://api.example/~jdoe", "members_link": "http://api.example/~jdoe/members"}\n'
)


def test_an_is_flag_of_a_one_line_object_is_read_not_the_names_presence():
    # "is limi a team?": exists('limi') printed True, and True was Submitted; the object says "is_team": false
    assert ask_scripted("Is jdoe a team according to this fixture?", _PERSON, "bool") == (False, "submitted")
    assert ask_scripted("Is jdoe a team?", _PERSON.replace('"is_team": false', '"is_team": true'), "bool") == (
        True,
        "submitted",
    )
    # the presence check still answers where no flag is named
    assert ask_scripted("Is there an entry named jdoe?", _PERSON, "bool")[0] is True


_SYNTAX = """\" Vim syntax file
\" Language:\tToy
if exists("b:current_syntax")
  finish
endif

syn case ignore

\" data types
syn keyword toyType\tbyte word long
syn keyword toyOp\tadd sub mul
syn keyword toyOp\tdiv mod
syn keyword toyOp\tjmp call ret
syn match toyNumber\t\t"[0-9]\\+"
syn match toyComment\t\t"%.*"
syn match toyComment\t\t"//.*"
syn region toyString\t\tstart=+"+ end=+"+

hi def link toyType\tType
hi def link toyOp\tKeyword
hi def link toyNumber\tNumber
hi def link toyComment\tComment
hi def link toyString\tString

let b:current_syntax = "toy"
"""


def test_command_lines_of_a_few_kinds_read_as_records_keyed_by_their_names():
    from dspy_rlm.library import structure as st

    s = st.detect(_SYNTAX)
    assert (s.kind, s.detail) == ("keywords", "directives")  # was a table: 'syn keyword toyType' one cell
    got = [(r.key, dict(r.fields)) for r in s.records]
    assert ("toyType", {"value": "byte word long", "directive": "syn keyword"}) in got
    assert ("toyNumber", {"value": "Number", "directive": "hi def link"}) in got
    assert sum(k == "toyOp" and f.get("directive") == "syn keyword" for k, f in got) == 3


def test_a_group_asked_by_its_words_is_never_the_command_line():
    answer = ask_scripted("Which syntax group covers byte, word and long?", _SYNTAX)
    assert answer[1] != "submitted" or answer[0] == "toyType"


def test_lines_of_a_directive_are_counted_by_its_words():
    assert ask_scripted("How many 'hi def link' lines does the file have?", _SYNTAX, "int") == (5, "submitted")
    assert ask_scripted("How many syn keyword lines are there?", _SYNTAX, "int") == (4, "submitted")


def test_tables_and_c_defines_keep_their_shapes():
    from dspy_rlm.library import structure as st

    table = "name\tkind\tsize\n" + "".join(f"item{i}\tplain\t{i}\n" for i in range(12))
    assert st.detect(table).kind == "table"
    header = "".join(f"#define ERR_{i} {i}\n" for i in range(12))
    s = st.detect(header)
    assert (s.kind, s.detail) == ("keywords", "directives") and s.records[3].key == "ERR_3"


_SETTINGS = "[search]\nexpand = true\nlimit = 20\n\n[output]\ncolor = false\nwidth = 80\n"


def test_a_flag_of_a_record_named_by_its_key_answers_not_the_keys_presence():
    # (the same check made probe 23's "does this config turn on backups for the passwords database?" and probe 33's
    # "is the search 'expand' option enabled?" right: a presence check had said no, or been doubted)
    assert ask_scripted("Is the search 'expand' option enabled?", _SETTINGS, "bool") == (True, "submitted")
    assert ask_scripted("Is the output color option enabled?", _SETTINGS, "bool") == (False, "submitted")
    stated = ask_scripted("Does the file set color=false?", _SETTINGS, "bool")  # a stated pair: presence checked
    assert stated[1] != "submitted" or stated[0] is True
