"""Mends from the review of probe 67's changes, on invented data: a one-line CSS rule's selector may hold a colon (a
pseudo-class, ``a:hover``; a head ending in ``:`` or ``=`` still labels an object, no selector), and the noun a
question asks after "which" may follow an adjective ("in which *major version*": "removed in version 4.0.0"). Each
test fails on the code before its change (the old check took ``const theme = { color: red }`` for a rule)."""

from __future__ import annotations

from dspy_rlm.library import structure as st
from dspy_rlm.library.cssformat import _one_line_rule
from tests.dspy_rlm.scripted import ask_scripted

_STATES = [("a", "#101010"), ("a:hover", "#202020"), ("a:visited", "#303030"), ("li::before", "#404040")]
SHEET = "".join(f"{sel} {{ color: {v} }} /* state {k} */\n" for k, (sel, v) in enumerate(_STATES)) + "".join(
    f".tone{k}:focus {{ color: #00000{k}; outline-color: #00000{k} }}\n" for k in range(4)
)


def test_a_one_line_rule_may_select_a_pseudo_class():
    s = st.detect(SHEET)
    assert s.kind == "css"
    assert [r.key for r in s.records[:4]] == ["a", "a:hover", "a:visited", "li::before"]
    assert s.records[1].get("color") == "#202020"
    assert _one_line_rule(":root { --tone: #fff }")


def test_an_object_labelled_on_its_line_is_no_rule():
    assert not _one_line_rule('"theme": { "color": "red" }')
    assert not _one_line_rule("const theme = { color: red }")


def test_the_noun_asked_may_follow_an_adjective():
    text = "# Release Note\n\nAll deprecated features listed below will be removed in version 4.0.0. Until then, "
    text += "a warning is shown.\n"
    text += "".join(f"\n- feature {k} is deprecated in favour of a better one" for k in range(6)) + "\n"
    q = "According to the release note, in which major version will the deprecated features be removed?"
    assert ask_scripted(q, text) == ("4.0.0", "submitted")
