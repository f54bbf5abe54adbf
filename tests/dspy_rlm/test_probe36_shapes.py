"""Shapes the thirty-sixth probe read wrong, each made up here: a yes/no stating a pair between two phrases that
each name a record ("does rt_tidecodes map 0x40 to K3?"), where the question also names the data by a name the
data does not hold; a setting whose value is a call given one list (``cycler('color', [...])``). Each positive
test fails before its change; each guard fails without its check."""

from __future__ import annotations

from dspy_rlm.library.items import list_items
from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted

_CODES = """# Tide codes of the harbour
# made up for a test
0x0\tcalm
0x20\tK1
0x40\tK2
0x60\tK3
0x80\tK4
0xA0\tK5
0xC0\tK6
0xE0\tK7
0xB8\tsurge
"""


def test_a_pair_stated_between_two_records_is_checked_though_the_data_is_named():
    assert ask_scripted("Does rt_tidecodes map 0x40 to K3?", _CODES, "bool") == (False, "submitted")


def test_a_pair_the_data_holds_is_a_yes():
    assert ask_scripted("Does rt_tidecodes map 0x40 to K2?", _CODES, "bool") == (True, "submitted")


def test_an_absent_name_beside_one_phrase_found_is_still_unchecked():
    # only 0x40 names a record: the absent identifier may be what is asked about
    assert ask_scripted("Does rt_harbourmaster use 0x40?", _CODES, "bool") == (True, "extracted")


_STYLE = """# A made-up plotting style
figure.facecolor: FDF6E3
lines.linewidth: 2
lines.markercycle: cycler('marker', ['o', 's', '^', 'd', 'x'])
axes.grid: True
grid.color: 93A1A1
legend.frameon: False
"""


def test_the_items_of_a_call_given_one_list():
    assert list_items("cycler('marker', ['o', 's', '^'])") == ["o", "s", "^"]
    assert list_items("span([1, 2], [3, 4])") == ["span([1, 2], [3, 4])"]  # two lists given: which one is no say
    assert ask_scripted("How many markers are in the lines.markercycle?", _STYLE, "int") == (5, "submitted")


_POLICIES = """{
 "HarbourRead": {"DefaultVersionId": "v3", "Document": {"Version": "2012-10-17"}, "Path": "/"},
 "HarbourWrite": {"DefaultVersionId": "v12", "Document": {"Version": "2012-10-17"}, "Path": "/"},
 "QuayAdmin": {"DefaultVersionId": "v9", "Document": {"Version": "2008-10-17"}, "Path": "/job/"},
 "TideAudit": {"DefaultVersionId": "v1", "Document": {"Version": "2012-10-17"}, "Path": "/"},
 "PilotOps": {"DefaultVersionId": "v4", "Document": {"Version": "2012-10-17"}, "Path": "/job/"}
}
"""


def test_numbers_under_one_prefix_rank_and_a_field_said_by_fewer_words_is_no_rival():
    # v12 ranks by its number; "version" alone names Document.Version, which the ranked field's words cover
    assert ask_scripted("Which policy has the highest default version number?", _POLICIES) == (
        "HarbourWrite",
        "submitted",
    )


def test_a_code_then_its_name_is_keyed_by_the_name():
    assert ask_scripted("Which entry in the tide codes has the largest value?", _CODES) == ("K7", "submitted")
    assert ask_scripted("What hex value is given to K3?", _CODES) == ("0x60", "submitted")
    assert detect(_CODES).records[1].key == "K1"


def test_codes_sharing_a_name_stay_keyed_by_the_code():
    shared = "0x0\tcalm\n0x20\tcalm\n0x40\tK2\n0x60\tK3\n"  # a name two codes have keys neither
    assert [r.key for r in detect(shared).records] == ["0x0", "0x20", "0x40", "0x60"]
