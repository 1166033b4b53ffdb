//! Scalar reference: the NTRU+ v2.2.1 `ntt.c` / `reduce.c` arithmetic, operation for operation.
//!
//! All values are `i16`; `fqmul` is the reference's `montgomery_reduce(a·b)` and `barrett` its
//! `barrett_reduce`. Inputs in `(-q, q)` never overflow (bounds are noted at each layer).

use super::tables::{Shape, BARRETT_V, MONT, OMEGA_MONT, Q, QINV};

/// `montgomery_reduce`: for `|a| < 2^15·q`, returns `a · 2^-16 mod q` in `(-q, q)`.
#[inline(always)]
pub(crate) fn mred(a: i32) -> i16 {
    let t = (a as i16).wrapping_mul(QINV as i16);
    ((a - t as i32 * Q) >> 16) as i16
}

/// `fqmul(a, b) = montgomery_reduce(a·b)`.
#[inline(always)]
pub(crate) fn fqmul(a: i16, b: i16) -> i16 {
    mred(a as i32 * b as i32)
}

/// `barrett_reduce`: a representative of `a mod q` in `[-(q-1)/2, (q+1)/2]`.
#[inline(always)]
pub(crate) fn barrett(a: i16) -> i16 {
    let t = ((BARRETT_V * a as i32 + (1 << 25)) >> 26) as i16;
    a.wrapping_sub(t.wrapping_mul(Q as i16))
}

/// Montgomery inverse by Fermat: `x^(q-2)` with Montgomery products, i.e. `2^32 / x mod q`
/// (`0` for `x ≡ 0`). The exponent is public, so the chain is fixed: constant time.
#[inline]
pub(crate) fn fqinv(x: i16) -> i16 {
    // q - 2 = 3455 = 0b1101_0111_1111
    let mut r = x;
    let mut bit = 10;
    loop {
        r = fqmul(r, r);
        if (3455u32 >> bit) & 1 == 1 {
            r = fqmul(r, x);
        }
        if bit == 0 {
            break;
        }
        bit -= 1;
    }
    r
}

/// Zeta (Montgomery form) of base component `j`: `zetas[N/2 + j/2]`, negated for odd `j`.
#[inline(always)]
pub(crate) fn base_zeta(z: &[i16], j: usize) -> i16 {
    let v = z[z.len() / 2 + j / 2];
    if j & 1 == 0 {
        v
    } else {
        -v
    }
}

/// Forward NTT in place (reference `ntt`): input `(-q, q)`, output `[-(q-1)/2, (q+1)/2]`,
/// component `j` = `a mod (x^d - ζ^(e_j))`, no Montgomery factor.
pub(crate) fn ntt(r: &mut [i16], s: &Shape, z: &[i16]) {
    let n = s.n;
    let h = n / 2;
    let mut k = 1;
    let z1 = z[k];
    k += 1;
    // |r[i]| < 2q, |r[i+h]| < 3q
    for i in 0..h {
        let t1 = fqmul(z1, r[i + h]);
        r[i + h] = r[i] + r[i + h] - t1;
        r[i] += t1;
    }
    // each radix-3 layer adds < 2q: at most 7q
    let mut step = n / 6;
    for _ in 0..s.r3 {
        let mut start = 0;
        while start < n {
            let (z1, z2) = (z[k], z[k + 1]);
            k += 2;
            for i in start..start + step {
                let t1 = fqmul(z1, r[i + step]);
                let t2 = fqmul(z2, r[i + 2 * step]);
                let t3 = fqmul(OMEGA_MONT, t1 - t2);
                r[i + 2 * step] = r[i] - t1 - t3;
                r[i + step] = r[i] - t2 + t3;
                r[i] = r[i] + t1 + t2;
            }
            start += 3 * step;
        }
        step /= 3;
    }
    let mut step = s.block() / 2;
    while step >= s.d {
        let mut start = 0;
        while start < n {
            let z1 = z[k];
            k += 1;
            for i in start..start + step {
                let t1 = fqmul(z1, r[i + step]);
                r[i + step] = barrett(r[i] - t1);
                r[i] = barrett(r[i] + t1);
            }
            start += 2 * step;
        }
        step /= 2;
    }
    debug_assert_eq!(k, z.len());
}

/// Inverse NTT in place (reference `invntt`): input `(-q, q)`, output `(-q, q)`, equal to
/// `2^16 · NTT^-1(a) mod q` (the Montgomery factor cancels the `2^-16` of [`basemul`]).
pub(crate) fn invntt(r: &mut [i16], s: &Shape, z: &[i16], c: (i16, i16, i16)) {
    let n = s.n;
    let mut k = z.len() - 1;
    let mut step = s.d;
    while step <= s.block() / 2 {
        let mut start = 0;
        while start < n {
            let z1 = z[k];
            k -= 1;
            for i in start..start + step {
                let t1 = r[i + step];
                r[i + step] = fqmul(z1, t1 - r[i]);
                r[i] = barrett(r[i] + t1);
            }
            start += 2 * step;
        }
        step *= 2;
    }
    let mut step = s.block();
    for _ in 0..s.r3 {
        let mut start = 0;
        while start < n {
            let z2 = z[k];
            let z1 = z[k - 1];
            k -= 2;
            for i in start..start + step {
                let t1 = fqmul(OMEGA_MONT, r[i + step] - r[i]);
                let t2 = fqmul(z1, r[i + 2 * step] - r[i] + t1);
                let t3 = fqmul(z2, r[i + 2 * step] - r[i + step] - t1);
                r[i] = barrett(r[i] + r[i + step] + r[i + 2 * step]);
                r[i + step] = t2;
                r[i + 2 * step] = t3;
            }
            start += 3 * step;
        }
        step *= 3;
    }
    debug_assert_eq!(k, 1);
    let (csq, ca, cb) = c;
    let h = n / 2;
    for i in 0..h {
        let t1 = r[i] + r[i + h];
        let t2 = fqmul(csq, r[i] - r[i + h]);
        r[i + h] = fqmul(cb, t2);
        r[i] = fqmul(ca, t1 - t2);
    }
}

/// Product in `Z_q[x]/(x^4 - ζ)` with `zeta = ζ·2^16`: `c = a·b·2^-16`, outputs `(-q, q)`.
#[inline(always)]
fn basemul4(c: &mut [i16], a: &[i16], b: &[i16], zeta: i16) {
    let m = |x: i16, y: i16| x as i32 * y as i32;
    let c0 = mred(m(a[1], b[3]) + m(a[2], b[2]) + m(a[3], b[1]));
    let c1 = mred(m(a[2], b[3]) + m(a[3], b[2]));
    let c2 = mred(m(a[3], b[3]));
    c[0] = mred(m(c0, zeta) + m(a[0], b[0]));
    c[1] = mred(m(c1, zeta) + m(a[0], b[1]) + m(a[1], b[0]));
    c[2] = mred(m(c2, zeta) + m(a[0], b[2]) + m(a[1], b[1]) + m(a[2], b[0]));
    c[3] = mred(m(a[0], b[3]) + m(a[1], b[2]) + m(a[2], b[1]) + m(a[3], b[0]));
}

/// Product in `Z_q[x]/(x^3 - ζ)`: `c = a·b·2^-16`, outputs `(-q, q)`.
#[inline(always)]
fn basemul3(c: &mut [i16], a: &[i16], b: &[i16], zeta: i16) {
    let m = |x: i16, y: i16| x as i32 * y as i32;
    let c0 = mred(m(a[1], b[2]) + m(a[2], b[1]));
    let c1 = mred(m(a[2], b[2]));
    c[0] = mred(m(c0, zeta) + m(a[0], b[0]));
    c[1] = mred(m(c1, zeta) + m(a[0], b[1]) + m(a[1], b[0]));
    c[2] = mred(m(a[0], b[2]) + m(a[1], b[1]) + m(a[2], b[0]));
}

/// Componentwise product (reference `poly_basemul`): `c = a∘b·2^-16`.
pub(crate) fn basemul(c: &mut [i16], a: &[i16], b: &[i16], s: &Shape, z: &[i16]) {
    let d = s.d;
    for j in 0..s.n / d {
        let r = j * d..j * d + d;
        let zeta = base_zeta(z, j);
        if d == 4 {
            basemul4(&mut c[r.clone()], &a[r.clone()], &b[r], zeta);
        } else {
            basemul3(&mut c[r.clone()], &a[r.clone()], &b[r], zeta);
        }
    }
}

/// All-ones mask (`-1`) if `x != 0`, else `0`; branch-free.
#[inline(always)]
pub(crate) fn nonzero_mask(x: i16) -> i16 {
    let x = x as i32;
    crate::arith::ct::neg_mask_i32(x | x.wrapping_neg()) as i16
}

/// First stage of the inverse of one component: writes the cofactor terms to `t` and returns
/// the norm (both in the scalings noted below).
///
/// * `d = 4`: `t = (b0, -b1)/2^16` where `a(x)a(-x) = b0 + b1 x^2`; norm `(b0² - ζ b1²)/2^48`.
/// * `d = 3`: `t = adj(a)/2^16` (the cofactors); norm `N(a)/2^32`.
#[inline(always)]
fn inv_stage1(a: &[i16], zeta: i16, t: &mut [i16; 3]) -> i16 {
    let m = |x: i16, y: i16| x as i32 * y as i32;
    if a.len() == 4 {
        let t0 = mred(m(a[2], a[2]) - 2 * m(a[1], a[3]));
        let t1 = mred(m(a[3], a[3]));
        let t0 = mred(m(a[0], a[0]) + m(t0, zeta));
        let t1 = mred(m(a[1], a[1]) + m(t1, zeta) - 2 * m(a[0], a[2]));
        let t2 = mred(m(t1, zeta));
        t[0] = t0;
        t[1] = t1;
        mred(m(t0, t0) - m(t1, t2))
    } else {
        let t0 = mred(m(a[0], a[0]) - m(mred(m(a[1], a[2])), zeta));
        let t1 = mred(m(mred(m(a[2], a[2])), zeta) - m(a[0], a[1]));
        let t2 = mred(m(a[1], a[1]) - m(a[0], a[2]));
        t[0] = t0;
        t[1] = t1;
        t[2] = t2;
        mred(m(a[0], t0) + m(mred(m(a[1], t2) + m(a[2], t1)), zeta))
    }
}

/// Second stage: given `u = 2^32 / norm`, writes the Montgomery-domain inverse `2^32 / a` of the
/// component.
#[inline(always)]
fn inv_stage2(r: &mut [i16], a: &[i16], zeta: i16, t: &[i16; 3], u: i16) {
    let m = |x: i16, y: i16| x as i32 * y as i32;
    if a.len() == 4 {
        // a^-1 = a(-x)·(t0 + t1 x^2)/t3 (up to the scaling the Montgomery products absorb)
        let s0 = fqmul(t[0], u);
        let s1 = fqmul(t[1], u);
        r[0] = mred(m(a[0], s0) + m(mred(m(a[2], s1)), zeta));
        r[1] = -mred(m(a[1], s0) + m(mred(m(a[3], s1)), zeta));
        r[2] = mred(m(a[2], s0) + m(a[0], s1));
        r[3] = -mred(m(a[3], s0) + m(a[1], s1));
    } else {
        r[0] = fqmul(t[0], u);
        r[1] = fqmul(t[1], u);
        r[2] = fqmul(t[2], u);
    }
}

/// Componentwise inverse (reference `poly_baseinv`, Montgomery batch inversion): `r_j = 2^32 /
/// a_j` in the base ring of component `j`, so `basemul(a, r)` is `2^16` (the Montgomery one) in
/// every component. Returns `true` iff every component is invertible; non-invertible
/// components get `0` and the others are still inverted. One Fermat inversion in total;
/// constant time (no data-dependent branch or index).
pub(crate) fn baseinv(r: &mut [i16], a: &[i16], s: &Shape, z: &[i16]) -> bool {
    let d = s.d;
    let m = s.n / d;
    let mut t = vec![[0i16; 3]; m];
    let mut norm = vec![0i16; m];
    let mut prefix = vec![0i16; m];
    let mut masks = vec![0i16; m];
    let mut okmask: i16 = -1;
    let mut acc = MONT;
    for j in 0..m {
        let nz = inv_stage1(&a[j * d..j * d + d], base_zeta(z, j), &mut t[j]);
        let mask = nonzero_mask(nz);
        okmask &= mask;
        masks[j] = mask;
        // a zero norm is replaced by the Montgomery one so the batch stays invertible
        let nz = (nz & mask) | (MONT & !mask);
        norm[j] = nz;
        acc = fqmul(acc, nz);
        prefix[j] = acc;
    }
    // prefix[j] = norm_0 ... norm_j / 2^(16·j); inv = 2^32 / prefix[m-1]
    let mut inv = fqinv(acc);
    for j in (0..m).rev() {
        let before = if j == 0 { MONT } else { prefix[j - 1] };
        // u_j = 2^32 / norm_j, then inv becomes 2^32 / prefix[j-1]
        let u = fqmul(inv, before);
        inv = fqmul(inv, norm[j]);
        let rj = &mut r[j * d..j * d + d];
        inv_stage2(rj, &a[j * d..j * d + d], base_zeta(z, j), &t[j], u);
        for x in rj.iter_mut() {
            *x &= masks[j];
        }
    }
    // the per-component state derives from `a` (a secret key's components in key generation)
    t.fill([0; 3]);
    core::hint::black_box(&mut t);
    for v in [&mut norm, &mut prefix, &mut masks] {
        crate::secret::wipe(v);
    }
    okmask != 0
}
