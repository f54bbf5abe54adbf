"""Build the questions: each source's facts, put in words with the kind's templates under a seeded RNG."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from benchmarks.real_files.core import Fact, Question, output_type
from benchmarks.real_files.sources import SOURCES, SPLITS, Source
from benchmarks.real_files.templates import TEMPLATES

DEFAULT_SEED = 19


@dataclass
class Dataset:
    questions: list[Question]
    contexts: dict[str, str]  # source name -> file text
    sources: list[dict[str, Any]] = field(default_factory=list)  # path, split, availability, size, sha256


def _fill(template: str, slots: Mapping[str, Any], rng: random.Random) -> str:
    chosen = {k: rng.choice(v) if isinstance(v, tuple) else v for k, v in slots.items()}
    return template.format(**chosen)  # not capitalized: a key at the start keeps its case


def phrase(fact: Fact, rng: random.Random) -> list[tuple[str, str]]:
    """``fact.repeat`` different (phrasing id, question) pairs for one fact."""
    templates = TEMPLATES[fact.kind]
    picks = rng.sample(range(len(templates)), min(fact.repeat, len(templates)))
    return [(f"{fact.kind}.{i + 1}", _fill(templates[i], fact.slots, rng)) for i in picks]


def source_questions(source: Source, text: str, seed: int) -> list[Question]:
    """The questions of one source; the RNG is seeded per source, so a missing file changes no other source."""
    rng = random.Random(f"{seed}:{source.name}")
    questions: list[Question] = []
    seen: set[str] = set()
    for fact in source.facts(text, rng):
        for phrasing, question in phrase(fact, rng):
            if question in seen:
                continue
            seen.add(question)
            questions.append(
                Question(
                    id=f"{source.name}-{len(questions):03d}",
                    source=source.name,
                    split=source.split,
                    kind=fact.kind,
                    phrasing=phrasing,
                    question=question,
                    output_type=output_type(fact.gold),
                    gold=fact.gold,
                    alternatives=[a for a in dict.fromkeys(fact.alternatives) if a != fact.gold],
                )
            )
    return questions


def build_dataset(split: str = "all", seed: int = DEFAULT_SEED) -> Dataset:
    """Every question of the split (``dev``, ``test_v1`` or ``all``, both); sources missing here are noted, not
    fatal. The fresh test split is :func:`benchmarks.corpus.build.build`."""
    if split not in (*SPLITS, "all"):
        raise ValueError(f"split must be one of dev, test_v1, all; got {split!r}")
    data = Dataset([], {})
    for source in SOURCES:
        if split != "all" and source.split != split:
            continue
        path = source.locate()
        info: dict[str, Any] = {"name": source.name, "split": source.split, "package": source.package}
        info.update(format=source.format, path=str(path) if path else None, available=path is not None)
        if path is None:
            info["note"] = f"skipped: file not found ({source.path if not callable(source.path) else source.package})"
            data.sources.append(info)
            continue
        text = source.read()
        questions = source_questions(source, text, seed)
        info.update(chars=len(text), sha256=hashlib.sha256(text.encode()).hexdigest()[:16], questions=len(questions))
        data.sources.append(info)
        data.contexts[source.name] = text
        data.questions.extend(questions)
    return data
