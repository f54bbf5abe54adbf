"""Shapes from stop 95's scripted host check (three right or unsubmitted answers turned wrong Submits), on invented
data: a provider keyed by its spelled name whose nested endpoint flag the question names by its own word ("can X do
reranking according to this file?"), the asker's word for the document stating nothing of it; an issue listed in
another release's section than the one asked ("is kl-5120 listed in the section for 4.2.0?"); and a question whose
second sentence points back with "that PFM file" after a verb in -s ("What program generates that PFM file?"),
which is a second step, no relative clause. Each test fails on the code before its change."""

from __future__ import annotations

import json

import pytest

from tests.dspy_rlm.scripted import ask_scripted

_ENDPOINTS = ["chat", "embeddings", "rerank", "ocr", "batches", "files"]
_PROVIDERS = [
    ("beta_cloud", "Beta Cloud"),
    ("gamma_works", "Gamma Works"),
    ("delta_ai", "Delta AI"),
    ("epsilon", "Epsilon"),
    ("zeta_labs", "Zeta Labs"),
    ("eta", "Eta"),
    ("theta_run", "Theta Run"),
    ("iota", "Iota"),
]
SUPPORT = json.dumps(
    {
        "_comment": "Which endpoints each provider of the gateway supports",
        "providers": {
            name: {
                "display_name": f"{label} (`{name}`)",
                "url": f"https://docs.example.org/providers/{name}",
                "endpoints": {e: (i + j) % 3 == 0 for j, e in enumerate(_ENDPOINTS)},
            }
            for i, (name, label) in enumerate(_PROVIDERS)
        },
        "endpoints": {
            e: {
                "docs_label": e,
                "display_name": f"The {e} API",
                "leftnav_label": f"/{e}",
                "provider_json_field": e,
                "url": f"https://docs.example.org/{e}",
            }
            for e in _ENDPOINTS
        },
    },
    indent=2,
)

NEWS = """What's New in Kiln 4.2.z
(since 4.2.0)
Released after 2026-03-02
=========================


kl-5120: Stop the glaze preview from resetting the cone number and test
other uses of the cone table.

kl-5104: Fix door sensor readings on slow boards.

kl-5099 Keep the firing log open after a power cut.


What's New in Kiln 4.2.0
(since 4.1.0)
Released on 2026-03-02
=========================

kl-5071: Fix a bug in the previous bugfix that made Kiln not start on
boards with 4.1.3 firmware.  4.2.0 was never affected.

kl-5066: Document the vent schedule in the manual.

kl-5040: Show the cone number while firing.


What's New in Kiln 4.1.0
(since 4.0.0)
Released on 2025-09-14
=========================

kl-4980: Add a cooling curve editor.

kl-4977: Save the last glaze used per shelf.
"""

MAKEFILE = """FONTS = kilnsans.pfb kilnserif.pfb kilnmono.pfb
GLYPHS = glyphs/sans glyphs/serif

all: $(FONTS) KILN

kilnsans.pfb: glyphs/sans/*.svg
\tpotter --build sans --out $@

kilnserif.pfb: glyphs/serif/*.svg
\tpotter --build serif --out $@

kilneuro.pfm: kilneuro.sfd
\tglazeforge -script pfm.pe $<

KILN: kilneuro.pfm
\tt1binary --font kilneuro.pfm KILN

clean:
\trm -f $(FONTS) KILN kilneuro.pfm
"""


@pytest.mark.parametrize(
    ("name", "expected"), [("Gamma Works", True), ("Beta Cloud", False), ("Zeta Labs", True), ("Delta AI", False)]
)
def test_a_nested_flag_named_by_its_own_word_answers_for_the_provider(name, expected):
    # "Can Together AI do reranking according to this file?": providers -> together_ai -> endpoints -> rerank: true
    # (was: False, because "reranking" and "file" are words of other records, not of together_ai's)
    q = f"Can {name} do reranking according to this file?"
    assert ask_scripted(q, SUPPORT, "bool") == (expected, "submitted")


def test_an_issue_listed_under_another_release_is_not_in_the_one_asked():
    # "Is gh-104719 listed in the section for IDLE 3.11.0 (the 3.11.0 release itself)?": it is under 3.11.z
    q = "Is kl-5120 listed in the section for Kiln 4.2.0 (the 4.2.0 release itself)?"
    assert ask_scripted(q, NEWS, "bool") == (False, "submitted")
    assert ask_scripted("Is kl-5066 listed in the section for Kiln 4.2.0?", NEWS, "bool") == (True, "submitted")


def test_that_after_a_verb_in_s_points_back_at_the_earlier_sentence():
    # "The EURO font target depends on an AFM file that is itself generated. What program generates that AFM
    # file?": the prerequisite freeeuro.afm was Submitted; the program is one step further
    q = "The KILN font target depends on a PFM file that is itself generated. What program generates that PFM file?"
    answer, kind = ask_scripted(q, MAKEFILE)
    assert (answer, kind) != ("kilneuro.pfm", "submitted")
    assert kind != "submitted" or answer == "glazeforge"
