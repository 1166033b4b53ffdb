//! AVX-512 IFMA backend, 8 x u64 lanes, `q < 2^50`.
//!
//! `vpmadd52luq`/`vpmadd52huq` multiply the low 52 bits of each lane exactly, so the Shoup
//! quotient is `floor(w · 2^52 / q)` and a lazy product costs three IFMA instructions:
//!
//! ```text
//! qhat = hi52(x · wp)                  (x < 4q < 2^52)
//! r    = lo52(x · w) + lo52(qhat · (2^52 - q))   mod 2^52   = x w - qhat q  in [0, 2q)
//! ```
//!
//! The butterflies skip the final mask (`r` may carry `2^52`, which the IFMA products of later
//! layers ignore and the sums carry along): the drivers clear it ([`Simd::clean`]) only before
//! a conditional subtraction or the output, which takes the mask off the product's dependency
//! chain and, under the slothful schedules, out of every other butterfly (`examples/ntt_bench`
//! on Zen 4: 5 x 8192 49-bit forward -6%, inverse -3%; 50-bit n = 4096 and 16384 -1.5 to -2%).
//! The forward butterflies also add `u` in the product's accumulator, so no addition follows
//! the product on their chain ([`Simd::ct_mul_sums_splat`]; forward 5 x 8192 -3.5%, 16384 and
//! 32768 -2%).
//!
//! Montgomery products use `R = 2^52`.

use super::avx512_u64::{avx512_u64_lanes, deinterleave8, interleave8, step8};
use super::entry_points;
use crate::isa::Isa;
use crate::ntt::backend::Entry;
use crate::ntt::simd::{self, LaneTw, Simd, SimdTables};
use core::arch::x86_64::*;

const MASK52: i64 = (1 << 52) - 1;

/// Proof that the CPU runs AVX-512F and AVX-512 IFMA.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IfmaU64(());

impl IfmaU64 {
    pub(crate) fn try_new() -> Option<Self> {
        (is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512ifma"))
            .then_some(Self(()))
    }
}

impl Simd for IfmaU64 {
    type W = u64;
    type V = __m512i;
    const LANES: usize = 8;
    const SHOUP_BITS: u32 = 52;
    const MONT_BITS: u32 = 52;

    // The products read 52 bits of their inputs and return values in [0, 2q) for any input
    // below 2^52, so with q <= 2^49 the forward transform keeps values below 8q (lazy::SLOTH:
    // one conditional subtraction of the nine operations of a butterfly saved on every other
    // layer) and the inverse lets `u` outputs reach 4q (lazy::HALF), in its register blocks as
    // on its memory passes. The forward schedule
    // measured neutral on Zen 4 (n = 4096 and 5 x 8192, 49-bit primes, min of 12 alternating
    // runs), where the memory passes ran at ~3.1 cycles per vector butterfly against ~2.2 for
    // the arithmetic alone; on Intel (Emerald Rapids, every 512-bit operation on ports 0 and
    // 5) W1-eq forward against tfhe-ntt went from 0.52-0.57 to 0.50-0.52 (medians of three
    // alternating `--runs 5`).
    const SLOTHFUL: bool = true;
    const VALUE_BITS: u32 = 52;
    // Eight pairs side by side in the in-register layers (three IFMA products per butterfly:
    // short enough chains that twice the independent work still fits the registers; see
    // `Simd::SMALL_K` for the measurements).
    const SMALL_K: usize = 8;
    // Register blocks of 16 vectors (128 values): seven layers per load and store instead of
    // three, forward and inverse (the inverse's blocks run lazy::HALF like its memory passes).
    // `examples/ntt_bench` against blocks-off on Zen 5 (min of 3 alternating runs): n = 1024
    // forward 0.696 -> 0.654 µs, 4096 3.13 -> 2.85, 16384 14.1 -> 13.4, 32768 30.6 -> 28.8,
    // 5 x 8192 33.8 -> 32.6; inverse 4096 (49-bit prime) 2.77 -> 2.60, 5 x 8192 31.4 -> 31.8.
    // `latpoly bench`, two alternating `--runs 3`: W1-eq forward 0.70-0.74 -> 0.66-0.69,
    // inverse 0.66-0.72 -> 0.64-0.68; W3 forward n = 4096 0.89-0.91 -> 0.82-0.84, inverse
    // 0.91-0.95 -> 0.83-0.89.
    const REG_BLOCKS: bool = true;
    const REG_V: usize = 16;

    avx512_u64_lanes!();

    #[inline(always)]
    fn mul_shoup_lazy(self, x: __m512i, w: __m512i, wp: __m512i, q: __m512i) -> __m512i {
        self.clean(self.mul_shoup_lazier(x, w, wp, q))
    }
    // The butterflies' products skip the final mask: `r` is `x w - qhat q` plus `2^52` or
    // not, and that junk bit rides along in the sums of later layers (their IFMA products read
    // only the low 52 bits, the sums wrap mod 2^64 and keep the low 52 bits exact) until a
    // conditional subtraction or the output needs the value (`Simd::clean`). Under
    // `lazy::SLOTH` and `lazy::HALF` that saves a `vpandq` in every other butterfly; under
    // every schedule it takes the mask off the product's chain (to the `x` side, which waits
    // less).
    #[inline(always)]
    fn mul_shoup_lazy_dirty_splat(
        self,
        x: __m512i,
        w: __m512i,
        wp: __m512i,
        q: __m512i,
    ) -> __m512i {
        self.mul_shoup_lazier(x, w, wp, q)
    }
    #[inline(always)]
    fn mul_shoup_lazy_dirty_lanes(self, x: __m512i, tw: &LaneTw<__m512i>, q: __m512i) -> __m512i {
        self.mul_shoup_lazier(x, tw.w, tw.wp, q)
    }
    // `u` enters the product's accumulator (`u + lo52(y w) + lo52(qhat (2^52 - q))`, the
    // first of those IFMA beside the quotient's), so the sum needs no addition after the
    // product, and the difference is `2u + vq` (ready before the product) minus that sum.
    #[inline(always)]
    fn ct_mul_sums_splat<const LAZIER: bool>(
        self,
        u: __m512i,
        y: __m512i,
        w: __m512i,
        wp: __m512i,
        q: __m512i,
        vq: __m512i,
    ) -> (__m512i, __m512i) {
        let sum = self.shoup_acc(u, y, w, wp, q);
        // SAFETY: token proves AVX-512F.
        unsafe {
            let t = _mm512_add_epi64(_mm512_add_epi64(u, u), vq);
            (sum, _mm512_sub_epi64(t, sum))
        }
    }
    #[inline(always)]
    fn ct_mul_sums_lanes<const LAZIER: bool>(
        self,
        u: __m512i,
        y: __m512i,
        tw: &LaneTw<__m512i>,
        q: __m512i,
        vq: __m512i,
    ) -> (__m512i, __m512i) {
        self.ct_mul_sums_splat::<LAZIER>(u, y, tw.w, tw.wp, q, vq)
    }
    #[inline(always)]
    fn mul_shoup_lazier(self, x: __m512i, w: __m512i, wp: __m512i, q: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F.
        self.shoup_acc(unsafe { _mm512_setzero_si512() }, x, w, wp, q)
    }
    #[inline(always)]
    fn mul_shoup_lazier_splat(self, x: __m512i, w: __m512i, wp: __m512i, q: __m512i) -> __m512i {
        self.mul_shoup_lazier(x, w, wp, q)
    }
    #[inline(always)]
    fn clean(self, v: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F.
        unsafe { _mm512_and_si512(v, _mm512_set1_epi64(MASK52)) }
    }
    #[inline(always)]
    fn mont_mul(self, a: __m512i, b: __m512i, q: __m512i, qinv: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F and IFMA.
        unsafe {
            let zero = _mm512_setzero_si512();
            let lo = _mm512_madd52lo_epu64(zero, a, b);
            let hi = _mm512_madd52hi_epu64(zero, a, b);
            let m = _mm512_and_si512(
                _mm512_madd52lo_epu64(zero, lo, qinv),
                _mm512_set1_epi64(MASK52),
            );
            // m q = lo (mod 2^52), so (a b - m q) / 2^52 = hi - hi52(m q), in (-q, q).
            let mh = _mm512_madd52hi_epu64(zero, m, q);
            let t = _mm512_sub_epi64(_mm512_add_epi64(hi, q), mh);
            _mm512_min_epu64(t, _mm512_sub_epi64(t, q))
        }
    }
}

impl IfmaU64 {
    /// `acc + (x w - qhat q)` with the Shoup quotient `qhat = hi52(x wp)`, the product in
    /// `[0, 2q)` taken mod `2^52` and added to all 64 bits of `acc`, so the result may carry
    /// `2^52` above the sum ([`Simd::clean`]): three IFMA, `lo52(x w)` accumulating into
    /// `acc` beside the quotient's.
    #[inline(always)]
    fn shoup_acc(self, acc: __m512i, x: __m512i, w: __m512i, wp: __m512i, q: __m512i) -> __m512i {
        // SAFETY: token proves AVX-512F and IFMA.
        unsafe {
            let neg_q = _mm512_sub_epi64(_mm512_set1_epi64(1 << 52), q);
            let qhat = _mm512_madd52hi_epu64(_mm512_setzero_si512(), x, wp);
            let r = _mm512_madd52lo_epu64(acc, x, w);
            _mm512_madd52lo_epu64(r, qhat, neg_q)
        }
    }
}

entry_points!(IfmaU64, u64, Isa::Avx512Ifma, "avx512f,avx512ifma");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ntt::simd::shoup_quotient;

    /// The butterflies' products (`mul_shoup_lazy_dirty_*`, `mul_shoup_lazier*`) return
    /// `x w mod q` in `[0, 2q)` in the low 52 bits and nothing or `2^52` above them, whatever
    /// the inputs carry above bit 52; some outputs carry that junk (so the butterflies really
    /// skip the mask, and every driver path that compares or outputs a value must clear it:
    /// the transform tests would see a path that does not); `clean` clears it; the plain
    /// `mul_shoup_lazy` never leaves any.
    #[test]
    fn dirty_products_carry_at_most_bit_52_and_clean_clears_it() {
        let Some(t) = IfmaU64::try_new() else {
            println!("skipped: no AVX-512 IFMA on this CPU");
            return;
        };
        let mask = (1u64 << 52) - 1;
        let mut junk = [0usize; 4];
        for bits in [30u32, 48, 49, 50] {
            let q = crate::primes::ntt_primes(bits, 1024, 1).unwrap()[0];
            let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ q;
            for k in 0..500u64 {
                let w = (k.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 4) % q;
                let wp = shoup_quotient(w, q, 52);
                let mut xs = [0u64; 8];
                let mut ws = [0u64; 8];
                for (v, wl) in xs.iter_mut().zip(ws.iter_mut()) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // a value below 2^52 (edges included) with junk above it
                    *v = match x % 7 {
                        0 => 0,
                        1 => mask,
                        2 => q - 1,
                        _ => x & mask,
                    } | (x & !mask);
                    *wl = (x >> 7) % q;
                }
                let (xv, qv) = (t.load(&xs), t.splat(q));
                let (w1, wp1) = (t.splat(w), t.splat(wp));
                let wps: Vec<u64> = ws.iter().map(|&w| shoup_quotient(w, q, 52)).collect();
                let tw = LaneTw {
                    w: t.load(&ws),
                    wp: t.load(&wps),
                    w_odd: t.load(&ws),
                    wp_odd: t.load(&wps),
                };
                let forms = [
                    (t.mul_shoup_lazy_dirty_splat(xv, w1, wp1, qv), false),
                    (t.mul_shoup_lazier(xv, w1, wp1, qv), false),
                    (t.mul_shoup_lazier_splat(xv, w1, wp1, qv), false),
                    (t.mul_shoup_lazy_dirty_lanes(xv, &tw, qv), true),
                ];
                for (f, (r, lanes)) in forms.into_iter().enumerate() {
                    let (mut out, mut cleaned, mut plain) = ([0u64; 8], [0u64; 8], [0u64; 8]);
                    t.store(&mut out, r);
                    t.store(&mut cleaned, t.clean(r));
                    let ww = if lanes { tw.w } else { w1 };
                    let wwp = if lanes { tw.wp } else { wp1 };
                    t.store(&mut plain, t.mul_shoup_lazy(xv, ww, wwp, qv));
                    for i in 0..8 {
                        let wi = if lanes { ws[i] } else { w };
                        let want = ((xs[i] & mask) as u128 * wi as u128 % q as u128) as u64;
                        let low = out[i] & mask;
                        assert!(low < 2 * q && low % q == want, "q={q} form {f}");
                        assert!(out[i] >> 52 <= 1, "q={q} form {f}: junk {:#x}", out[i]);
                        assert_eq!(cleaned[i], low);
                        assert_eq!(plain[i], low, "q={q} form {f}: plain product");
                        junk[f] += usize::from(out[i] >> 52 == 1);
                    }
                }
            }
        }
        assert!(junk.iter().all(|&j| j > 0), "junk seen per form: {junk:?}");
    }

    /// The Cooley-Tukey butterfly with `u` in the product's accumulator: in the low 52 bits,
    /// `u + v` and `u - v + vq` with `v` the clean product, for `u` with junk above bit 52
    /// and `u` at the edges of its range, per-lane and broadcast twiddles.
    #[test]
    fn butterfly_sums_through_the_accumulator() {
        let Some(t) = IfmaU64::try_new() else {
            println!("skipped: no AVX-512 IFMA on this CPU");
            return;
        };
        let mask = (1u64 << 52) - 1;
        for bits in [30u32, 49, 50] {
            let q = crate::primes::ntt_primes(bits, 1024, 1).unwrap()[0];
            // the drivers' ranges: `vq = 2q`, `u < 6q` under the slothful schedules (q below
            // 2^49), `u < 2q` otherwise, so both sums stay below 2^52
            let vq = 2 * q;
            let top = if 8 * q <= 1 << 52 { 6 * q } else { 2 * q };
            let mut x = 0x2545_f491_4f6c_dd1du64 ^ q;
            let mut next = || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            for k in 0..300 {
                let mut us = [0u64; 8];
                let mut ys = [0u64; 8];
                let mut ws = [0u64; 8];
                for i in 0..8 {
                    let r = next();
                    let u = [0, top - 1, r % top][(k + i) % 3];
                    us[i] = u | (r & !mask);
                    ys[i] = (next() % (8 * q)) | (r << 52);
                    ws[i] = next() % q;
                }
                let wps: Vec<u64> = ws.iter().map(|&w| shoup_quotient(w, q, 52)).collect();
                let (uv, yv, qv, vqv) = (t.load(&us), t.load(&ys), t.splat(q), t.splat(vq));
                let tw = LaneTw {
                    w: t.load(&ws),
                    wp: t.load(&wps),
                    w_odd: t.load(&ws),
                    wp_odd: t.load(&wps),
                };
                let (w0, wp0) = (t.splat(ws[0]), t.splat(wps[0]));
                for lanes in [false, true] {
                    let (a, b) = if lanes {
                        t.ct_mul_sums_lanes::<true>(uv, yv, &tw, qv, vqv)
                    } else {
                        t.ct_mul_sums_splat::<false>(uv, yv, w0, wp0, qv, vqv)
                    };
                    let (mut sa, mut sb) = ([0u64; 8], [0u64; 8]);
                    t.store(&mut sa, a);
                    t.store(&mut sb, b);
                    for i in 0..8 {
                        let w = if lanes { ws[i] } else { ws[0] };
                        let (ui, yi) = (us[i] & mask, ys[i] & mask);
                        let v = yi as u128 * w as u128 % q as u128;
                        // the product is v or v + q: both sums agree with it mod q
                        let (sum, diff) = (sa[i] & mask, sb[i] & mask);
                        assert!(sum < ui + 2 * q && sum >= ui, "q={q} lanes={lanes}");
                        assert_eq!((sum - ui) as u128 % q as u128, v);
                        assert_eq!((ui + vq - diff) as u128 % q as u128, v);
                        assert_eq!(sum + diff, 2 * ui + vq, "q={q} lanes={lanes}");
                    }
                }
            }
        }
    }
}
