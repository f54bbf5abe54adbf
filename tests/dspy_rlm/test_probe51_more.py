"""More shapes from probe 51's first run, on invented data: a word right before a file's name ("kiln's *glacier*
defaults.yaml") tells which of several such files is asked of, and is no condition a record read must meet, even
where the data holds it too (a provider's ``type: glacier``). Each test fails on the code before its change."""

from __future__ import annotations

from tests.dspy_rlm.scripted import ask_scripted

DEFAULTS = """# A unique identifier for the head node and workers of this cluster.
cluster_name: default

# The maximum number of workers nodes to launch in addition to the head node.
max_workers: 2

# The speed at which the pool grows.
spin_speed: 1.5

# How long an idle worker lives, in minutes.
idle_timeout_minutes: 5

# Cloud-provider specific configuration.
provider:
    type: glacier

# The pools of nodes the cluster may start.
node_pools:
    kiln.head.default:
        resources: {}
        node_config: {}
    kiln.worker.default:
        min_workers: 0
        max_workers: 2
        resources: {}
        node_config: {}
    kiln.worker.gpu:
        min_workers: 0
        max_workers: 1
        resources: {"GPU": 1}
        node_config: {}

head_node_type: kiln.head.default
"""


def test_a_word_before_the_file_name_is_no_second_condition_of_a_count():
    q = "How many node pools are defined under node_pools in the glacier defaults.yaml shipped with kiln?"
    assert ask_scripted(q, DEFAULTS, "int") == (3, "submitted")


def test_a_word_before_the_file_name_is_no_phrase_the_record_read_must_hold():
    q = "Which top-level setting in kiln's glacier defaults.yaml has the value 1.5?"
    assert ask_scripted(q, DEFAULTS, "str") == ("spin_speed", "submitted")
