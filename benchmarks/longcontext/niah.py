"""S-NIAH: RULER's single needle in a haystack, generated offline.

The haystack is RULER's "noise" filler (``The grass is green. The sky is blue. ...``) repeated to the
target length; one needle ``One of the special magic numbers for {key} is: {7-digit number}.`` sits
between two sentences at a random depth. The question asks for the number; the score is the share of
gold strings found in the answer (RULER's ``string_match_all``).
"""

from __future__ import annotations

import re

from benchmarks.longcontext.task import CHARS_PER_TOKEN, Task, task_rng

SUITE = "niah"

FILLER_SENTENCES = (
    "The grass is green.",
    "The sky is blue.",
    "The sun is yellow.",
    "Here we go.",
    "There and back again.",
)
NEEDLE_TEMPLATE = "One of the special magic numbers for {key} is: {value}."
QUERY_TEMPLATE = (
    "What is the special magic number for {key} mentioned in the provided text? Answer with the number only."
)
NEEDLE_PATTERN = re.compile(r"One of the special magic numbers for ([\w-]+) is: (\d{7})\.")

_ADJECTIVES = (
    "amused",
    "brave",
    "calm",
    "dizzy",
    "eager",
    "fancy",
    "gentle",
    "happy",
    "icy",
    "jolly",
    "kind",
    "lively",
    "mellow",
    "nimble",
    "odd",
    "proud",
    "quiet",
    "rapid",
    "shy",
    "tidy",
    "upbeat",
    "vivid",
    "witty",
    "young",
    "zesty",
)
_NOUNS = (
    "gazelle",
    "harbor",
    "lantern",
    "meadow",
    "otter",
    "pebble",
    "quartz",
    "raven",
    "saddle",
    "thistle",
    "tundra",
    "violet",
    "walrus",
    "yarrow",
    "anchor",
    "beacon",
    "canyon",
    "dolphin",
    "ember",
    "falcon",
    "glacier",
    "heron",
    "island",
    "jasper",
    "kettle",
)


def make_key(rng) -> str:
    """A RULER-style word key, e.g. ``quiet-otter``."""
    return f"{rng.choice(_ADJECTIVES)}-{rng.choice(_NOUNS)}"


def build_haystack(n_chars: int, rng) -> list[str]:
    """Filler sentences whose joined length (with single spaces) is about ``n_chars``.

    The cycle starts at a random sentence so haystacks of different tasks are not aligned.
    """
    start = rng.randrange(len(FILLER_SENTENCES))
    sentences: list[str] = []
    total = 0
    i = start
    while total < n_chars:
        sentence = FILLER_SENTENCES[i % len(FILLER_SENTENCES)]
        sentences.append(sentence)
        total += len(sentence) + 1
        i += 1
    return sentences


def generate_task(size_tokens: int, seed: int = 0, index: int = 0) -> Task:
    """Generate one S-NIAH task.

    Args:
        size_tokens: Target context length in estimated tokens (4 chars each).
        seed: Suite seed; the same ``(size_tokens, seed, index)`` always gives the same task.
        index: Task number within the suite.

    Returns:
        A :class:`Task` whose ``gold`` is ``[number]`` and whose ``meta`` records the key, the needle,
        its character offset and its realized depth (offset / context length).
    """
    if size_tokens < 64:
        raise ValueError(f"size_tokens must be at least 64 for a needle to fit, got {size_tokens}.")
    rng = task_rng(SUITE, size_tokens, seed, index)
    key = make_key(rng)
    value = str(rng.randint(1_000_000, 9_999_999))
    needle = NEEDLE_TEMPLATE.format(key=key, value=value)
    target_depth = rng.random()

    sentences = build_haystack(size_tokens * CHARS_PER_TOKEN - len(needle) - 1, rng)
    position = round(target_depth * len(sentences))
    before = " ".join(sentences[:position])
    after = " ".join(sentences[position:])
    context = " ".join(part for part in (before, needle, after) if part)
    offset = context.index(needle)

    return Task(
        id=f"{SUITE}-{size_tokens}-{seed}-{index}",
        suite=SUITE,
        size_tokens=size_tokens,
        context=context,
        query=QUERY_TEMPLATE.format(key=key),
        gold=[value],
        metric="niah",
        meta={
            "key": key,
            "needle": needle,
            "needle_offset": offset,
            "depth": offset / len(context),
            "target_depth": target_depth,
        },
    )


def generate(size_tokens: int, n_tasks: int = 1, seed: int = 0) -> list[Task]:
    """Generate ``n_tasks`` S-NIAH tasks at one context length."""
    return [generate_task(size_tokens, seed, i) for i in range(n_tasks)]
