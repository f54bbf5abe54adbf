"""Grounded moves over the data's own structure: what the small policy lets a small model write each step.

Each step, the action's whole JSON output is held to one regex: an alternation of *moves*, each a short
sentence tied to one line of code. Every word, field and value a move names comes from the question or
from the data's detected structure (:mod:`dspy_rlm.library.structure`), never from the shape of a benchmark:

* reads -- ``search(V, 'K')``, ``record_of(V, 'K')``, ``field_of(V, 'K', 'F')``, ``count_records(V, 'K')``,
  ``count_where(V, 'F', 'K')``, ``count_if(V, 'F', test, 'K')``, ``most_common(V, 'F')``,
  ``max_of`` / ``min_of(V, 'F')``, ``exists(V, 'K')``, ``key_of(V, 'K')``, where ``K`` is a phrase of the
  question found in the data (longest first; a record's key or a field's whole value ranks first) and ``F`` a
  field whose name shares a stem with a word of the question. Counting, ranking and existence moves are
  offered when the question asks for them (``how many``, ``most common``, ``largest``, a yes/no question) or
  the output type does (``int``, ``bool``); ``count_if`` tests a field as the question states (``starting
  with G``, ``below 100``, a phrase that is a whole part of a value).
* submits -- ``SUBMIT(answer=...)`` with a value a read produced: a whole field value (several words,
  punctuation, non-ASCII), a record key, a count, a number as printed (normalized for ``int``), True/False.
  The host computes each read's result itself with the same helpers, so values are exact, not re-tokenized.

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

from dspy_rlm.library import lookup, wordmatch
from dspy_rlm.library import structure as st
from dspy_rlm.profiles.candidates import Candidate, judge, typed
from dspy_rlm.profiles.conditions import most_of
from dspy_rlm.profiles.kinds import KINDS, evaluate
from dspy_rlm.profiles.move import Move, literal, moves_pattern, read
from dspy_rlm.profiles.phrases import (
    ID_LIKE,
    QUOTED,
    Key,
    beyond_key,
    components,
    container_spans,
    counted_nouns,
    drop_descriptors,
    found_beyond,
    held_once,
    holding,
    hop_key,
    is_stop,
    is_stop_value,
    make_key,
    mark_inner,
    may_be_value,
    named_line,
    one_letter,
    quoted_text,
    spelled_as,
    subject_span,
    unqualified,
    unquoted,
    without_container,
)
from dspy_rlm.profiles.rankings import ranked_fields
from dspy_rlm.profiles.reads import (
    agent_stems,
    camel_parts,
    dated_fields,
    field_forms,
    field_holding_key,
    file_texts,
    norm,
    parts,
    printed,
    ranked_names,
    states_pair,
)
from dspy_rlm.profiles.vocabulary import CUES, STOP, SYNONYMS, YES_NO_START

__all__ = ["Candidate", "Move", "MoveBook", "moves_pattern", "read"]

MAX_KEYS = 6
"""At most this many question phrases are offered as keys."""
MAX_KEY_RECORDS = 50
"""A phrase found in more records than this is no key (it is offered for counting only)."""
MAX_CANDIDATES = 40
_GLOB_TAIL = re.compile(r"/?\*+")
_GLOB_LEAD = re.compile(r"\*\.?$")
_DASHES = re.compile(r"(?:^|(?<=[\s(\[\"'`]))-{1,2}$")  # a flag's dashes before a question's word: --save-exact


_TYPE_OFFERS: dict[Any, set[str]] = {
    bool: {"yes_no"},
    int: {"count", "max", "min"},
    float: {"count", "max", "min"},
    str: {"most_common", "max", "min"},
}
"""With ``all_moves``: the counting, ranking and existence moves each output type admits."""


@dataclass
class MoveBook:
    """The moves of one run: its question, data and structure (computed once), and what each read gave.

    Args:
        question: The inputs that state the task.
        data: The inputs that hold data.
        outputs: The signature's output fields (name -> annotation).
        all_moves: Offer every counting, ranking and existence move the output type admits, not only those the
            question's cue words ask for (the model chooses among them).
    """

    question: dict[str, str]
    data: dict[str, Any]
    outputs: dict[str, Any]
    all_moves: bool = False  # offer every counting / ranking / existence move the output type admits
    reads: dict[str, list[Candidate]] = field(default_factory=dict)  # read code -> its candidates
    submits: dict[str, Candidate] = field(default_factory=dict)  # submit code -> its candidate

    def __post_init__(self) -> None:
        self.text_q = " ".join(self.question.values())
        texts = {n: v for n, v in self.data.items() if isinstance(v, str)}
        self.texts = dict(sorted(texts.items(), key=lambda kv: -len(kv[1]))[:2])
        self.texts.update(file_texts(self.data, self.text_q, 2 - len(self.texts)))
        said = st.words(self.text_q.casefold())  # and a hyphened word's parts: "the highest-numbered" ranks
        q = " " + " ".join(said + [p for w in said if "-" in w for p in w.split("-") if p]) + " "
        q += " ".join(w[:-2] if len(w) > 5 and w.endswith("ly") else w for w in q.split()) + " "  # "most commonly"
        q = q.replace(" at least ", " ").replace(" at most ", " ")  # a bound ("at least one"), no ranking
        self.cues = {kind for kind, cues in CUES.items() if any(f" {c.strip()} " in q for c in cues)}
        self.answer_type = next(iter(self.outputs.values()), str)
        first = q.split()[0] if q.split() else ""
        if self.answer_type is bool or first in YES_NO_START:
            self.cues.add("yes_no")
        if q.split()[:2] == ["number", "of"]:  # "Number of accounts with group X" (a port number of: no count)
            self.cues.add("count")
        # the counting, ranking and existence moves offered: those the question's cue words ask for, and with
        # all_moves every one the output type admits (the model chooses; measured on dev: no coverage gained)
        self.offered = set(self.cues) | (_TYPE_OFFERS.get(self.answer_type, set()) if self.all_moves else set())
        self.structs = {n: st.detect(t) for n, t in self.texts.items()}
        named = {f.casefold() for s in self.structs.values() for f in s.field_names}  # quoted words name no field
        asked = without_container(unquoted(self.text_q, named), named)
        entity = counted_nouns(st.words(asked.casefold()))  # "how many time zones ...": the records, no field
        content = [w for w in parts(asked) if w.casefold() not in STOP and w.casefold() not in entity]
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
        self.q_stems |= {st.stem(p) for w in components(named) & set(st.words(asked.casefold())) for p in parts(w)}
        said = st.words(self.text_q.casefold())
        self.asks_name = "name" in said[1:]  # "the maintainer's name": no e-mail tail ("Name the ..." is a verb)
        self.q_stems |= {st.stem("name")} if self.asks_name else set()  # "which setting name has the most entries"
        self.q_stems |= {"=" + (a[0] + b[0]).upper() for a, b in itertools.pairwise(content)}  # "time zone": TZ
        self.q_stems |= {"=" + w[0].upper() for w in content if w[:1].isalpha()}  # "organization": the O of "Issuer O"
        # derived once per run (the question and the data do not change): read_moves() runs every step and, in
        # the oracle's search, once per sequence tried
        self.memo: dict[tuple[Any, ...], Any] = {}
        extra = {r for r in [most_of(self)] if r}  # "which MIME type has the most glob patterns": no cue word says it
        self.cues, self.offered = self.cues | extra, self.offered | extra
        self.fields = {n: self._matched_fields(s) for n, s in self.structs.items()}
        self.keys = {n: self._keys(n) for n in self.texts}
        self.fields = {n: drop_descriptors(self, n, f) for n, f in self.fields.items()}
        for n, s in self.structs.items():  # "the font's full name": the one record holding FullName is named
            if not self.cues & {"count", "most_common", "max", "min"}:  # (a ranking or a count: all records)
                held = self.fields[n] or (self.named_fields(n) if s.kind == "lines" else [])  # a "name value" line
                self.keys[n][:0] = [k for k in [held_once(s, held, self.keys[n], self.text_q)] if k]
                self.fields[n] = self.fields[n] or named_line(s, self.keys[n])  # its value is read whole

    def kind(self) -> str:
        """The kind of question, as the moves see it: ``yes_no``, ``count``, ``most_common``, ``max``, ``min``,
        ``reverse`` (a whole field value of the data is named: its record's key is asked) or ``lookup``."""
        for cue in ("yes_no", "count", "most_common", "max", "min"):
            if cue in self.cues:
                return cue
        keys = [k for ks in self.keys.values() for k in ks]
        named = any(self.fields.values())  # "What token does user X have?": a field is asked for, not a key
        if keys and keys[0].is_value and not keys[0].is_key and not named:
            return "reverse"
        return "lookup"

    # -- what the question names ------------------------------------------------------------------
    def _matched_fields(self, s: st.Structure) -> list[str]:
        """Fields the question names (a shared stem), the key's own field left out (it holds the key)."""
        if s.kind in ("lines", "prose"):  # a "key: value" shape on some lines names no field of the data; the
            columns = {f for r in s.records[:5000] if len(r.fields) >= 2 for f, _ in r.fields}  # table rows do
            return ranked_names(self.q_stems, [f for f in s.field_names if f in columns])[:3]
        key_field = field_holding_key(s)
        named = ranked_names(self.q_stems, s.field_names) + dated_fields(self.text_q, s)
        return [f for f in named if f != key_field][:3]

    def _keys(self, var: str) -> list[Key]:
        text, s = self.texts[var], self.structs[var]
        # the parsed records hold only a huge text's head: a phrase of them is in the head, folded as they match
        folded = (text if s.parsed_chars is None else text[: s.parsed_chars]).casefold()
        tokens = list(re.finditer(wordmatch.WORD_TOKEN, self.text_q))
        field_stems = {st.stem(w) for f in s.field_names for w in parts(f)}
        named_cf = {f.casefold() for f in s.field_names}
        found: list[Key] = []
        absent: list[Key] = []
        beyond: list[Key] = []  # found only past the parsed head of a huge text: search() reads it
        spans: list[tuple[int, int]] = []
        firm: set[tuple[int, int]] = set()  # spans of a record's key or a whole value, and quoted phrases
        naming: set[str] = set()  # phrases that key a few records, held by more than MAX_KEY_RECORDS records
        data_spans = container_spans(self.text_q)  # "in this tox config": no key phrase
        data_nouns = {b for _, b in data_spans}
        subject = subject_span(self.text_q)  # "does the stylesheet have ...": what holds the thing asked about
        for m in QUOTED.finditer(self.text_q):  # a quoted phrase is one key, however long
            phrase = quoted_text(m).strip()
            hits = [r for r in s.records if lookup._has(r, phrase)] if wordmatch.in_text(phrase, folded) else []
            if len(phrase) >= 2 and hits:
                found.append(make_key(phrase, hits))
                spans.append(m.span())
                firm.add(m.span())
        for n in (4, 3, 2, 1):
            for i in range(len(tokens) - n + 1):
                first, last = tokens[i], tokens[i + n - 1]
                words = [t.group() for t in tokens[i : i + n]]
                before = self.text_q[max(0, first.start() - 3) : first.start()]
                dash = _DASHES.search(before)
                flag = dash.group() if dash else ""  # "--save-exact", "-A": a command-line flag, its dashes its own
                flag = (
                    flag if flag and wordmatch.in_text(flag + self.text_q[first.start() : last.end()], folded) else ""
                )
                # a stop word alone ("down", "off", "no") is a key only where it is a field's whole value
                stop_word = n == 1 and is_stop(words[0]) and not flag
                if n == 1 and last.end() in data_nouns:
                    continue
                described = any(a <= first.start() and last.end() <= b for a, b in data_spans)
                if described and not any(ID_LIKE.search(w) for w in words):
                    continue  # the file's kind, in plain words ("tox"), is no record's key
                if (
                    (is_stop(words[0]) or is_stop(words[-1]))
                    and not (stop_word and may_be_value(words[0]))
                    and not flag
                ):
                    continue
                only_field_words = all(
                    w.casefold() in STOP or all(st.stem(p) in field_stems for p in parts(w)) for w in words
                )
                end = last.end()
                tail = self.text_q[end : end + 1]
                if tail and tail in ")]" and "(["[")]".index(tail)] in self.text_q[first.start() : end]:
                    end += 1  # "Central - ND (Mercer)": the bracket belongs to the phrase
                start = first.start()
                glob = _GLOB_TAIL.match(self.text_q, end)  # "debian/*", "*.conf": a glob the data writes is one key
                lead = _GLOB_LEAD.search(self.text_q, max(0, start - 2), start)
                if glob and wordmatch.in_text(self.text_q[start : glob.end()], folded):
                    end = glob.end()
                if lead and wordmatch.in_text(self.text_q[lead.start() : end], folded):
                    start = lead.start()
                phrase = flag + self.text_q[start:end]
                inside = any(a <= first.start() and last.end() <= b for a, b in spans)
                # inside only phrases that are no key nor whole value ("a Tier 1 platform" of prose): a whole
                # value ("Tier 1" of a table) within is still one
                loose = inside and not any(a <= first.start() and last.end() <= b for a, b in spans if (a, b) in firm)
                exempt = n == 1 and (ID_LIKE.search(words[0]) or flag)  # an identifier or a flag: offered alone
                if inside and not loose and not exempt:
                    continue  # inside a longer phrase already found (an ID-like word or a flag is still offered alone)
                head, colon, rest = phrase.partition(":")
                if colon and rest.strip() and head.strip().casefold() in named_cf:
                    phrase = rest.strip()  # "Priority: required" names the field and the value: the value is key
                letter = len(phrase) < 2  # "the key J", "to a capital E", "the character ß": a whole key or value
                if letter and not (first.start() and one_letter(phrase)):
                    continue
                if n == 1 and ID_LIKE.search(phrase) and not wordmatch.in_text(phrase, folded):
                    phrase = spelled_as(text, phrase) or phrase  # "quiet-lagoon" asked, "quiet_lagoon" written
                    phrase = unqualified(folded, phrase) or phrase  # "HTTPStatus.OK" asked, "OK = 200" written
                present = wordmatch.in_text(phrase, folded)
                cap = s.parsed_chars
                hits = holding(text, s, phrase) if s.records and present else []
                if stop_word and not is_stop_value(phrase, hits):
                    continue
                if not hits and cap is not None and found_beyond(text, phrase, cap, n):
                    beyond.append(beyond_key(text, phrase))
                    spans.append((first.start(), last.end()))
                    firm.add((first.start(), last.end()))  # no shorter phrase within is offered past the head
                    continue
                if not hits:
                    holder = subject and subject[0] <= first.start() and last.end() <= subject[1]
                    if "yes_no" in self.cues and n == 1 and not only_field_words and not holder:
                        absent.append(Key(phrase, 0, False, False))  # "is X listed?": X may be absent
                    continue
                made = make_key(phrase, hits)
                if (letter or (loose and not exempt)) and not (made.is_key or made.is_value):
                    continue
                if phrase.casefold() in named_cf and not (made.is_key or made.is_value) and len(hits) > 3:
                    continue  # a column's whole name ("SHA1 Fingerprint") names the field, not a record
                if only_field_words and n == 1 and not made.is_key and len(hits) > 3 and not stop_word:
                    continue  # a field's name ("port"), not a key; unless a record is keyed by it (NAME=...)
                found.append(made)
                spans.append((first.start(), last.end()))
                firm |= {(first.start(), last.end())} if made.is_key or made.is_value else set()
                if (
                    made.is_key
                    and ID_LIKE.search(phrase)
                    and len(hits) > MAX_KEY_RECORDS >= sum(norm(r.key) == norm(phrase) for r in hits)
                ):  # an identifier keying few records names them, however many mention it (not a word: "config")
                    naming.add(phrase)
        mark_inner(found, text, s)
        usable = [k for k in found if k.records <= MAX_KEY_RECORDS or k.text in naming or "count" in self.cues]
        usable.sort(key=lambda k: (not k.is_key, not k.is_value, k.records, -len(k.text)))
        if "count" not in self.cues and any(k.is_key or k.is_value for k in usable):
            # the question names a record (its key or a whole value): common words are no keys beside it
            usable = [k for k in usable if k.is_key or k.is_value or k.records <= 3]
        beyond.sort(key=lambda k: (not ID_LIKE.search(k.text), " " not in k.text))  # IDs, phrases, then words
        strong = [k for k in usable if k.is_key or k.is_value]  # a record named in the head comes first; then
        ordered = strong + beyond[:2] + usable[len(strong) :]  # what only the tail holds, before loose words
        if "count" not in self.cues and any(ID_LIKE.search(k.text) for k in beyond):
            ordered = strong + beyond[:2]  # an identifier names a record past the head: loose words are no keys
        if any(ID_LIKE.search(k.text) for k in absent) and not any(ID_LIKE.search(k.text) for k in strong + beyond):
            return (absent[:1] + ordered)[: MAX_KEYS + 1]  # "did job quiet-lagoon fail?": the identifier is asked
        return (ordered[: MAX_KEYS + len(beyond[:2])] + absent[:2])[: MAX_KEYS + 1]

    def named_fields(self, var: str) -> list[str]:
        """Fields the question names (as :func:`~dspy_rlm.profiles.reads.ranked_names`), the key's own field
        included, in file order."""
        if ("named", var) not in self.memo:
            s = self.structs[var]
            said = set(ranked_names(self.q_stems, s.field_names) + dated_fields(self.text_q, s))
            self.memo[("named", var)] = [f for f in self.structs[var].field_names if f in said]
        return list(self.memo[("named", var)])

    def field_is_key(self, var: str, key: Key, field: str) -> bool:
        """Whether ``field`` of the record ``key`` finds holds the key itself (reading it repeats the question)."""
        record = lookup.record_of(self.texts[var], key.text)
        value = record.get(field) if isinstance(record, st.Record) else None
        if value is None:
            return False
        if norm(value) == norm(key.text) or (key.is_value and st.matches(key.text, value)):
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
                for kind in [k for k in per_key if getattr(k, "streams", False)] if loose else per_key:  # else those
                    # that read the whole text (search, exists, count_records)
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
        return judge(value, self.outputs.get(name, str) if name else str, self.read_candidates(), self.asks_name)

    def submit_moves(self) -> list[Move]:
        names = list(self.outputs)
        cands = self.read_candidates()
        first = typed(self.outputs[names[0]], cands, self.asks_name)
        rest = []
        for name in names[1:]:
            options = typed(self.outputs[name], cands, self.asks_name)
            if not options:
                return []
            rest.append((name, options))
        moves = []
        for c in first[:MAX_CANDIDATES]:
            tail = "".join(f", {n}={literal(o[0].value)}" for n, o in rest)  # further fields: the first option
            code = f"SUBMIT({names[0]}={literal(c.value)}{tail})"
            shown = str(c.value) if not isinstance(c.value, list) else ", ".join(map(str, c.value))
            move = Move("submit", f"The {c.label} is {shown}.", code, c)
            self.submits[code] = c
            moves.append(move)
        return moves

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
        values = [c.value for c in self.reads[code]] if move.kind == "field" else []  # a key read's value is a key
        if (hop := hop_key(self.structs[move.var], self.keys[move.var], values)) is not None:
            self.keys[move.var].insert(0, hop)  # a field's value naming another record: the next reads read by it

    def key_of(self, move: Move) -> tuple[str, Key | None]:
        """The variable a read reads, and the question's key phrase it reads by (None for rankings)."""
        for k in self.keys.get(move.var, []):
            if k.text in move.args:
                return move.var, k
        return move.var, None
