"""``dspy.BootstrapFinetune`` on a plain DSPy program and the embedded model: before and after, on held-out data.

    python -m benchmarks.finetune_program --out benchmarks/results/finetune_program.json

The program is the tiers benchmark's nested-pydantic extraction (``text -> contact: Contact``, see
:mod:`benchmarks.tier_cases`). Texts are built from people, cities and phrasings: the training texts use one
set of each, the held-out texts other people, other cities and two phrasings training never shows (a second
held-out set: other people and cities in the training phrasings). The
teacher is the same program on an LM that answers with the gold (ChatAdapter's format); the student is
``dspy.Predict`` on ``OutlinesLM()``, compiled by ``dspy.BootstrapFinetune(metric=...)`` with no other
argument. Both are measured under ``OutlinesAdapter()`` (ChatAdapter's format first, then JSON, then
constrained generation), with the tier that answered, beside a trivial baseline (the capitalised words of
the text, in order) on the same held-out texts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import dspy

from benchmarks.report import emit
from benchmarks.tier_cases import Contact

NAMES = [
    "Ann", "Bob", "Eve", "Tom", "Ivy", "Max", "Zoe", "Sam", "Lea", "Ali", "Ben", "Mia", "Leo", "Ida", "Kai",
    "Nora", "Omar", "Pia", "Raj", "Sara", "Ugo", "Vera", "Wes", "Yara", "Finn", "Gus", "Hana", "Jon", "Lou", "Nils",
]  # fmt: skip
PLACES = [
    ("Paris", "France"), ("Rome", "Italy"), ("Oslo", "Norway"), ("Lima", "Peru"), ("Cairo", "Egypt"),
    ("Bern", "Switzerland"), ("Kyoto", "Japan"), ("Quito", "Ecuador"), ("Graz", "Austria"), ("Doha", "Qatar"),
    ("Lyon", "France"), ("Milan", "Italy"), ("Bergen", "Norway"), ("Cusco", "Peru"), ("Luxor", "Egypt"),
    ("Basel", "Switzerland"), ("Osaka", "Japan"), ("Cuenca", "Ecuador"), ("Linz", "Austria"), ("Porto", "Portugal"),
    ("Seville", "Spain"), ("Krakow", "Poland"), ("Tartu", "Estonia"), ("Cork", "Ireland"), ("Ghent", "Belgium"),
    ("Aarhus", "Denmark"), ("Turku", "Finland"), ("Brno", "Czechia"), ("Pune", "India"), ("Hanoi", "Vietnam"),
]  # fmt: skip
TRAIN_PHRASINGS = [
    "{n} lives in {c}, {k}.",
    "{n} moved to {c} ({k}) last year.",
    "Our new colleague {n} is based in {c}, {k}.",
    "From {c}, {k}: a letter signed by {n}.",
]
HELD_OUT_PHRASINGS = [
    "{c} in {k} is where {n} grew up.",
    "Please ship the parcel to {n}, {c}, {k}.",
]
SIGNATURE = dspy.Signature("text -> contact: Contact", custom_types={"Contact": Contact})


def examples(n: int, names: list[str], places: list[tuple[str, str]], phrasings: list[str], seed: int) -> list:
    """``n`` texts (distinct people x places x phrasings, seeded) with their gold triple."""
    rng = random.Random(seed)
    combos = [(p, c, f) for p in names for c in places for f in phrasings]
    out = []
    for name, (city, country), phrasing in rng.sample(combos, n):
        text = phrasing.format(n=name, c=city, k=country)
        out.append(dspy.Example(text=text, gold=(name, city, country)).with_inputs("text"))
    return out


def right(gold: tuple[str, str, str], contact: Any) -> bool:
    try:
        got = (contact.name, contact.city.name, contact.city.country)
    except AttributeError:
        return False
    return tuple(str(x).strip().lower() for x in got) == tuple(x.lower() for x in gold)


def metric(example: Any, pred: Any, trace: Any = None) -> bool:
    return right(example.gold, getattr(pred, "contact", None))


class GoldLM(dspy.BaseLM):
    """The teacher's LM: it answers each text with its gold contact, in ChatAdapter's format."""

    def __init__(self, golds: dict[str, tuple[str, str, str]]) -> None:
        super().__init__(model="local/gold", model_type="chat", temperature=0.0, max_tokens=256, cache=False)
        self.golds = golds

    def forward(self, prompt: Any = None, messages: Any = None, **kwargs: Any) -> Any:
        from dspy_outlines.replies import chat_reply

        user = messages[-1]["content"]
        text = re.search(r"\[\[ ## text ## \]\]\n(.*?)\n", user, re.S).group(1)  # type: ignore[union-attr]
        name, city, country = self.golds[text]
        contact = {"name": name, "city": {"name": city, "country": country}}
        return chat_reply(self.model, f"[[ ## contact ## ]]\n{json.dumps(contact)}\n\n[[ ## completed ## ]]")


def baseline(text: str) -> tuple[str, ...]:
    """The capitalised words of the text, first three, in order (no model)."""
    words = [w for w in re.findall(r"[A-Za-z]+", text) if w[0].isupper()]
    return tuple(words[:3])


def _baseline_pct(data: list) -> float:
    return round(100 * sum(baseline(ex.text) == ex.gold for ex in data) / len(data), 1)


def measure(program: Any, heldout: list, tiers: Any = None) -> dict[str, Any]:
    from dspy_outlines import OutlinesAdapter

    adapter = OutlinesAdapter() if tiers is None else OutlinesAdapter(tiers=tiers)
    started, rows = time.perf_counter(), []
    with dspy.context(adapter=adapter):
        for ex in heldout:
            try:
                contact = program(text=ex.text).contact
                got = [contact.name, contact.city.name, contact.city.country]
                ok = right(ex.gold, contact)
            except Exception as exc:  # noqa: BLE001 - an answer no tier parsed is a wrong answer
                got, ok = [type(exc).__name__], False
            rows.append({"text": ex.text, "got": got, "right": ok})
    return {
        "correct_pct": round(100 * sum(r["right"] for r in rows) / len(rows), 1),
        "answered_by_tier": {t: adapter.metrics[t]["success"] for t in ("tier1", "tier2", "tier3")},
        "seconds": round(time.perf_counter() - started, 1),
        "answers": rows,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m benchmarks.finetune_program", description=__doc__.split("\n\n")[0])
    p.add_argument("--train", type=int, default=48)
    p.add_argument("--heldout", type=int, default=40)
    p.add_argument("--steps", type=int, default=36)
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    from dspy_outlines import OutlinesLM

    trainset = examples(args.train, NAMES[:20], PLACES[:20], TRAIN_PHRASINGS, args.seed)
    heldout = examples(args.heldout, NAMES[20:], PLACES[20:], HELD_OUT_PHRASINGS, args.seed + 1)
    new_people = examples(args.heldout, NAMES[20:], PLACES[20:], TRAIN_PHRASINGS, args.seed + 2)  # phrasings seen
    student = dspy.Predict(SIGNATURE)
    student.set_lm(OutlinesLM(max_tokens=64, adapter=None))
    teacher = dspy.Predict(SIGNATURE)
    teacher.set_lm(GoldLM({ex.text: ex.gold for ex in trainset}))
    result: dict[str, Any] = {
        "command": "python -m benchmarks.finetune_program " + " ".join(argv or []),
        "program": "dspy.Predict('text -> contact: Contact') (benchmarks.tier_cases)",
        "train": len(trainset), "heldout": len(heldout), "load_start": list(os.getloadavg()),
        "baseline_capitalised_words_pct": _baseline_pct(heldout),
        "baseline_capitalised_words_seen_phrasings_pct": _baseline_pct(new_people),
    }  # fmt: skip
    result["before"] = measure(student, heldout)
    result["before_seen_phrasings"] = measure(student, new_people)
    train_kwargs = {
        "steps": args.steps, "batch_size": 4, "layers": args.layers, "rank": 8, "learning_rate": 5e-4,
        "seed": args.seed, "output_dir": tempfile.mkdtemp(prefix="finetune-program-") + "/adapter",
    }  # fmt: skip
    t0 = time.perf_counter()
    compiled = dspy.BootstrapFinetune(metric=metric, train_kwargs=train_kwargs, num_threads=1).compile(
        student, trainset=trainset, teacher=teacher
    )
    result["training"] = {
        "train_kwargs": {k: v for k, v in train_kwargs.items() if k != "output_dir"},
        "minutes": round((time.perf_counter() - t0) / 60, 2),
    }
    result["after"] = measure(compiled, heldout)
    result["after_tier3"] = measure(compiled, heldout, tiers=("tier3",))  # the tuned weights under the constraint
    result["after_seen_phrasings"] = measure(compiled, new_people)
    result["load_end"] = list(os.getloadavg())
    emit(result, str(args.out) if args.out else None)
    return result


if __name__ == "__main__":
    main()
