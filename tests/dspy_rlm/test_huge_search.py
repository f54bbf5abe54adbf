"""Searching a huge text: matches found through the lowered text (``str.find`` of the lead, then the regex) are
exactly the regex pass's, and a huge text's records holding a word are computed once per word."""

from __future__ import annotations

import random
import re

import pytest

from dspy_rlm.library import lookup, search, structure, superlatives, tail, textkit


def _text(n: int, seed: int) -> str:
    rng = random.Random(seed)
    vocab = "ERROR error Errors erroring INC-4821 inc-4821 calm-island Calm_Island job Jobs x-error ß Straße STRASSE"
    vocab = [*vocab.split(), "naïve", "NAÏVE", "port", "80/tcp", "id:42", "_error_"]
    lines = [" ".join(rng.choice(vocab) for _ in range(rng.randint(1, 6))) for _ in range(n)]
    return "\n".join(lines)


@pytest.mark.parametrize("word", ["error", "ERROR", "INC-4821", "calm island", "job", "strasse", "naïve", "80/tcp",
                                  "id:42", "errors job", "x"])  # fmt: skip
def test_the_lowered_search_finds_what_the_regex_pass_finds(monkeypatch, word):
    text = _text(3000, hash(word) % 1000)
    monkeypatch.setattr(textkit, "LOWERED_CHARS", 10**12)
    expected = [(line, m.span()) for line, m in structure.line_matches(word, text, 100)]
    monkeypatch.setattr(textkit, "LOWERED_CHARS", 0)
    got = [(line, m.span()) for line, m in structure.line_matches(word, text, 100)]
    assert got == expected and (expected or word == "x")


def test_a_text_whose_lower_case_is_longer_is_searched_by_the_regex(monkeypatch):
    monkeypatch.setattr(textkit, "LOWERED_CHARS", 0)
    text = "İstanbul error\nok\nERROR here"  # "İ".lower() is two characters: offsets would shift
    assert structure.match_lines("error", text) == [1, 3]


def test_a_huge_texts_records_holding_a_word_are_found_once(monkeypatch):
    monkeypatch.setattr(structure, "MAX_PARSE_CHARS", 20_000)
    text = "\n".join(f"host-{i}\t{i % 7}\tonline" for i in range(5000)) + "\nhost-x\t3\toffline"
    calls = []
    find = lookup._find
    monkeypatch.setattr(lookup, "_find", lambda *a: calls.append(a[2]) or find(*a))
    first = lookup.record_of(text, "host-x")
    assert lookup.field_of(text, "host-x", "col3") == "offline" and superlatives.key_of(text, "offline") == "host-x"
    assert first.key == "host-x" and calls.count("host-x") == 1
    assert tail.remembered(structure.detect(text), "host-x", list) == [first]


@pytest.mark.parametrize("pattern", ["error", "ERROR", "inc-4821", "Calm_Island", "ß", "naïve job", "x"])
def test_a_case_blind_search_of_a_huge_text_finds_what_the_regex_finds(monkeypatch, pattern):
    text = _text(3000, 7)
    monkeypatch.setattr(textkit, "LOWERED_CHARS", 10**12)
    expected = [(h["line"], h["offset"]) for h in search.search(text, pattern, ignore_case=True, max_results=10**6)]
    monkeypatch.setattr(textkit, "LOWERED_CHARS", 0)
    got = [(h["line"], h["offset"]) for h in search.search(text, pattern, ignore_case=True, max_results=10**6)]
    assert got == expected and expected


def test_a_lead_whose_lower_case_is_longer_is_searched_by_the_regex(monkeypatch):
    monkeypatch.setattr(textkit, "LOWERED_CHARS", 0)
    text = "istanbul\nISTANBUL"  # the regex matches both; the lowered lead "i̇stanbul" is in neither
    expected = [m.span() for m in re.finditer("İstanbul", text, re.IGNORECASE)]
    assert [
        (h["offset"], h["offset"] + len(h["match"])) for h in search.search(text, "İstanbul", ignore_case=True)
    ] == (expected)
