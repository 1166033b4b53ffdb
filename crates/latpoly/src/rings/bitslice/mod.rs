//! Bit-sliced GF(3) and GF(2) polynomials and the constant-time divstep loops on them, shared
//! by the NTRU inverses (`poly_S3_inv`, `poly_R2_inv`) and NTRU Prime's `R3_recip`.
//!
//! A polynomial is an array of 64-bit words (bit `i` = coefficient `i`; GF(3) uses two planes,
//! "is 1" and "is 2"). The operations of a divstep (shift, conditional swap, scaled add) are the
//! traits [`TritOps`] and [`BitOps`], implemented here on words ([`Trits`], [`Bits`]) and in
//! [`x86`] on AVX-512 registers; the loops [`divsteps3`] and [`divsteps2`] run the same step
//! sequence on either, so the register version is checked against the word version (and both
//! against the schemes' unit vectors and KATs).

use crate::arith::ct::mask_u64;

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

/// The mask of the polynomial's bits in its last 64-bit word (`n` coefficients).
#[inline(always)]
pub(crate) fn top_mask(n: usize) -> u64 {
    if n.is_multiple_of(64) {
        u64::MAX
    } else {
        (1u64 << (n % 64)) - 1
    }
}

/// `a mod 3` for `a <= 9` (exact residue, by the multiply and shift of
/// [`crate::arith::ct::mod3_u16`]: no division in any build profile, no branch).
#[inline(always)]
pub(crate) fn mod3_small(a: u8) -> u8 {
    debug_assert!(a <= 9);
    crate::arith::ct::mod3_u16(u16::from(a)) as u8
}

/// A GF(3) polynomial bit-sliced into two planes of `W` 64-bit words: bit `i` of `p` is set
/// iff coefficient `i` is 1, bit `i` of `m` iff it is 2.
#[derive(Clone, Copy)]
pub(crate) struct Trits<const W: usize> {
    pub(crate) p: [u64; W],
    pub(crate) m: [u64; W],
}

/// The operations of the `poly_S3_inv` step sequence on a bit-sliced GF(3) polynomial:
/// implemented on words ([`Trits`]) and, in `x86.rs`, on AVX-512 registers; the driver
/// `s3_inv_with` (in the NTRU reference module) runs the same steps on either.
pub(crate) trait TritOps: Copy {
    /// Coefficient 0 as a value in `{0, 1, 2}`.
    fn c0(&self) -> u8;
    /// Swaps `self` and `o` where `mask` is all-ones (branch-free).
    fn cswap(&mut self, o: &mut Self, mask: u64);
    /// `self += s · o` for the scalar masks of [`scalar_masks`].
    fn add_scaled(&mut self, o: &Self, s1: u64, s2: u64);
    /// Multiplies by `x`, dropping the coefficient that leaves the `n` low bits (`top_mask`
    /// masks the last word).
    fn shl1(&mut self, top_mask: u64);
    /// Divides by `x` (the constant term is dropped).
    fn shr1(&mut self);
    /// The whole loop of [`divsteps3`] on this representation; the default runs the generic
    /// steps above, a representation may override it with a faster loop of the same result:
    /// the same `delta` and `f_0 · v` (what the callers read: they return `v / f_0`, which is
    /// `f_0 · v` in GF(3)). An override may return `f` and `v` both multiplied by a unit of
    /// GF(3), and `w` by another (the AVX-512 loop's one-sided swaps); the rest of `f` and `g`
    /// may differ where it can no longer reach coefficient 0. Callers pass `f_0 != 0` (it then
    /// stays nonzero: `f` only ever takes a `g` with `g_0 != 0`) and `v`, `w` nonzero at most
    /// in coefficient 0 (the overrides rely on both).
    #[inline(always)]
    fn divsteps(
        f: &mut Self,
        g: &mut Self,
        v: &mut Self,
        w: &mut Self,
        steps: usize,
        top_mask: u64,
    ) -> i32 {
        divsteps3_steps(f, g, v, w, steps, top_mask)
    }
}

impl<const W: usize> TritOps for Trits<W> {
    #[inline(always)]
    fn c0(&self) -> u8 {
        Trits::c0(self)
    }
    #[inline(always)]
    fn cswap(&mut self, o: &mut Self, mask: u64) {
        Trits::cswap(self, o, mask)
    }
    #[inline(always)]
    fn add_scaled(&mut self, o: &Self, s1: u64, s2: u64) {
        Trits::add_scaled(self, o, s1, s2)
    }
    #[inline(always)]
    fn shl1(&mut self, top_mask: u64) {
        Trits::shl1(self, top_mask)
    }
    #[inline(always)]
    fn shr1(&mut self) {
        Trits::shr1(self)
    }
}

impl<const W: usize> Trits<W> {
    pub(crate) const ZERO: Trits<W> = Trits {
        p: [0; W],
        m: [0; W],
    };

    /// Coefficient 0 as a value in `{0, 1, 2}`.
    #[inline(always)]
    pub(crate) fn c0(&self) -> u8 {
        ((self.p[0] & 1) | ((self.m[0] & 1) << 1)) as u8
    }

    /// Overwrites both planes with zeros (volatile writes: for secret polynomials).
    pub(crate) fn wipe(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.p);
        zeroize::Zeroize::zeroize(&mut self.m);
    }

    /// Swaps `self` and `o` where `mask` is all-ones (branch-free).
    #[inline(always)]
    pub(crate) fn cswap(&mut self, o: &mut Trits<W>, mask: u64) {
        for k in 0..W {
            let t = mask & (self.p[k] ^ o.p[k]);
            self.p[k] ^= t;
            o.p[k] ^= t;
            let t = mask & (self.m[k] ^ o.m[k]);
            self.m[k] ^= t;
            o.m[k] ^= t;
        }
    }

    /// `self += s · o` in GF(3) for the scalar given by masks `s1` (all-ones iff `s = 1`) and
    /// `s2` (iff `s = 2`): branch-free bit-sliced arithmetic.
    #[inline(always)]
    pub(crate) fn add_scaled(&mut self, o: &Trits<W>, s1: u64, s2: u64) {
        for k in 0..W {
            let (yp, ym) = ((s1 & o.p[k]) | (s2 & o.m[k]), (s1 & o.m[k]) | (s2 & o.p[k]));
            let (xp, xm) = (self.p[k], self.m[k]);
            let (x0, y0) = (!(xp | xm), !(yp | ym));
            self.p[k] = (xp & y0) | (yp & x0) | (xm & ym);
            self.m[k] = (xm & y0) | (ym & x0) | (xp & yp);
        }
    }

    /// Multiplies by `x`, dropping the coefficient that leaves the `n` low bits (`top_mask`
    /// masks the last word).
    #[inline(always)]
    pub(crate) fn shl1(&mut self, top_mask: u64) {
        for k in (1..W).rev() {
            self.p[k] = (self.p[k] << 1) | (self.p[k - 1] >> 63);
            self.m[k] = (self.m[k] << 1) | (self.m[k - 1] >> 63);
        }
        self.p[0] <<= 1;
        self.m[0] <<= 1;
        self.p[W - 1] &= top_mask;
        self.m[W - 1] &= top_mask;
    }

    /// Divides by `x` (the constant term is dropped).
    #[inline(always)]
    pub(crate) fn shr1(&mut self) {
        for k in 0..W - 1 {
            self.p[k] = (self.p[k] >> 1) | (self.p[k + 1] << 63);
            self.m[k] = (self.m[k] >> 1) | (self.m[k + 1] << 63);
        }
        self.p[W - 1] >>= 1;
        self.m[W - 1] >>= 1;
    }

    pub(crate) fn set(&mut self, i: usize, v: u8) {
        self.p[i / 64] |= u64::from(v & 1) << (i % 64);
        self.m[i / 64] |= u64::from(v >> 1) << (i % 64);
    }

    pub(crate) fn get(&self, i: usize) -> u8 {
        (((self.p[i / 64] >> (i % 64)) & 1) | (((self.m[i / 64] >> (i % 64)) & 1) << 1)) as u8
    }
}

/// Bit `bit` of every `a[i]` as bit `i` of a plane (`a.len() <= 64 W`; higher bits zero).
/// Four coefficients at a time: their bits (at 0, 16, 32, 48 of a word) are gathered into a
/// nibble by one multiplication whose partial products never overlap.
#[inline(always)]
pub(crate) fn bit_plane<const W: usize>(a: &[u16], bit: u32) -> [u64; W] {
    const MAGIC: u64 = (1 << 45) | (1 << 30) | (1 << 15) | 1;
    debug_assert!(a.len() <= 64 * W);
    let mut out = [0u64; W];
    for (word, c64) in out.iter_mut().zip(a.chunks(64)) {
        let quads = c64.chunks_exact(4);
        let tail = quads.remainder();
        let mut acc = 0u64;
        for (k, c) in quads.enumerate() {
            let x = u64::from(c[0])
                | (u64::from(c[1]) << 16)
                | (u64::from(c[2]) << 32)
                | (u64::from(c[3]) << 48);
            let m = (x >> bit) & 0x0001_0001_0001_0001;
            acc |= ((m.wrapping_mul(MAGIC) >> 45) & 0xf) << (4 * k);
        }
        let base = c64.len() - tail.len();
        for (k, &x) in tail.iter().enumerate() {
            acc |= u64::from((x >> bit) & 1) << (base + k);
        }
        *word = acc;
    }
    out
}

/// The low `len` bits of `x` in reverse order (bit `j` moves to `len - 1 - j`; bits at or above
/// `len` are dropped). `len` is public; no data-dependent branch.
#[inline(always)]
pub(crate) fn reverse_low<const W: usize>(x: &[u64; W], len: usize) -> [u64; W] {
    debug_assert!(len > 0 && len <= 64 * W);
    let mut r = [0u64; W];
    for (i, ri) in r.iter_mut().enumerate() {
        *ri = x[W - 1 - i].reverse_bits();
    }
    // bit j of x is now at 64 W - 1 - j: shift right by 64 W - len
    let s = 64 * W - len;
    let (ws, bs) = (s / 64, s % 64);
    let mut out = [0u64; W];
    for (i, o) in out.iter_mut().enumerate() {
        let lo = if i + ws < W { r[i + ws] } else { 0 };
        let hi = if i + ws + 1 < W { r[i + ws + 1] } else { 0 };
        *o = if bs == 0 {
            lo
        } else {
            (lo >> bs) | (hi << (64 - bs))
        };
    }
    out
}

/// `out[i] = p_i + 2 m_i` (bit `i` of each plane) for every `i < out.len()`.
#[inline(always)]
pub(crate) fn expand_trits(p: &[u64], m: &[u64], out: &mut [u16]) {
    for ((c64, &pw), &mw) in out.chunks_mut(64).zip(p).zip(m) {
        for (k, o) in c64.iter_mut().enumerate() {
            *o = (((pw >> k) & 1) | (((mw >> k) & 1) << 1)) as u16;
        }
    }
}

/// Masks `(s == 1, s == 2)` for `s` in `{0, 1, 2}`: the two bits of `s`, each through the
/// barrier before it becomes a mask ([`mask_u64`]).
#[inline(always)]
pub(crate) fn scalar_masks(s: u8) -> (u64, u64) {
    let s = u64::from(s);
    (mask_u64(s & 1), mask_u64(s >> 1))
}

/// A GF(2) polynomial bit-sliced into `W` 64-bit words (bit `i` = coefficient `i`).
#[derive(Clone, Copy)]
pub(crate) struct Bits<const W: usize>(pub(crate) [u64; W]);

/// The operations of the `poly_R2_inv` step sequence on a bit-sliced GF(2) polynomial:
/// implemented on words ([`Bits`]) and, in `x86.rs`, on AVX-512 registers; the driver
/// `r2_inv_with` (in the NTRU reference module) runs the same steps on either.
pub(crate) trait BitOps: Copy {
    /// Coefficient 0 (0 or 1).
    fn c0(&self) -> u64;
    /// Swaps `self` and `o` where `mask` is all-ones (branch-free).
    fn cswap(&mut self, o: &mut Self, mask: u64);
    /// `self ^= mask & o`.
    fn xor_masked(&mut self, o: &Self, mask: u64);
    /// Multiplies by `x`, dropping the coefficient that leaves the `n` low bits.
    fn shl1(&mut self, top_mask: u64);
    /// Divides by `x` (the constant term is dropped).
    fn shr1(&mut self);
}

impl<const W: usize> BitOps for Bits<W> {
    #[inline(always)]
    fn c0(&self) -> u64 {
        self.0[0] & 1
    }
    #[inline(always)]
    fn cswap(&mut self, o: &mut Self, mask: u64) {
        for k in 0..W {
            let t = mask & (self.0[k] ^ o.0[k]);
            self.0[k] ^= t;
            o.0[k] ^= t;
        }
    }
    #[inline(always)]
    fn xor_masked(&mut self, o: &Self, mask: u64) {
        for k in 0..W {
            self.0[k] ^= mask & o.0[k];
        }
    }
    #[inline(always)]
    fn shl1(&mut self, top_mask: u64) {
        for k in (1..W).rev() {
            self.0[k] = (self.0[k] << 1) | (self.0[k - 1] >> 63);
        }
        self.0[0] <<= 1;
        self.0[W - 1] &= top_mask;
    }
    #[inline(always)]
    fn shr1(&mut self) {
        for k in 0..W - 1 {
            self.0[k] = (self.0[k] >> 1) | (self.0[k + 1] << 63);
        }
        self.0[W - 1] >>= 1;
    }
}

/// The divstep's swap decision, shared by both fields: all-ones iff `delta > 0` and
/// `g_0 != 0`; then `delta` becomes `1 - delta` (swap) or `1 + delta`. Branch-free: the two
/// conditions are combined as 0/1 values, and the optimisation barrier sits on that bit before
/// it becomes the mask ([`mask_u64`]).
#[inline(always)]
pub(crate) fn swap_step(delta: &mut i32, g0_nonzero: bool) -> u64 {
    // the sign bit of -delta is 1 iff delta > 0 (delta stays far from i32::MIN)
    let bit = ((delta.wrapping_neg() as u32) >> 31) & u32::from(g0_nonzero);
    let swap = mask_u64(u64::from(bit));
    *delta ^= (swap as i32) & (*delta ^ delta.wrapping_neg());
    *delta += 1;
    swap
}

/// The GF(3) divstep loop of `poly_S3_inv` and `R3_recip`: `steps` steps on `(f, g)` and the
/// companions `(v, w)` (`v = x v` first, dropping the coefficient that leaves `top_mask`'s
/// word; swap where `delta > 0` and `g_0 != 0`; `g += -g_0 f_0 f`, `w += -g_0 f_0 v`; `g = g / x`).
/// Returns the final `delta`. Branch-free in the data.
#[inline(always)]
pub(crate) fn divsteps3<T: TritOps>(
    f: &mut T,
    g: &mut T,
    v: &mut T,
    w: &mut T,
    steps: usize,
    top_mask: u64,
) -> i32 {
    T::divsteps(f, g, v, w, steps, top_mask)
}

/// [`divsteps3`] step by step through the [`TritOps`] primitives (the default loop, and the
/// specification of the overrides).
#[inline(always)]
pub(crate) fn divsteps3_steps<T: TritOps>(
    f: &mut T,
    g: &mut T,
    v: &mut T,
    w: &mut T,
    steps: usize,
    top_mask: u64,
) -> i32 {
    let mut delta: i32 = 1;
    for _ in 0..steps {
        v.shl1(top_mask);
        let (g0, f0) = (g.c0(), f.c0());
        let sign = mod3_small(2 * g0 * f0);
        let swap = swap_step(&mut delta, g0 != 0);
        f.cswap(g, swap);
        v.cswap(w, swap);
        let (s1, s2) = scalar_masks(sign);
        g.add_scaled(f, s1, s2);
        w.add_scaled(v, s1, s2);
        g.shr1();
    }
    delta
}

/// The GF(2) divstep loop of `poly_R2_inv` (as [`divsteps3`], with `g += g_0 f_0 f`).
#[inline(always)]
pub(crate) fn divsteps2<T: BitOps>(
    f: &mut T,
    g: &mut T,
    v: &mut T,
    w: &mut T,
    steps: usize,
    top_mask: u64,
) -> i32 {
    let mut delta: i32 = 1;
    for _ in 0..steps {
        v.shl1(top_mask);
        let gc = g.c0();
        let sign = mask_u64(gc & f.c0());
        let swap = swap_step(&mut delta, gc != 0);
        f.cswap(g, swap);
        v.cswap(w, swap);
        g.xor_masked(f, sign);
        w.xor_masked(v, sign);
        // g = g / x (the constant term is zero by now)
        g.shr1();
    }
    delta
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_planes_reversal_and_expansion_match_bit_by_bit() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for len in [1usize, 3, 4, 63, 64, 65, 500, 508, 676, 700, 768, 820, 832] {
            let a: Vec<u16> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u16
                })
                .collect();
            for bit in [0, 1, 15] {
                let p = bit_plane::<13>(&a, bit);
                for i in 0..13 * 64 {
                    let want = i < len && (a[i] >> bit) & 1 == 1;
                    assert_eq!(
                        (p[i / 64] >> (i % 64)) & 1 == 1,
                        want,
                        "len {len} bit {bit} i {i}"
                    );
                }
                let r = reverse_low(&p, len);
                for j in 0..13 * 64 {
                    let want = j < len && (a[len - 1 - j] >> bit) & 1 == 1;
                    assert_eq!((r[j / 64] >> (j % 64)) & 1 == 1, want, "len {len} j {j}");
                }
            }
            let (p, m) = (bit_plane::<13>(&a, 0), bit_plane::<13>(&a, 1));
            let mut out = vec![0xffffu16; len];
            expand_trits(&p, &m, &mut out);
            assert!(out.iter().zip(&a).all(|(&o, &x)| o == x & 3), "len {len}");
        }
    }
}
