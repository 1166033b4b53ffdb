//! Times the NTRU+ ring operations (ntt, invntt, basemul, baseinv, mul) per parameter set on
//! every backend this CPU runs, in ns per call (median of several batches).
//!
//! `cargo run --release -p latpoly --example ntruplus_bench [-- ISA [N]]`

use latpoly::rings::ntruplus::{available_isas, NtruPlusParams, NtruPlusRing};
use std::hint::black_box;

#[path = "common/timing.rs"]
mod timing;

/// Median ns per call of `f` over `batches` batches of `iters` calls.
fn time(f: impl FnMut(), iters: u32, batches: usize) -> f64 {
    timing::ns_per_call(batches, iters as usize, f).0
}

fn main() {
    // optional filters: `-- avx2` times only that backend, `-- avx512 864` only that set too
    let only = std::env::args().nth(1);
    let only_n: Option<usize> = std::env::args().nth(2).and_then(|s| s.parse().ok());
    let isas: Vec<_> = available_isas()
        .into_iter()
        .filter(|i| only.as_deref().is_none_or(|o| o == i.name()))
        .collect();
    println!("# ns per call, median of 15 batches; backends: {isas:?}");
    println!(
        "{:<14} {:<7} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "set", "isa", "ntt", "invntt", "basemul", "baseinv", "mul"
    );
    for p in NtruPlusParams::ALL {
        let n = p.n();
        if only_n.is_some_and(|m| m != n) {
            continue;
        }
        let a: Vec<i16> = (0..n)
            .map(|i| ((i * 2654435761usize) % 3457) as i16 - 1728)
            .collect();
        let b: Vec<i16> = (0..n)
            .map(|i| ((i * 40503 + 7) % 3457) as i16 - 1728)
            .collect();
        for &isa in &isas {
            let r = NtruPlusRing::with_isa(p, isa).unwrap();
            let mut x = a.clone();
            let ntt = time(
                || {
                    x.copy_from_slice(&a);
                    r.ntt(black_box(&mut x)).unwrap();
                },
                2000,
                15,
            );
            let inv = time(
                || {
                    x.copy_from_slice(&a);
                    r.invntt(black_box(&mut x)).unwrap();
                },
                2000,
                15,
            );
            let mut c = vec![0i16; n];
            let bm = time(
                || {
                    r.basemul_into(&mut c, black_box(&a), black_box(&b))
                        .unwrap();
                    black_box(&c);
                },
                2000,
                15,
            );
            let bi = time(
                || {
                    black_box(r.baseinv_into(&mut c, black_box(&a)).unwrap());
                    black_box(&c);
                },
                1000,
                15,
            );
            let mul = time(
                || {
                    black_box(r.mul(black_box(&a), black_box(&b)).unwrap());
                },
                500,
                15,
            );
            println!(
                "{:<14} {:<7} {:>8.0} {:>8.0} {:>8.0} {:>8.0} {:>8.0}",
                p.name(),
                isa.name(),
                ntt,
                inv,
                bm,
                bi,
                mul
            );
        }
    }
}
