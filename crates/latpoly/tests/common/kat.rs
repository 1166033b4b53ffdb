//! Known-answer-test plumbing shared by the KEM test suites (`kem_ntru.rs`, `kem_ntruprime.rs`,
//! `kem_ntruplus.rs`): hex, the location of `shared/kat`, generation on two threads, the
//! record-by-record comparison, the wrong-length checks of the typed and byte-level APIs, and
//! a random source that records the reference `randombytes` call pattern.

use latpoly::kem::drbg::KatDrbg;
use latpoly::kem::kat::{self, KatRecord};
use latpoly::kem::{
    by_name, Ciphertext, DynKem, Kem, PublicKey, RandomSource, SecretKey, SharedSecret,
};
use latpoly::Error;
use std::path::PathBuf;

/// Records per official `.rsp` file.
pub const RECORDS: usize = 100;

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `(public key, secret key, ciphertext, shared secret)` lengths of a KEM.
pub type Sizes = (usize, usize, usize, usize);

/// `kems` are registered under the expected names, in order, with the expected
/// `(pk, sk, ct, ss)` sizes, and [`by_name`] finds each of them.
pub fn check_registry(kems: &[&'static dyn DynKem], expect: &[(&str, Sizes)]) {
    assert_eq!(kems.len(), expect.len());
    for (k, &(name, sizes)) in kems.iter().zip(expect) {
        assert_eq!(k.name(), name);
        assert_eq!(k.sizes(), sizes, "{name}");
        assert_eq!(by_name(name).unwrap().name(), name);
    }
}

/// SHA-256 (lower-case hex) of the count-0 entry of an `.rsp` text: its six lines after the
/// header, as PQClean's `nistkat-sha256`.
pub fn entry0_sha256(rsp: &str) -> String {
    use sha2::{Digest, Sha256};
    let entry0: String = rsp
        .lines()
        .skip(2)
        .take(6)
        .map(|l| format!("{l}\n"))
        .collect();
    hex(&Sha256::digest(entry0.as_bytes()))
}

/// The full `.rsp` of every KEM of `kems` with `RECORDS` records, on two threads.
pub fn generate_all(kems: &[&'static dyn DynKem]) -> Vec<Vec<KatRecord>> {
    let half = kems.len().div_ceil(2);
    std::thread::scope(|s| {
        let handles: Vec<_> = kems
            .chunks(half.max(1))
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|&k| kat::generate(k, RECORDS).unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

/// `shared/kat/<sub>`, or `None` (with a message) when `shared/kat` is absent; a failure when
/// `CI=true`.
pub fn kat_dir(sub: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/kat");
    if dir.is_dir() {
        Some(dir.join(sub))
    } else if std::env::var("CI").as_deref() == Ok("true") {
        panic!("KAT directory {} missing on CI", dir.display());
    } else {
        eprintln!("skipped: {} not found", dir.display());
        None
    }
}

/// The first field where `a` and `b` differ, with the byte offset.
fn first_difference(a: &KatRecord, b: &KatRecord) -> Option<(&'static str, usize)> {
    if a.count != b.count {
        return Some(("count", 0));
    }
    let fields: [(&str, &[u8], &[u8]); 5] = [
        ("seed", &a.seed, &b.seed),
        ("pk", &a.pk, &b.pk),
        ("sk", &a.sk, &b.sk),
        ("ct", &a.ct, &b.ct),
        ("ss", &a.ss, &b.ss),
    ];
    fields.iter().find_map(|(f, x, y)| {
        (x != y).then(|| {
            let at = x.iter().zip(*y).position(|(u, v)| u != v);
            (*f, at.unwrap_or(x.len().min(y.len())))
        })
    })
}

/// Compares generated records with the official file at `path` (header `# <header>`), record
/// by record, naming the first differing field; then decapsulates ten official records.
pub fn compare_with_file(name: &str, header: &str, generated: &[KatRecord], path: &PathBuf) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(text.lines().next(), Some(format!("# {header}").as_str()));
    let want = kat::parse_rsp(&text).unwrap();
    assert_eq!(want.len(), RECORDS, "{}", path.display());
    for (g, w) in generated.iter().zip(&want) {
        if let Some((field, byte)) = first_difference(g, w) {
            panic!(
                "{name}: first difference in record {} field {field} at byte {byte}",
                w.count
            );
        }
    }
    eprintln!("{name}: {} of {RECORDS} records match", want.len());
    let kem = by_name(name).unwrap();
    for w in want.iter().take(10) {
        assert_eq!(kem.decapsulate(&w.sk, &w.ct).unwrap(), w.ss, "{name}");
    }
}

/// Wrong lengths are `LengthMismatch` errors, from the typed constructors and from the
/// byte-level [`DynKem`] adapter (given a valid key pair and ciphertext).
pub fn check_wrong_lengths<K: Kem>(pk: &[u8], sk: &[u8], ct: &[u8]) {
    let is_len = |r: Result<(), Error>| matches!(r, Err(Error::LengthMismatch { .. }));
    for len in [0, K::PUBLIC_KEY_BYTES - 1, K::PUBLIC_KEY_BYTES + 1] {
        assert!(is_len(PublicKey::<K>::from_bytes(&vec![0; len]).map(drop)));
    }
    for len in [0, K::CIPHERTEXT_BYTES - 1, K::CIPHERTEXT_BYTES + 1] {
        assert!(is_len(Ciphertext::<K>::from_bytes(&vec![0; len]).map(drop)));
    }
    for len in [0, K::SECRET_KEY_BYTES - 1, K::SECRET_KEY_BYTES + 1] {
        assert!(is_len(SecretKey::<K>::from_bytes(&vec![0; len]).map(drop)));
    }
    let dynk = by_name(K::NAME).unwrap();
    let mut rng = latpoly::kem::OsRandom;
    assert!(is_len(dynk.encapsulate(&pk[1..], &mut rng).map(drop)));
    assert!(is_len(dynk.decapsulate(sk, &ct[1..]).map(drop)));
    assert!(is_len(dynk.decapsulate(&sk[1..], ct).map(drop)));
}

/// `count` round trips with the OS random source (decapsulation recovers the secret), then a
/// fresh key pair, ciphertext and secret for further checks.
pub fn round_trips<K: Kem>(
    count: usize,
) -> (PublicKey<K>, SecretKey<K>, Ciphertext<K>, SharedSecret<K>) {
    let mut rng = latpoly::kem::OsRandom;
    for _ in 0..count {
        let (pk, sk) = K::keypair(&mut rng).unwrap();
        let (ct, ss) = K::encapsulate(&pk, &mut rng).unwrap();
        assert_eq!(K::decapsulate(&sk, &ct).unwrap(), ss, "{}", K::NAME);
    }
    let (pk, sk) = K::keypair(&mut rng).unwrap();
    let (ct, ss) = K::encapsulate(&pk, &mut rng).unwrap();
    (pk, sk, ct, ss)
}

/// A KAT DRBG that records the length of every `randombytes` call.
pub struct Recording {
    pub drbg: KatDrbg,
    pub calls: Vec<usize>,
}

impl Recording {
    pub fn new(seed: &[u8; 48]) -> Recording {
        Recording {
            drbg: KatDrbg::new(seed),
            calls: Vec::new(),
        }
    }
}

impl RandomSource for Recording {
    fn fill(&mut self, out: &mut [u8]) {
        self.calls.push(out.len());
        self.drbg.fill(out);
    }
}
