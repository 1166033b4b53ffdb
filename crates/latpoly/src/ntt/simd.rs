//! Generic SIMD NTT drivers over a narrow vector interface ([`Simd`]).
//!
//! Each backend (`x86/*.rs`) implements [`Simd`] for a zero-sized *token* whose existence proves
//! the CPU has the needed instruction set, so the drivers here are safe code. The drivers are
//! `#[inline(always)]` and are instantiated inside `#[target_feature]` entry points of each backend,
//! which lets the compiler inline every vector operation.
//!
//! Algorithms (same arithmetic contract as `scalar.rs`, which is the specification):
//! * layers whose butterfly distance `t` is at least the lane count run over broadcast twiddles,
//!   two layers per memory pass (radix-4) where possible;
//! * the last `log2(LANES)` forward layers (first inverse layers) run in registers on pairs of
//!   vectors: a backend-specific `deinterleave` gathers the `X` and `Y` halves of every butterfly,
//!   with per-lane twiddles taken from tables expanded for that backend's lane order.
//!
//! Ranges: forward input `[0, 4q)` -> output `[0, 4q)`; inverse input `[0, 2q)` -> `[0, 2q)`.

use crate::arith::{Modulus, Word};

/// A SIMD instruction-set token for lanes of type `Self::W`.
///
/// Contract for implementors: every method computes lane-wise exactly what its doc says, for the
/// input ranges stated; `deinterleave`/`interleave` are mutually inverse permutations such that
/// `X` lane `l` and `Y` lane `l` are the two inputs of one butterfly at distance `t`.
pub(crate) trait Simd: Copy + Send + Sync + 'static {
    /// Lane type.
    type W: Word;
    /// Vector of `LANES` lanes.
    type V: Copy;
    /// Number of lanes.
    const LANES: usize;
    /// Bits of the Shoup quotient: `wp = floor(w · 2^SHOUP_BITS / q)`.
    const SHOUP_BITS: u32;
    /// Montgomery radix exponent of [`Simd::mont_mul`].
    const MONT_BITS: u32;

    fn splat(self, x: Self::W) -> Self::V;
    /// Loads `LANES` values from the start of `s` (`s.len() >= LANES`).
    fn load(self, s: &[Self::W]) -> Self::V;
    /// Stores `LANES` values at the start of `s` (`s.len() >= LANES`).
    fn store(self, s: &mut [Self::W], v: Self::V);
    /// Wrapping addition.
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// Wrapping subtraction.
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a >= m ? a - m : a` (unsigned, any lane values).
    fn csub(self, a: Self::V, m: Self::V) -> Self::V;
    /// `w · x mod q` in `[0, 2q)` for `x < 4q`, `w < q`, `wp` the Shoup quotient.
    fn mul_shoup_lazy(self, x: Self::V, w: Self::V, wp: Self::V, q: Self::V) -> Self::V;
    /// `a · b · 2^-MONT_BITS mod q` in `[0, q)` for `a, b < q`; `qinv = q^-1 mod 2^MONT_BITS`.
    fn mont_mul(self, a: Self::V, b: Self::V, q: Self::V, qinv: Self::V) -> Self::V;
    /// Splits two vectors holding `2·LANES` consecutive values into the `X` and `Y` inputs of the
    /// butterflies at distance `t < LANES`.
    fn deinterleave(self, a: Self::V, b: Self::V, t: usize) -> (Self::V, Self::V);
    /// Inverse of [`Simd::deinterleave`].
    fn interleave(self, x: Self::V, y: Self::V, t: usize) -> (Self::V, Self::V);
}

/// Per-backend twiddle tables (Shoup quotients in the backend's `SHOUP_BITS`).
#[derive(Clone, Debug)]
pub(crate) struct SimdTables<W: Word> {
    pub fwd: Vec<W>,
    pub fwd_shoup: Vec<W>,
    pub inv: Vec<W>,
    pub inv_shoup: Vec<W>,
    /// Per small distance `t = 2^k < LANES` (index `k`): per-lane twiddles and quotients for the
    /// forward layer of distance `t`, laid out in the backend's deinterleaved lane order,
    /// `LANES` entries per pair of vectors.
    pub small_fwd: Vec<(Vec<W>, Vec<W>)>,
    pub small_inv: Vec<(Vec<W>, Vec<W>)>,
    pub n_inv: (W, W),
    pub n_inv_w: (W, W),
    /// `2^MONT_BITS mod q` with its Shoup quotient: cancels the Montgomery factor.
    pub mont_fix: (W, W),
    /// `q^-1 mod 2^MONT_BITS`.
    pub qinv: W,
}

/// `floor(w · 2^bits / q)`.
pub(crate) fn shoup_quotient(w: u64, q: u64, bits: u32) -> u64 {
    (((w as u128) << bits) / q as u128) as u64
}

impl<W: Word> SimdTables<W> {
    /// Builds the tables for token `s` from the bit-reversed power tables of the scalar plan.
    pub(crate) fn new<S: Simd<W = W>>(s: S, m: &W::Modulus, fwd: &[W], inv: &[W]) -> Self {
        let q = m.value().to_u64();
        let n = fwd.len();
        let l = S::LANES;
        let sh = |w: W| W::from_u64(shoup_quotient(w.to_u64(), q, S::SHOUP_BITS));
        // Discover the backend's lane -> butterfly mapping by deinterleaving index vectors.
        let idx_a: Vec<W> = (0..l).map(|i| W::from_u64(i as u64)).collect();
        let idx_b: Vec<W> = (l..2 * l).map(|i| W::from_u64(i as u64)).collect();
        let expand = |table: &[W], t: usize| -> (Vec<W>, Vec<W>) {
            let (x, _) = s.deinterleave(s.load(&idx_a), s.load(&idx_b), t);
            let mut pos = vec![W::ZERO; l];
            s.store(&mut pos, x);
            let groups = n / (2 * t); // groups in this layer; table index groups + g
            let mut w = Vec::with_capacity(n / 2);
            let mut wp = Vec::with_capacity(n / 2);
            for pair in 0..n / (2 * l) {
                for p in &pos {
                    let local = p.to_u64() as usize / (2 * t);
                    let g = pair * (2 * l) / (2 * t) + local;
                    let tw = table[groups + g];
                    w.push(tw);
                    wp.push(sh(tw));
                }
            }
            (w, wp)
        };
        let mut small_fwd = Vec::new();
        let mut small_inv = Vec::new();
        let mut t = 1;
        while t < l {
            small_fwd.push(expand(fwd, t));
            small_inv.push(expand(inv, t));
            t <<= 1;
        }
        let ni = m
            .inv(m.reduce_u64(n as u64))
            .expect("n is invertible modulo a prime q > n");
        let niw = m.mul(ni, inv[1]);
        let half = m.reduce_u64(1u64 << (S::MONT_BITS / 2));
        let r = m.mul(half, half); // 2^MONT_BITS mod q
        let qinv =
            W::from_u64(crate::arith::modulus::inv_mod_2_64(q) & (u64::MAX >> (64 - S::MONT_BITS)));
        Self {
            fwd_shoup: fwd.iter().map(|&w| sh(w)).collect(),
            inv_shoup: inv.iter().map(|&w| sh(w)).collect(),
            fwd: fwd.to_vec(),
            inv: inv.to_vec(),
            small_fwd,
            small_inv,
            n_inv: (ni, sh(ni)),
            n_inv_w: (niw, sh(niw)),
            mont_fix: (r, sh(r)),
            qinv,
        }
    }
}

#[inline(always)]
fn ct_butterfly<S: Simd>(
    s: S,
    x: S::V,
    y: S::V,
    w: S::V,
    wp: S::V,
    q: S::V,
    two_q: S::V,
) -> (S::V, S::V) {
    let u = s.csub(x, two_q);
    let v = s.mul_shoup_lazy(y, w, wp, q);
    (s.add(u, v), s.add(s.sub(u, v), two_q))
}

#[inline(always)]
fn gs_butterfly<S: Simd>(
    s: S,
    x: S::V,
    y: S::V,
    w: S::V,
    wp: S::V,
    q: S::V,
    two_q: S::V,
) -> (S::V, S::V) {
    let u = s.csub(s.add(x, y), two_q);
    let v = s.mul_shoup_lazy(s.add(s.sub(x, y), two_q), w, wp, q);
    (u, v)
}

/// Forward lazy NTT. Requires `a.len() == n >= 2·LANES`.
#[inline(always)]
pub(crate) fn forward_lazy<S: Simd>(s: S, tb: &SimdTables<S::W>, q: S::W, a: &mut [S::W]) {
    let n = a.len();
    let l = S::LANES;
    debug_assert!(n >= 2 * l);
    let qv = s.splat(q);
    let two_q = s.add(qv, qv);
    let mut groups = 1;
    let mut t = n / 2;
    while t >= l {
        if t / 2 >= l {
            // Radix-4: layers (groups, t) and (2 groups, t/2) in one pass.
            let h = t / 2;
            for i in 0..groups {
                let w1 = s.splat(tb.fwd[groups + i]);
                let w1p = s.splat(tb.fwd_shoup[groups + i]);
                let w2 = s.splat(tb.fwd[2 * groups + 2 * i]);
                let w2p = s.splat(tb.fwd_shoup[2 * groups + 2 * i]);
                let w3 = s.splat(tb.fwd[2 * groups + 2 * i + 1]);
                let w3p = s.splat(tb.fwd_shoup[2 * groups + 2 * i + 1]);
                let blk = &mut a[2 * i * t..2 * i * t + 2 * t];
                let (b01, b23) = blk.split_at_mut(t);
                let (b0, b1) = b01.split_at_mut(h);
                let (b2, b3) = b23.split_at_mut(h);
                for j in (0..h).step_by(l) {
                    let x0 = s.load(&b0[j..]);
                    let x1 = s.load(&b1[j..]);
                    let x2 = s.load(&b2[j..]);
                    let x3 = s.load(&b3[j..]);
                    let (x0, x2) = ct_butterfly(s, x0, x2, w1, w1p, qv, two_q);
                    let (x1, x3) = ct_butterfly(s, x1, x3, w1, w1p, qv, two_q);
                    let (x0, x1) = ct_butterfly(s, x0, x1, w2, w2p, qv, two_q);
                    let (x2, x3) = ct_butterfly(s, x2, x3, w3, w3p, qv, two_q);
                    s.store(&mut b0[j..], x0);
                    s.store(&mut b1[j..], x1);
                    s.store(&mut b2[j..], x2);
                    s.store(&mut b3[j..], x3);
                }
            }
            groups *= 4;
            t /= 4;
        } else {
            for i in 0..groups {
                let w = s.splat(tb.fwd[groups + i]);
                let wp = s.splat(tb.fwd_shoup[groups + i]);
                let (lo, hi) = a[2 * i * t..2 * i * t + 2 * t].split_at_mut(t);
                for j in (0..t).step_by(l) {
                    let (x, y) =
                        ct_butterfly(s, s.load(&lo[j..]), s.load(&hi[j..]), w, wp, qv, two_q);
                    s.store(&mut lo[j..], x);
                    s.store(&mut hi[j..], y);
                }
            }
            groups *= 2;
            t /= 2;
        }
    }
    // Remaining layers t = LANES/2 .. 1 in registers, per pair of vectors.
    let small = l.trailing_zeros() as usize;
    for (p, chunk) in a.chunks_exact_mut(2 * l).enumerate() {
        let (c0, c1) = chunk.split_at_mut(l);
        let mut v0 = s.load(c0);
        let mut v1 = s.load(c1);
        for k in (0..small).rev() {
            let t = 1usize << k;
            let (tw, twp) = &tb.small_fwd[k];
            let w = s.load(&tw[p * l..]);
            let wp = s.load(&twp[p * l..]);
            let (x, y) = s.deinterleave(v0, v1, t);
            let (x, y) = ct_butterfly(s, x, y, w, wp, qv, two_q);
            (v0, v1) = s.interleave(x, y, t);
        }
        s.store(c0, v0);
        s.store(c1, v1);
    }
}

/// Inverse lazy NTT with `1/n` merged. Requires `a.len() == n >= 2·LANES`.
#[inline(always)]
pub(crate) fn inverse_lazy<S: Simd>(s: S, tb: &SimdTables<S::W>, q: S::W, a: &mut [S::W]) {
    let n = a.len();
    let l = S::LANES;
    debug_assert!(n >= 2 * l);
    let qv = s.splat(q);
    let two_q = s.add(qv, qv);
    let small = l.trailing_zeros() as usize;
    for (p, chunk) in a.chunks_exact_mut(2 * l).enumerate() {
        let (c0, c1) = chunk.split_at_mut(l);
        let mut v0 = s.load(c0);
        let mut v1 = s.load(c1);
        for k in 0..small {
            let t = 1usize << k;
            let (tw, twp) = &tb.small_inv[k];
            let w = s.load(&tw[p * l..]);
            let wp = s.load(&twp[p * l..]);
            let (x, y) = s.deinterleave(v0, v1, t);
            let (x, y) = gs_butterfly(s, x, y, w, wp, qv, two_q);
            (v0, v1) = s.interleave(x, y, t);
        }
        s.store(c0, v0);
        s.store(c1, v1);
    }
    let mut t = l;
    let mut groups = n / (2 * l);
    // Big layers except the last (groups > 1), two at a time where possible.
    while groups > 1 {
        if groups >= 4 {
            // Layers (groups, t) and (groups/2, 2t).
            for i in 0..groups / 2 {
                let wa = s.splat(tb.inv[groups + 2 * i]);
                let wap = s.splat(tb.inv_shoup[groups + 2 * i]);
                let wb = s.splat(tb.inv[groups + 2 * i + 1]);
                let wbp = s.splat(tb.inv_shoup[groups + 2 * i + 1]);
                let wc = s.splat(tb.inv[groups / 2 + i]);
                let wcp = s.splat(tb.inv_shoup[groups / 2 + i]);
                let blk = &mut a[4 * i * t..4 * i * t + 4 * t];
                let (b01, b23) = blk.split_at_mut(2 * t);
                let (b0, b1) = b01.split_at_mut(t);
                let (b2, b3) = b23.split_at_mut(t);
                for j in (0..t).step_by(l) {
                    let x0 = s.load(&b0[j..]);
                    let x1 = s.load(&b1[j..]);
                    let x2 = s.load(&b2[j..]);
                    let x3 = s.load(&b3[j..]);
                    let (x0, x1) = gs_butterfly(s, x0, x1, wa, wap, qv, two_q);
                    let (x2, x3) = gs_butterfly(s, x2, x3, wb, wbp, qv, two_q);
                    let (x0, x2) = gs_butterfly(s, x0, x2, wc, wcp, qv, two_q);
                    let (x1, x3) = gs_butterfly(s, x1, x3, wc, wcp, qv, two_q);
                    s.store(&mut b0[j..], x0);
                    s.store(&mut b1[j..], x1);
                    s.store(&mut b2[j..], x2);
                    s.store(&mut b3[j..], x3);
                }
            }
            groups /= 4;
            t *= 4;
        } else {
            for i in 0..groups {
                let w = s.splat(tb.inv[groups + i]);
                let wp = s.splat(tb.inv_shoup[groups + i]);
                let (lo, hi) = a[2 * i * t..2 * i * t + 2 * t].split_at_mut(t);
                for j in (0..t).step_by(l) {
                    let (x, y) =
                        gs_butterfly(s, s.load(&lo[j..]), s.load(&hi[j..]), w, wp, qv, two_q);
                    s.store(&mut lo[j..], x);
                    s.store(&mut hi[j..], y);
                }
            }
            groups /= 2;
            t *= 2;
        }
    }
    // Last layer (one group, distance n/2) with 1/n merged.
    let (ni, nip) = (s.splat(tb.n_inv.0), s.splat(tb.n_inv.1));
    let (niw, niwp) = (s.splat(tb.n_inv_w.0), s.splat(tb.n_inv_w.1));
    let (lo, hi) = a.split_at_mut(n / 2);
    for j in (0..n / 2).step_by(l) {
        let x = s.load(&lo[j..]);
        let y = s.load(&hi[j..]);
        let u = s.mul_shoup_lazy(s.add(x, y), ni, nip, qv);
        let v = s.mul_shoup_lazy(s.add(s.sub(x, y), two_q), niw, niwp, qv);
        s.store(&mut lo[j..], u);
        s.store(&mut hi[j..], v);
    }
}

/// `out = a ⊙ b mod q` in `[0, q)` for `a, b < q`; lengths multiple of `LANES`.
#[inline(always)]
pub(crate) fn pointwise<S: Simd>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    a: &[S::W],
    b: &[S::W],
    out: &mut [S::W],
) {
    let l = S::LANES;
    let qv = s.splat(q);
    let qinv = s.splat(tb.qinv);
    let (f, fp) = (s.splat(tb.mont_fix.0), s.splat(tb.mont_fix.1));
    for j in (0..out.len()).step_by(l) {
        let m = s.mont_mul(s.load(&a[j..]), s.load(&b[j..]), qv, qinv);
        let r = s.csub(s.mul_shoup_lazy(m, f, fp, qv), qv);
        s.store(&mut out[j..], r);
    }
}

/// `acc = acc + a ⊙ b mod q` in `[0, q)`, all inputs `< q`.
#[inline(always)]
pub(crate) fn pointwise_acc<S: Simd>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    a: &[S::W],
    b: &[S::W],
    acc: &mut [S::W],
) {
    let l = S::LANES;
    let qv = s.splat(q);
    let qinv = s.splat(tb.qinv);
    let (f, fp) = (s.splat(tb.mont_fix.0), s.splat(tb.mont_fix.1));
    for j in (0..acc.len()).step_by(l) {
        let m = s.mont_mul(s.load(&a[j..]), s.load(&b[j..]), qv, qinv);
        let r = s.csub(s.mul_shoup_lazy(m, f, fp, qv), qv);
        let sum = s.csub(s.add(r, s.load(&acc[j..])), qv);
        s.store(&mut acc[j..], sum);
    }
}

/// Reduces `[0, 4q)` to `[0, q)`.
#[inline(always)]
pub(crate) fn reduce_from_4q<S: Simd>(s: S, q: S::W, a: &mut [S::W]) {
    let qv = s.splat(q);
    let two_q = s.add(qv, qv);
    for j in (0..a.len()).step_by(S::LANES) {
        let v = s.csub(s.csub(s.load(&a[j..]), two_q), qv);
        s.store(&mut a[j..], v);
    }
}

/// Reduces `[0, 2q)` to `[0, q)`.
#[inline(always)]
pub(crate) fn reduce_from_2q<S: Simd>(s: S, q: S::W, a: &mut [S::W]) {
    let qv = s.splat(q);
    for j in (0..a.len()).step_by(S::LANES) {
        let v = s.csub(s.load(&a[j..]), qv);
        s.store(&mut a[j..], v);
    }
}
