"""The llama.cpp engine with a LoRA adapter from ``lm.finetune`` (:mod:`dspy_outlines.engines.llamacpp_adapter`).

The GGUF forms (a GGUF LoRA adapter, a fused model) hold the adapter's function under llama.cpp's names and
row order; another model's, missing and damaged adapters and an unwritable cache are refused with the fix,
leaving nothing half-written; the prefix states on disk are never shared across adapters. The real training
run that both engines load is in test_finetune.py.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest

from dspy_outlines.engines.llamacpp_adapter import AdapterCacheError, prepare_adapter
from dspy_outlines.lora_files import fingerprint_of
from dspy_outlines.models import embedded_model_path
from dspy_outlines.models.gguf import _unpermute_rows
from dspy_outlines.models.gguf_write import dequantize, read_layout

HIDDEN, KV_ROWS, RANK, SCALE = 576, 192, 8, 20.0  # SmolLM2-135M: 9 query heads, 3 key/value heads of 64
HEADS = {"attn_q": 9, "attn_k": 3, "attn_v": None}
PARTS = {"q_proj": ("attn_q", HIDDEN), "k_proj": ("attn_k", KV_ROWS), "v_proj": ("attn_v", KV_ROWS)}


def write_safetensors(path: Path, arrays: dict[str, np.ndarray]) -> None:
    header, blobs, offset = {}, [], 0
    for name, value in arrays.items():
        data = np.ascontiguousarray(value, np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(value.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    head = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(head)) + head + b"".join(blobs))


def make_adapter(directory: Path, seed: int = 0, layers: tuple[int, ...] = (28, 29)) -> dict[str, np.ndarray]:
    """An adapter directory as ``lm.finetune`` writes it, for the embedded model, with random q/k/v weights."""
    rng = np.random.default_rng(seed)
    arrays = {}
    for layer in layers:
        for part, (_, rows) in PARTS.items():
            arrays[f"model.layers.{layer}.self_attn.{part}.lora_a"] = rng.normal(0, 0.05, (HIDDEN, RANK))
            arrays[f"model.layers.{layer}.self_attn.{part}.lora_b"] = rng.normal(0, 0.05, (RANK, rows))
    directory.mkdir(parents=True, exist_ok=True)
    write_safetensors(directory / "adapters.safetensors", arrays)
    config = {
        "fine_tune_type": "lora",
        "lora_parameters": {"rank": RANK, "scale": SCALE, "dropout": 0.0},
        "base_model": str(embedded_model_path()),
        "base_model_fingerprint": fingerprint_of(embedded_model_path()),
    }
    (directory / "adapter_config.json").write_text(json.dumps(config))
    return arrays


def tensor(path: Path, name: str) -> np.ndarray:
    layout = read_layout(path)
    (info,) = [t for t in layout.tensors if t.name == name]
    with path.open("rb") as fh:
        fh.seek(layout.data_start + info.offset)
        return dequantize(fh.read(info.nbytes), info)


def expected_delta(arrays: dict, layer: int, part: str) -> np.ndarray:
    """What mlx-lm adds to the weight (rows = outputs, in mlx-lm's order): ``scale * (A @ B)^T``."""
    prefix = f"model.layers.{layer}.self_attn.{part}"
    return SCALE * (arrays[prefix + ".lora_a"] @ arrays[prefix + ".lora_b"]).T


def in_mlx_order(rows: np.ndarray, gguf_part: str) -> np.ndarray:
    heads = HEADS[gguf_part]
    return rows if heads is None else _unpermute_rows(rows, heads)


def test_the_gguf_lora_holds_the_adapter_in_llamacpp_layout(tmp_path):
    arrays = make_adapter(tmp_path / "adapter")
    prepared = prepare_adapter(tmp_path / "adapter", embedded_model_path(), "lora", tmp_path / "cache")
    assert prepared.model_path == embedded_model_path() and prepared.lora_path is not None
    layout = read_layout(prepared.lora_path)
    assert layout.metadata["general.type"] == "adapter" and layout.metadata["adapter.type"] == "lora"
    assert layout.metadata["general.architecture"] == "llama"
    assert len(layout.tensors) == len(arrays)
    alpha = layout.metadata["adapter.lora.alpha"]
    for part, (gguf_part, rows) in PARTS.items():
        name = f"blk.28.{gguf_part}.weight"
        a, b = tensor(prepared.lora_path, name + ".lora_a"), tensor(prepared.lora_path, name + ".lora_b")
        assert a.shape == (RANK, HIDDEN) and b.shape == (rows, RANK)  # GGUF dims (576, 8) and (8, rows)
        delta = (alpha / RANK) * in_mlx_order(b, gguf_part) @ a  # llama.cpp: scale = alpha / rank
        np.testing.assert_allclose(delta, expected_delta(arrays, 28, part), rtol=1e-5, atol=1e-6)


def test_the_fused_gguf_holds_the_merge_in_llamacpp_row_order_and_the_rest_unchanged(tmp_path):
    arrays = make_adapter(tmp_path / "adapter")
    base = embedded_model_path()
    prepared = prepare_adapter(tmp_path / "adapter", base, "fused", tmp_path / "cache")
    assert prepared.lora_path is None and prepared.model_path.parent == tmp_path / "cache"
    for part, (gguf_part, _) in PARTS.items():
        name = f"blk.29.{gguf_part}.weight"
        merged = tensor(prepared.model_path, name) - tensor(base, name)
        expected = expected_delta(arrays, 29, part)
        assert np.abs(in_mlx_order(merged, gguf_part) - expected).max() < 5e-3 < np.abs(expected).max() / 10
        if HEADS[gguf_part] is not None:  # the check can fail: the rows left in llama.cpp's order do not match
            assert np.abs(merged - expected).max() > 0.05
    fused, original = read_layout(prepared.model_path), read_layout(base)
    assert fused.kv_bytes == original.kv_bytes and [t.name for t in fused.tensors] == [t.name for t in original.tensors]
    np.testing.assert_array_equal(
        tensor(prepared.model_path, "blk.27.attn_q.weight"), tensor(base, "blk.27.attn_q.weight")
    )


def test_an_adapter_for_another_base_model_is_refused_before_anything_loads(tmp_path):
    from dspy_outlines.engines.llamacpp import LlamaCppEngine

    make_adapter(tmp_path / "adapter")
    config = json.loads((tmp_path / "adapter" / "adapter_config.json").read_text())
    config["base_model_fingerprint"], config["base_model"] = "0" * 24, "/models/another.gguf"
    (tmp_path / "adapter" / "adapter_config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match=r"trained for another base model .*load it on the model it names"):
        LlamaCppEngine(None, adapter=tmp_path / "adapter", adapter_cache=tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        ("no_directory", r"is no LoRA adapter directory .*lm\.finetune"),
        ("no_weights", r"has no adapters\.safetensors: the adapter is incomplete; train it again"),
        ("truncated_weights", r"not a readable safetensors file .*damaged; train it again"),
        ("foreign_weights", r"cannot map to a llama\.cpp weight"),
        ("layer_the_model_lacks", r"blk\.31\.attn_\w\.weight, which the model .* does not have"),
    ],
)
def test_a_missing_or_damaged_adapter_is_refused_with_the_fix_and_nothing_is_written(tmp_path, damage, says):
    adapter, cache = tmp_path / "adapter", tmp_path / "cache"
    weights = adapter / "adapters.safetensors"
    if damage != "no_directory":
        make_adapter(adapter, layers=(31,) if damage == "layer_the_model_lacks" else (28,))
    if damage == "no_weights":
        weights.unlink()
    elif damage == "truncated_weights":
        weights.write_bytes(weights.read_bytes()[:5000])
    elif damage == "foreign_weights":
        write_safetensors(weights, {"model.embed_tokens.lora_a": np.zeros((4, 4))})
    for mode in ("lora", "fused"):
        with pytest.raises(ValueError, match=says):
            prepare_adapter(adapter, embedded_model_path(), mode, cache)
    assert not cache.exists() or list(cache.iterdir()) == []  # a failed write leaves no partial file


def test_an_unwritable_cache_is_refused_with_the_fix_and_nothing_is_written(tmp_path):
    make_adapter(tmp_path / "adapter")
    if os.geteuid() == 0:  # root writes through any mode bits; sysfs takes no files, even from root
        cache = Path("/sys")
    else:
        cache = tmp_path / "cache"
        cache.mkdir()
        cache.chmod(0o555)
    before = sorted(os.listdir(cache))
    for mode in ("lora", "fused"):
        with pytest.raises(AdapterCacheError, match=r"cannot write the llama\.cpp form .*'adapter_cache'"):
            prepare_adapter(tmp_path / "adapter", embedded_model_path(), mode, cache)
    assert sorted(os.listdir(cache)) == before


def test_the_cache_is_written_once_and_keyed_by_the_adapter_and_mode(tmp_path):
    make_adapter(tmp_path / "one", seed=1)
    make_adapter(tmp_path / "two", seed=2)
    cache = tmp_path / "cache"
    first = prepare_adapter(tmp_path / "one", embedded_model_path(), "lora", cache)
    stamp = first.lora_path.stat().st_mtime_ns
    again = prepare_adapter(tmp_path / "one", embedded_model_path(), "lora", cache)
    assert again == first and first.lora_path.stat().st_mtime_ns == stamp  # read back, not written again
    other = prepare_adapter(tmp_path / "two", embedded_model_path(), "lora", cache)
    assert other.key != first.key and other.lora_path != first.lora_path
    with pytest.raises(ValueError, match=r"adapter_mode must be one of \['lora', 'fused'\]"):
        prepare_adapter(tmp_path / "one", embedded_model_path(), "merged", cache)


def test_the_cache_keeps_the_most_recently_used_files_within_its_budget(tmp_path):
    for name in ("a", "b", "c"):
        make_adapter(tmp_path / name, seed=ord(name))
    cache = tmp_path / "cache"
    stranger = cache / "notes.gguf"
    a = prepare_adapter(tmp_path / "a", embedded_model_path(), "lora", cache).lora_path
    stranger.write_bytes(b"x" * 4096)
    size_mb = a.stat().st_size / 2**20
    os.environ["DSPY_OUTLINES_ADAPTER_CACHE_MB"] = str(2.5 * size_mb)  # room for two adapters
    try:
        b = prepare_adapter(tmp_path / "b", embedded_model_path(), "lora", cache).lora_path
        os.utime(b, ns=(1, 1))  # b long unused; a is used again now
        os.utime(a, ns=(2, 2))
        assert prepare_adapter(tmp_path / "a", embedded_model_path(), "lora", cache).lora_path == a
        c = prepare_adapter(tmp_path / "c", embedded_model_path(), "lora", cache).lora_path
    finally:
        del os.environ["DSPY_OUTLINES_ADAPTER_CACHE_MB"]
    assert a.is_file() and c.is_file() and not b.exists()  # the least recently used went
    assert stranger.is_file()  # a file of another name is never touched


# -- the real embedded model -----------------------------------------------------------------------

SYSTEM = " ".join(f"Rule {i}: answer in short plain words and never use lists." for i in range(16))
QUESTIONS = ["Name a fruit.", "Name a colour.", "Name a city."]


def _ask_all(engine) -> list:
    from dspy_outlines.engines import GenerationRequest

    out = []
    for question in QUESTIONS:
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
        out.append(engine.generate(engine.encode(engine.render_prompt(messages)), GenerationRequest(max_tokens=8)))
    return out


@pytest.mark.real_model
def test_stored_prefix_states_are_never_shared_across_adapters(tmp_path):
    from tests.dspy_outlines.conftest import _llamacpp_skip_reason

    if reason := _llamacpp_skip_reason():
        pytest.skip(reason)
    from dspy_outlines.engines.llamacpp import LlamaCppEngine

    make_adapter(tmp_path / "one", seed=1)
    make_adapter(tmp_path / "two", seed=2)
    store, cache = tmp_path / "store", tmp_path / "cache"

    def engine(adapter: str | None, mode: str | None = None) -> LlamaCppEngine:
        extra = {} if adapter is None else {"adapter": tmp_path / adapter, "adapter_mode": mode}
        return LlamaCppEngine(None, persist_prefix=store, adapter_cache=cache, **extra)

    writer = engine("one")
    _ask_all(writer)
    assert writer.stats()["stored_states"] == 1
    for other in (engine("two"), engine(None), engine("one", "lora")):  # another adapter, none, another form
        answers = _ask_all(other)
        assert other.stats()["loaded_states"] == 0 and answers[0].cached_tokens == 0
    reader = engine("one")  # the same adapter in a new engine: the stored state is read back
    answers = _ask_all(reader)
    assert reader.stats()["loaded_states"] == 1 and answers[0].cached_tokens > 100
