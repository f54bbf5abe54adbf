"""Words that name a record's fields and the sort of value asked: synonyms of a field's name, units and
abbreviations its name may carry, the nouns of a field's name or a list's items, and the words of dates, paths and
whole values.

General English, as in :mod:`dspy_rlm.profiles.vocabulary` (whose function and cue words these are not): never a
word of a benchmark file.
"""

from __future__ import annotations

import re

SYNONYMS = (
    frozenset(
        {
            "description",
            "describe",
            "describes",
            "described",
            "comment",
            "comments",
            "note",
            "notes",
            "remark",
            "remarks",
        }
    ),
    frozenset({"id", "identifier", "code"}),
    frozenset({"url", "link", "href", "homepage", "website"}),
    *(frozenset(g) for g in ({"wide", "width"}, {"long", "length"}, {"tall", "high", "height"}, {"deep", "depth"})),
    frozenset({"heavy", "weight"}),
    frozenset({"region", "location"}),
    frozenset({"depend", "depends", "prerequisite", "prerequisites"}),
    frozenset({"print", "prints", "printed", "echo", "echoes", "echoed", "report", "reports", "reported"}),
    frozenset({"changelog", "change", "changes"}),  # a release's changes (CHANGES_FIELD); "changed" is a verb
)
"""Words that name the same field: a question's "description" names a table's trailing ``# comment``, its
"code" a field ``ID``, its "link" a field ``url``, "how *wide*" a field ``width``, "what does it report" a
script option's ``prints``, "what was the change in 0.1.4" a dated section's ``changelog``."""
UNIT_PARTS = frozenset(
    {
        "sec", "secs", "usec", "msec", "nsec", "ms", "us", "ns", "seconds", "minutes", "min", "mins", "hours",
        "days", "kb", "mb", "gb", "kib", "mib", "gib", "bytes", "pct", "percent",
    }
)  # fmt: skip
"""A field name's last part that says the unit of its value (``WatchdogSec``, ``cache_mb``): "the watchdog timeout"
names the field without it."""
ANY_VALUE_NOUNS = frozenset(
    {
        "value", "values", "setting", "settings", "default", "defaults", "parameter", "parameters", "variable",
        "variables", "string", "strings", "text", "content", "contents", "thing", "things", "word", "words", "term",
        "terms", "field", "fields", "data", "exact", "current", "actual", "configured", "specific", "particular",
    }
)  # fmt: skip
"""Nouns (and their modifiers) a question asks for any value by ("what *default* port", "which *value* ..."): no
sort of value the read must name (:mod:`dspy_rlm.profiles.asked_noun`)."""
DATE_WORDS = frozenset({"date", "dates", "day", "when"})
"""Words that ask for a date: where no field's name says them, they name the fields whose values are dates."""
TEMPORAL = re.compile(r"\b(?:most recent|most recently|latest|newest|earliest|oldest)\b", re.IGNORECASE)
"""Words that rank by date: a field of dates ranks by date where one is said."""
DATE_VALUE = re.compile(
    r"\d{4}-\d\d-\d\d(?:[ T]\S+)?|\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2}-\d{1,2}-\d{4}|\d{1,2}\.\d{1,2}\.\d{4}"
    r"|\d{1,2} [A-Za-z]{3,9}\.? \d{4}|[A-Za-z]{3,9}\.? \d{1,2},? \d{4}"
)
"""A value that is a date: ``2024-01-02``, ``02/01/2024``, ``1 Jan 1991``, ``Jan 1, 1991``."""
PLACE_ASKED = re.compile(
    r"(?:^|[,;:]\s*)where\s+(?:is|are|was|were|does|do|did|will|would|should|can|could)\b", re.IGNORECASE
)
"""A question asking where ("*Where does* copybot.cfg say boto lives on disk?"), not a relative "where" ("the
records where X is Y"): it names the fields whose values are paths, besides those the question says."""
PATH_VALUE = re.compile(r"(?:/|~/|\.\.?/|[A-Za-z]:\\)[^\s,;]*")
"""A value that is a path on disk: ``/usr/local/boto``, ``~/.cache``, ``./build``, ``C:\\Temp``."""
CONTEXT_FIELDS = frozenset({"block", "section"})
"""Fields the parsers give a record for where it sits (a literal's ``block``, the heading a list item or a manual
page's option is under): not among the record's own values when counting how few it has. (A trailing
``comment`` is no such field: "what does AKST stand for" asks for it.)"""
PROSE_FIELDS = frozenset({"description"})
"""Fields the parsers fill with sentences (a manual page's option or a Markdown setting, described): where the
question says words of one besides its key ("the default buffer size of --buf-size"), it asks for a part of it."""
COMMENT_WORDS = frozenset({"comment", "comments", "commented"})
"""Words that point to a text's comments, which a structure leaves out of its records."""
NAME_NOUNS = frozenset(
    {"key", "setting", "field", "property", "option", "variable", "parameter", "attribute", "directive"}
)
"""What a record's fields are called: "which *setting* in section S is set to V" asks for a field's name."""
NAME_ASKED = re.compile(
    rf"\b(?:which|what|name\s+the)\s+(?:[\w.-]+\s+){{0,2}}?(?:{'|'.join(sorted(NAME_NOUNS))})s?\b", re.I
)
"""A field's name asked: the noun is what "which"/"what" ask for, not a later word ("what name is given to option
3")."""
ITEM_NOUNS = frozenset({"value", "values", "item", "items", "entry", "entries", "element", "elements", "choices"})
"""Nouns that count a list's items whatever it holds ("how many *values* are allowed in the X enum")."""
FIRST_LINE = ("short", "brief", "synopsis", "summary", "one-line")
"""Words that ask for the first line of a multi-line value (a package's short description)."""
WHOLE = frozenset({"full", "complete", "whole", "entire", "exact"})
"""Words that ask for a value whole ("the complete description"): never a key phrase's edge, though they may
name a field (``full_name``)."""
DIRECTORY_WORDS = frozenset({"directory", "directories", "folder", "folders", "dir", "dirs", "subdirectory"})
"""Words that ask for a path's directory ("which directory holds the most files": ``most_common(..., by='dir')``)."""
BY_LENGTH = ("longest", "shortest")
"""Ranking words that rank a text by its length (``max_of(..., by='length')``), not a number."""
ABBREVIATED = {"maximum": "max", "minimum": "min", "number": "num", "description": "desc", "directory": "dir"}
"""Words a field's name shortens (``maxAttempts`` for "the maximum attempts"): said in full, they say its part."""
PREDICATE_PARTS = frozenset({"is", "has", "use", "uses", "enable", "enabled", "allow", "allows"})
"""A field name's first part that makes it a yes/no (``IsFixedPitch``, ``has_docs``, ``enableFoo``): a question may
say the rest alone ("declared as a *fixed-pitch* font")."""
