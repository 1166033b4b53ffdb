//! Decapsulation of arbitrary ciphertexts of the right length, for every KEM of
//! `latpoly::kem::all()`, under one fixed valid secret key per KEM (generated once from the
//! NIST KAT DRBG with a fixed seed). It must never panic and must return `Ok` with a shared
//! secret of the scheme's length (implicit rejection, or NTRU+'s all-zero key).
//!
//! Input: byte 0 picks the KEM (low 7 bits) and the mode (high bit); the rest is either the
//! ciphertext itself (cut or zero-padded to the right length) or, in XOR mode, a difference
//! applied to a valid ciphertext for the fixed key (so the accepting path is reached and
//! small changes of honest ciphertexts are explored). Checks besides "no panic": the honest
//! ciphertext gives the honest secret; any other ciphertext gives another secret; the same
//! bytes with the wrong length are `Err(LengthMismatch)`.

#![no_main]

use latpoly::kem::{all, drbg::KatDrbg, DynKem};
use latpoly::Error;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

struct Fixed {
    kem: &'static dyn DynKem,
    sk: Vec<u8>,
    ct: Vec<u8>,
    ss: Vec<u8>,
}

fn fixed() -> &'static [Fixed] {
    static KEYS: OnceLock<Vec<Fixed>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut drbg = KatDrbg::new(&[0x5a; 48]);
        all()
            .into_iter()
            .map(|kem| {
                let (pk, sk) = kem.keypair(&mut drbg).expect("keypair");
                let (ct, ss) = kem.encapsulate(&pk, &mut drbg).expect("encapsulate");
                Fixed { kem, sk, ct, ss }
            })
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let keys = fixed();
    let f = &keys[usize::from(sel & 0x7f) % keys.len()];
    let (_, _, ct_len, ss_len) = f.kem.sizes();
    let ct: Vec<u8> = if sel & 0x80 != 0 {
        let mut ct = f.ct.clone();
        for (c, d) in ct.iter_mut().zip(rest) {
            *c ^= d;
        }
        ct
    } else {
        let mut ct = rest.to_vec();
        ct.resize(ct_len, 0);
        ct
    };
    let ss = match f.kem.decapsulate(&f.sk, &ct) {
        Ok(ss) => ss,
        Err(e) => panic!(
            "{}: decapsulate returned Err({e}) for a {ct_len}-byte ciphertext",
            f.kem.name()
        ),
    };
    assert_eq!(ss.len(), ss_len, "{}: shared secret length", f.kem.name());
    if ct == f.ct {
        assert_eq!(
            ss,
            f.ss,
            "{}: the honest ciphertext was rejected",
            f.kem.name()
        );
    } else {
        assert_ne!(
            ss,
            f.ss,
            "{}: a modified ciphertext gave the honest secret",
            f.kem.name()
        );
    }
    if rest.len() != ct_len {
        assert!(
            matches!(
                f.kem.decapsulate(&f.sk, rest),
                Err(Error::LengthMismatch { .. })
            ),
            "{}: a {}-byte ciphertext was not a length error",
            f.kem.name(),
            rest.len()
        );
    }
});
