"""The words of yes/no and membership questions: how a question opens ("is", "does"), how it asks for records having
or lacking a field, whether a list holds an item, and the whole values that answer a flag.

Split from :mod:`dspy_rlm.profiles.vocabulary` (general English and the kind cues), which keeps the rest. General
English, never a word of a benchmark file.
"""

from __future__ import annotations

import re

YES_NO_START = (
    "is", "are", "does", "do", "did", "can", "has", "have", "was", "were", "will", "should", "could", "would",
)  # fmt: skip
HAVING = (
    "have", "has", "having", "with", "carry", "carries", "carrying", "include", "includes", "including", "contain",
    "contains", "containing", "define", "defines", "set", "sets", "specify", "specifies", "declare", "declares",
    "list", "lists", "give", "gives",
)  # fmt: skip
"""Words before a field's name that ask for the records having it ("how many packages *have* a Homepage")."""
LACKING = ("no", "without", "lack", "lacks", "lacking", "missing", "empty", "blank", "unset")
"""Words before a field's name that ask for the records lacking it ("how many posts have *no* tags", "an *empty*
tags list"); after it, "is empty" / "are missing" says the same."""
MANY = ("more than one", "multiple", "several", "two or more", "at least two")
"""How a yes/no question asks whether a name has more than one record ("more than one version of the itertools
crate?"): a count of the records the name keys, no statement about one of them."""
ANSWER_WORDS = frozenset({"yes", "no", "true", "false"})
"""Words a yes/no question may say of its answer ("answer yes or no"): never what it states of a record."""
TRUE_FLAGS = frozenset({"true", "yes", "on", "enabled"})
FALSE_FLAGS = frozenset({"false", "no", "off", "disabled"})
"""A field's whole value that says its name does not hold ("Terminal=false"): a yes/no question naming that field
of the record is answered no ("does X run in a terminal?")."""
NO_VALUE = frozenset({"none", "null", "nil"})
"""A field's whole value that says it holds nothing (Vim's ``gui=NONE``): like a flag, no answer to "which"."""
ASKING = frozenset(
    {"check", "confirm", "verify", "wonder", "see", "know", "lists", "among", "include", "includes", "contain"}
)
"""Words of asking whether something is listed ("*check* whether ...", "does it *include* ..."), never an item."""
MEMBER_VERBS = ("list", "lists", "include", "includes", "contain", "contains", "require", "requires", "have", "has")
"""Verbs whose object is the item a list holds ("does Y *list* X", "does Y *require* X")."""
MEMBERSHIP = ("one of", "among", "amongst", "including", "containing", "listed", "member of", "part of",
              *MEMBER_VERBS[:-2])  # fmt: skip
"""Words that ask whether a list holds an item ("is X *one of* the ...", "does Y *include* X")."""
LEFT_OUT = re.compile(
    r"\b(?:leave|leaves|leaving|left)\s+(?:\w+\s+)?(?:off|out)\b|\bomit(?:s|ted|ting)?\b|\boptional\b", re.I
)
"""Words asking whether a thing may be left out ("may the user *leave off* the final argument?", "is the port
*optional*?"): the thing is written either way, so its presence answers nothing."""
