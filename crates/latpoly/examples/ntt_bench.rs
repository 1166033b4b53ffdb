//! Times the forward and inverse NTT of one `(n, prime size)` on every backend this CPU runs,
//! in µs per transform (median of batches), for `perf record` and quick comparisons.
//!
//! `cargo run --release -p latpoly --example ntt_bench -- [n] [bits] [limbs] [isa]`
//! (defaults 8192, 60, 1, every backend; `isa` is a backend name such as `avx512`: that one
//! only, for `perf record`). `bits <= 14` uses 16-bit lanes with q = 12289, `bits <= 30`
//! 32-bit lanes, above that 64-bit lanes; `limbs` transforms run per call, one per prime, as
//! in an RNS polynomial. `bits` written `f60` takes `primes::fast_ntt_primes` (`q ≡ 1 mod
//! 2^32`) instead of `primes::ntt_primes`; written `w30` (any size up to 30) it runs those
//! primes in `u64` plans (which AVX2 runs in 32-bit lanes, `ntt/x86/avx2_narrow.rs`).
//! The arrays start on a 64-byte boundary, or `NTT_BENCH_OFFSET` bytes past one.

use latpoly::Plan;
use std::hint::black_box;

#[path = "common/timing.rs"]
mod timing;

/// Where the arrays start: `NTT_BENCH_OFFSET` bytes (default 0, at most 64) past a 64-byte
/// boundary. The transforms run a few percent slower at offsets of 16 and 48 bytes than at 0
/// and 32 (Zen 4), so the arrays are placed, not left where the allocator put them: binaries
/// compared with each other would otherwise differ by where their buffers landed.
fn offset() -> usize {
    std::env::var("NTT_BENCH_OFFSET")
        .ok()
        .map_or(0, |s| s.parse::<usize>().expect("a byte count").min(64))
}

/// Median µs per call of `f` over 15 batches of `iters` calls.
fn time(f: impl FnMut(), iters: u32) -> f64 {
    timing::ns_per_call(15, iters as usize, f).0 / 1e3
}

fn run<W: latpoly::arith::Word>(n: usize, primes: &[u64]) {
    let only = std::env::args().nth(4);
    for isa in Plan::<W>::available_isas(n, primes[0]) {
        if only.as_deref().is_some_and(|o| o != isa.name()) {
            continue;
        }
        let plans: Vec<Plan<W>> = primes
            .iter()
            .map(|&q| Plan::<W>::with_isa(n, q, isa).unwrap())
            .collect();
        let mut store: Vec<(Vec<W>, usize)> = primes
            .iter()
            .map(|&q| {
                let mut v = vec![W::from_u64(0); n + 128 / size_of::<W>()];
                let at = ((64 - v.as_ptr() as usize % 64) % 64 + offset()) / size_of::<W>();
                for (i, x) in v[at..at + n].iter_mut().enumerate() {
                    *x = W::from_u64((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) % q);
                }
                (v, at)
            })
            .collect();
        let mut data: Vec<&mut [W]> = store
            .iter_mut()
            .map(|(v, at)| &mut v[*at..*at + n])
            .collect();
        let iters = (2_000_000 / (n * primes.len())).max(1) as u32;
        let fwd = time(
            || {
                for (p, a) in plans.iter().zip(&mut data) {
                    p.forward(black_box(a)).unwrap();
                }
            },
            iters,
        );
        let inv = time(
            || {
                for (p, a) in plans.iter().zip(&mut data) {
                    p.inverse(black_box(a)).unwrap();
                }
            },
            iters,
        );
        println!("{:<11} {fwd:>10.3} {inv:>10.3}", isa.name());
    }
}

fn main() {
    let arg = |i: usize, d: u64| {
        std::env::args()
            .nth(i)
            .map(|s| s.parse().expect("a number"))
            .unwrap_or(d)
    };
    let bits_arg = std::env::args().nth(2).unwrap_or_else(|| "60".into());
    let bits: u32 = bits_arg
        .trim_start_matches(['f', 'w'])
        .parse()
        .expect("a number, f<number> or w<number>");
    // Primes q = 1 mod 2^32 exist from 37 bits (64-bit lanes only).
    let fast = bits_arg.starts_with('f') && bits > 30;
    let wide = bits_arg.starts_with('w');
    let (n, limbs) = (arg(1, 8192) as usize, arg(3, 1) as usize);
    let primes = if bits <= 14 {
        vec![12289; limbs]
    } else if fast {
        latpoly::primes::fast_ntt_primes(bits, n, limbs).expect("fast NTT primes")
    } else {
        latpoly::primes::ntt_primes(bits, n, limbs).expect("NTT primes")
    };
    println!(
        "# n = {n}, {limbs} x {bits}-bit prime(s){}; µs per call (all limbs), median of 15",
        if fast {
            " = 1 mod 2^32"
        } else if wide {
            ", u64 plans"
        } else {
            ""
        }
    );
    println!("{:<11} {:>10} {:>10}", "backend", "forward", "inverse");
    match bits {
        _ if wide => run::<u64>(n, &primes),
        0..=14 => run::<u16>(n, &primes),
        15..=30 => run::<u32>(n, &primes),
        _ => run::<u64>(n, &primes),
    }
}
