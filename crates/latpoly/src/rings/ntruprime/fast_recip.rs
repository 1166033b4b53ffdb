//! Vectorised `Rq_recip3`: the reference divstep loop of `recip.rs` (same iterations, same
//! swaps, same outputs bit for bit), each iteration one pass over the arrays in 16-bit lanes
//! ([`Lanes`]). (`R3_recip` runs bit-sliced, see `rings::bitslice`.)
//!
//! Per iteration of the reference: shift `v` up, swap `(f, g)` and `(v, r)` under a mask,
//! `g = f0·g - g0·f`, `r = f0·r - g0·v`, shift `g` down. Here the shifts are free (unaligned
//! loads / stores one lane off: `g` in place, `v` double-buffered) and the swap costs one
//! select per vector: after a swap the new `g` is `g0·f - f0·g`, the unswapped combination
//! with both scalars negated, so only `f` (and `v`) take the other array's value, a single
//! `vpternlogq` (AVX-512) or `vpblendvb` (AVX2) under a broadcast mask, where a masked exchange
//! of both arrays took four bitwise operations. In iteration `it` the pair `(v, r)`
//! can only be nonzero below index `it + 2` (a public bound), so only those vectors are
//! computed: over the first ~760 iterations that halves the `(v, r)` work (the whole loop 12%
//! faster: 88-90 -> 79 µs on AVX-512).
//!
//! In `R/q` the arrays hold *representatives* bounded by `2 · 0.75 q` instead of the centred
//! residues: `fqmul` accepts any `i16` and returns less than `0.75 q` in absolute value, so
//! `f0·g - g0·f` never overflows and nothing grows. Only the scalars that steer the loop
//! (`g[0] != 0`, and `f[0]` at the end) are frozen exactly, so the control flow (all masks) and
//! the final centred output are those of the reference.

use super::fast::{Buf, Lanes};
use super::recip::{fq_freeze_small, fq_recip, swap_mask};
use super::scalar::nonzero_mask_i32;
use super::{P, Q};

/// Padded array length (`>= p + 1`, a multiple of every lane count).
const RP: usize = 768;
/// Offset of element 0 inside a buffer: room for the loads and stores one lane off.
const OFF: usize = 32;
type RBuf = Buf<{ OFF + RP + OFF }>;

/// `p^-1 mod 2^16` for `q = 4591`.
const QINV: i16 = {
    let p = Q as i32;
    let mut x = p;
    let mut k = 0;
    while k < 4 {
        x = x.wrapping_mul(2i32.wrapping_sub(p.wrapping_mul(x)));
        k += 1;
    }
    x as i16
};

/// `2^16 mod q`.
const R_MOD_Q: i32 = (1 << 16) % Q as i32;

/// The multiplier constant `(w, w·q^-1)` with `fqmul(x, w) = x · c mod q`, for a secret centred
/// scalar `c`, computed branch-free.
#[inline(always)]
fn mc_q(c: i16) -> (i16, i16) {
    let w = fq_freeze_small(i32::from(c) * R_MOD_Q);
    (w, w.wrapping_mul(QINV))
}

/// `a · w · 2^-16 mod q`, below `0.75 q` in absolute value for any `i16` input.
#[inline(always)]
fn fqmul<S: Lanes>(s: S, a: S::V, w: S::V, wp: S::V, q: S::V) -> S::V {
    s.sub(s.mulhi(a, w), s.mulhi(s.mullo(a, wp), q))
}

/// Reverses the input into `g` and sets up `f = reversal of x^p - x - 1`.
fn init(a: &[i8], f: &mut RBuf, g: &mut RBuf) {
    f.0[OFF] = 1;
    f.0[OFF + P - 1] = -1;
    f.0[OFF + P] = -1;
    for (i, &x) in a.iter().enumerate() {
        g.0[OFF + P - 1 - i] = i16::from(x);
    }
}

/// `Rq_recip3` (see `recip::rq_recip3`), vectorised.
#[inline(always)]
pub(crate) fn rq_recip3<S: Lanes>(s: S, a: &[i8]) -> (Vec<i16>, bool) {
    let l = S::L;
    let (mut f, mut g, mut r) = (RBuf::zeroed(), RBuf::zeroed(), RBuf::zeroed());
    let (mut va, mut vb) = (RBuf::zeroed(), RBuf::zeroed());
    init(a, &mut f, &mut g);
    r.0[OFF] = fq_recip(3);
    let q = s.splat(Q as i16);
    let mut delta: i32 = 1;
    for it in 0..2 * P - 1 {
        let (vo, vn) = if it % 2 == 0 {
            (&va, &mut vb)
        } else {
            (&vb, &mut va)
        };
        // The loop is steered by exact residues only.
        let f0 = fq_freeze_small(i32::from(f.0[OFF]));
        let g0 = fq_freeze_small(i32::from(g.0[OFF]));
        let swap = swap_mask(delta, i32::from(g0));
        delta ^= swap & (delta ^ -delta);
        delta += 1;
        // With the swap, g becomes g0·f - f0·g = -(f0·g - g0·f): the unswapped product with
        // both scalars negated, so only f needs the (one-instruction) select.
        let neg = swap as i16;
        let (fw, fwp) = mc_q((f0 ^ neg) - neg);
        let (gw, gwp) = mc_q((g0 ^ neg) - neg);
        let (fw, fwp, gw, gwp) = (s.splat(fw), s.splat(fwp), s.splat(gw), s.splat(gwp));
        let mask = s.splat(swap as i16);
        for i in (0..RP).step_by(l) {
            let (fv, gv) = (s.load(&f.0[OFF + i..]), s.load(&g.0[OFF + i..]));
            let ng = s.sub(fqmul(s, gv, fw, fwp, q), fqmul(s, fv, gw, gwp, q));
            s.store(&mut f.0[OFF + i..], s.select(mask, fv, gv));
            // g shifted down by one (in place: this store ends before the next chunk's load).
            s.store(&mut g.0[OFF + i - 1..], ng);
        }
        // After this iteration v and r are zero beyond index it + 1 (v starts at zero and moves
        // up one place per iteration, r starts as a constant and only takes combinations of
        // itself and v), so only the vectors that can hold nonzero entries are computed: a
        // bound on the iteration count, public. Entries past the bound were never written and
        // stay zero, as the full computation would leave them (`fqmul` maps 0 to 0).
        let live = (it + 2).div_ceil(l) * l;
        for i in (0..RP.min(live)).step_by(l) {
            // v shifted up by one: element i of the new v is element i - 1 of the old; as for
            // (f, g), the swap is in the signs of the scalars and one select.
            let (vv, rv) = (s.load(&vo.0[OFF + i - 1..]), s.load(&r.0[OFF + i..]));
            let nr = s.sub(fqmul(s, rv, fw, fwp, q), fqmul(s, vv, gw, gwp, q));
            s.store(&mut vn.0[OFF + i..], s.select(mask, vv, rv));
            s.store(&mut r.0[OFF + i..], nr);
        }
        g.0[OFF + P] = 0;
    }
    // After an odd number (2p - 1) of iterations the last v was written to vb.
    let v = &vb;
    let scale = i32::from(fq_recip(fq_freeze_small(i32::from(f.0[OFF]))));
    let out = (0..P)
        .map(|i| fq_freeze_small(scale * i32::from(v.0[OFF + P - 1 - i])))
        .collect();
    (out, nonzero_mask_i32(delta) == 0)
}
