//! NTRU+KEM (`latpoly::kem::ntruplus`, KpqC round-2 final, spec v2.2.1):
//!
//! 1. the full 100-record `.rsp` of each parameter set, generated with the NIST KAT DRBG, has
//!    the SHA-256 of the official file (needs no files: the hashes are constants below);
//! 2. when `shared/kat` is present, record-by-record comparison with the official files
//!    (skipped with a message when absent, a failure when `CI=true`);
//! 3. round trips with the OS random source, wrong lengths, explicit rejection of tampered
//!    and non-canonical ciphertexts, tampered public keys, malformed secret keys; never a panic.

mod common;

use common::kat::{
    check_registry, check_wrong_lengths, compare_with_file, generate_all, hex, kat_dir,
    round_trips, RECORDS,
};
use latpoly::kem::kat::{self, KatRecord};
use latpoly::kem::ntruplus::{
    NtruPlusKem1152, NtruPlusKem576, NtruPlusKem768, NtruPlusKem864, NTRUPLUS,
};
use latpoly::kem::{by_name, Ciphertext, Kem, OsRandom, PublicKey, SecretKey};
use latpoly::rings::ntruplus::{self as ring, NtruPlusParams};
use latpoly::Error;
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// SHA-256 of the whole official `.rsp` files, copied from `shared/kat/MANIFEST.sha256`
/// (provenance: `shared/kat/PROVENANCE.md` §C.1, ntruplus/ntruplus commit 02496b2,
/// `KAT/crypto_kem/NTRU+KEM<n>/PQCkemKAT_<sk>.rsp`).
const RSP_SHA256: [(&str, usize, &str); 4] = [
    (
        "NTRU+KEM576",
        1760,
        "1ec668806175db5054fec3bc63a209781c118ec38c1d5325b83f99fafbbce90e",
    ),
    (
        "NTRU+KEM768",
        2336,
        "ad30dbb8dcf12ae83b6f11563a284614ec2f1ab1172f39a3f769ce661822f3a5",
    ),
    (
        "NTRU+KEM864",
        2624,
        "e3af1f0456183c231c1783d496648799c0a3c36b371e8f22d3ff5ad7d340bf34",
    ),
    (
        "NTRU+KEM1152",
        3488,
        "6dbe595b31826edb3b0c4b985fcc33d6e8f70055cac5385a4567998ae8312770",
    ),
];

/// The generated records of every set, computed once per test binary (both KAT tests use
/// them); the four sets run on separate threads.
fn generated() -> &'static [Vec<KatRecord>] {
    static GEN: OnceLock<Vec<Vec<KatRecord>>> = OnceLock::new();
    GEN.get_or_init(|| generate_all(&NTRUPLUS))
}

#[test]
fn registry_and_sizes() {
    let expect = [
        ("NTRU+KEM576", (864, 1760, 864, 32)),
        ("NTRU+KEM768", (1152, 2336, 1152, 32)),
        ("NTRU+KEM864", (1296, 2624, 1296, 32)),
        ("NTRU+KEM1152", (1728, 3488, 1728, 32)),
    ];
    check_registry(&NTRUPLUS, &expect);
    assert_eq!(NtruPlusKem576::NAME, "NTRU+KEM576");
    assert_eq!(NtruPlusKem768::SECRET_KEY_BYTES, 2336);
    assert_eq!(NtruPlusKem864::CIPHERTEXT_BYTES, 1296);
    assert_eq!(NtruPlusKem1152::PUBLIC_KEY_BYTES, 1728);
    assert!(by_name("NTRU+KEM512").is_none());
    assert!(latpoly::kem::all().len() >= 4);
}

/// Test 1: the generated `.rsp` text is byte-identical to the official file (by its hash).
#[test]
fn generated_rsp_matches_official_sha256() {
    for (recs, (name, _, want)) in generated().iter().zip(RSP_SHA256) {
        let text = kat::write_rsp(name, recs);
        let got = hex(&Sha256::digest(text.as_bytes()));
        assert_eq!(got, want, "{name}: SHA-256 of the generated .rsp");
        eprintln!("{name}: {RECORDS} records, sha256 {got} = MANIFEST");
    }
}

/// Test 2: record by record against the official files.
#[test]
fn records_match_official_files() {
    let Some(dir) = kat_dir("ntruplus/round2-final_spec-v2.2.1") else {
        return;
    };
    for (recs, (name, skb, _)) in generated().iter().zip(RSP_SHA256) {
        let path = dir.join(format!("{name}/PQCkemKAT_{skb}.rsp"));
        compare_with_file(name, name, recs, &path);
    }
}

/// `bytes` (an encoding whose field `i` is zero) with field `i` set to any 12-bit `value`,
/// including values `>= q` that `encodeq` refuses: a lone coefficient `2^j < q` encodes to
/// exactly bit `j` of its field.
fn set_field(bytes: &[u8], p: NtruPlusParams, i: usize, value: i16) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for j in 0..12 {
        if (value >> j) & 1 == 1 {
            let mut e = vec![0i16; p.n()];
            e[i] = 1 << j;
            for (x, y) in out.iter_mut().zip(ring::encodeq(&e, p).unwrap()) {
                *x |= y;
            }
        }
    }
    out
}

/// Round trips, lengths and rejections for one set.
fn exercise<K: Kem>() {
    let p = NtruPlusParams::from_n(K::PUBLIC_KEY_BYTES * 2 / 3).unwrap();
    let l = p.encoded_bytes();
    let mut rng = OsRandom;
    let (pk, sk, ct, ss) = round_trips::<K>(20);
    assert_ne!(ss.as_bytes(), &[0u8; 32]);
    let zero = vec![0u8; 32];

    check_wrong_lengths::<K>(pk.as_bytes(), sk.as_bytes(), ct.as_bytes());

    // tampered ciphertexts (every position class): explicit rejection, all-zero secret
    for (i, bit) in [(0, 1u8), (1, 0x10), (l / 2, 4), (l - 1, 0x80), (l - 2, 1)] {
        let mut b = ct.as_bytes().to_vec();
        b[i] ^= bit;
        // keep the encoding canonical so that the rejection comes from the FO check
        if ring::decodeq(&b, p).is_err() {
            b[i] ^= bit;
            b[i] ^= 1;
        }
        let bad = Ciphertext::<K>::from_bytes(&b).unwrap();
        assert_eq!(
            K::decapsulate(&sk, &bad).unwrap().as_bytes(),
            zero,
            "byte {i}"
        );
    }
    // c + (monomial) in the coefficient domain, the classic NTRU decryption-failure probe
    let mut c = ring::decodeq(ct.as_bytes(), p).unwrap();
    c[3] = (c[3] + 1) % 3457;
    let bad = Ciphertext::<K>::from_bytes(&ring::encodeq(&c, p).unwrap()).unwrap();
    assert_eq!(K::decapsulate(&sk, &bad).unwrap().as_bytes(), zero);
    // all-zero and other trivial ciphertexts
    for fill in [0u8, 1] {
        let bad = Ciphertext::<K>::from_bytes(&vec![fill; l]).unwrap();
        assert_eq!(K::decapsulate(&sk, &bad).unwrap().as_bytes(), zero);
    }

    // a non-canonical ciphertext (a 12-bit field >= q): decoding is possible, the field is
    // reduced, and decapsulation rejects (all-zero secret), even when the reduced value is the
    // honest one
    let mut c = ring::decodeq(ct.as_bytes(), p).unwrap();
    let i = c.iter().position(|&v| v < 4096 - 3457).unwrap();
    let field = c[i] + 3457; // same value mod q, but >= q
    c[i] = 0;
    let noncanon = set_field(&ring::encodeq(&c, p).unwrap(), p, i, field);
    assert!(
        ring::decodeq(&noncanon, p).is_err(),
        "constructed encoding is non-canonical"
    );
    let bad = Ciphertext::<K>::from_bytes(&noncanon).unwrap();
    assert_eq!(K::decapsulate(&sk, &bad).unwrap().as_bytes(), zero);
    // the same ciphertext reduced (canonical) is the honest one and is accepted
    c[i] = field - 3457;
    let honest = Ciphertext::<K>::from_bytes(&ring::encodeq(&c, p).unwrap()).unwrap();
    assert_eq!(honest.as_bytes(), ct.as_bytes());
    assert_eq!(
        K::decapsulate(&sk, &honest).unwrap().as_bytes(),
        ss.as_bytes()
    );
    // all-0xff: every field is 4095 >= q
    let bad = Ciphertext::<K>::from_bytes(&vec![0xff; l]).unwrap();
    assert_eq!(K::decapsulate(&sk, &bad).unwrap().as_bytes(), zero);

    // tampered but still decodable public key: encapsulation works, decapsulation with the
    // real secret key rejects or (never observed) disagrees
    let mut h = ring::decodeq(pk.as_bytes(), p).unwrap();
    h[7] = (h[7] + 1) % 3457;
    let pk2 = PublicKey::<K>::from_bytes(&ring::encodeq(&h, p).unwrap()).unwrap();
    let (ct2, ss2) = K::encapsulate(&pk2, &mut rng).unwrap();
    let got = K::decapsulate(&sk, &ct2).unwrap();
    assert_ne!(got.as_bytes(), ss2.as_bytes());
    assert_eq!(got.as_bytes(), zero);
    // a non-canonical public key is an error
    let bad_pk = PublicKey::<K>::from_bytes(&vec![0xff; l]).unwrap();
    assert!(matches!(
        K::encapsulate(&bad_pk, &mut rng),
        Err(Error::CoefficientOutOfRange { .. })
    ));
    // a secret key with non-canonical fields is not validated (as in the reference): it is
    // reduced mod q and simply rejects
    let mut skb = sk.as_bytes().to_vec();
    skb[..l].fill(0xff);
    let bad_sk = SecretKey::<K>::from_bytes(&skb).unwrap();
    assert_eq!(K::decapsulate(&bad_sk, &ct).unwrap().as_bytes(), zero);
    // the same key with one field replaced by its non-canonical twin (+q) still works
    let mut f = ring::decodeq(&sk.as_bytes()[..l], p).unwrap();
    let i = f.iter().position(|&v| v < 4096 - 3457).unwrap();
    let field = f[i] + 3457;
    f[i] = 0;
    let mut skb = sk.as_bytes().to_vec();
    skb[..l].copy_from_slice(&set_field(&ring::encodeq(&f, p).unwrap(), p, i, field));
    let twin = SecretKey::<K>::from_bytes(&skb).unwrap();
    assert_eq!(
        K::decapsulate(&twin, &ct).unwrap().as_bytes(),
        ss.as_bytes()
    );
    // arbitrary (canonical) secret keys never panic
    let zero_sk = SecretKey::<K>::from_bytes(&vec![0; K::SECRET_KEY_BYTES]).unwrap();
    assert_eq!(K::decapsulate(&zero_sk, &ct).unwrap().as_bytes(), zero);
}

/// Test 3: round trips and rejection, all four sets.
#[test]
fn round_trips_and_rejection() {
    exercise::<NtruPlusKem576>();
    exercise::<NtruPlusKem768>();
    exercise::<NtruPlusKem864>();
    exercise::<NtruPlusKem1152>();
}

/// Random byte strings as ciphertexts and secret keys: `Ok` or `Err`, never a panic.
#[test]
fn random_inputs_never_panic() {
    use rand::{RngCore, SeedableRng};
    let mut r = rand_chacha::ChaCha20Rng::seed_from_u64(11);
    for k in NTRUPLUS {
        let (_, skl, ctl, _) = k.sizes();
        let (pk, sk) = k.keypair(&mut OsRandom).unwrap();
        for _ in 0..50 {
            let mut ct = vec![0u8; ctl];
            r.fill_bytes(&mut ct);
            let ss = k.decapsulate(&sk, &ct).unwrap();
            assert_eq!(ss, [0u8; 32]);
            let mut skr = vec![0u8; skl];
            r.fill_bytes(&mut skr);
            let _ = k.decapsulate(&skr, &ct);
            let mut pkr = pk.clone();
            r.fill_bytes(&mut pkr);
            let _ = k.encapsulate(&pkr, &mut OsRandom);
        }
    }
}

/// Records every `randombytes` call length.
struct Recording {
    drbg: latpoly::kem::drbg::KatDrbg,
    calls: Vec<usize>,
}

impl latpoly::kem::RandomSource for Recording {
    fn fill(&mut self, out: &mut [u8]) {
        self.calls.push(out.len());
        self.drbg.fill(out);
    }
}

/// The randomness call pattern of the reference (PARAMS C.6): key generation makes one
/// `randombytes(32)` per attempt (at least one for f and one for g), encapsulation one
/// `randombytes(n/8)`. Some KAT records need extra key-generation attempts, so the retry path
/// is covered by the KAT equality above.
#[test]
fn randomness_call_pattern_and_retries() {
    let mut retried = 0;
    for k in NTRUPLUS {
        let n = k.sizes().0 * 2 / 3;
        let mut extra = 0;
        for seed in kat::seeds(RECORDS) {
            let mut r = Recording {
                drbg: latpoly::kem::drbg::KatDrbg::new(&seed),
                calls: vec![],
            };
            let (pk, _) = k.keypair(&mut r).unwrap();
            assert!(r.calls.len() >= 2 && r.calls.iter().all(|&c| c == 32));
            extra += r.calls.len() - 2;
            retried += (r.calls.len() > 2) as usize;
            r.calls.clear();
            k.encapsulate(&pk, &mut r).unwrap();
            assert_eq!(r.calls, [n / 8]);
        }
        eprintln!(
            "{}: {extra} extra key-generation attempts in {RECORDS} KAT records",
            k.name()
        );
    }
    assert!(
        retried > 0,
        "no KAT record exercises a key-generation retry"
    );
}
