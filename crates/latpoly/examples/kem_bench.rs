//! Times the KEMs of `latpoly::kem` (keypair, encapsulate, decapsulate) in µs per call, the
//! fastest of several batches (robust on a shared machine), randomness from ChaCha20 (so the OS random source is not timed).
//!
//! `cargo run --release -p latpoly --example kem_bench [-- NAME [OP]]`; `LATPOLY_ISA=scalar` times
//! the scalar ring arithmetic instead of the best backend. With `OP` (`keypair`, `encaps` or
//! `decaps`) only that operation runs, in a loop of a few seconds (for `perf record`).

use latpoly::kem::{all, DynKem, RandomSource};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;

#[path = "common/timing.rs"]
mod timing;

struct ChaCha(ChaCha20Rng);

impl RandomSource for ChaCha {
    fn fill(&mut self, out: &mut [u8]) {
        self.0.fill_bytes(out);
    }
    /// One draw for all the words (a stream cipher), as `OsRandom` does.
    fn fill_words(&mut self, out: &mut [u32]) {
        for w in out.iter_mut() {
            *w = self.0.next_u32();
        }
    }
}

/// µs per call of `f`: the fastest of `batches` batches of `iters` calls.
/// Fastest µs per call over `batches` batches of `iters` calls.
fn time(f: impl FnMut(), iters: u32, batches: usize) -> f64 {
    timing::ns_per_call(batches, iters as usize, f).1 / 1e3
}

fn bench(kem: &dyn DynKem, rng: &mut ChaCha) -> (f64, f64, f64) {
    let (pk, sk) = kem.keypair(rng).unwrap();
    let (ct, _) = kem.encapsulate(&pk, rng).unwrap();
    let keypair = time(
        || {
            black_box(kem.keypair(rng).unwrap());
        },
        200,
        11,
    );
    let enc = time(
        || {
            black_box(kem.encapsulate(black_box(&pk), rng).unwrap());
        },
        500,
        11,
    );
    let dec = time(
        || {
            black_box(kem.decapsulate(black_box(&sk), black_box(&ct)).unwrap());
        },
        500,
        11,
    );
    (keypair, enc, dec)
}

/// Runs one operation of `kem` in a loop (about 20,000 calls), for a profiler.
fn profile(kem: &dyn DynKem, op: &str, rng: &mut ChaCha) {
    let (pk, sk) = kem.keypair(rng).unwrap();
    let (ct, _) = kem.encapsulate(&pk, rng).unwrap();
    for _ in 0..20_000 {
        match op {
            "keypair" => drop(black_box(kem.keypair(rng).unwrap())),
            "encaps" => drop(black_box(kem.encapsulate(black_box(&pk), rng).unwrap())),
            "decaps" => drop(black_box(
                kem.decapsulate(black_box(&sk), black_box(&ct)).unwrap(),
            )),
            other => panic!("unknown operation {other}: keypair, encaps or decaps"),
        }
    }
}

fn main() {
    let only = std::env::args().nth(1);
    let op = std::env::args().nth(2);
    let mut rng = ChaCha(ChaCha20Rng::seed_from_u64(1));
    if let (Some(name), Some(op)) = (&only, &op) {
        let kem = all()
            .into_iter()
            .find(|k| k.name() == name)
            .expect("unknown KEM name");
        profile(kem, op, &mut rng);
        return;
    }
    println!(
        "# µs per call, fastest of 11 batches; NTRU+ ring backend: {}, NTRU Prime ring backend: {}",
        latpoly::rings::ntruplus::isa(),
        latpoly::rings::ntruprime::Multiplier::new().isa()
    );
    println!(
        "{:<14} {:>9} {:>9} {:>9}",
        "kem", "keypair", "encaps", "decaps"
    );
    for kem in all() {
        if only.as_deref().is_some_and(|o| o != kem.name()) {
            continue;
        }
        let (k, e, d) = bench(kem, &mut rng);
        println!("{:<14} {:>9.2} {:>9.2} {:>9.2}", kem.name(), k, e, d);
    }
}
