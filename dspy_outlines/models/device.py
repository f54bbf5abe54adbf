"""Where MLX computes: a leaf module, read by the loaders and by the fused decoding steps alike."""

from __future__ import annotations


def device_is_cpu() -> bool:
    """Whether MLX's default device is the CPU (not "Metal is unavailable": MLX's CUDA backend has a GPU and
    no Metal). Imports ``mlx.core``: call it after the BLAS routing (``dspy_outlines.models.require_mlx``)."""
    import mlx.core as mx

    return bool(mx.default_device().type == mx.DeviceType.cpu)
