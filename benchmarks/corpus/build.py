"""Build the corpus's questions: real files' facts and generated tables' facts, each put in words by the grammar.

``train``: the training files and generated tables (several phrasings per fact, training families only).
``test``: the fresh test split (one phrasing per fact; its family drawn from all families, half held out).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from benchmarks.corpus import grammar, limits, listings, registries, rosters, tallies
from benchmarks.corpus.facts import Quota, table_facts
from benchmarks.corpus.generated import generated_table
from benchmarks.corpus.manifest import TEST, TRAIN, RealFile
from benchmarks.real_files.core import Fact, Question, output_type
from benchmarks.real_files.dataset import Dataset

DEFAULT_SEED = 28
GENERATED_FILES = 240
LISTING_FILES = 60
ROSTER_FILES = 60
TALLY_FILES = 60
REGISTRY_FILES = 40
LIMIT_FILES = 60


def _question(qid: str, source: str, split: str, fact: Fact, family: str, text: str) -> Question:
    alternatives = [a for a in dict.fromkeys(fact.alternatives) if a != fact.gold]
    return Question(
        id=qid,
        source=source,
        split=split,
        kind=fact.kind,
        phrasing=f"{family}.{fact.kind}",
        question=text,
        output_type=output_type(fact.gold),
        gold=fact.gold,
        alternatives=alternatives,
        family=family,
        family_seen=family not in grammar.HELD_OUT,
    )


def _phrased(
    source: str, split: str, facts: list[Fact], families: list[str], rng: random.Random, phrase: Any = grammar.phrase
) -> list[Question]:
    out: list[Question] = []
    seen: set[str] = set()
    for i, fact in enumerate(facts):
        pair = [families[(2 * i) % len(families)], families[(2 * i + 1) % len(families)]]
        for family in families if split == "train" else pair:  # test: each fact in a seen and a held-out family
            text = phrase(fact, family, rng)
            if text in seen:
                continue
            seen.add(text)
            out.append(_question(f"{source}-{len(out):04d}", source, split, fact, family, text))
    return out


def _families(split: str, rng: random.Random, per_fact: int = 2) -> list[str]:
    """Training: ``per_fact`` training families. Test: seen and held-out families alternating (a fact is asked
    twice, once in each)."""
    if split == "train":
        return rng.sample(grammar.TRAINING, per_fact)
    held, seen = list(grammar.HELD_OUT), list(grammar.TRAINING)
    rng.shuffle(held)
    rng.shuffle(seen)
    return [f for pair in zip(seen, held + held, strict=False) for f in pair]


def _real(file: RealFile, data: Dataset, seed: int) -> None:
    info: dict[str, Any] = {"name": file.name, "split": file.split, "package": file.package, "format": file.format}
    path = file.locate()
    info.update(path=str(path) if path else None, available=path is not None)
    if path is None:
        info["note"] = "skipped: file not found"
        data.sources.append(info)
        return
    text = path.read_bytes().decode("utf-8", errors="replace")
    rng = random.Random(f"{seed}:{file.name}")
    quota = file.quota.scaled(1.5) if file.split == "test" else file.quota
    facts = table_facts(file.table(text), rng, quota)
    questions = _phrased(file.name, file.split, facts, _families(file.split, rng, 3), rng)
    info.update(chars=len(text), sha256=hashlib.sha256(text.encode()).hexdigest()[:16], questions=len(questions))
    data.sources.append(info)
    data.contexts[file.name] = text
    data.questions.extend(questions)


def build(
    split: str,
    seed: int = DEFAULT_SEED,
    generated: int = GENERATED_FILES,
    listings_files: int = LISTING_FILES,
    roster_files: int = ROSTER_FILES,
    tally_files: int = TALLY_FILES,
    registry_files: int = REGISTRY_FILES,
    limit_files: int = LIMIT_FILES,
) -> Dataset:
    """Every question of ``split`` (``train`` or ``test``); a real file missing here is noted, not fatal."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be train or test, got {split!r}")
    data = Dataset([], {})
    for file in TRAIN if split == "train" else TEST:
        _real(file, data, seed)
    if split == "train":
        for i in range(generated):
            rng = random.Random(f"{seed}:generated:{i}")
            text, table, fmt = generated_table(rng)
            name = f"gen{i:04d}_{fmt}"
            facts = table_facts(table, rng, Quota(lookup=3, reverse=2, count=2, min_max=2, yes_no=2, two_hop=2))
            questions = _phrased(name, "train", facts, _families("train", rng, 2), rng)
            data.sources.append({"name": name, "split": "train", "package": "generated", "format": fmt,
                                 "chars": len(text), "questions": len(questions)})  # fmt: skip
            data.contexts[name] = text
            data.questions.extend(questions)
        # settings that list items (how many a setting lists), records listing items under one setting (which
        # lists the most), whole-file tallies (how many records, how many have a field) and registries (how many
        # entries a section holds, which holds the most) and limits (which setting of a section is set highest):
        # training only
        makers = (("list", "listing", listings.listing_file, listings.phrase, listings_files),
                  ("roster", "roster", rosters.roster_file, rosters.phrase, roster_files),
                  ("tally", "tally", tallies.tally_file, tallies.phrase, tally_files),
                  ("registry", "registry", registries.registry_file, registries.phrase, registry_files),
                  ("limits", "limits", limits.limits_file, limits.phrase, limit_files))  # fmt: skip
        for prefix, seeded, make, phrase, count in makers:
            for i in range(count):
                rng = random.Random(f"{seed}:{seeded}:{i}")
                text, facts, fmt = make(rng)
                name = f"{prefix}{i:04d}_{fmt}"
                questions = _phrased(name, "train", facts, _families("train", rng, 2), rng, phrase)
                data.sources.append({"name": name, "split": "train", "package": "generated", "format": fmt,
                                     "chars": len(text), "questions": len(questions)})  # fmt: skip
                data.contexts[name] = text
                data.questions.extend(questions)
    return data
