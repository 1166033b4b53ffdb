//! Encapsulation to arbitrary public keys of the right length, for every KEM of
//! `latpoly::kem::all()`: never a panic. The result is `Ok` with a ciphertext and a shared
//! secret of the scheme's lengths, or the documented error (NTRU+: a 12-bit field `>= q` is
//! `Err(CoefficientOutOfRange)`; NTRU Prime accepts every public key).
//!
//! Input: byte 0 picks the KEM (low 7 bits) and the mode (high bit); the rest is either the
//! public key (cut or zero-padded to the right length) or, in XOR mode, a difference applied
//! to a valid public key whose secret key is known (with no difference the encapsulated secret
//! must decapsulate). The randomness is a SplitMix64 stream seeded from the input, so every
//! run is reproducible. The same bytes with the wrong length are `Err(LengthMismatch)`.

#![no_main]

use latpoly::kem::{all, drbg::KatDrbg, DynKem, RandomSource};
use latpoly::Error;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

struct Fixed {
    kem: &'static dyn DynKem,
    pk: Vec<u8>,
    sk: Vec<u8>,
}

fn fixed() -> &'static [Fixed] {
    static KEYS: OnceLock<Vec<Fixed>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut drbg = KatDrbg::new(&[0xa5; 48]);
        all()
            .into_iter()
            .map(|kem| {
                let (pk, sk) = kem.keypair(&mut drbg).expect("keypair");
                Fixed { kem, pk, sk }
            })
            .collect()
    })
}

/// A cheap deterministic byte stream (the KAT DRBG costs an AES key schedule per block).
struct SplitMix(u64);

impl RandomSource for SplitMix {
    fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let keys = fixed();
    let f = &keys[usize::from(sel & 0x7f) % keys.len()];
    let name = f.kem.name();
    let (pk_len, _, ct_len, ss_len) = f.kem.sizes();
    let pk: Vec<u8> = if sel & 0x80 != 0 {
        let mut pk = f.pk.clone();
        for (c, d) in pk.iter_mut().zip(rest) {
            *c ^= d;
        }
        pk
    } else {
        let mut pk = rest.to_vec();
        pk.resize(pk_len, 0);
        pk
    };
    // FNV-1a of the input seeds the randomness
    let seed = data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    match f.kem.encapsulate(&pk, &mut SplitMix(seed)) {
        Ok((ct, ss)) => {
            assert_eq!(
                (ct.len(), ss.len()),
                (ct_len, ss_len),
                "{name}: output lengths"
            );
            if pk == f.pk {
                let back = f.kem.decapsulate(&f.sk, &ct).expect("decapsulate");
                assert_eq!(back, ss, "{name}: honest encapsulation did not decapsulate");
            }
        }
        Err(e) => {
            assert!(
                name.starts_with("NTRU+KEM") && matches!(e, Error::CoefficientOutOfRange { .. }),
                "{name}: undocumented encapsulation error {e:?}"
            );
            assert_ne!(pk, f.pk, "{name}: a valid public key was refused");
        }
    }
    if rest.len() != pk_len {
        assert!(
            matches!(
                f.kem.encapsulate(rest, &mut SplitMix(seed)),
                Err(Error::LengthMismatch { .. })
            ),
            "{name}: a {}-byte public key was not a length error",
            rest.len()
        );
    }
});
