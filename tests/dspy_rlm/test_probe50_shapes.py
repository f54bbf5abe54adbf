"""Shapes from probe 50's first run, on invented data: a package's METADATA named as the source ("according to its
dist-info METADATA", "in kilnpy 3.1.0's METADATA file") names no field ``Metadata-Version``; a ranking of a record's
lists answers no question about the lines of another list it names; the name of a text's one record, present,
says nothing of a word inside its values; a phrase the text writes outside every record is not absent; a record
swallowing a thousand lines of entries in another form leaves a ranking of the records unsure; "In F, which <noun>
..." asks which record holds the identifier, as "which <noun> ..." does; a comma before each tab is the separator's;
"how many <limit> elements" counts records that are each such an element; a record holding a nested object has the
field the object is ('have no "pr" field'). Each test fails on the code before its change."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted

METADATA = """Metadata-Version: 2.4
Name: kilnpy
Version: 3.1.0
Summary: kilnpy: fire glazes with Python
Author: Ada Potter, Bo Glazer
License-Expression: MIT
Project-URL: Homepage, https://kiln.example/kilnpy
Project-URL: Tracker, https://kiln.example/kilnpy/issues
Keywords: kiln,glaze
Classifier: Development Status :: 5 - Production/Stable
Classifier: Intended Audience :: Potters
Classifier: Programming Language :: Python :: 3
Classifier: Programming Language :: Python :: 3.9
Classifier: Programming Language :: Python :: 3.10
Classifier: Programming Language :: Python :: 3.11
Classifier: Topic :: Kilns
Requires-Python: >=3.9
Description-Content-Type: text/x-rst
Requires-Dist: glazes>=1
Requires-Dist: cones>=2; python_version < "3.10"
Requires-Dist: shelves<3,>=1.2
Requires-Dist: attrs>=23.1; extra == "dev"
Requires-Dist: coverage>=7.5; extra == "dev"
Requires-Dist: hypothesis>=6.75; extra == "dev"
Requires-Dist: mock; extra == "dev"
Requires-Dist: numpy>=1.26; extra == "dev"
Requires-Dist: pyyaml; extra == "dev"
Requires-Dist: requests; extra == "dev"
Provides-Extra: dev
Dynamic: license-file

=======
kilnpy
=======

Fire glazes with Python.
"""


def test_the_metadata_named_as_the_source_names_no_field():
    # "What Python version does pytest 9.2.0 require according to its dist-info METADATA?": Metadata-Version's 2.4
    q = "What Python version does kilnpy 3.1.0 require according to its dist-info METADATA?"
    assert ask_scripted(q, METADATA) == (">=3.9", "submitted")
    # "What's the one-line Summary in pytest 9.2.0's METADATA file?": Metadata-Version's 2.4 again
    q = "What's the one-line Summary in kilnpy 3.1.0's METADATA file?"
    assert ask_scripted(q, METADATA) == ("kilnpy: fire glazes with Python", "submitted")


def test_a_ranking_of_the_records_lists_answers_nothing_of_another_list_named():
    # "which top-level classifier category has the most Classifier lines?": Requires-Dist, the longest list
    q = "In kilnpy-3.1.0.dist-info/METADATA, which top-level classifier category has the most Classifier lines?"
    answer, kind = ask_scripted(q, METADATA)
    assert kind != "submitted" or answer == "Programming Language", answer


def test_the_documents_own_name_present_says_nothing_of_a_word_in_its_values():
    # "Does pytest 9.2.0's METADATA make tomli a requirement when running on Python 3.11?": exists('pytest') -> True
    q = "Does kilnpy 3.1.0's METADATA make cones a requirement when running on Python 3.10?"
    answer, kind = ask_scripted(q, METADATA, "bool")
    assert kind != "submitted" or answer is False, answer


BUS = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "busconfig.dtd">
<busconfig>
  <type>kiln</type>
  <auth>EXTERNAL</auth>
  <listen>unix:dir=/tmp</listen>

  <policy context="default">
    <!-- Allow the potter to connect -->
    <allow user="potter"/>
    <!-- Allow everything to be fired -->
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>

  <limit name="max_glazes">1000</limit>
  <limit name="max_cones">12</limit>
  <limit name="max_shelves">8</limit>
  <limit name="firing_timeout">120000</limit>
  <limit name="cooling_timeout">240000</limit>
  <limit name="max_pots_per_shelf">40</limit>
  <limit name="reply_timeout">300000</limit>
</busconfig>
"""


def test_a_phrase_written_outside_every_record_is_not_absent():
    # "Does the default policy in accessibility.conf allow eavesdropping?": exists('default') -> False over the
    # <limit> records, Submitted as no; <policy context="default"> is there
    q = "Does the default policy in kiln.conf (the kiln bus config) allow eavesdropping?"
    answer, kind = ask_scripted(q, BUS, "bool")
    assert kind != "submitted" or answer is True, answer


def _changelog() -> str:
    new = "".join(
        f"2001-07-{d:02d} 1{d % 10}:3{d % 6}  {who}\n\n\t* kiln.py: {what}\n\n"
        for d, who, what in [
            (20, "ada", "bring up to date for 0.8.1 release"),
            (19, "ada", "tidy the glaze table"),
            (17, "bo", "remove the coexist patch"),
            (15, "ada", "shelf heights in the config"),
            (12, "bo", "fix the cone chart"),
            (9, "ada", "first glaze recipes"),
        ]
    )
    days = ["Thu", "Wed", "Tue", "Mon", "Sun", "Sat", "Fri"]
    old = "".join(
        f"{days[i % 7]} Oct {30 - i} 1{i % 10}:0{i % 6}:00 1998  Cy Kiln  <cy@kiln.example>\n\n"
        f"\t* Shelf{i}.py: new shelf {i}.\n\t(KilnWindow): read it.\n\n"
        for i in range(28)
    )
    return "Kiln ChangeLog\n==============\n\n" + new + old


def test_a_record_swallowing_many_records_worth_leaves_a_ranking_unsure():
    # IDLE's ChangeLog: min_of('date') over the ISO-dated entries, the last swallowing a thousand lines of entries
    # dated "Sat Oct 10 19:15:32 1998"; Submitted 2000-08-15 for the oldest entry's date
    answer, kind = ask_scripted("What's the date of the oldest entry in the Kiln ChangeLog?", _changelog())
    assert kind != "submitted" or answer == "1998-10-03", answer


_GLAZES = ["clear", "celadon", "tenmoku", "shino", "matte", "satin", "crawl", "ash", "crystal", "oil_spot", "oxblood"]
_GLAZES += ["chun", "copper", "cobalt", "iron", "rutile", "honey", "slate", "tin", "lead_free", "flux", "frit"]
CODES = (
    '''r"""
The ``codes`` object defines a mapping from common names for glaze codes to their numerical codes, accessible
either as attributes or as dictionary items.

Example::

    >>> import kiln
    >>> kiln.codes['celadon']
    101
"""

from .structures import LookupDict

_codes = {
    # Glossy.
'''
    + "".join(f'    {100 + i}: ("{g}_gloss", "{g}"),\n' for i, g in enumerate(_GLAZES))
    + "    # Matte.\n"
    + "".join(f'    {200 + i}: ("{g}_matte",),\n' for i, g in enumerate(_GLAZES))
    + """    250: ("crackle_raku", "crackle_glaze"),
}

codes: LookupDict[int] = LookupDict(name="glaze_codes")


def _init():
    for code, titles in _codes.items():
        for title in titles:
            setattr(codes, title, code)


_init()
"""
)


def test_which_record_holds_an_identifier_after_a_phrase_naming_the_document():
    # "In requests' status_codes.py, which HTTP status code goes by the name parental_controls?": 450, the key of
    # the one record holding it, was left a guess: "which <noun>" was looked for at the question's start only
    q = "In kiln's glaze_codes.py, which glaze code goes by the name crackle_glaze?"
    assert ask_scripted(q, CODES, "int") == (250, "submitted")


KILN_IDS = (
    "# List of KILN IDs\n#\n# Syntax:\n# device_id,\trevision_id,\tproduct_name        <-- single tab after comma\n\n"
    "1.0.0\n"
    + "".join(
        f"{0x1300 + i:04X},\t{i % 3:02d},\tKiln Glazer {name}\n"
        for i, name in enumerate(["R7", "R6", "R4", "R7", "R6", "R5", "R5", "R4", "Mini", "Pro", "Max", "R3"])
    )
    + "7A1C,\t00,\tKiln Instinct K100\n"
)


def test_a_comma_before_each_tab_belongs_to_the_separator():
    # "What device ID does amdgpu.ids give for the AMD Instinct MI100?": '738C,', the comma read as the cell's
    assert ask_scripted("What device ID does kiln.ids give for the Kiln Instinct K100?", KILN_IDS) == (
        "7A1C",
        "submitted",
    )


def test_a_count_of_the_elements_a_tag_names_counts_the_records_of_that_tag():
    # "How many <limit> elements are there in accessibility.conf?": count_records('limit'), 13, was left a guess
    assert ask_scripted("How many <limit> elements are there in kiln.conf?", BUS, "int") == (7, "submitted")


def _kilns_json() -> str:
    import json

    kilns = []
    for i, name in enumerate(["Ash", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Gum", "Hazel", "Ivy", "Juniper"]):
        kiln = {"name": f"{name} Kiln", "constant": name.upper(), "env": f"{name.upper()}_HOME"}
        if i % 3 == 0:
            kiln["vent"] = f"{name.upper()}_VENT"
        elif i % 3 == 1:
            kiln["vent"] = {"env": f"{name.upper()}_VENT_OPEN", "ne": "false"}
        kilns.append(kiln)
    return json.dumps(kilns, indent=2)


def test_a_nested_object_is_the_field_a_count_of_records_lacking_it_names():
    # 'How many vendors in ci-info/vendors.json have no "pr" field at all?': 29, the records holding the word; read
    # as a lacking count, the records with a nested "pr": {...} object were counted as lacking it
    q = 'How many kilns in kilns.json have no "vent" field at all?'
    assert ask_scripted(q, _kilns_json(), "int") == (3, "submitted")
