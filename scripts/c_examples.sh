#!/usr/bin/env bash
# Builds the C ABI (static library), then compiles and runs the C and C++ examples, plainly and
# under AddressSanitizer. Usage: ./scripts/c_examples.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p latpoly-capi
inc=crates/latpoly-capi/include
tdir="${CARGO_TARGET_DIR:-target}"
lib="$tdir/release/liblatpoly.a"
libs="-lpthread -ldl -lm"
out="$tdir/c-examples"
mkdir -p "$out"
cc -std=c11 -Wall -Wextra -Werror -O2 -I"$inc" examples/c/ntt_demo.c "$lib" $libs -o "$out/ntt_demo"
cc -std=c11 -Wall -Wextra -Werror -O2 -I"$inc" examples/c/he_demo.c "$lib" $libs -o "$out/he_demo"
c++ -std=c++17 -Wall -Wextra -Werror -O2 -I"$inc" examples/cpp/fasterntt_style.cpp "$lib" $libs -o "$out/fasterntt_style"
"$out/ntt_demo"
"$out/he_demo"
"$out/fasterntt_style"
echo "== AddressSanitizer"
cc -std=c11 -g -fsanitize=address -fno-omit-frame-pointer -I"$inc" examples/c/ntt_demo.c "$lib" $libs -o "$out/ntt_demo_asan"
cc -std=c11 -g -fsanitize=address -fno-omit-frame-pointer -I"$inc" examples/c/he_demo.c "$lib" $libs -o "$out/he_demo_asan"
c++ -std=c++17 -g -fsanitize=address -fno-omit-frame-pointer -I"$inc" examples/cpp/fasterntt_style.cpp "$lib" $libs -o "$out/fasterntt_style_asan"
ASAN_OPTIONS=detect_leaks=1 "$out/ntt_demo_asan"
ASAN_OPTIONS=detect_leaks=1 "$out/he_demo_asan"
ASAN_OPTIONS=detect_leaks=1 "$out/fasterntt_style_asan"
echo "C and C++ examples: 3 passed, 0 failed (plain and ASan)"
