"""Grounded moves over the data's own structure: what the small policy lets a small model write each step.

Each step, the action's whole JSON output is held to one regex: an alternation of *moves*, each a short
sentence tied to one line of code. Every word, field and value a move names comes from the question or
from the data's detected structure (:mod:`dspy_rlm.library.structure`), never from the shape of a benchmark:

* reads -- ``search(V, 'K')``, ``record_of(V, 'K')``, ``field_of(V, 'K', 'F')``, ``count_records(V, 'K')``,
  ``count_where(V, 'F', 'K')``, ``count_if(V, 'F', test, 'K')``, ``most_common(V, 'F')``,
  ``max_of`` / ``min_of(V, 'F')``, ``exists(V, 'K')``, ``key_of(V, 'K')``, where ``K`` is a phrase of the
  question found in the data (longest first; a record's key or a field's whole value ranks first) and ``F`` a
  field whose name shares a stem with a word of the question. Counting, ranking and existence moves are offered
  when the question (``how many``, ``largest``, a yes/no) or the output type (``int``, ``bool``) asks for them;
  ``count_if`` tests a field as the question states (``starting with G``, ``below 100``, a part of a value).
* submits -- ``SUBMIT(answer=...)`` with a value a read produced (a whole field value, a record key, a count,
  a number as printed, True/False), computed on the host with the same helpers: exact, not re-tokenized.

Each submit value carries whether the run's reads *support* it (:class:`Candidate`): the record it came from
matches the question's key phrase, or it is the result of the count / ranking / existence the question asks
for. A SUBMIT of an unsupported value ends the run ``Extracted`` with low confidence (the small policy's
``settle``) instead of a confident ``Submitted``.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from dspy_rlm.library import lookup
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.candidates import Candidate, asks_date, judge, typed
from dspy_rlm.profiles.chains import chained
from dspy_rlm.profiles.conditions import counts_aside, most_of
from dspy_rlm.profiles.field_words import NAME_NOUNS, SYNONYMS
from dspy_rlm.profiles.fields_said import fields_said
from dspy_rlm.profiles.file_texts import file_texts
from dspy_rlm.profiles.key_of import shared_from
from dspy_rlm.profiles.keyfinder import question_keys
from dspy_rlm.profiles.kinds import KINDS, evaluate
from dspy_rlm.profiles.move import Move, literal, moves_pattern, read
from dspy_rlm.profiles.naming import column_fields, counted_field
from dspy_rlm.profiles.number_column import asks_number
from dspy_rlm.profiles.phrases import (
    Key,
    components,
    counted_nouns,
    drop_descriptors,
    held_once,
    hop_key,
    named_line,
    unquoted,
)
from dspy_rlm.profiles.printed_rows import printed
from dspy_rlm.profiles.rankings import glossed_ranking, names_limit, ranked_fields
from dspy_rlm.profiles.reads import (
    agent_stems,
    camel_parts,
    dated_fields,
    field_holding_key,
    flag_fields,
    norm,
    parts,
    placed_fields,
    ranked_names,
    states_pair,
)
from dspy_rlm.profiles.router import learned_cues
from dspy_rlm.profiles.spans import fielded_cues, uncontracted, unpossessed, value_field_said, without_container
from dspy_rlm.profiles.spellings import field_forms, respelled
from dspy_rlm.profiles.versions import bounds_version, requirement_first
from dspy_rlm.profiles.vocabulary import CUE_WORDS, CUES, FUNCTION_WORDS, QUANTITY, STOP, UNSTATED
from dspy_rlm.profiles.yes_no_words import YES_NO_START

__all__ = ["Candidate", "Move", "MoveBook", "moves_pattern", "read"]
_FIELD_NAME_ASKED = re.compile(
    rf"\b(?:which|what)\s+(?:[\w.-]+\s+){{0,2}}?(?:{'|'.join(sorted(NAME_NOUNS))})\s+"
    r"(?:is|are|was|has|holds|sets|maps|carries|gives|stores|points)\b",
    re.I,
)
"""A question asking for a field's name ("which gsettings key is mapped to P?"): its name noun names no field."""

MAX_CANDIDATES = 40


_TYPE_OFFERS: dict[Any, set[str]] = {
    bool: {"yes_no"},
    int: {"count", "max", "min"},
    float: {"count", "max", "min"},
    str: {"most_common", "max", "min"},
}
"""With ``all_moves``: the counting, ranking and existence moves each output type admits."""


def _written(name: str, question: str) -> bool:
    """Whether the question writes the field ``name`` whole, where it is an identifier (``a.b``, ``a_b``)."""
    ident = re.search(r"\w[._]\w", name) is not None
    return ident and re.search(rf"(?<![\w.]){re.escape(name)}(?![\w]|\.\w)", question) is not None


@dataclass
class MoveBook:
    """The moves of one run: its question, data and structure (computed once), and what each read gave.

    Args:
        question: The inputs that state the task.
        data: The inputs that hold data.
        outputs: The signature's output fields (name -> annotation).
        all_moves: Offer every counting, ranking and existence move the output type admits, not only those the
            question's cue words ask for (the model chooses among them).
        routed: Where the cue words ask for no counting or ranking, add the kinds the learned
            :mod:`~dspy_rlm.profiles.router` finds.
    """

    question: dict[str, str]
    data: dict[str, Any]
    outputs: dict[str, Any]
    all_moves: bool = False  # offer every counting / ranking / existence move the output type admits
    routed: bool = True  # add the kinds the learned router finds where the cue words find none
    reads: dict[str, list[Candidate]] = field(default_factory=dict)  # read code -> its candidates
    submits: dict[str, Candidate] = field(default_factory=dict)  # submit code -> its candidate

    def __post_init__(self) -> None:
        texts = {n: v for n, v in self.data.items() if isinstance(v, str)}
        self.text_q = respelled(uncontracted(" ".join(self.question.values())), CUE_WORDS, texts.values())
        self.texts = dict(sorted(texts.items(), key=lambda kv: -len(kv[1]))[:2])
        self.texts.update(file_texts(self.data, self.text_q, 2 - len(self.texts)))
        said = st.words(self.text_q.casefold())  # and a hyphened word's parts: "the highest-numbered" ranks
        q = " " + " ".join(said + [p for w in said if "-" in w for p in w.split("-") if p]) + " "
        q += " ".join(w[:-2] if len(w) > 5 and w.endswith("ly") else w for w in q.split()) + " "  # "most commonly"
        q = q.replace(" at least ", " ").replace(" at most ", " ")  # a bound ("at least one"), no ranking
        self.cues = {kind for kind, cues in CUES.items() if any(f" {c.strip()} " in q for c in cues)}
        quantity = bool(QUANTITY.search(self.text_q))  # "after how many idle minutes": a value in its unit
        if quantity or counts_aside(self.text_q):  # "... the most revisions? Only count dated ones.": no count
            self.cues.discard("count")
        self.answer_type = next(iter(self.outputs.values()), str)
        first = q.split()[0] if q.split() else ""
        if self.answer_type is bool or first in YES_NO_START:
            self.cues.add("yes_no")
        if q.split()[:2] == ["number", "of"]:  # "Number of accounts with group X" (a port number of: no count)
            self.cues.add("count")
        if self.routed and not self.cues & {"count", "most_common", "max", "min", "yes_no"}:
            # a phrasing the cue words lack ("the status that most hosts have"); a quantity asked is no count
            self.cues |= learned_cues(self.text_q) - ({"count"} if quantity else set())
        # the counting, ranking and existence moves offered: those the question's cue words ask for, and with
        # all_moves every one the output type admits (the model chooses; measured on dev: no coverage gained)
        self.offered = set(self.cues) | (_TYPE_OFFERS.get(self.answer_type, set()) if self.all_moves else set())
        self.structs = {n: st.detect(t) for n, t in self.texts.items()}
        named = {f.casefold() for s in self.structs.values() for f in s.field_names}  # quoted words name no field
        asked = without_container(unquoted(unpossessed(self.text_q), named), named)
        # "how many time zones ...": the records, no field (a quantity's unit names none either)
        entity = set() if quantity else counted_nouns(st.words(asked.casefold()))
        content = [w for w in parts(asked) if w.casefold() not in STOP and w.casefold() not in entity]
        content += fielded_cues(asked, named)  # "the syscall with the highest *number*": a field "number"
        content += value_field_said(asked, self.structs.values())  # a JSON member "value" the question says
        self.q_stems = {st.stem(w) for w in content}
        self.q_stems |= {  # "groupId" says group (a field "group"); "MaxSize", a field's whole name, says no Size
            st.stem(p.casefold())
            for w in content
            if w[1:] != w[1:].lower() and w.casefold() not in named
            for p in camel_parts(w)
        }
        self.q_stems |= {st.stem(s) for w in content for group in SYNONYMS if w.casefold() in group for s in group}
        self.q_stems |= agent_stems({st.stem(w) for w in content if not w.endswith("ed")})  # "who maintains X"
        self.q_stems |= field_forms(content, named, parts(asked))  # "description" names the field "desc"
        spoken = set(st.words(asked.casefold())) - FUNCTION_WORDS  # "Which of ...": no devDependencies.which
        self.q_stems |= {st.stem(p) for w in components(named) & spoken for p in parts(w)}
        said = st.words(self.text_q.casefold())
        self.asks_name = "name" in said[1:]  # "the maintainer's name": no e-mail tail ("Name the ..." is a verb)
        self.q_stems |= {st.stem("name")} if self.asks_name else set()  # "which setting name has the most entries"
        self.asks_number = asks_number(self.text_q)  # "which port number": 22 of "22/tcp"
        self.asks_date = asks_date(self.text_q)  # "on what date": no 5.0.0
        self.q_stems |= {"=" + (a[0] + b[0]).upper() for a, b in itertools.pairwise(content)}  # "time zone": TZ
        self.q_stems |= {"=" + w[0].upper() for w in content if w[:1].isalpha()}  # "organization": the O of "Issuer O"
        self.q_stems |= {st.stem("default")} if UNSTATED.search(self.text_q) else set()  # "without an explicit X"
        # "which gsettings key is mapped to P?" asks for a field's name: "key" names no field (gtk-key-theme)
        asked_name = _FIELD_NAME_ASKED.search(self.text_q) is not None
        self.field_q = self.q_stems - {st.stem(n) for n in NAME_NOUNS} if asked_name else self.q_stems
        # derived once per run (the question and the data do not change): read_moves() runs every step and, in
        # the oracle's search, once per sequence tried
        self.memo: dict[tuple[Any, ...], Any] = {}
        extra = {r for r in [most_of(self)] if r}  # "which MIME type has the most glob patterns": no cue word says it
        self.cues, self.offered = self.cues | extra, self.offered | extra
        self.fields = {n: self._matched_fields(s) for n, s in self.structs.items()}
        self.keys = {n: self._keys(n) for n in self.texts}
        self.fields = {n: drop_descriptors(self, n, f) for n, f in self.fields.items()}
        self._phrased_fields()  # "the fewest maximum attempts": maxAttempts, ranked by "fewest"
        if glossed_ranking(self):  # "polls most frequently, i.e. has the shortest delay": the delay is ranked
            self.cues, self.offered = self.cues - {"most_common"}, self.offered - {"most_common"}
        ranked = {c for c in ("max", "min") if c in self.cues}  # "the minimum of nbformat_minor": a field of a record
        worded = {c.strip() for r in ranked for c in CUES[r] if f" {c.strip()} " in q}
        limit = worded and names_limit(self.text_q, worded, self.field_spans)  # "what maximum line length": a limit
        if worded and (worded <= named or limit) and any(k.is_key for ks in self.keys.values() for k in ks):
            self.cues, self.offered = self.cues - ranked, self.offered - ranked
        if ranked and bounds_version(self):  # "the minimum yarl version required": yarl<2.0,>=1.25.1 says it
            self.cues, self.offered = self.cues - ranked, self.offered - ranked
        self.keys = {n: requirement_first(self, ks) for n, ks in self.keys.items()}
        for n, (_, counted) in [(n, c) for n in self.structs if "count" in self.cues and (c := counted_field(self, n))]:
            self.fields[n] = [counted] + [f for f in self.fields[n] if f != counted]  # "how many replicas does web run"
        for n, s in self.structs.items():  # "the font's full name": the one record holding FullName is named
            if not self.cues & {"count", "most_common", "max", "min"}:  # (a ranking or a count: all records)
                held = self.fields[n] or (self.named_fields(n) if s.kind == "lines" else [])  # a "name value" line
                self.keys[n][:0] = [k for k in [held_once(s, held, self.keys[n], self.text_q)] if k]
                self.fields[n] = self.fields[n] or named_line(s, self.keys[n])  # its value is read whole

    def _phrased_fields(self) -> None:
        """Fields the question names by a phrase of their words (:func:`~dspy_rlm.profiles.fields_said.fields_said`)
        come first; of two ranking cues, one whose words all lie inside such a phrase ("maximum" of "the fewest
        maximum attempts") ranks nothing."""
        spans: list[tuple[int, int]] = []
        for n, s in self.structs.items():
            said = fields_said(self.text_q, s)
            spans += list(said)
            own = [f for f in said.values() if f != field_holding_key(s)]
            self.fields[n] = list(dict.fromkeys(own + self.fields[n]))[:3] if own else self.fields[n]
        self.field_spans = spans
        ranked = {c for c in ("max", "min") if c in self.cues}
        if len(ranked) < 2 or not spans:
            return
        for cue in ranked:
            at = [
                m.span()
                for c in CUES[cue]
                for m in re.finditer(rf"(?<!\w){re.escape(c.strip())}(?!\w)", self.text_q, re.I)
            ]
            if at and all(any(a <= x and y <= b for a, b in spans) for x, y in at):
                self.cues, self.offered = self.cues - {cue}, self.offered - {cue}

    def kind(self) -> str:
        """The kind of question, as the moves see it: ``yes_no``, ``count``, ``most_common``, ``max``, ``min``,
        ``reverse`` (a whole field value of the data is named: its record's key is asked) or ``lookup``."""
        for cue in ("yes_no", "count", "most_common", "max", "min"):
            if cue in self.cues:
                return cue
        keys = [k for ks in self.keys.values() for k in ks]
        # "What token does user X have?": a field is asked for, not a key; not one the key is the value of ("which
        # database is given Mode 600?": its Mode is 600)
        named = any(not (ks and self.field_is_key(n, ks[0], f)) for n, ks in self.keys.items() for f in self.fields[n])
        if keys and keys[0].is_value and not keys[0].is_key and not named:
            return "reverse"
        return "lookup"

    # -- what the question names ------------------------------------------------------------------
    def _matched_fields(self, s: st.Structure) -> list[str]:
        """Fields the question names (a shared stem), the key's own field left out (it holds the key)."""
        if s.kind in ("lines", "prose"):  # a "key: value" shape on some lines names no field of the data; the
            columns = {f for r in s.records[:5000] if len(r.fields) >= 2 for f, _ in r.fields}  # table rows do
            return ranked_names(self.field_q, [f for f in s.field_names if f in columns])[:3]
        key_field = field_holding_key(s)
        named = ranked_names(self.field_q, s.field_names) + dated_fields(self.text_q, s)
        named += placed_fields(self.text_q, s)  # "where does it say boto lives?": a field of paths
        places = column_fields(self.text_q, s) + flag_fields(self.text_q, self.q_stems, s.field_names)  # is_team
        named = list(dict.fromkeys(places + named))  # once each: a named field of dates is also a dated one
        written = [f for f in named if _written(f, self.text_q)]  # "commons.javadoc.java.link ... what URL": an
        if written:  # identifier written whole, and fields said whole, not a word of another (sonar.host.url)
            whole = [f for f in named if all(st.stem(p.casefold()) in self.field_q for p in parts(f))]
            named = list(dict.fromkeys(places + written + whole))
        return [f for f in named if f != key_field or f in places][:3]  # "the first column" is named

    def _keys(self, var: str) -> list[Key]:
        return question_keys(self, var)

    def named_fields(self, var: str) -> list[str]:
        """Fields the question names (as :func:`~dspy_rlm.profiles.reads.ranked_names`), the key's own field
        included, in file order."""
        if ("named", var) not in self.memo:
            s = self.structs[var]
            said = set(ranked_names(self.field_q, s.field_names) + dated_fields(self.text_q, s))
            said |= set(placed_fields(self.text_q, s))  # "where does ...": the fields of paths
            said |= set(column_fields(self.text_q, s))  # "the 4th column": named by its place
            said |= set(fields_said(self.text_q, s).values())  # "the maximum attempts": maxAttempts
            self.memo[("named", var)] = [f for f in self.structs[var].field_names if f in said]
        return list(self.memo[("named", var)])

    def field_is_key(self, var: str, key: Key, field: str) -> bool:
        """Whether ``field`` of the record ``key`` finds holds the key itself (reading it repeats the question)."""
        record = lookup.record_of(self.texts[var], key.text)
        if not isinstance(record, st.Record) or (value := record.get(field)) is None:
            return False
        if norm(value) == norm(key.text):
            return True
        if key.is_value and st.matches(key.text, value):  # said among other words: the key itself, but in a short
            titled = norm(value.split("\n", 1)[0]) == norm(key.text)  # value of its own record ("term -e xev")
            short = len(value.split()) <= 4 and not value.rstrip().endswith(".")  # (no sentence, no text under it)
            if titled or not (short and norm(record.key) == norm(key.text)):
                return True
        return states_pair(key.text, field, value)  # "which section sets profile = black?"

    # -- the moves of a step ----------------------------------------------------------------------
    def step_moves(self, done: list[str], stdouts: list[str]) -> list[Move]:
        """This step's moves: reads not run yet, and submits of what the reads so far produced."""
        submits = self.submit_moves()
        exhausted = len(stdouts) >= 2 and bool(stdouts[-1].strip()) and stdouts[-1] in stdouts[:-1]
        reads = [] if (submits and exhausted) else [m for m in self.read_moves() if m.code not in done]
        moves = reads + submits
        if not moves:
            var = next(iter(self.texts), next(iter(self.data), "context"))
            moves = [read("peek", "I will look at the data.", "peek", var, 0, 2000)]
        return moves

    def read_moves(self) -> list[Move]:
        """Every registered kind's moves (:mod:`dspy_rlm.profiles.kinds`), per key phrase then per variable."""
        moves: list[Move] = []
        per_key = [k for k in KINDS.values() if k.per_key]
        for var, keys in self.keys.items():
            ranking = bool(self.offered & {"most_common", "max", "min"})
            for key in keys:
                if ranking and not (key.is_key or key.is_value or self.offered & {"count", "yes_no"}):
                    continue  # "the Section shared by the most packages" ranks all records: a word in one is no key
                loose = key.beyond and not key.is_key  # past the head: every read where it keys a parsed line,
                kinds = [k for k in per_key if getattr(k, "streams", False)] if loose else per_key  # else those
                # that read the whole text (search, exists, count_records); a shared value: the other record holding it
                for kind in [k for k in kinds if k.name == "key_of"] if key.but else kinds:
                    moves += kind.offer(self, var, key)
            for kind in KINDS.values():
                if not kind.per_key:
                    moves += kind.offer(self, var, None)
        return moves

    def counted_fields(self, var: str) -> list[str]:
        """The fields ``count_where`` counts in: those the question names, else (when it also ranks) the fields
        whose values repeat."""
        ranking = bool(self.offered & {"most_common", "max", "min"})
        return self.fields[var] or (ranked_fields(self, var, False) if ranking else [])

    def read_candidates(self) -> list[Candidate]:
        """Every value the reads produced, the latest read first (a value once: as first seen, or as a read that
        vouches for it saw it; a later read that cannot vouch for a value does not undo an earlier one's support)."""
        cands: list[Candidate] = []
        for found in reversed(list(self.reads.values())):
            for c in found:
                same = next((i for i, d in enumerate(cands) if d.value == c.value), None)
                if same is None:
                    cands.append(c)
                elif c.supported and not cands[same].supported:
                    cands[same] = c
        return cands

    def judge(self, outputs: dict[str, Any]) -> Candidate:
        """The candidate for a SUBMIT the moves did not offer: supported only if a read backs its value."""
        name = next(iter(self.outputs), None)
        value = outputs.get(name) if name is not None else None
        annotation = self.outputs.get(name, str) if name else str
        return judge(value, annotation, self.read_candidates(), self.asks_name, self.asks_number, self.asks_date)

    def submit_moves(self) -> list[Move]:
        names = list(self.outputs)
        cands = self.read_candidates()
        first = typed(self.outputs[names[0]], cands, self.asks_name, self.asks_number, self.asks_date)
        rest = []
        for name in names[1:]:
            options = typed(self.outputs[name], cands, self.asks_name, self.asks_number, self.asks_date)
            if not options:
                return []
            rest.append((name, options))
        moves: dict[str, Move] = {}
        for c in first[:MAX_CANDIDATES]:
            tail = "".join(f", {n}={literal(o[0].value)}" for n, o in rest)  # further fields: the first option
            code = f"SUBMIT({names[0]}={literal(c.value)}{tail})"
            if code in moves and (moves[code].candidate.supported or not c.supported):  # type: ignore[union-attr]
                continue  # one value twice (a ranked 3, and the 3 of "Warning Level 3"): the supported one stays
            shown = str(c.value) if not isinstance(c.value, list) else ", ".join(map(str, c.value))
            moves[code] = Move("submit", f"The {c.label} is {shown}.", code, c)
            self.submits[code] = c
        return list(moves.values())

    # -- what a read produced ---------------------------------------------------------------------
    def record_read(self, code: str, stdout: str) -> None:
        """Remember what the read ``code`` produced (computed again on the host with the same helpers)."""
        if code in self.reads or code in self.submits:
            return
        move = next((m for m in self.read_moves() if m.code == code), None)
        if move is None:  # search rows, or code the grammar did not write: the printed tokens
            self.reads[code] = printed(self, stdout)
            return
        self.reads[code] = evaluate(self, move, stdout)
        # a field read's value naming another record; a record's, for a second step (SIGCLD's value SIGCHLD)
        named = [c for c in self.reads[code] if move.kind == "field" or c.label not in ("key", "answer", "count")]
        if not named or not (move.kind == "field" or (move.kind == "record" and chained(self))):
            return
        via = (str(move.args[0]), str(move.args[1]) if move.kind == "field" else named[0].label)
        if shared := shared_from(self, move, named):
            self.keys[move.var].insert(0, shared)  # "what other version has the same date?": another record holding it
        elif (hop := hop_key(self.structs[move.var], self.keys[move.var], [c.value for c in named], via)) is not None:
            self.keys[move.var].insert(0, hop)  # a field's value naming another record: the next reads read by it

    def key_of(self, move: Move) -> tuple[str, Key | None]:
        """The variable a read reads, and the question's key phrase it reads by (None for rankings)."""
        for k in self.keys.get(move.var, []):
            if k.text in move.args:
                return move.var, k
        return move.var, None
