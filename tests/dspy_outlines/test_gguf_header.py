"""A GGUF that cannot load says why: not a GGUF file, truncated, no tokenizer, or its architecture."""

from __future__ import annotations

import struct

import pytest

from dspy_outlines.models.gguf_header import GGUFError, check_gguf, describe_gguf


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def _gguf(metadata: dict[str, str]) -> bytes:
    kv = b"".join(_string(k) + struct.pack("<I", 8) + _string(v) for k, v in metadata.items())
    return b"GGUF" + struct.pack("<IQQ", 3, 0, len(metadata)) + kv


@pytest.fixture(scope="module")
def embedded():
    from dspy_outlines.models import embedded_model_path

    try:
        return embedded_model_path().read_bytes()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))


def test_the_embedded_model_passes_and_is_described(embedded, tmp_path):
    path = tmp_path / "ok.gguf"
    path.write_bytes(embedded)
    meta = check_gguf(path)["metadata"]
    assert (meta["general.architecture"], meta["tokenizer.ggml.model"]) == ("llama", "gpt2")
    assert "architecture 'llama'" in describe_gguf(path)


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda data: b"<html>404 not found</html>", "not a GGUF file"),
        (lambda data: data[:5000], "truncated: its header ends early"),
        (lambda data: data[: len(data) // 2], "truncated: its tensors need"),
        (lambda data: _gguf({"general.architecture": "llama"}), "has no tokenizer"),
    ],
)
def test_a_bad_file_says_why(embedded, tmp_path, make, says):
    path = tmp_path / "bad.gguf"
    path.write_bytes(make(embedded))
    with pytest.raises(GGUFError, match=says):
        check_gguf(path)
    assert says in describe_gguf(path)


def test_llamacpp_engine_names_the_problem_instead_of_failed_to_load(embedded, tmp_path):
    from dspy_outlines.engines import llamacpp_installed

    if not llamacpp_installed():
        pytest.skip("llama-cpp-python is not installed")
    from dspy_outlines import OutlinesLM

    path = tmp_path / "cut.gguf"
    path.write_bytes(embedded[: len(embedded) // 2])
    with pytest.raises(GGUFError, match=r"llama\.cpp could not load .* is truncated"):
        OutlinesLM(path, engine="llamacpp")
    unknown = tmp_path / "other.gguf"
    unknown.write_bytes(_gguf({"general.architecture": "mamba9", "tokenizer.ggml.model": "gpt2"}))
    with pytest.raises(GGUFError, match="architecture 'mamba9'"):
        OutlinesLM(unknown, engine="llamacpp")
