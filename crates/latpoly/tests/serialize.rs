//! The RnsPoly binary format (`latpoly::serialize`): round trips, exact lengths, golden vectors
//! that pin the format, one test per class of corrupted input, and properties saying that no
//! input makes the readers panic.

use latpoly::primes::ntt_primes;
use latpoly::rns::{Representation, RnsContext, RnsPoly};
use latpoly::serialize::{FORMAT_VERSION, KIND_RNS_POLY, MAGIC, MAX_FRESH_PRIMES};
use latpoly::Error;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::sync::{Arc, OnceLock};

const REPRS: [Representation; 2] = [Representation::Coefficient, Representation::Ntt];

/// Bits per residue: bit length of `q - 1`.
fn bits(q: u64) -> usize {
    (64 - (q - 1).leading_zeros()) as usize
}

/// An independent reference encoder (one `bool` per bit), also used to build malformed inputs:
/// it writes whatever header fields and residues it is given.
fn encode_raw(
    version: u8,
    kind: u8,
    repr: u8,
    log_n: u8,
    primes: &[u64],
    residues: &[u64],
    n: usize,
) -> Vec<u8> {
    let mut out = b"LPLY".to_vec();
    out.extend([version, kind, repr, log_n]);
    out.extend((primes.len() as u16).to_le_bytes());
    for q in primes {
        out.extend(q.to_le_bytes());
    }
    let mut stream: Vec<bool> = Vec::new();
    for (i, &q) in primes.iter().enumerate() {
        for j in 0..n {
            let x = residues[i * n + j];
            stream.extend((0..bits(q)).map(|k| (x >> k) & 1 == 1));
        }
    }
    for chunk in stream.chunks(8) {
        out.push(
            chunk
                .iter()
                .enumerate()
                .map(|(k, &bit)| u8::from(bit) << k)
                .sum(),
        );
    }
    out
}

fn encode_ref(p: &RnsPoly) -> Vec<u8> {
    let ctx = p.context();
    let repr = match p.representation() {
        Representation::Coefficient => 0,
        Representation::Ntt => 1,
    };
    encode_raw(
        1,
        1,
        repr,
        ctx.n().trailing_zeros() as u8,
        ctx.moduli(),
        p.residues(),
        ctx.n(),
    )
}

/// Random residues, with 0 and `q - 1` forced at the first two positions of every limb.
fn random_poly(ctx: &Arc<RnsContext>, repr: Representation, rng: &mut ChaCha20Rng) -> RnsPoly {
    let n = ctx.n();
    let mut data = Vec::with_capacity(n * ctx.len());
    for &q in ctx.moduli() {
        for j in 0..n {
            data.push(match j {
                0 => 0,
                1 => q - 1,
                _ => rng.gen_range(0..q),
            });
        }
    }
    RnsPoly::from_residues(ctx, data, repr).unwrap()
}

fn expected_len(n: usize, primes: &[u64]) -> usize {
    let total_bits: usize = primes.iter().map(|&q| n * bits(q)).sum();
    10 + 8 * primes.len() + total_bits.div_ceil(8)
}

/// Primes for degree `n`: for each entry of `sizes`, the next unused prime of that many bits.
fn primes_of_sizes(n: usize, sizes: &[u32]) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for &b in sizes {
        let used = out.iter().filter(|&&q| bits(q + 1) == b as usize).count();
        out.push(ntt_primes(b, n, used + 1).unwrap()[used]);
    }
    out
}

fn check_round_trip(p: &RnsPoly) {
    let ctx = p.context();
    let bytes = p.to_bytes();
    assert_eq!(bytes.len(), expected_len(ctx.n(), ctx.moduli()));
    assert_eq!(bytes.len(), p.serialized_len());
    assert_eq!(bytes, encode_ref(p), "differs from the reference encoder");

    let q = RnsPoly::from_bytes(&bytes).unwrap();
    assert_eq!(q.context().n(), ctx.n());
    assert_eq!(q.context().moduli(), ctx.moduli());
    assert_eq!(q.representation(), p.representation());
    assert_eq!(q.residues(), p.residues());
    assert_eq!(q.to_bytes(), bytes);

    let r = RnsPoly::from_bytes_in(ctx, &bytes).unwrap();
    assert!(Arc::ptr_eq(r.context(), ctx));
    assert_eq!(r.representation(), p.representation());
    assert_eq!(r.residues(), p.residues());
}

#[test]
fn round_trip_many_shapes() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x5e71a112e);
    let shapes: &[(usize, &[u32])] = &[
        (2, &[3]),
        (2, &[3, 62]),
        (4, &[5, 6]),
        (8, &[14, 14, 14]),
        (16, &[14]),
        (16, &[14, 30, 31]),
        (64, &[20, 31, 33, 40]),
        (128, &[62, 62, 62, 62, 62]),
        (256, &[62, 14, 61, 17, 50]),
        (1024, &[60, 60, 60, 60]),
        (4096, &[36, 37]),
        (8192, &[60, 60, 60, 60]),
    ];
    for &(n, sizes) in shapes {
        let primes = primes_of_sizes(n, sizes);
        let ctx = RnsContext::new(n, &primes).unwrap();
        for repr in REPRS {
            for _ in 0..3 {
                check_round_trip(&random_poly(&ctx, repr, &mut rng));
            }
        }
        check_round_trip(&RnsPoly::zero(&ctx, Representation::Coefficient));
    }
}

#[test]
fn round_trip_extremes() {
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    // Largest degree; Fermat primes, whose q - 1 is a power of two (b = k + 1 bits for 2^k + 1);
    // 100 primes of 62 bits.
    let contexts = [
        RnsContext::new(1 << 17, &ntt_primes(62, 1 << 17, 1).unwrap()).unwrap(),
        RnsContext::new(8, &[17, 257, 65537]).unwrap(),
        RnsContext::new(16, &ntt_primes(62, 16, 100).unwrap()).unwrap(),
    ];
    for ctx in &contexts {
        for repr in REPRS {
            check_round_trip(&random_poly(ctx, repr, &mut rng));
        }
        // All residues at their maximum q - 1.
        let max: Vec<u64> = ctx
            .moduli()
            .iter()
            .flat_map(|&q| std::iter::repeat_n(q - 1, ctx.n()))
            .collect();
        check_round_trip(&RnsPoly::from_residues(ctx, max, Representation::Ntt).unwrap());
    }
}

#[test]
fn round_trip_after_real_ntt() {
    let ctx = RnsContext::with_prime_bits(512, 50, 3).unwrap();
    let coeffs: Vec<i64> = (0..512).map(|i| i * i - 1000).collect();
    let mut p = RnsPoly::from_i64s(&ctx, &coeffs).unwrap();
    p.to_ntt();
    let mut q = RnsPoly::from_bytes(&p.to_bytes()).unwrap();
    assert_eq!(q.representation(), Representation::Ntt);
    q.to_coeff();
    assert_eq!(
        q.to_centered_bigints(),
        coeffs
            .iter()
            .map(|&c| c.into())
            .collect::<Vec<num_bigint::BigInt>>()
    );
}

#[test]
fn serialized_len_w1() {
    let ctx = RnsContext::with_prime_bits(8192, 60, 4).unwrap();
    let p = RnsPoly::zero(&ctx, Representation::Coefficient);
    assert_eq!(p.serialized_len(), 245_802);
    assert_eq!(p.to_bytes().len(), 245_802);
}

/// n = 4, primes 17 (b = 5) and 41 (b = 6); limb 1 = [1, 2, 16, 0], limb 2 = [40, 3, 0, 33].
fn golden_ctx() -> Arc<RnsContext> {
    static CTX: OnceLock<Arc<RnsContext>> = OnceLock::new();
    Arc::clone(CTX.get_or_init(|| RnsContext::new(4, &[17, 41]).unwrap()))
}

const GOLDEN_RESIDUES: [u64; 8] = [1, 2, 16, 0, 40, 3, 0, 33];

/// Computed by hand:
///
/// residue: 1      2      16     0      40      3       0       33
/// width:   5      5      5      5      6       6       6       6
/// bits:    0..5   5..10  10..15 15..20 20..26  26..32  32..38  38..44
///
/// byte 0 = bits 0..8:   1 (bit 0) | 2 << 5 (bit 6)               = 0x41
/// byte 1 = bits 8..16:  16 << 10 sets bit 14 -> bit 6             = 0x40
/// byte 2 = bits 16..24: 40 = 0b101000 << 20 sets bits 23 and 25; bit 23 -> bit 7 = 0x80
/// byte 3 = bits 24..32: bit 25 -> bit 1; 3 << 26 sets bits 26, 27 -> bits 2, 3 = 0x0E
/// byte 4 = bits 32..40: 33 = 0b100001 << 38 sets bits 38, 43; bit 38 -> bit 6 = 0x40
/// byte 5 = bits 40..48: bit 43 -> bit 3; bits 44..48 are padding  = 0x08
#[rustfmt::skip]
const GOLDEN: [u8; 32] = [
    b'L', b'P', b'L', b'Y', // magic
    0x01,                   // version 1
    0x01,                   // kind: RnsPoly
    0x00,                   // coefficient representation
    0x02,                   // log2(n) = 2
    0x02, 0x00,             // L = 2
    17, 0, 0, 0, 0, 0, 0, 0, // q_1 = 17
    41, 0, 0, 0, 0, 0, 0, 0, // q_2 = 41
    0x41, 0x40, 0x80, 0x0E, 0x40, 0x08, // residues
];

#[test]
fn golden_vector() {
    let ctx = golden_ctx();
    let p = RnsPoly::from_residues(&ctx, GOLDEN_RESIDUES.to_vec(), Representation::Coefficient)
        .unwrap();
    assert_eq!(p.to_bytes(), GOLDEN);
    let q = RnsPoly::from_bytes(&GOLDEN).unwrap();
    assert_eq!(q.residues(), GOLDEN_RESIDUES);
    assert_eq!(q.representation(), Representation::Coefficient);

    // The same residues in NTT form differ only in byte 6.
    let p = RnsPoly::from_residues(&ctx, GOLDEN_RESIDUES.to_vec(), Representation::Ntt).unwrap();
    let mut golden_ntt = GOLDEN;
    golden_ntt[6] = 1;
    assert_eq!(p.to_bytes(), golden_ntt);
    assert_eq!(
        RnsPoly::from_bytes_in(&ctx, &golden_ntt)
            .unwrap()
            .representation(),
        Representation::Ntt
    );
    assert_eq!(MAGIC, *b"LPLY");
    assert_eq!((FORMAT_VERSION, KIND_RNS_POLY), (1, 1));
}

/// A 62-bit prime: residue q - 1 fills bits 0..62, residue 1 sets bit 62 (byte 7, bit 6);
/// 124 bits -> 16 payload bytes, the last 4 bits padding.
#[test]
fn golden_vector_62_bits() {
    let q = ntt_primes(62, 2, 1).unwrap()[0];
    let ctx = RnsContext::new(2, &[q]).unwrap();
    let p = RnsPoly::from_residues(&ctx, vec![q - 1, 1], Representation::Coefficient).unwrap();
    let mut expected = vec![b'L', b'P', b'L', b'Y', 1, 1, 0, 1, 1, 0];
    expected.extend(q.to_le_bytes());
    expected.extend(((q - 1) | 1 << 62).to_le_bytes());
    expected.extend([0u8; 8]);
    assert_eq!(p.to_bytes(), expected);
    assert_eq!(
        RnsPoly::from_bytes(&expected).unwrap().residues(),
        [q - 1, 1]
    );
}

fn is_malformed(r: Result<RnsPoly, Error>) -> bool {
    matches!(r, Err(Error::Malformed(_)))
}

/// Both readers (the second with the golden context) reject `bytes` as malformed.
fn assert_malformed(bytes: &[u8], what: &str) {
    let r = RnsPoly::from_bytes(bytes);
    assert!(is_malformed(r.clone()), "{what}: from_bytes gave {r:?}");
    let r = RnsPoly::from_bytes_in(&golden_ctx(), bytes);
    assert!(
        matches!(r, Err(Error::Malformed(_)) | Err(Error::ContextMismatch)),
        "{what}: from_bytes_in gave {r:?}"
    );
}

fn with_byte(i: usize, v: u8) -> Vec<u8> {
    let mut b = GOLDEN.to_vec();
    b[i] = v;
    b
}

#[test]
fn rejects_bad_magic() {
    for i in 0..4 {
        for v in [0u8, b'l', 0xFF] {
            assert_malformed(&with_byte(i, v), "magic");
        }
    }
    let e = RnsPoly::from_bytes(&with_byte(0, b'X')).unwrap_err();
    assert!(
        e.to_string().starts_with("malformed encoding: bad magic"),
        "{e}"
    );
}

#[test]
fn rejects_unknown_version_kind_representation() {
    for v in [0u8, 2, 255] {
        assert_malformed(&with_byte(4, v), "version");
    }
    for k in [0u8, 2, 255] {
        assert_malformed(&with_byte(5, k), "kind");
    }
    for r in [2u8, 3, 255] {
        assert_malformed(&with_byte(6, r), "representation");
    }
}

#[test]
fn rejects_log_n_out_of_range() {
    for l in [0u8, 18, 63, 64, 255] {
        assert_malformed(&with_byte(7, l), "log2(n)");
    }
    // log2(n) = 18 with a payload of the length n = 2^18 would need: still rejected.
    let bytes = encode_raw(1, 1, 0, 18, &[786433], &vec![0; 1 << 18], 1 << 18);
    assert!(is_malformed(RnsPoly::from_bytes(&bytes)));
}

#[test]
fn rejects_bad_prime_count() {
    // L = 0, with or without bytes after the header.
    let mut b = GOLDEN.to_vec();
    b[8] = 0;
    assert_malformed(&b, "L = 0");
    assert_malformed(&b[..10], "L = 0, header only");
    // More primes than the input holds.
    for l in [3u16, 4, 1000, u16::MAX] {
        let mut b = GOLDEN.to_vec();
        b[8..10].copy_from_slice(&l.to_le_bytes());
        assert_malformed(&b, "L too large");
    }
    // Biggest declared sizes (n = 2^17, L = 65535) with a tiny input: fails fast, allocates nothing.
    let b = [b'L', b'P', b'L', b'Y', 1, 1, 0, 17, 0xFF, 0xFF];
    assert_malformed(&b, "huge header");
    // L = 3 but the payload fits L = 2: the third "prime" is read from payload bytes.
    let mut b = GOLDEN.to_vec();
    b[8] = 3;
    b.extend([0u8; 8]);
    assert!(RnsPoly::from_bytes(&b).is_err());
}

#[test]
fn rejects_too_many_primes_for_a_fresh_context() {
    let n = 2;
    let l = MAX_FRESH_PRIMES + 1;
    let primes: Vec<u64> = (0..l as u64).map(|i| 5 + 4 * i).collect();
    let bytes = encode_raw(1, 1, 0, 1, &primes, &vec![0; l * n], n);
    assert!(matches!(
        RnsPoly::from_bytes(&bytes),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn rejects_bad_primes() {
    let n = 4;
    let zeros = [0u64; 8];
    // Second prime replaced by one with the same bit width (6 bits, as 41), so that only the
    // prime itself is wrong: composite but 1 mod 8 (33, 49, 57), prime but not 1 mod 8 (43, 61).
    for bad in [33u64, 49, 57, 43, 61] {
        let bytes = encode_raw(1, 1, 0, 2, &[17, bad], &zeros, n);
        assert!(
            matches!(RnsPoly::from_bytes(&bytes), Err(Error::InvalidModulus { q, .. }) if q == bad),
            "{bad}"
        );
        assert_eq!(
            RnsPoly::from_bytes_in(&golden_ctx(), &bytes).unwrap_err(),
            Error::ContextMismatch
        );
    }
    // Duplicates, 0, 1, 2, too large (1 mod 8 but >= 2^62), u64::MAX.
    let bad_lists: [&[u64]; 7] = [
        &[41, 41],
        &[17, 0],
        &[17, 1],
        &[2],
        &[(1 << 62) + 1],
        &[(1 << 63) + 1],
        &[u64::MAX],
    ];
    for primes in bad_lists {
        let mut b = encode_raw(1, 1, 0, 2, primes, &[], 0);
        // Payload of the length the header implies (for q = 0 / 1: zero bits per residue).
        let total: usize = primes
            .iter()
            .map(|&q| 4 * (64 - q.saturating_sub(1).leading_zeros() as usize))
            .sum();
        b.extend(vec![0u8; total.div_ceil(8)]);
        let r = RnsPoly::from_bytes(&b);
        assert!(
            matches!(r, Err(Error::InvalidModulus { .. })),
            "{primes:?}: {r:?}"
        );
    }
}

#[test]
fn rejects_truncation_and_trailing_bytes() {
    let ctx = RnsContext::new(16, &primes_of_sizes(16, &[14, 31, 62])).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for (ctx, bytes) in [
        (golden_ctx(), GOLDEN.to_vec()),
        (
            Arc::clone(&ctx),
            random_poly(&ctx, Representation::Ntt, &mut rng).to_bytes(),
        ),
    ] {
        for len in 0..bytes.len() {
            assert!(RnsPoly::from_bytes(&bytes[..len]).is_err(), "prefix {len}");
            assert!(
                RnsPoly::from_bytes_in(&ctx, &bytes[..len]).is_err(),
                "prefix {len}"
            );
        }
        for tail in [&[0u8][..], &[0xFF], &[0; 8], &[1; 1000]] {
            let mut b = bytes.clone();
            b.extend_from_slice(tail);
            assert!(is_malformed(RnsPoly::from_bytes(&b)));
            assert!(is_malformed(RnsPoly::from_bytes_in(&ctx, &b)));
        }
    }
}

#[test]
fn rejects_nonzero_padding() {
    // The golden payload ends with 4 padding bits (bits 4..8 of the last byte).
    for bit in 4..8 {
        let mut b = GOLDEN.to_vec();
        b[31] |= 1 << bit;
        assert_malformed(&b, "padding");
        let e = RnsPoly::from_bytes(&b).unwrap_err();
        assert!(e.to_string().contains("padding"), "{e}");
    }
    // A payload without padding (n * sum(b_i) a multiple of 8) has no padding to check.
    let ctx = RnsContext::new(8, &[17]).unwrap(); // 8 * 5 bits = 5 bytes
    assert_eq!(
        RnsPoly::zero(&ctx, Representation::Coefficient)
            .to_bytes()
            .len(),
        10 + 8 + 5
    );
}

#[test]
fn rejects_residue_out_of_range() {
    let n = 4;
    // limb 1 (q = 17, 5 bits): 17 and 31 do not fit; limb 2 (q = 41, 6 bits): 41 and 63.
    for (index, value) in [(0usize, 17u64), (3, 31), (4, 41), (7, 63)] {
        let mut res = GOLDEN_RESIDUES;
        res[index] = value;
        let bytes = encode_raw(1, 1, 1, 2, &[17, 41], &res, n);
        let bound = if index < 4 { 17 } else { 41 };
        let expected = Error::CoefficientOutOfRange {
            index,
            value,
            bound,
        };
        assert_eq!(RnsPoly::from_bytes(&bytes).unwrap_err(), expected);
        assert_eq!(
            RnsPoly::from_bytes_in(&golden_ctx(), &bytes).unwrap_err(),
            expected
        );
    }
}

#[test]
fn from_bytes_in_checks_the_context() {
    let bytes = GOLDEN.to_vec();
    let others = [
        RnsContext::new(4, &[41, 17]).unwrap(),     // other order
        RnsContext::new(4, &[17]).unwrap(),         // fewer primes
        RnsContext::new(4, &[17, 41, 73]).unwrap(), // more primes
        RnsContext::new(4, &[17, 73]).unwrap(),     // other prime
        RnsContext::new(2, &[17, 41]).unwrap(),     // other degree
    ];
    for ctx in &others {
        assert_eq!(
            RnsPoly::from_bytes_in(ctx, &bytes).unwrap_err(),
            Error::ContextMismatch
        );
    }
    // A context equal to but distinct from the encoding's one is accepted and reused.
    let twin = RnsContext::new(4, &[17, 41]).unwrap();
    let p = RnsPoly::from_bytes_in(&twin, &bytes).unwrap();
    assert!(Arc::ptr_eq(p.context(), &twin));
}

/// Encodings of random polynomials over a few small contexts, for mutation tests.
fn sample_encodings() -> &'static [(Arc<RnsContext>, Vec<u8>)] {
    static S: OnceLock<Vec<(Arc<RnsContext>, Vec<u8>)>> = OnceLock::new();
    S.get_or_init(|| {
        let mut rng = ChaCha20Rng::seed_from_u64(11);
        let ctxs = [
            golden_ctx(),
            RnsContext::new(2, &[5]).unwrap(),
            RnsContext::new(16, &primes_of_sizes(16, &[14, 14])).unwrap(),
            RnsContext::new(8, &primes_of_sizes(8, &[62, 20])).unwrap(),
            RnsContext::new(32, &[65537]).unwrap(),
        ];
        ctxs.iter()
            .flat_map(|ctx| {
                REPRS.map(|r| (Arc::clone(ctx), random_poly(ctx, r, &mut rng).to_bytes()))
            })
            .collect()
    })
}

/// Runs both readers; whenever one succeeds its result must re-encode to the input.
fn decode_never_panics(bytes: &[u8], ctx: &Arc<RnsContext>) {
    if let Ok(p) = RnsPoly::from_bytes(bytes) {
        assert_eq!(p.to_bytes(), bytes);
    }
    if let Ok(p) = RnsPoly::from_bytes_in(ctx, bytes) {
        assert_eq!(p.to_bytes(), bytes);
        assert!(Arc::ptr_eq(p.context(), ctx));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        decode_never_panics(&bytes, &golden_ctx());
    }

    #[test]
    fn arbitrary_bytes_after_a_valid_prefix_never_panic(
        repr in 0u8..3,
        log_n in 0u8..19,
        l in 0u16..4,
        tail in proptest::collection::vec(any::<u8>(), 0..200),
    ) {
        let mut bytes = b"LPLY\x01\x01".to_vec();
        bytes.extend([repr, log_n]);
        bytes.extend(l.to_le_bytes());
        bytes.extend(tail);
        decode_never_panics(&bytes, &golden_ctx());
    }

    #[test]
    fn single_byte_mutations_never_panic(which in any::<prop::sample::Index>(),
                                         pos in any::<prop::sample::Index>(),
                                         xor in 1u8..=255) {
        let (ctx, valid) = which.get(sample_encodings());
        let mut bytes = valid.clone();
        let i = pos.index(bytes.len());
        bytes[i] ^= xor;
        decode_never_panics(&bytes, ctx);
    }

    #[test]
    fn truncations_and_extensions_are_rejected(which in any::<prop::sample::Index>(),
                                              cut in any::<prop::sample::Index>(),
                                              tail in proptest::collection::vec(any::<u8>(), 1..20)) {
        let (ctx, valid) = which.get(sample_encodings());
        let len = cut.index(valid.len());
        prop_assert!(RnsPoly::from_bytes(&valid[..len]).is_err());
        prop_assert!(RnsPoly::from_bytes_in(ctx, &valid[..len]).is_err());
        let mut longer = valid.clone();
        longer.extend(tail);
        prop_assert!(RnsPoly::from_bytes(&longer).is_err());
        prop_assert!(RnsPoly::from_bytes_in(ctx, &longer).is_err());
    }

    #[test]
    fn random_polys_round_trip(which in 0usize..5, seed in any::<u64>(), ntt in any::<bool>()) {
        let ctx = &sample_encodings()[2 * which].0;
        let repr = if ntt { Representation::Ntt } else { Representation::Coefficient };
        let p = random_poly(ctx, repr, &mut ChaCha20Rng::seed_from_u64(seed));
        check_round_trip(&p);
    }
}

/// Writes the fuzzing seed corpus (valid encodings) into `fuzz/corpus/rns_poly_from_bytes/`:
/// `cargo test -p latpoly --test serialize -- --ignored write_fuzz_seed_corpus`.
#[test]
#[ignore]
fn write_fuzz_seed_corpus() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/rns_poly_from_bytes");
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(2024);
    let mut seeds: Vec<Vec<u8>> = vec![GOLDEN.to_vec()];
    let shapes: &[(usize, &[u32])] = &[
        (2, &[3]),
        (2, &[62]),
        (4, &[14, 30]),
        (8, &[62, 20, 14]),
        (16, &[14]),
        (32, &[31, 33]),
        (64, &[60, 60]),
        (128, &[17]),
        (256, &[50]),
    ];
    for &(n, sizes) in shapes {
        let ctx = RnsContext::new(n, &primes_of_sizes(n, sizes)).unwrap();
        for repr in REPRS {
            seeds.push(random_poly(&ctx, repr, &mut rng).to_bytes());
        }
    }
    seeds.push(
        RnsPoly::zero(
            &RnsContext::new(8, &[17, 257, 65537]).unwrap(),
            Representation::Ntt,
        )
        .to_bytes(),
    );
    for (i, s) in seeds.iter().enumerate() {
        assert!(
            s.len() <= 4096,
            "keep seeds within libFuzzer's default max_len"
        );
        std::fs::write(dir.join(format!("seed-{i:02}")), s).unwrap();
    }
}
