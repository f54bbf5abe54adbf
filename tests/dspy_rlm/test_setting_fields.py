"""Rankings over a record's own settings (``max_field`` / ``min_field``: "which limit under [worker] is set
highest?", "which directive is set to the largest number?"), a first line of counts and names over rows of
measurements, a column named by its place with a hyphen ("the largest first-column value"), a section named
before "table", and a ranking's key shared by other rows. Each positive test fails before its change; each guard
fails without its check."""

from __future__ import annotations

from dspy_rlm.library.results import Nothing
from dspy_rlm.library.structure import detect
from dspy_rlm.library.superlatives import max_field, min_field
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.oracle import host_reader
from tests.dspy_rlm.scripted import ask_scripted

_UNIT = """[Unit]
Description=Harbour pilot service
After=network.target

[Service]
ExecStart=/usr/lib/harbour/pilotd
Restart=always
RestartSec=5
TimeoutStopSec=90
LimitNOFILE=65536
LimitCORE=0
Nice=-2
"""

_TOML = """[project]
name = "quay"
version = "2.1"

[tool.lint.limits]
max-args = 11
max-branches = 108
max-returns = 10
label = "strict"
quoted = "5000"
inner.depth = 300

[tool.lint.other]
max-lines = 40
min-lines = 2
"""


def test_max_field_ranks_a_records_own_settings_and_every_records():
    assert max_field(_TOML, "tool.lint.limits") == ("inner.depth", "300")  # a dotted key's subtable is its own
    assert min_field(_TOML, "tool.lint.limits") == ("max-returns", "10")  # a quoted "5000" is a string
    assert max_field(_UNIT) == ("LimitNOFILE", "65536") and min_field(_UNIT) == ("Nice", "-2")
    assert isinstance(max_field(_TOML, "project"), Nothing)  # one number (none: '2.1' is quoted): nothing ranked


def test_which_setting_of_a_named_section_or_of_the_file_is_set_highest():
    assert ask_scripted("Which directive in this unit file is set to the largest number?", _UNIT) == (
        "LimitNOFILE",
        "submitted",
    )
    assert ask_scripted("Under tool.lint.limits, which numeric limit has the largest value?", _TOML) == (
        "inner.depth",
        "submitted",
    )
    assert ask_scripted("Which setting of the tool.lint.other table is set lowest?", _TOML) == (
        "min-lines",
        "submitted",
    )


def test_a_tie_or_a_field_the_records_share_leaves_the_ranking_unsupported():
    tied = _UNIT.replace("TimeoutStopSec=90", "TimeoutStopSec=65536")
    assert ask_scripted("Which directive in this unit file is set to the largest number?", tied)[1] != "submitted"
    hosts = "[alpha]\nport = 8080\nworkers = 4\n\n[beta]\nport = 9090\nworkers = 2\n"
    book = MoveBook(
        {"question": "Which setting in the file has the largest port?"}, {"context": hosts}, {"answer": str}
    )
    move = next(m for m in book.step_moves([], []) if m.kind == "max_field")
    out = host_reader(book.data)(move)
    book.record_read(move.code, out)
    ends = [m.candidate for m in book.step_moves([move.code], [out]) if m.kind == "submit" and m.candidate]
    port = next(c for c in ends if c.value == "port")  # a column ranked across records, no one setting
    assert not port.supported and "share" in port.why


_IRIS = "150,4,setosa,versicolor,virginica\n" + "".join(
    f"{5 + i % 7 / 10:.1f},{3 + i % 5 / 10:.1f},{1 + i % 4 / 10:.1f},{i % 3 / 10:.1f},{i % 3}\n" for i in range(40)
)


def test_a_first_line_of_counts_and_names_over_measurements_is_no_row():
    s = detect(_IRIS)
    assert s.kind == "table" and len(s.records) == 40 and s.field_names[0] == "col1"
    assert ask_scripted("What's the biggest value in the first column?", _IRIS, "float") == (5.6, "submitted")
    plain = "".join(f"{i},{i * 2},{i * 3}\n" for i in range(1, 30))  # every row of one kind: the first is data
    assert len(detect(plain).records) == 29


def test_a_column_named_by_its_place_with_a_hyphen_and_a_shared_key():
    book = MoveBook(
        {"question": "What is the last column of the row with the largest first-column value?"},
        {"context": _IRIS},
        {"answer": int},
    )
    assert book.named_fields("context") == ["col1", "col5"]
    # the winning row's first cell is a measure other rows share: it names no row
    _answer, ending = ask_scripted("Which row has the largest 2nd-column value?", _IRIS)
    assert ending != "submitted"


def test_a_section_named_before_table_is_the_key():
    book = MoveBook(
        {"question": "Which entry of the delzar table has the smallest value?"},
        {"context": _TOML_SECTIONS},
        {"answer": str},
    )
    assert "delzar" in [k.text for k in book.keys["context"]]


_TOML_SECTIONS = "[delzar]\nmosa-limit = 3814\nsahal_max = 1965\n\n[anlin]\nkaan-workers = 824\ntysen_limit = 905\n"
