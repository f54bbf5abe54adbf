import pytest

from dspy_rlm.context import (
    ExternalizedContext,
    LargeVariable,
    RequiresChunking,
    SizeConfig,
    SizeWarning,
    TotalSizeExceeded,
    VarKind,
    size_in_bytes,
)


def test_summaries_have_name_type_size_count_and_preview():
    ctx = ExternalizedContext.from_inputs(
        {
            "docs": {"a/x.md": "# Title\nbody", "b/y.py": "print()"},
            "messages": [{"role": "user", "content": "hi"}],
            "query": "q?",
        }
    )
    text = ctx.variable_summaries()
    assert "`docs`: dict (files), 31 bytes, 2 items" in text
    assert "`messages`: list (conversation)" in text and "value: 'q?'" in text
    assert ctx.variables["docs"].kind is VarKind.FILES


@pytest.mark.parametrize(
    "size, shown",
    [(1024, "1.0 KB"), (1024**2, "1.0 MB"), (100 * 1024**2, "100.0 MB"), (1024**3, "1.0 GB")],
    ids=["1KB", "1MB", "100MB", "1GB"],
)
def test_prompt_block_is_bounded_for_any_size(size, shown):
    # A context of `size` bytes (the 1 GB case holds a real 1 GiB string) beside nine 1 MB variables.
    inputs = {"context": "z" * size, **{f"v{i}": "y" * 1_000_000 for i in range(9)}}
    ctx = ExternalizedContext.from_inputs(inputs)
    text = ctx.variable_summaries()
    assert ctx.variables["context"].size_bytes == size and f"`context`: str (custom), {shown}" in text
    assert len(text) <= 6_100  # ~1,500 tokens: the README's bound is 3,000


def test_unicode_size_is_utf8_bytes():
    assert size_in_bytes("é" * 10) == 20 and size_in_bytes(["ab", {"k": "é"}]) == 5


def test_size_warnings_and_thresholds_are_configurable():
    cfg = SizeConfig(warn_threshold=10, chunk_threshold=100, max_total_size=150)
    ctx = ExternalizedContext.from_inputs({"small": "x" * 5, "mid": "x" * 50, "big": "x" * 120}, config=cfg)
    kinds = {(w.kind, w.name) for w in ctx.check_size_limits()}
    assert kinds == {("LargeVariable", "mid"), ("RequiresChunking", "big"), ("TotalSizeExceeded", None)}
    big = next(w for w in ctx.check_size_limits() if w.name == "big")
    assert big.suggested_chunks == 2  # 120 bytes // chunk_size (100: capped at chunk_threshold) + 1


def test_warnings_are_typed_classes_and_thresholds_move_them():
    inputs = {"a": "x" * 3_000, "b": "x" * 30_000}
    default = ExternalizedContext.from_inputs(inputs).check_size_limits()
    assert default == []  # 33 KB is under every default threshold
    cfg = SizeConfig(warn_threshold=2_000, chunk_threshold=20_000, max_total_size=30_000)
    warnings = {w.name: w for w in ExternalizedContext.from_inputs(inputs, config=cfg).check_size_limits()}
    assert isinstance(warnings["a"], LargeVariable) and warnings["a"].threshold == 2_000
    assert isinstance(warnings["b"], RequiresChunking) and warnings["b"].suggested_chunks == 30_000 // 2_000 + 1
    assert isinstance(warnings[None], TotalSizeExceeded) and warnings[None].size == 33_000
    assert all(isinstance(w, SizeWarning) and w.kind == type(w).__name__ and w.message for w in warnings.values())
    assert "chunk_text(b, 2000)" in warnings["b"].message


def test_requires_chunking_for_a_list_does_not_suggest_chunk_text():
    cfg = SizeConfig(warn_threshold=1_000, chunk_threshold=5_000)
    ctx = ExternalizedContext.from_inputs({"rows": ["x" * 100] * 100}, config=cfg)
    (w,) = ctx.check_size_limits()
    assert isinstance(w, RequiresChunking) and "chunk_text" not in w.message and "x[i:i+100]" in w.message


def test_auto_chunk_splits_on_natural_boundaries():
    text = "\n\n".join(f"paragraph {i} " + "word " * 30 for i in range(200))
    cfg = SizeConfig(warn_threshold=2_000, chunk_threshold=10_000, max_total_size=10**9)
    ctx = ExternalizedContext.from_inputs({"context": text, "query": "q"}, config=cfg)
    out = ctx.auto_chunk({"context": text, "query": "q"})
    chunks = out["context"]
    assert isinstance(chunks, list) and "".join(chunks) == text and out["query"] == "q"
    assert all(len(c) <= 2_000 for c in chunks)
    assert all(c.endswith("\n\n") for c in chunks[:-1])
    assert "auto-chunked" in ctx.variables["context"].summary and ctx.variables["context"].item_count == len(chunks)


CFG = SizeConfig(warn_threshold=1_000, chunk_threshold=5_000, max_total_size=10**9)


def _chunked(value, name="v", cfg=CFG, **kw):
    ctx = ExternalizedContext.from_inputs({name: value}, config=cfg, **kw)
    return ctx, ctx.auto_chunk({name: value})[name]


def test_auto_chunk_text_with_lines_only_cuts_at_line_ends():
    text = "".join(f"line {i} " + "w" * (i % 50) + "\n" for i in range(400))
    assert "\n\n" not in text and len(text) > CFG.chunk_threshold
    _ctx, chunks = _chunked(text)
    assert "".join(chunks) == text and len(chunks) > 1
    assert all(len(c) <= CFG.chunk_size for c in chunks) and all(c.endswith("\n") for c in chunks)


def test_value_exactly_at_the_threshold_is_not_chunked():
    text = "x" * CFG.chunk_threshold
    ctx, value = _chunked(text)
    assert value is text and not ctx.variables["v"].chunked
    assert [type(w) for w in ctx.check_size_limits()] == [LargeVariable]
    _, over = _chunked(text + "y")
    assert isinstance(over, list) and "".join(over) == text + "y"


def test_auto_chunk_unicode_bounds_bytes_and_joins_back_exactly():
    text = "".join(f"Zeile {i}: Grüße, 東京 🚀 naïve café\n" for i in range(300))  # ~12 KB, 1-4 bytes a char
    assert size_in_bytes(text) > len(text) > CFG.chunk_threshold
    ctx, chunks = _chunked(text)
    assert "".join(chunks) == text
    assert all(len(c.encode("utf-8")) <= CFG.chunk_size for c in chunks)
    assert len(chunks) >= size_in_bytes(text) // CFG.chunk_size
    assert "<= 1.0 KB" in ctx.variables["v"].summary  # the size actually used, not a claim


def test_chunk_size_is_warn_threshold_with_a_floor_and_summary_says_it():
    assert SizeConfig().chunk_size == 100 * 1024
    assert SizeConfig(warn_threshold=10, chunk_threshold=10_000).chunk_size == 1024  # floored
    assert SizeConfig(warn_threshold=10, chunk_threshold=100).chunk_size == 100  # never above chunk_threshold
    cfg = SizeConfig(warn_threshold=10, chunk_threshold=5_000)
    ctx, chunks = _chunked("abc " * 2_000, cfg=cfg)
    assert all(len(c) <= 1024 for c in chunks) and "each <= 1.0 KB" in ctx.variables["v"].summary


def test_auto_chunk_dict_of_files_keeps_whole_files_once():
    files = {f"src/mod{i}.py": f"# module {i}\n" + "x = 1\n" * (i * 7 % 90) for i in range(60)}
    files["big/blob.txt"] = "b" * 3_000  # one file over the chunk size: a group of its own
    ctx, groups = _chunked(files, name="files")
    assert all(isinstance(g, dict) and g for g in groups)
    keys = [k for g in groups for k in g]
    assert sorted(keys) == sorted(files) and len(keys) == len(files)
    assert {k: v for part in groups for k, v in part.items()} == files
    assert list(files) == keys  # order kept
    assert all(size_in_bytes(g) <= CFG.chunk_size for g in groups if "big/blob.txt" not in g)
    var = ctx.variables["files"]
    assert var.chunked and var.kind is VarKind.FILES and var.item_count == len(groups)
    assert "dicts of whole files" in var.summary and "for part in files" in var.summary


def test_auto_chunk_list_keeps_items_and_order():
    rows = [{"role": "user", "content": f"message {i} " + "m" * (i % 70)} for i in range(200)]
    ctx, parts = _chunked(rows, name="messages")
    assert all(isinstance(p, list) and p for p in parts) and len(parts) > 1
    assert [x for part in parts for x in part] == rows
    assert all(size_in_bytes(p) <= CFG.chunk_size for p in parts)
    assert "lists of whole items" in ctx.variables["messages"].summary


def test_chunked_variable_gets_no_requires_chunking():
    inputs = {
        "text": "para\n\n" * 2_000,
        "rows": list(range(3_000)),
        "files": {f"a/{i}.md": "t" * 40 for i in range(200)},
    }
    ctx = ExternalizedContext.from_inputs(inputs, config=CFG)
    assert {type(w) for w in ctx.check_size_limits()} == {RequiresChunking}
    out = ctx.auto_chunk(inputs)
    warnings = ctx.check_size_limits()  # the order loop.py uses: auto_chunk, then check_size_limits
    assert not any(isinstance(w, RequiresChunking) for w in warnings)
    assert all(
        isinstance(w, LargeVariable) and "auto-chunked" in w.message and "chunk_text" not in w.message for w in warnings
    )
    assert {w.name: f"{len(out[w.name]):,} chunks" in w.message for w in warnings} == dict.fromkeys(inputs, True)


def test_custom_kind_label_shows_in_summary():
    ctx = ExternalizedContext.from_inputs(
        {"x": [1, 2], "y": "t", "z": "u"}, kinds={"x": "custom:invoices", "y": VarKind.FILES, "z": "tool_outputs"}
    )
    assert ctx.variables["x"].kind is VarKind.CUSTOM and ctx.variables["x"].label == "invoices"
    assert "`x`: list (custom: invoices)" in ctx.variable_summaries()
    assert ctx.variables["y"].kind is VarKind.FILES and ctx.variables["z"].kind is VarKind.TOOL_OUTPUTS
    with pytest.raises(ValueError, match="custom:<label>"):
        ExternalizedContext.from_inputs({"x": 1}, kinds={"x": "invoices"})


def test_every_variable_header_stays_in_a_bounded_prompt():
    cfg = SizeConfig(warn_threshold=1_000, chunk_threshold=2_000)
    inputs = {f"a{i}": "word " * 50_000 for i in range(10)}
    ctx = ExternalizedContext.from_inputs(inputs, config=cfg)
    ctx.auto_chunk(inputs)
    text = ctx.variable_summaries()
    assert len(text) <= 6_100 and all(f"`a{i}`: list" in text for i in range(10))
