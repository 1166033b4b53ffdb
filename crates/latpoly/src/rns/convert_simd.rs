//! SIMD twin of the base-conversion kernel of [`super::basis`] (u64 lanes: AVX2 and AVX-512).
//!
//! For `LANES` coefficients at a time: `y_i = [x_i (Q/q_i)^-1]_{q_i}` by lane-wise Shoup
//! products; the estimate of `u` (and the ambiguity test) per lane in scalar code, identical to
//! the scalar kernel's; then for each target prime `p`
//! `Σ_i y_i (Q/q_i) + u (-Q) mod p` as lazy Shoup products (each in `[0, 2p)` for any 64-bit
//! input, since the quotient has 64 bits), folded to `[0, p)` and added modulo `p`. The result
//! is the same residue as the scalar kernel's. Written once over the [`Simd`] trait; the
//! `#[target_feature]` entry points live with the tokens in `ntt/x86`.

use crate::isa::Isa;
use crate::ntt::simd::Simd;

/// Most source primes the SIMD kernel keeps in registers; more go to the scalar kernel.
pub(crate) const MAX_SOURCES: usize = 16;

/// Constants of one conversion, laid out for the kernel.
#[derive(Debug, Clone)]
pub(crate) struct ConvTables {
    /// Source primes `q_i`.
    pub q: Vec<u64>,
    /// `1 / q_i` (the float estimate of `u`).
    pub inv_q: Vec<f64>,
    /// Target primes `p_k`.
    pub p: Vec<u64>,
    /// `[k][i] = ((Q/q_i) mod p_k, Shoup quotient)`, then `[k][L] = (-Q mod p_k, quotient)`.
    pub rows: Vec<Vec<(u64, u64)>>,
}

/// The `#[target_feature]` entry point of a u64 token (implemented in `ntt/x86`).
pub(crate) trait ConvertEntry: Simd<W = u64> {
    /// Runs [`convert`] with the token's features enabled.
    #[allow(clippy::too_many_arguments)]
    fn convert_entry(
        self,
        tb: &ConvTables,
        w: &[(u64, u64)],
        src: &[u64],
        out: &mut [u64],
        lift: Option<bool>,
        eps: f64,
        fallback: &mut Vec<usize>,
    );
    /// Runs [`mul_sub_mul`] with the token's features enabled.
    fn mul_sub_mul_entry(self, p: u64, w: [(u64, u64); 2], x: &[u64], r: &mut [u64]);
}

/// Whether backend `isa` runs this kernel on this CPU for `sources` source primes and degree
/// `n` (otherwise the scalar kernel runs).
pub(crate) fn supported(isa: Isa, sources: usize, n: usize) -> bool {
    if sources > MAX_SOURCES {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        use crate::ntt::x86::{Avx2U64, Avx512U64};
        match isa {
            Isa::Avx512 => Avx512U64::try_new().is_some() && n.is_multiple_of(8),
            Isa::Avx2 => Avx2U64::try_new().is_some() && n.is_multiple_of(4),
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (isa, n);
        false
    }
}

/// Runs the kernel of backend `isa` (which must be [`supported`]); false if it did not run.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    isa: Isa,
    tb: &ConvTables,
    w: &[(u64, u64)],
    src: &[u64],
    out: &mut [u64],
    lift: Option<bool>,
    eps: f64,
    fallback: &mut Vec<usize>,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::ntt::x86::{Avx2U64, Avx512U64};
        match isa {
            Isa::Avx512 => {
                if let Some(s) = Avx512U64::try_new() {
                    s.convert_entry(tb, w, src, out, lift, eps, fallback);
                    return true;
                }
            }
            Isa::Avx2 => {
                if let Some(s) = Avx2U64::try_new() {
                    s.convert_entry(tb, w, src, out, lift, eps, fallback);
                    return true;
                }
            }
            _ => {}
        }
    }
    let _ = (isa, tb, w, src, out, lift, eps, fallback);
    false
}

/// The kernel (see the module documentation). `w[i]` is `(Q/q_i)^-1 mod q_i` (possibly times a
/// scalar) with its Shoup quotient; `src` and `out` are limb-major with `n` a multiple of
/// `LANES`; ambiguous coefficients are appended to `fallback` (the caller recomputes them).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn convert<S: Simd<W = u64>>(
    s: S,
    tb: &ConvTables,
    w: &[(u64, u64)],
    src: &[u64],
    out: &mut [u64],
    lift: Option<bool>,
    eps: f64,
    fallback: &mut Vec<usize>,
) {
    let l = tb.q.len();
    let lanes = S::LANES;
    let n = src.len() / l;
    debug_assert!(l <= MAX_SOURCES && n.is_multiple_of(lanes) && out.len() == tb.p.len() * n);
    let zero = s.splat(0);
    let mut y = [zero; MAX_SOURCES];
    let mut ybuf = [0u64; MAX_SOURCES * 8];
    let mut ubuf = [0u64; 8];
    for j in (0..n).step_by(lanes) {
        for i in 0..l {
            let q = s.splat(tb.q[i]);
            let x = s.load(&src[i * n + j..]);
            let v = s.mul_shoup_lazy_splat(x, s.splat(w[i].0), s.splat(w[i].1), q);
            y[i] = s.csub(v, q);
        }
        let u = match lift {
            None => zero,
            Some(centered) => {
                for i in 0..l {
                    s.store(&mut ybuf[i * lanes..], y[i]);
                }
                for (lane, u) in ubuf[..lanes].iter_mut().enumerate() {
                    let mut est = 0.0f64;
                    for i in 0..l {
                        // y_i < 2^62: the signed conversion is one instruction.
                        est += ybuf[i * lanes + lane] as i64 as f64 * tb.inv_q[i];
                    }
                    *u = super::basis::lift_estimate(est, centered, eps, j + lane, fallback);
                }
                s.load(&ubuf)
            }
        };
        for (k, (&pk, row)) in tb.p.iter().zip(&tb.rows).enumerate() {
            let p = s.splat(pk);
            let mut acc = s.mul_shoup_lazy_splat(u, s.splat(row[l].0), s.splat(row[l].1), p);
            acc = s.csub(acc, p);
            for i in 0..l {
                let t = s.mul_shoup_lazy_splat(y[i], s.splat(row[i].0), s.splat(row[i].1), p);
                acc = s.csub(s.add(acc, s.csub(t, p)), p);
            }
            s.store(&mut out[k * n + j..], acc);
        }
    }
}

/// Runs [`mul_sub_mul`] on backend `isa` (`r.len()` a multiple of its lanes: 8 for AVX-512, 4
/// for AVX2); false if it did not run (another backend, or a CPU without it).
pub(crate) fn run_mul_sub_mul(
    isa: Isa,
    p: u64,
    w: [(u64, u64); 2],
    x: &[u64],
    r: &mut [u64],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::ntt::x86::{Avx2U64, Avx512U64};
        match isa {
            Isa::Avx512 => {
                if let Some(s) = Avx512U64::try_new() {
                    s.mul_sub_mul_entry(p, w, x, r);
                    return true;
                }
            }
            Isa::Avx2 => {
                if let Some(s) = Avx2U64::try_new() {
                    s.mul_sub_mul_entry(p, w, x, r);
                    return true;
                }
            }
            _ => {}
        }
    }
    let _ = (isa, p, w, x, r);
    false
}

/// `r_j <- (x_j w_0 - r_j) w_1 mod p` for `x_j, r_j < p`, the constants `w = [(w_0, Shoup
/// quotient), (w_1, quotient)]` below `p`, `r.len()` a multiple of `LANES`: the same residues
/// as the scalar loop of BFV's multiplication (`Bfv::scale_down_into`), which it replaces.
#[inline(always)]
pub(crate) fn mul_sub_mul<S: Simd<W = u64>>(
    s: S,
    p: u64,
    w: [(u64, u64); 2],
    x: &[u64],
    r: &mut [u64],
) {
    let lanes = S::LANES;
    debug_assert!(r.len().is_multiple_of(lanes) && x.len() == r.len());
    let pv = s.splat(p);
    let (w0, w0p, w1, w1p) = (
        s.splat(w[0].0),
        s.splat(w[0].1),
        s.splat(w[1].0),
        s.splat(w[1].1),
    );
    for j in (0..r.len()).step_by(lanes) {
        let a = s.csub(s.mul_shoup_lazy_splat(s.load(&x[j..]), w0, w0p, pv), pv);
        // a + p - r is in [1, 2p) and ≡ a - r.
        let d = s.sub(s.add(a, pv), s.load(&r[j..]));
        let o = s.csub(s.mul_shoup_lazy_splat(d, w1, w1p, pv), pv);
        s.store(&mut r[j..], o);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::{Modulus, Modulus64};
    use crate::primes::ntt_primes;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    /// [`mul_sub_mul`] on every backend against the scalar formula, at prime sizes up to the
    /// 62-bit limit, with residues at the edges (0, 1, p - 1) and random.
    #[test]
    fn mul_sub_mul_matches_the_scalar_formula() {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let n = 64;
        for bits in [20, 31, 50, 61, 62] {
            let p = ntt_primes(bits, n, 1).unwrap()[0];
            let m = Modulus64::new(p).unwrap();
            for (w0, w1) in [
                (0, 0),
                (1, p - 1),
                (p - 1, 1),
                (rng.gen_range(0..p), rng.gen_range(0..p)),
            ] {
                let w = [(w0, m.shoup(w0)), (w1, m.shoup(w1))];
                let edge = [0, 1, p - 1, p / 2];
                let x: Vec<u64> = (0..n)
                    .map(|j| {
                        if j < 16 {
                            edge[j % 4]
                        } else {
                            rng.gen_range(0..p)
                        }
                    })
                    .collect();
                let r: Vec<u64> = (0..n)
                    .map(|j| {
                        if j < 16 {
                            edge[j / 4]
                        } else {
                            rng.gen_range(0..p)
                        }
                    })
                    .collect();
                let want: Vec<u64> = x
                    .iter()
                    .zip(&r)
                    .map(|(&x, &r)| m.mul(m.sub(m.mul(x, w0), r), w1))
                    .collect();
                for isa in [Isa::Avx512, Isa::Avx2] {
                    let mut got = r.clone();
                    if run_mul_sub_mul(isa, p, w, &x, &mut got) {
                        assert_eq!(got, want, "{isa}, {bits} bits");
                    }
                }
            }
        }
    }
}
