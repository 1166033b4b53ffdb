#!/usr/bin/env bash
# Runs the scalar reference paths under Miri (undefined-behaviour check of the specification
# code): crates/latpoly/tests/miri_scalar.rs with LATPOLY_ISA=scalar. Installs a nightly
# toolchain with Miri through rustup if there is none. Takes about 5 minutes on 2 cores.
# Usage: ./scripts/miri.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly miri --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal --component miri,rust-src
fi
# a target directory of its own: Miri builds every dependency for its interpreter
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/miri"
LATPOLY_ISA=scalar cargo +nightly miri test -p latpoly --test miri_scalar
