//! AVX2 twin of the scalar sorting network: a bitonic network on 8-lane `u32` vectors.
//!
//! The input is padded with `u32::MAX` to a power of two `N >= 64`, sorted by the bitonic
//! network (`log2(N)(log2(N)+1)/2` stages of `N/2` compare-exchanges) in a lane-major layout
//! (network position `i` in lane `i / (N/8)` of vector `i mod (N/8)`), and the first `n` words
//! are read back (the padding sorts to the end; [`sort_vectors`]). In this layout all stages of
//! distance below `N/8` are plain vector `min`/`max` between vectors, three stages per pass
//! over blocks of eight vectors held in registers ([`vector_group`]); the (at most three per
//! merge) stages of larger distance permute lanes, all of a merge's on one vector at a time
//! ([`lane_stages8`], [`mirror_lanes8`]). One
//! stage per pass over memory made the network load- and store-bound: `LATPOLY_ISA=avx2
//! examples/kem_bench` (Zen 4), encapsulation ntruhps2048509 6.69 -> 5.73-6.00 µs,
//! ntruhps2048677 11.5 -> 9.3, ntruhps4096821 13.05 -> 10.8, sntrup761 17.2 -> 15.3.
//!
//! The merges larger than `N/8` (whose pairs' directions depend on the lane) take the
//! network's all-ascending variant, a mirror stage ([`mirror_lanes8`]) and then ascending
//! half-cleaners, so their vector stages need no blends, and the lane stages' blends have
//! constant masks (`vpblendd`). With that and `vector_group`'s blocks addressed without
//! bounds checks, an sntrup761 encapsulation's sort went from 33,500 to 23,500 instructions
//! (Valgrind's `callgrind`) and its share of an ntruhps4096821 encapsulation from 21% to 16%
//! (`perf`, AMD Zen 2). Every
//! stage is a fixed sequence of vector `min`/`max`, lane permutations and blends whose order
//! and addresses depend only on the length, so no branch and no memory index depends on the
//! values.
//!
//! A [`Avx2Sort`] token can only be built by `try_new`, which checks the CPU at run time;
//! holding one is the proof the `unsafe` intrinsic calls below rely on.

#![allow(unsafe_code)]

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Largest padded length whose vectors the AVX2 network keeps on the stack (4 KB; every KEM
/// sorts at most 820 words); longer inputs use a heap buffer.
const STACK_MAX: usize = 1024;

/// Proof that the CPU runs AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2Sort(());

impl Avx2Sort {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx2").then_some(Self(()))
    }

    /// Sorts `x` ascending (unsigned).
    pub(crate) fn sort_u32(self, x: &mut [u32]) {
        // SAFETY: the token proves AVX2.
        unsafe { self.tf_sort_u32(x) }
    }

    /// Sorts `x` ascending (unsigned) with the bitonic network of [`sort_vectors`].
    ///
    /// A length `n` well short of the next power of two `2m` is split ([`merge_sorted`]):
    /// `x[..m]` and `x[m..]` are sorted apart (the latter recursively) and merged, instead of
    /// padding all of `x` to `2m` words. The split happens when `n - m <= 3m/4`, where it
    /// saves at least a quarter of the compare-exchanges (n = 676 and 761: the 1,024-word
    /// network's 55 stages on 128 vectors against 45 on 64, 36 on 32 and a merge of 17 stages
    /// on at most 64).
    #[target_feature(enable = "avx2")]
    fn tf_sort_u32(self, x: &mut [u32]) {
        let n = x.len();
        if n < 2 {
            return;
        }
        // At least 64 words, so that there are at least eight vectors for the 8 x 8
        // transpositions that read the result back.
        let big = n.next_power_of_two().max(64);
        let m = big / 2;
        let split = m >= 64 && 4 * (n - m) <= 3 * m;
        let vecs = if split {
            let (a, b) = x.split_at_mut(m);
            self.tf_sort_u32(a);
            self.tf_sort_u32(b);
            (m + (n - m).next_power_of_two().max(8)) / 8
        } else {
            big / 8
        };
        // Scratch on the stack up to STACK_MAX words, on the heap above.
        let mut stack = [MaybeUninit::uninit(); STACK_MAX / 8];
        let mut heap = Vec::new();
        let buf = if vecs <= STACK_MAX / 8 {
            &mut stack[..vecs]
        } else {
            heap.resize(vecs, MaybeUninit::uninit());
            &mut heap[..]
        };
        if split {
            merge_sorted(self, x, m, buf);
        } else {
            sort_vectors(self, x, buf);
        }
        core::hint::black_box(buf);
    }
}

/// Sorts `x` (`2 <= x.len() <= 8 v.len()`, `v.len()` a power of two `>= 8`) with the bitonic
/// network on the vectors `v`, which are zero on return. Inlined into the AVX2 entry point.
///
/// A sorting network sorts any arrangement of its input, so `x` is loaded as it lies (`v[a]`
/// holds `x[8a .. 8a + 8]`, `u32::MAX` past the end); only the result is read in the network's
/// lane-major order (sorted position `i` is lane `i / vecs` of vector `i % vecs`), by 8 x 8
/// transpositions of the vectors: row `l` of block `c` is then `x[l vecs + 8c ..][..8]`. A
/// scalar scatter into that layout and gather out of it, through a heap copy, were a third of
/// the sort (`perf` of an sntrup761 encapsulation, AMD Zen 2); without them
/// `examples/kem_bench` encapsulation went ntruhps2048509 9.5-10.1 -> 8.2-8.4 µs,
/// ntruhps4096821 18.4-18.8 -> 17.2-17.5, sntrup761 22.5-23.3 -> 21.1-21.7, ntrulpr761
/// 30.0-31.0 -> 28.6-29.5 (three alternating pairs, Zen 2).
#[inline(always)]
fn sort_vectors(t: Avx2Sort, x: &mut [u32], v: &mut [MaybeUninit<__m256i>]) {
    let (n, vecs) = (x.len(), v.len());
    let big = 8 * vecs;
    debug_assert!(n >= 2 && n <= big && vecs >= 8 && vecs.is_power_of_two());
    // SAFETY: inlined only into `Avx2Sort::tf_sort_u32` (`t` proves AVX2).
    let v = unsafe { load_padded(x, v) };
    // Merges of size k < vecs: blocks of k vectors (one lane each), ascending or descending by
    // bit k of the block's index, as the bitonic network has them; the merge of size vecs
    // leaves every lane ascending. The merges of size k > vecs, whose pairs run across lanes,
    // take the network's variant in which every merge is ascending: its first stage pairs each
    // element with its mirror image in the block of k ([`mirror_lanes8`], the only stage that
    // needs blends besides the lane stages), the others are ascending half-cleaners. With the
    // direction of a pair set by a lane of the index, each of those merges' vector stages took
    // two blends per compare-exchange.
    let mut k = 2;
    while k <= big {
        if k < vecs {
            vector_stages(t, v, k / 2, k, vecs);
        } else if k == vecs {
            vector_stages(t, v, vecs / 2, 0, vecs);
        } else {
            // SAFETY: AVX2 (`t`).
            unsafe {
                match k / vecs {
                    2 => mirror_lanes8::<1, 0>(v),
                    4 => mirror_lanes8::<3, 1>(v),
                    _ => mirror_lanes8::<7, 2>(v),
                }
            }
            vector_stages(t, v, vecs / 2, 0, vecs);
        }
        k *= 2;
    }
    // SAFETY: AVX2 (`t`); the stores write exact 8-word slices of `x` or a `[u32; 8]`.
    unsafe {
        let zero = _mm256_setzero_si256();
        for c in 0..vecs / 8 {
            let mut r = [zero; 8];
            r.copy_from_slice(&v[8 * c..8 * c + 8]);
            transpose8(&mut r);
            for (l, rl) in r.iter_mut().enumerate() {
                let p = l * vecs + 8 * c;
                if p + 8 <= n {
                    _mm256_storeu_si256(x[p..p + 8].as_mut_ptr().cast(), *rl);
                } else if p < n {
                    let mut part = [0u32; 8];
                    _mm256_storeu_si256(part.as_mut_ptr().cast(), *rl);
                    x[p..].copy_from_slice(&part[..n - p]);
                    crate::secret::wipe(&mut part);
                }
                *rl = zero; // wipe the copies (the values may be secret)
            }
            core::hint::black_box(&r);
        }
        for va in v.iter_mut() {
            *va = zero;
        }
    }
}

/// Loads `x` (at most `8 v.len()` words) into every vector of `v` as it lies: `v[a]` holds
/// `x[8a .. 8a + 8]`, `u32::MAX` past the end (the scratch is not zeroed beforehand: 4 KB
/// fills were three per split sort). Caller holds an AVX2 token.
#[inline(always)]
unsafe fn load_padded<'a>(x: &[u32], v: &'a mut [MaybeUninit<__m256i>]) -> &'a mut [__m256i] {
    // SAFETY: the caller guarantees AVX2; the loads read exact 8-word chunks of `x` or a
    // `[u32; 8]`.
    unsafe {
        let mut chunks = x.chunks_exact(8);
        let mut a = 0;
        for c in &mut chunks {
            v[a] = MaybeUninit::new(_mm256_loadu_si256(c.as_ptr().cast()));
            a += 1;
        }
        let tail = chunks.remainder();
        if !tail.is_empty() {
            let mut part = [u32::MAX; 8];
            part[..tail.len()].copy_from_slice(tail);
            v[a] = MaybeUninit::new(_mm256_loadu_si256(part.as_ptr().cast()));
            crate::secret::wipe(&mut part);
            a += 1;
        }
        for va in &mut v[a..] {
            *va = MaybeUninit::new(_mm256_set1_epi32(-1));
        }
        // SAFETY: every vector of `v` was written above, and `MaybeUninit<__m256i>` has the
        // layout of `__m256i`.
        &mut *(core::ptr::from_mut(v) as *mut [__m256i])
    }
}

/// Merges the ascending runs `x[..m]` and `x[m..]` (`m` a power of two `>= 64`, `x.len() - m
/// <= m`) into ascending `x`, by the bitonic merge in linear layout (`v[a]` holds words `8a ..
/// 8a + 8`): `v` holds `m / 8` vectors for the first run, then `q / 8` for the second, padded
/// with `u32::MAX` to a power of two `q >= 8`. The first run followed by the padded second
/// one reversed and preceded by `m - q` more `u32::MAX` is bitonic; its half-cleaner pairs
/// only the last `q` words of the first run with a real (or padding) word, and leaves a
/// bitonic lower half of `m` words (the first run's first `m - q` and the `q` minima) and a
/// bitonic upper half whose first `m - q` words are padding and whose last `q` are the
/// maxima, so only those `q` are merged. Distances of 8 words and more pair whole vectors
/// ([`vector_stages`], all ascending), the last three stages pair lanes
/// ([`lane_stages8`]). Addresses and the order of operations depend only on the lengths.
/// Inlined into the AVX2 entry point; `v` is zero on return.
#[inline(always)]
fn merge_sorted(t: Avx2Sort, x: &mut [u32], m: usize, v: &mut [MaybeUninit<__m256i>]) {
    let n = x.len();
    let (va, vb) = v.split_at_mut(m / 8);
    let qv = vb.len();
    debug_assert!(m >= 64 && m.is_power_of_two() && n - m <= 8 * qv && qv.is_power_of_two());
    debug_assert!(qv <= va.len());
    // SAFETY: inlined only into `Avx2Sort::tf_sort_u32` (`t` proves AVX2); the stores write
    // exact 8-word slices of `x` or a `[u32; 8]`.
    unsafe {
        let va = load_padded(&x[..m], va);
        let vb = load_padded(&x[m..], vb);
        let rev = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
        let off = va.len() - qv;
        // Word `8i + l` of the second half-cleaner's operand is word `q - 1 - 8i - l` of the
        // padded second run: lane `7 - l` of its vector `qv - 1 - i`. Pairs `i`, `qv - 1 - i`
        // go together, so each second-run vector is read before it is overwritten.
        for i in 0..qv.div_ceil(2) {
            let j = qv - 1 - i;
            let (bi, bj) = (
                _mm256_permutevar8x32_epi32(vb[j], rev),
                _mm256_permutevar8x32_epi32(vb[i], rev),
            );
            let (ai, aj) = (va[off + i], va[off + j]);
            va[off + i] = _mm256_min_epu32(ai, bi);
            vb[i] = _mm256_max_epu32(ai, bi);
            va[off + j] = _mm256_min_epu32(aj, bj);
            vb[j] = _mm256_max_epu32(aj, bj);
        }
        for w in [&mut *va, &mut *vb] {
            let vecs = w.len();
            // k = 0: every pair ascending.
            vector_stages(t, w, vecs / 2, 0, vecs);
            lane_stages8::<4>(w);
        }
        for (c, a) in x[..m].chunks_exact_mut(8).zip(va.iter()) {
            _mm256_storeu_si256(c.as_mut_ptr().cast(), *a);
        }
        let mut chunks = x[m..].chunks_exact_mut(8);
        let mut b = 0;
        for c in &mut chunks {
            _mm256_storeu_si256(c.as_mut_ptr().cast(), vb[b]);
            b += 1;
        }
        let tail = chunks.into_remainder();
        if !tail.is_empty() {
            let mut part = [0u32; 8];
            _mm256_storeu_si256(part.as_mut_ptr().cast(), vb[b]);
            tail.copy_from_slice(&part[..tail.len()]);
            crate::secret::wipe(&mut part);
        }
        let zero = _mm256_setzero_si256();
        for w in va.iter_mut().chain(vb.iter_mut()) {
            *w = zero;
        }
    }
}

/// Transposes the 8 x 8 matrix of `u32` whose rows are `r` (row `i` lane `j` becomes row `j`
/// lane `i`): 32-bit and 64-bit unpacks, then 128-bit halves. Caller holds an AVX2 token.
#[inline(always)]
unsafe fn transpose8(r: &mut [__m256i; 8]) {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        let mut t = [_mm256_setzero_si256(); 8];
        for k in 0..4 {
            t[2 * k] = _mm256_unpacklo_epi32(r[2 * k], r[2 * k + 1]);
            t[2 * k + 1] = _mm256_unpackhi_epi32(r[2 * k], r[2 * k + 1]);
        }
        // u[4h + 2m + s]: columns (2m + s) and (2m + s + 4) of rows 4h .. 4h + 3
        let mut u = [_mm256_setzero_si256(); 8];
        for h in 0..2 {
            for m in 0..2 {
                let (p, q) = (t[4 * h + m], t[4 * h + m + 2]);
                u[4 * h + 2 * m] = _mm256_unpacklo_epi64(p, q);
                u[4 * h + 2 * m + 1] = _mm256_unpackhi_epi64(p, q);
            }
        }
        for j in 0..4 {
            r[j] = _mm256_permute2x128_si256::<0x20>(u[j], u[4 + j]);
            r[j + 4] = _mm256_permute2x128_si256::<0x31>(u[j], u[4 + j]);
        }
    }
}

/// All-ones in the lanes `l < 8` with `l & bit == 0` (all lanes from `bit = 8` on). Caller
/// holds an AVX2 token.
#[inline(always)]
unsafe fn clear8(bit: usize) -> __m256i {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let hit = _mm256_and_si256(lane, _mm256_set1_epi32(bit.min(8) as i32 & 7));
        _mm256_cmpeq_epi32(hit, _mm256_setzero_si256())
    }
}

/// The first stage of an ascending merge of size `k = (M + 1) vecs` (`vecs = v.len()`) in the
/// lane-major layout: element `(a, l)` (vector `a`, lane `l`) and its mirror image in the block
/// of `k`, `(vecs - 1 - a, l ^ M)`, exchanged so that the lower index takes the minimum, i.e.
/// in `v[a]` the lanes whose bit `(M + 1) / 2` is clear; then the merge's lane stages of
/// distances `J0 .. 1` ([`lane_stages_one`]) on both vectors while they are in registers.
/// Caller holds an AVX2 token.
#[inline(always)]
unsafe fn mirror_lanes8<const M: i32, const J0: usize>(v: &mut [__m256i]) {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        let low = clear8(((M + 1) / 2) as usize);
        let vecs = v.len();
        for a in 0..vecs / 2 {
            let b = vecs - 1 - a;
            let (x, y) = (v[a], lane_xor8::<M>(v[b]));
            let (mn, mx) = (_mm256_min_epu32(x, y), _mm256_max_epu32(x, y));
            let (x, y) = (
                _mm256_blendv_epi8(mx, mn, low),
                _mm256_blendv_epi8(mn, mx, low),
            );
            v[a] = lane_stages_one::<J0>(x);
            v[b] = lane_stages_one::<J0>(lane_xor8::<M>(y));
        }
    }
}

/// Lane `l` of the result is lane `l ^ M` of `x` (`M` = 1, 3 or 7). Caller holds an AVX2
/// token.
#[inline(always)]
unsafe fn lane_xor8<const M: i32>(x: __m256i) -> __m256i {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        match M {
            1 => _mm256_shuffle_epi32::<0b10_11_00_01>(x),
            3 => _mm256_shuffle_epi32::<0b00_01_10_11>(x),
            _ => _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)),
        }
    }
}

/// The lane stages of distances `J0, J0/2, ..., 1` of an ascending merge on every vector of
/// `v` ([`lane_stages_one`]). Caller holds an AVX2 token.
#[inline(always)]
unsafe fn lane_stages8<const J0: usize>(v: &mut [__m256i]) {
    for va in v.iter_mut() {
        // SAFETY: the caller guarantees AVX2.
        *va = unsafe { lane_stages_one::<J0>(*va) };
    }
}

/// The lane stages of distances `J0, J0/2, ..., 1` (`J0` = 0, 1, 2 or 4; none for 0) of an
/// ascending merge on one vector: the lower lane of each pair takes the minimum (constant
/// masks, so the blends are `vpblendd`). Caller holds an AVX2 token.
#[inline(always)]
unsafe fn lane_stages_one<const J0: usize>(mut x: __m256i) -> __m256i {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        if J0 >= 4 {
            let w = _mm256_permute2x128_si256::<0x01>(x, x);
            let (mn, mx) = (_mm256_min_epu32(x, w), _mm256_max_epu32(x, w));
            x = _mm256_blend_epi32::<0b1111_0000>(mn, mx);
        }
        if J0 >= 2 {
            let w = _mm256_shuffle_epi32::<0b01_00_11_10>(x);
            let (mn, mx) = (_mm256_min_epu32(x, w), _mm256_max_epu32(x, w));
            x = _mm256_blend_epi32::<0b1100_1100>(mn, mx);
        }
        if J0 >= 1 {
            let w = _mm256_shuffle_epi32::<0b10_11_00_01>(x);
            let (mn, mx) = (_mm256_min_epu32(x, w), _mm256_max_epu32(x, w));
            x = _mm256_blend_epi32::<0b1010_1010>(mn, mx);
        }
        x
    }
}

/// Proof that the CPU runs AVX-512F.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512Sort(());

/// Largest padded length the AVX-512 network sorts in registers-sized stack storage (every KEM
/// sorts at most 820 words); longer inputs go to the AVX2 network.
pub(crate) const AVX512_MAX: usize = 1024;

impl Avx512Sort {
    pub(crate) fn try_new() -> Option<Self> {
        is_x86_feature_detected!("avx512f").then_some(Self(()))
    }

    /// Sorts `x` ascending (unsigned); `x.len() <= AVX512_MAX`.
    pub(crate) fn sort_u32(self, x: &mut [u32]) {
        assert!(
            x.len() <= AVX512_MAX,
            "AVX-512 sort: length above {AVX512_MAX}"
        );
        // SAFETY: the token proves AVX-512F.
        unsafe { self.tf_sort_u32(x) }
    }

    /// The network of [`Avx2Sort`] on 16-lane vectors, same lane-major layout (element `i` in
    /// lane `i / vecs` of vector `i % vecs`), with mask-register blends: the stages of distance
    /// below `vecs` are vector `min`/`max` between vectors, the (at most four per merge) larger
    /// ones exchange lanes within a vector.
    #[target_feature(enable = "avx512f")]
    fn tf_sort_u32(self, x: &mut [u32]) {
        let n = x.len();
        if n < 2 {
            return;
        }
        let big = n.next_power_of_two().max(32);
        let vecs = big / 16;
        // Element i = l vecs + a goes to lane l of vector a: the transpose of `x` (padded with
        // `u32::MAX`) read as a 16 x vecs matrix, done 16 x 16 blocks at a time in registers
        // (the KEM sizes have vecs >= 16) or element by element for short inputs. The rows
        // are read from `x` with the padding supplied by masked loads (a padded copy was two
        // 4 KB fills and a copy per call); masks depend on `n` only.
        let mut vbuf = [MaybeUninit::<__m512i>::uninit(); AVX512_MAX / 16];
        let max = _mm512_set1_epi32(-1);
        if vecs >= 16 {
            for c in 0..vecs / 16 {
                let mut r = [max; 16];
                for (l, rl) in r.iter_mut().enumerate() {
                    let p = l * vecs + 16 * c;
                    if p < n {
                        let row = &x[p..n.min(p + 16)];
                        // SAFETY: AVX-512F (token); the mask selects the `row.len() <= 16`
                        // readable u32 of `row`, the other lanes are not read.
                        *rl = unsafe {
                            _mm512_mask_loadu_epi32(
                                max,
                                lanes_below(row.len()),
                                row.as_ptr().cast(),
                            )
                        };
                    }
                }
                // SAFETY: AVX-512F (token).
                unsafe { transpose16(&mut r) };
                for (d, rl) in vbuf[16 * c..16 * c + 16].iter_mut().zip(r.iter_mut()) {
                    *d = MaybeUninit::new(*rl);
                    *rl = _mm512_setzero_si512(); // wipe the copies (the values may be secret)
                }
                core::hint::black_box(&r);
            }
        } else {
            let mut tmp = [u32::MAX; 256];
            for (i, &xi) in x.iter().enumerate() {
                tmp[(i % vecs) * 16 + i / vecs] = xi;
            }
            for (va, c) in vbuf[..vecs].iter_mut().zip(tmp.chunks_exact(16)) {
                // SAFETY: AVX-512F (token); each chunk has 16 readable u32.
                *va = MaybeUninit::new(unsafe { _mm512_loadu_si512(c.as_ptr().cast()) });
            }
            crate::secret::wipe(&mut tmp);
        }
        // SAFETY: both branches above wrote `vbuf[..vecs]` (vecs / 16 blocks of 16, or `vecs`
        // chunks of `tmp`), and `MaybeUninit<__m512i>` has the layout of `__m512i`.
        let v: &mut [__m512i] =
            unsafe { &mut *(core::ptr::from_mut(&mut vbuf[..vecs]) as *mut [__m512i]) };
        let mut k = 2;
        while k <= big {
            // Lane stages (distances k/2 .. vecs): partners in lanes l and l ^ (j / vecs) of
            // the same vector; all of them applied to one vector while it sits in a register.
            if k / 2 >= vecs {
                let asc = clear_lanes(k / vecs);
                // One copy per first distance, so every stage's shuffle is a constant (a
                // loop over the distance branched on it for every vector).
                let jl = k / 2 / vecs;
                // SAFETY: AVX-512F (token).
                unsafe {
                    match jl {
                        8 => lane_stages::<8>(v, asc),
                        4 => lane_stages::<4>(v, asc),
                        2 => lane_stages::<2>(v, asc),
                        _ => lane_stages::<1>(v, asc),
                    }
                }
            }
            vector_stages(self, v, (k / 2).min(vecs / 2), k, vecs);
            k *= 2;
        }
        // Back: the same transposition (lane l of vector a is element l vecs + a), rows stored
        // into `x` by masked stores (lanes at `n` and beyond are padding).
        if vecs >= 16 {
            for c in 0..vecs / 16 {
                let mut r = [_mm512_setzero_si512(); 16];
                r.copy_from_slice(&v[16 * c..16 * c + 16]);
                // SAFETY: AVX-512F (token).
                unsafe { transpose16(&mut r) };
                for (l, rl) in r.iter_mut().enumerate() {
                    let p = l * vecs + 16 * c;
                    if p < n {
                        let row = &mut x[p..n.min(p + 16)];
                        // SAFETY: AVX-512F (token); the mask selects the `row.len() <= 16`
                        // writable u32 of `row`, the other lanes are not written.
                        unsafe {
                            _mm512_mask_storeu_epi32(
                                row.as_mut_ptr().cast(),
                                lanes_below(row.len()),
                                *rl,
                            )
                        };
                    }
                    *rl = _mm512_setzero_si512(); // wipe the copies (the values may be secret)
                }
                core::hint::black_box(&r);
            }
        } else {
            let mut tmp = [0u32; 256];
            for (c, va) in tmp.chunks_exact_mut(16).zip(v.iter()) {
                // SAFETY: AVX-512F (token); each chunk has 16 writable u32.
                unsafe { _mm512_storeu_si512(c.as_mut_ptr().cast(), *va) };
            }
            for (i, xi) in x.iter_mut().enumerate() {
                *xi = tmp[(i % vecs) * 16 + i / vecs];
            }
            crate::secret::wipe(&mut tmp);
        }
        for va in v.iter_mut() {
            *va = _mm512_setzero_si512(); // wipe the copies (the values may be secret)
        }
        core::hint::black_box(&v);
    }
}

/// Transposes the 16 x 16 matrix of `u32` whose rows are `r` (row `i` lane `j` becomes row `j`
/// lane `i`): 32-bit and 64-bit unpacks, then two rounds of 128-bit block shuffles. Caller
/// holds an AVX-512F token.
#[inline(always)]
unsafe fn transpose16(r: &mut [__m512i; 16]) {
    // SAFETY: the caller guarantees AVX-512F.
    unsafe {
        let mut t = [_mm512_setzero_si512(); 16];
        for k in 0..8 {
            t[2 * k] = _mm512_unpacklo_epi32(r[2 * k], r[2 * k + 1]);
            t[2 * k + 1] = _mm512_unpackhi_epi32(r[2 * k], r[2 * k + 1]);
        }
        // u[4k + m]: column m (m + 4, m + 8, m + 12 in the upper 128-bit blocks) of rows
        // 4k .. 4k + 3.
        let mut u = [_mm512_setzero_si512(); 16];
        for k in 0..4 {
            u[4 * k] = _mm512_unpacklo_epi64(t[4 * k], t[4 * k + 2]);
            u[4 * k + 1] = _mm512_unpackhi_epi64(t[4 * k], t[4 * k + 2]);
            u[4 * k + 2] = _mm512_unpacklo_epi64(t[4 * k + 1], t[4 * k + 3]);
            u[4 * k + 3] = _mm512_unpackhi_epi64(t[4 * k + 1], t[4 * k + 3]);
        }
        // Column m + 4L is block L of u[m], u[4 + m], u[8 + m], u[12 + m].
        for m in 0..4 {
            let w0 = _mm512_shuffle_i32x4::<0b01_00_01_00>(u[m], u[4 + m]);
            let w1 = _mm512_shuffle_i32x4::<0b11_10_11_10>(u[m], u[4 + m]);
            let w2 = _mm512_shuffle_i32x4::<0b01_00_01_00>(u[8 + m], u[12 + m]);
            let w3 = _mm512_shuffle_i32x4::<0b11_10_11_10>(u[8 + m], u[12 + m]);
            r[m] = _mm512_shuffle_i32x4::<0b10_00_10_00>(w0, w2);
            r[m + 4] = _mm512_shuffle_i32x4::<0b11_01_11_01>(w0, w2);
            r[m + 8] = _mm512_shuffle_i32x4::<0b10_00_10_00>(w1, w3);
            r[m + 12] = _mm512_shuffle_i32x4::<0b11_01_11_01>(w1, w3);
        }
    }
}

/// `[log2 bit]`: the lanes `l < 16` with `l & bit == 0` (all of them from `bit = 16` on).
const CLEAR: [__mmask16; 5] = [0x5555, 0x3333, 0x0f0f, 0x00ff, 0xffff];

/// The lanes `l < len` (`len <= 16`).
#[inline(always)]
fn lanes_below(len: usize) -> __mmask16 {
    ((1u32 << len) - 1) as __mmask16
}

/// The lanes `l < 16` with `l & bit == 0` (`bit` a power of two).
#[inline(always)]
fn clear_lanes(bit: usize) -> __mmask16 {
    CLEAR[(bit.trailing_zeros() as usize).min(4)]
}

/// Ascending compare-exchange of two vectors (minimum to `a`). Caller holds an AVX-512F token.
#[inline(always)]
unsafe fn cx_asc(a: &mut __m512i, b: &mut __m512i) {
    // SAFETY: the caller guarantees AVX-512F.
    unsafe { (*a, *b) = (_mm512_min_epu32(*a, *b), _mm512_max_epu32(*a, *b)) }
}

/// Compare-exchange per lane: the minimum goes to `a` in the lanes of `m`, to `b` elsewhere.
/// Caller holds an AVX-512F token.
#[inline(always)]
unsafe fn cx_lanes(a: &mut __m512i, b: &mut __m512i, m: __mmask16) {
    // SAFETY: the caller guarantees AVX-512F.
    unsafe {
        let (mn, mx) = (_mm512_min_epu32(*a, *b), _mm512_max_epu32(*a, *b));
        *a = _mm512_mask_blend_epi32(m, mx, mn);
        *b = _mm512_mask_blend_epi32(m, mn, mx);
    }
}

/// One lane stage of distance `jl` (lanes `l`, `l ^ jl`) in merge of ascending lanes `asc`.
/// Caller holds an AVX-512F token.
#[inline(always)]
unsafe fn lane_stage(va: __m512i, jl: usize, asc: __mmask16) -> __m512i {
    // SAFETY: the caller guarantees AVX-512F.
    unsafe {
        let w = match jl {
            8 => _mm512_shuffle_i64x2::<0b01_00_11_10>(va, va),
            4 => _mm512_shuffle_i64x2::<0b10_11_00_01>(va, va),
            2 => _mm512_shuffle_epi32::<0b01_00_11_10>(va),
            _ => _mm512_shuffle_epi32::<0b10_11_00_01>(va),
        };
        // The minimum goes where "lower lane of the pair" equals "ascending".
        let take_min = !(clear_lanes(jl) ^ asc);
        let (mn, mx) = (_mm512_min_epu32(va, w), _mm512_max_epu32(va, w));
        _mm512_mask_blend_epi32(take_min, mx, mn)
    }
}

/// The lane stages of distances `J0, J0/2, ..., 1` on every vector of `v` (merge of ascending
/// lanes `asc`). Caller holds an AVX-512F token.
#[inline(always)]
unsafe fn lane_stages<const J0: usize>(v: &mut [__m512i], asc: __mmask16) {
    for va in v.iter_mut() {
        // SAFETY: the caller guarantees AVX-512F.
        unsafe {
            if J0 >= 8 {
                *va = lane_stage(*va, 8, asc);
            }
            if J0 >= 4 {
                *va = lane_stage(*va, 4, asc);
            }
            if J0 >= 2 {
                *va = lane_stage(*va, 2, asc);
            }
            *va = lane_stage(*va, 1, asc);
        }
    }
}

/// The compare-exchanges of one backend's vector stages (a token proves the CPU runs them).
trait Exchange: Copy {
    /// Lanes per vector.
    const LANES: usize;
    /// Vector of `u32` lanes.
    type V: Copy;
    /// A set of lanes.
    type M: Copy;
    /// The lanes `l` with `l & bit == 0` (all of them once `bit` reaches the lane count).
    fn lanes_clear(self, bit: usize) -> Self::M;
    /// Ascending compare-exchange (minimum to `a`).
    fn cx_asc(self, a: &mut Self::V, b: &mut Self::V);
    /// Compare-exchange per lane: the minimum goes to `a` in the lanes of `m`, to `b` elsewhere.
    fn cx_lanes(self, a: &mut Self::V, b: &mut Self::V, m: Self::M);
}

impl Exchange for Avx2Sort {
    const LANES: usize = 8;
    type V = __m256i;
    type M = __m256i;
    #[inline(always)]
    fn lanes_clear(self, bit: usize) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe { clear8(bit) }
    }
    #[inline(always)]
    fn cx_asc(self, a: &mut __m256i, b: &mut __m256i) {
        // SAFETY: the token proves AVX2.
        unsafe { (*a, *b) = (_mm256_min_epu32(*a, *b), _mm256_max_epu32(*a, *b)) }
    }
    #[inline(always)]
    fn cx_lanes(self, a: &mut __m256i, b: &mut __m256i, m: __m256i) {
        // SAFETY: the token proves AVX2.
        unsafe {
            let (mn, mx) = (_mm256_min_epu32(*a, *b), _mm256_max_epu32(*a, *b));
            *a = _mm256_blendv_epi8(mx, mn, m);
            *b = _mm256_blendv_epi8(mn, mx, m);
        }
    }
}

impl Exchange for Avx512Sort {
    const LANES: usize = 16;
    type V = __m512i;
    type M = __mmask16;
    #[inline(always)]
    fn lanes_clear(self, bit: usize) -> __mmask16 {
        clear_lanes(bit)
    }
    #[inline(always)]
    fn cx_asc(self, a: &mut __m512i, b: &mut __m512i) {
        // SAFETY: the token proves AVX-512F.
        unsafe { cx_asc(a, b) }
    }
    #[inline(always)]
    fn cx_lanes(self, a: &mut __m512i, b: &mut __m512i, m: __mmask16) {
        // SAFETY: the token proves AVX-512F.
        unsafe { cx_lanes(a, b, m) }
    }
}

/// The vector stages of distances `j0, j0/2, ..., 1` (below `vecs`) of the merge of size `k`
/// (`k = 0`: a plain ascending merge), up to three per pass over the vectors
/// ([`vector_group`]).
#[inline(always)]
fn vector_stages<T: Exchange>(t: T, v: &mut [T::V], j0: usize, k: usize, vecs: usize) {
    let mut j = j0;
    while j > 0 {
        if j >= 4 {
            vector_group::<T, 3>(t, v, j, k, vecs);
            j /= 8;
        } else if j == 2 {
            vector_group::<T, 2>(t, v, j, k, vecs);
            j /= 4;
        } else {
            vector_group::<T, 1>(t, v, j, k, vecs);
            j /= 2;
        }
    }
}

/// `G` consecutive vector stages (distances `j, j/2, ..., j/2^(G-1)`, all below `vecs`) of the
/// merge of size `k`, on blocks of `2^G` vectors held in registers. Partners at distance `d` are
/// vectors `a` and `a + d` (same lane); the pair is ascending iff bit `k` of the lower element's
/// index `a + vecs l` is clear (always for `k = 0`, and for `k >= LANES vecs`, the last merge of
/// a network: every index is below `k`). For `vecs <= k < LANES vecs` that is a lane mask
/// (compare-exchanges with blends); for `k < vecs` it is bit `k` of the block's base: the
/// block's compare-exchanges are all ascending or all descending.
///
/// The blocks are addressed through a raw pointer: with bounds-checked slice indexing (block
/// base and stride known only at run time) the address arithmetic and checks were about half
/// of the sort's instructions (Valgrind's `callgrind`, sntrup761 encapsulation).
#[inline(always)]
fn vector_group<T: Exchange, const G: usize>(
    t: T,
    v: &mut [T::V],
    j: usize,
    k: usize,
    vecs: usize,
) {
    let n = 1 << G;
    let low = j >> (G - 1); // smallest distance of the group
    assert!(
        vecs <= v.len() && j.is_power_of_two() && low > 0 && vecs.is_multiple_of(2 * j),
        "vector_group: stage outside the vectors"
    );
    // (No closure: closures are not always inlined into the `#[target_feature]` callers.)
    let asc = if k >= vecs && k < T::LANES * vecs {
        Some(t.lanes_clear(k / vecs))
    } else {
        None
    };
    let mut r = [v[0]; 8];
    let ptr = v.as_mut_ptr();
    let mut top = 0;
    while top < vecs {
        for base in top..top + low {
            let desc = k < vecs && base & k != 0;
            // SAFETY: `top` is a multiple of `2j` below `vecs` (a multiple of `2j`, at most
            // `v.len()`), so the block's vectors `base + i low <= top + low - 1 + (n - 1) low
            // = top + 2j - 1` lie in `v`; no two of the pointers below are live at once.
            unsafe {
                let p = ptr.add(base);
                for (i, ri) in r.iter_mut().enumerate().take(n) {
                    *ri = *p.add(i * low);
                }
            }
            let mut d = n / 2;
            while d > 0 {
                for i in 0..n {
                    if i & d == 0 {
                        let (x, y) = r.split_at_mut(i + d);
                        match asc {
                            Some(m) => t.cx_lanes(&mut x[i], &mut y[0], m),
                            None if desc => t.cx_asc(&mut y[0], &mut x[i]),
                            None => t.cx_asc(&mut x[i], &mut y[0]),
                        }
                    }
                }
                d /= 2;
            }
            // SAFETY: as for the loads above.
            unsafe {
                let p = ptr.add(base);
                for (i, ri) in r.iter().enumerate().take(n) {
                    *p.add(i * low) = *ri;
                }
            }
        }
        top += 2 * j;
    }
}
