//! Vectorised `Rq_recip3`: the reference divstep loop of `recip.rs` (same iterations, same
//! swaps, same outputs bit for bit), each iteration one pass over the arrays in 16-bit lanes
//! ([`Lanes`]). (`R3_recip` runs bit-sliced, see `rings::bitslice`.)
//!
//! Per iteration of the reference: shift `v` up, swap `(f, g)` and `(v, r)` under a mask,
//! `g = f0·g - g0·f`, `r = f0·r - g0·v`, shift `g` down. Here the shifts are free (unaligned
//! loads / stores one lane off: `g` in place, `v` double-buffered) and the swap costs one
//! select per vector: after a swap the new `g` is `g0·f - f0·g`, the unswapped combination
//! with both scalars negated, so only `f` (and `v`) take the other array's value, a single
//! `vpternlogq` (AVX-512) or three logic operations (AVX2) under a broadcast mask, where a
//! masked exchange of both arrays took four or more. (On AVX2 `vpblendvb` made the whole
//! reciprocal about 20% slower on an AMD Zen 2 than `a ^ (mask & (a ^ b))`.) In iteration
//! `it` the pair `(v, r)` can only be nonzero below index `it + 2` (a public bound), so only
//! those vectors are computed: over the first ~760 iterations that halves the `(v, r)` work
//! (the whole loop 12% faster: 88-90 -> 79 µs on AVX-512). Symmetrically, `(f, g)` are only
//! needed up to index `2p - 3 - it` after iteration `it` (an entry moves down at most one place
//! per iteration, and only `f[0]`, `g[0]` and the final `f[0]` are ever read): over the last
//! ~760 iterations that halves the `(f, g)` work (sntrup761 key generation 10% faster: 137 ->
//! 124 µs, `kem_bench` minimum of five alternating runs on a Zen 4 host).
//!
//! In `R/q` the arrays hold *representatives* bounded by `1.1 q` instead of the centred
//! residues: [`comb`] computes `f0·g - g0·f` as one Shoup-style combination (exact low halves,
//! one quotient estimate for both products, five multiplications where two Montgomery products
//! took six: the loop is bound by the two multiply pipes) whose output stays below `1.1 q` for
//! inputs below `1.1 q`, so nothing grows. Only the scalars that steer the loop
//! (`g[0] != 0`, and `f[0]` at the end) are frozen exactly, so the control flow (all masks) and
//! the final centred output are those of the reference. Those scalars run one iteration ahead:
//! the next iteration's `f[0]` and `g[0]` follow from this iteration's scalars and entries 1 of
//! `f` and `g` (stored one iteration earlier), so no vector pass waits for a store of the pass
//! before it to be read back and reduced (sntrup761's `Rq_recip3` 181-197 -> 176-186 µs,
//! `examples/ntruprime_bench` on an AMD Zen 2).

use super::fast::{Buf, Lanes};
use super::recip::{fq_freeze_small, fq_recip, swap_mask};
use super::scalar::nonzero_mask_i32;
use super::{P, Q};

/// Padded array length (`>= p + 1`, a multiple of every lane count).
const RP: usize = 768;
/// Offset of element 0 inside a buffer: room for the loads and stores one lane off.
const OFF: usize = 32;
type RBuf = Buf<{ OFF + RP + OFF }>;

/// A secret centred scalar `c` (`|c| <= 2295`) as the pair `(c, c')` of [`comb`], with
/// `c' = round(c · 2^16 / q)` (at most 32762 in absolute value), computed branch-free and
/// without a division (a `div` instruction, which unoptimised builds would emit for `/ q`, may
/// take operand-dependent time): `floor(y / q) = (y · M) >> 44` with `M = ceil(2^44 / q)`, exact
/// for `y < 2^31` because `(M q - 2^44) · y < q · 2^31 < 2^44`.
#[inline(always)]
fn sh_q(c: i16) -> (i16, i16) {
    const M: u64 = (1u64 << 44).div_ceil(Q as u64);
    let c = i32::from(c);
    let q = Q as i32;
    // round half away from zero: (|x| + q/2) / q with the sign restored (|x| <= 2^31 - 2^16,
    // so the sum is below 2^31)
    let x = c << 16;
    // the sign mask through the barrier (on its bit): `(x ^ sign) - sign` would otherwise be
    // recognised as an absolute value, which x86 lowers with a conditional move (and LLVM may
    // turn a conditional move into a branch)
    let sign = super::scalar::neg_mask_i32(x);
    let y = ((x ^ sign) - sign + q / 2) as u32;
    let r = ((u64::from(y) * M) >> 44) as i32;
    (c as i16, ((r ^ sign) - sign) as i16)
}

/// `a·c - b·d mod q` for lane vectors `a`, `b` (`|a|, |b| <= 1.1 q`) and scalars
/// `(c, c')`, `(d, d')` of [`sh_q`]: the exact low halves `a·c - b·d mod 2^16`, the quotient
/// estimate `t = floor(a·c'/2^16) - floor(b·d'/2^16)`, and `lo - t·q`. With
/// `c' = c·2^16/q + δ`, `|δ| <= 1/2`, the true value `a c - b d - t q` is below
/// `q + q (|a| + |b|) / 2^17` in absolute value (< 2^15, so the wrapping 16-bit result is
/// exact), and on inputs below `1.1 q` the output stays below `1.1 q`. Five multiplications,
/// against six for two Montgomery products.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn comb<S: Lanes>(s: S, a: S::V, c: S::V, cp: S::V, b: S::V, d: S::V, dp: S::V, q: S::V) -> S::V {
    let lo = s.sub(s.mullo(a, c), s.mullo(b, d));
    let t = s.sub(s.mulhi(a, cp), s.mulhi(b, dp));
    s.sub(lo, s.mullo(t, q))
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
    // The loop is steered by exact residues only: those of f[0] and g[0] at the start of the
    // iteration.
    let mut f0 = fq_freeze_small(i32::from(f.0[OFF]));
    let mut g0 = fq_freeze_small(i32::from(g.0[OFF]));
    for it in 0..2 * P - 1 {
        let (vo, vn) = if it % 2 == 0 {
            (&va, &mut vb)
        } else {
            (&vb, &mut va)
        };
        let swap = swap_mask(delta, i32::from(g0));
        delta ^= swap & (delta ^ -delta);
        delta += 1;
        // With the swap, g becomes g0·f - f0·g = -(f0·g - g0·f): the unswapped product with
        // both scalars negated, so only f needs the select.
        let neg = swap as i16;
        let (sf, sg) = ((f0 ^ neg) - neg, (g0 ^ neg) - neg);
        // The next iteration's residues, computed here from entries 1 (written one iteration
        // ago) rather than read back from this iteration's vector stores: the scalar chain then
        // runs one iteration ahead of the vector passes, which do not wait for it. f[0] becomes
        // g0 with the swap and stays f0 without; g[0] becomes entry 1 of this iteration's
        // combination, the same residue as the vector lanes compute (|x| <= 2 · 2295 · 1.1 q).
        let (f1, g1) = (i32::from(f.0[OFF + 1]), i32::from(g.0[OFF + 1]));
        let next_g0 = fq_freeze_small(i32::from(sf) * g1 - i32::from(sg) * f1);
        let next_f0 = f0 ^ (neg & (f0 ^ g0));
        let (fw, fwp) = sh_q(sf);
        let (gw, gwp) = sh_q(sg);
        let (fw, fwp, gw, gwp) = (s.splat(fw), s.splat(fwp), s.splat(gw), s.splat(gwp));
        let mask = s.splat(swap as i16);
        // Only the entries of f and g that can still reach index 0 matter: an entry moves down
        // at most one place per iteration (g shifts, f only takes g's entries), the control
        // flow reads index 0 at the start of each iteration and the result needs f[0] after
        // the last one, so after iteration `it` indices beyond 2p - 3 - it are never read
        // again (a public bound; the tests fail with one place less). The chunks cover g up to
        // index needed - 2 >= 2p - 2 - it (one spare) and f up to needed - 1. Entries past that
        // keep stale (bounded) values from earlier iterations, read only at indices that no
        // longer matter and feeding only lanes beyond the bound.
        let needed = (2 * P - it).div_ceil(l) * l;
        for i in (0..RP.min(needed)).step_by(l) {
            let (fv, gv) = (s.load(&f.0[OFF + i..]), s.load(&g.0[OFF + i..]));
            let ng = comb(s, gv, fw, fwp, fv, gw, gwp, q);
            s.store(&mut f.0[OFF + i..], s.select(mask, fv, gv));
            // g shifted down by one (in place: this store ends before the next chunk's load).
            s.store(&mut g.0[OFF + i - 1..], ng);
        }
        // After this iteration v and r are zero beyond index it + 1 (v starts at zero and moves
        // up one place per iteration, r starts as a constant and only takes combinations of
        // itself and v), so only the vectors that can hold nonzero entries are computed: a
        // bound on the iteration count, public. Entries past the bound were never written and
        // stay zero, as the full computation would leave them (`comb` maps 0 to 0).
        let live = (it + 2).div_ceil(l) * l;
        for i in (0..RP.min(live)).step_by(l) {
            // v shifted up by one: element i of the new v is element i - 1 of the old; as for
            // (f, g), the swap is in the signs of the scalars and one select.
            let (vv, rv) = (s.load(&vo.0[OFF + i - 1..]), s.load(&r.0[OFF + i..]));
            let nr = comb(s, rv, fw, fwp, vv, gw, gwp, q);
            s.store(&mut vn.0[OFF + i..], s.select(mask, vv, rv));
            s.store(&mut r.0[OFF + i..], nr);
        }
        g.0[OFF + P] = 0;
        (f0, g0) = (next_f0, next_g0);
    }
    // After an odd number (2p - 1) of iterations the last v was written to vb.
    let v = &vb;
    let scale = i32::from(fq_recip(f0));
    let out = (0..P)
        .map(|i| fq_freeze_small(scale * i32::from(v.0[OFF + P - 1 - i])))
        .collect();
    // The divstep state holds the secret input and its reciprocal (stack buffers: no drop
    // guard, wiped here).
    for b in [&mut f, &mut g, &mut r, &mut va, &mut vb] {
        crate::secret::wipe(&mut b.0);
    }
    (out, nonzero_mask_i32(delta) == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`sh_q`]'s multiply-shift quotient against the division it replaces, for every `c` of
    /// its domain (the freezes' `|c| <= 2295`) and beyond, as far as `c'` fits an `i16`.
    #[test]
    fn sh_q_matches_the_division() {
        let q = i64::from(Q);
        for c in -3590i16..=3590 {
            let x = i64::from(c) << 16;
            let want = (x.abs() + q / 2) / q * x.signum();
            assert_eq!(sh_q(c), (c, want as i16), "{c}");
        }
    }
}
