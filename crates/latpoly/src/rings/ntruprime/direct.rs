//! The `R/q` product on AVX2 by one transform over `Z_4591` itself, instead of three primes.
//!
//! `4590 = 2 · 3^3 · 5 · 17`, so `Z_4591` has a root of unity `omega` of order `135 = 5 · 3^3`
//! (a power of a generator). The exact product `a · b` (degree at most `1520`) equals its
//! residue modulo `x^2160 - 1`, `2160 = 16 · 135`. With `y = x^16`, that ring is
//! `Z_q[x][y] / (y - x^16, y^135 - 1)`, and `y^135 - 1` splits into the `135` factors
//! `y - omega^e`: the residues of `a` are `sum_j A_j(x) omega^(e j)`, where `A_j` is block `j`
//! of 16 coefficients. So the transform is a length-135 DFT whose "points" are whole blocks:
//! one AVX2 vector of 16 lanes each, every butterfly vertical (no lane permutation). It leaves
//! 135 products in `Z_q[x] / (x^16 - omega^e)`, of 256 multiplications each.
//!
//! # Transform
//!
//! Cooley–Tukey splitting, `y^s - c = prod_i (y^(s/r) - c' zeta_r^i)` with `c'^r = c`: the
//! blocks `F_t` of a node (`t < r`) are multiplied by `c'^t` and combined by a size-`r` DFT
//! (`zeta_r = omega^(135/r)`). One radix-5 layer at the root (`c = 1`, no twiddles), then three
//! radix-3 layers (`X1 = F0 - T2 + zeta (T1 - T2)`, `X2 = F0 - T1 - zeta (T1 - T2)`: one product
//! besides the twiddles). An input has 48 nonzero blocks of 135, so the root layer only
//! multiplies the pairs `(j, j + 27)` with `j + 27 < 48` and copies the rest. The inverse runs
//! the same nodes backwards (size-`r` DFT by `zeta^-1`, then `c'^-t`), the root layer last,
//! computing only the outputs below block 96 (`2 · 761 - 1 = 1521` coefficients) with the
//! symmetric radix-5 formulas (`g1 ± g4`, `g2 ± g3`: eight products for four outputs).
//!
//! # Base products
//!
//! `c_k = sum_i a_i b_(k-i)` where `b_(-m) = omega^e b_(16-m)`: with `E = [omega^e b | b]` (32
//! values) and the pairs `P_t = (E_t, E_(t-1))` as 32-bit words, eight outputs take eight
//! `vpmaddwd` of the broadcast pair `(a_2u, a_(2u+1))` by the eight pairs starting at
//! `16 + k0 - 2u` (built in registers: each 128-bit lane holds its own window of pairs, so the
//! shifts stay within lanes), summed in 32-bit lanes and
//! Montgomery-reduced to 16 bits.
//!
//! # Ranges
//!
//! Signed `i16` lanes and the signed Montgomery product of `fast.rs` (`fqmul`). The bounds of
//! every layer are computed and asserted when the tables are built ([`DirectTables::new`]):
//! the forward transform needs no reduction before its last layer, which Barrett-reduces its
//! outputs so that the 16 products of a base product sum below `2^31`; the inverse radix-3
//! layers Barrett-reduce their sums; the root layer's outputs are scaled by `2^16 / 135`
//! (undoing the base products' `2^-16` and the transform's 135) before the fold modulo
//! `x^761 - x - 1`, which ends with the centred representative.
//!
//! About 20,000 vector instructions a product against about 32,000 for the three-prime
//! transforms; constant time (no branch or index depends on the data).

#![allow(unsafe_code)]

use super::fast::{self, barrett_bound, fq_bound, inv_2_16, pow_mod, Input};
use super::fast::{Lanes, Mc, ModConsts, Modv};
use super::x86::Avx2;
use super::{P, Q};
use core::arch::x86_64::*;

/// Points of the transform: `135 = 5 · 3^3`.
const M: usize = 135;
/// Coefficients in a block (one AVX2 vector).
const D: usize = 16;
/// The 135 blocks of a transform (`16 · 135 = 2160 >= 2 · 761 - 1` coefficients of the
/// cyclic product), 64-byte aligned.
#[repr(C, align(64))]
pub(crate) struct Blocks(pub(crate) [[i16; D]; M]);

impl Blocks {
    pub(crate) fn zeroed() -> Self {
        Blocks([[0; D]; M])
    }
}
/// Blocks of an input (761 coefficients padded to 768).
const IN_BLOCKS: usize = 48;
/// Distance of the root (radix-5) layer, in blocks.
const S5: usize = M / 5;
/// Radix-3 levels below the root.
const LEVELS: usize = 3;

/// A broadcast vector of 16 `i16` (32-byte aligned, loaded as one vector).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
struct V16([i16; D]);

/// A multiplier constant broadcast ([`Mc`]: `fqmul(x, w, wp) = x · value mod q`).
#[derive(Clone, Copy, Debug)]
struct C16 {
    w: V16,
    wp: V16,
}

impl C16 {
    fn new(value: i64) -> Self {
        let c = Mc::new(value, Q as i16);
        C16 {
            w: V16([c.w; D]),
            wp: V16([c.wp; D]),
        }
    }
}

/// The twiddles of a radix-3 node. The nodes of a level tile the blocks in order: node `n` of
/// the level of distance `sub` (9, 3, 1) starts at block `3 · sub · n` (asserted when the
/// tables are built).
#[derive(Clone, Copy, Debug)]
struct Node {
    /// `c'`, `c'^2` (forward).
    fwd: [C16; 2],
    /// `c'^-1`, `c'^-2` (inverse).
    inv: [C16; 2],
}

/// Constants of the direct transform (public data, built once).
#[derive(Debug)]
pub(crate) struct DirectTables {
    /// `zeta_5^i`, `i = 1..4` (the root layer).
    z5: [C16; 4],
    /// `zeta_3` and `zeta_3^-1`.
    z3: C16,
    z3i: C16,
    /// The radix-3 nodes, level by level.
    nodes: [Vec<Node>; LEVELS],
    /// `omega^e` of each block after the forward transform (`x^16 = omega^e` there).
    leaf: Vec<C16>,
    /// `(z + z^4) / 2`, `(z^2 + z^3) / 2`, `(z - z^4) / 2`, `(z^2 - z^3) / 2` for
    /// `z = zeta_5^-1` (the inverse root layer).
    ab: [C16; 4],
    /// `2^16 / 135`.
    scale: C16,
    /// The constants of `q` (Barrett reduction, centring).
    qc: ModConsts,
    /// `q^-1 mod 2^16` in the low half of each 32-bit lane.
    qinv32: V16,
}

/// A generator of `F_q^*`.
fn generator() -> i64 {
    let q = i64::from(Q);
    (2..q)
        .find(|&g| {
            [2, 3, 5, 17]
                .iter()
                .all(|f| pow_mod(g, (q - 1) / f, q) != 1)
        })
        .expect("F_q^* is cyclic")
}

impl DirectTables {
    pub(crate) fn new() -> Self {
        let q = i64::from(Q);
        let omega = pow_mod(generator(), (q - 1) / M as i64, q);
        let w = |e: i64| pow_mod(omega, e.rem_euclid(M as i64), q);
        let inv = |x: i64| pow_mod(x, q - 2, q);
        let z5 = w((M / 5) as i64);
        let z3 = w((M / 3) as i64);
        // Nodes: (first block, size in blocks, exponent e of c = omega^e).
        let mut cur: Vec<(usize, usize, i64)> = (0..5)
            .map(|i| (i * S5, S5, (i * S5) as i64)) // children of the root split
            .collect();
        let mut nodes: [Vec<Node>; LEVELS] = Default::default();
        for level in nodes.iter_mut() {
            let mut next = Vec::new();
            for &(start, size, e) in &cur {
                assert_eq!(e % 3, 0);
                let (sub, ep) = (size / 3, e / 3);
                assert_eq!(start, 3 * sub * level.len());
                level.push(Node {
                    fwd: [C16::new(w(ep)), C16::new(w(2 * ep))],
                    inv: [C16::new(w(-ep)), C16::new(w(-2 * ep))],
                });
                for i in 0..3 {
                    next.push((start + i * sub, sub, ep + (i * M / 3) as i64));
                }
            }
            cur = next;
        }
        let mut leaf = vec![C16::new(0); M];
        for &(start, size, e) in &cur {
            assert_eq!(size, 1);
            leaf[start] = C16::new(w(e));
        }
        let zi = inv(z5);
        let half = inv(2);
        let zp = |k: i64| pow_mod(zi, k, q);
        let ab = [
            (zp(1) + zp(4)) * half,
            (zp(2) + zp(3)) * half,
            (zp(1) - zp(4)) * half,
            (zp(2) - zp(3)) * half,
        ]
        .map(C16::new);
        let mut qinv32 = [0i16; D];
        for (i, x) in qinv32.iter_mut().enumerate() {
            *x = if i % 2 == 0 { inv_2_16(Q as i16) } else { 0 };
        }
        let t = DirectTables {
            z5: [1, 2, 3, 4].map(|i| C16::new(pow_mod(z5, i, q))),
            z3: C16::new(z3),
            z3i: C16::new(inv(z3)),
            nodes,
            leaf,
            ab,
            scale: C16::new(65536 * inv(M as i64)),
            qc: ModConsts::new(Q as i16),
            qinv32: V16(qinv32),
        };
        check_bounds();
        t
    }
}

/// The ranges of the module documentation, asserted (the products and sums stay in `i16`, the
/// base products' sums in `i32`); returns nothing, panics if a bound fails.
fn check_bounds() {
    let q = i64::from(Q);
    let max = i64::from(i16::MAX);
    let fq = |b: i64| fq_bound(q, b);
    let bar = barrett_bound(q);
    // forward: inputs Barrett-reduced; root layer x0 + fqmul(x1)
    let mut b = bar + fq(bar);
    for _ in 0..LEVELS {
        let t = fq(b);
        b += (2 * t).max(t + fq(2 * t));
        assert!(b <= max, "forward bound {b}");
    }
    // base product: Barrett-reduced a, b; the twisted b below fq(bar)
    let acc = D as i64 * bar * fq(bar);
    assert!(acc < 1 << 31);
    let mut b = acc / 65536 + (q + 1) / 2;
    for _ in 0..LEVELS {
        assert!(3 * b <= max, "inverse sum {b}");
        let g = 2 * b + fq(2 * b);
        assert!(g <= max);
        b = bar.max(fq(g));
    }
    let s = 2 * b;
    let x = (5 * b).max(b + 4 * fq(s));
    assert!(x <= max);
    assert!(3 * fq(x) <= max, "fold bound");
}

/// `a · value mod q` (signed Montgomery by a broadcast constant).
#[inline(always)]
fn fqmul(s: Avx2, a: __m256i, c: &C16, q: __m256i) -> __m256i {
    fast::fqmul(s, a, s.load(&c.w.0), s.load(&c.wp.0), q)
}

/// A forward radix-3 butterfly with the node twiddles `c = [c', c'^2]`.
#[inline(always)]
fn fwd3(s: Avx2, t: &DirectTables, q: __m256i, v: [__m256i; 3], c: &[C16; 2]) -> [__m256i; 3] {
    let t1 = fqmul(s, v[1], &c[0], q);
    let t2 = fqmul(s, v[2], &c[1], q);
    let d = fqmul(s, s.sub(t1, t2), &t.z3, q);
    [
        s.add(v[0], s.add(t1, t2)),
        s.add(s.sub(v[0], t2), d),
        s.sub(s.sub(v[0], t1), d),
    ]
}

/// An inverse radix-3 butterfly (size-3 DFT by `zeta_3^-1`, then `c = [c'^-1, c'^-2]`); the
/// first output Barrett-reduced.
#[inline(always)]
fn inv3(
    s: Avx2,
    t: &DirectTables,
    r: &Modv<__m256i>,
    v: [__m256i; 3],
    c: &[C16; 2],
) -> [__m256i; 3] {
    let d = fqmul(s, s.sub(v[1], v[2]), &t.z3i, r.p);
    [
        fast::barrett(s, s.add(v[0], s.add(v[1], v[2])), r),
        fqmul(s, s.add(s.sub(v[0], v[2]), d), &c[0], r.p),
        fqmul(s, s.sub(s.sub(v[0], v[1]), d), &c[1], r.p),
    ]
}

/// The forward transform of a padded input (Barrett-reduced) into `x`: the root layer, the
/// first radix-3 layer (distance 9), then the last two in registers, nine blocks at a time.
#[inline(always)]
fn forward(s: Avx2, t: &DirectTables, src: &Input, x: &mut Blocks) {
    let r = Modv::new(s, &t.qc);
    let q = r.p;
    let x = &mut x.0;
    for j in 0..IN_BLOCKS - S5 {
        let x0 = s.load(&src.0[D * j..]);
        let x1 = s.load(&src.0[D * (j + S5)..]);
        s.store(&mut x[j], s.add(x0, x1));
        for (i, z) in t.z5.iter().enumerate() {
            s.store(&mut x[j + (i + 1) * S5], s.add(x0, fqmul(s, x1, z, q)));
        }
    }
    for j in IN_BLOCKS - S5..S5 {
        let x0 = s.load(&src.0[D * j..]);
        for i in 0..5 {
            s.store(&mut x[j + i * S5], x0);
        }
    }
    for (n, node) in t.nodes[0].iter().enumerate() {
        for k in 27 * n..27 * n + 9 {
            let v = [s.load(&x[k]), s.load(&x[k + 9]), s.load(&x[k + 18])];
            let [y0, y1, y2] = fwd3(s, t, q, v, &node.fwd);
            s.store(&mut x[k], y0);
            s.store(&mut x[k + 9], y1);
            s.store(&mut x[k + 18], y2);
        }
    }
    for g in 0..M / 9 {
        let b = &mut x[9 * g..9 * g + 9];
        let mut v = [s.splat(0); 9];
        for (v, b) in v.iter_mut().zip(b.iter()) {
            *v = s.load(b);
        }
        let c = &t.nodes[1][g].fwd;
        for k in 0..3 {
            [v[k], v[k + 3], v[k + 6]] = fwd3(s, t, q, [v[k], v[k + 3], v[k + 6]], c);
        }
        for m in 0..3 {
            let c = &t.nodes[2][3 * g + m].fwd;
            let y = fwd3(s, t, q, [v[3 * m], v[3 * m + 1], v[3 * m + 2]], c);
            for (i, y) in y.into_iter().enumerate() {
                s.store(&mut b[3 * m + i], fast::barrett(s, y, &r));
            }
        }
    }
}

/// `[prev_15, x_0, ..., x_14]`: `x` moved up one lane, `prev`'s top lane shifted in.
#[inline(always)]
fn shift_in(x: __m256i, prev: __m256i) -> __m256i {
    // SAFETY: only called from code compiled with AVX2 (the `Avx2` token's entry points).
    unsafe { _mm256_alignr_epi8::<14>(x, _mm256_permute2x128_si256::<0x03>(x, prev)) }
}

/// The 32-bit Montgomery reduction `(acc - m q) / 2^16`, `m = acc · q^-1 mod 2^16`, in the low
/// 16 bits of each 32-bit lane, sign-extended.
#[inline(always)]
fn mont32(s: Avx2, acc: __m256i, qinv: __m256i, q: __m256i) -> __m256i {
    let m = s.mullo(acc, qinv);
    let mh = s.mulhi(m, q);
    // SAFETY: AVX2 (see `shift_in`).
    unsafe { _mm256_srai_epi32::<16>(_mm256_sub_epi32(acc, _mm256_slli_epi32::<16>(mh))) }
}

/// The 135 base products `xa_k · xb_k mod (x^16 - omega^e_k)`, times `2^-16`, into `xa`.
#[inline(always)]
fn base_products(s: Avx2, t: &DirectTables, xa: &mut Blocks, xb: &Blocks) {
    let q = s.splat(Q as i16);
    let qinv = s.load(&t.qinv32.0);
    let zero = s.splat(0);
    for (k, leaf) in t.leaf.iter().enumerate() {
        let b = s.load(&xb.0[k]);
        let bt = fqmul(s, b, leaf, q);
        let (s0, s1) = (shift_in(bt, zero), shift_in(b, bt));
        // SAFETY: AVX2 (see `shift_in`).
        let w = unsafe {
            // The pairs P_t = (E_t, E_(t-1)) in a lane-split layout: `qv[i]` holds P_(4i ..
            // 4i + 4) in its low 128-bit lane and P_(4i + 8 .. 4i + 12) in its high one
            // (`vpunpck*wd` of E and E moved up one lane give qv[0], qv[1], qv[4], qv[5]).
            let (q0, q4) = (_mm256_unpacklo_epi16(bt, s0), _mm256_unpackhi_epi16(bt, s0));
            let (q16, q20) = (_mm256_unpacklo_epi16(b, s1), _mm256_unpackhi_epi16(b, s1));
            let qv = [
                q0,
                q4,
                _mm256_permute2x128_si256::<0x21>(q0, q16),
                _mm256_permute2x128_si256::<0x21>(q4, q20),
                q16,
                q20,
            ];
            // w[i]: the pairs from 2i (low lane) and from 2i + 8 (high lane), i = 1..=10
            let mid = |i: usize| _mm256_alignr_epi8::<8>(qv[i + 1], qv[i]);
            [
                zero,
                mid(0),
                qv[1],
                mid(1),
                qv[2],
                mid(2),
                qv[3],
                mid(3),
                qv[4],
                mid(4),
                qv[5],
            ]
        };
        let a = &xa.0[k];
        // acc0: outputs 0..4 (low lane) and 8..12 (high lane); acc1: 4..8 and 12..16
        let (mut acc0, mut acc1) = (zero, zero);
        for u in 0..D / 2 {
            // SAFETY: AVX2 (see `shift_in`); `a` holds 16 values, so the pair at `2u` is in
            // bounds.
            unsafe {
                let bc = _mm256_set1_epi32(a.as_ptr().add(2 * u).cast::<i32>().read_unaligned());
                acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(bc, w[8 - u]));
                acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(bc, w[10 - u]));
            }
        }
        let (r0, r1) = (mont32(s, acc0, qinv, q), mont32(s, acc1, qinv, q));
        // SAFETY: AVX2 (see `shift_in`); the lane-split order packs into the natural one.
        let c = unsafe { _mm256_packs_epi32(r0, r1) };
        s.store(&mut xa.0[k], c);
    }
}

/// The inverse transform of `x` (times 135), scaled by `2^16 / 135`, folded modulo
/// `x^761 - x - 1` into `out` (centred; entries from [`P`] on are unspecified).
#[inline(always)]
fn inverse_fold(s: Avx2, t: &DirectTables, x: &mut Blocks, out: &mut [i16]) {
    let r = Modv::new(s, &t.qc);
    let q = r.p;
    let x = &mut x.0;
    for g in 0..M / 9 {
        let b = &mut x[9 * g..9 * g + 9];
        let mut v = [s.splat(0); 9];
        for (v, b) in v.iter_mut().zip(b.iter()) {
            *v = s.load(b);
        }
        for m in 0..3 {
            let c = &t.nodes[2][3 * g + m].inv;
            [v[3 * m], v[3 * m + 1], v[3 * m + 2]] =
                inv3(s, t, &r, [v[3 * m], v[3 * m + 1], v[3 * m + 2]], c);
        }
        let c = &t.nodes[1][g].inv;
        for k in 0..3 {
            [v[k], v[k + 3], v[k + 6]] = inv3(s, t, &r, [v[k], v[k + 3], v[k + 6]], c);
        }
        for (v, b) in v.iter().zip(b.iter_mut()) {
            s.store(b, *v);
        }
    }
    for (n, node) in t.nodes[0].iter().enumerate() {
        for k in 27 * n..27 * n + 9 {
            let v = [s.load(&x[k]), s.load(&x[k + 9]), s.load(&x[k + 18])];
            let [y0, y1, y2] = inv3(s, t, &r, v, &node.inv);
            s.store(&mut x[k], y0);
            s.store(&mut x[k + 9], y1);
            s.store(&mut x[k + 18], y2);
        }
    }
    // root: outputs 0..3 of each radix-5 butterfly (blocks below 4 · 27 = 108 >= 96)
    let [a1, a2, b1, b2] = &t.ab;
    for j in 0..S5 {
        let ld = |i: usize| s.load(&x[j + i * S5]);
        let g = [ld(0), ld(1), ld(2), ld(3), ld(4)];
        let (s1, d1) = (s.add(g[1], g[4]), s.sub(g[1], g[4]));
        let (s2, d2) = (s.add(g[2], g[3]), s.sub(g[2], g[3]));
        let x0 = s.add(g[0], s.add(s1, s2));
        let e1 = s.add(g[0], s.add(fqmul(s, s1, a1, q), fqmul(s, s2, a2, q)));
        let o1 = s.add(fqmul(s, d1, b1, q), fqmul(s, d2, b2, q));
        let e2 = s.add(g[0], s.add(fqmul(s, s1, a2, q), fqmul(s, s2, a1, q)));
        let o2 = s.sub(fqmul(s, d1, b2, q), fqmul(s, d2, b1, q));
        let outs = [x0, s.add(e1, o1), s.add(e2, o2), s.sub(e2, o2)];
        for (i, v) in outs.into_iter().enumerate() {
            s.store(&mut x[j + i * S5], fqmul(s, v, &t.scale, q));
        }
    }
    // fold: c_k + c_(k+761) + c_(k+760) (the last term for k >= 1 only)
    let mut keep = [-1i16; D];
    keep[0] = 0;
    let keep = s.load(&keep);
    let x = x.as_flattened();
    for i in 0..IN_BLOCKS {
        let k = D * i;
        let mut h0 = s.load(&x[k + P - 1..]);
        if i == 0 {
            h0 = s.and(h0, keep);
        }
        let v = s.add(s.load(&x[k..]), s.add(s.load(&x[k + P..]), h0));
        s.store(&mut out[k..], fast::freeze(s, v, &r));
    }
}

/// `a · b` in `R/q` for the padded, Barrett-reduced inputs `ia`, `ib` (any values within
/// `(q + 1) / 2 + 8` of zero; a small polynomial too): [`P`] centred coefficients into `out`
/// (768 entries; the rest unspecified). `xa`, `xb` are scratch.
#[inline(always)]
pub(crate) fn mul(
    s: Avx2,
    t: &DirectTables,
    ia: &Input,
    ib: &Input,
    xa: &mut Blocks,
    xb: &mut Blocks,
    out: &mut [i16],
) {
    forward(s, t, ia, xa);
    forward(s, t, ib, xb);
    base_products(s, t, xa, xb);
    inverse_fold(s, t, xa, out);
}
