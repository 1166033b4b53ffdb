//! Decryption's scale-and-round, `round(t x / Q) mod t` for `x` in basis `Q` (coefficient form,
//! limb-major): the scalar kernel, which is the specification, and its SIMD twin (u64 lanes,
//! AVX2 and AVX-512), which gives the same output bit for bit and is tested against it.
//!
//! With `y_i = [x_i (Q/q_i)^-1]_{q_i}`, `t x / Q ≡ Σ_i y_i t / q_i (mod t)`. Each `y_i t` splits
//! exactly as `α_i q_i + β_i` with `0 <= β_i < q_i`: the Shoup quotient `floor(y_i t' / 2^64)`,
//! `t' = floor(t 2^64 / q_i)`, is `floor(y_i t / q_i)` or one less, and one masked correction
//! makes it exact. (The SIMD kernel skips the reduction of `y_i` to `[0, q_i)`: a `y_i` larger
//! by `k q_i` has the same `β_i` and an `α_i` larger by `k t`, which the reduction mod `t`
//! removes.) The `α_i` are summed as integers and the `β_i / q_i` in double precision, in
//! the order of the primes, as a product by the rounded `1 / q_i` followed by a sum (the same
//! IEEE operations on every backend, so the same bits); the total is rounded to nearest and
//! reduced mod `t` by masked subtractions of `t 2^j`.
//!
//! Range: `t` below every `q_i` and `4 L t < 2^63` (so the sums stay in 64-bit lanes);
//! other parameters take the 128-bit path in [`super::Bfv`]. Precision: the float sum is off by
//! less than `L (L + 3) 2^-53`, so the result can differ from the exact `round(t x / Q)` only
//! where `t x / Q` lies that close to a half-integer, i.e. for a phase whose noise sits on the
//! decryption bound `Q / 2t` itself. Every operation is branch-free and free of
//! data-dependent addresses (the phase of a decryption is secret).

use crate::arith::ct::barrier;
use crate::arith::{Modulus, Modulus64, Word};
use crate::isa::Isa;
use crate::ntt::simd::RoundLanes;

/// The `#[target_feature]` entry point of a token (generated in `ntt/x86` by `round_entry!`).
pub(crate) trait RoundEntry: RoundLanes {
    /// Runs [`simd`] with the token's features enabled.
    fn round_entry(self, tb: &RoundTables, x: &[u64], out: &mut [u64]);
}

/// One prime's constants.
#[derive(Debug, Clone, Copy)]
struct Prime {
    q: u64,
    /// `(Q/q)^-1 mod q` and its Shoup quotient.
    h: u64,
    hp: u64,
    /// `floor(t 2^64 / q)`.
    tp: u64,
    /// `1 / q`, rounded.
    inv: f64,
}

/// The constants of one basis and plaintext modulus.
#[derive(Debug, Clone)]
pub(crate) struct RoundTables {
    primes: Vec<Prime>,
    t: u64,
    /// `bits(4L)`: the total is at most `4 L t < 2^steps t` (the SIMD kernel's `y_i` are below
    /// `4 q_i`, so its `α_i` below `4t`; the scalar kernel's below `t`), so masked subtractions
    /// of `t 2^j`, `j = steps - 1, ..., 0`, reduce it mod `t`.
    steps: u32,
}

impl RoundTables {
    /// The tables for moduli `q_i` with `qhat_inv[i] = (Q/q_i)^-1 mod q_i`, or `None` when `t`
    /// is out of this kernel's range (module documentation).
    pub(crate) fn new(moduli: &[Modulus64], qhat_inv: &[u64], t: u64) -> Option<Self> {
        let l = moduli.len() as u128;
        if t < 2 || moduli.iter().any(|m| m.value() <= t) || 4 * l * t as u128 >= 1 << 63 {
            return None;
        }
        let primes = moduli
            .iter()
            .zip(qhat_inv)
            .map(|(m, &h)| Prime {
                q: m.value(),
                h,
                hp: m.shoup(h),
                tp: m.shoup(t),
                inv: 1.0 / m.value() as f64,
            })
            .collect();
        Some(Self {
            primes,
            t,
            steps: usize::BITS - (4 * moduli.len()).leading_zeros(),
        })
    }

    /// `v mod t` for `v < 2^steps t`, branch-free.
    #[inline(always)]
    fn reduce(&self, mut v: u64) -> u64 {
        for j in (0..self.steps).rev() {
            v = v.csub(self.t << j);
        }
        v
    }
}

/// `(α, β)` with `y t = α q + β`, `0 <= β < q`, for `y < q`, branch-free.
#[inline(always)]
fn split(p: &Prime, t: u64, y: u64) -> (u64, u64) {
    let alpha = ((y as u128 * p.tp as u128) >> 64) as u64;
    let beta = y.wrapping_mul(t).wrapping_sub(alpha.wrapping_mul(p.q)); // < 2q
                                                                        // The barrier on the borrow bit, before it becomes a mask (see `Word::barrier`).
    let (b2, borrow) = beta.sub_borrow(p.q);
    let borrow = barrier(borrow); // 1 iff beta < q
    (
        alpha + 1 - borrow,
        b2.wrapping_add(p.q & 0u64.wrapping_sub(borrow)),
    )
}

/// The specification: `out[j] = round(t x_j / Q) mod t` for `x` limb-major (`x[i n + j]`,
/// residues below `q_i`), coefficient by coefficient.
pub(crate) fn scalar(tb: &RoundTables, x: &[u64], out: &mut [u64]) {
    let n = out.len();
    debug_assert_eq!(x.len(), tb.primes.len() * n);
    for (j, o) in out.iter_mut().enumerate() {
        let (mut a, mut f) = (0u64, 0.0f64);
        for (i, p) in tb.primes.iter().enumerate() {
            let xi = x[i * n + j];
            // y = x_i (Q/q_i)^-1 mod q_i: Shoup's product in [0, 2q), then one masked subtraction.
            let y = xi
                .wrapping_mul(p.h)
                .wrapping_sub((((xi as u128 * p.hp as u128) >> 64) as u64).wrapping_mul(p.q))
                .csub(p.q);
            let (alpha, beta) = split(p, tb.t, y);
            a += alpha;
            // beta < q < 2^62: exact in i64, then one rounding to double (one instruction).
            f += beta as i64 as f64 * p.inv;
        }
        // f >= 0, so adding 0.5 and truncating rounds to nearest.
        *o = tb.reduce(a + (f + 0.5) as u64);
    }
}

/// The SIMD twin of [`scalar`], `S::LANES` coefficients at a time (`n` a multiple of it).
#[inline(always)]
pub(crate) fn simd<S: RoundLanes>(s: S, tb: &RoundTables, x: &[u64], out: &mut [u64]) {
    let n = out.len();
    let lanes = S::LANES;
    debug_assert!(n.is_multiple_of(lanes) && x.len() == tb.primes.len() * n);
    const {
        assert!(
            S::LAZIER_V <= 4 && S::VALUE_BITS == 64,
            "y below 4q and no junk above the lanes' bits (RoundTables::steps)"
        )
    };
    let (t, half) = (s.splat(tb.t), s.fsplat(0.5));
    for j in (0..n).step_by(lanes) {
        let (mut a, mut f) = (s.splat(0), s.fsplat(0.0));
        for (i, p) in tb.primes.iter().enumerate() {
            let q = s.splat(p.q);
            let xi = s.load(&x[i * n + j..]);
            // y ≡ x_i (Q/q_i)^-1 in [0, 4q): its beta is exact, its alpha off by a multiple of t.
            let y = s.mul_shoup_lazier_splat(xi, s.splat(p.h), s.splat(p.hp), q);
            let alpha = s.mulhi_exact(y, s.splat(p.tp));
            let beta = s.sub(s.mullo(y, t), s.mullo(alpha, q));
            let (alpha, beta) = s.carry_fix(alpha, beta, q);
            a = s.add(a, alpha);
            f = s.fadd(f, s.fmul(s.to_f64(beta), s.fsplat(p.inv)));
        }
        let mut v = s.add(a, s.trunc(s.fadd(f, half)));
        for k in (0..tb.steps).rev() {
            v = s.csub(v, s.splat(tb.t << k));
        }
        s.store(&mut out[j..], v);
    }
}

/// Whether backend `isa` runs the SIMD kernel on this CPU at degree `n` (the u64 tokens and
/// lane counts of the base-conversion kernel).
pub(crate) fn supported(isa: Isa, n: usize) -> bool {
    crate::rns::convert_simd::supported(isa, 1, n)
}

/// The backends that run this kernel on this CPU at degree `n`, best first, ending with
/// [`Isa::Scalar`] (ignores `LATPOLY_ISA`).
pub(crate) fn available_isas(n: usize) -> Vec<Isa> {
    let mut v: Vec<Isa> = [Isa::Avx512, Isa::Avx2]
        .into_iter()
        .filter(|&i| supported(i, n))
        .collect();
    v.push(Isa::Scalar);
    v
}

/// The best backend within the `LATPOLY_ISA` cap.
pub(crate) fn best_isa(n: usize) -> Isa {
    let cap = Isa::env_cap().unwrap_or(Isa::Avx512Ifma);
    available_isas(n)
        .into_iter()
        .find(|&i| i <= cap)
        .unwrap_or(Isa::Scalar)
}

/// Runs the kernel of backend `isa` (the scalar one for [`Isa::Scalar`] or a backend this CPU
/// cannot run at this degree).
pub(crate) fn run(isa: Isa, tb: &RoundTables, x: &[u64], out: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if supported(isa, out.len()) {
        use crate::ntt::x86::{Avx2U64, Avx512U64};
        match isa {
            Isa::Avx512 => {
                if let Some(s) = Avx512U64::try_new() {
                    return s.round_entry(tb, x, out);
                }
            }
            Isa::Avx2 => {
                if let Some(s) = Avx2U64::try_new() {
                    return s.round_entry(tb, x, out);
                }
            }
            _ => {}
        }
    }
    scalar(tb, x, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primes::ntt_primes;
    use num_bigint::BigUint;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha20Rng;

    /// `(Q/q_i)^-1 mod q_i` for every prime.
    fn qhat_inv(moduli: &[Modulus64]) -> Vec<u64> {
        let big_q: BigUint = moduli.iter().map(|m| BigUint::from(m.value())).product();
        moduli
            .iter()
            .map(|m| {
                let h = (&big_q / m.value()) % m.value();
                m.inv(u64::try_from(&h).unwrap()).unwrap()
            })
            .collect()
    }

    /// `round(t X / Q) mod t` from the CRT value `X` of each coefficient (ties up).
    fn exact(moduli: &[Modulus64], t: u64, x: &[u64], n: usize) -> Vec<u64> {
        let qs: Vec<BigUint> = moduli.iter().map(|m| BigUint::from(m.value())).collect();
        let big_q: BigUint = qs.iter().product();
        (0..n)
            .map(|j| {
                let mut big_x = BigUint::from(0u8);
                for (i, qi) in qs.iter().enumerate() {
                    let qhat = &big_q / qi;
                    let inv = qhat.modinv(qi).unwrap();
                    big_x += BigUint::from(x[i * n + j]) * &inv % qi * qhat;
                }
                big_x %= &big_q;
                let r =
                    (BigUint::from(2 * t as u128) * big_x + &big_q) / (BigUint::from(2u8) * &big_q);
                u64::try_from(r % t).unwrap()
            })
            .collect()
    }

    /// The lane conversions of one backend against Rust's `as`, bit for bit: integers that
    /// doubles cannot hold (ties above `2^53`, values near `2^62` and `2^63`) and random ones
    /// of every size; truncation of integers, their neighbours and halves below `2^52`.
    fn conversions_match_as<S: RoundLanes>(s: S) {
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let lanes = S::LANES;
        let mut ints: Vec<u64> = vec![
            0,
            1,
            (1 << 52) + 1,
            (1 << 53) - 1,
            (1 << 53) + 1,
            (1 << 53) + 3,
            (1 << 54) + 2,
            (1 << 54) + 6,
            (1 << 62) - 1,
            (1 << 62) + (1 << 9),
            (1 << 62) + (3 << 9),
            (1 << 63) - 1,
            (1 << 63) - 512,
            (1 << 63) - 1536,
            u32::MAX as u64,
            1 << 32,
        ];
        // Around the ties of every binade above 2^53 (the rounding direction, ties to even).
        for e in 53..63 {
            let ulp = 1u64 << (e - 52);
            for m in [0u64, 1, 2, 3, (1 << 52) - 2] {
                let base = (1u64 << e) + m * ulp;
                ints.extend([
                    base + ulp / 2 - 1,
                    base + ulp / 2,
                    base + ulp / 2 + 1,
                    base + ulp - 1,
                ]);
            }
        }
        ints.extend((0..296).map(|_| rng.gen::<u64>() >> rng.gen_range(1..64)));
        let mut out = vec![0.0f64; lanes];
        for c in ints.chunks_exact(lanes) {
            s.fstore(s.to_f64(s.load(c)), &mut out);
            for (g, &v) in out.iter().zip(c) {
                assert_eq!(g.to_bits(), (v as i64 as f64).to_bits(), "to_f64({v})");
            }
        }
        let mut floats: Vec<f64> = vec![0.0, 0.25, 0.5, 0.75, 1.0, 2.5, 3.5, 65537.5];
        for k in [1u64, 2, 3, 1 << 20, (1 << 51) + 1, (1 << 52) - 1] {
            let f = k as f64;
            floats.extend([
                f,
                f64::from_bits(f.to_bits() - 1),
                f64::from_bits(f.to_bits() + 1),
            ]);
        }
        floats.extend([4503599627370495.5, 2251799813685248.5]);
        floats.extend((0..200).map(|_| rng.gen_range(0.0..4503599627370495.0)));
        floats.truncate(floats.len() / lanes * lanes);
        let mut got = vec![0u64; lanes];
        for c in floats.chunks_exact(lanes) {
            s.store(&mut got, s.trunc(s.fload(c)));
            for (&g, &f) in got.iter().zip(c) {
                assert!(f < 4503599627370496.0);
                assert_eq!(g, f as u64, "trunc({f})");
            }
        }
        // fsub: one IEEE subtraction per lane.
        let mut diff = vec![0.0f64; lanes];
        for (a, b) in floats
            .chunks_exact(lanes)
            .zip(floats.chunks_exact(lanes).skip(1))
        {
            s.fstore(s.fsub(s.fload(a), s.fload(b)), &mut diff);
            for ((&g, &x), &y) in diff.iter().zip(a).zip(b) {
                assert_eq!(g.to_bits(), (x - y).to_bits(), "{x} - {y}");
            }
        }
        // fany_outside: the bounds themselves are inside, the next doubles out, NaN out; in
        // every lane position.
        let (lo, hi) = (0.25f64, 0.75f64);
        let down = |x: f64| f64::from_bits(x.to_bits() - 1);
        let up = |x: f64| f64::from_bits(x.to_bits() + 1);
        for (v, outside) in [
            (0.5, false),
            (lo, false),
            (hi, false),
            (up(lo), false),
            (down(hi), false),
            (down(lo), true),
            (up(hi), true),
            (0.0, true),
            (1.0, true),
            (f64::NAN, true),
        ] {
            for lane in 0..lanes {
                let mut x = vec![0.5f64; lanes];
                x[lane] = v;
                assert_eq!(
                    s.fany_outside(s.fload(&x), lo, hi),
                    outside,
                    "{v} in lane {lane}"
                );
            }
        }
    }

    #[test]
    fn lane_conversions_match_rusts_as() {
        #[cfg(target_arch = "x86_64")]
        {
            use crate::ntt::x86::{Avx2U64, Avx512U64};
            if let Some(s) = Avx2U64::try_new() {
                conversions_match_as(s);
            }
            if let Some(s) = Avx512U64::try_new() {
                conversions_match_as(s);
            }
        }
    }

    /// Every SIMD backend against the scalar kernel, and the scalar kernel against the exact
    /// big-integer rounding, over prime sizes 31-62 bits, one to nine primes, `t` from 2 to the
    /// range's edge, and residues at the edges (0, 1, q - 1) and random; at n = 12, which the
    /// AVX-512 kernel does not take (`run` falls back to the scalar kernel), as well as n = 64.
    /// (The lane operations that must match the scalar ones bit for bit, the conversions to
    /// and from doubles, are tested on their own in `ntt/x86/avx2_u64.rs` and `avx512_u64.rs`:
    /// a one-ulp difference would show here only near a half-integer.)
    #[test]
    fn backends_match_the_scalar_kernel_and_the_exact_rounding() {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2") {
            assert!(
                available_isas(64).contains(&Isa::Avx2),
                "the AVX2 kernel is tested here"
            );
        }
        for n in [64, 12] {
            assert!(available_isas(n).contains(&best_isa(n)));
            check_degree(n);
        }
    }

    fn check_degree(n: usize) {
        let mut rng = ChaCha20Rng::seed_from_u64(7 + n as u64);
        for (bits, l) in [
            (62, 1),
            (62, 2),
            (55, 4),
            (50, 5),
            (40, 3),
            (31, 2),
            (61, 9),
        ] {
            let primes = ntt_primes(bits, 64, l).unwrap();
            let moduli: Vec<Modulus64> =
                primes.iter().map(|&q| Modulus64::new(q).unwrap()).collect();
            let h = qhat_inv(&moduli);
            let min_q = *primes.iter().min().unwrap();
            let t_max = (((1u128 << 63) - 1) / (4 * l as u128)).min(min_q as u128 - 1) as u64;
            for t in [2, 3, 257, 65537, (1 << 32) - 5, t_max, t_max - 1] {
                if t > t_max {
                    continue;
                }
                let tb = RoundTables::new(&moduli, &h, t).unwrap();
                for pattern in 0..4 {
                    let x: Vec<u64> = (0..l * n)
                        .map(|k| {
                            let q = primes[k / n];
                            match pattern {
                                0 => rng.gen_range(0..q),
                                1 => q - 1,
                                2 => [0, 1, q - 1, q / 2][k % 4],
                                _ => 0,
                            }
                        })
                        .collect();
                    let mut want = vec![0u64; n];
                    scalar(&tb, &x, &mut want);
                    if pattern == 0 {
                        assert_eq!(
                            want,
                            exact(&moduli, t, &x, n),
                            "{bits} bits, L = {l}, t = {t}"
                        );
                    }
                    for isa in [Isa::Avx512, Isa::Avx2] {
                        let mut got = vec![u64::MAX; n];
                        run(isa, &tb, &x, &mut got);
                        assert_eq!(
                            got, want,
                            "{isa}, {bits} bits, L = {l}, t = {t}, pattern {pattern}"
                        );
                    }
                }
            }
            // Out of range: t at or above a prime, or 4 L t >= 2^63.
            assert!(RoundTables::new(&moduli, &h, min_q).is_none());
            assert!(RoundTables::new(&moduli, &h, 1).is_none());
            if t_max < min_q - 1 {
                assert!(RoundTables::new(&moduli, &h, t_max + 1).is_none());
            }
        }
    }
}
