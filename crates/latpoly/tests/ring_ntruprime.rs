//! NTRU Prime ring arithmetic (`latpoly::rings::ntruprime`): every product path against the
//! schoolbook reference (itself checked against an independent oracle below), reciprocals,
//! encodings, and known answers from the NIST round-3 KATs in `shared/kat/ntruprime`.

use latpoly::rings::ntruprime::{
    self as np, decode, encode, encoded_len, mul_r3, mul_rq, mul_rq_small, recip3_rq, recip_r3,
    round3, rounded_decode, rounded_encode, rq_decode, rq_encode, small_decode, small_encode,
    Multiplier, P, Q, Q12, ROUNDED_BYTES, RQ_BYTES, SMALL_BYTES, W,
};
use latpoly::{Error, Isa};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::path::PathBuf;

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

fn centred(r: &mut ChaCha20Rng) -> Vec<i16> {
    (0..P).map(|_| r.gen_range(-Q12..=Q12)).collect()
}

fn small(r: &mut ChaCha20Rng) -> Vec<i8> {
    (0..P).map(|_| r.gen_range(-1i8..=1)).collect()
}

/// Short polynomial: exactly `w` entries `±1`.
fn short(r: &mut ChaCha20Rng, w: usize) -> Vec<i8> {
    let mut v = vec![0i8; P];
    let mut placed = 0;
    while placed < w {
        let i = r.gen_range(0..P);
        if v[i] == 0 {
            v[i] = if r.gen() { 1 } else { -1 };
            placed += 1;
        }
    }
    v
}

/// Independent oracle: `(a · b mod (x^p - x - 1)) mod m`, centred, by plain `i128` arithmetic
/// and the definition `x^p = x + 1` (one power at a time, highest first).
fn oracle(a: &[i64], b: &[i64], m: i64) -> Vec<i64> {
    let mut c = vec![0i128; 2 * P - 1];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            c[i + j] += i128::from(x) * i128::from(y);
        }
    }
    for k in (P..2 * P - 1).rev() {
        let t = c[k];
        c[k] = 0;
        c[k - P] += t;
        c[k - P + 1] += t;
    }
    c[..P]
        .iter()
        .map(|&x| {
            let r = x.rem_euclid(i128::from(m)) as i64;
            if r > m / 2 {
                r - m
            } else {
                r
            }
        })
        .collect()
}

fn wide<T: Copy + Into<i64>>(v: &[T]) -> Vec<i64> {
    v.iter().map(|&x| x.into()).collect()
}

fn one_small() -> Vec<i8> {
    let mut v = vec![0i8; P];
    v[0] = 1;
    v
}

fn reference() -> Multiplier {
    Multiplier::with_isa(Isa::Scalar).unwrap()
}

/// Every backend this CPU runs; the skipped ones are printed (a test never passes vacuously).
fn paths() -> Vec<Multiplier> {
    let avail = Multiplier::available_isas();
    for isa in Isa::ALL {
        if !avail.contains(&isa) {
            println!("ntruprime: backend {isa} has no NTRU Prime path on this CPU: skipped");
        }
    }
    println!("ntruprime: testing backends {avail:?}");
    avail
        .into_iter()
        .map(|i| Multiplier::with_isa(i).unwrap())
        .collect()
}

#[test]
fn constants() {
    assert_eq!((P, Q, Q12, W), (761, 4591, 2295, 286));
    assert_eq!((RQ_BYTES, ROUNDED_BYTES, SMALL_BYTES), (1158, 1007, 191));
    assert_eq!(encoded_len(&[Q; P]).unwrap(), RQ_BYTES);
    assert_eq!(encoded_len(&[1531; P]).unwrap(), ROUNDED_BYTES);
}

#[test]
fn reference_matches_independent_oracle() {
    let mut r = rng(1);
    let m = reference();
    for _ in 0..40 {
        let (a, b, s, t) = (
            centred(&mut r),
            centred(&mut r),
            small(&mut r),
            small(&mut r),
        );
        assert_eq!(
            wide(&m.mul_rq(&a, &b).unwrap()),
            oracle(&wide(&a), &wide(&b), 4591)
        );
        assert_eq!(
            wide(&m.mul_rq_small(&a, &s).unwrap()),
            oracle(&wide(&a), &wide(&s), 4591)
        );
        assert_eq!(
            wide(&m.mul_r3(&s, &t).unwrap()),
            oracle(&wide(&s), &wide(&t), 3)
        );
    }
    // Any i16 input is reduced modulo q first.
    let a: Vec<i16> = (0..P).map(|_| r.gen()).collect();
    let b: Vec<i16> = (0..P).map(|_| r.gen()).collect();
    assert_eq!(
        wide(&m.mul_rq(&a, &b).unwrap()),
        oracle(&wide(&a), &wide(&b), 4591)
    );
}

/// Compares one path against the reference, reporting the first differing index.
fn same<T: PartialEq + std::fmt::Debug>(isa: Isa, what: &str, got: &[T], want: &[T]) {
    if let Some(i) = got.iter().zip(want).position(|(x, y)| x != y) {
        panic!(
            "{isa} {what}: first difference at index {i}: got {:?}, want {:?}",
            got[i], want[i]
        );
    }
    assert_eq!(got.len(), want.len());
}

#[test]
fn random_products_every_path() {
    let paths = paths();
    let refm = reference();
    let mut r = rng(2);
    let rounds = 2000;
    for k in 0..rounds {
        let a = centred(&mut r);
        let b = centred(&mut r);
        let s = if k % 2 == 0 {
            small(&mut r)
        } else {
            short(&mut r, W)
        };
        let t = small(&mut r);
        let want_rq = refm.mul_rq(&a, &b).unwrap();
        let want_small = refm.mul_rq_small(&a, &s).unwrap();
        let want_r3 = refm.mul_r3(&s, &t).unwrap();
        for m in &paths {
            same(m.isa(), "mul_rq", &m.mul_rq(&a, &b).unwrap(), &want_rq);
            same(
                m.isa(),
                "mul_rq_small",
                &m.mul_rq_small(&a, &s).unwrap(),
                &want_small,
            );
            same(m.isa(), "mul_r3", &m.mul_r3(&s, &t).unwrap(), &want_r3);
        }
    }
    println!(
        "ntruprime: {rounds} random products of each kind on each of {} paths",
        paths.len()
    );
}

#[test]
fn non_centred_inputs_every_path() {
    let refm = reference();
    let mut r = rng(3);
    for m in paths() {
        for _ in 0..50 {
            let a: Vec<i16> = (0..P).map(|_| r.gen()).collect();
            let b: Vec<i16> = (0..P).map(|_| r.gen()).collect();
            let s = small(&mut r);
            same(
                m.isa(),
                "mul_rq any i16",
                &m.mul_rq(&a, &b).unwrap(),
                &refm.mul_rq(&a, &b).unwrap(),
            );
            same(
                m.isa(),
                "mul_rq_small any i16",
                &m.mul_rq_small(&a, &s).unwrap(),
                &refm.mul_rq_small(&a, &s).unwrap(),
            );
        }
    }
}

#[test]
fn edge_inputs_every_path() {
    let refm = reference();
    let alternating: Vec<i16> = (0..P)
        .map(|i| if i % 2 == 0 { Q12 } else { -Q12 })
        .collect();
    let ramp: Vec<i16> = (0..P as i16).map(|i| 6 * i - 2280).collect();
    let polys: Vec<Vec<i16>> = vec![
        vec![0; P],
        vec![Q12; P],
        vec![-Q12; P],
        alternating,
        ramp,
        vec![i16::MAX; P],
        vec![i16::MIN; P],
        {
            let mut v = vec![0; P];
            v[P - 1] = Q12;
            v
        },
    ];
    let smalls: Vec<Vec<i8>> = vec![
        vec![0; P],
        vec![1; P],
        vec![-1; P],
        (0..P).map(|i| if i % 2 == 0 { 1 } else { -1 }).collect(),
        one_small(),
    ];
    for m in paths() {
        for a in &polys {
            for b in &polys {
                same(
                    m.isa(),
                    "mul_rq edge",
                    &m.mul_rq(a, b).unwrap(),
                    &refm.mul_rq(a, b).unwrap(),
                );
            }
            for s in &smalls {
                same(
                    m.isa(),
                    "mul_rq_small edge",
                    &m.mul_rq_small(a, s).unwrap(),
                    &refm.mul_rq_small(a, s).unwrap(),
                );
            }
        }
        for s in &smalls {
            for t in &smalls {
                same(
                    m.isa(),
                    "mul_r3 edge",
                    &m.mul_r3(s, t).unwrap(),
                    &refm.mul_r3(s, t).unwrap(),
                );
            }
        }
        // All-zero products are zero; the product by 1 is the (reduced) input.
        assert!(m
            .mul_rq(&polys[0], &polys[1])
            .unwrap()
            .iter()
            .all(|&x| x == 0));
        assert_eq!(m.mul_rq_small(&polys[4], &one_small()).unwrap(), polys[4]);
    }
}

#[test]
fn free_functions_use_a_valid_backend() {
    let mut r = rng(4);
    let (a, b, s) = (centred(&mut r), centred(&mut r), small(&mut r));
    let refm = reference();
    assert_eq!(mul_rq(&a, &b).unwrap(), refm.mul_rq(&a, &b).unwrap());
    assert_eq!(
        mul_rq_small(&a, &s).unwrap(),
        refm.mul_rq_small(&a, &s).unwrap()
    );
    assert_eq!(mul_r3(&s, &s).unwrap(), refm.mul_r3(&s, &s).unwrap());
    let m = Multiplier::new();
    assert!(Multiplier::available_isas().contains(&m.isa()));
    if let Some(cap) = Isa::env_cap() {
        assert!(m.isa() <= cap, "LATPOLY_ISA={cap} but {} chosen", m.isa());
    }
    println!("ntruprime: Multiplier::new() runs {}", m.isa());
}

/// `LATPOLY_ISA` caps the backend `Multiplier::new` (and the free functions) choose; `scalar`
/// forces the reference. Checked in child processes (the variable is read at construction and
/// the free functions cache their choice).
#[test]
fn latpoly_isa_caps_the_choice() {
    if let Ok(want) = std::env::var("NTRUPRIME_CAP_CHILD") {
        assert_eq!(Multiplier::new().isa().name(), want);
        let mut r = rng(9);
        let (a, s) = (centred(&mut r), small(&mut r));
        assert_eq!(
            mul_rq_small(&a, &s).unwrap(),
            reference().mul_rq_small(&a, &s).unwrap()
        );
        return;
    }
    let avail = Multiplier::available_isas();
    let exe = std::env::current_exe().unwrap();
    for cap in [Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Avx512Ifma] {
        let want = avail
            .iter()
            .copied()
            .find(|&i| i <= cap)
            .unwrap_or(Isa::Scalar);
        let out = std::process::Command::new(&exe)
            .args(["--exact", "latpoly_isa_caps_the_choice", "--test-threads=1"])
            .env("LATPOLY_ISA", cap.name())
            .env("NTRUPRIME_CAP_CHILD", want.name())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "LATPOLY_ISA={cap}: expected {want}\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
        println!("ntruprime: LATPOLY_ISA={cap} -> {want}");
    }
}

#[test]
fn bad_input_is_an_error() {
    let a = vec![0i16; P];
    let s = vec![0i8; P];
    let short_a = vec![0i16; P - 1];
    let long_s = vec![0i8; P + 1];
    for m in paths() {
        assert!(matches!(
            m.mul_rq(&short_a, &a),
            Err(Error::LengthMismatch {
                expected: 761,
                got: 760
            })
        ));
        assert!(m.mul_rq(&a, &short_a).is_err());
        assert!(m.mul_rq_small(&a, &long_s).is_err());
        assert!(m.mul_r3(&s, &long_s).is_err());
        let mut bad = s.clone();
        bad[17] = 2;
        assert!(matches!(
            m.mul_rq_small(&a, &bad),
            Err(Error::InvalidArgument(_))
        ));
        assert!(m.mul_r3(&bad, &s).is_err());
        bad[17] = i8::MIN;
        assert!(m.mul_r3(&s, &bad).is_err());
    }
    assert!(Multiplier::with_isa(Isa::Avx512Ifma).is_err());
    let mut bad = vec![0i8; P];
    bad[0] = -2;
    assert!(recip_r3(&bad).is_err());
    assert!(recip3_rq(&bad).is_err());
    assert!(recip_r3(&bad[1..]).is_err());
    let mut big = vec![0i16; P];
    big[5] = 2296;
    assert!(round3(&big).is_err());
    assert!(rq_encode(&big).is_err());
    assert!(rounded_encode(&big).is_err());
    big[5] = -2296;
    assert!(rq_encode(&big).is_err());
    assert!(round3(&a[1..]).is_err());
    assert!(rq_encode(&a[1..]).is_err());
    assert!(small_encode(&bad).is_err());
    assert!(small_encode(&s[1..]).is_err());
    assert!(rq_decode(&[0; RQ_BYTES - 1]).is_err());
    assert!(rounded_decode(&[0; ROUNDED_BYTES + 1]).is_err());
    assert!(small_decode(&[0; SMALL_BYTES - 1]).is_err());
    // Generic encoding: mismatched lengths, bounds out of range, values not below bounds.
    assert!(encode(&[1, 2], &[3]).is_err());
    assert!(encode(&[0], &[0]).is_err());
    assert!(encode(&[0], &[16384]).is_err());
    assert!(encode(&[5, 1], &[5, 7]).is_err());
    assert!(decode(&[0], &[16384]).is_err());
    assert!(decode(&[0, 0], &[300, 2]).is_ok());
    assert!(decode(&[0, 0, 0], &[300, 2]).is_err());
    assert!(encoded_len(&[0]).is_err());
}

#[test]
fn generic_encoding_round_trips() {
    let mut r = rng(5);
    for len in [0usize, 1, 2, 3, 4, 5, 7, 8, 31, 100, 761] {
        for _ in 0..20 {
            let m: Vec<u16> = (0..len)
                .map(|_| match r.gen_range(0..4) {
                    0 => r.gen_range(1..=3),
                    1 => r.gen_range(1..=256),
                    2 => r.gen_range(1..16384),
                    _ => 4591,
                })
                .collect();
            let v: Vec<u16> = m.iter().map(|&b| r.gen_range(0..b)).collect();
            let bytes = encode(&v, &m).unwrap();
            assert_eq!(bytes.len(), encoded_len(&m).unwrap());
            assert_eq!(decode(&bytes, &m).unwrap(), v);
            // Decoding is total: any bytes give in-range values.
            let junk: Vec<u8> = (0..bytes.len()).map(|_| r.gen()).collect();
            let d = decode(&junk, &m).unwrap();
            assert!(d.iter().zip(&m).all(|(x, b)| x < b));
        }
    }
    // Extremes: all values at their maximum.
    let m = vec![16383u16; 9];
    let v = vec![16382u16; 9];
    assert_eq!(decode(&encode(&v, &m).unwrap(), &m).unwrap(), v);
}

#[test]
fn ring_encodings_round_trip() {
    let mut r = rng(6);
    for _ in 0..50 {
        let h = centred(&mut r);
        let bytes = rq_encode(&h).unwrap();
        assert_eq!(bytes.len(), RQ_BYTES);
        assert_eq!(rq_decode(&bytes).unwrap(), h);

        let c = round3(&h).unwrap();
        assert!(c
            .iter()
            .zip(&h)
            .all(|(&x, &y)| x % 3 == 0 && (x - y).abs() <= 1 && x.abs() <= Q12));
        let bytes = rounded_encode(&c).unwrap();
        assert_eq!(bytes.len(), ROUNDED_BYTES);
        assert_eq!(rounded_decode(&bytes).unwrap(), c);

        let f = small(&mut r);
        let bytes = small_encode(&f).unwrap();
        assert_eq!(bytes.len(), SMALL_BYTES);
        assert_eq!(small_decode(&bytes).unwrap(), f);
    }
    for v in [Q12, -Q12, 0] {
        let h = vec![v; P];
        assert_eq!(rq_decode(&rq_encode(&h).unwrap()).unwrap(), h);
        assert_eq!(rounded_decode(&rounded_encode(&h).unwrap()).unwrap(), h);
    }
    // Small_decode rejects the 11 pattern and non-zero padding bits.
    let mut bytes = small_encode(&vec![0; P]).unwrap();
    bytes[10] |= 0b1100;
    assert!(matches!(small_decode(&bytes), Err(Error::Malformed(_))));
    let mut bytes = small_encode(&vec![1; P]).unwrap();
    bytes[SMALL_BYTES - 1] |= 0b100;
    assert!(small_decode(&bytes).is_err());
}

#[test]
fn reciprocals() {
    let mut r = rng(7);
    let one = one_small();
    let mut one_q = vec![0i16; P];
    one_q[0] = 1;
    let refm = reference();
    let mut invertible = 0;
    for k in 0..12 {
        let a = if k % 2 == 0 {
            small(&mut r)
        } else {
            short(&mut r, W)
        };
        let (ainv, ok) = recip_r3(&a).unwrap();
        if ok {
            invertible += 1;
            assert_eq!(refm.mul_r3(&a, &ainv).unwrap(), one);
            assert!(ainv.iter().all(|x| (-1..=1).contains(x)));
        }
        // R/q is a field (x^761 - x - 1 is irreducible mod 4591): every non-zero a works.
        let (finv, ok) = recip3_rq(&a).unwrap();
        assert!(ok);
        let c = refm.mul_rq_small(&finv, &a).unwrap();
        let three: Vec<i16> = c.iter().map(|&x| fq(3 * i32::from(x))).collect();
        assert_eq!(three, one_q);
    }
    assert!(
        invertible >= 10,
        "only {invertible} of 12 random inputs invertible"
    );
    // Zero is not invertible.
    assert!(!recip_r3(&vec![0; P]).unwrap().1);
    assert!(!recip3_rq(&vec![0; P]).unwrap().1);
    // Units: 1 and -1 and x.
    assert_eq!(recip_r3(&one).unwrap(), (one.clone(), true));
    let minus: Vec<i8> = one.iter().map(|&x| -x).collect();
    assert_eq!(recip_r3(&minus).unwrap(), (minus.clone(), true));
    // 1/x = x^760 - 1 (since x · (x^760 - 1) = x^761 - x = 1).
    let mut x = vec![0i8; P];
    x[1] = 1;
    let mut xinv = vec![0i8; P];
    xinv[P - 1] = 1;
    xinv[0] = -1;
    assert_eq!(recip_r3(&x).unwrap(), (xinv, true));
}

/// Every backend's reciprocals equal the reference bit for bit, invertible or not (the
/// reference's output for a non-invertible input is deterministic garbage; it must match too).
#[test]
fn reciprocals_every_path() {
    let refm = reference();
    let mut r = rng(8);
    let mut inputs: Vec<Vec<i8>> = (0..16)
        .map(|k| {
            if k % 2 == 0 {
                small(&mut r)
            } else {
                short(&mut r, W)
            }
        })
        .collect();
    inputs.push(vec![0; P]);
    inputs.push(vec![1; P]);
    inputs.push(vec![-1; P]);
    inputs.push(one_small());
    // monomials and other sparse inputs: long runs without a swap (delta far from 0), the
    // cases that stress the vectorised loops' public bounds on what can still matter
    for k in [1, 2, 31, 32, 33, 380, 759, 760] {
        let mut a = vec![0i8; P];
        a[k] = if k % 2 == 0 { 1 } else { -1 };
        inputs.push(a.clone());
        a[0] = 1;
        inputs.push(a);
    }
    for m in paths() {
        if m.isa() == Isa::Scalar {
            continue;
        }
        for a in &inputs {
            assert_eq!(
                m.recip_r3(a).unwrap(),
                refm.recip_r3(a).unwrap(),
                "{} recip_r3",
                m.isa()
            );
            assert_eq!(
                m.recip3_rq(a).unwrap(),
                refm.recip3_rq(a).unwrap(),
                "{} recip3_rq",
                m.isa()
            );
        }
    }
}

/// Centred residue mod 4591.
fn fq(x: i32) -> i16 {
    let r = x.rem_euclid(4591);
    (if r > 2295 { r - 4591 } else { r }) as i16
}

/// F_3 polynomials (coefficients 0, 1, 2, lowest first, no trailing zeros).
mod f3 {
    pub fn trim(mut a: Vec<u8>) -> Vec<u8> {
        while a.last() == Some(&0) {
            a.pop();
        }
        a
    }
    pub fn rem(a: &[u8], b: &[u8]) -> Vec<u8> {
        let mut a = trim(a.to_vec());
        let db = b.len() - 1;
        let inv = b[db]; // 1 or 2, its own inverse mod 3
        while a.len() > db {
            let c = a[a.len() - 1] * inv % 3;
            let s = a.len() - 1 - db;
            for (i, &y) in b.iter().enumerate() {
                a[s + i] = (a[s + i] + 3 * 3 - c * y % 3) % 3;
            }
            a = trim(a);
        }
        a
    }
    pub fn div(a: &[u8], b: &[u8]) -> Vec<u8> {
        let mut a = trim(a.to_vec());
        let db = b.len() - 1;
        let inv = b[db];
        let mut quo = vec![0u8; a.len().saturating_sub(db)];
        while a.len() > db {
            let c = a[a.len() - 1] * inv % 3;
            let s = a.len() - 1 - db;
            quo[s] = c;
            for (i, &y) in b.iter().enumerate() {
                a[s + i] = (a[s + i] + 9 - c * y % 3) % 3;
            }
            a = trim(a);
        }
        assert!(a.is_empty(), "not a divisor");
        quo
    }
    pub fn gcd(a: &[u8], b: &[u8]) -> Vec<u8> {
        let (mut a, mut b) = (trim(a.to_vec()), trim(b.to_vec()));
        while !b.is_empty() {
            let r = rem(&a, &b);
            a = b;
            b = r;
        }
        a
    }
}

fn to_f3(v: &[i8]) -> Vec<u8> {
    f3::trim(v.iter().map(|&x| x.rem_euclid(3) as u8).collect())
}

fn from_f3(v: &[u8]) -> Vec<i8> {
    let mut out: Vec<i8> = v
        .iter()
        .map(|&x| if x == 2 { -1 } else { x as i8 })
        .collect();
    out.resize(P, 0);
    out
}

/// `x^761 - x - 1` factors modulo 3: a proper factor `phi` gives the zero divisor
/// `(x^761 - x - 1) / phi`, which `recip_r3` must flag (distinct-degree factorisation with
/// Frobenius powers computed by `mul_r3`).
#[test]
fn zero_divisors_in_r3_are_flagged() {
    let mut modulus = vec![0u8; P + 1];
    modulus[0] = 2;
    modulus[1] = 2;
    modulus[P] = 1;
    let mut xq = vec![0i8; P];
    xq[1] = 1; // x^(3^k) mod (x^p - x - 1), k = 0
    let refm = reference();
    let mut factor = None;
    for k in 1..=P / 2 {
        let sq = refm.mul_r3(&xq, &xq).unwrap();
        xq = refm.mul_r3(&sq, &xq).unwrap();
        let mut t = xq.clone();
        t[1] = latpoly_f3_sub_one(t[1]);
        let g = f3::gcd(&modulus, &to_f3(&t));
        if g.len() > 1 {
            println!("ntruprime: x^761 - x - 1 has a factor of degree dividing {k} mod 3 (gcd degree {})", g.len() - 1);
            factor = Some(g);
            break;
        }
    }
    let Some(phi) = factor else {
        panic!("x^761 - x - 1 looks irreducible mod 3; no zero divisor to test");
    };
    let cofactor = f3::div(&modulus, &phi);
    let (a, b) = (from_f3(&cofactor), from_f3(&phi));
    assert!(a.iter().any(|&x| x != 0) && b.iter().any(|&x| x != 0));
    for m in paths() {
        assert!(
            m.mul_r3(&a, &b).unwrap().iter().all(|&x| x == 0),
            "{}",
            m.isa()
        );
    }
    for m in paths() {
        assert!(!m.recip_r3(&a).unwrap().1, "{}", m.isa());
        assert!(!m.recip_r3(&b).unwrap().1, "{}", m.isa());
        assert_eq!(m.recip_r3(&a).unwrap(), refm.recip_r3(&a).unwrap());
    }
    // A zero divisor times a unit is still a zero divisor.
    let mut x = vec![0i8; P];
    x[1] = 1;
    assert!(!recip_r3(&refm.mul_r3(&a, &x).unwrap()).unwrap().1);
}

fn latpoly_f3_sub_one(x: i8) -> i8 {
    match x {
        1 => 0,
        0 => -1,
        _ => 1,
    }
}

// ---------------------------------------------------------------------------------------------
// Known answers: the NIST round-3 KAT files (shared/kat/ntruprime).

fn shared_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared"));
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("shared folder {} missing (CI=true)", dir.display());
    }
    println!("ntruprime: {} not found: KAT test skipped", dir.display());
    None
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// `(pk, sk, ct)` of every record of a `.rsp` file.
fn records(path: &std::path::Path) -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = Vec::new();
    let (mut pk, mut sk) = (None, None);
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("pk = ") {
            pk = Some(unhex(v.trim()));
        } else if let Some(v) = line.strip_prefix("sk = ") {
            sk = Some(unhex(v.trim()));
        } else if let Some(v) = line.strip_prefix("ct = ") {
            out.push((pk.take().unwrap(), sk.take().unwrap(), unhex(v.trim())));
        }
    }
    out
}

#[test]
fn kat_ntrulpr761_public_keys() {
    let Some(dir) = shared_dir() else { return };
    let recs = records(&dir.join("kat/ntruprime/ntrulpr761/ntrulpr761.rsp"));
    assert_eq!(recs.len(), 100);
    let seed0 = unhex("7C9935A0B07694AA0C6D10E4DB6B1ADD2FD81A25CCB148032DCD739936737F2D");
    assert_eq!(recs[0].0[..32], seed0[..]);
    for (pk, sk, ct) in &recs {
        assert_eq!((pk.len(), sk.len(), ct.len()), (1039, 1294, 1167));
        // pk = S || Rounded_encode(Round(a·G)).
        let a_g = rounded_decode(&pk[32..]).unwrap();
        assert!(a_g.iter().all(|&x| x % 3 == 0 && x.abs() <= Q12));
        assert_eq!(round3(&a_g).unwrap(), a_g);
        assert_eq!(rounded_encode(&a_g).unwrap(), pk[32..]);
        // sk = Small_encode(a) || pk || rho || Hash4(pk); a is short of weight 250.
        let a = small_decode(&sk[..SMALL_BYTES]).unwrap();
        assert_eq!(a.iter().filter(|&&x| x != 0).count(), 250);
        assert_eq!(small_encode(&a).unwrap(), sk[..SMALL_BYTES]);
        assert_eq!(sk[SMALL_BYTES..SMALL_BYTES + 1039], pk[..]);
        // ct = Rounded_encode(Round(b·G)) || Top || Confirm.
        let b_g = rounded_decode(&ct[..ROUNDED_BYTES]).unwrap();
        assert_eq!(rounded_encode(&b_g).unwrap(), ct[..ROUNDED_BYTES]);
    }
    println!("ntruprime: {} ntrulpr761 KAT records checked", recs.len());
}

/// sntrup761 keys tie all the arithmetic together: `pk = Rq_encode(h)` with `h = g/(3f)`, and
/// `sk = Small(f) || Small(1/g in R/3) || pk || ...`. So `3·h·f` must be the small `g`,
/// `recip_r3(g)` must give the stored `1/g` bit for bit, and `recip3_rq(f) · g` must give `h`
/// (the reference key generation computes exactly these).
#[test]
fn kat_sntrup761_keys() {
    let Some(dir) = shared_dir() else { return };
    let recs = records(&dir.join("kat/ntruprime/sntrup761/sntrup761.rsp"));
    assert_eq!(recs.len(), 100);
    let paths = paths();
    for (n, (pk, sk, ct)) in recs.iter().enumerate() {
        assert_eq!((pk.len(), sk.len(), ct.len()), (1158, 1763, 1039));
        let h = rq_decode(pk).unwrap();
        assert_eq!(rq_encode(&h).unwrap(), *pk);
        let f = small_decode(&sk[..SMALL_BYTES]).unwrap();
        let ginv = small_decode(&sk[SMALL_BYTES..2 * SMALL_BYTES]).unwrap();
        assert_eq!(f.iter().filter(|&&x| x != 0).count(), W);
        assert_eq!(sk[2 * SMALL_BYTES..2 * SMALL_BYTES + RQ_BYTES], pk[..]);
        // g = 3 h f is small.
        let hf = reference().mul_rq_small(&h, &f).unwrap();
        let g: Vec<i8> = hf
            .iter()
            .map(|&x| {
                let y = fq(3 * i32::from(x));
                assert!(y.abs() <= 1, "record {n}: 3hf not small");
                y as i8
            })
            .collect();
        for m in &paths {
            same(m.isa(), "KAT h·f", &m.mul_rq_small(&h, &f).unwrap(), &hf);
            let f16: Vec<i16> = f.iter().map(|&x| x.into()).collect();
            same(m.isa(), "KAT h·f (full)", &m.mul_rq(&h, &f16).unwrap(), &hf);
            same(
                m.isa(),
                "KAT g·ginv",
                &m.mul_r3(&g, &ginv).unwrap(),
                &one_small(),
            );
        }
        if n < 25 {
            assert_eq!(recip_r3(&g).unwrap(), (ginv.clone(), true), "record {n}");
            let (finv, ok) = recip3_rq(&f).unwrap();
            assert!(ok);
            assert_eq!(
                reference().mul_rq_small(&finv, &g).unwrap(),
                h,
                "record {n}"
            );
        }
        // ct = Rounded_encode(Round(h·r)) || Confirm.
        let c = rounded_decode(&ct[..ROUNDED_BYTES]).unwrap();
        assert_eq!(rounded_encode(&c).unwrap(), ct[..ROUNDED_BYTES]);
    }
    println!("ntruprime: {} sntrup761 KAT records checked", recs.len());
}

#[test]
fn module_alias_works() {
    // The module path is stable for the bindings: latpoly::rings::ntruprime.
    assert_eq!(np::P, 761);
}
