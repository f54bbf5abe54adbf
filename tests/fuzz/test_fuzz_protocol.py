"""Fuzz the response protocol parser (dspy_rlm.protocol.parse_response): it takes any text a model can send.

Properties: it never raises; what it returns is well-formed; a fenced block, ``FINAL(...)`` and
``FINAL_VAR(name)`` written among random prose come back exactly; the FINAL scan agrees with the regex it
replaced; text that used to take quadratic time (or raise) is parsed at once.
"""

from __future__ import annotations

import ast
import re
import time

from hypothesis import example, given, settings
from hypothesis import strategies as st

from dspy_rlm.protocol import ParsedResponse, _final_span, parse_response
from tests.fuzz.conftest import count, examples

TARGET = "protocol.parse_response"
# Pieces a model's answer is made of, so random joins hit the parser's edges far more often than random text.
TOKENS = [
    "```",
    "```python\n",
    "```repl\n",
    "```bash\n",
    "```py",
    "\n",
    " ",
    "\t",
    "FINAL(",
    "FINAL_VAR(",
    ")",
    "'",
    '"',
    "x",
    "answer",
    "print(1)",
    "SUBMIT(answer='a')",
    "(",
    "[",
    "{",
    "}",
    "é",
    "名",
    "\u2028",
    "\x00",
    "\r\n",
    "#",
    "FINAL",
    "\\",
]
prose_like = st.lists(st.sampled_from(TOKENS), max_size=40).map("".join)
any_text = st.one_of(
    st.text(), st.text(st.characters(codec="utf-8")), prose_like, st.text(st.characters(blacklist_categories=()))
)  # lone surrogates too
# Prose that never compiles as Python (two bare words), so a marker in it is read as a marker.
prose = st.text(st.characters(blacklist_characters="`\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), max_size=40).map(
    lambda s: "I think " + " ".join(s.split()) + " ok"
)
identifier = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)
code_line = st.text(st.characters(blacklist_characters="`\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), max_size=30)

# The FINAL regex before the linear scan replaced it (quadratic on many unclosed FINAL( lines).
OLD_FINAL = re.compile(r"^\s*FINAL\((.*)\)\s*$", re.MULTILINE | re.DOTALL)


def _well_formed(p: ParsedResponse) -> None:
    assert isinstance(p, ParsedResponse)
    assert all(isinstance(b, str) and b.strip() for b in p.code_blocks)
    assert isinstance(p.thinking, str)
    assert p.final_var is None or p.final_var.isidentifier()
    assert p.final_var is None or p.final_text is None
    assert all(isinstance(lang, str) for lang in p.rejected_langs)


@given(any_text)
@example("Done.\nFINAL({[1]: 2})")  # ast.literal_eval raised TypeError (an unhashable key)
@example("ok then\nFINAL({[]})")
@example("x\n" + "-" * 200_000 + "1")  # compile() raised MemoryError (parser stack overflow)
@example("Done.\nFINAL(" + "-" * 200_000 + "1)")  # ast.literal_eval raised MemoryError
@example("\ud800 FINAL(1)")
@example(None)
def test_never_raises_and_is_well_formed(text):
    count(TARGET)
    _well_formed(parse_response(text))


@given(prose, st.lists(code_line, min_size=1, max_size=8), st.sampled_from(["python", "py", "repl", ""]), prose)
def test_fenced_block_comes_back(before, lines, lang, after):
    count(TARGET)
    body = "\n".join(lines)
    p = parse_response(f"{before}\n```{lang}\n{body}\n```\n{after}")
    expected = body.strip("\n").rstrip()
    assert p.code_blocks == ([expected] if expected.strip() else [])


@given(prose, st.text())
@example("I think ok", "```")
@example("I think ok", "a)\nb")
def test_final_text_comes_back(before, value):
    count(TARGET)
    p = parse_response(f"{before}\nFINAL({value!r})")
    assert p.final_text == value and p.final_var is None
    assert p.thinking == before


@given(prose, identifier, st.sampled_from(["{}", "'{}'", '"{}"', " {} "]))
def test_final_var_comes_back(before, name, form):
    count(TARGET)
    p = parse_response(f"{before}\nFINAL_VAR({form.format(name)})")
    assert p.final_var == name and p.final_text is None


@given(
    st.lists(st.sampled_from(["FINAL(", ")", "\n", " ", "x", "'", "\t", "FINAL", "(", ") x"]), max_size=30).map("".join)
)
def test_final_scan_agrees_with_the_old_regex(text):
    count(TARGET)
    old, new = OLD_FINAL.search(text), _final_span(text)
    assert (old is None) == (new is None)
    if old is not None:
        assert new[1] == old.group(1)
        assert text[new[0] : new[2]].strip() == old.group(0).strip()


def test_unparseable_final_values_stay_text():
    """Regression: FINAL({[1]: 2}) raised TypeError out of ast.literal_eval; now the value is kept as text."""
    assert parse_response("Done.\nFINAL({[1]: 2})").final_text == "{[1]: 2}"
    deep = "-" * 200_000 + "1"
    assert parse_response(f"Done.\nFINAL({deep})").final_text == deep
    assert parse_response("x\n" + deep).code_blocks == []  # too deep to compile: prose, not code


# Inputs that took quadratic time before the fix (measured on the 2-core dev machine): the parse must finish
# at once. The bound is loose (100x the time they take now) and the old code took 10-35 s on them.
QUADRATIC_BEFORE = {
    "16,000 unclosed FINAL( lines (35 s before)": "thinking\n" + "FINAL(abc\n" * 16_000,
    "40,000 blank lines (14 s before)": "x y\n" + "\n" * 40_000 + "z w",
    "30,000 fences on one line (10 s before)": "```" * 30_000,
}


def test_pathological_inputs_parse_in_linear_time():
    for name, text in QUADRATIC_BEFORE.items():
        t0 = time.perf_counter()
        parse_response(text)
        assert time.perf_counter() - t0 < 2.0, name


@settings(max_examples=examples(25))
@given(
    st.sampled_from(["```", "FINAL(", "\n", "FINAL_VAR(", ")\n", "```python\n", "a" * 100, "FINAL(x\n"]),
    st.integers(1_000, 50_000),
)
def test_huge_repetitive_inputs(piece, n):
    count(TARGET)
    text = "Let me see\n" + piece * n
    t0 = time.perf_counter()
    _well_formed(parse_response(text))
    assert time.perf_counter() - t0 < 5.0


def test_literal_eval_error_types_are_the_ones_caught():
    """The exceptions _unquote catches are the ones ast.literal_eval raises on the inputs above."""
    for text, error in [
        ("{[1]: 2}", TypeError),
        ("-" * 200_000 + "1", (MemoryError, RecursionError)),
        ("foo(", SyntaxError),
        ("a + b", ValueError),
    ]:
        try:
            ast.literal_eval(text)
        except error:
            continue
        raise AssertionError(f"ast.literal_eval({text[:20]!r}) did not raise {error}")
