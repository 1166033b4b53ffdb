//! Feeds arbitrary bytes to the BFV readers (`Bfv::{secret_key, public_key, relin_key,
//! ciphertext, galois_keys, seeded_ciphertext}_from_bytes`, the first input byte choosing one):
//! none may panic, and whatever
//! one accepts must serialize back to exactly the input (the keys' formats are canonical; a
//! ciphertext is too when its polynomials were stored in coefficient form, the only form its
//! `to_bytes` writes). An accepted object must also be usable: a key encrypts, relinearizes,
//! rotates or decrypts, a ciphertext decrypts, and also after a modulus switch to one prime.

#![no_main]

use latpoly::he::bfv::{Bfv, BfvKeys, BfvParams, BfvSecretKey};
use latpoly::sampling::Sampler;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// n = 4 with two 30-bit primes and t = 3; the key set of the seed corpus (Sampler seed 7).
fn fixed() -> &'static (Bfv, BfvKeys) {
    static BFV: OnceLock<(Bfv, BfvKeys)> = OnceLock::new();
    BFV.get_or_init(|| {
        let bfv = Bfv::new(BfvParams::new(4, 30, 2, 3).expect("parameters")).expect("instance");
        let keys = bfv.keygen(&mut Sampler::from_seed([7; 32])).expect("keys");
        (bfv, keys)
    })
}

/// The instance of the first prime of [`fixed`]'s, and the secret key there.
fn lower() -> &'static (Bfv, BfvSecretKey) {
    static LOW: OnceLock<(Bfv, BfvSecretKey)> = OnceLock::new();
    LOW.get_or_init(|| {
        let (bfv, keys) = fixed();
        let low = bfv.lower(1).expect("lower instance");
        let sk = bfv.secret_key_for(&keys.secret, &low).expect("key");
        (low, sk)
    })
}

fuzz_target!(|input: &[u8]| {
    let Some((&which, data)) = input.split_first() else {
        return;
    };
    let (bfv, keys) = fixed();
    let mut rng = Sampler::from_seed([1; 32]);
    match which % 6 {
        0 => {
            if let Ok(sk) = bfv.secret_key_from_bytes(data) {
                assert_eq!(&sk.to_bytes()[..], data, "non-canonical secret key accepted");
                let c = bfv.encrypt(&keys.public, &[1, 2, 0, 1], &mut rng).expect("encrypt");
                bfv.decrypt(&sk, &c).expect("decrypt with any valid key");
            }
        }
        1 => {
            if let Ok(pk) = bfv.public_key_from_bytes(data) {
                assert_eq!(pk.to_bytes(), data, "non-canonical public key accepted");
                bfv.encrypt(&pk, &[0, 1, 2, 0], &mut rng).expect("encrypt");
            }
        }
        2 => {
            if let Ok(rlk) = bfv.relin_key_from_bytes(data) {
                assert_eq!(rlk.to_bytes(), data, "non-canonical relinearization key accepted");
                let c = bfv.encrypt(&keys.public, &[2, 2, 2, 2], &mut rng).expect("encrypt");
                let c3 = bfv.multiply(&c, &c).expect("multiply");
                bfv.relinearize(&c3, &rlk).expect("relinearize");
            }
        }
        4 => {
            if let Ok(gk) = bfv.galois_keys_from_bytes(data) {
                assert_eq!(gk.to_bytes(), data, "non-canonical Galois keys accepted");
                let c = bfv.encrypt(&keys.public, &[1, 0, 0, 2], &mut rng).expect("encrypt");
                for g in gk.elements() {
                    bfv.apply_galois(&c, g, &gk).expect("a key for each element");
                }
            }
        }
        5 => {
            if let Ok(s) = bfv.seeded_ciphertext_from_bytes(data) {
                // byte 6 of the part (after the 8-byte header and the 32-byte seed) is its
                // representation: an NTT-form c_0 is accepted and converted
                let canonical = s.to_bytes();
                assert_eq!(s.serialized_len(), canonical.len());
                assert!(
                    data[40 + 6] == 1 || canonical == data,
                    "non-canonical seeded ciphertext accepted"
                );
                let c = bfv.expand_seeded(&s).expect("expand");
                bfv.decrypt(&keys.secret, &c).expect("decrypt");
            }
        }
        _ => {
            if let Ok(c) = bfv.ciphertext_from_bytes(data) {
                let canonical = c.to_bytes();
                assert_eq!(c.serialized_len(), canonical.len());
                // every part has the same length here; byte 6 of each is its representation
                let part = (data.len() - 8) / c.len();
                let ntt = (0..c.len()).any(|i| data[8 + i * part + 6] == 1);
                assert!(
                    ntt || canonical == data,
                    "non-canonical coefficient-form ciphertext accepted"
                );
                let again = bfv.ciphertext_from_bytes(&canonical).expect("own encoding");
                assert_eq!(again.to_bytes(), canonical);
                bfv.decrypt(&keys.secret, &c).expect("decrypt");
                bfv.noise_budget(&keys.secret, &c).expect("noise budget");
                // any ciphertext switches down, decrypts there and reads back there
                let (low, sk) = lower();
                let short = bfv.mod_switch(&c, low).expect("mod switch");
                low.decrypt(sk, &short).expect("decrypt after the switch");
                let bytes = short.to_bytes();
                let back = low.ciphertext_from_bytes(&bytes).expect("own encoding");
                assert_eq!(back.to_bytes(), bytes);
            }
        }
    }
});
