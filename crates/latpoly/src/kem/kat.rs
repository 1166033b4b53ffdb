//! NIST known-answer-test files (`PQCkemKAT_*.rsp`): generation with [`super::drbg::KatDrbg`]
//! exactly as `PQCgenKAT_kem.c` does, writing, and parsing.
//!
//! Generator: `entropy[i] = i` (48 bytes) seeds the DRBG, which yields one 48-byte seed per
//! record; each record re-seeds the DRBG with its seed and runs keypair, encapsulate and
//! decapsulate. The file starts with `# <name>` and a blank line; records are `count`, `seed`,
//! `pk`, `sk`, `ct`, `ss` lines (uppercase hex) followed by a blank line.

use super::drbg::KatDrbg;
use super::DynKem;
use crate::error::{Error, Result};
use std::fmt::Write as _;

/// One KAT record.
///
/// ```
/// use latpoly::kem::kat::{parse_rsp, KatRecord};
///
/// let text = "# demo\n\ncount = 0\nseed = 0102AB\npk = FF\nsk = 0001\nct = 07\nss = 090909\n\n";
/// let want = KatRecord {
///     count: 0,
///     seed: vec![1, 2, 0xAB],
///     pk: vec![0xFF],
///     sk: vec![0, 1],
///     ct: vec![7],
///     ss: vec![9; 3],
/// };
/// assert_eq!(parse_rsp(text)?, [want]);
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KatRecord {
    /// Record index.
    pub count: usize,
    /// The 48-byte DRBG seed.
    pub seed: Vec<u8>,
    /// Public key.
    pub pk: Vec<u8>,
    /// Secret key.
    pub sk: Vec<u8>,
    /// Ciphertext.
    pub ct: Vec<u8>,
    /// Shared secret.
    pub ss: Vec<u8>,
}

/// The `count` seeds of the NIST generator.
///
/// ```
/// use latpoly::kem::kat::seeds;
///
/// let s = seeds(2);
/// let hex: String = s[0].iter().map(|b| format!("{b:02X}")).collect();
/// assert_eq!(
///     hex,
///     "061550234D158C5EC95595FE04EF7A25767F2E24CC2BC479D09D86DC9ABCFDE7056A8C266F9EF97ED08541DBD2E1FFA1"
/// );
/// assert_eq!(s[1][..4], [0xD8, 0x1C, 0x4D, 0x8D]);
/// ```
pub fn seeds(count: usize) -> Vec<[u8; 48]> {
    let entropy: [u8; 48] = core::array::from_fn(|i| i as u8);
    let mut d = KatDrbg::new(&entropy);
    (0..count)
        .map(|_| {
            let mut s = [0u8; 48];
            d.fill(&mut s);
            s
        })
        .collect()
}

/// One record from its seed: keypair, encapsulate, decapsulate; errors if decapsulation
/// disagrees with encapsulation.
///
/// ```
/// use latpoly::kem::{by_name, kat};
///
/// let kem = by_name("NTRU+KEM576").unwrap();
/// let seed = kat::seeds(1)[0];
/// let r = kat::entry(kem, 0, &seed)?;
/// assert_eq!((r.count, r.seed.as_slice()), (0, &seed[..]));
/// assert_eq!((r.pk.len(), r.sk.len(), r.ct.len(), r.ss.len()), kem.sizes());
/// assert_eq!(kat::entry(kem, 0, &seed)?, r); // fully determined by the seed
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn entry(kem: &dyn DynKem, count: usize, seed: &[u8; 48]) -> Result<KatRecord> {
    let mut d = KatDrbg::new(seed);
    let (pk, sk) = kem.keypair(&mut d)?;
    let (ct, ss) = kem.encapsulate(&pk, &mut d)?;
    let ss2 = kem.decapsulate(&sk, &ct)?;
    if ss2 != ss {
        return Err(Error::InvalidArgument(format!(
            "{}: decapsulation disagrees with encapsulation in record {count}",
            kem.name()
        )));
    }
    Ok(KatRecord {
        count,
        seed: seed.to_vec(),
        pk,
        sk,
        ct,
        ss,
    })
}

/// The first `count` records of the NIST KAT of `kem`.
///
/// ```
/// use latpoly::kem::{by_name, kat};
///
/// let kem = by_name("NTRU+KEM576").unwrap();
/// let records = kat::generate(kem, 2)?;
/// let seeds = kat::seeds(2);
/// assert_eq!(records.len(), 2);
/// assert_eq!(records[1], kat::entry(kem, 1, &seeds[1])?);
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn generate(kem: &dyn DynKem, count: usize) -> Result<Vec<KatRecord>> {
    seeds(count)
        .iter()
        .enumerate()
        .map(|(i, s)| entry(kem, i, s))
        .collect()
}

fn hex(out: &mut String, label: &str, bytes: &[u8]) {
    out.push_str(label);
    out.push_str(" = ");
    for b in bytes {
        let _ = write!(out, "{b:02X}");
    }
    out.push('\n');
}

/// The header text (after `# `) of the official `.rsp` file of the KEM named `name`: the name
/// itself, except `kem/<name>` for the NTRU Prime KEMs (their files carry that prefix).
///
/// ```
/// use latpoly::kem::kat::rsp_header;
/// assert_eq!(rsp_header("ntrulpr761"), "kem/ntrulpr761");
/// assert_eq!(rsp_header("NTRU+KEM576"), "NTRU+KEM576");
/// ```
pub fn rsp_header(name: &str) -> String {
    match name {
        "sntrup761" | "ntrulpr761" => format!("kem/{name}"),
        _ => name.to_string(),
    }
}

/// The `.rsp` text for `records`, with header `# <header>` (see [`rsp_header`]).
///
/// ```
/// use latpoly::kem::{by_name, kat};
///
/// let kem = by_name("NTRU+KEM576").unwrap();
/// let text = kat::write_rsp(&kat::rsp_header(kem.name()), &kat::generate(kem, 1)?);
/// assert!(text.starts_with(
///     "# NTRU+KEM576\n\ncount = 0\nseed = 061550234D158C5EC95595FE04EF7A25767F2E24CC2BC479D09D86DC9ABCFDE7056A8C266F9EF97ED08541DBD2E1FFA1\npk = "
/// ));
/// assert!(text.ends_with("\n\n"));
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn write_rsp(header: &str, records: &[KatRecord]) -> String {
    let mut s = format!("# {header}\n\n");
    for r in records {
        let _ = writeln!(s, "count = {}", r.count);
        hex(&mut s, "seed", &r.seed);
        hex(&mut s, "pk", &r.pk);
        hex(&mut s, "sk", &r.sk);
        hex(&mut s, "ct", &r.ct);
        hex(&mut s, "ss", &r.ss);
        s.push('\n');
    }
    s
}

fn unhex(s: &str) -> Result<Vec<u8>> {
    // Bytes, not `str` slices: a multi-byte character would put a slice boundary inside it
    // (a panic), and `from_str_radix` would take a leading `+`.
    let s = s.trim().as_bytes();
    if !s.len().is_multiple_of(2) {
        return Err(Error::InvalidArgument("odd-length hex string".into()));
    }
    let digit = |i: usize| {
        (s[i] as char)
            .to_digit(16)
            .map(|d| d as u8)
            .ok_or_else(|| Error::InvalidArgument(format!("bad hex at offset {i}")))
    };
    (0..s.len())
        .step_by(2)
        .map(|i| Ok((digit(i)? << 4) | digit(i + 1)?))
        .collect()
}

/// Parses an `.rsp` file (records with all six fields).
///
/// ```
/// use latpoly::kem::kat::{parse_rsp, write_rsp, KatRecord};
/// use latpoly::Error;
///
/// let r = KatRecord { count: 3, seed: vec![0xAB; 48], pk: vec![1], sk: vec![2], ct: vec![3], ss: vec![4] };
/// assert_eq!(parse_rsp(&write_rsp("demo", &[r.clone()]))?, [r]);
/// assert!(matches!(parse_rsp("count = 0\nseed = 0G\n"), Err(Error::InvalidArgument(_))));
/// // not hex either: a sign, a multi-byte character (an error, not a panic)
/// assert!(matches!(parse_rsp("count = 0\nseed = +A+B\n"), Err(Error::InvalidArgument(_))));
/// assert!(matches!(parse_rsp("count = 0\nseed = 0é0\n"), Err(Error::InvalidArgument(_))));
/// assert!(matches!(parse_rsp("pk = 00\n"), Err(Error::InvalidArgument(_)))); // before count
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn parse_rsp(text: &str) -> Result<Vec<KatRecord>> {
    let mut out = Vec::new();
    let mut cur: Option<KatRecord> = None;
    for line in text.lines() {
        let line = line.trim();
        let Some((k, v)) = line.split_once(" = ") else {
            continue;
        };
        match k {
            "count" => {
                if let Some(r) = cur.take() {
                    out.push(r);
                }
                cur = Some(KatRecord {
                    count: v
                        .trim()
                        .parse()
                        .map_err(|_| Error::InvalidArgument(format!("bad count {v}")))?,
                    seed: vec![],
                    pk: vec![],
                    sk: vec![],
                    ct: vec![],
                    ss: vec![],
                });
            }
            "seed" | "pk" | "sk" | "ct" | "ss" => {
                let r = cur
                    .as_mut()
                    .ok_or_else(|| Error::InvalidArgument(format!("{k} before count")))?;
                let bytes = unhex(v)?;
                match k {
                    "seed" => r.seed = bytes,
                    "pk" => r.pk = bytes,
                    "sk" => r.sk = bytes,
                    "ct" => r.ct = bytes,
                    _ => r.ss = bytes,
                }
            }
            _ => {}
        }
    }
    if let Some(r) = cur {
        out.push(r);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rsp_round_trip() {
        let r = KatRecord {
            count: 0,
            seed: vec![1, 2, 0xAB],
            pk: vec![0xff],
            sk: vec![0, 1],
            ct: vec![7],
            ss: vec![9; 3],
        };
        let text = write_rsp("demo", std::slice::from_ref(&r));
        assert!(text.starts_with("# demo\n\ncount = 0\nseed = 0102AB\n"));
        assert_eq!(parse_rsp(&text).unwrap(), vec![r]);
        assert!(parse_rsp("count = 0\nseed = 0G\n").is_err());
        assert!(parse_rsp("seed = 00\n").is_err());
    }

    #[test]
    fn generator_seeds() {
        let s = seeds(2);
        assert_eq!(s[0][..4], [0x06, 0x15, 0x50, 0x23]);
        assert_eq!(s[1][..4], [0xD8, 0x1C, 0x4D, 0x8D]);
    }
}
