//! AVX2 plans with `u64` lanes and `q < 2^30`: their transforms and negacyclic products run on
//! the 32-bit backend ([`Avx2U32`]: eight lanes a vector against four, and a Shoup product of
//! eight operations against about twenty for the emulated 64-bit one). Everything else
//! (pointwise products, additions, range checks) runs on the 64-bit integer backend
//! ([`Avx2U64`]).
//!
//! A transform runs in a per-thread `u32` scratch array and converts the caller's words on the
//! way in and out inside the passes it makes anyway ([`simd::Outer`], [`Wide`], [`Io`]): the
//! forward narrows the caller's `u64` words as its first pass loads them (for `n` above one
//! cache block, 4096; smaller arrays are narrowed into the scratch first), and its in-register
//! last layers widen their outputs into the caller's words as they store them; the inverse's
//! in-register first layers narrow the caller's words as they load them, and its last layer
//! widens its outputs as it stores them (`n = 64`, one register block: a copy in and out). The checked transforms check what they load (high
//! words zero, low words below the bound): the verdict is known before the first word of the
//! caller's array is written, so a refused input is left as it was. Every value the transforms
//! accept is below `2^32` (`[0, 4q)` with `4q < 2^32`), so the round trip is exact. The last
//! pass over the scratch zeroes it behind itself (a refusal zeroes it whole), so no transform
//! data stays behind in it; it grows to the largest `n` the thread has transformed.
//!
//! Measured (AMD Zen 3, `examples/ntt_bench 8192 30 8 avx2`, forty-fourth session): 8 x 8192
//! transforms of 30-bit primes in about 93 µs forward and 97 inverse on `Plan<u32>`, against
//! about 150 / 137 µs for 5 x 8192 49-bit ones in `f64` lanes (the same 240-bit modulus). The
//! conversions in passes of their own (forty-fourth session) cost about 21 µs of the `u64`
//! plans' 114; fused (forty-fifth session, `ntt_bench 8192 w30 8` against `8192 30 8`,
//! alternating, a noisier host) the `u64` plans take 5-12% more than the `u32` ones.

use super::with_scratch;
use super::{Avx2U32, Avx2U64};
use crate::arith::{Modulus, Modulus32, Modulus64};
use crate::isa::Isa;
use crate::ntt::backend::{Entry, Kernels};
use crate::ntt::simd::{self, Io, Outer, SimdTables};
use core::arch::x86_64::*;
use core::cell::Cell;

/// The kernels of a `u64` plan with `q < 2^30` on AVX2 (module documentation).
#[derive(Debug)]
pub(crate) struct NarrowKernels {
    s: Avx2U32,
    int: Avx2U64,
    q: u64,
    /// The 32-bit backend's tables (the plan's own twiddles, narrowed).
    tb: SimdTables<u32>,
    /// The 64-bit backend's tables, for the pointwise products.
    tb_int: SimdTables<u64>,
}

/// The caller's `u64` words of a transform that runs in `u32` lanes ([`simd::Outer`]): loads
/// narrow them, stores widen. With `CHECK`, loads also keep the lane-wise maximum of the words
/// they read (as `u32` halves), and [`Outer::ok`] says whether every high half was zero and
/// every low half below the bound.
struct Wide<const CHECK: bool> {
    /// The maximum so far, over the `u32` halves of the words loaded.
    max: Cell<__m256i>,
    /// `bound - 1` in the low halves, `0` in the high ones.
    limit: __m256i,
}

impl<const CHECK: bool> Wide<CHECK> {
    /// `bound >= 1`: the loaded words must be below it (with `CHECK`).
    #[inline(always)]
    fn new(_s: Avx2U32, bound: u32) -> Self {
        debug_assert!(bound >= 1);
        // SAFETY: the token proves AVX2.
        unsafe {
            Self {
                max: Cell::new(_mm256_setzero_si256()),
                limit: _mm256_set1_epi64x(i64::from(bound - 1)),
            }
        }
    }
}

impl<const CHECK: bool> Outer<Avx2U32> for Wide<CHECK> {
    type E = u64;
    /// The unchecked transforms take inputs up to `4q`, the checked ones reject what is not
    /// below their bound: neither's first layer may skip its reduction.
    const BELOW_Q: bool = false;
    #[inline(always)]
    fn load(&self, _s: Avx2U32, x: &[u64]) -> __m256i {
        let x = &x[..8];
        // SAFETY: the token proves AVX2; `x` has 8 readable `u64`.
        unsafe {
            let a = _mm256_loadu_si256(x.as_ptr().cast());
            let b = _mm256_loadu_si256(x.as_ptr().add(4).cast());
            if CHECK {
                self.max
                    .set(_mm256_max_epu32(self.max.get(), _mm256_max_epu32(a, b)));
            }
            // Low words: [a0 a1 b0 b1 | a2 a3 b2 b3], then the 64-bit pairs reordered.
            let lo = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(
                _mm256_castsi256_ps(a),
                _mm256_castsi256_ps(b),
            ));
            _mm256_permute4x64_epi64::<0b11_01_10_00>(lo)
        }
    }
    #[inline(always)]
    fn store(&self, _s: Avx2U32, x: &mut [u64], v: __m256i) {
        let x = &mut x[..8];
        // SAFETY: the token proves AVX2; `x` has 8 writable `u64`.
        unsafe {
            let lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v));
            let hi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(v));
            _mm256_storeu_si256(x.as_mut_ptr().cast(), lo);
            _mm256_storeu_si256(x.as_mut_ptr().add(4).cast(), hi);
        }
    }
    #[inline(always)]
    fn ok(&self) -> bool {
        // SAFETY: the token that built `self` proves AVX2. A half exceeds its limit where the
        // maximum with the limit differs from the limit.
        !CHECK
            || unsafe {
                let m = _mm256_max_epu32(self.max.get(), self.limit);
                _mm256_movemask_epi8(_mm256_cmpeq_epi32(m, self.limit)) == -1
            }
    }
}

/// The forward transform of `a` in `u32` lanes through `scratch` (module documentation): with
/// `CHECK` every word must be below `q`, else the result is `false` and `a` is as it was.
#[target_feature(enable = "avx2")]
fn forward_wide<const STRICT: bool, const CHECK: bool>(
    s: Avx2U32,
    tb: &SimdTables<u32>,
    q: u32,
    a: &mut [u64],
    scratch: &mut [u32],
) -> bool {
    let x = Wide::<CHECK>::new(s, q);
    simd::forward_io::<Avx2U32, STRICT, Wide<CHECK>>(s, tb, q, &x, Io::Through(a), scratch)
}

/// The inverse transform of `a` in `u32` lanes through `scratch`: with `CHECK` every word must
/// be below `bound`, else the result is `false` and `a` is as it was.
#[target_feature(enable = "avx2")]
fn inverse_wide<const STRICT: bool, const CHECK: bool>(
    s: Avx2U32,
    tb: &SimdTables<u32>,
    q: u32,
    bound: u32,
    a: &mut [u64],
    scratch: &mut [u32],
) -> bool {
    let x = Wide::<CHECK>::new(s, bound);
    simd::inverse_io::<Avx2U32, STRICT, Wide<CHECK>>(s, tb, q, None, &x, Io::Through(a), scratch)
}

impl NarrowKernels {
    /// Whether a `u64` plan of size `n` and modulus `q` can run here: `q < 2^30` (the 32-bit
    /// backend's range) and `n >= 16` (two vectors of eight lanes).
    pub(crate) fn supports(q: u64, n: usize) -> bool {
        q < 1 << 30 && n >= 16
    }

    /// `None` when [`NarrowKernels::supports`] refuses `(q, n)`.
    pub(crate) fn new(
        s: Avx2U32,
        int: Avx2U64,
        m: &Modulus64,
        fwd: &[u64],
        inv: &[u64],
    ) -> Option<Self> {
        let q = m.value();
        if !Self::supports(q, fwd.len()) {
            return None;
        }
        let m32 = Modulus32::new(q).ok()?;
        let f32: Vec<u32> = fwd.iter().map(|&w| w as u32).collect();
        let i32: Vec<u32> = inv.iter().map(|&w| w as u32).collect();
        Some(Self {
            s,
            int,
            q,
            tb: SimdTables::new(s, &m32, &f32, &i32),
            tb_int: SimdTables::new(int, m, fwd, inv),
        })
    }

    /// The forward transform of `a` ([`forward_wide`]).
    fn forward<const STRICT: bool, const CHECK: bool>(&self, a: &mut [u64]) -> bool {
        let q = self.q as u32;
        with_scratch::<u32, _>(a.len(), |t| {
            // SAFETY: the token proves AVX2.
            unsafe { forward_wide::<STRICT, CHECK>(self.s, &self.tb, q, a, t) }
        })
    }

    /// The inverse transform of `a` ([`inverse_wide`]).
    fn inverse<const STRICT: bool, const CHECK: bool>(&self, a: &mut [u64], bound: u32) -> bool {
        let q = self.q as u32;
        with_scratch::<u32, _>(a.len(), |t| {
            // SAFETY: the token proves AVX2.
            unsafe { inverse_wide::<STRICT, CHECK>(self.s, &self.tb, q, bound, a, t) }
        })
    }
}

/// `dst[i] = src[i] as u32` for `i < n` (`n` a multiple of 8), eight at a time in increasing
/// order; `dst` may be `src`'s own buffer.
///
/// # Safety
/// AVX2; `src` readable for `n` `u64`, `dst` writable for `n` `u32`, either disjoint or
/// `dst == src as *mut u32`.
#[target_feature(enable = "avx2")]
unsafe fn narrow(src: *const u64, dst: *mut u32, n: usize) {
    // SAFETY: the caller's contract; reads of step `i` (bytes `64 i ..`) come before its
    // write (bytes `32 i ..` of `dst`), and in place that write lies within bytes already read.
    unsafe {
        for i in (0..n).step_by(8) {
            let x = _mm256_loadu_si256(src.add(i).cast());
            let y = _mm256_loadu_si256(src.add(i + 4).cast());
            let lo = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(
                _mm256_castsi256_ps(x),
                _mm256_castsi256_ps(y),
            ));
            let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(lo);
            _mm256_storeu_si256(dst.add(i).cast(), v);
        }
    }
}

/// `dst[i] = src[i] as u64` for `i < n` (`n` a multiple of 8), eight at a time in decreasing
/// order; `dst` may be `src`'s own buffer.
///
/// # Safety
/// AVX2; `src` readable for `n` `u32`, `dst` writable for `n` `u64`, either disjoint or
/// `src == dst as *const u32`.
#[target_feature(enable = "avx2")]
unsafe fn widen(src: *const u32, dst: *mut u64, n: usize) {
    // SAFETY: the caller's contract; step `i` reads bytes `32 i ..` of `src` before it writes
    // bytes `64 i ..` of `dst`, and in place that write lies above every byte not yet read.
    unsafe {
        for i in (0..n).step_by(8).rev() {
            let v = _mm256_loadu_si256(src.add(i).cast());
            let lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v));
            let hi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(v));
            _mm256_storeu_si256(dst.add(i).cast(), lo);
            _mm256_storeu_si256(dst.add(i + 4).cast(), hi);
        }
    }
}

impl Kernels<u64> for NarrowKernels {
    fn isa(&self) -> Isa {
        Isa::Avx2
    }
    fn forward_lazy(&self, a: &mut [u64]) {
        self.forward::<false, false>(a);
    }
    fn forward_strict(&self, a: &mut [u64]) {
        self.forward::<true, false>(a);
    }
    fn forward_checked(&self, a: &mut [u64]) -> bool {
        // The check as the first pass loads the words: no pass of its own.
        self.forward::<true, true>(a)
    }
    fn inverse_checked(&self, a: &mut [u64], bound: u64, strict: bool) -> bool {
        debug_assert!((1..1 << 32).contains(&bound));
        let b = bound as u32;
        if strict {
            self.inverse::<true, true>(a, b)
        } else {
            self.inverse::<false, true>(a, b)
        }
    }
    fn inverse_lazy(&self, a: &mut [u64]) {
        self.inverse::<false, false>(a, 1);
    }
    fn inverse_strict(&self, a: &mut [u64]) {
        self.inverse::<true, false>(a, 1);
    }
    fn all_below(&self, a: &[u64], bound: u64) -> bool {
        Entry::all_below(self.int, a, bound)
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
        Entry::parity_decode(self.int, self.q / 2, w, out)
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
        Entry::pointwise(self.int, &self.tb_int, self.q, a, b, out)
    }
    fn pointwise_acc(&self, a: &[u64], b: &[u64], acc: &mut [u64]) {
        Entry::pointwise_acc(self.int, &self.tb_int, self.q, a, b, acc)
    }
    fn pointwise_assign(&self, a: &mut [u64], b: &[u64]) {
        Entry::pointwise_assign(self.int, &self.tb_int, self.q, a, b)
    }
    fn product(&self, a: &[u64], b: &[u64], out: &mut [u64], scratch: &mut [u64]) {
        // The whole product in 32-bit lanes: `a` and `b` narrowed into the two halves of
        // `out`'s buffer, the 32-bit product into the first half of `scratch`'s (the second
        // half its scratch), widened into `out`. Inputs below q < 2^32: exact.
        let n = a.len();
        assert!(n.is_multiple_of(8) && b.len() == n && out.len() == n && scratch.len() == n);
        let (o, s) = (out.as_mut_ptr(), scratch.as_mut_ptr());
        // SAFETY: the token proves AVX2; `a`, `b` (n values each) are disjoint from `out`
        // (the plan's contract), whose buffer holds 2n u32 words.
        unsafe {
            narrow(a.as_ptr(), o.cast::<u32>(), n);
            narrow(b.as_ptr(), o.cast::<u32>().add(n), n);
        }
        {
            // SAFETY: four disjoint views of n u32 words each, within the 2n-word buffers of
            // `out` and `scratch` (disjoint by the plan's contract), all initialised; `out`
            // and `scratch` are not used while they live.
            let (a32, b32, o32, s32) = unsafe {
                (
                    core::slice::from_raw_parts(o.cast::<u32>(), n),
                    core::slice::from_raw_parts(o.cast::<u32>().add(n), n),
                    core::slice::from_raw_parts_mut(s.cast::<u32>(), n),
                    core::slice::from_raw_parts_mut(s.cast::<u32>().add(n), n),
                )
            };
            Entry::product::<false>(self.s, &self.tb, self.q as u32, a32, b32, o32, s32);
        }
        // SAFETY: the token proves AVX2; `scratch`'s first n u32 words into `out`, disjoint.
        unsafe { widen(s.cast::<u32>(), o, n) };
    }
}
