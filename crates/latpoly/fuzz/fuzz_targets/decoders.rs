//! The public decoding functions of the PQC rings on arbitrary bytes and lengths:
//! `Ok` or `Err`, never a panic, and whatever they accept satisfies their documented
//! contract (ranges; re-encoding gives the input back where the format is canonical).
//!
//! Input: byte 0 = function (low 4 bits) and parameter set (bits 4-5); byte 1 = flags (bit 0:
//! cut or zero-pad the bytes to the expected length instead of passing them as they are;
//! bits 1-2: output buffer length for the NTRU calls: n, n - 1, n + 1 or bits 3-7 · 37);
//! the rest is the encoding (for the generic NTRU Prime `decode`/`encode`, first a count and
//! the bounds `M`).

#![no_main]

use latpoly::rings::{ntru, ntruplus, ntruprime};
use libfuzzer_sys::fuzz_target;

/// `bytes` as they are, or cut / zero-padded to `len`.
fn shaped(bytes: &[u8], len: usize, exact: bool) -> Vec<u8> {
    let mut v = bytes.to_vec();
    if exact {
        v.resize(len, 0);
    }
    v
}

/// `u16` values from little-endian pairs.
fn u16s(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

/// Splits `count (1 byte) ‖ M (2·count bytes, LE; masked to 14 bits unless raw) ‖ tail`.
fn bounds(rest: &[u8], raw: bool) -> (Vec<u16>, &[u8]) {
    let Some((&count, rest)) = rest.split_first() else {
        return (Vec::new(), rest);
    };
    let take = (2 * usize::from(count)).min(rest.len() & !1);
    let m = u16s(&rest[..take])
        .into_iter()
        .map(|x| if raw { x } else { x & 0x3fff })
        .collect();
    (m, &rest[take..])
}

fn ntruprime_calls(f: u8, exact: bool, flags: u8, rest: &[u8]) {
    use ntruprime::*;
    match f {
        0 => {
            let s = shaped(rest, RQ_BYTES, exact);
            match rq_decode(&s) {
                Ok(c) => {
                    assert_eq!(s.len(), RQ_BYTES);
                    assert!(c.len() == P && c.iter().all(|x| x.abs() <= Q12));
                    // decoding is total and reduces: decode(encode(decode(s))) = decode(s)
                    assert_eq!(rq_decode(&rq_encode(&c).unwrap()).unwrap(), c);
                }
                Err(_) => assert_ne!(s.len(), RQ_BYTES),
            }
        }
        1 => {
            let s = shaped(rest, ROUNDED_BYTES, exact);
            match rounded_decode(&s) {
                Ok(c) => {
                    assert_eq!(s.len(), ROUNDED_BYTES);
                    assert!(c.len() == P && c.iter().all(|x| x.abs() <= Q12 && x % 3 == 0));
                    assert_eq!(rounded_decode(&rounded_encode(&c).unwrap()).unwrap(), c);
                }
                Err(_) => assert_ne!(s.len(), ROUNDED_BYTES),
            }
        }
        2 => {
            let s = shaped(rest, SMALL_BYTES, exact);
            if let Ok(c) = small_decode(&s) {
                assert!(c.len() == P && c.iter().all(|x| x.abs() <= 1));
                // strict decoding: only canonical encodings are accepted
                assert_eq!(small_encode(&c).unwrap(), s);
            } else {
                // the only well-sized rejections: a 11 pattern or padding bits
                if s.len() == SMALL_BYTES {
                    let bad = s.iter().any(|&x| x & (x >> 1) & 0x55 != 0) || s[SMALL_BYTES - 1] > 3;
                    assert!(bad, "small_decode rejected a canonical encoding");
                }
            }
        }
        3 => {
            // generic Decode(s, M)
            let (m, tail) = bounds(rest, flags & 0x80 != 0);
            let valid_m = m.iter().all(|&x| (1..16384).contains(&x));
            let len = encoded_len(&m);
            assert_eq!(len.is_ok(), valid_m);
            let s = shaped(tail, *len.as_ref().unwrap_or(&tail.len()), exact);
            match decode(&s, &m) {
                Ok(r) => {
                    assert!(valid_m && s.len() == *len.as_ref().unwrap());
                    assert!(r.len() == m.len() && r.iter().zip(&m).all(|(x, y)| x < y));
                    let again = encode(&r, &m).expect("decoded values are in range");
                    assert_eq!(again.len(), s.len());
                    assert_eq!(decode(&again, &m).unwrap(), r);
                }
                Err(_) => assert!(!valid_m || s.len() != *len.as_ref().unwrap()),
            }
        }
        4 => {
            // generic Encode(R, M): R follows M in the input
            let (m, tail) = bounds(rest, flags & 0x80 != 0);
            let r: Vec<u16> = u16s(tail).into_iter().take(m.len()).collect();
            if let Ok(bytes) = encode(&r, &m) {
                assert!(r.iter().zip(&m).all(|(x, y)| x < y));
                assert_eq!(bytes.len(), encoded_len(&m).unwrap());
                assert_eq!(decode(&bytes, &m).unwrap(), r);
            }
        }
        _ => {}
    }
}

fn ntruplus_calls(p: ntruplus::NtruPlusParams, f: u8, exact: bool, rest: &[u8]) {
    let q = p.q() as i16;
    match f {
        5 => {
            let s = shaped(rest, p.encoded_bytes(), exact);
            if let Ok(v) = ntruplus::decodeq(&s, p) {
                assert!(v.len() == p.n() && v.iter().all(|&x| (0..q).contains(&x)));
                assert_eq!(
                    ntruplus::encodeq(&v, p).unwrap(),
                    s,
                    "decodeq accepted a non-canonical encoding"
                );
            } else if s.len() == p.encoded_bytes() {
                // a well-sized encoding is refused only for a field >= q
                assert!(matches!(
                    ntruplus::decodeq(&s, p),
                    Err(latpoly::Error::CoefficientOutOfRange { .. })
                ));
            }
        }
        6 => {
            let s = shaped(rest, p.n() / 4, exact);
            match ntruplus::cbd1(&s, p) {
                Ok(v) => assert!(
                    s.len() == p.n() / 4 && v.len() == p.n() && v.iter().all(|x| x.abs() <= 1)
                ),
                Err(_) => assert_ne!(s.len(), p.n() / 4),
            }
        }
        _ => {}
    }
}

fn ntru_calls(p: ntru::NtruParams, f: u8, exact: bool, flags: u8, rest: &[u8]) {
    let n = p.n();
    let out_len = match (flags >> 1) & 3 {
        0 => n,
        1 => n - 1,
        2 => n + 1,
        _ => usize::from(flags >> 3) * 37,
    };
    let mut out = vec![0xffffu16; out_len];
    match f {
        7 | 8 => {
            let s = shaped(rest, p.sq_bytes(), exact);
            let r = if f == 7 {
                ntru::poly_sq_frombytes(&s, p, &mut out)
            } else {
                ntru::poly_rq_sum_zero_frombytes(&s, p, &mut out)
            };
            match r {
                Ok(()) => {
                    assert!(s.len() == p.sq_bytes() && out_len == n);
                    assert!(out[..n - 1].iter().all(|&x| x < p.q()));
                    let sum = out.iter().fold(0u16, |a, &x| a.wrapping_add(x));
                    if f == 7 {
                        assert_eq!(out[n - 1], 0);
                    } else {
                        assert_eq!(sum, 0);
                    }
                    // re-packing gives the input back, up to the unused bits of the last byte
                    let mut back = vec![0u8; p.sq_bytes()];
                    ntru::poly_sq_tobytes(&out, p, &mut back).unwrap();
                    let used = ((n - 1) * p.log_q() as usize) % 8;
                    let mask = if used == 0 { 0xff } else { (1u8 << used) - 1 };
                    let last = back.len() - 1;
                    assert_eq!(back[..last], s[..last]);
                    assert_eq!(back[last], s[last] & mask);
                }
                Err(_) => assert!(s.len() != p.sq_bytes() || out_len != n),
            }
        }
        9 => {
            let s = shaped(rest, p.s3_bytes(), exact);
            match ntru::poly_s3_frombytes(&s, p, &mut out) {
                Ok(()) => {
                    assert!(s.len() == p.s3_bytes() && out_len == n);
                    assert!(out.iter().all(|&x| x <= 2));
                    assert_eq!(out[n - 1], 0);
                }
                Err(_) => assert!(s.len() != p.s3_bytes() || out_len != n),
            }
        }
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let [sel, flags, rest @ ..] = data else {
        return;
    };
    let f = sel & 0x0f;
    let set = usize::from((sel >> 4) & 3);
    let exact = flags & 1 != 0;
    match f {
        0..=4 => ntruprime_calls(f, exact, *flags, rest),
        5 | 6 => ntruplus_calls(ntruplus::NtruPlusParams::ALL[set], f, exact, rest),
        7..=9 => ntru_calls(ntru::NtruParams::ALL[set], f, exact, *flags, rest),
        _ => {
            // the length helpers on arbitrary bounds
            let (m, _) = bounds(rest, flags & 0x80 != 0);
            let _ = ntruprime::encoded_len(&m);
        }
    }
});
