//! AVX2 fast path for NTRU+, 16 x i16 lanes.
//!
//! * `ntt` / `invntt` perform the scalar reference's Montgomery steps but only the Barrett
//!   steps the bounds need, on the schedule of the AVX-512 path (values stay below
//!   `9q < 2^15`): outputs are the **same values mod q** in the reference's output ranges,
//!   not always the same representatives. Kernels are compiled once per parameter set (the
//!   length is a constant). Strides `>= 32` are vector-to-vector; the last three radix-2 layers
//!   of the `d = 4` sets (strides 16, 8, 4) run on vector pairs in registers, one memory pass,
//!   two pairs side by side (each pair is one long dependent chain); for 864 (`d = 3`, strides
//!   24/12/6/3) every 48-coefficient block is transposed to 3 rows of 16 components (forward:
//!   during the trinomial split; inverse: in a bit-reversed lane order when the in-block layers
//!   load it, back during the closing split; the big strides are blind to a fixed in-block
//!   permutation), and the
//!   in-block layers run on two blocks at a time, each row of one paired with the same row of
//!   the other, so that every layer is full-width butterflies between the two vectors of a pair
//!   after one `vpunpck{l,h}wd` pair ([`FWD3_STATES`], [`INV3_STATES`]).
//! * `basemul` / `baseinv` transpose 16 components to `d` rows (one coefficient index per row)
//!   and compute with one Montgomery reduction per output (`vpmaddwd` sums of 32-bit products)
//!   or Barrett-reduced lazy sums: **same values mod q** as the scalar code, also in `(-q, q)`.
//! * `baseinv` batches the inversion per lane over the groups of 16 components and inverts the
//!   16 lane products with one (vectorised) Fermat chain.
//!
//! No data-dependent branches or memory indices anywhere. The token [`Avx2`] can only be built
//! after `is_x86_feature_detected!("avx2")`; every `unsafe` intrinsic call relies on it.

#![allow(unsafe_code)]

use super::lanes::{self, match_set, shape, vop2, ztab, InvStates, Lanes16};
use super::tables::{MONT, OMEGA_MONT, Q, QINV};
use super::{encode, scalar, tables, NtruPlusParams};
use crate::arith::mulhi_x86::mulhi_epi16_256;
use core::arch::x86_64::*;
use std::sync::OnceLock;

type V = __m256i;

/// Proof that the CPU runs AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

/// A lane table: zetas and their `·QINV` companions.
type ZTab = lanes::ZTab<16>;

/// Per-parameter-set lane tables (built once).
struct Tables {
    /// d = 4: forward step-8 / step-4 layers and inverse step-4 / step-8 layers, per vector pair.
    f8: Vec<ZTab>,
    f4: Vec<ZTab>,
    i4: Vec<ZTab>,
    i8: Vec<ZTab>,
    /// d = 3: in-block layers (D = 8, 4, 2, 1 forward; 1, 2, 4, 8 inverse), per pair of blocks,
    /// in the lane orders of [`FWD3_STATES`] and [`INV3_STATES`].
    f3: Vec<[ZTab; 4]>,
    i3: Vec<[ZTab; 4]>,
    /// Base-ring zetas in the transposed lane order, per group of 16 components.
    base: Vec<ZTab>,
}

/// Component held by lane `p` after [`Avx2::soa4`] (relative to the group's first component).
const fn soa4_component(p: usize) -> usize {
    let (h, p8) = (p / 8, p % 8);
    4 * (p8 / 2) + 2 * h + (p8 % 2)
}

fn build_tables(p: NtruPlusParams) -> Tables {
    let s = p.shape();
    let z = p.zetas();
    let nn = z.len(); // n/d
    let n = s.n;
    let mut t = Tables {
        f8: vec![],
        f4: vec![],
        i4: vec![],
        i8: vec![],
        f3: vec![],
        i3: vec![],
        base: vec![],
    };
    if s.d == 4 {
        for pi in 0..n / 32 {
            t.f8.push(ztab(|l| z[nn / 4 + 2 * pi + l / 8]));
            let f4 = [0, 1, 2, 3];
            t.f4.push(ztab(|l| z[nn / 2 + 4 * pi + f4[l / 4]]));
            let i4 = [0, 2, 1, 3];
            t.i4.push(ztab(|l| z[nn - 1 - (4 * pi + i4[l / 4])]));
            t.i8.push(ztab(|l| z[nn / 2 - 1 - (2 * pi + (l / 4) % 2)]));
        }
        for g in 0..n / 64 {
            t.base
                .push(ztab(|l| scalar::base_zeta(z, 16 * g + soa4_component(l))));
        }
    } else {
        for g in 0..n / 96 {
            let mut f = [([0i16; 16], [0i16; 16]); 4];
            let mut i = f;
            for (li, dd) in [8usize, 4, 2, 1].into_iter().enumerate() {
                let step = 3 * dd;
                // nodes in this layer = its first table index
                let layer = n / (2 * step);
                // node of the butterfly whose lower component lane `l` of `X` holds (block 2g in
                // the low 128-bit half, 2g + 1 in the high one)
                let node = |l: usize, states: &[[u8; 4]; 4], k: usize| {
                    let b = 2 * g + l / 8;
                    48 * b / (2 * step) + row_component(states[k], l % 8) / (2 * dd)
                };
                f[li] = ztab(|l| z[layer + node(l, &FWD3_STATES, li)]);
                i[3 - li] = ztab(|l| z[2 * layer - 1 - node(l, &INV3_STATES, 3 - li)]);
            }
            t.f3.push(f);
            t.i3.push(i);
        }
        for b in 0..n / 48 {
            t.base.push(ztab(|m| scalar::base_zeta(z, 16 * b + m)));
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

/// `vpshufb` control moving `[a0 a1 a2 a3 b0 b1 b2 b3]` to `[a0 b0 a1 b1 a2 b2 a3 b3]` (per
/// 128-bit lane) and back.
const SOA4_IN: [i8; 32] = bytes16([0, 4, 1, 5, 2, 6, 3, 7]);
const SOA4_OUT: [i8; 32] = bytes16([0, 2, 4, 6, 1, 3, 5, 7]);

/// A `vpshufb` control taking 16-bit lane `src[p]` to lane `p` in both 128-bit halves.
const fn bytes16(src: [usize; 8]) -> [i8; 32] {
    let mut out = [0i8; 32];
    let mut h = 0;
    while h < 2 {
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

/// Row `r` of the stride-3 transpose: column `m` comes from position `(3m + r) mod 8`.
const fn soa3_in(r: usize) -> [i8; 32] {
    let mut src = [0usize; 8];
    let mut m = 0;
    while m < 8 {
        src[m] = (3 * m + r) % 8;
        m += 1;
    }
    bytes16(src)
}

/// Inverse of [`soa3_in`]: position `p` gets column `3(p - r) mod 8`.
const fn soa3_out(r: usize) -> [i8; 32] {
    let mut src = [0usize; 8];
    let mut p = 0;
    while p < 8 {
        src[p] = (3 * (p + 8 - r)) % 8;
        p += 1;
    }
    bytes16(src)
}

const SOA3_IN: [[i8; 32]; 3] = [soa3_in(0), soa3_in(1), soa3_in(2)];
const SOA3_OUT: [[i8; 32]; 3] = [soa3_out(0), soa3_out(1), soa3_out(2)];

/// `p` (below 8) with its three bits reversed.
const fn bitrev3(p: usize) -> usize {
    ((p & 1) << 2) | (p & 2) | (p >> 2)
}
/// `c` with its 16-bit lanes at bit-reversed positions (of three bits) in each 128-bit lane:
/// position `p` takes what position `bitrev3(p)` took.
const fn lanes_bitrev3(c: [i8; 32]) -> [i8; 32] {
    let mut out = [0i8; 32];
    let mut i = 0;
    while i < 32 {
        let (h, p, byte) = (i / 16, (i % 16) / 2, i % 2);
        out[i] = c[16 * h + 2 * bitrev3(p) + byte];
        i += 1;
    }
    out
}
/// A control selecting, for position `p`, the lane `bitrev3(c[p])` instead of `c[p]` (every
/// byte pair of `c` names one 16-bit lane of the same 128-bit lane).
const fn select_bitrev3(c: [i8; 32]) -> [i8; 32] {
    let mut out = [0i8; 32];
    let mut i = 0;
    while i < 32 {
        let w = (c[i] as usize) / 2;
        out[i] = (2 * bitrev3(w) + (c[i] as usize) % 2) as i8;
        i += 1;
    }
    out
}
/// [`SOA3_IN`] with the components of each 128-bit half at bit-reversed lanes (component
/// `8h + m` in lane `bitrev3(m)` of half `h`): the inverse transform's rows ([`INV3_STATES`]).
const SOA3_IN_REV: [[i8; 32]; 3] = [
    lanes_bitrev3(SOA3_IN[0]),
    lanes_bitrev3(SOA3_IN[1]),
    lanes_bitrev3(SOA3_IN[2]),
];
/// [`SOA3_OUT`] for rows in the lane order of [`SOA3_IN_REV`].
const SOA3_OUT_REV: [[i8; 32]; 3] = [
    select_bitrev3(SOA3_OUT[0]),
    select_bitrev3(SOA3_OUT[1]),
    select_bitrev3(SOA3_OUT[2]),
];

/// The in-block layers of 864 on a pair of blocks' rows `(X, Y)` (block `A` and block `B` of a
/// pair, one row each): a slot of the pair is (`v`: `X` or `Y`; `h`: 128-bit half; `p2 p1 p0`:
/// lane in the half), and a state names the component bit (`c3` = 8 ... `c0` = 1) held by
/// `v`, `p2`, `p1`, `p0`, the block being `h`. The layer of distance `D` needs `D`'s bit on `v`:
/// then its butterflies are lane-wise between `X` and `Y`. [`Avx2::r16`] (`vpunpck{l,h}wd`)
/// moves `(v; p2, p1, p0)` to `(p2; p1, p0, v)`, so from the rows (`v` = block, `h` = `c3`,
/// `p` = the lane order [`SOA3_IN`] or [`SOA3_IN_REV`] gives) one `vperm2i128` pair (`v` and
/// `h` exchanged) and then one [`Avx2::r16`] before each later layer walk the forward through
/// `c3, c2, c1, c0` (from [`SOA3_IN`] rows; after the last layer one more [`Avx2::r16`] and
/// the `vperm2i128` pair return to rows); the inverse starts from [`SOA3_IN_REV`] rows, takes
/// the `vperm2i128` pair and an [`Avx2::r16`] before its first layer too, walks
/// `c0, c1, c2, c3`, and returns to (bit-reversed) rows with the `vperm2i128` pair alone.
/// Forward states for D = 8, 4, 2, 1 (entries `(v, p2, p1, p0)`, component bit numbers).
const FWD3_STATES: [[u8; 4]; 4] = [[3, 2, 1, 0], [2, 1, 0, 3], [1, 0, 3, 2], [0, 3, 2, 1]];
/// Inverse states for D = 1, 2, 4, 8.
const INV3_STATES: [[u8; 4]; 4] = [[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2]];

/// The component (of its block) in lane `p` of a half of `X` (`v` = 0) in state `st`.
const fn row_component(st: [u8; 4], p: usize) -> usize {
    ((p >> 2) & 1) << st[1] | ((p >> 1) & 1) << st[2] | (p & 1) << st[3]
}

/// `CBD1` ([`encode::cbd1_into`], same output) with the blocks of 16 and 8 words in vector
/// registers: row `k` of a block is bit `k` of every word (`(x >> k) & 1` minus the same for the
/// second half), one shift, and and subtraction per row of 16 (or 8) coefficients, where the
/// compiler's code for the generic loop extracted every coefficient separately. Smaller tail
/// blocks (4 and 2 words) take the generic code. Constant time: fixed shifts, loads and stores.
#[target_feature(enable = "avx2")]
pub(crate) fn cbd1_avx2(f: &mut [i16], bytes: &[u8], n: usize) {
    let (lo, hi) = bytes.split_at(n / 8);
    for (base, w) in encode::cbd1_blocks(n) {
        let off = base / 8;
        let blk = &mut f[base..base + 16 * w];
        match w {
            16 => {
                let (a, b) = (&lo[off..off + 32], &hi[off..off + 32]);
                // SAFETY: AVX2 is enabled for this function; `a`, `b` have 32 readable bytes and
                // every row of `blk` 16 writable i16 (unaligned loads and stores).
                unsafe {
                    let x = _mm256_loadu_si256(a.as_ptr().cast());
                    let y = _mm256_loadu_si256(b.as_ptr().cast());
                    let one = _mm256_set1_epi16(1);
                    for (k, row) in blk.chunks_exact_mut(16).enumerate() {
                        let cnt = _mm_cvtsi32_si128(k as i32);
                        let bx = _mm256_and_si256(_mm256_srl_epi16(x, cnt), one);
                        let by = _mm256_and_si256(_mm256_srl_epi16(y, cnt), one);
                        _mm256_storeu_si256(row.as_mut_ptr().cast(), _mm256_sub_epi16(bx, by));
                    }
                }
            }
            8 => {
                let (a, b) = (&lo[off..off + 16], &hi[off..off + 16]);
                // SAFETY: as above, with 16 bytes per input and 8 i16 per row.
                unsafe {
                    let x = _mm_loadu_si128(a.as_ptr().cast());
                    let y = _mm_loadu_si128(b.as_ptr().cast());
                    let one = _mm_set1_epi16(1);
                    for (k, row) in blk.chunks_exact_mut(8).enumerate() {
                        let cnt = _mm_cvtsi32_si128(k as i32);
                        let bx = _mm_and_si128(_mm_srl_epi16(x, cnt), one);
                        let by = _mm_and_si128(_mm_srl_epi16(y, cnt), one);
                        _mm_storeu_si128(row.as_mut_ptr().cast(), _mm_sub_epi16(bx, by));
                    }
                }
            }
            _ => encode::cbd1_block_dyn(f, lo, hi, base, w),
        }
    }
}

/// `Encodeq` (see `encode::encodeq_into`) with every row of a block in one register: a block
/// of 64 coefficients is four rows `t_0..t_3` of 16 (the 864 tail block of 32 takes the generic
/// code), canonicalised (`+q` under the sign) and packed into three rows of words by shifts and ors,
/// where the compiler's code for the generic loop spent half its time on block bookkeeping.
/// Constant time: fixed loads, shifts and stores.
#[target_feature(enable = "avx2")]
pub(crate) fn encodeq_avx2(out: &mut [u8], a: &[i16], n: usize) {
    let full = n / 64;
    for j in 0..full {
        let (t, o) = (&a[64 * j..64 * j + 64], &mut out[96 * j..96 * j + 96]);
        // SAFETY: AVX2 is enabled for this function; `t` has 64 readable i16 and `o` 96
        // writable bytes (unaligned loads and stores).
        unsafe {
            let q = _mm256_set1_epi16(Q as i16);
            let mut r = [_mm256_setzero_si256(); 4];
            for (k, x) in r.iter_mut().enumerate() {
                let v = _mm256_loadu_si256(t.as_ptr().add(16 * k).cast());
                *x = _mm256_add_epi16(v, _mm256_and_si256(_mm256_srai_epi16::<15>(v), q));
            }
            let [t0, t1, t2, t3] = r;
            let w0 = _mm256_or_si256(t0, _mm256_slli_epi16::<12>(t1));
            let w1 = _mm256_or_si256(_mm256_srli_epi16::<4>(t1), _mm256_slli_epi16::<8>(t2));
            let w2 = _mm256_or_si256(_mm256_srli_epi16::<8>(t2), _mm256_slli_epi16::<4>(t3));
            _mm256_storeu_si256(o.as_mut_ptr().cast(), w0);
            _mm256_storeu_si256(o.as_mut_ptr().add(32).cast(), w1);
            _mm256_storeu_si256(o.as_mut_ptr().add(64).cast(), w2);
        }
    }
    if n % 64 == 32 {
        // the 864 tail block (rows of 8 words): the generic code, compiled with AVX2 here
        encode::encodeq_into(&mut out[96 * full..], &a[64 * full..], 32);
    }
}

/// `Decodeq` with reduction (see `encode::decodeq_reduced_into`), a block per registers as
/// [`encodeq_avx2`]: the four rows unpacked by shifts, ands and ors, every field reduced into
/// `[0, q)` with one subtraction and `+q` under the sign, the non-canonical fields collected
/// in a mask register. Returns `true` iff all fields were `< q`. Constant time.
#[target_feature(enable = "avx2")]
pub(crate) fn decodeq_reduced_avx2(f: &mut [i16], bytes: &[u8], n: usize) -> bool {
    let full = n / 64;
    // In every block below AVX2 is enabled (this function) and the slices have the lengths
    // the loads and stores use (unaligned).
    let mut bad = _mm256_setzero_si256();
    for j in 0..full {
        let (b, t) = (&bytes[96 * j..96 * j + 96], &mut f[64 * j..64 * j + 64]);
        // SAFETY: AVX2 is enabled; `b` has 96 readable bytes, `t` 64 writable i16.
        unsafe {
            let (q, m12, m8, m4) = (
                _mm256_set1_epi16(Q as i16),
                _mm256_set1_epi16(0xfff),
                _mm256_set1_epi16(0xff),
                _mm256_set1_epi16(0xf),
            );
            let w0 = _mm256_loadu_si256(b.as_ptr().cast());
            let w1 = _mm256_loadu_si256(b.as_ptr().add(32).cast());
            let w2 = _mm256_loadu_si256(b.as_ptr().add(64).cast());
            let rows = [
                _mm256_and_si256(w0, m12),
                _mm256_or_si256(
                    _mm256_srli_epi16::<12>(w0),
                    _mm256_slli_epi16::<4>(_mm256_and_si256(w1, m8)),
                ),
                _mm256_or_si256(
                    _mm256_srli_epi16::<8>(w1),
                    _mm256_slli_epi16::<8>(_mm256_and_si256(w2, m4)),
                ),
                _mm256_srli_epi16::<4>(w2),
            ];
            for (k, v) in rows.into_iter().enumerate() {
                let d = _mm256_sub_epi16(v, q);
                let neg = _mm256_srai_epi16::<15>(d);
                bad = _mm256_or_si256(bad, _mm256_andnot_si256(neg, _mm256_set1_epi16(-1)));
                let r = _mm256_add_epi16(d, _mm256_and_si256(neg, q));
                _mm256_storeu_si256(t.as_mut_ptr().add(16 * k).cast(), r);
            }
        }
    }
    // the 864 tail block (rows of 8 words): the generic code, compiled with AVX2 here
    let tail_ok =
        n % 64 != 32 || encode::decodeq_reduced_into(&mut f[64 * full..], &bytes[96 * full..], 32);
    let all_canonical = _mm256_testz_si256(bad, bad);
    (crate::arith::ct::barrier(all_canonical as u32) == 1) & tail_ok
}

impl Avx2 {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Self(()))
    }

    vop2! {
        sub32 => _mm256_sub_epi32,
        and => _mm256_and_si256,
        or => _mm256_or_si256,
        andnot => _mm256_andnot_si256,
        cmpeq => _mm256_cmpeq_epi16,
        lo32 => _mm256_unpacklo_epi32,
        hi32 => _mm256_unpackhi_epi32,
        lo64 => _mm256_unpacklo_epi64,
        hi64 => _mm256_unpackhi_epi64,
        packs32 => _mm256_packs_epi32,
        shuf8 => _mm256_shuffle_epi8,
    }

    #[inline(always)]
    fn splat32(self, x: i32) -> V {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_set1_epi32(x) }
    }
    #[inline(always)]
    fn ctrl(self, c: &[i8; 32]) -> V {
        // SAFETY: the token proves AVX2; `c` has 32 readable bytes.
        unsafe { _mm256_loadu_si256(c.as_ptr().cast()) }
    }
    #[inline(always)]
    fn zt(self, t: &ZTab) -> (V, V) {
        (self.load(&t.0), self.load(&t.1))
    }
    #[inline(always)]
    fn perm2x128<const I: i32>(self, a: V, b: V) -> V {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_permute2x128_si256::<I>(a, b) }
    }
    #[inline(always)]
    fn perm4x64<const I: i32>(self, a: V) -> V {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_permute4x64_epi64::<I>(a) }
    }
    #[inline(always)]
    fn blend16<const I: i32>(self, a: V, b: V) -> V {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_blend_epi16::<I>(a, b) }
    }
    #[inline(always)]
    fn blend32<const I: i32>(self, a: V, b: V) -> V {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_blend_epi32::<I>(a, b) }
    }
    #[inline(always)]
    fn shufps<const I: i32>(self, a: V, b: V) -> V {
        // SAFETY: the token proves AVX2.
        unsafe {
            _mm256_castps_si256(_mm256_shuffle_ps::<I>(
                _mm256_castsi256_ps(a),
                _mm256_castsi256_ps(b),
            ))
        }
    }
    #[inline(always)]
    fn srai32_16(self, a: V) -> V {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_srai_epi32::<16>(a) }
    }
    #[inline(always)]
    fn movemask(self, a: V) -> i32 {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_movemask_epi8(a) }
    }

    /// `montgomery_reduce` of eight 32-bit sums.
    #[inline(always)]
    fn mred32(self, s: V) -> V {
        let m = self.mullo(s, self.splat32(QINV));
        let mq = self.madd(m, self.splat32(Q));
        self.srai32_16(self.sub32(s, mq))
    }

    // ---- layouts ----

    /// 16 components of degree 4 (4 vectors) to 4 rows; lane order [`soa4_component`].
    #[inline(always)]
    fn soa4(self, v: [V; 4]) -> [V; 4] {
        let c = self.ctrl(&SOA4_IN);
        let s = v.map(|x| self.shuf8(x, c));
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
        s.map(|x| self.shuf8(x, c))
    }
    /// A 48-coefficient block (16 components of degree 3) to 3 rows in natural column order.
    #[inline(always)]
    fn soa3(self, v: [V; 3]) -> [V; 3] {
        self.soa3_with(v, &SOA3_IN)
    }
    /// [`Self::soa3`] with the final in-lane order of `ctl` ([`SOA3_IN`] or [`SOA3_IN_REV`]).
    #[inline(always)]
    fn soa3_with(self, v: [V; 3], ctl: &[[i8; 32]; 3]) -> [V; 3] {
        let a = self.blend32::<0xF0>(v[0], v[1]);
        let b = self.perm2x128::<0x21>(v[0], v[2]);
        let c = self.blend32::<0xF0>(v[1], v[2]);
        let t0 = self.blend16::<0x24>(self.blend16::<0x92>(a, b), c);
        let t1 = self.blend16::<0x49>(self.blend16::<0x24>(a, b), c);
        let t2 = self.blend16::<0x92>(self.blend16::<0x49>(a, b), c);
        [
            self.shuf8(t0, self.ctrl(&ctl[0])),
            self.shuf8(t1, self.ctrl(&ctl[1])),
            self.shuf8(t2, self.ctrl(&ctl[2])),
        ]
    }
    #[inline(always)]
    fn aos3(self, r: [V; 3]) -> [V; 3] {
        self.aos3_with(r, &SOA3_OUT)
    }
    /// [`Self::aos3`] for rows in the in-lane order that `ctl` undoes.
    #[inline(always)]
    fn aos3_with(self, r: [V; 3], ctl: &[[i8; 32]; 3]) -> [V; 3] {
        let t0 = self.shuf8(r[0], self.ctrl(&ctl[0]));
        let t1 = self.shuf8(r[1], self.ctrl(&ctl[1]));
        let t2 = self.shuf8(r[2], self.ctrl(&ctl[2]));
        let a = self.blend16::<0x24>(self.blend16::<0x92>(t0, t1), t2);
        let b = self.blend16::<0x49>(self.blend16::<0x24>(t0, t1), t2);
        let c = self.blend16::<0x92>(self.blend16::<0x49>(t0, t1), t2);
        [
            self.perm2x128::<0x20>(a, b),
            self.blend32::<0xF0>(c, a),
            self.perm2x128::<0x31>(b, c),
        ]
    }
    #[inline(always)]
    fn load3(self, a: &[i16]) -> [V; 3] {
        [self.load(a), self.load(&a[16..]), self.load(&a[32..])]
    }
    #[inline(always)]
    fn store3(self, a: &mut [i16], v: [V; 3]) {
        self.store(a, v[0]);
        self.store(&mut a[16..], v[1]);
        self.store(&mut a[32..], v[2]);
    }
    #[inline(always)]
    fn load4(self, a: &[i16]) -> [V; 4] {
        [
            self.load(a),
            self.load(&a[16..]),
            self.load(&a[32..]),
            self.load(&a[48..]),
        ]
    }
    #[inline(always)]
    fn store4(self, a: &mut [i16], v: [V; 4]) {
        for (k, x) in v.into_iter().enumerate() {
            self.store(&mut a[16 * k..], x);
        }
    }

    /// `([a.lo, b.lo], [a.hi, b.hi])` (128-bit halves): exchanges the vector and the half.
    #[inline(always)]
    fn swap_halves(self, a: V, b: V) -> (V, V) {
        (self.perm2x128::<0x20>(a, b), self.perm2x128::<0x31>(a, b))
    }
    /// `(vpunpcklwd, vpunpckhwd)`: slot `(v; p2, p1, p0)` of a pair goes to `(p2; p1, p0, v)`
    /// (see [`FWD3_STATES`]).
    #[inline(always)]
    fn r16(self, a: V, b: V) -> (V, V) {
        (self.lo16(a, b), self.hi16(a, b))
    }

    // ---- NTT ----

    #[target_feature(enable = "avx2")]
    fn ntt_tf<const N: usize, const ZN: usize>(self, a: &mut [i16; N], z: &[i16; ZN], t: &Tables) {
        let s = &shape(N);
        let n = N;
        let h = n / 2;
        let z1 = self.zc(z[1]);
        if s.d == 3 {
            // the trinomial split on rows: each block transposed as it is loaded (the split, a
            // multiple of 48 apart, and the radix-3 layers are blind to the in-block order)
            for b in (0..h).step_by(48) {
                let x = self.soa3(self.load3(&a[b..]));
                let y = self.soa3(self.load3(&a[b + h..]));
                let (mut lo, mut hi) = (x, y);
                for k in 0..3 {
                    let t1 = self.fqmulc(y[k], z1);
                    (lo[k], hi[k]) = (self.add(x[k], t1), self.sub(self.add(x[k], y[k]), t1));
                }
                self.store3(&mut a[b + h..], hi);
                self.store3(&mut a[b..], lo);
            }
        } else {
            for i in (0..h).step_by(16) {
                let (x, y) = (self.load(&a[i..]), self.load(&a[i + h..]));
                let t1 = self.fqmulc(y, z1);
                self.store(&mut a[i + h..], self.sub(self.add(x, y), t1));
                self.store(&mut a[i..], self.add(x, t1));
            }
        }
        let om = self.zc(OMEGA_MONT);
        let mut k = 2;
        let mut step = n / 6;
        for _ in 0..s.r3 {
            for start in (0..n).step_by(3 * step) {
                let (z1, z2) = (self.zc(z[k]), self.zc(z[k + 1]));
                k += 2;
                for i in (start..start + step).step_by(16) {
                    let r0 = self.load(&a[i..]);
                    let r1 = self.load(&a[i + step..]);
                    let r2 = self.load(&a[i + 2 * step..]);
                    let t1 = self.fqmulc(r1, z1);
                    let t2 = self.fqmulc(r2, z2);
                    let t3 = self.fqmulc(self.sub(t1, t2), om);
                    self.store(&mut a[i + 2 * step..], self.sub(self.sub(r0, t1), t3));
                    self.store(&mut a[i + step..], self.add(self.sub(r0, t2), t3));
                    self.store(&mut a[i..], self.add(self.add(r0, t1), t2));
                }
            }
            step /= 3;
        }
        // Lazy from here (the AVX-512 schedule): < 3q after the split and each radix-3 layer
        // adds < 2q (576, 864, 1152: 7q; 768: 5q); each radix-2 layer below adds < q, and
        // values stay below 9q < 2^15 before the Barrett steps.
        if s.d == 3 {
            // rows: stride 8 adds < q, a Barrett step before stride 4, strides 4 and 2 add
            // < 2q, stride 1 ends with the reference's Barrett step.
            // Two blocks at a time, each row of one paired with the same row of the other
            // ([`FWD3_STATES`]): every layer is full-width butterflies between the two vectors of
            // a pair (after a `vperm2i128` pair for the first, a `vpunpck{l,h}wd` pair for the
            // others); the three pairs layer by layer (three independent chains side by side).
            for (g, b) in (0..n).step_by(96).enumerate() {
                let f = &t.f3[g];
                let (ra, rb) = (self.load3(&a[b..]), self.load3(&a[b + 48..]));
                let mut x = [ra[0]; 3];
                let mut y = x;
                for k in 0..3 {
                    (x[k], y[k]) = self.swap_halves(ra[k], rb[k]);
                    (x[k], y[k]) = self.fwd_bf_lazy(x[k], y[k], self.zt(&f[0]));
                }
                for k in 0..3 {
                    let (p, q) = self.r16(x[k], y[k]);
                    (x[k], y[k]) =
                        self.fwd_bf_lazy(self.barrett(p), self.barrett(q), self.zt(&f[1]));
                }
                for k in 0..3 {
                    let (p, q) = self.r16(x[k], y[k]);
                    (x[k], y[k]) = self.fwd_bf_lazy(p, q, self.zt(&f[2]));
                }
                for k in 0..3 {
                    let (p, q) = self.r16(x[k], y[k]);
                    (x[k], y[k]) = self.fwd_bf(p, q, self.zt(&f[3]));
                }
                let (mut ra, mut rb) = (x, y);
                for k in 0..3 {
                    let (p, q) = self.r16(x[k], y[k]);
                    (ra[k], rb[k]) = self.swap_halves(p, q);
                }
                self.store3(&mut a[b..], self.aos3(ra));
                self.store3(&mut a[b + 48..], self.aos3(rb));
            }
            return;
        }
        // radix-2 strides >= 32, vector to vector (768: 64, 32; 1152: 32)
        let mut step = s.block() / 2;
        while step >= 32 {
            self.fwd_r2(a, z, step);
            step /= 2;
        }
        // the stride-16 layer's zetas
        let k = N / 32;
        // strides 16, 8 and 4 on vector pairs: stride 16 adds < q (< 9q), the Barrett step on
        // the stride-8 inputs x brings them to (q+1)/2, strides 8 and 4 add < 2q, and the final
        // Barrett step gives the reference's output range
        // Two pairs at a time, layer by layer: each pair is one long dependent chain (three
        // products, two Barrett steps, shuffles), and two chains side by side keep the pipes
        // busy where one pair after the other filled the scheduler with a single chain.
        const PAIRS: usize = 2;
        debug_assert_eq!((n / 32) % PAIRS, 0);
        for g in (0..n / 32).step_by(PAIRS) {
            let zero = self.zero();
            let (mut x, mut y) = ([zero; PAIRS], [zero; PAIRS]);
            for j in 0..PAIRS {
                let o = 32 * (g + j);
                let (va, vb) = (self.load(&a[o..]), self.load(&a[o + 16..]));
                let (va, vb) = self.fwd_bf_lazy(va, vb, self.zc(z[k + g + j]));
                (x[j], y[j]) = self.swap_halves(va, vb);
            }
            for j in 0..PAIRS {
                let (p, r) = self.fwd_bf_lazy(self.barrett(x[j]), y[j], self.zt(&t.f8[g + j]));
                (x[j], y[j]) = (self.lo64(p, r), self.hi64(p, r));
            }
            for j in 0..PAIRS {
                let (p, r) = self.fwd_bf(x[j], y[j], self.zt(&t.f4[g + j]));
                (x[j], y[j]) = (self.lo64(p, r), self.hi64(p, r));
            }
            for j in 0..PAIRS {
                let o = 32 * (g + j);
                let (lo, hi) = self.swap_halves(x[j], y[j]);
                self.store(&mut a[o..], lo);
                self.store(&mut a[o + 16..], hi);
            }
        }
    }

    #[target_feature(enable = "avx2")]
    fn invntt_tf<const N: usize, const ZN: usize>(
        self,
        a: &mut [i16; N],
        z: &[i16; ZN],
        t: &Tables,
    ) {
        let s = &shape(N);
        let n = N;
        // Lazy (the AVX-512 schedule): inputs in (-q, q); the sums of the two lowest layers stay
        // below 4q, the next layer's sums are Barrett-reduced (the reference's bounds from
        // there on, except the 864 stride-24 sums: below 2q, which the radix-3 layers take)
        if s.d == 3 {
            // pairs of blocks as in the forward transform, walking [`INV3_STATES`] from rows in
            // the bit-reversed lane order of [`SOA3_IN_REV`] (which the rows keep through the
            // radix-3 layers and the split, lane-wise: the closing `aos3_with` undoes it)
            for (g, b) in (0..n).step_by(96).enumerate() {
                let f = &t.i3[g];
                let ra = self.soa3_with(self.load3(&a[b..]), &SOA3_IN_REV);
                let rb = self.soa3_with(self.load3(&a[b + 48..]), &SOA3_IN_REV);
                let mut x = [ra[0]; 3];
                let mut y = x;
                for k in 0..3 {
                    let (p, q) = self.swap_halves(ra[k], rb[k]);
                    let (p, q) = self.r16(p, q);
                    (x[k], y[k]) = self.inv_bf_lazy(p, q, self.zt(&f[0]));
                }
                for k in 0..3 {
                    let (p, q) = self.r16(x[k], y[k]);
                    (x[k], y[k]) = self.inv_bf_lazy(p, q, self.zt(&f[1]));
                }
                for k in 0..3 {
                    let (p, q) = self.r16(x[k], y[k]);
                    (x[k], y[k]) = self.inv_bf(p, q, self.zt(&f[2]));
                }
                for k in 0..3 {
                    let (p, q) = self.r16(x[k], y[k]);
                    (x[k], y[k]) = self.inv_bf_lazy(p, q, self.zt(&f[3]));
                }
                let (mut ra, mut rb) = (x, y);
                for k in 0..3 {
                    (ra[k], rb[k]) = self.swap_halves(x[k], y[k]);
                }
                self.store3(&mut a[b..], ra);
                self.store3(&mut a[b + 48..], rb);
            }
        } else {
            // strides 4, 8 and 16 on vector pairs
            let first16 = 2 * (n / 32) - 1;
            // two pairs at a time, layer by layer (see the forward transform)
            const PAIRS: usize = 2;
            debug_assert_eq!((n / 32) % PAIRS, 0);
            for g in (0..n / 32).step_by(PAIRS) {
                let zero = self.zero();
                let (mut x, mut y) = ([zero; PAIRS], [zero; PAIRS]);
                for j in 0..PAIRS {
                    let o = 32 * (g + j);
                    let (va, vb) = (self.load(&a[o..]), self.load(&a[o + 16..]));
                    // step 4: X = [a0-3 b0-3 | a8-11 b8-11], Y = [a4-7 b4-7 | a12-15 b12-15]
                    (x[j], y[j]) = (self.lo64(va, vb), self.hi64(va, vb));
                }
                for j in 0..PAIRS {
                    let (sum, d) = self.inv_bf_lazy(x[j], y[j], self.zt(&t.i4[g + j]));
                    // step 8: X = [a0-3 b0-3 a4-7 b4-7], Y = [a8-11 b8-11 a12-15 b12-15]
                    (x[j], y[j]) = self.swap_halves(sum, d);
                }
                for j in 0..PAIRS {
                    let (sum, d) = self.inv_bf_lazy(x[j], y[j], self.zt(&t.i8[g + j]));
                    let px = self.perm4x64::<0b11_01_10_00>(sum);
                    let py = self.perm4x64::<0b11_01_10_00>(d);
                    (x[j], y[j]) = self.swap_halves(px, py);
                }
                for j in 0..PAIRS {
                    // step 16, between the two vectors of the pair (natural order again)
                    let o = 32 * (g + j);
                    let (va, vb) = self.inv_bf(x[j], y[j], self.zc(z[first16 - g - j]));
                    self.store(&mut a[o..], va);
                    self.store(&mut a[o + 16..], vb);
                }
            }
            let mut step = 32;
            while step <= s.block() / 2 {
                self.inv_r2(a, z, step);
                step *= 2;
            }
        }
        // radix-3 layers: node j of a layer with L nodes uses the pair at base + 2(L - 1 - j)
        let om = self.zc(OMEGA_MONT);
        let mut step = s.block();
        let mut nodes = n / (3 * step);
        // bases of the radix-3 layers, top layer first: 2, 2 + 2·2, ...
        let mut bases = [0usize; 4];
        let mut b = 2;
        let mut l = 2;
        for bs in bases.iter_mut().take(s.r3) {
            *bs = b;
            b += 2 * l;
            l *= 3;
        }
        for li in (0..s.r3).rev() {
            let base = bases[li];
            for (j, start) in (0..n).step_by(3 * step).enumerate() {
                let kk = base + 2 * (nodes - 1 - j);
                let (z1, z2) = (self.zc(z[kk]), self.zc(z[kk + 1]));
                for i in (start..start + step).step_by(16) {
                    let r0 = self.load(&a[i..]);
                    let r1 = self.load(&a[i + step..]);
                    let r2 = self.load(&a[i + 2 * step..]);
                    let t1 = self.fqmulc(self.sub(r1, r0), om);
                    let t2 = self.fqmulc(self.add(self.sub(r2, r0), t1), z1);
                    let t3 = self.fqmulc(self.sub(self.sub(r2, r1), t1), z2);
                    self.store(&mut a[i..], self.barrett(self.add(self.add(r0, r1), r2)));
                    self.store(&mut a[i + step..], t2);
                    self.store(&mut a[i + 2 * step..], t3);
                }
            }
            step *= 3;
            nodes /= 3;
        }
        let (csq, ca, cb) = tables::inv_consts_of(s.n);
        let (csq, ca, cb) = (self.zc(csq), self.zc(ca), self.zc(cb));
        let h = n / 2;
        if s.d == 3 {
            // the split on rows, each block transposed back to coefficient order as it is
            // stored (rows in the order of `SOA3_IN_REV`, see the in-block layers)
            for b in (0..h).step_by(48) {
                let (x, y) = (self.load3(&a[b..]), self.load3(&a[b + h..]));
                let (mut lo, mut hi) = (x, y);
                for k in 0..3 {
                    let t1 = self.add(x[k], y[k]);
                    let t2 = self.fqmulc(self.sub(x[k], y[k]), csq);
                    (lo[k], hi[k]) = (self.fqmulc(self.sub(t1, t2), ca), self.fqmulc(t2, cb));
                }
                self.store3(&mut a[b + h..], self.aos3_with(hi, &SOA3_OUT_REV));
                self.store3(&mut a[b..], self.aos3_with(lo, &SOA3_OUT_REV));
            }
        } else {
            for i in (0..h).step_by(16) {
                let (x, y) = (self.load(&a[i..]), self.load(&a[i + h..]));
                let t1 = self.add(x, y);
                let t2 = self.fqmulc(self.sub(x, y), csq);
                self.store(&mut a[i + h..], self.fqmulc(t2, cb));
                self.store(&mut a[i..], self.fqmulc(self.sub(t1, t2), ca));
            }
        }
    }

    // ---- base rings ----

    #[target_feature(enable = "avx2")]
    fn basemul_tf<const N: usize>(self, c: &mut [i16; N], a: &[i16; N], b: &[i16; N], t: &Tables) {
        let s = &shape(N);
        if s.d == 4 {
            for (g, o) in (0..s.n).step_by(64).enumerate() {
                let ar = self.soa4(self.load4(&a[o..]));
                let br = self.soa4(self.load4(&b[o..]));
                let cr = self.basemul4_rows(ar, br, self.zt(&t.base[g]));
                self.store4(&mut c[o..], self.aos4(cr));
            }
        } else {
            for (g, o) in (0..s.n).step_by(48).enumerate() {
                let ar = self.soa3(self.load3(&a[o..]));
                let br = self.soa3(self.load3(&b[o..]));
                let cr = self.basemul3_rows(ar, br, self.zt(&t.base[g]));
                self.store3(&mut c[o..], self.aos3(cr));
            }
        }
    }

    #[target_feature(enable = "avx2")]
    fn baseinv_tf<const N: usize>(self, r: &mut [i16; N], a: &[i16; N], t: &Tables) -> bool {
        let s = &shape(N);
        const G: usize = 18; // at most 1152/64 = 864/48 = 18 groups
        let d = s.d;
        let groups = s.n / (16 * d);
        let zero = self.zero();
        let mont = self.splat(MONT);
        let mut state = InvStates::<V, G>::new();
        let mut zmask = [zero; G];
        let mut anyzero = zero;
        let mut acc = mont;
        for (g, zmg) in zmask.iter_mut().enumerate().take(groups) {
            let zz = self.zt(&t.base[g]);
            let o = 16 * d * g;
            let (rows, tv, nz);
            if d == 4 {
                rows = self.soa4(self.load4(&a[o..]));
                (tv, nz) = self.inv4_stage1(&rows, zz);
            } else {
                let x = self.soa3(self.load3(&a[o..]));
                rows = [x[0], x[1], x[2], zero];
                (tv, nz) = self.inv3_stage1(&rows, zz);
            }
            // exact zero test: the Barrett output is 0 iff the norm is 0 mod q
            let zm = self.cmpeq(nz, zero);
            anyzero = self.or(anyzero, zm);
            *zmg = zm;
            let norm = self.or(self.andnot(zm, nz), self.and(zm, mont));
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
            let o = 16 * d * g;
            if d == 4 {
                let o4 = self.inv4_stage2(&x, &tv, u, zz);
                let out = [
                    self.andnot(zm, o4[0]),
                    self.andnot(zm, o4[1]),
                    self.andnot(zm, o4[2]),
                    self.andnot(zm, o4[3]),
                ];
                self.store4(&mut r[o..], self.aos4(out));
            } else {
                let o3 = self.inv3_stage2(&tv, u);
                let out = [
                    self.andnot(zm, o3[0]),
                    self.andnot(zm, o3[1]),
                    self.andnot(zm, o3[2]),
                ];
                self.store3(&mut r[o..], self.aos3(out));
            }
        }
        state.finish();
        self.movemask(anyzero) == 0
    }

    #[target_feature(enable = "avx2")]
    fn in_range_tf(self, a: &[i16]) -> bool {
        Lanes16::in_range(self, a)
    }

    // The byte codecs: CBD1 and Encodeq / Decodeq in registers (x86.rs, AVX2: the rows of a
    // block are 16 words), checked against the generic code of `encode.rs`.
    #[target_feature(enable = "avx2")]
    fn cbd1_tf(self, f: &mut [i16], bytes: &[u8], n: usize) {
        cbd1_avx2(f, bytes, n)
    }
    #[target_feature(enable = "avx2")]
    fn encodeq_tf(self, out: &mut [u8], a: &[i16], n: usize) {
        encodeq_avx2(out, a, n)
    }
    #[target_feature(enable = "avx2")]
    fn decodeq_reduced_tf(self, f: &mut [i16], bytes: &[u8], n: usize) -> bool {
        decodeq_reduced_avx2(f, bytes, n)
    }

    // ---- entry points ----

    pub(crate) fn cbd1_into(self, f: &mut [i16], bytes: &[u8], n: usize) {
        // SAFETY: the token exists only if the CPU runs AVX2.
        unsafe { self.cbd1_tf(f, bytes, n) }
    }
    pub(crate) fn encodeq_into(self, out: &mut [u8], a: &[i16], n: usize) {
        // SAFETY: the token exists only if the CPU runs AVX2.
        unsafe { self.encodeq_tf(out, a, n) }
    }
    pub(crate) fn decodeq_reduced_into(self, f: &mut [i16], bytes: &[u8], n: usize) -> bool {
        // SAFETY: the token exists only if the CPU runs AVX2.
        unsafe { self.decodeq_reduced_tf(f, bytes, n) }
    }
    pub(crate) fn in_range(self, a: &[i16]) -> bool {
        // SAFETY: the token exists only if the CPU runs AVX2.
        unsafe { self.in_range_tf(a) }
    }

    pub(crate) fn ntt(self, a: &mut [i16], p: NtruPlusParams) {
        match_set!(p, a, |a, z, t| {
            // SAFETY: the token exists only if the CPU runs AVX2.
            unsafe { self.ntt_tf(a, z, t) }
        });
    }
    pub(crate) fn invntt(self, a: &mut [i16], p: NtruPlusParams) {
        match_set!(p, a, |a, z, t| {
            // SAFETY: the token exists only if the CPU runs AVX2.
            unsafe { self.invntt_tf(a, z, t) }
        });
    }
    pub(crate) fn basemul(self, c: &mut [i16], a: &[i16], b: &[i16], p: NtruPlusParams) {
        match_set!(p, c, |c, _z, t| {
            if let (Ok(a), Ok(b)) = (a.try_into(), b.try_into()) {
                // SAFETY: the token exists only if the CPU runs AVX2.
                unsafe { self.basemul_tf(c, a, b, t) }
            }
        });
    }
    pub(crate) fn baseinv(self, r: &mut [i16], a: &[i16], p: NtruPlusParams) -> bool {
        let mut ok = false;
        match_set!(p, r, |r, _z, t| {
            if let Ok(a) = a.try_into() {
                // SAFETY: the token exists only if the CPU runs AVX2.
                ok = unsafe { self.baseinv_tf(r, a, t) };
            }
        });
        ok
    }
}

impl Lanes16 for Avx2 {
    type V = V;
    const LANES: usize = 16;
    #[inline(always)]
    fn load(self, s: &[i16]) -> V {
        let s = &s[..16];
        // SAFETY: the token proves AVX2; `s` has 16 readable i16.
        unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, s: &mut [i16], v: V) {
        let s = &mut s[..16];
        // SAFETY: the token proves AVX2; `s` has 16 writable i16.
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn max_u16(self, a: V, b: V) -> V {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_max_epu16(a, b) }
    }
    #[inline(always)]
    fn all_le_u16(self, a: V, lim: i16) -> bool {
        // max(a, lim) == lim in every lane <=> every lane <= lim
        let lim = self.splat(lim);
        self.movemask(self.cmpeq(self.max_u16(a, lim), lim)) == -1
    }

    vop2! {
        add => _mm256_add_epi16,
        sub => _mm256_sub_epi16,
        mullo => _mm256_mullo_epi16,
        mulhi => mulhi_epi16_256,
        lo16 => _mm256_unpacklo_epi16,
        hi16 => _mm256_unpackhi_epi16,
    }

    #[inline(always)]
    fn splat(self, x: i16) -> V {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_set1_epi16(x) }
    }
    #[inline(always)]
    fn zero(self) -> V {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    fn srai10(self, a: V) -> V {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_srai_epi16::<10>(a) }
    }
    vop2! {
        madd => _mm256_madd_epi16,
        add32 => _mm256_add_epi32,
    }
    #[inline(always)]
    fn mred_pair(self, sl: V, sh: V) -> V {
        self.packs32(self.mred32(sl), self.mred32(sh))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(v: V) -> [i16; 16] {
        let mut out = [0i16; 16];
        // SAFETY: `out` has 16 writable i16 (unaligned store); only called with AVX2 present.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), v) };
        out
    }

    /// The lane walks of 864's in-block layers: from the rows of two blocks (coefficient `j` of
    /// block `A` tagged `j`, of block `B` tagged `100 + j`), after the `vperm2i128` pair and each
    /// `vpunpck{l,h}wd` pair, lane `l` of `X` holds component `row_component(state, l % 8)` of
    /// block `l / 8` and the same lane of `Y` its partner at distance `D` (the state's `v` bit),
    /// which is what the twiddle tables assume; the way back of each walk returns the rows; the
    /// bit-reversed transposes are the plain ones with lanes `p` and `bitrev3(p)` exchanged and
    /// are undone by `aos3_with(.., &SOA3_OUT_REV)`.
    #[test]
    fn in_block_lane_states_pair_every_component_with_its_partner() {
        let Some(s) = Avx2::try_new() else {
            eprintln!("skipped: the CPU lacks AVX2");
            return;
        };
        let blk: [[i16; 48]; 2] = [
            core::array::from_fn(|j| j as i16),
            core::array::from_fn(|j| 100 + j as i16),
        ];
        let rows = |ctl: &[[i8; 32]; 3]| [0, 1].map(|b| s.soa3_with(s.load3(&blk[b]), ctl));
        for (ctl, rev) in [(&SOA3_IN, false), (&SOA3_IN_REV, true)] {
            let r = rows(ctl);
            for b in 0..2 {
                for (k, row) in r[b].iter().enumerate() {
                    let got = lanes(*row);
                    for (l, &v) in got.iter().enumerate() {
                        let m = 8 * (l / 8) + if rev { bitrev3(l % 8) } else { l % 8 };
                        assert_eq!(v, blk[b][3 * m + k], "rows: rev {rev}, block {b}, row {k}");
                    }
                }
                let out_ctl = if rev { &SOA3_OUT_REV } else { &SOA3_OUT };
                let back = s.aos3_with(r[b], out_ctl).map(lanes);
                assert_eq!(
                    back.concat(),
                    blk[b].to_vec(),
                    "aos3 undoes soa3 (rev {rev})"
                );
            }
            let (states, first_r16) = if rev {
                (&INV3_STATES, true)
            } else {
                (&FWD3_STATES, false)
            };
            for k in 0..3 {
                let (mut x, mut y) = s.swap_halves(r[0][k], r[1][k]);
                if first_r16 {
                    (x, y) = s.r16(x, y);
                }
                for (li, st) in states.iter().enumerate() {
                    if li > 0 {
                        (x, y) = s.r16(x, y);
                    }
                    let (gx, gy) = (lanes(x), lanes(y));
                    for l in 0..16 {
                        let b = l / 8;
                        let c = row_component(*st, l % 8);
                        let d = 1usize << st[0];
                        assert_eq!(gx[l], blk[b][3 * c + k], "X: rev {rev} layer {li} lane {l}");
                        assert_eq!(gy[l], blk[b][3 * (c + d) + k], "Y: rev {rev} layer {li}");
                    }
                }
                if !rev {
                    (x, y) = s.r16(x, y);
                }
                let (ra, rb) = s.swap_halves(x, y);
                assert_eq!(lanes(ra), lanes(r[0][k]), "back to rows (rev {rev})");
                assert_eq!(lanes(rb), lanes(r[1][k]), "back to rows (rev {rev})");
            }
        }
    }
}
