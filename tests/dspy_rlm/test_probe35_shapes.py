"""Shapes the thirty-fifth probe read wrong, each made up here: a value many records hold, asked of the one record
another phrase names ("is Wavecutter UI given sans-serif?": its own record lacks it), and a markdown
table's cells written as reference links (``[Ines Moreau][imoreau]``: the text is the value, unless the link is
asked or the text is the phrase read by). Each positive test fails before its change; each guard fails without its
check."""

from __future__ import annotations

from dspy_rlm.profiles.linktext import link_text
from dspy_rlm.profiles.moves import MoveBook
from dspy_rlm.profiles.oracle import host_reader
from tests.dspy_rlm.scripted import ask_scripted

_ALIASES = """<?xml version="1.0"?>
<fontconfig>
  <alias><family>Wavecutter UI</family><default><family>system-ui</family></default></alias>
  <alias><family>Harbourline</family><default><family>sans-serif</family></default></alias>
  <alias><family>Tidemark</family><default><family>sans-serif</family></default></alias>
  <alias><family>Keelson</family><default><family>monospace</family></default></alias>
  <alias><family>Gunwale</family><default><family>sans-serif</family></default></alias>
  <alias><family>Bollard</family><default><family>sans-serif</family></default></alias>
  <alias><family>Capstan</family><default><family>sans-serif</family></default></alias>
  <alias><family>Halyard</family><default><family>sans-serif</family></default></alias>
  <alias><family>Lanyard</family><default><family>sans-serif</family></default></alias>
  <alias><family>Mooring</family><default><family>sans-serif</family></default></alias>
  <alias><family>Painter</family><default><family>sans-serif</family></default></alias>
  <alias><family>Scupper</family><default><family>sans-serif</family></default></alias>
  <alias><family>Stanchion</family><default><family>sans-serif</family></default></alias>
  <alias><family>Thwart</family><default><family>sans-serif</family></default></alias>
  <alias><family>Transom</family><default><family>sans-serif</family></default></alias>
  <alias><family>Winch</family><default><family>sans-serif</family></default></alias>
  <alias><family>Yardarm</family><default><family>sans-serif</family></default></alias>
  <alias><family>Bilge</family><default><family>sans-serif</family></default></alias>
  <alias><family>Cleat</family><default><family>sans-serif</family></default></alias>
  <alias><family>Davit</family><default><family>sans-serif</family></default></alias>
  <alias><family>Fairlead</family><default><family>sans-serif</family></default></alias>
  <alias><family>Grommet</family><default><family>sans-serif</family></default></alias>
  <alias><family>Hawser</family><default><family>sans-serif</family></default></alias>
  <alias><family>Jackstay</family><default><family>sans-serif</family></default></alias>
</fontconfig>
"""

_CREWS = """# Made-up harbour crews

| Crew | Lead | Notes |
|------|------|-------|
| Night watch | [Ines Moreau][imoreau] | two boats |
| Dredging | [Tomas Varga][tvarga] | spring only |
| Pilotage | [Ada Brink][abrink] | all year |
| Towing | [Lena Roos][lroos] | two tugs |
| Buoy tending | [Piet Hals][phals] | summer |
| Fuelling | [Mara Quist][mquist] | all year |
| Rescue | [Jon Eide][jeide] | on call |

[imoreau]: https://example.org/imoreau
[tvarga]: https://example.org/tvarga
[abrink]: https://example.org/abrink
[lroos]: https://example.org/lroos
[phals]: https://example.org/phals
[mquist]: https://example.org/mquist
[jeide]: https://example.org/jeide
"""


def _exists_read(question: str, phrase: str) -> list:
    book = MoveBook({"question": question}, {"context": _ALIASES}, {"answer": bool})
    move = next(m for m in book.read_moves() if m.kind == "exists" and repr(phrase) in m.code)
    book.record_read(move.code, host_reader(book.data)(move))
    return [(c.value, c.supported) for c in book.reads[move.code]]


def test_a_value_many_records_hold_is_no_yes_for_a_record_that_lacks_it():
    q = "Is Wavecutter UI given sans-serif as its default family?"  # ("UI": a word of system-ui too)
    assert _exists_read(q, "sans-serif") == [(True, False)]  # the value is there, not in Wavecutter UI's record
    assert ask_scripted(q, _ALIASES, "bool") == (True, "extracted")  # the unsupported yes, not Submitted


def test_a_value_the_named_record_holds_is_still_a_yes():
    q = "Is Harbourline given sans-serif as its default family?"
    assert ask_scripted(q, _ALIASES, "bool") == (True, "submitted")


def test_the_text_of_a_markdown_link():
    assert link_text("[Ines Moreau][imoreau]") == "Ines Moreau"
    assert link_text("[docs](https://example.org/docs)") == "docs"
    assert link_text("see [docs](https://example.org/docs)") is None  # not one link, whole


def test_a_cell_written_as_a_reference_link_answers_with_its_text():
    assert ask_scripted("Who is the lead of the Dredging crew?", _CREWS) == ("Tomas Varga", "submitted")


def test_a_reverse_lookup_by_a_linked_name_gives_the_record_not_the_name():
    # the phrase read by is no answer to a reverse lookup, and nothing supports it (stop 85: the record's key is
    # read, no field its one record lacks, and extracted; since probe 40 the Crew column the question names is
    # the record's key read off the Lead column's phrase: vouched for)
    assert ask_scripted("Which crew does Ada Brink lead?", _CREWS) == ("Pilotage", "submitted")
