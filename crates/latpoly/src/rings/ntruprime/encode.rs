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
    match m.first() {
        Some(&m0) if m.iter().all(|&x| x == m0) => encode_uniform(&mut out, r, m0),
        _ => encode_into(&mut out, r, m),
    }
    Ok(out)
}

/// [`encode_into`] when every bound equals `m0`: with the level [`schedule`] the number of bytes
/// each merged pair emits is fixed per level and the pairs are merged in place (value `k` of the next level overwrites slot `k`, after slots `2k`, `2k+1`
/// were read). Same bytes as `encode_into` (checked by the tests); branch-free in the values.
pub(crate) fn encode_uniform(out: &mut Vec<u8>, r: &[u16], m0: u16) {
    #[cfg(target_arch = "x86_64")]
    if super::x86::encode_uniform(super::global().isa(), out, r, m0) {
        return;
    }
    encode_uniform_impl(out, r, m0)
}

/// The body of [`encode_uniform`], also compiled with each SIMD backend's features: each
/// level reads the current values and writes the merged ones to a second buffer and the
/// emitted bytes to a pre-sized slice, so its loops vectorise.
#[inline(always)]
pub(crate) fn encode_uniform_impl(out: &mut Vec<u8>, r: &[u16], m0: u16) {
    let n = r.len();
    if n == 0 {
        return;
    }
    let sched = schedule(m0, n);
    let (levels, top) = (&sched.0, sched.1);
    let mut cur: Vec<u32> = r.iter().map(|&x| u32::from(x)).collect();
    let mut nxt = vec![0u32; n / 2 + 1];
    for lv in levels {
        let (len, reg) = (lv.len, lv.reg);
        let (half, even, regular) = lv.pairs();
        let start = out.len();
        out.resize(start + regular * lv.reg_bytes, 0);
        let (ys, pairs) = (&mut nxt[..regular], cur[..2 * regular].chunks_exact(2));
        match lv.reg_bytes {
            0 => {
                for (y, p) in ys.iter_mut().zip(pairs) {
                    *y = p[0] + p[1] * reg;
                }
            }
            1 => {
                for ((y, p), o) in ys.iter_mut().zip(pairs).zip(&mut out[start..]) {
                    let x = p[0] + p[1] * reg;
                    *o = x as u8;
                    *y = x >> 8;
                }
            }
            _ => {
                let bytes = out[start..].chunks_exact_mut(2);
                for ((y, p), o) in ys.iter_mut().zip(pairs).zip(bytes) {
                    let x = p[0] + p[1] * reg;
                    o[0] = x as u8;
                    o[1] = (x >> 8) as u8;
                    *y = x >> 16;
                }
            }
        }
        if even {
            let k = half - 1;
            let mut x = cur[2 * k] + cur[2 * k + 1] * reg;
            for _ in 0..lv.last_bytes {
                out.push(x as u8);
                x >>= 8;
            }
            nxt[k] = x;
        } else {
            nxt[half] = cur[len - 1];
        }
        std::mem::swap(&mut cur, &mut nxt);
    }
    let (mut x, mut m) = (cur[0], top);
    while m > 1 {
        out.push(x as u8);
        x >>= 8;
        m = (m + 255) >> 8;
    }
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
    Ok(match m.first() {
        Some(&m0) if m.iter().all(|&x| x == m0) => decode_uniform(s, m0, m.len()),
        _ => decode_levels(s, m),
    })
}

/// One level of [`decode_uniform`]'s schedule: `len` values whose bounds are `reg`, except the
/// last (`last`); pairs of the level take `reg_bytes` bytes each (the last pair `last_bytes`),
/// starting at byte `pos`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Level {
    pub(super) len: usize,
    pub(super) reg: u32,
    pub(super) last: u32,
    pub(super) reg_bytes: usize,
    pub(super) last_bytes: usize,
    pub(super) pos: usize,
}

impl Level {
    /// `(half, even, regular)`: `len / 2`, whether `len` is even, and the number of regular
    /// pairs (all of them for odd `len`; for even `len` the last pair is merged with the
    /// level's last bound instead).
    #[inline(always)]
    pub(super) fn pairs(&self) -> (usize, bool, usize) {
        let (half, even) = (self.len / 2, self.len.is_multiple_of(2));
        (half, even, if even { half - 1 } else { half })
    }
}

/// Bytes a merged pair of bound product `b` leaves at its level (0, 1 or 2) and the bound of
/// the merged value at the next level, as in the reference.
#[inline(always)]
fn merge(b: u32) -> (usize, u32) {
    if b > 256 * 16383 {
        (2, (((b + 255) >> 8) + 255) >> 8)
    } else if b >= LIMIT {
        (1, (b + 255) >> 8)
    } else {
        (0, b)
    }
}

/// The level schedule of a uniform-bound encoding of `n >= 1` values below `m0`, bottom up:
/// per level its length, bounds, bytes per pair and first byte; then the bound of the top value
/// and the position of its bytes. O(log n) work: every level has one bound for all values but
/// the last.
///
/// Built once for the NTRU Prime encodings (`Rq`: `(4591, 761)`, `Rounded`: `(1531, 761)`),
/// on the spot otherwise.
pub(super) fn schedule(m0: u16, n: usize) -> std::borrow::Cow<'static, Schedule> {
    use std::borrow::Cow;
    use std::sync::OnceLock;
    static CACHE: [OnceLock<Schedule>; 2] = [const { OnceLock::new() }; 2];
    let slot = match (m0, n) {
        (super::Q, super::P) => 0,
        (super::ROUNDED_M, super::P) => 1,
        _ => return Cow::Owned(build_schedule(m0, n)),
    };
    Cow::Borrowed(CACHE[slot].get_or_init(|| build_schedule(m0, n)))
}

/// The levels, the bound of the top value and the position of its bytes.
pub(super) type Schedule = (Vec<Level>, u32, usize);

/// [`schedule`], computed.
fn build_schedule(m0: u16, n: usize) -> Schedule {
    let mut levels: Vec<Level> = Vec::with_capacity(16);
    let (mut len, mut reg, mut last, mut pos) = (n, u32::from(m0), u32::from(m0), 0usize);
    while len > 1 {
        let half = len / 2;
        let (reg_bytes, reg_next) = merge(reg * reg);
        // The last pair is (reg, last) when len is even; when len is odd, `last` is carried.
        let (last_bytes, last_next) = if len % 2 == 0 {
            merge(reg * last)
        } else {
            (0, last)
        };
        let pair_bytes = if len % 2 == 0 {
            (half - 1) * reg_bytes + last_bytes
        } else {
            half * reg_bytes
        };
        levels.push(Level {
            len,
            reg,
            last,
            reg_bytes,
            last_bytes,
            pos,
        });
        pos += pair_bytes;
        // Next level: ceil(len / 2) values, all `reg_next` but the last.
        let next_len = len.div_ceil(2);
        (reg, last) = if next_len == 1 {
            (last_next, last_next)
        } else {
            (reg_next, last_next)
        };
        len = next_len;
    }
    (levels, last, pos)
}

/// `(x / m, x mod m)` for `x < 2^32`, `1 <= m < 2^14`, with `c = ceil(2^64 / m)` (`m >= 2`;
/// for `m = 1` the caller passes `c = 0` and gets `(x, 0)`): exact since `64 >= 32 + 14`.
#[inline(always)]
fn divmod_c(x: u32, m: u32, c: u64) -> (u32, u32) {
    // floor(x c / 2^64) from two 32 x 32 products (vectorisable): x c_hi + (x c_lo >> 32)
    // stays below 2^64 for x < 2^32.
    let q = if c == 0 {
        x
    } else {
        let x = u64::from(x);
        ((x * (c >> 32) + ((x * (c & 0xffff_ffff)) >> 32)) >> 32) as u32
    };
    (q, x - q * m)
}

#[inline(always)]
fn recip(m: u32) -> u64 {
    if m <= 1 {
        0
    } else {
        u64::MAX / u64::from(m) + 1
    }
}

/// [`decode_levels`] when every bound equals `m0` (the NTRU Prime ring elements and rounded
/// ciphertexts): then every level has one bound for all values but the last, so the schedule
/// (bounds, byte counts, byte offsets) takes O(log n) work, the low bytes are read in place, and
/// the values are split level by level in one buffer, top down, with a reciprocal per level.
/// Same output as `decode_levels` for every input (checked by the tests). Branch-free in the
/// data; the loop structure depends only on the public `m0` and `n`.
pub(crate) fn decode_uniform(s: &[u8], m0: u16, n: usize) -> Vec<u16> {
    #[cfg(target_arch = "x86_64")]
    if let Some(v) = super::x86::decode_uniform(super::global().isa(), s, m0, n) {
        return v;
    }
    decode_uniform_impl(s, m0, n)
}

/// [`decode_uniform`] and whether `s` is the canonical encoding of the result, i.e. whether
/// `encode_uniform` of the values gives `s` back: every other string of the right length
/// decodes to values some of which needed a reduction (a quotient at or above its bound, or a
/// top value at or above its own). The AVX-512 decoder tracks those reductions as it goes;
/// elsewhere the values are encoded again and compared. Constant time in `s`.
pub(crate) fn decode_uniform_canonical(s: &[u8], m0: u16, n: usize) -> (Vec<u16>, bool) {
    #[cfg(target_arch = "x86_64")]
    if let Some(v) = super::x86::decode_uniform_canonical(super::global().isa(), s, m0, n) {
        return v;
    }
    let v = decode_uniform(s, m0, n);
    let mut again = Vec::with_capacity(s.len());
    encode_uniform(&mut again, &v, m0);
    let canonical = bool::from(crate::arith::ct::bytes_equal(&again, s));
    (v, canonical)
}

/// The body of [`decode_uniform`], also compiled with each SIMD backend's features (its loops
/// are plain slice loops the compiler vectorises).
#[inline(always)]
pub(crate) fn decode_uniform_impl(s: &[u8], m0: u16, n: usize) -> Vec<u16> {
    if n == 0 {
        return Vec::new();
    }
    let sched = schedule(m0, n);
    let (levels, top, pos) = (&sched.0, sched.1, sched.2);
    // Two buffers, levels alternating between them (no store-to-load aliasing in the loops).
    let mut upper = vec![0u32; n];
    let mut cur = vec![0u32; n];
    let mut xbuf = vec![0u32; n / 2 + 1];
    upper[0] = if top == 1 {
        0
    } else if top <= 256 {
        u32::from(mod_u14(u32::from(s[pos]), top as u16))
    } else {
        u32::from(mod_u14(
            u32::from(s[pos]) + (u32::from(s[pos + 1]) << 8),
            top as u16,
        ))
    };
    debug_assert_eq!(pos + usize::from(top > 1) + usize::from(top > 256), s.len());
    for lv in levels.iter().rev() {
        // The last pair of an even level has bounds (reg, last); an odd level carries its last
        // value.
        let (half, even, regular) = lv.pairs();
        let (m, c) = (lv.reg, recip(lv.reg));
        let bytes = &s[lv.pos..];
        let up = &upper[..half + 1];
        let out = &mut cur[..lv.len];
        // x_k = low_k + 256^bytes · upper_k for the regular pairs, then both halves at once.
        let xs = &mut xbuf[..regular];
        match lv.reg_bytes {
            0 => xs.copy_from_slice(&up[..regular]),
            1 => {
                for ((x, &u), &b) in xs.iter_mut().zip(up).zip(bytes) {
                    *x = u32::from(b) + (u << 8);
                }
            }
            _ => {
                for ((x, &u), b) in xs.iter_mut().zip(up).zip(bytes.chunks_exact(2)) {
                    *x = (u32::from(b[0]) | u32::from(b[1]) << 8) + (u << 16);
                }
            }
        }
        split_pairs(&mut out[..2 * regular], xs, m, c);
        if even {
            let k = half - 1;
            (out[2 * k], out[2 * k + 1]) = split_last(lv, bytes, up[k]);
        } else {
            out[lv.len - 1] = up[half];
        }
        std::mem::swap(&mut upper, &mut cur);
    }
    upper.truncate(n);
    upper.into_iter().map(|x| x as u16).collect()
}

/// The last pair `(value mod reg, quotient mod last)` of an even level of [`decode_uniform`]
/// from its upper value `up` and its `last_bytes` low bytes (after the level's regular pairs
/// in `bytes`); constant-time divisions by the public bounds.
#[inline(always)]
pub(super) fn split_last(lv: &Level, bytes: &[u8], up: u32) -> (u32, u32) {
    let (r0, r1, _) = split_last_checked(lv, bytes, up);
    (r0, r1)
}

/// [`split_last`], and 1 where the quotient needed no reduction (it is below `lv.last`, as in
/// every canonical encoding), else 0.
#[inline(always)]
pub(super) fn split_last_checked(lv: &Level, bytes: &[u8], up: u32) -> (u32, u32, u32) {
    let at = (lv.len / 2 - 1) * lv.reg_bytes;
    let (r, t) = match lv.last_bytes {
        0 => (0, 1),
        1 => (u32::from(bytes[at]), 256),
        _ => (u32::from(bytes[at]) | u32::from(bytes[at + 1]) << 8, 65536),
    };
    let (q, r0) = divmod_c(r + t * up, lv.reg, recip(lv.reg));
    (
        r0,
        divmod_c(q, lv.last, recip(lv.last)).1,
        u32::from(q < lv.last),
    )
}

/// Splits each `x` of `xs` into the pair `(x mod m, floor(x / m) mod m)` of `out` (`c` the
/// reciprocal of `m`). The second reduction is only needed for invalid inputs (as in the
/// reference). Plain loops over slices: the compiler vectorises them.
#[inline(always)]
fn split_pairs(out: &mut [u32], xs: &[u32], m: u32, c: u64) {
    for (pair, &x) in out.chunks_exact_mut(2).zip(xs) {
        let (q, r0) = divmod_c(x, m, c);
        pair[0] = r0;
        pair[1] = divmod_c(q, m, c).1;
    }
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
pub(super) fn mod_u14(x: u32, m: u16) -> u16 {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift bytes: arbitrary (mostly invalid) encodings.
    fn bytes(seed: u64, len: usize) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    /// The uniform-bound fast paths equal the reference recursion (decoding: on every input,
    /// valid or not; encoding: byte for byte): all lengths up to 300 and the NTRU Prime sizes,
    /// bounds at the edges of the byte thresholds.
    #[test]
    fn uniform_decode_matches_reference_recursion() {
        let bounds = [
            1u16, 2, 3, 255, 256, 257, 1531, 4591, 16383, 127, 128, 129, 4095, 4096, 8191,
        ];
        let lens: Vec<usize> = (1..=300).chain([511, 512, 761, 1013, 1024]).collect();
        for &m0 in &bounds {
            for &n in &lens {
                let m = vec![m0; n];
                let len = encoded_len_unchecked(&m);
                for seed in 0..3u64 {
                    let s = bytes(seed * 7919 + n as u64 * 31 + u64::from(m0), len);
                    let want = decode_levels(&s, &m);
                    assert_eq!(decode_uniform(&s, m0, n), want, "m0={m0} n={n} seed={seed}");
                    assert_eq!(decode_uniform_impl(&s, m0, n), want, "scalar m0={m0} n={n}");
                    #[cfg(target_arch = "x86_64")]
                    for isa in [crate::isa::Isa::Avx2, crate::isa::Isa::Avx512] {
                        if let Some(got) = super::super::x86::decode_uniform(isa, &s, m0, n) {
                            assert_eq!(got, want, "{isa} m0={m0} n={n} seed={seed}");
                        }
                    }
                }
                // Valid encodings round-trip.
                let v: Vec<u16> = (0..n)
                    .map(|i| ((i * 2654435761) % usize::from(m0)) as u16)
                    .collect();
                let mut out = Vec::new();
                encode_into(&mut out, &v, &m);
                assert_eq!(decode_uniform(&out, m0, n), v, "m0={m0} n={n}");
                let mut fast = Vec::new();
                encode_uniform(&mut fast, &v, m0);
                assert_eq!(fast, out, "encode m0={m0} n={n}");
                let mut fast = Vec::new();
                encode_uniform_impl(&mut fast, &v, m0);
                assert_eq!(fast, out, "scalar encode m0={m0} n={n}");
                #[cfg(target_arch = "x86_64")]
                for isa in [crate::isa::Isa::Avx2, crate::isa::Isa::Avx512] {
                    let mut fast = Vec::new();
                    if super::super::x86::encode_uniform(isa, &mut fast, &v, m0) {
                        assert_eq!(fast, out, "{isa} encode m0={m0} n={n}");
                    }
                }
            }
        }
    }
}
