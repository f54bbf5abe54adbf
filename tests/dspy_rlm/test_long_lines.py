"""Structure detection stays linear on long lines: four patterns that backtracked quadratically (seconds on one
line of 16,000 characters, minutes on 200,000) are now string checks or patterns tried only where a word
begins, and they accept exactly what the old patterns did (checked here on seeded random strings)."""

from __future__ import annotations

import random
import re
import subprocess
import sys

from dspy_rlm.library import cssformat, directiveformat, jsonformats, mdformats

OLD_CSS_OPEN = re.compile(r"^\s*[^{};:]*[^{};\s][^{};]*\{\s*$|^\s*@[\w-]+[^{};]*\{\s*$")
OLD_DIRECTIVE = re.compile(r"[#:.@%!\w-]*[A-Za-z][\w:.-]*( \S+){0,2}")  # two more words since stop 92 ("hi def link")
OLD_SEPARATOR = re.compile(r"\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
OLD_LOGFMT = re.compile(r"""([A-Za-z_][\w.-]*)=("(?:[^"\\]|\\.)*"|'[^']*'|[^\s"']*)""")
OLD_OP = re.compile(
    r"""([A-Za-z_][\w.-]*(?:\{[^{}\s]*\})?)\s*(?:==|!=|\+=|-=|:=|=)\s*("(?:[^"\\]|\\.)*"|[^,\s"]*)\s*(?:,\s*|$)"""
)


def _strings(alphabet: str, n: int = 20_000, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(n)]


def test_the_rewritten_checks_accept_what_the_old_patterns_did():
    for s in _strings(" \t{};:@a-|\x1f\xa0"):
        assert cssformat._opens_rule(s) == bool(OLD_CSS_OPEN.match(s)), s
        old, new = OLD_SEPARATOR.match(s), mdformats.MD_SEPARATOR.match(s)
        assert bool(old) == bool(new) and (not old or old.end() == new.end()), s
    for s in _strings("aZ1_#:.@%!- \t\xe9\u0130\u212a\xa0"):
        assert directiveformat._directive_word(s) == bool(OLD_DIRECTIVE.fullmatch(s)), s
    for s in _strings("ab_Z9.-\xe9={}\"'\\ ,!+:\t"):
        assert [(m.span(1), m.group(2), m.group(3)) for m in jsonformats._LOGFMT_PAIR.finditer(s)] == [
            (m.span(), m.group(1), m.group(2)) for m in OLD_LOGFMT.finditer(s)
        ], s
        assert [(m.span(1), m.group(2), m.group(3)) for m in jsonformats._OP_PAIR.finditer(s)] == [
            (m.span(), m.group(1), m.group(2)) for m in OLD_OP.finditer(s)
        ], s


def test_examples_of_each_check():
    assert cssformat._opens_rule("a:hover, .nav > li {") and cssformat._opens_rule("@media (max-width: 600px) {")
    assert cssformat._one_line_rule(".hl .k { color: #204a87; font-weight: bold }")
    assert not cssformat._one_line_rule("color: red; }") and not cssformat._one_line_rule("a { b }")
    assert not cssformat._opens_rule("  {") and not cssformat._opens_rule("color: red; {")
    assert directiveformat._directive_word("#define") and directiveformat._directive_word("::msgcat::mcset de")
    assert not directiveformat._directive_word("1.2") and not directiveformat._directive_word("#define  x")
    assert jsonformats._pairs('level=info msg="started" port=8080') == [
        ("level", "info"), ("msg", "started"), ("port", "8080")
    ]  # fmt: skip


def test_detection_on_lines_of_200000_characters_ends_in_seconds():
    """Quadratic backtracking took 4-5 s on 16,000 characters, so about 12 minutes here; linear takes well
    under a second. The generous limit only catches a hang."""
    code = (
        "from dspy_rlm.library.structure import detect\n"
        "for unit in (' ', 'a', 'a1', 'a:', 'a.', 'a-', '-', '\\t'):\n"
        "    line = unit * (200_000 // len(unit))\n"
        "    detect(line + '\\x00'); detect(line + '\\n' + line + ' .')\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
