//! NTRU Prime KEMs (`latpoly::kem::ntruprime`, NIST round 3: sntrup761, ntrulpr761):
//!
//! 1. the full 100-record `.rsp` of each scheme, generated with the NIST KAT DRBG (one
//!    `randombytes(4)` call per 32-bit sample, PARAMS B.5), has the SHA-256 of the official file
//!    (needs no files: the hashes are constants below);
//! 2. when `shared/kat` is present, record-by-record comparison with the official files
//!    (skipped with a message when absent, a failure when `CI=true`);
//! 3. round trips with the OS random source, wrong lengths, implicit rejection of tampered
//!    ciphertexts, the randomness call pattern (random inputs of every KEM:
//!    `kem_robustness.rs`).

mod common;

use common::kat::{
    check_registry, check_wrong_lengths, compare_with_file, entry0_sha256, generate_all, hex,
    kat_dir, round_trips, Recording, RECORDS,
};
use latpoly::kem::kat::{self, KatRecord};
use latpoly::kem::ntruprime::{Ntrulpr761, Sntrup761, NTRUPRIME};
use latpoly::kem::{by_name, Ciphertext, Kem, OsRandom, PublicKey, SecretKey};
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// SHA-256 of the whole official `.rsp` files (headers `# kem/<name>`), copied from
/// `shared/kat/MANIFEST.sha256` (provenance: `shared/kat/PROVENANCE.md` §B, bcgit/bc-test-data
/// `pqc/crypto/ntruprime/{sntrup,ntrulpr}/<name>.rsp`). Their count-0 entries hash to
/// PQClean's original `nistkat-sha256` values (2eba1067…, 212f6848…), also checked below.
const RSP_SHA256: [(&str, &str, &str); 2] = [
    (
        "sntrup761",
        "e720b256c12c50fa4281708342aae2c6a47b01ae83b152f3fd03d7680e376172",
        "2eba10673b9077530ba9c063d22f2534e415a6da42985c333c6baee133cc0ff1",
    ),
    (
        "ntrulpr761",
        "f1ec1be5e7a562edf94c4ae361cafa11360648c70f95a720d7bd0f8b7905819c",
        "212f68484864e927c674a656ea44ea0f47c048d0dd3518b102c98a9eacd16a72",
    ),
];

/// The generated records of both schemes, computed once per test binary, on two threads.
fn generated() -> &'static [Vec<KatRecord>] {
    static GEN: OnceLock<Vec<Vec<KatRecord>>> = OnceLock::new();
    GEN.get_or_init(|| generate_all(&NTRUPRIME))
}

#[test]
fn registry_and_sizes() {
    let expect = [
        ("sntrup761", (1158, 1763, 1039, 32)),
        ("ntrulpr761", (1039, 1294, 1167, 32)),
    ];
    check_registry(&NTRUPRIME, &expect);
    assert_eq!(Sntrup761::NAME, "sntrup761");
    assert_eq!(Ntrulpr761::NAME, "ntrulpr761");
    assert_eq!(Sntrup761::SECRET_KEY_BYTES, 1763);
    assert_eq!(Ntrulpr761::CIPHERTEXT_BYTES, 1167);
    assert!(by_name("kem/sntrup761").is_none());
    assert!(by_name("sntrup653").is_none());
}

/// Test 1: the generated `.rsp` text is byte-identical to the official file (by its hash),
/// and its count-0 entry has PQClean's original `nistkat-sha256`.
#[test]
fn generated_rsp_matches_official_sha256() {
    for (recs, (name, want, want0)) in generated().iter().zip(RSP_SHA256) {
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

/// Test 2: record by record against the official files.
#[test]
fn records_match_official_files() {
    let Some(dir) = kat_dir("ntruprime") else {
        return;
    };
    for (recs, (name, _, _)) in generated().iter().zip(RSP_SHA256) {
        let path = dir.join(format!("{name}/{name}.rsp"));
        compare_with_file(name, &format!("kem/{name}"), recs, &path);
    }
}

/// Round trips, lengths and implicit rejection for one scheme.
fn exercise<K: Kem>() {
    let mut rng = OsRandom;
    let (pk, sk, ct, ss) = round_trips::<K>(10);

    check_wrong_lengths::<K>(pk.as_bytes(), sk.as_bytes(), ct.as_bytes());

    // tampered ciphertexts (rounded part, top part, confirmation): implicit rejection, a
    // pseudorandom key that is deterministic, differs per ciphertext, and differs from ss
    let l = K::CIPHERTEXT_BYTES;
    let mut seen = vec![ss.as_bytes().to_vec()];
    for (i, bit) in [
        (0, 1u8),
        (500, 0x10),
        (1006, 1),
        (1010, 4),
        (l - 33, 0x80),
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
    for fill in [0u8, 0xff] {
        let bad = Ciphertext::<K>::from_bytes(&vec![fill; l]).unwrap();
        assert_ne!(K::decapsulate(&sk, &bad).unwrap().as_bytes(), ss.as_bytes());
    }
    // the rejection key depends on rho: a secret key with another rho gives another key
    let mut skb = sk.as_bytes().to_vec();
    let rho_at = K::SECRET_KEY_BYTES - 32 - if K::NAME == "sntrup761" { 191 } else { 32 };
    skb[rho_at] ^= 1;
    let sk2 = SecretKey::<K>::from_bytes(&skb).unwrap();
    let mut b = ct.as_bytes().to_vec();
    b[3] ^= 2;
    let bad = Ciphertext::<K>::from_bytes(&b).unwrap();
    assert_ne!(
        K::decapsulate(&sk, &bad).unwrap().as_bytes(),
        K::decapsulate(&sk2, &bad).unwrap().as_bytes()
    );
    // ... but not the honest key
    assert_eq!(K::decapsulate(&sk2, &ct).unwrap().as_bytes(), ss.as_bytes());

    // a public key with its first byte changed still encapsulates; the real key disagrees
    let mut pkb = pk.as_bytes().to_vec();
    pkb[40] ^= 1;
    let pk2 = PublicKey::<K>::from_bytes(&pkb).unwrap();
    let (ct2, ss2) = K::encapsulate(&pk2, &mut rng).unwrap();
    assert_ne!(
        K::decapsulate(&sk, &ct2).unwrap().as_bytes(),
        ss2.as_bytes()
    );
    // a secret key with a non-canonical small encoding (two-bit pattern 11) is not validated
    // (no branch on the secret): it decapsulates to some other key, without error. 128
    // coefficients are changed: with only the first byte's four, ntrulpr761's decryption
    // tolerated the change now and then (its rounding absorbs small errors) and the key came
    // out unchanged (seen once in seven runs).
    let mut skb = sk.as_bytes().to_vec();
    skb[..32].fill(0xff);
    let bad_sk = SecretKey::<K>::from_bytes(&skb).unwrap();
    assert_ne!(
        K::decapsulate(&bad_sk, &ct).unwrap().as_bytes(),
        ss.as_bytes()
    );
}

/// Test 3: round trips and rejection, both schemes.
#[test]
fn round_trips_and_rejection() {
    exercise::<Sntrup761>();
    exercise::<Ntrulpr761>();
}

/// The implicit rejection keys are exactly sntrup761's `Hash0(Hash3(rho) ‖ ct)` and
/// ntrulpr761's `Hash0(rho ‖ ct)` (`Hash_b(x)` the first 32 bytes of SHA-512(`b ‖ x`)),
/// computed here with the `sha2` crate: the decapsulations select the session hash's input in
/// constant time where SHA-512 runs one message at a time (`LATPOLY_ISA=avx2` or `scalar`, and
/// AMD Zen 5), and hash both candidates side by side with the four-lane kernel elsewhere; both
/// must give this key.
#[test]
fn rejection_keys_are_hash0_of_rho() {
    // sntrup761: rho is the 191 bytes before the secret key's last 32
    let at = Sntrup761::SECRET_KEY_BYTES - 32 - 191;
    check_rejection_keys::<Sntrup761>(at..at + 191, |rho, ct| hash_b(0, &[&hash_b(3, &[rho]), ct]));
    // ntrulpr761: rho is the 32 bytes before the secret key's last 32
    let at = Ntrulpr761::SECRET_KEY_BYTES - 64;
    check_rejection_keys::<Ntrulpr761>(at..at + 32, |rho, ct| hash_b(0, &[rho, ct]));
}

/// `Hash_b(parts)`: the first 32 bytes of SHA-512(`b ‖ parts`), with the `sha2` crate.
fn hash_b(b: u8, parts: &[&[u8]]) -> Vec<u8> {
    let mut h = sha2::Sha512::new();
    h.update([b]);
    for p in parts {
        h.update(p);
    }
    h.finalize()[..32].to_vec()
}

/// Tampered ciphertexts of `K` decapsulate to `key(rho, tampered ct)`, `rho` the secret key's
/// bytes `rho_at`; the honest ciphertext still gives the encapsulated key (`Hash1(.. ‖ ct)`
/// needs `r`, unknown here).
fn check_rejection_keys<K: Kem>(
    rho_at: std::ops::Range<usize>,
    key: impl Fn(&[u8], &[u8]) -> Vec<u8>,
) {
    let (pk, sk) = K::keypair(&mut OsRandom).unwrap();
    let (ct, ss) = K::encapsulate(&pk, &mut OsRandom).unwrap();
    let rho = &sk.as_bytes()[rho_at];
    let l = K::CIPHERTEXT_BYTES;
    for (i, bit) in [(0usize, 1u8), (700, 0x40), (l - 32, 2), (l - 1, 0x80)] {
        let mut b = ct.as_bytes().to_vec();
        b[i] ^= bit;
        let bad = Ciphertext::<K>::from_bytes(&b).unwrap();
        let got = K::decapsulate(&sk, &bad).unwrap();
        assert_eq!(got.as_bytes(), &key(rho, &b)[..], "{} byte {i}", K::NAME);
    }
    assert_eq!(K::decapsulate(&sk, &ct).unwrap().as_bytes(), ss.as_bytes());
}

/// A ciphertext whose rounded part is a non-canonical encoding of an honest ciphertext's
/// values is rejected, as in the reference, which compares the re-encoded ciphertext with the
/// bytes received: its key is the implicit-rejection key `Hash0(Hash3(rho) ‖ ct)`. (latpoly
/// compares the decoded values and checks that the encoding is canonical instead.)
///
/// The variant: the rounded part is `Encode(R, M)` with `M = 1531` everywhere, i.e. one byte
/// per pair of the bottom level (`x = R[2i] + 1531 R[2i + 1] < 1531^2`, its low byte, then
/// `x >> 8` at the next level, bound 9157) followed by the encoding of the next level. A pair
/// with `R[2i + 1] = 0` and `R[2i] < 231` can also be written as `x + 1531^2`, whose upper
/// part is still below 9157: the decoder reads the same pair (its quotient 1531 is reduced to
/// 0), but the string is not what `Encode` writes.
#[test]
fn non_canonical_ciphertexts_are_rejected() {
    use latpoly::rings::ntruprime::{encode, rounded_decode, P, ROUNDED_BYTES};
    let at = Sntrup761::SECRET_KEY_BYTES - 32 - 191;
    let (pk, sk) = Sntrup761::keypair(&mut OsRandom).unwrap();
    let rho = &sk.as_bytes()[at..at + 191];
    let mm = 1531u64 * 1531;
    let mut tried = 0;
    let mut found = 0;
    while found < 3 {
        tried += 1;
        assert!(tried < 5000, "no suitable pair in {tried} ciphertexts");
        let (ct, ss) = Sntrup761::encapsulate(&pk, &mut OsRandom).unwrap();
        let honest = ct.as_bytes();
        let c = rounded_decode(&honest[..ROUNDED_BYTES]).unwrap();
        let r: Vec<u64> = c.iter().map(|&x| ((x + 2295) / 3) as u64).collect();
        let Some(k) = (0..P / 2).find(|&k| r[2 * k + 1] == 0 && r[2 * k] < 231) else {
            continue;
        };
        // the bottom level by hand, the rest by `encode`; the honest string first
        let level = |alt: Option<usize>| {
            let (mut bytes, mut upper, mut bounds) = (Vec::new(), Vec::new(), Vec::new());
            for i in 0..P / 2 {
                let mut x = r[2 * i] + 1531 * r[2 * i + 1];
                if alt == Some(i) {
                    x += mm;
                }
                bytes.push((x & 255) as u8);
                upper.push((x >> 8) as u16);
                bounds.push(9157u16);
            }
            upper.push(r[P - 1] as u16);
            bounds.push(1531);
            bytes.extend(encode(&upper, &bounds).unwrap());
            bytes
        };
        assert_eq!(level(None), honest[..ROUNDED_BYTES], "the encoding by hand");
        let mut b = level(Some(k));
        assert_ne!(b, honest[..ROUNDED_BYTES]);
        assert_eq!(rounded_decode(&b).unwrap(), c, "same values");
        b.extend_from_slice(&honest[ROUNDED_BYTES..]);
        let bad = Ciphertext::<Sntrup761>::from_bytes(&b).unwrap();
        let got = Sntrup761::decapsulate(&sk, &bad).unwrap();
        assert_eq!(got.as_bytes(), &hash_b(0, &[&hash_b(3, &[rho]), &b])[..]);
        assert_eq!(
            Sntrup761::decapsulate(&sk, &ct).unwrap().as_bytes(),
            ss.as_bytes()
        );
        found += 1;
    }
}

/// The randomness call pattern of the NIST KATs (PARAMS B.5): sntrup761 key generation makes
/// 761 `randombytes(4)` calls per `g` candidate, 761 for `f`, then `randombytes(191)`;
/// encapsulation 761 `randombytes(4)`. ntrulpr761: `randombytes(32)`, 761 × 4, `randombytes(32)`;
/// encapsulation one `randombytes(32)`.
#[test]
fn randomness_call_pattern() {
    let mut retries = 0;
    for seed in kat::seeds(RECORDS) {
        let mut r = Recording::new(&seed);
        let (pk, _) = Sntrup761::keypair(&mut r).unwrap();
        let n = r.calls.len();
        assert_eq!((n - 1) % 761, 0);
        assert!(n > 2 * 761);
        retries += (n - 1) / 761 - 2;
        assert!(r.calls[..n - 1].iter().all(|&c| c == 4));
        assert_eq!(r.calls[n - 1], 191);
        r.calls.clear();
        Sntrup761::encapsulate(&pk, &mut r).unwrap();
        assert_eq!(r.calls, vec![4; 761]);

        r.calls.clear();
        let (pk, _) = Ntrulpr761::keypair(&mut r).unwrap();
        let mut want = vec![32];
        want.extend([4; 761]);
        want.push(32);
        assert_eq!(r.calls, want);
        r.calls.clear();
        Ntrulpr761::encapsulate(&pk, &mut r).unwrap();
        assert_eq!(r.calls, [32]);
    }
    eprintln!("sntrup761: {retries} extra g candidates in {RECORDS} KAT records");
}
