//! Constant-time check of the KEMs (NTRU-HPS/HRSS, NTRU+KEM, sntrup761, ntrulpr761): key
//! generation, encapsulation and decapsulation with the ctgrind / TIMECOP method (the same method and Valgrind client requests as `ct_sampling.rs`).
//!
//! Run under Valgrind's memcheck (the integration test `tests/ct_kem.rs` does this):
//!
//! ```sh
//! cargo build --release --example ct_kem
//! LATPOLY_ISA=avx2 valgrind --error-exitcode=1 target/release/examples/ct_kem decaps
//! ```
//!
//! Modes (first argument):
//!
//! * `decaps`: for every parameter set (NTRU, NTRU+ and NTRU Prime), the secret key is marked *undefined* and decapsulates
//!   an honest ciphertext, tampered ones (FO rejection, SOTP failure), a non-canonical one and
//!   an all-`0xff` one; the shared secret is declassified only after the call. A clean run
//!   means no branch and no memory index of decapsulation depends on the secret key, on the
//!   message it recovers or on the accept/reject decision (the decision reaches the caller
//!   only through the returned bytes).
//! * `encaps`: the random source's output (the message `m`) is marked undefined; ciphertext
//!   and shared secret are declassified after the call.
//! * `keygen`: the random source's output is marked undefined during key generation of the
//!   schemes without a retry loop (the four NTRU sets and ntrulpr761); the keys are
//!   declassified after the call.
//! * `leaky`: negative control, branching on the decapsulated secret before declassifying it;
//!   memcheck must flag it, which shows the marking reaches the output.
//!
//! * `keygen-retry`: the same for NTRU+KEM (four sets) and sntrup761, whose key generation,
//!   like the references, branches on the invertibility of each candidate (a retry decision on
//!   discarded randomness). That branch is in `latpoly::secret::declassify`, and the test
//!   accepts memcheck reports whose innermost frame is that function, and no other.
//!
//! For NTRU Prime, decapsulation with
//! implicit rejection returns a pseudorandom key on failure, so `accepted` counts non-zero keys
//! only.
//!
//! The binary refuses to run (exit code 2) outside Valgrind, where the client requests are
//! no-ops and the check would be vacuous, and unless `LATPOLY_ISA` is `scalar` or `avx2`.

#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

use latpoly::kem::ntru::NTRU;
use latpoly::kem::ntruplus::NTRUPLUS;
use latpoly::kem::ntruprime::NTRUPRIME;
use latpoly::kem::{DynKem, RandomSource};
use std::hint::black_box;

/// Valgrind client requests (shared with the other constant-time harness).
#[path = "common/valgrind.rs"]
mod valgrind;

/// Deterministic bytes, optionally marked secret for memcheck.
struct Source {
    counter: u8,
    secret: bool,
}

impl RandomSource for Source {
    fn fill(&mut self, out: &mut [u8]) {
        for (i, b) in out.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(29).wrapping_add(self.counter);
        }
        self.counter = self.counter.wrapping_add(1);
        if self.secret {
            valgrind::poison(out);
        }
    }
}

fn public(counter: u8) -> Source {
    Source {
        counter,
        secret: false,
    }
}

/// Ciphertexts for the decapsulation check: honest, then invalid in several ways.
fn ciphertexts(kem: &dyn DynKem, pk: &[u8]) -> Vec<Vec<u8>> {
    let (ct, _) = kem.encapsulate(pk, &mut public(7)).unwrap();
    let mut out = vec![ct.clone()];
    for (i, bit) in [(0usize, 1u8), (ct.len() / 2, 0x10), (ct.len() - 1, 0x80)] {
        let mut c = ct.clone();
        c[i] ^= bit;
        out.push(c);
    }
    // 0xfff in the first field: non-canonical
    let mut c = ct.clone();
    c[0] = 0xff;
    c[1] |= 0x0f;
    out.push(c);
    out.push(vec![0xff; ct.len()]);
    out.push(vec![0; ct.len()]);
    out
}

/// Decapsulations under a secret key marked undefined; returns how many were accepted.
fn run_decaps() -> (usize, usize) {
    let (mut calls, mut accepted) = (0, 0);
    for kem in NTRU.into_iter().chain(NTRUPLUS).chain(NTRUPRIME) {
        let (pk, sk) = kem.keypair(&mut public(1)).unwrap();
        for ct in ciphertexts(kem, &pk) {
            let secret = sk.clone();
            valgrind::poison(&secret[..]);
            let ss = kem.decapsulate(&secret, &ct).unwrap();
            valgrind::unpoison(&ss[..]);
            accepted += ss.iter().any(|&b| b != 0) as usize;
            calls += 1;
        }
    }
    (calls, accepted)
}

/// Encapsulations with the random source marked undefined.
fn run_encaps() -> usize {
    let mut calls = 0;
    for kem in NTRU.into_iter().chain(NTRUPLUS).chain(NTRUPRIME) {
        let (pk, _) = kem.keypair(&mut public(1)).unwrap();
        for counter in 0..3 {
            let (ct, ss) = kem
                .encapsulate(
                    &pk,
                    &mut Source {
                        counter,
                        secret: true,
                    },
                )
                .unwrap();
            valgrind::unpoison(&ct[..]);
            valgrind::unpoison(&ss[..]);
            black_box((ct, ss));
            calls += 1;
        }
    }
    calls
}

/// Two key generations of each of `kems` with the random source marked undefined; the keys
/// are declassified after each call.
fn run_keygen(kems: impl IntoIterator<Item = &'static dyn DynKem>) -> usize {
    let mut calls = 0;
    for kem in kems {
        for counter in 0..2 {
            let (pk, sk) = kem
                .keypair(&mut Source {
                    counter,
                    secret: true,
                })
                .unwrap();
            valgrind::unpoison(&pk[..]);
            valgrind::unpoison(&sk[..]);
            black_box((pk, sk));
            calls += 1;
        }
    }
    calls
}

/// Negative control: branches on the (still secret) decapsulated key.
fn run_leaky() {
    let kem = NTRUPLUS[0];
    let (pk, sk) = kem.keypair(&mut public(1)).unwrap();
    let (ct, _) = kem.encapsulate(&pk, &mut public(2)).unwrap();
    let secret = sk.clone();
    valgrind::poison(&secret[..]);
    let ss = kem.decapsulate(&secret, &ct).unwrap();
    let mut rejected = true;
    for &b in &ss {
        if b != 0 {
            rejected = false;
            break;
        }
    }
    black_box(rejected);
    println!("ct_kem: leaky control done");
}

fn main() {
    if valgrind::running_on_valgrind() == 0 {
        eprintln!("ct_kem: not running under valgrind; the check would be vacuous");
        std::process::exit(2);
    }
    match std::env::var("LATPOLY_ISA").as_deref() {
        Ok("scalar") | Ok("avx2") => {}
        _ => {
            eprintln!("ct_kem: set LATPOLY_ISA=scalar or avx2 (valgrind has no AVX-512)");
            std::process::exit(2);
        }
    }
    let mode = std::env::args().nth(1).unwrap_or_default();
    match mode.as_str() {
        "decaps" => {
            let (calls, accepted) = run_decaps();
            println!("ct_kem: {calls} decapsulations under a poisoned secret key done ({accepted} accepted)");
        }
        "encaps" => {
            let calls = run_encaps();
            println!("ct_kem: {calls} encapsulations with poisoned randomness done");
        }
        "keygen" => {
            // the schemes without a retry loop
            let calls = run_keygen(NTRU.into_iter().chain([NTRUPRIME[1]]));
            println!("ct_kem: {calls} key generations with poisoned randomness done");
        }
        "keygen-retry" => {
            // NTRU+KEM and sntrup761: their one allowed secret branch is the retry decision in
            // `latpoly::secret::declassify`, and the test accepts reports in that frame only
            let calls = run_keygen(NTRUPLUS.into_iter().chain([NTRUPRIME[0]]));
            println!(
                "ct_kem: {calls} key generations with a retry loop and poisoned randomness done"
            );
        }
        "leaky" => run_leaky(),
        other => {
            eprintln!(
                "ct_kem: unknown mode {other:?} (decaps, encaps, keygen, keygen-retry, leaky)"
            );
            std::process::exit(2);
        }
    }
}
