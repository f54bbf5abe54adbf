"""XML documents as records behind :func:`dspy_rlm.library.structure.detect`: the records are the elements of a
repeated element (``<syscall name="read" number="0"/>`` under gdb's ``<syscalls_info>``, ``<iso_3166_entry>``,
a ``<book>`` with ``<title>`` and ``<author>`` children), their attributes and simple child elements the
fields.

A child element that only holds leaves (fontconfig's ``<default><family>serif</family></default>``) gives its
parent ``default.family``; records spread over several named parents (D-Bus ``<arg>`` under each ``<method
name=...>``) carry their parent's name as a field (``method``).

The text is untrusted: an entity declaration other than plain text (entity-expansion attacks) is refused, nothing
external is fetched (expat loads no DTD or external entity unless asked to), and ``detect()`` caps how much is
parsed. Expat is used directly, not through ElementTree, for the line of each element; it is imported when first
needed (the helpers' standalone source imports only what every interpreter has at its top). Stdlib only:
:func:`dspy_rlm.library.helpers.standalone_source` inlines it.
"""

import re

from dspy_rlm.library.formats import Raw

_XML_MIN_RECORDS = 3  # a (tag, depth) that holds records occurs this often
_XML_SETTINGS = 8  # an element of this many leaves beside the records is a section of settings
_XML_KEY_NAMES = ("name", "id", "key", "ref", "title")  # title, as for JSON records
_XML_LEAD = re.compile(r"[\ufeff \t\r\n]*")
_XML_NAMING = ("name", "key", "id")  # a leaf child's attribute that names its text (<property name="x">)
_XML_NAME = re.compile(r"[A-Za-z_][\w.:-]{0,63}")


class _XmlRefused(Exception):
    """Raised from inside expat to stop a parse: an entity declaration, or an HTML page."""


_XmlLeaf = tuple[str, str, list[tuple[str, str]]]  # a leaf child's tag, text, attributes
_XmlItem = tuple[int, int, list[tuple[str, str]], list[_XmlLeaf], str, tuple[str, str]]
"""An element: first and last line, attributes, leaves, text, and its parent's (tag, key)."""


class _XmlWalk:
    """One expat pass over a document: every element that carries attributes or leaf children, as a record
    candidate grouped by (local tag, depth). Each open element is a frame ``[tag, line, attrs, leaves, text
    parts, has children, key of its attributes (once a child asks)]``; a closed one with no child elements is a
    leaf of its parent."""

    def __init__(self, line_offset: int):
        from xml.parsers import expat  # here, not at the top: an interpreter built without expat still loads us

        self.offset = line_offset
        self.error = expat.ExpatError
        self.stack: list[list] = []
        self.groups: dict[tuple[str, int], list[_XmlItem]] = {}
        self.parent: dict[tuple[str, int], str] = {}  # a group's first element's parent tag
        self.branchy: set[tuple[str, int]] = set()  # the groups where some element has child elements
        self.parser = expat.ParserCreate()  # no namespace processing: a prefixed tag's local name is after ":"
        self.parser.buffer_text = True
        self.parser.ordered_attributes = True
        self.parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        self.parser.StartElementHandler = self.start
        self.parser.EndElementHandler = self.end
        self.parser.CharacterDataHandler = self.chars
        self.parser.EntityDeclHandler = self.refuse
        self.parser.StartDoctypeDeclHandler = self.doctype

    def refuse(self, name: str, parameter: bool, value: str | None, *_: object) -> None:
        # an internal entity that names plain text (D-Bus's <!ENTITY ERROR_GENERAL "org....Denied">) expands to
        # no more than its text; one naming another entity (the "billion laughs"), a file or a URL is refused
        if parameter or value is None or "&" in value or "%" in value:
            raise _XmlRefused("entity declaration")

    def doctype(self, name: str, *_: object) -> None:
        if name.casefold() == "html":
            raise _XmlRefused("an HTML page")

    def start(self, name: str, attrs: list[str]) -> None:
        tag = name.rpartition(":")[2]
        if not self.stack and tag.casefold() == "html":
            raise _XmlRefused("an HTML page")
        if self.stack:
            self.stack[-1][5] = True
        pairs = [(attrs[k], attrs[k + 1]) for k in range(0, len(attrs), 2) if not _xmlns(attrs[k])]
        self.stack.append([tag, self.parser.CurrentLineNumber, pairs, [], [], False, None])

    def chars(self, data: str) -> None:
        if self.stack:
            self.stack[-1][4].append(data)

    def end(self, name: str) -> None:
        tag, line, attrs, leaves, parts, nested, _ = self.stack.pop()
        text = "".join(parts).strip()
        if not nested and self.stack:
            self.stack[-1][3].append((tag, text, attrs))
        elif self.stack and not attrs and leaves:  # <default><family>serif</family></default>: default.family
            self.stack[-1][3].extend((f"{tag}.{t}", v, a) for t, v, a in leaves if "." not in t)  # one level
        if not (attrs or leaves):
            return
        at = (tag, len(self.stack))
        if at not in self.groups:
            self.groups[at] = []
            self.parent[at] = self.stack[-1][0] if self.stack else ""
        if nested:
            self.branchy.add(at)
        up = ("", "")
        if self.stack:
            above = self.stack[-1]
            if above[6] is None:
                above[6] = _xml_fields(above[2], [], "")[1]
            up = (above[0], above[6])
        self.groups[at].append((line, self.parser.CurrentLineNumber, attrs, leaves, text, up))  # fields: when chosen

    def feed(self, text: str) -> bool:
        """Parse ``text``; an unclosed document (a cut head) is fine, an error or a refusal is False."""
        try:
            self.parser.Parse(text, False)
        except (self.error, _XmlRefused):
            return False
        return True

    def records(self) -> tuple[str, list[_XmlItem]] | None:
        """The tag and elements (in document order) of the most common (tag, depth) of 3+ candidates (of equals,
        the shallower, then the first closed), else None. A group of leaves under a repeated parent is passed
        over: they are that parent's fields (a mime-type's 40 translated ``<comment xml:lang>``), not records."""
        for at in sorted(self.groups, key=lambda g: (-len(self.groups[g]), g[1])):  # equals: the outer, the first
            found = self.groups[at]
            if len(found) < _XML_MIN_RECORDS:
                return None
            if sum(any(n == "xml:lang" for n, _ in item[2]) for item in found) * 5 >= len(found) * 4:
                continue  # one text in many languages (AppStream's <name xml:lang="fr">): translations, no records
            if not any(item[2] for item in found) and self._inside_records(at):
                continue  # lists inside records with attributes (a <release>'s <ul> of changes): their content
            parents = self.groups.get((self.parent[at], at[1] - 1), [])
            if at in self.branchy or len(parents) < _XML_MIN_RECORDS:
                return at[0], self._same_tag(at, found)
        return None

    def _same_tag(self, at: tuple[str, int], found: list[_XmlItem]) -> list[_XmlItem]:
        """``found`` and the elements of the same tag at other depths that share an attribute name with them (a
        ``<document>`` in a ``<dir>`` inside another ``<dir>``), in document order."""
        names = {n for item in found for n, _ in item[2]}
        extra = [
            item
            for (tag, depth), items in self.groups.items()
            if tag == at[0] and depth != at[1]
            for item in items
            if names & {n for n, _ in item[2]}
        ]
        extra += self._same_shape(at, found)
        if kin := self._same_kind(at, found):  # each record says its element where two kinds are read
            found = [(a, b, [*attrs, ("element", at[0])], leaves, text, up) for a, b, attrs, leaves, text, up in found]
            extra += kin
        return sorted(found + extra, key=lambda item: (item[0], item[1])) if extra else found

    def _same_kind(self, at: tuple[str, int], found: list[_XmlItem]) -> list[_XmlItem]:
        """The elements of another tag beside the records (the same parent, the same depth) holding half or more of
        the records' attribute names, two at least (iso_4217's ``<historic_iso_4217_entry>`` beside its
        ``<iso_4217_entry>``): records too, each with its tag as the field ``element``."""
        names = {n for item in found for n, _ in item[2]}
        out: list[_XmlItem] = []
        for (tag, depth), items in self.groups.items():
            if tag == at[0] or depth != at[1] or self.parent.get((tag, depth)) != self.parent.get(at) or len(items) < 2:
                continue
            shared = names & {n for item in items for n, _ in item[2]}
            if len(shared) >= 2 and len(shared) * 2 >= len(names):
                out += [(a, b, [*attrs, ("element", tag)], leaves, text, up) for a, b, attrs, leaves, text, up in items]
        return out

    def _same_shape(self, at: tuple[str, int], found: list[_XmlItem]) -> list[_XmlItem]:
        """The elements of other tags, of no attributes as the records, that hold the two or more leaves (nested
        one level: ``configItem.name``) every record holds: xkb's ``<layout>`` and ``<model>`` beside its
        ``<variant>`` records, each named by its own ``configItem``."""
        if any(item[2] for item in found):
            return []
        common = set.intersection(*({t for t, _, _ in item[3] if "." in t} for item in found))
        if len(common) < 2:
            return []
        return [
            item
            for (tag, _), items in self.groups.items()
            if tag != at[0]
            for item in items
            if not item[2] and common <= {t for t, _, _ in item[3]}
        ]

    def _inside_records(self, at: tuple[str, int]) -> bool:
        """Whether an enclosing element of group ``at`` repeats 3+ times with attributes."""
        while at[1] > 0:
            at = (self.parent.get(at, ""), at[1] - 1)
            above = self.groups.get(at, [])
            if sum(1 for item in above if item[2]) >= _XML_MIN_RECORDS:
                return True
        return False

    def settings(self, tag: str, least: int) -> list[tuple[str, _XmlItem]]:
        """The elements of another tag than the records', each the one of its (tag, depth), holding ``least``
        distinct leaves or more and no attributes (a POM's ``<properties>`` of ``<commons.junit.version>5.9.1``
        lines beside four plugins): a section of settings beside the records, keyed by its tag."""
        return [
            (name, items[0])
            for (name, _), items in self.groups.items()
            if name != tag and len(items) == 1 and not items[0][2] and _distinct_leaves(items[0][3]) >= least
        ]

    def sections(self) -> list[tuple[str, _XmlItem]]:
        """Where no element repeats (a Maven POM, one settings document): every element with attributes or leaf
        children, in document order, with its tag -- a section each, as an INI file's."""
        found = [(tag, item) for (tag, _), items in self.groups.items() for item in items]
        return sorted(found, key=lambda pair: pair[1][0]) if len(found) >= 2 else []


def _distinct_leaves(leaves: list[_XmlLeaf]) -> int:
    """How many leaf names, where they are (nearly) all distinct, else 0 (a ``<plugins>`` list's repeated
    ``plugin.groupId``: a list's children, no settings)."""
    distinct = len({t for t, _, _ in leaves})
    return distinct if distinct * 5 >= len(leaves) * 4 else 0


def _xmlns(name: str) -> bool:
    return name == "xmlns" or name.startswith("xmlns:")


def _xml_fields(attrs: list[tuple[str, str]], leaves: list[_XmlLeaf], text: str) -> tuple[list[tuple[str, str]], str]:
    """A record's fields and key: its attributes as written; a leaf child as ``tag`` -> its text and its
    attributes as ``tag.attr``, a repeated child's values joined with ", " in one field; a leaf child whose
    ``name`` (``key``, ``id``) attribute names its text also as that name (``<setting name="threshold">1000
    ms</setting>``: ``threshold``; ``tag.name`` where the record has the name already); the element's own text
    as ``text``. The key: the first field named name / id / key / ref / title (an attribute before a child),
    else the first attribute, else the first leaf's text."""
    children: dict[str, list[str]] = {}
    for tag, value, child_attrs in leaves:
        if value or not child_attrs:
            children.setdefault(tag, []).append(value)
        for n, v in child_attrs:
            children.setdefault(f"{tag}.{n}", []).append(v)
    fields = attrs + [(n, ", ".join(v for v in values if v)) for n, values in children.items()]
    taken = {n for n, _ in fields}
    for tag, value, child_attrs in leaves:  # <setting name="threshold">1000 ms</setting>: a field "threshold"
        label = next((v for n, v in child_attrs if n in _XML_NAMING and _XML_NAME.fullmatch(v)), None)
        if value and label:
            name = label if label not in taken else f"{tag}.{label}"
            if name not in taken:
                fields.append((name, value))
                taken.add(name)
    if text:
        fields.append(("text", text))
    named = (v for n, v in fields if n.rpartition(":")[2].casefold() in _XML_KEY_NAMES)
    key = next(named, attrs[0][1] if attrs else next((v for _, v, _ in leaves if v), ""))
    return fields, key


def _xml_walk(text: str) -> _XmlWalk | None:
    """The walk over ``text`` when it reads as an XML document: after blanks it starts with ``<``, it holds no
    entity declaration and it parses (to its end, or up to an unclosed end); else None."""
    lead = _XML_LEAD.match(text)
    start = lead.end() if lead else 0
    if not text.startswith("<", start):
        return None
    try:
        walk = _XmlWalk(text.count("\n", 0, start))
    except ImportError:  # no expat in this interpreter: no XML records
        return None
    return walk if walk.feed(text[start:] if start else text) else None


def looks_xml(sample: list[str]) -> float:
    """1.0 when the sample parses as XML (an unclosed end is fine: a sample is a head) and some element
    repeats 3+ times at the same depth with attributes or leaf children, or two elements have them (sections);
    else 0 (HTML, an error, an entity)."""
    walk = _xml_walk("\n".join(sample))
    return 1.0 if walk is not None and (walk.records() is not None or walk.sections()) else 0.0


def parse_xml(lines: list[str]) -> tuple[list[Raw], list[str]]:
    """A record per element of the most common (tag, depth) with attributes or leaf children, in document
    order, spanning the element's lines (see :func:`_xml_fields`); none when the text does not parse. A record
    that shares a line with another has its own text, rebuilt from its fields, so a lookup shows that element."""
    walk = _xml_walk("\n".join(lines))
    found = walk.records() if walk is not None else None
    if walk is not None and found is None:
        return _sections(walk, lines)
    if walk is None or found is None:
        return [], []
    tag, elements = found
    last = max(len(lines) - 1, 0)
    out: list[Raw] = []
    names: dict[str, None] = {}
    parents = len({e[5][1] for e in elements}) > 1  # spread over named parents: each record names its own
    keying = _keying(elements)
    for k, (a, b, attrs, leaves, text, up) in enumerate(elements):
        fields, key = _xml_fields(attrs, leaves, text)
        key = next((v for n, v in [*attrs, *((t, v) for t, v, _ in leaves)] if n == keying), key) if keying else key
        if parents and up[1] and all(n != up[0] for n, _ in fields):
            fields.append(up)
        shared = (k > 0 and elements[k - 1][1] == a) or (k + 1 < len(elements) and elements[k + 1][0] == b)
        first, final = min(a - 1 + walk.offset, last), min(b - 1 + walk.offset, last)
        names.update(dict.fromkeys(n for n, _ in fields))
        out.append((first, max(first, final), fields, key, _xml_show(tag, fields) if shared else None))
    held = sum(len(e[2]) + len(e[3]) for e in elements)  # a settings element holding more than the records do
    for name, (a, b, attrs, leaves, text, up) in walk.settings(tag, max(held, _XML_SETTINGS)):  # a POM's properties
        fields, _ = _xml_fields(attrs, leaves, text)
        fields += [("block", up[0])] if up[0] and all(n != "block" for n, _ in fields) else []
        first, final = min(a - 1 + walk.offset, last), min(b - 1 + walk.offset, last)
        names.update(dict.fromkeys(n for n, _ in fields))
        out.append((first, max(first, final), fields, name, None))
    return sorted(out, key=lambda raw: raw[0]), list(names)


def _keying(elements: list[_XmlItem]) -> str | None:
    """The attribute that tells the records apart where none is named as a key and the first repeats
    (``<release type="stable" version="0.16.1" date="...">``: version, not type), if one does; of elements
    with no attributes, the leaf that does where the first leaf's values repeat (a POM's dependencies:
    ``artifactId``, not ``groupId``)."""
    first = [e[2] for e in elements]
    if not any(first):  # leaves only: a leaf's values that tell them apart where the first one's repeat
        first = [[(tag, v) for tag, v, _ in e[3] if v] for e in elements]  # (groupId, then artifactId)
        named = any(n.casefold() in _XML_KEY_NAMES for pairs in first for n, _ in pairs)
        if named or not first[0] or len({pairs[0][1] for pairs in first if pairs}) == len(first):
            return None
        return next((n for n, _ in first[0][1:] if _all_distinct(n, first)), None)
    if any(n.rpartition(":")[2].casefold() in _XML_KEY_NAMES for attrs in first for n, _ in attrs) or not first[0]:
        return None
    if len({attrs[0][1] for attrs in first if attrs}) * 2 > len(first):
        return None  # the first attribute keys them already
    return next((n for n, _ in first[0][1:] if _all_distinct(n, first)), None)


def _all_distinct(name: str, items: list[list[tuple[str, str]]]) -> bool:
    values = [next((v for n, v in pairs if n == name), None) for pairs in items]
    return None not in values and len(set(values)) == len(values)


def _sections(walk: _XmlWalk, lines: list[str]) -> tuple[list[Raw], list[str]]:
    """The records of a document no element of which repeats: one per element with attributes or leaf children,
    keyed by its tag (``properties``, ``parent``), the enclosing element's tag as its ``block``."""
    last = max(len(lines) - 1, 0)
    out: list[Raw] = []
    names: dict[str, None] = {}
    found = walk.sections()
    inner = {(item[5][0], tag) for tag, item in found}  # (parent tag, child tag): a child is its own record
    for tag, (a, b, attrs, leaves, text, up) in found:
        fields, _ = _xml_fields(attrs, leaves, text)
        fields = [(n, v) for n, v in fields if (tag, n.partition(".")[0]) not in inner]  # not parent.child again
        if up[0] and all(n != "block" for n, _ in fields):
            fields.append(("block", up[0]))
        first, final = min(a - 1 + walk.offset, last), min(b - 1 + walk.offset, last)
        names.update(dict.fromkeys(n for n, _ in fields))
        out.append((first, max(first, final), fields, tag, None))
    return out, list(names)


def _xml_show(tag: str, fields: list[tuple[str, str]]) -> str:
    """A one-line ``<tag name="value" ...>`` form of a record's fields."""
    return f"<{tag} " + " ".join(f'{n}="{v}"' for n, v in fields) + ">"
