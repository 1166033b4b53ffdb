//! NTRU+ ring arithmetic (`latpoly::rings::ntruplus`) against independent oracles and the
//! KpqC round-2 final (spec v2.2.1) KATs:
//!
//! * the NTT against schoolbook reduction modulo every base ring `x^d - ζ^(e_j)` (values and
//!   the spec's component order), the inverse, the zeta tables against their definition;
//! * `mul` against the schoolbook product mod `(x^n - x^(n/2) + 1, q)`, on every backend;
//! * `basemul`/`baseinv` against base-ring arithmetic, the invertibility flag on constructed
//!   non-invertible inputs (zero components and zero divisors);
//! * every backend against the scalar reference (same values mod q, outputs in `(-q, q)`; the
//!   SIMD NTTs in the reference's output ranges);
//! * `encodeq`/`decodeq`/`cbd1`, and the wire format of all 100 KAT key pairs per set.

use latpoly::rings::ntruplus::{self, NtruPlusParams, NtruPlusRing};
use latpoly::Isa;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::path::PathBuf;

const Q: i64 = 3457;
const R: i64 = 65536 % Q; // 3310
const RINV: i64 = 2775; // 2^-16 mod q

fn md(x: i64) -> i64 {
    x.rem_euclid(Q)
}

fn pow(b: i64, e: u64) -> i64 {
    let (mut r, mut x, mut e) = (1i64, md(b), e);
    while e > 0 {
        if e & 1 == 1 {
            r = r * x % Q;
        }
        x = x * x % Q;
        e >>= 1;
    }
    r
}

fn rings(p: NtruPlusParams) -> Vec<NtruPlusRing> {
    ntruplus::available_isas()
        .into_iter()
        .map(|i| NtruPlusRing::with_isa(p, i).unwrap())
        .collect()
}

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

fn random_poly(n: usize, r: &mut ChaCha20Rng) -> Vec<i16> {
    (0..n).map(|_| r.gen_range(-3456i16..=3456)).collect()
}

/// `c_j` with component `j` being `x^d - c_j`.
fn component_constant(p: NtruPlusParams, j: usize) -> i64 {
    pow(
        p.zeta() as i64,
        ntruplus::component_exponent(p, j).unwrap() as u64,
    )
}

/// `f mod (x^d - c)` by schoolbook reduction.
fn reduce_mod_binomial(f: &[i16], d: usize, c: i64) -> Vec<i64> {
    let mut out = vec![0i64; d];
    let mut cpow = 1i64;
    for (blk, chunk) in f.chunks(d).enumerate() {
        let _ = blk;
        for (k, &v) in chunk.iter().enumerate() {
            out[k] = md(out[k] + v as i64 * cpow);
        }
        cpow = cpow * c % Q;
    }
    out
}

/// Product in `Z_q[x]/(x^d - c)`.
fn base_product(a: &[i64], b: &[i64], c: i64) -> Vec<i64> {
    let d = a.len();
    let mut out = vec![0i64; d];
    for i in 0..d {
        for j in 0..d {
            let t = a[i] * b[j] % Q;
            if i + j < d {
                out[i + j] = md(out[i + j] + t);
            } else {
                out[i + j - d] = md(out[i + j - d] + t * c);
            }
        }
    }
    out
}

/// Schoolbook `a·b mod (x^n - x^(n/2) + 1, q)`.
fn schoolbook(a: &[i16], b: &[i16]) -> Vec<u16> {
    let n = a.len();
    let mut full = vec![0i64; 2 * n];
    for (i, &x) in a.iter().enumerate() {
        if x == 0 {
            continue;
        }
        for (j, &y) in b.iter().enumerate() {
            full[i + j] += x as i64 * y as i64;
        }
        if i % 64 == 63 {
            for v in full.iter_mut() {
                *v %= Q;
            }
        }
    }
    // x^k = x^(k - n/2) - x^(k - n) for k >= n, from the top down
    for k in (n..2 * n).rev() {
        let v = full[k] % Q;
        full[k] = 0;
        full[k - n / 2] = (full[k - n / 2] + v) % Q;
        full[k - n] = (full[k - n] - v) % Q;
    }
    full[..n].iter().map(|&v| md(v) as u16).collect()
}

fn assert_in_range(a: &[i16], what: &str) {
    if let Some(i) = a.iter().position(|v| v.unsigned_abs() >= Q as u16) {
        panic!("{what}: value {} at {i} outside (-q, q)", a[i]);
    }
}

#[test]
fn params_and_tables() {
    for p in NtruPlusParams::ALL {
        assert_eq!(NtruPlusParams::from_n(p.n()).unwrap(), p);
        let s = p.n() / p.d();
        let ell = 3 * p.n() / p.d();
        let zeta = p.zeta() as i64;
        // ζ has order exactly ℓ
        assert_eq!(pow(zeta, ell as u64), 1);
        for pr in [2, 3] {
            assert_ne!(pow(zeta, (ell / pr) as u64), 1);
        }
        // the component exponents are exactly the units mod ℓ, neighbours differ by ℓ/2
        let mut es: Vec<usize> = (0..s)
            .map(|j| ntruplus::component_exponent(p, j).unwrap())
            .collect();
        for j in (0..s).step_by(2) {
            assert_eq!(es[j + 1], (es[j] + ell / 2) % ell, "{} pair {j}", p.name());
        }
        es.sort_unstable();
        let units: Vec<usize> = (1..ell).filter(|&e| gcd(e, ell) == 1).collect();
        assert_eq!(es, units, "{}", p.name());
        assert!(ntruplus::component_exponent(p, s).is_err());
        // table entries: zetas[0] = R, zetas[1] = ζ6·R, base constants at the end
        let z = ntruplus::zetas(p);
        assert_eq!(z.len(), s);
        assert_eq!(z[0], -147);
        assert_eq!(md(z[1] as i64), md(R * pow(zeta, (ell / 6) as u64)));
        for k in 0..s / 2 {
            assert_eq!(
                md(z[s / 2 + k] as i64),
                md(R * component_constant(p, 2 * k)),
                "{} zetas[{}]",
                p.name(),
                s / 2 + k
            );
        }
        assert!(z.iter().all(|&v| v.unsigned_abs() <= 1728));
    }
    // entries known from the reference ntt.c
    assert_eq!(
        &ntruplus::zetas(NtruPlusParams::Kem768)[..8],
        &[-147, -1033, -682, -248, -708, 682, 1, -722]
    );
    for n in [0, 512, 575, 1024, 1153] {
        assert!(NtruPlusParams::from_n(n).is_err());
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[test]
fn ntt_is_crt_in_spec_order() {
    let mut r = rng(1);
    for p in NtruPlusParams::ALL {
        let (n, d) = (p.n(), p.d());
        let consts: Vec<i64> = (0..n / d).map(|j| component_constant(p, j)).collect();
        for ring in rings(p) {
            let mut inputs = vec![vec![3456i16; n], vec![-3456i16; n]];
            inputs.push(
                (0..n)
                    .map(|i| if i % 2 == 0 { 3456 } else { -3456 })
                    .collect(),
            );
            for _ in 0..20 {
                inputs.push(random_poly(n, &mut r));
            }
            for f in inputs {
                let mut a = f.clone();
                ring.ntt(&mut a).unwrap();
                assert_in_range(&a, "ntt");
                for (j, &c) in consts.iter().enumerate() {
                    let want = reduce_mod_binomial(&f, d, c);
                    let got: Vec<i64> = a[j * d..j * d + d].iter().map(|&v| md(v as i64)).collect();
                    assert_eq!(got, want, "{} {} component {j}", p.name(), ring.isa());
                }
            }
        }
    }
}

#[test]
fn invntt_inverts_with_montgomery_factor() {
    let mut r = rng(2);
    for p in NtruPlusParams::ALL {
        for ring in rings(p) {
            for _ in 0..50 {
                let f = random_poly(p.n(), &mut r);
                let mut a = f.clone();
                ring.ntt(&mut a).unwrap();
                ring.invntt(&mut a).unwrap();
                assert_in_range(&a, "invntt");
                for (x, y) in a.iter().zip(&f) {
                    assert_eq!(
                        md(*x as i64),
                        md(R * *y as i64),
                        "{} {}",
                        p.name(),
                        ring.isa()
                    );
                }
                // and from arbitrary NTT-domain values
                let g = random_poly(p.n(), &mut r);
                let mut b = g.clone();
                ring.invntt(&mut b).unwrap();
                assert_in_range(&b, "invntt");
                ring.ntt(&mut b).unwrap();
                for (x, y) in b.iter().zip(&g) {
                    assert_eq!(md(*x as i64), md(R * *y as i64));
                }
            }
        }
    }
}

#[test]
fn mul_matches_schoolbook() {
    let mut r = rng(3);
    for p in NtruPlusParams::ALL {
        let rs = rings(p);
        let n = p.n();
        for it in 0..1000 {
            let a = random_poly(n, &mut r);
            let b: Vec<i16> = if it % 4 == 0 {
                // small operands, as in the KEM
                (0..n).map(|_| r.gen_range(-3i16..=4)).collect()
            } else {
                random_poly(n, &mut r)
            };
            let want = schoolbook(&a, &b);
            for ring in &rs {
                let got = if it % 2 == 0 {
                    ring.mul(&a, &b).unwrap()
                } else {
                    let au: Vec<u16> = a.iter().map(|&v| md(v as i64) as u16).collect();
                    let bu: Vec<u16> = b.iter().map(|&v| md(v as i64) as u16).collect();
                    ring.mul(&au, &bu).unwrap()
                };
                assert_eq!(got, want, "{} {} iteration {it}", p.name(), ring.isa());
            }
        }
    }
}

#[test]
fn basemul_is_base_ring_product() {
    let mut r = rng(4);
    for p in NtruPlusParams::ALL {
        let d = p.d();
        for ring in rings(p) {
            for _ in 0..30 {
                let a = random_poly(p.n(), &mut r);
                let b = random_poly(p.n(), &mut r);
                let c = ring.basemul(&a, &b).unwrap();
                assert_in_range(&c, "basemul");
                for j in 0..p.components() {
                    let x: Vec<i64> = a[j * d..j * d + d].iter().map(|&v| v as i64).collect();
                    let y: Vec<i64> = b[j * d..j * d + d].iter().map(|&v| v as i64).collect();
                    let want: Vec<i64> = base_product(&x, &y, component_constant(p, j))
                        .into_iter()
                        .map(|v| md(v * RINV))
                        .collect();
                    let got: Vec<i64> = c[j * d..j * d + d].iter().map(|&v| md(v as i64)).collect();
                    assert_eq!(got, want, "{} {} component {j}", p.name(), ring.isa());
                }
            }
        }
    }
}

fn check_inverse(p: NtruPlusParams, ring: &NtruPlusRing, a: &[i16], inv: &[i16], skip: &[usize]) {
    let d = p.d();
    let one = ring.basemul(a, inv).unwrap();
    for j in 0..p.components() {
        let got: Vec<i64> = one[j * d..j * d + d]
            .iter()
            .map(|&v| md(v as i64))
            .collect();
        if skip.contains(&j) {
            assert!(inv[j * d..j * d + d].iter().all(|&v| v == 0));
            continue;
        }
        let mut want = vec![0i64; d];
        want[0] = R;
        assert_eq!(got, want, "{} {} component {j}", p.name(), ring.isa());
    }
}

/// Runs `baseinv` on `a`, checks the flag against an independent invertibility test, the
/// inverses of the invertible components and the zeros of the others; returns the latter.
fn check_baseinv(p: NtruPlusParams, ring: &NtruPlusRing, a: &[i16]) -> Vec<usize> {
    let d = p.d();
    let (inv, ok) = ring.baseinv(a).unwrap();
    assert_in_range(&inv, "baseinv");
    let bad: Vec<usize> = (0..p.components())
        .filter(|&j| {
            let x: Vec<i64> = a[j * d..j * d + d].iter().map(|&v| v as i64).collect();
            !invertible(&x, component_constant(p, j))
        })
        .collect();
    assert_eq!(ok, bad.is_empty(), "{} {} flag", p.name(), ring.isa());
    check_inverse(p, ring, a, &inv, &bad);
    bad
}

/// A non-zero non-unit of `Z_q[x]/(x^d - c)` if there is one (a factor `x - r` or `x^2 - s`).
fn zero_divisor(d: usize, c: i64) -> Option<Vec<i16>> {
    let mut z = vec![0i16; d];
    if let Some(r) = (0..Q).find(|&r| pow(r, d as u64) == c) {
        z[0] = md(-r) as i16;
        z[1] = 1;
        return Some(z);
    }
    if d == 4 {
        if let Some(s) = (0..Q).find(|&s| s * s % Q == c) {
            z[0] = md(-s) as i16;
            z[2] = 1;
            return Some(z);
        }
    }
    None
}

#[test]
fn baseinv_inverts_and_flags() {
    let mut r = rng(5);
    for p in NtruPlusParams::ALL {
        let d = p.d();
        let m = p.components();
        for ring in rings(p) {
            let mut natural = 0;
            for _ in 0..20 {
                let a = random_poly(p.n(), &mut r);
                natural += check_baseinv(p, &ring, &a).len();
            }
            let _ = natural;
            // constructed non-invertible inputs: one zero component, one zero divisor, all zero
            let mut zd_found = 0;
            for trial in 0..6 {
                let mut a = random_poly(p.n(), &mut r);
                let j = r.gen_range(0..m);
                let comp: Vec<i16> = if trial % 2 == 0 {
                    vec![0; d]
                } else {
                    match zero_divisor(d, component_constant(p, j)) {
                        Some(z) => {
                            zd_found += 1;
                            // scale by a random unit so it is not monic
                            let u = r.gen_range(1..Q);
                            z.iter().map(|&v| md(v as i64 * u) as i16).collect()
                        }
                        None => vec![0; d],
                    }
                };
                a[j * d..j * d + d].copy_from_slice(&comp);
                let bad = check_baseinv(p, &ring, &a);
                assert!(
                    bad.contains(&j),
                    "{} {} component {j} {comp:?}",
                    p.name(),
                    ring.isa()
                );
            }
            if d == 4 {
                assert!(zd_found > 0, "no zero divisor constructed for {}", p.name());
            }
            let (inv, ok) = ring.baseinv(&vec![0; p.n()]).unwrap();
            assert!(!ok && inv.iter().all(|&v| v == 0));
            // the last and the first component alone
            for j in [0, m - 1] {
                let mut a = random_poly(p.n(), &mut r);
                a[j * d..j * d + d].fill(0);
                let (_, ok) = ring.baseinv(&a).unwrap();
                assert!(!ok);
            }
        }
    }
}

/// Invertibility in `Z_q[x]/(x^d - c)` via the rank of the multiplication matrix.
fn invertible(a: &[i64], c: i64) -> bool {
    let d = a.len();
    // rows: the coefficients of a·x^k
    let mut m: Vec<Vec<i64>> = (0..d)
        .map(|k| {
            let mut e = vec![0i64; d];
            e[k] = 1;
            base_product(a, &e, c)
        })
        .collect();
    // Gaussian elimination mod q (the rank of a matrix equals that of its transpose)
    let mut rank = 0;
    for col in 0..d {
        let Some(piv) = (rank..d).find(|&i| m[i][col] != 0) else {
            continue;
        };
        m.swap(rank, piv);
        let pivot = m[rank].clone();
        let inv = pow(pivot[col], Q as u64 - 2);
        for (i, row) in m.iter_mut().enumerate() {
            if i != rank && row[col] != 0 {
                let f = row[col] * inv % Q;
                for (x, y) in row.iter_mut().zip(&pivot) {
                    *x = md(*x - f * y);
                }
            }
        }
        rank += 1;
    }
    rank == d
}

#[test]
fn backends_agree_with_scalar() {
    let isas = ntruplus::available_isas();
    eprintln!(
        "NTRU+ backends on this CPU: {isas:?} (default {})",
        ntruplus::isa()
    );
    let mut r = rng(6);
    for p in NtruPlusParams::ALL {
        let scalar = NtruPlusRing::with_isa(p, Isa::Scalar).unwrap();
        for ring in rings(p) {
            if ring.isa() == Isa::Scalar {
                continue;
            }
            let n = p.n();
            let mut inputs = vec![vec![3456i16; n], vec![-3456i16; n], vec![0i16; n]];
            inputs.push(
                (0..n)
                    .map(|i| if i % 3 == 0 { 3456 } else { -3456 })
                    .collect(),
            );
            for _ in 0..200 {
                inputs.push(random_poly(n, &mut r));
            }
            let cong = |x: &[i16], y: &[i16], what: &str| {
                assert_in_range(x, what);
                for (i, (u, v)) in x.iter().zip(y).enumerate() {
                    assert_eq!(md(*u as i64), md(*v as i64), "{} {what} at {i}", p.name());
                }
            };
            for (k, f) in inputs.iter().enumerate() {
                let g = &inputs[(k + 1) % inputs.len()];
                let (mut x, mut y) = (f.clone(), f.clone());
                scalar.ntt(&mut x).unwrap();
                ring.ntt(&mut y).unwrap();
                // lazier reductions: congruent, in the reference's output range
                cong(&y, &x, "ntt");
                assert!(y.iter().all(|&v| (-1728..=1729).contains(&v)), "ntt range");
                let (mut x, mut y) = (f.clone(), f.clone());
                scalar.invntt(&mut x).unwrap();
                ring.invntt(&mut y).unwrap();
                cong(&y, &x, "invntt");
                cong(
                    &ring.basemul(f, g).unwrap(),
                    &scalar.basemul(f, g).unwrap(),
                    "basemul",
                );
                let (xi, xo) = scalar.baseinv(f).unwrap();
                let (yi, yo) = ring.baseinv(f).unwrap();
                assert_eq!(xo, yo, "{} baseinv flag", p.name());
                cong(&yi, &xi, "baseinv");
            }
        }
    }
}

/// Out-of-range inputs of `ntt` and `invntt` on every backend: the error names the first bad
/// coefficient and the input comes back bit for bit. The AVX-512 forward checks inside its
/// first layer (the upper half before any store, the lower half during the split, then undoes
/// it), so bad values go in both halves, at the edges of vectors and of the 16-lane tail of
/// 864, alone and in pairs; a valid input afterwards still transforms like the scalar code.
#[test]
fn transform_range_errors_leave_the_input() {
    let mut r = rng(11);
    for p in NtruPlusParams::ALL {
        let n = p.n();
        let h = n / 2;
        let scalar = NtruPlusRing::with_isa(p, Isa::Scalar).unwrap();
        let mut positions = vec![0, 1, 31, 32, h - 17, h - 16, h - 1, h, h + 1, h + 31];
        positions.extend([h + 32, n - 33, n - 17, n - 16, n - 1]);
        positions.extend((0..10).map(|_| r.gen_range(0..n)));
        for ring in rings(p) {
            for (k, &i) in positions.iter().enumerate() {
                let mut a = random_poly(n, &mut r);
                a[i] = [3457, -3457, i16::MAX, i16::MIN][k % 4];
                let mut first = i;
                if k % 3 == 0 {
                    // a second bad value in the other half: the error names the first one
                    let j = (i + h) % n;
                    a[j] = 4000;
                    first = i.min(j);
                }
                for inverse in [false, true] {
                    let before = a.clone();
                    let res = if inverse {
                        ring.invntt(&mut a)
                    } else {
                        ring.ntt(&mut a)
                    };
                    let what = format!("{} {} inverse={inverse} bad at {i}", p.name(), ring.isa());
                    let err = res.expect_err(&what).to_string();
                    assert!(
                        err.contains(&format!("coefficient {first} is {}", before[first])),
                        "{what}: {err}"
                    );
                    assert!(a == before, "{what}: the input changed");
                }
            }
            let f = random_poly(n, &mut r);
            let (mut x, mut y) = (f.clone(), f);
            scalar.ntt(&mut x).unwrap();
            ring.ntt(&mut y).unwrap();
            assert!(
                x.iter()
                    .zip(&y)
                    .all(|(u, v)| md(*u as i64) == md(*v as i64)),
                "{} {}: ntt after the failed calls",
                p.name(),
                ring.isa()
            );
        }
    }
}

#[test]
fn encodeq_decodeq_roundtrip() {
    let mut r = rng(7);
    for p in NtruPlusParams::ALL {
        let n = p.n();
        for _ in 0..50 {
            let a = random_poly(n, &mut r);
            let bytes = ntruplus::encodeq(&a, p).unwrap();
            assert_eq!(bytes.len(), p.encoded_bytes());
            let back = ntruplus::decodeq(&bytes, p).unwrap();
            for (x, y) in back.iter().zip(&a) {
                assert_eq!(*x as i64, md(*y as i64));
            }
            // canonical encodings round-trip byte for byte
            assert_eq!(ntruplus::encodeq(&back, p).unwrap(), bytes);
        }
        // every 12-bit field is used: a single value lands in the expected place
        for i in [0, 1, 15, 16, 31, 63, 64, n - 33, n - 32, n - 1] {
            let mut a = vec![0i16; n];
            a[i] = 0xabc;
            let back = ntruplus::decodeq(&ntruplus::encodeq(&a, p).unwrap(), p).unwrap();
            assert_eq!(back, a, "{} index {i}", p.name());
        }
        // errors: length, out-of-range input, non-canonical field
        assert!(ntruplus::encodeq(&vec![0; n - 1], p).is_err());
        let mut bad = vec![0i16; n];
        bad[5] = 3457;
        assert!(ntruplus::encodeq(&bad, p).is_err());
        bad[5] = -3457;
        assert!(ntruplus::encodeq(&bad, p).is_err());
        assert!(ntruplus::decodeq(&vec![0; p.encoded_bytes() + 1], p).is_err());
        let mut a = vec![0i16; n];
        a[n - 1] = 3456;
        let mut bytes = ntruplus::encodeq(&a, p).unwrap();
        assert!(ntruplus::decodeq(&bytes, p).is_ok());
        // 3456 -> 3457 in the last coefficient's field: find the byte that changed and bump it
        let zero = ntruplus::encodeq(&vec![0i16; n], p).unwrap();
        let k = (0..bytes.len())
            .rev()
            .find(|&k| bytes[k] != zero[k])
            .unwrap();
        bytes.iter_mut().for_each(|b| *b = 0xff);
        let err = ntruplus::decodeq(&bytes, p).unwrap_err();
        assert!(matches!(
            err,
            latpoly::Error::CoefficientOutOfRange { bound: 3457, .. }
        ));
        let _ = k;
    }
}

#[test]
fn cbd1_bit_order() {
    for p in NtruPlusParams::ALL {
        let n = p.n();
        assert!(ntruplus::cbd1(&vec![0; n / 4 - 1], p).is_err());
        let mut seen = vec![false; n];
        for bit in 0..n {
            let mut b = vec![0u8; n / 4];
            b[bit / 8] |= 1 << (bit % 8);
            let f = ntruplus::cbd1(&b, p).unwrap();
            let pos: Vec<usize> = (0..n).filter(|&i| f[i] != 0).collect();
            assert_eq!(pos.len(), 1);
            assert_eq!(f[pos[0]], 1);
            assert!(!seen[pos[0]]);
            seen[pos[0]] = true;
            // the same bit in the second half gives -1 at the same place
            let mut b2 = vec![0u8; n / 4];
            b2[n / 8 + bit / 8] |= 1 << (bit % 8);
            let g = ntruplus::cbd1(&b2, p).unwrap();
            assert_eq!(g[pos[0]], -1);
            // PARAMS C.4: in a 32-byte block, bit k of LE16 word j is coefficient 256·blk + 16k + j
            if bit < n / 256 * 256 {
                let (blk, word, k) = (bit / 256, (bit % 256) / 16, bit % 16);
                assert_eq!(pos[0], 256 * blk + 16 * k + word);
            }
        }
        assert!(seen.iter().all(|&s| s));
    }
    // 576's tail: four LE16 words at byte offset 64, bit k of word j -> 512 + 4k + j
    let p = NtruPlusParams::Kem576;
    let mut b = vec![0u8; 144];
    b[64 + 2 * 3 + 1] = 1 << 2; // word 3, bit 10
    let f = ntruplus::cbd1(&b, p).unwrap();
    assert_eq!(f[512 + 4 * 10 + 3], 1);
}

#[test]
fn bad_inputs_are_errors() {
    for p in NtruPlusParams::ALL {
        let n = p.n();
        // every backend: the range checks are vectorised per backend
        for r in rings(p) {
            let mut short = vec![0i16; n - 1];
            let (zero, mut out) = (vec![0i16; n], vec![0i16; n]);
            assert!(r.ntt(&mut short).is_err());
            assert!(r.invntt(&mut short).is_err());
            assert!(r.basemul(&short, &short).is_err());
            assert!(r.basemul(&zero, &short).is_err());
            assert!(r.basemul_into(&mut out, &short, &zero).is_err());
            assert!(r.basemul_into(&mut short, &zero, &zero).is_err());
            assert!(r.baseinv(&short).is_err());
            assert!(r.baseinv_into(&mut out, &short).is_err());
            assert!(r.baseinv_into(&mut short, &zero).is_err());
            assert!(r.mul(&short, &short).is_err());
            for bad in [3457i16, -3457, i16::MAX, i16::MIN] {
                let mut a = vec![0i16; n];
                a[n / 2] = bad;
                assert!(r.ntt(&mut a.clone()).is_err());
                assert!(r.invntt(&mut a.clone()).is_err());
                assert!(r.basemul(&a, &zero).is_err());
                assert!(r.basemul_into(&mut out, &zero, &a).is_err());
                assert!(r.baseinv(&a).is_err());
                assert!(r.baseinv_into(&mut out, &a).is_err());
                assert!(r.mul(&a, &zero).is_err());
                assert!(ntruplus::encodeq(&a, p).is_err());
            }
            // the vectorised check sees an offender at every position (every lane, every
            // vector, the tails), and accepts the extremes ±(q-1) everywhere
            let mut a = vec![3456i16; n];
            for (i, v) in a.iter_mut().enumerate() {
                if i % 2 == 1 {
                    *v = -3456;
                }
            }
            assert!(r.ntt(&mut a.clone()).is_ok(), "{} {}", p.name(), r.isa());
            for i in 0..n {
                let mut b = a.clone();
                b[i] = if i % 2 == 0 { 3457 } else { -3457 };
                let err = r.ntt(&mut b).unwrap_err();
                assert!(
                    err.to_string().contains(&format!("coefficient {i} ")),
                    "{} {}: {err}",
                    p.name(),
                    r.isa()
                );
            }
            let mut u = vec![0u16; n];
            u[3] = 3457;
            assert!(r.mul(&u, &vec![0u16; n]).is_err());
        }
    }
    assert!(NtruPlusRing::with_isa(NtruPlusParams::Kem576, Isa::Avx512Ifma).is_err());
}

// ---------------------------------------------------------------------------------------------
// KATs

fn kat_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/kat/ntruplus/round2-final_spec-v2.2.1");
    if dir.is_dir() {
        Some(dir)
    } else if std::env::var("CI").as_deref() == Ok("true") {
        panic!("KAT directory {} missing on CI", dir.display());
    } else {
        eprintln!("skipped: {} not found", dir.display());
        None
    }
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// `(pk, sk)` of every record of a `.rsp` file.
fn kat_keys(path: &PathBuf) -> Vec<(Vec<u8>, Vec<u8>)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut pk = None;
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("pk = ") {
            pk = Some(hex(v.trim()));
        } else if let Some(v) = line.strip_prefix("sk = ") {
            out.push((pk.take().unwrap(), hex(v.trim())));
        }
    }
    out
}

#[test]
fn kat_wire_format() {
    let Some(dir) = kat_dir() else { return };
    for (p, skb) in [
        (NtruPlusParams::Kem576, 1760),
        (NtruPlusParams::Kem768, 2336),
        (NtruPlusParams::Kem864, 2624),
        (NtruPlusParams::Kem1152, 3488),
    ] {
        let path = dir.join(format!("{}/PQCkemKAT_{skb}.rsp", p.name()));
        let keys = kat_keys(&path);
        assert_eq!(keys.len(), 100, "{}", path.display());
        let (n, d, l) = (p.n(), p.d(), p.encoded_bytes());
        for ring in rings(p) {
            for (rec, (pk, sk)) in keys.iter().enumerate() {
                assert_eq!((pk.len(), sk.len()), (l, skb));
                let h = ntruplus::decodeq(pk, p).unwrap(); // 2^16·ĥ
                let fhat = ntruplus::decodeq(&sk[..l], p).unwrap(); // f̂
                let hinv = ntruplus::decodeq(&sk[l..2 * l], p).unwrap(); // 2^16·ĥ^-1
                                                                         // canonical encodings
                assert_eq!(ntruplus::encodeq(&h, p).unwrap(), *pk);
                assert_eq!(ntruplus::encodeq(&fhat, p).unwrap(), sk[..l]);
                assert_eq!(ntruplus::encodeq(&hinv, p).unwrap(), sk[l..2 * l]);
                let ctx = format!("{} {} record {rec}", p.name(), ring.isa());
                // basemul(2^16·ĥ, 2^16·ĥ^-1) = 2^16 (the Montgomery one) in every component
                let one = ring.basemul(&h, &hinv).unwrap();
                for j in 0..p.components() {
                    assert_eq!(md(one[j * d] as i64), R, "{ctx} component {j}");
                    assert!(one[j * d + 1..j * d + d].iter().all(|&v| md(v as i64) == 0));
                }
                // baseinv(pk part) reproduces the sk part exactly (after Encodeq)
                let (inv, ok) = ring.baseinv(&h).unwrap();
                assert!(ok, "{ctx}");
                assert_eq!(ntruplus::encodeq(&inv, p).unwrap(), sk[l..2 * l], "{ctx}");
                // f̂ = NTT(f) with f = 3·CBD1 + 1: f_0 in {-2, 1, 4}, f_i in {-3, 0, 3}
                let mut f = fhat.clone();
                ring.invntt(&mut f).unwrap(); // 2^16 · f
                let f: Vec<i64> = f
                    .iter()
                    .map(|&v| {
                        let x = md(v as i64 * RINV);
                        if x > Q / 2 {
                            x - Q
                        } else {
                            x
                        }
                    })
                    .collect();
                assert!([-2, 1, 4].contains(&f[0]), "{ctx}: f0 = {}", f[0]);
                assert!(
                    f[1..].iter().all(|v| [-3, 0, 3].contains(v)),
                    "{ctx}: f not ternary·3"
                );
                // and the forward NTT of that f is f̂ again
                let mut fh: Vec<i16> = f.iter().map(|&v| v as i16).collect();
                ring.ntt(&mut fh).unwrap();
                assert_eq!(ntruplus::encodeq(&fh, p).unwrap(), sk[..l], "{ctx}");
                // h·f = g with g = 3·CBD1: ĝ = ĥ∘f̂ = basemul(2^16·ĥ, f̂), invntt gives 2^16·g
                let mut g = ring.basemul(&h, &fhat).unwrap();
                ring.invntt(&mut g).unwrap();
                assert!(
                    g.iter()
                        .all(|&v| [0, 3, Q - 3].contains(&md(v as i64 * RINV))),
                    "{ctx}: g not ternary·3"
                );
                let _ = n;
            }
        }
    }
}
