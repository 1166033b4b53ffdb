//! SIMD twin of the base-conversion kernel of [`super::basis`] (u64 lanes: AVX2 and AVX-512).
//!
//! For `LANES` coefficients at a time: `y_i = [x_i (Q/q_i)^-1]_{q_i}` by lane-wise Shoup
//! products; the float estimate `s = Σ_i y_i / q_i` of `u` in vector lanes, with the scalar
//! kernel's operations in its order (one IEEE product and one sum per source); `u` is
//! `floor(s + 1/2)` (centred lift) or `floor(s)`, the scalar kernel's value wherever `s` is
//! not within `eps` of a rounding boundary; a vector with a lane that is goes through the
//! scalar kernel's per-lane code, which lists the ambiguous coefficients. Then for each target
//! prime `p`, `Σ_i y_i (Q/q_i) + u (-Q) mod p` as lazy Shoup products (each in `[0, 2p)` for
//! any 64-bit input, since the quotient has 64 bits) summed in `[0, 2p)` (one conditional
//! subtraction of `2p` per term: `4p < 2^64` as `p < 2^62`) and folded to `[0, p)` at the end.
//! The result is the same residue as the scalar kernel's. Written once over the [`Simd`] and
//! [`RoundLanes`] traits; the `#[target_feature]` entry points live with the tokens in `ntt/x86`.

use crate::arith::{Modulus, Modulus64};
use crate::isa::Isa;
use crate::ntt::simd::{RoundLanes, Simd};

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
    /// Runs [`centred_digit`] with the token's features enabled.
    fn centred_digit_entry(self, d: &DigitTables, x: &[u64], out: &mut [u64]);
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
pub(crate) fn convert<S: RoundLanes>(
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
                // s = Σ y_i / q_i as the scalar kernel sums it; r = s + 1/2 (centred) or s,
                // u = floor(r) (r >= 0), ambiguous where r is within eps of an integer.
                let mut est = s.fsplat(0.0);
                for (&yi, &inv) in y[..l].iter().zip(&tb.inv_q) {
                    // y_i < 2^62: the signed conversion of the scalar kernel, exactly.
                    est = s.fadd(est, s.fmul(s.to_f64(yi), s.fsplat(inv)));
                }
                let r = if centered {
                    s.fadd(est, s.fsplat(0.5))
                } else {
                    est
                };
                let u = s.trunc(r);
                let frac = s.fsub(r, s.to_f64(u));
                if !s.fany_outside(frac, eps, 1.0 - eps) {
                    u
                } else {
                    // Some lane is ambiguous: the scalar kernel's per-lane code lists it. Rare
                    // for centred lifts (values near ±Q/2); canonical lifts of values near 0
                    // or Q (small-norm inputs) come here for every vector, as they go to the
                    // exact fallback anyway.
                    for i in 0..l {
                        s.store(&mut ybuf[i * lanes..], y[i]);
                    }
                    for (lane, u) in ubuf[..lanes].iter_mut().enumerate() {
                        let mut est = 0.0f64;
                        for i in 0..l {
                            est += ybuf[i * lanes + lane] as i64 as f64 * tb.inv_q[i];
                        }
                        *u = super::basis::lift_estimate(est, centered, eps, j + lane, fallback);
                    }
                    s.load(&ubuf)
                }
            }
        };
        for (k, (&pk, row)) in tb.p.iter().zip(&tb.rows).enumerate() {
            let p = s.splat(pk);
            let two_p = s.add(p, p);
            // Every term and the running sum in [0, 2p): one conditional subtraction per term.
            let mut acc = s.mul_shoup_lazy_splat(u, s.splat(row[l].0), s.splat(row[l].1), p);
            for i in 0..l {
                let t = s.mul_shoup_lazy_splat(y[i], s.splat(row[i].0), s.splat(row[i].1), p);
                acc = s.csub(s.add(acc, t), two_p);
            }
            s.store(&mut out[k * n + j..], s.csub(acc, p));
        }
    }
}

/// Runs [`mul_sub_mul`] on backend `isa`; false if it did not run (another backend, a CPU
/// without it, `r.len()` not a multiple of its lanes (8 for AVX-512, 4 for AVX2) or not
/// `x.len()`).
pub(crate) fn run_mul_sub_mul(
    isa: Isa,
    p: u64,
    w: [(u64, u64); 2],
    x: &[u64],
    r: &mut [u64],
) -> bool {
    if x.len() != r.len() || !supported(isa, 1, r.len()) {
        return false;
    }
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

/// [`mul_sub_mul`] on backend `isa` where it runs, else the scalar formula (its
/// specification, the same residues): `r_j <- (x_j w_0 - r_j) w_1 mod p`, any length.
pub(crate) fn mul_sub_mul_any(
    isa: Isa,
    m: &Modulus64,
    w: [(u64, u64); 2],
    x: &[u64],
    r: &mut [u64],
) {
    if isa == Isa::Scalar || !run_mul_sub_mul(isa, m.value(), w, x, r) {
        let ([w0, w0p], [w1, w1p]) = (w[0].into(), w[1].into());
        for (o, &x) in r.iter_mut().zip(x) {
            *o = m.mul_shoup(m.sub(m.mul_shoup(x, w0, w0p), *o), w1, w1p);
        }
    }
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
    if w[0].0 == 1 {
        // `x_j w_0 = x_j`: the end of a key switch and modulus switching (a public constant,
        // so the branch leaks nothing), one Shoup product fewer per lane.
        for j in (0..r.len()).step_by(lanes) {
            let d = s.sub(s.add(s.load(&x[j..]), pv), s.load(&r[j..]));
            let o = s.csub(s.mul_shoup_lazy_splat(d, w1, w1p, pv), pv);
            s.store(&mut r[j..], o);
        }
        return;
    }
    for j in (0..r.len()).step_by(lanes) {
        let a = s.csub(s.mul_shoup_lazy_splat(s.load(&x[j..]), w0, w0p, pv), pv);
        // a + p - r is in [1, 2p) and ≡ a - r.
        let d = s.sub(s.add(a, pv), s.load(&r[j..]));
        let o = s.csub(s.mul_shoup_lazy_splat(d, w1, w1p, pv), pv);
        s.store(&mut r[j..], o);
    }
}

/// Constants of one key-switching digit ([`centred_digit`]): the digit's prime `q_i` (odd),
/// the factor `h = (Q/q_i)^-1 mod q_i` with its Shoup quotient ([`Modulus::shoup`], read by
/// the scalar kernel; the SIMD one encodes its own, [`Simd::enc_shoup`]),
/// `half = floor(q_i / 2)`, and per limb `j` the pair `(q_j, (-half) mod q_j)`.
#[derive(Debug, Clone)]
pub(crate) struct DigitTables {
    pub qi: Modulus64,
    pub h: (u64, u64),
    pub half: u64,
    pub limbs: Vec<(Modulus64, u64)>,
}

impl DigitTables {
    /// The tables of digit `i` of a basis with the (odd) primes `q` and `h = (Q/q_i)^-1 mod q_i`.
    pub(crate) fn new(q: &[Modulus64], i: usize, h: u64) -> DigitTables {
        let qi = q[i].clone();
        // odd, so the centred range (-q_i/2, q_i/2] is symmetric: (q_i - 1)/2 on either side
        debug_assert_eq!(qi.value() & 1, 1);
        let half = qi.value() / 2;
        let h = (h, qi.shoup(h));
        let limbs = q
            .iter()
            .map(|m| (m.clone(), m.neg(m.reduce_u64(half))))
            .collect();
        DigitTables { qi, h, half, limbs }
    }

    /// Whether one conditional subtraction brings `[0, q_i)` under every `q_j` (`q_i <= 2 q_j`),
    /// as [`centred_digit`] assumes.
    pub(crate) fn one_subtraction(&self) -> bool {
        let qi = self.qi.value();
        self.limbs.iter().all(|(m, _)| qi <= 2 * m.value())
    }

    /// The scalar kernel (the specification of [`centred_digit`]; any primes): coefficients
    /// `x < q_i` to their digits in every limb, `out[j n + k]`.
    pub(crate) fn scalar(&self, x: &[u64], out: &mut [u64]) {
        let (n, mi) = (x.len(), &self.qi);
        // w = y' + half with y' the centred digit (y > half stands for y - q_i); public data
        let w: Vec<u64> = x
            .iter()
            .map(|&xk| mi.add(mi.mul_shoup(xk, self.h.0, self.h.1), self.half))
            .collect();
        for ((m, c), o) in self.limbs.iter().zip(out.chunks_mut(n)) {
            for (o, &w) in o.iter_mut().zip(&w) {
                *o = m.add(m.reduce_u64(w), *c);
            }
        }
    }
}

/// Runs [`centred_digit`] on backend `isa`; false if it did not run (another backend, a CPU
/// without it, `x.len()` not a multiple of its lanes, or a limb with `q_i > 2 q_j`).
pub(crate) fn run_centred_digit(isa: Isa, d: &DigitTables, x: &[u64], out: &mut [u64]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::ntt::x86::{Avx2U64, Avx512U64};
        if d.one_subtraction() && supported(isa, 1, x.len()) {
            match isa {
                Isa::Avx512 => {
                    if let Some(s) = Avx512U64::try_new() {
                        s.centred_digit_entry(d, x, out);
                        return true;
                    }
                }
                Isa::Avx2 => {
                    if let Some(s) = Avx2U64::try_new() {
                        s.centred_digit_entry(d, x, out);
                        return true;
                    }
                }
                _ => {}
            }
        }
    }
    let _ = (isa, d, x, out);
    false
}

/// BFV key switching's digit decomposition for one prime: `y = [x h]_{q_i}` for each residue
/// `x < q_i` of the input, taken centred (`y > q_i / 2` stands for `y - q_i`) and reduced into
/// every limb `j`, `out[j n + k]` (`n = x.len()`, a multiple of `LANES`; every `q_i <= 2 q_j`).
/// With `w = (y + half) mod q_i` (`= y' + half` for the centred `y'`), limb `j` holds
/// `(w mod q_j) + (-half mod q_j)`, reduced: additions and conditional subtractions only, the
/// same residues as [`DigitTables::scalar`].
#[inline(always)]
pub(crate) fn centred_digit<S: Simd<W = u64>>(s: S, d: &DigitTables, x: &[u64], out: &mut [u64]) {
    let (lanes, n) = (S::LANES, x.len());
    debug_assert!(n.is_multiple_of(lanes) && out.len() == d.limbs.len() * n);
    debug_assert!(d.one_subtraction());
    let q = d.qi.value();
    let (qi, half) = (s.splat(q), s.splat(d.half));
    let (h, hp) = (s.splat(d.h.0), s.splat(S::enc_shoup(d.h.0, q)));
    for k in (0..n).step_by(lanes) {
        let y = s.csub(s.mul_shoup_lazy_splat(s.load(&x[k..]), h, hp, qi), qi);
        let w = s.csub(s.add(y, half), qi);
        for (j, (m, c)) in d.limbs.iter().enumerate() {
            let (qj, c) = (s.splat(m.value()), *c);
            let dj = s.csub(w, qj);
            s.store(&mut out[j * n + k..], s.csub(s.add(dj, s.splat(c)), qj));
        }
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
                (1, rng.gen_range(0..p)), // the w_0 = 1 loop
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

    /// [`mul_sub_mul_any`] takes any length on every backend (the SIMD kernels run only on
    /// multiples of their lanes; the rest falls back to the scalar formula).
    #[test]
    fn mul_sub_mul_any_takes_any_length() {
        let p = ntt_primes(50, 8, 1).unwrap()[0];
        let m = Modulus64::new(p).unwrap();
        for (w0, w1) in [(p / 3, p - 5), (1, p - 5)] {
            let w = [(w0, m.shoup(w0)), (w1, m.shoup(w1))];
            for len in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17] {
                let x: Vec<u64> = (0..len as u64).map(|j| (j * 7919 + 3) % p).collect();
                let r: Vec<u64> = (0..len as u64).map(|j| p - 1 - j).collect();
                let want: Vec<u64> = x
                    .iter()
                    .zip(&r)
                    .map(|(&x, &r)| m.mul(m.sub(m.mul(x, w0), r), w1))
                    .collect();
                for isa in Isa::ALL {
                    let mut got = r.clone();
                    mul_sub_mul_any(isa, &m, w, &x, &mut got);
                    assert_eq!(got, want, "{isa}, length {len}");
                }
            }
        }
    }

    /// [`centred_digit`]: the scalar kernel against the definition (the centred `[x h]_{q_i}`
    /// as a signed integer, reduced mod each `q_j` by `rem_euclid`), and every backend against
    /// the scalar kernel, for bases of mixed sizes (one subtraction, or the scalar remainder
    /// where `q_i > 2 q_j`) up to the 62-bit limit, with the residues whose digits sit at the
    /// centring edge (`half`, `half + 1`), 0, 1 and `q_i - 1`.
    #[test]
    fn centred_digit_matches_the_definition() {
        let mut rng = ChaCha20Rng::seed_from_u64(12);
        let n = 64;
        let bases: Vec<Vec<u64>> = vec![
            ntt_primes(30, n, 3).unwrap(),
            ntt_primes(55, n, 4).unwrap(),
            ntt_primes(62, n, 2).unwrap(),
            [ntt_primes(40, n, 1).unwrap(), ntt_primes(62, n, 1).unwrap()].concat(),
            [ntt_primes(61, n, 1).unwrap(), ntt_primes(62, n, 1).unwrap()].concat(),
        ];
        for q in &bases {
            let ms: Vec<Modulus64> = q.iter().map(|&x| Modulus64::new(x).unwrap()).collect();
            for i in 0..q.len() {
                let mi = &ms[i];
                let h = rng.gen_range(1..q[i]);
                let d = DigitTables::new(&ms, i, h);
                let hinv = mi.inv(h).unwrap();
                // inputs whose digit y = x h is 0, 1, half, half + 1, q_i - 1, then random
                let ys = [0, 1, q[i] / 2, q[i] / 2 + 1, q[i] - 1];
                let x: Vec<u64> = (0..n)
                    .map(|k| match ys.get(k) {
                        Some(&y) => mi.mul(y, hinv),
                        None => rng.gen_range(0..q[i]),
                    })
                    .collect();
                let mut want = vec![0u64; q.len() * n];
                for (k, &xk) in x.iter().enumerate() {
                    let y = mi.mul(xk, h) as i128;
                    let yc = if y > (q[i] / 2) as i128 {
                        y - q[i] as i128
                    } else {
                        y
                    };
                    for (j, &qj) in q.iter().enumerate() {
                        want[j * n + k] = yc.rem_euclid(qj as i128) as u64;
                    }
                }
                let mut got = vec![0u64; q.len() * n];
                d.scalar(&x, &mut got);
                assert_eq!(got, want, "scalar, {q:?}, digit {i}");
                for isa in [Isa::Avx512, Isa::Avx2] {
                    let mut got = vec![0u64; q.len() * n];
                    if run_centred_digit(isa, &d, &x, &mut got) {
                        assert_eq!(got, want, "{isa}, {q:?}, digit {i}");
                    } else {
                        assert!(
                            !d.one_subtraction() || !supported(isa, 1, n),
                            "{isa} refused"
                        );
                    }
                }
            }
        }
    }
}
