//! x86-64 backends of the NTRU Prime products: one token per instruction set, 16-bit lanes.
//!
//! | token | lanes | needs | lane permutations of the in-register layers |
//! |---|---|---|---|
//! | [`Avx2`] | 16 x i16 | AVX2 | blends, 32/64-bit unpacks, 128-bit lane swaps |
//! | [`Avx512`] | 32 x i16 | AVX-512F + BW | `vpermt2w` with constant index vectors (fused steps) |
//!
//! A token can only be built by `try_new`, which checks the CPU at run time; holding one is the
//! proof every `unsafe` intrinsic call below relies on. The generic drivers (`fast.rs`) are safe
//! code, instantiated inside the `#[target_feature]` entry points here.

#![allow(unsafe_code)]

use super::direct::{self, DirectTables};
use super::fast::{self, Lanes, Scratch, Tables};
use super::fast_recip;
use super::toom_vnni::{PrimeVnni, Workspace};
use super::{recip, scalar, P};
use crate::arith::perm_x86::Perm2W;
use crate::isa::Isa;
use crate::rings::bitslice::x86::{Avx2Bits, Avx512Bits, VTrits};
use crate::secret::Wiped;
use core::arch::x86_64::*;
use std::cell::RefCell;
use std::sync::OnceLock;

/// Proof that the CPU runs AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(());

impl Avx2 {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Self(()))
    }
}

/// Proof that the CPU runs AVX-512F, AVX-512BW and AVX-512VL, and is an AMD Zen 4: the
/// `R/q` products of the AVX-512 backend then take the direct transform of `direct.rs` in
/// 256-bit vectors. Zen 4 executes a 512-bit operation as two 256-bit halves, so the
/// three-prime transforms in 512-bit vectors gain nothing from the width, while the direct
/// transform does a third less work (Zen 4 host, `examples/ntruprime_bench`: 4,210 ns for two
/// general operands in 512-bit vectors against 2,827 ns direct, 2,836 against 2,822 for a
/// small operand).
#[derive(Clone, Copy, Debug)]
pub(crate) struct HalfRate512(());

impl HalfRate512 {
    pub(crate) fn try_new() -> Option<Self> {
        static DIRECT: OnceLock<bool> = OnceLock::new();
        DIRECT
            .get_or_init(|| {
                is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512bw")
                    && is_x86_feature_detected!("avx512vl")
                    && crate::cpu::is_zen4()
            })
            .then_some(Self(()))
    }
}

/// Proof that the CPU runs AVX-512F and AVX-512BW.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(());

impl Avx512 {
    pub(crate) fn try_new() -> Option<Self> {
        (is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw"))
            .then_some(Self(()))
    }
}

/// [`super::encode::decode_uniform_impl`] on backend `isa`: the AVX-512 kernel of
/// `codec_x86.rs` where it applies, else the generic code compiled with the backend's features
/// (the compiler vectorises its loops); `None` for the scalar backend.
pub(crate) fn decode_uniform(isa: Isa, s: &[u8], m0: u16, n: usize) -> Option<Vec<u16>> {
    let codec = match isa {
        Isa::Avx512 => {
            super::codec_x86::Codec512::try_new().and_then(|t| t.decode_uniform(s, m0, n))
        }
        Isa::Avx2 => super::codec_x86::Codec256::try_new().and_then(|t| t.decode_uniform(s, m0, n)),
        _ => None,
    };
    if codec.is_some() {
        return codec;
    }
    match isa {
        // SAFETY: the token proves AVX-512F and AVX-512BW.
        Isa::Avx512 => Avx512::try_new().map(|t| unsafe { t.tf_decode_uniform(s, m0, n) }),
        // SAFETY: the token proves AVX2.
        Isa::Avx2 => Avx2::try_new().map(|t| unsafe { t.tf_decode_uniform(s, m0, n) }),
        _ => None,
    }
}

/// [`super::encode::decode_uniform_canonical`] by the AVX-512 decoder of `codec_x86.rs`, which
/// tracks the reductions as it goes; `None` elsewhere.
pub(crate) fn decode_uniform_canonical(
    isa: Isa,
    s: &[u8],
    m0: u16,
    n: usize,
) -> Option<(Vec<u16>, bool)> {
    match isa {
        Isa::Avx512 => {
            super::codec_x86::Codec512::try_new().and_then(|t| t.decode_uniform_canonical(s, m0, n))
        }
        _ => None,
    }
}

/// [`super::encode::encode_uniform_impl`] compiled with the features of backend `isa`; `false`
/// (nothing written) for the scalar backend.
pub(crate) fn encode_uniform(isa: Isa, out: &mut Vec<u8>, r: &[u16], m0: u16) -> bool {
    if isa == Isa::Avx512
        && super::codec_x86::Codec512::try_new().is_some_and(|t| t.encode_uniform(out, r, m0))
    {
        return true;
    }
    match isa {
        // SAFETY: the token proves AVX-512F and AVX-512BW.
        Isa::Avx512 => Avx512::try_new().map(|t| unsafe { t.tf_encode_uniform(out, r, m0) }),
        // SAFETY: the token proves AVX2.
        Isa::Avx2 => Avx2::try_new().map(|t| unsafe { t.tf_encode_uniform(out, r, m0) }),
        _ => None,
    }
    .is_some()
}

impl Avx512 {
    #[target_feature(enable = "avx512f,avx512bw")]
    fn tf_decode_uniform(self, s: &[u8], m0: u16, n: usize) -> Vec<u16> {
        super::encode::decode_uniform_impl(s, m0, n)
    }
    #[target_feature(enable = "avx512f,avx512bw")]
    fn tf_encode_uniform(self, out: &mut Vec<u8>, r: &[u16], m0: u16) {
        super::encode::encode_uniform_impl(out, r, m0)
    }
}

impl Avx2 {
    #[target_feature(enable = "avx2")]
    fn tf_decode_uniform(self, s: &[u8], m0: u16, n: usize) -> Vec<u16> {
        super::encode::decode_uniform_impl(s, m0, n)
    }
    #[target_feature(enable = "avx2")]
    fn tf_encode_uniform(self, out: &mut Vec<u8>, r: &[u16], m0: u16) {
        super::encode::encode_uniform_impl(out, r, m0)
    }
}

impl Lanes for Avx2 {
    type V = __m256i;
    const L: usize = 16;
    const GROUP: usize = 2;
    const INV_GROUP: usize = 4;

    #[inline(always)]
    fn splat(self, x: i16) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_set1_epi16(x) }
    }
    #[inline(always)]
    fn load(self, s: &[i16]) -> __m256i {
        let s = &s[..16];
        // SAFETY: the token proves AVX2; `s` has 16 readable i16.
        unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn load_i8(self, s: &[i8]) -> __m256i {
        let s = &s[..16];
        // SAFETY: the token proves AVX2; `s` has 16 readable bytes.
        unsafe { _mm256_cvtepi8_epi16(_mm_loadu_si128(s.as_ptr().cast())) }
    }
    #[inline(always)]
    fn store(self, s: &mut [i16], v: __m256i) {
        let s = &mut s[..16];
        // SAFETY: the token proves AVX2; `s` has 16 writable i16.
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_add_epi16(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_sub_epi16(a, b) }
    }
    #[inline(always)]
    fn and(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_and_si256(a, b) }
    }
    #[inline(always)]
    fn xor(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_xor_si256(a, b) }
    }
    // `select` keeps the trait's three logic operations: `vpblendvb` was slower on AMD Zen 2,
    // sntrup761 key generation (`Rq_recip3`, its only user) 288-292 -> 231-244 µs.
    #[inline(always)]
    fn mullo(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_mullo_epi16(a, b) }
    }
    #[inline(always)]
    fn mulhi(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2 (which implies AVX).
        unsafe { crate::arith::mulhi_x86::mulhi_epi16_256(a, b) }
    }
    #[inline(always)]
    fn mulhrs(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_mulhrs_epi16(a, b) }
    }
    #[inline(always)]
    fn gt_sub(self, x: __m256i, bound: __m256i, p: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_sub_epi16(x, _mm256_and_si256(_mm256_cmpgt_epi16(x, bound), p)) }
    }
    #[inline(always)]
    fn lt_add(self, x: __m256i, bound: __m256i, p: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_add_epi16(x, _mm256_and_si256(_mm256_cmpgt_epi16(bound, x), p)) }
    }
    #[inline(always)]
    fn deinterleave(self, a: __m256i, b: __m256i, t: usize) -> (__m256i, __m256i) {
        // SAFETY: the token proves AVX2.
        unsafe {
            match t {
                1 => (
                    // X = [a0 b0 a2 b2 ...], Y = [a1 b1 a3 b3 ...]
                    _mm256_blend_epi16::<0xAA>(a, _mm256_slli_epi32::<16>(b)),
                    _mm256_blend_epi16::<0xAA>(_mm256_srli_epi32::<16>(a), b),
                ),
                2 => {
                    let (fa, fb) = (_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
                    (
                        _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(fa, fb)),
                        _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(fa, fb)),
                    )
                }
                4 => (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)),
                _ => (
                    _mm256_permute2x128_si256::<0x20>(a, b),
                    _mm256_permute2x128_si256::<0x31>(a, b),
                ),
            }
        }
    }
    #[inline(always)]
    fn interleave(self, x: __m256i, y: __m256i, t: usize) -> (__m256i, __m256i) {
        // SAFETY: the token proves AVX2.
        unsafe {
            match t {
                1 => (
                    _mm256_blend_epi16::<0xAA>(x, _mm256_slli_epi32::<16>(y)),
                    _mm256_blend_epi16::<0xAA>(_mm256_srli_epi32::<16>(x), y),
                ),
                2 => (_mm256_unpacklo_epi32(x, y), _mm256_unpackhi_epi32(x, y)),
                4 => (_mm256_unpacklo_epi64(x, y), _mm256_unpackhi_epi64(x, y)),
                _ => (
                    _mm256_permute2x128_si256::<0x20>(x, y),
                    _mm256_permute2x128_si256::<0x31>(x, y),
                ),
            }
        }
    }
    /// Two shuffles per step (the default, interleave then deinterleave, takes four or six):
    /// the lane order drifts from the canonical one, which the tables follow (`layouts`).
    #[inline(always)]
    fn step_down(self, x: __m256i, y: __m256i, t: usize) -> (__m256i, __m256i) {
        // SAFETY: the token proves AVX2.
        unsafe {
            match t {
                8 => (_mm256_unpacklo_epi64(x, y), _mm256_unpackhi_epi64(x, y)),
                4 => {
                    let (fx, fy) = (_mm256_castsi256_ps(x), _mm256_castsi256_ps(y));
                    (
                        _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(fx, fy)),
                        _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(fx, fy)),
                    )
                }
                _ => self.deinterleave(x, y, 1),
            }
        }
    }
    /// The inverse of [`Lanes::step_down`] at `2 t`.
    #[inline(always)]
    fn step_up(self, x: __m256i, y: __m256i, t: usize) -> (__m256i, __m256i) {
        // SAFETY: the token proves AVX2.
        unsafe {
            match t {
                4 => (_mm256_unpacklo_epi64(x, y), _mm256_unpackhi_epi64(x, y)),
                2 => (_mm256_unpacklo_epi32(x, y), _mm256_unpackhi_epi32(x, y)),
                _ => self.interleave(x, y, 1),
            }
        }
    }
}

/// Index vectors for `vpermt2w` on 32 lanes: element `l` of the result is element `idx[l]` of
/// the 64-lane concatenation of the two sources.
const L512: usize = 32;

/// `deinterleave` at distance `t`: `X` (`y = false`) or `Y` (`y = true`) lanes.
const fn deint_idx(t: usize, y: bool) -> [usize; L512] {
    let mut out = [0; L512];
    let mut l = 0;
    while l < L512 {
        out[l] = (l / t) * 2 * t + l % t + if y { t } else { 0 };
        l += 1;
    }
    out
}

/// `interleave` at distance `t`: the first (`hi = false`) or second vector of the result.
const fn inter_idx(t: usize, hi: bool) -> [usize; L512] {
    let mut out = [0; L512];
    let mut l = 0;
    while l < L512 {
        let k = l + if hi { L512 } else { 0 };
        let (g, o) = (k / (2 * t), k % (2 * t));
        out[l] = if o < t {
            g * t + o
        } else {
            L512 + g * t + o - t
        };
        l += 1;
    }
    out
}

/// `deinterleave(interleave(x, y, t), t2)` as one pair of index vectors into `(x, y)`.
const fn step_idx(t: usize, t2: usize) -> [[i16; L512]; 2] {
    let (ia, ib) = (inter_idx(t, false), inter_idx(t, true));
    let (dx, dy) = (deint_idx(t2, false), deint_idx(t2, true));
    let mut out = [[0i16; L512]; 2];
    let mut l = 0;
    while l < L512 {
        out[0][l] = (if dx[l] < L512 {
            ia[dx[l]]
        } else {
            ib[dx[l] - L512]
        }) as i16;
        out[1][l] = (if dy[l] < L512 {
            ia[dy[l]]
        } else {
            ib[dy[l] - L512]
        }) as i16;
        l += 1;
    }
    out
}

const fn narrow(a: [usize; L512]) -> [i16; L512] {
    let mut out = [0i16; L512];
    let mut l = 0;
    while l < L512 {
        out[l] = a[l] as i16;
        l += 1;
    }
    out
}

/// Per distance `t = 2^k` (`k < 5`): deinterleave, interleave, step down (to `t/2`, `k >= 1`),
/// step up (to `2t`, `k <= 3`) index vectors.
struct PermTables {
    deint: [[Perm2W; 2]; 5],
    inter: [[Perm2W; 2]; 5],
    down: [[Perm2W; 2]; 5],
    up: [[Perm2W; 2]; 5],
}

const PERM: PermTables = {
    let id = Perm2W::new([0; L512]);
    let mut p = PermTables {
        deint: [[id; 2]; 5],
        inter: [[id; 2]; 5],
        down: [[id; 2]; 5],
        up: [[id; 2]; 5],
    };
    let mut k = 0;
    while k < 5 {
        let t = 1 << k;
        p.deint[k] = [
            Perm2W::new(narrow(deint_idx(t, false))),
            Perm2W::new(narrow(deint_idx(t, true))),
        ];
        p.inter[k] = [
            Perm2W::new(narrow(inter_idx(t, false))),
            Perm2W::new(narrow(inter_idx(t, true))),
        ];
        if k >= 1 {
            let [x, y] = step_idx(t, t / 2);
            p.down[k] = [Perm2W::new(x), Perm2W::new(y)];
        }
        if k <= 3 {
            let [x, y] = step_idx(t, 2 * t);
            p.up[k] = [Perm2W::new(x), Perm2W::new(y)];
        }
        k += 1;
    }
    p
};

// Every layout change away from distance 1 moves pairs of words whole: `vpermt2d`.
const _: () = assert!(Perm2W::tables_by_dword(
    &PERM.deint,
    &PERM.inter,
    &PERM.down,
    &PERM.up
));

impl Avx512 {
    /// The constant permutation pair `idx` of `(a, b)` ([`Perm2W`]: `vpermt2d` where pairs of
    /// words move whole, `vpermt2w` otherwise).
    #[inline(always)]
    fn perm2(self, a: __m512i, b: __m512i, idx: &[Perm2W; 2]) -> (__m512i, __m512i) {
        // SAFETY: the token proves AVX-512F/BW, the features `Perm2W::apply` is compiled with.
        unsafe { (idx[0].apply(a, b), idx[1].apply(a, b)) }
    }
}

impl Lanes for Avx512 {
    type V = __m512i;
    const L: usize = 32;
    const GROUP: usize = 4;

    #[inline(always)]
    fn splat(self, x: i16) -> __m512i {
        // SAFETY: the token proves AVX-512BW.
        unsafe { _mm512_set1_epi16(x) }
    }
    #[inline(always)]
    fn load(self, s: &[i16]) -> __m512i {
        let s = &s[..32];
        // SAFETY: the token proves AVX-512F; `s` has 32 readable i16.
        unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn load_i8(self, s: &[i8]) -> __m512i {
        let s = &s[..32];
        // SAFETY: the token proves AVX-512BW; `s` has 32 readable bytes.
        unsafe { _mm512_cvtepi8_epi16(_mm256_loadu_si256(s.as_ptr().cast())) }
    }
    #[inline(always)]
    fn store(self, s: &mut [i16], v: __m512i) {
        let s = &mut s[..32];
        // SAFETY: the token proves AVX-512F; `s` has 32 writable i16.
        unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512BW.
        unsafe { _mm512_add_epi16(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512BW.
        unsafe { _mm512_sub_epi16(a, b) }
    }
    #[inline(always)]
    fn and(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { _mm512_and_si512(a, b) }
    }
    #[inline(always)]
    fn xor(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { _mm512_xor_si512(a, b) }
    }
    #[inline(always)]
    fn select(self, mask: __m512i, a: __m512i, b: __m512i) -> __m512i {
        // (mask & b) | (!mask & a): one vpternlogq. SAFETY: the token proves AVX-512F.
        unsafe { _mm512_ternarylogic_epi64::<0xca>(mask, b, a) }
    }
    #[inline(always)]
    fn mullo(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512BW.
        unsafe { _mm512_mullo_epi16(a, b) }
    }
    #[inline(always)]
    fn mulhi(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe { crate::arith::mulhi_x86::mulhi_epi16_512(a, b) }
    }
    #[inline(always)]
    fn mulhrs(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512BW.
        unsafe { _mm512_mulhrs_epi16(a, b) }
    }
    #[inline(always)]
    fn gt_sub(self, x: __m512i, bound: __m512i, p: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512BW.
        unsafe { _mm512_mask_sub_epi16(x, _mm512_cmpgt_epi16_mask(x, bound), x, p) }
    }
    #[inline(always)]
    fn lt_add(self, x: __m512i, bound: __m512i, p: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512BW.
        unsafe { _mm512_mask_add_epi16(x, _mm512_cmplt_epi16_mask(x, bound), x, p) }
    }
    #[inline(always)]
    fn deinterleave(self, a: __m512i, b: __m512i, t: usize) -> (__m512i, __m512i) {
        self.perm2(a, b, &PERM.deint[t.trailing_zeros() as usize])
    }
    #[inline(always)]
    fn interleave(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        self.perm2(x, y, &PERM.inter[t.trailing_zeros() as usize])
    }
    #[inline(always)]
    fn step_down(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        self.perm2(x, y, &PERM.down[t.trailing_zeros() as usize])
    }
    #[inline(always)]
    fn step_up(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
        self.perm2(x, y, &PERM.up[t.trailing_zeros() as usize])
    }
}

/// Generates the `#[target_feature]` entry points of a token.
///
/// Each entry point forwards to a twin that takes an (unused) vector of the token's width by
/// value: rustc then marks the function with that `min-legal-vector-width`, without which LLVM
/// may treat 512-bit vectors as illegal and carry every value as two 256-bit halves.
macro_rules! entry_points {
    ($tok:ty, $feat:literal) => {
        impl $tok {
            #[target_feature(enable = $feat)]
            fn tf_mul_r3(self, tb: &Tables, sc: &mut Scratch, a: &[i8], b: &[i8], out: &mut [i16]) {
                self.w_mul_r3(self.splat(0), tb, sc, a, b, out)
            }
            #[target_feature(enable = $feat)]
            fn w_mul_r3(
                self,
                _width: <$tok as Lanes>::V,
                tb: &Tables,
                sc: &mut Scratch,
                a: &[i8],
                b: &[i8],
                out: &mut [i16],
            ) {
                sc.wrote(fast::region::INPUTS);
                fast::load_small(self, a, &mut sc.ia);
                fast::load_small(self, b, &mut sc.ib);
                fast::mul_r3(self, tb, sc, out)
            }
            #[target_feature(enable = $feat)]
            fn tf_rq_recip3(self, a: &[i8]) -> (Vec<i16>, bool) {
                self.w_rq_recip3(self.splat(0), a)
            }
            #[target_feature(enable = $feat)]
            fn w_rq_recip3(self, _width: <$tok as Lanes>::V, a: &[i8]) -> (Vec<i16>, bool) {
                fast_recip::rq_recip3(self, a)
            }
        }
    };
}

entry_points!(Avx2, "avx2");

/// The second operand of a direct product (`direct.rs`).
#[derive(Clone, Copy)]
enum Operand<'a> {
    /// Any `i16` (reduced modulo `q` on loading).
    Rq(&'a [i16]),
    /// Entries in `{-1, 0, 1}`.
    Small(&'a [i8]),
}

impl Avx2 {
    /// `a · b` in `R/q` by the direct transform over `Z_4591` (`direct.rs`): 256-bit vectors
    /// only, so no twin for the vector width (see `entry_points!`).
    #[target_feature(enable = "avx2")]
    fn tf_mul_direct(
        self,
        tb: &Tables,
        dt: &DirectTables,
        sc: &mut Scratch,
        a: &[i16],
        b: Operand<'_>,
        out: &mut [i16],
    ) {
        self.mul_direct(tb, dt, sc, a, b, out)
    }

    /// [`Self::tf_mul_direct`] compiled with AVX-512VL and BW as well (EVEX encodings: 32
    /// vector registers, `vpternlogd`, masked blends), for the AVX-512 backend on CPUs that
    /// run 512-bit operations as two 256-bit halves ([`HalfRate512`]). `_vl` proves
    /// those features.
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw")]
    fn tf_mul_direct_vl(
        self,
        _vl: HalfRate512,
        sc: &mut Scratch,
        a: &[i16],
        b: Operand<'_>,
        out: &mut [i16],
    ) {
        self.mul_direct(avx2_tables(self), direct_tables(), sc, a, b, out)
    }

    /// The body of the direct entry points, compiled with their features.
    #[inline(always)]
    fn mul_direct(
        self,
        tb: &Tables,
        dt: &DirectTables,
        sc: &mut Scratch,
        a: &[i16],
        b: Operand<'_>,
        out: &mut [i16],
    ) {
        sc.wrote(fast::region::INPUTS | fast::region::DIRECT);
        fast::load_rq(self, tb, a, &mut sc.ia);
        match b {
            Operand::Rq(b) => fast::load_rq(self, tb, b, &mut sc.ib),
            Operand::Small(b) => fast::load_small(self, b, &mut sc.ib),
        }
        direct::mul(self, dt, &sc.ia, &sc.ib, &mut sc.da, &mut sc.db, out)
    }
}

entry_points!(Avx512, "avx512f,avx512bw");

/// The `R/q` products by the three-prime transforms (`fast.rs`), on the AVX-512 backend only
/// (and not on AMD Zen 4, [`HalfRate512`]): AVX2 runs the direct transform over `Z_4591`
/// (`direct.rs`), 1.7x faster there for two general operands and 1.15x for a small one.
macro_rules! transform_products {
    ($tok:ty, $feat:literal) => {
        impl $tok {
            #[target_feature(enable = $feat)]
            fn tf_mul_rq(
                self,
                tb: &Tables,
                sc: &mut Scratch,
                a: &[i16],
                b: &[i16],
                out: &mut [i16],
            ) {
                self.w_mul_rq(self.splat(0), tb, sc, a, b, out)
            }
            #[target_feature(enable = $feat)]
            fn w_mul_rq(
                self,
                _width: <$tok as Lanes>::V,
                tb: &Tables,
                sc: &mut Scratch,
                a: &[i16],
                b: &[i16],
                out: &mut [i16],
            ) {
                sc.wrote(fast::region::INPUTS);
                fast::load_rq(self, tb, a, &mut sc.ia);
                fast::load_rq(self, tb, b, &mut sc.ib);
                fast::mul_rq(self, tb, sc, out)
            }
            #[target_feature(enable = $feat)]
            fn tf_mul_rq_small(
                self,
                tb: &Tables,
                sc: &mut Scratch,
                a: &[i16],
                s: &[i8],
                out: &mut [i16],
            ) {
                self.w_mul_rq_small(self.splat(0), tb, sc, a, s, out)
            }
            #[target_feature(enable = $feat)]
            fn w_mul_rq_small(
                self,
                _width: <$tok as Lanes>::V,
                tb: &Tables,
                sc: &mut Scratch,
                a: &[i16],
                s: &[i8],
                out: &mut [i16],
            ) {
                sc.wrote(fast::region::INPUTS);
                fast::load_rq(self, tb, a, &mut sc.ia);
                fast::load_small(self, s, &mut sc.ib);
                fast::mul_rq_small(self, tb, sc, out)
            }
        }
    };
}

transform_products!(Avx512, "avx512f,avx512bw");

/// A per-thread product buffer (allocated on first use, never zeroed by the products: each
/// writes what it reads) and whether a product used it since its last wipe.
struct Slot<T> {
    buf: Box<T>,
    used: bool,
}

/// The buffers [`wipe_scratch`] zeroes.
trait Wipe {
    fn wipe(&mut self);
}

impl Wipe for Scratch {
    fn wipe(&mut self) {
        Scratch::wipe(self)
    }
}

impl Wipe for Workspace {
    fn wipe(&mut self) {
        Workspace::wipe(self)
    }
}

type SlotCell<T> = RefCell<Option<Slot<T>>>;

thread_local! {
    /// This thread's buffers of the NTT products.
    static SCRATCH: SlotCell<Scratch> = const { RefCell::new(None) };
    /// This thread's workspace of the VNNI products.
    static VNNI: SlotCell<Workspace> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's buffer in `key`, marked used.
fn with_slot<T, R>(
    key: &'static std::thread::LocalKey<SlotCell<T>>,
    new: fn() -> Box<T>,
    f: impl FnOnce(&mut T) -> R,
) -> R {
    key.with_borrow_mut(|slot| {
        let slot = slot.get_or_insert_with(|| Slot {
            buf: new(),
            used: false,
        });
        slot.used = true;
        f(&mut slot.buf)
    })
}

/// Runs `f` with this thread's [`Scratch`].
fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    with_slot(&SCRATCH, Scratch::new, f)
}

/// Runs `f` with this thread's VNNI [`Workspace`].
fn with_vnni<R>(f: impl FnOnce(&mut Workspace) -> R) -> R {
    with_slot(&VNNI, Workspace::new, f)
}

/// Whether this thread's [`Scratch`] and VNNI workspace are absent or all zero (for tests).
#[cfg(test)]
pub(crate) fn scratch_is_clear() -> bool {
    SCRATCH.with_borrow(|sc| sc.as_ref().is_none_or(|sc| sc.buf.is_zero()))
        && VNNI.with_borrow(|ws| ws.as_ref().is_none_or(|ws| ws.buf.is_zero()))
}

/// Zeroes this thread's buffer in `key` if a product used it since the last wipe and it is not
/// in use now.
fn wipe_slot<T: Wipe>(key: &'static std::thread::LocalKey<SlotCell<T>>) {
    key.with(|cell| {
        if let Ok(mut slot) = cell.try_borrow_mut() {
            if let Some(slot) = slot.as_mut().filter(|s| s.used) {
                slot.buf.wipe();
                slot.used = false;
            }
        }
    });
}

/// Zeroes this thread's [`Scratch`] and VNNI workspace, each only if a product used it since
/// the last wipe (an sntrup761 encapsulation on a CPU with full-rate VNNI uses the workspace
/// alone).
pub(crate) fn wipe_scratch() {
    wipe_slot(&SCRATCH);
    wipe_slot(&VNNI);
}

fn avx2_tables(s: Avx2) -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| Tables::new(s))
}

fn direct_tables() -> &'static DirectTables {
    static T: OnceLock<DirectTables> = OnceLock::new();
    T.get_or_init(DirectTables::new)
}

fn avx512_tables(s: Avx512) -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| Tables::new(s))
}

/// `a · b` in `R/q` on `isa` (`Avx2` or `Avx512`; anything else, or a CPU without it, runs the
/// reference). Lengths are checked by the caller.
pub(crate) fn mul_rq(isa: Isa, a: &[i16], b: &[i16]) -> Vec<i16> {
    let mut out = vec![0i16; fast::PADDED];
    match (
        isa,
        Avx512::try_new(),
        Avx2::try_new(),
        PrimeVnni::try_new(),
        HalfRate512::try_new(),
    ) {
        (Isa::Avx512, Some(_), _, Some(v), _) => with_vnni(|ws| v.mul_rq(ws, a, b, &mut out)),
        // SAFETY: the tokens prove AVX2, AVX-512F, BW and VL, the features the entry point
        // enables.
        (Isa::Avx512, Some(_), Some(s), _, Some(h)) => unsafe {
            with_scratch(|sc| s.tf_mul_direct_vl(h, sc, a, Operand::Rq(b), &mut out))
        },
        // SAFETY: the token proves the features the entry point enables.
        (Isa::Avx512, Some(s), _, _, _) => unsafe {
            with_scratch(|sc| s.tf_mul_rq(avx512_tables(s), sc, a, b, &mut out))
        },
        // SAFETY: as above.
        (Isa::Avx2, _, Some(s), _, _) => unsafe {
            with_scratch(|sc| {
                s.tf_mul_direct(
                    avx2_tables(s),
                    direct_tables(),
                    sc,
                    a,
                    Operand::Rq(b),
                    &mut out,
                )
            })
        },
        _ => return scalar::mul_rq(a, b),
    }
    out.truncate(P);
    out
}

/// `a · s` in `R/q` for small `s` (see [`mul_rq`]).
pub(crate) fn mul_rq_small(isa: Isa, a: &[i16], s: &[i8]) -> Vec<i16> {
    let mut out = vec![0i16; fast::PADDED];
    mul_rq_small_into(isa, a, s, &mut out);
    out.truncate(P);
    out
}

/// [`mul_rq_small`] into `out` ([`fast::PADDED`] entries; the first [`P`] are the product, the
/// others are overwritten with unspecified values).
pub(crate) fn mul_rq_small_into(isa: Isa, a: &[i16], s: &[i8], out: &mut [i16]) {
    debug_assert_eq!(out.len(), fast::PADDED);
    match (
        isa,
        Avx512::try_new(),
        Avx2::try_new(),
        PrimeVnni::for_small(),
        HalfRate512::try_new(),
    ) {
        (Isa::Avx512, Some(_), _, Some(v), _) => with_vnni(|ws| v.mul_rq_small(ws, a, s, out)),
        // SAFETY: the tokens prove AVX2, AVX-512F, BW and VL, the features the entry point
        // enables.
        (Isa::Avx512, Some(_), Some(t), _, Some(h)) => unsafe {
            with_scratch(|sc| t.tf_mul_direct_vl(h, sc, a, Operand::Small(s), out))
        },
        // SAFETY: the token proves the features the entry point enables.
        (Isa::Avx512, Some(t), _, _, _) => unsafe {
            with_scratch(|sc| t.tf_mul_rq_small(avx512_tables(t), sc, a, s, out))
        },
        // SAFETY: as above.
        (Isa::Avx2, _, Some(t), _, _) => unsafe {
            with_scratch(|sc| {
                t.tf_mul_direct(
                    avx2_tables(t),
                    direct_tables(),
                    sc,
                    a,
                    Operand::Small(s),
                    out,
                )
            })
        },
        _ => out[..P].copy_from_slice(&crate::secret::Wiped::new(scalar::mul_rq_small(a, s))),
    }
}

/// `a · b` in `R/3` (see [`mul_rq`]).
pub(crate) fn mul_r3(isa: Isa, a: &[i8], b: &[i8]) -> Vec<i8> {
    let mut out = vec![0i8; P];
    mul_r3_into(isa, a, b, &mut out);
    out
}

/// [`mul_r3`] into `out` ([`P`] entries).
pub(crate) fn mul_r3_into(isa: Isa, a: &[i8], b: &[i8], out: &mut [i8]) {
    let mut wide = Wiped::new([0i16; fast::PADDED]);
    match (isa, Avx512::try_new(), Avx2::try_new()) {
        // SAFETY: the token proves the features the entry point enables.
        (Isa::Avx512, Some(s), _) => unsafe {
            with_scratch(|sc| s.tf_mul_r3(avx512_tables(s), sc, a, b, &mut wide[..]))
        },
        // SAFETY: as above.
        (Isa::Avx2, _, Some(s)) => unsafe {
            with_scratch(|sc| s.tf_mul_r3(avx2_tables(s), sc, a, b, &mut wide[..]))
        },
        _ => return out.copy_from_slice(&crate::secret::Wiped::new(scalar::mul_r3(a, b))),
    }
    for (o, &x) in out.iter_mut().zip(wide.iter()) {
        *o = x as i8;
    }
}

/// `R3_recip` on `isa`: the bit-sliced divsteps of `rings::bitslice` on AVX-512 or AVX2
/// registers (the reference loop otherwise).
pub(crate) fn r3_recip(isa: Isa, a: &[i8]) -> (Vec<i8>, bool) {
    match (isa, Avx512Bits::try_new(), Avx2Bits::try_new()) {
        // SAFETY: the token proves AVX-512F, the feature the entry point enables.
        (Isa::Avx512, Some(t), _) => unsafe { tf_r3_recip_bits(t, a) },
        // SAFETY: the token proves AVX2, the feature the entry point enables.
        (Isa::Avx2, _, Some(t)) => unsafe { tf_r3_recip_bits_avx2(t, a) },
        _ => recip::r3_recip(a),
    }
}

/// `R3_recip` bit-sliced in AVX-512 registers (two per plane for the 762 coefficients).
#[target_feature(enable = "avx512f")]
fn tf_r3_recip_bits(t: Avx512Bits, a: &[i8]) -> (Vec<i8>, bool) {
    recip::r3_recip_bitsliced(
        a,
        |x| VTrits::<__m512i, 2>::load(t, x, P + 1),
        VTrits::store,
    )
}

/// `R3_recip` bit-sliced in AVX2 registers (three per plane for the 762 coefficients).
#[target_feature(enable = "avx2")]
fn tf_r3_recip_bits_avx2(t: Avx2Bits, a: &[i8]) -> (Vec<i8>, bool) {
    recip::r3_recip_bitsliced(
        a,
        |x| VTrits::<__m256i, 3>::load(t, x, P + 1),
        VTrits::store,
    )
}

/// `Rq_recip3` on `isa` (see [`mul_rq`] for the fallback).
pub(crate) fn rq_recip3(isa: Isa, a: &[i8]) -> (Vec<i16>, bool) {
    match (isa, Avx512::try_new(), Avx2::try_new()) {
        // SAFETY: the token proves the features the entry point enables.
        (Isa::Avx512, Some(s), _) => unsafe { s.tf_rq_recip3(a) },
        // SAFETY: as above.
        (Isa::Avx2, _, Some(s)) => unsafe { s.tf_rq_recip3(a) },
        _ => recip::rq_recip3(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lane permutations: interleave inverts deinterleave, `Y` is `X + t` within a block of
    /// `2t`, `step_up` at `t / 2` inverts `step_down` at `t`, and the layouts the in-register
    /// layers see keep the butterfly contract (`fast::layouts` asserts it).
    fn check<S: Lanes>(s: S) {
        let l = S::L;
        let idx: Vec<i16> = (0..2 * l as i16).collect();
        let (a, b) = (s.load(&idx[..l]), s.load(&idx[l..]));
        let dump = |v: S::V| {
            let mut o = vec![0i16; l];
            s.store(&mut o, v);
            o
        };
        let mut t = 1;
        while t < l {
            let (x, y) = s.deinterleave(a, b, t);
            let (xs, ys) = (dump(x), dump(y));
            for i in 0..l {
                assert_eq!(ys[i], xs[i] + t as i16, "t={t}");
                assert_eq!(xs[i] as usize % (2 * t), xs[i] as usize % (2 * t) % t);
            }
            let (a2, b2) = s.interleave(x, y, t);
            assert_eq!(dump(a2), idx[..l]);
            assert_eq!(dump(b2), idx[l..]);
            if t > 1 {
                let (u, v) = s.step_down(x, y, t);
                let (x2, y2) = s.step_up(u, v, t / 2);
                assert_eq!((dump(x2), dump(y2)), (xs.clone(), ys.clone()), "t={t}");
            }
            t *= 2;
        }
        let lay = super::super::fast::layouts(s);
        assert_eq!(lay.len(), l.trailing_zeros() as usize);
    }

    /// The AVX-512 NTT products against the reference: on CPUs with full-rate VNNI the
    /// backend passes them over for `toom_vnni.rs` (and `mul_r3` keeps them), so they stay
    /// checked here directly.
    #[test]
    fn avx512_ntt_products_match_the_reference() {
        use rand::{Rng, SeedableRng};
        let Some(s) = Avx512::try_new() else {
            eprintln!("skipped: this CPU lacks AVX-512BW");
            return;
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1536);
        let tb = avx512_tables(s);
        for case in 0..24 {
            let a: Vec<i16> = match case {
                0 => vec![i16::MIN; P],
                1 => vec![i16::MAX; P],
                _ => (0..P).map(|_| rng.gen()).collect(),
            };
            let b: Vec<i16> = (0..P).map(|_| rng.gen()).collect();
            let sm: Vec<i8> = match case {
                0 => vec![-1; P],
                1 => vec![1; P],
                _ => (0..P).map(|_| rng.gen_range(-1..=1)).collect(),
            };
            let mut out = vec![0i16; fast::PADDED];
            // SAFETY: the token proves the features the entry point enables.
            with_scratch(|sc| unsafe { s.tf_mul_rq(tb, sc, &a, &b, &mut out) });
            assert_eq!(&out[..P], &scalar::mul_rq(&a, &b)[..], "case {case}");
            // SAFETY: as above.
            with_scratch(|sc| unsafe { s.tf_mul_rq_small(tb, sc, &a, &sm, &mut out) });
            assert_eq!(&out[..P], &scalar::mul_rq_small(&a, &sm)[..], "case {case}");
        }
    }

    /// The direct AVX2 products (`direct.rs`) against the reference, on random inputs of every
    /// kind and the extremes (`i16` limits, `±(q-1)/2`, zero), general and small operands.
    #[test]
    fn avx2_direct_products_match_the_reference() {
        use rand::{Rng, SeedableRng};
        let Some(s) = Avx2::try_new() else {
            eprintln!("skipped: this CPU lacks AVX2");
            return;
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2160);
        let (tb, dt) = (avx2_tables(s), direct_tables());
        for case in 0..64 {
            let fill = |v: i16| vec![v; P];
            let a: Vec<i16> = match case {
                0 => fill(i16::MIN),
                1 => fill(i16::MAX),
                2 => fill(2295),
                3 => fill(-2295),
                4 => fill(0),
                _ => (0..P).map(|_| rng.gen()).collect(),
            };
            let b: Vec<i16> = match case {
                0 | 2 => fill(i16::MIN),
                1 | 3 => fill(-2295),
                5 => (0..P).map(|_| rng.gen_range(-1..=1)).collect(),
                _ if case % 2 == 0 => (0..P).map(|_| rng.gen_range(-2295..=2295)).collect(),
                _ => (0..P).map(|_| rng.gen()).collect(),
            };
            let sm: Vec<i8> = match case {
                0 => vec![-1; P],
                1 => vec![1; P],
                2 => vec![0; P],
                _ => (0..P).map(|_| rng.gen_range(-1..=1)).collect(),
            };
            let mut out = vec![0i16; fast::PADDED];
            // SAFETY: the token proves the features the entry point enables.
            with_scratch(|sc| unsafe {
                s.tf_mul_direct(tb, dt, sc, &a, Operand::Rq(&b), &mut out)
            });
            assert_eq!(&out[..P], &scalar::mul_rq(&a, &b)[..], "case {case}");
            // SAFETY: as above.
            with_scratch(|sc| unsafe {
                s.tf_mul_direct(tb, dt, sc, &a, Operand::Small(&sm), &mut out)
            });
            assert_eq!(&out[..P], &scalar::mul_rq_small(&a, &sm)[..], "case {case}");
            // the same code compiled with AVX-512VL (the AVX-512 backend's products on Zen 4),
            // on any CPU with those features
            if !(is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512vl"))
            {
                continue;
            }
            let vl = HalfRate512(());
            // SAFETY: the token proves AVX2, and AVX-512F, BW and VL were detected above.
            with_scratch(|sc| unsafe { s.tf_mul_direct_vl(vl, sc, &a, Operand::Rq(&b), &mut out) });
            assert_eq!(&out[..P], &scalar::mul_rq(&a, &b)[..], "vl, case {case}");
            // SAFETY: as above.
            with_scratch(|sc| unsafe {
                s.tf_mul_direct_vl(vl, sc, &a, Operand::Small(&sm), &mut out)
            });
            assert_eq!(
                &out[..P],
                &scalar::mul_rq_small(&a, &sm)[..],
                "vl, case {case}"
            );
        }
    }

    /// Each product records every region of the scratch it writes: after any one product and
    /// a wipe, the whole scratch is zero again (the wipe zeroes only the recorded regions).
    #[test]
    fn wipe_zeroes_every_region_a_product_writes() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
        let a: Vec<i16> = (0..P).map(|_| rng.gen_range(-2295..=2295)).collect();
        let b: Vec<i16> = (0..P).map(|_| rng.gen_range(-2295..=2295)).collect();
        let (s1, s2): (Vec<i8>, Vec<i8>) = (0..P)
            .map(|_| (rng.gen_range(-1..=1), rng.gen_range(-1..=1)))
            .unzip();
        let mut out = vec![0i16; fast::PADDED];
        let mut check = |what: &str, f: &mut dyn FnMut(&mut Scratch, &mut [i16])| {
            with_scratch(|sc| f(sc, &mut out));
            assert!(
                out.iter().any(|&x| x != 0),
                "{what}: a product of nonzero inputs"
            );
            wipe_scratch();
            assert!(
                scratch_is_clear(),
                "{what}: the wipe left values in the scratch"
            );
        };
        let mut ran = 0;
        if let Some(s) = Avx2::try_new() {
            let (tb, dt) = (avx2_tables(s), direct_tables());
            // SAFETY: the token proves the features the entry point enables.
            check("avx2 R/q", &mut |sc, o| unsafe {
                s.tf_mul_direct(tb, dt, sc, &a, Operand::Rq(&b), o)
            });
            // SAFETY: the token proves the features the entry point enables.
            check("avx2 R/q x small", &mut |sc, o| unsafe {
                s.tf_mul_direct(tb, dt, sc, &a, Operand::Small(&s1), o)
            });
            // SAFETY: the token proves the features the entry point enables.
            check("avx2 R/3", &mut |sc, o| unsafe {
                s.tf_mul_r3(tb, sc, &s1, &s2, o)
            });
            ran += 1;
        }
        if let Some(s) = Avx512::try_new() {
            let tb = avx512_tables(s);
            // SAFETY: the token proves the features the entry point enables.
            check("avx512 R/q", &mut |sc, o| unsafe {
                s.tf_mul_rq(tb, sc, &a, &b, o)
            });
            // SAFETY: the token proves the features the entry point enables.
            check("avx512 R/q x small", &mut |sc, o| unsafe {
                s.tf_mul_rq_small(tb, sc, &a, &s1, o)
            });
            // SAFETY: the token proves the features the entry point enables.
            check("avx512 R/3", &mut |sc, o| unsafe {
                s.tf_mul_r3(tb, sc, &s1, &s2, o)
            });
            ran += 1;
        }
        println!("scratch wipes checked on {ran} backends");
    }

    #[test]
    fn permutations() {
        let mut ran = 0;
        if let Some(s) = Avx2::try_new() {
            check(s);
            ran += 1;
        }
        if let Some(s) = Avx512::try_new() {
            check(s);
            ran += 1;
        }
        println!("lane permutation checks ran on {ran} backends");
    }
}
