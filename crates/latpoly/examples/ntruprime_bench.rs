//! Workload P2 (shared/BENCHMARKS.md): NTRU Prime products in `Z_4591[x]/(x^761 - x - 1)` on
//! every backend this CPU runs, plus the other ring operations, as medians of batched runs.
//!
//! ```sh
//! cargo run --release -p latpoly --example ntruprime_bench          # all rows
//! cargo run --release -p latpoly --example ntruprime_bench -- quick # fewer repetitions
//! cargo run --release -p latpoly --example ntruprime_bench -- profile [r3|small|decode]
//!     # a 3-second hot loop (full product, R/3 product, Rq x small product or rq_decode)
//!     # for `perf record`
//! ```
//!
//! Timings are printed as minimum / median over batches: on a shared, loaded machine the
//! minimum is the better estimate of the unloaded time.
//!
//! Reference figures on this machine kind (BENCHMARKS.md): full x full product incl. reduction,
//! AVX2 record 1,820 ns (target <= 1,270 ns); PQClean AVX2 Rq x small 2,474 ns.

use latpoly::rings::ntruprime::{
    round3, rounded_decode, rounded_encode, rq_decode, rq_encode, Multiplier, P,
};
use std::hint::black_box;
use std::time::Instant;

#[path = "common/timing.rs"]
mod timing;

/// Minimum and median over `rounds` of the mean time (ns) of `batch` calls of `f` (on a shared,
/// loaded machine the minimum is the better estimate of the unloaded time).
fn time2(rounds: usize, batch: usize, f: impl FnMut()) -> (f64, f64) {
    let (median, best) = timing::ns_per_call(rounds, batch, f);
    (best, median)
}

/// Median only.
fn time(rounds: usize, batch: usize, f: impl FnMut()) -> f64 {
    time2(rounds, batch, f).1
}

/// A deterministic pseudo-random sequence (xorshift), enough for benchmark inputs.
fn lcg(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    let rounds = if quick { 11 } else { 51 };
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let a: Vec<i16> = (0..P)
        .map(|_| (lcg(&mut seed) % 4591) as i16 - 2295)
        .collect();
    let b: Vec<i16> = (0..P)
        .map(|_| (lcg(&mut seed) % 4591) as i16 - 2295)
        .collect();
    let s: Vec<i8> = (0..P).map(|_| (lcg(&mut seed) % 3) as i8 - 1).collect();
    let t: Vec<i8> = (0..P).map(|_| (lcg(&mut seed) % 3) as i8 - 1).collect();

    if std::env::args().any(|a| a == "profile") {
        // A hot loop for `perf record` on the default backend.
        let m = Multiplier::new();
        let t0 = Instant::now();
        let r3 = std::env::args().any(|a| a == "r3");
        let small = std::env::args().any(|a| a == "small");
        if std::env::args().any(|a| a == "decode") {
            let h = rq_encode(&a).unwrap();
            while t0.elapsed().as_secs() < 3 {
                for _ in 0..1000 {
                    black_box(rq_decode(black_box(&h)).unwrap());
                }
            }
            return;
        }
        while t0.elapsed().as_secs() < 3 {
            for _ in 0..1000 {
                if r3 {
                    black_box(m.mul_r3(black_box(&s), black_box(&t)).unwrap());
                } else if small {
                    black_box(m.mul_rq_small(black_box(&a), black_box(&s)).unwrap());
                } else {
                    black_box(m.mul_rq(black_box(&a), black_box(&b)).unwrap());
                }
            }
        }
        return;
    }
    println!("workload P2: NTRU Prime R/q = Z_4591[x]/(x^761 - x - 1); ns per call, min / median");
    println!(
        "{:<10} {:>16} {:>16} {:>16}",
        "backend", "Rq x Rq", "Rq x small", "R3 x R3"
    );
    for isa in Multiplier::available_isas() {
        let m = Multiplier::with_isa(isa).unwrap();
        let batch = if isa == latpoly::Isa::Scalar { 20 } else { 200 };
        let full = time2(rounds, batch, || {
            black_box(m.mul_rq(black_box(&a), black_box(&b)).unwrap());
        });
        let small = time2(rounds, batch, || {
            black_box(m.mul_rq_small(black_box(&a), black_box(&s)).unwrap());
        });
        let r3 = time2(rounds, batch, || {
            black_box(m.mul_r3(black_box(&s), black_box(&t)).unwrap());
        });
        let f = |x: (f64, f64)| format!("{:.0} / {:.0}", x.0, x.1);
        println!(
            "{:<10} {:>16} {:>16} {:>16}",
            isa.name(),
            f(full),
            f(small),
            f(r3)
        );
    }
    println!("reference figures: AVX2 record 1,820 (target <= 1,270) full x full; PQClean AVX2 2,474 Rq x small");

    let h = rq_encode(&a).unwrap();
    let c = round3(&a).unwrap();
    let rounded = rounded_encode(&c).unwrap();
    let r = (rounds / 5).max(3);
    println!(
        "rq_encode {:.0} ns, rq_decode {:.0} ns, rounded_encode {:.0} ns, rounded_decode {:.0} ns",
        time(rounds, 200, || {
            black_box(rq_encode(black_box(&a)).unwrap());
        }),
        time(rounds, 200, || {
            black_box(rq_decode(black_box(&h)).unwrap());
        }),
        time(rounds, 200, || {
            black_box(rounded_encode(black_box(&c)).unwrap());
        }),
        time(rounds, 200, || {
            black_box(rounded_decode(black_box(&rounded)).unwrap());
        }),
    );
    for isa in Multiplier::available_isas() {
        let m = Multiplier::with_isa(isa).unwrap();
        println!(
            "{:<10} recip_r3 {:.1} us, recip3_rq {:.1} us (median)",
            isa.name(),
            time(r, 3, || {
                black_box(m.recip_r3(black_box(&s)).unwrap());
            }) / 1e3,
            time(r, 3, || {
                black_box(m.recip3_rq(black_box(&s)).unwrap());
            }) / 1e3,
        );
    }
}
