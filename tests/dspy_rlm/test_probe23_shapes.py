"""Shapes the twenty-third probe read wrong, each made up here: a long signature said whole as the key, an
attribute the records leave out, an identifier outside every record, a test's operand of several capitalized
words, a JSON document on one line, "whose name is X" beside a ``display_name``, and stanzas under comment
lines. Each positive test fails before its change; each negative one guards an answer that must not be
``Submitted``."""

from __future__ import annotations

import json

from tests.dspy_rlm.scripted import ask_scripted

_SIGNATURES = """# Old signatures, kept for callers.

- name: scale(Scalar beta, Tensor self, Scalar alpha, Tensor mat) -> Tensor
  call: scale(self, mat, beta, alpha)

- name: scale(Scalar beta, Tensor self, Tensor mat) -> Tensor
  call: scale(self, mat, beta, 1)

- name: shift(Tensor self, Scalar alpha, Tensor other) -> Tensor
  call: shift(self, other, alpha)

- name: shift_(Tensor(a!) self, Scalar alpha, Tensor other) -> Tensor(a!)
  call: shift_(self, other, alpha)

- name: shift(Tensor self, Scalar alpha, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  call: shift_out(out, self, other, alpha)
"""


def test_a_long_key_said_whole_finds_its_own_record_not_one_that_begins_alike():
    q = "The old signature scale(Scalar beta, Tensor self, Tensor mat) -> Tensor is rewritten to which call?"
    assert ask_scripted(q, _SIGNATURES) == ("scale(self, mat, beta, 1)", "submitted")


def test_a_long_value_said_whole_is_one_key_of_a_reverse_lookup():
    q = "Which old signature (its name) is translated into the call shift_out(out, self, other, alpha)?"
    want = "shift(Tensor self, Scalar alpha, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"
    answer, kind = ask_scripted(q, _SIGNATURES)
    assert kind != "submitted" or answer == want, answer


def test_an_absent_word_describing_a_name_found_is_no_evidence_of_no():
    answer, kind = ask_scripted("Is the in-place shift_ covered by one of these old signatures?", _SIGNATURES, "bool")
    assert not (kind == "submitted" and answer is False), answer


_DOCS = """<?xml version="1.0"?>
<index>
  <group name="libAlpha">
    <doc target="alphaguide">
      <inc:include href="/usr/share/doc/libAlpha/alphaguide.db" xmlns:inc="urn:x"/>
    </doc>
  </group>
  <group name="libBeta">
    <doc target="betaref">
      <inc:include href="/usr/share/doc/libBeta/betaref.db" xmlns:inc="urn:x"/>
    </doc>
    <doc target="betanotes">
      <inc:include href="/usr/share/doc/libBeta/betanotes.db" xmlns:inc="urn:x"/>
    </doc>
  </group>
</index>
"""


def test_an_attribute_no_record_holds_vouches_for_no_other_field():
    answer, kind = ask_scripted("What href is included for the betaref doc?", _DOCS)
    assert not (kind == "submitted" and answer == "libBeta"), answer


_RELEASE = """Origin: Example
Label: Example
Suite: stable
Hash: SHA256
Description: An example release
MD5Sum:
 0bbcf8d02dcac3c6ea4684805c6a2892    12345 main/i18n/Translation-fr.bz2
 9a0364b9e99bb480dd25e1f0284c8555    67890 main/i18n/Translation-de.bz2
SHA256:
 3248f0206d704300067e35cc2d4380dc1f1b418b5b9f446c3d42424b98d0abad    12345 main/i18n/Translation-fr.bz2
 bbb0206d704300067e35cc2d4380dc1f1b418b5b9f446c3d42424b98d0ab77    67890 main/i18n/Translation-de.bz2
"""


def test_an_identifier_outside_every_record_vouches_for_no_read_of_them():
    q = "Give me the SHA256 checksum of the file whose MD5 sum is 0bbcf8d02dcac3c6ea4684805c6a2892."
    answer, kind = ask_scripted(q, _RELEASE)
    assert kind != "submitted" or answer.startswith("3248f020"), answer


def test_an_operand_of_capitalized_words_is_tested_whole():
    rows = [
        f"{0x3041 + i:04X}  ; [.19{i:02d}.0020] # HIRAGANA LETTER {w}"
        for i, w in enumerate(["A", "I", "U", "E", "O", "KA", "KI"])
    ]
    rows += ["309D  ; [.09DB.0020] # HIRAGANA ITERATION MARK", "309E  ; [.09DC.0020] # HIRAGANA VOICED ITERATION MARK"]
    rows += [f"{0x30A1 + i:04X}  ; [.1A{i:02d}.0020] # KATAKANA LETTER {w}" for i, w in enumerate(["A", "I", "U"])]
    text = "# keys\n" + "\n".join(rows) + "\n"
    q = "How many entries are Hiragana letters, i.e. have a name beginning with HIRAGANA LETTER?"
    answer, kind = ask_scripted(q, text, "int")
    assert answer == 7, (answer, kind)


def _people() -> str:
    entries = [
        {
            "self_link": f"http://api.example/~{n}",
            "wiki_names_collection_link": f"http://api.example/~{n}/wiki_names",
            "name": n,
            "display_name": d,
            "is_valid": n == "spiv",
        }
        for n, d in [("limi", "Alex Limi"), ("spiv", "Andrew Bennetts"), ("jorge", "Jorge Gonzalez")]
    ]
    doc = {"total_size": 3, "start": 0, "entries": entries * 1}
    return json.dumps(doc)  # one line, as an API's page of a collection


def test_a_json_document_on_one_line_has_its_entries_as_records():
    q = "What display name does the person whose name is spiv have?"
    assert ask_scripted(q, _people()) == ("Andrew Bennetts", "submitted")


def test_the_name_is_the_field_named_name_not_one_ending_in_it():
    answer, kind = ask_scripted("Whose entry is marked is_valid true? Give the name field.", _people())
    assert kind != "submitted" or answer == "spiv", answer


_DATABASES = """# The main config file. The first stanza names two databases.

# The database for the data you enter.
Config: configdb
# The database for templates.
Templates: templatedb

# World-readable, and accepts everything but passwords.
Name: config
Driver: File
Mode: 644
Filename: /var/cache/app/config.dat

# Not world readable, and accepts only passwords.
Name: passwords
Driver: File
Mode: 600
Filename: /var/cache/app/passwords.dat

# The templates, in one flat file.
Name: templatedb
Driver: File
Mode: 644
Filename: /var/cache/app/templates.dat
"""


def test_stanzas_under_their_comment_lines_are_records():
    assert ask_scripted("Which database is given file Mode 600?", _DATABASES) == ("passwords", "submitted")
    assert ask_scripted("What Filename does the templatedb database use?", _DATABASES) == (
        "/var/cache/app/templates.dat",
        "submitted",
    )


_CONVERT = """# From the media schema
[org.example.media]
automount = /apps/files/preferences/media_automount
autorun-never = /apps/files/preferences/media_autorun_never

# From the interface schema
[org.example.interface]
gtk-key-theme = /desktop/example/interface/gtk_key_theme
stickykeys-two-key-off = /desktop/example/accessibility/keyboard/stickykeys_two_key_off

# From the lockdown schema
[org.example.lockdown]
disable-printing = /desktop/example/lockdown/disable_printing
disable-log-out = /apps/panel/global/disable_log_out
disable-lock-screen = /desktop/example/lockdown/disable_lock_screen
"""


def test_a_path_asked_with_its_leading_slash_is_a_whole_value():
    # "key" asks for a field's name here: it names neither gtk-key-theme nor stickykeys-two-key-off
    q = "Which settings key is mapped to the path /apps/panel/global/disable_log_out?"
    assert ask_scripted(q, _CONVERT) == ("disable-log-out", "submitted")


def test_objects_listed_under_ids_are_records_keyed_by_their_id():
    registry = {
        f"ER{i:04d}": [{"Kind": f"kind {i}", "Explanation": "Not supported." if i % 3 else f"Reason {i}."}]
        for i in range(12)
    }
    registry["ER0005"].append({"Kind": "kind 5b", "Explanation": "Not supported."})
    text = json.dumps(registry, indent=2)
    assert ask_scripted("What's the Kind recorded for error ER0007?", text) == ("kind 7", "submitted")
    answer, kind = ask_scripted("Which Explanation text occurs most often?", text)
    assert answer == "Not supported." or kind != "submitted", (answer, kind)


_NESTED = """<?xml version="1.0"?>
<index>
  <group name="libOne">
    <doc target="onelib"><inc href="/usr/share/doc/onelib.db"/></doc>
    <doc target="oneproto"><inc href="/usr/share/doc/oneproto.db"/></doc>
  </group>
  <group name="libTwo">
    <doc target="twolib"><inc href="/usr/share/doc/twolib.db"/></doc>
    <group name="KEYS">
      <doc target="keyslib"><inc href="/usr/share/doc/keyslib.db"/></doc>
    </group>
    <group name="INPUT">
      <doc target="inputlib"><inc href="/usr/share/doc/inputlib.db"/></doc>
    </group>
  </group>
  <group name="libThree">
    <doc target="threelib"><inc href="/usr/share/doc/threelib.db"/></doc>
  </group>
</index>
"""


def test_elements_of_one_tag_at_several_depths_are_all_records():
    q = "Inside which group element is the doc with target keyslib placed? Give the group's name."
    assert ask_scripted(q, _NESTED) == ("KEYS", "submitted")
    assert ask_scripted("How many doc elements are there?", _NESTED, "int")[0] == 6
