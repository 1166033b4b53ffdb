//! `poly_Rq_mul` mod `q` (the product the KEMs need) with 16-bit SIMD lanes: Toom-Cook 4-way
//! over Karatsuba, lane-sliced `32 x 32` leaves.
//!
//! [`super::fast`] computes the cyclic product exactly mod `2^16` and therefore only splits
//! with Karatsuba. The KEMs read every product mod `q <= 2^13`, and Toom-Cook 4-way loses only
//! three bits (its interpolation halves three times): the product is exact mod `2^13`, seven
//! products of a quarter of the length instead of nine (two Karatsuba levels), so a third
//! fewer leaf multiplications. This is PQClean's AVX2 design (Toom-4, two Karatsuba levels,
//! `32 x 32` lane-parallel leaves); the seed `ntru-hps2048509-avx2-pr.txt` describes it.
//!
//! With `L` lanes per vector, limbs of `LU` units of 32 coefficients (`LU` = 4 for `n = 509`,
//! 6 for 677 and 701, 8 for 821, 7 for 821 with 16 lanes) and leaves of `LEAF` coefficients
//! ([`shape`]):
//!
//! 1. **Toom-4 evaluation** of both operands (zero-padded to `4 LU` units) at
//!    `0, 1, -1, 2, -2, 1/2` (as `8 A(1/2)`) and `inf`: seven polynomials of `LU` units.
//! 2. **Karatsuba levels** down to leaves: two two-way levels (`lo`, `hi`, `lo + hi`; 63
//!    leaves), or for 677 and 701 with 32 lanes a two-way and a three-way level with six
//!    products (126 leaves of 32).
//! 3. **Leaves, lane-sliced**: groups of `L` leaves are transposed so that lane `i` of row `t`
//!    holds coefficient `t` of leaf `i`, multiplied by [`kmul32`], [`kmul48`], [`kmul56`] or
//!    [`kmul64`] (Karatsuba levels, three-way for 48, down to `4 x 4` schoolbooks) and
//!    transposed back. An operand multiplied more than once can be evaluated and transposed
//!    once ([`prepare_body`], [`Operand::Prepared`]). With 16 lanes the leaves of a group are
//!    formed in registers from the Toom-4 points as the transposition reads them ([`leaf4`]).
//! 4. **Recombination** of the Karatsuba levels, **Toom-4 interpolation** (exact divisions by
//!    3 and 5 as multiplications by their inverses mod `2^16`, the divisions by 2 and 4 as
//!    shifts, which lose the top bits), the fold mod `x^n - 1` and the reduction mod `q`.
//!
//! Every step is a fixed sequence of vector operations on data-independent addresses, so the
//! multiplier is constant time.

use super::fast::unroll;
use super::fast::{
    kara_units, kmul32, kmul48, kmul56, kmul64, products_to_natural, stage_padded, with_workspace,
    Lanes, RowIo, KMUL48_SCRATCH, KMUL56_SCRATCH, KMUL64_SCRATCH,
};
use super::NtruParams;

/// Coefficients per unit (and per leaf).
const UNIT: usize = 32;

/// Shape for degree `n` and `l` lanes: `(LU, LEAF)`, limbs of `LU` units of 32 coefficients
/// (`4 · 32 LU >= n`) and leaves of `LEAF` coefficients: `(4, 32)` for `n = 509`, `(6, 32)` for
/// 677 and 701 with 32 lanes but `(6, 48)` with 16, `(8, 64)` for 821 with 32 lanes but
/// `(7, 56)` with 16. A limb is
/// `BPL = 32 LU / LEAF` blocks of a leaf's size: 4 (two two-way Karatsuba levels, 63 leaves)
/// or 6 (a two-way and a three-way level, 126 leaves). Leaves of 48 coefficients (three rows of
/// 16-lane transposition blocks) halve the leaf count of 677 and 701 at the same number of
/// lane multiplications: one 16-lane group fewer of every overhead per leaf. Limbs of 7 units
/// pad 821 to 896 coefficients instead of 1,024: leaves of 56 (three and a half rows of
/// transposition blocks, the half handled by [`fused_chunk`] and the recombination's order)
/// cost 75 `4 x 4` schoolbooks ([`kmul56`]) against 81, and the transpositions back (seven
/// chunks of rows, not eight) and the fold shrink with the padding; the evaluation, the
/// preparation's transpositions and the recombination still take four chunk positions per
/// block (a half chunk costs a whole one there). `examples/ntru_bench`, AMD Zen 4 host,
/// three alternating pairs, mod q (16 lanes, AVX-512VL): 2399-2420 -> 2230-2301 ns;
/// `examples/kem_bench ntruhps4096821` decapsulation 11.16-11.24 -> 10.77-10.80 µs, key
/// generation 47.7-47.9 -> 45.9-46.0.
pub(crate) const fn shape(n: usize, l: usize) -> (usize, usize) {
    match n.div_ceil(4 * UNIT) {
        0..=4 => (4, 32),
        5..=6 if l == 16 => (6, 48),
        5..=6 => (6, 32),
        7 if l == 16 => (7, 56),
        _ => (8, 64),
    }
}

/// Elements past the end of a buffer of whole leaves that a chunk of `l` lanes may touch:
/// leaves of 56 coefficients with 16 lanes end in half a chunk, whose vectors are loaded and
/// stored whole (the other half lanes carry garbage that is never kept, see [`prepare_into`]
/// and [`rq_mul_modq_body`]).
const fn tail_pad(leaf: usize, l: usize) -> usize {
    if leaf.is_multiple_of(l) {
        0
    } else {
        l
    }
}

/// Leaves for `bpl` blocks per limb.
const fn leaves(bpl: usize) -> usize {
    if bpl == 4 {
        63
    } else {
        126
    }
}

/// Most leaves (and leaf vectors) of any shape, rounded up to whole groups of 32 lanes.
const MAX_LEAVES: usize = 128;

/// Length (`u16`) of an operand prepared by [`prepare_body`] for the shape `(LU, LEAF)` and
/// `L` lanes: the transposed leaves of every group of `L` leaves, `LEAF` rows per group.
pub(crate) const fn prepared_len(lu: usize, leaf: usize, l: usize) -> usize {
    leaves(lu * UNIT / leaf).div_ceil(l) * l * leaf
}

/// Whether [`prepare_into`] forms the leaves in registers as the transpositions read them
/// ([`leaf4`]): for 16 lanes and four blocks per limb (every 16-lane shape), the only case
/// measured (the 32-lane shapes keep the rows in memory).
const fn fused_prepare(lu: usize, leaf: usize, l: usize) -> bool {
    lu * UNIT / leaf == 4 && l == 16
}

/// Workspace (`u16`) of [`prepare_body`]: the staged operand (4 LU units) and, unless the
/// leaves are formed in registers ([`fused_prepare`]), its evaluated leaves in natural order
/// (`LEAF` coefficients per leaf).
const fn prepare_ws_len(lu: usize, leaf: usize, l: usize) -> usize {
    if fused_prepare(lu, leaf, l) {
        4 * lu * UNIT + tail_pad(leaf, l)
    } else {
        4 * lu * UNIT + leaf * MAX_LEAVES
    }
}

/// Workspace (`u16`) of the product proper, after the two prepared-operand slots: while the
/// leaves are multiplied, the lane-parallel products of one group (`2 LEAF` rows) and the
/// kernel scratch; then, in the same space, the full product (8 LU units) and the point
/// products of one chunk. The leaf products in natural order go to the prepared-operand slots
/// ([`rq_mul_modq_body`]). The KEMs wipe all of the workspace after each operation, at the
/// store rate (about 0.35 µs for the 40 KB this layout had before, on a Zen 4 host); with 16
/// lanes it is now 11.75 KB at 509, 23 KB at 677 and 701, 23.5 KB at 821.
const fn product_ws_len(lu: usize, leaf: usize, l: usize) -> usize {
    let bpl = lu * UNIT / leaf;
    let leaves = 2 * leaf * l + kernel_scratch(leaf) * l;
    let points = 8 * lu * UNIT + tail_pad(leaf, l) + 7 * 2 * bpl * l;
    if leaves > points {
        leaves
    } else {
        points
    }
}

/// Scratch rows of the leaf kernel for leaves of `leaf` coefficients: [`kmul32`]'s middle
/// product (32 rows), [`kmul48`]'s or [`kmul64`]'s. Sized per leaf, not as the largest of the
/// three: the KEMs wipe all of the workspace a product used, and at `n = 509` the largest
/// would add 224 unused rows (14 KB with 32 lanes) to the workspace.
const fn kernel_scratch(leaf: usize) -> usize {
    match leaf {
        32 => 32,
        48 => KMUL48_SCRATCH,
        56 => KMUL56_SCRATCH,
        _ => KMUL64_SCRATCH,
    }
}

/// Workspace length (`u16`) of [`rq_mul_modq_body`] for `(LU, LEAF)` and `L` lanes: room for
/// two prepared operands, then the larger of the preparation's and the product's workspaces.
pub(crate) const fn workspace_len(lu: usize, leaf: usize, l: usize) -> usize {
    let (p, m) = (prepare_ws_len(lu, leaf, l), product_ws_len(lu, leaf, l));
    2 * prepared_len(lu, leaf, l) + if p > m { p } else { m }
}

/// An operand of [`rq_mul_modq_body`]: coefficients (`n` of them, prepared on the fly) or the
/// output of [`prepare_body`] for the same degree and backend.
#[derive(Clone, Copy)]
pub(crate) enum Operand<'a> {
    /// Coefficients, `n` of them.
    Coeffs(&'a [u16]),
    /// [`prepared_len`] elements written by [`prepare_body`].
    Prepared(&'a [u16]),
}

/// `2 x`, lane-wise.
#[inline(always)]
fn dbl<T: Lanes>(t: T, x: T::V) -> T::V {
    t.add(x, x)
}

/// Toom-4 evaluation of `a0 + a1 y + a2 y^2 + a3 y^3` (lane-wise) at `0, 1, -1, 2, -2, 1/2`
/// (as `8 A(1/2)`) and `inf`, the order [`interpolate`] expects.
#[inline(always)]
pub(crate) fn eval4<T: Lanes>(t: T, [a0, a1, a2, a3]: [T::V; 4]) -> [T::V; 7] {
    let (e0, e1) = (t.add(a0, a2), t.add(a1, a3));
    // a0 + 4 a2 and 2 (a1 + 4 a3)
    let f0 = t.add(a0, dbl(t, dbl(t, a2)));
    let f1 = dbl(t, t.add(a1, dbl(t, dbl(t, a3))));
    // ((2 a0 + a1) 2 + a2) 2 + a3
    let h = t.add(dbl(t, t.add(dbl(t, t.add(dbl(t, a0), a1)), a2)), a3);
    [
        a0,
        t.add(e0, e1),
        t.sub(e0, e1),
        t.add(f0, f1),
        t.sub(f0, f1),
        h,
        a3,
    ]
}

/// The leaves of one operand at one chunk position, in registers: `u` holds the `4 BPL` blocks
/// (`u[j BPL + i]` block `i` of limb `j`); Toom-4 evaluation at `0, 1, -1, 2, -2, 1/2` (as
/// `8 A(1/2)`), `inf`, then per point the Karatsuba levels: leaf `9 p + 3 t1 + t2` (`BPL = 4`)
/// or `18 p + 6 t1 + t2` (`BPL = 6`), `t = 0` low part, `1` high, `2` their sum at a two-way
/// level, and the parts `t0, t1, t2, t0 + t1, t1 + t2, t0 + t2` at the three-way level. Rows
/// past the last leaf are zero.
#[inline(always)]
fn eval_leaves<T: Lanes, const BPL: usize>(t: T, u: &[T::V; 24], dst: &mut [u16]) {
    let z = t.zero();
    let l = T::L;
    let dst = &mut dst[..MAX_LEAVES * l];
    // Toom-4 evaluation, block by block.
    let mut pts = [[z; 6]; 7];
    for i in 0..BPL {
        let vals = eval4(t, [u[i], u[BPL + i], u[2 * BPL + i], u[3 * BPL + i]]);
        for p in 0..7 {
            pts[p][i] = vals[p];
        }
    }
    let mut put = |i: usize, v: T::V| t.store(&mut dst[i * l..], v);
    for (p, x) in pts.iter().enumerate() {
        if BPL == 4 {
            let x4 = [x[0], x[1], x[2], x[3]];
            for (j, &v) in karatsuba9(t, &x4).iter().enumerate() {
                put(9 * p + j, v);
            }
        } else {
            let l1 = [
                [x[0], x[1], x[2]],
                [x[3], x[4], x[5]],
                [t.add(x[0], x[3]), t.add(x[1], x[4]), t.add(x[2], x[5])],
            ];
            for (t1, y) in l1.iter().enumerate() {
                let at = 18 * p + 6 * t1;
                put(at, y[0]);
                put(at + 1, y[1]);
                put(at + 2, y[2]);
                put(at + 3, t.add(y[0], y[1]));
                put(at + 4, t.add(y[1], y[2]));
                put(at + 5, t.add(y[0], y[2]));
            }
        }
    }
    let n = leaves(BPL);
    for i in n..n.div_ceil(l) * l {
        put(i, z);
    }
}

/// Three-way recombination on units: `p` holds the six products `P00, P11, P22, P01, P12,
/// P02` of one-unit parts (two units each, `p[2 k + half]`), `out` receives six units:
/// `P00 + y (P01 - P00 - P11) + y^2 (P02 - P00 - P22 + P11) + y^3 (P12 - P11 - P22) + y^4 P22`.
#[inline(always)]
fn kara3<T: Lanes>(t: T, p: &[T::V], out: &mut [T::V]) {
    let z = t.zero();
    let mut term = [[z; 2]; 5];
    for half in 0..2 {
        let (p00, p11, p22) = (p[half], p[2 + half], p[4 + half]);
        let (p01, p12, p02) = (p[6 + half], p[8 + half], p[10 + half]);
        term[0][half] = p00;
        term[1][half] = t.sub(t.sub(p01, p00), p11);
        term[2][half] = t.add(t.sub(t.sub(p02, p00), p22), p11);
        term[3][half] = t.sub(t.sub(p12, p11), p22);
        term[4][half] = p22;
    }
    out[0] = term[0][0];
    for j in 1..5 {
        out[j] = t.add(term[j - 1][1], term[j][0]);
    }
    out[5] = term[4][1];
}

/// Block `i < 8` of the full product where the seven coefficients `c_0 .. c_6` of `y`, each
/// two blocks long, overlap their neighbours: `c_i` at one position (`lo`) plus `c_(i-1)` one
/// block further on (`hi`); `lo[0]` for `i = 0`, `hi[6]` for `i = 7`.
#[inline(always)]
pub(crate) fn overlap<T: Lanes>(t: T, lo: &[T::V; 7], hi: &[T::V; 7], i: usize) -> T::V {
    match i {
        0 => lo[0],
        7 => hi[6],
        _ => t.add(lo[i], hi[i - 1]),
    }
}

/// Toom-4 interpolation of one unit position: the seven point products `w` (order of
/// [`eval4`]) to the coefficients `c0..c6` of `y` (`x^(32 LU)` here, `x^N` in
/// `toom_vnni.rs`), exact mod `2^13`.
#[inline(always)]
pub(crate) fn interpolate<T: Lanes>(t: T, w: [T::V; 7]) -> [T::V; 7] {
    let inv3 = t.splat(43691); // 3^-1 mod 2^16
    let inv5 = t.splat(52429); // 5^-1 mod 2^16
    let [c0, w1, w2, w3, w4, w5, c6] = w;
    // Comments give each value and the power of two it is exact modulo.
    let e1 = t.shr::<1>(t.add(w1, w2)); // c0 + c2 + c4 + c6  (2^15)
    let o1 = t.shr::<1>(t.sub(w1, w2)); // c1 + c3 + c5  (2^15)
    let e2 = t.shr::<1>(t.add(w3, w4)); // c0 + 4 c2 + 16 c4 + 64 c6  (2^15)
    let o2 = t.shr::<2>(t.sub(w3, w4)); // c1 + 4 c3 + 16 c5  (2^14)
    let c6x64 = dbl(t, dbl(t, dbl(t, dbl(t, dbl(t, dbl(t, c6))))));
    let e1 = t.sub(t.sub(e1, c0), c6); // c2 + c4  (2^15)
    let e2 = t.shr::<2>(t.sub(t.sub(e2, c0), c6x64)); // c2 + 4 c4  (2^13)
    let c4 = t.mul(t.sub(e2, e1), inv3);
    let c2 = t.sub(e1, c4);
    // 8 A(1/2) 8 B(1/2) = 64 c0 + 32 c1 + 16 c2 + 8 c3 + 4 c4 + 2 c5 + c6
    let c0x64 = dbl(t, dbl(t, dbl(t, dbl(t, dbl(t, dbl(t, c0))))));
    let c2x16 = dbl(t, dbl(t, dbl(t, dbl(t, c2))));
    let c4x4 = dbl(t, dbl(t, c4));
    let o3 = t.sub(t.sub(t.sub(t.sub(w5, c0x64), c2x16), c4x4), c6);
    let o3 = t.shr::<1>(o3); // 16 c1 + 4 c3 + c5  (2^14)
    let pp = t.mul(t.sub(o2, o1), inv3); // c3 + 5 c5
    let qq = t.mul(t.sub(o3, o1), inv3); // 5 c1 + c3
    let o1x5 = t.add(dbl(t, dbl(t, o1)), o1);
    let c3 = t.mul(t.sub(t.sub(o1x5, pp), qq), inv3);
    let c5 = t.mul(t.sub(pp, c3), inv5);
    let c1 = t.mul(t.sub(qq, c3), inv5);
    [c0, c1, c2, c3, c4, c5, c6]
}

/// The point products at one chunk position: `lp` holds the leaf products, leaf `k`'s two
/// units at `lp[(2 k + half) stride ..]`; the Karatsuba levels are undone per point and unit
/// `u` of point `p`'s product (`2 BPL` units) is stored at `w[(p 2 BPL + u) L ..]`.
#[inline(always)]
fn recombine<T: Lanes, const BPL: usize>(t: T, lp: &[u16], stride: usize, w: &mut [u16]) {
    let (l, z) = (T::L, t.zero());
    let w = &mut w[..7 * 2 * BPL * l];
    for p in 0..7 {
        let mut wp = [z; 12];
        if BPL == 4 {
            let mut l1 = [z; 12]; // three products of 4 units
            for t1 in 0..3 {
                let b = 2 * (9 * p + 3 * t1);
                let mut v = [z; 6];
                for (k, x) in v.iter_mut().enumerate() {
                    *x = t.load(&lp[(b + k) * stride..]);
                }
                kara_units(t, &v[0..2], &v[2..4], &v[4..6], &mut l1[4 * t1..4 * t1 + 4]);
            }
            kara_units(t, &l1[0..4], &l1[4..8], &l1[8..12], &mut wp[..8]);
        } else {
            let mut l1 = [z; 18]; // three products of 6 units
            for t1 in 0..3 {
                let b = 2 * (18 * p + 6 * t1);
                let mut v = [z; 12];
                for (k, x) in v.iter_mut().enumerate() {
                    *x = t.load(&lp[(b + k) * stride..]);
                }
                kara3(t, &v, &mut l1[6 * t1..6 * t1 + 6]);
            }
            kara_units(t, &l1[0..6], &l1[6..12], &l1[12..18], &mut wp[..12]);
        }
        for (u, &x) in wp.iter().enumerate().take(2 * BPL) {
            t.store(&mut w[(p * 2 * BPL + u) * l..], x);
        }
    }
}

/// Interpolates the point products `w` (as [`recombine`] stores them) and writes the `8 BPL`
/// units of the full product, unit `U` at `full[U stride ..]`: unit `i BPL + u` (`u < BPL`)
/// gathers `c_i` at unit `u` and `c_(i-1)` at unit `u + BPL`.
#[inline(always)]
fn interpolate_units<T: Lanes, const BPL: usize>(t: T, w: &[u16], full: &mut [u16], stride: usize) {
    let l = T::L;
    let w = &w[..7 * 2 * BPL * l];
    for u in 0..BPL {
        let (mut wl, mut wh) = ([t.zero(); 7], [t.zero(); 7]);
        for p in 0..7 {
            wl[p] = t.load(&w[(p * 2 * BPL + u) * l..]);
            wh[p] = t.load(&w[(p * 2 * BPL + u + BPL) * l..]);
        }
        let (lo, hi) = (interpolate(t, wl), interpolate(t, wh));
        for i in 0..8 {
            t.store(&mut full[(i * BPL + u) * stride..], overlap(t, &lo, &hi, i));
        }
    }
}

/// Transposition input: rows `first..first + L` of the evaluated leaves; output row `j` at
/// `dst[j L..]`.
struct LeafRows<'a> {
    rows: &'a [u16],
    first: usize,
    dst: &'a mut [u16],
}

impl<T: Lanes> RowIo<T> for LeafRows<'_> {
    #[inline(always)]
    fn load(&mut self, t: T, i: usize) -> T::V {
        t.load(&self.rows[(self.first + i) * T::L..])
    }
    #[inline(always)]
    fn store(&mut self, t: T, j: usize, v: T::V) {
        t.store(&mut self.dst[j * T::L..], v);
    }
}

/// The nine leaves of one point's four blocks `x` after two two-way Karatsuba levels: leaf
/// `3 t1 + t2`, `t = 0` the low part, `1` the high one, `2` their sum at each level.
#[inline(always)]
fn karatsuba9<T: Lanes>(t: T, x: &[T::V; 4]) -> [T::V; 9] {
    let [a, b, c, d] = *x;
    let (e, f) = (t.add(a, c), t.add(b, d));
    [a, b, t.add(a, b), c, d, t.add(c, d), e, f, t.add(e, f)]
}

/// Leaf `k` of one chunk for `BPL = 4` from the Toom-4 points (block `i` of point `p` in
/// `pts[p][i]`), as [`eval_leaves`] forms it: leaf `9 p + 3 t1 + t2` ([`karatsuba9`]), zero
/// past the last. `k` is a constant after unrolling, so only that leaf's sums remain.
#[inline(always)]
fn leaf4<T: Lanes>(t: T, pts: &[[T::V; 4]; 7], k: usize) -> T::V {
    if k >= leaves(4) {
        return t.zero();
    }
    karatsuba9(t, &pts[k / 9])[k % 9]
}

/// Transposition input formed in registers: leaves `first..first + L` of one chunk
/// ([`leaf4`]); output row `j < rows` at `dst[j L..]`, the others dropped (the half chunk at
/// the end of leaves of 56 coefficients with 16 lanes).
struct PointLeaves<'a, V> {
    pts: &'a [[V; 4]; 7],
    first: usize,
    rows: usize,
    dst: &'a mut [u16],
}

impl<T: Lanes> RowIo<T> for PointLeaves<'_, T::V> {
    #[inline(always)]
    fn load(&mut self, t: T, i: usize) -> T::V {
        leaf4(t, self.pts, self.first + i)
    }
    #[inline(always)]
    fn store(&mut self, t: T, j: usize, v: T::V) {
        if j < self.rows {
            t.store(&mut self.dst[j * T::L..], v);
        }
    }
}

/// One chunk position `c` of [`prepare_into`]'s leaves formed in registers: the Toom-4 points
/// of the four blocks' coefficients `c L .. c L + L` from the staged operand `st`, then the
/// transposition of each group's leaves, `rows` output rows (`L`, or `LEAF mod L` for the last,
/// half chunk, whose lanes past the block hold the next block's coefficients: they only reach
/// the rows that are dropped).
#[inline(always)]
fn fused_chunk<T: Lanes, const LEAF: usize>(
    t: T,
    st: &[u16],
    dst: &mut [u16],
    gstride: usize,
    groups: usize,
    c: usize,
    rows: usize,
) {
    let (l, leaf) = (T::L, LEAF);
    let mut pts = [[t.zero(); 4]; 7];
    unroll!(i in [0, 1, 2, 3] {
        let vals = eval4(
            t,
            [
                t.load(&st[i * leaf + c * l..]),
                t.load(&st[(4 + i) * leaf + c * l..]),
                t.load(&st[(8 + i) * leaf + c * l..]),
                t.load(&st[(12 + i) * leaf + c * l..]),
            ],
        );
        unroll!(p in [0, 1, 2, 3, 4, 5, 6] {
            pts[p][i] = vals[p];
        });
    });
    unroll!(g in [0, 1, 2, 3] {
        if g < groups {
            let at = g * gstride + c * l * l;
            let mut io = PointLeaves {
                pts: &pts,
                first: g * l,
                rows,
                dst: &mut dst[at..at + rows * l],
            };
            t.transpose(&mut io);
        }
    });
}

/// Prepares `a` (`n <= 4 LU` units of coefficients) for [`rq_mul_modq_body`]: zero-padded,
/// evaluated (Toom-4 and the Karatsuba levels) and transposed group by group into `dst`
/// ([`prepared_len`] elements: group `g` at `dst[g leaf L..]`, lane `i` of row `r` coefficient `r`
/// of leaf `g L + i`). `ws` has [`prepare_ws_len`] elements. To be instantiated inside a
/// `#[target_feature]` entry point.
#[inline(always)]
pub(crate) fn prepare_body<T: Lanes, const LU: usize, const LEAF: usize>(
    t: T,
    a: &[u16],
    dst: &mut [u16],
    ws: &mut [u16],
) {
    let dst = &mut dst[..prepared_len(LU, LEAF, T::L)];
    prepare_into::<T, LU, LEAF>(t, a, dst, LEAF * T::L, ws);
}

/// [`prepare_body`] with group `g` at `dst[g gstride..]` (`gstride >= LEAF L`): the product
/// prepares its operands interleaved by group (stride `2 LEAF L`), so that the leaf products
/// of group `g` can take the place of both operands' group `g`.
#[inline(always)]
fn prepare_into<T: Lanes, const LU: usize, const LEAF: usize>(
    t: T,
    a: &[u16],
    dst: &mut [u16],
    gstride: usize,
    ws: &mut [u16],
) {
    let l = T::L;
    let bpl = LU * UNIT / LEAF;
    let leaf = LEAF;
    let groups = leaves(bpl).div_ceil(l);
    debug_assert!(a.len() <= 4 * LU * UNIT && gstride >= leaf * l);
    let pad = tail_pad(leaf, l);
    let (st, rows) = ws[..prepare_ws_len(LU, LEAF, l)].split_at_mut(4 * LU * UNIT + pad);
    stage_padded(t, a, st, 4 * LU * UNIT + pad);
    if fused_prepare(LU, LEAF, l) {
        // Chunk by chunk: the Toom-4 points of the four blocks in registers, each group's
        // leaves formed from them as its transposition reads them, instead of storing the 64
        // leaf rows of the chunk and loading them back for the transpositions (on Zen 4,
        // which stores one vector a cycle, the evaluation with those stores took 110 ns of a
        // 1.63 µs product at n = 701). `examples/ntru_bench`, AMD Zen 4 host, best batches of
        // three alternating runs, mod q, AVX-512VL: 509 911-947 -> 886-893 ns, 677 1598-1630 ->
        // 1537-1556, 701 1629-1642 -> 1540-1547, 821 2448-2467 -> 2397-2482; AVX2 (16
        // registers) 2-10% faster at every degree as well.
        debug_assert!(groups <= 4);
        for c in 0..leaf / l {
            fused_chunk::<T, LEAF>(t, st, dst, gstride, groups, c, l);
        }
        if !leaf.is_multiple_of(l) {
            fused_chunk::<T, LEAF>(t, st, dst, gstride, groups, leaf / l, leaf % l);
        }
        return;
    }
    debug_assert_eq!(leaf % l, 0);
    let chunks = leaf / l;
    // The leaves chunk by chunk: evaluated in registers, stored as rows of `L` lanes (leaf `i`,
    // chunk `c` at `rows[(c MAX_LEAVES + i) L..]`).
    for c in 0..chunks {
        let mut u = [t.zero(); 24];
        for (blk, x) in u.iter_mut().enumerate().take(4 * bpl) {
            *x = t.load(&st[blk * leaf + c * l..]);
        }
        let rows_c = &mut rows[c * MAX_LEAVES * l..];
        if bpl == 4 {
            eval_leaves::<T, 4>(t, &u, rows_c);
        } else {
            eval_leaves::<T, 6>(t, &u, rows_c);
        }
    }
    for g in 0..groups {
        for c in 0..chunks {
            let at = g * gstride + c * l * l;
            let mut io = LeafRows {
                rows: &rows[c * MAX_LEAVES * l..],
                first: g * l,
                dst: &mut dst[at..at + l * l],
            };
            t.transpose(&mut io);
        }
    }
}

/// `out = a · b mod (x^n - 1, q)` (`q` a power of two `<= 2^13`, `n = out.len()`), coefficients
/// in `[0, q)`, for the shape `(LU, LEAF)` of [`shape`]; to be instantiated inside a
/// `#[target_feature]` entry point. An operand given as coefficients is prepared in `ws`
/// ([`prepare_body`]); `ws` has [`workspace_len`]`(LU, LEAF, L)` elements.
#[inline(always)]
pub(crate) fn rq_mul_modq_body<T: Lanes, const LU: usize, const LEAF: usize>(
    t: T,
    a: Operand<'_>,
    b: Operand<'_>,
    out: &mut [u16],
    q: u16,
    ws: &mut [u16],
) {
    let (l, n) = (T::L, out.len());
    let bpl = LU * UNIT / LEAF;
    let (leaf, nleaves) = (LEAF, leaves(bpl));
    let groups = nleaves.div_ceil(l);
    let (plen, gsize) = (prepared_len(LU, LEAF, l), LEAF * l);
    debug_assert!(n <= 4 * LU * UNIT);
    debug_assert!(q.is_power_of_two() && q <= 1 << 13);
    let ws = &mut ws[..workspace_len(LU, LEAF, l)];
    // Operands given as coefficients are prepared here, interleaved by group (group `g` of `a`
    // at `pbuf[2 g gsize..]`, of `b` right after it) and flagged `None`; prepared ones are
    // read where they are.
    let (pbuf, ws) = ws.split_at_mut(2 * plen);
    let pa: Option<&[u16]> = match a {
        Operand::Coeffs(c) => {
            debug_assert_eq!(c.len(), n);
            prepare_into::<T, LU, LEAF>(t, c, pbuf, 2 * gsize, ws);
            None
        }
        Operand::Prepared(p) => Some(&p[..plen]),
    };
    let pb: Option<&[u16]> = match b {
        Operand::Coeffs(c) => {
            debug_assert_eq!(c.len(), n);
            prepare_into::<T, LU, LEAF>(t, c, &mut pbuf[gsize..], 2 * gsize, ws);
            None
        }
        Operand::Prepared(p) => Some(&p[..plen]),
    };
    let ws = &mut ws[..product_ws_len(LU, LEAF, l)];

    // The lane-parallel leaf products (2 LEAF rows), back to natural order: leaf `k`'s at
    // `pbuf[2 LEAF k..]`. Group `g`'s take exactly the place of group `g` of both operands
    // (`2 gsize` elements), which its kernel has read by then (with prepared operands from the
    // caller, that space is free), so the workspace holds no separate buffer for them.
    {
        let (prod, scratch) = ws.split_at_mut(2 * leaf * l);
        for g in 0..groups {
            let at = 2 * g * gsize;
            let ag = match pa {
                Some(p) => &p[g * gsize..(g + 1) * gsize],
                None => &pbuf[at..at + gsize],
            };
            let bg = match pb {
                Some(p) => &p[g * gsize..(g + 1) * gsize],
                None => &pbuf[at + gsize..at + 2 * gsize],
            };
            match LEAF {
                32 => kmul32(t, ag, bg, prod, scratch),
                48 => kmul48(t, ag, bg, prod, scratch),
                56 => kmul56(t, ag, bg, prod, scratch),
                _ => kmul64(t, ag, bg, prod, scratch),
            }
            products_to_natural(t, prod, leaf, g, pbuf);
        }
    }

    // Recombination and interpolation in registers, one chunk position at a time; the full
    // product and the point products of a chunk in the space of the leaf kernels. With leaves
    // of 56 coefficients and 16 lanes the last chunk position is half a chunk: its vectors
    // read the next unit's first coefficients and store garbage over them, so the positions
    // run from the last to the first, whose stores then put the right values there (and
    // `full` has `tail_pad` elements more for the last unit's overhang).
    let (full, wbuf) = ws.split_at_mut(8 * LU * UNIT + tail_pad(leaf, l));
    let wbuf = &mut wbuf[..7 * 2 * bpl * l];
    for c in (0..leaf.div_ceil(l)).rev() {
        let (lp, fc) = (&pbuf[c * l..], &mut full[c * l..]);
        if bpl == 4 {
            recombine::<T, 4>(t, lp, leaf, wbuf);
            interpolate_units::<T, 4>(t, wbuf, fc, leaf);
        } else {
            recombine::<T, 6>(t, lp, leaf, wbuf);
            interpolate_units::<T, 6>(t, wbuf, fc, leaf);
        }
    }

    // Fold mod x^n - 1 and reduce mod q: r[k] = c[k] + c[k + n] (2n <= 8 LU units).
    let whole = n / l * l;
    let mask = t.splat(q - 1);
    for k in (0..whole).step_by(l) {
        let v = t.add(t.load(&full[k..]), t.load(&full[k + n..]));
        t.store(&mut out[k..], t.and(v, mask));
    }
    for k in whole..n {
        out[k] = full[k].wrapping_add(full[k + n]) & (q - 1);
    }
}

/// `out = a · b mod (x^n - 1, q)` with backend `t`, coefficients in `[0, q)` (`q` a power of
/// two `<= 2^13`, `n = out.len()`); lengths already checked, prepared operands from
/// [`prepare`] for the same degree and backend.
pub(crate) fn rq_mul_modq<T: Lanes>(
    t: T,
    params: NtruParams,
    a: Operand<'_>,
    b: Operand<'_>,
    out: &mut [u16],
    q: u16,
) {
    let (lu, leaf) = shape(params.n(), T::L);
    with_workspace(workspace_len(lu, leaf, T::L), |ws| {
        t.rq_mul_modq_entry(a, b, out, q, ws)
    });
}

/// Length (`u16`) of an operand of degree `params.n()` prepared for backend `t`.
pub(crate) fn prepared_len_for<T: Lanes>(_t: T, params: NtruParams) -> usize {
    let (lu, leaf) = shape(params.n(), T::L);
    prepared_len(lu, leaf, T::L)
}

/// Prepares `a` (`params.n()` coefficients) into `dst` ([`prepared_len_for`] elements) for
/// several products with backend `t`.
pub(crate) fn prepare<T: Lanes>(t: T, params: NtruParams, a: &[u16], dst: &mut [u16]) {
    let (lu, leaf) = shape(params.n(), T::L);
    with_workspace(prepare_ws_len(lu, leaf, T::L), |ws| {
        t.rq_prepare_entry(a, dst, ws)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        for (n, l, lu, leaf) in [
            (509, 32, 4, 32),
            (677, 32, 6, 32),
            (701, 32, 6, 32),
            (821, 32, 8, 64),
            (509, 16, 4, 32),
            (677, 16, 6, 48),
            (701, 16, 6, 48),
            (821, 16, 7, 56),
        ] {
            assert_eq!(shape(n, l), (lu, leaf));
            let bpl = lu * UNIT / leaf;
            assert_eq!(bpl * leaf, lu * UNIT);
            assert!(matches!(bpl, 4 | 6));
            // a half chunk at the end of a leaf only where the preparation handles it
            assert!(leaf % l == 0 || fused_prepare(lu, leaf, l));
            assert!(n <= 4 * lu * UNIT && n > 4 * (lu * UNIT - leaf));
            assert!(leaves(bpl) <= MAX_LEAVES && 8 * bpl <= 48);
            // every 16-lane shape forms its leaves in registers (four groups at most)
            assert_eq!(fused_prepare(lu, leaf, l), l == 16 && bpl == 4);
            assert!(!fused_prepare(lu, leaf, l) || leaves(bpl).div_ceil(l) <= 4);
        }
        // the workspaces the KEMs wipe with 16 lanes (bytes), as documented
        let bytes = |n: usize| {
            let (lu, leaf) = shape(n, 16);
            2 * workspace_len(lu, leaf, 16)
        };
        assert_eq!(
            [509, 677, 701, 821].map(bytes),
            [12032, 23552, 23552, 24064]
        );
    }
}
