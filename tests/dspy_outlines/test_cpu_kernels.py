"""The CPU training kernels (``dspy_outlines.models.cpu_kernels``) compute what MLX's own operations compute:
exp to 1e-6, attention and SwiGLU and a whole llama's loss and LoRA gradient to float32 rounding; a cached
forward (generation) runs MLX's attention."""

from __future__ import annotations

import pytest

from dspy_outlines.models.blas import ensure_fast_blas

ensure_fast_blas()
mx = pytest.importorskip("mlx.core")

from dspy_outlines.models import cpu_kernels  # noqa: E402

from .tiny_llama import tiny_llama  # noqa: E402


def test_fast_exp_is_exp_to_a_millionth_and_its_gradient_is_itself():
    x = mx.linspace(-87.0, 88.0, 200_001)
    want, got = mx.exp(x), cpu_kernels.fast_exp(x)
    assert (mx.abs(got - want) / want).max().item() < 2e-6
    tiny = cpu_kernels.fast_exp(mx.array([-100.0, -1e9]))
    assert tiny.max().item() < 1.2e-38  # the smallest normal float, not garbage
    grad = mx.grad(lambda v: cpu_kernels.fast_exp(v).sum())(mx.array([-3.0, 0.0, 2.5]))
    assert mx.allclose(grad, mx.exp(mx.array([-3.0, 0.0, 2.5])), rtol=2e-6).item()


def _close(a, b, tol=2e-5):
    return (mx.abs(a - b).max() / (mx.abs(a).max() + 1e-12)).item() < tol


@pytest.mark.parametrize("length", [1, 7, 128, 129, 300])
@pytest.mark.parametrize("mask_kind", ["causal", "none", "bool", "additive_per_head", "additive_shared"])
def test_attention_matches_mlx_attention_and_its_gradient(length, mask_kind):
    mx.random.seed(length)
    q, k, v = (mx.random.normal((2, h, length, 16)) for h in (6, 2, 2))
    mask = {
        "causal": "causal",
        "none": None,
        "bool": mx.logical_or(mx.random.uniform(shape=(length, length)) > 0.4, mx.eye(length, dtype=mx.bool_)),
        "additive_per_head": mx.random.normal((2, 6, length, length)),
        "additive_shared": mx.random.normal((2, 1, length, length)),
    }[mask_kind]

    def mlx_attention(q, k, v):
        return mx.fast.scaled_dot_product_attention(q, k, v, scale=0.25, mask=mask)

    def ours(q, k, v):
        return cpu_kernels.attention(q, k, v, 0.25, mask)

    assert _close(mlx_attention(q, k, v), ours(q, k, v))
    weights = mx.random.normal((2, 6, length, 16))
    want = mx.grad(lambda *a: (mlx_attention(*a) * weights).sum(), argnums=(0, 1, 2))(q, k, v)
    got = mx.grad(lambda *a: (ours(*a) * weights).sum(), argnums=(0, 1, 2))(q, k, v)
    assert all(_close(w, g) for w, g in zip(want, got, strict=True))


def test_swiglu_matches_mlx_lms():
    from mlx_lm.models.activations import swiglu

    gate, x = mx.random.normal((3, 40)) * 8, mx.random.normal((3, 40))
    assert _close(swiglu(gate, x), cpu_kernels.swiglu(gate, x))
    want = mx.grad(lambda g: swiglu(g, x).sum())(gate)
    assert _close(want, mx.grad(lambda g: cpu_kernels.swiglu(g, x).sum())(gate))


def _tiny_llama(seed: int):
    from mlx_lm.tuner.utils import linear_to_lora_layers

    model = tiny_llama(
        seed, hidden_size=48, num_hidden_layers=3, num_attention_heads=6, vocab_size=101, tie_word_embeddings=True
    )
    model.freeze()
    lora = {"rank": 4, "scale": 10.0, "dropout": 0.0, "keys": ["self_attn.q_proj", "self_attn.v_proj"]}
    linear_to_lora_layers(model, 2, lora)
    for name, module in model.named_modules():  # LoRA's B starts at zero: give the gradient something to see
        if name.endswith(("q_proj", "v_proj")) and hasattr(module, "lora_b"):
            module.lora_b = mx.random.normal(module.lora_b.shape) * 0.1
    return model


def test_speed_up_keeps_a_llamas_loss_gradient_and_cached_generation():
    import mlx.nn as nn
    from mlx.utils import tree_flatten
    from mlx_lm.models.cache import make_prompt_cache
    from mlx_lm.tuner.trainer import default_loss

    reference, fast = _tiny_llama(5), _tiny_llama(6)
    fast.update(reference.parameters())  # the same weights, LoRA's included
    assert cpu_kernels.speed_up(fast) == 3
    assert type(fast.layers[0].self_attn).__name__ == "CPUAttention"
    assert "model.layers.1.self_attn.q_proj.lora_a" in dict(tree_flatten(fast.trainable_parameters()))  # LoRA kept
    batch = mx.array([[(7 * i + 3) % 101 for i in range(200)], [(5 * i + 10) % 101 for i in range(200)]])
    lengths = mx.array([[150, 200], [120, 180]])
    want, want_grad = nn.value_and_grad(reference, default_loss)(reference, batch, lengths)
    got, got_grad = nn.value_and_grad(fast, default_loss)(fast, batch, lengths)
    assert abs(want[0].item() - got[0].item()) < 1e-5 * abs(want[0].item())
    flat_want, flat_got = dict(tree_flatten(want_grad)), dict(tree_flatten(got_grad))
    assert flat_want.keys() == flat_got.keys() and len(flat_want) == 8  # q and v, A and B, 2 blocks
    assert all(_close(flat_want[k], flat_got[k], 1e-4) for k in flat_want)
    prompt = mx.array([[5, 9, 11, 40, 2]])
    caches = make_prompt_cache(reference), make_prompt_cache(fast)
    for step in range(3):  # the prompt with a cache, then one token at a time: MLX's attention, our SwiGLU
        tokens = prompt if step == 0 else mx.array([[7 + step]])
        a, b = reference(tokens, cache=caches[0]), fast(tokens, cache=caches[1])
        assert _close(a, b, 1e-5)


def test_speed_up_leaves_other_architectures_alone():
    class Block:
        self_attn = object()
        mlp = object()

    class Model:
        layers = [Block()]

    assert cpu_kernels.speed_up(Model()) == 0


def test_keep_freed_memory_applies_on_glibc_and_can_be_turned_off():
    import sys

    with cpu_kernels.keep_freed_memory() as applied:
        buffers = [mx.ones((512, 1024)) + i for i in range(4)]
        mx.eval(buffers)
    assert applied is sys.platform.startswith("linux")
    with cpu_kernels.keep_freed_memory(enabled=False) as applied:
        assert applied is False
