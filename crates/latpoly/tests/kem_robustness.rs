//! Every KEM of `latpoly::kem::all()` on hostile input (the normal-suite counterpart of the
//! cargo-fuzz targets `kem_decapsulate` and `kem_encapsulate`):
//!
//! * ciphertexts of the right length (random, all-zero, all-0xFF, one bit off an honest one):
//!   decapsulation returns `Ok` with a key of the scheme's length, never the honest key; the
//!   rejection is implicit (a pseudorandom, deterministic key) or, for NTRU+, explicit (the
//!   all-zero key, see `latpoly::kem::ntruplus`);
//! * public keys of the right length: encapsulation returns `Ok` or the documented error
//!   (NTRU+: a 12-bit field `>= q` is `CoefficientOutOfRange`);
//! * random secret keys of the right length: decapsulation returns `Ok` (keys are not
//!   validated);
//! * every other length of public key, secret key or ciphertext: `Err(LengthMismatch)`.

use latpoly::kem::{all, drbg::KatDrbg, DynKem, OsRandom};
use latpoly::rings::ntruplus::{encodeq, NtruPlusParams};
use latpoly::Error;
use proptest::prelude::*;
use std::sync::OnceLock;

/// One honest key pair and encapsulation per KEM, from the KAT DRBG with a fixed seed.
struct Fixed {
    kem: &'static dyn DynKem,
    pk: Vec<u8>,
    sk: Vec<u8>,
    ct: Vec<u8>,
    ss: Vec<u8>,
}

fn fixed() -> &'static [Fixed] {
    static KEYS: OnceLock<Vec<Fixed>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut drbg = KatDrbg::new(&[7; 48]);
        all()
            .into_iter()
            .map(|kem| {
                let (pk, sk) = kem.keypair(&mut drbg).unwrap();
                let (ct, ss) = kem.encapsulate(&pk, &mut drbg).unwrap();
                assert_eq!(kem.decapsulate(&sk, &ct).unwrap(), ss, "{}", kem.name());
                Fixed {
                    kem,
                    pk,
                    sk,
                    ct,
                    ss,
                }
            })
            .collect()
    })
}

/// NTRU+ rejects explicitly with the all-zero key; the others implicitly.
fn explicit_rejection(kem: &dyn DynKem) -> bool {
    kem.name().starts_with("NTRU+KEM")
}

/// Decapsulates a ciphertext that is not the honest one and checks the rejection.
fn check_rejected(f: &Fixed, ct: &[u8]) {
    let name = f.kem.name();
    assert_ne!(ct, f.ct.as_slice());
    let ss = f
        .kem
        .decapsulate(&f.sk, ct)
        .unwrap_or_else(|e| panic!("{name}: decapsulate of a well-sized ciphertext: {e}"));
    assert_eq!(ss.len(), f.kem.sizes().3, "{name}");
    assert_ne!(
        ss, f.ss,
        "{name}: a modified ciphertext gave the honest key"
    );
    if explicit_rejection(f.kem) {
        assert!(
            ss.iter().all(|&b| b == 0),
            "{name}: rejection key not all-zero"
        );
    } else {
        assert!(ss.iter().any(|&b| b != 0), "{name}: all-zero rejection key");
        let again = f.kem.decapsulate(&f.sk, ct).unwrap();
        assert_eq!(ss, again, "{name}: implicit rejection is not deterministic");
    }
}

/// Encapsulates to `pk` (of the right length) and checks the outcome; `true` if it was `Ok`.
fn check_encapsulate(f: &Fixed, pk: &[u8]) -> bool {
    let name = f.kem.name();
    let (_, _, ct_len, ss_len) = f.kem.sizes();
    match f.kem.encapsulate(pk, &mut OsRandom) {
        Ok((ct, ss)) => {
            assert_eq!((ct.len(), ss.len()), (ct_len, ss_len), "{name}");
            true
        }
        Err(e) => {
            assert!(
                explicit_rejection(f.kem) && matches!(e, Error::CoefficientOutOfRange { .. }),
                "{name}: undocumented encapsulation error {e:?}"
            );
            false
        }
    }
}

/// A byte string of `len` bytes from `seed` (SplitMix64), so proptest only draws seeds.
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut s = seed;
    (0..len)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) as u8
        })
        .collect()
}

#[test]
fn edge_ciphertexts_are_rejected() {
    for f in fixed() {
        let ct_len = f.kem.sizes().2;
        for fill in [0x00, 0xff] {
            check_rejected(f, &vec![fill; ct_len]);
        }
        for at in [0, ct_len / 2, ct_len - 1] {
            let mut ct = f.ct.clone();
            ct[at] ^= 0x01;
            check_rejected(f, &ct);
        }
    }
}

#[test]
fn edge_public_keys() {
    for f in fixed() {
        let pk_len = f.kem.sizes().0;
        // all-zero: canonical for every scheme, so encapsulation must succeed
        assert!(check_encapsulate(f, &vec![0; pk_len]), "{}", f.kem.name());
        // all-0xFF: NTRU+ fields 4095 >= q are refused, NTRU Prime reduces them
        let ok = check_encapsulate(f, &vec![0xff; pk_len]);
        assert_eq!(ok, !explicit_rejection(f.kem), "{}", f.kem.name());
        // the honest key still works
        let (ct, ss) = f.kem.encapsulate(&f.pk, &mut OsRandom).unwrap();
        assert_eq!(f.kem.decapsulate(&f.sk, &ct).unwrap(), ss);
    }
}

#[test]
fn canonical_random_ntruplus_public_keys_encapsulate() {
    for f in fixed().iter().filter(|f| explicit_rejection(f.kem)) {
        let p = NtruPlusParams::from_n(f.kem.sizes().0 * 2 / 3).unwrap();
        for seed in 0..8u64 {
            let coeffs: Vec<i16> = bytes(seed, 2 * p.n())
                .chunks(2)
                .map(|c| (u16::from_le_bytes([c[0], c[1]]) % p.q()) as i16)
                .collect();
            let pk = encodeq(&coeffs, p).unwrap();
            assert!(check_encapsulate(f, &pk), "{}", f.kem.name());
        }
    }
}

#[test]
fn wrong_lengths_are_errors() {
    for f in fixed() {
        let (pk_len, sk_len, ct_len, _) = f.kem.sizes();
        let name = f.kem.name();
        for delta in [-(pk_len as isize), -1, 1, 100] {
            let pk = vec![0; (pk_len as isize + delta) as usize];
            assert!(
                matches!(
                    f.kem.encapsulate(&pk, &mut OsRandom),
                    Err(Error::LengthMismatch { .. })
                ),
                "{name}: pk length {}",
                pk.len()
            );
        }
        for delta in [-(ct_len as isize), -1, 1, 100] {
            let ct = vec![0; (ct_len as isize + delta) as usize];
            assert!(
                matches!(
                    f.kem.decapsulate(&f.sk, &ct),
                    Err(Error::LengthMismatch { .. })
                ),
                "{name}: ct length {}",
                ct.len()
            );
        }
        for delta in [-(sk_len as isize), -1, 1, 100] {
            let sk = vec![0; (sk_len as isize + delta) as usize];
            assert!(
                matches!(
                    f.kem.decapsulate(&sk, &f.ct),
                    Err(Error::LengthMismatch { .. })
                ),
                "{name}: sk length {}",
                sk.len()
            );
        }
    }
}

fn length_error<T>(r: latpoly::Result<T>) -> bool {
    matches!(r, Err(Error::LengthMismatch { .. }))
}

fn kem_index() -> impl Strategy<Value = usize> {
    0..fixed().len()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random well-sized ciphertexts, and honest ones with a few random bytes changed.
    #[test]
    fn prop_random_ciphertexts_are_rejected(
        k in kem_index(),
        seed in any::<u64>(),
        flips in prop::collection::vec((any::<usize>(), 1u8..), 1..4),
    ) {
        let f = &fixed()[k];
        let ct_len = f.kem.sizes().2;
        check_rejected(f, &bytes(seed, ct_len));
        let mut ct = f.ct.clone();
        for (at, x) in flips {
            ct[at % ct_len] ^= x;
        }
        if ct != f.ct {
            check_rejected(f, &ct);
        }
    }

    /// Random well-sized public keys: `Ok` with the right lengths or the documented error.
    #[test]
    fn prop_random_public_keys(k in kem_index(), seed in any::<u64>()) {
        let f = &fixed()[k];
        check_encapsulate(f, &bytes(seed, f.kem.sizes().0));
    }

    /// Random well-sized secret keys: decapsulation is `Ok` (secret keys are not validated).
    #[test]
    fn prop_random_secret_keys(k in kem_index(), seed in any::<u64>()) {
        let f = &fixed()[k];
        let (_, sk_len, _, ss_len) = f.kem.sizes();
        let ss = f.kem.decapsulate(&bytes(seed, sk_len), &f.ct);
        prop_assert_eq!(ss.map(|s| s.len()).ok(), Some(ss_len));
    }

    /// Any other length: `Err(LengthMismatch)`, never a panic.
    #[test]
    fn prop_wrong_lengths(k in kem_index(), len in 0usize..4096, seed in any::<u64>()) {
        let f = &fixed()[k];
        let (pk_len, sk_len, ct_len, _) = f.kem.sizes();
        let junk = bytes(seed, len);
        if len != pk_len {
            prop_assert!(length_error(f.kem.encapsulate(&junk, &mut OsRandom)), "{} pk", len);
        }
        if len != ct_len {
            prop_assert!(length_error(f.kem.decapsulate(&f.sk, &junk)), "{} ct", len);
        }
        if len != sk_len {
            prop_assert!(length_error(f.kem.decapsulate(&junk, &f.ct)), "{} sk", len);
        }
    }
}
