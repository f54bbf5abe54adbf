import pytest

from dspy_rlm.context import ExternalizedContext, SizeConfig, VarKind, size_in_bytes


def test_summaries_have_name_type_size_count_and_preview():
    ctx = ExternalizedContext.from_inputs({"docs": {"a/x.md": "# Title\nbody", "b/y.py": "print()"},
                                           "messages": [{"role": "user", "content": "hi"}], "query": "q?"})
    text = ctx.variable_summaries()
    assert "`docs`: dict (files), 31 bytes, 2 items" in text
    assert "`messages`: list (conversation)" in text and "value: 'q?'" in text
    assert ctx.variables["docs"].kind is VarKind.FILES


@pytest.mark.parametrize("size_mb", [1, 100, 1024])
def test_prompt_block_is_bounded_for_any_size(size_mb):
    big = "z" * (size_mb * 1024 * 1024) if size_mb < 1024 else None
    inputs = {f"v{i}": (big or "y" * 1_000_000) for i in range(10)}
    text = ExternalizedContext.from_inputs(inputs).variable_summaries()
    assert len(text) <= 6_100


def test_unicode_size_is_utf8_bytes():
    assert size_in_bytes("é" * 10) == 20 and size_in_bytes(["ab", {"k": "é"}]) == 5


def test_size_warnings_and_thresholds_are_configurable():
    cfg = SizeConfig(warn_threshold=10, chunk_threshold=100, max_total_size=150)
    ctx = ExternalizedContext.from_inputs({"small": "x" * 5, "mid": "x" * 50, "big": "x" * 120}, config=cfg)
    kinds = {(w.kind, w.name) for w in ctx.check_size_limits()}
    assert kinds == {("LargeVariable", "mid"), ("RequiresChunking", "big"), ("TotalSizeExceeded", None)}
    big = [w for w in ctx.check_size_limits() if w.name == "big"][0]
    assert big.suggested_chunks == 13


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
