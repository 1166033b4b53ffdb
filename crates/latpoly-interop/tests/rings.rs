//! latpoly's ring products against PQClean's, an independent implementation (its AVX2 build,
//! where the CPU runs it, and its portable `clean` build), on every latpoly backend this CPU runs:
//!
//! * NTRU `poly_Rq_mul` for n = 509, 677, 701, 821: latpoly's `poly_rq_mul_modq` and its
//!   exact `poly_rq_mul` equal PQClean's product mod `q` (both PQClean builds run Toom-4, so
//!   their products are only right mod `q`, not mod `2^16`);
//! * sntrup761 `crypto_core_mult` (`R/q` x small) and `crypto_core_mult3` (`R/3` x `R/3`):
//!   latpoly's `mul_rq_small` and `mul_r3` equal them coefficient for coefficient.
//!
//! Inputs: random ones and the edges (zero, all `q - 1`, all `2^16 - 1`, all `+-2295`, all
//! `+-1`, single monomials at both ends).

use latpoly::rings::{ntru, ntruprime};
use latpoly::Isa;
use latpoly_interop::pqclean::{Build, NtruPrimeMul, NtruRqMul};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// Random cases per (degree, build); the clean builds are schoolbook, so fewer there.
fn cases(build: Build) -> usize {
    match build {
        Build::Avx2 => 200,
        Build::Clean => 25,
    }
}

/// latpoly's NTRU multipliers this CPU runs (each call names the one that ran).
fn ntru_isas() -> Vec<Isa> {
    let mut v: Vec<Isa> = Vec::new();
    let (a, b) = (vec![0u16; 509], vec![0u16; 509]);
    let mut out = vec![0u16; 509];
    for isa in [Isa::Avx512, Isa::Avx2, Isa::Scalar] {
        let used = ntru::poly_rq_mul_modq_isa(isa, &a, &b, &mut out).unwrap();
        if !v.contains(&used) {
            v.push(used);
        }
    }
    v
}

/// Edge operands for degree `n` and modulus `q`, then `count` random pairs.
fn ntru_inputs(n: usize, q: u16, count: usize, rng: &mut ChaCha20Rng) -> Vec<(Vec<u16>, Vec<u16>)> {
    let mono = |k: usize| {
        let mut v = vec![0u16; n];
        v[k] = 1;
        v
    };
    let mut v = vec![
        (vec![0; n], vec![0; n]),
        (vec![q - 1; n], vec![q - 1; n]),
        (vec![u16::MAX; n], vec![u16::MAX; n]),
        (vec![u16::MAX; n], vec![q - 1; n]),
        (mono(n - 1), mono(n - 1)),
        (mono(0), (0..n).map(|i| i as u16).collect()),
        (mono(n - 1), (0..n).map(|i| (i * 7) as u16).collect()),
    ];
    for _ in 0..count {
        v.push((
            (0..n).map(|_| rng.gen()).collect(),
            (0..n).map(|_| rng.gen()).collect(),
        ));
    }
    v
}

#[test]
fn ntru_rq_mul_matches_pqclean() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x9c1e);
    let isas = ntru_isas();
    for build in Build::all_available() {
        for p in ntru::NtruParams::ALL {
            let (n, q) = (p.n(), p.q());
            let mut peer = NtruRqMul::new(n, build).expect("PQClean product");
            for (k, (a, b)) in ntru_inputs(n, q, cases(build), &mut rng)
                .into_iter()
                .enumerate()
            {
                peer.set(&a, &b).unwrap();
                peer.multiply();
                let want: Vec<u16> = peer.result().iter().map(|&x| x & (q - 1)).collect();
                for &isa in &isas {
                    let mut got = vec![0u16; n];
                    ntru::poly_rq_mul_modq_isa(isa, &a, &b, &mut got).unwrap();
                    assert_eq!(
                        got, want,
                        "n={n} case {k}: latpoly {isa} vs PQClean {build}"
                    );
                }
                for &isa in &isas {
                    let mut got = vec![0u16; n];
                    ntru::poly_rq_mul_isa(isa, &a, &b, &mut got).unwrap();
                    got.iter_mut().for_each(|x| *x &= q - 1);
                    assert_eq!(
                        got, want,
                        "n={n} case {k}: latpoly {isa} exact vs PQClean {build}"
                    );
                }
            }
        }
    }
}

const P: usize = 761;

fn small(rng: &mut ChaCha20Rng) -> Vec<i8> {
    (0..P).map(|_| rng.gen_range(-1i8..=1)).collect()
}

#[test]
fn ntruprime_products_match_pqclean() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x761);
    let isas = ntruprime::Multiplier::available_isas();
    for build in Build::all_available() {
        let mut peer = NtruPrimeMul::new(build).expect("PQClean products");
        let mut rq_cases: Vec<(Vec<i16>, Vec<i8>)> = vec![
            (vec![0; P], vec![0; P]),
            (vec![2295; P], vec![1; P]),
            (vec![-2295; P], vec![1; P]),
            (vec![2295; P], vec![-1; P]),
            (
                (0..P)
                    .map(|i| if i % 2 == 0 { 2295 } else { -2295 })
                    .collect(),
                (0..P).map(|i| if i % 2 == 0 { 1 } else { -1 }).collect(),
            ),
        ];
        let mut top = vec![0i16; P];
        top[P - 1] = 2295;
        let mut top_s = vec![0i8; P];
        top_s[P - 1] = -1;
        rq_cases.push((top, top_s));
        for _ in 0..cases(build) {
            let a = (0..P).map(|_| rng.gen_range(-2295i16..=2295)).collect();
            rq_cases.push((a, small(&mut rng)));
        }
        for (k, (a, s)) in rq_cases.iter().enumerate() {
            peer.set(a, s).unwrap();
            peer.mul_rq_small();
            let want = peer.rq_result();
            for &isa in &isas {
                let m = ntruprime::Multiplier::with_isa(isa).unwrap();
                assert_eq!(
                    m.mul_rq_small(a, s).unwrap(),
                    want,
                    "R/q x small case {k}: latpoly {isa} vs PQClean {build}"
                );
            }
        }
        let mut r3_cases: Vec<(Vec<i8>, Vec<i8>)> = vec![
            (vec![0; P], vec![0; P]),
            (vec![1; P], vec![1; P]),
            (vec![-1; P], vec![1; P]),
            (vec![-1; P], vec![-1; P]),
        ];
        for _ in 0..cases(build) {
            r3_cases.push((small(&mut rng), small(&mut rng)));
        }
        for (k, (a, b)) in r3_cases.iter().enumerate() {
            peer.set_r3(a, b).unwrap();
            peer.mul_r3();
            let want = peer.r3_result();
            for &isa in &isas {
                let m = ntruprime::Multiplier::with_isa(isa).unwrap();
                assert_eq!(
                    m.mul_r3(a, b).unwrap(),
                    want,
                    "R/3 case {k}: latpoly {isa} vs PQClean {build}"
                );
            }
        }
    }
}

/// The wrappers refuse what they cannot run, and operands of the wrong length with an error
/// that leaves the loaded operands as they were.
#[test]
fn wrappers_refuse_other_degrees_and_lengths() {
    for build in Build::all_available() {
        for n in [0usize, 508, 700, 1229] {
            assert!(NtruRqMul::new(n, build).is_none(), "n={n} {build}");
        }
        let mut m = NtruRqMul::new(509, build).unwrap();
        let (one, x) = (
            (0..509).map(|i| (i == 0) as u16).collect::<Vec<_>>(),
            (0..509).map(|i| (i == 1) as u16).collect::<Vec<_>>(),
        );
        m.set(&one, &x).unwrap();
        let err = m.set(&x[..508], &x).unwrap_err();
        assert_eq!((err.expected, err.got), (509, 508));
        assert!(m.set(&x, &[0u16; 510]).is_err());
        m.multiply();
        assert_eq!(m.result()[1] % 2048, 1, "operands changed by a refused set");
        let mut p = NtruPrimeMul::new(build).unwrap();
        assert!(p.set(&[0i16; 760], &[0i8; 761]).is_err());
        assert!(p.set(&[0i16; 761], &[0i8; 762]).is_err());
        assert!(p.set_r3(&[0i8; 761], &[0i8; 1]).is_err());
        assert!(p.set(&[0i16; 761], &[0i8; 761]).is_ok());
    }
    assert!(Build::Clean.available());
    assert_eq!(Build::best() == Build::Avx2, Build::Avx2.available());
}
