//! NTRU KEMs (`latpoly::kem::ntru`, NIST round 3: ntruhps2048509, ntruhps2048677,
//! ntruhps4096821, ntruhrss701):
//!
//! 1. the full 100-record `.rsp` of each scheme, generated with the NIST KAT DRBG, has the
//!    SHA-256 of the official file (needs no files: the hashes are constants below), and its
//!    count-0 entry has PQClean's `nistkat-sha256`;
//! 2. when `shared/kat` is present, record-by-record comparison with the official files
//!    (skipped with a message when absent, a failure when `CI=true`);
//! 3. round trips with the OS random source, wrong lengths, implicit rejection of tampered and
//!    malformed ciphertexts, the randomness call pattern (random inputs of every KEM:
//!    `kem_robustness.rs`).

mod common;

use common::kat::{
    check_registry, check_wrong_lengths, compare_with_file, entry0_sha256, generate_all, hex,
    kat_dir, round_trips, Recording, RECORDS,
};
use latpoly::kem::kat::{self, KatRecord};
use latpoly::kem::ntru::{NtruHps2048509, NtruHps2048677, NtruHps4096821, NtruHrss701, NTRU};
use latpoly::kem::{by_name, Ciphertext, Kem, OsRandom, PublicKey, SecretKey};
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// `(name, KAT directory, SHA-256 of the whole official .rsp, SHA-256 of its count-0 entry)`.
/// The file hashes are those of `shared/kat/MANIFEST.sha256` (provenance:
/// `shared/kat/PROVENANCE.md` §A, the NIST round-3 KATs of 2020-10-16); the count-0 hashes are
/// PQClean's `nistkat-sha256` values (PARAMS.md §A).
const RSP_SHA256: [(&str, &str, &str, &str); 4] = [
    (
        "ntruhps2048509",
        "ntruhps2048509/PQCkemKAT_935.rsp",
        "f85cbfd585ee9e03feb10817f7a4ba42695a67af95db383c5ebbc2beab27e6bc",
        "fc314366fbe795e2db6d29abb9f5b2ff43f0f608d0bd66161f9450364f0d271b",
    ),
    (
        "ntruhps2048677",
        "ntruhps2048677/PQCkemKAT_1234.rsp",
        "0e1d2eccfbc6e4f4d6f139b21de27417316202a5c113602d25704316aebb9303",
        "33e2cad6c2a2f17991517050d7a1b745908c84b8283a4e0f07dbe6f62d166507",
    ),
    (
        "ntruhps4096821",
        "ntruhps4096821/PQCkemKAT_1590.rsp",
        "95235f04c6206a82477fd5a877f184e99906d658a242dcd7ebb8337048129a4b",
        "1a8382ae0c801a43cf461c98d22743f5b2d8a1ffed1b1df0dd767de2c2874597",
    ),
    (
        "ntruhrss701",
        "ntruhrss701/PQCkemKAT_1450.rsp",
        "1e7c8e02f7dc1a9796332d60d1b08995fff5dfe81f2ae7394ec2f4816dedf4b6",
        "501e000c3eb374ffbfb81b0f16673a6282116465936608d7d164b05635e769e8",
    ),
];

/// The generated records of the four schemes, computed once per test binary, on two threads.
fn generated() -> &'static [Vec<KatRecord>] {
    static GEN: OnceLock<Vec<Vec<KatRecord>>> = OnceLock::new();
    GEN.get_or_init(|| generate_all(&NTRU))
}

#[test]
fn registry_and_sizes() {
    let expect = [
        ("ntruhps2048509", (699, 935, 699, 32)),
        ("ntruhps2048677", (930, 1234, 930, 32)),
        ("ntruhps4096821", (1230, 1590, 1230, 32)),
        ("ntruhrss701", (1138, 1450, 1138, 32)),
    ];
    check_registry(&NTRU, &expect);
    assert_eq!(NtruHps2048509::NAME, "ntruhps2048509");
    assert_eq!(NtruHrss701::SECRET_KEY_BYTES, 1450);
    assert_eq!(NtruHps4096821::CIPHERTEXT_BYTES, 1230);
    assert_eq!(NtruHps2048677::PUBLIC_KEY_BYTES, 930);
    assert!(by_name("ntruhps2048").is_none());
}

/// Test 1: the generated `.rsp` text is byte-identical to the official file (by its hash).
#[test]
fn generated_rsp_matches_official_sha256() {
    for (recs, (name, _, want, want0)) in generated().iter().zip(RSP_SHA256) {
        let text = kat::write_rsp(&kat::rsp_header(name), recs);
        assert_eq!(
            entry0_sha256(&text),
            want0,
            "{name}: SHA-256 of the count-0 entry"
        );
        let got = hex(&Sha256::digest(text.as_bytes()));
        assert_eq!(got, want, "{name}: SHA-256 of the generated .rsp");
        eprintln!("{name}: {RECORDS} records, sha256 {got} = MANIFEST");
    }
}

/// Test 2: record by record against the official files; the official records decapsulate.
#[test]
fn records_match_official_files() {
    let Some(dir) = kat_dir("ntru") else { return };
    for (recs, (name, file, _, _)) in generated().iter().zip(RSP_SHA256) {
        compare_with_file(name, name, recs, &dir.join(file));
    }
}

/// Round trips, lengths and implicit rejection for one scheme.
fn exercise<K: Kem>() {
    let mut rng = OsRandom;
    let (pk, sk, ct, ss) = round_trips::<K>(10);

    check_wrong_lengths::<K>(pk.as_bytes(), sk.as_bytes(), ct.as_bytes());

    // tampered ciphertexts: implicit rejection, a pseudorandom key that is deterministic,
    // differs per ciphertext and differs from ss
    let l = K::CIPHERTEXT_BYTES;
    let mut seen = vec![ss.as_bytes().to_vec()];
    for (i, bit) in [
        (0, 1u8),
        (l / 3, 0x10),
        (l / 2, 0x80),
        (l - 2, 4),
        (l - 1, 1),
    ] {
        let mut b = ct.as_bytes().to_vec();
        b[i] ^= bit;
        let bad = Ciphertext::<K>::from_bytes(&b).unwrap();
        let k1 = K::decapsulate(&sk, &bad).unwrap();
        let k2 = K::decapsulate(&sk, &bad).unwrap();
        assert_eq!(k1.as_bytes(), k2.as_bytes(), "byte {i}");
        assert!(!seen.contains(&k1.as_bytes().to_vec()), "byte {i}");
        seen.push(k1.as_bytes().to_vec());
    }
    // a set unused bit in the last byte is rejected although the coefficients are unchanged
    // (the parameter sets with (n - 1) log q not a multiple of 8)
    let p = latpoly::rings::ntru::NtruParams::ALL
        .into_iter()
        .find(|p| p.name() == K::NAME)
        .unwrap();
    let bits = (p.n() - 1) * p.log_q() as usize;
    if !bits.is_multiple_of(8) {
        let mut b = ct.as_bytes().to_vec();
        b[l - 1] |= 0x80;
        let bad = Ciphertext::<K>::from_bytes(&b).unwrap();
        assert_ne!(K::decapsulate(&sk, &bad).unwrap().as_bytes(), ss.as_bytes());
    }
    for fill in [0u8, 0xff] {
        let bad = Ciphertext::<K>::from_bytes(&vec![fill; l]).unwrap();
        assert_ne!(K::decapsulate(&sk, &bad).unwrap().as_bytes(), ss.as_bytes());
    }
    // the rejection key depends on prf (the last 32 bytes of sk); the honest key does not
    let mut skb = sk.as_bytes().to_vec();
    skb[K::SECRET_KEY_BYTES - 1] ^= 1;
    let sk2 = SecretKey::<K>::from_bytes(&skb).unwrap();
    let mut b = ct.as_bytes().to_vec();
    b[3] ^= 2;
    let bad = Ciphertext::<K>::from_bytes(&b).unwrap();
    assert_ne!(
        K::decapsulate(&sk, &bad).unwrap().as_bytes(),
        K::decapsulate(&sk2, &bad).unwrap().as_bytes()
    );
    assert_eq!(K::decapsulate(&sk2, &ct).unwrap().as_bytes(), ss.as_bytes());

    // a modified public key still encapsulates; the real key disagrees
    let mut pkb = pk.as_bytes().to_vec();
    pkb[40] ^= 1;
    let pk2 = PublicKey::<K>::from_bytes(&pkb).unwrap();
    let (ct2, ss2) = K::encapsulate(&pk2, &mut rng).unwrap();
    assert_ne!(
        K::decapsulate(&sk, &ct2).unwrap().as_bytes(),
        ss2.as_bytes()
    );
}

/// Test 3: round trips and rejection, all four schemes.
#[test]
fn round_trips_and_rejection() {
    exercise::<NtruHps2048509>();
    exercise::<NtruHps2048677>();
    exercise::<NtruHps4096821>();
    exercise::<NtruHrss701>();
}

/// The randomness call pattern of the reference (PARAMS A.3/A.4): key generation draws the
/// `f, g` seed, then the 32-byte `prf`; encapsulation one `r, m` seed.
#[test]
fn randomness_call_pattern() {
    let seeds = [2413, 3211, 3895, 1400];
    for (k, seed) in NTRU.into_iter().zip(seeds) {
        let mut r = Recording::new(&kat::seeds(1)[0]);
        let (pk, _) = k.keypair(&mut r).unwrap();
        assert_eq!(r.calls, [seed, 32], "{}", k.name());
        r.calls.clear();
        k.encapsulate(&pk, &mut r).unwrap();
        assert_eq!(r.calls, [seed], "{}", k.name());
    }
}
