"""Route MLX's CPU BLAS calls to OpenBLAS on Linux.

The Linux ``mlx[cpu]`` wheel links against a generic ``libblas`` and, unless something faster is
already loaded, resolves ``cblas_sgemm`` to a reference implementation: a 512x512 float32 matmul
runs at about 5 GFLOP/s. Loading the system OpenBLAS with ``RTLD_GLOBAL`` *before* MLX is first
imported makes the dynamic linker bind those symbols to OpenBLAS instead (about 114 GFLOP/s on a
2-core x86_64 machine), with no ``LD_PRELOAD`` and no rebuild.

Every code path in ``dspy_outlines`` that imports ``mlx`` calls :func:`ensure_fast_blas` first.
It is idempotent and costs a dictionary lookup after the first call.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import sys
from pathlib import Path

logger = logging.getLogger(__name__)

__all__ = ["ensure_fast_blas", "find_openblas", "fast_blas_status"]

# Debian / Ubuntu locations of the libopenblas0-pthread and libopenblas0-openmp packages.
_KNOWN_PATHS = (
    "/usr/lib/x86_64-linux-gnu/libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0",
    "/usr/lib/aarch64-linux-gnu/libopenblas.so.0",
    "/usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib64/libopenblas.so.0",
    "/usr/lib/libopenblas.so.0",
)

# Environment switch to skip the routing (e.g. to measure the reference BLAS).
DISABLE_ENV = "DSPY_OUTLINES_NO_OPENBLAS"

_state: dict[str, object] = {"done": False, "library": None, "reason": "not attempted"}


def find_openblas() -> str | None:
    """Locate the system OpenBLAS shared library.

    Returns:
        The path (or linker name) of ``libopenblas``, or ``None`` when it is not installed.
    """
    override = os.environ.get("DSPY_OUTLINES_OPENBLAS")
    if override:
        return override
    for candidate in _KNOWN_PATHS:
        if Path(candidate).exists():
            return candidate
    return ctypes.util.find_library("openblas")


def ensure_fast_blas() -> str | None:
    """Load OpenBLAS globally so MLX's CPU matmuls use it (Linux only, idempotent).

    Must run before the first ``import mlx`` in the process to have an effect. If MLX is already
    imported, or OpenBLAS is missing, a warning is logged once and MLX keeps its default BLAS.

    Returns:
        The loaded library path, or ``None`` when nothing was loaded.
    """
    if _state["done"]:
        return _state["library"]  # type: ignore[return-value]
    _state["done"] = True
    if not sys.platform.startswith("linux"):
        _state["reason"] = "not Linux: MLX uses Accelerate/Metal"
        return None
    if os.environ.get(DISABLE_ENV):
        _state["reason"] = f"disabled by {DISABLE_ENV}"
        return None
    if "mlx.core" in sys.modules:
        _state["reason"] = "mlx was imported before ensure_fast_blas() could run"
        logger.warning(
            "mlx was imported before dspy_outlines could route BLAS to OpenBLAS; CPU matmuls "
            "may use the slow reference BLAS. Import dspy_outlines (or call "
            "dspy_outlines.models.blas.ensure_fast_blas()) before importing mlx."
        )
        return None
    path = find_openblas()
    if path is None:
        _state["reason"] = "libopenblas not found"
        logger.warning(
            "OpenBLAS not found: MLX will use its reference BLAS on this CPU (several times "
            "slower). Install it with `apt-get install libopenblas0-pthread`."
        )
        return None
    try:
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as e:
        _state["reason"] = f"failed to load {path}: {e}"
        logger.warning("Could not load OpenBLAS from %s: %s", path, e)
        return None
    _state["library"] = path
    _state["reason"] = "loaded"
    logger.debug("Loaded OpenBLAS from %s for MLX CPU matmuls", path)
    return path


def fast_blas_status() -> dict[str, object]:
    """Report what :func:`ensure_fast_blas` did, for benchmarks and diagnostics.

    Returns:
        A dict with ``library`` (path or ``None``) and ``reason``.
    """
    return {"library": _state["library"], "reason": _state["reason"]}
