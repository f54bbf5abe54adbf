"""The ranking kinds of read: the most common value of a field, the record with the largest / smallest value of a
numeric field, and by the length of a field's value ("the longest name"). Registered by
:mod:`dspy_rlm.profiles.kinds`, after the lookups and counts."""

from __future__ import annotations

import itertools
import re
from typing import Any

from dspy_rlm.library import structure as st
from dspy_rlm.library import superlatives
from dspy_rlm.profiles.candidates import FLOAT_RX, Candidate
from dspy_rlm.profiles.conditions import best_loose, loose_fields
from dspy_rlm.profiles.field_words import BY_LENGTH, CONTEXT_FIELDS, DATE_VALUE, NAME_NOUNS, TEMPORAL
from dspy_rlm.profiles.grouped import GROUPINGS, grouped_fields, part_unheld
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.listed import WHOLE_LISTS, item_reads, lists_items, numbered_share, said_within
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.rankcheck import odd_row, several_numbers, tied
from dspy_rlm.profiles.reads import field_stems, names_no_column, norm, parts, ranked_names
from dspy_rlm.profiles.scopes import blocks_apart, rank_places, rival_place, unkept
from dspy_rlm.profiles.twin_fields import compound_kin
from dspy_rlm.profiles.vocabulary import COUNTED, CUES, STOP
from dspy_rlm.profiles.which_noun import head_rival, names_block

__all__ = [
    "ByLength",
    "Extreme",
    "MostCommon",
    "counts_fields",
    "names_limit",
    "ranked_fields",
]


_KEYWORD_FIELDS = {"value", "comment"}
"""The fields a text of ``NAME value`` lines gets from the parser (``#define CAP_CHOWN 0``): names no data gave."""


def ranked_fields(book: Any, var: str, numeric: bool, place: str | None = None) -> list[str]:
    """Fields for the ranking moves (over the first 2,000 records, or those within ``place``): for largest /
    smallest those that mostly hold a number, for most common those whose values repeat. The fields the
    question names (the key's own field included: "the most common country code" ranks the codes) come alone
    when any fits, those it names best first."""
    cached = book.memo.get(("ranked", var, numeric, place))
    if cached is not None:
        return cached
    s = book.structs[var]
    records = s.records[:2000] if place is None else superlatives.records_within(s, place)[:2000]
    named = set(book.named_fields(var))
    best = ranked_names(book.q_stems, s.field_names)  # named best first ("Tool Type" before "Target Tier")
    stats = []
    when = bool(TEMPORAL.search(book.text_q))  # "the latest", "the oldest": a ranking by date
    for name in dict.fromkeys([*s.field_names[:12], *book.named_fields(var)]):  # a named one past the 12th too
        values = [v.strip() for v in (r.get(name) for r in records) if v and v.strip()]
        if len(values) < 2 or (place is not None and name in CONTEXT_FIELDS):
            continue
        if not numeric and name not in named and len(set(values)) == 1:  # a flag column (``D`` or none): no rival
            continue
        # (a date is no number: max_of would rank "1 Jan 1991" by its day)
        share = sum(bool(FLOAT_RX.match(v)) and not DATE_VALUE.fullmatch(v) for v in values) / len(values)
        if not all(r.get(name) in (None, r.key) for r in records[:50]):  # v1 ... v86, no key: numbered
            share = max(share, numbered_share(values))
        distinct = len(set(values)) / len(values)
        if numeric and when and _dates(book, var, name):  # "the most recent post": max_of ranks dates by date
            share = 1.0
        if (share >= 0.5) if numeric else (distinct < 0.9 or (name in named and distinct < 1.0)):  # a named
            # field ranks where any value repeats (a renames table's few shared targets)
            rank = best.index(name) if name in best else len(best)
            stats.append((name not in named, rank, -share if numeric else distinct, name))
    stats.sort()
    fields = [n for asked, *_, n in stats if not asked] or [n for *_, n in stats[:6]]
    book.memo[("ranked", var, numeric, place)] = fields
    return fields


def _dates(book: Any, var: str, field: str) -> bool:
    """Whether most of the first 2,000 records' values of ``field`` are dates (once per run and field)."""
    memo = ("dates", var, field)
    if memo not in book.memo:
        values = [v.strip() for v in (r.get(field) for r in book.structs[var].records[:2000]) if v and v.strip()]
        book.memo[memo] = bool(values) and sum(bool(DATE_VALUE.fullmatch(v)) for v in values) * 2 > len(values)
    return bool(book.memo[memo])


def ranked_noun(question: str) -> str:
    """The stem of the noun a ranking counts ("the most *members*"), the last word of a :data:`COUNTED` match;
    empty where none is counted."""
    m = COUNTED.search(question)
    return st.stem(m.group(0).split()[-1].casefold()) if m else ""


def counts_fields(book: Any) -> bool:
    """Whether a ranking counts what records' fields are called ("which section has the most *keys*"): by a
    record's size, even where the records share their fields; no value recurs."""
    noun = ranked_noun(book.text_q)
    return noun in {st.stem(n) for n in NAME_NOUNS}  # not "entries": "the protocol shared by the most entries"


_LEAVING_OUT = (
    r"(?:other\s+than|excluding|except(?:\s+for)?|besides|apart\s+from|aside\s+from|not\s+counting|ignoring|setting)"
)


def excluded_value(book: Any, var: str, field: str) -> str | None:
    """The value of ``field`` the question leaves out of a ranking ("*setting UTF-8 aside*, which character set
    is listed most often?", "other than X", "excluding X"), as the data writes it; else None."""
    counts = superlatives.value_counts(book.structs[var], field)
    for value, _ in counts.most_common(20):
        v = re.escape(value)
        said = rf"{_LEAVING_OUT}\s+(?:the\s+)?['\"`]?{v}(?![\w-])|(?<![\w-]){v}['\"`]?\s+aside\b"
        if re.search(said, book.text_q, re.I):
            return value
    return None


class MostCommon(KindBase):
    name = "most_common"
    every_record = True
    per_key = False

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if "most_common" not in book.offered or counts_fields(book):
            return []
        out = [
            read("most_common", f"I will find {said.format(f=f)}.", "most_common", var, f, None, by)
            for by, (_, _, said) in GROUPINGS.items()
            for f in grouped_fields(book, var, by)
        ]
        for f in ranked_fields(book, var, False):
            if (but := excluded_value(book, var, f)) is not None:  # "setting UTF-8 aside, which charset ..."
                out.append(
                    read("most_common", f"I will find the most common {f} but {but!r}.", "most_common", var, f, but)
                )
            out.append(read("most_common", f"I will find the most common {f}.", "most_common", var, f))
        scoped = [  # within a block the question names ("as a value in SPECIAL_NAMES"): its records only
            read("most_common", f"I will find the most common {f} within {p!r}.", "most_common", var, f, within=p)
            for p in rank_places(book, var)
            for f in ranked_fields(book, var, False, p)
            if not _holds_value(book, var, f, p)  # "the most common kind: struct, union or enum?": a kind, no block
        ]
        return scoped + item_reads(book, var, ranked_fields(book, var, False)) + out  # an item read first: asked

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        field = move.args[0]
        if move.args[2:3] and move.args[2] in GROUPINGS:  # the one field of paths (dates), its directories (years)
            fitting = grouped_fields(book, move.var, move.args[2])  # ranked: the question asks for one
            named = [f for f in fitting if f in book.named_fields(move.var)]  # "of the tests reported as FAILED"
            ok = (named or fitting) == [field]
            return [Candidate(result, f"most common {field}", ok, "ranked")] if isinstance(result, str) else []
        asked = field in book.named_fields(move.var)  # ranking the key's own field is asked too
        whole = bool(WHOLE_LISTS.search(book.text_q))  # "which combination of tags": the lists whole
        if move.args[2:3] == ("item",) or (asked and not whole and lists_items(book, move.var, field)):  # an item
            ok = asked and move.args[2:3] == ("item",) and not whole
            why = "ranked" if ok else "the field lists items: one item is asked, not a whole list"
            top = superlatives.item_counts(book.structs[move.var], field).most_common(2) if ok else []
            if len(top) == 2 and top[0][1] == top[1][1]:  # two lists of versions, each listing 3.8 ... 3.13
                ok, why = False, "the most listed item is tied with another"
            return [Candidate(result, f"most common {field}", ok, why)] if isinstance(result, str) else []
        s = book.structs[move.var]
        # no header row names a column: the one column whose values repeat, where it keys no record ("the most
        # frequent value" of NAME value lines) and the question names no block ("which section lists the most
        # codes" asks for a heading the table does not have)
        keyed = any(r.get(field) == r.key for r in s.records[:50])
        blocks = {st.stem(w) for w in CONTEXT_FIELDS} & {st.stem(w) for w in st.words(book.text_q.casefold())}
        sole = ranked_fields(book, move.var, False) == [field]
        unnamed = not asked and names_no_column(s.field_names) and not keyed and not blocks and sole
        why = "ranked" if asked or unnamed else "ranked a field the question does not name"
        if unnamed and (part := part_unheld(book, move.var, field)):  # "the part before the slash": values lack it
            unnamed, why = False, f"the question asks for a part of values ({part}) this column's values do not have"
        if unnamed and tied(s, field):  # no name vouches for the column: its winner must be clear
            unnamed, why = False, "the most common value of a column no name vouches for is tied with another"
        asked = asked or unnamed
        # within a block the question names: the one field there whose values repeat ("most often as a value in X")
        asked = asked or (move.within is not None and ranked_fields(book, move.var, False, move.within) == [field])
        why = "ranked" if asked else why
        if asked and move.within is not None and blocks_apart(book, move.var, move.within):
            asked, why = False, f"several blocks are named {move.within!r}: the ranking joins them"
        if asked and move.within is not None and tied(s, field, move.within):
            asked, why = False, "the most common value within the block is tied with another"
        if (
            asked
            and move.within is None
            and [p for p in rank_places(book, move.var) if not _holds_value(book, move.var, field, p)]
        ):
            asked, why = False, "the question names a block to rank within"
        if asked and move.within is not None and (other := rival_place(book, move.var, move.within)):
            asked, why = False, f"the question writes the block {other!r} as named, {move.within!r} in another case"
        if asked and (rival := head_rival(book, move.var, field)):  # "which guardrail *mode* ...": not guardrail
            asked, why = False, f"the noun the question asks for names {rival!r}"
        if asked and (kin := compound_kin(book, move.var, field)):  # "what hex colour ...": border-color's too
            asked, why = False, f"values of that sort are also in {kin[0]!r} and its kin"
        return [Candidate(result, f"most common {field}", asked, why)] if isinstance(result, str) else []


def _holds_value(book: Any, var: str, field: str, value: str) -> bool:
    """Whether some record's ``field`` is ``value`` (case aside): a block so named is one of the values ranked."""
    memo = ("field values", var, field)  # asked per block and field at each step of a ranking
    if memo not in book.memo:
        book.memo[memo] = {norm(r.get(field) or "") for r in book.structs[var].records[:5000]}
    return norm(value) in book.memo[memo]


def qualified(book: Any, fields: list[str]) -> str | None:
    """Of several named fields that rank, the one the superlative word qualifies: named by the words right after
    it ("the lowest intraday *low*"), else right before it ("the trading *volume* the highest"); None if unsure."""
    said = st.words(book.text_q.casefold())
    cues = {c for kind in ("max", "min") for c in CUES[kind] if " " not in c}
    for i, w in enumerate(said):
        if w not in cues:
            continue
        after = [x for x in said[i + 1 : i + 6] if x not in STOP][:3]
        before = [x for x in said[max(0, i - 6) : i] if x not in STOP][-3:]
        for span in (after, before):
            stems = {st.stem(x) for x in span}
            hits = [f for f in fields if field_stems(f) & stems]
            if len(hits) == 1:
                return hits[0]
            if hits:
                return None
    return None


_WHAT_THE = re.compile(
    r"^\W*(?:what(?:['’]?s| is| was| are)?|give(?: me)?|tell me|find|show(?: me)?)\s+"
    r"(?:is\s+|was\s+)?the\s+(\w+)\s+(.+)",
    re.IGNORECASE,
)
_OF_THE = re.compile(
    r"^\W*(?:what(?:['’]?s| is| was)?|give(?: me)?|tell me|find|show(?: me)?)\s+(?:is\s+)?the\s+"
    r"([\w. -]{1,40}?)\s+of\s+the\s+((?:most\s+)?\w+)",
    re.IGNORECASE,
)
_SUPERLATIVES = frozenset(c for kind in ("max", "min") for c in CUES[kind])


def asks_ranked_value(book: Any, field: str) -> bool:
    """ "What's the smallest font size given in pixels?": a superlative that opens the question qualifies the
    ranked field, whose value is asked -- not the record holding it ("which selector has the smallest font
    size?", "what selector has ...")."""
    of = _OF_THE.search(book.text_q)  # "give me the posted_on timestamp of the most recent post": the field
    said = {w.casefold() for w in re.findall(r"[\w.-]+", of.group(1))} if of is not None else set()
    if of is not None and of.group(2).casefold() in _SUPERLATIVES and field.casefold() in said:
        return True  # the field is named, verbatim, before "of the <most>"
    m = _WHAT_THE.match(book.text_q)
    if m is None or m.group(1).casefold() not in _SUPERLATIVES:
        return False
    after = [x for x in st.words(m.group(2).casefold()) if x not in STOP][:3]
    return bool(field_stems(field) & {st.stem(x) for x in after})


def glossed_ranking(book: Any) -> bool:
    """Whether a ranking cue written just before a field the question names ("the shortest delay") ranks that
    field beside a most-common cue that glosses it ("which waiter polls most frequently, i.e. ..."): no tally."""
    if "most_common" not in book.cues or not book.cues & {"max", "min"}:
        return False
    stems = {st.stem(p.casefold()) for fs in book.fields.values() for f in fs for p in parts(f)}
    words = {c for r in ("max", "min") if r in book.cues for c in CUES[r] if " " not in c.strip()}
    said = st.words(book.text_q.casefold())
    return any(a in words and st.stem(b) in stems for a, b in itertools.pairwise(said))


class Extreme(KindBase):
    per_key = False
    every_record = True

    def __init__(self, name: str, helper: str, word: str) -> None:
        self.name, self.helper, self.word = name, helper, word

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        if self.name not in book.offered:
            return []
        scoped = [  # within a block the question names first: ranking all the records is not what it asks
            read(self.name, f"I will find the {self.word} {f} within {place!r}.", self.helper, var, f, within=place)
            for place in rank_places(book, var)
            for f in ranked_fields(book, var, True, place)
        ]
        return scoped + [
            read(self.name, f"I will find the {self.word} {f}.", self.helper, var, f)
            for f in ranked_fields(book, var, True)
        ]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, tuple):
            return []
        field, place = move.args[0], move.within
        names = book.named_fields(move.var)
        record = getattr(result, "record", None)
        rankable = ranked_fields(book, move.var, True, place)
        own = isinstance(record, st.Record) and record.get(field) == record.key  # the key's own field is asked,
        rival = own and any(f in names for f in rankable if f != field)  # unless another named field ranks:
        asked = field in names and not rival  # "on which date was IBM's price the highest"
        dates = [f for f in rankable if _dates(book, move.var, f)]
        asked = asked or (bool(TEMPORAL.search(book.text_q)) and dates == [field])  # "the oldest version": by date
        s = book.structs[move.var]  # no header row (or NAME value lines: #define's): its one numeric
        headerless = names_no_column(s.field_names) or (
            s.kind == "keywords" and set(s.field_names) - CONTEXT_FIELDS <= _KEYWORD_FIELDS
        )
        # column, where it is no key (a range keying "0000..007F; Basic Latin" names a block)
        # -- unless the ranking counts things ("the largest number of aliases": no column says how many)
        asked = asked or (
            headerless and not own and rankable == [field] and field != "comment" and not COUNTED.search(book.text_q)
        )  # a comment's number ("2048 x i32 vector value") is a note's, not the record's value
        # within a block the question names and no field: the one field there that ranks ("which of the
        # AccessPermission flags has the highest value" of an enum's NAME = number members)
        asked = asked or (place is not None and not own and not names and rankable == [field])
        why_rank = "ranked" if asked else "ranked a field the question does not name"
        if asked and place is None and rank_places(book, move.var):
            asked, why_rank = False, "the question names a block to rank within"
        if asked and place is not None and (other := rival_place(book, move.var, place)):
            asked, why_rank = False, f"the question writes the block {other!r} as named, {place!r} in another case"
        keyed = record if isinstance(record, st.Record) else None  # the key's own field is no rival here
        rank_named = [f for f in rankable if f in names and not (keyed and keyed.get(f) == keyed.key)]
        if asked and len(rank_named) > 1 and qualified(book, rank_named) != field:
            asked, why_rank = False, "the question names other fields that rank"  # "the close of the lowest low"
        if asked and place is None and isinstance(record, st.Record) and (subset := unkept(book, move, record)):
            asked, why_rank = False, f"the question names {subset!r}, a few records' word the top one lacks"
        if asked and isinstance(record, st.Record) and odd_row(book.structs[move.var], record):
            asked, why_rank = False, "the top row is unlike the others (a header or a summary line?)"
        if asked and several_numbers(book.structs[move.var], field):  # "+7800+01600": latitude and longitude
            asked, why_rank = False, "the field's values each hold two numbers: which one ranks is a guess"
        fields = [(f, v) for f, v in (record.fields if isinstance(record, st.Record) else ()) if f != field]
        said = [f for f, v in fields if f in names and v != result[0] and not said_within(book, f, field)]
        said = [] if said and isinstance(record, st.Record) and names_block(book, move.var, record.key) else said
        why_said = why_rank if len(said) <= 1 else "the question names several fields of the record"  # "the
        # adjusted close for the day ...":
        # a number asks for the ranked value, a text for the record -- unless the question asks the value itself
        value_asked = book.answer_type in (int, float) or asks_ranked_value(book, field)
        one_said = len(said) == 1 and not (value_asked and book.answer_type is str)  # "the posted_on of the latest"
        others = [  # the winning record's other fields: "which time zone (TZ) has the highest latitude"
            Candidate(v, f, asked and one_said and f in names, why_said if f in names else "a field not named")
            for f, v in fields
            if v != result[0]
        ]
        # a "price: 2392.00" line keyed by its field's own name: the key names no record (the product is elsewhere)
        own_name = norm(str(result[0])) == norm(field)
        why_key = "the record's key is the field's name" if own_name else why_rank if not said else "a field asked"
        # a headerless table's first column of measures (iris.csv's 5.7): other rows share the key, it names none
        if place is None and isinstance(record, st.Record) and s.key_counts.get(record.key, 0) > 1:
            own_name, why_key = True, "other records share the record's key: it names none"
        ranked = [  # the record's key, unless the question asks for another of its fields
            Candidate(result[0], "key", asked and not value_asked and not said and not own_name, why_key),
            Candidate(result[1], f"{self.word} {field}", asked and value_asked, why_rank),
        ]
        return [c for c in others if c.label in names] + ranked + [c for c in others if c.label not in names]


class ByLength(Extreme):
    """``max_of`` / ``min_of(..., by='length')``: the record whose named field is longest / shortest, offered
    when the question ranks by length ("the longest name")."""

    def __init__(self, name: str, helper: str, word: str, cue: str) -> None:
        super().__init__(name, helper, word)
        self.cue = cue  # the ranking cue it answers: "max" or "min"

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        said = set(st.words(book.text_q.casefold()))
        if self.cue not in book.offered or not said & set(BY_LENGTH):
            return []
        best = best_loose(book, var)  # the fields said most fully first
        loose = best + [f for f in book.structs[var].field_names if f in loose_fields(book, var) and f not in best]
        numbers = set(ranked_fields(book, var, True))  # "the shortest delay" of numbers: the smallest (Extreme's)
        loose = [f for f in loose if f not in numbers]
        return [read(self.name, f"I will find the {self.word} {f}.", self.helper, var, f, "length") for f in loose]

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, tuple):
            return []
        asked = move.args[0] in best_loose(book, move.var)
        why = "ranked" if asked else "ranked a field the question does not name"
        field = str(move.args[0])
        lengths = [
            len(" ".join(v.split())) for r in book.structs[move.var].records if (v := r.get(field)) and v.strip()
        ]
        if lengths and lengths.count(max(lengths) if self.cue == "max" else min(lengths)) > 1:
            asked, why = False, "several records tie for the length ranked"  # every code 2 letters: no winner
        if asked and _which_field(book.text_q, field):  # "which label text is the longest": the label, no key
            return [
                Candidate(result[1], field, True, "ranked, its value asked"),
                Candidate(result[0], "key", False, why),
            ]
        return [Candidate(result[0], "key", asked, why), Candidate(result[1], move.args[0], asked, why)]


def _which_field(question: str, field: str) -> bool:
    """Whether the question opens "which" / "what" and a word of ``field``'s name ("which *label* text is the
    longest"): a value of the field is asked, not the record holding it ("which vendor has the longest name")."""
    m = re.match(
        r"\s*(?:(?:of|in|among|across)\s+[^,?]{1,80},\s*)?(?:which|what)\s+([a-z][\w-]*)(?:\s+([a-z][\w-]*))?",
        question,
        re.IGNORECASE,
    )
    return m is not None and any(st.stem(w.casefold()) in field_stems(field) for w in m.groups() if w)


def names_limit(question: str, worded: set[str], spans: list[tuple[int, int]]) -> bool:
    """Whether each ranking word ``worded`` of the question stands just before a phrase naming a field (``spans``,
    "maximum *line length*"): the field is a limit, read off the record the question names, not ranked."""
    at = [m.end() for c in worded for m in re.finditer(rf"(?<!\w){re.escape(c)}(?!\w)", question, re.I)]
    starts = {a for a, _ in spans}
    return bool(at) and all(e + len(question[e:]) - len(question[e:].lstrip()) in starts for e in at)
