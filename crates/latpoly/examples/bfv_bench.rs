//! Timing of the BFV operations (workload A2), of their building blocks and of batching,
//! rotations and ciphertext bytes, for profiling.
//!
//! ```sh
//! cargo run --release -p latpoly --example bfv_bench            # n = 4096 and n = 8192
//! cargo run --release -p latpoly --example bfv_bench -- 8192 mul # one n, one operation
//! ```
//!
//! Prints the median and best time per call over `REPS` batches (after a warm-up). The bench
//! harness (`latpoly bench --only A2`) is the reference for comparisons with peers; this example
//! exists to time one operation in a loop (e.g. under `perf record`).

use latpoly::he::bfv::{Bfv, BfvParams};
use latpoly::sampling::Sampler;
use std::hint::black_box;

#[path = "common/timing.rs"]
mod timing;

const REPS: usize = 11;

/// (median, best) microseconds per call of `f` over `REPS` batches of `iters` calls.
fn time_us(iters: usize, f: impl FnMut()) -> (f64, f64) {
    let (median, best) = timing::ns_per_call(REPS, iters, f);
    (median / 1e3, best / 1e3)
}

fn main() -> latpoly::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ns: Vec<usize> = match args.first() {
        Some(a) => vec![a.parse().expect("n is 4096 or 8192")],
        None => vec![4096, 8192],
    };
    let only = args.get(1).cloned();
    let want = |op: &str| only.as_deref().is_none_or(|o| o == op);
    for n in ns {
        let params = match n {
            4096 => BfvParams::n4096_q124(65537)?,
            8192 => BfvParams::n8192_q218(65537)?,
            _ => panic!("n is 4096 or 8192"),
        };
        let bfv = Bfv::new(params)?;
        let mut rng = Sampler::from_seed([7; 32]);
        let keys = bfv.keygen(&mut rng)?;
        let m: Vec<u64> = (0..n as u64).map(|i| i * 31 % 65537).collect();
        let c1 = bfv.encrypt(&keys.public, &m, &mut rng)?;
        let c2 = bfv.encrypt(&keys.public, &m, &mut rng)?;
        let c3 = bfv.multiply(&c1, &c2)?;
        // BFV_ITERS=100 makes the timed loop dominate a `perf record` of the example.
        let iters = std::env::var("BFV_ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(if n == 4096 { 4 } else { 2 });
        let row = |op: &str, f: &mut dyn FnMut()| {
            if want(op) {
                let (med, best) = time_us(iters, f);
                println!("n={n:5} {op:8} median {med:10.1} us  best {best:10.1} us");
            }
        };
        row("encrypt", &mut || {
            black_box(bfv.encrypt(&keys.public, &m, &mut rng).unwrap());
        });
        // Secret-key encryption, in full and to the compact bytes, and the receiver's side.
        row("enc_sym", &mut || {
            black_box(bfv.encrypt_symmetric(&keys.secret, &m, &mut rng).unwrap());
        });
        row("enc_seed", &mut || {
            let s = bfv.encrypt_symmetric_seeded(&keys.secret, &m, &mut rng);
            black_box(s.unwrap().to_bytes());
        });
        let seeded = bfv
            .encrypt_symmetric_seeded(&keys.secret, &m, &mut rng)?
            .to_bytes();
        row("expand", &mut || {
            let s = bfv.seeded_ciphertext_from_bytes(&seeded).unwrap();
            black_box(bfv.expand_seeded(&s).unwrap());
        });
        row("decrypt", &mut || {
            black_box(bfv.decrypt(&keys.secret, &c1).unwrap());
        });
        // Modulus switching to one prime, and decryption there (the short answer's path).
        let low = bfv.lower(1)?;
        let low_sk = bfv.secret_key_for(&keys.secret, &low)?;
        let short = bfv.mod_switch(&c1, &low)?;
        row("switch", &mut || {
            black_box(bfv.mod_switch(&c1, &low).unwrap());
        });
        row("dec_low", &mut || {
            black_box(low.decrypt(&low_sk, &short).unwrap());
        });
        row("add", &mut || {
            black_box(bfv.add(&c1, &c2).unwrap());
        });
        row("sub", &mut || {
            black_box(bfv.sub(&c1, &c2).unwrap());
        });
        row("negate", &mut || {
            black_box(bfv.negate(&c1).unwrap());
        });
        // Plaintext operands: a polynomial, and a constant (no transforms).
        row("add_pt", &mut || {
            black_box(bfv.add_plain(&c1, &m).unwrap());
        });
        row("sub_pt", &mut || {
            black_box(bfv.sub_plain(&c1, &m).unwrap());
        });
        row("mul_pt", &mut || {
            black_box(bfv.multiply_plain(&c1, &m).unwrap());
        });
        row("mul_k", &mut || {
            black_box(bfv.multiply_scalar(&c1, 12345).unwrap());
        });
        row("tensor", &mut || {
            black_box(bfv.multiply(&c1, &c2).unwrap());
        });
        // A square lifts its two polynomials once (the same ciphertext twice).
        row("square", &mut || {
            black_box(bfv.multiply(&c1, &c1).unwrap());
        });
        row("relin", &mut || {
            black_box(bfv.relinearize(&c3, &keys.relin).unwrap());
        });
        // One level down (a prime fewer): with the full instance's key, and with a key made
        // there for the same secret (the same work; the digits' constants differ).
        let mid = bfv.lower(bfv.context().len() - 1)?;
        let mid_sk = bfv.secret_key_for(&keys.secret, &mid)?;
        let mid_keys = mid.keygen_with_secret(mid_sk, &mut rng)?;
        let c3_mid = bfv.mod_switch(&c3, &mid)?;
        row("rel_low", &mut || {
            black_box(mid.relinearize(&c3_mid, &keys.relin).unwrap());
        });
        row("rel_own", &mut || {
            black_box(mid.relinearize(&c3_mid, &mid_keys.relin).unwrap());
        });
        // The base extensions multiplication runs (4 lifts Q -> P, 3 x (Q -> P, P -> Q)).
        let (q, aux) = (bfv.context(), bfv.aux_context());
        let q_to_p = latpoly::rns::BaseExtender::new(q, aux)?;
        let p_to_q = latpoly::rns::BaseExtender::new(aux, q)?;
        let xq = c1.parts()[0].clone();
        let xp = q_to_p.extend_exact(&xq, true)?;
        row("ext_q2p", &mut || {
            black_box(q_to_p.extend_exact(&xq, true).unwrap());
        });
        row("ext_p2q", &mut || {
            black_box(p_to_q.extend_exact(&xp, true).unwrap());
        });
        row("mul", &mut || {
            black_box(bfv.multiply_relin(&c1, &c2, &keys.relin).unwrap());
        });
        row("sqr_rel", &mut || {
            black_box(bfv.multiply_relin(&c1, &c1, &keys.relin).unwrap());
        });
        // Batching and a row rotation (t = 65537 is a prime 1 mod 2n): one key switch.
        let gk = bfv.rotation_keygen(&keys.secret, &[1], false, &mut rng)?;
        let slots = bfv.decode_slots(&m)?;
        row("encode", &mut || {
            black_box(bfv.encode_slots(&slots).unwrap());
        });
        row("rotate", &mut || {
            black_box(bfv.rotate_rows(&c1, 1, &gk).unwrap());
        });
        row("ct_bytes", &mut || {
            black_box(bfv.ciphertext_from_bytes(&c1.to_bytes()).unwrap());
        });
    }
    Ok(())
}
