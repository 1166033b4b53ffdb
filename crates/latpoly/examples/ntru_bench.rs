//! Timing of the NTRU `poly_Rq_mul` multipliers (workload P1) and of the building blocks.
//!
//! ```sh
//! cargo run --release -p latpoly --example ntru_bench            # all n, every multiplier
//! cargo run --release -p latpoly --example ntru_bench -- 509     # one n
//! ```
//!
//! For each `n` and each multiplier this CPU runs, prints the median time per product over
//! `REPS` batches (after a warm-up). Also times, for comparison, the exact-integer alternative
//! the multiplier design rejected: a product through latpoly's own 64-bit NTT (`n_ntt = 1024`,
//! one 50-bit prime: two forward transforms, a pointwise product and an inverse; the fold mod
//! `x^n - 1` and mod `2^16` not included), and the inverses.

use latpoly::rings::ntru::{self, NtruParams};
use latpoly::{Isa, NttPlan};
use std::hint::black_box;

#[path = "common/timing.rs"]
mod timing;

const REPS: usize = 41;

/// (median, best) nanoseconds per call of `f`, over `REPS` batches of `iters` calls. The machine
/// may be shared: the best batch is the least disturbed one, the median the typical one.
fn time_ns(iters: usize, f: impl FnMut()) -> (f64, f64) {
    timing::ns_per_call(REPS, iters, f)
}

/// Deterministic pseudo-random `u16` coefficients (xorshift).
fn poly(n: usize, seed: u64) -> Vec<u16> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u16
        })
        .collect()
}

fn main() {
    let only: Option<usize> = std::env::args().nth(1).and_then(|s| s.parse().ok());
    // `ntru_bench N ISA COUNT [modq]`: only run COUNT products (for `perf stat`).
    if let (Some(n), Some(isa), Some(count)) = (
        only,
        std::env::args().nth(2).and_then(|s| Isa::parse(&s)),
        std::env::args()
            .nth(3)
            .and_then(|s| s.parse::<usize>().ok()),
    ) {
        let (a, b) = (poly(n, 1), poly(n, 2));
        let mut r = vec![0u16; n];
        let modq = std::env::args().nth(4).as_deref() == Some("modq");
        for _ in 0..count {
            if modq {
                ntru::poly_rq_mul_modq_isa(isa, black_box(&a), black_box(&b), &mut r).unwrap();
            } else {
                ntru::poly_rq_mul_isa(isa, black_box(&a), black_box(&b), &mut r).unwrap();
            }
            black_box(&r);
        }
        return;
    }
    println!("default multiplier: {}", ntru::rq_mul_isa());
    println!(
        "{:<16} {:>5} {:>10} {:>12} {:>10}",
        "scheme", "n", "multiplier", "median ns", "best ns"
    );
    for p in NtruParams::ALL {
        let n = p.n();
        if only.is_some_and(|m| m != n) {
            continue;
        }
        let (a, b) = (poly(n, 1), poly(n, 2));
        let mut r = vec![0u16; n];
        let mut reference = vec![0u16; n];
        ntru::poly_rq_mul_isa(Isa::Scalar, &a, &b, &mut reference).unwrap();
        for isa in [Isa::Scalar, Isa::Avx2, Isa::Avx512] {
            let used = ntru::poly_rq_mul_isa(isa, &a, &b, &mut r).unwrap();
            if used != isa {
                continue;
            }
            assert_eq!(r, reference, "{isa} disagrees with the reference");
            let iters = if isa == Isa::Scalar { 50 } else { 2_000 };
            let (med, best) = time_ns(iters, || {
                ntru::poly_rq_mul_isa(isa, black_box(&a), black_box(&b), &mut r).unwrap();
                black_box(&r);
            });
            println!(
                "{:<16} {:>5} {:>10} {:>12.0} {:>10.0}",
                p.name(),
                n,
                isa.name(),
                med,
                best
            );
            if isa == Isa::Scalar {
                continue;
            }
            // the mod-q product (Toom-4 over Karatsuba), PQClean's contract
            let q1 = p.q() - 1;
            ntru::poly_rq_mul_modq_isa(isa, &a, &b, &mut r).unwrap();
            assert!(r.iter().zip(&reference).all(|(&x, &y)| x == y & q1));
            let (med, best) = time_ns(iters, || {
                ntru::poly_rq_mul_modq_isa(isa, black_box(&a), black_box(&b), &mut r).unwrap();
                black_box(&r);
            });
            println!(
                "{:<16} {:>5} {:>10} {:>12.0} {:>10.0}",
                p.name(),
                n,
                format!("{}-modq", isa.name()),
                med,
                best
            );
        }
    }

    // The NTT alternative: exact integer product of length <= 2n - 1 <= 1641 needs n_ntt = 2048
    // for n = 821 and 1024 for n = 509; coefficients < n · 2^32 < 2^42 fit one 50-bit prime.
    println!();
    for n_ntt in [1024usize, 2048] {
        let q = latpoly::primes::ntt_primes(50, n_ntt, 1).unwrap()[0];
        let plan = NttPlan::new(n_ntt, q).unwrap();
        let x: Vec<u64> = poly(n_ntt, 3).iter().map(|&v| u64::from(v)).collect();
        let y: Vec<u64> = poly(n_ntt, 4).iter().map(|&v| u64::from(v)).collect();
        let mut xf = x.clone();
        let mut yf = y.clone();
        let mut z = vec![0u64; n_ntt];
        let (ns, best) = time_ns(500, || {
            xf.copy_from_slice(&x);
            yf.copy_from_slice(&y);
            plan.forward(&mut xf).unwrap();
            plan.forward(&mut yf).unwrap();
            plan.pointwise(&xf, &yf, &mut z).unwrap();
            plan.inverse(&mut z).unwrap();
            black_box(&z);
        });
        println!(
            "NTT alternative (n_ntt = {n_ntt}, 50-bit prime, backend {}): median {ns:.0} ns, best {best:.0} ns (2 fwd + pointwise + inv)",
            plan.isa()
        );
    }

    println!();
    for p in NtruParams::ALL {
        let n = p.n();
        if only.is_some_and(|m| m != n) {
            continue;
        }
        let a = poly(n, 5);
        let mut r = vec![0u16; n];
        let ns_r2 = time_ns(20, || ntru::poly_r2_inv(black_box(&a), p, &mut r).unwrap()).0;
        let ns_rq = time_ns(10, || ntru::poly_rq_inv(black_box(&a), p, &mut r).unwrap()).0;
        let ns_s3 = time_ns(2, || ntru::poly_s3_inv(black_box(&a), p, &mut r).unwrap()).0;
        // poly_lift on a ternary message (HRSS: the division by x - 1; HPS: a copy)
        let m: Vec<u16> = a.iter().map(|&x| x % 3).collect();
        let ns_lift = time_ns(2_000, || ntru::poly_lift(black_box(&m), p, &mut r).unwrap()).0;
        println!(
            "{:<16} R2_inv {:>9.0} ns   Rq_inv {:>9.0} ns   S3_inv {:>10.0} ns   lift {:>6.0} ns (medians)",
            p.name(),
            ns_r2,
            ns_rq,
            ns_s3,
            ns_lift
        );
    }
}
