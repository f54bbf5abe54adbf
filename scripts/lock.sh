#!/usr/bin/env bash
# Refresh the lock scripts/setup.sh installs from: a fresh virtualenv, everything `setup.sh mlx,dev` installs
# (the mlx, dev, bench and embed extras, the CPU torch, the embedded model's package) resolved UNLOCKED to the
# newest versions pyproject.toml allows, then `pip freeze` minus the project itself, written to
# requirements/lock-<os>-<machine>-py<major.minor>.txt for this platform.
#
# Usage: bash scripts/lock.sh          (then run the tests on it: the README's second command; commit the lock)
# The venv is .venv-lock/ under the clone (git-ignored; not under /tmp, which the sandbox replaces).
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
"$python" -m venv --clear .venv-lock
# shellcheck disable=SC1091
. .venv-lock/bin/activate
lock="$(bash scripts/setup.sh --lock-path)"  # named for the venv's Python, the one setup.sh will see
python -m pip install -q -U pip
SETUP_UNLOCKED=1 bash scripts/setup.sh mlx,dev
mkdir -p "$(dirname "$lock")"
{
  echo "# The versions scripts/setup.sh installs on $(uname -s) $(uname -m), Python $(python -c 'import sys; print(*sys.version_info[:2], sep=".")')."
  echo "# Written by: bash scripts/lock.sh (a fresh venv, setup.sh mlx,dev unlocked, pip freeze minus dspy-rlm)."
  echo "# tests/test_lock.py checks it against pyproject.toml."
  python -m pip freeze --exclude-editable | grep -viE '^(dspy-rlm|dspy_rlm)[=@ ]' | LC_ALL=C sort -f
} > "$lock"
echo "lock: wrote $lock ($(grep -vc '^#' "$lock") packages)" >&2
