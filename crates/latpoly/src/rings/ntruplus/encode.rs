//! `Encodeq` / `Decodeq` (12-bit interleaved packing) and `CBD1` (spec v2.2.1 Alg. 5/6, 12/14).

use super::tables::Q;
use crate::arith::ct::{barrier, opaque_shift};
use crate::error::{Error, Result};

/// Packs one block of `4W` coefficients (`W` = 16, or 8 for the 864 tail) into `6W` bytes:
/// `t_k = f[i + W·k]` for `i < W`, two 12-bit values per 3 bytes in the interleaved order of
/// the reference `poly_tobytes`.
#[inline(always)]
fn pack_block(out: &mut [u8], f: &[u16], w: usize) {
    // one copy per block width, so the loops have constant bounds and vectorise
    if w == 16 {
        pack_block_w::<16>(out, f)
    } else {
        pack_block_w::<8>(out, f)
    }
}

/// The block as three rows of `W` little-endian 16-bit words (bytes `2i, 2i+1` of row `r` at
/// `2rW + 2i`): with `t_k` the coefficient `i + W·k`, row 0 is `t0 | t1 << 12`, row 1
/// `t1 >> 4 | t2 << 8`, row 2 `t2 >> 8 | t3 << 4`: element-wise on words, which the compiler
/// vectorises.
#[inline(always)]
fn pack_block_w<const W: usize>(out: &mut [u8], f: &[u16]) {
    let (out, f) = (&mut out[..6 * W], &f[..4 * W]);
    let (t0, rest) = f.split_at(W);
    let (t1, rest) = rest.split_at(W);
    let (t2, t3) = rest.split_at(W);
    let mut w = [[0u16; W]; 3];
    for i in 0..W {
        w[0][i] = t0[i] | (t1[i] << 12);
        w[1][i] = (t1[i] >> 4) | (t2[i] << 8);
        w[2][i] = (t2[i] >> 8) | (t3[i] << 4);
    }
    for (row, words) in out.chunks_exact_mut(2 * W).zip(&w) {
        for (b, x) in row.chunks_exact_mut(2).zip(words) {
            b.copy_from_slice(&x.to_le_bytes());
        }
    }
}

#[inline(always)]
fn unpack_block(f: &mut [i16], b: &[u8], w: usize) {
    if w == 16 {
        unpack_block_w::<16>(f, b)
    } else {
        unpack_block_w::<8>(f, b)
    }
}

/// Inverse of [`pack_block_w`]: `t0 = w0 & 0xfff`, `t1 = w0 >> 12 | (w1 & 0xff) << 4`,
/// `t2 = w1 >> 8 | (w2 & 0xf) << 8`, `t3 = w2 >> 4`.
#[inline(always)]
fn unpack_block_w<const W: usize>(f: &mut [i16], b: &[u8]) {
    let (f, b) = (&mut f[..4 * W], &b[..6 * W]);
    let mut w = [[0u16; W]; 3];
    for (words, row) in w.iter_mut().zip(b.chunks_exact(2 * W)) {
        for (x, by) in words.iter_mut().zip(row.chunks_exact(2)) {
            *x = u16::from_le_bytes([by[0], by[1]]);
        }
    }
    let (t0, rest) = f.split_at_mut(W);
    let (t1, rest) = rest.split_at_mut(W);
    let (t2, t3) = rest.split_at_mut(W);
    for i in 0..W {
        t0[i] = (w[0][i] & 0xfff) as i16;
        t1[i] = ((w[0][i] >> 12) | ((w[1][i] & 0xff) << 4)) as i16;
        t2[i] = ((w[1][i] >> 8) | ((w[2][i] & 0xf) << 8)) as i16;
        t3[i] = (w[2][i] >> 4) as i16;
    }
}

/// Block widths: full blocks of 64 coefficients, then (864 only) one of 32.
fn blocks(n: usize) -> impl Iterator<Item = (usize, usize, usize)> {
    let full = n / 64;
    (0..full)
        .map(|j| (64 * j, 96 * j, 16))
        .chain((n % 64 == 32).then_some((64 * full, 96 * full, 8)))
}

/// `Encodeq`: values in `(-q, q)`, negatives mapped by `+q`, 12 bits each.
pub(crate) fn encodeq(a: &[i16], n: usize) -> Vec<u8> {
    let mut out = vec![0u8; 3 * n / 2];
    encodeq_into(&mut out, a, n);
    out
}

/// [`encodeq`] into `out` (`3n/2` bytes). Inlined: the ring backends compile it with their
/// features (`NtruPlusRing::encodeq_into_unchecked`).
#[inline(always)]
pub(crate) fn encodeq_into(out: &mut [u8], a: &[i16], n: usize) {
    let mut f = [0u16; 64];
    // the sign mask by an opaque shift count (see `opaque_shift`): the values may be secret
    let s = opaque_shift(15);
    for (c, b, w) in blocks(n) {
        for (x, &v) in f.iter_mut().zip(&a[c..c + 4 * w]) {
            *x = (v + (v.wrapping_shr(s) & Q as i16)) as u16;
        }
        pack_block(&mut out[b..b + 6 * w], &f, w);
    }
    f.fill(0);
}

/// `Decodeq`: 12-bit fields, every one must be `< q` (checked without data-dependent branches;
/// only the error path looks for the offending index).
pub(crate) fn decodeq(bytes: &[u8], n: usize) -> Result<Vec<i16>> {
    if bytes.len() != 3 * n / 2 {
        return Err(Error::LengthMismatch {
            expected: 3 * n / 2,
            got: bytes.len(),
        });
    }
    let mut f = vec![0i16; n];
    for (c, b, w) in blocks(n) {
        unpack_block(&mut f[c..c + 4 * w], &bytes[b..b + 6 * w], w);
    }
    // bad has its sign bit set iff some value is >= q
    let mut bad = 0u32;
    for &v in &f {
        bad |= (Q as u32 - 1).wrapping_sub(v as u32);
    }
    if barrier(bad as u64) >> 31 != 0 {
        let index = f.iter().position(|&v| v as i32 >= Q).unwrap_or(0);
        return Err(Error::CoefficientOutOfRange {
            index,
            value: f[index] as u64,
            bound: Q as u64,
        });
    }
    Ok(f)
}

/// `Decodeq` for ciphertexts, into `f` (`n` values): every 12-bit field reduced into `[0, q)`
/// (a field `>= q` loses one `q`); returns `true` iff all fields were already `< q`
/// (canonical). No data-dependent branch. `bytes.len()` must be `3n/2` (checked by the caller).
#[inline(always)]
pub(crate) fn decodeq_reduced_into(f: &mut [i16], bytes: &[u8], n: usize) -> bool {
    debug_assert_eq!(bytes.len(), 3 * n / 2);
    for (c, b, w) in blocks(n) {
        unpack_block(&mut f[c..c + 4 * w], &bytes[b..b + 6 * w], w);
    }
    // v in [0, 4096): t = v - q is negative iff v was canonical; then add q back. Plain
    // arithmetic (shift, and, add) in 16-bit lanes, which the compiler vectorises: no branch,
    // no barrier per element, but a shift count the optimiser cannot see (`opaque_shift`),
    // so the masked add is not rewritten into a select (the secret key goes through here;
    // tests/ct_kem.rs checks the compiled code).
    let q = Q as i16;
    let s = opaque_shift(15);
    let mut bad = 0u16;
    for v in f.iter_mut() {
        let t = *v - q;
        let neg = t.wrapping_shr(s);
        bad |= !neg as u16;
        *v = t + (neg & q);
    }
    barrier(bad as u32) == 0
}

/// The `CBD1` bit layout: `(base, w)` for each block of `16·w` coefficients (`w` = 16 per 256
/// coefficients, then 8/4/2/1 for the tail). Within a block, bit `k` of the little-endian 16-bit
/// word `j` (at byte `base/8 + 2j` of each half) is coefficient `base + w·k + j`.
pub(crate) fn cbd1_blocks(n: usize) -> impl Iterator<Item = (usize, usize)> {
    // at most 4 blocks of 256 and 4 tail blocks (no allocation: this runs in every KEM call)
    let mut out = [(0, 0); 8];
    let mut len = 0;
    let (mut base, mut rem) = (0, n);
    while rem >= 256 && len < 4 {
        out[len] = (base, 16);
        len += 1;
        base += 256;
        rem -= 256;
    }
    for w in [8, 4, 2, 1] {
        if rem >= 16 * w {
            out[len] = (base, w);
            len += 1;
            base += 16 * w;
            rem -= 16 * w;
        }
    }
    out.into_iter().take(len)
}

/// `CBD1`: `f_i = β_i - β_(i+n)` with the reference bit order: the first `n/8` bytes hold
/// `β_0..β_(n-1)`, the next `n/8` bytes `β_n..β_(2n-1)`; a block of `W` little-endian 16-bit
/// words (`W` = 16, then 8/4/2 for the tails: 576 = 2·256 + 64, 864 = 3·256 + 64 + 32,
/// 1152 = 4·256 + 128) sends bit `k` of word `j` to coefficient `base + W·k + j`.
pub(crate) fn cbd1(bytes: &[u8], n: usize) -> Vec<i16> {
    let mut f = vec![0i16; n];
    cbd1_into(&mut f, bytes, n);
    f
}

/// [`cbd1`] into `f` (`n` values). Inlined, as [`encodeq_into`].
#[inline(always)]
pub(crate) fn cbd1_into(f: &mut [i16], bytes: &[u8], n: usize) {
    let (lo, hi) = bytes.split_at(n / 8);
    for (base, w) in cbd1_blocks(n) {
        cbd1_block_dyn(f, lo, hi, base, w);
    }
}

/// One [`cbd1`] block of `w` words (one copy per block width, so the rows are fixed-length
/// loops the compiler unrolls and vectorises).
#[inline(always)]
pub(crate) fn cbd1_block_dyn(f: &mut [i16], lo: &[u8], hi: &[u8], base: usize, w: usize) {
    match w {
        16 => cbd1_block::<16>(f, lo, hi, base),
        8 => cbd1_block::<8>(f, lo, hi, base),
        4 => cbd1_block::<4>(f, lo, hi, base),
        2 => cbd1_block::<2>(f, lo, hi, base),
        _ => cbd1_block::<1>(f, lo, hi, base),
    }
}

/// The `W` little-endian 16-bit words of the [`cbd1`] block at `base` in each half of the
/// input (`lo`: `β_0..`, `hi`: `β_n..`), from fixed-size slices (plain vector loads; a gather
/// byte by byte with a bounds check each was 2-3% of NTRU+KEM decapsulation).
#[inline(always)]
pub(crate) fn cbd1_words<const W: usize>(
    lo: &[u8],
    hi: &[u8],
    base: usize,
) -> ([u16; W], [u16; W]) {
    let off = base / 8;
    let (lo, hi) = (&lo[off..off + 2 * W], &hi[off..off + 2 * W]);
    let mut xs = [0u16; W];
    let mut ys = [0u16; W];
    for ((x, y), (a, b)) in xs
        .iter_mut()
        .zip(ys.iter_mut())
        .zip(lo.chunks_exact(2).zip(hi.chunks_exact(2)))
    {
        *x = u16::from_le_bytes([a[0], a[1]]);
        *y = u16::from_le_bytes([b[0], b[1]]);
    }
    (xs, ys)
}

/// One [`cbd1`] block of `W` words (`16 W` coefficients from `base`): the words as fixed-size
/// arrays, then one fixed-length row per bit, which the compiler turns into vector shifts, ands
/// and subtractions.
#[inline(always)]
fn cbd1_block<const W: usize>(f: &mut [i16], lo: &[u8], hi: &[u8], base: usize) {
    let (mut xs, mut ys) = cbd1_words::<W>(lo, hi, base);
    // row k of the block holds bit k of every word: contiguous stores
    let blk = &mut f[base..base + 16 * W];
    for (k, row) in blk.chunks_exact_mut(W).enumerate() {
        let row: &mut [i16; W] = row.try_into().expect("W values");
        for j in 0..W {
            row[j] = ((xs[j] >> k) & 1) as i16 - ((ys[j] >> k) & 1) as i16;
        }
    }
    crate::secret::wipe(&mut xs);
    crate::secret::wipe(&mut ys);
}
