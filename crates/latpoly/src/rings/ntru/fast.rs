//! Exact `poly_Rq_mul` with 16-bit SIMD lanes: Karatsuba over blocks, lane-sliced leaves.
//!
//! The result must be exact mod `2^16`, which rules out Toom-Cook (its interpolation divides by
//! powers of two and loses bits); Karatsuba only adds and subtracts, so it is exact in `u16`.
//!
//! With `L` lanes per vector (16 for AVX2, 32 for AVX-512BW):
//!
//! 1. **Top levels.** Both operands are zero-padded to eight blocks of `S = 32 K` coefficients
//!    (`K` = 2 for `n = 509`, 3 for 677 and 701, 4 for 821: the smallest that fits) and split by three Karatsuba levels into 27 *leaves* of `S` coefficients. The leaves are
//!    evaluated in registers, `L` coefficients of all eight blocks at a time ([`eval27`]).
//! 2. **Leaves, lane-sliced.** Each group of `L` leaves (one group with 32 lanes, two with 16)
//!    is transposed (`L x L` blocks of `u16`) so that lane `i` of row `t` holds coefficient `t`
//!    of leaf `i`. Then `L` independent `S x S` products run in parallel, one per lane: Karatsuba
//!    (`S` = 64, 128) or a three-way split with six products (`S` = 96) down to `32 x 32`
//!    products, and two more Karatsuba levels down to `4 x 4` schoolbooks in registers
//!    ([`kmul16_body`], middle operands summed on the fly). No lane is wasted inside a product
//!    and no shuffle is needed. The products are transposed back.
//! 3. **Recombination** of the three top levels in registers ([`kara_units`], refined
//!    Karatsuba), one chunk position of the `S`-coefficient units at a time, then the fold
//!    `r[k] = c[k] + c[k + n]` that reduces mod `x^n - 1`.
//!
//! All shapes are compile-time constants (one instantiation per `K`), so the loops unroll and no
//! bounds check or table lookup remains in the hot paths. Every step is a fixed,
//! data-independent sequence of loads, stores, additions, multiplications and shuffles, so the
//! multiplier is constant time. Scratch memory is a per-thread buffer ([`workspace_len`]: 40 KB
//! for `n = 509` with 32 lanes).
//!
//! Measured (`examples/ntru_bench.rs`, AMD EPYC Zen 5, median ns per product in a fast phase of
//! the VM, `n` = 509 / 677 / 701 / 821): AVX-512 ~710 / 1450 / 1420 / 2030, AVX2 1616 / 3311 /
//! 3307 / 4010; the previous design (uneven Karatsuba splits driven by run-time tables, up to
//! three groups of leaves) took 1139 / 2277 / 2290 / 3197 with AVX-512. The alternative of an
//! exact integer product through latpoly's 64-bit NTT (one 50-bit prime, `n_ntt = 1024`,
//! AVX-512 IFMA) costs ~2800 ns for the two forward transforms, the pointwise product and the
//! inverse alone, so it was not kept. For `n = 509` about two thirds of the time is the
//! lane-parallel kernel (1296 vector multiplications for 27 leaf products in 32 lanes).

use super::NtruParams;
use std::cell::RefCell;

/// A vector of `L` lanes of `u16`: the operations the multiplier needs.
///
/// Contract for implementors: lane-wise wrapping arithmetic; `transpose` as documented;
/// `kmul16` is [`kmul16_body`] compiled with the backend's features.
pub(crate) trait Lanes: Copy {
    /// Vector type.
    type V: Copy;
    /// Lanes per vector (16 or 32).
    const L: usize;
    fn zero(self) -> Self::V;
    /// Loads `L` values from the start of `s`.
    fn load(self, s: &[u16]) -> Self::V;
    /// Stores `L` values at the start of `s`.
    fn store(self, s: &mut [u16], v: Self::V);
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    /// Low 16 bits of the lane-wise product.
    fn mul(self, a: Self::V, b: Self::V) -> Self::V;
    /// Every lane `x`.
    fn splat(self, x: u16) -> Self::V;
    /// Lane-wise bitwise and.
    fn and(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lane-wise logical right shift by `S` bits.
    fn shr<const S: i32>(self, a: Self::V) -> Self::V;
    /// Transposes an `L x L` matrix of `u16`: reads rows `io.load(0..L)`, then calls
    /// `io.store(j, row)` once for every row `j` of the transpose (lane `i` = lane `j` of input
    /// row `i`).
    fn transpose(self, io: &mut impl RowIo<Self>);
    /// Lane-parallel product of 16-coefficient polynomials (see [`kmul16_body`]).
    fn kmul16<const M: u8>(self, a: &[u16], b: &[u16], c: &mut [u16]);
    /// The whole multiplication ([`rq_mul_body`] with `K = leaf_k(a.len())`) inside the
    /// backend's `#[target_feature]` entry point; `ws` as [`rq_mul_body`] requires.
    fn rq_mul_entry(self, a: &[u16], b: &[u16], out: &mut [u16], ws: &mut [u16]);
    /// The product mod `q` ([`super::toom::rq_mul_modq_body`] with the shape
    /// [`super::toom::shape`]`(n, L)`) inside the backend's `#[target_feature]` entry point.
    fn rq_mul_modq_entry(
        self,
        a: super::toom::Operand<'_>,
        b: super::toom::Operand<'_>,
        out: &mut [u16],
        q: u16,
        ws: &mut [u16],
    );
    /// [`super::toom::prepare_body`] with the shape [`super::toom::shape`]`(n, L)` inside
    /// the backend's `#[target_feature]` entry point.
    fn rq_prepare_entry(self, a: &[u16], dst: &mut [u16], ws: &mut [u16]);
}

/// Where a transposition reads its rows and writes the transposed rows. (A trait with
/// `#[inline(always)]` methods rather than closures: closures do not inherit the target features
/// of the entry point, so the vector operations inside them would not inline.)
pub(crate) trait RowIo<T: Lanes> {
    /// Input row `i`.
    fn load(&mut self, t: T, i: usize) -> T::V;
    /// Output row `j`.
    fn store(&mut self, t: T, j: usize, v: T::V);
}

/// Row `r` of an operand given as `sum_{j in M} x[(r + 16 j) L ..]` (`M` a bit mask of terms).
#[inline(always)]
fn sum_rows<T: Lanes, const M: u8>(t: T, x: &[u16], r: usize) -> T::V {
    let l = T::L;
    let mut v = t.zero();
    for j in 0..2 {
        if M & (1 << j) != 0 {
            v = t.add(v, t.load(&x[(r + 16 * j) * l..]));
        }
    }
    v
}

pub(crate) use crate::rings::unroll;

/// Lane-parallel `4 x 4` schoolbook: `c[k] = sum_{i + j = k} a[i] b[j]`, `k < 7`.
#[inline(always)]
fn school4<T: Lanes>(t: T, a: &[T::V; 4], b: &[T::V; 4]) -> [T::V; 7] {
    let mut c = [t.zero(); 7];
    unroll!(i in [0, 1, 2, 3] {
        unroll!(j in [0, 1, 2, 3] {
            // In this order the first product to reach c[k] is (0, k) for k <= 3 and
            // (k - 3, 3) above: it initialises c[k], the others accumulate.
            let p = t.mul(a[i], b[j]);
            c[i + j] = if i == 0 || j == 3 { p } else { t.add(c[i + j], p) };
        });
    });
    c
}

/// Lane-parallel `8 x 8` product by one Karatsuba level over [`school4`]: 15 coefficients.
#[inline(always)]
fn kara8<T: Lanes>(t: T, a: &[T::V; 8], b: &[T::V; 8]) -> [T::V; 15] {
    let mut a0 = [t.zero(); 4];
    let mut a1 = [t.zero(); 4];
    let mut b0 = [t.zero(); 4];
    let mut b1 = [t.zero(); 4];
    let mut am = [t.zero(); 4];
    let mut bm = [t.zero(); 4];
    unroll!(i in [0, 1, 2, 3] {
        a0[i] = a[i];
        a1[i] = a[4 + i];
        b0[i] = b[i];
        b1[i] = b[4 + i];
        am[i] = t.add(a[i], a[4 + i]);
        bm[i] = t.add(b[i], b[4 + i]);
    });
    let lo = school4(t, &a0, &b0);
    let hi = school4(t, &a1, &b1);
    let mid = school4(t, &am, &bm);
    // Refined recombination (see `kmul16_body`), halves of 4.
    let z = t.zero();
    let mut c = [z; 15];
    unroll!(i in [0, 1, 2, 3] {
        let (l1, h1, m1) = if i < 3 { (lo[4 + i], hi[4 + i], mid[4 + i]) } else { (z, z, z) };
        let tt = t.sub(l1, hi[i]);
        c[i] = lo[i];
        c[4 + i] = t.sub(t.add(tt, mid[i]), lo[i]);
        c[8 + i] = t.sub(t.sub(m1, h1), tt);
        if i < 3 {
            c[12 + i] = h1;
        }
    });
    c
}

/// Lane-parallel product of polynomials of 16 coefficients, rows of `L` lanes in memory.
///
/// `a` and `b` have 32 rows (16 suffice for `M` = 1); row `r` of the operand `A` is
/// `sum_{j in M} a[(r + 16 j) L ..]` (likewise `B` from `b`; `M` = 1, 2 or 3), so the Karatsuba
/// middle operand can be formed on the fly (the 32-lane callers do; the 16-lane ones pass
/// `M` = 1 and sums formed beforehand, see [`sum_halves`]). `c` receives 32 rows: the 31
/// coefficients of `A·B` and a zero row. Two Karatsuba levels over `4 x 4` schoolbooks.
///
/// Two schedules of the same operations: with 32 vector registers (`L = 32`, AVX-512) all 48
/// operand vectors live in registers ([`kmul16_in_registers`]); with 16 (`L = 16`, AVX2) that
/// spills, and three phases with 16 operand vectors each, the partial products through `c`
/// ([`kmul16_phased`]), run a third faster (`examples/ntru_bench`, AVX2 on a Zen 4 host:
/// n = 509 modq 1.6-1.76 -> 1.15 µs; the AVX-512 kernel 3% slower the same way).
#[inline(always)]
pub(crate) fn kmul16_body<T: Lanes, const M: u8>(t: T, a: &[u16], b: &[u16], c: &mut [u16]) {
    if T::L == 16 {
        kmul16_phased::<T, M>(t, a, b, c)
    } else {
        kmul16_in_registers::<T, M>(t, a, b, c)
    }
}

/// [`kmul16_body`] with every operand in registers.
#[inline(always)]
fn kmul16_in_registers<T: Lanes, const M: u8>(t: T, a: &[u16], b: &[u16], c: &mut [u16]) {
    let l = T::L;
    // Fixed lengths: every index below is then a compile-time constant in bounds.
    let (a, b, c) = (&a[..32 * l], &b[..32 * l], &mut c[..32 * l]);
    let mut a0 = [t.zero(); 8];
    let mut a1 = [t.zero(); 8];
    let mut b0 = [t.zero(); 8];
    let mut b1 = [t.zero(); 8];
    let mut am = [t.zero(); 8];
    let mut bm = [t.zero(); 8];
    unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7] {
        a0[i] = sum_rows::<T, M>(t, a, i);
        a1[i] = sum_rows::<T, M>(t, a, 8 + i);
        b0[i] = sum_rows::<T, M>(t, b, i);
        b1[i] = sum_rows::<T, M>(t, b, 8 + i);
        am[i] = t.add(a0[i], a1[i]);
        bm[i] = t.add(b0[i], b1[i]);
    });
    let lo = kara8(t, &a0, &b0);
    let hi = kara8(t, &a1, &b1);
    let mid = kara8(t, &am, &bm);
    // Refined recombination: with lo = L0 + x^8 L1, hi = H0 + x^8 H1, mid = M0 + x^8 M1 and
    // T = L1 - H0, the product is L0 + x^8 (T + M0 - L0) + x^16 (M1 - H1 - T) + x^24 H1.
    let z = t.zero();
    unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7] {
        let (l1, h1, m1) = if i < 7 {
            (lo[8 + i], hi[8 + i], mid[8 + i])
        } else {
            (z, z, z)
        };
        let tt = t.sub(l1, hi[i]);
        t.store(&mut c[i * l..], lo[i]);
        t.store(&mut c[(8 + i) * l..], t.sub(t.add(tt, mid[i]), lo[i]));
        t.store(&mut c[(16 + i) * l..], t.sub(t.sub(m1, h1), tt));
        t.store(&mut c[(24 + i) * l..], h1);
    });
}

/// [`kmul16_body`] in three phases (low, high, middle product).
#[inline(always)]
fn kmul16_phased<T: Lanes, const M: u8>(t: T, a: &[u16], b: &[u16], c: &mut [u16]) {
    let l = T::L;
    // Fixed lengths: every index below is then a compile-time constant in bounds.
    let rows = if M & 0b10 != 0 { 32 } else { 16 };
    let (a, b, c) = (&a[..rows * l], &b[..rows * l], &mut c[..32 * l]);
    // Three phases, each with only its own operands live (16 vectors, not 48): the low and
    // high products go to rows 0..15 and 16..31 of `c`, the middle one is recombined with
    // them in place.
    let z = t.zero();
    let mut x = [z; 8];
    let mut y = [z; 8];
    for half in 0..2 {
        unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7] {
            x[i] = sum_rows::<T, M>(t, a, 8 * half + i);
            y[i] = sum_rows::<T, M>(t, b, 8 * half + i);
        });
        let p = kara8(t, &x, &y);
        unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] {
            t.store(&mut c[(16 * half + i) * l..], p[i]);
        });
    }
    unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7] {
        x[i] = t.add(sum_rows::<T, M>(t, a, i), sum_rows::<T, M>(t, a, 8 + i));
        y[i] = t.add(sum_rows::<T, M>(t, b, i), sum_rows::<T, M>(t, b, 8 + i));
    });
    let mid = kara8(t, &x, &y);
    // Refined recombination: with lo = L0 + x^8 L1, hi = H0 + x^8 H1, mid = M0 + x^8 M1 and
    // T = L1 - H0, the product is L0 + x^8 (T + M0 - L0) + x^16 (M1 - H1 - T) + x^24 H1.
    // Row i of each part is read before rows 8 + i, 16 + i, 24 + i are written.
    unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7] {
        let l0 = t.load(&c[i * l..]);
        let h0 = t.load(&c[(16 + i) * l..]);
        let (l1, h1, m1) = if i < 7 {
            (t.load(&c[(8 + i) * l..]), t.load(&c[(24 + i) * l..]), mid[8 + i])
        } else {
            (z, z, z)
        };
        let tt = t.sub(l1, h0);
        t.store(&mut c[(8 + i) * l..], t.sub(t.add(tt, mid[i]), l0));
        t.store(&mut c[(16 + i) * l..], t.sub(t.sub(m1, h1), tt));
        t.store(&mut c[(24 + i) * l..], h1);
    });
}

/// Refined Karatsuba recombination in place, rows of `L` lanes: `c` holds `lo` (rows
/// `0..2h`) and `hi` (rows `2h..4h`), `mid` the middle product (`2h` rows); on return `c` holds
/// the full product.
#[inline(always)]
fn combine_rows<T: Lanes>(t: T, c: &mut [u16], mid: &[u16], h: usize) {
    let l = T::L;
    let (c, mid) = (&mut c[..4 * h * l], &mid[..2 * h * l]);
    for i in 0..h {
        let l0 = t.load(&c[i * l..]);
        let l1 = t.load(&c[(h + i) * l..]);
        let h0 = t.load(&c[(2 * h + i) * l..]);
        let h1 = t.load(&c[(3 * h + i) * l..]);
        let m0 = t.load(&mid[i * l..]);
        let m1 = t.load(&mid[(h + i) * l..]);
        let tt = t.sub(l1, h0);
        t.store(&mut c[(h + i) * l..], t.sub(t.add(tt, m0), l0));
        t.store(&mut c[(2 * h + i) * l..], t.sub(t.sub(m1, h1), tt));
    }
}

/// The sums of the parts `i` and `j` (16 rows each) of both operands: `sa[r] = a[16 i + r] +
/// a[16 j + r]`, `sb` likewise from `b`, `r < 16`.
///
/// With 16 lanes (AVX2) the kernel then only ever reads plain runs of rows ([`Lanes::kmul16`]
/// with the mask `0b01`), instead of forming the Karatsuba middle operands itself from two rows
/// for each of its three phases: one instantiation of the kernel instead of three, and the
/// sums formed once. `examples/ntru_bench` on an AMD Zen 2 host (AVX2 only), three alternating
/// pairs, medians of the product mod q: n = 509 1.99-2.02 -> 1.73-1.76 µs, 677 3.28-3.32 ->
/// 2.99-3.14, 701 3.29-3.31 -> 3.00-3.13; 821 5.22-5.26 -> 5.31-5.37 in that build but
/// 5.49-5.53 -> 5.25-5.34 in another (within the noise of builds).
#[inline(always)]
fn sum_halves<T: Lanes>(
    t: T,
    a: &[u16],
    b: &[u16],
    (i, j): (usize, usize),
    sa: &mut [u16],
    sb: &mut [u16],
) {
    let l = T::L;
    for r in 0..16 {
        let x = t.add(
            t.load(&a[(16 * i + r) * l..]),
            t.load(&a[(16 * j + r) * l..]),
        );
        t.store(&mut sa[r * l..], x);
        let y = t.add(
            t.load(&b[(16 * i + r) * l..]),
            t.load(&b[(16 * j + r) * l..]),
        );
        t.store(&mut sb[r * l..], y);
    }
}

/// Lane-parallel product of 32-coefficient polynomials (rows of `L` lanes): `a` and `b` have
/// 32 rows, `c` receives 64 rows, `mid` is 32 rows of scratch.
#[inline(always)]
pub(crate) fn kmul32<T: Lanes>(t: T, a: &[u16], b: &[u16], c: &mut [u16], mid: &mut [u16]) {
    let l = T::L;
    if T::L == 16 {
        // The middle operands summed here, once, into the high half of `c` (free until the
        // high product): see [`sum_halves`].
        let (a, b, c) = (&a[..32 * l], &b[..32 * l], &mut c[..64 * l]);
        let (am, bm) = c[32 * l..].split_at_mut(16 * l);
        sum_halves(t, a, b, (0, 1), am, bm);
        t.kmul16::<0b01>(am, bm, mid);
        let (lo, hi) = c.split_at_mut(32 * l);
        t.kmul16::<0b01>(a, b, lo);
        t.kmul16::<0b01>(&a[16 * l..], &b[16 * l..], hi);
        return combine_rows(t, c, mid, 16);
    }
    let (lo, hi) = c[..64 * l].split_at_mut(32 * l);
    t.kmul16::<0b01>(a, b, lo);
    t.kmul16::<0b10>(a, b, hi);
    t.kmul16::<0b11>(a, b, mid);
    combine_rows(t, c, mid, 16);
}

/// Lane-parallel product of 64-coefficient polynomials (one Karatsuba level over [`kmul32`]):
/// `a`, `b` have 64 rows, `c` receives 128 rows; `scratch` has [`KMUL64_SCRATCH`] rows.
#[inline(always)]
pub(crate) fn kmul64<T: Lanes>(t: T, a: &[u16], b: &[u16], c: &mut [u16], scratch: &mut [u16]) {
    let l = T::L;
    let (a, b, c) = (&a[..64 * l], &b[..64 * l], &mut c[..128 * l]);
    let (am, rest) = scratch[..KMUL64_SCRATCH * l].split_at_mut(32 * l);
    let (bm, rest) = rest.split_at_mut(32 * l);
    let (mid, k32) = rest.split_at_mut(64 * l);
    for (x, xm) in [(a, &mut *am), (b, &mut *bm)] {
        for r in 0..32 {
            let v = t.add(t.load(&x[r * l..]), t.load(&x[(32 + r) * l..]));
            t.store(&mut xm[r * l..], v);
        }
    }
    let (lo, hi) = c.split_at_mut(64 * l);
    kmul32(t, a, b, lo, k32);
    kmul32(t, &a[32 * l..], &b[32 * l..], hi, k32);
    kmul32(t, am, bm, mid, k32);
    combine_rows(t, c, mid, 32);
}

/// Scratch rows of [`kmul64`]: middle operands (2 x 32), middle product (64), [`kmul32`] (32).
pub(crate) const KMUL64_SCRATCH: usize = 192;

/// The Karatsuba middle operands of an uneven split at `H` rows, the high part `H1 < H` rows:
/// `s[r] = x[r] + x[H + r]` for `r < H1` and `x[r]` up to `H` (the high part zero-padded), for
/// both operands.
#[inline(always)]
fn padded_sums<T: Lanes, const H: usize, const H1: usize>(
    t: T,
    x: [&[u16]; 2],
    s: [&mut [u16]; 2],
) {
    let l = T::L;
    let [s0, s1] = s;
    for (x, s) in [(x[0], s0), (x[1], s1)] {
        let (x, s) = (&x[..(H + H1) * l], &mut s[..H * l]);
        for r in 0..H {
            let v = t.load(&x[r * l..]);
            let v = if r < H1 {
                t.add(v, t.load(&x[(H + r) * l..]))
            } else {
                v
            };
            t.store(&mut s[r * l..], v);
        }
    }
}

/// Lane-parallel product of 24-coefficient polynomials (16 lanes): one Karatsuba level split
/// at 16, `a = a0 + x^16 a1` with `a1` of 8 coefficients. `P0 = a0 b0` and the middle product
/// `(a0 + a1)(b0 + b1)` are [`Lanes::kmul16`] products, `P2 = a1 b1` is [`kara8`] in
/// registers: 21 `4 x 4` schoolbooks, where a [`kmul32`] of the zero-padded operands takes 27.
/// `a`, `b` have 24 rows, `out` receives 48 rows (47 coefficients and a zero row), `scratch`
/// has 64 rows.
#[inline(always)]
fn kmul24<T: Lanes>(t: T, a: &[u16], b: &[u16], out: &mut [u16], scratch: &mut [u16]) {
    let l = T::L;
    debug_assert_eq!(l, 16, "the 16-lane kernel reads 16 rows per operand");
    let (a, b, out) = (&a[..24 * l], &b[..24 * l], &mut out[..48 * l]);
    let (sums, pm) = scratch[..64 * l].split_at_mut(32 * l);
    let (sa, sb) = sums.split_at_mut(16 * l);
    padded_sums::<T, 16, 8>(t, [a, b], [sa, sb]);
    t.kmul16::<0b01>(a, b, out);
    t.kmul16::<0b01>(sa, sb, pm);
    let z = t.zero();
    let (mut x, mut y) = ([z; 8], [z; 8]);
    unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7] {
        x[i] = t.load(&a[(16 + i) * l..]);
        y[i] = t.load(&b[(16 + i) * l..]);
    });
    let p2 = kara8(t, &x, &y);
    // Refined recombination with h = 16 and P2 = H0 (15 coefficients, H1 = 0): rows 16..32
    // become T + M0 - L0 and rows 32..48 M1 - T, with T = L1 - H0.
    unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
        let l0 = t.load(&out[i * l..]);
        let l1 = t.load(&out[(16 + i) * l..]);
        let h0 = if i < 15 { p2[i] } else { z };
        let tt = t.sub(l1, h0);
        let (m0, m1) = (t.load(&pm[i * l..]), t.load(&pm[(16 + i) * l..]));
        t.store(&mut out[(16 + i) * l..], t.sub(t.add(tt, m0), l0));
        t.store(&mut out[(32 + i) * l..], t.sub(m1, tt));
    });
}

/// Lane-parallel product of 56-coefficient polynomials (16 lanes only, see [`kmul24`]): one
/// Karatsuba level split at 32, `a = a0 + x^32 a1` with `a1` of 24 coefficients: `a0 b0` and
/// `(a0 + a1)(b0 + b1)` by [`kmul32`], `a1 b1` by [`kmul24`]. 75 `4 x 4` schoolbooks, against
/// 81 for a [`kmul64`] of the zero-padded leaves. `a`, `b` have 56 rows, `c` receives 112 rows
/// (111 coefficients and a zero row); `scratch` has [`KMUL56_SCRATCH`] rows.
#[inline(always)]
pub(crate) fn kmul56<T: Lanes>(t: T, a: &[u16], b: &[u16], c: &mut [u16], scratch: &mut [u16]) {
    let l = T::L;
    let (a, b, c) = (&a[..56 * l], &b[..56 * l], &mut c[..112 * l]);
    let (am, rest) = scratch[..KMUL56_SCRATCH * l].split_at_mut(32 * l);
    let (bm, rest) = rest.split_at_mut(32 * l);
    let (mid, k) = rest.split_at_mut(64 * l);
    padded_sums::<T, 32, 24>(t, [a, b], [am, bm]);
    let (lo, hi) = c.split_at_mut(64 * l);
    kmul32(t, a, b, lo, k);
    kmul24(t, &a[32 * l..], &b[32 * l..], hi, k);
    kmul32(t, am, bm, mid, k);
    // Refined recombination with h = 32: lo = L0 + x^32 L1 (rows 0..64), hi = H0 + x^32 H1
    // (rows 64..112, H1 its last 16 rows, already in place), mid = M0 + x^32 M1, T = L1 - H0:
    // rows 32..64 become T + M0 - L0, rows 64..96 M1 - H1 - T.
    let z = t.zero();
    for i in 0..32 {
        let l0 = t.load(&c[i * l..]);
        let l1 = t.load(&c[(32 + i) * l..]);
        let h0 = t.load(&c[(64 + i) * l..]);
        let h1 = if i < 16 {
            t.load(&c[(96 + i) * l..])
        } else {
            z
        };
        let (m0, m1) = (t.load(&mid[i * l..]), t.load(&mid[(32 + i) * l..]));
        let tt = t.sub(l1, h0);
        t.store(&mut c[(32 + i) * l..], t.sub(t.add(tt, m0), l0));
        t.store(&mut c[(64 + i) * l..], t.sub(t.sub(m1, h1), tt));
    }
}

/// Scratch rows of [`kmul56`]: middle operands (2 x 32), middle product (64), [`kmul32`]'s
/// 32 or [`kmul24`]'s 64.
pub(crate) const KMUL56_SCRATCH: usize = 192;

/// Lane-parallel product of 48-coefficient polynomials: a three-way split into thirds of 16
/// with six [`Lanes::kmul16`] products (`P00`, `P11`, `P22`, `P01 = (a0 + a1)(b0 + b1)`,
/// `P12`, `P02`); `c` receives 96 rows, `scratch` has [`KMUL48_SCRATCH`] rows. The sums with
/// `a1` are formed by the kernel on the fly (its row mask), `a0 + a2` and `b0 + b2` here.
#[inline(always)]
pub(crate) fn kmul48<T: Lanes>(t: T, a: &[u16], b: &[u16], c: &mut [u16], scratch: &mut [u16]) {
    let l = T::L;
    let (a, b, c) = (&a[..48 * l], &b[..48 * l], &mut c[..96 * l]);
    let (sums, prods) = scratch[..KMUL48_SCRATCH * l].split_at_mut(64 * l);
    // Products, 32 rows each (31 coefficients and a zero row): P00, P11, P22, P01, P12, P02.
    let (p00, rest) = prods.split_at_mut(32 * l);
    let (p11, rest) = rest.split_at_mut(32 * l);
    let (p22, rest) = rest.split_at_mut(32 * l);
    let (p01, rest) = rest.split_at_mut(32 * l);
    let (p12, p02) = rest.split_at_mut(32 * l);
    if T::L == 16 {
        // Every operand of the kernel a plain run of rows (see [`sum_halves`]); the three sums
        // in turn in the first 32 rows of `sums`.
        t.kmul16::<0b01>(a, b, p00);
        t.kmul16::<0b01>(&a[16 * l..], &b[16 * l..], p11);
        t.kmul16::<0b01>(&a[32 * l..], &b[32 * l..], p22);
        for (p, parts) in [(p01, (0, 1)), (p12, (1, 2)), (p02, (0, 2))] {
            let (sa, sb) = sums[..32 * l].split_at_mut(16 * l);
            sum_halves(t, a, b, parts, sa, sb);
            t.kmul16::<0b01>(sa, sb, p);
        }
    } else {
        // a0 + a2 in rows 0..16 of the first 32, b0 + b2 likewise in the second (rows 16..32
        // of each are never read: the kernel reads rows 0..16 for the mask 0b01).
        for (x, s) in [(a, 0), (b, 32)] {
            for r in 0..16 {
                let v = t.add(t.load(&x[r * l..]), t.load(&x[(32 + r) * l..]));
                t.store(&mut sums[(s + r) * l..], v);
            }
        }
        t.kmul16::<0b01>(a, b, p00);
        t.kmul16::<0b10>(a, b, p11);
        t.kmul16::<0b10>(&a[16 * l..], &b[16 * l..], p22);
        t.kmul16::<0b11>(a, b, p01);
        t.kmul16::<0b11>(&a[16 * l..], &b[16 * l..], p12);
        t.kmul16::<0b01>(&sums[..32 * l], &sums[32 * l..], p02);
    }
    combine3(t, &scratch[64 * l..KMUL48_SCRATCH * l], c, 16);
}

/// Scratch rows of [`kmul48`]: the two sums (32 each) and six products (32 each).
pub(crate) const KMUL48_SCRATCH: usize = 2 * 32 + 6 * 32;

/// Lane-parallel product of 96-coefficient polynomials: a three-way split into thirds of 32
/// with six [`kmul32`] products (`a0 b0`, `a1 b1`, `a2 b2`, `(a0 + a1)(b0 + b1)`,
/// `(a1 + a2)(b1 + b2)`, `(a0 + a2)(b0 + b2)`); `c` receives 192 rows.
#[inline(always)]
fn kmul96<T: Lanes>(t: T, a: &[u16], b: &[u16], c: &mut [u16], scratch: &mut [u16]) {
    let l = T::L;
    let (a, b, c) = (&a[..96 * l], &b[..96 * l], &mut c[..192 * l]);
    let (sums, rest) = scratch[..KMUL96_SCRATCH * l].split_at_mut(6 * 32 * l);
    let (prods, k32) = rest.split_at_mut(6 * 64 * l);
    // Sums, 32 rows each: a0 + a1, a1 + a2, a0 + a2, then the same for b.
    for (x, half) in [(a, 0), (b, 3)] {
        for (k, (i, j)) in [(0, 1), (1, 2), (0, 2)].into_iter().enumerate() {
            for r in 0..32 {
                let v = t.add(
                    t.load(&x[(32 * i + r) * l..]),
                    t.load(&x[(32 * j + r) * l..]),
                );
                t.store(&mut sums[((half + k) * 32 + r) * l..], v);
            }
        }
    }
    // Products, 64 rows each: P00, P11, P22, P01, P12, P02.
    for k in 0..3 {
        let p = &mut prods[k * 64 * l..(k + 1) * 64 * l];
        kmul32(t, &a[32 * k * l..], &b[32 * k * l..], p, k32);
    }
    for k in 0..3 {
        let (sa, sb) = (&sums[k * 32 * l..], &sums[(3 + k) * 32 * l..]);
        let p = &mut prods[(3 + k) * 64 * l..(4 + k) * 64 * l];
        kmul32(t, sa, sb, p, k32);
    }
    combine3(t, prods, c, 32);
}

/// The recombination of a three-way Karatsuba product of thirds of `h` coefficients from its
/// six products (`2 h` rows each, in the order P00, P11, P22, P01, P12, P02) into the `6 h` rows
/// of `c`: with `y = x^h`, `C = P00 + y (P01 - P00 - P11) + y^2 (P02 - P00 - P22 + P11) +
/// y^3 (P12 - P11 - P22) + y^4 P22`, so chunk `j` of `h` rows gathers the top half of term
/// `j - 1` and the bottom half of term `j`. (No closures here: they would not inherit the
/// entry point's target features.)
#[inline(always)]
fn combine3<T: Lanes>(t: T, prods: &[u16], c: &mut [u16], h: usize) {
    let l = T::L;
    for r in 0..h {
        t.store(&mut c[r * l..], term3(t, prods, 2 * h, 0, r));
        for j in 1..5 {
            let v = t.add(
                term3(t, prods, 2 * h, j - 1, h + r),
                term3(t, prods, 2 * h, j, r),
            );
            t.store(&mut c[(h * j + r) * l..], v);
        }
        t.store(&mut c[(5 * h + r) * l..], term3(t, prods, 2 * h, 4, h + r));
    }
}

/// Row `row` of term `j` of a three-way Karatsuba product ([`kmul48`], [`kmul96`]) from the six
/// products of `len` rows each, in the order P00, P11, P22, P01, P12, P02: `P00`,
/// `P01 - P00 - P11`, `P02 - P00 - P22 + P11`, `P12 - P11 - P22`, `P22`.
#[inline(always)]
fn term3<T: Lanes>(t: T, prods: &[u16], len: usize, j: usize, row: usize) -> T::V {
    let l = T::L;
    let prods = &prods[..6 * len * l];
    let p = |k: usize| &prods[(k * len + row) * l..];
    let (p00, p11, p22, p01, p12, p02) = (p(0), p(1), p(2), p(3), p(4), p(5));
    match j {
        0 => t.load(p00),
        1 => t.sub(t.sub(t.load(p01), t.load(p00)), t.load(p11)),
        2 => t.add(
            t.sub(t.sub(t.load(p02), t.load(p00)), t.load(p22)),
            t.load(p11),
        ),
        3 => t.sub(t.sub(t.load(p12), t.load(p11)), t.load(p22)),
        _ => t.load(p22),
    }
}

/// Scratch rows of [`kmul96`]: six sums (32 each), six products (64 each), [`kmul32`] (32).
const KMUL96_SCRATCH: usize = 6 * 32 + 6 * 64 + 32;

/// Lane-parallel product of 128-coefficient polynomials (one Karatsuba level over
/// [`kmul64`]); `c` receives 256 rows.
#[inline(always)]
fn kmul128<T: Lanes>(t: T, a: &[u16], b: &[u16], c: &mut [u16], scratch: &mut [u16]) {
    let l = T::L;
    let (a, b, c) = (&a[..128 * l], &b[..128 * l], &mut c[..256 * l]);
    let (am, rest) = scratch[..KMUL128_SCRATCH * l].split_at_mut(64 * l);
    let (bm, rest) = rest.split_at_mut(64 * l);
    let (mid, k64) = rest.split_at_mut(128 * l);
    for (x, xm) in [(a, &mut *am), (b, &mut *bm)] {
        for r in 0..64 {
            let v = t.add(t.load(&x[r * l..]), t.load(&x[(64 + r) * l..]));
            t.store(&mut xm[r * l..], v);
        }
    }
    let (lo, hi) = c.split_at_mut(128 * l);
    kmul64(t, a, b, lo, k64);
    kmul64(t, &a[64 * l..], &b[64 * l..], hi, k64);
    kmul64(t, am, bm, mid, k64);
    combine_rows(t, c, mid, 64);
}

/// Scratch rows of [`kmul128`]: middle operands (2 x 64), middle product (128), [`kmul64`].
const KMUL128_SCRATCH: usize = 2 * 64 + 128 + KMUL64_SCRATCH;

/// Blocks per operand at the top: three Karatsuba levels.
const BLOCKS: usize = 8;
/// Leaves of the top levels (`3^3`).
const LEAVES: usize = 27;

/// Leaf size parameter for degree `n`: blocks (and leaves) of `S = 32 K` coefficients, the
/// smallest with `8 S >= n` and `K >= 2` (509 -> 2, 677 and 701 -> 3, 821 -> 4).
pub(crate) const fn leaf_k(n: usize) -> usize {
    let k = n.div_ceil(BLOCKS * 32);
    if k < 2 {
        2
    } else {
        k
    }
}

/// Scratch rows of the leaf product for `K`.
const fn scratch_rows(k: usize) -> usize {
    match k {
        2 => KMUL64_SCRATCH,
        3 => KMUL96_SCRATCH,
        _ => KMUL128_SCRATCH,
    }
}

/// Workspace length (`u16`) of [`rq_mul_body`] for `K` and `L` lanes: staged operands
/// (2 x 8S), transposed leaves (2 x S rows), leaf products (2S rows), kernel scratch, leaf
/// products in natural order (32 x 2S) and the full product (16S).
pub(crate) const fn workspace_len(k: usize, l: usize) -> usize {
    let s = 32 * k;
    2 * BLOCKS * s + 2 * s * l + 2 * s * l + scratch_rows(k) * l + 32 * 2 * s + 2 * BLOCKS * s
}

/// The 27 leaves of the top Karatsuba levels from the 8 blocks `u` (one chunk of each), in
/// registers: leaf `9 t1 + 3 t2 + t3` (`t = 0` low half, `1` high half, `2` their sum, at the
/// levels splitting blocks `4 b1 + 2 b2 + b3` on `b1`, `b2`, `b3`); rows 27..32 are zero.
#[inline(always)]
fn eval27<T: Lanes>(t: T, u: &[T::V; BLOCKS]) -> [T::V; 32] {
    let mut w1 = [t.zero(); 12];
    unroll!(j in [0, 1, 2, 3] {
        w1[j] = u[j];
        w1[4 + j] = u[4 + j];
        w1[8 + j] = t.add(u[j], u[4 + j]);
    });
    let mut w2 = [t.zero(); 18];
    unroll!(t1 in [0, 1, 2] {
        unroll!(b3 in [0, 1] {
            let (lo, hi) = (w1[4 * t1 + b3], w1[4 * t1 + 2 + b3]);
            w2[6 * t1 + b3] = lo;
            w2[6 * t1 + 2 + b3] = hi;
            w2[6 * t1 + 4 + b3] = t.add(lo, hi);
        });
    });
    let mut leaves = [t.zero(); 32];
    unroll!(q in [0, 1, 2, 3, 4, 5, 6, 7, 8] {
        let (lo, hi) = (w2[2 * q], w2[2 * q + 1]);
        leaves[3 * q] = lo;
        leaves[3 * q + 1] = hi;
        leaves[3 * q + 2] = t.add(lo, hi);
    });
    leaves
}

/// Refined Karatsuba recombination on units (registers): `lo`, `hi`, `mid` have `2h` units,
/// `out` receives `4h`: `lo0, T + mid0 - lo0, mid1 - hi1 - T, hi1` with `T = lo1 - hi0` (halves
/// of `h` units).
#[inline(always)]
pub(crate) fn kara_units<T: Lanes>(t: T, lo: &[T::V], hi: &[T::V], mid: &[T::V], out: &mut [T::V]) {
    let h = lo.len() / 2;
    for j in 0..h {
        let tt = t.sub(lo[h + j], hi[j]);
        out[j] = lo[j];
        out[h + j] = t.sub(t.add(tt, mid[j]), lo[j]);
        out[2 * h + j] = t.sub(t.sub(mid[h + j], hi[h + j]), tt);
        out[3 * h + j] = hi[h + j];
    }
}

/// The multiplication for blocks of `S = 32 K`; to be instantiated inside a
/// `#[target_feature]` entry point. `a`, `b`, `out` have the same length `n <= 8 S`; `ws` has
/// [`workspace_len`]`(K, L)` elements and starts on a 64-byte boundary.
#[inline(always)]
pub(crate) fn rq_mul_body<T: Lanes, const K: usize>(
    t: T,
    a: &[u16],
    b: &[u16],
    out: &mut [u16],
    ws: &mut [u16],
) {
    let (l, s, n) = (T::L, 32 * K, a.len());
    debug_assert!(n <= BLOCKS * s && b.len() == n && out.len() == n);
    let (stage, ws) = ws[..workspace_len(K, l)].split_at_mut(2 * BLOCKS * s);
    let (at, ws) = ws.split_at_mut(s * l);
    let (bt, ws) = ws.split_at_mut(s * l);
    let (prod, ws) = ws.split_at_mut(2 * s * l);
    let (scratch, ws) = ws.split_at_mut(scratch_rows(K) * l);
    let (leafprod, full) = ws.split_at_mut(32 * 2 * s);
    let (sa, sb) = stage.split_at_mut(BLOCKS * s);

    // 1. Stage the zero-padded operands.
    let whole = n / l * l;
    stage_padded(t, &a[..n], sa, BLOCKS * s);
    stage_padded(t, &b[..n], sb, BLOCKS * s);

    for g in 0..LEAVES.div_ceil(l) {
        // 2. The leaves of this group, chunk by chunk: evaluated in registers and transposed,
        // so that lane i of row r holds coefficient r of leaf g L + i.
        for (st, dst) in [(&*sa, &mut *at), (&*sb, &mut *bt)] {
            for c in 0..s / l {
                let mut u = [t.zero(); BLOCKS];
                unroll!(blk in [0, 1, 2, 3, 4, 5, 6, 7] {
                    u[blk] = t.load(&st[blk * s + c * l..]);
                });
                let leaves = eval27(t, &u);
                let mut io = LeafRows {
                    rows: &leaves,
                    first: g * l,
                    dst: &mut dst[c * l * l..(c + 1) * l * l],
                };
                t.transpose(&mut io);
            }
        }

        // 3. The lane-parallel S x S products (2S rows).
        match K {
            2 => kmul64(t, at, bt, prod, scratch),
            3 => kmul96(t, at, bt, prod, scratch),
            _ => kmul128(t, at, bt, prod, scratch),
        }

        // 4. Back to natural order: leaf product i at leafprod[2S i..].
        products_to_natural(t, prod, s, g, leafprod);
    }

    // 5. Recombine the three top levels in registers, one chunk position of the S-units at a
    // time: leaf products have 2 units of S, level-3 nodes 4, level-2 nodes 8, the root 16.
    let leafprod = &leafprod[..LEAVES * 2 * s];
    let full = &mut full[..2 * BLOCKS * s];
    for c in 0..s / l {
        let mut n3 = [t.zero(); 36];
        unroll!(q in [0, 1, 2, 3, 4, 5, 6, 7, 8] {
            let mut u = [t.zero(); 6];
            unroll!(k in [0, 1, 2, 3, 4, 5] {
                // Leaf 3q + k / 2, unit k % 2.
                u[k] = t.load(&leafprod[(3 * q + k / 2) * 2 * s + (k % 2) * s + c * l..]);
            });
            kara_units(t, &u[0..2], &u[2..4], &u[4..6], &mut n3[4 * q..4 * q + 4]);
        });
        let mut n2 = [t.zero(); 24];
        unroll!(t1 in [0, 1, 2] {
            let m = &n3[12 * t1..12 * t1 + 12];
            kara_units(t, &m[0..4], &m[4..8], &m[8..12], &mut n2[8 * t1..8 * t1 + 8]);
        });
        let mut root = [t.zero(); 16];
        kara_units(t, &n2[0..8], &n2[8..16], &n2[16..24], &mut root);
        unroll!(u in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
            t.store(&mut full[u * s + c * l..], root[u]);
        });
    }

    // 6. Fold mod x^n - 1: r[k] = c[k] + c[k + n] (2n <= 16 S).
    let out = &mut out[..n];
    for k in (0..whole).step_by(l) {
        let v = t.add(t.load(&full[k..]), t.load(&full[k + n..]));
        t.store(&mut out[k..], v);
    }
    for k in whole..n {
        out[k] = full[k].wrapping_add(full[k + n]);
    }
}

/// Transposition input: rows `first..first + L` of the evaluated leaves; output row `j` (that
/// coefficient of the `L` leaves) at `dst[j L..]`.
struct LeafRows<'a, V> {
    rows: &'a [V; 32],
    first: usize,
    dst: &'a mut [u16],
}

impl<T: Lanes> RowIo<T> for LeafRows<'_, T::V> {
    #[inline(always)]
    fn load(&mut self, _t: T, i: usize) -> T::V {
        self.rows[self.first + i]
    }
    #[inline(always)]
    fn store(&mut self, t: T, j: usize, v: T::V) {
        t.store(&mut self.dst[j * T::L..], v);
    }
}

/// The lane-parallel products of leaf group `g` (`2 s` rows of `L` lanes in `prod`) back to
/// natural order: the product of leaf `i` of the group (`2 s` coefficients) at
/// `dst[(g L + i) 2 s..]`.
#[inline(always)]
pub(crate) fn products_to_natural<T: Lanes>(
    t: T,
    prod: &[u16],
    s: usize,
    g: usize,
    dst: &mut [u16],
) {
    let l = T::L;
    for c in 0..2 * s / l {
        let first = g * l * 2 * s + c * l;
        let mut io = ProductRows {
            src: &prod[c * l * l..(c + 1) * l * l],
            stride: 2 * s,
            dst: &mut dst[first..first + (l - 1) * 2 * s + l],
        };
        t.transpose(&mut io);
    }
}

/// Transposition input: `L` rows of the lane-parallel products; output row `i` (a chunk of
/// leaf product `i` of the group) at `dst[i stride..]`.
struct ProductRows<'a> {
    src: &'a [u16],
    stride: usize,
    dst: &'a mut [u16],
}

impl<T: Lanes> RowIo<T> for ProductRows<'_> {
    #[inline(always)]
    fn load(&mut self, t: T, r: usize) -> T::V {
        t.load(&self.src[r * T::L..])
    }
    #[inline(always)]
    fn store(&mut self, t: T, i: usize, v: T::V) {
        t.store(&mut self.dst[i * self.stride..], v);
    }
}

/// This thread's product workspace and how much of it was handed out since the last
/// [`WorkspaceWipe`].
struct Workspace {
    buf: Vec<u16>,
    /// Elements from the start of `buf` that may hold values written since the last wipe.
    used: usize,
}

thread_local! {
    static WORKSPACE: RefCell<Workspace> =
        const { RefCell::new(Workspace { buf: Vec::new(), used: 0 }) };
}

/// Runs `f` on this thread's workspace of `len` elements, starting on a 64-byte boundary (every
/// offset the multipliers use is a multiple of `L` elements, so every vector access is
/// aligned). The area is reused between calls; its contents are unspecified. The KEMs hold a
/// [`WorkspaceWipe`] for each operation, so that no secret-derived values stay in it.
pub(crate) fn with_workspace(len: usize, f: impl FnOnce(&mut [u16])) {
    WORKSPACE.with_borrow_mut(|ws| {
        // 64 extra elements for the alignment
        if ws.buf.len() < len + 64 {
            // A fresh buffer rather than a reallocation, which would leave the old contents
            // in freed memory.
            crate::secret::wipe(&mut ws.buf);
            ws.buf = vec![0; len + 64];
            ws.used = 0;
        }
        let skip = ws.buf.as_ptr().align_offset(64).min(63);
        ws.used = ws.used.max(skip + len);
        f(&mut ws.buf[skip..skip + len]);
    });
}

/// Zeroes the part of this thread's product workspace ([`with_workspace`]) handed out since
/// the last wipe, when dropped. The NTRU KEMs hold one for each operation: the products reuse
/// the workspace across calls instead of zeroing it for each, and their operands (the secret
/// key's polynomials, the ephemeral `r` and `m`) leave layouts, evaluations and sums there.
/// One wipe per operation costs a store pass over at most the largest product's workspace.
pub(crate) struct WorkspaceWipe;

impl Drop for WorkspaceWipe {
    fn drop(&mut self) {
        WORKSPACE.with(|cell| {
            // Held by a product only while it runs, never across the guard's drop.
            if let Ok(mut ws) = cell.try_borrow_mut() {
                let used = core::mem::take(&mut ws.used);
                crate::secret::wipe(&mut ws.buf[..used]);
            }
        });
    }
}

/// Whether this thread's product workspace is all zero (for tests).
#[cfg(test)]
pub(crate) fn workspace_is_clear() -> bool {
    WORKSPACE.with_borrow(|ws| ws.used == 0 && ws.buf.iter().all(|&x| x == 0))
}

/// Copies `x` to the start of `st` and zeroes `st` up to `total` elements (a multiple of `L`),
/// in whole vectors (the partial last vector of `x` through a zero-padded buffer).
#[inline(always)]
pub(crate) fn stage_padded<T: Lanes>(t: T, x: &[u16], st: &mut [u16], total: usize) {
    let (l, n) = (T::L, x.len());
    let whole = n / l * l;
    for k in (0..whole).step_by(l) {
        t.store(&mut st[k..], t.load(&x[k..]));
    }
    if whole < total {
        let mut tmp = [0u16; 32];
        tmp[..n - whole].copy_from_slice(&x[whole..]);
        t.store(&mut st[whole..], t.load(&tmp));
        for k in (whole + l..total).step_by(l) {
            t.store(&mut st[k..], t.zero());
        }
    }
}

/// `out = a · b mod (x^n - 1, 2^16)` with backend `t`; lengths already checked.
pub(crate) fn rq_mul<T: Lanes>(t: T, params: NtruParams, a: &[u16], b: &[u16], out: &mut [u16]) {
    let len = workspace_len(leaf_k(params.n()), T::L);
    with_workspace(len, |ws| t.rq_mul_entry(a, b, out, ws));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        // Every NTRU degree fits eight blocks of S = 32 K, and no smaller K would do.
        for p in NtruParams::ALL {
            let (n, k) = (p.n(), leaf_k(p.n()));
            assert!(n <= BLOCKS * 32 * k && n > BLOCKS * 32 * (k - 1), "n={n}");
            for l in [16, 32] {
                // Staged operands and full product are 8S; the fold reads up to 2n.
                assert!(2 * n <= 2 * BLOCKS * 32 * k);
                eprintln!(
                    "n={n} K={k} L={l}: workspace {} KB",
                    workspace_len(k, l) / 512
                );
            }
        }
        assert_eq!([509, 677, 701, 821].map(leaf_k), [2, 3, 3, 4]);
    }
}
