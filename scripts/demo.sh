#!/usr/bin/env bash
# The main job: multiplies W1-size polynomials (n = 8192, 4 primes of 60 bits) in RNS form,
# checks the product against exact big-integer arithmetic and prints timings.
# Extra arguments go to `latpoly demo` (e.g. --n 4096 --bits 50 --primes 5).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --release -p latpoly-cli -- demo "$@"
