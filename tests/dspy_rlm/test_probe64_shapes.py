"""Shapes from probe 64's first run (seven wrong Submitted answers), on invented data: the noun a "which" question asks
for ("which worker *mode*") names the field ranked, not a word before it; a field named as the block holding the
records ("which *worker* runs after the run?" of records under ``workers:``) asks which record; the asker's noun
after the key ("the mixer *device*") is no rival field; a field whose last part the question does not say, beside a
sibling's as unsaid, names only their parent; an owner's version ("Acme *12*'s constraints.sql") is no key, and a
word after "every" is the asker's noun for the records; a value holding an identifier the question names beside the
key ("what meta-query option ...") is asked of in part. Each test fails on the code before its change."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted, read_candidates

PIPELINE = """workers:
  - worker_name: "alpha-pre"
    params:
      worker: plugins.FastWorker
      mode: "before_run"
  - worker_name: "beta-during"
    params:
      worker: plugins.FastWorker
      mode: "during_run"
  - worker_name: "gamma-post"
    params:
      worker: plugins.FastWorker
      mode: "after_run"
  - worker_name: "delta-pre"
    params:
      worker: plugins.SlowWorker
      mode: "before_run"
  - worker_name: "eps-pre"
    params:
      worker: plugins.OtherWorker
      mode: "before_run"

settings:
  retries: 3
"""


def test_the_noun_a_which_question_asks_for_names_the_field_ranked():
    found = read_candidates("Which worker mode is used by the most workers?", PIPELINE, "most_common")
    vouched = {c.value for c in found if c.supported}
    assert vouched == {"before_run"}  # plugins.FastWorker, the most common 'worker', vouched for before


def test_a_field_named_as_the_records_block_asks_which_record():
    answer, ending = ask_scripted("Which worker in the pipeline config runs after the run (after_run mode)?", PIPELINE)
    assert ending != "submitted" or answer == "gamma-post"  # Submitted plugins.FastWorker before (its 'worker')


MIXER = """pcm.mixer {
	@args [ CARD RATE ]
	@args.CARD {
		type string
		default {
			@func getenv
			vars [ MIXER_CARD ]
			default 0
		}
	}
	@args.RATE {
		type integer
		default {
			@func refer
			name defaults.pcm.mixer.rate
		}
	}
	type mixer
	slave {
		pcm {
			type hw
			card $CARD
			device 0
		}
		rate $RATE
	}
	hint {
		show on
		description "Software mixing device"
		device_output $CARD
	}
}
"""


def test_the_askers_noun_after_the_key_is_no_rival_field():
    q = "What human-readable description does the mixer config give the mixer device in its hint?"
    answer, ending = ask_scripted(q, MIXER)
    assert (answer, ending) == ("Software mixing device", "submitted")  # Submitted '$CARD' before: 'device'
    # named slave.pcm.device, a rival of hint.description, and hint.device_output was vouched for


def test_a_field_whose_last_part_is_unsaid_beside_a_sibling_as_unsaid_is_no_field_asked():
    q = "In the mixer PCM definition, which configuration key supplies the default for the rate argument?"
    answer, ending = ask_scripted(q, MIXER)
    assert ending != "submitted" or answer == "defaults.pcm.mixer.rate"  # Submitted 'refer' (@func) before


CONSTRAINTS = """-- constraints added to the catalogs after bootstrap
ALTER TABLE cat_alpha ADD PRIMARY KEY USING INDEX cat_alpha_oid_index;
ALTER TABLE cat_alpha ADD UNIQUE USING INDEX cat_alpha_name_index;
ALTER TABLE cat_beta ADD PRIMARY KEY USING INDEX cat_beta_oid_index;
ALTER TABLE cat_gamma ADD PRIMARY KEY USING INDEX cat_gamma_oid_index;
ALTER TABLE cat_gamma ADD UNIQUE USING INDEX cat_gamma_key_index;
"""


def test_an_owners_version_is_no_key_and_a_word_after_every_is_the_askers_noun():
    q = "In Acme 12's constraints.sql, does every relation that gets a constraint also get a primary key?"
    answer, ending = ask_scripted(q, CONSTRAINTS, "bool")
    assert ending != "submitted" or answer is True  # Submitted False before: exists(context, '12')


MK = """# Build metadata, computed lazily.
late_eval = $(or $(value $(1)),$(eval $(1) := $(shell $(2)))$(value $(1)))

PKG_NAME ?= $(call late_eval,PKG_NAME,meta-query -SName)
PKG_VERSION ?= $(call late_eval,PKG_VERSION,meta-query -SVersion)
PKG_URGENCY ?= $(call late_eval,PKG_URGENCY,meta-query -SUrgency)
BUILD_DATE ?= $(call late_eval,BUILD_DATE,meta-query -STimestamp)

export BUILD_DATE
"""


def test_a_value_holding_an_identifier_the_question_names_beside_the_key_is_asked_of_in_part():
    answer, ending = ask_scripted("In the metadata fragment, what meta-query option computes PKG_URGENCY?", MK)
    assert ending != "submitted" or answer == "-SUrgency"  # Submitted the whole $(call ...) before
    answer, ending = ask_scripted("What is PKG_URGENCY set to?", MK)
    assert (answer, ending) == ("$(call late_eval,PKG_URGENCY,meta-query -SUrgency)", "submitted")
