//! AVX-512F/DQ backend, 8 x u64 lanes, any `q < 2^62`.
//!
//! The 64 x 64 -> high-64 product of the Montgomery reduction is emulated with four `vpmuludq`;
//! the Shoup quotient of the twiddle products only needs three (an estimate at most 2 below the
//! exact quotient, corrected by one conditional subtraction, see [`mulhi64_approx`]); low
//! products use `vpmullq` (AVX-512DQ).

use super::{convert_entry, entry_points, perm_tables, round_entry, step_tables};
use crate::isa::Isa;
use crate::ntt::backend::Entry;
use crate::ntt::simd::{self, MulConsts, Simd, SimdTables};
use core::arch::x86_64::*;

/// Proof that the CPU runs AVX-512F and AVX-512DQ.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512U64(());

impl Avx512U64 {
    pub(crate) fn try_new() -> Option<Self> {
        (is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512dq"))
            .then_some(Self(()))
    }
}

const DEINT: [[[i64; 8]; 2]; 3] = perm_tables::<8, 3, false>();
const DOWN: [[[i64; 8]; 2]; 3] = step_tables::<8, 3, false>();
const UP: [[[i64; 8]; 2]; 3] = step_tables::<8, 3, true>();
const INTER: [[[i64; 8]; 2]; 3] = perm_tables::<8, 3, true>();

/// Loads a constant index vector. Caller holds an AVX-512F token.
#[inline(always)]
unsafe fn idx(t: &[i64; 8]) -> __m512i {
    // SAFETY: caller guarantees AVX-512F; `t` has 8 readable i64.
    unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
}

/// `vpmuludq` behind an `asm!` barrier: LLVM otherwise recognises the emulated 64 x 64 high
/// product below and scalarises it into `mulq`, which is several times slower.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn mul_epu32(a: __m512i, b: __m512i) -> __m512i {
    let d: __m512i;
    // SAFETY: register-only instruction; avx512f is enabled on this function.
    unsafe {
        core::arch::asm!(
            "vpmuludq {d}, {a}, {b}",
            d = lateout(zmm_reg) d,
            a = in(zmm_reg) a,
            b = in(zmm_reg) b,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    d
}

/// High 64 bits of the lane-wise 64 x 64 product. Caller must hold an AVX-512F token.
#[inline(always)]
pub(super) unsafe fn mulhi64(a: __m512i, b: __m512i) -> __m512i {
    // SAFETY: the caller guarantees AVX-512F (token proof).
    unsafe {
        let a_hi = _mm512_srli_epi64::<32>(a);
        let b_hi = _mm512_srli_epi64::<32>(b);
        let ll = mul_epu32(a, b);
        let lh = mul_epu32(a, b_hi);
        let hl = mul_epu32(a_hi, b);
        let hh = mul_epu32(a_hi, b_hi);
        // No overflow: (2^32-1)^2 + 2^32 - 1 < 2^64.
        let t = _mm512_add_epi64(hl, _mm512_srli_epi64::<32>(ll));
        let u = _mm512_add_epi64(lh, _mm512_and_si512(t, _mm512_set1_epi64(0xffff_ffff)));
        _mm512_add_epi64(
            _mm512_add_epi64(hh, _mm512_srli_epi64::<32>(t)),
            _mm512_srli_epi64::<32>(u),
        )
    }
}

/// `floor(x · wp / 2^64) - e` with `e` in `{0, 1, 2}`, from three of the four 32 x 32 partial
/// products: the low-by-low product and the carries of the two cross products are dropped,
/// each worth less than one unit. Caller must hold an AVX-512F token.
#[inline(always)]
pub(super) unsafe fn mulhi64_approx(x: __m512i, wp: __m512i) -> __m512i {
    // SAFETY: the caller guarantees AVX-512F (token proof).
    unsafe {
        let x_hi = _mm512_srli_epi64::<32>(x);
        let wp_hi = _mm512_srli_epi64::<32>(wp);
        let hh = mul_epu32(x_hi, wp_hi);
        let hl = mul_epu32(x_hi, wp);
        let lh = mul_epu32(x, wp_hi);
        _mm512_add_epi64(
            hh,
            _mm512_add_epi64(_mm512_srli_epi64::<32>(hl), _mm512_srli_epi64::<32>(lh)),
        )
    }
}

/// The Barrett products' shared start: `(a b mod 2^64, floor(a b / 2^(k-1)))` for `q` of `k`
/// bits. Caller must hold an AVX-512F/DQ token.
#[inline(always)]
unsafe fn barrett_input(a: __m512i, b: __m512i, k: u32) -> (__m512i, __m512i) {
    // SAFETY: the caller guarantees AVX-512F and AVX-512DQ (token proof).
    unsafe {
        let hi = mulhi64(a, b);
        let lo = _mm512_mullo_epi64(a, b);
        let x = _mm512_or_si512(
            _mm512_srl_epi64(lo, _mm_cvtsi32_si128(k as i32 - 1)),
            _mm512_sll_epi64(hi, _mm_cvtsi32_si128(65 - k as i32)),
        );
        (lo, x)
    }
}

/// The 8-lane permutations shared by the AVX-512 u64 tokens. Caller holds an AVX-512F token.
#[inline(always)]
pub(super) unsafe fn deinterleave8(a: __m512i, b: __m512i, t: usize) -> (__m512i, __m512i) {
    let k = t.trailing_zeros() as usize;
    // SAFETY: the caller guarantees AVX-512F (token proof); k < 3 because t < 8.
    unsafe {
        (
            _mm512_permutex2var_epi64(a, idx(&DEINT[k][0]), b),
            _mm512_permutex2var_epi64(a, idx(&DEINT[k][1]), b),
        )
    }
}

/// Inverse of [`deinterleave8`]. Caller holds an AVX-512F token.
#[inline(always)]
pub(super) unsafe fn interleave8(x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
    let k = t.trailing_zeros() as usize;
    // SAFETY: the caller guarantees AVX-512F (token proof); k < 3 because t < 8.
    unsafe {
        (
            _mm512_permutex2var_epi64(x, idx(&INTER[k][0]), y),
            _mm512_permutex2var_epi64(x, idx(&INTER[k][1]), y),
        )
    }
}

/// Fused layout change (see `step_tables`). Caller holds an AVX-512F token.
#[inline(always)]
pub(super) unsafe fn step8(x: __m512i, y: __m512i, t: usize, up: bool) -> (__m512i, __m512i) {
    let k = t.trailing_zeros() as usize;
    let tab = if up { &UP[k] } else { &DOWN[k] };
    // SAFETY: the caller guarantees AVX-512F; k < 3 because t < 8.
    unsafe {
        (
            _mm512_permutex2var_epi64(x, idx(&tab[0]), y),
            _mm512_permutex2var_epi64(x, idx(&tab[1]), y),
        )
    }
}

/// The lane-wise operations both 8 x u64 AVX-512 tokens (this one and IFMA) share: loads,
/// stores, wrapping add/sub, `vpminuq`-based conditional subtraction, max and the permutations.
/// Used inside their `impl Simd` blocks; every token implementing it proves AVX-512F.
macro_rules! avx512_u64_lanes {
    () => {
        // The range check rides on the forward's first layer (`simd::forward_checked`): one
        // `vpcmpuq` into a mask register per set of loaded vectors.
        const FUSED_CHECK: bool = true;
        #[inline(always)]
        fn any_ge(self, v: __m512i, bound: __m512i) -> bool {
            // SAFETY: token proves AVX-512F.
            unsafe { _mm512_cmpge_epu64_mask(v, bound) != 0 }
        }
        #[inline(always)]
        fn fence8(self, v: &mut [__m512i; 8]) {
            // SAFETY: token proves AVX-512F.
            unsafe { super::fence8_zmm(v) }
        }
        #[inline(always)]
        fn splat(self, x: u64) -> __m512i {
            // SAFETY: token proves AVX-512F.
            unsafe { _mm512_set1_epi64(x as i64) }
        }
        #[inline(always)]
        fn load(self, s: &[u64]) -> __m512i {
            let s = &s[..8];
            // SAFETY: token proves AVX-512F; `s` has 8 readable u64 (unaligned load).
            unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
        }
        #[inline(always)]
        fn store(self, s: &mut [u64], v: __m512i) {
            let s = &mut s[..8];
            // SAFETY: token proves AVX-512F; `s` has 8 writable u64 (unaligned store).
            unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), v) }
        }
        #[inline(always)]
        fn add(self, a: __m512i, b: __m512i) -> __m512i {
            // SAFETY: token proves AVX-512F.
            unsafe { _mm512_add_epi64(a, b) }
        }
        #[inline(always)]
        fn sub(self, a: __m512i, b: __m512i) -> __m512i {
            // SAFETY: token proves AVX-512F.
            unsafe { _mm512_sub_epi64(a, b) }
        }
        #[inline(always)]
        fn csub(self, a: __m512i, m: __m512i) -> __m512i {
            // SAFETY: token proves AVX-512F. min(a, a - m) is a - m exactly when a >= m.
            unsafe { _mm512_min_epu64(a, _mm512_sub_epi64(a, m)) }
        }
        #[inline(always)]
        fn max(self, a: __m512i, b: __m512i) -> __m512i {
            // SAFETY: token proves AVX-512F.
            unsafe { _mm512_max_epu64(a, b) }
        }
        const BCAST_TWIDDLES: bool = true;
        #[inline(always)]
        fn load_bcast(self, s: &[u64], g: usize) -> __m512i {
            let s = &s[..g];
            // SAFETY: token proves AVX-512F; `s` has `g` readable u64 (16, 32 or 64 bytes for
            // g = 2, 4, 8; unaligned loads).
            unsafe {
                match g {
                    2 => _mm512_broadcast_i32x4(_mm_loadu_si128(s.as_ptr().cast())),
                    4 => _mm512_broadcast_i64x4(_mm256_loadu_si256(s.as_ptr().cast())),
                    8 => _mm512_loadu_si512(s.as_ptr().cast()),
                    _ => _mm512_set1_epi64(s[0] as i64),
                }
            }
        }
        #[inline(always)]
        fn deinterleave(self, a: __m512i, b: __m512i, t: usize) -> (__m512i, __m512i) {
            // SAFETY: token proves AVX-512F.
            unsafe { deinterleave8(a, b, t) }
        }
        #[inline(always)]
        fn interleave(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
            // SAFETY: token proves AVX-512F.
            unsafe { interleave8(x, y, t) }
        }
        #[inline(always)]
        fn step_down(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
            // SAFETY: token proves AVX-512F.
            unsafe { step8(x, y, t, false) }
        }
        #[inline(always)]
        fn step_up(self, x: __m512i, y: __m512i, t: usize) -> (__m512i, __m512i) {
            // SAFETY: token proves AVX-512F.
            unsafe { step8(x, y, t, true) }
        }
    };
}
pub(super) use avx512_u64_lanes;

impl Simd for Avx512U64 {
    type W = u64;
    type V = __m512i;
    const LANES: usize = 8;
    const SHOUP_BITS: u32 = 64;
    const MONT_BITS: u32 = 64;
    // Emulated 64-bit products make each butterfly a long dependency chain: independent
    // radix-2 butterflies measured faster than radix-4 pairs of dependent ones.
    const RADIX4: bool = false;
    // The checked inverse checks as its first pass loads, in a scratch array.
    const INV_CHECK_THROUGH: bool = true;
    // Forward transforms under lazy::SLOTH (q <= 2^60) end in register blocks of 16 vectors
    // (128 values). `examples/ntt_bench` against blocks-off on Zen 5 (min of 3 alternating
    // runs), 60-bit primes: n = 1024 0.981 -> 0.875 µs, 2048 2.06 -> 1.95, 4096 4.49 -> 4.05,
    // 4 x 8192 37.6 -> 34.9. Under the other schedules the longer products spill: 4096 with a
    // 61-bit prime 4.45 -> 4.74, 62-bit 4.92 -> 5.02, 1024 62-bit 1.08 -> 1.22 (with the
    // layer fences of `Simd::fence8` still 4.53 -> 4.75, 5.00 -> 5.13, 1.07 -> 1.12). The
    // inverse runs blocks of 16 under every schedule. Without the fences blocks spilled the
    // inverse's longer chains (4 x 8192 at 60 bits 39.0 -> 53.5 µs). With them, against the
    // memory passes (`ntt_bench`, alternating): 4 x 8192 60-bit 39.2-39.7 -> 36.2-37.3 µs,
    // 1024 60-bit 1.02-1.03 -> 0.88-0.89, 4096 62-bit 5.14-5.19 -> 4.70-4.75, 1024 62-bit
    // 1.11-1.12 -> 0.99-1.01.
    const REG_BLOCKS: bool = true;
    const REG_V: usize = 16;
    #[inline(always)]
    fn reg_blocks_fwd(m: u8) -> bool {
        m == simd::lazy::SLOTH
    }

    avx512_u64_lanes!();

    // The products take any 64-bit input and, without their final correction, return values
    // in [0, 4q): with q <= 2^61 the transforms keep values below 8q (lazy::WIDE), with
    // q <= 2^60 below 16q (lazy::SLOTH).
    const SLOTHFUL: bool = true;
    const VALUE_BITS: u32 = 64;
    const LAZIER_V: u64 = 4;

    #[inline(always)]
    fn mul_shoup_lazy(self, x: __m512i, w: __m512i, wp: __m512i, q: __m512i) -> __m512i {
        let r = self.mul_shoup_lazier(x, w, wp, q);
        // SAFETY: token proves AVX-512F.
        unsafe {
            let two_q = _mm512_add_epi64(q, q);
            _mm512_min_epu64(r, _mm512_sub_epi64(r, two_q))
        }
    }
    #[inline(always)]
    fn mul_shoup_lazier(self, x: __m512i, w: __m512i, wp: __m512i, q: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F and AVX-512DQ (vpmullq).
        unsafe {
            // qhat = Q - e with Q the exact Shoup quotient and e <= 2, so x w - qhat q =
            // (x w - Q q) + e q lies in [0, 4q) for any x < 2^64 (below 2^64 as q < 2^62):
            // exact in wrapping arithmetic.
            let qhat = mulhi64_approx(x, wp);
            _mm512_sub_epi64(_mm512_mullo_epi64(x, w), _mm512_mullo_epi64(qhat, q))
        }
    }
    /// The broadcast-twiddle layers take the lazier product too (the default would fall back
    /// to [`Simd::mul_shoup_lazy`] and spend a conditional subtraction per butterfly that the
    /// `WIDE` and `SLOTH` schedules leave out).
    #[inline(always)]
    fn mul_shoup_lazier_splat(self, x: __m512i, w: __m512i, wp: __m512i, q: __m512i) -> __m512i {
        self.mul_shoup_lazier(x, w, wp, q)
    }
    /// Barrett: `X = floor(a b / 2^(k-1)) < 2^(k+1)`, `qhat = floor(X mu / 2^64)` with
    /// `mu = floor(2^(k+63) / q)` is at most 2.5 below `a b / q` (k <= 62), so
    /// `a b - qhat q` lies in `[0, 3q)` and two conditional subtractions finish. Eight
    /// `vpmuludq` and two `vpmullq`, against eleven and four for Montgomery plus the fix.
    #[inline(always)]
    fn mul_mod(self, a: __m512i, b: __m512i, c: &MulConsts<__m512i>) -> __m512i {
        // SAFETY: token proves AVX-512F and AVX-512DQ.
        unsafe {
            let (lo, x) = barrett_input(a, b, c.k);
            let qhat = mulhi64(x, c.mu);
            let r = _mm512_sub_epi64(lo, _mm512_mullo_epi64(qhat, c.q));
            let two_q = _mm512_add_epi64(c.q, c.q);
            let r = _mm512_min_epu64(r, _mm512_sub_epi64(r, two_q));
            _mm512_min_epu64(r, _mm512_sub_epi64(r, c.q))
        }
    }
    /// [`Simd::mul_mod`]'s Barrett product with the quotient `floor(X mu / 2^64)` estimated from
    /// three of its four partial products ([`mulhi64_approx`], at most 2 below): the exact
    /// quotient estimate is at most 2 below `floor(a b / q)` for `k <= 61`, so `a b - qhat q`
    /// lies in `[0, 5q)`, below `2^64` for `q < 2^61`, and three conditional subtractions
    /// (`4q`, `2q`, `q`) finish. Seven `vpmuludq` instead of eight and four fewer shifts and
    /// additions, for one more correction. (Sampled, `a b - qhat q` stays below `3q`.)
    #[inline(always)]
    fn mul_mod_narrow(self, a: __m512i, b: __m512i, c: &MulConsts<__m512i>) -> __m512i {
        // SAFETY: token proves AVX-512F and AVX-512DQ.
        unsafe {
            let (lo, x) = barrett_input(a, b, c.k);
            let qhat = mulhi64_approx(x, c.mu);
            let r = _mm512_sub_epi64(lo, _mm512_mullo_epi64(qhat, c.q));
            let two_q = _mm512_add_epi64(c.q, c.q);
            let four_q = _mm512_add_epi64(two_q, two_q);
            let r = _mm512_min_epu64(r, _mm512_sub_epi64(r, four_q));
            let r = _mm512_min_epu64(r, _mm512_sub_epi64(r, two_q));
            _mm512_min_epu64(r, _mm512_sub_epi64(r, c.q))
        }
    }
    #[inline(always)]
    fn mont_mul(self, a: __m512i, b: __m512i, q: __m512i, qinv: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F and AVX-512DQ.
        unsafe {
            let lo = _mm512_mullo_epi64(a, b);
            let hi = mulhi64(a, b);
            let m = _mm512_mullo_epi64(lo, qinv);
            let mh = mulhi64(m, q);
            // hi - mh in (-q, q): add q, then fold [0, 2q) to [0, q).
            let t = _mm512_sub_epi64(_mm512_add_epi64(hi, q), mh);
            _mm512_min_epu64(t, _mm512_sub_epi64(t, q))
        }
    }
}

entry_points!(Avx512U64, u64, Isa::Avx512, "avx512f,avx512dq");
convert_entry!(Avx512U64, "avx512f,avx512dq");
round_entry!(Avx512U64, "avx512f,avx512dq");

impl crate::ntt::simd::RoundLanes for Avx512U64 {
    type F = __m512d;
    #[inline(always)]
    fn mulhi_exact(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F.
        unsafe { mulhi64(a, b) }
    }
    #[inline(always)]
    fn mullo(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512DQ (vpmullq).
        unsafe { _mm512_mullo_epi64(a, b) }
    }
    #[inline(always)]
    fn carry_fix(self, alpha: __m512i, beta: __m512i, q: __m512i) -> (__m512i, __m512i) {
        // SAFETY: token proves AVX-512F.
        unsafe {
            let ge = _mm512_cmpge_epu64_mask(beta, q);
            (
                _mm512_mask_add_epi64(alpha, ge, alpha, _mm512_set1_epi64(1)),
                _mm512_mask_sub_epi64(beta, ge, beta, q),
            )
        }
    }
    #[inline(always)]
    fn to_f64(self, v: __m512i) -> __m512d {
        // SAFETY: token proves AVX-512DQ (vcvtqq2pd: the signed reading, which is v itself for
        // v < 2^63, rounded once under the MXCSR's mode, as Rust's `as` is).
        unsafe { _mm512_cvtepi64_pd(v) }
    }
    #[inline(always)]
    fn fsplat(self, x: f64) -> __m512d {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_set1_pd(x) }
    }
    #[inline(always)]
    fn fadd(self, a: __m512d, b: __m512d) -> __m512d {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_add_pd(a, b) }
    }
    #[inline(always)]
    fn fmul(self, a: __m512d, b: __m512d) -> __m512d {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_mul_pd(a, b) }
    }
    #[inline(always)]
    fn fsub(self, a: __m512d, b: __m512d) -> __m512d {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_sub_pd(a, b) }
    }
    #[inline(always)]
    fn fany_outside(self, f: __m512d, lo: f64, hi: f64) -> bool {
        // SAFETY: token proves AVX-512F.
        unsafe {
            // not (f >= lo), not (f <= hi): true for NaN too
            let below = _mm512_cmp_pd_mask::<_CMP_NGE_UQ>(f, _mm512_set1_pd(lo));
            let above = _mm512_cmp_pd_mask::<_CMP_NLE_UQ>(f, _mm512_set1_pd(hi));
            below | above != 0
        }
    }
    #[inline(always)]
    fn trunc(self, f: __m512d) -> __m512i {
        // SAFETY: token proves AVX-512DQ (vcvttpd2uqq truncates whatever the MXCSR says).
        unsafe { _mm512_cvttpd_epu64(f) }
    }
    #[cfg(test)]
    #[inline(always)]
    fn fload(self, x: &[f64]) -> __m512d {
        let x = &x[..8];
        // SAFETY: token proves AVX-512F; `x` holds 8 doubles (an unaligned load).
        unsafe { _mm512_loadu_pd(x.as_ptr()) }
    }
    #[cfg(test)]
    #[inline(always)]
    fn fstore(self, f: __m512d, out: &mut [f64]) {
        let out = &mut out[..8];
        // SAFETY: token proves AVX-512F; `out` holds 8 doubles (an unaligned store).
        unsafe { _mm512_storeu_pd(out.as_mut_ptr(), f) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ntt::simd::shoup_quotient;

    /// Both forms of the lazier twiddle product (per-lane and broadcast twiddles) skip the final
    /// correction: outputs congruent to `x w`, below `4q`, and some of them in `[2q, 4q)`. A trait
    /// default once sent the broadcast form through the corrected product, so every memory layer
    /// of the `WIDE` / `SLOTH` schedules paid a conditional subtraction it was designed without
    /// (8% of W1); the results stay correct either way, so only this test sees it.
    #[test]
    fn lazier_products_skip_the_correction_in_both_forms() {
        let Some(t) = Avx512U64::try_new() else {
            println!("skipped: no AVX-512F/DQ on this CPU");
            return;
        };
        let q = crate::primes::ntt_primes(60, 1024, 1).unwrap()[0];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let (mut high, mut total) = ([0usize; 2], 0);
        for k in 0..2000u64 {
            let w = (k.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 4) % q;
            let wp = shoup_quotient(w, q, 64);
            let mut xs = [0u64; 8];
            for v in xs.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *v = x; // any 64-bit input
            }
            let load = |v: &[u64; 8]| t.load(v);
            let (xv, qv) = (load(&xs), t.splat(q));
            for (form, r) in [
                t.mul_shoup_lazier(xv, t.splat(w), t.splat(wp), qv),
                t.mul_shoup_lazier_splat(xv, t.splat(w), t.splat(wp), qv),
            ]
            .into_iter()
            .enumerate()
            {
                let mut out = [0u64; 8];
                t.store(&mut out, r);
                for (&o, &xi) in out.iter().zip(&xs) {
                    assert!(o < 4 * q);
                    let want = ((xi as u128 * w as u128) % q as u128) as u64;
                    assert_eq!(o % q, want);
                    high[form] += usize::from(o >= 2 * q);
                    total += 1;
                }
            }
        }
        // Per form (per-lane, broadcast): each must leave some outputs in [2q, 4q).
        assert!(
            high.iter().all(|&h| h > 0),
            "outputs in [2q, 4q) per form {high:?} of {total}: a form was corrected"
        );
    }
}
