"""Route MLX's CPU BLAS calls to OpenBLAS on Linux.

The Linux ``mlx[cpu]`` wheel links against a generic ``libblas`` and, unless something faster is
already loaded, resolves ``cblas_sgemm`` to a reference implementation: a 512x512 float32 matmul
runs at about 5 GFLOP/s. Loading the system OpenBLAS with ``RTLD_GLOBAL`` *before* MLX is first
imported makes the dynamic linker bind those symbols to OpenBLAS instead (about 114 GFLOP/s on a
2-core x86_64 machine), with no ``LD_PRELOAD`` and no rebuild.

Token-by-token decoding multiplies a single row by each weight matrix, and OpenBLAS 0.3.21's
``sgemm`` packs the whole weight matrix on every such call: 3-5x slower than ``sgemv``. MLX only
calls ``cblas_sgemm``, so a tiny shim, compiled once with the C compiler MLX's own ``mx.compile``
already needs on Linux and cached, is loaded ahead of OpenBLAS: its ``cblas_sgemm`` hands
matrix-vector shapes (M == 1 or N == 1) to OpenBLAS's ``cblas_sgemv`` and everything else to
OpenBLAS's ``cblas_sgemm``. Without a compiler, plain OpenBLAS is used.

Nothing happens at import: every code path in ``dspy_outlines`` that first imports ``mlx`` (a model
load, :func:`dspy_outlines.models.require_mlx`) calls :func:`ensure_fast_blas` just before. It is
idempotent and costs a dictionary lookup after the first call.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

logger = logging.getLogger(__name__)

__all__ = ["ensure_fast_blas", "fast_blas_status", "find_openblas"]

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

# Environment switches to skip the routing (e.g. to measure the reference BLAS), or only the
# matrix-vector shim (to measure plain OpenBLAS).
DISABLE_ENV = "DSPY_OUTLINES_NO_OPENBLAS"
DISABLE_GEMV_ENV = "DSPY_OUTLINES_NO_GEMV_SHIM"

_state: dict[str, object] = {"done": False, "library": None, "reason": "not attempted", "gemv_shim": None}

# C and C++ alike (MLX's JIT needs g++, so that may be the only compiler present).
_SHIM_SOURCE = r"""
#ifdef __cplusplus
extern "C" {
#endif
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
typedef void (*sgemv_fn)(int, int, int, int, float, const float *, int, const float *, int,
                         float, float *, int);
static sgemm_fn real_sgemm;
static sgemv_fn real_sgemv;
enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112 };

void dspy_outlines_gemv_init(void *sgemm, void *sgemv) {
  real_sgemm = (sgemm_fn)sgemm;
  real_sgemv = (sgemv_fn)sgemv;
}

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                 int lda, const float *b, int ldb, float beta, float *c, int ldc) {
  if (order == ROW_MAJOR && k > 0 && m == 1 && n > 1) { /* c = op(b)^T a */
    int inca = ta == NO_TRANS ? 1 : lda;
    if (tb == NO_TRANS)
      real_sgemv(ROW_MAJOR, TRANS, k, n, alpha, b, ldb, a, inca, beta, c, 1);
    else
      real_sgemv(ROW_MAJOR, NO_TRANS, n, k, alpha, b, ldb, a, inca, beta, c, 1);
    return;
  }
  if (order == ROW_MAJOR && k > 0 && n == 1 && m > 1) { /* c = op(a) b */
    int incb = tb == NO_TRANS ? ldb : 1;
    if (ta == NO_TRANS)
      real_sgemv(ROW_MAJOR, NO_TRANS, m, k, alpha, a, lda, b, incb, beta, c, ldc);
    else
      real_sgemv(ROW_MAJOR, TRANS, k, m, alpha, a, lda, b, incb, beta, c, ldc);
    return;
  }
  real_sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
#ifdef __cplusplus
}
#endif
"""


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


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dspy_outlines"


def _build_gemv_shim() -> Path | None:
    """Compile the matrix-vector shim once per source version and machine; ``None`` if impossible."""
    compiler = next((shutil.which(c) for c in ("cc", "gcc", "g++", "clang") if shutil.which(c)), None)
    if compiler is None:
        return None
    digest = hashlib.sha256(f"{_SHIM_SOURCE}{sys.platform}{os.uname().machine}".encode()).hexdigest()[:16]
    target = _cache_dir() / f"gemv_shim_{digest}.so"
    if target.is_file():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            source, built = Path(tmp) / "gemv_shim.c", Path(tmp) / "gemv_shim.so"
            source.write_text(_SHIM_SOURCE)
            lang = ["-x", "c++"] if compiler.endswith("++") else []
            cmd = [compiler, "-O2", "-shared", "-fPIC", *lang, str(source), "-o", str(built)]
            subprocess.run(cmd, check=True, capture_output=True, timeout=60)
            os.replace(built, target)  # atomic: concurrent processes never load a partial file
    except (OSError, subprocess.SubprocessError) as e:
        logger.info("Could not build the BLAS matrix-vector shim (%s); using plain OpenBLAS", e)
        return None
    return target


def _load_gemv_shim() -> ctypes.CDLL | None:
    """Load the shim globally, ahead of OpenBLAS, so MLX's ``cblas_sgemm`` binds to it."""
    if os.environ.get(DISABLE_GEMV_ENV):
        return None
    path = _build_gemv_shim()
    if path is None:
        return None
    try:
        return ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
    except OSError as e:
        logger.info("Could not load the BLAS matrix-vector shim %s: %s", path, e)
        return None


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
            "may use the slow reference BLAS. Load the model through dspy_outlines first (OutlinesLM(), "
            "load_model()) or call dspy_outlines.models.blas.ensure_fast_blas() before importing mlx."
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
        openblas = ctypes.CDLL(path)  # local first: the shim must precede it in the global scope
    except OSError as e:
        _state["reason"] = f"failed to load {path}: {e}"
        logger.warning("Could not load OpenBLAS from %s: %s", path, e)
        return None
    shim = _load_gemv_shim()
    if shim is not None:
        # Before any matmul: the shim forwards to these and has no other way to find them.
        shim.dspy_outlines_gemv_init(
            ctypes.cast(openblas.cblas_sgemm, ctypes.c_void_p),
            ctypes.cast(openblas.cblas_sgemv, ctypes.c_void_p),
        )
        _state["gemv_shim"] = shim._name
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)  # now global, behind the shim: MLX binds to both
    _state["library"] = path
    _state["reason"] = "loaded"
    logger.debug("Loaded OpenBLAS from %s for MLX CPU matmuls", path)
    return path


def fast_blas_status() -> dict[str, object]:
    """Report what :func:`ensure_fast_blas` did, for benchmarks and diagnostics.

    Returns:
        A dict with ``library`` (path or ``None``), ``reason``, and ``gemv_shim`` (the path of the
        matrix-vector shim in use, or ``None``).
    """
    return {"library": _state["library"], "reason": _state["reason"], "gemv_shim": _state["gemv_shim"]}
