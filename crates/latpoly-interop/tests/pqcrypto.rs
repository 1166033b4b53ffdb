//! latpoly's KEMs against PQClean (through the registry crates `pqcrypto-ntruprime` and
//! `pqcrypto-ntru`), on random keys both ways:
//!
//! * latpoly key pair -> PQClean encapsulates -> latpoly decapsulates the same shared secret
//!   (and PQClean, given latpoly's secret key, too);
//! * PQClean key pair -> latpoly encapsulates -> PQClean decapsulates the same shared secret
//!   (and latpoly, given PQClean's secret key, too);
//! * on every tenth pair, a ciphertext with one bit flipped: both implementations reject it
//!   implicitly to the **same** pseudorandom key (the secret key formats agree byte for byte).
//!
//! Each scheme is two [`Peer`] rows: [`peer!`] through the pqcrypto module's safe API (which
//! runs PQClean's AVX2 code on CPUs with AVX2) and [`peer_clean!`] through its `ffi` functions
//! of PQClean's portable `clean` code; the latpoly side is found by name with
//! `latpoly::kem::by_name`. To add a scheme, add its two rows. `LATPOLY_INTEROP_PAIRS`
//! overrides the number of key pairs per direction (default 1000; a tenth of that for the
//! slower `clean` rows). A failing case is written to a file (hex) whose path the failure
//! message gives.

use latpoly::kem::{by_name, DynKem, OsRandom};
use std::fmt::Write as _;

/// Two byte strings: `(pk, sk)` or `(ct, ss)`.
type Pair = (Vec<u8>, Vec<u8>);

/// One scheme as PQClean implements it, on byte slices.
struct Peer {
    /// latpoly's name of the scheme ([`by_name`]).
    name: &'static str,
    /// Where the PQClean side comes from (for messages).
    source: &'static str,
    /// `(public key, secret key, ciphertext, shared secret)` lengths.
    sizes: (usize, usize, usize, usize),
    /// `(pk, sk)`.
    keypair: fn() -> Pair,
    /// `pk -> (ct, ss)`.
    encapsulate: fn(&[u8]) -> Pair,
    /// `(sk, ct) -> ss`.
    decapsulate: fn(&[u8], &[u8]) -> Vec<u8>,
}

/// `peer!("latpoly name", pqcrypto_crate::module)`: a [`Peer`] row.
macro_rules! peer {
    ($name:literal, $krate:ident :: $m:ident) => {
        Peer {
            name: $name,
            source: concat!(stringify!($krate), "::", stringify!($m)),
            sizes: (
                $krate::$m::public_key_bytes(),
                $krate::$m::secret_key_bytes(),
                $krate::$m::ciphertext_bytes(),
                $krate::$m::shared_secret_bytes(),
            ),
            keypair: || {
                use pqcrypto_traits::kem::{PublicKey as _, SecretKey as _};
                let (pk, sk) = $krate::$m::keypair();
                (pk.as_bytes().to_vec(), sk.as_bytes().to_vec())
            },
            encapsulate: |pk| {
                use pqcrypto_traits::kem::{Ciphertext as _, PublicKey as _, SharedSecret as _};
                let pk = $krate::$m::PublicKey::from_bytes(pk).expect("public key length");
                let (ss, ct) = $krate::$m::encapsulate(&pk);
                (ct.as_bytes().to_vec(), ss.as_bytes().to_vec())
            },
            decapsulate: |sk, ct| {
                use pqcrypto_traits::kem::{Ciphertext as _, SecretKey as _, SharedSecret as _};
                let sk = $krate::$m::SecretKey::from_bytes(sk).expect("secret key length");
                let ct = $krate::$m::Ciphertext::from_bytes(ct).expect("ciphertext length");
                $krate::$m::decapsulate(&ct, &sk).as_bytes().to_vec()
            },
        }
    };
}

/// `peer_clean!("latpoly name", pqcrypto_crate::module, KEYPAIR, ENC, DEC)`: a [`Peer`] row
/// calling PQClean's portable `clean` code directly through `pqcrypto_crate::ffi` (the safe
/// API of [`peer!`] runs the AVX2 code on CPUs that have AVX2, so both are tested).
macro_rules! peer_clean {
    ($name:literal, $krate:ident :: $m:ident, $kp:ident, $enc:ident, $dec:ident) => {
        Peer {
            name: $name,
            source: concat!(stringify!($krate), "::ffi::", stringify!($kp)),
            sizes: (
                $krate::$m::public_key_bytes(),
                $krate::$m::secret_key_bytes(),
                $krate::$m::ciphertext_bytes(),
                $krate::$m::shared_secret_bytes(),
            ),
            keypair: || {
                let mut pk = vec![0u8; $krate::$m::public_key_bytes()];
                let mut sk = vec![0u8; $krate::$m::secret_key_bytes()];
                // SAFETY: buffers of the lengths the C function writes.
                let rc = unsafe { $krate::ffi::$kp(pk.as_mut_ptr(), sk.as_mut_ptr()) };
                assert_eq!(rc, 0, "{}", stringify!($kp));
                (pk, sk)
            },
            encapsulate: |pk| {
                assert_eq!(pk.len(), $krate::$m::public_key_bytes());
                let mut ct = vec![0u8; $krate::$m::ciphertext_bytes()];
                let mut ss = vec![0u8; $krate::$m::shared_secret_bytes()];
                // SAFETY: buffers of the lengths the C function reads and writes.
                let rc =
                    unsafe { $krate::ffi::$enc(ct.as_mut_ptr(), ss.as_mut_ptr(), pk.as_ptr()) };
                assert_eq!(rc, 0, "{}", stringify!($enc));
                (ct, ss)
            },
            decapsulate: |sk, ct| {
                assert_eq!(sk.len(), $krate::$m::secret_key_bytes());
                assert_eq!(ct.len(), $krate::$m::ciphertext_bytes());
                let mut ss = vec![0u8; $krate::$m::shared_secret_bytes()];
                // SAFETY: buffers of the lengths the C function reads and writes.
                let rc = unsafe { $krate::ffi::$dec(ss.as_mut_ptr(), ct.as_ptr(), sk.as_ptr()) };
                assert_eq!(rc, 0, "{}", stringify!($dec));
                ss
            },
        }
    };
}

fn pairs() -> usize {
    match std::env::var("LATPOLY_INTEROP_PAIRS") {
        Ok(s) => s
            .parse()
            .unwrap_or_else(|_| panic!("LATPOLY_INTEROP_PAIRS={s:?} is not a count")),
        Err(_) => 1000,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Writes the failing case to a file and panics with `what` and the file's path.
fn fail(peer: &Peer, what: &str, fields: &[(&str, &[u8])]) -> ! {
    let mut text = format!("# {} vs {}: {what}\n", peer.name, peer.source);
    for (k, v) in fields {
        let _ = writeln!(text, "{k} = {}", hex(v));
    }
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("interop-failure-{}.txt", peer.name));
    match std::fs::write(&path, &text) {
        Ok(()) => panic!("{}: {what} (case written to {})", peer.name, path.display()),
        Err(e) => panic!(
            "{}: {what} (could not write the case: {e})\n{text}",
            peer.name
        ),
    }
}

/// Flips one bit of `ct` (a different position for each `i`).
fn tampered(ct: &[u8], i: usize) -> Vec<u8> {
    let mut bad = ct.to_vec();
    let at = (i * 7919) % bad.len();
    bad[at] ^= 1 << (i % 8);
    bad
}

/// Both implementations decapsulate `ct` under `sk` to `ss` (and a tampered `ct`, when asked,
/// to the same rejection key).
fn check_decapsulations(
    peer: &Peer,
    kem: &dyn DynKem,
    dir: &str,
    (pk, sk, ct, ss): (&[u8], &[u8], &[u8], &[u8]),
    tamper: Option<usize>,
) {
    let case = [("pk", pk), ("sk", sk), ("ct", ct), ("ss", ss)];
    let ours = kem
        .decapsulate(sk, ct)
        .unwrap_or_else(|e| fail(peer, &format!("{dir}: latpoly decapsulate: {e}"), &case));
    if ours != ss {
        fail(
            peer,
            &format!("{dir}: latpoly decapsulates another secret"),
            &case,
        );
    }
    if (peer.decapsulate)(sk, ct) != ss {
        fail(
            peer,
            &format!("{dir}: PQClean decapsulates another secret"),
            &case,
        );
    }
    if let Some(i) = tamper {
        let bad = tampered(ct, i);
        let ours = kem
            .decapsulate(sk, &bad)
            .unwrap_or_else(|e| fail(peer, &format!("{dir}: latpoly rejection: {e}"), &case));
        let theirs = (peer.decapsulate)(sk, &bad);
        let case = [("pk", pk), ("sk", sk), ("ct", &bad[..]), ("ss", ss)];
        if ours != theirs {
            fail(peer, &format!("{dir}: rejection keys differ"), &case);
        }
        if ours == ss {
            fail(
                peer,
                &format!("{dir}: a tampered ciphertext was accepted"),
                &case,
            );
        }
    }
}

/// The interoperability run over `peers`, `n` key pairs per direction each.
fn interop(peers: &[Peer], n: usize) {
    for peer in peers {
        let kem = by_name(peer.name).unwrap_or_else(|| {
            panic!(
                "latpoly::kem::by_name({:?}) is None: latpoly has no such KEM to test against {}",
                peer.name, peer.source
            )
        });
        assert_eq!(kem.sizes(), peer.sizes, "{}: sizes", peer.name);
        for i in 0..n {
            let tamper = (i % 10 == 0).then_some(i);

            // latpoly key pair, PQClean encapsulates
            let (pk, sk) = kem.keypair(&mut OsRandom).expect("latpoly keypair");
            let (ct, ss) = (peer.encapsulate)(&pk);
            check_decapsulations(peer, kem, "latpoly keys", (&pk, &sk, &ct, &ss), tamper);

            // PQClean key pair, latpoly encapsulates
            let (pk, sk) = (peer.keypair)();
            let (ct, ss) = kem.encapsulate(&pk, &mut OsRandom).unwrap_or_else(|e| {
                fail(peer, &format!("latpoly encapsulate: {e}"), &[("pk", &pk)])
            });
            check_decapsulations(peer, kem, "PQClean keys", (&pk, &sk, &ct, &ss), tamper);
        }
        eprintln!(
            "{}: {n} key pairs each way agree with {}",
            peer.name, peer.source
        );
    }
}

#[test]
fn ntruprime_matches_pqclean() {
    interop(
        &[
            peer!("sntrup761", pqcrypto_ntruprime::sntrup761),
            peer!("ntrulpr761", pqcrypto_ntruprime::ntrulpr761),
        ],
        pairs(),
    );
    // PQClean's portable code is up to ten times slower (its reciprocals): a tenth of the pairs
    interop(
        &[
            peer_clean!(
                "sntrup761",
                pqcrypto_ntruprime::sntrup761,
                PQCLEAN_SNTRUP761_CLEAN_crypto_kem_keypair,
                PQCLEAN_SNTRUP761_CLEAN_crypto_kem_enc,
                PQCLEAN_SNTRUP761_CLEAN_crypto_kem_dec
            ),
            peer_clean!(
                "ntrulpr761",
                pqcrypto_ntruprime::ntrulpr761,
                PQCLEAN_NTRULPR761_CLEAN_crypto_kem_keypair,
                PQCLEAN_NTRULPR761_CLEAN_crypto_kem_enc,
                PQCLEAN_NTRULPR761_CLEAN_crypto_kem_dec
            ),
        ],
        pairs().div_ceil(10),
    );
}

#[test]
fn ntru_matches_pqclean() {
    interop(
        &[
            peer!("ntruhps2048509", pqcrypto_ntru::ntruhps2048509),
            peer!("ntruhps2048677", pqcrypto_ntru::ntruhps2048677),
            peer!("ntruhps4096821", pqcrypto_ntru::ntruhps4096821),
            peer!("ntruhrss701", pqcrypto_ntru::ntruhrss701),
        ],
        pairs(),
    );
    // PQClean's portable code is up to ten times slower (its reciprocals): a tenth of the pairs
    interop(
        &[
            peer_clean!(
                "ntruhps2048509",
                pqcrypto_ntru::ntruhps2048509,
                PQCLEAN_NTRUHPS2048509_CLEAN_crypto_kem_keypair,
                PQCLEAN_NTRUHPS2048509_CLEAN_crypto_kem_enc,
                PQCLEAN_NTRUHPS2048509_CLEAN_crypto_kem_dec
            ),
            peer_clean!(
                "ntruhps2048677",
                pqcrypto_ntru::ntruhps2048677,
                PQCLEAN_NTRUHPS2048677_CLEAN_crypto_kem_keypair,
                PQCLEAN_NTRUHPS2048677_CLEAN_crypto_kem_enc,
                PQCLEAN_NTRUHPS2048677_CLEAN_crypto_kem_dec
            ),
            peer_clean!(
                "ntruhps4096821",
                pqcrypto_ntru::ntruhps4096821,
                PQCLEAN_NTRUHPS4096821_CLEAN_crypto_kem_keypair,
                PQCLEAN_NTRUHPS4096821_CLEAN_crypto_kem_enc,
                PQCLEAN_NTRUHPS4096821_CLEAN_crypto_kem_dec
            ),
            peer_clean!(
                "ntruhrss701",
                pqcrypto_ntru::ntruhrss701,
                PQCLEAN_NTRUHRSS701_CLEAN_crypto_kem_keypair,
                PQCLEAN_NTRUHRSS701_CLEAN_crypto_kem_enc,
                PQCLEAN_NTRUHRSS701_CLEAN_crypto_kem_dec
            ),
        ],
        pairs().div_ceil(10),
    );
}

/// The rows themselves: every latpoly KEM that PQClean also has must be listed above, so a
/// new latpoly KEM cannot silently go without an interoperability test.
#[test]
fn every_shared_kem_has_a_row() {
    let with_rows = [
        "sntrup761",
        "ntrulpr761",
        "ntruhps2048509",
        "ntruhps2048677",
        "ntruhps4096821",
        "ntruhrss701",
    ];
    for k in latpoly::kem::all() {
        let name = k.name();
        assert!(
            name.starts_with("NTRU+KEM") || with_rows.contains(&name),
            "latpoly KEM {name} has no PQClean row in tests/pqcrypto.rs"
        );
    }
}
