//! AVX2 backend, 4 x u64 lanes, any `q < 2^62`.
//!
//! AVX2 has neither 64-bit multiplies nor unsigned 64-bit compares: products are built from
//! `vpmuludq` (32 x 32 -> 64) and unsigned compares flip the sign bit before `vpcmpgtq`. As on
//! the AVX-512 backend, the Shoup quotient of the twiddle products takes three of the four
//! partial products (an estimate at most 2 below the exact one, so products land in `[0, 4q)`,
//! which the lazy schedules of `simd::lazy` absorb) and the pointwise products are Barrett's.
//!
//! Moduli `q ≡ 1 (mod 2^32)` ([`crate::primes::fast_ntt_primes`]) get their own instance of
//! the drivers ([`Avx2U64::low_word_one`]): with `q = k · 2^32 + 1` the product `qhat · q mod
//! 2^64` is `qhat + ((qhat · k) mod 2^32) · 2^32`, one `vpmuludq` instead of three, so a
//! twiddle product takes seven `vpmuludq` instead of nine and about 20 vector operations
//! instead of 25.

use super::{convert_entry, entry_points, round_entry};
use crate::isa::Isa;
use crate::ntt::backend::Entry;
use crate::ntt::simd::{self, LaneTw, MulConsts, Simd, SimdTables};
use core::arch::x86_64::*;

/// Proof that the CPU runs AVX2. `Q1`: the token of plans whose modulus is `≡ 1 (mod 2^32)`,
/// whose products by `q` take one partial product instead of three (module documentation).
#[derive(Clone, Copy)]
pub(crate) struct Avx2U64<const Q1: bool = false>(());

impl Avx2U64 {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Self(()))
    }
    /// The token for a modulus `q ≡ 1 (mod 2^32)` (the caller checks `q`: the products of
    /// the returned token are wrong for any other modulus).
    pub(crate) fn low_word_one(self) -> Avx2U64<true> {
        Avx2U64(())
    }
}

impl<const Q1: bool> core::fmt::Debug for Avx2U64<Q1> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(if Q1 {
            "Avx2U64<q = 1 mod 2^32>"
        } else {
            "Avx2U64"
        })
    }
}

/// `vpmuludq` behind an `asm!` barrier: LLVM otherwise recognises the emulated 64 x 64 high
/// product below and scalarises it into four `mulq` per vector (moves to general registers and
/// back included), which made the whole backend about 1.5x slower than tfhe-ntt's AVX2 path on
/// AMD Zen 3.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn mul_epu32(a: __m256i, b: __m256i) -> __m256i {
    let d: __m256i;
    // SAFETY: register-only instruction; avx2 is enabled on this function.
    unsafe {
        core::arch::asm!(
            "vpmuludq {d}, {a}, {b}",
            d = lateout(ymm_reg) d,
            a = in(ymm_reg) a,
            b = in(ymm_reg) b,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    d
}

/// The full 128-bit lane-wise product `(low 64, high 64)` from four 32 x 32 partial products.
/// Caller holds an AVX2 token.
#[inline(always)]
unsafe fn mul_wide64(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    // SAFETY: caller guarantees AVX2.
    unsafe {
        let a_hi = _mm256_srli_epi64::<32>(a);
        let b_hi = _mm256_srli_epi64::<32>(b);
        let ll = mul_epu32(a, b);
        let lh = mul_epu32(a, b_hi);
        let hl = mul_epu32(a_hi, b);
        let hh = mul_epu32(a_hi, b_hi);
        // No overflow: (2^32-1)^2 + 2^32 - 1 < 2^64.
        let t = _mm256_add_epi64(hl, _mm256_srli_epi64::<32>(ll));
        let u = _mm256_add_epi64(lh, _mm256_and_si256(t, _mm256_set1_epi64x(0xffff_ffff)));
        let hi = _mm256_add_epi64(
            _mm256_add_epi64(hh, _mm256_srli_epi64::<32>(t)),
            _mm256_srli_epi64::<32>(u),
        );
        let lo = _mm256_or_si256(
            _mm256_slli_epi64::<32>(u),
            _mm256_and_si256(ll, _mm256_set1_epi64x(0xffff_ffff)),
        );
        (lo, hi)
    }
}

/// High 64 bits of the lane-wise product. Caller holds an AVX2 token.
#[inline(always)]
unsafe fn mulhi64(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: caller guarantees AVX2.
    unsafe { mul_wide64(a, b).1 }
}

/// `floor(x · wp / 2^64) - e` with `e` in `{0, 1, 2}`, from three of the four 32 x 32 partial
/// products: the low-by-low product and the carries of the two cross products are dropped,
/// each worth less than one unit. `wp_hi`: the high words of `wp` in the low halves (its
/// shift, or [`Simd::load_odd`]). Caller holds an AVX2 token.
#[inline(always)]
unsafe fn mulhi64_approx(x: __m256i, wp: __m256i, wp_hi: __m256i) -> __m256i {
    // SAFETY: caller guarantees AVX2.
    unsafe {
        let x_hi = _mm256_srli_epi64::<32>(x);
        let hh = mul_epu32(x_hi, wp_hi);
        let hl = mul_epu32(x_hi, wp);
        let lh = mul_epu32(x, wp_hi);
        _mm256_add_epi64(
            hh,
            _mm256_add_epi64(_mm256_srli_epi64::<32>(hl), _mm256_srli_epi64::<32>(lh)),
        )
    }
}

/// Low 64 bits of the lane-wise product. Caller holds an AVX2 token.
#[inline(always)]
unsafe fn mullo64(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: caller guarantees AVX2.
    unsafe { mullo64_split(a, b, _mm256_srli_epi64::<32>(b)) }
}

/// [`mullo64`] with the high words of `b` supplied in the low halves of `b_hi`. Caller holds
/// an AVX2 token.
#[inline(always)]
unsafe fn mullo64_split(a: __m256i, b: __m256i, b_hi: __m256i) -> __m256i {
    // SAFETY: caller guarantees AVX2.
    unsafe {
        let ll = mul_epu32(a, b);
        let lh = mul_epu32(a, b_hi);
        let hl = mul_epu32(_mm256_srli_epi64::<32>(a), b);
        _mm256_add_epi64(ll, _mm256_slli_epi64::<32>(_mm256_add_epi64(lh, hl)))
    }
}

/// `qhat · q mod 2^64`; with `Q1` (`q ≡ 1 mod 2^32`, `q = k · 2^32 + 1`) as
/// `qhat + ((qhat · k) mod 2^32) · 2^32`, one partial product. Caller holds an AVX2 token.
#[inline(always)]
unsafe fn mullo_q<const Q1: bool>(qhat: __m256i, q: __m256i) -> __m256i {
    // SAFETY: caller guarantees AVX2.
    unsafe {
        if Q1 {
            let qk = mul_epu32(qhat, _mm256_srli_epi64::<32>(q));
            _mm256_add_epi64(qhat, _mm256_slli_epi64::<32>(qk))
        } else {
            mullo64(qhat, q)
        }
    }
}

/// `x · w mod q` in `[0, 4q)` for any `x < 2^64` (the lazier Shoup product), with `w_hi`,
/// `wp_hi` the high words of `w` and of its quotient `wp` in their low halves. Caller holds an
/// AVX2 token.
#[inline(always)]
unsafe fn shoup_lazier<const Q1: bool>(
    x: __m256i,
    w: __m256i,
    w_hi: __m256i,
    wp: __m256i,
    wp_hi: __m256i,
    q: __m256i,
) -> __m256i {
    // SAFETY: caller guarantees AVX2.
    unsafe {
        // qhat = Q - e with Q the exact Shoup quotient and e <= 2, so x w - qhat q =
        // (x w - Q q) + e q lies in [0, 4q) for any x < 2^64 (below 2^64 as q < 2^62):
        // exact in wrapping arithmetic.
        let qhat = mulhi64_approx(x, wp, wp_hi);
        if Q1 {
            // x w - qhat q = (ll - qhat) + (lh + hl - qhat k) 2^32 (mod 2^64), with ll, lh,
            // hl the low-by-low and cross partial products of x w and q = k 2^32 + 1.
            let ll = mul_epu32(x, w);
            let lh = mul_epu32(x, w_hi);
            let hl = mul_epu32(_mm256_srli_epi64::<32>(x), w);
            let qk = mul_epu32(qhat, _mm256_srli_epi64::<32>(q));
            let mid = _mm256_sub_epi64(_mm256_add_epi64(lh, hl), qk);
            _mm256_add_epi64(_mm256_sub_epi64(ll, qhat), _mm256_slli_epi64::<32>(mid))
        } else {
            _mm256_sub_epi64(mullo64_split(x, w, w_hi), mullo64(qhat, q))
        }
    }
}

/// `a >= m ? a - m : a` for unsigned 64-bit lanes with `a < 2m` and `m <= 2^63`, or with
/// `a, m < 2^63` (what every caller passes: the drivers' contract of [`Simd::csub`], and the
/// products below), in two operations: `d = a - m` is then in `[-2^63, 2^63)`, so its sign
/// bit says whether `a < m`, and `vblendvpd` selects on the sign bit. (The unsigned compare
/// through flipped sign bits, for any `a`, takes four.) Caller holds an AVX2 token.
#[inline(always)]
unsafe fn csub64(a: __m256i, m: __m256i) -> __m256i {
    // SAFETY: caller guarantees AVX2.
    unsafe {
        let d = _mm256_sub_epi64(a, m);
        _mm256_castpd_si256(_mm256_blendv_pd(
            _mm256_castsi256_pd(d),
            _mm256_castsi256_pd(a),
            _mm256_castsi256_pd(d),
        ))
    }
}

/// The Barrett products' shared start: `(a b mod 2^64, floor(a b / 2^(k-1)))` for `q` of `k`
/// bits. Caller holds an AVX2 token.
#[inline(always)]
unsafe fn barrett_input(a: __m256i, b: __m256i, k: u32) -> (__m256i, __m256i) {
    // SAFETY: caller guarantees AVX2.
    unsafe {
        let (lo, hi) = mul_wide64(a, b);
        let x = _mm256_or_si256(
            _mm256_srl_epi64(lo, _mm_cvtsi32_si128(k as i32 - 1)),
            _mm256_sll_epi64(hi, _mm_cvtsi32_si128(65 - k as i32)),
        );
        (lo, x)
    }
}

impl<const Q1: bool> Simd for Avx2U64<Q1> {
    type W = u64;
    type V = __m256i;
    const LANES: usize = 4;
    const SHOUP_BITS: u32 = 64;
    const MONT_BITS: u32 = 64;
    // Emulated 64-bit products make each butterfly a long dependency chain: independent
    // radix-2 butterflies measured faster than radix-4 pairs of dependent ones.
    const RADIX4: bool = false;
    // The checked inverse checks as its first pass loads, in a scratch array.
    const INV_CHECK_THROUGH: bool = true;
    // The products take any 64-bit input and, without their final correction, return values
    // in [0, 4q): with q <= 2^61 the transforms keep values below 8q (lazy::WIDE), with
    // q <= 2^60 below 16q (lazy::SLOTH), as on the AVX-512 backend.
    const SLOTHFUL: bool = true;
    const VALUE_BITS: u32 = 64;
    const LAZIER_V: u64 = 4;
    // The range check of `forward_checked` rides on the first layer (seven operations per
    // pair of vectors there) instead of a pass of its own over the input.
    const FUSED_CHECK: bool = true;

    #[inline(always)]
    fn splat(self, x: u64) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_set1_epi64x(x as i64) }
    }
    #[inline(always)]
    fn load(self, s: &[u64]) -> __m256i {
        let s = &s[..4];
        // SAFETY: token proves AVX2; `s` has 4 readable u64.
        unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, s: &mut [u64], v: __m256i) {
        let s = &mut s[..4];
        // SAFETY: token proves AVX2; `s` has 4 writable u64.
        unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_add_epi64(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_sub_epi64(a, b) }
    }
    #[inline(always)]
    fn csub(self, a: __m256i, m: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { csub64(a, m) }
    }
    #[inline(always)]
    fn max(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2. Unsigned compare via sign flip, then blend.
        unsafe {
            let sign = _mm256_set1_epi64x(i64::MIN);
            let gt = _mm256_cmpgt_epi64(_mm256_xor_si256(b, sign), _mm256_xor_si256(a, sign));
            _mm256_blendv_epi8(a, b, gt)
        }
    }
    #[inline(always)]
    fn any_ge(self, v: __m256i, bound: __m256i) -> bool {
        // SAFETY: token proves AVX2. Unsigned compare via sign flip: every lane below `bound`
        // sets all 32 bytes of the mask.
        unsafe {
            let sign = _mm256_set1_epi64x(i64::MIN);
            let lt = _mm256_cmpgt_epi64(_mm256_xor_si256(bound, sign), _mm256_xor_si256(v, sign));
            _mm256_movemask_epi8(lt) != -1
        }
    }
    #[inline(always)]
    fn mul_shoup_lazy(self, x: __m256i, w: __m256i, wp: __m256i, q: __m256i) -> __m256i {
        let r = self.mul_shoup_lazier(x, w, wp, q);
        // SAFETY: token proves AVX2. r < 4q and 2q < 2^63: within the bounds of csub64.
        unsafe { csub64(r, _mm256_add_epi64(q, q)) }
    }
    #[inline(always)]
    fn mul_shoup_lazier(self, x: __m256i, w: __m256i, wp: __m256i, q: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe {
            shoup_lazier::<Q1>(
                x,
                w,
                _mm256_srli_epi64::<32>(w),
                wp,
                _mm256_srli_epi64::<32>(wp),
                q,
            )
        }
    }
    /// The in-register layers read the high words of their twiddles and quotients from
    /// memory (two `vpsrlq` less per product).
    const ODD_TWIDDLES: bool = true;
    #[inline(always)]
    fn load_odd(self, s: &[u64]) -> __m256i {
        let s = &s[..5];
        // SAFETY: token proves AVX2; the 32 bytes from byte 4 of `s` lie within its 40.
        unsafe { _mm256_loadu_si256(s.as_ptr().cast::<u32>().add(1).cast()) }
    }
    #[inline(always)]
    fn mul_shoup_lazy_lanes(self, x: __m256i, tw: &LaneTw<__m256i>, q: __m256i) -> __m256i {
        let r = self.mul_shoup_lazier_lanes(x, tw, q);
        // SAFETY: token proves AVX2. r < 4q and 2q < 2^63: within the bounds of csub64.
        unsafe { csub64(r, _mm256_add_epi64(q, q)) }
    }
    #[inline(always)]
    fn mul_shoup_lazier_lanes(self, x: __m256i, tw: &LaneTw<__m256i>, q: __m256i) -> __m256i {
        // SAFETY: token proves AVX2. `tw.w_odd`, `tw.wp_odd` hold the high words of `tw.w`,
        // `tw.wp` in their low halves (`load_odd`).
        unsafe { shoup_lazier::<Q1>(x, tw.w, tw.w_odd, tw.wp, tw.wp_odd, q) }
    }
    /// The broadcast-twiddle layers take the lazier product too (the default would fall back
    /// to [`Simd::mul_shoup_lazy`] and spend a conditional subtraction per butterfly that the
    /// `WIDE` and `SLOTH` schedules leave out).
    #[inline(always)]
    fn mul_shoup_lazier_splat(self, x: __m256i, w: __m256i, wp: __m256i, q: __m256i) -> __m256i {
        self.mul_shoup_lazier(x, w, wp, q)
    }
    /// Barrett, as on the AVX-512 backend: `X = floor(a b / 2^(k-1))`, `qhat = floor(X mu /
    /// 2^64)` with `mu = floor(2^(k+63) / q)`, `a b - qhat q` in `[0, 3q)`, two conditional
    /// subtractions. The 128-bit product `a b` shares its four partial products between its
    /// halves: twelve `vpmuludq` against about twenty for Montgomery plus the fix.
    #[inline(always)]
    fn mul_mod(self, a: __m256i, b: __m256i, c: &MulConsts<__m256i>) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe {
            let (lo, x) = barrett_input(a, b, c.k);
            let qhat = mulhi64(x, c.mu);
            let r = _mm256_sub_epi64(lo, mullo_q::<Q1>(qhat, c.q));
            // r < 3q, and r < 2^63: with a b = X 2^(k-1) + rho and mu = 2^(k+63) / q - phi,
            // r < q + rho + q X phi / 2^64 < 2^62 + 2^61 + 2^61 (q < 2^62), within the
            // bounds of csub64.
            let r = csub64(r, _mm256_add_epi64(c.q, c.q));
            csub64(r, c.q)
        }
    }
    /// [`Simd::mul_mod`] with the quotient `floor(X mu / 2^64)` estimated from three of its
    /// four partial products ([`mulhi64_approx`], at most 2 below): `a b - qhat q` lies in
    /// `[0, 5q)` and below `3q + 2^(k-1) + q^3 / 2^(k+63) <= 15 · 2^59 < 2^63` for `q < 2^61`,
    /// so three conditional subtractions (`4q`, `2q`, `q`; within the bounds of [`csub64`])
    /// finish.
    #[inline(always)]
    fn mul_mod_narrow(self, a: __m256i, b: __m256i, c: &MulConsts<__m256i>) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe {
            let (lo, x) = barrett_input(a, b, c.k);
            let qhat = mulhi64_approx(x, c.mu, _mm256_srli_epi64::<32>(c.mu));
            let r = _mm256_sub_epi64(lo, mullo_q::<Q1>(qhat, c.q));
            let two_q = _mm256_add_epi64(c.q, c.q);
            let r = csub64(r, _mm256_add_epi64(two_q, two_q));
            let r = csub64(r, two_q);
            csub64(r, c.q)
        }
    }
    #[inline(always)]
    fn mont_mul(self, a: __m256i, b: __m256i, q: __m256i, qinv: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe {
            let (lo, hi) = mul_wide64(a, b);
            let m = mullo64(lo, qinv);
            let mh = mulhi64(m, q);
            let t = _mm256_sub_epi64(_mm256_add_epi64(hi, q), mh);
            csub64(t, q)
        }
    }
    #[inline(always)]
    fn deinterleave(self, a: __m256i, b: __m256i, t: usize) -> (__m256i, __m256i) {
        // SAFETY: token proves AVX2.
        unsafe {
            if t == 1 {
                // X = [a0 b0 a2 b2], Y = [a1 b1 a3 b3]
                (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b))
            } else {
                // X = [a0 a1 b0 b1], Y = [a2 a3 b2 b3]
                (
                    _mm256_permute2x128_si256::<0x20>(a, b),
                    _mm256_permute2x128_si256::<0x31>(a, b),
                )
            }
        }
    }
    #[inline(always)]
    fn interleave(self, x: __m256i, y: __m256i, t: usize) -> (__m256i, __m256i) {
        // Both permutations are involutions on the (a, b) <-> (X, Y) pair.
        self.deinterleave(x, y, t)
    }
}

entry_points!(Avx2U64<false>, u64, Isa::Avx2, "avx2");
entry_points!(Avx2U64<true>, u64, Isa::Avx2, "avx2");
convert_entry!(Avx2U64, "avx2");
round_entry!(Avx2U64, "avx2");

/// `2^52` as a double: adding it to an integer below `2^52` leaves the integer in the low
/// mantissa bits.
const TWO52: f64 = 4_503_599_627_370_496.0;

impl crate::ntt::simd::RoundLanes for Avx2U64 {
    type F = __m256d;
    #[inline(always)]
    fn mulhi_exact(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { mulhi64(a, b) }
    }
    #[inline(always)]
    fn mullo(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: token proves AVX2.
        unsafe { mullo64(a, b) }
    }
    #[inline(always)]
    fn carry_fix(self, alpha: __m256i, beta: __m256i, q: __m256i) -> (__m256i, __m256i) {
        // SAFETY: token proves AVX2. beta, q < 2^63, so the signed compare orders them.
        unsafe {
            let lt = _mm256_cmpgt_epi64(q, beta); // all-ones where beta < q
            (
                _mm256_add_epi64(_mm256_add_epi64(alpha, _mm256_set1_epi64x(1)), lt),
                _mm256_sub_epi64(beta, _mm256_andnot_si256(lt, q)),
            )
        }
    }
    #[inline(always)]
    fn to_f64(self, v: __m256i) -> __m256d {
        // SAFETY: token proves AVX2. Both 32-bit halves convert exactly (the 2^52 trick), the
        // high one times 2^32 stays exact, and the one rounding of the sum is that of the
        // direct conversion (round to nearest under the default MXCSR).
        unsafe {
            let magic = _mm256_set1_pd(TWO52);
            let bits = _mm256_castpd_si256(magic);
            let hi = _mm256_sub_pd(
                _mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64::<32>(v), bits)),
                magic,
            );
            let lo = _mm256_sub_pd(
                _mm256_castsi256_pd(_mm256_or_si256(
                    _mm256_and_si256(v, _mm256_set1_epi64x(0xffff_ffff)),
                    bits,
                )),
                magic,
            );
            _mm256_add_pd(_mm256_mul_pd(hi, _mm256_set1_pd(4_294_967_296.0)), lo)
        }
    }
    #[inline(always)]
    fn fsplat(self, x: f64) -> __m256d {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_set1_pd(x) }
    }
    #[inline(always)]
    fn fadd(self, a: __m256d, b: __m256d) -> __m256d {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_add_pd(a, b) }
    }
    #[inline(always)]
    fn fmul(self, a: __m256d, b: __m256d) -> __m256d {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_mul_pd(a, b) }
    }
    #[inline(always)]
    fn fsub(self, a: __m256d, b: __m256d) -> __m256d {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_sub_pd(a, b) }
    }
    #[inline(always)]
    fn fany_outside(self, f: __m256d, lo: f64, hi: f64) -> bool {
        // SAFETY: token proves AVX2 (AVX compares and movemask).
        unsafe {
            // not (f >= lo), not (f <= hi): true for NaN too
            let below = _mm256_cmp_pd::<_CMP_NGE_UQ>(f, _mm256_set1_pd(lo));
            let above = _mm256_cmp_pd::<_CMP_NLE_UQ>(f, _mm256_set1_pd(hi));
            _mm256_movemask_pd(_mm256_or_pd(below, above)) != 0
        }
    }
    #[inline(always)]
    fn trunc(self, f: __m256d) -> __m256i {
        // SAFETY: token proves AVX2. trunc(f) < 2^52 plus 2^52 is exact, and its low 52
        // mantissa bits are trunc(f).
        unsafe {
            let magic = _mm256_set1_pd(TWO52);
            let r = _mm256_add_pd(
                _mm256_round_pd::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(f),
                magic,
            );
            _mm256_xor_si256(_mm256_castpd_si256(r), _mm256_castpd_si256(magic))
        }
    }
    #[cfg(test)]
    #[inline(always)]
    fn fload(self, x: &[f64]) -> __m256d {
        let x = &x[..4];
        // SAFETY: token proves AVX2; `x` holds 4 doubles (an unaligned load).
        unsafe { _mm256_loadu_pd(x.as_ptr()) }
    }
    #[cfg(test)]
    #[inline(always)]
    fn fstore(self, f: __m256d, out: &mut [f64]) {
        let out = &mut out[..4];
        // SAFETY: token proves AVX2; `out` holds 4 doubles (an unaligned store).
        unsafe { _mm256_storeu_pd(out.as_mut_ptr(), f) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primes::{fast_ntt_primes, is_prime, ntt_primes};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    fn lanes<const Q1: bool>(s: Avx2U64<Q1>, v: __m256i) -> [u64; 4] {
        let mut o = [0u64; 4];
        s.store(&mut o, v);
        o
    }

    /// The lazier and lazy twiddle products of both instances against 128-bit arithmetic for
    /// operands anywhere below `2^64` (the slothful schedules feed such values), and the
    /// conditional subtraction at the edges of its contract (`a < 2m`, `m <= 2^63`), at the
    /// largest primes of 50 to 62 bits of either form and the smallest `q ≡ 1 (mod 2^32)`.
    #[test]
    fn products_and_csub_against_u128() {
        let Some(s) = Avx2U64::try_new() else {
            eprintln!("skipped: the CPU lacks AVX2");
            return;
        };
        let t = s.low_word_one();
        let mut rng = ChaCha20Rng::seed_from_u64(32);
        for bits in [50u32, 59, 60, 61, 62] {
            let smallest = ((1u64 << (bits - 33))..)
                .map(|k| (k << 32) + 1)
                .find(|&q| is_prime(q))
                .unwrap();
            let plain = ntt_primes(bits, 8, 1).unwrap()[0];
            let fast = fast_ntt_primes(bits, 8, 1).unwrap()[0];
            for q in [plain, fast, smallest] {
                let q1 = q & 0xffff_ffff == 1;
                let qv = s.splat(q);
                for i in 0..3000 {
                    let w = if i == 0 { q - 1 } else { rng.gen_range(0..q) };
                    let (wv, wpv) = (s.splat(w), s.splat(<Avx2U64 as Simd>::enc_shoup(w, q)));
                    let xs = [
                        rng.gen(),
                        u64::MAX - rng.gen_range(0..4),
                        rng.gen_range(0..4 * q),
                        i,
                    ];
                    let want = xs.map(|x| ((x as u128 * w as u128) % q as u128) as u64);
                    let x = s.load(&xs);
                    let mut got = vec![lanes(s, s.mul_shoup_lazier(x, wv, wpv, qv))];
                    let lazy = lanes(s, s.mul_shoup_lazy(x, wv, wpv, qv));
                    if q1 {
                        got.push(lanes(t, t.mul_shoup_lazier(x, wv, wpv, qv)));
                        let lazy1 = lanes(t, t.mul_shoup_lazy(x, wv, wpv, qv));
                        assert_eq!(lazy1, lazy, "q={q} w={w} x={xs:?}");
                    }
                    for r in got {
                        for j in 0..4 {
                            assert!(
                                r[j] < 4 * q && r[j] % q == want[j],
                                "q={q} w={w} x={}",
                                xs[j]
                            );
                        }
                    }
                    for j in 0..4 {
                        assert!(
                            lazy[j] < 2 * q && lazy[j] % q == want[j],
                            "q={q} x={}",
                            xs[j]
                        );
                    }
                }
                // csub64 with m = q, 2q, 4q, 8q (while m <= 2^63), a at the edges and random.
                let ms = [1u64, 2, 4, 8].map(|f| q.saturating_mul(f));
                for m in ms.into_iter().filter(|&m| m <= 1 << 63) {
                    let mut a: Vec<u64> = vec![0, 1, m - 1, m, m + 1, 2 * m - 1, 2 * m - 2, m / 2];
                    a.extend((0..4000).map(|_| rng.gen_range(0..2 * m)));
                    for c in a.chunks_exact(4) {
                        let got = lanes(s, s.csub(s.load(c), s.splat(m)));
                        let got1 = lanes(t, t.csub(t.load(c), t.splat(m)));
                        for j in 0..4 {
                            let want = if c[j] >= m { c[j] - m } else { c[j] };
                            assert_eq!((got[j], got1[j]), (want, want), "a={} m={m}", c[j]);
                        }
                    }
                }
            }
        }
    }

    /// The per-lane products of the in-register layers ([`Simd::ODD_TWIDDLES`]: the high words
    /// read by `load_odd` from a table of twiddles then quotients, as `small_fwd` holds them)
    /// against 128-bit arithmetic, both instances, operands anywhere below `2^64`.
    #[test]
    fn lane_twiddle_products_against_u128() {
        let Some(s) = Avx2U64::try_new() else {
            eprintln!("skipped: the CPU lacks AVX2");
            return;
        };
        let t = s.low_word_one();
        let mut rng = ChaCha20Rng::seed_from_u64(33);
        for q in [
            ntt_primes(62, 8, 1).unwrap()[0],
            fast_ntt_primes(62, 8, 1).unwrap()[0],
            fast_ntt_primes(60, 8, 1).unwrap()[0],
            ntt_primes(50, 8, 1).unwrap()[0],
        ] {
            let qv = s.splat(q);
            for i in 0..3000u64 {
                // Twiddles (the first and last of the range included), quotients, padding.
                let ws: [u64; 4] = [q - 1, i % q, rng.gen_range(0..q), rng.gen_range(0..q)];
                let mut table = ws.to_vec();
                table.extend(ws.map(|w| <Avx2U64 as Simd>::enc_shoup(w, q)));
                table.push(rng.gen());
                let xs: [u64; 4] = [rng.gen(), u64::MAX - i % 4, rng.gen_range(0..4 * q), i];
                let want: [u64; 4] =
                    core::array::from_fn(|j| ((xs[j] as u128 * ws[j] as u128) % q as u128) as u64);
                let tw = LaneTw {
                    w: s.load(&table),
                    wp: s.load(&table[4..]),
                    w_odd: s.load_odd(&table),
                    wp_odd: s.load_odd(&table[4..]),
                };
                let x = s.load(&xs);
                let mut lazier = vec![lanes(s, s.mul_shoup_lazier_lanes(x, &tw, qv))];
                let mut lazy = vec![lanes(s, s.mul_shoup_lazy_lanes(x, &tw, qv))];
                if q & 0xffff_ffff == 1 {
                    lazier.push(lanes(t, t.mul_shoup_lazier_lanes(x, &tw, qv)));
                    lazy.push(lanes(t, t.mul_shoup_lazy_lanes(x, &tw, qv)));
                }
                for (r, r2) in lazier.iter().zip(&lazy) {
                    for j in 0..4 {
                        assert!(r[j] < 4 * q && r[j] % q == want[j], "q={q} x={}", xs[j]);
                        assert!(r2[j] < 2 * q && r2[j] % q == want[j], "q={q} x={}", xs[j]);
                    }
                }
            }
        }
    }
}
