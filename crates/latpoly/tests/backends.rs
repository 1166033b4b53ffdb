//! Every SIMD backend against the scalar reference (the specification): strict outputs must be
//! identical, lazy outputs in range and congruent, for every n, lane and edge prime; reports which
//! backends ran and which this CPU lacks.

use latpoly::arith::Word;
use latpoly::primes::{fast_ntt_primes, ntt_primes};
use latpoly::{Isa, Plan};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::collections::BTreeSet;

fn first_diff<W: Word>(a: &[W], b: &[W]) -> Option<(usize, u64, u64)> {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .map(|i| (i, a[i].to_u64(), b[i].to_u64()))
}

fn to_w<W: Word>(v: &[u64]) -> Vec<W> {
    v.iter().map(|&x| W::from_u64(x)).collect()
}

fn inputs(n: usize, q: u64, rng: &mut ChaCha20Rng) -> Vec<Vec<u64>> {
    vec![
        vec![0; n],
        vec![q - 1; n],
        (0..n).map(|_| rng.gen_range(0..q)).collect(),
        (0..n).map(|i| if i % 2 == 0 { q - 1 } else { 0 }).collect(),
    ]
}

/// Runs the differential suite for one (n, q) over every available backend; returns the ISAs run.
fn differential<W: Word>(n: usize, q: u64, rng: &mut ChaCha20Rng) -> Vec<Isa> {
    let reference = Plan::<W>::with_isa(n, q, Isa::Scalar).unwrap();
    let mut ran = Vec::new();
    for isa in Plan::<W>::available_isas(n, q) {
        if isa == Isa::Scalar {
            continue;
        }
        let plan = Plan::<W>::with_isa(n, q, isa).unwrap();
        assert_eq!(plan.isa(), isa);
        let ins = inputs(n, q, rng);
        for a in &ins {
            let a: Vec<W> = a.iter().map(|&x| W::from_u64(x)).collect();
            // Strict forward.
            let (mut x, mut y) = (a.clone(), a.clone());
            reference.forward(&mut x).unwrap();
            plan.forward(&mut y).unwrap();
            assert_eq!(
                first_diff(&x, &y),
                None,
                "forward {isa} n={n} q={q} (index, ref, got)"
            );
            // Strict inverse on the forward output.
            let (mut xi, mut yi) = (x.clone(), x.clone());
            reference.inverse(&mut xi).unwrap();
            plan.inverse(&mut yi).unwrap();
            assert_eq!(first_diff(&xi, &yi), None, "inverse {isa} n={n} q={q}");
            assert_eq!(yi, a);
            // Lazy forward: in [0, 4q) and congruent to the strict result.
            let mut z = a.clone();
            plan.forward_lazy(&mut z).unwrap();
            for (i, (&zl, &xs)) in z.iter().zip(&x).enumerate() {
                let zl = zl.to_u64();
                assert!(
                    zl < 4 * q && zl % q == xs.to_u64(),
                    "lazy forward {isa} n={n} q={q} index {i}"
                );
            }
            // Lazy forward on inputs anywhere in [0, 4q), its top value included (the largest
            // operands of the Shoup products).
            let wide: Vec<u64> = a
                .iter()
                .enumerate()
                .map(|(i, &v)| match i % 3 {
                    0 => 4 * q - 1,
                    1 => v.to_u64() + 3 * q,
                    _ => rng.gen_range(0..4 * q),
                })
                .collect();
            let mut z = to_w::<W>(&wide);
            plan.forward_lazy(&mut z).unwrap();
            let mut expect = to_w::<W>(&wide.iter().map(|&v| v % q).collect::<Vec<_>>());
            reference.forward(&mut expect).unwrap();
            for (i, (&zl, &xs)) in z.iter().zip(&expect).enumerate() {
                let zl = zl.to_u64();
                assert!(
                    zl < 4 * q && zl % q == xs.to_u64(),
                    "lazy forward, inputs up to 4q - 1, {isa} n={n} q={q} index {i}"
                );
            }
            // Lazy inverse: input up to 2q - 1, output in [0, 2q) and congruent.
            let shifted: Vec<W> = x
                .iter()
                .enumerate()
                .map(|(i, &v)| {
                    if i % 3 == 0 {
                        W::from_u64(v.to_u64() + q)
                    } else {
                        v
                    }
                })
                .collect();
            let mut zi = shifted.clone();
            plan.inverse_lazy(&mut zi).unwrap();
            for (i, (&zl, &r)) in zi.iter().zip(&a).enumerate() {
                let zl = zl.to_u64();
                assert!(
                    zl < 2 * q && zl % q == r.to_u64(),
                    "lazy inverse {isa} n={n} q={q} index {i}"
                );
            }
        }
        // Pointwise, multiply-accumulate and the full product.
        let a: Vec<W> = ins[2].iter().map(|&x| W::from_u64(x)).collect();
        let b: Vec<W> = inputs(n, q, rng)[2]
            .iter()
            .map(|&x| W::from_u64(x))
            .collect();
        let m: Vec<W> = ins[1].iter().map(|&x| W::from_u64(x)).collect();
        // Additions and subtractions, out of place and in place, against integer arithmetic
        // (the scalar reference plan too), with the edges q - 1 + q - 1 and 0 - (q - 1).
        let zero = vec![W::ZERO; n];
        for (u, v) in [(&a, &b), (&m, &m), (&a, &m), (&zero, &m), (&m, &zero)] {
            let want = |f: fn(u64, u64, u64) -> u64| -> Vec<W> {
                u.iter()
                    .zip(v)
                    .map(|(&x, &y)| W::from_u64(f(x.to_u64(), y.to_u64(), q)))
                    .collect()
            };
            let sum = want(|x, y, q| ((x as u128 + y as u128) % q as u128) as u64);
            let diff = want(|x, y, q| ((x as u128 + q as u128 - y as u128) % q as u128) as u64);
            for p in [&reference, &plan] {
                let isa = p.isa();
                let mut o = vec![W::ZERO; n];
                p.add(u, v, &mut o).unwrap();
                assert_eq!(first_diff(&sum, &o), None, "add {isa} n={n} q={q}");
                p.sub(u, v, &mut o).unwrap();
                assert_eq!(first_diff(&diff, &o), None, "sub {isa} n={n} q={q}");
                let mut o = u.clone();
                p.add_assign(&mut o, v).unwrap();
                assert_eq!(first_diff(&sum, &o), None, "add_assign {isa} n={n} q={q}");
                let mut o = u.clone();
                p.sub_assign(&mut o, v).unwrap();
                assert_eq!(first_diff(&diff, &o), None, "sub_assign {isa} n={n} q={q}");
            }
        }
        for (u, v) in [(&a, &b), (&m, &m), (&a, &m)] {
            let (mut o1, mut o2) = (vec![W::ZERO; n], vec![W::ZERO; n]);
            reference.pointwise(u, v, &mut o1).unwrap();
            plan.pointwise(u, v, &mut o2).unwrap();
            assert_eq!(first_diff(&o1, &o2), None, "pointwise {isa} n={n} q={q}");
            let mut o3 = u.clone();
            plan.pointwise_assign(&mut o3, v).unwrap();
            assert_eq!(
                first_diff(&o1, &o3),
                None,
                "pointwise_assign {isa} n={n} q={q}"
            );
            let (mut c1, mut c2) = (b.clone(), b.clone());
            reference.pointwise_acc(u, v, &mut c1).unwrap();
            plan.pointwise_acc(u, v, &mut c2).unwrap();
            assert_eq!(
                first_diff(&c1, &c2),
                None,
                "pointwise_acc {isa} n={n} q={q}"
            );
            assert_eq!(
                first_diff(
                    &reference.multiply(u, v).unwrap(),
                    &plan.multiply(u, v).unwrap()
                ),
                None,
                "multiply {isa} n={n} q={q}"
            );
            // The same product into caller-owned memory that starts out full of junk: the
            // out-of-place forward transforms must not read `out` or `scratch`.
            let junk = W::from_u64(q - 1);
            let (mut out, mut scratch) = (vec![junk; n], vec![W::from_u64(u64::MAX); n]);
            plan.multiply_into(u, v, &mut out, &mut scratch).unwrap();
            assert_eq!(
                first_diff(&reference.multiply(u, v).unwrap(), &out),
                None,
                "multiply_into {isa} n={n} q={q}"
            );
        }
        ran.push(isa);
    }
    ran
}

const EDGE_BITS: [(u32, &[u32]); 3] = [
    (64, &[62, 61, 60, 52, 51, 50, 49, 30]),
    (32, &[30, 29, 20]),
    (16, &[14, 13, 12]),
];

#[test]
fn every_backend_matches_scalar() {
    let mut rng = ChaCha20Rng::seed_from_u64(99);
    let mut ran = BTreeSet::new();
    let mut cases = 0;
    for log_n in 1..=13 {
        let n = 1usize << log_n;
        for (lane, bits_list) in EDGE_BITS {
            for &bits in bits_list {
                let Ok(ps) = ntt_primes(bits, n, 2) else {
                    continue;
                };
                for &q in &ps {
                    let r = match lane {
                        64 => differential::<u64>(n, q, &mut rng),
                        32 => differential::<u32>(n, q, &mut rng),
                        _ => differential::<u16>(n, q, &mut rng),
                    };
                    cases += 1;
                    for isa in r {
                        ran.insert((lane, isa));
                    }
                }
            }
        }
    }
    // Primes q ≡ 1 (mod 2^32), which the 64-bit AVX2 backend multiplies by with one partial
    // product (its own kernels): the largest of each schedule bound and at both ends of the
    // IFMA and f64 ranges, and the smallest such prime (18 · 2^32 + 1).
    for log_n in 1..=13 {
        let n = 1usize << log_n;
        for bits in [62u32, 61, 60, 59, 51, 50, 49, 38] {
            for q in fast_ntt_primes(bits, n, 2).unwrap() {
                differential::<u64>(n, q, &mut rng);
                cases += 1;
            }
        }
        differential::<u64>(n, (18 << 32) + 1, &mut rng);
    }
    // The exact edges of the IFMA range: the largest primes below 2^50 and just above it.
    for n in [16usize, 1024, 4096] {
        let below = ntt_primes(50, n, 1).unwrap()[0];
        let above = ntt_primes(51, n, 3).unwrap();
        assert!(
            Plan::<u64>::available_isas(n, below).len()
                >= Plan::<u64>::available_isas(n, above[2]).len()
        );
        assert!(!Plan::<u64>::available_isas(n, above[2]).contains(&Isa::Avx512Ifma));
        differential::<u64>(n, below, &mut rng);
        let smallest51 = ntt_primes(51, n, 5000)
            .map(|v| *v.last().unwrap())
            .unwrap_or(above[2]);
        differential::<u64>(n, smallest51, &mut rng);
    }
    // The bottom of each bit length (q just above 2^(k-1)): the loosest case of the Barrett
    // quotient estimate of the u64 pointwise products.
    // The same at the bounds of the reduction schedules (`ntt::simd::lazy`): the AVX-512
    // 64-bit backend keeps values below 16q for q < 2^60 and 8q for q < 2^61 (the tops of
    // these ranges are in EDGE_BITS; 49 and 50 bits: where IFMA would switch, were it on).
    for k in [62u32, 61, 60, 52, 50, 49, 33, 20] {
        let n = 1024usize;
        let step = 2 * n as u64;
        let q = (0..)
            .map(|j| (1u64 << (k - 1)) + 1 + j * step)
            .find(|&q| latpoly::primes::is_prime(q))
            .unwrap();
        differential::<u64>(n, q, &mut rng);
        cases += 1;
    }
    let all: Vec<(u32, Isa)> = [64u32, 32, 16]
        .iter()
        .flat_map(|&l| [Isa::Avx2, Isa::Avx512, Isa::Avx512Ifma].map(|i| (l, i)))
        .filter(|&(l, i)| !(l != 64 && i == Isa::Avx512Ifma))
        .collect();
    let skipped: Vec<_> = all.iter().filter(|c| !ran.contains(c)).collect();
    println!("{cases} (n, q) cases; backends run (lane bits, isa): {ran:?}");
    println!("backends skipped (not supported by this CPU): {skipped:?}");
    if std::env::var("LATPOLY_REQUIRE_SIMD").is_ok() {
        assert!(
            skipped.is_empty(),
            "LATPOLY_REQUIRE_SIMD set but backends were skipped"
        );
    }
}

/// The sizes above the grid of `every_backend_matches_scalar` (n <= 8192), where the 64-bit
/// backends first run their outer layers over several cache blocks: n = 2^14 .. 2^16 at the
/// edge of the IFMA range, with 62-bit primes, and below the bounds of the reduction schedules
/// (49 and 60 bits: half the forward layers skip their reduction), and with 61-bit ones (the
/// 64-bit backend's `WIDE` schedule, whose inverse runs register blocks of 16 too). 32-bit
/// lanes at the same sizes: their 16 KB cache blocks hold 4096 values, so n = 2^14 .. 2^16
/// have two to four layers above the blocks, and an odd number makes the forward (up to 2^15)
/// and the inverse double their blocks (`ntt::simd::fwd_block_len`, `inv_block_len`).
#[test]
fn large_transforms_match_scalar() {
    let mut rng = ChaCha20Rng::seed_from_u64(1234);
    for log_n in 14..=16 {
        let n = 1usize << log_n;
        for bits in [30, 20] {
            let q = ntt_primes(bits, n, 1).unwrap()[0];
            let ran = differential::<u32>(n, q, &mut rng);
            println!("n={n} {bits}-bit, 32-bit lanes: {ran:?}");
        }
    }
    for log_n in 14..=16 {
        let n = 1usize << log_n;
        for bits in [49, 50, 60, 61, 62] {
            let q = ntt_primes(bits, n, 1).unwrap()[0];
            let ran = differential::<u64>(n, q, &mut rng);
            println!("n={n} {bits}-bit: {ran:?}");
        }
        for bits in [60, 61, 62] {
            let q = fast_ntt_primes(bits, n, 1).unwrap()[0];
            let ran = differential::<u64>(n, q, &mut rng);
            println!("n={n} {bits}-bit, q = 1 mod 2^32: {ran:?}");
        }
    }
}

#[test]
fn forced_backend_errors_when_unavailable() {
    // IFMA never applies to q >= 2^50 or to 16/32-bit lanes.
    let q = ntt_primes(60, 1024, 1).unwrap()[0];
    assert!(Plan::<u64>::with_isa(1024, q, Isa::Avx512Ifma).is_err());
    assert!(Plan::<u32>::with_isa(1024, 12289, Isa::Avx512Ifma).is_err());
    assert!(Plan::<u16>::with_isa(1024, 12289, Isa::Avx512Ifma).is_err());
    // Too small for any SIMD backend: scalar only.
    assert_eq!(Plan::<u16>::available_isas(8, 17), vec![Isa::Scalar]);
    assert_eq!(
        Plan::<u64>::with_isa(4, 17, Isa::Scalar).unwrap().isa(),
        Isa::Scalar
    );
    // Parsing.
    assert_eq!(Isa::parse("AVX512IFMA"), Some(Isa::Avx512Ifma));
    assert_eq!(Isa::parse("neon"), None);
}

/// The vectorised range checks (a vertical maximum compared lane by lane with the bound; on
/// the backends with a fused check (AVX-512, AVX2 u32 and u64) the forward's first layer
/// comparing each set of vectors it loads and undoing its butterflies at a bad one; on AVX2
/// `u64` plans with `q < 2^30` the narrowing to 32-bit lanes) must see an out-of-range value in
/// every lane of every vector; the error must name the value, and the failed call leave the
/// input as it was.
fn range_check_every_position<W: Word>(n: usize, q: u64) {
    for isa in Plan::<W>::available_isas(n, q) {
        let plan = Plan::<W>::with_isa(n, q, isa).unwrap();
        for i in 0..n {
            for (bound, lazy) in [(q, false), (4 * q, true)] {
                let mut a = vec![W::from_u64(bound - 1); n];
                a[i] = W::from_u64(bound);
                let before = a.clone();
                let r = if lazy {
                    plan.forward_lazy(&mut a)
                } else {
                    plan.forward(&mut a)
                };
                assert_eq!(
                    r,
                    Err(latpoly::Error::CoefficientOutOfRange {
                        index: i,
                        value: bound,
                        bound
                    }),
                    "{isa} n={n} q={q}: value {bound} at {i}"
                );
                assert!(
                    a == before,
                    "{isa} n={n} q={q}: input changed by a failed call"
                );
            }
            let mut a = vec![W::ZERO; n];
            a[i] = W::from_u64(2 * q);
            assert!(
                plan.inverse(&mut a).is_err(),
                "{isa} inverse n={n} index {i}"
            );
        }
    }
}

#[test]
fn range_checks_see_every_position() {
    // Also one and two register blocks: 128 and 256 values in 64-bit lanes, 256 and 512 in
    // 32- and 16-bit lanes.
    for n in [64usize, 128, 256, 512, 1024] {
        range_check_every_position::<u16>(n, 12289);
        range_check_every_position::<u32>(n, ntt_primes(30, n, 1).unwrap()[0]);
        range_check_every_position::<u64>(n, ntt_primes(62, n, 1).unwrap()[0]);
        range_check_every_position::<u64>(n, ntt_primes(50, n, 1).unwrap()[0]);
        // AVX2: transforms in 32-bit lanes (n >= 16).
        range_check_every_position::<u64>(n, ntt_primes(30, n, 1).unwrap()[0]);
    }
}

/// Transforms larger than one register block: the AVX-512 and the AVX2 u32 / u64 backends
/// check the range in their first layer (a pass over memory, radix-2 or radix-4 depending on
/// `n` and the lane width, or the first layer of a pair of register blocks) and, when they
/// meet a value `>= q`, undo the butterflies they had run; AVX2 `u64` plans with `q < 2^30`
/// check while they narrow to 32-bit lanes and widen back. Random inputs, bad values (`q`
/// itself or the lane maximum) at the edges of vectors, quarters and halves and at random
/// places: the error names the first bad index, the input comes back bit for bit, and the
/// plan still transforms a valid input like the scalar one afterwards.
fn range_check_restores<W: Word>(n: usize, q: u64, seed: u64) {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let scalar = Plan::<W>::with_isa(n, q, Isa::Scalar).unwrap();
    for isa in Plan::<W>::available_isas(n, q) {
        let plan = Plan::<W>::with_isa(n, q, isa).unwrap();
        let mut positions = vec![0, 7, 8, 15, 16, n / 4 - 1, n / 4, n / 2 - 1, n / 2];
        positions.extend([n / 2 + 9, 3 * n / 4, 3 * n / 4 + 5, n - 1]);
        positions.extend((0..12).map(|_| rng.gen_range(0..n)));
        positions.retain(|&i| i < n);
        for (k, &i) in positions.iter().enumerate() {
            let mut a: Vec<W> = (0..n).map(|_| W::from_u64(rng.gen_range(0..q))).collect();
            let max = u64::MAX >> (64 - 8 * std::mem::size_of::<W>());
            let value = if k % 2 == 0 { q } else { max };
            a[i] = W::from_u64(value);
            if k % 3 == 0 {
                // a second bad value later on: the error names the first
                let j = (i + 1 + rng.gen_range(0..n)) % n;
                if j > i {
                    a[j] = W::from_u64(q + 1);
                }
            }
            let before = a.clone();
            assert_eq!(
                plan.forward(&mut a),
                Err(latpoly::Error::CoefficientOutOfRange {
                    index: i,
                    value,
                    bound: q
                }),
                "{isa} n={n} q={q}: value {value} at {i}"
            );
            assert!(
                a == before,
                "{isa} n={n} q={q}: bad value at {i} changed the input"
            );
        }
        let a: Vec<W> = (0..n).map(|_| W::from_u64(rng.gen_range(0..q))).collect();
        let (mut x, mut y) = (a.clone(), a);
        plan.forward(&mut x).unwrap();
        scalar.forward(&mut y).unwrap();
        assert!(x == y, "{isa} n={n} q={q}: forward after the failed calls");
    }
}

#[test]
fn range_checks_of_first_layers_restore_the_input() {
    // 64-bit lanes: 16 (= 2 lanes: one memory layer), 32 and 128 (memory layers, then the
    // pair groups; 128 is one register block of IFMA and of the 64-bit backend under its
    // `SLOTH` schedule, checked beforehand), 256 (one pair of IFMA register blocks), 512 and
    // 1024 (one cache block; on IFMA 1024 a radix-4 pass, then pairs of register blocks), 2048
    // (one cache block), 4096 and up (several).
    let small = [
        (16usize, 16u64),
        (32, 7),
        (128, 8),
        (256, 9),
        (512, 10),
        (1024, 17),
    ];
    for (n, seed) in small
        .into_iter()
        .chain([(2048, 11), (4096, 1), (8192, 2), (16384, 3)])
    {
        for bits in [62, 61, 50, 48, 30] {
            range_check_restores::<u64>(n, ntt_primes(bits, n, 1).unwrap()[0], seed);
        }
    }
    // 32-bit lanes: 32 (one memory layer), 64 (memory layer, then the pair groups), 512 (one
    // pair of register blocks), 1024, 2048 (a radix-4 pass, then pairs of register blocks)
    // and 4096 (one cache block), 8192 and up.
    let small = [
        (32usize, 18u64),
        (64, 12),
        (512, 13),
        (1024, 14),
        (2048, 19),
        (4096, 15),
    ];
    for (n, seed) in small.into_iter().chain([(8192, 4), (16384, 5), (32768, 6)]) {
        range_check_restores::<u32>(n, ntt_primes(30, n, 1).unwrap()[0], seed);
    }
    // 16-bit lanes (q = 12289, blocks of 8 vectors; no larger plan exists below 2^14): 64
    // (a radix-2 first pass, then the pairs), 512 (one pair of register blocks), 1024 (a
    // radix-4 first pass, then the blocks) and 2048 (a radix-4 first pass, then pairs of
    // blocks); 256 is one register block, checked beforehand.
    for (n, seed) in [
        (64usize, 20u64),
        (256, 21),
        (512, 22),
        (1024, 23),
        (2048, 24),
    ] {
        range_check_restores::<u16>(n, 12289, seed);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Random primes `q = k · 2^32 + 1` (the 64-bit AVX2 backend's own kernels) anywhere
    /// from 38 to 62 bits: every backend against the scalar reference.
    #[test]
    fn random_low_word_one_primes_match_scalar(
        log_n in 1u32..=12,
        bits in 38u32..=62,
        frac in 0.0f64..1.0,
        seed in proptest::prelude::any::<u64>(),
    ) {
        let (lo, hi) = (1u64 << (bits - 33), 1u64 << (bits - 32));
        let mut k = lo + ((hi - lo) as f64 * frac) as u64;
        while !latpoly::primes::is_prime((k << 32) + 1) {
            k = if k + 1 >= hi { lo } else { k + 1 };
        }
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        differential::<u64>(1 << log_n, (k << 32) + 1, &mut rng);
    }

    /// Random NTT primes anywhere in the 64-bit lanes' range (not only the largest of a bit
    /// length, as the grid above): every backend against the scalar reference. The reduction
    /// schedule of a plan depends on `q` (`ntt::simd::lazy`), so primes on both sides of 2^60
    /// and 2^61 matter.
    #[test]
    fn random_u64_primes_match_scalar(
        log_n in 4u32..=12,
        bits in 40u32..=62,
        frac in 0.0f64..1.0,
        seed in proptest::prelude::any::<u64>(),
    ) {
        let n = 1u64 << log_n;
        let (lo, hi) = (1u64 << (bits - 1), 1u64 << bits);
        // Candidates q = 1 + 2n k from a random start in [2^(bits-1), 2^bits).
        let start = lo + ((hi - lo) as f64 * frac) as u64;
        let mut q = (start / (2 * n)) * 2 * n + 1;
        while q < lo || !latpoly::primes::is_prime(q) {
            q += 2 * n;
            if q >= hi {
                q = lo / (2 * n) * 2 * n + 1;
            }
        }
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        differential::<u64>(n as usize, q, &mut rng);
    }
}

/// The `u64` pointwise products of every backend against 128-bit arithmetic at the bounds of the
/// narrow Barrett product (AVX-512 `mul_mod_narrow`, `q < 2^61`: a quotient estimate up to 4
/// below, three corrections) and of the exact one above it: the smallest and largest primes of
/// 60, 61 and 62 bits, and of those `≡ 1 (mod 2^32)`, 2^14 random pairs each plus the
/// extreme operands (0, 1, q - 1, q - 2, (q - 1) / 2, and powers of two below q), plus
/// multiply-accumulate into q - 1.
#[test]
fn pointwise_u64_products_at_the_barrett_bounds() {
    let mut rng = ChaCha20Rng::seed_from_u64(61);
    let n = 1 << 14;
    for k in [60u32, 61, 62] {
        let step = 2 * n as u64;
        let low = (0..)
            .map(|j| (1u64 << (k - 1)) + 1 + j * step)
            .find(|&q| latpoly::primes::is_prime(q))
            .unwrap();
        let high = ntt_primes(k, n, 1).unwrap()[0];
        // The same bounds for primes q ≡ 1 (mod 2^32) (the AVX2 backend's own products).
        let low_q1 = ((1u64 << (k - 33))..)
            .map(|j| (j << 32) + 1)
            .find(|&q| latpoly::primes::is_prime(q))
            .unwrap();
        let high_q1 = fast_ntt_primes(k, n, 1).unwrap()[0];
        for q in [low, high, low_q1, high_q1] {
            let special = [
                0,
                1,
                2,
                q - 1,
                q - 2,
                (q - 1) / 2,
                q.div_ceil(2),
                1 << (k - 1),
            ];
            let mut a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..q)).collect();
            let mut b: Vec<u64> = (0..n).map(|_| rng.gen_range(0..q)).collect();
            let mut i = 0;
            for &x in &special {
                for &y in &special {
                    (a[i], b[i]) = (x, y);
                    i += 1;
                }
            }
            let want: Vec<u64> = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| ((x as u128 * y as u128) % q as u128) as u64)
                .collect();
            for isa in Plan::<u64>::available_isas(n, q) {
                let plan = Plan::<u64>::with_isa(n, q, isa).unwrap();
                let mut got = vec![0u64; n];
                plan.pointwise(&a, &b, &mut got).unwrap();
                assert_eq!(first_diff(&want, &got), None, "pointwise {isa} q={q}");
                let mut inplace = a.clone();
                plan.pointwise_assign(&mut inplace, &b).unwrap();
                assert_eq!(
                    first_diff(&want, &inplace),
                    None,
                    "pointwise_assign {isa} q={q}"
                );
                let mut acc = vec![q - 1; n];
                plan.pointwise_acc(&a, &b, &mut acc).unwrap();
                let want_acc: Vec<u64> = want.iter().map(|&w| (w + q - 1) % q).collect();
                assert_eq!(
                    first_diff(&want_acc, &acc),
                    None,
                    "pointwise_acc {isa} q={q}"
                );
            }
        }
    }
}
