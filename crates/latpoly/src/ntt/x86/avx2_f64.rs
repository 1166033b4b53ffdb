//! AVX2 + FMA backend for `q < 2^50`: the transforms in double precision, 4 x f64 lanes.
//!
//! Without AVX-512, a 64 x 64-bit product costs three or four `vpmuludq` and the shifts and
//! additions that combine them ([`super::avx2_u64`]: about 27 vector operations a butterfly,
//! nine of them `vpmuludq`).
//! For `q < 2^50` every value the transforms hold (below `4q`, or `8q` under `lazy::SLOTH` and
//! `lazy::HALF`, which need `q <= 2^49`)
//! is an integer below `2^52`, exact in an `f64`, and the twiddle product is a handful of
//! FMA-unit operations. With `wq = fl(w / q)` (correctly rounded, `w < q`):
//!
//! ```text
//! k  = round(fl(x · wq - 1))       the quotient estimate, one below round(x w / q)
//! h  = fl(k · q)                    k q = h + l exactly:
//! l  = fma(k, q, -h)                    the low part of k q
//! t  = fma(x, w, -h)                x w - h, an integer below 2^53: exact
//! r  = t - l  = x w - k q           exact, in (0, 2q)
//! ```
//!
//! Why `r` lies in `(0, 2q)` for `x < 2^52`: `|wq - w/q| <= 2^-54` (`w/q < 1`), so
//! `|x · wq - x w / q| < 2^52 · 2^-54 = 1/4`, and the FMA rounds `x · wq - 1 < 2^52` by at most
//! half an ulp, `1/4`; so `|k - (x w / q - 1)| < 1/2 + 1/2 = 1` after rounding to nearest, and
//! `r = x w - k q` is within `q` of `q`. `h - k q` and `t` are exact because both are integers
//! of magnitude below `2^53` that an FMA computes from exact products.
//!
//! That is six operations (four on the FMA pipes) against about twenty-two integer operations
//! for the integer backend's product (nine of them `vpmuludq`). Additions and subtractions of integers below `2^53` are exact, and a
//! conditional subtraction is a subtraction and a blend on the sign.
//!
//! The arrays hold the `f64` bits of the values during a transform ([`Simd::enc`]); the entry
//! points convert the caller's integers (`u64`) in one pass before and one after (two
//! operations per vector each way: an OR with the bits of `2^52` and a subtraction of `2^52`,
//! and back). The range check of `forward_checked` runs in the conversion pass. Everything
//! that is not a transform (pointwise products, additions, range checks, parities) runs on the
//! integer AVX2 backend, which holds the caller's integers.

use super::avx2_u64::Avx2U64;
use crate::isa::Isa;
use crate::ntt::backend::{Entry, Kernels};
use crate::ntt::simd::{self, MulConsts, Simd, SimdTables};
use core::arch::x86_64::*;

/// `2^52`: `bits(2^52) | x` is the `f64` `2^52 + x` for an integer `x < 2^52`.
const MAGIC: f64 = 4_503_599_627_370_496.0;

/// Proof that the CPU runs AVX2 and FMA.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2F64(());

impl Avx2F64 {
    pub(crate) fn try_new() -> Option<Self> {
        (is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")).then_some(Self(()))
    }
    /// Whether this backend takes modulus `q`: every value of the lazy schedules below `2^52`.
    pub(crate) fn supports(q: u64) -> bool {
        q < 1 << 50
    }
}

/// Integers below `2^52` to their `f64` values. Caller holds an AVX2 token.
#[inline(always)]
unsafe fn to_f64(x: __m256i) -> __m256d {
    // SAFETY: caller guarantees AVX2.
    unsafe {
        let m = _mm256_set1_pd(MAGIC);
        _mm256_sub_pd(_mm256_or_pd(_mm256_castsi256_pd(x), m), m)
    }
}

/// `f64` values that are integers in `[0, 2^52)` back to integers. Caller holds an AVX2 token.
#[inline(always)]
unsafe fn to_u64(x: __m256d) -> __m256i {
    // SAFETY: caller guarantees AVX2.
    unsafe {
        let m = _mm256_set1_pd(MAGIC);
        _mm256_castpd_si256(_mm256_xor_pd(_mm256_add_pd(x, m), m))
    }
}

impl Simd for Avx2F64 {
    type W = u64;
    type V = __m256d;
    const LANES: usize = 4;
    // Unused: the Shoup constant is `fl(w / q)` ([`Simd::enc_shoup`]).
    const SHOUP_BITS: u32 = 0;
    // No Montgomery factor: `mont_mul` is the plain product mod `q`.
    const MONT_BITS: u32 = 0;
    // Values below 2^52 (8q for q <= 2^49: lazy::SLOTH forward, lazy::HALF inverse).
    const SLOTHFUL: bool = true;
    const VALUE_BITS: u32 = 52;

    #[inline(always)]
    fn enc(x: u64) -> u64 {
        (x as f64).to_bits()
    }
    #[inline(always)]
    fn enc_shoup(w: u64, q: u64) -> u64 {
        (w as f64 / q as f64).to_bits()
    }
    #[inline(always)]
    fn splat(self, x: u64) -> __m256d {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_set1_pd(f64::from_bits(x)) }
    }
    #[inline(always)]
    fn load(self, s: &[u64]) -> __m256d {
        let s = &s[..4];
        // SAFETY: token proves AVX2; `s` has 4 readable u64 (f64 bits).
        unsafe { _mm256_loadu_pd(s.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, s: &mut [u64], v: __m256d) {
        let s = &mut s[..4];
        // SAFETY: token proves AVX2; `s` has 4 writable u64.
        unsafe { _mm256_storeu_pd(s.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(self, a: __m256d, b: __m256d) -> __m256d {
        // SAFETY: token proves AVX2. Exact: integers whose sum is below 2^53.
        unsafe { _mm256_add_pd(a, b) }
    }
    #[inline(always)]
    fn sub(self, a: __m256d, b: __m256d) -> __m256d {
        // SAFETY: token proves AVX2. Exact: integers below 2^53 in magnitude (a negative
        // intermediate, such as `u - v` before `+ V q`, is exact too).
        unsafe { _mm256_sub_pd(a, b) }
    }
    #[inline(always)]
    fn csub(self, a: __m256d, m: __m256d) -> __m256d {
        // SAFETY: token proves AVX2. `a - m` where non-negative, else `a` (the blend reads
        // the sign bit of `a - m`; `a = m` gives +0).
        unsafe {
            let d = _mm256_sub_pd(a, m);
            _mm256_blendv_pd(d, a, d)
        }
    }
    #[inline(always)]
    fn max(self, a: __m256d, b: __m256d) -> __m256d {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_max_pd(a, b) }
    }
    #[inline(always)]
    fn any_ge(self, v: __m256d, bound: __m256d) -> bool {
        // SAFETY: token proves AVX2.
        unsafe { _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_GE_OQ>(v, bound)) != 0 }
    }
    #[inline(always)]
    fn parity_mask(self, v: __m256d, half: u64) -> u64 {
        let mut lanes = [0u64; 4];
        // SAFETY: token proves AVX2; the values are integers below 2^52.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), to_u64(v)) };
        lanes.iter().enumerate().fold(0u64, |acc, (i, &x)| {
            acc | (((x & 1) ^ (half.wrapping_sub(x) >> 63)) << i)
        })
    }
    #[inline(always)]
    fn mul_shoup_lazy(self, x: __m256d, w: __m256d, wq: __m256d, q: __m256d) -> __m256d {
        // SAFETY: token proves AVX2 and FMA. See the module documentation for the bounds.
        unsafe {
            let k = _mm256_round_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
                _mm256_fmadd_pd(x, wq, _mm256_set1_pd(-1.0)),
            );
            let h = _mm256_mul_pd(k, q);
            let l = _mm256_fmsub_pd(k, q, h);
            let t = _mm256_fmsub_pd(x, w, h);
            _mm256_sub_pd(t, l)
        }
    }
    /// `a b mod q` in `[0, q)` (`MONT_BITS = 0`): the quotient rounded from `fl(a b) · fl(1/q)`
    /// is within one of `a b / q` for `a, b < q < 2^50`, and `a b - k q` is computed exactly
    /// from the two products' low parts.
    #[inline(always)]
    fn mont_mul(self, a: __m256d, b: __m256d, q: __m256d, _qinv: __m256d) -> __m256d {
        // SAFETY: token proves AVX2 and FMA.
        unsafe {
            let p = _mm256_mul_pd(a, b);
            let pl = _mm256_fmsub_pd(a, b, p); // a b = p + pl
            let k = _mm256_round_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
                _mm256_mul_pd(p, _mm256_div_pd(_mm256_set1_pd(1.0), q)),
            );
            // p - k q is an integer of magnitude below 2^53: the FMA is exact, and so is
            // r = a b - k q, in (-q, q).
            let r = _mm256_add_pd(_mm256_fnmadd_pd(k, q, p), pl);
            let neg = _mm256_cmp_pd::<_CMP_LT_OQ>(r, _mm256_setzero_pd());
            _mm256_blendv_pd(r, _mm256_add_pd(r, q), neg)
        }
    }
    #[inline(always)]
    fn mul_mod(self, a: __m256d, b: __m256d, c: &MulConsts<__m256d>) -> __m256d {
        self.mont_mul(a, b, c.q, c.qinv)
    }
    #[inline(always)]
    fn deinterleave(self, a: __m256d, b: __m256d, t: usize) -> (__m256d, __m256d) {
        // SAFETY: token proves AVX2. The same lane moves as the integer AVX2 backend.
        unsafe {
            if t == 1 {
                (_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b))
            } else {
                (
                    _mm256_permute2f128_pd::<0x20>(a, b),
                    _mm256_permute2f128_pd::<0x31>(a, b),
                )
            }
        }
    }
    #[inline(always)]
    fn interleave(self, x: __m256d, y: __m256d, t: usize) -> (__m256d, __m256d) {
        // Both permutations are involutions on the (a, b) <-> (X, Y) pair.
        self.deinterleave(x, y, t)
    }
}

impl Avx2F64 {
    /// Caller's integers (below `2^52`) to `f64` bits in place.
    #[target_feature(enable = "avx2,fma")]
    fn tf_encode(self, a: &mut [u64]) {
        for c in a.chunks_exact_mut(4) {
            // SAFETY: avx2 enabled; `c` has 4 u64.
            unsafe {
                let x = _mm256_loadu_si256(c.as_ptr().cast());
                _mm256_storeu_pd(c.as_mut_ptr().cast(), to_f64(x));
            }
        }
    }
    /// [`Avx2F64::tf_encode`] of values that must be below `q`: `false`, with `a` as it was,
    /// when one is not.
    #[target_feature(enable = "avx2,fma")]
    fn tf_encode_checked(self, q: u64, a: &mut [u64]) -> bool {
        // x < q (unsigned) as a signed compare of both with the sign bit flipped.
        let sign = _mm256_set1_epi64x(i64::MIN);
        let qs = _mm256_xor_si256(_mm256_set1_epi64x(q as i64), sign);
        for i in 0..a.len() / 4 {
            let c = &mut a[4 * i..4 * i + 4];
            // SAFETY: avx2 enabled; `c` has 4 u64.
            let ok = unsafe {
                let x = _mm256_loadu_si256(c.as_ptr().cast());
                let lt = _mm256_cmpgt_epi64(qs, _mm256_xor_si256(x, sign));
                if _mm256_movemask_pd(_mm256_castsi256_pd(lt)) != 0xf {
                    false
                } else {
                    _mm256_storeu_pd(c.as_mut_ptr().cast(), to_f64(x));
                    true
                }
            };
            if !ok {
                self.tf_decode(&mut a[..4 * i]);
                return false;
            }
        }
        true
    }
    /// `f64` bits of integers in `[0, 2^52)` back to integers in place.
    #[target_feature(enable = "avx2,fma")]
    fn tf_decode(self, a: &mut [u64]) {
        for c in a.chunks_exact_mut(4) {
            // SAFETY: avx2 enabled; `c` has 4 u64.
            unsafe {
                let x = _mm256_loadu_pd(c.as_ptr().cast());
                _mm256_storeu_si256(c.as_mut_ptr().cast(), to_u64(x));
            }
        }
    }
    #[target_feature(enable = "avx2,fma")]
    fn tf_forward<const STRICT: bool>(self, tb: &SimdTables<u64>, q: u64, a: &mut [u64]) {
        self.tf_encode(a);
        simd::forward::<Self, STRICT>(self, tb, q, None, a);
        self.tf_decode(a);
    }
    #[target_feature(enable = "avx2,fma")]
    fn tf_forward_checked(self, tb: &SimdTables<u64>, q: u64, a: &mut [u64]) -> bool {
        if !self.tf_encode_checked(q, a) {
            return false;
        }
        simd::forward::<Self, true>(self, tb, q, None, a);
        self.tf_decode(a);
        true
    }
    #[target_feature(enable = "avx2,fma")]
    fn tf_inverse<const STRICT: bool>(self, tb: &SimdTables<u64>, q: u64, a: &mut [u64]) {
        self.tf_encode(a);
        simd::inverse::<Self, STRICT>(self, tb, q, None, a);
        self.tf_decode(a);
    }
}

/// The kernels of a plan with `q < 2^50` on a CPU with AVX2 and FMA but without AVX-512: the
/// transforms in `f64` lanes, everything else on the integer AVX2 backend.
#[derive(Debug)]
pub(crate) struct FpKernels {
    s: Avx2F64,
    int: Avx2U64,
    q: u64,
    /// Tables in the `f64` encoding, for the transforms.
    tb: SimdTables<u64>,
    /// The integer backend's tables, for the pointwise products.
    tb_int: SimdTables<u64>,
}

impl FpKernels {
    pub(crate) fn new(
        s: Avx2F64,
        int: Avx2U64,
        m: &crate::arith::Modulus64,
        fwd: &[u64],
        inv: &[u64],
    ) -> Self {
        use crate::arith::Modulus;
        Self {
            s,
            int,
            q: m.value(),
            tb: SimdTables::new(s, m, fwd, inv),
            tb_int: SimdTables::new(int, m, fwd, inv),
        }
    }
}

impl Kernels<u64> for FpKernels {
    fn isa(&self) -> Isa {
        Isa::Avx2
    }
    fn forward_lazy(&self, a: &mut [u64]) {
        // SAFETY: the token exists only if the CPU runs AVX2 and FMA.
        unsafe { self.s.tf_forward::<false>(&self.tb, self.q, a) }
    }
    fn forward_strict(&self, a: &mut [u64]) {
        // SAFETY: as above.
        unsafe { self.s.tf_forward::<true>(&self.tb, self.q, a) }
    }
    fn forward_checked(&self, a: &mut [u64]) -> bool {
        // SAFETY: as above.
        unsafe { self.s.tf_forward_checked(&self.tb, self.q, a) }
    }
    fn inverse_lazy(&self, a: &mut [u64]) {
        // SAFETY: as above.
        unsafe { self.s.tf_inverse::<false>(&self.tb, self.q, a) }
    }
    fn inverse_strict(&self, a: &mut [u64]) {
        // SAFETY: as above.
        unsafe { self.s.tf_inverse::<true>(&self.tb, self.q, a) }
    }
    fn all_below(&self, a: &[u64], bound: u64) -> bool {
        self.int.all_below(a, bound)
    }
    fn add(&self, a: &[u64], b: &[u64], out: &mut [u64]) {
        Entry::add(self.int, self.q, a, b, out)
    }
    fn sum_extend(&self, sub: bool, a: &[u64], b: &[u64], out: &mut Vec<u64>) {
        if sub {
            Entry::sum_extend::<true>(self.int, self.q, a, b, out)
        } else {
            Entry::sum_extend::<false>(self.int, self.q, a, b, out)
        }
    }
    fn parity_decode(&self, w: &[u64], out: &mut [u8]) {
        self.int.parity_decode(self.q / 2, w, out)
    }
    fn sub(&self, a: &[u64], b: &[u64], out: &mut [u64]) {
        Entry::sub(self.int, self.q, a, b, out)
    }
    fn add_assign(&self, a: &mut [u64], b: &[u64]) {
        Entry::add_assign(self.int, self.q, a, b)
    }
    fn sub_assign(&self, a: &mut [u64], b: &[u64]) {
        Entry::sub_assign(self.int, self.q, a, b)
    }
    fn pointwise(&self, a: &[u64], b: &[u64], out: &mut [u64]) {
        self.int.pointwise(&self.tb_int, self.q, a, b, out)
    }
    fn pointwise_acc(&self, a: &[u64], b: &[u64], acc: &mut [u64]) {
        self.int.pointwise_acc(&self.tb_int, self.q, a, b, acc)
    }
    fn pointwise_assign(&self, a: &mut [u64], b: &[u64]) {
        self.int.pointwise_assign(&self.tb_int, self.q, a, b)
    }
    fn product(&self, a: &[u64], b: &[u64], out: &mut [u64], scratch: &mut [u64]) {
        // The transforms in f64, the pointwise product on the integer backend (inputs below
        // q: strict forward outputs).
        out.copy_from_slice(a);
        scratch.copy_from_slice(b);
        self.forward_strict(out);
        self.forward_strict(scratch);
        self.pointwise_assign(out, scratch);
        self.inverse_strict(out);
    }
}
