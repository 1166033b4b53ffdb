//! AVX2 plans with `u64` lanes and `q < 2^30`: their transforms and negacyclic products run on
//! the 32-bit backend ([`Avx2U32`]: eight lanes a vector against four, and a Shoup product of
//! eight operations against about twenty for the emulated 64-bit one), the caller's array
//! narrowed to `u32` in place before and widened after. Everything else (pointwise products,
//! additions, range checks) runs on the 64-bit integer backend ([`Avx2U64`]).
//!
//! Narrowing writes the `u32` value of element `i` at byte `4 i` of the same buffer, eight
//! values at a time in increasing order: each step reads its 64 bytes before it writes 32 bytes
//! that lie at or below them, so nothing unread is overwritten. Widening runs in decreasing
//! order for the same reason. Every value the transforms accept is below `2^32` (`[0, 4q)` with
//! `4q < 2^32`), so the round trip is exact. The checked forward and inverse check their input
//! while they narrow it (high words zero, a vertical maximum of the low ones below the bound)
//! and widen back what they had narrowed when it fails.
//!
//! Measured (AMD Zen 3, `examples/ntt_bench 8192 30 8 avx2`, forty-fourth session): 8 x 8192
//! transforms of 30-bit primes in about 93 µs forward and 97 inverse on `Plan<u32>`, against
//! about 150 / 137 µs for 5 x 8192 49-bit ones in `f64` lanes (the same 240-bit modulus).

use super::{Avx2U32, Avx2U64};
use crate::arith::{Modulus, Modulus32, Modulus64};
use crate::isa::Isa;
use crate::ntt::backend::{Entry, Kernels};
use crate::ntt::simd::SimdTables;
use core::arch::x86_64::*;

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

    /// Runs `f` on the first `a.len()` `u32` words of `a`'s buffer after narrowing `a` into
    /// them, then widens the result back. Without `bound` every value must be below `2^32`
    /// (the callers' contracts). With `bound` the values are checked while they are narrowed
    /// (high words zero, low ones below `bound`): on a failure `f` does not run, what was
    /// narrowed is widened back exactly (every narrowed value was below `2^32`) and the result
    /// is `false`.
    fn narrowed(&self, a: &mut [u64], bound: Option<u32>, f: impl FnOnce(&mut [u32])) -> bool {
        let n = a.len();
        // The raw-pointer loops below step by eight values (a panic, not a read past the end).
        assert!(n.is_multiple_of(8));
        let p = a.as_mut_ptr();
        // SAFETY: the token proves AVX2; in place, as the module documentation explains.
        let (done, ok) = unsafe {
            match bound {
                Some(b) => {
                    let (done, below) = narrow_to::<true>(p, p.cast::<u32>(), n, b);
                    (done, done == n && below)
                }
                None => narrow_to::<false>(p, p.cast::<u32>(), n, 0),
            }
        };
        if ok {
            // SAFETY: the buffer holds `2n` initialised `u32` words (its `n` `u64` ones),
            // aligned for `u32`; `a` is not used while this view lives.
            f(unsafe { core::slice::from_raw_parts_mut(p.cast::<u32>(), n) });
        }
        // SAFETY: the token proves AVX2; in place, decreasing order.
        unsafe { widen(p.cast::<u32>(), p, done) };
        ok
    }
}

/// `dst[i] = src[i] as u32` for `i < n` (`n` a multiple of 8), eight at a time in increasing
/// order; `dst` may be `src`'s own buffer (module documentation). Returns the number of values
/// narrowed, `n`, or with `CHECK` the start of the first set of eight with a value of `2^32` or
/// more, where it stopped before writing that set; and with `CHECK` whether every value it
/// narrowed is below `bound`.
///
/// # Safety
/// AVX2; `src` readable for `n` `u64`, `dst` writable for `n` `u32`, either disjoint or
/// `dst == src as *mut u32`.
#[target_feature(enable = "avx2")]
unsafe fn narrow_to<const CHECK: bool>(
    src: *const u64,
    dst: *mut u32,
    n: usize,
    bound: u32,
) -> (usize, bool) {
    // SAFETY: the caller's contract; reads of step `i` (bytes `64 i ..`) come before its
    // write (bytes `32 i ..` of `dst`), and in place that write lies within bytes already read.
    unsafe {
        let high = _mm256_set1_epi64x(0xffff_ffff_0000_0000u64 as i64);
        let mut max = _mm256_setzero_si256();
        let below = |max: __m256i| {
            // A lane is at least `bound` where the maximum with `bound` is itself.
            let b = _mm256_set1_epi32(bound as i32);
            _mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_max_epu32(max, b), max)) == 0
        };
        for i in (0..n).step_by(8) {
            let x = _mm256_loadu_si256(src.add(i).cast());
            let y = _mm256_loadu_si256(src.add(i + 4).cast());
            if CHECK && _mm256_testz_si256(_mm256_or_si256(x, y), high) == 0 {
                return (i, below(max));
            }
            // Low words: [x0 x1 y0 y1 | x2 x3 y2 y3], then the 64-bit pairs reordered.
            let lo = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(
                _mm256_castsi256_ps(x),
                _mm256_castsi256_ps(y),
            ));
            let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(lo);
            if CHECK {
                max = _mm256_max_epu32(max, v);
            }
            _mm256_storeu_si256(dst.add(i).cast(), v);
        }
        (n, !CHECK || below(max))
    }
}

/// [`narrow_to`] without the check.
///
/// # Safety
/// As [`narrow_to`].
#[inline]
unsafe fn narrow(src: *const u64, dst: *mut u32, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { narrow_to::<false>(src, dst, n, 0) };
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
        self.narrowed(a, None, |x| {
            self.s.forward::<false>(&self.tb, self.q as u32, x)
        });
    }
    fn forward_strict(&self, a: &mut [u64]) {
        self.narrowed(a, None, |x| {
            self.s.forward::<true>(&self.tb, self.q as u32, x)
        });
    }
    fn forward_checked(&self, a: &mut [u64]) -> bool {
        // The check while narrowing: no pass of its own.
        let q = self.q as u32;
        self.narrowed(a, Some(q), |x| self.s.forward::<true>(&self.tb, q, x))
    }
    fn inverse_checked(&self, a: &mut [u64], bound: u64, strict: bool) -> bool {
        debug_assert!(bound < 1 << 32);
        let q = self.q as u32;
        self.narrowed(a, Some(bound as u32), |x| {
            if strict {
                self.s.inverse::<true>(&self.tb, q, x)
            } else {
                self.s.inverse::<false>(&self.tb, q, x)
            }
        })
    }
    fn inverse_lazy(&self, a: &mut [u64]) {
        self.narrowed(a, None, |x| {
            self.s.inverse::<false>(&self.tb, self.q as u32, x)
        });
    }
    fn inverse_strict(&self, a: &mut [u64]) {
        self.narrowed(a, None, |x| {
            self.s.inverse::<true>(&self.tb, self.q as u32, x)
        });
    }
    fn all_below(&self, a: &[u64], bound: u64) -> bool {
        Entry::all_below(self.int, a, bound)
    }
    fn add(&self, a: &[u64], b: &[u64], out: &mut [u64]) {
        Entry::add(self.int, self.q, a, b, out)
    }
    fn parity_decode(&self, w: &[u64], out: &mut [u8]) {
        Entry::parity_decode(self.int, self.q / 2, w, out)
    }
    fn sub(&self, a: &[u64], b: &[u64], out: &mut [u64]) {
        Entry::sub(self.int, self.q, a, b, out)
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
            Entry::product(self.s, &self.tb, self.q as u32, a32, b32, o32, s32);
        }
        // SAFETY: the token proves AVX2; `scratch`'s first n u32 words into `out`, disjoint.
        unsafe { widen(s.cast::<u32>(), o, n) };
    }
}
