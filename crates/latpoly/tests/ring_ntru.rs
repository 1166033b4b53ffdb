//! NTRU ring arithmetic (`latpoly::rings::ntru`): every record of the reference unit vectors
//! (`shared/kat/ntru/*/unit_vectors/*.txt`), every multiplier against the schoolbook reference
//! on random and edge inputs, bad-input errors, and inverse properties.
//!
//! The unit vectors are read from `CARGO_MANIFEST_DIR/../../../shared/kat/ntru` (the shared
//! folder next to the repository). If it is absent the vector tests print that they are skipped
//! and pass, unless `CI=true`, where they fail.

use latpoly::rings::ntru::{self, NtruParams};
use latpoly::{Error, Isa};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------
// Unit vectors
// ---------------------------------------------------------------------------------------------

/// The unit-vector files this suite knows how to check.
const KNOWN: [&str; 18] = [
    "poly_R2_inv",
    "poly_Rq_inv",
    "poly_Rq_mul",
    "poly_Rq_sum_zero_frombytes",
    "poly_Rq_sum_zero_tobytes",
    "poly_Rq_to_S3",
    "poly_S3_frombytes",
    "poly_S3_inv",
    "poly_S3_mul",
    "poly_S3_tobytes",
    "poly_Sq_frombytes",
    "poly_Sq_mul",
    "poly_Sq_tobytes",
    "poly_Z3_to_Zq",
    "poly_lift",
    "poly_mod_3_Phi_n",
    "poly_mod_q_Phi_n",
    "poly_trinary_Zq_to_Z3",
];

/// `shared/kat/ntru`, or `None` (with a message) when absent; panics if absent and `CI=true`.
fn kat_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/kat/ntru");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "CI=true but the NTRU unit vectors are missing at {}",
            dir.display()
        );
    }
    eprintln!(
        "skipped: NTRU unit vectors not found at {} (set up shared/kat to run this test)",
        dir.display()
    );
    None
}

/// One record: `count` and its named fields (`a`, `b`, `r`, `msg`, `res`).
#[derive(Debug)]
struct Record {
    count: u64,
    fields: BTreeMap<String, Vec<u32>>,
}

impl Record {
    fn u16s(&self, key: &str) -> Vec<u16> {
        self.get(key)
            .iter()
            .map(|&v| u16::try_from(v).expect("uint16 value"))
            .collect()
    }
    fn bytes(&self, key: &str) -> Vec<u8> {
        self.get(key)
            .iter()
            .map(|&v| u8::try_from(v).expect("byte value"))
            .collect()
    }
    fn get(&self, key: &str) -> &[u32] {
        self.fields
            .get(key)
            .unwrap_or_else(|| panic!("record {} has no field {key}", self.count))
    }
}

/// Parses the `count = ... / key = v v v ...` text format (records separated by blank lines).
fn parse(text: &str) -> Vec<Record> {
    let mut out: Vec<Record> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, values) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("malformed line {line:?}"));
        let key = key.trim();
        let values: Vec<u32> = values
            .split_whitespace()
            .map(|v| v.parse().unwrap_or_else(|_| panic!("bad number {v:?}")))
            .collect();
        if key == "count" {
            out.push(Record {
                count: u64::from(values[0]),
                fields: BTreeMap::new(),
            });
        } else {
            out.last_mut()
                .expect("field before the first count")
                .fields
                .insert(key.to_string(), values);
        }
    }
    out
}

/// The parameter set of a scheme folder name.
fn params_of(dir_name: &str) -> NtruParams {
    NtruParams::ALL
        .into_iter()
        .find(|p| p.name() == dir_name)
        .unwrap_or_else(|| panic!("unknown NTRU scheme folder {dir_name}"))
}

/// Every `(params, records)` pair for unit-vector file `name`, over all scheme folders.
fn vector_files(name: &str) -> Vec<(NtruParams, Vec<Record>)> {
    let Some(dir) = kat_dir() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut schemes: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    schemes.sort();
    for scheme in schemes {
        let file = scheme.join("unit_vectors").join(format!("{name}.txt"));
        if file.is_file() {
            let p = params_of(scheme.file_name().unwrap().to_str().unwrap());
            let records = parse(&std::fs::read_to_string(&file).unwrap());
            assert!(!records.is_empty(), "{} has no records", file.display());
            out.push((p, records));
        }
    }
    out
}

/// Checks every record of `name` with `check(params, record)`; returns the record count.
fn check_vectors(name: &str, check: impl Fn(NtruParams, &Record)) -> usize {
    let files = vector_files(name);
    let mut total = 0;
    for (p, records) in &files {
        for rec in records {
            check(*p, rec);
        }
        total += records.len();
        eprintln!(
            "{name}: {} records of {} reproduced",
            records.len(),
            p.name()
        );
    }
    total
}

/// Asserts equality with a message naming the function, scheme, record and first difference.
fn assert_same<T: PartialEq + std::fmt::Debug>(
    what: &str,
    p: NtruParams,
    rec: &Record,
    got: &[T],
    want: &[T],
) {
    assert_eq!(
        got.len(),
        want.len(),
        "{what} {} count {}: length",
        p.name(),
        rec.count
    );
    if let Some(i) = got.iter().zip(want).position(|(x, y)| x != y) {
        panic!(
            "{what} {} count {}: first difference at {i}: got {:?}, want {:?}",
            p.name(),
            rec.count,
            got[i],
            want[i]
        );
    }
}

/// `f(input, params, out)`: an out-of-place routine of `latpoly::rings::ntru`.
type UnaryFn = fn(&[u16], NtruParams, &mut [u16]) -> latpoly::Result<()>;
/// `f(r, params)`: an in-place routine.
type InPlaceFn = fn(&mut [u16], NtruParams) -> latpoly::Result<()>;
/// `f(a, b, out)`: a product.
type ProductFn = fn(&[u16], &[u16], &mut [u16]) -> latpoly::Result<()>;

/// Runs `f(input, params, out)` and compares `out` with the record's output field.
fn unary(name: &'static str, input: &'static str, output: &'static str, f: UnaryFn) -> usize {
    check_vectors(name, |p, rec| {
        let a = rec.u16s(input);
        let mut r = vec![0u16; p.n()];
        f(&a, p, &mut r).unwrap();
        assert_same(name, p, rec, &r, &rec.u16s(output));
    })
}

/// Runs the in-place `f(r, params)` on the record's input and compares with its output field.
fn in_place(name: &'static str, input: &'static str, output: &'static str, f: InPlaceFn) -> usize {
    check_vectors(name, |p, rec| {
        let mut r = rec.u16s(input);
        f(&mut r, p).unwrap();
        assert_same(name, p, rec, &r, &rec.u16s(output));
    })
}

/// Runs the product `f(a, b, out)` and compares with `r`, with every available multiplier
/// for `poly_Rq_mul`.
fn binary(name: &'static str, f: ProductFn) -> usize {
    check_vectors(name, |p, rec| {
        let (a, b) = (rec.u16s("a"), rec.u16s("b"));
        let mut r = vec![0u16; p.n()];
        f(&a, &b, &mut r).unwrap();
        assert_same(name, p, rec, &r, &rec.u16s("r"));
    })
}

#[test]
fn unit_vectors_every_file_is_known() {
    let Some(dir) = kat_dir() else { return };
    let mut files = 0;
    for scheme in std::fs::read_dir(&dir).unwrap() {
        let scheme = scheme.unwrap().path();
        params_of(scheme.file_name().unwrap().to_str().unwrap());
        let uv = scheme.join("unit_vectors");
        if !uv.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&uv).unwrap() {
            let f = f.unwrap().path();
            let stem = f.file_stem().unwrap().to_str().unwrap().to_string();
            assert!(
                KNOWN.contains(&stem.as_str()) && f.extension().is_some_and(|e| e == "txt"),
                "unit-vector file {} is not checked by this suite",
                f.display()
            );
            files += 1;
        }
    }
    assert!(files > 0, "no unit-vector files under {}", dir.display());
    eprintln!("{files} unit-vector files, all checked by this suite");
}

#[test]
fn uv_poly_rq_mul() {
    // The default multiplier, then every multiplier explicitly.
    binary("poly_Rq_mul", ntru::poly_rq_mul);
    check_vectors("poly_Rq_mul", |p, rec| {
        let (a, b, want) = (rec.u16s("a"), rec.u16s("b"), rec.u16s("r"));
        for isa in [Isa::Scalar, Isa::Avx2, Isa::Avx512] {
            let mut r = vec![0u16; p.n()];
            let used = ntru::poly_rq_mul_isa(isa, &a, &b, &mut r).unwrap();
            assert_same(&format!("poly_Rq_mul[{used}]"), p, rec, &r, &want);
        }
    });
}

#[test]
fn uv_poly_sq_mul() {
    binary("poly_Sq_mul", ntru::poly_sq_mul);
}

#[test]
fn uv_poly_s3_mul() {
    binary("poly_S3_mul", ntru::poly_s3_mul);
}

#[test]
fn uv_poly_r2_inv() {
    unary("poly_R2_inv", "a", "r", ntru::poly_r2_inv);
}

#[test]
fn uv_poly_rq_inv() {
    unary("poly_Rq_inv", "a", "r", ntru::poly_rq_inv);
}

#[test]
fn uv_poly_s3_inv() {
    unary("poly_S3_inv", "a", "r", ntru::poly_s3_inv);
}

#[test]
fn uv_poly_lift() {
    unary("poly_lift", "a", "r", ntru::poly_lift);
}

#[test]
fn uv_poly_rq_to_s3() {
    unary("poly_Rq_to_S3", "a", "r", ntru::poly_rq_to_s3);
}

#[test]
fn uv_poly_z3_to_zq() {
    in_place("poly_Z3_to_Zq", "r", "res", ntru::poly_z3_to_zq);
}

#[test]
fn uv_poly_trinary_zq_to_z3() {
    in_place(
        "poly_trinary_Zq_to_Z3",
        "r",
        "res",
        ntru::poly_trinary_zq_to_z3,
    );
}

#[test]
fn uv_poly_mod_3_phi_n() {
    in_place("poly_mod_3_Phi_n", "r", "res", ntru::poly_mod_3_phi_n);
}

#[test]
fn uv_poly_mod_q_phi_n() {
    in_place("poly_mod_q_Phi_n", "r", "res", ntru::poly_mod_q_phi_n);
}

#[test]
fn uv_poly_sq_tobytes() {
    check_vectors("poly_Sq_tobytes", |p, rec| {
        let mut out = vec![0u8; p.sq_bytes()];
        ntru::poly_sq_tobytes(&rec.u16s("a"), p, &mut out).unwrap();
        assert_same("poly_Sq_tobytes", p, rec, &out, &rec.bytes("r"));
    });
}

#[test]
fn uv_poly_rq_sum_zero_tobytes() {
    check_vectors("poly_Rq_sum_zero_tobytes", |p, rec| {
        let mut out = vec![0u8; p.sq_bytes()];
        ntru::poly_rq_sum_zero_tobytes(&rec.u16s("a"), p, &mut out).unwrap();
        assert_same("poly_Rq_sum_zero_tobytes", p, rec, &out, &rec.bytes("r"));
    });
}

#[test]
fn uv_poly_sq_frombytes() {
    check_vectors("poly_Sq_frombytes", |p, rec| {
        let mut a = vec![0u16; p.n()];
        ntru::poly_sq_frombytes(&rec.bytes("r"), p, &mut a).unwrap();
        assert_same("poly_Sq_frombytes", p, rec, &a, &rec.u16s("a"));
    });
}

#[test]
fn uv_poly_rq_sum_zero_frombytes() {
    check_vectors("poly_Rq_sum_zero_frombytes", |p, rec| {
        let mut a = vec![0u16; p.n()];
        ntru::poly_rq_sum_zero_frombytes(&rec.bytes("r"), p, &mut a).unwrap();
        assert_same("poly_Rq_sum_zero_frombytes", p, rec, &a, &rec.u16s("a"));
    });
}

#[test]
fn uv_poly_s3_tobytes() {
    check_vectors("poly_S3_tobytes", |p, rec| {
        let mut out = vec![0u8; p.s3_bytes()];
        ntru::poly_s3_tobytes(&rec.u16s("a"), p, &mut out).unwrap();
        assert_same("poly_S3_tobytes", p, rec, &out, &rec.bytes("msg"));
    });
}

#[test]
fn uv_poly_s3_frombytes() {
    check_vectors("poly_S3_frombytes", |p, rec| {
        let mut a = vec![0u16; p.n()];
        ntru::poly_s3_frombytes(&rec.bytes("msg"), p, &mut a).unwrap();
        assert_same("poly_S3_frombytes", p, rec, &a, &rec.u16s("a"));
    });
}

// ---------------------------------------------------------------------------------------------
// Multipliers against the schoolbook reference
// ---------------------------------------------------------------------------------------------

/// An independent schoolbook (linear product, then fold), mod 2^16.
fn schoolbook(a: &[u16], b: &[u16]) -> Vec<u16> {
    let n = a.len();
    let mut c = vec![0u16; 2 * n];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            c[i + j] = c[i + j].wrapping_add(x.wrapping_mul(y));
        }
    }
    (0..n).map(|k| c[k].wrapping_add(c[k + n])).collect()
}

/// The multipliers this CPU runs (the scalar reference first).
fn multipliers() -> Vec<Isa> {
    let n = 509;
    let (a, b) = (vec![1u16; n], vec![1u16; n]);
    let mut r = vec![0u16; n];
    let mut out = Vec::new();
    for isa in [Isa::Scalar, Isa::Avx2, Isa::Avx512] {
        let used = ntru::poly_rq_mul_isa(isa, &a, &b, &mut r).unwrap();
        if used == isa {
            out.push(isa);
        }
    }
    eprintln!(
        "multipliers on this CPU: {:?}; default: {}",
        out,
        ntru::rq_mul_isa()
    );
    out
}

fn random_poly(n: usize, rng: &mut ChaCha20Rng) -> Vec<u16> {
    (0..n).map(|_| rng.gen()).collect()
}

/// Inputs that stress carries and signs: all zero, all 0xffff, alternating, single monomials.
fn edge_inputs(n: usize) -> Vec<Vec<u16>> {
    let mut v = vec![
        vec![0u16; n],
        vec![0xffff; n],
        (0..n)
            .map(|i| if i % 2 == 0 { 0xffff } else { 0 })
            .collect(),
        (0..n)
            .map(|i| if i % 2 == 0 { 0x8000 } else { 0x7fff })
            .collect(),
        (0..n).map(|i| i as u16).collect(),
    ];
    for k in [0, 1, n / 2, n - 2, n - 1] {
        let mut m = vec![0u16; n];
        m[k] = 0xffff;
        v.push(m);
    }
    v
}

#[test]
fn multipliers_match_schoolbook_random() {
    let isas = multipliers();
    let mut rng = ChaCha20Rng::seed_from_u64(0x4e54_5255);
    let mut checked = 0usize;
    for p in NtruParams::ALL {
        let n = p.n();
        for trial in 0..1000 {
            let (a, b) = (random_poly(n, &mut rng), random_poly(n, &mut rng));
            let want = if trial < 20 {
                schoolbook(&a, &b)
            } else {
                let mut r = vec![0u16; n];
                ntru::poly_rq_mul_isa(Isa::Scalar, &a, &b, &mut r).unwrap();
                r
            };
            for &isa in &isas {
                let mut r = vec![0u16; n];
                assert_eq!(ntru::poly_rq_mul_isa(isa, &a, &b, &mut r).unwrap(), isa);
                assert_eq!(r, want, "{isa} n={n} trial {trial}");
                checked += 1;
            }
        }
    }
    eprintln!("{checked} random products checked");
}

#[test]
fn multipliers_match_schoolbook_edges() {
    let isas = multipliers();
    for p in NtruParams::ALL {
        let n = p.n();
        let edges = edge_inputs(n);
        for a in &edges {
            for b in &edges {
                let want = schoolbook(a, b);
                for &isa in &isas {
                    let mut r = vec![0u16; n];
                    ntru::poly_rq_mul_isa(isa, a, b, &mut r).unwrap();
                    assert_eq!(r, want, "{isa} n={n}");
                }
                let mut r = vec![0u16; n];
                ntru::poly_rq_mul(a, b, &mut r).unwrap();
                assert_eq!(r, want, "default n={n}");
            }
        }
    }
}

/// The mod-q multipliers (Toom-4, exact mod 2^13 only) against the schoolbook reduced mod q:
/// random inputs (every one on every multiplier), then the edge inputs pairwise.
#[test]
fn modq_multipliers_match_schoolbook() {
    let isas = multipliers();
    let mut rng = ChaCha20Rng::seed_from_u64(0x746f_6f6d);
    let mut checked = 0usize;
    for p in NtruParams::ALL {
        let (n, q1) = (p.n(), p.q() - 1);
        let mut cases: Vec<(Vec<u16>, Vec<u16>)> = (0..1000)
            .map(|_| (random_poly(n, &mut rng), random_poly(n, &mut rng)))
            .collect();
        let edges = edge_inputs(n);
        for a in &edges {
            for b in &edges {
                cases.push((a.clone(), b.clone()));
            }
        }
        for (trial, (a, b)) in cases.iter().enumerate() {
            let mut want = if !(20..1000).contains(&trial) {
                schoolbook(a, b)
            } else {
                let mut r = vec![0u16; n];
                ntru::poly_rq_mul_isa(Isa::Scalar, a, b, &mut r).unwrap();
                r
            };
            want.iter_mut().for_each(|x| *x &= q1);
            for &isa in &isas {
                let mut r = vec![0xffffu16; n];
                assert_eq!(ntru::poly_rq_mul_modq_isa(isa, a, b, &mut r).unwrap(), isa);
                assert_eq!(r, want, "{isa} n={n} case {trial}");
                checked += 1;
            }
            if trial % 97 == 0 {
                let mut r = vec![0u16; n];
                ntru::poly_rq_mul_modq(a, b, &mut r).unwrap();
                assert_eq!(r, want, "default n={n} case {trial}");
            }
        }
    }
    eprintln!("{checked} mod-q products checked");
}

#[test]
fn default_multiplier_respects_the_isa_cap() {
    // LATPOLY_ISA is read once, at the first product; run this suite with LATPOLY_ISA=scalar
    // (or avx2) to exercise the capped default path through every test above and below.
    let isa = ntru::rq_mul_isa();
    if let Some(cap) = Isa::env_cap() {
        assert!(
            isa <= cap,
            "default multiplier {isa} above LATPOLY_ISA={cap}"
        );
        if cap == Isa::Scalar {
            assert_eq!(isa, Isa::Scalar);
        }
    }
    let best = multipliers().into_iter().max().unwrap();
    assert!(isa <= best);
}

#[test]
fn all_ones_products() {
    for p in NtruParams::ALL {
        let n = p.n();
        let ff = vec![0xffffu16; n];
        let mut r = vec![0u16; n];
        ntru::poly_rq_mul(&ff, &ff, &mut r).unwrap();
        assert!(r.iter().all(|&x| usize::from(x) == n));
        let zero = vec![0u16; n];
        ntru::poly_rq_mul(&zero, &ff, &mut r).unwrap();
        assert!(r.iter().all(|&x| x == 0));
    }
}

#[test]
fn sq_and_s3_products_follow_rq() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    for p in NtruParams::ALL {
        let n = p.n();
        for _ in 0..20 {
            let (a, b) = (random_poly(n, &mut rng), random_poly(n, &mut rng));
            let c = schoolbook(&a, &b);
            let mut sq = vec![0u16; n];
            ntru::poly_sq_mul(&a, &b, &mut sq).unwrap();
            let want: Vec<u16> = c.iter().map(|&x| x.wrapping_sub(c[n - 1])).collect();
            assert_eq!(sq, want);
            let mut s3 = vec![0u16; n];
            ntru::poly_s3_mul(&a, &b, &mut s3).unwrap();
            // As the reference: the sum x + 2 c[n-1] is taken mod 2^16, then mod 3.
            let twice = c[n - 1].wrapping_mul(2);
            let want: Vec<u16> = c.iter().map(|&x| x.wrapping_add(twice) % 3).collect();
            assert_eq!(s3, want);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Inverses
// ---------------------------------------------------------------------------------------------

/// Random ternary polynomial with coefficients in {0, 1, 2}.
fn ternary(n: usize, rng: &mut ChaCha20Rng) -> Vec<u16> {
    (0..n).map(|_| rng.gen_range(0..3)).collect()
}

fn is_one(c: &[u16], mask: u16) -> bool {
    c[0] & mask == 1 && c[1..].iter().all(|&x| x & mask == 0)
}

#[test]
fn inverse_properties() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    for p in NtruParams::ALL {
        let n = p.n();
        let mut r2_ok = 0;
        let mut s3_ok = 0;
        for _ in 0..20 {
            // S_3: a · a^-1 = 1 mod (3, Phi_n) whenever a is nonzero mod (3, Phi_n) (Phi_n is
            // irreducible mod 3 for these n).
            let a = ternary(n, &mut rng);
            let mut inv = vec![0u16; n];
            ntru::poly_s3_inv(&a, p, &mut inv).unwrap();
            assert!(inv.iter().all(|&x| x < 3) && inv[n - 1] == 0);
            let mut c = vec![0u16; n];
            ntru::poly_s3_mul(&a, &inv, &mut c).unwrap();
            assert!(is_one(&c, 0xffff), "S3 inverse n={n}");
            s3_ok += 1;

            // R_2 and R_q: Phi_n is irreducible mod 2 too, so a random a is invertible
            // (unless a = 0 or Phi_n mod 2, probability 2^(1-n)).
            let a = random_poly(n, &mut rng);
            let mut a2 = vec![0u16; n];
            ntru::poly_r2_inv(&a, p, &mut a2).unwrap();
            assert!(a2.iter().all(|&x| x < 2) && a2[n - 1] == 0);
            let mut c = vec![0u16; n];
            ntru::poly_sq_mul(&a, &a2, &mut c).unwrap();
            assert!(is_one(&c, 1), "R2 inverse n={n}");
            r2_ok += 1;
            let mut inv = vec![0u16; n];
            ntru::poly_rq_inv(&a, p, &mut inv).unwrap();
            ntru::poly_sq_mul(&a, &inv, &mut c).unwrap();
            assert!(is_one(&c, 0xffff), "Rq inverse mod 2^16 n={n}");
            assert!(is_one(&c, p.q() - 1), "Rq inverse mod q n={n}");
        }
        eprintln!(
            "{}: {s3_ok} S3 and {r2_ok} R2/Rq inverses verified",
            p.name()
        );
    }
}

#[test]
fn inverse_of_one_and_zero() {
    for p in NtruParams::ALL {
        let n = p.n();
        let mut one = vec![0u16; n];
        one[0] = 1;
        let mut r = vec![0u16; n];
        ntru::poly_s3_inv(&one, p, &mut r).unwrap();
        assert_eq!(r, one);
        ntru::poly_r2_inv(&one, p, &mut r).unwrap();
        assert_eq!(r, one);
        ntru::poly_rq_inv(&one, p, &mut r).unwrap();
        assert_eq!(r, one);
        // Non-invertible inputs return the reference's (non-)answer, without error.
        let zero = vec![0u16; n];
        ntru::poly_s3_inv(&zero, p, &mut r).unwrap();
        ntru::poly_r2_inv(&zero, p, &mut r).unwrap();
        ntru::poly_rq_inv(&zero, p, &mut r).unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// Conversions and packing
// ---------------------------------------------------------------------------------------------

#[test]
fn packing_round_trips() {
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    for p in NtruParams::ALL {
        let n = p.n();
        let q1 = p.q() - 1;
        let a: Vec<u16> = random_poly(n, &mut rng);
        let mut bytes = vec![0u8; p.sq_bytes()];
        ntru::poly_sq_tobytes(&a, p, &mut bytes).unwrap();
        let mut back = vec![0u16; n];
        ntru::poly_sq_frombytes(&bytes, p, &mut back).unwrap();
        assert!((0..n - 1).all(|i| back[i] == a[i] & q1) && back[n - 1] == 0);
        ntru::poly_rq_sum_zero_frombytes(&bytes, p, &mut back).unwrap();
        let sum = back.iter().fold(0u16, |s, &x| s.wrapping_add(x));
        assert_eq!(sum, 0);

        let t = ternary(n, &mut rng);
        let mut t = t;
        t[n - 1] = 0;
        let mut bytes = vec![0u8; p.s3_bytes()];
        ntru::poly_s3_tobytes(&t, p, &mut bytes).unwrap();
        let mut back = vec![0u16; n];
        ntru::poly_s3_frombytes(&bytes, p, &mut back).unwrap();
        assert_eq!(back, t);
    }
}

#[test]
fn lift_and_conversions() {
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    for p in NtruParams::ALL {
        let n = p.n();
        let q1 = p.q() - 1;
        let m = ternary(n, &mut rng);
        // Z3 -> Zq -> Z3 is the identity on {0, 1, 2}.
        let mut z = m.clone();
        ntru::poly_z3_to_zq(&mut z, p).unwrap();
        assert!(z.iter().all(|&x| x == 0 || x == 1 || x == q1));
        ntru::poly_trinary_zq_to_z3(&mut z, p).unwrap();
        assert_eq!(z, m);
        // Lift(m) mod (3, Phi_n) = m mod (3, Phi_n).
        let mut l = vec![0u16; n];
        ntru::poly_lift(&m, p, &mut l).unwrap();
        let lq: Vec<u16> = l.iter().map(|&x| x & q1).collect();
        let mut s3 = vec![0u16; n];
        ntru::poly_rq_to_s3(&lq, p, &mut s3).unwrap();
        let mut m3 = m.clone();
        ntru::poly_mod_3_phi_n(&mut m3, p).unwrap();
        assert_eq!(s3, m3, "{}", p.name());
        if p.is_hrss() {
            // HRSS lifts are multiples of (x - 1): coefficients sum to 0 mod q.
            let s = lq.iter().fold(0u16, |s, &x| s.wrapping_add(x)) & q1;
            assert_eq!(s, 0);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------------

#[test]
fn bad_inputs_are_errors() {
    let p = NtruParams::Hps2048509;
    let n = p.n();
    let a = vec![1u16; n];
    let mut out = vec![0u16; n];
    // Unsupported degrees.
    for bad in [0, 1, 508, 512, 700, 1024] {
        let x = vec![1u16; bad];
        let mut o = vec![0u16; bad];
        for r in [
            ntru::poly_rq_mul(&x, &x, &mut o),
            ntru::poly_sq_mul(&x, &x, &mut o),
            ntru::poly_s3_mul(&x, &x, &mut o),
            ntru::poly_rq_mul_isa(Isa::Scalar, &x, &x, &mut o).map(|_| ()),
            ntru::poly_rq_mul_modq(&x, &x, &mut o),
            ntru::poly_rq_mul_modq_isa(Isa::Avx512, &x, &x, &mut o).map(|_| ()),
        ] {
            assert!(
                matches!(r, Err(Error::InvalidDegree { .. })),
                "n={bad}: {r:?}"
            );
        }
        assert!(NtruParams::from_n(bad).is_err());
    }
    // Length mismatches in products.
    let short = vec![1u16; n - 1];
    assert!(matches!(
        ntru::poly_rq_mul(&a, &short, &mut out),
        Err(Error::LengthMismatch {
            expected: 509,
            got: 508
        })
    ));
    let mut short_out = vec![0u16; n + 1];
    assert!(ntru::poly_rq_mul(&a, &a, &mut short_out).is_err());
    assert!(ntru::poly_sq_mul(&a, &short, &mut out).is_err());
    assert!(ntru::poly_s3_mul(&a, &a, &mut short_out).is_err());
    assert!(matches!(
        ntru::poly_rq_mul_modq(&a, &short, &mut out),
        Err(Error::LengthMismatch {
            expected: 509,
            got: 508
        })
    ));
    assert!(ntru::poly_rq_mul_modq(&a, &a, &mut short_out).is_err());
    // Length mismatches against the parameter set.
    let other = NtruParams::Hrss701;
    let fs: [UnaryFn; 5] = [
        ntru::poly_r2_inv,
        ntru::poly_rq_inv,
        ntru::poly_s3_inv,
        ntru::poly_lift,
        ntru::poly_rq_to_s3,
    ];
    for f in fs {
        assert!(matches!(
            f(&a, other, &mut out),
            Err(Error::LengthMismatch {
                expected: 701,
                got: 509
            })
        ));
        assert!(f(&a, p, &mut short_out).is_err());
    }
    let gs: [InPlaceFn; 4] = [
        ntru::poly_z3_to_zq,
        ntru::poly_trinary_zq_to_z3,
        ntru::poly_mod_3_phi_n,
        ntru::poly_mod_q_phi_n,
    ];
    for g in gs {
        assert!(g(&mut out, other).is_err());
        assert!(g(&mut [], p).is_err());
    }
    // Byte lengths.
    let mut bytes = vec![0u8; p.sq_bytes() - 1];
    assert!(ntru::poly_sq_tobytes(&a, p, &mut bytes).is_err());
    assert!(ntru::poly_rq_sum_zero_tobytes(&a, p, &mut bytes).is_err());
    assert!(ntru::poly_sq_frombytes(&bytes, p, &mut out).is_err());
    assert!(ntru::poly_rq_sum_zero_frombytes(&bytes, p, &mut out).is_err());
    let good = vec![0u8; p.sq_bytes()];
    assert!(ntru::poly_sq_frombytes(&good, p, &mut short_out).is_err());
    let mut bytes = vec![0u8; p.s3_bytes() + 1];
    assert!(ntru::poly_s3_tobytes(&a, p, &mut bytes).is_err());
    assert!(ntru::poly_s3_frombytes(&bytes, p, &mut out).is_err());
    let good = vec![0u8; p.s3_bytes()];
    assert!(ntru::poly_s3_frombytes(&good, other, &mut out).is_err());
}

#[test]
fn params_table() {
    let rows: Vec<_> = NtruParams::ALL
        .iter()
        .map(|p| {
            (
                p.name(),
                p.n(),
                p.q(),
                p.log_q(),
                p.sq_bytes(),
                p.s3_bytes(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("ntruhps2048509", 509, 2048, 11, 699, 102),
            ("ntruhps2048677", 677, 2048, 11, 930, 136),
            ("ntruhps4096821", 821, 4096, 12, 1230, 164),
            ("ntruhrss701", 701, 8192, 13, 1138, 140),
        ]
    );
    for p in NtruParams::ALL {
        assert_eq!(NtruParams::from_n(p.n()).unwrap(), p);
    }
}
