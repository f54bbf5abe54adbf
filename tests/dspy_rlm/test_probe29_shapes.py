"""Shapes the twenty-ninth probe read wrong, each made up here: a shipped config whose every setting is commented
out among notes, the document's own path named in the question, a ranking word that is part of a setting's name
("what maximum line length"), and a "which value" ranking that a list's name does not answer. Each positive test
fails before its change; each negative one guards an answer that must not be ``Submitted``."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from dspy_rlm.library import superlatives
from dspy_rlm.profiles import named_document
from tests.dspy_rlm.scripted import ask_scripted

_CONF = """#
# /etc/frobd.conf - settings of the frob daemon
# See frobd.conf(5) for what each one does.
#

#frob.hostname = frob.example.org

# Uncomment to log every request
#frob.log.level = 7

###############################################
# Network settings
#
# Uncomment the next two lines to listen on IPv6 too.
# Leave them commented where the host has no IPv6
# address configured, or the daemon will refuse to start.
#net.listen.v6=1
#net.listen.v4=1

# Uncomment to cap the worker pool (the default is unlimited)
#pool.workers=12
"""


def test_a_config_of_commented_settings_among_notes_is_read_as_settings():
    s = st.detect(_CONF)
    assert (s.kind, s.detail) == ("assignments", "commented")
    assert s.records[0].fields == (("frob.hostname", "frob.example.org"),)


def test_the_documents_own_path_in_the_question_names_no_second_record():
    q = "What host name does /etc/frobd.conf show for frob.hostname?"
    assert ask_scripted(q, _CONF) == ("frob.example.org", "submitted")


def test_a_path_a_record_states_does_not_name_the_document():
    text = "#a.path = /srv/one\n#b.path = /srv/two\n" + "# a note\n" * 6 + "#c.size = 3\n#d.size = 4\n"
    s = st.detect(text)
    assert not named_document.names_file(s, text, "/srv/one")  # a record's value: a condition on the records
    assert named_document.names_file(st.detect(_CONF), _CONF, "/etc/frobd.conf")
    assert not named_document.names_file(st.detect(_CONF), _CONF, "daemon")  # no path nor file name


_TOML = """[fmt]
line-length = 99
indent-width = 4

[lint]
line-length = 120
select = ["E", "F"]
"""


def test_a_ranking_word_before_a_settings_name_reads_the_named_records_setting():
    assert ask_scripted("What maximum line length is configured for fmt?", _TOML, "int") == (99, "submitted")


def test_a_ranking_word_with_no_record_named_still_ranks():
    assert ask_scripted("Which tool has the maximum line length?", _TOML, "int") != (99, "submitted")


_UNIT = """[Service]
Type=simple
Restart=yes
KillUserProcesses=yes
Environment=A=1 B=2 C=3 D=4 E=5 F=6
ProtectHome=yes
"""


def test_which_value_is_not_answered_by_the_name_of_the_longest_list():
    q = "In the [Service] section, which value is assigned to the largest number of settings?"
    assert ask_scripted(q, _UNIT) != ("Environment", "submitted")


_SETTINGS = """# frobd defaults
WORKERS=4
QUEUE_DEPTH=250
RETRIES=3
NAME="frob"
VERSION='9.5'
LOG_DIR=/var/log/frob
"""


def test_the_setting_with_the_largest_value_ranks_each_settings_own_value():
    assert ask_scripted("Which setting has the largest value?", _SETTINGS) == ("QUEUE_DEPTH", "submitted")
    assert ask_scripted("Which setting has the smallest value?", _SETTINGS) == ("RETRIES", "submitted")


def test_a_quoted_setting_is_no_number():
    assert str(superlatives.max_of(_SETTINGS.replace("250", "2"), "*")) == "WORKERS: 4"  # not VERSION's '9.5'


def test_a_tie_between_settings_is_not_submitted():
    tied = _SETTINGS.replace("RETRIES=3", "RETRIES=250")
    assert ask_scripted("Which setting has the largest value?", tied)[1] != "submitted"


def test_a_phrase_that_picks_some_settings_keeps_the_global_winner_from_being_submitted():
    text = "NET_TIMEOUT=30\nNET_RETRIES=5\nDISK_CACHE=900\nDISK_SYNC=1\n"
    assert ask_scripted("Among the NET settings, which has the largest value?", text)[1] != "submitted"


_MAKE = """TOOL_VERSION = v2.3.1
IMAGE_PREFIX = frob-image
FLAVOURS = a b
TARGETS = $(addprefix $(IMAGE_PREFIX)-,$(FLAVOURS))

$(TARGETS): IMAGE = $(IMAGE_PREFIX)
$(TARGETS): TAG = flavour-$(subst $(IMAGE_PREFIX)-,,$@)
$(TARGETS): CACHE = $(if $(CI),,--no-cache)

DEFAULT_FLAVOUR ?= 3.9-dev
"""


def test_a_makefile_setting_variables_per_target_is_read_as_a_makefile():
    s = st.detect(_MAKE)
    assert s.kind == "assignments" and ("DEFAULT_FLAVOUR", "3.9-dev") in [f for r in s.records for f in r.fields]
    assert ask_scripted("Which variable defaults to 3.9-dev?", _MAKE) == ("DEFAULT_FLAVOUR", "submitted")


def test_a_settings_ranking_reads_bare_numbers_only_and_keeps_to_a_named_pattern():
    text = "HASH=SHA256\nVERSION=12.5\nSUITE=stable\nCOUNT=7\nNAME=frob\n"
    assert str(superlatives.max_of(text, "*")) == "VERSION: 12.5"  # not SHA256's 256
    assert "fewer than two" in str(superlatives.max_of(text.replace("COUNT=7", "COUNT=seven"), "*"))
    globbed = "net.a.timeout=30\nnet.b.retries=5\ndisk.cache=900\ndisk.sync=1\n"
    assert ask_scripted("Of the net.* parameters, which one has the largest value?", globbed)[1] != "submitted"
