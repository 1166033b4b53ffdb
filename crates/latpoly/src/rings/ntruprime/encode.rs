//! The NTRU Prime encodings (spec "NTRU Prime: round 3" section 3.2 / PARAMS B.2), bit-exact with
//! the reference C `Encode.c` / `Decode.c` and the `*_encode` / `*_decode` of `kem.c`.
//!
//! The generic [`encode`] packs a sequence `R` with `0 <= R[i] < M[i] < 2^14` by merging
//! neighbours pairwise (`r = R[i] + R[i+1]·M[i]`, `m = M[i]·M[i+1]`), emitting the low bytes of
//! every merged value while its bound is at least `2^14`, and recursing on the half-length
//! sequence. [`decode`] undoes it; like the reference it accepts every byte string of the right
//! length and reduces out-of-range values modulo `M[i]` ("benign malleability"), so decoding
//! is total and `encode(decode(s)) == s` holds exactly for canonical `s`.
//!
//! Running time depends only on the public bounds `M` (and the length): the divisions by
//! `M[i]` are constant-time multiplications by precomputed reciprocals.

use super::scalar::u64_divmod_u14;
use crate::error::{Error, Result};

/// Largest bound (exclusive) the encoding accepts for `M[i]`: `2^14`.
const LIMIT: u32 = 16384;

fn check_bounds(m: &[u16]) -> Result<()> {
    if let Some(i) = m.iter().position(|&x| x == 0 || u32::from(x) >= LIMIT) {
        return Err(Error::InvalidArgument(format!(
            "encoding bound M[{i}] = {} is not in 1..16384",
            m[i]
        )));
    }
    Ok(())
}

/// Number of bytes [`encode`] produces for the bounds `m` (which must lie in `1..16384`).
pub(crate) fn encoded_len_unchecked(m: &[u16]) -> usize {
    let mut m: Vec<u32> = m.iter().map(|&x| u32::from(x)).collect();
    let mut bytes = 0;
    while m.len() > 1 {
        let len = m.len();
        for k in 0..len / 2 {
            let mut x = m[2 * k] * m[2 * k + 1];
            while x >= LIMIT {
                bytes += 1;
                x = (x + 255) >> 8;
            }
            m[k] = x;
        }
        if len % 2 == 1 {
            m[len / 2] = m[len - 1];
        }
        m.truncate(len.div_ceil(2));
    }
    if let Some(&x) = m.first() {
        let mut x = x;
        while x > 1 {
            bytes += 1;
            x = (x + 255) >> 8;
        }
    }
    bytes
}

/// Number of bytes [`encode`] produces for the bounds `m`.
///
/// Errors: some `m[i]` outside `1..16384`.
///
/// ```
/// use latpoly::rings::ntruprime::{encoded_len, P, Q, RQ_BYTES};
/// assert_eq!(encoded_len(&[Q as u16; P]).unwrap(), RQ_BYTES);
/// assert_eq!(encoded_len(&[256, 256]).unwrap(), 2);
/// ```
pub fn encoded_len(m: &[u16]) -> Result<usize> {
    check_bounds(m)?;
    Ok(encoded_len_unchecked(m))
}

/// The generic `Encode(R, M)` of the spec: packs `r[i] < m[i]` (`1 <= m[i] < 2^14`) into
/// [`encoded_len`]`(m)` bytes.
///
/// Errors: `r` and `m` of different lengths, a bound outside `1..16384`, or some
/// `r[i] >= m[i]` (the first offender is reported; the scan itself is branch-free).
///
/// ```
/// use latpoly::rings::ntruprime::{decode, encode};
/// let m = [3, 5, 7000, 2];
/// let r = [2, 4, 6999, 1];
/// let bytes = encode(&r, &m).unwrap();
/// assert_eq!(decode(&bytes, &m).unwrap(), r);
/// assert!(encode(&[3], &[3]).is_err());
/// ```
pub fn encode(r: &[u16], m: &[u16]) -> Result<Vec<u8>> {
    if r.len() != m.len() {
        return Err(Error::LengthMismatch {
            expected: m.len(),
            got: r.len(),
        });
    }
    check_bounds(m)?;
    // Branch-free range scan (r may be secret): the sign bit of !(r - m) is set iff r >= m.
    // Then locate the offender only on failure.
    let bad = r
        .iter()
        .zip(m)
        .fold(0i32, |acc, (&x, &y)| acc | !(i32::from(x) - i32::from(y)));
    if bad < 0 {
        let i = r.iter().zip(m).position(|(x, y)| x >= y).unwrap_or(0);
        return Err(Error::InvalidArgument(format!(
            "value R[{i}] = {} is not below its bound M[{i}] = {}",
            r[i], m[i]
        )));
    }
    let mut out = Vec::with_capacity(encoded_len_unchecked(m));
    encode_into(&mut out, r, m);
    Ok(out)
}

/// The reference's recursion, level by level: each level merges neighbours pairwise, emitting
/// the low bytes of every merged value while its bound is at least `2^14`; the last value is
/// emitted while its bound exceeds 1. Two buffers, no allocation per level. Contract: `r[i] <
/// m[i] < 2^14` (checked by the callers).
pub(crate) fn encode_into(out: &mut Vec<u8>, r: &[u16], m: &[u16]) {
    let mut rr: Vec<u32> = r.iter().map(|&x| u32::from(x)).collect();
    let mut mm: Vec<u32> = m.iter().map(|&x| u32::from(x)).collect();
    while rr.len() > 1 {
        let len = rr.len();
        let half = len / 2;
        for k in 0..half {
            let (m0, m1) = (mm[2 * k], mm[2 * k + 1]);
            let mut x = rr[2 * k] + rr[2 * k + 1] * m0;
            let mut b = m1 * m0;
            while b >= LIMIT {
                out.push(x as u8);
                x >>= 8;
                b = (b + 255) >> 8;
            }
            rr[k] = x;
            mm[k] = b;
        }
        if len % 2 == 1 {
            rr[half] = rr[len - 1];
            mm[half] = mm[len - 1];
        }
        rr.truncate(len.div_ceil(2));
        mm.truncate(len.div_ceil(2));
    }
    if let (Some(&x), Some(&b)) = (rr.first(), mm.first()) {
        let (mut x, mut b) = (x, b);
        while b > 1 {
            out.push(x as u8);
            x >>= 8;
            b = (b + 255) >> 8;
        }
    }
}

/// The generic `Decode(S, M)` of the spec, inverse of [`encode`]: returns `len(m)` values with
/// `0 <= out[i] < m[i]`. Every byte string of the right length is accepted (values too large
/// for their bound are reduced modulo it, as in the reference).
///
/// Errors: a bound outside `1..16384`, or `s.len() != encoded_len(m)`.
///
/// ```
/// use latpoly::rings::ntruprime::{decode, encode};
/// let m = vec![4591u16; 10];
/// let r: Vec<u16> = (0..10).map(|i| 459 * i).collect();
/// assert_eq!(decode(&encode(&r, &m).unwrap(), &m).unwrap(), r);
/// assert!(decode(&[0u8; 3], &m).is_err());
/// ```
pub fn decode(s: &[u8], m: &[u16]) -> Result<Vec<u16>> {
    check_bounds(m)?;
    let expected = encoded_len_unchecked(m);
    if s.len() != expected {
        return Err(Error::LengthMismatch {
            expected,
            got: s.len(),
        });
    }
    Ok(decode_levels(s, m))
}

/// Constant-time division of 32-bit values by a public `1 <= m < 2^14` with a cached
/// reciprocal `ceil(2^64 / m)` (see [`u64_divmod_u14`] for why the quotient is exact).
struct Divisor {
    m: u16,
    c: u128,
}

impl Divisor {
    fn new(m: u16) -> Self {
        // m = 1: c = 2^64 gives the quotient x exactly.
        Divisor {
            m,
            c: if m == 1 {
                1 << 64
            } else {
                u128::from(u64::MAX / u64::from(m) + 1)
            },
        }
    }

    /// Changes the divisor (recomputes the reciprocal only if it differs; `m` is public).
    #[inline(always)]
    fn set(&mut self, m: u16) {
        if m != self.m {
            *self = Divisor::new(m);
        }
    }

    /// `(x / m, x mod m)`.
    #[inline(always)]
    fn divmod(&self, x: u32) -> (u32, u16) {
        let qt = ((u128::from(x) * self.c) >> 64) as u32;
        (qt, (x - qt * u32::from(self.m)) as u16)
    }
}

/// `x mod m` (the reference `uint32_mod_uint14`).
#[inline(always)]
fn mod_u14(x: u32, m: u16) -> u16 {
    u64_divmod_u14(u64::from(x), m).1
}

/// The reference's recursion, unrolled: going up, each level reads the low bytes of its merged
/// pairs (in the order `Encode` wrote them) and computes the bounds of the next level; at the
/// top the last value is read; going down, every merged value is split by a constant-time
/// division by its (public) bound. All levels live in flat buffers. Contract: `m` in
/// `1..16384` and `s.len() == encoded_len(m)` (checked by the callers).
pub(crate) fn decode_levels(s: &[u8], m: &[u16]) -> Vec<u16> {
    let n = m.len();
    if n == 0 {
        return Vec::new();
    }
    // Level k occupies [start[k], start[k] + len[k]) of the flat arrays.
    let mut bounds: Vec<u32> = m.iter().map(|&x| u32::from(x)).collect();
    let mut bottom: Vec<(u32, u32)> = Vec::with_capacity(n); // (bottomr, bottomt) per pair
    let mut levels: Vec<(usize, usize, usize)> = Vec::new(); // (bounds start, len, bottom start)
    let (mut start, mut len, mut pos) = (0usize, n, 0usize);
    while len > 1 {
        let half = len / 2;
        levels.push((start, len, bottom.len()));
        for k in 0..half {
            let b = bounds[start + 2 * k] * bounds[start + 2 * k + 1];
            let (r, t, next) = if b > 256 * 16383 {
                let r = u32::from(s[pos]) + 256 * u32::from(s[pos + 1]);
                pos += 2;
                (r, 256 * 256, (((b + 255) >> 8) + 255) >> 8)
            } else if b >= LIMIT {
                pos += 1;
                (u32::from(s[pos - 1]), 256, (b + 255) >> 8)
            } else {
                (0, 1, b)
            };
            bottom.push((r, t));
            bounds.push(next);
        }
        if len % 2 == 1 {
            bounds.push(bounds[start + len - 1]);
        }
        start += len;
        len = len.div_ceil(2);
    }
    // The top value.
    let top = bounds[start];
    let v = if top == 1 {
        0
    } else if top <= 256 {
        mod_u14(u32::from(s[pos]), top as u16)
    } else {
        mod_u14(u32::from(s[pos]) + (u32::from(s[pos + 1]) << 8), top as u16)
    };
    debug_assert_eq!(pos + usize::from(top > 1) + usize::from(top > 256), s.len());
    // Going down: values of the level above, then of this level. The bounds are public and
    // mostly equal, so their reciprocals are cached.
    let (mut d0, mut d1) = (Divisor::new(1), Divisor::new(1));
    let mut upper = vec![v];
    for &(st, ln, bs) in levels.iter().rev() {
        let mut cur = vec![0u16; ln];
        for k in 0..ln / 2 {
            let (br, bt) = bottom[bs + k];
            let x = br + bt * u32::from(upper[k]);
            d0.set(bounds[st + 2 * k] as u16);
            d1.set(bounds[st + 2 * k + 1] as u16);
            let (r1, r0) = d0.divmod(x);
            cur[2 * k] = r0;
            // Only needed for invalid inputs (as in the reference).
            cur[2 * k + 1] = d1.divmod(r1).1;
        }
        if ln % 2 == 1 {
            cur[ln - 1] = upper[ln / 2];
        }
        upper = cur;
    }
    upper
}
