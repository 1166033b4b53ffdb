//! Automorphisms, monomials, rescaling, base extension and parallel batches against big-integer
//! references.

use latpoly::parallel::{to_coeff_batch, to_ntt_batch, Threads};
use latpoly::rns::galois::ntt_permutation;
use latpoly::rns::{BaseExtender, Representation, RnsContext, RnsPoly};
use latpoly::Error;
use latpoly::Isa;
use num_bigint::{BigInt, BigUint, RandBigInt};
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::sync::Arc;

fn modq(x: &BigInt, q: &BigUint) -> BigUint {
    x.mod_floor(&BigInt::from(q.clone())).to_biguint().unwrap()
}

fn random_poly(ctx: &Arc<RnsContext>, rng: &mut ChaCha20Rng) -> (RnsPoly, Vec<BigInt>) {
    let q = ctx.modulus().clone();
    let v: Vec<BigInt> = (0..ctx.n())
        .map(|_| BigInt::from(rng.gen_biguint_below(&q)))
        .collect();
    (RnsPoly::from_bigints(ctx, &v).unwrap(), v)
}

/// a(x^k) mod (x^n + 1) over the integers.
fn big_automorphism(a: &[BigInt], k: usize) -> Vec<BigInt> {
    let n = a.len();
    let mut out = vec![BigInt::zero(); n];
    for (i, c) in a.iter().enumerate() {
        let m = (i * k) % (2 * n);
        if m < n {
            out[m] += c;
        } else {
            out[m - n] -= c;
        }
    }
    out
}

#[test]
fn automorphisms_match_definition_in_both_representations() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for (n, bits, l) in [
        (2usize, 30u32, 1usize),
        (8, 40, 2),
        (64, 50, 3),
        (1024, 60, 2),
    ] {
        let ctx = RnsContext::with_prime_bits(n, bits, l).unwrap();
        let q = ctx.modulus().clone();
        let (a, av) = random_poly(&ctx, &mut rng);
        for k in [1i64, 3, 5, 2 * n as i64 - 1, -1, -3, 5 * n as i64 + 1] {
            let kk = k.rem_euclid(2 * n as i64) as usize;
            let want: Vec<BigUint> = big_automorphism(&av, kk)
                .iter()
                .map(|x| modq(x, &q))
                .collect();
            assert_eq!(
                a.automorphism(k).unwrap().to_biguints(),
                want,
                "coeff n={n} k={k}"
            );
            let mut an = a.clone();
            an.to_ntt();
            let bn = an.automorphism(k).unwrap();
            assert_eq!(bn.representation(), Representation::Ntt);
            assert_eq!(bn.to_biguints(), want, "ntt n={n} k={k}");
        }
        // Composition: sigma_k(sigma_l(a)) = sigma_{kl}(a); and a permutation, really.
        let b = a.automorphism(3).unwrap().automorphism(5).unwrap();
        assert_eq!(b.to_biguints(), a.automorphism(15).unwrap().to_biguints());
        let mut p = ntt_permutation(n, 5).unwrap();
        p.sort();
        assert_eq!(p, (0..n).collect::<Vec<_>>());
        assert!(matches!(a.automorphism(2), Err(Error::InvalidArgument(_))));
        assert!(a.automorphism(0).is_err());
    }
}

#[test]
fn monomials_match_definition() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for (n, l) in [(4usize, 1usize), (16, 2), (256, 3)] {
        let ctx = RnsContext::with_prime_bits(n, 50, l).unwrap();
        let q = ctx.modulus().clone();
        let (a, av) = random_poly(&ctx, &mut rng);
        for j in [
            0i64,
            1,
            3,
            n as i64 - 1,
            n as i64,
            2 * n as i64 + 5,
            -1,
            -(n as i64) - 2,
        ] {
            // x^j a: coefficient i moves to i + j mod 2n, negated when it lands in [n, 2n).
            let jj = j.rem_euclid(2 * n as i64) as usize;
            let mut want = vec![BigInt::zero(); n];
            for (i, c) in av.iter().enumerate() {
                let e = (i + jj) % (2 * n);
                if e < n {
                    want[e] += c;
                } else {
                    want[e - n] -= c;
                }
            }
            let want: Vec<BigUint> = want.iter().map(|x| modq(x, &q)).collect();
            assert_eq!(a.mul_monomial(j).to_biguints(), want, "coeff n={n} j={j}");
            let mut an = a.clone();
            an.to_ntt();
            assert_eq!(an.mul_monomial(j).to_biguints(), want, "ntt n={n} j={j}");
        }
    }
}

#[test]
fn rescale_rounds_exactly() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for (n, bits, l) in [
        (8usize, 30u32, 2usize),
        (64, 50, 3),
        (256, 60, 4),
        (16, 62, 6),
    ] {
        let ctx = RnsContext::with_prime_bits(n, bits, l).unwrap();
        let ql = BigInt::from(*ctx.moduli().last().unwrap());
        let small = ctx.drop_last().unwrap();
        assert!(
            Arc::ptr_eq(&small, &ctx.drop_last().unwrap()),
            "dropped context is cached"
        );
        let qs = small.modulus().clone();
        for trial in 0..3 {
            let (mut a, av) = random_poly(&ctx, &mut rng);
            // round(x / q_L) for x in [0, Q): floor((2x + q_L) / (2 q_L)).
            let want: Vec<BigUint> = av
                .iter()
                .map(|x| modq(&(BigInt::from(2) * x + &ql).div_floor(&(&ql * 2)), &qs))
                .collect();
            if trial == 1 {
                a.to_ntt();
            }
            let r = a.rescale().unwrap();
            assert_eq!(r.representation(), a.representation());
            assert_eq!(r.context().moduli(), small.moduli());
            assert_eq!(r.to_biguints(), want, "n={n} L={l} trial {trial}");
            let d = a.drop_last_modulus().unwrap();
            let want_d: Vec<BigUint> = av.iter().map(|x| modq(x, &qs)).collect();
            assert_eq!(d.to_biguints(), want_d);
        }
    }
    let one = RnsContext::with_prime_bits(8, 30, 1).unwrap();
    let p = RnsPoly::zero(&one, Representation::Coefficient);
    assert!(p.rescale().is_err());
    assert!(p.drop_last_modulus().is_err());
    assert!(one.drop_last().is_err());
}

#[test]
fn base_extension_exact_and_fast() {
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    for (n, qb, ql, pb, pl) in [
        (8usize, 50u32, 3usize, 40u32, 2usize),
        (64, 60, 4, 61, 5),
        (16, 30, 1, 62, 3),
        (32, 62, 8, 50, 8),
        // Below 2^32 targets after 62-bit sources: several final subtractions per REDC.
        (32, 62, 8, 30, 2),
        // More source primes than the unrolled kernels (L <= 8) and than one reduction chunk
        // (12 products).
        (8, 62, 10, 61, 2),
        (16, 40, 13, 50, 3),
        (8, 31, 25, 62, 2),
    ] {
        let from = RnsContext::with_prime_bits(n, qb, ql).unwrap();
        let to = RnsContext::with_prime_bits(n, pb, pl).unwrap();
        // Every backend of the conversion kernel (SIMD twins and the scalar reference).
        for isa in BaseExtender::available_isas(&from) {
            let ext = BaseExtender::with_isa(&from, &to, isa).unwrap();
            assert_eq!(ext.isa(), isa);
            let q = BigInt::from(from.modulus().clone());
            let p = to.modulus().clone();
            // Random values plus the edges 0, 1, Q-1, (Q-1)/2, (Q+1)/2.
            let (_, mut av) = random_poly(&from, &mut rng);
            let edges = [
                BigInt::zero(),
                BigInt::one(),
                &q - 1,
                (&q - 1) / 2,
                (&q + 1) / 2,
            ];
            for (i, e) in edges.iter().enumerate() {
                av[i] = e.clone();
            }
            let a = RnsPoly::from_bigints(&from, &av).unwrap();
            let exact = ext.extend_exact(&a, false).unwrap();
            assert_eq!(
                exact.to_biguints(),
                av.iter().map(|x| modq(x, &p)).collect::<Vec<_>>()
            );
            let centered = ext.extend_exact(&a, true).unwrap();
            let cv: Vec<BigUint> = av
                .iter()
                .map(|x| {
                    let c = if BigInt::from(2) * x > q {
                        x - &q
                    } else {
                        x.clone()
                    };
                    modq(&c, &p)
                })
                .collect();
            assert_eq!(centered.to_biguints(), cv);
            // Fast: x + u Q for some 0 <= u < L.
            let fast = ext.extend_fast(&a).unwrap().to_biguints();
            for (f, x) in fast.iter().zip(&av) {
                let ok = (0..ql).any(|u| modq(&(x + &q * u), &p) == *f);
                assert!(ok, "fast conversion outside x + [0, L) Q");
            }
            // NTT-form input is accepted (converted internally).
            let mut an = a.clone();
            an.to_ntt();
            assert_eq!(
                ext.extend_exact(&an, false).unwrap().to_biguints(),
                exact.to_biguints()
            );
        }
    }
    let a = RnsContext::with_prime_bits(8, 40, 2).unwrap();
    let b = RnsContext::with_prime_bits(16, 40, 2).unwrap();
    assert_eq!(
        BaseExtender::new(&a, &b).unwrap_err(),
        Error::ContextMismatch
    );
    assert_eq!(
        BaseExtender::with_isa(&a, &b, Isa::Scalar).unwrap_err(),
        Error::ContextMismatch
    );
    assert!(BaseExtender::with_isa(&a, &a, Isa::Avx512Ifma).is_err()); // no IFMA kernel
    let c = RnsContext::with_prime_bits(8, 41, 2).unwrap();
    let ext = BaseExtender::new(&a, &c).unwrap();
    let wrong = RnsPoly::zero(&c, Representation::Coefficient);
    assert!(ext.extend_exact(&wrong, false).is_err());
    assert!(ext.extend_fast(&wrong).is_err());
}

/// Values whose float estimate sits right at a boundary take the exact fallback.
#[test]
fn base_extension_boundary_values() {
    let from = RnsContext::with_prime_bits(8, 62, 3).unwrap();
    let to = RnsContext::with_prime_bits(8, 50, 2).unwrap();
    let q = BigInt::from(from.modulus().clone());
    let p = to.modulus().clone();
    let v = vec![
        &q - 1,
        &q - 2,
        (&q - 1) / 2,
        (&q + 1) / 2,
        (&q - 3) / 2,
        (&q + 3) / 2,
        BigInt::zero(),
        BigInt::one(),
    ];
    let a = RnsPoly::from_bigints(&from, &v).unwrap();
    for isa in BaseExtender::available_isas(&from) {
        let ext = BaseExtender::with_isa(&from, &to, isa).unwrap();
        let got = ext.extend_exact(&a, true).unwrap().to_biguints();
        for (g, x) in got.iter().zip(&v) {
            let c = if BigInt::from(2) * x > q {
                x - &q
            } else {
                x.clone()
            };
            assert_eq!(*g, modq(&c, &p), "{isa}");
            assert!(c.abs() * 2 < q);
        }
        // Canonical lift at the boundaries too.
        let got = ext.extend_exact(&a, false).unwrap().to_biguints();
        for (g, x) in got.iter().zip(&v) {
            assert_eq!(*g, modq(x, &p), "{isa}");
        }
    }
}

#[test]
fn parallel_batches_match_sequential() {
    let ctx = RnsContext::with_prime_bits(2048, 50, 6).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    let polys: Vec<RnsPoly> = (0..5).map(|_| random_poly(&ctx, &mut rng).0).collect();
    let mut seq = polys.clone();
    seq.iter_mut().for_each(|p| p.to_ntt());
    for threads in [1usize, 2, 3] {
        let pool = Threads::new(threads).unwrap();
        assert_eq!(pool.len(), threads);
        let mut par = polys.clone();
        pool.install(|| to_ntt_batch(&mut par));
        for (a, b) in par.iter().zip(&seq) {
            assert_eq!(a.residues(), b.residues());
            assert_eq!(a.representation(), Representation::Ntt);
        }
        pool.install(|| to_coeff_batch(&mut par));
        for (a, b) in par.iter().zip(&polys) {
            assert_eq!(a.residues(), b.residues());
        }
        let m = pool.install(|| polys[0].multiply_par(&polys[1])).unwrap();
        assert_eq!(
            m.residues(),
            polys[0].multiply(&polys[1]).unwrap().residues()
        );
    }
    let mut p = polys[0].clone();
    p.to_ntt_par();
    assert_eq!(p.residues(), seq[0].residues());
    p.to_coeff_par();
    assert_eq!(p.residues(), polys[0].residues());
    assert!(Threads::new(0).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn prop_rescale_and_extend(log_n in 1u32..=6, l in 2usize..=5, bits in 30u32..=62, seed in any::<u64>()) {
        let n = 1usize << log_n;
        let ctx = RnsContext::with_prime_bits(n, bits, l).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let (a, av) = random_poly(&ctx, &mut rng);
        let ql = BigInt::from(*ctx.moduli().last().unwrap());
        let qs = ctx.drop_last().unwrap().modulus().clone();
        let want: Vec<BigUint> = av.iter().map(|x| modq(&(BigInt::from(2) * x + &ql).div_floor(&(&ql * 2)), &qs)).collect();
        prop_assert_eq!(a.rescale().unwrap().to_biguints(), want);
        let to = RnsContext::with_prime_bits(n, 40, 3).unwrap();
        let ext = BaseExtender::new(&ctx, &to).unwrap();
        let p = to.modulus().clone();
        prop_assert_eq!(ext.extend_exact(&a, false).unwrap().to_biguints(), av.iter().map(|x| modq(x, &p)).collect::<Vec<_>>());
    }
}
