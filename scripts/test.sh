#!/usr/bin/env bash
# Runs every test: formatting, lints, Rust tests (unit, integration, doc), Python tests and
# doctests. Installs what it needs (Python deps go into ./.venv). Usage: ./scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps -p latpoly
echo "== cargo test"
cargo test --workspace --exclude latpoly-py
# The NTT and RNS suites again with the backend capped at each level (plans fall back to the
# best level this CPU has below the cap; tests/backends.rs compares every available backend).
for isa in scalar avx2 avx512; do
  echo "== cargo test, LATPOLY_ISA=$isa"
  LATPOLY_ISA=$isa cargo test -p latpoly --test ntt --test rns --test rns_ops --test lpr --test bfv \
    --test ring_ntru --test ring_ntruprime --test ring_ntruplus --test kem_ntru --test kem_ntruplus --test kem_ntruprime
done
echo "== Miri: the scalar paths (tests/miri_scalar.rs)"
./scripts/miri.sh
echo "== C ABI: C and C++ examples (plain and AddressSanitizer)"
./scripts/c_examples.sh
echo "== python: pip install . into .venv"
bash scripts/python-env.sh
# --pyargs latpoly: the doctests of the *installed* package (site-packages), not the sources;
# docs/PYTHON.md: the examples of the Python API page.
echo "== pytest"
.venv/bin/python -m pytest -q tests/python docs/PYTHON.md --doctest-glob='*.md' --doctest-modules \
  --pyargs latpoly
