"""The membership kind of read: whether a phrase of the question is one of the items a named part of the data
lists (``has_item``: "is AF_INET one of the address families journald may use?", "is nock one of npm's runtime
dependencies?"). It answers a yes/no question that an existence check answers wrong where the phrase is in the
data but listed elsewhere (``devDependencies``), or where the record that holds the list is the whole file.
Registered by :mod:`dspy_rlm.profiles.kinds`."""

from __future__ import annotations

import re
from typing import Any

from dspy_rlm.library import items, lookup
from dspy_rlm.library import structure as st
from dspy_rlm.library.formats import KEY_NAMES
from dspy_rlm.profiles.candidates import Candidate
from dspy_rlm.profiles.kind_registry import KindBase
from dspy_rlm.profiles.move import Move, read
from dspy_rlm.profiles.named_document import names_asked_document, untitled
from dspy_rlm.profiles.phrases import Key
from dspy_rlm.profiles.reads import camel_parts, field_stems, norm
from dspy_rlm.profiles.sizes import named_parts, written_parts
from dspy_rlm.profiles.vocabulary import ID_LIKE, STOP
from dspy_rlm.profiles.yes_no_words import ASKING, MEMBER_VERBS, MEMBERSHIP

__all__ = ["HasItem", "asks_membership", "item_phrase", "member_parts", "owns"]

_WORD = re.compile(r"[\w@/+-]+(?:\.[\w@/+-]+)*")
_SAMPLE = 200  # records looked at for a list
_OPEN = "(\"'`["
_END = "?!.,:;)\"'`"


def member_parts(book: Any, var: str) -> list[tuple[str, str | None]]:
    """``(name, key)`` for each part of ``var`` listing items that a yes/no question names by most of its words
    (as :func:`~dspy_rlm.profiles.sizes.listed_parts` does for a count, any word of the question standing for the
    counted noun), a group's list rather than the group where it names both; empty for a question that is no
    yes/no one."""
    memo = ("member parts", var)
    if "yes_no" not in book.offered:
        return []
    if memo in book.memo:
        return list(book.memo[memo])
    fields = book.structs[var].field_names
    asked = untitled(book, var)  # the text's title names the document, no part ("the Node.js 5 changelog")
    said = {st.stem(w) for w in st.words(asked.casefold()) if w not in STOP}
    said |= {st.stem(w.casefold()) for w in _WORD.findall(asked) if w in fields}  # "its After= units"
    parts = named_parts(book, var, said, "named parts", least=1)
    book.memo[("parts named", var)] = [n for n, _ in parts]  # lists or not: a part named alike is read by none
    # one list of a group is named by its own name ("katal's trusted targets": trusted_targets.katal)
    parts = [(n, k) for n, k in parts if ("." not in n or _own_named(n, said, fields)) and _a_list(book, var, n)]
    # a group named with one of its lists ("is X one of meran's modules?": modules.meran): the list; a record
    # named as the one holding another part's list ("east's mirrors"): that list
    owners = {norm(k) for _, k in parts if k}
    book.memo[memo] = [
        (n, k)
        for n, k in parts
        if not any(m.casefold().startswith(n.casefold() + ".") for m, _ in parts) and norm(n) not in owners
    ]
    return list(book.memo[memo])


def _own_named(name: str, said: set[str], fields: Any) -> bool:
    """Whether the dotted field ``name`` is named by its last part, or has no sibling under its group."""
    group, _, own = name.rpartition(".")
    siblings = sum(f.casefold().startswith(group.casefold() + ".") for f in fields)
    return siblings < 2 or st.stem(own.casefold()) in said


def _a_list(book: Any, var: str, name: str) -> bool:
    """Whether the part ``name``, or a list beside it in its group, lists two items or more in some record: a list,
    not a setting of one value."""
    text, s = book.texts[var], book.structs[var]
    group = name.rpartition(".")[0].casefold() + "."
    names = [name] + ([f for f in s.field_names[:_SAMPLE] if f.casefold().startswith(group)] if "." in name else [])
    for n in names:
        found = items.items_of(text, n)
        if isinstance(found, int) and found >= 2:
            return True
        if not isinstance(found, int) and any(items.items_in(r, n) >= 2 for r in s.records[:_SAMPLE]):
            return True
    return False


def owns(book: Any, var: str, key: Any, name: str) -> bool:
    """Whether the phrase ``key`` names the record that holds the part ``name`` (its key or the value of its
    ``name`` field: npm of npm's package.json): not an item asked about."""
    text = book.texts[var]
    r = lookup.record_of(text, key.text)
    if not isinstance(r, st.Record):
        return False
    named = {norm(r.key)} | {norm(v) for f, v in r.fields if f.casefold() in KEY_NAMES}  # its key or its name
    return norm(key.text) in named and isinstance(items.items_of(text, name, key.text), int)


def _part_word(phrase: str, name: str) -> bool:
    """Whether ``phrase`` is made of words of the part's name (``require`` of ``Requires-Dist``)."""
    return {st.stem(w.casefold()) for w in camel_parts(phrase)} <= _stems(name)


def _stems(name: str) -> set[str]:
    return {st.stem(w.casefold()) for w in camel_parts(name)}


def item_phrase(book: Any, var: str, name: str) -> str | None:
    """The phrase of the question asked about as an item of the part ``name``: the object of a verb of listing
    where the question has one ("does Y *list* X"), else the first phrase the question says that the data holds
    (a key phrase, an identifier, or a word the data writes as a name inside a dotted field: ``nock`` of
    ``devDependencies.nock``), else its first other word; as the question writes it whole (``/srv/a``,
    ``https://x.org/a``). It names neither the record holding the part nor a word of its name, nor qualifies
    either ("is nock one of npm's *runtime* dependencies?" asks about nock; "does the *team* web list ada?" about
    ada), nor is a word of the asking ("*check* whether ...") absent from the data."""
    memo = ("item phrase", var, name)
    if memo in book.memo:
        return book.memo[memo]
    q = book.text_q.casefold()
    segments = {p.casefold() for f in book.structs[var].field_names if "." in f for p in f.split(".")[1:]}
    tokens = [w for w in _WORD.findall(book.text_q) if w.casefold() not in STOP]
    phrases = [k for k in book.keys.get(var, []) if not k.hop] + [Key(w, 0, False, False) for w in tokens]
    spans = [(a, b, k) for k in phrases for a, b in [_span(q, k.text)] if a >= 0]
    owners = [(a, b) for a, b, k in spans if owns(book, var, k, name)]
    verb = next((m.end() for m in re.finditer(r"[\w-]+", q) if m.group() in MEMBER_VERBS), None)
    found = []
    for a, b, k in spans:
        if _part_word(k.text, name) or any((x <= a and b <= y) or _next(q, x, y, a, b) for x, y in owners):
            continue  # a word of the part, the owner, or the owner's noun beside it ("the team web")
        named = bool(ID_LIKE.search(k.text)) or (k.text.isupper() and len(k.text) > 1)  # AF_INET, NFT
        written = named or k.records > 0 or k.text.casefold() in segments
        after = st.words(q[b:])[:1]
        if not named and after and st.stem(after[0]) in _stems(name):  # "runtime dependencies", "financial
            continue  # identifier words": a word qualifying the part (a name before it is the item: "the x_y feature")
        if not k.records and _asking(k.text):
            continue
        # a path the data does not hold names the document asked of ("in /usr/lib/x/pyproject.toml"): last
        doc = not k.records and names_asked_document(book, var, k.text)  # or the name before "copyright file"
        # the object of "does Y list X" first, then a phrase of the data, then other words
        restated = q[a - 1 : a] == "(" and q[b : b + 1] == ")"  # "PDF files (*.pdf)": the exact spelling, in brackets
        found.append(
            (bool(doc), verb is not None and a < verb, not restated, not written, a, -(b - a), book.text_q[a:b])
        )
    book.memo[memo] = min(found)[-1] if found else None
    return book.memo[memo]


def _listed_word(book: Any, var: str, name: str, owner: str | None, phrase: str) -> str | None:
    """The word right beside ``phrase`` in the question that the part ``name`` lists, where ``phrase`` is not
    listed ("is Ubuntu jammy among the codenames in DISTS?": jammy), else None."""
    q = book.text_q
    at = q.find(phrase)
    if at < 0:
        return None
    beside = [*_WORD.findall(q[at + len(phrase) :])[:1], *_WORD.findall(q[:at])[-1:]]
    listed = [w for w in beside if w.casefold() not in STOP and not _part_word(w, name)]
    return next((w for w in listed if items.has_item(book.texts[var], name, w, owner) is True), None)


def asks_membership(book: Any, name: str, phrase: str) -> bool:
    """Whether the question asks if a list holds ``phrase``: it says so ("one of", "among", "include", "listed";
    "X in Y's list")."""
    q = book.text_q.casefold()
    if any(re.search(rf"\b{re.escape(c)}\b", q) for c in MEMBERSHIP):
        return True
    a, b = _span(q, phrase)
    return a >= 0 and q[b:].lstrip().startswith("in ")


def _span(q: str, text: str) -> tuple[int, int]:
    """Where ``text`` is in the question ``q`` (folded), widened to the whole words around it and without the
    punctuation that ends a phrase or a possessive's ``'s``; ``(-1, -1)`` where it is not."""
    at = q.find(text.casefold())
    if at < 0:
        return -1, -1
    a, b = at, at + len(text)
    while a > 0 and not q[a - 1].isspace():
        a -= 1
    while b < len(q) and not q[b].isspace():
        b += 1
    while b > a and q[b - 1] in _END:
        b -= 1
    while a < b and q[a] in _OPEN:  # "(reused)"
        a += 1
    b -= 2 if q[a:b].endswith(("'s", "’s")) else 0
    return a, b


def _next(q: str, x: int, y: int, a: int, b: int) -> bool:
    """Whether the spans ``(x, y)`` and ``(a, b)`` of ``q`` stand side by side, only blanks between (or overlap)."""
    return not (q[y:a].strip() if y <= a else q[b:x].strip() if b <= x else "")


def _asking(word: str) -> bool:
    """Whether ``word`` is a word of the asking, not the data (``check``, ``confirm``), or one typo from one
    (``Chekc``, ``whetehr``)."""
    w = word.casefold()
    if ID_LIKE.search(w) or " " in w:
        return False
    return w in ASKING or w in STOP or any(len(v) >= 4 and _one_edit(w, v) for v in ASKING | STOP)


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one letter changed, added or dropped, or two neighbours swapped."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        swap = len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        return len(diff) == 1 or swap
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


class HasItem(KindBase):
    """``has_item(V, NAME, PHRASE[, KEY])``: whether the phrase is one of the items of the one part the question
    names."""

    name = "has_item"
    per_key = False

    def offer(self, book: Any, var: str, key: Any) -> list[Move]:
        parts = member_parts(book, var)
        parts = written_parts(book, var, parts)
        moves = []
        for name, owner in parts:
            phrase = item_phrase(book, var, name)
            # a yes/no that asks no membership reads the list only where it holds the phrase ("does the ext4
            # profile turn on the metadata_csum feature?"), not for any phrase ("is Verify-Peer set to true?")
            if phrase is not None and not asks_membership(book, name, phrase):
                phrase = phrase if items.has_item(book.texts[var], name, phrase, owner) is True else None
            elif phrase is not None and items.has_item(book.texts[var], name, phrase, owner) is not True:
                phrase = _listed_word(book, var, name, owner, phrase) or phrase  # "is Ubuntu *jammy* among ..."
            if phrase is not None:
                say = f"I will check whether {phrase!r} is one of the items {name!r} lists."
                moves.append(read("has_item", say, "has_item", var, name, phrase, *([owner] if owner else [])))
        return moves

    def evaluate(self, book: Any, move: Move, stdout: str, key: Any, result: Any) -> list[Candidate]:
        if not isinstance(result, bool):
            return []
        why = "checked the items of the part the question names"
        if len(member_parts(book, move.var)) > 1:
            why = "the question names more than one part that lists items"
        elif not result and not asks_membership(book, str(move.args[0]), str(move.args[1])):
            why = "the question asks no membership, and the list does not hold the phrase"  # "is X set to true?"
        elif not result and not _names_only(book.texts[move.var], move.args):
            why = "the list's items are records or text, not names"  # a workflow's steps: "tk-dev" is in a command
        elif not result and (alike := _named_alike(book, move.var, str(move.args[0]))):
            why = f"the question names {alike!r} alike, not read"  # "private link flags": Libs.private too
        return [Candidate(result, "answer", why.startswith("checked"), why)]


def _named_alike(book: Any, var: str, name: str) -> str | None:
    """Another part the question names beside ``name`` (:func:`named_parts`), listing items or not, where the
    question says only some words of ``name``: where the list read lacks the item, that part may hold it ("the
    private link flags": ``Requires.private`` read, ``Libs.private`` beside it; "runtime dependencies" names
    ``dependencies`` whole, and ``devDependencies`` is no alike)."""
    member_parts(book, var)  # (memoized) it records the parts named, lists or not
    said = {st.stem(w) for w in st.words(book.text_q.casefold())}
    if field_stems(name) <= said or name.casefold() in book.text_q.casefold():  # named whole: "(__mvnoptsWithArg)"
        return None
    return next((n for n in book.memo.get(("parts named", var), []) if n.casefold() != name.casefold()), None)


_MAPPING = re.compile(r"[\w.-]+:(?:\s|$)")


def _names_only(text: str, args: tuple[Any, ...]) -> bool:
    """Whether the list read holds names: no item of several lines, nor one that maps a key (``run: pwd``)."""
    name, owner = args[0], (args[2] if len(args) > 2 else None)
    found = items._listed("has_item", text, name, owner)
    return isinstance(found, list) and not any("\n" in i or _MAPPING.match(i) for i in found)
