"""OOLONG-style aggregation and OOLONG-Pairs tasks over synthetic, labelled records.

Each context line reads ``Date: Mar 14, 2023 || User: 48213 || Instance: Who wrote Moby Dick?``. As in
OOLONG's ``trec_coarse`` split, every instance is a question whose label is the kind of answer it asks
for (``abbreviation``, ``entity``, ``description and abstract concept``, ``human being``, ``location``,
``numeric value``). Instances come from per-label templates, so the label is known by construction and
recoverable by a careful reader, but never written in the text.

Users have a profile: three of the six labels, one of them dominant, so per-user and pair questions stay
selective at every context length. Gold answers are computed in code from the generated records.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from benchmarks.longcontext.task import CHARS_PER_TOKEN, Task, task_rng

LABELS = (
    "abbreviation",
    "entity",
    "description and abstract concept",
    "human being",
    "location",
    "numeric value",
)
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
YEAR = 2023

_SLOTS: dict[str, tuple[str, ...]] = {
    "acronym": ("NASA", "UNESCO", "NATO", "FIFA", "DNA", "HTML", "GDP", "RAM", "OPEC", "LASER", "SCUBA", "UNICEF"),
    "org": (
        "the World Health Organization",
        "the International Monetary Fund",
        "the European Central Bank",
        "the National Basketball Association",
        "the Food and Drug Administration",
    ),
    "animal": ("an axolotl", "a pangolin", "a narwhal", "a quokka", "a capybara", "an okapi", "a tapir"),
    "thing": ("a theremin", "a sextant", "a zither", "an abacus", "a loom", "a harpsichord", "a trebuchet"),
    "concept": ("irony", "entropy", "democracy", "nostalgia", "inflation", "karma", "stoicism", "utopia"),
    "phenomenon": ("leaves change color", "cats purr", "bread rise", "stars twinkle", "onions sting eyes"),
    "invention": ("telephone", "printing press", "light bulb", "steam engine", "telescope", "vaccine"),
    "book": ("Moby Dick", "War and Peace", "Don Quixote", "Hamlet", "Frankenstein", "Dracula", "Ulysses"),
    "landmark": ("the Eiffel Tower", "Machu Picchu", "the Alhambra", "Angkor Wat", "the Acropolis", "Petra"),
    "city": ("Lisbon", "Oslo", "Nairobi", "Kyoto", "Lima", "Quebec", "Tbilisi", "Hobart", "Marrakesh"),
    "river": ("the Danube", "the Mekong", "the Zambezi", "the Volga", "the Orinoco", "the Rhine"),
    "unit": ("bones in the human body", "keys on a piano", "players on a rugby team", "moons of Jupiter"),
    "event": ("the fall of the Berlin Wall", "the first Moon landing", "the signing of the Magna Carta"),
}

TEMPLATES: dict[str, tuple[str, ...]] = {
    "abbreviation": (
        "What does {acronym} stand for?",
        "What is the full form of {acronym}?",
        "What is the short name of {org}?",
    ),
    "entity": (
        "What kind of creature is {animal}?",
        "What sort of object is {thing}?",
        "What type of animal is {animal}?",
    ),
    "description and abstract concept": (
        "What is the meaning of {concept}?",
        "Why do {phenomenon}?",
        "Can you explain the idea of {concept}?",
    ),
    "human being": (
        "Who invented the {invention}?",
        "Who wrote {book}?",
        "Which person first translated {book}?",
    ),
    "location": (
        "Where is {landmark}?",
        "In which country is {city}?",
        "Through which countries does {river} flow?",
    ),
    "numeric value": (
        "How many {unit} are there?",
        "How far is {city} from the sea?",
        "In what year did {event} happen?",
    ),
}


@dataclass(frozen=True)
class Record:
    """One generated line and its label (the label is not in the line)."""

    month: int  # 1-12
    day: int
    user: str
    instance: str
    label: str

    def line(self) -> str:
        """The line as it appears in the context."""
        date = f"{MONTHS[self.month - 1]} {self.day:02d}, {YEAR}"
        return f"Date: {date} || User: {self.user} || Instance: {self.instance}"


@dataclass
class Dataset:
    """The records of one context and the per-user profiles they were drawn from."""

    records: list[Record]
    users: list[str]

    @property
    def context(self) -> str:
        return "\n".join(r.line() for r in self.records)

    def label_counts(self, user: str | None = None) -> Counter:
        """Instances per label, overall or for one user."""
        return Counter(r.label for r in self.records if user is None or r.user == user)

    def dominant_label(self, user: str | None = None) -> str | None:
        """The label with strictly more instances than any other (None on a tie or no records)."""
        return strict_argmax(self.label_counts(user))


def strict_argmax(counts: Counter) -> str | None:
    """The key with the strictly largest count, or None when the top is tied or ``counts`` is empty."""
    top = counts.most_common(2)
    if not top or (len(top) == 2 and top[0][1] == top[1][1]):
        return None
    return top[0][0]


def fill(template: str, rng) -> str:
    """Fill a template's ``{slot}`` fields from the slot vocabularies."""
    names = [part.split("}")[0] for part in template.split("{")[1:]]
    return template.format(**{name: rng.choice(_SLOTS[name]) for name in names})


def generate_dataset(size_tokens: int, rng) -> Dataset:
    """Records whose joined lines are about ``size_tokens * 4`` characters long."""
    target_chars = size_tokens * CHARS_PER_TOKEN
    n_users = min(60, max(12, target_chars // 80 // 20))
    users = [str(u) for u in rng.sample(range(10_000, 100_000), n_users)]
    profiles = {}
    for user in users:
        allowed = rng.sample(LABELS, 3)
        profiles[user] = (allowed, [3, 1, 1])  # the first allowed label dominates

    records: list[Record] = []
    total = -1  # no newline before the first line
    while True:
        user = rng.choice(users)
        allowed, weights = profiles[user]
        label = rng.choices(allowed, weights=weights)[0]
        month = rng.randint(1, 12)
        record = Record(
            month=month,
            day=rng.randint(1, DAYS_IN_MONTH[month - 1]),
            user=user,
            instance=fill(rng.choice(TEMPLATES[label]), rng),
            label=label,
        )
        length = len(record.line()) + 1
        if total + length > target_chars and records:
            break
        records.append(record)
        total += length
    return Dataset(records=records, users=sorted(users))


def _make_task(suite: str, size_tokens: int, seed: int, index: int, question_fn) -> Task:
    rng = task_rng(suite, size_tokens, seed, index)
    data = generate_dataset(size_tokens, rng)
    query, gold, metric, meta = question_fn(data, rng, index)
    return Task(
        id=f"{suite}-{size_tokens}-{seed}-{index}",
        suite=suite,
        size_tokens=size_tokens,
        context=data.context,
        query=query,
        gold=gold,
        metric=metric,
        meta={**meta, "n_records": len(data.records), "n_users": len(data.users)},
    )


def generate_task(size_tokens: int, seed: int = 0, index: int = 0) -> Task:
    """One OOLONG-style aggregation task; ``index`` cycles through the question families."""
    from benchmarks.longcontext.oolong_questions import aggregation_question  # needs this module's data

    return _make_task("oolong", size_tokens, seed, index, aggregation_question)


def generate_pairs_task(size_tokens: int, seed: int = 0, index: int = 0) -> Task:
    """One OOLONG-Pairs-style task; ``index`` cycles through the pair conditions."""
    from benchmarks.longcontext.oolong_questions import pairs_question

    return _make_task("pairs", size_tokens, seed, index, pairs_question)


def generate(size_tokens: int, n_tasks: int = 1, seed: int = 0) -> list[Task]:
    """Generate ``n_tasks`` aggregation tasks at one context length."""
    return [generate_task(size_tokens, seed, i) for i in range(n_tasks)]


def generate_pairs(size_tokens: int, n_tasks: int = 1, seed: int = 0) -> list[Task]:
    """Generate ``n_tasks`` pair tasks at one context length."""
    return [generate_pairs_task(size_tokens, seed, i) for i in range(n_tasks)]
