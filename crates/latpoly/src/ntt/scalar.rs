//! Scalar reference kernels of the negacyclic NTT: the executable specification every SIMD
//! backend is tested against.
//!
//! Forward: Cooley-Tukey with Harvey's lazy butterfly. Input in `[0, 4q)`, output in `[0, 4q)`,
//! natural order in, bit-reversed order out.
//!
//! ```text
//! X <- X mod 2q  (one conditional subtraction, X now in [0, 2q))
//! T <- W·Y       (Shoup, lazy: [0, 2q), for any Y < 2^BITS)
//! X' = X + T       in [0, 4q)
//! Y' = X - T + 2q  in [0, 4q)
//! ```
//!
//! Inverse: Gentleman-Sande with Harvey's lazy butterfly. Input in `[0, 2q)`, output in `[0, 2q)`,
//! bit-reversed order in, natural order out, `1/n` merged into the last layer.
//!
//! ```text
//! X' = (X + Y) mod 2q        in [0, 2q)
//! Y' = W·(X - Y + 2q)        in [0, 2q) (Shoup, lazy)
//! ```
//!
//! Both need `4q < 2^BITS`, i.e. `q < 2^(BITS-2)`: the lane limits of [`crate::arith::Word`].

use crate::arith::{Modulus, Word};

/// Twiddle tables of one plan, as consumed by the kernels.
pub(crate) struct Tables<'a, W: Word> {
    pub m: &'a W::Modulus,
    /// `ψ^brv(k)` for `k in 1..n` (index 0 unused).
    pub fwd: &'a [W],
    pub fwd_shoup: &'a [W],
    /// `ψ^-brv(k)` for `k in 1..n` (index 0 unused).
    pub inv: &'a [W],
    pub inv_shoup: &'a [W],
    /// `n^-1` and `n^-1 · ψ^-brv(1)`, with Shoup quotients: the merged last inverse layer.
    pub n_inv: (W, W),
    pub n_inv_w: (W, W),
}

/// Forward negacyclic NTT in place. Input `[0, 4q)`, output `[0, 4q)` in bit-reversed order.
pub(crate) fn forward_lazy<W: Word>(t: &Tables<'_, W>, a: &mut [W]) {
    let n = a.len();
    let m = t.m;
    let q = m.value();
    let two_q = q.wrapping_add(q);
    let mut half = n;
    let mut groups = 1;
    while groups < n {
        half >>= 1;
        for i in 0..groups {
            let w = t.fwd[groups + i];
            let wp = t.fwd_shoup[groups + i];
            let base = 2 * i * half;
            let (lo, hi) = a[base..base + 2 * half].split_at_mut(half);
            for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                let u = x.csub(two_q);
                let v = m.mul_shoup_lazy(*y, w, wp);
                *x = u.wrapping_add(v);
                *y = u.wrapping_sub(v).wrapping_add(two_q);
            }
        }
        groups <<= 1;
    }
}

/// Inverse negacyclic NTT in place, `1/n` included. Input `[0, 2q)` in bit-reversed order,
/// output `[0, 2q)` in natural order.
pub(crate) fn inverse_lazy<W: Word>(t: &Tables<'_, W>, a: &mut [W]) {
    let n = a.len();
    let m = t.m;
    let q = m.value();
    let two_q = q.wrapping_add(q);
    let mut half = 1;
    let mut groups = n >> 1;
    while groups > 1 {
        for i in 0..groups {
            let w = t.inv[groups + i];
            let wp = t.inv_shoup[groups + i];
            let base = 2 * i * half;
            let (lo, hi) = a[base..base + 2 * half].split_at_mut(half);
            for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
                let u = *x;
                let v = *y;
                *x = u.wrapping_add(v).csub(two_q);
                *y = m.mul_shoup_lazy(u.wrapping_sub(v).wrapping_add(two_q), w, wp);
            }
        }
        half <<= 1;
        groups >>= 1;
    }
    // Last layer (one group, half = n/2) with 1/n merged into both outputs.
    let (lo, hi) = a.split_at_mut(n / 2);
    let (ni, nip) = t.n_inv;
    let (niw, niwp) = t.n_inv_w;
    for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
        let u = *x;
        let v = *y;
        *x = m.mul_shoup_lazy(u.wrapping_add(v), ni, nip);
        *y = m.mul_shoup_lazy(u.wrapping_sub(v).wrapping_add(two_q), niw, niwp);
    }
}

/// Reduces every value from `[0, 4q)` to `[0, q)`.
pub(crate) fn reduce_from_4q<W: Word>(q: W, a: &mut [W]) {
    let two_q = q.wrapping_add(q);
    for x in a.iter_mut() {
        *x = x.csub(two_q).csub(q);
    }
}

/// Reduces every value from `[0, 2q)` to `[0, q)`.
pub(crate) fn reduce_from_2q<W: Word>(q: W, a: &mut [W]) {
    for x in a.iter_mut() {
        *x = x.csub(q);
    }
}

/// `out[i] = a[i] * b[i] mod q` for `a, b` in `[0, q)`; output in `[0, q)`.
pub(crate) fn pointwise<W: Word>(m: &W::Modulus, a: &[W], b: &[W], out: &mut [W]) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = m.mul(x, y);
    }
}

/// `a[i] = a[i] * b[i] mod q`, all in `[0, q)`.
pub(crate) fn pointwise_assign<W: Word>(m: &W::Modulus, a: &mut [W], b: &[W]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = m.mul(*x, y);
    }
}

/// `acc[i] = acc[i] + a[i] * b[i] mod q`, all in `[0, q)`.
pub(crate) fn pointwise_acc<W: Word>(m: &W::Modulus, a: &[W], b: &[W], acc: &mut [W]) {
    for ((o, &x), &y) in acc.iter_mut().zip(a).zip(b) {
        *o = m.add(*o, m.mul(x, y));
    }
}

/// `out = a + b mod q`, inputs in `[0, q)`.
pub(crate) fn add_mod<W: Word>(m: &W::Modulus, a: &[W], b: &[W], out: &mut [W]) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = m.add(x, y);
    }
}

/// `out = a - b mod q`, inputs in `[0, q)`.
pub(crate) fn sub_mod<W: Word>(m: &W::Modulus, a: &[W], b: &[W], out: &mut [W]) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = m.sub(x, y);
    }
}

/// `a = a + b mod q` in place, inputs in `[0, q)`.
pub(crate) fn add_mod_assign<W: Word>(m: &W::Modulus, a: &mut [W], b: &[W]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = m.add(*x, y);
    }
}

/// `a = a - b mod q` in place, inputs in `[0, q)`.
pub(crate) fn sub_mod_assign<W: Word>(m: &W::Modulus, a: &mut [W], b: &[W]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = m.sub(*x, y);
    }
}

/// Parities of the centred values of `w < q`, packed LSB first (eight per byte, one
/// multiplication per byte), branch-free.
pub(crate) fn parity_decode<W: Word>(q: W, w: &[W], out: &mut [u8]) {
    let half = q.to_u64() / 2;
    for (byte, chunk) in out.iter_mut().zip(w.chunks_exact(8)) {
        let mut x = 0u64;
        for (k, &v) in chunk.iter().enumerate() {
            let v = v.to_u64();
            let bit = (v & 1) ^ (half.wrapping_sub(v) >> 63);
            x |= bit << (8 * k);
        }
        *byte = (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8;
    }
}
