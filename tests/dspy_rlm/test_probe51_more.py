"""More shapes from probe 51's first run, on invented data: a word right before a file's name ("kiln's *glacier*
defaults.yaml") tells which of several such files is asked of, and is no condition a record read must meet, even
where the data holds it too (a provider's ``type: glacier``); a value the question states as one ("has the value
1.5") names no header of the document, though an earlier setting holds it; a ranking by the part of a value
before its slash; and examples in parentheses are offered answers. Each test fails on the code before its
change."""

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


TYPES = """# kiln type table: name, media type, note
#name\tmedia\tnote
readme\ttext/plain\tplain words
page\ttext/html\tmarked up
photo\timage/jpeg\tlossy
icon\timage/png\tlossless
anim\timage/gif\tframes
chart\timage/svg+xml\tvector
song\taudio/ogg\tvorbis
clip\tvideo/webm\tvp9
data\tapplication/json\tobjects
"""


def test_a_ranking_by_the_part_before_the_slash_groups_the_values():
    q = "Which top-level media type (the part before the slash) covers the most entries in the kiln type table?"
    assert ask_scripted(q, TYPES, "str") == ("image", "submitted")


def test_examples_in_parentheses_are_offered_answers_not_a_repeated_phrase():
    q = (
        "Counting by the part of the media type before the first slash (text, image, audio, ...), which prefix"
        " has the most rows?"
    )
    assert ask_scripted(q, TYPES, "str") == ("image", "submitted")


def test_most_common_by_head_counts_the_first_part_of_slashed_values_only():
    from dspy_rlm.library import superlatives

    assert superlatives.most_common(TYPES, "media", None, "head") == "image"
    assert superlatives.most_common(TYPES, "media", None, "dir") == "image"  # one level: the same here
    rows = ["a\tAmerica/Argentina/Salta", "b\tAmerica/Argentina/Jujuy", "c\tEurope/Paris", "d\tEurope/Rome"]
    nested = "\n".join(["#name\tzone", *rows, "e\tAmerica/Lima", "f\tUTC", ""])
    assert superlatives.most_common(nested, "zone", None, "head") == "America"
    assert superlatives.most_common(nested, "zone", None, "dir") == "America/Argentina"
