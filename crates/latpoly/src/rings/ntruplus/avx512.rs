//! AVX-512BW fast path for NTRU+, 32 x i16 lanes.
//!
//! The same arithmetic as the AVX2 path ([`super::x86`]) at twice the width, with the layers
//! that work inside a vector rearranged for 32 lanes. Every kernel is compiled once per
//! parameter set (the length is a constant: loops unroll, no bounds checks remain).
//!
//! * `ntt` / `invntt` perform the scalar reference's Montgomery steps, but only the Barrett
//!   reductions the bounds need (values stay below `9q < 2^15`, see the comments at each
//!   layer): outputs are the **same values mod q** in the reference's output ranges
//!   (`[-(q-1)/2, (q+1)/2]` forward, `(-q, q)` inverse), not always the same representatives.
//!   - `d = 4` (576, 768, 1152): layers with strides `>= 32` go vector to vector; the last
//!     three radix-2 layers (strides 16, 8, 4 = 4, 2, 1 quadwords) run on pairs of vectors
//!     rearranged in registers by quadword shuffles (`vshufi64x2`, `vpunpck[lh]qdq`,
//!     `vpermt2q`), so every butterfly has its partner in the other vector of the pair; six
//!     pairs side by side for 768 and 1152, three for 576 (one pair is a long dependency
//!     chain; [`Avx512::fwd_pairs4`]).
//!   - `d = 3` (864): the big strides (432, 144, 48) are multiples of 16 and run in
//!     coefficient order (32-lane vectors plus a 16-lane tail, loaded and stored with plain
//!     256-bit moves: masked ones defeat store forwarding between the layers and cost a third
//!     of the transform). The in-block layers (strides 24, 12, 6, 3) run in one pass
//!     ([`Avx512::rows3_pass`]) that transposes four 96-coefficient groups at a time to rows
//!     of 16 in registers (row `r` of a 48-block holds coefficients `3m + r`; two blocks per
//!     three vectors with `vpermt2w`), where they become lane strides 8, 4, 2, 1: vector pairs
//!     (four rows) whose lane order a `vpermt2w` rotates by one bit per layer (see [`ROT`]),
//!     six pairs side by side, then transposes back before the store. (Separate transpose
//!     passes cost 8% more: 864 forward 177 -> 162 ns, inverse 164 -> 151 with the copy.)
//!   - The public, checked forward (`NtruPlusRing::ntt`) checks its input inside the first
//!     layer ([`Avx512::fwd_split_checked`]): no separate pass over the input (`latpoly bench`
//!     P3 forward 576 / 768 / 864 / 1152: 73 / 84 / 139 / 132 -> 70 / 80 / 134 / 127 ns).
//! * `basemul` works in coefficient order: with `d = 4` ([`Avx512::basemul4_aos`]) word
//!   permutations of `b` and `ζ·b` against `a` and `a` with its quadword halves swapped; with
//!   `d = 3` ([`Avx512::basemul3_aos`]) 10 components per vector (lanes `0..30`), one-source
//!   `vpermw` of `a` against two-source permutations of `(b, ζ·b)`, so no stride-3 transposes
//!   (864 on Zen 5, `examples/ntruplus_bench`: 85-90 -> 75-77 ns). `baseinv` transposes 32
//!   components to `d` rows (one coefficient index per row), as the AVX2 path. One Montgomery
//!   reduction per output (`vpmaddwd` sums, reduced in 16-bit lanes): **same values mod q** as
//!   the scalar code, also in `(-q, q)`;
//!   `baseinv` batches the inversion per lane and inverts the 32 lane products with one Fermat
//!   chain.
//!
//! No data-dependent branches or memory indices. The token [`Avx512`] can only be built after
//! `is_x86_feature_detected!` saw AVX-512F and AVX-512BW; every `unsafe` intrinsic call relies
//! on it.

#![allow(unsafe_code)]

use super::lanes::{self, match_set, shape, vop2, ztab, InvStates, Lanes16};
use super::tables::{MONT, OMEGA_MONT, Q, QINV};
use super::{scalar, tables, NtruPlusParams};
use crate::arith::mulhi_x86::mulhi_epi16_512;
use crate::rings::unroll;
use core::arch::x86_64::*;
use std::sync::OnceLock;

type V = __m512i;

/// Proof that the CPU runs AVX-512F and AVX-512BW.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(());

/// A lane table: zetas and their `·QINV` companions.
type ZTab = lanes::ZTab<32>;

// ---- lane maps: the shuffles below applied to coefficient indices (for the tables) ----

/// Coefficient index held by each of the 32 lanes of a vector.
type Lanes = [usize; 32];

fn qword(v: &Lanes, j: usize) -> [usize; 4] {
    [v[4 * j], v[4 * j + 1], v[4 * j + 2], v[4 * j + 3]]
}

fn from_qwords(q: [[usize; 4]; 8]) -> Lanes {
    let mut v = [0; 32];
    for (j, w) in q.iter().enumerate() {
        v[4 * j..4 * j + 4].copy_from_slice(w);
    }
    v
}

/// `vshufi64x2 imm`: 128-bit lanes 0, 1 from `a`, 2, 3 from `b`, chosen by `sel`.
fn map_shuf128(a: &Lanes, b: &Lanes, sel: [usize; 4]) -> Lanes {
    let mut q = [[0; 4]; 8];
    for k in 0..4 {
        let src = if k < 2 { a } else { b };
        q[2 * k] = qword(src, 2 * sel[k]);
        q[2 * k + 1] = qword(src, 2 * sel[k] + 1);
    }
    from_qwords(q)
}

/// `vpunpcklqdq` (`hi = 0`) / `vpunpckhqdq` (`hi = 1`).
fn map_unpack64(a: &Lanes, b: &Lanes, hi: usize) -> Lanes {
    let mut q = [[0; 4]; 8];
    for k in 0..4 {
        q[2 * k] = qword(a, 2 * k + hi);
        q[2 * k + 1] = qword(b, 2 * k + hi);
    }
    from_qwords(q)
}

/// `vpermt2q idx`: quadword `j` is `a[idx[j]]` (`idx < 8`) or `b[idx[j] - 8]`.
fn map_permt2q(a: &Lanes, b: &Lanes, idx: [usize; 8]) -> Lanes {
    let mut q = [[0; 4]; 8];
    for (j, &i) in idx.iter().enumerate() {
        q[j] = if i < 8 { qword(a, i) } else { qword(b, i - 8) };
    }
    from_qwords(q)
}

const SEL_LO: [usize; 4] = [0, 1, 0, 1]; // imm 0x44
const SEL_HI: [usize; 4] = [2, 3, 2, 3]; // imm 0xEE
const SEL_EVEN: [usize; 4] = [0, 2, 0, 2]; // imm 0x88
const SEL_ODD: [usize; 4] = [1, 3, 1, 3]; // imm 0xDD
/// Forward: back to natural order after the stride-4 layer.
const FWD_OUT_A: [usize; 8] = [0, 8, 1, 9, 4, 12, 5, 13];
const FWD_OUT_B: [usize; 8] = [2, 10, 3, 11, 6, 14, 7, 15];
/// Inverse: even / odd quadwords of a pair first, natural order at the end.
const INV_IN_X: [usize; 8] = [0, 2, 4, 6, 8, 10, 12, 14];
const INV_IN_Y: [usize; 8] = [1, 3, 5, 7, 9, 11, 13, 15];
const INV_OUT_A: [usize; 8] = [0, 1, 4, 5, 8, 9, 12, 13];
const INV_OUT_B: [usize; 8] = [2, 3, 6, 7, 10, 11, 14, 15];

/// `(X, Y)` lane maps of three in-register layers.
type LayerMaps = [(Lanes, Lanes); 3];

/// Lane maps of the lower butterfly operands `X` of the in-register layers of the pair at
/// coefficient `o`: forward (strides 16, 8, 4) and inverse (strides 4, 8, 16). The upper
/// operand of lane `l` is always `X[l] + stride` (checked by the unit test).
fn pair_maps(o: usize) -> (LayerMaps, LayerMaps) {
    let a: Lanes = core::array::from_fn(|l| o + l);
    let b: Lanes = core::array::from_fn(|l| o + 32 + l);
    let x = map_shuf128(&a, &b, SEL_LO);
    let y = map_shuf128(&a, &b, SEL_HI);
    let x1 = map_shuf128(&x, &y, SEL_EVEN);
    let y1 = map_shuf128(&x, &y, SEL_ODD);
    let x2 = map_unpack64(&x1, &y1, 0);
    let y2 = map_unpack64(&x1, &y1, 1);
    let fwd = [(x, y), (x1, y1), (x2, y2)];
    let x = map_permt2q(&a, &b, INV_IN_X);
    let y = map_permt2q(&a, &b, INV_IN_Y);
    let x1 = map_unpack64(&x, &y, 0);
    let y1 = map_unpack64(&x, &y, 1);
    let x2 = map_shuf128(&x1, &y1, SEL_EVEN);
    let y2 = map_shuf128(&x1, &y1, SEL_ODD);
    (fwd, [(x, y), (x1, y1), (x2, y2)])
}

/// Rotation right by `k` of a 6-bit index (a position in the 64 lanes of a vector pair).
const fn rotr6(i: usize, k: usize) -> usize {
    let k = k % 6;
    ((i >> k) | (i << (6 - k))) & 63
}

/// `vpermt2w` indices of half `h` of the permutation `new[k] = old[rotr6(k, r)]` of a vector
/// pair (`r = 1`: an interleave of the two halves; `r = 5`: even then odd lanes).
const fn rot_idx(r: usize, h: usize) -> [i16; 32] {
    let mut idx = [0i16; 32];
    let mut k = 0;
    while k < 32 {
        idx[k] = rotr6(32 * h + k, r) as i16;
        k += 1;
    }
    idx
}

/// The 864 in-row layers on vector pairs: with the pair's 64 lanes numbered by the index
/// `i = 32·vector + 16·row + m`, a butterfly pairs lane `j` of `X` with lane `j` of `Y`, i.e.
/// index bit 5 of the pair's current order. Rotating that order left by one bit per layer
/// brings the bit of each stride there: forward (bits 3, 2, 1, 0) starts rotated left by 2 and
/// rotates left by 1 after every layer (the fourth time back to natural order); inverse (bits
/// 0, 1, 2, 3) rotates left by 5, then by 5 after every layer, then by 2 at the end.
/// Permutation tables: `new[k] = old[rotr6(k, r)]` rotates the order left by `r`.
const ROT: [[[i16; 32]; 2]; 6] = [
    [rot_idx(0, 0), rot_idx(0, 1)],
    [rot_idx(1, 0), rot_idx(1, 1)],
    [rot_idx(2, 0), rot_idx(2, 1)],
    [rot_idx(3, 0), rot_idx(3, 1)],
    [rot_idx(4, 0), rot_idx(4, 1)],
    [rot_idx(5, 0), rot_idx(5, 1)],
];

/// 96-coefficient groups per chunk of the 864 in-row pass ([`Avx512::rows3_pass`]): 12 row
/// vectors, six pairs side by side (864: two chunks of four groups and one of one).
const ROWS3_GROUPS: usize = 4;
const _: () = assert!((864 / 96) % ROWS3_GROUPS == 1);

/// Per-parameter-set lane tables (built once).
struct Tables {
    /// `d = 4`: in-register layers per vector pair, forward (strides 16, 8, 4) and inverse
    /// (strides 4, 8, 16).
    fwd: Vec<[ZTab; 3]>,
    inv: Vec<[ZTab; 3]>,
    /// `d = 3`: in-row layers per vector pair (four rows), forward (D = 8, 4, 2, 1) and
    /// inverse (D = 1, 2, 4, 8).
    f3: Vec<[ZTab; 4]>,
    i3: Vec<[ZTab; 4]>,
    /// Base-ring zetas in the transposed lane order, per group of 32 components (zero past
    /// the last component).
    base: Vec<ZTab>,
    /// Base-ring zetas in the coefficient order, per vector: `d = 4`, 8 components (lanes
    /// `4c..4c + 4` hold component `c`'s zeta), for [`Avx512::basemul4_aos`]; `d = 3`, 10
    /// components (lanes `3c..3c + 3`, zero in lanes 30, 31), for [`Avx512::basemul3_aos`].
    base_aos: Vec<ZTab>,
}

/// Component held by lane `p` after [`Avx512::soa4`] (relative to the group's first one).
const fn soa4_component(p: usize) -> usize {
    let (h, p8) = (p / 8, p % 8);
    8 * (p8 / 2) + 2 * h + (p8 % 2)
}

fn build_tables(p: NtruPlusParams) -> Tables {
    let s = p.shape();
    let z = p.zetas();
    let n = s.n;
    let comps = n / s.d;
    let mut t = Tables {
        fwd: vec![],
        inv: vec![],
        f3: vec![],
        i3: vec![],
        base: vec![],
        base_aos: vec![],
    };
    // zeta of the node holding coefficient c in the radix-2 layer of the given stride
    let fz = |c: usize, step: usize| z[n / (2 * step) + c / (2 * step)];
    let iz = |c: usize, step: usize| z[2 * (n / (2 * step)) - 1 - c / (2 * step)];
    let base = |j: usize| {
        if j < comps {
            scalar::base_zeta(z, j)
        } else {
            0
        }
    };
    if s.d == 4 {
        for o in (0..n).step_by(64) {
            let (f, i) = pair_maps(o);
            t.fwd.push([
                ztab(|l| fz(f[0].0[l], 16)),
                ztab(|l| fz(f[1].0[l], 8)),
                ztab(|l| fz(f[2].0[l], 4)),
            ]);
            t.inv.push([
                ztab(|l| iz(i[0].0[l], 4)),
                ztab(|l| iz(i[1].0[l], 8)),
                ztab(|l| iz(i[2].0[l], 16)),
            ]);
        }
        for g in 0..n.div_ceil(128) {
            t.base.push(ztab(|l| base(32 * g + soa4_component(l))));
        }
        for v in 0..n / 32 {
            t.base_aos.push(ztab(|l| base(8 * v + l / 4)));
        }
    } else {
        // row layout: vector v holds rows 2v, 2v + 1; row R is row R % 3 of 48-block R / 3,
        // lane m of a row is coefficient 3m + R % 3 of its block. Pair p is vectors 2p, 2p + 1
        // (the last pair of 864 ends with a zero vector past the end: twiddles 0)
        for p in 0..n.div_ceil(64) {
            // coefficient at original pair index i (0..64), or None past the end
            let coeff = |i: usize| {
                let pos = 64 * p + i;
                let row = pos / 16;
                (pos < n).then(|| 48 * (row / 3) + 3 * (pos % 16) + row % 3)
            };
            let mut f = [([0i16; 32], [0i16; 32]); 4];
            let mut i = f;
            for (s, dd) in [8usize, 4, 2, 1].into_iter().enumerate() {
                // forward butterfly s: X lane j holds pair index rotr(j, 2 + s)
                f[s] = ztab(|j| coeff(rotr6(j, 2 + s)).map_or(0, |c| fz(c, 3 * dd)));
            }
            for (s, dd) in [1usize, 2, 4, 8].into_iter().enumerate() {
                // inverse butterfly s: X lane j holds pair index rotr(j, 5 - s)
                i[s] = ztab(|j| coeff(rotr6(j, 5 - s)).map_or(0, |c| iz(c, 3 * dd)));
            }
            t.f3.push(f);
            t.i3.push(i);
        }
        for g in 0..n / 96 {
            t.base.push(ztab(|l| base(32 * g + l)));
        }
        for v in 0..comps.div_ceil(AOS3_COMPS) {
            t.base_aos.push(ztab(|l| {
                if l < 3 * AOS3_COMPS {
                    base(AOS3_COMPS * v + l / 3)
                } else {
                    0
                }
            }));
        }
    }
    t
}

fn tables(p: NtruPlusParams) -> &'static Tables {
    static T: [OnceLock<Tables>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    let i = NtruPlusParams::ALL
        .iter()
        .position(|&x| x == p)
        .unwrap_or(0);
    T[i].get_or_init(|| build_tables(p))
}

/// `vpshufb` control taking 16-bit lane `src[p]` to lane `p` in every 128-bit lane.
const fn bytes16(src: [usize; 8]) -> [i8; 64] {
    let mut out = [0i8; 64];
    let mut h = 0;
    while h < 4 {
        let mut p = 0;
        while p < 8 {
            out[16 * h + 2 * p] = (2 * src[p]) as i8;
            out[16 * h + 2 * p + 1] = (2 * src[p] + 1) as i8;
            p += 1;
        }
        h += 1;
    }
    out
}

/// `vpermt2w` indices gathering the low (`h = 0`) or high (`h = 1`) 16-bit halves of two
/// vectors of 32-bit lanes in `packs32` order: per 128-bit lane, four from the first source,
/// then four from the second.
const fn pack_idx(h: usize) -> [i16; 32] {
    let mut idx = [0i16; 32];
    let mut p = 0;
    while p < 32 {
        let (lane, j) = (p / 8, p % 8);
        let word = 8 * lane + 2 * (j % 4) + h;
        idx[p] = (if j < 4 { word } else { 32 + word }) as i16;
        p += 1;
    }
    idx
}
const PACK_LO: [i16; 32] = pack_idx(0);
const PACK_HI: [i16; 32] = pack_idx(1);

/// `vpermt2w` indices of [`Avx512::basemul4_aos`]: word `w` of every component (quadword)
/// takes word `src[w]` of the same component of `b` (`0..4`) or of `ζ·b` (`4..8`).
const fn gamma_idx(src: [usize; 4]) -> [i16; 32] {
    let mut idx = [0i16; 32];
    let mut p = 0;
    while p < 32 {
        let (c, w) = (p / 4, p % 4);
        let s = src[w];
        idx[p] = (if s < 4 { 4 * c + s } else { 32 + 4 * c + s - 4 }) as i16;
        p += 1;
    }
    idx
}
/// With `a' = a` rotated by two words in every component, `madd(a, Γ01) + madd(a', Γ'01)`
/// holds `c_0` and `c_1` of every component in its two 32-bit lanes, `Γ23`, `Γ'23` the same
/// for `c_2`, `c_3` (`c_k = Σ_{i ≤ k} a_i b_{k-i} + Σ_{i > k} a_i ζ b_{k-i+4}`).
const GAMMA01: [i16; 32] = gamma_idx([0, 7, 7, 6]);
const GAMMA01_R: [i16; 32] = gamma_idx([6, 5, 1, 0]);
const GAMMA23: [i16; 32] = gamma_idx([2, 1, 1, 0]);
const GAMMA23_R: [i16; 32] = gamma_idx([0, 7, 3, 2]);

/// `vpermt2w` indices gathering the low (`h = 0`) or high (`h = 1`) halves of the 32-bit sums
/// `[c_0, c_1]` (first source) and `[c_2, c_3]` (second) into coefficient order.
const fn pack_aos_idx(h: usize) -> [i16; 32] {
    let mut idx = [0i16; 32];
    let mut p = 0;
    while p < 32 {
        let (c, k) = (p / 4, p % 4);
        let word = 4 * c + 2 * (k % 2) + h;
        idx[p] = (if k < 2 { word } else { 32 + word }) as i16;
        p += 1;
    }
    idx
}
const PACK_AOS_LO: [i16; 32] = pack_aos_idx(0);
const PACK_AOS_HI: [i16; 32] = pack_aos_idx(1);

/// `d = 3` in coefficient order ([`Avx512::basemul3_aos`]): a vector holds 10 components in
/// lanes `0..30`; the 32-bit sums of components `5h..5h + 5` sit in half `h`'s dword lanes
/// `0..15` (lane `j`: component `5h + j / 3`, coefficient `j % 3`), dword 15 is zero.
const AOS3_COMPS: usize = 10;
/// Lane of `ζ·b` that is zero in every vector (lanes `30`, `31` have zeta `0`): the partner of
/// every unused word.
const AOS3_ZERO: i16 = 32 + 30;

/// `vpermw` indices of `a` for half `h`: word pair `j` is `(a_0, a_1)` (`second = false`) or
/// `(a_2, -)` (`second = true`) of its component (the partner of `-` is zero).
const fn aos3_x(h: usize, second: bool) -> [i16; 32] {
    let mut idx = [0i16; 32];
    let mut j = 0;
    while j < 15 {
        let base = 3 * (5 * h + j / 3);
        if second {
            idx[2 * j] = (base + 2) as i16;
        } else {
            idx[2 * j] = base as i16;
            idx[2 * j + 1] = (base + 1) as i16;
        }
        j += 1;
    }
    idx
}
/// `vpermt2w` indices of `(b, ζ·b)` matching [`aos3_x`]: with them
/// `c_k = a_0 b_k + a_1 b_{k-1} + a_2 b_{k-2}`, where `b_{-1} = ζ b_2`, `b_{-2} = ζ b_1`.
const fn aos3_y(h: usize, second: bool) -> [i16; 32] {
    let mut idx = [AOS3_ZERO; 32];
    let mut j = 0;
    while j < 15 {
        let (base, k) = (3 * (5 * h + j / 3), (j % 3) as isize);
        if second {
            idx[2 * j] = aos3_b(base, k - 2);
        } else {
            idx[2 * j] = aos3_b(base, k);
            idx[2 * j + 1] = aos3_b(base, k - 1);
        }
        j += 1;
    }
    idx
}
/// Index of `b_i` (`i >= 0`) or `ζ b_{i+3}` (`i < 0`) of the component starting at lane `base`
/// in the pair `(b, ζ·b)`.
const fn aos3_b(base: usize, i: isize) -> i16 {
    if i >= 0 {
        (base as isize + i) as i16
    } else {
        (32 + base as isize + i + 3) as i16
    }
}
const AOS3_X: [[i16; 32]; 4] = [
    aos3_x(0, false),
    aos3_x(0, true),
    aos3_x(1, false),
    aos3_x(1, true),
];
const AOS3_Y: [[i16; 32]; 4] = [
    aos3_y(0, false),
    aos3_y(0, true),
    aos3_y(1, false),
    aos3_y(1, true),
];
/// `vpermt2w` indices gathering the low (`h = 0`) or high (`h = 1`) halves of the two halves'
/// sums into coefficient order (lanes `30`, `31` are not stored).
const fn pack_aos3_idx(h: usize) -> [i16; 32] {
    let mut idx = [0i16; 32];
    let mut p = 0;
    while p < 30 {
        idx[p] = (32 * (p / 15) + 2 * (p % 15) + h) as i16;
        p += 1;
    }
    idx
}
const PACK_AOS3_LO: [i16; 32] = pack_aos3_idx(0);
const PACK_AOS3_HI: [i16; 32] = pack_aos3_idx(1);

const SOA4_IN: [i8; 64] = bytes16([0, 4, 1, 5, 2, 6, 3, 7]);
const SOA4_OUT: [i8; 64] = bytes16([0, 2, 4, 6, 1, 3, 5, 7]);

/// `vpermt2w` index vectors of the stride-3 transposes of 96 coefficients `v0 v1 v2`
/// (two 48-blocks): `[i16; 32]` indices into the 64 lanes of two sources, and the mask of the
/// lanes a second, masked `vpermw` takes from the third source.
struct Perm3 {
    idx: [i16; 32],
    idx2: [i16; 32],
    mask: u32,
    /// The first of the two `vpermt2w` sources.
    lo: usize,
}

/// The tables of an output vector whose lane `l` comes from `(vector, lane) = src[l]` of three
/// sources: vectors `lo, lo + 1` through `vpermt2w`, the other one through a masked `vpermw`.
const fn perm3_from(src: [(usize, usize); 32], lo: usize) -> Perm3 {
    let mut idx = [0i16; 32];
    let mut idx2 = [0i16; 32];
    let mut mask = 0u32;
    let mut l = 0;
    while l < 32 {
        let (v, lane) = src[l];
        if v == lo || v == lo + 1 {
            idx[l] = (32 * (v - lo) + lane) as i16;
        } else {
            idx2[l] = lane as i16;
            mask |= 1 << l;
        }
        l += 1;
    }
    Perm3 {
        idx,
        idx2,
        mask,
        lo,
    }
}

/// Row layout (`rows = true`): output vector `k` of the 96 holds rows `2k`, `2k + 1` of the
/// two blocks (row `R`: block `R / 3`, coefficients `3m + R % 3`). Component layout (`rows =
/// false`): output `k` holds coefficient `k` of the 32 degree-3 components.
const fn perm3_in(k: usize, rows: bool) -> Perm3 {
    let mut src = [(0, 0); 32];
    let mut l = 0;
    while l < 32 {
        let c = if rows {
            let row = 2 * k + l / 16;
            48 * (row / 3) + 3 * (l % 16) + row % 3
        } else {
            3 * l + k
        };
        src[l] = (c / 32, c % 32);
        l += 1;
    }
    perm3_from(src, perm3_lo(k, rows, false))
}

/// First of the two `vpermt2w` sources of output `k` of [`perm3_in`] (`out = false`) or
/// [`perm3_out`] (`out = true`); the third source is the other one. Row layout in: rows 0, 1
/// from v0, v1; rows 2, 3 from v0..v2 (v2 masked); rows 4, 5 from v1, v2. Row layout out:
/// coefficients 0..31 from t0, t1; 32..63 from t1, t2 (t0 masked); 64..95 from t1, t2. The
/// component layout always starts at 0.
const fn perm3_lo(k: usize, rows: bool, out: bool) -> usize {
    match (rows, out) {
        (true, false) => (k == 2) as usize,
        (true, true) => (k != 0) as usize,
        _ => 0,
    }
}

/// Inverse of [`perm3_in`]: output vector `k` (coefficients `32k..32k + 32`) from the three
/// transposed vectors.
const fn perm3_out(k: usize, rows: bool) -> Perm3 {
    let mut src = [(0, 0); 32];
    let mut l = 0;
    while l < 32 {
        let c = 32 * k + l;
        // position (vector, lane) of coefficient c in the transposed layout
        src[l] = if rows {
            let (blk, i) = (c / 48, c % 48);
            let row = 3 * blk + i % 3;
            (row / 2, 16 * (row % 2) + i / 3)
        } else {
            (c % 3, c / 3)
        };
        l += 1;
    }
    perm3_from(src, perm3_lo(k, rows, true))
}

const P3_ROWS_IN: [Perm3; 3] = [perm3_in(0, true), perm3_in(1, true), perm3_in(2, true)];
const P3_ROWS_OUT: [Perm3; 3] = [perm3_out(0, true), perm3_out(1, true), perm3_out(2, true)];
const P3_COMP_IN: [Perm3; 3] = [perm3_in(0, false), perm3_in(1, false), perm3_in(2, false)];
const P3_COMP_OUT: [Perm3; 3] = [
    perm3_out(0, false),
    perm3_out(1, false),
    perm3_out(2, false),
];

/// Mask of the first `k` (at most 32) 16-bit lanes.
#[inline(always)]
fn lanes_mask(k: usize) -> u32 {
    debug_assert!(k <= 32);
    (((1u64 << k) - 1) & 0xFFFF_FFFF) as u32
}

impl Avx512 {
    pub(crate) fn try_new() -> Option<Self> {
        (is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw"))
            .then_some(Self(()))
    }

    vop2! {
        lo32 => _mm512_unpacklo_epi32,
        hi32 => _mm512_unpackhi_epi32,
        lo64 => _mm512_unpacklo_epi64,
        hi64 => _mm512_unpackhi_epi64,
        shuf8 => _mm512_shuffle_epi8,
    }

    /// The first 16 lanes from `s`, the others zero.
    #[inline(always)]
    fn load16(self, s: &[i16]) -> V {
        let s = &s[..16];
        // SAFETY: the token proves AVX-512F/BW; `s` has 16 readable i16 (a plain 256-bit load,
        // which store forwarding handles better than a masked one).
        unsafe { _mm512_zextsi256_si512(_mm256_loadu_si256(s.as_ptr().cast())) }
    }
    /// Stores the first 16 lanes.
    #[inline(always)]
    fn store16(self, s: &mut [i16], v: V) {
        let s = &mut s[..16];
        // SAFETY: the token proves AVX-512F/BW; `s` has 16 writable i16.
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), _mm512_castsi512_si256(v)) }
    }
    /// [`Self::load`], or [`Self::load16`] if `half`.
    #[inline(always)]
    fn load_h(self, s: &[i16], half: bool) -> V {
        if half {
            self.load16(s)
        } else {
            self.load(s)
        }
    }
    /// [`Self::store`], or [`Self::store16`] if `half`.
    #[inline(always)]
    fn store_h(self, s: &mut [i16], v: V, half: bool) {
        if half {
            self.store16(s, v)
        } else {
            self.store(s, v)
        }
    }
    #[inline(always)]
    fn ctrl(self, c: &[i8; 64]) -> V {
        // SAFETY: the token proves AVX-512F/BW; `c` has 64 readable bytes.
        unsafe { _mm512_loadu_si512(c.as_ptr().cast()) }
    }
    #[inline(always)]
    fn lanes(self, c: &[i16; 32]) -> V {
        // SAFETY: the token proves AVX-512F/BW; `c` has 32 readable i16.
        unsafe { _mm512_loadu_si512(c.as_ptr().cast()) }
    }
    #[inline(always)]
    fn zt(self, t: &ZTab) -> (V, V) {
        (self.lanes(&t.0), self.lanes(&t.1))
    }
    #[inline(always)]
    fn shuf128<const I: i32>(self, a: V, b: V) -> V {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe { _mm512_shuffle_i64x2::<I>(a, b) }
    }
    /// `vpermt2w`: lane `l` is lane `idx[l]` of `a` (0..32) or `b` (32..64).
    #[inline(always)]
    fn permt2w(self, a: V, idx: &[i16; 32], b: V) -> V {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe { _mm512_permutex2var_epi16(a, self.lanes(idx), b) }
    }
    /// `vpermw`: lane `l` is lane `idx[l]` of `a`.
    #[inline(always)]
    fn permw(self, a: V, idx: &[i16; 32]) -> V {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe { _mm512_permutexvar_epi16(self.lanes(idx), a) }
    }
    /// `vpermt2q`: lane `l` is lane `idx[l]` of `a` (0..8) or `b` (8..16).
    #[inline(always)]
    fn permt2q(self, a: V, idx: &[usize; 8], b: V) -> V {
        let i = idx.map(|x| x as i64);
        // SAFETY: the token proves AVX-512F/BW; `i` has 8 readable i64.
        unsafe { _mm512_permutex2var_epi64(a, _mm512_loadu_si512(i.as_ptr().cast()), b) }
    }
    /// Lanes `l` of `a`, where mask bit `l` is set of `b`.
    #[inline(always)]
    fn blend(self, m: u32, a: V, b: V) -> V {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe { _mm512_mask_blend_epi16(m, a, b) }
    }
    /// Zero in the lanes of `m`.
    #[inline(always)]
    fn clear(self, m: u32, a: V) -> V {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe { _mm512_maskz_mov_epi16(!m, a) }
    }
    #[inline(always)]
    fn is_zero(self, a: V) -> u32 {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe { _mm512_cmpeq_epi16_mask(a, _mm512_setzero_si512()) }
    }
    #[inline(always)]
    fn shufps<const I: i32>(self, a: V, b: V) -> V {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe {
            _mm512_castps_si512(_mm512_shuffle_ps::<I>(
                _mm512_castsi512_ps(a),
                _mm512_castsi512_ps(b),
            ))
        }
    }
    /// Output `k` of a stride-3 transpose of `v` (see [`perm3_in`]).
    #[inline(always)]
    fn perm3(self, v: &[V; 3], p: &Perm3) -> V {
        let lo = p.lo;
        // SAFETY: the token proves AVX-512F/BW; the tables have 32 readable i16.
        unsafe {
            let idx = _mm512_loadu_si512(p.idx.as_ptr().cast());
            let idx2 = _mm512_loadu_si512(p.idx2.as_ptr().cast());
            let t = _mm512_permutex2var_epi16(v[lo], idx, v[lo + 1]);
            _mm512_mask_permutexvar_epi16(t, p.mask, idx2, v[(lo + 2) % 3])
        }
    }

    /// Rotates the lane order of the pair `(x, y)` left by `r` bits (see [`ROT`]).
    #[inline(always)]
    fn rot(self, x: V, y: V, r: usize) -> (V, V) {
        (
            self.permt2w(x, &ROT[r][0], y),
            self.permt2w(x, &ROT[r][1], y),
        )
    }

    // ---- layouts ----

    /// 32 components of degree 4 (4 vectors) to 4 rows; lane order [`soa4_component`].
    #[inline(always)]
    fn soa4(self, v: [V; 4]) -> [V; 4] {
        let c = self.ctrl(&SOA4_IN);
        let s = [
            self.shuf8(v[0], c),
            self.shuf8(v[1], c),
            self.shuf8(v[2], c),
            self.shuf8(v[3], c),
        ];
        let (x01l, x01h) = (self.lo32(s[0], s[1]), self.hi32(s[0], s[1]));
        let (x23l, x23h) = (self.lo32(s[2], s[3]), self.hi32(s[2], s[3]));
        [
            self.lo64(x01l, x23l),
            self.hi64(x01l, x23l),
            self.lo64(x01h, x23h),
            self.hi64(x01h, x23h),
        ]
    }
    #[inline(always)]
    fn aos4(self, r: [V; 4]) -> [V; 4] {
        let (x01l, x23l) = (self.lo64(r[0], r[1]), self.hi64(r[0], r[1]));
        let (x01h, x23h) = (self.lo64(r[2], r[3]), self.hi64(r[2], r[3]));
        let s = [
            self.shufps::<0b10_00_10_00>(x01l, x01h),
            self.shufps::<0b11_01_11_01>(x01l, x01h),
            self.shufps::<0b10_00_10_00>(x23l, x23h),
            self.shufps::<0b11_01_11_01>(x23l, x23h),
        ];
        let c = self.ctrl(&SOA4_OUT);
        [
            self.shuf8(s[0], c),
            self.shuf8(s[1], c),
            self.shuf8(s[2], c),
            self.shuf8(s[3], c),
        ]
    }
    /// The 4 vectors of group `g` (128 coefficients from `128 g`); past the end of `a`, the
    /// vectors are `fill`.
    #[inline(always)]
    fn load_group4(self, a: &[i16], g: usize, fill: V) -> [V; 4] {
        let mut v = [fill; 4];
        for (k, x) in v.iter_mut().enumerate() {
            let o = 128 * g + 32 * k;
            if o < a.len() {
                *x = self.load(&a[o..]);
            }
        }
        v
    }
    #[inline(always)]
    fn store_group4(self, a: &mut [i16], g: usize, v: [V; 4]) {
        for (k, x) in v.into_iter().enumerate() {
            let o = 128 * g + 32 * k;
            if o < a.len() {
                self.store(&mut a[o..], x);
            }
        }
    }
    #[inline(always)]
    fn load3(self, a: &[i16]) -> [V; 3] {
        [self.load(a), self.load(&a[32..]), self.load(&a[64..])]
    }
    #[inline(always)]
    fn store3(self, a: &mut [i16], v: [V; 3]) {
        self.store(a, v[0]);
        self.store(&mut a[32..], v[1]);
        self.store(&mut a[64..], v[2]);
    }
    /// The three outputs of a stride-3 transpose of 96 coefficients (tables `P3_*`:
    /// blocks to the NTT's rows and back, components to rows and back).
    #[inline(always)]
    fn permute3(self, t: &[Perm3; 3], v: [V; 3]) -> [V; 3] {
        [
            self.perm3(&v, &t[0]),
            self.perm3(&v, &t[1]),
            self.perm3(&v, &t[2]),
        ]
    }

    // ---- NTT ----

    /// First index of radix-3 layer `l` (top first) in the zeta table: entries 0 and 1 are
    /// `2^16` and `ζ6`, then each layer's `(ρ, ρ²)` pairs (layer `l` has `2·3^l` nodes).
    const fn r3_base(l: usize) -> usize {
        let (mut b, mut nodes, mut k) = (2, 2, 0);
        while k < l {
            b += 2 * nodes;
            nodes *= 3;
            k += 1;
        }
        b
    }

    /// One forward radix-3 layer of stride `step` (a multiple of 16), zeta pairs from `base`.
    /// Inlined with constant arguments: every loop bound, index and the 16-lane tail test are
    /// compile-time constants.
    #[inline(always)]
    fn fwd_r3<const N: usize, const ZN: usize>(
        self,
        a: &mut [i16; N],
        z: &[i16; ZN],
        step: usize,
        base: usize,
    ) {
        let om = self.zc(OMEGA_MONT);
        for (j, start) in (0..N).step_by(3 * step).enumerate() {
            let (z1, z2) = (self.zc(z[base + 2 * j]), self.zc(z[base + 2 * j + 1]));
            for i in (start..start + step).step_by(32) {
                let half = i + 32 > start + step;
                let r0 = self.load_h(&a[i..], half);
                let r1 = self.load_h(&a[i + step..], half);
                let r2 = self.load_h(&a[i + 2 * step..], half);
                let t1 = self.fqmulc(r1, z1);
                let t2 = self.fqmulc(r2, z2);
                let t3 = self.fqmulc(self.sub(t1, t2), om);
                let o2 = self.sub(self.sub(r0, t1), t3);
                let o1 = self.add(self.sub(r0, t2), t3);
                let o0 = self.add(self.add(r0, t1), t2);
                self.store_h(&mut a[i + 2 * step..], o2, half);
                self.store_h(&mut a[i + step..], o1, half);
                self.store_h(&mut a[i..], o0, half);
            }
        }
    }

    /// One inverse radix-3 layer of stride `step`: node `j` of `nodes` uses the pair at
    /// `base + 2(nodes - 1 - j)`.
    #[inline(always)]
    fn inv_r3<const N: usize, const ZN: usize>(
        self,
        a: &mut [i16; N],
        z: &[i16; ZN],
        step: usize,
        base: usize,
    ) {
        let om = self.zc(OMEGA_MONT);
        let nodes = N / (3 * step);
        for (j, start) in (0..N).step_by(3 * step).enumerate() {
            let kk = base + 2 * (nodes - 1 - j);
            let (z1, z2) = (self.zc(z[kk]), self.zc(z[kk + 1]));
            for i in (start..start + step).step_by(32) {
                let half = i + 32 > start + step;
                let r0 = self.load_h(&a[i..], half);
                let r1 = self.load_h(&a[i + step..], half);
                let r2 = self.load_h(&a[i + 2 * step..], half);
                let t1 = self.fqmulc(self.sub(r1, r0), om);
                let t2 = self.fqmulc(self.add(self.sub(r2, r0), t1), z1);
                let t3 = self.fqmulc(self.sub(self.sub(r2, r1), t1), z2);
                let o0 = self.barrett(self.add(self.add(r0, r1), r2));
                self.store_h(&mut a[i..], o0, half);
                self.store_h(&mut a[i + step..], t2, half);
                self.store_h(&mut a[i + 2 * step..], t3, half);
            }
        }
    }

    /// The layers with strides that are multiples of 16 coefficients (the trinomial split, the
    /// radix-3 layers and the radix-2 layers down to stride 32), vector to vector; a 16-lane
    /// tail (plain 256-bit moves) when a half-node is an odd number of 16-lane rows (864).
    #[inline(always)]
    fn fwd_big<const N: usize, const ZN: usize>(self, a: &mut [i16; N], z: &[i16; ZN]) {
        let h = N / 2;
        let z1 = self.zc(z[1]);
        for i in (0..h).step_by(32) {
            let half = i + 32 > h;
            let (x, y) = (self.load_h(&a[i..], half), self.load_h(&a[i + h..], half));
            self.split_store(a, i, x, y, z1, half);
        }
        self.fwd_below_split(a, z);
    }

    /// One vector pair of the trinomial split: `a[i] = x + t`, `a[i + h] = x + y - t` with
    /// `t = ζ y · 2^-16` (`z1` the first zeta and its companion).
    #[inline(always)]
    fn split_store<const N: usize>(
        self,
        a: &mut [i16; N],
        i: usize,
        x: V,
        y: V,
        z1: (V, V),
        half: bool,
    ) {
        let t1 = self.fqmulc(y, z1);
        self.store_h(&mut a[i + N / 2..], self.sub(self.add(x, y), t1), half);
        self.store_h(&mut a[i..], self.add(x, t1), half);
    }

    /// [`Self::fwd_big`]'s trinomial split with the range check of `ntt` in it: every input
    /// must lie in `(-q, q)`, else the result is `false` and `a` is as it was. The upper half
    /// (the `y` inputs, at most 18 vectors) is loaded, checked and kept in registers; the
    /// lower half is checked as the split runs. A bad value there is found after the stores,
    /// and the split is undone exactly: `x' = x + t` with `t = ζ y · 2^-16` wraps in 16 bits
    /// like `x' - t` does, and `y` is still in registers. Saves the separate pass of
    /// [`Lanes16::in_range`] (864 forward in `latpoly bench`: 139 -> 134 ns).
    #[inline(always)]
    fn fwd_split_checked<const N: usize, const ZN: usize>(
        self,
        a: &mut [i16; N],
        z: &[i16; ZN],
    ) -> bool {
        const MAXV: usize = 18; // 1152 / 2 / 32
        let h = N / 2;
        let nv = h.div_ceil(32);
        debug_assert!(nv <= MAXV);
        let z1 = self.zc(z[1]);
        // v in (-q, q) <=> (v + q - 1) as u16 <= 2q - 2 (zero lanes of a half vector pass)
        let off = self.splat(Q as i16 - 1);
        let lim = 2 * Q as i16 - 2;
        let mut yv = [self.zero(); MAXV];
        let mut m = self.zero();
        unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17] {
            if j < nv {
                let i = 32 * j;
                yv[j] = self.load_h(&a[i + h..], i + 32 > h);
                m = self.max_u16(m, self.add(yv[j], off));
            }
        });
        if !self.all_le_u16(m, lim) {
            return false;
        }
        unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17] {
            if j < nv {
                let (i, half) = (32 * j, 32 * j + 32 > h);
                let x = self.load_h(&a[i..], half);
                m = self.max_u16(m, self.add(x, off));
                self.split_store(a, i, x, yv[j], z1, half);
            }
        });
        if self.all_le_u16(m, lim) {
            return true;
        }
        // cold: undo the split
        unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17] {
            if j < nv {
                let (i, half) = (32 * j, 32 * j + 32 > h);
                let t1 = self.fqmulc(yv[j], z1);
                let x = self.sub(self.load_h(&a[i..], half), t1);
                self.store_h(&mut a[i..], x, half);
                self.store_h(&mut a[i + h..], yv[j], half);
            }
        });
        false
    }

    /// The layers of [`Self::fwd_big`] after the trinomial split.
    #[inline(always)]
    fn fwd_below_split<const N: usize, const ZN: usize>(self, a: &mut [i16; N], z: &[i16; ZN]) {
        let s = shape(N);
        // at most two radix-3 layers, at most two radix-2 layers of stride >= 32 (768: 64, 32).
        // Bounds (no reductions here): < 3q after the split, each radix-3 layer adds < 2q,
        // each radix-2 layer < q: < 9q = 31113 < 2^15 before the in-register layers
        // (576: 7q, 768: 7q, 1152: 8q)
        self.fwd_r3(a, z, N / 6, Self::r3_base(0));
        if s.r3 == 2 {
            self.fwd_r3(a, z, N / 18, Self::r3_base(1));
        }
        if s.d == 4 && s.block() / 2 >= 64 {
            self.fwd_r2(a, z, 64);
        }
        if s.d == 4 && s.block() / 2 >= 32 {
            self.fwd_r2(a, z, 32);
        }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn ntt_tf<const N: usize, const ZN: usize>(self, a: &mut [i16; N], z: &[i16; ZN], t: &Tables) {
        self.fwd_big(a, z);
        self.fwd_small(a, t);
    }

    /// [`Self::ntt_tf`] with the range check fused into the first layer
    /// ([`Self::fwd_split_checked`]): `false`, with `a` unchanged, on a value outside
    /// `(-q, q)`.
    #[target_feature(enable = "avx512f,avx512bw")]
    fn ntt_checked_tf<const N: usize, const ZN: usize>(
        self,
        a: &mut [i16; N],
        z: &[i16; ZN],
        t: &Tables,
    ) -> bool {
        if !self.fwd_split_checked(a, z) {
            return false;
        }
        self.fwd_below_split(a, z);
        self.fwd_small(a, t);
        true
    }

    /// The forward layers inside the blocks, after [`Self::fwd_big`].
    #[inline(always)]
    fn fwd_small<const N: usize>(self, a: &mut [i16; N], t: &Tables) {
        if shape(N).d == 3 {
            // the big strides are blind to the order inside the 48-blocks: they run on the
            // coefficient order, and the in-row pass transposes in registers on its way
            self.rows3_pass::<N, true>(a, t);
        } else if (N / 64).is_multiple_of(6) {
            self.fwd_pairs4::<N, 6>(a, t);
        } else {
            self.fwd_pairs4::<N, 3>(a, t);
        }
    }

    /// The in-block layers of 864 (`d = 3`: strides 24, 12, 6, 3) in one pass over `a`, in
    /// coefficient order: [`ROWS3_GROUPS`] 96-coefficient groups at a time are transposed to
    /// rows in registers ([`P3_ROWS_IN`]), run as vector pairs (four rows each, see [`ROT`];
    /// a group count that is odd pads the last pair with a zero vector, whose twiddles are 0),
    /// transposed back ([`P3_ROWS_OUT`]) and stored. Forward (`FWD`), lazy: < 7q after the
    /// radix-3 layers, stride 8 adds < q, the lower operands are Barrett-reduced before stride
    /// 4, strides 4 and 2 add < 2q, stride 1 ends with the reference's Barrett step. Inverse:
    /// the sums of strides 1 and 2 stay below 4q, stride 4 reduces them, the stride-8 sums stay
    /// below 2q (the inverse radix-3 layers take that).
    #[inline(always)]
    fn rows3_pass<const N: usize, const FWD: bool>(self, a: &mut [i16; N], t: &Tables) {
        let groups = N / 96;
        let mut g0 = 0;
        while g0 + ROWS3_GROUPS <= groups {
            self.rows3_chunk::<N, ROWS3_GROUPS, FWD>(a, g0, t);
            g0 += ROWS3_GROUPS;
        }
        // 864 (the only set with d = 3): nine groups, so one left over
        debug_assert_eq!(groups - g0, 1);
        self.rows3_chunk::<N, 1, FWD>(a, g0, t);
    }

    /// [`Self::rows3_pass`] on the `G` groups from `g0` (`G <= ROWS3_GROUPS`): `3G` row
    /// vectors, `ceil(3G / 2)` pairs side by side (the `unroll!` lists spell `0..ROWS3_GROUPS`
    /// and `0..3 * ROWS3_GROUPS / 2`; rolled loops kept the pairs on the stack).
    #[inline(always)]
    fn rows3_chunk<const N: usize, const G: usize, const FWD: bool>(
        self,
        a: &mut [i16; N],
        g0: usize,
        t: &Tables,
    ) {
        const _: () = assert!(ROWS3_GROUPS == 4);
        let pairs = (3 * G).div_ceil(2);
        let mut r = [self.zero(); 3 * ROWS3_GROUPS];
        unroll!(g in [0, 1, 2, 3] {
            if g < G {
                let v = self.permute3(&P3_ROWS_IN, self.load3(&a[96 * (g0 + g)..]));
                r[3 * g..3 * g + 3].copy_from_slice(&v);
            }
        });
        // pair j of the chunk is pair p0 + j of the transform (twiddle tables per pair)
        let p0 = 3 * g0 / 2;
        let (mut x, mut y) = ([self.zero(); 6], [self.zero(); 6]);
        if FWD {
            let f = &t.f3[p0..p0 + pairs];
            unroll!(j in [0, 1, 2, 3, 4, 5] {
                if j < pairs {
                    (x[j], y[j]) = self.rot(r[2 * j], r[2 * j + 1], 2);
                    (x[j], y[j]) = self.fwd_bf_lazy(x[j], y[j], self.zt(&f[j][0]));
                }
            });
            unroll!(j in [0, 1, 2, 3, 4, 5] {
                if j < pairs {
                    (x[j], y[j]) = self.rot(x[j], y[j], 1);
                    let xr = self.barrett(x[j]);
                    (x[j], y[j]) = self.fwd_bf_lazy(xr, y[j], self.zt(&f[j][1]));
                }
            });
            unroll!(j in [0, 1, 2, 3, 4, 5] {
                if j < pairs {
                    (x[j], y[j]) = self.rot(x[j], y[j], 1);
                    (x[j], y[j]) = self.fwd_bf_lazy(x[j], y[j], self.zt(&f[j][2]));
                }
            });
            unroll!(j in [0, 1, 2, 3, 4, 5] {
                if j < pairs {
                    (x[j], y[j]) = self.rot(x[j], y[j], 1);
                    (x[j], y[j]) = self.fwd_bf(x[j], y[j], self.zt(&f[j][3]));
                    (r[2 * j], r[2 * j + 1]) = self.rot(x[j], y[j], 1);
                }
            });
        } else {
            let f = &t.i3[p0..p0 + pairs];
            unroll!(j in [0, 1, 2, 3, 4, 5] {
                if j < pairs {
                    (x[j], y[j]) = self.rot(r[2 * j], r[2 * j + 1], 5);
                    (x[j], y[j]) = self.inv_bf_lazy(x[j], y[j], self.zt(&f[j][0]));
                }
            });
            unroll!(j in [0, 1, 2, 3, 4, 5] {
                if j < pairs {
                    (x[j], y[j]) = self.rot(x[j], y[j], 5);
                    (x[j], y[j]) = self.inv_bf_lazy(x[j], y[j], self.zt(&f[j][1]));
                }
            });
            unroll!(j in [0, 1, 2, 3, 4, 5] {
                if j < pairs {
                    (x[j], y[j]) = self.rot(x[j], y[j], 5);
                    (x[j], y[j]) = self.inv_bf(x[j], y[j], self.zt(&f[j][2]));
                }
            });
            unroll!(j in [0, 1, 2, 3, 4, 5] {
                if j < pairs {
                    (x[j], y[j]) = self.rot(x[j], y[j], 5);
                    (x[j], y[j]) = self.inv_bf_lazy(x[j], y[j], self.zt(&f[j][3]));
                    (r[2 * j], r[2 * j + 1]) = self.rot(x[j], y[j], 4);
                }
            });
        }
        unroll!(g in [0, 1, 2, 3] {
            if g < G {
                let v = [r[3 * g], r[3 * g + 1], r[3 * g + 2]];
                self.store3(&mut a[96 * (g0 + g)..], self.permute3(&P3_ROWS_OUT, v));
            }
        });
    }

    /// The forward layers of strides 16, 8, 4 (`d = 4`) on vector pairs, `K` pairs side by
    /// side (one pair is a long dependency chain; independent pairs in flight hide its
    /// latency). `K` divides `N / 64`: 6 for 768 and 1152, 3 for 576 (9 pairs). Against 3, 6
    /// measured on Zen 5 forward 768 86-87 -> 78-79 ns, 1152 138-141 -> 126-127, inverse 768
    /// 94-96 -> 91-92, 1152 142-144 -> 135-136; 9 was no faster than 3 for 576 and 1152.
    #[inline(always)]
    fn fwd_pairs4<const N: usize, const K: usize>(self, a: &mut [i16; N], t: &Tables) {
        debug_assert_eq!((N / 64) % K, 0);
        let n = N;
        for (o, tw) in (0..n).step_by(64 * K).zip(t.fwd.chunks_exact(K)) {
            let mut x = [self.zero(); K];
            let mut y = x;
            for j in 0..K {
                let (va, vb) = (
                    self.load(&a[o + 64 * j..]),
                    self.load(&a[o + 64 * j + 32..]),
                );
                x[j] = self.shuf128::<0x44>(va, vb);
                y[j] = self.shuf128::<0xEE>(va, vb);
            }
            // lazy: |x| < 9q here (see `fwd_big`); stride 16 adds < q, the Barrett step on
            // the stride-8 inputs x brings them to (q+1)/2, strides 8 and 4 add < 2q, and the
            // final Barrett step gives the reference's output range
            for j in 0..K {
                (x[j], y[j]) = self.fwd_bf_lazy(x[j], y[j], self.zt(&tw[j][0]));
            }
            for j in 0..K {
                (x[j], y[j]) = (
                    self.shuf128::<0x88>(x[j], y[j]),
                    self.shuf128::<0xDD>(x[j], y[j]),
                );
                let xr = self.barrett(x[j]);
                (x[j], y[j]) = self.fwd_bf_lazy(xr, y[j], self.zt(&tw[j][1]));
            }
            for j in 0..K {
                (x[j], y[j]) = (self.lo64(x[j], y[j]), self.hi64(x[j], y[j]));
                (x[j], y[j]) = self.fwd_bf(x[j], y[j], self.zt(&tw[j][2]));
            }
            for j in 0..K {
                self.store(&mut a[o + 64 * j..], self.permt2q(x[j], &FWD_OUT_A, y[j]));
                self.store(
                    &mut a[o + 64 * j + 32..],
                    self.permt2q(x[j], &FWD_OUT_B, y[j]),
                );
            }
        }
    }

    /// The inverse layers of strides 4, 8, 16 (`d = 4`) on vector pairs, `K` pairs side by
    /// side, as [`Self::fwd_pairs4`].
    #[inline(always)]
    fn inv_pairs4<const N: usize, const K: usize>(self, a: &mut [i16; N], t: &Tables) {
        debug_assert_eq!((N / 64) % K, 0);
        let n = N;
        for (o, tw) in (0..n).step_by(64 * K).zip(t.inv.chunks_exact(K)) {
            let mut x = [self.zero(); K];
            let mut y = x;
            for j in 0..K {
                let va = self.load(&a[o + 64 * j..]);
                let vb = self.load(&a[o + 64 * j + 32..]);
                x[j] = self.permt2q(va, &INV_IN_X, vb);
                y[j] = self.permt2q(va, &INV_IN_Y, vb);
            }
            // lazy: inputs in (-q, q); the sums of strides 4 and 8 stay below 4q, the
            // stride-16 sums are Barrett-reduced (the reference's bounds from there on)
            for j in 0..K {
                (x[j], y[j]) = self.inv_bf_lazy(x[j], y[j], self.zt(&tw[j][0]));
            }
            for j in 0..K {
                (x[j], y[j]) = (self.lo64(x[j], y[j]), self.hi64(x[j], y[j]));
                (x[j], y[j]) = self.inv_bf_lazy(x[j], y[j], self.zt(&tw[j][1]));
            }
            for j in 0..K {
                (x[j], y[j]) = (
                    self.shuf128::<0x88>(x[j], y[j]),
                    self.shuf128::<0xDD>(x[j], y[j]),
                );
                (x[j], y[j]) = self.inv_bf(x[j], y[j], self.zt(&tw[j][2]));
            }
            for j in 0..K {
                self.store(&mut a[o + 64 * j..], self.permt2q(x[j], &INV_OUT_A, y[j]));
                self.store(
                    &mut a[o + 64 * j + 32..],
                    self.permt2q(x[j], &INV_OUT_B, y[j]),
                );
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn invntt_tf<const N: usize, const ZN: usize>(
        self,
        a: &mut [i16; N],
        z: &[i16; ZN],
        t: &Tables,
    ) {
        let s = &shape(N);
        let n = N;
        if s.d == 3 {
            self.rows3_pass::<N, false>(a, t);
        } else {
            if (N / 64).is_multiple_of(6) {
                self.inv_pairs4::<N, 6>(a, t);
            } else {
                self.inv_pairs4::<N, 3>(a, t);
            }
            if s.block() / 2 >= 32 {
                self.inv_r2(a, z, 32);
            }
            if s.block() / 2 >= 64 {
                self.inv_r2(a, z, 64);
            }
        }
        // radix-3 layers, bottom first
        if s.r3 == 2 {
            self.inv_r3(a, z, N / 18, Self::r3_base(1));
        }
        self.inv_r3(a, z, N / 6, Self::r3_base(0));
        let (csq, ca, cb) = tables::inv_consts_of(s.n);
        let (csq, ca, cb) = (self.zc(csq), self.zc(ca), self.zc(cb));
        let h = n / 2;
        let mut i = 0;
        while i < h {
            let half = i + 32 > h;
            let (x, y) = (self.load_h(&a[i..], half), self.load_h(&a[i + h..], half));
            let t1 = self.add(x, y);
            let t2 = self.fqmulc(self.sub(x, y), csq);
            let (x, y) = (self.fqmulc(self.sub(t1, t2), ca), self.fqmulc(t2, cb));
            self.store_h(&mut a[i + h..], y, half);
            self.store_h(&mut a[i..], x, half);
            i += 32;
        }
    }

    // ---- base rings ----

    /// `packs32(mred32(sl), mred32(sh))` (values in `(-q, q)`, no saturation) in 16-bit lanes:
    /// [`Self::mred_gather`] in the order `packs32` produces.
    #[inline(always)]
    fn mred_pack(self, sl: V, sh: V) -> V {
        self.mred_gather(sl, sh, &PACK_LO, &PACK_HI)
    }

    /// One Montgomery reduction per 32-bit sum of `sl`, `sh` into 16-bit lanes: the low and
    /// high halves of the sums gathered into one vector each (`vpermt2w` by `lo_idx`, `hi_idx`,
    /// which pick the same sums), then `hi - mulhi(lo · QINV, q)`, which is exact because the
    /// low halves of `s` and `m·q` are equal.
    #[inline(always)]
    fn mred_gather(self, sl: V, sh: V, lo_idx: &[i16; 32], hi_idx: &[i16; 32]) -> V {
        let lo = self.permt2w(sl, lo_idx, sh);
        let hi = self.permt2w(sl, hi_idx, sh);
        let m = self.mullo(lo, self.splat(QINV as i16));
        self.sub(hi, self.mulhi(m, self.splat(Q as i16)))
    }

    /// Base products of the 8 components (4 coefficients each) of one vector, in coefficient
    /// order: no transposes. `ζ·b` in every word (one Montgomery product), four word
    /// permutations of `(b, ζ·b)` and four `vpmaddwd` give the four 32-bit sums of every
    /// component, one Montgomery reduction per output: `c = a·b·2^-16` in `(-q, q)` (each sum
    /// is at most `4(q-1)^2 < q·2^15` in absolute value), the same values as
    /// [`Lanes16::basemul4_rows`].
    #[inline(always)]
    fn basemul4_aos(self, a: V, b: V, zz: (V, V)) -> V {
        let bz = self.fqmulc(b, zz);
        // a with the two 32-bit halves of every quadword swapped (`vpshufd`, which issues
        // beside the products, where a rotation would compete with them)
        // SAFETY: the token proves AVX-512F.
        let ar = unsafe { _mm512_shuffle_epi32::<0b10_11_00_01>(a) };
        let s01 = self.add32(
            self.madd(a, self.permt2w(b, &GAMMA01, bz)),
            self.madd(ar, self.permt2w(b, &GAMMA01_R, bz)),
        );
        let s23 = self.add32(
            self.madd(a, self.permt2w(b, &GAMMA23, bz)),
            self.madd(ar, self.permt2w(b, &GAMMA23_R, bz)),
        );
        self.mred_gather(s01, s23, &PACK_AOS_LO, &PACK_AOS_HI)
    }

    /// Base products of the 10 components (3 coefficients each, lanes `0..30`) of one vector,
    /// in coefficient order: `ζ·b` in every word (zero in lanes 30, 31, whose zeta is 0), two
    /// word permutations of `a` and two of `(b, ζ·b)` per half ([`AOS3_X`], [`AOS3_Y`]), two
    /// `vpmaddwd` per half and one Montgomery reduction per output: `c = a·b·2^-16` in
    /// `(-q, q)` (each sum is at most `3(q-1)^2 < q·2^15` in absolute value), the same values
    /// as [`Lanes16::basemul3_rows`]. Lanes 30, 31 of the result are garbage.
    #[inline(always)]
    fn basemul3_aos(self, a: V, b: V, zz: (V, V)) -> V {
        let bz = self.fqmulc(b, zz);
        self.mred_gather(
            self.basemul3_half(a, b, bz, 0),
            self.basemul3_half(a, b, bz, 1),
            &PACK_AOS3_LO,
            &PACK_AOS3_HI,
        )
    }
    /// The 32-bit sums of half `h` of [`Self::basemul3_aos`].
    #[inline(always)]
    fn basemul3_half(self, a: V, b: V, bz: V, h: usize) -> V {
        let (x1, x2) = (
            self.permw(a, &AOS3_X[2 * h]),
            self.permw(a, &AOS3_X[2 * h + 1]),
        );
        let (y1, y2) = (
            self.permt2w(b, &AOS3_Y[2 * h], bz),
            self.permt2w(b, &AOS3_Y[2 * h + 1], bz),
        );
        self.add32(self.madd(x1, y1), self.madd(x2, y2))
    }

    /// The first `k` lanes from `s`, the others zero (`s` needs only `k` values).
    #[inline(always)]
    fn load_k(self, s: &[i16], k: usize) -> V {
        let s = &s[..k.min(32)];
        // SAFETY: the token proves AVX-512F/BW; the mask selects the `s.len()` readable lanes,
        // and masked-off lanes are not accessed.
        unsafe { _mm512_maskz_loadu_epi16(lanes_mask(s.len()), s.as_ptr().cast()) }
    }
    /// Stores the first `k` lanes into `s` (`s` needs only `k` values).
    #[inline(always)]
    fn store_k(self, s: &mut [i16], k: usize, v: V) {
        let s = &mut s[..k.min(32)];
        // SAFETY: as in `load_k`, for writes.
        unsafe { _mm512_mask_storeu_epi16(s.as_mut_ptr().cast(), lanes_mask(s.len()), v) }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn basemul_tf<const N: usize>(self, c: &mut [i16; N], a: &[i16; N], b: &[i16; N], t: &Tables) {
        let s = &shape(N);
        if s.d == 4 {
            for (v, zt) in t.base_aos.iter().enumerate() {
                let o = 32 * v;
                let r = self.basemul4_aos(self.load(&a[o..]), self.load(&b[o..]), self.zt(zt));
                self.store(&mut c[o..], r);
            }
        } else {
            for (v, zt) in t.base_aos.iter().enumerate() {
                let o = 3 * AOS3_COMPS * v;
                if o + 32 <= N {
                    // full loads: lanes 30, 31 (the next vector's) meet zeros of ζ·b, and the
                    // next store overwrites the two garbage lanes of this one
                    let r = self.basemul3_aos(self.load(&a[o..]), self.load(&b[o..]), self.zt(zt));
                    self.store(&mut c[o..], r);
                } else {
                    let k = N - o;
                    let r = self.basemul3_aos(
                        self.load_k(&a[o..], k),
                        self.load_k(&b[o..], k),
                        self.zt(zt),
                    );
                    self.store_k(&mut c[o..], k, r);
                }
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn baseinv_tf<const N: usize>(self, r: &mut [i16; N], a: &[i16; N], t: &Tables) -> bool {
        let s = &shape(N);
        const G: usize = 9; // at most 1152/128 = 864/96 = 9 groups
        let d = s.d;
        let groups = t.base.len();
        let zero = self.zero();
        let mont = self.splat(MONT);
        // padding components (576's last group) are the Montgomery one: invertible
        let one4 = self.blend(0x1111_1111, zero, mont);
        let mut state = InvStates::<V, G>::new();
        let mut zmask = [0u32; G];
        let mut anyzero = 0u32;
        let mut acc = mont;
        for g in 0..groups {
            let zz = self.zt(&t.base[g]);
            let (rows, tv, nz);
            if d == 4 {
                rows = self.soa4(self.load_group4(a, g, one4));
                (tv, nz) = self.inv4_stage1(&rows, zz);
            } else {
                let x = self.permute3(&P3_COMP_IN, self.load3(&a[96 * g..]));
                rows = [x[0], x[1], x[2], zero];
                (tv, nz) = self.inv3_stage1(&rows, zz);
            }
            // exact zero test: the Barrett output is 0 iff the norm is 0 mod q
            let zm = self.is_zero(nz);
            anyzero |= zm;
            zmask[g] = zm;
            let norm = self.blend(zm, nz, mont);
            acc = self.fqmul(acc, norm);
            state.push(rows, tv, norm, acc);
        }
        let mut inv = self.fqinv(acc);
        for g in (0..groups).rev() {
            let st = state.take(g);
            let before = if g == 0 { mont } else { state.get(g - 1).pre };
            let u = self.fqmul(inv, before);
            inv = self.fqmul(inv, st.norm);
            let zz = self.zt(&t.base[g]);
            let (x, tv) = (st.rows, st.tv);
            let zm = zmask[g];
            if d == 4 {
                let o = self.inv4_stage2(&x, &tv, u, zz);
                let o = [
                    self.clear(zm, o[0]),
                    self.clear(zm, o[1]),
                    self.clear(zm, o[2]),
                    self.clear(zm, o[3]),
                ];
                self.store_group4(r, g, self.aos4(o));
            } else {
                let o = self.inv3_stage2(&tv, u);
                let o = [
                    self.clear(zm, o[0]),
                    self.clear(zm, o[1]),
                    self.clear(zm, o[2]),
                ];
                self.store3(&mut r[96 * g..], self.permute3(&P3_COMP_OUT, o));
            }
        }
        state.finish();
        anyzero == 0
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn in_range_tf(self, a: &[i16]) -> bool {
        Lanes16::in_range(self, a)
    }

    // The byte codecs: CBD1 and Encodeq / Decodeq in registers (x86.rs, AVX2: the rows of a
    // block are 16 words), checked against the generic code of `encode.rs`.
    #[target_feature(enable = "avx512f,avx512bw")]
    fn cbd1_tf(self, f: &mut [i16], bytes: &[u8], n: usize) {
        // 16-word rows fill 256-bit registers: the AVX2 code (AVX-512F implies AVX2)
        super::x86::cbd1_avx2(f, bytes, n)
    }
    #[target_feature(enable = "avx512f,avx512bw")]
    fn encodeq_tf(self, out: &mut [u8], a: &[i16], n: usize) {
        // rows of 16 words fill 256-bit registers, as for CBD1
        super::x86::encodeq_avx2(out, a, n)
    }
    #[target_feature(enable = "avx512f,avx512bw")]
    fn decodeq_reduced_tf(self, f: &mut [i16], bytes: &[u8], n: usize) -> bool {
        super::x86::decodeq_reduced_avx2(f, bytes, n)
    }

    // ---- entry points ----

    pub(crate) fn cbd1_into(self, f: &mut [i16], bytes: &[u8], n: usize) {
        // SAFETY: the token exists only if the CPU runs AVX-512F/BW.
        unsafe { self.cbd1_tf(f, bytes, n) }
    }
    pub(crate) fn encodeq_into(self, out: &mut [u8], a: &[i16], n: usize) {
        // SAFETY: the token exists only if the CPU runs AVX-512F/BW.
        unsafe { self.encodeq_tf(out, a, n) }
    }
    pub(crate) fn decodeq_reduced_into(self, f: &mut [i16], bytes: &[u8], n: usize) -> bool {
        // SAFETY: the token exists only if the CPU runs AVX-512F/BW.
        unsafe { self.decodeq_reduced_tf(f, bytes, n) }
    }
    pub(crate) fn in_range(self, a: &[i16]) -> bool {
        // SAFETY: the token exists only if the CPU runs AVX-512F/BW.
        unsafe { self.in_range_tf(a) }
    }

    pub(crate) fn ntt(self, a: &mut [i16], p: NtruPlusParams) {
        match_set!(p, a, |a, z, t| {
            // SAFETY: the token exists only if the CPU runs AVX-512F/BW.
            unsafe { self.ntt_tf(a, z, t) }
        });
    }
    /// [`Self::ntt`] of an unchecked input: `false`, with `a` unchanged, when a value lies
    /// outside `(-q, q)`.
    pub(crate) fn ntt_checked(self, a: &mut [i16], p: NtruPlusParams) -> bool {
        let mut ok = false;
        match_set!(p, a, |a, z, t| {
            // SAFETY: the token exists only if the CPU runs AVX-512F/BW.
            ok = unsafe { self.ntt_checked_tf(a, z, t) };
        });
        ok
    }
    pub(crate) fn invntt(self, a: &mut [i16], p: NtruPlusParams) {
        match_set!(p, a, |a, z, t| {
            // SAFETY: the token exists only if the CPU runs AVX-512F/BW.
            unsafe { self.invntt_tf(a, z, t) }
        });
    }
    pub(crate) fn basemul(self, c: &mut [i16], a: &[i16], b: &[i16], p: NtruPlusParams) {
        match_set!(p, c, |c, _z, t| {
            if let (Ok(a), Ok(b)) = (a.try_into(), b.try_into()) {
                // SAFETY: the token exists only if the CPU runs AVX-512F/BW.
                unsafe { self.basemul_tf(c, a, b, t) }
            }
        });
    }
    pub(crate) fn baseinv(self, r: &mut [i16], a: &[i16], p: NtruPlusParams) -> bool {
        let mut ok = false;
        match_set!(p, r, |r, _z, t| {
            if let Ok(a) = a.try_into() {
                // SAFETY: the token exists only if the CPU runs AVX-512F/BW.
                ok = unsafe { self.baseinv_tf(r, a, t) };
            }
        });
        ok
    }
}

impl Lanes16 for Avx512 {
    type V = V;
    const LANES: usize = 32;
    #[inline(always)]
    fn load(self, s: &[i16]) -> V {
        let s = &s[..32];
        // SAFETY: the token proves AVX-512F/BW; `s` has 32 readable i16.
        unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, s: &mut [i16], v: V) {
        let s = &mut s[..32];
        // SAFETY: the token proves AVX-512F/BW; `s` has 32 writable i16.
        unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn max_u16(self, a: V, b: V) -> V {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe { _mm512_max_epu16(a, b) }
    }
    #[inline(always)]
    fn all_le_u16(self, a: V, lim: i16) -> bool {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe { _mm512_cmpgt_epu16_mask(a, self.splat(lim)) == 0 }
    }

    vop2! {
        add => _mm512_add_epi16,
        sub => _mm512_sub_epi16,
        mullo => _mm512_mullo_epi16,
        mulhi => mulhi_epi16_512,
        lo16 => _mm512_unpacklo_epi16,
        hi16 => _mm512_unpackhi_epi16,
    }

    #[inline(always)]
    fn splat(self, x: i16) -> V {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe { _mm512_set1_epi16(x) }
    }
    #[inline(always)]
    fn zero(self) -> V {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    fn srai10(self, a: V) -> V {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe { _mm512_srai_epi16::<10>(a) }
    }
    vop2! {
        madd => _mm512_madd_epi16,
        add32 => _mm512_add_epi32,
    }
    /// In 16-bit lanes ([`Avx512::mred_pack`]).
    #[inline(always)]
    fn mred_pair(self, sl: V, sh: V) -> V {
        self.mred_pack(sl, sh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_maps_pair_every_lane_with_its_partner() {
        for o in [0, 64, 512] {
            let (f, i) = pair_maps(o);
            for ((x, y), st) in f.iter().zip([16, 8, 4]) {
                assert!((0..32).all(|l| y[l] == x[l] + st && (x[l] - o) % (2 * st) < st));
            }
            for ((x, y), st) in i.iter().zip([4, 8, 16]) {
                assert!((0..32).all(|l| y[l] == x[l] + st && (x[l] - o) % (2 * st) < st));
            }
            // the final permutations restore natural order
            let (x, y) = (&f[2].0, &f[2].1);
            let a = map_permt2q(x, y, FWD_OUT_A);
            let b = map_permt2q(x, y, FWD_OUT_B);
            assert!((0..32).all(|l| a[l] == o + l && b[l] == o + 32 + l));
            let (x, y) = (&i[2].0, &i[2].1);
            let a = map_permt2q(x, y, INV_OUT_A);
            let b = map_permt2q(x, y, INV_OUT_B);
            assert!((0..32).all(|l| a[l] == o + l && b[l] == o + 32 + l));
        }
    }

    /// The pair rotations of the 864 in-row layers: before forward layer `s` (inverse layer
    /// `s`), lane `j` of `X` and lane `j` of `Y` hold indices differing exactly in bit `3 - s`
    /// (bit `s`), the lower one in `X`; the sequences end in natural order.
    #[test]
    fn pair_rotations_pair_every_lane_with_its_partner() {
        let apply = |v: &[usize; 64], r: usize| -> [usize; 64] {
            let mut out = [0; 64];
            for h in 0..2 {
                for k in 0..32 {
                    out[32 * h + k] = v[ROT[r][h][k] as usize];
                }
            }
            out
        };
        let check = |v: &[usize; 64], bit: usize| {
            for j in 0..32 {
                assert_eq!(v[j] ^ v[j + 32], 1 << bit);
                assert_eq!(v[j] & (1 << bit), 0);
            }
        };
        let natural: [usize; 64] = core::array::from_fn(|i| i);
        let mut v = apply(&natural, 2);
        for s in 0..4 {
            check(&v, 3 - s);
            assert!((0..64).all(|j| v[j] == rotr6(j, 2 + s)));
            v = apply(&v, 1);
        }
        assert_eq!(v, natural);
        let mut v = natural;
        for s in 0..4 {
            v = apply(&v, 5);
            check(&v, s);
            assert!((0..64).all(|j| v[j] == rotr6(j, 5 - s)));
        }
        assert_eq!(apply(&v, 4), natural);
    }

    /// The `d = 3` coefficient-order tables, applied to integers (`ζ·b` exact, no Montgomery
    /// factor): every output is the product in `Z[x]/(x^3 - ζ)` of its component, lanes 30
    /// and 31 contribute nothing, and the pack tables put output `p` in lane `p`.
    #[test]
    fn aos3_tables_compute_the_base_products() {
        // hashed values: linear ones collide (ζ_0·b_2 == b_8 for some choices), which let a
        // wrong table entry through
        let hash = |x: usize, salt: usize| ((x * 2654435761 + salt * 40503) % 2001) as i64 - 1000;
        let a: [i64; 32] = core::array::from_fn(|l| if l < 30 { hash(l, 1) } else { 5000 });
        let b: [i64; 32] = core::array::from_fn(|l| if l < 30 { hash(l, 2) } else { -4999 });
        let zeta = |m: usize| hash(m, 3);
        // ζ·b in every lane, zero where the zeta table is zero (lanes 30, 31)
        let bz: [i64; 32] = core::array::from_fn(|l| if l < 30 { zeta(l / 3) * b[l] } else { 0 });
        let pick = |i: i16| {
            if i < 32 {
                b[i as usize]
            } else {
                bz[i as usize - 32]
            }
        };
        let mut sums = [[0i64; 16]; 2];
        for (h, s) in sums.iter_mut().enumerate() {
            for (j, sj) in s.iter_mut().enumerate() {
                *sj = (0..2)
                    .map(|t| {
                        let (x, y) = (&AOS3_X[2 * h + t], &AOS3_Y[2 * h + t]);
                        a[x[2 * j] as usize] * pick(y[2 * j])
                            + a[x[2 * j + 1] as usize] * pick(y[2 * j + 1])
                    })
                    .sum();
            }
            assert_eq!(s[15], 0);
        }
        for p in 0..30 {
            let (m, k) = (p / 3, p % 3);
            let mut want = 0;
            for i in 0..3 {
                for j in 0..3 {
                    let t = a[3 * m + i] * b[3 * m + j];
                    if i + j == k {
                        want += t;
                    } else if i + j == k + 3 {
                        want += zeta(m) * t;
                    }
                }
            }
            for (idx, h) in [(&PACK_AOS3_LO, 0), (&PACK_AOS3_HI, 1)] {
                let w = idx[p] as usize;
                assert_eq!((w % 2, w / 32), (h, p / 15));
                assert_eq!(sums[w / 32][w % 32 / 2], want, "output {p}");
            }
        }
    }

    #[test]
    fn stride3_transposes_are_inverse() {
        for rows in [true, false] {
            let fwd = |k: usize| perm3_in(k, rows);
            // apply the index tables to coefficient numbers
            let src: [Lanes; 3] = core::array::from_fn(|v| core::array::from_fn(|l| 32 * v + l));
            let apply = |v: &[Lanes; 3], p: &Perm3, lo: usize| -> Lanes {
                core::array::from_fn(|l| {
                    if p.mask >> l & 1 == 1 {
                        v[(lo + 2) % 3][p.idx2[l] as usize]
                    } else {
                        let i = p.idx[l] as usize;
                        v[lo + i / 32][i % 32]
                    }
                })
            };
            let t: [Lanes; 3] =
                core::array::from_fn(|k| apply(&src, &fwd(k), perm3_lo(k, rows, false)));
            for (k, tk) in t.iter().enumerate() {
                for (l, &c) in tk.iter().enumerate() {
                    let want = if rows {
                        let row = 2 * k + l / 16;
                        48 * (row / 3) + 3 * (l % 16) + row % 3
                    } else {
                        3 * l + k
                    };
                    assert_eq!(c, want);
                }
            }
            let back: [Lanes; 3] =
                core::array::from_fn(|k| apply(&t, &perm3_out(k, rows), perm3_lo(k, rows, true)));
            assert_eq!(back, src);
        }
    }
}
