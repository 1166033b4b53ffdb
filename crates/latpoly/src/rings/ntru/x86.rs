//! x86-64 backends of the NTRU multiplier: [`Avx2Lanes`] (16 x u16) and [`Avx512Lanes`]
//! (32 x u16, AVX-512F + BW).
//!
//! A token can only be built by `try_new`, which checks the CPU at run time; holding one is the
//! proof every `unsafe` intrinsic call in this module relies on. The generic code of
//! [`super::fast`] is `#[inline(always)]` and is instantiated inside the `#[target_feature]`
//! entry points below, so every vector operation inlines.

#![allow(unsafe_code)]

use super::fast::{kmul16_body, leaf_k, rq_mul_body, unroll, Lanes, RowIo};
use super::reference::{r2_inv_with, s3_inv_with};
use super::toom::{prepare_body, rq_mul_modq_body, shape, Operand};
use crate::rings::amx::Amx;
use crate::rings::bitslice::x86::{Avx2Bits, Avx512Bits, VBits, VTrits};
use core::arch::x86_64::*;

/// Output position of transposition row `r`: the in-lane unpack stages leave the three low
/// bits of the row index reversed.
const fn out_row(r: usize) -> usize {
    (r & !7) | ((r & 1) << 2) | (r & 2) | ((r >> 2) & 1)
}

/// The Toom-4 product's two `#[target_feature]` entry points of a backend with `$lanes` lanes
/// (features `$feat`): the shapes of [`shape`], leaves of `$leaf6` coefficients for limbs of six
/// units and the shape `($lu, $leaf)` for `n = 821`.
macro_rules! toom_entries {
    ($feat:literal, $lanes:literal, $leaf6:literal, $lu:literal, $leaf:literal) => {
        toom_entries!(
            tf_rq_mul_modq,
            tf_rq_prepare,
            $feat,
            $lanes,
            $leaf6,
            $lu,
            $leaf
        );
    };
    (
        $mul:ident,
        $prep:ident,
        $feat:literal,
        $lanes:literal,
        $leaf6:literal,
        $lu:literal,
        $leaf:literal
    ) => {
        #[target_feature(enable = $feat)]
        fn $mul(self, a: Operand<'_>, b: Operand<'_>, out: &mut [u16], q: u16, ws: &mut [u16]) {
            match shape(out.len(), $lanes) {
                (4, _) => rq_mul_modq_body::<Self, 4, 32>(self, a, b, out, q, ws),
                (6, _) => rq_mul_modq_body::<Self, 6, $leaf6>(self, a, b, out, q, ws),
                _ => rq_mul_modq_body::<Self, $lu, $leaf>(self, a, b, out, q, ws),
            }
        }

        #[target_feature(enable = $feat)]
        fn $prep(self, a: &[u16], dst: &mut [u16], ws: &mut [u16]) {
            match shape(a.len(), $lanes) {
                (4, _) => prepare_body::<Self, 4, 32>(self, a, dst, ws),
                (6, _) => prepare_body::<Self, 6, $leaf6>(self, a, dst, ws),
                _ => prepare_body::<Self, $lu, $leaf>(self, a, dst, ws),
            }
        }
    };
}

/// Proof that the CPU runs AVX2; with `true` inside ([`Avx2Lanes::evex`]), also AVX-512F, BW
/// and VL.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2Lanes(bool);

impl Avx2Lanes {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Self(false))
    }

    /// The token whose products (Karatsuba and Toom-4) run the same 256-bit code compiled
    /// with AVX-512F, BW and VL as well: EVEX encodings, 32 vector registers instead of 16 (so
    /// fewer spills in the evaluations and the leaf kernels), for the AVX-512 backend where it
    /// takes the 16-lane kernels (`Backend::toom_16_lanes`).
    pub(crate) fn evex() -> Option<Self> {
        (is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vl"))
        .then_some(Self(true))
    }

    /// [`Self::tf_kmul16`] compiled with AVX-512VL and BW as well.
    #[inline(never)]
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw")]
    fn tf_kmul16_vl<const M: u8>(self, a: &[u16], b: &[u16], c: &mut [u16]) {
        kmul16_body::<Self, M>(self, a, b, c)
    }

    /// [`Self::tf_rq_mul`] compiled with AVX-512VL and BW as well.
    #[target_feature(enable = "avx2,avx512f,avx512vl,avx512bw")]
    fn tf_rq_mul_vl(self, a: &[u16], b: &[u16], out: &mut [u16], ws: &mut [u16]) {
        match leaf_k(a.len()) {
            2 => rq_mul_body::<Self, 2>(self, a, b, out, ws),
            3 => rq_mul_body::<Self, 3>(self, a, b, out, ws),
            _ => rq_mul_body::<Self, 4>(self, a, b, out, ws),
        }
    }

    toom_entries!(
        tf_rq_mul_modq_vl,
        tf_rq_prepare_vl,
        "avx2,avx512f,avx512vl,avx512bw",
        16,
        48,
        7,
        56
    );

    /// The packing functions of the reference compiled with AVX2 (the compiler vectorises
    /// their loops with 256-bit registers; the baseline build has 128-bit SSE2). The
    /// unpackers have SIMD twins in `pack_x86.rs`.
    #[target_feature(enable = "avx2")]
    fn tf_sq_tobytes(self, a: &[u16], out: &mut [u8], log_q: u32) {
        super::reference::sq_tobytes(a, out, log_q)
    }
    #[target_feature(enable = "avx2")]
    fn tf_s3_tobytes(self, a: &[u16], out: &mut [u8]) {
        super::reference::s3_tobytes(a, out)
    }
    pub(crate) fn sq_tobytes(self, a: &[u16], out: &mut [u8], log_q: u32) {
        // SAFETY: the token exists only if the CPU runs AVX2.
        unsafe { self.tf_sq_tobytes(a, out, log_q) }
    }
    pub(crate) fn s3_tobytes(self, a: &[u16], out: &mut [u8]) {
        // SAFETY: the token exists only if the CPU runs AVX2.
        unsafe { self.tf_s3_tobytes(a, out) }
    }

    // Not inlined: a leaf group makes nine to 27 calls, which inlined would not fit the
    // instruction caches.
    #[inline(never)]
    #[target_feature(enable = "avx2")]
    fn tf_kmul16<const M: u8>(self, a: &[u16], b: &[u16], c: &mut [u16]) {
        kmul16_body::<Self, M>(self, a, b, c)
    }

    #[target_feature(enable = "avx2")]
    fn tf_rq_mul(self, a: &[u16], b: &[u16], out: &mut [u16], ws: &mut [u16]) {
        match leaf_k(a.len()) {
            2 => rq_mul_body::<Self, 2>(self, a, b, out, ws),
            3 => rq_mul_body::<Self, 3>(self, a, b, out, ws),
            _ => rq_mul_body::<Self, 4>(self, a, b, out, ws),
        }
    }

    toom_entries!("avx2", 16, 48, 7, 56);

    #[target_feature(enable = "avx2")]
    fn tf_s3_inv(self, a: &[u16], r: &mut [u16]) {
        // The NTRU degrees in registers (4 words per register); other degrees on words.
        let Some(t) = Avx2Bits::try_new() else {
            return super::reference::s3_inv(a, r);
        };
        match a.len().div_ceil(64) {
            8 => s3_inv_with::<8, VTrits<__m256i, 2>>(
                a,
                r,
                |x| VTrits::load(t, x, a.len()),
                VTrits::store,
            ),
            11 => s3_inv_with::<11, VTrits<__m256i, 3>>(
                a,
                r,
                |x| VTrits::load(t, x, a.len()),
                VTrits::store,
            ),
            13 => s3_inv_with::<13, VTrits<__m256i, 4>>(
                a,
                r,
                |x| VTrits::load(t, x, a.len()),
                VTrits::store,
            ),
            _ => super::reference::s3_inv(a, r),
        }
    }

    /// The bit-sliced `poly_S3_inv` on AVX2 registers (the NTRU degrees) or compiled for AVX2.
    pub(crate) fn s3_inv(self, a: &[u16], r: &mut [u16]) {
        // SAFETY: the token proves AVX2.
        unsafe { self.tf_s3_inv(a, r) }
    }

    #[target_feature(enable = "avx2")]
    fn tf_r2_inv(self, a: &[u16], r: &mut [u16]) {
        let Some(t) = Avx2Bits::try_new() else {
            return super::reference::r2_inv(a, r);
        };
        match a.len().div_ceil(64) {
            8 => r2_inv_with::<8, VBits<__m256i, 2>>(
                a,
                r,
                |b| VBits::load(t, b, a.len()),
                VBits::store,
            ),
            11 => r2_inv_with::<11, VBits<__m256i, 3>>(
                a,
                r,
                |b| VBits::load(t, b, a.len()),
                VBits::store,
            ),
            13 => r2_inv_with::<13, VBits<__m256i, 4>>(
                a,
                r,
                |b| VBits::load(t, b, a.len()),
                VBits::store,
            ),
            _ => super::reference::r2_inv(a, r),
        }
    }

    /// The bit-sliced `poly_R2_inv` on AVX2 registers (the NTRU degrees) or compiled for AVX2.
    pub(crate) fn r2_inv(self, a: &[u16], r: &mut [u16]) {
        // SAFETY: the token proves AVX2.
        unsafe { self.tf_r2_inv(a, r) }
    }
}

impl Lanes for Avx2Lanes {
    type V = __m256i;
    const L: usize = 16;

    #[inline(always)]
    fn zero(self) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    fn load(self, s: &[u16]) -> __m256i {
        let s = &s[..16];
        // SAFETY: token proves AVX2; `s` has 16 readable u16.
        unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, s: &mut [u16], v: __m256i) {
        let s = &mut s[..16];
        // SAFETY: token proves AVX2; `s` has 16 writable u16.
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_add_epi16(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_sub_epi16(a, b) }
    }
    #[inline(always)]
    fn mul(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_mullo_epi16(a, b) }
    }
    #[inline(always)]
    fn splat(self, x: u16) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_set1_epi16(x as i16) }
    }
    #[inline(always)]
    fn and(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_and_si256(a, b) }
    }
    #[inline(always)]
    fn shr<const S: i32>(self, a: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_srli_epi16::<S>(a) }
    }
    #[inline(always)]
    fn transpose(self, io: &mut impl RowIo<Self>) {
        let mut v = [self.zero(); 16];
        unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
            v[i] = io.load(self, i);
        });
        // Element (row r, column c), c = (c3 | c2 c1 c0) with c3 the 128-bit half. Stage k
        // pairs rows differing in bit k and swaps that row bit with a column bit: the unpacks
        // (within 128-bit halves) rotate (c2 c1 c0 r_k), then permute2x128 swaps c3 and r3.
        // The rows end up with their three low index bits reversed (see `out_row`).
        // SAFETY: token proves AVX2.
        unsafe {
            unroll!(i in [0, 2, 4, 6, 8, 10, 12, 14] {
                let (x, y) = (v[i], v[i + 1]);
                v[i] = _mm256_unpacklo_epi16(x, y);
                v[i + 1] = _mm256_unpackhi_epi16(x, y);
            });
            unroll!(i in [0, 1, 4, 5, 8, 9, 12, 13] {
                let (x, y) = (v[i], v[i + 2]);
                v[i] = _mm256_unpacklo_epi32(x, y);
                v[i + 2] = _mm256_unpackhi_epi32(x, y);
            });
            unroll!(i in [0, 1, 2, 3, 8, 9, 10, 11] {
                let (x, y) = (v[i], v[i + 4]);
                v[i] = _mm256_unpacklo_epi64(x, y);
                v[i + 4] = _mm256_unpackhi_epi64(x, y);
            });
            unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7] {
                let (x, y) = (v[i], v[i + 8]);
                v[i] = _mm256_permute2x128_si256::<0x20>(x, y);
                v[i + 8] = _mm256_permute2x128_si256::<0x31>(x, y);
            });
        }
        unroll!(r in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
            io.store(self, out_row(r), v[r]);
        });
    }
    #[inline(always)]
    fn kmul16<const M: u8>(self, a: &[u16], b: &[u16], c: &mut [u16]) {
        if self.0 {
            // SAFETY: `self.0` is set only by `evex`, which found AVX2, AVX-512F, BW and VL.
            return unsafe { self.tf_kmul16_vl::<M>(a, b, c) };
        }
        // SAFETY: the token exists only if the CPU supports AVX2.
        unsafe { self.tf_kmul16::<M>(a, b, c) }
    }
    #[inline(always)]
    fn rq_mul_entry(self, a: &[u16], b: &[u16], out: &mut [u16], ws: &mut [u16]) {
        if self.0 {
            // SAFETY: `self.0` is set only by `evex`, which found AVX2, AVX-512F, BW and VL.
            return unsafe { self.tf_rq_mul_vl(a, b, out, ws) };
        }
        // SAFETY: the token exists only if the CPU supports AVX2.
        unsafe { self.tf_rq_mul(a, b, out, ws) }
    }
    #[inline(always)]
    fn rq_mul_modq_entry(
        self,
        a: Operand<'_>,
        b: Operand<'_>,
        out: &mut [u16],
        q: u16,
        ws: &mut [u16],
    ) {
        if self.0 {
            // SAFETY: `self.0` is set only by `evex`, which found AVX2, AVX-512F, BW and VL.
            return unsafe { self.tf_rq_mul_modq_vl(a, b, out, q, ws) };
        }
        // SAFETY: the token exists only if the CPU supports AVX2.
        unsafe { self.tf_rq_mul_modq(a, b, out, q, ws) }
    }
    #[inline(always)]
    fn rq_prepare_entry(self, a: &[u16], dst: &mut [u16], ws: &mut [u16]) {
        if self.0 {
            // SAFETY: `self.0` is set only by `evex`, which found AVX2, AVX-512F, BW and VL.
            return unsafe { self.tf_rq_prepare_vl(a, dst, ws) };
        }
        // SAFETY: the token exists only if the CPU supports AVX2.
        unsafe { self.tf_rq_prepare(a, dst, ws) }
    }
}

/// Proof that the CPU runs AVX-512F and AVX-512BW; with [`Avx512Lanes::with_amx`], also the
/// AMX tile products (`ntru/amx.rs`) where the CPU and the OS allow them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512Lanes(Option<Amx>);

impl Avx512Lanes {
    pub(crate) fn try_new() -> Option<Self> {
        (is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw"))
            .then_some(Self(None))
    }

    /// The same backend, with the AMX products if this CPU and OS run them.
    pub(crate) fn with_amx(self) -> Self {
        Self(Amx::try_new())
    }

    /// The AMX products, if [`Avx512Lanes::with_amx`] found them.
    pub(crate) fn amx(self) -> Option<Amx> {
        self.0
    }

    // Not inlined: a leaf group makes nine to 27 calls, which inlined would not fit the
    // instruction caches.
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn tf_kmul16<const M: u8>(self, a: &[u16], b: &[u16], c: &mut [u16]) {
        kmul16_body::<Self, M>(self, a, b, c)
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn tf_rq_mul(self, a: &[u16], b: &[u16], out: &mut [u16], ws: &mut [u16]) {
        match leaf_k(a.len()) {
            2 => rq_mul_body::<Self, 2>(self, a, b, out, ws),
            3 => rq_mul_body::<Self, 3>(self, a, b, out, ws),
            _ => rq_mul_body::<Self, 4>(self, a, b, out, ws),
        }
    }

    toom_entries!("avx512f,avx512bw", 32, 32, 8, 64);

    #[target_feature(enable = "avx512f,avx512bw")]
    fn tf_s3_inv(self, a: &[u16], r: &mut [u16]) {
        // The NTRU degrees in registers (8 words per register); other degrees on words.
        // AVX-512BW implies AVX-512F, so the token always exists here.
        let Some(t) = Avx512Bits::try_new() else {
            return super::reference::s3_inv(a, r);
        };
        match a.len().div_ceil(64) {
            8 => s3_inv_with::<8, VTrits<__m512i, 1>>(
                a,
                r,
                |x| VTrits::load(t, x, a.len()),
                VTrits::store,
            ),
            11 => s3_inv_with::<11, VTrits<__m512i, 2>>(
                a,
                r,
                |x| VTrits::load(t, x, a.len()),
                VTrits::store,
            ),
            13 => s3_inv_with::<13, VTrits<__m512i, 2>>(
                a,
                r,
                |x| VTrits::load(t, x, a.len()),
                VTrits::store,
            ),
            _ => super::reference::s3_inv(a, r),
        }
    }

    /// The bit-sliced `poly_S3_inv` on AVX-512 registers (the NTRU degrees) or compiled for
    /// AVX-512 (other degrees).
    pub(crate) fn s3_inv(self, a: &[u16], r: &mut [u16]) {
        // SAFETY: the token proves AVX-512F and AVX-512BW.
        unsafe { self.tf_s3_inv(a, r) }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn tf_r2_inv(self, a: &[u16], r: &mut [u16]) {
        // The NTRU degrees in registers (8 words per register); other degrees on words.
        let Some(t) = Avx512Bits::try_new() else {
            return super::reference::r2_inv(a, r);
        };
        match a.len().div_ceil(64) {
            8 => r2_inv_with::<8, VBits<__m512i, 1>>(
                a,
                r,
                |b| VBits::load(t, b, a.len()),
                VBits::store,
            ),
            11 => r2_inv_with::<11, VBits<__m512i, 2>>(
                a,
                r,
                |b| VBits::load(t, b, a.len()),
                VBits::store,
            ),
            13 => r2_inv_with::<13, VBits<__m512i, 2>>(
                a,
                r,
                |b| VBits::load(t, b, a.len()),
                VBits::store,
            ),
            _ => super::reference::r2_inv(a, r),
        }
    }

    /// The bit-sliced `poly_R2_inv` on AVX-512 registers (the NTRU degrees) or compiled for
    /// AVX-512 (other degrees).
    pub(crate) fn r2_inv(self, a: &[u16], r: &mut [u16]) {
        // SAFETY: the token proves AVX-512F and AVX-512BW.
        unsafe { self.tf_r2_inv(a, r) }
    }
}

impl Lanes for Avx512Lanes {
    type V = __m512i;
    const L: usize = 32;

    #[inline(always)]
    fn zero(self) -> __m512i {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    fn load(self, s: &[u16]) -> __m512i {
        let s = &s[..32];
        // SAFETY: token proves AVX-512F; `s` has 32 readable u16.
        unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, s: &mut [u16], v: __m512i) {
        let s = &mut s[..32];
        // SAFETY: token proves AVX-512F; `s` has 32 writable u16.
        unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        unsafe { _mm512_add_epi16(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        unsafe { _mm512_sub_epi16(a, b) }
    }
    #[inline(always)]
    fn mul(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        unsafe { _mm512_mullo_epi16(a, b) }
    }
    #[inline(always)]
    fn splat(self, x: u16) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        unsafe { _mm512_set1_epi16(x as i16) }
    }
    #[inline(always)]
    fn and(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        unsafe { _mm512_and_si512(a, b) }
    }
    #[inline(always)]
    fn shr<const S: i32>(self, a: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512BW.
        // (the 512-bit shift takes a `u32` count: the two counts the multiplier uses)
        unsafe {
            match S {
                1 => _mm512_srli_epi16::<1>(a),
                2 => _mm512_srli_epi16::<2>(a),
                _ => _mm512_srl_epi16(a, _mm_cvtsi32_si128(S)),
            }
        }
    }
    #[inline(always)]
    fn transpose(self, io: &mut impl RowIo<Self>) {
        let mut v = [self.zero(); 32];
        unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                      16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] {
            v[i] = io.load(self, i);
        });
        // Column c = (c4 c3 | c2 c1 c0), c4 c3 the 128-bit lane. Unpacks (stages 0-2) rotate
        // (c2 c1 c0 r_k) within 128-bit lanes; stage 3 swaps c3 with r3 (qword permute), stage 4
        // swaps c4 with r4 (128-bit shuffle). Rows end with their low three bits reversed.
        // SAFETY: token proves AVX-512F and AVX-512BW.
        unsafe {
            unroll!(i in [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] {
                let (x, y) = (v[i], v[i + 1]);
                v[i] = _mm512_unpacklo_epi16(x, y);
                v[i + 1] = _mm512_unpackhi_epi16(x, y);
            });
            unroll!(i in [0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29] {
                let (x, y) = (v[i], v[i + 2]);
                v[i] = _mm512_unpacklo_epi32(x, y);
                v[i + 2] = _mm512_unpackhi_epi32(x, y);
            });
            unroll!(i in [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27] {
                let (x, y) = (v[i], v[i + 4]);
                v[i] = _mm512_unpacklo_epi64(x, y);
                v[i + 4] = _mm512_unpackhi_epi64(x, y);
            });
            let lo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
            let hi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
            unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23] {
                let (x, y) = (v[i], v[i + 8]);
                v[i] = _mm512_permutex2var_epi64(x, lo, y);
                v[i + 8] = _mm512_permutex2var_epi64(x, hi, y);
            });
            unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
                let (x, y) = (v[i], v[i + 16]);
                v[i] = _mm512_shuffle_i64x2::<0x44>(x, y);
                v[i + 16] = _mm512_shuffle_i64x2::<0xEE>(x, y);
            });
        }
        unroll!(r in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                      16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31] {
            io.store(self, out_row(r), v[r]);
        });
    }
    #[inline(always)]
    fn kmul16<const M: u8>(self, a: &[u16], b: &[u16], c: &mut [u16]) {
        // SAFETY: the token exists only if the CPU supports AVX-512F and AVX-512BW.
        unsafe { self.tf_kmul16::<M>(a, b, c) }
    }
    #[inline(always)]
    fn rq_mul_entry(self, a: &[u16], b: &[u16], out: &mut [u16], ws: &mut [u16]) {
        // SAFETY: the token exists only if the CPU supports AVX-512F and AVX-512BW.
        unsafe { self.tf_rq_mul(a, b, out, ws) }
    }
    #[inline(always)]
    fn rq_mul_modq_entry(
        self,
        a: Operand<'_>,
        b: Operand<'_>,
        out: &mut [u16],
        q: u16,
        ws: &mut [u16],
    ) {
        // SAFETY: the token exists only if the CPU supports AVX-512F and AVX-512BW.
        unsafe { self.tf_rq_mul_modq(a, b, out, q, ws) }
    }
    #[inline(always)]
    fn rq_prepare_entry(self, a: &[u16], dst: &mut [u16], ws: &mut [u16]) {
        // SAFETY: the token exists only if the CPU supports AVX-512F and AVX-512BW.
        unsafe { self.tf_rq_prepare(a, dst, ws) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_transpose<T: Lanes>(t: T) {
        let l = T::L;
        let src: Vec<u16> = (0..l * l).map(|i| i as u16).collect();
        let mut dst = vec![0u16; l * l];
        struct Io<'a>(&'a [u16], &'a mut [u16]);
        impl<T: Lanes> RowIo<T> for Io<'_> {
            fn load(&mut self, t: T, i: usize) -> T::V {
                t.load(&self.0[i * T::L..])
            }
            fn store(&mut self, t: T, j: usize, v: T::V) {
                t.store(&mut self.1[j * T::L..], v)
            }
        }
        t.transpose(&mut Io(&src, &mut dst));
        for i in 0..l {
            for j in 0..l {
                assert_eq!(dst[j * l + i], src[i * l + j], "L={l} i={i} j={j}");
            }
        }
    }

    #[test]
    fn transposes() {
        if let Some(t) = Avx2Lanes::try_new() {
            check_transpose(t);
        }
        if let Some(t) = Avx512Lanes::try_new() {
            check_transpose(t);
        }
    }
}
