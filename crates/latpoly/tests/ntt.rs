//! Negacyclic NTT against the schoolbook product, over every power of two n in 2..=4096 and primes
//! at each lane's edge, in u16, u32 and u64 lanes; order, range and bad-input contracts.

use latpoly::arith::Word;
use latpoly::ntt::{bit_reverse, Plan};
use latpoly::primes::ntt_primes;
use latpoly::reference::negacyclic_mul;
use latpoly::{Error, NttPlan, NttPlan16, NttPlan32};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// Largest prime of exactly `bits` bits that supports size n, if any.
fn edge_prime(bits: u32, n: usize) -> Option<u64> {
    ntt_primes(bits, n, 1).ok().map(|v| v[0])
}

/// The lane/prime grid of the acceptance criteria: (lane bits, prime bits).
const GRID: [(u32, u32); 6] = [(64, 62), (64, 50), (64, 30), (32, 30), (16, 14), (64, 14)];

fn to_w<W: Word>(v: &[u64]) -> Vec<W> {
    v.iter().map(|&x| W::from_u64(x)).collect()
}

fn to_u64<W: Word>(v: &[W]) -> Vec<u64> {
    v.iter().map(|x| x.to_u64()).collect()
}

/// Checks multiply, round trip and ranges of one plan on one pair of inputs.
fn check_plan<W: Word>(plan: &Plan<W>, a: &[u64], b: &[u64]) {
    let q = plan.q().to_u64();
    let want = negacyclic_mul(a, b, q).unwrap();
    let (wa, wb) = (to_w::<W>(a), to_w::<W>(b));
    let got = plan.multiply(&wa, &wb).unwrap();
    assert_eq!(to_u64(&got), want, "product n={} q={q}", plan.n());
    // The same product into caller memory (out and scratch start as junk).
    let n = plan.n();
    let (mut out, mut scratch) = (vec![W::from_u64(q - 1); n], vec![W::from_u64(1); n]);
    plan.multiply_into(&wa, &wb, &mut out, &mut scratch)
        .unwrap();
    assert_eq!(to_u64(&out), want, "multiply_into n={n} q={q}");

    // Strict round trip.
    let mut x = wa.clone();
    plan.forward(&mut x).unwrap();
    assert!(x.iter().all(|v| v.to_u64() < q));
    let fwd = to_u64(&x);
    plan.inverse(&mut x).unwrap();
    assert_eq!(x, wa);

    // Lazy forward is congruent and below 4q; lazy inverse below 2q.
    let mut y = wa.clone();
    plan.forward_lazy(&mut y).unwrap();
    assert!(y.iter().all(|v| v.to_u64() < 4 * q));
    assert_eq!(to_u64(&y).iter().map(|v| v % q).collect::<Vec<_>>(), fwd);
    // Feed [0, 2q) values to the inverse: fold [0,4q) -> [0,2q) by hand.
    for v in y.iter_mut() {
        if v.to_u64() >= 2 * q {
            *v = W::from_u64(v.to_u64() - 2 * q);
        }
    }
    plan.inverse_lazy(&mut y).unwrap();
    assert!(y.iter().all(|v| v.to_u64() < 2 * q));
    assert_eq!(to_u64(&y).iter().map(|v| v % q).collect::<Vec<_>>(), a);
}

fn random_poly(rng: &mut ChaCha20Rng, n: usize, q: u64) -> Vec<u64> {
    (0..n).map(|_| rng.gen_range(0..q)).collect()
}

fn run_grid_for<W: Word>(n: usize, prime_bits: u32, rng: &mut ChaCha20Rng) -> bool {
    let Some(q) = edge_prime(prime_bits, n) else {
        return false;
    };
    let plan = Plan::<W>::new(n, q).unwrap();
    let zero = vec![0u64; n];
    let max = vec![q - 1; n];
    check_plan(&plan, &zero, &max);
    check_plan(&plan, &max, &max);
    let trials = if n >= 2048 { 1 } else { 3 };
    for _ in 0..trials {
        let a = random_poly(rng, n, q);
        let b = random_poly(rng, n, q);
        check_plan(&plan, &a, &b);
    }
    true
}

#[test]
fn every_n_every_lane_edge_prime() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let mut ran = 0;
    let mut skipped = Vec::new();
    for log_n in 1..=12 {
        let n = 1usize << log_n;
        for (lane, bits) in GRID {
            let ok = match lane {
                16 => run_grid_for::<u16>(n, bits, &mut rng),
                32 => run_grid_for::<u32>(n, bits, &mut rng),
                _ => run_grid_for::<u64>(n, bits, &mut rng),
            };
            if ok {
                ran += 1;
            } else {
                skipped.push((n, lane, bits));
            }
        }
    }
    // 14-bit primes that are 1 mod 2n exist only up to n = 2048 (12289 = 3 * 2^12 + 1).
    println!("ran {ran} (n, lane, prime) cases; no prime exists for {skipped:?}");
    assert!(skipped.iter().all(|&(n, _, bits)| bits == 14 && n == 4096));
    assert_eq!(ran, 12 * GRID.len() - skipped.len());
}

#[test]
fn largest_n_round_trip() {
    let n = 1 << 17;
    let q = edge_prime(62, n).unwrap();
    let plan = NttPlan::new(n, q).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let a = random_poly(&mut rng, n, q);
    let mut x = a.clone();
    plan.forward(&mut x).unwrap();
    plan.inverse(&mut x).unwrap();
    assert_eq!(x, a);
    // x * 1 = x and x * x^(n-1) = -x shifted: check a monomial product at full size.
    let mut mono = vec![0u64; n];
    mono[1] = 1;
    let c = plan.multiply(&a, &mono).unwrap();
    assert_eq!(c[0], (q - a[n - 1]) % q);
    assert_eq!(&c[1..], &a[..n - 1]);
}

/// Output index i holds a(psi^(2 brv(i) + 1)).
#[test]
fn forward_order_is_bit_reversed_evaluation() {
    for (n, q) in [(8usize, 17u64), (16, 97), (256, 12289)] {
        let plan = NttPlan::new(n, q).unwrap();
        let psi = plan.psi();
        let mut rng = ChaCha20Rng::seed_from_u64(n as u64);
        let a = random_poly(&mut rng, n, q);
        let mut x = a.clone();
        plan.forward(&mut x).unwrap();
        let pow = |b: u64, e: u64| (0..e).fold(1u64, |acc, _| acc * b % q);
        for (i, &xi) in x.iter().enumerate() {
            let pt = pow(psi, 2 * bit_reverse(i, n.trailing_zeros()) as u64 + 1);
            let eval = a.iter().rev().fold(0u64, |acc, &c| (acc * pt + c) % q);
            assert_eq!(xi, eval, "index {i}");
        }
    }
}

#[test]
fn pointwise_and_accumulate() {
    let q = edge_prime(50, 64).unwrap();
    let plan = NttPlan::new(64, q).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let a = random_poly(&mut rng, 64, q);
    let b = random_poly(&mut rng, 64, q);
    let mut acc = random_poly(&mut rng, 64, q);
    let acc0 = acc.clone();
    let mut out = vec![0; 64];
    plan.pointwise(&a, &b, &mut out).unwrap();
    plan.pointwise_acc(&a, &b, &mut acc).unwrap();
    for i in 0..64 {
        let p = (a[i] as u128 * b[i] as u128 % q as u128) as u64;
        assert_eq!(out[i], p);
        assert_eq!(acc[i], ((acc0[i] as u128 + p as u128) % q as u128) as u64);
    }
}

#[test]
fn bad_input_is_an_error() {
    // Constructors.
    assert!(matches!(
        NttPlan::new(0, 17),
        Err(Error::InvalidDegree { .. })
    ));
    assert!(matches!(
        NttPlan::new(1, 17),
        Err(Error::InvalidDegree { .. })
    ));
    assert!(matches!(
        NttPlan::new(12, 97),
        Err(Error::InvalidDegree { .. })
    ));
    assert!(matches!(
        NttPlan::new(1 << 18, 17),
        Err(Error::InvalidDegree { .. })
    ));
    assert!(matches!(
        NttPlan::new(8, 15),
        Err(Error::InvalidModulus { .. })
    )); // not prime... and ≢1
    assert!(matches!(
        NttPlan::new(8, 33),
        Err(Error::InvalidModulus { .. })
    )); // 33 ≡ 1 mod 16, composite
    assert!(matches!(
        NttPlan::new(8, 16),
        Err(Error::InvalidModulus { .. })
    ));
    assert!(matches!(
        NttPlan::new(8, 19),
        Err(Error::InvalidModulus { .. })
    )); // prime, ≢ 1 mod 16
    assert!(matches!(
        NttPlan::new(8, 0),
        Err(Error::InvalidModulus { .. })
    ));
    assert!(matches!(
        NttPlan::new(8, u64::MAX),
        Err(Error::InvalidModulus { .. })
    ));
    let big63 = ntt_primes(62, 8, 1).unwrap()[0];
    assert!(NttPlan::new(8, big63).is_ok());
    assert!(matches!(
        NttPlan32::new(8, big63),
        Err(Error::InvalidModulus { .. })
    ));
    let p31 = (1u64 << 31) - 1; // Mersenne prime, but above the u32 lane limit
    assert!(NttPlan32::new(2, p31).is_err());
    assert!(matches!(
        NttPlan16::new(256, 40961),
        Err(Error::InvalidModulus { .. })
    )); // 16-bit
    assert!(NttPlan16::new(256, 12289).is_ok());

    // Calls.
    let plan = NttPlan::new(8, 17).unwrap();
    let mut short = vec![0u64; 7];
    assert!(matches!(
        plan.forward(&mut short),
        Err(Error::LengthMismatch {
            expected: 8,
            got: 7
        })
    ));
    assert!(plan.inverse(&mut short).is_err());
    assert!(plan.forward_lazy(&mut short).is_err());
    assert!(plan.inverse_lazy(&mut short).is_err());
    let mut big = vec![0u64; 8];
    big[3] = 17;
    assert!(matches!(
        plan.forward(&mut big),
        Err(Error::CoefficientOutOfRange {
            index: 3,
            value: 17,
            bound: 17
        })
    ));
    big[3] = 67; // < 4q = 68 is fine for the lazy forward
    assert!(plan.forward_lazy(&mut big).is_ok());
    let mut big = vec![0u64; 8];
    big[5] = 68;
    assert!(plan.forward_lazy(&mut big).is_err());
    big[5] = 34;
    assert!(plan.inverse(&mut big).is_err());
    assert!(plan.inverse_lazy(&mut big).is_err());
    let ok = vec![1u64; 8];
    assert!(plan.multiply(&ok, &short).is_err());
    assert!(plan.multiply(&ok, &big).is_err());
    let mut out = vec![0u64; 8];
    // multiply_into: wrong lengths of any buffer are errors that write nothing; an input >= q
    // is one that leaves `out` and `scratch` zero (the SIMD plans check as their transforms
    // read); on the scalar plan and on a plan with a SIMD backend.
    let q60 = ntt_primes(60, 1024, 1).unwrap()[0];
    let simd = NttPlan::new(1024, q60).unwrap();
    for (p, qq) in [(&plan, 17u64), (&simd, q60)] {
        let n = p.n();
        let good = vec![1u64; n];
        let mut high = vec![0u64; n];
        high[n - 1] = qq;
        let at_end = Err(Error::CoefficientOutOfRange {
            index: n - 1,
            value: qq,
            bound: qq,
        });
        for (x, y) in [(&good, &high), (&high, &good), (&high, &high)] {
            let (mut o, mut w) = (vec![5u64; n], vec![6u64; n]);
            assert_eq!(p.multiply_into(x, y, &mut o, &mut w), at_end);
            assert!(o.iter().chain(&w).all(|&x| x == 0));
        }
        let (mut o, mut w) = (vec![5u64; n], vec![6u64; n]);
        let mut w_short = vec![6u64; n - 1];
        assert!(matches!(
            p.multiply_into(&good, &good, &mut o, &mut w_short),
            Err(Error::LengthMismatch { .. })
        ));
        let mut o_long = vec![5u64; n + 1];
        assert!(p.multiply_into(&good, &good, &mut o_long, &mut w).is_err());
        assert!(p.multiply_into(&good[1..], &good, &mut o, &mut w).is_err());
        assert!(o.iter().all(|&x| x == 5) && o_long.iter().all(|&x| x == 5));
        assert!(w.iter().all(|&x| x == 6) && w_short.iter().all(|&x| x == 6));
    }
    assert!(plan.pointwise(&ok, &big, &mut out).is_err());
    assert!(plan.pointwise(&ok, &ok, &mut short).is_err());
    // In place: wrong lengths and values >= q in either operand are errors that leave `a` as it
    // was, on the scalar plan and on a plan with a SIMD backend.
    for (plan, q) in [
        (plan.clone(), 17u64),
        (NttPlan::new(1024, q60).unwrap(), q60),
    ] {
        let n = plan.n();
        let mut a: Vec<u64> = (0..n as u64).map(|i| i % q).collect();
        let keep = a.clone();
        let good = vec![q - 1; n];
        assert!(matches!(
            plan.pointwise_assign(&mut a[..n - 1], &good),
            Err(Error::LengthMismatch { .. })
        ));
        assert!(matches!(
            plan.pointwise_assign(&mut a, &good[..n - 1]),
            Err(Error::LengthMismatch { .. })
        ));
        let mut bad_b = good.clone();
        bad_b[n / 2] = q;
        assert!(matches!(
            plan.pointwise_assign(&mut a, &bad_b),
            Err(Error::CoefficientOutOfRange { value, bound, .. }) if value == q && bound == q
        ));
        assert_eq!(a, keep);
        let mut bad_a = keep.clone();
        bad_a[1] = u64::MAX;
        assert!(plan.pointwise_assign(&mut bad_a, &good).is_err());
        assert_eq!(bad_a[0], keep[0]);
        plan.pointwise_assign(&mut a, &good).unwrap();
        assert!(a.iter().zip(&keep).all(|(&x, &k)| x == (q - k) % q)); // k (q - 1) = -k
    }
    let mut acc = vec![20u64; 8];
    assert!(plan.pointwise_acc(&ok, &ok, &mut acc).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random n, random prime size per lane, random inputs (biased toward 0 and q-1).
    #[test]
    fn prop_multiply_matches_schoolbook(
        log_n in 1u32..=9,
        lane in 0usize..3,
        bits_frac in 0.0f64..1.0,
        seed in any::<u64>(),
        edge in 0u8..4,
    ) {
        let n = 1usize << log_n;
        let (lo, hi) = match lane { 0 => (log_n + 3, 14), 1 => (log_n + 3, 30), _ => (log_n + 3, 62) };
        prop_assume!(lo <= hi);
        let bits = lo + ((hi - lo) as f64 * bits_frac) as u32;
        let Some(q) = edge_prime(bits, n) else { return Ok(()); };
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let gen = |rng: &mut ChaCha20Rng| -> Vec<u64> {
            (0..n).map(|_| match edge {
                0 => rng.gen_range(0..q),
                1 => if rng.gen_bool(0.5) { q - 1 } else { 0 },
                2 => q - 1 - rng.gen_range(0..q.min(4)),
                _ => rng.gen_range(0..q.min(3)),
            }).collect()
        };
        let a = gen(&mut rng);
        let b = gen(&mut rng);
        match lane {
            0 => check_plan(&NttPlan16::new(n, q).unwrap(), &a, &b),
            1 => check_plan(&NttPlan32::new(n, q).unwrap(), &a, &b),
            _ => check_plan(&NttPlan::new(n, q).unwrap(), &a, &b),
        }
    }
}
