"""The words the small policy's moves know, in one place: function and stop words, and the cue phrases that
mark a question's kind (count, most common, largest, smallest, yes/no).

This is general English, never a word of a benchmark file. The cues are *features*: they decide which moves are
offered and what the scripted baseline picks; the model chooses among the offered moves
(:mod:`dspy_rlm.profiles.moves`).
"""

from __future__ import annotations

import re

from dspy_rlm.profiles.yes_no_words import MEMBER_VERBS

ID_LIKE = re.compile(r"\d|\w[-_./:@]\w")
"""A word with a digit or joined by punctuation (``INC-4821``, ``calm-island``): an identifier."""

ADJECTIVE_HEADS = frozenset(
    {"specific", "level", "based", "only", "wide", "related", "like", "style", "friendly", "aware", "free", "side",
     "safe", "compatible", "dependent", "independent", "oriented", "sensitive", "driven", "enabled", "defined",
     "facing", "scoped", "bound", "critical", "ready", "proof", "agnostic", "centric", "specified", "named"}
)  # fmt: skip
"""Last parts of an English compound adjective ("*print-specific* rules", "the *top-level* block"): such a word
describes what the question asks about; it is no identifier, and its absence from the data is no evidence."""

FUNCTION_WORDS = frozenset(
    {
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "where",
        "when",
        "why",
        "how",
        "the",
        "does",
        "did",
        "was",
        "were",
        "are",
        "is",
        "isn",
        "for",
        "and",
        "with",
        "from",
        "that",
        "this",
        "these",
        "those",
        "have",
        "has",
        "had",
        "give",
        "tell",
        "find",
        "into",
        "onto",
        "about",
        "than",
        "then",
        "there",
        "their",
        "they",
        "them",
        "its",
        "in",
        "of",
        "at",
        "by",
        "to",
        "an",
        "or",
        "without",
        "within",
        "among",
        "except",
        "unless",
    }
)
"""English function words: never a search word nor the key of a stated value."""
PRONOUNS = frozenset(
    {"it", "he", "she", "we", "you", "me", "him", "her", "itself", "himself", "herself", "they", "them", "themselves"}
)
"""Words that stand for what a sentence names ("is *it* in the file?", "external to PostgreSQL *itself*"): no
value, unless written in capitals ("IT", "ME": codes)."""

CUES = {
    "count": (
        "how many",
        "the number of",
        "total number of",
        "count ",
        "count the",
        "how often",
    ),  # not "port number of"
    "most_common": (
        "most common",
        "most frequent",
        "most often",
        "more often",  # "which of the two values comes up more often?"
        "more common",
        "more frequent",
        "most popular",
        "most used",
        "appears most",
        "by the most",
        "by most",
        "most of the",  # "which mode do most of the guardrails run in?"
    ),
    "max": (
        "largest",
        "highest",
        "biggest",
        "maximum",
        "greatest",
        "longest",
        "most recent",
        "latest",
        "newest",
        "furthest ahead",
        "farthest ahead",
    ),
    "min": (
        "smallest",
        "lowest",
        "minimum",
        "fewest",
        "shortest",
        "earliest",
        "oldest",
        "least",
        "furthest behind",
        "farthest behind",
    ),
}
QUANTITY = re.compile(
    r"\bhow\s+many\s+(?:\w+\s+)?(?:(?:milli|micro|nano)?seconds?|minutes?|hours?|days?|weeks?|months?|years?"
    r"|(?:kilo|mega|giga)?bytes\s+(?:is|are|does|do|long|large|big)\b|[kmg]i?b|percent|pixels?|degrees?"
    r"|[a-z]+\s+(?:tall|wide|high|deep|thick|old|heavy))\b",
    re.IGNORECASE,
)
"""A quantity asked in its unit ("after how many idle minutes", "how many bytes is the parser module", "how many
lines *tall* is the window"): a value that is looked up, not records counted. ("How many lines *long*" may ask a
count of lines.)"""
IDIOMS = re.compile(
    r"\b(?:by default|according to|at (?:least|most|all)|in (?:total|general|practice|particular|short)"
    r"|for (?:example|instance)|the (?:very )?(?:first|last|next|previous) one|(?:first|last) of (?:all|them)"
    r"|of course|in (?:(?:milli|micro|nano)?seconds|minutes|hours|days|(?:kilo|mega|giga)?bytes|pixels|percent))\b",
    re.IGNORECASE,
)
"""Set phrases that qualify a question, never name what it asks about ("is accounting on *by default*?", "what
is the unlock time *in seconds*?": the unit the answer is given in; "which script is *the last one* run?": a place)."""
RANKED = re.compile(
    r"\b(?:most|fewest)\b(?! (?:of|likely|probably|recently)\b)|\b(?:do|did)\s+most\s+of\s+the\s+\w+s\b", re.IGNORECASE
)
"""A ranking asked in words the cues above lack ("which compiler gets credited on the most failure patterns?", "which
site do most of the links point to?"): no single record's value answers it."""
WHOLE_SET = frozenset(
    {"total", "altogether", "overall", "in", "all", "records", "rows", "entries", "items", "file", "list", "table",
     "data", "dataset", "there", "listed", "contain", "contains", "included", "present", "defined", "described",
     "stored", "known", "here", "exist", "exists", "have", "has", "does", "do", "are", "is"}
)  # fmt: skip
"""Words of a count that name the records as a whole ("how many entries are *listed in the file* *in total*?"): a
count whose other words are these, stop words and the counted noun counts every record."""
RECORD_UNITS = frozenset(
    {"paragraph", "paragraphs", "stanza", "stanzas", "record", "records", "entry", "entries", "block", "blocks",
     "section", "sections", "row", "rows"}
)  # fmt: skip
"""Words for the records of a text: "how many Files paragraphs" counts the records that have a Files field."""
TEXT_UNITS = frozenset({"line", "lines", "byte", "bytes", "character", "characters", "char", "chars", "word", "words"})
"""Units of the text, not its records: "how many lines" counts no records."""
MOST_OF = re.compile(
    r"\b(?:has|have|had|having|with|lists?|listing|holds?|contains?|gets?|owns?|defines?|covers?|covering|uses?|saw|sees?"
    r"|to|by|on|for|across)\s+the\s+"  # "used for the most patterns" (not "for the most part")
    r"(?:most|(?:largest|greatest|highest|biggest)\s+number\s+of)\s+(?!part\b)([a-z][\w-]*)"
    rf"|\b(?:of|in|for|across)\s+the\s+most\s+({'|'.join(sorted(RECORD_UNITS))})\b"
    r"|\b(?:were|was)\s+the\s+most\s+([a-z][\w-]*s)\s+(?=[a-z]+(?:ed|en)\b)"  # "were the most versions released"
    # "what license do the most components carry"
    r"|\b(?:do|did)\s+the\s+most\s+([a-z][\w-]*s)\s+(?=(?:have|carry|use|list|share|hold|get|declare)\b)",
    re.IGNORECASE,
)
"""A ranking by how many records each value has ("which MIME type *has the most* glob patterns", "matched *by
the largest number of* rules"): the word after "the most" names what is counted -- the records (a most-common
read), or a numeric field (a largest read)."""
COUNTED = re.compile(
    r"\b(?:most|fewest|least|(?:largest|greatest|highest|biggest|smallest|lowest)\s+number\s+of)\s+"
    r"(?:[a-z][\w-]*\s+)?[a-z][\w-]*s\b",
    re.IGNORECASE,
)
"""A ranking by how many things a record holds ("which group contains *the most entries*?", "*the fewest glob
patterns*"), not by a value ("which directive is set to the largest number?")."""
TESTS = {
    "starts": ("starting with", "starts with", "start with", "beginning with", "begins with", "begin with"),
    "ends": ("ending in", "ending with", "ends in", "ends with", "end in", "end with"),
    "<": ("below", "under", "less than", "lower than", "smaller than", "fewer than"),
    ">": ("above", "over", "more than", "greater than", "higher than", "larger than", "exceeding"),
    ">=": ("at least",),
    "<=": ("at most",),
}
"""Phrases of a counting question that test a field (``count_if``): the word after the phrase is the operand."""
UNSTATED = re.compile(
    r"\b(?:(?:without|with\s+no|no)\s+(?:an?\s+|any\s+)?(?:explicit|specified|given)|if\s+(?:none|nothing)\s+is\s+(?:given|set|specified)"
    r"|unless\s+(?:otherwise\s+)?(?:specified|set|given)|when\s+(?:not|none\s+is)\s+(?:specified|set|given)|unspecified"
    r"|(?:when|if)\s+(?:you|one|the\s+user)\s+(?:don't|do\s+not|doesn't|does\s+not)\s+(?:give|pass|set|specify|supply"
    r"|provide|choose|select)(?:\s+(?:it|one|any|them))?)\b",
    re.IGNORECASE,
)
"""A question's way of asking a default without the word ("enabled without an explicit instance name, which
instance is used?", "what does it use for --edges when you don't give it one?"): it names the fields called default
(``DefaultInstance``), and its negation is no test a read must apply."""
PARTICLE_VERBS = {
    "out": frozenset(
        {"leave", "leaves", "leaving", "left", "rule", "rules", "ruling", "ruled", "filter", "filtering", "filtered",
         "cross", "crossing", "crossed", "weed", "strip", "throw", "keep", "keeping"}
    ),
}  # fmt: skip
"""Stop words that are the particle of the verb before them ("leave *out* the .Offline one"): no value, whatever
field holds the word (a D-Bus argument's direction ``out``)."""
UNREAD = (
    "not", "never", "without", "except", "excluding", "other than", "leave out", "leaving out", "not counting",
    "n't", "or more", "or less", "or fewer",
    "or greater", "or higher", "or lower", "or above", "or below", "or over", "or under", "at least", "at most",
    "no more than", "no less than", "no fewer than", "between",
    "right after", "just after", "immediately after", "directly after", "right before", "just before",
    "immediately before", "directly before", "came after", "comes after", "come after", "came before",
    "comes before", "come before", "preceding", "preceded",
)  # fmt: skip
"""Negations, tests and an order no read applies ("how many packages are *not* essential", "a UID of 100 *or
more*", "the release that came *right after* Trusty"): a question that says one vouches for no value a read
produced, unless a key phrase found in the data holds it."""
DOCUMENT_WORDS = frozenset({"file", "manual", "document", "template", "spec"})
"""Nouns for the document that both lists below hold: :data:`DOCUMENT_NOUNS` (the word before one is the asker's
name for the text) and :data:`CONTAINERS` (the words before one describe the file, no field)."""
DOCUMENT_NOUNS = DOCUMENT_WORDS | {
    "files",
    "manpage",
    "schema",
    "page",
    "csv",
    "tsv",
    "json",
    "yaml",
    "workflow",
    "topic",
}
"""Nouns by which a question names the document it asks of ("the libboost-regex copyright *file*"): the word just
before one is the asker's name for the whole text, no phrase the text itself must hold."""
NAME_PARTICLES = frozenset({"de", "da", "das", "del", "della", "der", "di", "dos", "du", "la", "le", "van", "von"})
"""Lower-case words inside a person's name ("Henrique *de* Moraes Holschuh", "Ludwig *van* Beethoven")."""
AUXILIARIES = frozenset({"do", "can", "could", "may", "must", "should", "will", "would"})
"""Auxiliaries that end the noun a "which" question asks ("which mode *do* most of ... run in?"), besides the
function words."""
THERE_WORDS = frozenset({"appear", "appears", "mention", "mentions", "mentioned", "documented", "covered", "shown"})
"""Words of a thing's being there ("does X *appear* in ..."), besides those of :data:`WHOLE_SET`."""
CUE_WORDS = frozenset(w for cues in CUES.values() for c in cues for w in c.split()) | {"many", "common"}
ENGLISH = frozenset(
    {
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be",
        "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do",
        "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having",
        "he",
        "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me",
        "more", "most", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "out",
        "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then",
        "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we",
        "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your",
        "yes", "also", "per", "via", "one", "ones", "there's", "what's", "it's", "give", "tell", "show", "say",
        "find", "please", "whether", "every", "either", "neither",
    }
)  # fmt: skip
"""English stop words: never a key phrase's first or last word."""
STOP = FUNCTION_WORDS | ENGLISH | CUE_WORDS | {
    "answer", "value", "list", "listed", "exist", "exists", "file", "record", "entry", "entries", "give", "name",
    "named", "called",
}  # fmt: skip
HOLDING_VERBS = (*MEMBER_VERBS, "define", "defines", "declare", "declares", "mention", "mentions", "set", "sets",
                 "specify", "specifies", "use", "uses", "run", "runs", "support", "supports", "provide", "provides",
                 "ship", "ships", "enable", "enables", "configure", "configures")  # fmt: skip
"""Verbs whose subject, asked of in "does the stylesheet *have* ...", is the data itself or a part of it."""
HOLDER_VERBS = ("has", "have", "declare", "declares", "define", "defines", "take", "takes", "require", "requires",
                "need", "needs", "accept", "accepts", "with")  # fmt: skip
"""Words after "which N ..." that ask which record holds a field ("which element *has* a unit attribute")."""
RELATIVE = frozenset({"whose", "with", "that", "which", "where", "having"})
"""Words after which a question describes a record ("the package whose description is ...")."""

CONTAINERS = DOCUMENT_WORDS | {"table", "list", "listing", "config", "configuration", "database", "log", "data"}
CONTAINERS |= {"dataset", "specification", "sbom", "changelog", "readme"}
"""Nouns that name the data as a whole: the words before one in "in the v143 linker flag *table*" describe the
file, not a field of its records (:func:`dspy_rlm.profiles.spans.without_container`)."""
DOCUMENT_VERBS = frozenset(
    {"have", "has", "hold", "holds", "list", "lists", "contain", "contains", "include", "includes", "say", "state"}
    | {"rate", "rank", "describe", "document", "define", "declare", "give", "show", "mention", "mark", "call", "name"}
    | {"specify", "recommend"}
)
"""Verbs whose subject is the data as a whole ("how many entries *does the renames table have*?", "which command
*does the jcmd manual rate* as High?"): the words of that subject name the file, no field."""

IMPERATIVES = frozenset(
    {"give", "tell", "find", "name", "return", "show", "list", "report", "say", "look", "get", "use"}
)
"""Verbs that open a second request after "and" ("take the value of X *and give* me the provider under that
number"): with a word pointing back, the question asks two steps (:func:`dspy_rlm.profiles.chains.chained`)."""
ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "last": -1,
}  # fmt: skip
"""Words for a place in a row: "the *second* column", "the *last* column"."""
RESOLVING = re.compile(
    r"\b(?:resolves?|resolved|expands?|expanded|ends?\s+up|effective|actual|ultimately|evaluates?\s+to|"
    r"(?:points?|pointing|refers?|referring)\s+(?:at|to))\b",
    re.I,
)
"""Words asking what a reference to another setting stands for ("what URL does it *end up* as?", "the *effective*
path"): the value with its references expanded, not as written."""
STANDS_FOR = re.compile(
    r"\bstand(?:s|ing)?\s+for\b|\bstood\s+for\b|\bshort\s+for\b|\babbreviat\w*|\bacronym\b"
    r"|\bspell(?:ed|s)?\s+out\b|\bfull\s+form\b|\binitials\b",
    re.IGNORECASE,
)
"""Words asking what an acronym's letters stand for ("What does CITGM stand for?"): the words whose initials
spell it, not a whole definition that starts with them."""
NOUN_BREAKS = FUNCTION_WORDS | {"a", "on", "at", "to", "with"}
"""Words that end a noun phrase read forward ("which *template variable* filters by ..."): function words and the
short prepositions."""


def leading_words(text: str) -> list[str]:
    """The words of ``text`` up to the first of :data:`NOUN_BREAKS`: the noun phrase it starts with."""
    words: list[str] = []
    for w in text.split():
        if w.casefold() in NOUN_BREAKS:
            break
        words.append(w)
    return words
