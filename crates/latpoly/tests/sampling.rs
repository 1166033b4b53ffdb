//! Samplers: determinism, ranges, exact distributions (chi-square goodness of fit at a fixed
//! seed), bad input, and properties.
//!
//! Every statistical test uses a fixed seed, so it is deterministic; the pass threshold is a
//! p-value above `1e-6`, so a correct sampler fails with probability about 1e-6 per test for a
//! *new* seed. The helper itself is tested: on known quantiles, and on deliberately biased
//! samplers, which it must reject. No test measures time.

use latpoly::rns::{Representation, RnsContext, RnsPoly};
use latpoly::sampling::{GaussianCdt, Sampler, MAX_BOUND, MAX_GAUSSIAN_SIGMA};
use latpoly::Error;
use num_bigint::BigInt;
use proptest::prelude::*;
use std::collections::HashMap;

/// Reject a fit when its p-value is below this.
const P_CRIT: f64 = 1e-6;

// ---------------------------------------------------------------------------------------------
// Chi-square machinery.
// ---------------------------------------------------------------------------------------------

/// `ln Gamma(x)` for `x > 0` (Lanczos, g = 7, 9 terms; relative error ~1e-15).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let a = C[0] + (1..9).map(|i| C[i] / (x + i as f64)).sum::<f64>();
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Regularised upper incomplete gamma function `Q(s, x)` (series below `s + 1`, Lentz's
/// continued fraction above).
fn gamma_q(s: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let log_prefactor = -x + s * x.ln() - ln_gamma(s);
    if x < s + 1.0 {
        let (mut term, mut sum) = (1.0 / s, 1.0 / s);
        for n in 1..1_000_000 {
            term *= x / (s + n as f64);
            sum += term;
            if term.abs() < sum.abs() * 1e-17 {
                break;
            }
        }
        1.0 - sum * log_prefactor.exp()
    } else {
        let tiny = 1e-300;
        let mut b = x + 1.0 - s;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1_000_000 {
            let an = -(i as f64) * (i as f64 - s);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        h * log_prefactor.exp()
    }
}

/// Upper tail `P(chi2_df >= stat)`.
fn chi2_sf(stat: f64, df: usize) -> f64 {
    gamma_q(df as f64 / 2.0, stat / 2.0)
}

/// Pearson's statistic for `observed` counts against bin probabilities `probs` (summing to 1).
/// Adjacent bins with expected count below 5 are merged. Returns `(statistic, df, p-value)`.
fn chi_square(observed: &[u64], probs: &[f64]) -> (f64, usize, f64) {
    assert_eq!(observed.len(), probs.len());
    let total_p: f64 = probs.iter().sum();
    assert!(
        (total_p - 1.0).abs() < 1e-9,
        "probabilities sum to {total_p}"
    );
    let n: u64 = observed.iter().sum();
    let mut groups: Vec<(f64, f64)> = Vec::new(); // (observed, expected)
    let (mut o, mut e) = (0.0, 0.0);
    for (&ob, &p) in observed.iter().zip(probs) {
        o += ob as f64;
        e += p * n as f64;
        if e >= 5.0 {
            groups.push((o, e));
            o = 0.0;
            e = 0.0;
        }
    }
    if e > 0.0 || o > 0.0 {
        let last = groups
            .last_mut()
            .expect("at least one bin with expected count >= 5");
        last.0 += o;
        last.1 += e;
    }
    assert!(groups.len() >= 2, "need at least two bins");
    let stat = groups.iter().map(|(o, e)| (o - e) * (o - e) / e).sum();
    let df = groups.len() - 1;
    (stat, df, chi2_sf(stat, df))
}

/// Asserts a good fit; also prints the statistic so failures are diagnosable.
fn assert_fits(what: &str, observed: &[u64], probs: &[f64]) {
    let (stat, df, p) = chi_square(observed, probs);
    println!("{what}: chi2 = {stat:.2}, df = {df}, p = {p:.3e}");
    assert!(
        p > P_CRIT,
        "{what}: chi2 = {stat:.2} with {df} df, p = {p:.3e} < {P_CRIT}"
    );
}

/// Counts of `values` over `lo..=hi`; panics on a value outside (the range tests are separate,
/// but a statistical test must not silently drop samples).
fn histogram(values: &[i64], lo: i64, hi: i64) -> Vec<u64> {
    let mut h = vec![0u64; (hi - lo + 1) as usize];
    for &v in values {
        assert!((lo..=hi).contains(&v), "value {v} outside {lo}..={hi}");
        h[(v - lo) as usize] += 1;
    }
    h
}

fn binomial(n: u64, k: u64) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Exact discrete Gaussian probabilities on `-t..=t` (f64; independent of the library's
/// fixed-point table). The mass beyond `t = ceil(14 sigma) + 10` is below f64 resolution.
fn gaussian_pmf(sigma: f64, t: i64) -> Vec<f64> {
    let w: Vec<f64> = (-t..=t)
        .map(|x| (-((x * x) as f64) / (2.0 * sigma * sigma)).exp())
        .collect();
    let s: f64 = w.iter().sum();
    w.into_iter().map(|v| v / s).collect()
}

fn seeded(tag: u8) -> Sampler {
    let mut seed = [0u8; 32];
    seed[0] = tag;
    seed[31] = 0xa5;
    Sampler::from_seed(seed)
}

// ---------------------------------------------------------------------------------------------
// The chi-square helper is itself tested.
// ---------------------------------------------------------------------------------------------

#[test]
fn chi2_helper_matches_known_quantiles() {
    // (statistic, df, upper-tail probability) from standard tables.
    let cases = [
        (3.841_459, 1, 0.05),
        (23.928_127, 1, 1e-6),
        (18.307_038, 10, 0.05),
        (2.558_212, 10, 0.99),
        (124.342_113, 100, 0.05),
        (29.588, 10, 1e-3),
        (35.564, 10, 1e-4),
        (1.0, 2, (-0.5f64).exp()),
    ];
    for (stat, df, want) in cases {
        let got = chi2_sf(stat, df);
        assert!(
            (got - want).abs() <= want * 2e-3,
            "chi2_sf({stat}, {df}) = {got}, want {want}"
        );
    }
    // Large df: the statistic at its mean has p ≈ 0.5.
    let p = chi2_sf(12288.0, 12288);
    assert!((p - 0.5).abs() < 0.01, "{p}");
    assert!((ln_gamma(10.0) - 362_880f64.ln()).abs() < 1e-12);
    assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
}

#[test]
fn chi2_helper_rejects_modulo_bias() {
    // The classic mistake: a random byte mod 17 (256 = 15 * 17 + 1, so 0 is 1/15 too likely).
    let mut s = seeded(100);
    let bytes = s.uniform(1_000_000, 256).unwrap();
    let mut obs = vec![0u64; 17];
    for b in bytes {
        obs[(b % 17) as usize] += 1;
    }
    let (_, _, p) = chi_square(&obs, &[1.0 / 17.0; 17]);
    assert!(p < P_CRIT, "modulo bias not detected, p = {p}");
    // ... while the real sampler on the same number of draws passes.
    let v = s.uniform(1_000_000, 17).unwrap();
    let mut good = vec![0u64; 17];
    v.iter().for_each(|&x| good[x as usize] += 1);
    assert_fits("uniform mod 17 (control)", &good, &[1.0 / 17.0; 17]);
}

#[test]
fn chi2_helper_rejects_wrong_gaussian_width() {
    // Samples at sigma = 3.3 must not pass as sigma = 3.19 (a 3% error in the width).
    let v = seeded(101).gaussian(500_000, 3.3).unwrap();
    let t = 60;
    let (_, _, p) = chi_square(&histogram(&v, -t, t), &gaussian_pmf(3.19, t));
    assert!(p < P_CRIT, "wrong sigma not detected, p = {p}");
}

#[test]
fn chi2_helper_rejects_wrong_cbd_and_biased_ternary() {
    let v = seeded(102).cbd(200_000, 2).unwrap();
    let probs: Vec<f64> = (-3..=3)
        .map(|x: i64| binomial(6, (3 + x) as u64) / 64.0)
        .collect();
    let (_, _, p) = chi_square(&histogram(&v, -3, 3), &probs);
    assert!(p < P_CRIT, "CBD(2) passed as CBD(3), p = {p}");

    // A ternary sampler with P(0) = 0.34 instead of 1/3.
    let u = seeded(103).uniform(300_000, 100).unwrap();
    let biased: Vec<i64> = u
        .iter()
        .map(|&r| {
            if r < 34 {
                0
            } else if r < 67 {
                1
            } else {
                -1
            }
        })
        .collect();
    let (_, _, p) = chi_square(&histogram(&biased, -1, 1), &[1.0 / 3.0; 3]);
    assert!(p < P_CRIT, "biased ternary not detected, p = {p}");
}

#[test]
fn chi2_helper_rejects_biased_fixed_weight_positions() {
    // 3% of the time the nonzeros are put first instead of at uniform positions.
    let mut s = seeded(104);
    let coin = s.uniform(100_000, 100).unwrap();
    let mut obs = vec![0u64; 10];
    for &c in &coin {
        let v = if c < 3 {
            vec![1, 1, 0, 0, 0]
        } else {
            s.ternary_fixed(5, 2).unwrap()
        };
        obs[subset_index(&v)] += 1;
    }
    let (_, _, p) = chi_square(&obs, &[0.1; 10]);
    assert!(p < P_CRIT, "positional bias not detected, p = {p}");
}

/// Index of the support of a length-5 weight-2 vector among the 10 subsets.
fn subset_index(v: &[i64]) -> usize {
    let mask: usize = v
        .iter()
        .enumerate()
        .filter(|(_, &x)| x != 0)
        .map(|(i, _)| 1 << i)
        .sum();
    let subsets: Vec<usize> = (0..32usize).filter(|m| m.count_ones() == 2).collect();
    subsets.iter().position(|&m| m == mask).expect("weight 2")
}

// ---------------------------------------------------------------------------------------------
// Determinism and seeding.
// ---------------------------------------------------------------------------------------------

/// One output of every sampler, for stream comparisons.
fn everything(s: &mut Sampler, ctx: &std::sync::Arc<RnsContext>) -> Vec<i128> {
    let mut out: Vec<i128> = Vec::new();
    out.extend(s.uniform(50, 12289).unwrap().into_iter().map(i128::from));
    out.extend(s.uniform(50, u64::MAX).unwrap().into_iter().map(i128::from));
    out.extend(s.bounded(50, 1 << 40).unwrap().into_iter().map(i128::from));
    out.extend(s.cbd(50, 3).unwrap().into_iter().map(i128::from));
    out.extend(s.gaussian(50, 3.19).unwrap().into_iter().map(i128::from));
    out.extend(s.ternary(50).unwrap().into_iter().map(i128::from));
    out.extend(s.ternary_fixed(50, 10).unwrap().into_iter().map(i128::from));
    out.extend(
        s.uniform_poly(ctx)
            .residues()
            .iter()
            .map(|&x| i128::from(x)),
    );
    out.extend(
        s.uniform_poly_ntt(ctx)
            .residues()
            .iter()
            .map(|&x| i128::from(x)),
    );
    out.extend(
        s.gaussian_poly(ctx, 10.0)
            .unwrap()
            .residues()
            .iter()
            .map(|&x| i128::from(x)),
    );
    out
}

#[test]
fn same_seed_same_stream_different_seed_different_stream() {
    let ctx = RnsContext::with_prime_bits(16, 50, 2).unwrap();
    let a = everything(&mut Sampler::from_seed([7; 32]), &ctx);
    let b = everything(&mut Sampler::from_seed([7; 32]), &ctx);
    assert_eq!(a, b);
    let mut seed = [7; 32];
    seed[17] ^= 1; // one bit
    let c = everything(&mut Sampler::from_seed(seed), &ctx);
    assert_eq!(a.len(), c.len());
    let same = a.iter().zip(&c).filter(|(x, y)| x == y).count();
    // Only coincidences of small-range values can agree.
    assert!(same < a.len() / 2, "{same} of {} equal", a.len());
    // The two uniform-mod-2^64 blocks must differ everywhere (collision probability 50 * 2^-64).
    assert!(a[50..100].iter().zip(&c[50..100]).all(|(x, y)| x != y));
}

#[test]
fn sampler_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Sampler>();
    check::<GaussianCdt>();
}

#[test]
fn os_seeded_samplers_work_and_differ() {
    let mut a = Sampler::new();
    let mut b = Sampler::default();
    let x = a.uniform(8, u64::MAX).unwrap();
    let y = b.uniform(8, u64::MAX).unwrap();
    assert_ne!(x, y);
    assert!(a.gaussian(100, 3.19).unwrap().iter().all(|v| v.abs() <= 45));
    assert_eq!(format!("{a:?}"), "Sampler { .. }"); // never prints the state
}

#[test]
fn stream_is_stable_across_versions() {
    // Known answers: a change here breaks reproducibility for every user of from_seed.
    let mut s = Sampler::from_seed([0; 32]);
    let got = (
        s.uniform(4, 12289).unwrap(),
        s.bounded(4, 1000).unwrap(),
        s.cbd(4, 2).unwrap(),
        s.gaussian(4, 3.19).unwrap(),
        s.ternary(4).unwrap(),
        s.ternary_fixed(6, 3).unwrap(),
    );
    let want = KNOWN_ANSWERS;
    assert_eq!(got.0, want.0);
    assert_eq!(got.1, want.1);
    assert_eq!(got.2, want.2);
    assert_eq!(got.3, want.3);
    assert_eq!(got.4, want.4);
    assert_eq!(got.5, want.5);
}

type Answers = ([u64; 4], [i64; 4], [i64; 4], [i64; 4], [i64; 4], [i64; 6]);
const KNOWN_ANSWERS: Answers = (
    [6924, 1292, 6782, 1374],
    [-45, -177, -474, -454],
    [-1, 0, -1, -1],
    [0, -6, 0, 3],
    [-1, 0, 1, -1],
    [0, 1, 0, -1, 1, 0],
);

#[test]
fn first_uniform_value_follows_the_chacha20_test_vector() {
    // Keystream of ChaCha20 with the all-zero key and nonce, block 0 (Bernstein's test vector,
    // also RFC 7539 A.1): 76 b8 e0 ad a0 f1 3d 90 | 40 5d 6a e5 53 86 bd 28 ...
    // The sampler reads it as little-endian words hi, lo and outputs floor((hi:lo) q / 2^128).
    let hi = u64::from_le_bytes([0x76, 0xb8, 0xe0, 0xad, 0xa0, 0xf1, 0x3d, 0x90]);
    let lo = u64::from_le_bytes([0x40, 0x5d, 0x6a, 0xe5, 0x53, 0x86, 0xbd, 0x28]);
    for q in [12289u64, 3, u64::MAX, (1 << 62) - 57] {
        let x = num_bigint::BigUint::from((hi as u128) << 64 | lo as u128);
        let want = u64::try_from((x * q) >> 128u32).unwrap();
        assert_eq!(
            Sampler::from_seed([0; 32]).uniform(1, q).unwrap(),
            vec![want]
        );
    }
}

#[test]
fn fill_variants_match_allocating_variants() {
    let (mut a, mut b) = (seeded(1), seeded(1));
    let mut buf = vec![0u64; 100];
    b.fill_uniform(&mut buf, 999).unwrap();
    assert_eq!(a.uniform(100, 999).unwrap(), buf);
    let mut ibuf = vec![0i64; 100];
    b.fill_bounded(&mut ibuf, 77).unwrap();
    assert_eq!(a.bounded(100, 77).unwrap(), ibuf);
    b.fill_cbd(&mut ibuf, 5).unwrap();
    assert_eq!(a.cbd(100, 5).unwrap(), ibuf);
    b.fill_ternary(&mut ibuf);
    assert_eq!(a.ternary(100).unwrap(), ibuf);
    b.fill_ternary_fixed(&mut ibuf, 31).unwrap();
    assert_eq!(a.ternary_fixed(100, 31).unwrap(), ibuf);
    let t = GaussianCdt::new(2.5).unwrap();
    b.fill_gaussian(&t, &mut ibuf);
    assert_eq!(a.gaussian(100, 2.5).unwrap(), ibuf);
    assert_eq!(
        a.gaussian_with(&t, 100).unwrap(),
        b.gaussian(100, 2.5).unwrap()
    );
}

fn centered(p: &RnsPoly) -> Vec<BigInt> {
    p.to_centered_bigints()
}

fn as_big(v: &[i64]) -> Vec<BigInt> {
    v.iter().map(|&x| BigInt::from(x)).collect()
}

#[test]
fn poly_variants_match_vector_variants() {
    let ctx = RnsContext::with_prime_bits(64, 60, 3).unwrap(); // Q ~ 2^180 > 2 * 2^62
    let (mut a, mut b) = (seeded(2), seeded(2));
    assert_eq!(
        centered(&a.gaussian_poly(&ctx, 3.19).unwrap()),
        as_big(&b.gaussian(64, 3.19).unwrap())
    );
    assert_eq!(
        centered(&a.cbd_poly(&ctx, 4).unwrap()),
        as_big(&b.cbd(64, 4).unwrap())
    );
    assert_eq!(
        centered(&a.ternary_poly(&ctx)),
        as_big(&b.ternary(64).unwrap())
    );
    assert_eq!(
        centered(&a.ternary_fixed_poly(&ctx, 9).unwrap()),
        as_big(&b.ternary_fixed(64, 9).unwrap())
    );
    assert_eq!(
        centered(&a.bounded_poly(&ctx, MAX_BOUND).unwrap()),
        as_big(&b.bounded(64, MAX_BOUND).unwrap())
    );
    // Uniform: limb i holds the next 64 uniform values mod q_i.
    let p = a.uniform_poly(&ctx);
    assert_eq!(p.representation(), Representation::Coefficient);
    for (i, &q) in ctx.moduli().iter().enumerate() {
        assert_eq!(p.limb(i), &b.uniform(64, q).unwrap()[..]);
    }
    let p = a.uniform_poly_ntt(&ctx);
    assert_eq!(p.representation(), Representation::Ntt);
    for (i, &q) in ctx.moduli().iter().enumerate() {
        assert_eq!(p.limb(i), &b.uniform(64, q).unwrap()[..]);
    }
}

#[test]
fn poly_reduction_matches_from_i64s_for_small_primes() {
    // B >> q: the branch-free reduction must agree with RnsPoly::from_i64s.
    let ctx = RnsContext::with_prime_bits(8, 14, 2).unwrap();
    for bound in [0u64, 1, 100, 1 << 20, 1 << 40, MAX_BOUND] {
        let (mut a, mut b) = (seeded(3), seeded(3));
        let p = a.bounded_poly(&ctx, bound).unwrap();
        let want = RnsPoly::from_i64s(&ctx, &b.bounded(8, bound).unwrap()).unwrap();
        assert_eq!(p.residues(), want.residues(), "bound {bound}");
    }
}

// ---------------------------------------------------------------------------------------------
// Ranges.
// ---------------------------------------------------------------------------------------------

#[test]
fn uniform_values_are_below_q() {
    let mut s = seeded(10);
    for q in [
        1u64,
        2,
        3,
        12289,
        (1 << 62) - 57,
        1 << 63,
        (1 << 32) + 1,
        u64::MAX,
    ] {
        let v = s.uniform(5000, q).unwrap();
        assert!(v.iter().all(|&x| x < q), "q = {q}");
        if q == 1 {
            assert!(v.iter().all(|&x| x == 0));
        }
        if q >= 3 {
            // The whole range is reached: both the bottom and the top eighth appear.
            assert!(v.iter().any(|&x| x < q / 8 + 1) && v.iter().any(|&x| x >= q - q / 8 - 1));
        }
    }
    // q = 2^64 - 1: the top bit is used.
    let v = s.uniform(64, u64::MAX).unwrap();
    assert!(v.iter().any(|&x| x >> 63 == 1));
    assert!(s.uniform(0, 5).unwrap().is_empty());
}

#[test]
fn bounded_values_are_within_bound() {
    let mut s = seeded(11);
    assert_eq!(s.bounded(100, 0).unwrap(), vec![0; 100]);
    for b in [1u64, 2, 1000, 1 << 40, MAX_BOUND - 1, MAX_BOUND] {
        let v = s.bounded(5000, b).unwrap();
        let b = b as i64;
        assert!(v.iter().all(|&x| -b <= x && x <= b), "B = {b}");
        assert!(
            v.iter().any(|&x| x < -b / 2) && v.iter().any(|&x| x > b / 2),
            "B = {b}"
        );
    }
    let v = s.bounded(1000, 1).unwrap();
    assert!(v.contains(&-1) && v.contains(&0) && v.contains(&1));
}

#[test]
fn cbd_values_are_within_eta() {
    let mut s = seeded(12);
    for eta in 1..=32u32 {
        let v = s.cbd(2000, eta).unwrap();
        let e = eta as i64;
        assert!(v.iter().all(|&x| -e <= x && x <= e), "eta = {eta}");
    }
    // eta = 1: exactly {-1, 0, 1}, all three reached.
    let v = s.cbd(200, 1).unwrap();
    assert!(v.contains(&-1) && v.contains(&0) && v.contains(&1));
}

#[test]
fn ternary_values_are_ternary() {
    let v = seeded(13).ternary(10_000).unwrap();
    assert!(v.iter().all(|x| (-1..=1).contains(x)));
    assert!(seeded(13).ternary(0).unwrap().is_empty());
    assert!(seeded(13).ternary(usize::MAX / 8).is_err());
}

#[test]
fn fixed_weight_has_exact_weight() {
    let mut s = seeded(14);
    for n in [0usize, 1, 2, 7, 64, 1000, 4096] {
        for w in [0, 1, n / 3, n / 2, n.saturating_sub(1), n] {
            if w > n {
                continue;
            }
            for _ in 0..3 {
                let v = s.ternary_fixed(n, w).unwrap();
                assert_eq!(v.len(), n);
                assert!(v.iter().all(|x| (-1..=1).contains(x)));
                assert_eq!(v.iter().filter(|&&x| x != 0).count(), w, "n = {n}, w = {w}");
            }
        }
    }
    assert_eq!(s.ternary_fixed(5, 0).unwrap(), vec![0; 5]);
    assert!(s.ternary_fixed(5, 5).unwrap().iter().all(|x| x.abs() == 1));
}

#[test]
fn gaussian_values_are_within_the_tail_cut() {
    let mut s = seeded(15);
    for sigma in [1e-9, 0.1, 0.5, 1.0, 3.19, 10.0, 100.0] {
        let t = GaussianCdt::new(sigma).unwrap();
        let v = s.gaussian(5000, sigma).unwrap();
        let cut = t.tail_cut() as i64;
        assert_eq!(cut, ((14.0 * sigma).ceil() as i64).max(1));
        assert!(v.iter().all(|&x| x.abs() <= cut), "sigma = {sigma}");
    }
    // A tiny sigma gives 0 (P(x != 0) < 2^-128).
    assert!(s.gaussian(1000, 1e-9).unwrap().iter().all(|&x| x == 0));
}

// ---------------------------------------------------------------------------------------------
// Distributions (chi-square goodness of fit against exact probabilities).
// ---------------------------------------------------------------------------------------------

#[test]
fn uniform_mod_17_fits() {
    let v = seeded(20).uniform(340_000, 17).unwrap();
    let mut obs = vec![0u64; 17];
    v.iter().for_each(|&x| obs[x as usize] += 1);
    assert_fits("uniform mod 17", &obs, &[1.0 / 17.0; 17]);
}

#[test]
fn uniform_mod_12289_fits_per_value_and_bucketed() {
    let q = 12289u64;
    let v = seeded(21).uniform(1_500_000, q).unwrap();
    let mut obs = vec![0u64; q as usize];
    v.iter().for_each(|&x| obs[x as usize] += 1);
    assert_fits(
        "uniform mod 12289, per value",
        &obs,
        &vec![1.0 / q as f64; q as usize],
    );
    // 64 buckets of consecutive values (sizes 192 or 193), exact expected probabilities.
    let bucket = |x: u64| (x * 64 / q) as usize;
    let mut sizes = vec![0u64; 64];
    (0..q).for_each(|x| sizes[bucket(x)] += 1);
    let probs: Vec<f64> = sizes.iter().map(|&c| c as f64 / q as f64).collect();
    let mut b = vec![0u64; 64];
    v.iter().for_each(|&x| b[bucket(x)] += 1);
    assert_fits("uniform mod 12289, 64 buckets", &b, &probs);
}

#[test]
fn uniform_large_moduli_fit_in_16_buckets() {
    for (tag, q) in [
        (22u8, (1u64 << 62) - 57),
        (23, u64::MAX),
        (24, (1 << 63) + 12345),
    ] {
        let v = seeded(tag).uniform(200_000, q).unwrap();
        let mut obs = vec![0u64; 16];
        v.iter()
            .for_each(|&x| obs[(x as u128 * 16 / q as u128) as usize] += 1);
        // Bucket sizes differ by at most one value out of ~2^60: probabilities 1/16 to 1e-17.
        assert_fits(
            &format!("uniform mod {q}, 16 buckets"),
            &obs,
            &[1.0 / 16.0; 16],
        );
        // Low bits too (catches a sampler that only randomises high bits).
        let mut low = vec![0u64; 16];
        v.iter().for_each(|&x| low[(x % 16) as usize] += 1);
        assert_fits(
            &format!("uniform mod {q}, low 4 bits"),
            &low,
            &[1.0 / 16.0; 16],
        );
    }
}

#[test]
fn bounded_fits() {
    let v = seeded(25).bounded(220_000, 5).unwrap();
    assert_fits("bounded B=5", &histogram(&v, -5, 5), &[1.0 / 11.0; 11]);
    let v = seeded(26).bounded(600_000, 1000).unwrap();
    assert_fits(
        "bounded B=1000",
        &histogram(&v, -1000, 1000),
        &vec![1.0 / 2001.0; 2001],
    );
    // B = 2^62: sign and magnitude buckets.
    let v = seeded(27).bounded(200_000, MAX_BOUND).unwrap();
    let mut obs = vec![0u64; 8];
    let b = MAX_BOUND as i128;
    v.iter()
        .for_each(|&x| obs[((x as i128 + b) * 8 / (2 * b + 1)) as usize] += 1);
    assert_fits("bounded B=2^62, 8 buckets", &obs, &[1.0 / 8.0; 8]);
}

#[test]
fn cbd_fits_exact_binomial() {
    for (tag, eta) in [(30u8, 1u32), (31, 2), (32, 3), (33, 8), (34, 21), (35, 32)] {
        let v = seeded(tag).cbd(300_000, eta).unwrap();
        let e = eta as i64;
        let probs: Vec<f64> = (-e..=e)
            .map(|x| binomial(2 * eta as u64, (e + x) as u64) / 4f64.powi(eta as i32))
            .collect();
        assert_fits(&format!("CBD({eta})"), &histogram(&v, -e, e), &probs);
        let var = v.iter().map(|&x| (x * x) as f64).sum::<f64>() / v.len() as f64;
        // Var = eta/2; standard error of the sample variance ~ sqrt(Var(X^2)/N) < eta/300.
        assert!(
            (var - eta as f64 / 2.0).abs() < 5.0 * eta as f64 / 300.0,
            "eta {eta}: {var}"
        );
    }
}

#[test]
fn ternary_fits() {
    let v = seeded(40).ternary(300_000).unwrap();
    assert_fits("ternary", &histogram(&v, -1, 1), &[1.0 / 3.0; 3]);
    // Consecutive pairs are independent: 9 outcomes, 1/9 each.
    let pairs: Vec<i64> = v
        .chunks_exact(2)
        .map(|p| (p[0] + 1) * 3 + (p[1] + 1))
        .collect();
    assert_fits("ternary pairs", &histogram(&pairs, 0, 8), &[1.0 / 9.0; 9]);
}

#[test]
fn fixed_weight_subsets_and_signs_are_uniform() {
    // n = 5, w = 2: 10 supports x 4 sign patterns, each 1/40.
    let mut s = seeded(41);
    let mut obs = vec![0u64; 40];
    for _ in 0..200_000 {
        let v = s.ternary_fixed(5, 2).unwrap();
        let signs: Vec<usize> = v
            .iter()
            .filter(|&&x| x != 0)
            .map(|&x| (x > 0) as usize)
            .collect();
        obs[subset_index(&v) * 4 + signs[0] * 2 + signs[1]] += 1;
    }
    assert_fits(
        "fixed weight n=5 w=2: support and signs",
        &obs,
        &[1.0 / 40.0; 40],
    );

    // n = 6, w = 3: 20 supports, 8 sign patterns.
    let mut obs = HashMap::new();
    for _ in 0..320_000 {
        *obs.entry(s.ternary_fixed(6, 3).unwrap()).or_insert(0u64) += 1;
    }
    assert_eq!(obs.len(), 160, "every pattern occurs");
    let counts: Vec<u64> = obs.values().copied().collect();
    assert_fits(
        "fixed weight n=6 w=3: all patterns",
        &counts,
        &[1.0 / 160.0; 160],
    );
}

#[test]
fn fixed_weight_positions_have_probability_w_over_n() {
    let (n, w, trials) = (64usize, 20usize, 30_000u64);
    let mut s = seeded(42);
    let mut hits = vec![0u64; n];
    let (mut plus, mut minus) = (0u64, 0u64);
    for _ in 0..trials {
        for (i, &x) in s.ternary_fixed(n, w).unwrap().iter().enumerate() {
            hits[i] += (x != 0) as u64;
            plus += (x == 1) as u64;
            minus += (x == -1) as u64;
        }
    }
    // Position indicators: each Bernoulli(p), pairwise covariance -p(1-p)/(n-1), so
    // sum (c_i - E)^2 / (E (1 - p) n / (n - 1)) ~ chi2 with n - 1 df.
    let p = w as f64 / n as f64;
    let e = trials as f64 * p;
    let stat: f64 = hits.iter().map(|&c| (c as f64 - e).powi(2)).sum::<f64>()
        / (e * (1.0 - p) * n as f64 / (n - 1) as f64);
    let pv = chi2_sf(stat, n - 1);
    println!("positions: stat = {stat:.2}, p = {pv:.3e}");
    assert!(pv > P_CRIT, "positions: p = {pv}");
    // Signs: plus ~ Binomial(trials * w, 1/2).
    assert_eq!(plus + minus, trials * w as u64);
    assert_fits("fixed weight signs", &[plus, minus], &[0.5, 0.5]);
}

fn check_gaussian(tag: u8, sigma: f64, n: usize) {
    let v = seeded(tag).gaussian(n, sigma).unwrap();
    let t = (14.0 * sigma).ceil() as i64 + 10;
    let pmf = gaussian_pmf(sigma, t);
    // Central bins |x| <= ceil(4 sigma) one by one, and the two tails as single bins.
    let k = (4.0 * sigma).ceil() as i64;
    let full = histogram(&v, -t, t);
    let idx = |x: i64| (x + t) as usize;
    let mut obs = vec![full[..idx(-k)].iter().sum::<u64>()];
    let mut probs = vec![pmf[..idx(-k)].iter().sum::<f64>()];
    obs.extend_from_slice(&full[idx(-k)..=idx(k)]);
    probs.extend_from_slice(&pmf[idx(-k)..=idx(k)]);
    obs.push(full[idx(k) + 1..].iter().sum());
    probs.push(pmf[idx(k) + 1..].iter().sum());
    assert_fits(&format!("gaussian sigma={sigma}"), &obs, &probs);

    // Mean 0 and the exact variance (≈ sigma^2), within 5 standard errors.
    let var_exact: f64 = (-t..=t).map(|x| (x * x) as f64 * pmf[idx(x)]).sum();
    let kurt_exact: f64 = (-t..=t).map(|x| (x as f64).powi(4) * pmf[idx(x)]).sum();
    let nf = n as f64;
    let mean = v.iter().sum::<i64>() as f64 / nf;
    let var = v.iter().map(|&x| (x * x) as f64).sum::<f64>() / nf;
    let se_mean = (var_exact / nf).sqrt();
    let se_var = ((kurt_exact - var_exact * var_exact) / nf).sqrt();
    println!("sigma={sigma}: mean {mean:.4} (se {se_mean:.4}), var {var:.4} vs {var_exact:.4} (se {se_var:.4})");
    assert!(mean.abs() < 5.0 * se_mean, "mean {mean}");
    assert!(
        (var - var_exact).abs() < 5.0 * se_var,
        "variance {var} vs {var_exact}"
    );
    if sigma >= 2.0 {
        assert!((var_exact - sigma * sigma).abs() < 1e-6 * sigma * sigma);
    }
}

#[test]
fn gaussian_3_19_fits() {
    check_gaussian(50, 3.19, 600_000);
}

#[test]
fn gaussian_10_fits() {
    check_gaussian(51, 10.0, 600_000);
}

#[test]
fn gaussian_small_sigma_fits() {
    // Far from the continuous regime: the variance is not sigma^2 here.
    check_gaussian(52, 0.5, 300_000);
    check_gaussian(53, 1.0, 300_000);
}

#[test]
fn gaussian_table_matches_exact_probabilities() {
    for sigma in [0.05, 0.3, 1.0, 3.19, 10.0, 100.0] {
        let table = GaussianCdt::new(sigma).unwrap();
        let t = table.tail_cut() as i64;
        let pmf = gaussian_pmf(sigma, t + 10);
        for x in -t - 10..=t + 10 {
            let want = pmf[(x + t + 10) as usize];
            let got = table.probability(x);
            // f64 reference: relative 1e-12, plus the 2^-128 table resolution.
            assert!(
                (got - want).abs() <= want * 1e-12 + 1e-38,
                "sigma {sigma}, x {x}: {got} vs {want}"
            );
        }
        let total: f64 = (-t..=t).map(|x| table.probability(x)).sum();
        assert!((total - 1.0).abs() < 1e-12);
        assert_eq!(table.probability(t + 1), 0.0);
    }
}

#[test]
fn gaussian_largest_sigma_works() {
    let table = GaussianCdt::new(MAX_GAUSSIAN_SIGMA).unwrap();
    assert_eq!(table.tail_cut(), 57_344);
    assert_eq!(table.len(), 57_344);
    let v = seeded(54).gaussian_with(&table, 3000).unwrap();
    let var = v.iter().map(|&x| (x * x) as f64).sum::<f64>() / 3000.0;
    let s2 = MAX_GAUSSIAN_SIGMA * MAX_GAUSSIAN_SIGMA;
    // Standard error of the variance is s2 * sqrt(2 / 3000) ≈ 0.026 s2.
    assert!((var - s2).abs() < 0.13 * s2, "{var} vs {s2}");
    assert!(v.iter().all(|x| x.unsigned_abs() <= 57_344));
}

// ---------------------------------------------------------------------------------------------
// Bad input.
// ---------------------------------------------------------------------------------------------

fn is_invalid_argument<T: std::fmt::Debug>(r: Result<T, Error>) -> bool {
    matches!(r, Err(Error::InvalidArgument(_)))
}

#[test]
fn bad_input_is_an_error() {
    let mut s = seeded(60);
    let ctx = RnsContext::with_prime_bits(16, 40, 2).unwrap();
    assert!(matches!(
        s.uniform(4, 0),
        Err(Error::InvalidModulus { q: 0, .. })
    ));
    assert!(s.fill_uniform(&mut [0; 4], 0).is_err());
    for eta in [0, 33, 64, u32::MAX] {
        assert!(is_invalid_argument(s.cbd(4, eta)), "eta {eta}");
        assert!(is_invalid_argument(s.fill_cbd(&mut [0; 4], eta)));
        assert!(is_invalid_argument(s.cbd_poly(&ctx, eta)));
    }
    let bad_sigmas = [
        0.0,
        -0.0,
        -1.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        MAX_GAUSSIAN_SIGMA * (1.0 + f64::EPSILON),
        1e300,
    ];
    for sigma in bad_sigmas {
        assert!(is_invalid_argument(s.gaussian(4, sigma)), "sigma {sigma}");
        assert!(is_invalid_argument(GaussianCdt::new(sigma)));
        assert!(is_invalid_argument(s.gaussian_poly(&ctx, sigma)));
    }
    assert!(GaussianCdt::new(f64::MIN_POSITIVE).is_ok()); // tiny but valid
    for (n, w) in [(0usize, 1usize), (3, 4), (16, 17), (1, usize::MAX)] {
        assert!(is_invalid_argument(s.ternary_fixed(n, w)), "n {n} w {w}");
    }
    assert!(is_invalid_argument(s.fill_ternary_fixed(&mut [0; 3], 4)));
    assert!(is_invalid_argument(s.ternary_fixed_poly(&ctx, 17)));
    for b in [MAX_BOUND + 1, u64::MAX] {
        assert!(is_invalid_argument(s.bounded(4, b)));
        assert!(is_invalid_argument(s.fill_bounded(&mut [0; 4], b)));
        assert!(is_invalid_argument(s.bounded_poly(&ctx, b)));
    }
    // Impossible allocations are errors, not aborts.
    assert!(s.uniform(usize::MAX, 5).is_err());
    assert!(s.bounded(usize::MAX / 2, 5).is_err());
    assert!(s.cbd(usize::MAX / 4, 2).is_err());
    assert!(s.gaussian(usize::MAX / 8, 3.19).is_err());
    assert!(s.ternary_fixed(usize::MAX, 3).is_err());
    // The sampler still works after errors.
    assert_eq!(s.uniform(3, 1).unwrap(), vec![0; 3]);
}

// ---------------------------------------------------------------------------------------------
// Properties.
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn prop_uniform_below_q(seed in any::<[u8; 32]>(), n in 0usize..300, q in 1u64..=u64::MAX) {
        let v = Sampler::from_seed(seed).uniform(n, q).unwrap();
        prop_assert_eq!(v.len(), n);
        prop_assert!(v.iter().all(|&x| x < q));
        prop_assert_eq!(v, Sampler::from_seed(seed).uniform(n, q).unwrap());
    }

    #[test]
    fn prop_small_q_uniform_below_q(seed in any::<[u8; 32]>(), q in 1u64..40) {
        let v = Sampler::from_seed(seed).uniform(200, q).unwrap();
        prop_assert!(v.iter().all(|&x| x < q));
    }

    #[test]
    fn prop_bounded_within(seed in any::<[u8; 32]>(), b in 0u64..=MAX_BOUND, n in 0usize..300) {
        let v = Sampler::from_seed(seed).bounded(n, b).unwrap();
        prop_assert!(v.iter().all(|&x| x.unsigned_abs() <= b));
    }

    #[test]
    fn prop_cbd_within(seed in any::<[u8; 32]>(), eta in 1u32..=32, n in 0usize..300) {
        let v = Sampler::from_seed(seed).cbd(n, eta).unwrap();
        prop_assert!(v.iter().all(|&x| x.unsigned_abs() <= eta as u64));
    }

    #[test]
    fn prop_fixed_weight_exact(seed in any::<[u8; 32]>(), n in 0usize..400, frac in 0.0f64..=1.0) {
        let w = ((n as f64) * frac) as usize;
        let v = Sampler::from_seed(seed).ternary_fixed(n, w).unwrap();
        prop_assert_eq!(v.len(), n);
        prop_assert!(v.iter().all(|x| (-1..=1).contains(x)));
        prop_assert_eq!(v.iter().filter(|&&x| x != 0).count(), w);
    }

    #[test]
    fn prop_gaussian_within_tail(seed in any::<[u8; 32]>(), sigma in 0.01f64..60.0) {
        let v = Sampler::from_seed(seed).gaussian(100, sigma).unwrap();
        let cut = (14.0 * sigma).ceil() as u64;
        prop_assert!(v.iter().all(|&x| x.unsigned_abs() <= cut.max(1)));
    }

    #[test]
    fn prop_poly_reduction_matches_reference(
        seed in any::<[u8; 32]>(),
        b in 0u64..=MAX_BOUND,
        bits in 14u32..=62,
        count in 1usize..=3,
    ) {
        let ctx = RnsContext::with_prime_bits(16, bits, count).unwrap();
        let p = Sampler::from_seed(seed).bounded_poly(&ctx, b).unwrap();
        let v = Sampler::from_seed(seed).bounded(16, b).unwrap();
        for (i, &q) in ctx.moduli().iter().enumerate() {
            let want: Vec<u64> = v.iter().map(|&x| (x as i128).rem_euclid(q as i128) as u64).collect();
            prop_assert_eq!(p.limb(i), &want[..]);
        }
    }

    #[test]
    fn prop_uniform_poly_residues_in_range(seed in any::<[u8; 32]>(), bits in 14u32..=62, count in 1usize..=4) {
        let ctx = RnsContext::with_prime_bits(32, bits, count).unwrap();
        let p = Sampler::from_seed(seed).uniform_poly(&ctx);
        for (i, &q) in ctx.moduli().iter().enumerate() {
            prop_assert!(p.limb(i).iter().all(|&x| x < q));
        }
    }
}
