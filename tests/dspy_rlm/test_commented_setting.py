"""A setting the question names as an identifier that the text writes only commented out (``#fire_mode = 'slow'``
in a kiln template whose live settings are others): a read of another setting, found by another word of the
question ("kilns" in ``kiln_name``), was submitted as the answer; it is a guess now. A setting the text writes
live is read as before. The first test fails on the code before its change."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted

TEMPLATE = """# Default settings for new kilns made by kiln-create.
#
# Options commented out below show their defaults.

# Start the kiln controller when the studio opens: auto, manual or disabled
#fire_mode = 'slow'

# Where each kiln keeps its firing logs
#log_directory = '/var/log/kilns/%k'

kiln_name = '%s/%k'
vent = on
shelf_count = 4
"""


def test_a_setting_written_only_in_a_comment_line_is_no_other_settings_value():
    question = "What is the default fire.mode value for new kilns in this kiln-create template?"
    assert ask_scripted(question, TEMPLATE) == ("%s/%k", "extracted")  # a guess, no longer Submitted


def test_a_live_setting_named_as_an_identifier_is_read_as_before():
    assert ask_scripted("What is shelf_count set to for new kilns?", TEMPLATE, "int") == (4, "submitted")
