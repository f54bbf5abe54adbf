"""Oracle solver: computes the answer to any long-context task from ``context`` and ``query`` alone.

This module is self-contained on purpose (standard library only, no imports from the generators): the
oracle policy sends its source as the code of an RLM action, so it runs inside the REPL sandbox against
the ``context`` variable. It knows the task families and the label rules, as an oracle may, but it is
never handed a gold answer: it finds the needle with a regex and re-parses and re-labels every line.
"""

import re
from collections import Counter
from itertools import combinations

# Label rules: each instance template opens with a phrase that says what kind of answer it asks for.
LABEL_RULES = (
    (r"What does \S+ stand for\?|What is the full form of |What is the short name of ", "abbreviation"),
    (r"What kind of creature is |What sort of object is |What type of animal is ", "entity"),
    (r"What is the meaning of |Why do |Can you explain the idea of ", "description and abstract concept"),
    (r"Who invented |Who wrote |Which person ", "human being"),
    (r"Where is |In which country is |Through which countries ", "location"),
    (r"How many |How far is |In what year did ", "numeric value"),
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
LINE = re.compile(r"^Date: (\w{3}) (\d{2}), (\d{4}) \|\| User: (\d+) \|\| Instance: (.*)$", re.MULTILINE)


def classify(instance):
    """The label of one instance text, from the opening phrase of its question (None if none fits)."""
    for pattern, label in LABEL_RULES:
        if re.match(pattern, instance):
            return label
    return None


def parse_records(context):
    """``(month 1-12, user, label)`` for every record line in the context.

    Lines no rule can label are skipped: only a context cut mid-line (the direct baseline's window) has them.
    """
    records = [(MONTHS.index(m) + 1, user, classify(text)) for m, _d, _y, user, text in LINE.findall(context)]
    return [r for r in records if r[2] is not None]


def strict_top(counts):
    """The key with the strictly largest count, or None on a tie or when empty."""
    top = counts.most_common(2)
    if not top or (len(top) == 2 and top[0][1] == top[1][1]):
        return None
    return top[0][0]


def solve_niah(context, query):
    key = re.search(r"special magic number for (\S+) mentioned", query).group(1)
    found = re.findall(r"special magic numbers? for " + re.escape(key) + r" is: (\d+)", context)
    return ", ".join(found)


def solve_aggregation(records, query):
    labels = re.findall(r"classified as '([^']+)'", query)
    user = re.search(r"from user (\d+)", query)
    if query.startswith("Which label is the most common"):
        pool = [r for r in records if user is None or r[1] == user.group(1)]
        return strict_top(Counter(r[2] for r in pool))
    if query.startswith("In which month"):
        return MONTH_NAMES[strict_top(Counter(r[0] for r in records if r[2] == labels[0])) - 1]
    month = re.search(r"dated in (\w+) \d{4}", query)
    pool = [r for r in records if r[2] == labels[0]]
    if user:
        pool = [r for r in pool if r[1] == user.group(1)]
    if month:
        pool = [r for r in pool if r[0] == MONTH_NAMES.index(month.group(1)) + 1]
    return str(len(pool))


def solve_pairs(records, query):
    x, y = [*re.findall(r"'([^']+)'", query), None][:2]
    per_user = {}
    for _month, user, label in records:
        per_user.setdefault(user, Counter())[label] += 1
    top = {u: strict_top(c) for u, c in per_user.items()}
    if query.startswith("List all pairs of user IDs where both users have more"):
        keep = lambda a, b: top[a] == x and top[b] == x  # noqa: E731
    elif query.startswith("List all pairs of user IDs where one user has more"):
        keep = lambda a, b: {top[a], top[b]} == {x, y}  # noqa: E731
    elif query.startswith("List all pairs of user IDs where neither"):
        keep = lambda a, b: not ({x, y} & (set(per_user[a]) | set(per_user[b])))  # noqa: E731
    else:
        keep = lambda a, b: {x, y} <= set(per_user[a]) and {x, y} <= set(per_user[b])  # noqa: E731
    users = sorted(per_user, key=int)
    return "\n".join(f"({a}, {b})" for a, b in combinations(users, 2) if keep(a, b))


def solve(context, query):
    """The answer to ``query`` over ``context``, for any suite."""
    if "special magic number" in query:
        return solve_niah(context, query)
    records = parse_records(context)
    if query.startswith("List all pairs"):
        return solve_pairs(records, query)
    return solve_aggregation(records, query)
