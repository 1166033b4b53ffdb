//! Constant-time check of `latpoly::sampling` with the ctgrind / TIMECOP method.
//!
//! Run under Valgrind's memcheck (the integration test `tests/ct_sampling.rs` does this):
//!
//! ```sh
//! cargo build --release --example ct_sampling
//! LATPOLY_ISA=avx2 valgrind --error-exitcode=1 --track-origins=yes target/release/examples/ct_sampling
//! ```
//!
//! The 32-byte seed is marked *undefined* with the `VALGRIND_MAKE_MEM_UNDEFINED` client request.
//! Memcheck propagates undefinedness through every value computed from it (the ChaCha20 state,
//! the random words, the samples) and reports an error whenever such a value decides a
//! conditional jump (`Conditional jump or move depends on uninitialised value(s)`) or is used as
//! a memory address or syscall argument (`Use of uninitialised value`). So a clean run means no
//! branch and no memory index of the samplers depends on the seed, for the code paths executed.
//!
//! Modes (first argument):
//!
//! * `all` (default): every sampler of `latpoly::sampling` on the poisoned seed;
//! * `he`: LPR and BFV key generation, encryption and decryption, every secret (keys, noise,
//!   ciphertext contents) derived from the poisoned seed, and the LPR message poisoned too. The
//!   BFV plaintext is not poisoned: encryption checks that its coefficients are below `t` and
//!   returns an error otherwise, a branch on the aggregate validity of the plaintext (the one
//!   deliberate declassification; the check itself folds all coefficients without a branch);
//! * `crt`: exact CRT through `Crt`'s limb functions (`reconstruct_limbs`,
//!   `reconstruct_centered_limbs`, `decompose_limbs`) on residues and limbs from the poisoned
//!   sampler;
//! * `leaky`: a deliberately leaky control (a rejection-sampling loop whose exit depends on the
//!   samples), which memcheck must flag, proving the poisoning reaches the samples;
//! * `leaky-index`: a control that uses a sample as a table index, which memcheck must flag.
//!
//! The binary refuses to run (exit code 2) outside Valgrind, where the client requests are
//! no-ops and the check would be vacuous, and unless `LATPOLY_ISA` is `scalar` or `avx2`
//! (Valgrind does not implement AVX-512; the samplers use no SIMD, but building an RNS context
//! selects NTT backends).

#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

use latpoly::rns::RnsContext;
use latpoly::sampling::{GaussianCdt, Sampler};
use std::hint::black_box;

/// Valgrind client requests (shared with the other constant-time harness).
#[path = "common/valgrind.rs"]
mod valgrind;

/// A sampler whose whole stream is secret to memcheck.
fn poisoned_sampler() -> Sampler {
    let seed = [0x5au8; 32];
    valgrind::poison(&seed);
    Sampler::from_seed(seed)
}

/// Keeps a secret result alive (so the work is not optimised away) without inspecting it.
fn sink<T>(x: T) {
    black_box(&x);
}

/// Runs every sampler on poisoned randomness; returns the number of calls made.
fn run_all() -> usize {
    let mut s = poisoned_sampler();
    let mut calls = 0usize;

    for q in [1u64, 2, 3, 17, 12289, (1 << 62) - 57, u64::MAX] {
        sink(s.uniform(64, q).unwrap());
        calls += 1;
    }
    let mut buf = [0u64; 32];
    s.fill_uniform(&mut buf, 1 << 40).unwrap();
    sink(buf);
    calls += 1;

    for b in [0u64, 1, 5, 1 << 30, 1 << 62] {
        sink(s.bounded(64, b).unwrap());
        calls += 1;
    }
    for eta in [1u32, 2, 3, 21, 32] {
        sink(s.cbd(64, eta).unwrap());
        calls += 1;
    }
    for sigma in [0.5, 3.19, 10.0] {
        sink(s.gaussian(64, sigma).unwrap());
        calls += 1;
    }
    let table = GaussianCdt::new(3.19).unwrap();
    let mut g = [0i64; 32];
    s.fill_gaussian(&table, &mut g);
    sink(g);
    sink(s.gaussian_with(&table, 16).unwrap());
    calls += 2;

    sink(s.ternary(128).unwrap());
    calls += 1;
    for (n, w) in [
        (64usize, 0usize),
        (64, 1),
        (64, 20),
        (64, 63),
        (64, 64),
        (1, 1),
    ] {
        sink(s.ternary_fixed(n, w).unwrap());
        calls += 1;
    }

    let ctx = RnsContext::with_prime_bits(32, 50, 3).unwrap();
    sink(s.uniform_poly(&ctx));
    sink(s.uniform_poly_ntt(&ctx));
    sink(s.bounded_poly(&ctx, 1000).unwrap());
    sink(s.cbd_poly(&ctx, 2).unwrap());
    sink(s.gaussian_poly(&ctx, 3.19).unwrap());
    sink(s.ternary_poly(&ctx));
    sink(s.ternary_fixed_poly(&ctx, 12).unwrap());
    calls += 7;

    let mut ibuf = [0i64; 48];
    s.fill_bounded(&mut ibuf, 7).unwrap();
    s.fill_cbd(&mut ibuf, 2).unwrap();
    s.fill_ternary(&mut ibuf);
    s.fill_ternary_fixed(&mut ibuf, 17).unwrap();
    sink(ibuf);
    calls += 4;

    // `Sampler::new()` is `from_seed(OS bytes)`, covered above; dropping wipes the state.
    drop(s);
    calls
}

/// LPR and BFV: key generation, encryption and decryption, with the sampler poisoned (so the
/// secret keys, the noise and the ciphertexts are too) and the LPR message poisoned.
fn run_he() {
    use latpoly::he::bfv::{Bfv, BfvParams};
    use latpoly::he::lpr::{Lpr, LprParams};
    let mut s = poisoned_sampler();
    for (bits, t) in [(40u32, 257u64), (30, (1 << 35) - 31)] {
        // t below the primes and t above them take the two scale-and-round paths of
        // decryption (the 64-bit kernels of `he/bfv/round.rs`: the AVX2 one under
        // `LATPOLY_ISA=avx2`, the scalar one under `scalar`; and the 128-bit path).
        let bfv = Bfv::new(BfvParams::new(1024, bits, 5, t).unwrap()).unwrap();
        let keys = bfv.keygen(&mut s).unwrap();
        let m: Vec<u64> = (0..1024u64).map(|i| i * 7919 % t).collect();
        let c = bfv.encrypt(&keys.public, &m, &mut s).unwrap();
        for p in c.parts() {
            valgrind::unpoison(p.residues()); // ciphertexts are public
        }
        sink(bfv.decrypt(&keys.secret, &c).unwrap());
        // secret-key encryption: -(a s) + e + [Q m / t], a from a (poisoned) seed; the
        // seeded ciphertext is public once made
        let sc = bfv
            .encrypt_symmetric_seeded(&keys.secret, &m, &mut s)
            .unwrap();
        valgrind::unpoison(sc.c0().residues());
        valgrind::unpoison(&sc.seed()[..]);
        let c = bfv.expand_seeded(&sc).unwrap();
        sink(bfv.decrypt(&keys.secret, &c).unwrap());
        // the secret key to bytes (its two-bit codes are as secret as the key)
        sink(keys.secret.to_bytes());
        // Galois keys (key-switching keys from s(x^g), a public permutation of s)
        let gk = bfv.galois_keygen(&keys.secret, &[3, 2047], &mut s).unwrap();
        sink(&gk);
    }
    for params in [LprParams::n256(), LprParams::n512()] {
        let lpr = Lpr::new(params).unwrap();
        let (pk, sk) = lpr.keygen(&mut s).unwrap();
        // Public keys and ciphertexts are public: encryption and decryption check their range.
        let (a, b) = pk.parts();
        valgrind::unpoison(a);
        valgrind::unpoison(b);
        let msg = vec![0xa5u8; lpr.message_len()];
        valgrind::poison(&msg[..]);
        let ct = lpr.encrypt(&pk, &msg, &mut s).unwrap();
        let (u, v) = ct.parts();
        valgrind::unpoison(u);
        valgrind::unpoison(v);
        sink(lpr.decrypt(&sk, &ct).unwrap());
    }
}

/// A BFV secret key read back from its (secret) bytes. Decoding is constant time except for
/// one branch on the validity verdict (no code 3 anywhere), which the returned `Result` reveals
/// anyway: the test requires that branch, in `secret_key_from_bytes`, to be the one report.
/// The `Result` is declassified as the caller learns it; the key's residues stay secret.
fn run_bfv_secret_key() {
    use latpoly::he::bfv::{Bfv, BfvParams};
    let mut s = poisoned_sampler();
    for (n, bits) in [(1024usize, 40u32), (2, 30)] {
        let bfv = Bfv::new(BfvParams::new(n, bits, 3, 257).unwrap()).unwrap();
        let keys = bfv.keygen(&mut s).unwrap();
        let bytes = keys.secret.to_bytes();
        let sk = bfv.secret_key_from_bytes(&bytes);
        valgrind::unpoison(&sk);
        let sk = sk.unwrap();
        let m: Vec<u64> = (0..n as u64).map(|i| i % 257).collect();
        let c = bfv.encrypt(&keys.public, &m, &mut s).unwrap();
        for p in c.parts() {
            valgrind::unpoison(p.residues());
        }
        let d = bfv.decrypt(&sk, &c).unwrap();
        valgrind::unpoison(&d[..]);
        assert_eq!(d, m);
    }
}

/// BFV on a secret plaintext (a client's data; a server's own plaintext operand): the sampler
/// and the plaintext poisoned, public keys and ciphertexts declassified as they are made. The
/// encryptions, `add_plain`, `sub_plain`, `multiply_plain` (the operand lifted and
/// transformed), `multiply_scalar` (a secret constant), slot
/// encoding and decoding, decryption and modulus switching must not branch on or index by the
/// plaintext; the one permitted report is the range check's verdict, declassified in
/// `latpoly::secret::declassify` (a rejected plaintext is an error the caller sees anyway).
fn run_bfv_plaintext() {
    use latpoly::he::bfv::{Bfv, BfvParams};
    let mut s = poisoned_sampler();
    // t = 12289 is a prime 1 mod 2n: batching
    for (n, bits, t) in [(1024usize, 40u32, 12289u64), (1024, 30, (1 << 35) - 31)] {
        let bfv = Bfv::new(BfvParams::new(n, bits, 3, t).unwrap()).unwrap();
        let keys = bfv.keygen(&mut s).unwrap();
        let public_key = keys.public.to_bytes();
        valgrind::unpoison(&public_key[..]);
        let pk = bfv.public_key_from_bytes(&public_key).unwrap();
        let m: Vec<u64> = (0..n as u64).map(|i| i * 7919 % t).collect();
        valgrind::poison(&m[..]);
        let public = |c: latpoly::he::bfv::BfvCiphertext| {
            for p in c.parts() {
                valgrind::unpoison(p.residues());
            }
            c
        };
        let c = public(bfv.encrypt(&pk, &m, &mut s).unwrap());
        let cs = public(bfv.encrypt_symmetric(&keys.secret, &m, &mut s).unwrap());
        let seeded = bfv
            .encrypt_symmetric_seeded(&keys.secret, &m, &mut s)
            .unwrap();
        let bytes = seeded.to_bytes();
        valgrind::unpoison(&bytes[..]);
        sink(bytes);
        // the server's side: a secret plaintext operand on public ciphertexts
        sink(bfv.add_plain(&c, &m).unwrap());
        sink(bfv.sub_plain(&c, &m).unwrap());
        sink(bfv.multiply_plain(&cs, &m).unwrap());
        // a secret constant (one above t/2, so both sides of the centring run)
        let mut k = [t - 2];
        valgrind::poison(&k[..]);
        sink(bfv.multiply_scalar(&c, k[0]).unwrap());
        k[0] = 3;
        valgrind::poison(&k[..]);
        sink(bfv.multiply_scalar(&c, k[0]).unwrap());
        if bfv.batching() {
            let slots = bfv.encode_slots(&m).unwrap();
            sink(bfv.decode_slots(&slots).unwrap());
        }
        // the client's side: decryption of the (secret) result, also after a modulus switch
        sink(bfv.decrypt(&keys.secret, &c).unwrap());
        let low = bfv.lower(2).unwrap();
        let short = bfv.mod_switch(&c, &low).unwrap();
        let sk = bfv.secret_key_for(&keys.secret, &low).unwrap();
        sink(low.decrypt(&sk, &short).unwrap());
    }
}

/// Exact CRT on secret values through the limb functions: residues drawn from the poisoned
/// sampler to limbs (plain and centred), and poisoned limbs to residues. The `BigUint` / `BigInt`
/// forms are not constant time (a big integer's length is its size) and are not run here.
fn run_crt() {
    use latpoly::primes::ntt_primes;
    use latpoly::rns::Crt;
    let mut s = poisoned_sampler();
    for primes in [
        vec![17u64, 97, 113],
        ntt_primes(62, 16, 1).unwrap(),
        ntt_primes(50, 16, 5).unwrap(),
        ntt_primes(62, 1024, 40).unwrap(),
    ] {
        let crt = Crt::new(&primes).unwrap();
        let w = crt.limb_width();
        for _ in 0..8 {
            let residues: Vec<u64> = primes
                .iter()
                .map(|&q| s.uniform(1, q).unwrap()[0])
                .collect();
            let mut limbs = vec![0u64; w];
            crt.reconstruct_limbs(&residues, &mut limbs).unwrap();
            let mut centred = vec![0u64; w];
            crt.reconstruct_centered_limbs(&residues, &mut centred)
                .unwrap();
            let mut back = vec![0u64; primes.len()];
            crt.decompose_limbs(&limbs, &mut back).unwrap();
            // wider than the table: Horner's rule
            let wide: Vec<u64> = limbs.iter().chain(&centred).copied().collect();
            let mut back2 = vec![0u64; primes.len()];
            crt.decompose_limbs(&wide, &mut back2).unwrap();
            // declassify only the verdict of the round trip
            let same = back
                .iter()
                .zip(&residues)
                .fold(0u64, |a, (x, y)| a | (x ^ y));
            valgrind::unpoison(&same);
            assert_eq!(same, 0);
            sink((centred, back2));
        }
    }
}

/// Negative control: a naive rejection sampler (uniform mod 200 from bytes, redrawing bytes
/// `>= 200`), whose loop exit branches on the secret; memcheck must report it.
fn run_leaky() {
    let mut s = poisoned_sampler();
    let mut out = [0u64; 8];
    let mut draws = 0u64;
    for o in out.iter_mut() {
        loop {
            draws += 1;
            let byte = s.uniform(1, 256).unwrap()[0];
            if byte < 200 {
                *o = byte;
                break;
            }
        }
    }
    sink(out);
    valgrind::unpoison(&draws);
    println!("ct_sampling: leaky control done ({draws} draws)");
}

/// Negative control: using a sample as a memory index must be reported.
fn run_leaky_index() {
    let mut s = poisoned_sampler();
    let table: Vec<u64> = (0..17).collect();
    let v = s.uniform(16, 17).unwrap();
    let sum: u64 = v.iter().map(|&i| table[i as usize]).sum();
    valgrind::unpoison(&sum);
    println!("ct_sampling: leaky-index control done (sum {sum})");
}

fn main() {
    if valgrind::running_on_valgrind() == 0 {
        eprintln!("ct_sampling: not running under valgrind; the check would be vacuous");
        std::process::exit(2);
    }
    match std::env::var("LATPOLY_ISA").as_deref() {
        Ok("scalar") | Ok("avx2") => {}
        _ => {
            eprintln!("ct_sampling: set LATPOLY_ISA=scalar or avx2 (valgrind has no AVX-512)");
            std::process::exit(2);
        }
    }
    let mode = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    match mode.as_str() {
        "all" => {
            let calls = run_all();
            println!("ct_sampling: {calls} sampler calls on a poisoned seed done");
        }
        "he" => {
            run_he();
            println!("LPR and BFV on a poisoned seed done");
        }
        "bfv-secret-key" => {
            run_bfv_secret_key();
            println!("BFV secret key from poisoned bytes done");
        }
        "bfv-plaintext" => {
            run_bfv_plaintext();
            println!("BFV on a poisoned plaintext done");
        }
        "crt" => {
            run_crt();
            println!("CRT limbs on poisoned residues done");
        }
        "leaky" => run_leaky(),
        "leaky-index" => run_leaky_index(),
        other => {
            eprintln!(
                "ct_sampling: unknown mode {other:?} (all, he, bfv-secret-key, bfv-plaintext, crt, \
                 leaky, leaky-index)"
            );
            std::process::exit(2);
        }
    }
}
