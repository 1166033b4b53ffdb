#!/usr/bin/env bash
# Runs every test: formatting, lints, Rust tests (unit, integration, doc), Python tests and
# doctests. Installs what it needs (Python deps go into ./.venv). Usage: ./scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# A fresh CI build gains nothing from incremental compilation's bookkeeping.
if [ "${CI:-}" = true ]; then export CARGO_INCREMENTAL=0; fi

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== cargo doc (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps -p latpoly
echo "== cargo test ($((SECONDS / 60)) min so far)"
cargo test --workspace --exclude latpoly-py
# The NTT and RNS suites again with the backend capped at each level below the best this CPU
# has (plans fall back to the best level below the cap, so a cap at or above the CPU's best
# repeats the run above; tests/backends.rs compares every available backend in that run).
# Same package selection as above, so Cargo reuses those test binaries instead of rebuilding
# with another feature set.
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
caps=(scalar)
if [ -z "$flags" ]; then
  caps=(scalar avx2 avx512) # no /proc/cpuinfo: every cap (the unavailable ones fall back)
elif [[ " $flags " == *" avx512f "* ]]; then
  caps+=(avx2)
  if [[ " $flags " == *" avx512ifma "* ]]; then caps+=(avx512); fi
fi
for isa in "${caps[@]}"; do
  echo "== cargo test, LATPOLY_ISA=$isa ($((SECONDS / 60)) min so far)"
  LATPOLY_ISA=$isa cargo test --workspace --exclude latpoly-py --test ntt --test rns --test rns_ops \
    --test lpr --test bfv --test ring_ntru --test ring_ntruprime --test ring_ntruplus --test kem_ntru \
    --test kem_ntruplus --test kem_ntruprime
done
echo "== Miri: the scalar paths (tests/miri_scalar.rs) ($((SECONDS / 60)) min so far)"
./scripts/miri.sh
# The C examples and the Python package are built here only to be tested: Cargo's default
# release settings (16 codegen units, no cross-crate LTO) build them about twice as fast on two
# cores as the workspace's release profile (one unit, thin LTO), which `demo.sh` and
# `maturin build` keep.
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_LTO=false
echo "== C ABI: C and C++ examples (plain and AddressSanitizer) ($((SECONDS / 60)) min so far)"
./scripts/c_examples.sh
echo "== python: pip install . into .venv ($((SECONDS / 60)) min so far)"
bash scripts/python-env.sh
# --pyargs latpoly: the doctests of the *installed* package (site-packages), not the sources;
# docs/PYTHON.md: the examples of the Python API page.
echo "== pytest ($((SECONDS / 60)) min so far)"
.venv/bin/python -m pytest -q tests/python docs/PYTHON.md --doctest-glob='*.md' --doctest-modules \
  --pyargs latpoly
echo "== all tests passed in $((SECONDS / 60)) min $((SECONDS % 60)) s"
