#!/usr/bin/env bash
# Runs every test: formatting, lints, Rust tests (unit, integration, doc), Python tests and
# doctests. Installs what it needs (Python deps go into ./.venv). Usage: ./scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== cargo test"
cargo test --workspace --exclude latpoly-py
echo "== python: build extension into .venv"
bash scripts/python-env.sh
echo "== pytest"
.venv/bin/python -m pytest -q tests/python crates/latpoly-py/python/latpoly --doctest-modules
