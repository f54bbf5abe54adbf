"""Shapes from probe 47's wrong answers, on invented data: a command surface's flags inside a ``- group:`` item are
records too; the words a question describes its document with (the "spec", the "strict ... template", the
"validation csv"), the head of a longer path, a premise's phrase and a plain verb beside a named field are no
phrases to read. Each test fails on the code before its change."""

from __future__ import annotations

import json

from dspy_rlm.library import structure as st
from tests.dspy_rlm.scripted import ask_scripted

_SURFACE = """- release_tracks: [ALPHA, GA]
  help_text:
    brief: Update a kiln.
  arguments:
    resource:
      spec: !REF kilns.resources:kiln
      help_text: |
        Kiln to update.
    params:
    - arg_name: display-name
      help_text: |
        Name shown in the yard.
    - group:
        mutex: true
        params:
        - arg_name: firing-temperature
          help_text: |
            Peak temperature of a firing.
        - group:
            params:
            - arg_name: add-glaze-rule
              help_text: |
                Adds a glaze rule.
            - arg_name: clear-glaze-rules
              action: store_true
              help_text: |
                Removes all glaze rules from the kiln.
    - arg_name: vent-count
      help_text: |
        How many vents to open.
    - arg_name: door-seal
      help_text: |
        The seal of the loading door.
"""


def test_the_flags_inside_a_group_item_are_records_of_their_own():
    s = st.detect(_SURFACE)
    keys = [r.key for r in s.records]
    assert {"firing-temperature", "add-glaze-rule", "clear-glaze-rules"} <= set(keys)  # before: only the outer
    assert keys.index("display-name") < keys.index("clear-glaze-rules") < keys.index("vent-count")  # line order
    assert next(r for r in s.records if r.key == "clear-glaze-rules").get("action") == "store_true"


def test_the_documents_noun_in_the_opening_place_names_no_field():
    # "In the gcloud surface spec for X, which flag's help text says ...": the one record holding 'spec' was read,
    # and its spec Submitted
    q = "In the surface spec for `kilns update`, which flag's help text says it removes all glaze rules from the kiln?"
    answer = ask_scripted(q, _SURFACE)
    assert answer[1] != "submitted" or answer[0] == "clear-glaze-rules", answer


_RC = (
    '" All yard-wide settings live in $KILNRUNTIME/yard.kiln, loaded by the line below.\n'
    "runtime! yard.kiln\n"
    '" The following are commented out as they slow every firing down.\n'
    + "".join(
        f'"set {name}\t\t" {what}\n'
        for name, what in [
            ("slowcool", "Cool slowly after a firing"),
            ("ventopen", "Keep the vents open"),
            ("doublefire", "Fire each piece twice"),
            ("logtemps", "Write the temperatures to a log"),
            ("dampers", "Close the dampers at the peak"),
            ("cones=6", "Use cone six as the target"),
            ("nightly", "Fire at night only"),
            ("quiet", "Do not ring at the end"),
        ]
    )
    + '" Source a local configuration file if available\n'
    + 'if filereadable("/etc/kiln/kilnrc.local")\n  source /etc/kiln/kilnrc.local\nendif\n'
)


def test_the_head_of_a_longer_path_is_no_key():
    # "/etc/vim/vimrc" matched the line naming "/etc/vim/vimrc.local": 'if' was Submitted
    answer = ask_scripted("What's the exact line in /etc/kiln/kilnrc that pulls in the yard-wide settings?", _RC)
    assert answer[1] != "submitted" or answer[0] == "runtime! yard.kiln", answer


_METADATA = """Metadata-Version: 2.3
Name: kettle
Version: 2.0.1
Requires-Dist: spout<3,>=1; extra == 'pour'
Requires-Dist: lid>=4
Provides-Extra: pour
"""


def test_a_phrase_of_the_questions_premise_is_no_answer():
    # "If I pip install httpx[cli] with this installed httpx 0.28.1, is rich 14 allowed?": 0.28.1 exists, True
    q = "If I pip install kettle[pour] with this installed kettle 2.0.1, is spout 3 allowed by the requirement?"
    answer = ask_scripted(q, _METADATA, "bool")
    assert answer[1] != "submitted" or answer[0] is False, answer


_CSV = "dtype,input,output,tolerance\n" + "".join(f"np.float32,0x{i:08x},0x{i * 7:08x},2\n" for i in range(1, 30))


def test_the_words_describing_the_document_are_no_phrases_checked():
    # "Does every row of the cbrt validation csv use an ulperrortol of 2?": 'every', then 'row', 'cbrt',
    # 'validation' and 'csv' were each checked, found absent, and False Submitted
    from dspy_rlm.profiles.moves import MoveBook

    q = "Does every row of the kiln validation csv use a tolerance of 2?"
    book = MoveBook({"question": q}, {"context": _CSV}, {"answer": bool})
    said = {k.text for k in book.keys["context"]}
    assert not said & {"every", "row", "kiln", "validation", "csv"}, said


_STRICT = """# Kiln Strict Configuration Template
#
# The settings here are stricter than the defaults.
#
# ---- Firing Limits ----
kiln.limit.temperature=1280
kiln.limit.hours=12
kiln.catalog.resolve=strict
"""


def test_a_plain_value_describing_the_document_is_no_key():
    # "Under what heading does the strict JAXP template group its properties?": key_of('strict') Submitted
    answer = ask_scripted(
        "Under what '---- ... ----' heading does the strict kiln template group its settings?", _STRICT
    )
    assert answer[1] != "submitted" or answer[0] == "Firing Limits", answer


_SBOM = json.dumps(
    {
        "bomFormat": "CycloneDX",
        "components": [
            {"name": n, "version": v, "description": d, "licenses": [{"expression": lic}]}
            for n, v, d, lic in [
                ("kiln", "3.1.0", "Kiln control for the yard", "MIT"),  # the SBOM's own crate is a record too
                ("glaze", "1.2.0", "Glaze recipes as data", "MIT OR Apache-2.0"),
                ("cone-table", "0.4.1", "Pyrometric cone temperatures", "MIT"),
                ("vent", "2.0.0", "Vent schedules for firings", "MIT OR Apache-2.0"),
                ("damper", "0.9.3", "Damper positions by hour", "Apache-2.0"),
                ("bisque", "1.0.0", "Bisque firing presets", "MIT OR Apache-2.0"),
            ]
        ],
    },
    indent=2,
)


def test_an_owners_sbom_names_the_document_not_a_record():
    # "Which crate in jiter's SBOM has the description 'LLVM target triple types'?": right, but doubted as the
    # record read does not hold 'jiter'
    assert ask_scripted("Which crate in kiln's SBOM has the description 'Vent schedules for firings'?", _SBOM) == (
        "vent",
        "submitted",
    )


def test_what_the_most_records_carry_is_a_most_common_value():
    # "what license expression do the most components carry?": no cue word said the ranking
    q = "In kiln's CycloneDX SBOM, what license expression do the most components carry?"
    assert ask_scripted(q, _SBOM) == ("MIT OR Apache-2.0", "submitted")
