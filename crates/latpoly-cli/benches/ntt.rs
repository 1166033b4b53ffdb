//! Criterion benches of the NTT, one per (backend, modulus class, n), named like the tests:
//! `ntt/<isa>/q<BITS/n=N/{fwd,inv}`. Run with `cargo bench -p latpoly-cli`; the side-by-side
//! comparison with peers is `latpoly bench`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use latpoly::primes::ntt_primes;
use latpoly::Plan;
use std::hint::black_box;

fn bench_plan<W: latpoly::arith::Word>(c: &mut Criterion, class: &str, n: usize, q: u64) {
    for isa in Plan::<W>::available_isas(n, q) {
        let plan = Plan::<W>::with_isa(n, q, isa).expect("available backend");
        let a: Vec<W> = (0..n as u64).map(|i| W::from_u64(i * 7919 % q)).collect();
        let mut group = c.benchmark_group(format!("ntt/{isa}/{class}"));
        group.bench_function(BenchmarkId::new("fwd", format!("n={n}")), |b| {
            let mut x = a.clone();
            b.iter(|| {
                x.copy_from_slice(&a);
                plan.forward(black_box(&mut x)).expect("in range");
            })
        });
        group.bench_function(BenchmarkId::new("inv", format!("n={n}")), |b| {
            let mut x = a.clone();
            b.iter(|| {
                x.copy_from_slice(&a);
                plan.inverse(black_box(&mut x)).expect("in range");
            })
        });
        group.finish();
    }
}

fn ntt(c: &mut Criterion) {
    for n in [1024usize, 8192] {
        bench_plan::<u64>(c, "q<62", n, ntt_primes(62, n, 1).unwrap()[0]);
        bench_plan::<u64>(c, "q<50", n, ntt_primes(50, n, 1).unwrap()[0]);
    }
    bench_plan::<u32>(c, "q<30", 512, ntt_primes(30, 512, 1).unwrap()[0]);
    bench_plan::<u16>(c, "q<14", 256, 12289);
}

criterion_group!(benches, ntt);
criterion_main!(benches);
