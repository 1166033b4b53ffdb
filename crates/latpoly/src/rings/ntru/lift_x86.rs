//! Vectorised HRSS `poly_lift` for the x86 backends (16 or 32 `u16` lanes).
//!
//! The reference computes `b = a / (x - 1) mod (3, Phi_n)` with the recurrence
//! `b[k] = b[k - 3] + 2 (a[k] + a[k - 1] + a[k - 2])` from three head values, a serial chain
//! over the whole polynomial. Summed up, the windows of one residue class cover every index
//! once: `b[k] = b[k mod 3] + 2 (P[k] - P[k mod 3])` with `P` the prefix sums of `a` (all mod
//! `2^16`), so `b` is `2 P` plus a constant of period 3. Here `P` is an in-register scan per
//! vector (shifted adds) with a broadcast carry, the head values come from residue-class sums
//! accumulated in the same pass ([`lift_hrss_head`], shared with the reference), and
//! `mod 3`, `Z3 -> Zq` and the product by `x - 1` run lane-wise. Same `u16` output as the
//! reference for every input (tested against it).
//!
//! No branch and no memory index depends on the data (loop bounds and the residue pattern depend
//! on `n` and the vector index only).

#![allow(unsafe_code)]

use super::fast::Lanes;
use super::reference::lift_hrss_head;
use super::x86::{Avx2Lanes, Avx512Lanes};
use core::arch::x86_64::*;

/// The lane operations of the lift beyond the multiplier's [`Lanes`].
trait ScanLanes: Lanes {
    fn or(self, a: Self::V, b: Self::V) -> Self::V;
    /// Inclusive prefix sums of the lanes (wrapping).
    fn scan(self, a: Self::V) -> Self::V;
    /// The last lane in every lane.
    fn last(self, a: Self::V) -> Self::V;
    /// Lane-wise `a mod 3` of unsigned values.
    fn mod3(self, a: Self::V) -> Self::V;
    /// `[prev[L - 1], cur[0], ..., cur[L - 2]]`.
    fn shift_in(self, prev: Self::V, cur: Self::V) -> Self::V;
}

/// `floor(a / 3) = (a · 0xAAAB) >> 17` for every `u16` `a` (`0xAAAB = (2^17 + 1) / 3`, error
/// below `1/6`).
const DIV3: u16 = 0xAAAB;

impl ScanLanes for Avx2Lanes {
    #[inline(always)]
    fn or(self, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { _mm256_or_si256(a, b) }
    }
    #[inline(always)]
    fn scan(self, a: __m256i) -> __m256i {
        // Shifts up by s lanes across the two 128-bit halves: `t` is (0, low half), and
        // `alignr` takes each half's top bytes from the half below.
        // SAFETY: the token proves AVX2.
        unsafe {
            let t = _mm256_permute2x128_si256::<0x08>(a, a);
            let a = _mm256_add_epi16(a, _mm256_alignr_epi8::<14>(a, t));
            let t = _mm256_permute2x128_si256::<0x08>(a, a);
            let a = _mm256_add_epi16(a, _mm256_alignr_epi8::<12>(a, t));
            let t = _mm256_permute2x128_si256::<0x08>(a, a);
            let a = _mm256_add_epi16(a, _mm256_alignr_epi8::<8>(a, t));
            _mm256_add_epi16(a, _mm256_permute2x128_si256::<0x08>(a, a))
        }
    }
    #[inline(always)]
    fn last(self, a: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe {
            let t = _mm256_permute4x64_epi64::<0xFF>(a);
            _mm256_shufflehi_epi16::<0xFF>(_mm256_shufflelo_epi16::<0xFF>(t))
        }
    }
    #[inline(always)]
    fn mod3(self, a: __m256i) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe {
            let d = _mm256_srli_epi16::<1>(crate::arith::mulhi_x86::mulhi_epu16_256(
                a,
                self.splat(DIV3),
            ));
            _mm256_sub_epi16(a, _mm256_mullo_epi16(d, self.splat(3)))
        }
    }
    #[inline(always)]
    fn shift_in(self, prev: __m256i, cur: __m256i) -> __m256i {
        // (prev's high half, cur's low half), then each half's element 0 from the one below
        // SAFETY: the token proves AVX2.
        unsafe {
            let t = _mm256_permute2x128_si256::<0x03>(cur, prev);
            _mm256_alignr_epi8::<14>(cur, t)
        }
    }
}

impl ScanLanes for Avx512Lanes {
    #[inline(always)]
    fn or(self, a: __m512i, b: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { _mm512_or_si512(a, b) }
    }
    #[inline(always)]
    fn scan(self, a: __m512i) -> __m512i {
        // In-lane scans (byte shifts within each 128-bit lane), then each lane's total (its
        // word 7, broadcast in the lane) added to the lanes above it by two lane shifts: only
        // single-uop shuffles (the word permutes take several on Zen 4).
        // SAFETY: the token proves AVX-512F/BW; the table has 64 readable bytes.
        unsafe {
            let a = _mm512_add_epi16(a, _mm512_bslli_epi128::<2>(a));
            let a = _mm512_add_epi16(a, _mm512_bslli_epi128::<4>(a));
            let a = _mm512_add_epi16(a, _mm512_bslli_epi128::<8>(a));
            let top = _mm512_loadu_si512(WORD7.as_ptr().cast());
            let t = _mm512_shuffle_epi8(a, top);
            let z = _mm512_setzero_si512();
            // the lane totals' prefix over lanes (shift up one lane, then two), added one lane up
            let t = _mm512_add_epi16(t, _mm512_alignr_epi64::<6>(t, z));
            let t = _mm512_add_epi16(t, _mm512_alignr_epi64::<4>(t, z));
            _mm512_add_epi16(a, _mm512_alignr_epi64::<6>(t, z))
        }
    }
    #[inline(always)]
    fn last(self, a: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F/BW; the table has 64 readable bytes.
        unsafe {
            let top = _mm512_loadu_si512(WORD7.as_ptr().cast());
            _mm512_shuffle_epi8(_mm512_shuffle_i64x2::<0xFF>(a, a), top)
        }
    }
    #[inline(always)]
    fn mod3(self, a: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512BW.
        unsafe {
            let d = _mm512_srli_epi16::<1>(crate::arith::mulhi_x86::mulhi_epu16_512(
                a,
                self.splat(DIV3),
            ));
            _mm512_sub_epi16(a, _mm512_mullo_epi16(d, self.splat(3)))
        }
    }
    #[inline(always)]
    fn shift_in(self, prev: __m512i, cur: __m512i) -> __m512i {
        // (prev's lane 3, cur's lanes 0..3), then each 128-bit lane's word 0 from the one below
        // SAFETY: the token proves AVX-512F/BW.
        unsafe {
            let t = _mm512_alignr_epi64::<6>(cur, prev);
            _mm512_alignr_epi8::<14>(cur, t)
        }
    }
}

/// `vpshufb` control: word 7 of each 128-bit lane in every word of the lane.
const WORD7: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = 14 + (i % 2) as u8;
        i += 1;
    }
    t
};

/// The lift on lanes of `s`; `3 <= a.len() = r.len() <= 821`. Two passes over `a`: the
/// residue-class sums (for the head values), then the scan with everything after it, each
/// vector's output `r[i] = z[i - 1] - z[i]` taking the previous vector's last `z`.
#[inline(always)]
fn lift_hrss_body<S: ScanLanes>(s: S, a: &[u16], r: &mut [u16], q: u16) {
    let (n, l) = (a.len(), S::L);
    let whole = n / l * l;
    // the last, partial vector zero-padded
    let mut tail = [0u16; 32];
    tail[..n - whole].copy_from_slice(&a[whole..]);
    let vec_at = |i: usize| {
        if i < whole {
            s.load(&a[i..])
        } else {
            s.load(&tail)
        }
    };
    let np = n.div_ceil(l) * l;
    // Per-lane sums of the vectors with index v = 0, 1, 2 mod 3: lane j of acc[m] holds
    // indices = m L + j mod 3 (L = 1 or 2 mod 3, so three vectors are a period).
    let mut acc = [s.zero(); 3];
    for (v, i) in (0..np).step_by(l).enumerate() {
        acc[v % 3] = s.add(acc[v % 3], vec_at(i));
    }
    // acc[m] lane j is position m L + j of a 3 L-word period: residue class k mod 3
    let mut period = [0u16; 96];
    for (m, &x) in acc.iter().enumerate() {
        s.store(&mut period[m * l..], x);
    }
    let mut res = [0u16; 3];
    for c in period[..3 * l].chunks_exact(3) {
        for k in 0..3 {
            res[k] = res[k].wrapping_add(c[k]);
        }
    }
    // class[r] sums a[i] over i >= 3, i = r mod 3
    let class = [0, 1, 2].map(|k| res[k].wrapping_sub(a[k]));
    let head = lift_hrss_head(a, class);
    // b[k] = 2 P[k] + c[k mod 3] with P[0..3] = a[0], a[0] + a[1], a[0] + a[1] + a[2]; and
    // mod_3_phi_n adds 2 b[n - 1], b[n - 1] = 2 P[n - 1] + c[(n - 1) mod 3], P[n - 1] the sum
    // of every residue class
    let p3 = [
        a[0],
        a[0].wrapping_add(a[1]),
        a[0].wrapping_add(a[1]).wrapping_add(a[2]),
    ];
    let c = [0, 1, 2].map(|k| head[k].wrapping_sub(p3[k].wrapping_mul(2)));
    let total = res[0].wrapping_add(res[1]).wrapping_add(res[2]);
    let blast = total.wrapping_mul(2).wrapping_add(c[(n - 1) % 3]);
    let c = c.map(|x| x.wrapping_add(blast.wrapping_mul(2)));
    for c3 in period.chunks_exact_mut(3) {
        c3.copy_from_slice(&c);
    }
    let kv = [0, 1, 2].map(|m| s.load(&period[m * l..]));
    // z = Z3 -> Zq of ((2 P + c) mod 3); r[0] = -z[0], r[i] = z[i - 1] - z[i]
    let qm = s.splat(q - 1);
    let (mut carry, mut prev) = (s.zero(), s.zero());
    for (v, i) in (0..np).step_by(l).enumerate() {
        let y = s.add(s.scan(vec_at(i)), carry);
        carry = s.last(y);
        let x = s.mod3(s.add(s.add(y, y), kv[v % 3]));
        let z = s.or(x, s.and(s.sub(s.zero(), s.shr::<1>(x)), qm));
        let d = s.sub(s.shift_in(prev, z), z);
        prev = z;
        if i < whole {
            s.store(&mut r[i..], d);
        } else {
            let mut last = [0u16; 32];
            s.store(&mut last, d);
            r[whole..].copy_from_slice(&last[..n - whole]);
        }
    }
}

impl Avx2Lanes {
    #[target_feature(enable = "avx2")]
    fn tf_lift_hrss(self, a: &[u16], r: &mut [u16], q: u16) {
        lift_hrss_body(self, a, r, q)
    }
    /// HRSS `poly_lift`, the reference's output; `3 <= a.len() = r.len() <= 821`.
    pub(crate) fn lift_hrss(self, a: &[u16], r: &mut [u16], q: u16) {
        // SAFETY: the token exists only if the CPU runs AVX2.
        unsafe { self.tf_lift_hrss(a, r, q) }
    }
}

impl Avx512Lanes {
    #[target_feature(enable = "avx512f,avx512bw")]
    fn tf_lift_hrss(self, a: &[u16], r: &mut [u16], q: u16) {
        lift_hrss_body(self, a, r, q)
    }
    /// HRSS `poly_lift`, the reference's output; `3 <= a.len() = r.len() <= 821`.
    pub(crate) fn lift_hrss(self, a: &[u16], r: &mut [u16], q: u16) {
        // SAFETY: the token exists only if the CPU runs AVX-512F and AVX-512BW.
        unsafe { self.tf_lift_hrss(a, r, q) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rings::ntru::reference::lift_hrss;

    fn check(a: &[u16], q: u16) {
        let n = a.len();
        let mut want = vec![0u16; n];
        lift_hrss(a, &mut want, q);
        if let Some(t) = Avx2Lanes::try_new() {
            let mut got = vec![0u16; n];
            t.lift_hrss(a, &mut got, q);
            assert_eq!(got, want, "avx2 n = {n}");
        }
        if let Some(t) = Avx512Lanes::try_new() {
            let mut got = vec![0u16; n];
            t.lift_hrss(a, &mut got, q);
            assert_eq!(got, want, "avx512 n = {n}");
        }
    }

    /// Every length mod 96 (both lane counts' tails and all residues of n and L mod 3) up to
    /// the largest parameter set, random, all-zero, all-max and ternary inputs.
    #[test]
    fn matches_reference() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u16
        };
        for n in (3..=821).filter(|n| *n < 100 || n % 7 == 0 || [509, 677, 701, 821].contains(n)) {
            for q in [2048u16, 8192] {
                check(&(0..n).map(|_| next()).collect::<Vec<_>>(), q);
                check(&(0..n).map(|_| next() % 3).collect::<Vec<_>>(), q);
                check(&vec![0u16; n], q);
                check(&vec![u16::MAX; n], q);
                check(&vec![2u16; n], q);
            }
        }
    }
}
