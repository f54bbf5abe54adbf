"""Single-fact lookups ("needles") in six document formats, generated offline from a seed.

Each task is one long document of a realistic format -- a server log, a CSV table, JSON lines, prose, a
key-value config file, or markdown notes -- with exactly one record holding the answer. The record is
found by a unique word key (``quiet-otter``) that the question names; the answer is a value on that
record (a 7-digit number, an ID like ``INC-4821`` or a word code like ``amber-falcon``) that appears nowhere
else. The score is RULER's string match (the gold value appears in the answer).

Formats share one generator shape: ``filler(rng, i)`` writes the i-th distractor record and
``needle(rng, key, value)`` the answer record with its question. Distractor records use other keys of the
same shape, so searching for the format's field names alone never finds the answer; searching for the key
does.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from benchmarks.longcontext.niah import _ADJECTIVES, _NOUNS
from benchmarks.longcontext.task import CHARS_PER_TOKEN, Task, task_rng

SUITE = "needle"
FORMATS = ("log", "csv", "jsonl", "prose", "config", "markdown")

_SERVICES = ("auth", "search", "billing", "cart", "inventory", "mailer", "gateway", "reports")
_WORDS = (
    "river",
    "stone",
    "cloud",
    "maple",
    "copper",
    "signal",
    "orbit",
    "candle",
    "harvest",
    "window",
    "garden",
    "bridge",
    "winter",
    "marble",
    "lantern",
    "compass",
    "thunder",
    "velvet",
    "saffron",
    "cedar",
)


def _other_key(rng: random.Random, key: str) -> str:
    while True:
        other = f"{rng.choice(_ADJECTIVES)}-{rng.choice(_NOUNS)}"
        if other != key:
            return other


def _number(rng: random.Random) -> str:
    return str(rng.randint(1_000_000, 9_999_999))


def _code(rng: random.Random) -> str:
    return f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}-{rng.randint(10, 99)}"


# -- formats: (filler record, needle record + question + answer kind) ---------------------------------------
def _log_filler(rng: random.Random, i: int, key: str) -> str:
    level = rng.choice(("INFO", "INFO", "DEBUG", "WARN"))
    svc = rng.choice(_SERVICES)
    msg = rng.choice(
        (
            f"request served in {rng.randint(2, 900)} ms",
            f"cache hit ratio {rng.randint(40, 99)}%",
            f"heartbeat ok ({rng.randint(2, 9)} peers)",
            f"session for {_other_key(rng, key)} renewed",
            f"queue depth {rng.randint(0, 500)}",
        )
    )
    return f"2024-05-{1 + i % 28:02d} {10 + i % 12:02d}:{i % 60:02d}:{(i * 7) % 60:02d} {level} {svc}: {msg}"


def _log_needle(rng: random.Random, key: str) -> tuple[str, str, str]:
    value = f"INC-{rng.randint(1000, 9999)}"
    line = f"2024-05-17 14:02:51 ERROR {rng.choice(_SERVICES)}: job {key} failed, opened incident {value}"
    return line, f"Which incident ID was opened when job {key} failed?", value


def _csv_filler(rng: random.Random, i: int, key: str) -> str:
    return f"{1000 + i},{_other_key(rng, key)},{rng.choice(_SERVICES)},{_number(rng)},{rng.randint(1, 99)}"


def _csv_needle(rng: random.Random, key: str) -> tuple[str, str, str]:
    value = _number(rng)
    row = f"{rng.randint(1000, 9999)},{key},{rng.choice(_SERVICES)},{value},{rng.randint(1, 99)}"
    return row, f"What is the account_number of the customer {key}?", value


def _jsonl_filler(rng: random.Random, i: int, key: str) -> str:
    return json.dumps(
        {"id": i, "user": _other_key(rng, key), "action": rng.choice(("login", "logout", "pay")), "token": _code(rng)}
    )


def _jsonl_needle(rng: random.Random, key: str) -> tuple[str, str, str]:
    value = _code(rng)
    record = json.dumps({"id": rng.randint(1, 99999), "user": key, "action": "login", "token": value})
    return record, f"What token does the user {key} have?", value


def _prose_filler(rng: random.Random, i: int, key: str) -> str:
    a, b, c = rng.sample(_WORDS, 3)
    return (
        f"The {a} near the {b} was quiet that season, and the travellers spoke of {c} and of "
        f"{_other_key(rng, key)} as they walked."
    )


def _prose_needle(rng: random.Random, key: str) -> tuple[str, str, str]:
    value = _number(rng)
    sentence = f"The secret code of the traveller called {key} is {value}, written on a folded map."
    return sentence, f"What is the secret code of the traveller called {key}?", value


def _config_filler(rng: random.Random, i: int, key: str) -> str:
    if i % 12 == 0:
        return f"\n[{rng.choice(_SERVICES)}_{i // 12}]"
    return f"{_other_key(rng, key).replace('-', '_')}_port = {rng.randint(1024, 65000)}"


def _config_needle(rng: random.Random, key: str) -> tuple[str, str, str]:
    value = _number(rng)
    name = key.replace("-", "_")
    return f"{name}_pin = {value}", f"What is the value of {name}_pin in the config?", value


def _markdown_filler(rng: random.Random, i: int, key: str) -> str:
    if i % 8 == 0:
        return f"\n## Notes on {rng.choice(_WORDS)} {i // 8}\n"
    return (
        f"- {rng.choice(_WORDS).capitalize()} review with {_other_key(rng, key)}: status {rng.choice(('ok', 'late'))}."
    )


def _markdown_needle(rng: random.Random, key: str) -> tuple[str, str, str]:
    value = _code(rng)
    return (f"- Release owner {key}: codename {value}.", f"What is the codename given by release owner {key}?", value)


_FORMATS: dict[str, tuple[Callable, Callable, str]] = {
    "log": (_log_filler, _log_needle, "\n"),
    "csv": (_csv_filler, _csv_needle, "\n"),
    "jsonl": (_jsonl_filler, _jsonl_needle, "\n"),
    "prose": (_prose_filler, _prose_needle, " "),
    "config": (_config_filler, _config_needle, "\n"),
    "markdown": (_markdown_filler, _markdown_needle, "\n"),
}
_HEADERS = {
    "csv": "customer_id,name,service,account_number,region",
    "config": "# service configuration",
    "markdown": "# Team notes",
}


def generate_task(size_tokens: int, fmt: str, seed: int = 0, index: int = 0) -> Task:
    """One lookup task of format ``fmt`` with a document of about ``size_tokens`` tokens.

    Args:
        size_tokens: Target context length in estimated tokens (4 characters each).
        fmt: One of :data:`FORMATS`.
        seed: Suite seed; the same arguments always give the same task.
        index: Task number within the suite.

    Raises:
        ValueError: ``fmt`` is unknown or ``size_tokens`` is too small for a document.
    """
    if fmt not in _FORMATS:
        raise ValueError(f"Unknown needle format {fmt!r}; choose one of {', '.join(FORMATS)}.")
    if size_tokens < 256:
        raise ValueError(f"size_tokens must be at least 256, got {size_tokens}.")
    filler, needle, sep = _FORMATS[fmt]
    rng = task_rng(f"{SUITE}-{fmt}", size_tokens, seed, index)
    key = f"{rng.choice(_ADJECTIVES)}-{rng.choice(_NOUNS)}"
    record, query, value = needle(rng, key)
    records, total, i = [], 0, 0
    header = _HEADERS.get(fmt)
    budget = size_tokens * CHARS_PER_TOKEN - len(record) - len(header or "")
    while total < budget:
        line = filler(rng, i, key)
        if value in line or key in line:  # a distractor never repeats the answer or the key
            continue
        records.append(line)
        total += len(line) + 1
        i += 1
    position = rng.randrange(len(records) // 10, len(records) - len(records) // 10 + 1)
    records.insert(position, record)
    context = sep.join(([header] if header else []) + records)
    if fmt == "config":
        key = key.replace("-", "_")
    assert context.count(value) == 1 and context.count(key) == 1, "the needle must be unique"
    return Task(
        id=f"{SUITE}-{fmt}-{size_tokens}-{seed}-{index}",
        suite=SUITE,
        size_tokens=size_tokens,
        context=context,
        query=query,
        gold=[value],
        metric="niah",
        meta={"format": fmt, "key": key, "needle": record, "depth": context.index(record) / len(context)},
    )


def generate(size_tokens: int, n_tasks: int = 1, seed: int = 0, formats: tuple[str, ...] = FORMATS) -> list[Task]:
    """``n_tasks`` lookups at one size, cycling through ``formats``."""
    return [generate_task(size_tokens, formats[i % len(formats)], seed, i) for i in range(n_tasks)]
