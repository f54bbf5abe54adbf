"""A text of one section: with many settings (an ``entry_points.txt``) each setting is a record of its own, so
counts, reverse lookups and existence read its settings; with few, the setting that holds a value is what
"which console script runs X?" asks. An identifier written whole ("the tidewater.quant package") is a key even
where its words are settings' names. Each test fails before its change."""

from __future__ import annotations

from dspy_rlm.library.structure import detect
from tests.dspy_rlm.scripted import ask_scripted

_PLACES = ["ebb", "flow", "quant.awq", "quant.dwq", "quant.gptq", "chart", "buoy", "moor", "sound"]
_SCRIPTS = "[console_scripts]\n" + "".join(f"tide.{p.split('.')[-1]} = tidewater.{p}:main\n" for p in _PLACES)
_FEW = "[console_scripts]\n" + "".join(
    f"harbour-{n} = harbour.{m}\n" for n, m in [("pilot", "pilot:main"), ("dock", "dock:run"), ("log", "logs:cli")]
)


def test_a_lone_section_of_many_settings_is_read_one_setting_a_record():
    s = detect(_SCRIPTS)
    assert len(s.records) == 9 and s.records[0].key == "tide.ebb"
    assert s.records[2].fields == (("tide.awq", "tidewater.quant.awq:main"),)
    assert len(detect(_FEW).records) == 1  # three settings: one record, as before
    two = _SCRIPTS + "\n[gui_scripts]\ntide-gui = tidewater.gui:main\n"
    assert len(detect(two).records) == 2  # two sections: a record each


def test_the_settings_of_a_lone_section_are_counted_and_looked_up():
    question = "How many console scripts point into the tidewater.quant package?"
    assert ask_scripted(question, _SCRIPTS, "int") == (3, "submitted")
    assert ask_scripted("Which console script runs tidewater.chart:main?", _SCRIPTS) == ("tide.chart", "submitted")


def test_the_setting_holding_a_value_in_a_text_of_one_record():
    assert ask_scripted("Which console command runs harbour.dock:run?", _FEW) == ("harbour-dock", "submitted")
