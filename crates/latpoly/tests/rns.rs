//! RNS polynomials and CRT against big-integer arithmetic.

use latpoly::primes::ntt_primes;
use latpoly::rns::{Crt, Representation, RnsContext, RnsPoly};
use latpoly::Error;
use num_bigint::{BigInt, BigUint, RandBigInt};
use num_traits::{Signed, Zero};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// Schoolbook a*b mod (x^n + 1, Q) over big integers, result in [0, Q).
fn big_negacyclic(a: &[BigInt], b: &[BigInt], q: &BigUint) -> Vec<BigUint> {
    let n = a.len();
    let mut c = vec![BigInt::zero(); n];
    for i in 0..n {
        for j in 0..n {
            let p = &a[i] * &b[j];
            if i + j < n {
                c[i + j] += p;
            } else {
                c[i + j - n] -= p;
            }
        }
    }
    let qi = BigInt::from(q.clone());
    c.into_iter()
        .map(|x| {
            let r = ((x % &qi) + &qi) % &qi;
            r.to_biguint().unwrap()
        })
        .collect()
}

fn reduce(x: &BigInt, q: &BigUint) -> BigUint {
    let qi = BigInt::from(q.clone());
    (((x % &qi) + &qi) % &qi).to_biguint().unwrap()
}

fn random_bigints(rng: &mut ChaCha20Rng, n: usize, bits: u64) -> Vec<BigInt> {
    (0..n)
        .map(|_| {
            let v = BigInt::from(rng.gen_biguint(bits));
            if rng.gen_bool(0.5) {
                -v
            } else {
                v
            }
        })
        .collect()
}

#[test]
fn crt_round_trip_100_primes_62_bits() {
    let ps = ntt_primes(62, 1024, 100).unwrap();
    let crt = Crt::new(&ps).unwrap();
    let q = crt.modulus().clone();
    assert!(q.bits() > 6100);
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let mut r = vec![0u64; 100];
    for i in 0..2000 {
        let x = if i < 3 {
            [BigUint::zero(), &q - 1u32, &q >> 1u32][i].clone()
        } else {
            rng.gen_biguint_below(&q)
        };
        crt.decompose_biguint(&x, &mut r).unwrap();
        for (k, &p) in ps.iter().enumerate() {
            assert_eq!(BigUint::from(r[k]), &x % p);
        }
        assert_eq!(crt.reconstruct(&r).unwrap(), x);
    }
    // Random residue vectors reconstruct to the unique x < Q with those residues.
    for _ in 0..200 {
        let res: Vec<u64> = ps.iter().map(|&p| rng.gen_range(0..p)).collect();
        let x = crt.reconstruct(&res).unwrap();
        assert!(x < q);
        for (k, &p) in ps.iter().enumerate() {
            assert_eq!(BigUint::from(res[k]), &x % p);
        }
    }
    // Inputs larger than Q are reduced.
    let x = &q * 7u32 + 12345u32;
    crt.decompose_biguint(&x, &mut r).unwrap();
    assert_eq!(crt.reconstruct(&r).unwrap(), BigUint::from(12345u32));
}

#[test]
fn poly_multiply_matches_bigint_schoolbook() {
    let mut rng = ChaCha20Rng::seed_from_u64(6);
    for (n, bits, count) in [
        (2usize, 62u32, 1usize),
        (16, 62, 3),
        (32, 50, 5),
        (64, 30, 2),
        (8, 62, 100),
    ] {
        let ctx = RnsContext::with_prime_bits(n, bits, count).unwrap();
        let q = ctx.modulus().clone();
        for _ in 0..3 {
            let a = random_bigints(&mut rng, n, q.bits() + 10);
            let b = random_bigints(&mut rng, n, q.bits() + 10);
            let pa = RnsPoly::from_bigints(&ctx, &a).unwrap();
            let pb = RnsPoly::from_bigints(&ctx, &b).unwrap();
            let want = big_negacyclic(&a, &b, &q);
            assert_eq!(pa.multiply(&pb).unwrap().to_biguints(), want);
            // Same through explicit NTT form, pointwise mul and mul_acc.
            let (mut fa, mut fb) = (pa.clone(), pb.clone());
            fa.to_ntt();
            fb.to_ntt();
            let mut prod = fa.mul(&fb).unwrap();
            prod.to_coeff();
            assert_eq!(prod.to_biguints(), want);
            let mut acc = RnsPoly::zero(&ctx, Representation::Ntt);
            acc.mul_acc(&fa, &fb).unwrap();
            acc.mul_acc(&fa, &fb).unwrap();
            let twice: Vec<BigUint> = want.iter().map(|x| (x * 2u32) % &q).collect();
            assert_eq!(acc.to_biguints(), twice);
            // Linear ops.
            let sum: Vec<BigUint> = a
                .iter()
                .zip(&b)
                .map(|(x, y)| reduce(&(x + y), &q))
                .collect();
            assert_eq!(pa.add(&pb).unwrap().to_biguints(), sum);
            let diff: Vec<BigUint> = a
                .iter()
                .zip(&b)
                .map(|(x, y)| reduce(&(x - y), &q))
                .collect();
            assert_eq!(pa.sub(&pb).unwrap().to_biguints(), diff);
            // In place, then back: a + b - b = a.
            let mut acc = pa.clone();
            acc.add_assign(&pb).unwrap();
            assert_eq!(acc.to_biguints(), sum);
            acc.sub_assign(&pb).unwrap();
            acc.sub_assign(&pb).unwrap();
            assert_eq!(acc.to_biguints(), diff);
            let neg: Vec<BigUint> = a.iter().map(|x| reduce(&-x, &q)).collect();
            assert_eq!(pa.neg().to_biguints(), neg);
            let mut na = pa.clone();
            na.neg_assign();
            assert_eq!(na.to_biguints(), neg);
            na.neg_assign(); // twice: back to a (zeros stay zero)
            assert_eq!(na.residues(), pa.residues());
            let s = BigInt::from(rng.gen_biguint(q.bits() + 3)) * -1;
            let sm: Vec<BigUint> = a.iter().map(|x| reduce(&(x * &s), &q)).collect();
            assert_eq!(pa.scalar_mul(&s).to_biguints(), sm);
            let sm7: Vec<BigUint> = a.iter().map(|x| reduce(&(x * -7), &q)).collect();
            assert_eq!(pa.scalar_mul_i64(-7).to_biguints(), sm7);
            // Centered output lies in (-Q/2, Q/2] and is congruent.
            for (c, w) in pa.to_centered_bigints().iter().zip(&a) {
                assert!(c.abs() * 2 <= BigInt::from(q.clone()));
                assert_eq!(reduce(c, &q), reduce(w, &q));
            }
        }
    }
}

#[test]
fn small_integer_constructors() {
    let ctx = RnsContext::with_prime_bits(4, 40, 2).unwrap();
    let q = ctx.modulus().clone();
    let p = RnsPoly::from_i64s(&ctx, &[i64::MIN, -1, 0, i64::MAX]).unwrap();
    let want: Vec<BigUint> = [i64::MIN, -1, 0, i64::MAX]
        .iter()
        .map(|&x| reduce(&BigInt::from(x), &q))
        .collect();
    assert_eq!(p.to_biguints(), want);
    let p = RnsPoly::from_u64s(&ctx, &[u64::MAX, 0, 1, 2]).unwrap();
    assert_eq!(p.to_biguints()[0], BigUint::from(u64::MAX) % &q);
    let big: Vec<BigUint> = vec![&q + 5u32, q.clone(), BigUint::zero(), &q * &q];
    let p = RnsPoly::from_biguints(&ctx, &big).unwrap();
    assert_eq!(
        p.to_biguints(),
        vec![
            BigUint::from(5u32),
            BigUint::zero(),
            BigUint::zero(),
            BigUint::zero()
        ]
    );
}

#[test]
fn bad_input_is_an_error() {
    assert!(matches!(
        RnsContext::new(16, &[]),
        Err(Error::InvalidArgument(_))
    ));
    let ps = ntt_primes(50, 16, 2).unwrap();
    assert!(matches!(
        RnsContext::new(16, &[ps[0], ps[0]]),
        Err(Error::InvalidModulus { .. })
    ));
    assert!(matches!(
        RnsContext::new(16, &[12289, 17]),
        Err(Error::InvalidModulus { .. })
    ));
    assert!(matches!(
        RnsContext::new(12, &ps),
        Err(Error::InvalidDegree { .. })
    ));
    assert!(matches!(
        RnsContext::new(16, &[ps[0] - 32]),
        Err(Error::InvalidModulus { .. })
    )); // composite or already taken
    assert!(RnsContext::with_prime_bits(16, 63, 1).is_err());
    assert!(RnsContext::with_prime_bits(1 << 13, 14, 1).is_err());

    let ctx = RnsContext::new(16, &ps).unwrap();
    let other = RnsContext::new(16, &ps[..1]).unwrap();
    let same = RnsContext::new(16, &ps).unwrap();
    assert!(matches!(
        RnsPoly::from_i64s(&ctx, &[0; 15]),
        Err(Error::LengthMismatch {
            expected: 16,
            got: 15
        })
    ));
    assert!(RnsPoly::from_u64s(&ctx, &[0; 17]).is_err());
    assert!(RnsPoly::from_bigints(&ctx, &vec![BigInt::zero(); 3]).is_err());
    assert!(RnsPoly::from_biguints(&ctx, &[]).is_err());
    assert!(RnsPoly::from_residues(&ctx, vec![0; 31], Representation::Coefficient).is_err());
    let mut bad = vec![0u64; 32];
    bad[20] = ps[1];
    assert!(matches!(
        RnsPoly::from_residues(&ctx, bad, Representation::Ntt),
        Err(Error::CoefficientOutOfRange { index: 20, .. })
    ));

    let a = RnsPoly::from_i64s(&ctx, &[1; 16]).unwrap();
    let b = RnsPoly::from_i64s(&other, &[1; 16]).unwrap();
    let c = RnsPoly::from_i64s(&same, &[2; 16]).unwrap();
    assert_eq!(a.add(&b).unwrap_err(), Error::ContextMismatch);
    assert!(a.multiply(&b).is_err());
    assert!(a.add(&c).is_ok()); // structurally equal contexts are compatible
    let mut an = a.clone();
    an.to_ntt();
    assert!(matches!(
        a.add(&an),
        Err(Error::RepresentationMismatch { .. })
    ));
    assert!(matches!(
        a.mul(&a),
        Err(Error::RepresentationMismatch { .. })
    ));
    assert!(matches!(
        an.mul(&a),
        Err(Error::RepresentationMismatch { .. })
    ));
    let mut acc = RnsPoly::zero(&ctx, Representation::Coefficient);
    assert!(acc.mul_acc(&an, &an).is_err());
    // The in-place additions refuse the same operands and leave `self` unchanged.
    let mut d = a.clone();
    assert_eq!(d.add_assign(&b).unwrap_err(), Error::ContextMismatch);
    assert_eq!(d.sub_assign(&b).unwrap_err(), Error::ContextMismatch);
    assert!(matches!(
        d.add_assign(&an),
        Err(Error::RepresentationMismatch { .. })
    ));
    assert!(matches!(
        d.sub_assign(&an),
        Err(Error::RepresentationMismatch { .. })
    ));
    assert_eq!(d.residues(), a.residues());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn prop_rns_product(log_n in 1u32..=6, count in 1usize..=6, bits in 20u32..=62, seed in any::<u64>()) {
        let n = 1usize << log_n;
        let ctx = RnsContext::with_prime_bits(n, bits, count).unwrap();
        let q = ctx.modulus().clone();
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let a = random_bigints(&mut rng, n, q.bits());
        let b = random_bigints(&mut rng, n, q.bits());
        let pa = RnsPoly::from_bigints(&ctx, &a).unwrap();
        let pb = RnsPoly::from_bigints(&ctx, &b).unwrap();
        prop_assert_eq!(pa.multiply(&pb).unwrap().to_biguints(), big_negacyclic(&a, &b, &q));
    }
}

/// `with_modulus_bits`: `Q` has at least the requested size, the fewest primes of the size
/// class the backend of a small-prime plan handles best (30 bits where that backend is AVX2
/// and `n >= 16`, whose 32-bit lanes then run the transforms; below `2^50` where it is IFMA or
/// the f64 transforms of AVX2 + FMA; below `2^62` otherwise), each `1 mod 2n`.
#[test]
fn with_modulus_bits_picks_the_backends_prime_size() {
    for n in [8usize, 1024, 8192] {
        let isa = latpoly::NttPlan::new(n, ntt_primes(40, n, 1).unwrap()[0])
            .unwrap()
            .isa();
        #[cfg(target_arch = "x86_64")]
        let fma = std::is_x86_feature_detected!("fma");
        #[cfg(not(target_arch = "x86_64"))]
        let fma = false;
        let narrow = isa == latpoly::Isa::Avx2 && n >= 16;
        let small = isa == latpoly::Isa::Avx512Ifma || (isa == latpoly::Isa::Avx2 && fma);
        let max_bits = if small { 50 } else { 62 };
        for bits in [30u32, 49, 61, 62, 100, 240, 1000] {
            let ctx = RnsContext::with_modulus_bits(n, bits).unwrap();
            assert!(ctx.modulus_bits() >= u64::from(bits), "n={n} bits={bits}");
            let q = ctx.moduli();
            if narrow {
                // The largest 30-bit primes: as many as 30-bit pieces of `bits`.
                assert_eq!(q.len(), bits.div_ceil(30) as usize, "n={n} bits={bits}");
                assert_eq!(q, &ntt_primes(30, n, q.len()).unwrap()[..]);
                assert!(q.iter().all(|&p| p >> 29 == 1 && p % (2 * n as u64) == 1));
                let plan = latpoly::NttPlan::new(n, q[0]).unwrap();
                assert_eq!(plan.isa(), latpoly::Isa::Avx2);
                continue;
            }
            assert_eq!(
                q.len(),
                bits.div_ceil(max_bits - 1) as usize,
                "n={n} bits={bits} {isa}"
            );
            assert!(q
                .iter()
                .all(|&p| p < 1 << max_bits && p % (2 * n as u64) == 1));
        }
    }
    assert!(RnsContext::with_modulus_bits(8, 1).is_err());
    assert!(RnsContext::with_modulus_bits(6, 240).is_err());
}
