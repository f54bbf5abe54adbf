"""Question families for the OOLONG-style suites, with gold answers computed from the records.

Aggregation (suite ``oolong``), cycled by task index: label count, most common label, per-user count,
per-user most common label, count in a month, month with the most instances of a label. Questions whose
gold would be a tie fall back to the matching count question, so every gold answer is unique.

Pairs (suite ``pairs``), cycled by task index: both users dominated by label X; one dominated by X and
the other by Y; neither user has X or Y; both users have X and Y.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import combinations
from typing import Any

from benchmarks.longcontext.oolong import LABELS, MONTH_NAMES, YEAR, Dataset, strict_argmax

QuestionResult = tuple[str, Any, str, dict[str, Any]]

LABEL_CHOICES = ", ".join(f"'{label}'" for label in LABELS)
PAIRS_SUFFIX = " List each pair once, lower ID first, as (ID1, ID2), one pair per line."

Q_COUNT = "How many instances should be classified as '{label}'? Answer with a number."
Q_MOST_COMMON = "Which label is the most common among all instances? Answer with one of: {choices}."
Q_USER_COUNT = "How many instances from user {user} should be classified as '{label}'? Answer with a number."
Q_USER_MOST_COMMON = (
    "Which label is the most common among the instances from user {user}? Answer with one of: {choices}."
)
Q_MONTH_COUNT = "How many instances classified as '{label}' are dated in {month} {year}? Answer with a number."
Q_TOP_MONTH = (
    "In which month of {year} do instances classified as '{label}' occur most often? Answer with the month name."
)
P_BOTH_DOMINANT = (
    "List all pairs of user IDs where both users have more instances classified as '{x}' than "
    "instances of any other label."
)
P_CROSS_DOMINANT = (
    "List all pairs of user IDs where one user has more instances classified as '{x}' than of any "
    "other label and the other user has more instances classified as '{y}' than of any other label."
)
P_NEITHER = "List all pairs of user IDs where neither user has any instance classified as '{x}' or '{y}'."
P_BOTH_HAVE = (
    "List all pairs of user IDs where both users have at least one instance classified as '{x}' "
    "and at least one instance classified as '{y}'."
)


# ------------------------------------------------------------------------------------------ aggregation


def _count(data: Dataset, rng) -> QuestionResult:
    label = rng.choice(LABELS)
    gold = data.label_counts()[label]
    return Q_COUNT.format(label=label), gold, "numeric", {"family": "count", "label": label}


def _most_common(data: Dataset, rng) -> QuestionResult:
    gold = data.dominant_label()
    if gold is None:
        return _count(data, rng)
    return Q_MOST_COMMON.format(choices=LABEL_CHOICES), gold, "exact", {"family": "most_common"}


def _user_count(data: Dataset, rng) -> QuestionResult:
    user = rng.choice(_present_users(data))
    label = rng.choice(sorted(data.label_counts(user)))
    gold = data.label_counts(user)[label]
    query = Q_USER_COUNT.format(user=user, label=label)
    return query, gold, "numeric", {"family": "user_count", "user": user, "label": label}


def _user_most_common(data: Dataset, rng) -> QuestionResult:
    candidates = [u for u in _present_users(data) if data.dominant_label(u) is not None]
    if not candidates:
        return _user_count(data, rng)
    user = rng.choice(candidates)
    query = Q_USER_MOST_COMMON.format(user=user, choices=LABEL_CHOICES)
    return query, data.dominant_label(user), "exact", {"family": "user_most_common", "user": user}


def _month_counts(data: Dataset, label: str) -> Counter:
    return Counter(r.month for r in data.records if r.label == label)


def _month_count(data: Dataset, rng) -> QuestionResult:
    label = rng.choice(LABELS)
    month = rng.randint(1, 12)
    gold = _month_counts(data, label)[month]
    query = Q_MONTH_COUNT.format(label=label, month=MONTH_NAMES[month - 1], year=YEAR)
    return query, gold, "numeric", {"family": "month_count", "label": label, "month": month}


def _top_month(data: Dataset, rng) -> QuestionResult:
    label = rng.choice(LABELS)
    top = strict_argmax(_month_counts(data, label))
    if top is None:
        return _month_count(data, rng)
    query = Q_TOP_MONTH.format(label=label, year=YEAR)
    return query, MONTH_NAMES[top - 1], "exact", {"family": "top_month", "label": label}


AGGREGATION_FAMILIES: tuple[Callable[[Dataset, Any], QuestionResult], ...] = (
    _count,
    _most_common,
    _user_count,
    _user_most_common,
    _month_count,
    _top_month,
)


def aggregation_question(data: Dataset, rng, index: int) -> QuestionResult:
    """The aggregation question for task ``index``: ``(query, gold, metric, meta)``."""
    return AGGREGATION_FAMILIES[index % len(AGGREGATION_FAMILIES)](data, rng)


# ---------------------------------------------------------------------------------------------- pairs


def _present_users(data: Dataset) -> list[str]:
    """Users with at least one record: the only users a reader of the context can know about."""
    return sorted({r.user for r in data.records}, key=int)


def _pairs(users: list[str], keep: Callable[[str, str], bool]) -> list[list[str]]:
    return [[a, b] for a, b in combinations(sorted(users, key=int), 2) if keep(a, b)]


def _two_labels(rng) -> tuple[str, str]:
    x, y = rng.sample(LABELS, 2)
    return x, y


def _both_dominant(data: Dataset, rng) -> QuestionResult:
    users = _present_users(data)
    dominant = {u: data.dominant_label(u) for u in users}
    common = [label for label, n in Counter(dominant.values()).items() if label and n >= 2]
    x = rng.choice(sorted(common)) if common else rng.choice(LABELS)
    gold = _pairs(users, lambda a, b: dominant[a] == x and dominant[b] == x)
    return P_BOTH_DOMINANT.format(x=x) + PAIRS_SUFFIX, gold, "pairs_f1", {"family": "both_dominant", "x": x}


def _cross_dominant(data: Dataset, rng) -> QuestionResult:
    users = _present_users(data)
    dominant = {u: data.dominant_label(u) for u in users}
    x, y = _two_labels(rng)
    gold = _pairs(users, lambda a, b: {dominant[a], dominant[b]} == {x, y})
    meta = {"family": "cross_dominant", "x": x, "y": y}
    return P_CROSS_DOMINANT.format(x=x, y=y) + PAIRS_SUFFIX, gold, "pairs_f1", meta


def _neither(data: Dataset, rng) -> QuestionResult:
    users = _present_users(data)
    x, y = _two_labels(rng)
    lacks = {u: not ({x, y} & set(data.label_counts(u))) for u in users}
    gold = _pairs(users, lambda a, b: lacks[a] and lacks[b])
    return P_NEITHER.format(x=x, y=y) + PAIRS_SUFFIX, gold, "pairs_f1", {"family": "neither", "x": x, "y": y}


def _both_have(data: Dataset, rng) -> QuestionResult:
    users = _present_users(data)
    x, y = _two_labels(rng)
    has = {u: {x, y} <= set(data.label_counts(u)) for u in users}
    gold = _pairs(users, lambda a, b: has[a] and has[b])
    meta = {"family": "both_have", "x": x, "y": y}
    return P_BOTH_HAVE.format(x=x, y=y) + PAIRS_SUFFIX, gold, "pairs_f1", meta


PAIRS_FAMILIES: tuple[Callable[[Dataset, Any], QuestionResult], ...] = (
    _both_dominant,
    _cross_dominant,
    _neither,
    _both_have,
)


def pairs_question(data: Dataset, rng, index: int) -> QuestionResult:
    """The pairs question for task ``index``: ``(query, gold, metric, meta)``."""
    return PAIRS_FAMILIES[index % len(PAIRS_FAMILIES)](data, rng)
