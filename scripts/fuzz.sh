#!/usr/bin/env bash
# Runs one cargo-fuzz target of crates/latpoly/fuzz for a number of seconds, on stable Rust:
# RUSTC_BOOTSTRAP=1 lets the stable compiler accept the nightly flags cargo-fuzz passes
# (-Zsanitizer=..., coverage instrumentation). Installs cargo-fuzz from crates.io if missing.
#
# Usage: ./scripts/fuzz.sh [TARGET] [SECONDS] [-- LIBFUZZER_ARGS...]
#   TARGET   default rns_poly_from_bytes; the others: kem_decapsulate, kem_encapsulate
#            (every KEM of latpoly::kem::all() on hostile ciphertexts / public keys) and
#            decoders (the public decoders of rings::{ntru, ntruprime, ntruplus}), bfv_from_bytes
#            (the BFV key and ciphertext readers); `all` runs
#            every target in turn, SECONDS each (list: cargo fuzz list, run in crates/latpoly)
#   SECONDS  default 60
# Example: ./scripts/fuzz.sh rns_poly_from_bytes 600 -- -jobs=1 -print_final_stats=1
# The KEM targets want whole ciphertexts (up to 1729 bytes): pass -- -max_len=4096.
#
# The corpus grows in crates/latpoly/fuzz/corpus/TARGET (only the seed-* files are tracked);
# a crashing input is saved under crates/latpoly/fuzz/artifacts/TARGET and the script exits
# non-zero. Built with debug assertions (so also overflow checks) on.
set -euo pipefail

target="${1:-rns_poly_from_bytes}"
secs="${2:-60}"
shift $(($# < 2 ? $# : 2))
[ "${1:-}" = "--" ] && shift
if ! [[ "$secs" =~ ^[0-9]+$ ]]; then
  echo "fuzz.sh: SECONDS must be a whole number, got '$secs'" >&2
  exit 2
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

cd "$(dirname "$0")/../crates/latpoly"
export RUSTC_BOOTSTRAP=1
if [ "$target" = all ]; then
  for t in $(cargo fuzz list); do
    echo "== cargo fuzz run --debug-assertions $t -- -max_total_time=$secs $*"
    cargo fuzz run --debug-assertions "$t" -- -max_total_time="$secs" "$@"
  done
  exit 0
fi
echo "== cargo fuzz run --debug-assertions $target -- -max_total_time=$secs $*"
exec cargo fuzz run --debug-assertions "$target" -- -max_total_time="$secs" "$@"
