#!/usr/bin/env bash
# Creates (or reuses) the local virtualenv .venv with the Python test/build dependencies and
# builds + installs the latpoly extension into it (release mode). Sourced by test.sh and demo.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3}"
if [ ! -x "$root/.venv/bin/python" ]; then
  "$py" -m venv "$root/.venv"
fi
"$root/.venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$root/.venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$root/scripts/requirements-test.txt"
(cd "$root" && VIRTUAL_ENV="$root/.venv" "$root/.venv/bin/maturin" develop --quiet --release \
  -m crates/latpoly-py/Cargo.toml)
