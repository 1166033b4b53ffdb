//! BFV: decrypt(encrypt(m)) = m, homomorphic add and multiply (with relinearization, depth >= 3
//! at n = 8192 / 218 bits) against plaintext-ring arithmetic, noise budget, bad input.

use latpoly::he::bfv::{Bfv, BfvParams};
use latpoly::sampling::Sampler;
use latpoly::Error;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn random_plain(rng: &mut ChaCha20Rng, n: usize, t: u64) -> Vec<u64> {
    (0..n).map(|_| rng.gen_range(0..t)).collect()
}

fn add_plain(a: &[u64], b: &[u64], t: u64) -> Vec<u64> {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| ((x as u128 + y as u128) % t as u128) as u64)
        .collect()
}

#[test]
fn small_parameters_full_cycle() {
    for (bits, count, t) in [
        (30u32, 3usize, 257u64),
        (40, 3, 65537),
        (50, 2, 3),
        (60, 2, 2),
        // t above the primes, and t below them with 4 L t >= 2^63: decryption's 128-bit
        // scale-and-round path (the others take the 64-bit kernels of `he/bfv/round.rs`)
        (30, 5, (1 << 35) - 31),
        (62, 4, (1 << 59) + 5),
    ] {
        let bfv = Bfv::new(BfvParams::new(1024, bits, count, t).unwrap()).unwrap();
        if t >= 1 << 32 {
            // the 128-bit path: t above the primes, or 4 L t >= 2^63
            let q = bfv.context().moduli();
            assert!(q.iter().all(|&q| q < t) || 4 * q.len() as u128 * t as u128 >= 1 << 63);
        }
        let mut rng = Sampler::from_seed([bits as u8; 32]);
        let mut prng = ChaCha20Rng::seed_from_u64(bits as u64);
        let keys = bfv.keygen(&mut rng).unwrap();
        let (m1, m2) = (
            random_plain(&mut prng, 1024, t),
            random_plain(&mut prng, 1024, t),
        );
        let c1 = bfv.encrypt(&keys.public, &m1, &mut rng).unwrap();
        let c2 = bfv.encrypt(&keys.public, &m2, &mut rng).unwrap();
        assert_eq!(bfv.decrypt(&keys.secret, &c1).unwrap(), m1);
        assert_eq!(
            bfv.decrypt(&keys.secret, &bfv.add(&c1, &c2).unwrap())
                .unwrap(),
            add_plain(&m1, &m2, t)
        );
        let diff: Vec<u64> = m1.iter().zip(&m2).map(|(x, y)| (x + t - y) % t).collect();
        assert_eq!(
            bfv.decrypt(&keys.secret, &bfv.sub(&c1, &c2).unwrap())
                .unwrap(),
            diff
        );
        assert_eq!(
            bfv.decrypt(&keys.secret, &bfv.add_plain(&c1, &m2).unwrap())
                .unwrap(),
            add_plain(&m1, &m2, t)
        );
        let fresh = bfv.noise_budget(&keys.secret, &c1).unwrap();
        let c3 = bfv.multiply(&c1, &c2).unwrap();
        assert_eq!(c3.len(), 3);
        let want = bfv.plain_mul(&m1, &m2).unwrap();
        assert_eq!(
            bfv.decrypt(&keys.secret, &c3).unwrap(),
            want,
            "3-part product, t={t}"
        );
        // Sums and differences of a 3-part and a 2-part ciphertext, both ways round.
        assert_eq!(
            bfv.decrypt(&keys.secret, &bfv.add(&c1, &c3).unwrap())
                .unwrap(),
            add_plain(&m1, &want, t)
        );
        let sub_plain = |x: &[u64], y: &[u64]| -> Vec<u64> {
            x.iter().zip(y).map(|(a, b)| (a + t - b) % t).collect()
        };
        assert_eq!(
            bfv.decrypt(&keys.secret, &bfv.sub(&c1, &c3).unwrap())
                .unwrap(),
            sub_plain(&m1, &want),
            "2-part minus 3-part, t={t}"
        );
        assert_eq!(
            bfv.decrypt(&keys.secret, &bfv.sub(&c3, &c1).unwrap())
                .unwrap(),
            sub_plain(&want, &m1),
            "3-part minus 2-part, t={t}"
        );
        let r = bfv.relinearize(&c3, &keys.relin).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(
            bfv.decrypt(&keys.secret, &r).unwrap(),
            want,
            "relinearized, t={t}"
        );
        let after = bfv.noise_budget(&keys.secret, &r).unwrap();
        assert!(fresh > after && after > 0, "budget {fresh} -> {after}");
    }
}

/// Two decryption bugs (found and fixed in the seventy-ninth session), each caught by this
/// test's cases:
/// * many primes near `2^62` with `t < 2^32`: the decryption formula summed one integer part
///   per prime (each below `q_i`) in 64 bits, which overflowed from about six such primes on
///   (every decryption wrong with eight; a panic in debug builds);
/// * `t` large against `Q` (one 62-bit prime, `t` from `2^31`): the plaintext entered as
///   `floor(Q/t) m`, whose error `(Q mod t) m / Q` reaches `t^2 / Q`, so large coefficients
///   decrypted one or more too small whatever the noise. It now enters as `round(Q m / t)`.
///
/// And one in the noise budget: from `t = 2^63` on it read 0 for every ciphertext.
///
/// Every case has a positive noise budget; decryptions of fresh ciphertexts, of sums and of
/// plaintext sums (which scale the plaintext too) must be exact.
#[test]
fn decryption_with_large_primes_and_large_t() {
    let mut cases = Vec::new();
    for t in [257u64, 65537, (1 << 32) - 5] {
        for count in [1usize, 2, 4, 5, 6, 8, 10, 12] {
            cases.push((62u32, count, t));
        }
    }
    for t in [
        (1u64 << 31) - 1,
        (1 << 32) - 5,
        1 << 32,
        (1 << 34) + 1,
        (1 << 40) + 15,
    ] {
        cases.push((62, 1, t));
    }
    cases.extend([
        (50, 1, (1 << 32) - 5),
        (40, 2, (1 << 36) - 5),
        (60, 2, (1 << 61) + 1),
    ]);
    // t from 2^63 (the noise budget multiplied by `t as i64`, negative there, and read 0)
    cases.extend([
        (62, 3, (1 << 63) + 1),
        (62, 3, u64::MAX),
        (62, 6, u64::MAX - 2),
    ]);
    for (bits, count, t) in cases {
        let what = format!("{count} primes of {bits} bits, t = {t}");
        let bfv = Bfv::new(BfvParams::new(64, bits, count, t).unwrap()).unwrap();
        let mut rng = Sampler::from_seed([count as u8; 32]);
        let mut prng = ChaCha20Rng::seed_from_u64(count as u64 ^ t);
        let keys = bfv.keygen(&mut rng).unwrap();
        for round in 0..3 {
            let mut m1 = random_plain(&mut prng, 64, t);
            if round == 0 {
                m1.fill(t - 1); // the largest error of the textbook scaling
            }
            let m2 = random_plain(&mut prng, 64, t);
            let c1 = bfv.encrypt(&keys.public, &m1, &mut rng).unwrap();
            let c2 = bfv.encrypt(&keys.public, &m2, &mut rng).unwrap();
            assert!(bfv.noise_budget(&keys.secret, &c1).unwrap() > 0, "{what}");
            assert_eq!(bfv.decrypt(&keys.secret, &c1).unwrap(), m1, "{what}");
            let sum = add_plain(&m1, &m2, t);
            let c = bfv.add(&c1, &c2).unwrap();
            assert_eq!(bfv.decrypt(&keys.secret, &c).unwrap(), sum, "{what}, sum");
            let c = bfv.add_plain(&c1, &m2).unwrap();
            assert_eq!(
                bfv.decrypt(&keys.secret, &c).unwrap(),
                sum,
                "{what}, plain sum"
            );
        }
    }
}

#[test]
fn n4096_q124_add_and_multiply() {
    let t = 65537;
    let bfv = Bfv::new(BfvParams::n4096_q124(t).unwrap()).unwrap();
    assert!(bfv.context().modulus_bits() >= 123);
    let mut rng = Sampler::from_seed([41; 32]);
    let mut prng = ChaCha20Rng::seed_from_u64(41);
    let keys = bfv.keygen(&mut rng).unwrap();
    let m: Vec<Vec<u64>> = (0..3).map(|_| random_plain(&mut prng, 4096, t)).collect();
    let c: Vec<_> = m
        .iter()
        .map(|x| bfv.encrypt(&keys.public, x, &mut rng).unwrap())
        .collect();
    let p01 = bfv.multiply_relin(&c[0], &c[1], &keys.relin).unwrap();
    // The fused product (temporaries in the scratch pool) is the two steps, bit for bit.
    let c3 = bfv.multiply(&c[0], &c[1]).unwrap();
    let two_steps = bfv.relinearize(&c3, &keys.relin).unwrap();
    assert_eq!(p01.len(), 2);
    for (x, y) in p01.parts().iter().zip(two_steps.parts()) {
        assert_eq!(x.residues(), y.residues());
    }
    let want01 = bfv.plain_mul(&m[0], &m[1]).unwrap();
    assert_eq!(bfv.decrypt(&keys.secret, &p01).unwrap(), want01);
    let s = bfv.add(&p01, &c[2]).unwrap();
    assert_eq!(
        bfv.decrypt(&keys.secret, &s).unwrap(),
        add_plain(&want01, &m[2], t)
    );
    println!(
        "n=4096 budget: fresh {} after one product {}",
        bfv.noise_budget(&keys.secret, &c[0]).unwrap(),
        bfv.noise_budget(&keys.secret, &p01).unwrap()
    );
}

#[test]
fn n8192_q218_depth_three() {
    let t = 65537;
    let bfv = Bfv::new(BfvParams::n8192_q218(t).unwrap()).unwrap();
    let bits = bfv.context().modulus_bits();
    assert!((216..=220).contains(&bits), "{bits}");
    let mut rng = Sampler::from_seed([82; 32]);
    let mut prng = ChaCha20Rng::seed_from_u64(82);
    let keys = bfv.keygen(&mut rng).unwrap();
    // Sparse-ish plaintexts keep the reference products cheap; the ciphertexts are full size.
    let sparse = |prng: &mut ChaCha20Rng| -> Vec<u64> {
        let mut v = vec![0u64; 8192];
        for _ in 0..16 {
            v[prng.gen_range(0..8192)] = prng.gen_range(0..t);
        }
        v
    };
    let m: Vec<Vec<u64>> = (0..4).map(|_| sparse(&mut prng)).collect();
    let c: Vec<_> = m
        .iter()
        .map(|x| bfv.encrypt(&keys.public, x, &mut rng).unwrap())
        .collect();
    let mut acc_c = c[0].clone();
    let mut acc_m = m[0].clone();
    let mut budgets = vec![bfv.noise_budget(&keys.secret, &acc_c).unwrap()];
    for k in 1..4 {
        acc_c = bfv.multiply_relin(&acc_c, &c[k], &keys.relin).unwrap();
        acc_m = bfv.plain_mul(&acc_m, &m[k]).unwrap();
        assert_eq!(
            bfv.decrypt(&keys.secret, &acc_c).unwrap(),
            acc_m,
            "depth {k}"
        );
        budgets.push(bfv.noise_budget(&keys.secret, &acc_c).unwrap());
    }
    println!("n=8192 budgets by depth: {budgets:?}");
    assert!(budgets.windows(2).all(|w| w[0] > w[1]) && budgets[3] > 0);
}

/// With the special prime, relinearization adds almost no noise: a relinearized product keeps
/// the noise budget of the 3-polynomial product within a bit (with one digit per prime and no
/// special prime, `n4096_q124` fell from 68 to 35 bits here), on two 62-bit primes and on one.
#[test]
fn relinearization_keeps_the_noise_budget() {
    for params in [
        BfvParams::n4096_q124(65537).unwrap(),
        BfvParams::new(2048, 62, 1, 257).unwrap(),
    ] {
        let (n, t) = (params.n, params.t);
        let bfv = Bfv::new(params).unwrap();
        let mut rng = Sampler::from_seed([31; 32]);
        let mut prng = ChaCha20Rng::seed_from_u64(31);
        let keys = bfv.keygen(&mut rng).unwrap();
        let (a, b) = (random_plain(&mut prng, n, t), random_plain(&mut prng, n, t));
        let ca = bfv.encrypt(&keys.public, &a, &mut rng).unwrap();
        let cb = bfv.encrypt(&keys.public, &b, &mut rng).unwrap();
        let c3 = bfv.multiply(&ca, &cb).unwrap();
        let c2 = bfv.relinearize(&c3, &keys.relin).unwrap();
        let want = bfv.plain_mul(&a, &b).unwrap();
        assert_eq!(bfv.decrypt(&keys.secret, &c2).unwrap(), want, "n = {n}");
        let (b3, b2) = (
            bfv.noise_budget(&keys.secret, &c3).unwrap(),
            bfv.noise_budget(&keys.secret, &c2).unwrap(),
        );
        assert!(b3 > 0 && b2 + 1 >= b3, "n = {n}: budget {b3} -> {b2}");
    }
}

#[test]
fn bad_input() {
    assert!(Bfv::new(BfvParams::new(1024, 30, 2, 1).unwrap()).is_err());
    let mut p = BfvParams::new(1024, 30, 2, 257).unwrap();
    p.t = p.moduli[0];
    assert!(Bfv::new(p).is_err());
    let mut p = BfvParams::new(1024, 30, 2, 257).unwrap();
    p.sigma = f64::NAN;
    assert!(Bfv::new(p).is_err());
    let mut p = BfvParams::new(1024, 30, 2, 257).unwrap();
    p.moduli.push(p.moduli[0]);
    assert!(Bfv::new(p).is_err());
    assert!(BfvParams::new(1000, 30, 2, 257).is_err());

    let bfv = Bfv::new(BfvParams::new(1024, 30, 2, 257).unwrap()).unwrap();
    let other = Bfv::new(BfvParams::new(1024, 31, 2, 257).unwrap()).unwrap();
    let mut rng = Sampler::from_seed([3; 32]);
    let keys = bfv.keygen(&mut rng).unwrap();
    let okeys = other.keygen(&mut rng).unwrap();
    assert!(matches!(
        bfv.encrypt(&keys.public, &[0; 1023], &mut rng),
        Err(Error::LengthMismatch { .. })
    ));
    let mut big = vec![0u64; 1024];
    big[5] = 257;
    assert!(matches!(
        bfv.encrypt(&keys.public, &big, &mut rng),
        Err(Error::CoefficientOutOfRange { index: 5, .. })
    ));
    assert!(bfv.encrypt(&okeys.public, &[0; 1024], &mut rng).is_err());
    let c = bfv.encrypt(&keys.public, &[1; 1024], &mut rng).unwrap();
    let oc = other.encrypt(&okeys.public, &[1; 1024], &mut rng).unwrap();
    assert!(bfv.add(&c, &oc).is_err());
    assert!(bfv.decrypt(&okeys.secret, &c).is_err());
    let c3 = bfv.multiply(&c, &c).unwrap();
    assert!(bfv.multiply(&c3, &c).is_err());
    assert!(bfv.relinearize(&c3, &okeys.relin).is_err());
    // The fused product refuses what its two steps refuse.
    assert!(bfv.multiply_relin(&c3, &c, &keys.relin).is_err());
    assert!(bfv.multiply_relin(&c, &oc, &keys.relin).is_err());
    assert!(bfv.multiply_relin(&c, &c, &okeys.relin).is_err());
}

/// The polynomials of a container (`LPLY`, version, kind, `u16` count, then whole `RnsPoly`
/// encodings), split by reading each part's own header: an independent reader of the format.
fn container_parts(bytes: &[u8], kind: u8) -> Vec<latpoly::rns::RnsPoly> {
    assert_eq!(&bytes[..6], &[b'L', b'P', b'L', b'Y', 1, kind]);
    let count = u16::from_le_bytes([bytes[6], bytes[7]]) as usize;
    let mut rest = &bytes[8..];
    let mut parts = Vec::new();
    for _ in 0..count {
        let l = u16::from_le_bytes([rest[8], rest[9]]) as usize;
        let n = 1usize << rest[7];
        let bits: usize = (0..l)
            .map(|i| {
                let q = u64::from_le_bytes(rest[10 + 8 * i..18 + 8 * i].try_into().unwrap());
                64 - (q - 1).leading_zeros() as usize
            })
            .sum();
        let len = 10 + 8 * l + (n * bits).div_ceil(8);
        parts.push(latpoly::rns::RnsPoly::from_bytes(&rest[..len]).unwrap());
        rest = &rest[len..];
    }
    assert!(rest.is_empty());
    parts
}

/// The secret key's coefficients from its bytes (two-bit codes after the header).
fn secret_coefficients(bytes: &[u8], n: usize, l: usize) -> Vec<i64> {
    let payload = &bytes[10 + 8 * l..];
    assert_eq!(payload.len(), (2 * n).div_ceil(8));
    (0..n)
        .map(|j| match (payload[j / 4] >> (2 * (j % 4))) & 3 {
            0 => 0,
            1 => 1,
            2 => -1,
            c => panic!("code {c}"),
        })
        .collect()
}

#[test]
fn keys_and_ciphertexts_through_bytes() {
    use latpoly::rns::{Representation, RnsPoly};
    // n = 2 (one padded secret-key byte) up to 4096; primes from 20 to 61 bits
    for (n, bits, count, t) in [
        (2usize, 30u32, 2usize, 3u64),
        (16, 20, 3, 17),
        (1024, 40, 3, 65537),
        (4096, 61, 2, 257),
    ] {
        let bfv = Bfv::new(BfvParams::new(n, bits, count, t).unwrap()).unwrap();
        let mut rng = Sampler::from_seed([n as u8; 32]);
        let mut prng = ChaCha20Rng::seed_from_u64(n as u64);
        let keys = bfv.keygen(&mut rng).unwrap();
        let (skb, pkb, rlb) = (
            keys.secret.to_bytes(),
            keys.public.to_bytes(),
            keys.relin.to_bytes(),
        );
        assert_eq!(skb.len(), keys.secret.serialized_len());
        assert_eq!(pkb.len(), keys.public.serialized_len());
        assert_eq!(rlb.len(), keys.relin.serialized_len());
        let sk = bfv.secret_key_from_bytes(&skb).unwrap();
        let pk = bfv.public_key_from_bytes(&pkb).unwrap();
        let rlk = bfv.relin_key_from_bytes(&rlb).unwrap();
        // one encoding per object
        assert_eq!(*sk.to_bytes(), *skb);
        assert_eq!(pk.to_bytes(), pkb);
        assert_eq!(rlk.to_bytes(), rlb);

        // the secret key's codes against the public key: p0 + p1 s is the small error -e
        let s = secret_coefficients(&skb, n, count);
        assert!(s.iter().any(|&x| x != 0) || n == 2);
        let pk_expanded = keys.public.to_expanded_bytes();
        let pkp = container_parts(&pk_expanded, 2);
        assert_eq!(pkp.len(), 2);
        // the compact form: p_0 after the 32-byte seed, and p_1 = Expand(seed), ChaCha20
        // keyed with the seed drawing one NTT-form uniform polynomial over Q
        assert_eq!(&pkb[..8], b"LPLY\x01\x08\x01\x00");
        let seed: [u8; 32] = pkb[8..40].try_into().unwrap();
        let p0 = RnsPoly::from_bytes(&pkb[40..]).unwrap();
        assert_eq!(p0.residues(), pkp[0].residues());
        let p1 = Sampler::from_seed(seed).uniform_poly_ntt(bfv.context());
        assert_eq!(p1.residues(), pkp[1].residues());
        assert!(pkp
            .iter()
            .all(|p| p.representation() == Representation::Ntt));
        let mut sp = RnsPoly::from_i64s(bfv.context(), &s).unwrap();
        sp.to_ntt();
        let mut e = pkp[0].add(&pkp[1].mul(&sp).unwrap()).unwrap();
        e.to_coeff();
        assert!(e
            .to_centered_bigints()
            .iter()
            .all(|x| x.magnitude().bits() <= 6));
        assert_eq!(
            container_parts(&keys.relin.to_expanded_bytes(), 3).len(),
            2 * count
        );
        assert_eq!(&rlb[..8], &[b'L', b'P', b'L', b'Y', 1, 9, count as u8, 0]);

        // the loaded keys work together and with the original ones
        let (m1, m2) = (random_plain(&mut prng, n, t), random_plain(&mut prng, n, t));
        let c1 = bfv.encrypt(&pk, &m1, &mut rng).unwrap();
        let c2 = bfv.encrypt(&keys.public, &m2, &mut rng).unwrap();
        let c3 = bfv.multiply(&c1, &c2).unwrap();
        for c in [&c1, &c3] {
            let b = c.to_bytes();
            assert_eq!(b.len(), c.serialized_len());
            let back = bfv.ciphertext_from_bytes(&b).unwrap();
            assert_eq!(back.to_bytes(), b);
            let parts = container_parts(&b, 4);
            assert_eq!(parts.len(), c.len());
            for (x, y) in parts.iter().zip(c.parts()) {
                assert_eq!(x.residues(), y.residues());
            }
        }
        let c3 = bfv
            .ciphertext_from_bytes(&c3.to_bytes())
            .and_then(|c| bfv.relinearize(&c, &rlk))
            .unwrap();
        assert_eq!(
            bfv.decrypt(&sk, &c3).unwrap(),
            bfv.plain_mul(&m1, &m2).unwrap()
        );
        assert_eq!(bfv.decrypt(&keys.secret, &c1).unwrap(), m1);

        // a ciphertext container whose parts are in NTT form is accepted and converted
        let mut ntt_parts = container_parts(&c1.to_bytes(), 4);
        let mut b = b"LPLY\x01\x04\x02\x00".to_vec();
        for p in &mut ntt_parts {
            p.to_ntt();
            b.extend_from_slice(&p.to_bytes());
        }
        assert_eq!(
            bfv.decrypt(&sk, &bfv.ciphertext_from_bytes(&b).unwrap())
                .unwrap(),
            m1
        );
        // key polynomials in coefficient form are refused
        let mut b = b"LPLY\x01\x02\x02\x00".to_vec();
        for mut p in container_parts(&pk_expanded, 2) {
            p.to_coeff();
            b.extend_from_slice(&p.to_bytes());
        }
        assert!(matches!(
            bfv.public_key_from_bytes(&b),
            Err(Error::Malformed(_))
        ));
    }
}

#[test]
fn malformed_key_and_ciphertext_bytes_are_errors() {
    let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257).unwrap()).unwrap();
    let mut rng = Sampler::from_seed([9; 32]);
    let keys = bfv.keygen(&mut rng).unwrap();
    let c = bfv.encrypt(&keys.public, &[1; 16], &mut rng).unwrap();
    let c3 = bfv.multiply(&c, &c).unwrap();
    let skb = keys.secret.to_bytes().to_vec();
    let objects: [(&str, Vec<u8>); 5] = [
        ("secret", skb.clone()),
        ("public", keys.public.to_bytes()),
        ("relin", keys.relin.to_bytes()),
        ("ct", c.to_bytes()),
        ("ct3", c3.to_bytes()),
    ];
    let load = |what: &str, b: &[u8]| -> Result<(), Error> {
        match what {
            "secret" => bfv.secret_key_from_bytes(b).map(drop),
            "public" => bfv.public_key_from_bytes(b).map(drop),
            "relin" => bfv.relin_key_from_bytes(b).map(drop),
            _ => bfv.ciphertext_from_bytes(b).map(drop),
        }
    };
    for (what, bytes) in &objects {
        load(what, bytes).unwrap();
        // every proper prefix, and one byte more, is an error
        for len in 0..bytes.len() {
            assert!(load(what, &bytes[..len]).is_err(), "{what} prefix {len}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(load(what, &longer), Err(Error::Malformed(_))));
        // another kind's bytes are refused
        for (other, ob) in &objects {
            if other != what && !(what.starts_with("ct") && other.starts_with("ct")) {
                assert!(load(what, ob).is_err(), "{other} read as {what}");
            }
        }
        // random corruptions never panic; header corruptions are errors
        let mut prng = ChaCha20Rng::seed_from_u64(bytes.len() as u64);
        for _ in 0..500 {
            let mut b = bytes.clone();
            let i = prng.gen_range(0..b.len());
            b[i] ^= 1 << prng.gen_range(0..8);
            let r = load(what, &b);
            if i < 8 {
                assert!(r.is_err(), "{what}: flip in byte {i} accepted");
            }
        }
    }
    // another degree or other primes: ContextMismatch
    for other in [
        Bfv::new(BfvParams::new(32, 30, 3, 257).unwrap()).unwrap(),
        Bfv::new(BfvParams::new(16, 31, 3, 257).unwrap()).unwrap(),
    ] {
        assert_eq!(
            other.secret_key_from_bytes(&skb).unwrap_err(),
            Error::ContextMismatch
        );
        assert_eq!(
            other
                .public_key_from_bytes(&keys.public.to_bytes())
                .unwrap_err(),
            Error::ContextMismatch
        );
        assert_eq!(
            other.ciphertext_from_bytes(&c.to_bytes()).unwrap_err(),
            Error::ContextMismatch
        );
    }
    // a basis of two primes of Q's three: the relinearization key has 6 polynomials, not 4
    let two = Bfv::new(BfvParams {
        moduli: bfv.context().moduli()[..2].to_vec(),
        ..bfv.params().clone()
    })
    .unwrap();
    assert!(matches!(
        two.relin_key_from_bytes(&keys.relin.to_bytes()),
        Err(Error::Malformed(_))
    ));
    // the invalid code 3 at every position of the secret key
    let payload = 10 + 3 * 8;
    for j in 0..16 {
        let mut b = skb.clone();
        b[payload + j / 4] |= 3 << (2 * (j % 4));
        assert!(matches!(
            bfv.secret_key_from_bytes(&b),
            Err(Error::Malformed(_))
        ));
    }
    // the representation byte of a secret key must be 0
    let mut b = skb.clone();
    b[6] = 1;
    assert!(matches!(
        bfv.secret_key_from_bytes(&b),
        Err(Error::Malformed(_))
    ));
    // a residue not below its prime in a ciphertext
    let mut b = c.to_bytes();
    let first = 8 + 10 + 3 * 8;
    b[first..first + 4].fill(0xff); // the first residue: 30 bits of ones
    assert!(matches!(
        bfv.ciphertext_from_bytes(&b),
        Err(Error::CoefficientOutOfRange { .. })
    ));
    // n = 2: the secret key's padding bits must be zero
    let tiny = Bfv::new(BfvParams::new(2, 30, 2, 3).unwrap()).unwrap();
    let tk = tiny.keygen(&mut rng).unwrap().secret.to_bytes().to_vec();
    assert_eq!(tk.len(), 10 + 16 + 1);
    let mut b = tk.clone();
    b[26] |= 0x10;
    assert!(matches!(
        tiny.secret_key_from_bytes(&b),
        Err(Error::Malformed(_))
    ));
}

/// Evaluates the polynomial `m` at `x` modulo `t` (Horner).
fn eval_mod(m: &[u64], x: u64, t: u64) -> u64 {
    m.iter()
        .rev()
        .fold(0u128, |acc, &c| (acc * x as u128 + c as u128) % t as u128) as u64
}

#[test]
fn slots_are_evaluations_at_the_documented_roots() {
    use latpoly::arith::Modulus;
    use latpoly::NttPlan;
    // n = 2 to 64, t = 17 (n <= 8), 97 (n <= 16), 65537, and a 61-bit prime 1 mod 128
    let big = latpoly::primes::ntt_primes(61, 64, 1).unwrap()[0];
    for (n, t) in [
        (2usize, 5u64),
        (4, 17),
        (8, 17),
        (16, 97),
        (64, 65537),
        (64, big),
    ] {
        let bfv = Bfv::new(BfvParams {
            t,
            ..BfvParams::new(n, 62, 2, 2).unwrap()
        })
        .unwrap();
        assert!(bfv.batching(), "n = {n}, t = {t}");
        let psi = NttPlan::new(n, t).unwrap().psi();
        let md = NttPlan::new(n, t).unwrap().modulus().clone();
        let mut prng = ChaCha20Rng::seed_from_u64(n as u64 ^ t);
        for _ in 0..4 {
            let mut v = random_plain(&mut prng, n, t);
            v[0] = t - 1;
            let m = bfv.encode_slots(&v).unwrap();
            assert!(m.iter().all(|&c| c < t));
            assert_eq!(bfv.decode_slots(&m).unwrap(), v);
            // slot (r, j) is m(psi^e), e = (-1)^r 3^j mod 2n
            let mut e = 1u64;
            for j in 0..n / 2 {
                let plus = md.pow(psi, e);
                let minus = md.pow(psi, 2 * n as u64 - e);
                assert_eq!(eval_mod(&m, plus, t), v[j]);
                assert_eq!(eval_mod(&m, minus, t), v[n / 2 + j]);
                e = e * 3 % (2 * n as u64);
            }
        }
        assert_eq!(bfv.decode_slots(&vec![0; n]).unwrap(), vec![0; n]);
        assert_eq!(bfv.encode_slots(&vec![0; n]).unwrap(), vec![0; n]);
    }
    // no batching: t not prime, or not 1 mod 2n
    for t in [256u64, 257 * 3, 7681] {
        let bfv = Bfv::new(BfvParams::new(1024, 40, 2, t).unwrap()).unwrap();
        assert!(!bfv.batching());
        assert!(matches!(
            bfv.encode_slots(&[0; 1024]),
            Err(Error::InvalidArgument(_))
        ));
    }
    let bfv = Bfv::new(BfvParams::new(16, 30, 2, 97).unwrap()).unwrap();
    assert!(matches!(
        bfv.encode_slots(&[0; 15]),
        Err(Error::LengthMismatch { .. })
    ));
    let mut v = vec![0u64; 16];
    v[9] = 97;
    assert!(matches!(
        bfv.encode_slots(&v),
        Err(Error::CoefficientOutOfRange { index: 9, .. })
    ));
}

#[test]
fn rotations_and_batched_arithmetic() {
    // n = 4096, t = 65537, Q of 3 x 50 bits: slot-wise add and multiply, every power-of-two
    // rotation both ways, a composed rotation, the row swap, then a product of rotated values
    let (n, t) = (4096usize, 65537u64);
    let bfv = Bfv::new(BfvParams::new(n, 50, 3, t).unwrap()).unwrap();
    let mut rng = Sampler::from_seed([11; 32]);
    let mut prng = ChaCha20Rng::seed_from_u64(11);
    let keys = bfv.keygen(&mut rng).unwrap();
    let steps: Vec<i64> = (0..11).flat_map(|b| [1i64 << b, -(1i64 << b)]).collect();
    let gk = bfv
        .rotation_keygen(&keys.secret, &steps, true, &mut rng)
        .unwrap();
    assert_eq!(gk.len(), 21 + 1); // +2^10 and -2^10 coincide (rows of n/2 = 2^11); the swap
    let (x, y) = (random_plain(&mut prng, n, t), random_plain(&mut prng, n, t));
    let cx = bfv
        .encrypt(&keys.public, &bfv.encode_slots(&x).unwrap(), &mut rng)
        .unwrap();
    let cy = bfv
        .encrypt(&keys.public, &bfv.encode_slots(&y).unwrap(), &mut rng)
        .unwrap();
    let slots = |c: &latpoly::he::bfv::BfvCiphertext| {
        bfv.decode_slots(&bfv.decrypt(&keys.secret, c).unwrap())
            .unwrap()
    };
    let rot = |v: &[u64], k: i64| -> Vec<u64> {
        let h = n / 2;
        (0..n)
            .map(|i| {
                let (r, j) = (i / h, i % h);
                v[r * h + (j as i64 + k).rem_euclid(h as i64) as usize]
            })
            .collect()
    };
    let sum = bfv.add(&cx, &cy).unwrap();
    let want: Vec<u64> = x.iter().zip(&y).map(|(a, b)| (a + b) % t).collect();
    assert_eq!(slots(&sum), want);
    for &k in &steps {
        assert_eq!(
            slots(&bfv.rotate_rows(&cx, k, &gk).unwrap()),
            rot(&x, k),
            "{k}"
        );
    }
    // 5 = 4 + 1 through two keys, and the row swap
    let r5 = bfv
        .rotate_rows(&bfv.rotate_rows(&cx, 4, &gk).unwrap(), 1, &gk)
        .unwrap();
    assert_eq!(slots(&r5), rot(&x, 5));
    let swapped: Vec<u64> = x[n / 2..].iter().chain(&x[..n / 2]).copied().collect();
    assert_eq!(slots(&bfv.swap_rows(&cx, &gk).unwrap()), swapped);
    // (rot(x, 1) * y) rotated back
    let p = bfv
        .multiply_relin(&bfv.rotate_rows(&cx, 1, &gk).unwrap(), &cy, &keys.relin)
        .unwrap();
    let p = bfv.rotate_rows(&p, -1, &gk).unwrap();
    let rx = rot(&x, 1);
    let prod: Vec<u64> = rx.iter().zip(&y).map(|(a, b)| a * b % t).collect();
    assert_eq!(slots(&p), rot(&prod, -1));
    assert!(bfv.noise_budget(&keys.secret, &p).unwrap() > 0);
    // rotation by 0 and by a multiple of the row length need no key
    assert_eq!(slots(&bfv.rotate_rows(&cx, 0, &gk).unwrap()), x);
    assert_eq!(slots(&bfv.rotate_rows(&cx, n as i64 / 2, &gk).unwrap()), x);

    // Galois keys through bytes
    let bytes = gk.to_bytes();
    assert_eq!(bytes.len(), gk.serialized_len());
    let back = bfv.galois_keys_from_bytes(&bytes).unwrap();
    assert_eq!(back.elements(), gk.elements());
    assert_eq!(back.to_bytes(), bytes);
    assert_eq!(
        slots(&bfv.rotate_rows(&cx, -8, &back).unwrap()),
        rot(&x, -8)
    );
}

#[test]
fn galois_automorphisms_on_coefficient_plaintexts_and_errors() {
    use latpoly::rns::galois::coeff_map;
    let (n, t) = (1024usize, 257u64);
    let bfv = Bfv::new(BfvParams::new(n, 40, 3, t).unwrap()).unwrap();
    assert!(!bfv.batching());
    let mut rng = Sampler::from_seed([12; 32]);
    let mut prng = ChaCha20Rng::seed_from_u64(12);
    let keys = bfv.keygen(&mut rng).unwrap();
    let elements = [3usize, 5, 2047, 1023, 1025];
    let gk = bfv
        .galois_keygen(&keys.secret, &elements, &mut rng)
        .unwrap();
    let m = random_plain(&mut prng, n, t);
    let c = bfv.encrypt(&keys.public, &m, &mut rng).unwrap();
    for &g in &elements {
        let mut want = vec![0u64; n];
        for (i, &(to, neg)) in coeff_map(n, g as i64).unwrap().iter().enumerate() {
            want[to] = if neg { (t - m[i]) % t } else { m[i] };
        }
        let cg = bfv.apply_galois(&c, g, &gk).unwrap();
        assert_eq!(bfv.decrypt(&keys.secret, &cg).unwrap(), want, "g = {g}");
    }
    // errors
    let c3 = bfv.multiply(&c, &c).unwrap();
    assert!(matches!(
        bfv.apply_galois(&c3, 3, &gk),
        Err(Error::InvalidArgument(_))
    ));
    for g in [7usize, 4, 2048, 0] {
        assert!(matches!(
            bfv.apply_galois(&c, g, &gk),
            Err(Error::InvalidArgument(_))
        ));
    }
    assert!(bfv.galois_keygen(&keys.secret, &[2], &mut rng).is_err());
    let other = Bfv::new(BfvParams::new(n, 41, 3, t).unwrap()).unwrap();
    let okeys = other.keygen(&mut rng).unwrap();
    let ogk = other.galois_keygen(&okeys.secret, &[3], &mut rng).unwrap();
    assert!(bfv.apply_galois(&c, 3, &ogk).is_err());
    assert_eq!(
        bfv.galois_keygen(&okeys.secret, &[3], &mut rng)
            .unwrap_err(),
        Error::ContextMismatch
    );
    let oc = other.encrypt(&okeys.public, &m, &mut rng).unwrap();
    assert!(bfv.apply_galois(&oc, 3, &gk).is_err());
    // the identity needs no key
    let none = latpoly::he::bfv::BfvGaloisKeys::default();
    assert_eq!(
        bfv.decrypt(&keys.secret, &bfv.apply_galois(&c, 1, &none).unwrap())
            .unwrap(),
        m
    );
    // malformed Galois-key bytes: every prefix, trailing bytes, other parameters
    let small = bfv
        .galois_keygen(&keys.secret, &[3], &mut rng)
        .unwrap()
        .to_bytes();
    for len in (0..small.len()).step_by(97).chain([small.len() - 1]) {
        assert!(bfv.galois_keys_from_bytes(&small[..len]).is_err());
    }
    let mut longer = small.clone();
    longer.push(0);
    assert!(matches!(
        bfv.galois_keys_from_bytes(&longer),
        Err(Error::Malformed(_))
    ));
    assert_eq!(
        other.galois_keys_from_bytes(&small).unwrap_err(),
        Error::ContextMismatch
    );
    assert!(matches!(
        bfv.galois_keys_from_bytes(&keys.relin.to_bytes()),
        Err(Error::Malformed(_))
    ));
}

#[test]
fn galois_keygen_refuses_more_keys_than_the_format_holds() {
    // n = 2^17: 2^17 odd elements, more than a set's 65,535; refused before any key is made
    let n = 1usize << 17;
    let bfv = Bfv::new(BfvParams::new(n, 40, 2, 257).unwrap()).unwrap();
    let keys = bfv.keygen(&mut Sampler::from_seed([13; 32])).unwrap();
    let all: Vec<usize> = (0..n).map(|i| 2 * i + 1).collect();
    assert!(matches!(
        bfv.galois_keygen(&keys.secret, &all, &mut Sampler::from_seed([14; 32])),
        Err(Error::InvalidArgument(m)) if m.contains("65535")
    ));
}

#[test]
fn multiply_plain_against_plaintext_products() {
    // t = 2, 257, 65537 (batching at n = 4096) and a t above the primes; 2- and 3-polynomial
    // ciphertexts; plaintexts with t - 1, 0 and t/2 around the centring threshold
    for (bits, count, t) in [
        (50u32, 3usize, 2u64),
        (50, 3, 257),
        (50, 3, 65537),
        (30, 5, (1 << 35) - 31),
    ] {
        let n = 4096;
        let bfv = Bfv::new(BfvParams::new(n, bits, count, t).unwrap()).unwrap();
        let mut rng = Sampler::from_seed([15; 32]);
        let mut prng = ChaCha20Rng::seed_from_u64(t);
        let keys = bfv.keygen(&mut rng).unwrap();
        let (a, b) = (random_plain(&mut prng, n, t), random_plain(&mut prng, n, t));
        let mut w = random_plain(&mut prng, n, t);
        w[0] = t - 1;
        w[1] = 0;
        w[2] = t / 2;
        w[3] = (t / 2 + 1) % t;
        let ca = bfv.encrypt(&keys.public, &a, &mut rng).unwrap();
        let p = bfv.multiply_plain(&ca, &w).unwrap();
        assert_eq!(
            bfv.decrypt(&keys.secret, &p).unwrap(),
            bfv.plain_mul(&a, &w).unwrap(),
            "t = {t}"
        );
        assert!(bfv.noise_budget(&keys.secret, &p).unwrap() > 0);
        // a small plaintext costs little noise: x^5 - 1 (t - 1 is -1)
        let mut sparse = vec![0u64; n];
        sparse[5] = 1;
        sparse[0] = t - 1;
        let fresh = bfv.noise_budget(&keys.secret, &ca).unwrap();
        let ps = bfv.multiply_plain(&ca, &sparse).unwrap();
        assert!(bfv.noise_budget(&keys.secret, &ps).unwrap() + 3 >= fresh);
        if t != (1 << 35) - 31 {
            let c3 = bfv
                .multiply(&ca, &bfv.encrypt(&keys.public, &b, &mut rng).unwrap())
                .unwrap();
            let p3 = bfv.multiply_plain(&c3, &w).unwrap();
            assert_eq!(p3.len(), 3);
            let want = bfv.plain_mul(&bfv.plain_mul(&a, &b).unwrap(), &w).unwrap();
            assert_eq!(bfv.decrypt(&keys.secret, &p3).unwrap(), want);
        }
        assert!(matches!(
            bfv.multiply_plain(&ca, &w[..n - 1]),
            Err(Error::LengthMismatch { .. })
        ));
        let mut big = w.clone();
        big[9] = t;
        assert!(matches!(
            bfv.multiply_plain(&ca, &big),
            Err(Error::CoefficientOutOfRange { index: 9, .. })
        ));
    }
}

fn sub_plain(a: &[u64], b: &[u64], t: u64) -> Vec<u64> {
    a.iter().zip(b).map(|(&x, &y)| (x + (t - y)) % t).collect()
}

#[test]
fn negate_and_sub_plain_against_plaintexts() {
    // t = 2, 257, 65537 (batching) and t above the primes (the 128-bit decryption path); the
    // edges 0, 1, t - 1 in both operands; 2- and 3-polynomial ciphertexts
    for (n, bits, count, t) in [
        (2usize, 30u32, 2usize, 257u64),
        (1024, 50, 3, 2),
        (1024, 50, 3, 257),
        (4096, 50, 3, 65537),
        (1024, 30, 5, (1 << 35) - 31),
    ] {
        let bfv = Bfv::new(BfvParams::new(n, bits, count, t).unwrap()).unwrap();
        let mut rng = Sampler::from_seed([16; 32]);
        let mut prng = ChaCha20Rng::seed_from_u64(t ^ n as u64);
        let keys = bfv.keygen(&mut rng).unwrap();
        let mut m = random_plain(&mut prng, n, t);
        let mut p = random_plain(&mut prng, n, t);
        m[0] = 0;
        p[0] = t - 1;
        m[n - 1] = t - 1;
        p[n - 1] = 0;
        if n > 2 {
            (m[1], p[1]) = (1, 1);
        }
        let c = bfv.encrypt(&keys.public, &m, &mut rng).unwrap();
        let fresh = bfv.noise_budget(&keys.secret, &c).unwrap();
        let d = bfv.sub_plain(&c, &p).unwrap();
        assert_eq!(bfv.decrypt(&keys.secret, &d).unwrap(), sub_plain(&m, &p, t));
        let zero = vec![0u64; n];
        let neg = bfv.negate(&c).unwrap();
        assert_eq!(
            bfv.decrypt(&keys.secret, &neg).unwrap(),
            sub_plain(&zero, &m, t)
        );
        // sub_plain moves the phase by round(Q p / t), within 1/2 of a multiple of Q/t (a
        // bit of budget at most); negate negates the phase (the same budget)
        assert!(bfv.noise_budget(&keys.secret, &d).unwrap() + 1 >= fresh);
        assert_eq!(bfv.noise_budget(&keys.secret, &neg).unwrap(), fresh);
        // c + (-c) and (c - p) + p
        let sum = bfv.add(&c, &neg).unwrap();
        assert_eq!(bfv.decrypt(&keys.secret, &sum).unwrap(), zero);
        let back = bfv.add_plain(&d, &p).unwrap();
        assert_eq!(bfv.decrypt(&keys.secret, &back).unwrap(), m);
        // the negation of a product (3 polynomials) stays 3 polynomials
        if t != (1 << 35) - 31 {
            let c3 = bfv.multiply(&c, &c).unwrap();
            let n3 = bfv.negate(&c3).unwrap();
            assert_eq!(n3.len(), 3);
            let sq = bfv.plain_mul(&m, &m).unwrap();
            assert_eq!(
                bfv.decrypt(&keys.secret, &n3).unwrap(),
                sub_plain(&zero, &sq, t)
            );
            let d3 = bfv.sub_plain(&c3, &p).unwrap();
            assert_eq!(
                bfv.decrypt(&keys.secret, &d3).unwrap(),
                sub_plain(&sq, &p, t)
            );
        }
        // bad input: length, a coefficient not below t, a ciphertext of another instance
        assert!(matches!(
            bfv.sub_plain(&c, &p[..n - 1]),
            Err(Error::LengthMismatch { .. })
        ));
        let mut big = p.clone();
        big[n - 1] = t;
        assert!(matches!(
            bfv.sub_plain(&c, &big),
            Err(Error::CoefficientOutOfRange { .. })
        ));
        // (a second instance of the same parameters shares the basis, so it is no mismatch)
        let other = Bfv::new(BfvParams::new(n, bits, count + 1, t).unwrap()).unwrap();
        let foreign = other
            .encrypt(&other.keygen(&mut rng).unwrap().public, &m, &mut rng)
            .unwrap();
        assert!(matches!(bfv.negate(&foreign), Err(Error::ContextMismatch)));
        assert!(matches!(
            bfv.sub_plain(&foreign, &p),
            Err(Error::ContextMismatch)
        ));
    }
}

#[test]
fn multiply_scalar_is_multiply_plain_by_the_constant() {
    // the centring edges t/2 and t/2 + 1, 0, 1, t - 1 and random constants; 2- and
    // 3-polynomial ciphertexts; t = 2, 3, 65537 and above the primes
    for (n, bits, count, t) in [
        (1024usize, 50u32, 3usize, 2u64),
        (1024, 50, 3, 3),
        (4096, 50, 3, 65537),
        (1024, 30, 5, (1 << 35) - 31),
    ] {
        let bfv = Bfv::new(BfvParams::new(n, bits, count, t).unwrap()).unwrap();
        let mut rng = Sampler::from_seed([17; 32]);
        let mut prng = ChaCha20Rng::seed_from_u64(t);
        let keys = bfv.keygen(&mut rng).unwrap();
        let m = random_plain(&mut prng, n, t);
        let c = bfv.encrypt(&keys.public, &m, &mut rng).unwrap();
        let mut cts = vec![c.clone()];
        if t != (1 << 35) - 31 {
            cts.push(bfv.multiply(&c, &c).unwrap());
        }
        let ks = [0, 1, t - 1, t / 2, (t / 2 + 1) % t, prng.gen_range(0..t)];
        for ct in &cts {
            let plain = bfv.decrypt(&keys.secret, ct).unwrap();
            for k in ks {
                let p = bfv.multiply_scalar(ct, k).unwrap();
                let want: Vec<u64> = plain
                    .iter()
                    .map(|&x| ((x as u128 * k as u128) % t as u128) as u64)
                    .collect();
                assert_eq!(
                    bfv.decrypt(&keys.secret, &p).unwrap(),
                    want,
                    "t = {t}, k = {k}"
                );
                let mut constant = vec![0u64; n];
                constant[0] = k;
                let q = bfv.multiply_plain(ct, &constant).unwrap();
                assert_eq!(p.len(), ct.len());
                for (x, y) in p.parts().iter().zip(q.parts()) {
                    assert_eq!(x.residues(), y.residues(), "t = {t}, k = {k}");
                }
            }
        }
        assert!(matches!(
            bfv.multiply_scalar(&c, t),
            Err(Error::CoefficientOutOfRange { index: 0, .. })
        ));
        assert!(matches!(
            bfv.multiply_scalar(&c, u64::MAX),
            Err(Error::CoefficientOutOfRange { .. })
        ));
        let other = Bfv::new(BfvParams::new(n, bits, count + 1, t).unwrap()).unwrap();
        let foreign = other
            .encrypt(&other.keygen(&mut rng).unwrap().public, &m, &mut rng)
            .unwrap();
        assert!(matches!(
            bfv.multiply_scalar(&foreign, 1),
            Err(Error::ContextMismatch)
        ));
    }
}

/// Key switching adds `Σ D_i e_i`, one digit `D_i` (centred, `|D_i| <= q_i / 2`) per prime,
/// divided by the special prime `P_s`. Before the special prime, a basis of one prime or one
/// prime far larger than the others could not key-switch (that noise alone exceeded what
/// decryption tolerates) and was refused; now both relinearize and rotate correctly. What is
/// still refused: a `Q` too small against `t` for even the rounding noise of the division.
#[test]
fn key_switching_works_on_any_basis_and_is_refused_where_q_is_too_small() {
    let t = 65537u64;
    let constant = |c: u64| {
        let mut m = vec![0u64; 64];
        m[0] = c;
        m
    };
    let lopsided = {
        let big = latpoly::primes::ntt_primes(62, 64, 1).unwrap()[0];
        let small = latpoly::primes::ntt_primes(20, 64, 1).unwrap()[0];
        BfvParams {
            moduli: vec![big, small],
            ..BfvParams::new(64, 62, 1, t).unwrap()
        }
    };
    for params in [BfvParams::new(64, 62, 1, t).unwrap(), lopsided] {
        let what = format!("{:?}", params.moduli);
        let bfv = Bfv::new(params).unwrap();
        let mut rng = Sampler::from_seed([21; 32]);
        let keys = bfv.keygen(&mut rng).unwrap();
        let c = bfv.encrypt(&keys.public, &constant(2), &mut rng).unwrap();
        let sq = bfv.multiply_relin(&c, &c, &keys.relin).unwrap();
        assert_eq!(
            bfv.decrypt(&keys.secret, &sq).unwrap(),
            constant(4),
            "{what}"
        );
        assert!(bfv.noise_budget(&keys.secret, &sq).unwrap() > 0, "{what}");
        let gk = bfv.galois_keygen(&keys.secret, &[3], &mut rng).unwrap();
        let g = bfv.apply_galois(&sq, 3, &gk).unwrap(); // x -> x^3 fixes constants
        assert_eq!(
            bfv.decrypt(&keys.secret, &g).unwrap(),
            constant(4),
            "{what}"
        );
    }
    // One 20-bit prime against t = 65537: 2 bits of room, below the division's rounding noise.
    let tiny = BfvParams::new(64, 20, 1, t).unwrap();
    let bfv = Bfv::new(tiny).unwrap();
    let mut rng = Sampler::from_seed([23; 32]);
    let keys = bfv.keygen(&mut rng).unwrap();
    let c = bfv.encrypt(&keys.public, &constant(2), &mut rng).unwrap();
    let c3 = bfv.multiply(&c, &c).unwrap();
    let refused = |r: Result<_, Error>| matches!(r, Err(Error::InvalidArgument(m)) if m.contains("key switching"));
    assert!(refused(bfv.relinearize(&c3, &keys.relin).map(|_| ())));
    assert!(refused(bfv.multiply_relin(&c, &c, &keys.relin).map(|_| ())));
    assert!(refused(
        bfv.galois_keygen(&keys.secret, &[3], &mut rng).map(|_| ())
    ));
    // Two balanced primes of 62 bits: relinearization and a rotation decrypt correctly.
    let bfv = Bfv::new(BfvParams::new(64, 62, 2, 257).unwrap()).unwrap();
    let mut rng = Sampler::from_seed([22; 32]);
    let keys = bfv.keygen(&mut rng).unwrap();
    let c = bfv.encrypt(&keys.public, &constant(3), &mut rng).unwrap();
    let sq = bfv.multiply_relin(&c, &c, &keys.relin).unwrap();
    assert_eq!(bfv.decrypt(&keys.secret, &sq).unwrap(), constant(9));
    let gk = bfv.galois_keygen(&keys.secret, &[3], &mut rng).unwrap();
    let g = bfv.apply_galois(&c, 3, &gk).unwrap(); // x -> x^3 fixes constants
    assert_eq!(bfv.decrypt(&keys.secret, &g).unwrap(), constant(3));
}

/// Public, relinearization and Galois keys in compact form (a seed in place of their uniform
/// polynomials): about half the bytes, read back into keys equal residue for residue to the
/// expanded ones, both forms canonical (a key re-serializes to the bytes it came from), and
/// malformed compact bytes refused.
#[test]
fn compact_keys_read_back_to_the_expanded_keys() {
    let bfv = Bfv::new(BfvParams::new(64, 40, 3, 257).unwrap()).unwrap();
    let mut rng = Sampler::from_seed([31; 32]);
    let keys = bfv.keygen(&mut rng).unwrap();
    let gk = bfv
        .galois_keygen(&keys.secret, &[3, 127], &mut rng)
        .unwrap();
    let pk = (keys.public.to_bytes(), keys.public.to_expanded_bytes());
    let rlk = (keys.relin.to_bytes(), keys.relin.to_expanded_bytes());
    let gks = (gk.to_bytes(), gk.to_expanded_bytes());
    for (what, (compact, expanded)) in [("public", &pk), ("relin", &rlk), ("galois", &gks)] {
        assert_eq!(&compact[..4], b"LPLY");
        // one polynomial per b_i (or p_0) and a seed, against both halves
        let half = (expanded.len() - 8) / 2 + 8;
        assert!(
            compact.len() <= half + 40 * 2,
            "{what}: {} against {half}",
            compact.len()
        );
        assert!(compact.len() >= half, "{what}");
    }
    assert_eq!(keys.public.serialized_len(), pk.0.len());
    assert_eq!(keys.relin.serialized_len(), rlk.0.len());
    assert_eq!(gk.serialized_len(), gks.0.len());
    // each form reads back and writes itself again
    let (p1, p2) = (
        bfv.public_key_from_bytes(&pk.0).unwrap(),
        bfv.public_key_from_bytes(&pk.1).unwrap(),
    );
    assert_eq!((p1.to_bytes(), p2.to_bytes()), pk.clone());
    assert_eq!(p1.to_expanded_bytes(), pk.1);
    let (r1, r2) = (
        bfv.relin_key_from_bytes(&rlk.0).unwrap(),
        bfv.relin_key_from_bytes(&rlk.1).unwrap(),
    );
    assert_eq!((r1.to_bytes(), r2.to_bytes()), rlk.clone());
    assert_eq!(r1.to_expanded_bytes(), rlk.1);
    let (g1, g2) = (
        bfv.galois_keys_from_bytes(&gks.0).unwrap(),
        bfv.galois_keys_from_bytes(&gks.1).unwrap(),
    );
    assert_eq!((g1.to_bytes(), g2.to_bytes()), gks.clone());
    assert_eq!(g1.to_expanded_bytes(), gks.1);
    // the keys read from compact bytes work
    let m: Vec<u64> = (0..64).map(|i| i % 257).collect();
    let c = bfv.encrypt(&p1, &m, &mut rng).unwrap();
    assert_eq!(bfv.decrypt(&keys.secret, &c).unwrap(), m);
    let sq = bfv.multiply_relin(&c, &c, &r1).unwrap();
    assert_eq!(
        bfv.decrypt(&keys.secret, &sq).unwrap(),
        bfv.plain_mul(&m, &m).unwrap()
    );
    let r = bfv.apply_galois(&c, 127, &g1).unwrap();
    assert_eq!(
        bfv.decrypt(&keys.secret, &r).unwrap(),
        bfv.decrypt(&keys.secret, &bfv.apply_galois(&c, 127, &gk).unwrap())
            .unwrap()
    );
    // malformed compact bytes
    let mut wrong_count = rlk.0.clone();
    wrong_count[6] = 2; // L = 3 b_i expected
    assert!(matches!(
        bfv.relin_key_from_bytes(&wrong_count),
        Err(Error::Malformed(_))
    ));
    assert!(matches!(
        bfv.public_key_from_bytes(&pk.0[..30]),
        Err(Error::Malformed(_))
    ));
    assert!(matches!(
        bfv.galois_keys_from_bytes(&gks.0[..8 + 2 * 4 + 40]),
        Err(Error::Malformed(_))
    ));
    let mut longer = gks.0.clone();
    longer.push(0);
    assert!(matches!(
        bfv.galois_keys_from_bytes(&longer),
        Err(Error::Malformed(_))
    ));
    // a compact key is not another kind of object
    assert!(matches!(
        bfv.relin_key_from_bytes(&pk.0),
        Err(Error::Malformed(_))
    ));
    assert!(matches!(
        bfv.ciphertext_from_bytes(&rlk.0),
        Err(Error::Malformed(_))
    ));
    // the empty set has one encoding, the expanded one (found by fuzzing: an empty expanded
    // set was written back compact)
    let empty = latpoly::he::bfv::BfvGaloisKeys::default();
    assert_eq!(empty.to_bytes(), b"LPLY\x01\x06\x00\x00");
    assert_eq!(empty.to_bytes(), empty.to_expanded_bytes());
    let read = bfv.galois_keys_from_bytes(&empty.to_bytes()).unwrap();
    assert_eq!(read.to_bytes(), empty.to_bytes());
    assert!(matches!(
        bfv.galois_keys_from_bytes(b"LPLY\x01\x0a\x00\x00"),
        Err(Error::Malformed(_))
    ));
    // another basis
    let other = Bfv::new(BfvParams::new(64, 41, 3, 257).unwrap()).unwrap();
    assert_eq!(
        other.public_key_from_bytes(&pk.0).unwrap_err(),
        Error::ContextMismatch
    );
}

/// Writes the seeds of the `bfv_from_bytes` fuzzing corpus (the first byte picks the reader)
/// for the fuzz target's fixed instance (n = 4, two 30-bit primes, t = 3, key set of Sampler
/// seed 7): `seed-00` its secret key, `seed-01` / `seed-02` / `seed-05` its public key,
/// relinearization key and Galois keys for 3, 5, 7 in compact form, `seed-07` / `seed-08` /
/// `seed-09` the same keys expanded, `seed-06` a seeded ciphertext (`seed-03`, `seed-04`:
/// ciphertexts, not written here):
/// `cargo test -p latpoly --test bfv -- --ignored write_fuzz_key_seeds`.
#[test]
#[ignore]
fn write_fuzz_key_seeds() {
    let bfv = Bfv::new(BfvParams::new(4, 30, 2, 3).unwrap()).unwrap();
    let keys = bfv.keygen(&mut Sampler::from_seed([7; 32])).unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/bfv_from_bytes");
    let gk = bfv
        .galois_keygen(&keys.secret, &[3, 5, 7], &mut Sampler::from_seed([8; 32]))
        .unwrap();
    let seeded = bfv
        .encrypt_symmetric_seeded(
            &keys.secret,
            &[1, 2, 0, 1],
            &mut Sampler::from_seed([9; 32]),
        )
        .unwrap();
    for (name, which, bytes) in [
        ("seed-00", 0u8, keys.secret.to_bytes().to_vec()),
        ("seed-01", 1, keys.public.to_bytes()),
        ("seed-02", 2, keys.relin.to_bytes()),
        ("seed-05", 4, gk.to_bytes()),
        ("seed-06", 5, seeded.to_bytes()),
        ("seed-07", 1, keys.public.to_expanded_bytes()),
        ("seed-08", 2, keys.relin.to_expanded_bytes()),
        ("seed-09", 4, gk.to_expanded_bytes()),
    ] {
        let mut data = vec![which];
        data.extend(bytes);
        std::fs::write(dir.join(name), data).unwrap();
    }
}

/// `round(v / q)` for `v >= 0`, `q` odd: the big-integer reference of one modulus switch step.
fn round_div(v: &num_bigint::BigUint, q: u64) -> num_bigint::BigUint {
    (v * 2u32 + q) / (2 * q as u128)
}

/// Each polynomial of `low` is `c`'s scaled down one dropped prime at a time
/// (`v <- round(v / q_last) mod Q'`), computed independently with big integers.
fn assert_switched_exactly(
    c: &latpoly::he::bfv::BfvCiphertext,
    low: &latpoly::he::bfv::BfvCiphertext,
    q: &[u64],
) {
    use num_bigint::BigUint;
    assert_eq!(c.len(), low.len());
    let k = low.parts()[0].context().moduli().len();
    for (p, lp) in c.parts().iter().zip(low.parts()) {
        let mut v = p.to_biguints();
        for last in (k..q.len()).rev() {
            let q_new: BigUint = q[..last].iter().map(|&x| BigUint::from(x)).product();
            v = v.iter().map(|x| round_div(x, q[last]) % &q_new).collect();
        }
        assert_eq!(lp.to_biguints(), v);
    }
}

#[test]
fn modulus_switching_rounds_exactly_and_keeps_the_plaintext() {
    // (n, bits, count, t, lowest number of primes kept)
    for (n, bits, count, t, lowest) in [
        (1024usize, 50u32, 3usize, 65537u64, 1usize),
        (2048, 62, 3, 2, 1),
        (1024, 60, 4, (1 << 40) + 15, 1),
        // 128-bit decryption path at the top (t above the primes)
        (1024, 30, 5, (1 << 35) - 31, 2),
    ] {
        let bfv = Bfv::new(BfvParams::new(n, bits, count, t).unwrap()).unwrap();
        let q = bfv.context().moduli().to_vec();
        let mut rng = Sampler::from_seed([count as u8 + bits as u8; 32]);
        let mut prng = ChaCha20Rng::seed_from_u64(bits as u64);
        let keys = bfv.keygen(&mut rng).unwrap();
        let (m1, m2) = (random_plain(&mut prng, n, t), random_plain(&mut prng, n, t));
        let c1 = bfv.encrypt(&keys.public, &m1, &mut rng).unwrap();
        let c2 = bfv.encrypt(&keys.public, &m2, &mut rng).unwrap();
        let c3 = bfv.multiply(&c1, &c2).unwrap(); // three polynomials
        let want3 = bfv.plain_mul(&m1, &m2).unwrap();
        let with_product = bfv.decrypt(&keys.secret, &c3).unwrap() == want3;
        assert!(
            with_product || bits == 30,
            "the product decrypts at the top ({bits} bits)"
        );
        for k in lowest..=count {
            let low = bfv.lower(k).unwrap();
            assert_eq!(low.context().moduli(), &q[..k]);
            let sk = bfv.secret_key_for(&keys.secret, &low).unwrap();
            let s1 = bfv.mod_switch(&c1, &low).unwrap();
            assert_switched_exactly(&c1, &s1, &q);
            assert_eq!(low.decrypt(&sk, &s1).unwrap(), m1, "k = {k} of {count}");
            let (b_top, b_low) = (
                bfv.noise_budget(&keys.secret, &c1).unwrap(),
                low.noise_budget(&sk, &s1).unwrap(),
            );
            assert!(b_low > 0 && b_low <= b_top + 1, "budget {b_top} -> {b_low}");
            if k == count {
                // same modulus: a copy
                for (a, b) in c1.parts().iter().zip(s1.parts()) {
                    assert_eq!(a.residues(), b.residues());
                }
            }
            if with_product {
                let s3 = bfv.mod_switch(&c3, &low).unwrap();
                assert_eq!(s3.len(), 3);
                assert_switched_exactly(&c3, &s3, &q);
                assert_eq!(low.decrypt(&sk, &s3).unwrap(), want3, "k = {k}");
                // relinearized at the lower level, with that level's keys for the same secret
                let low_keys = low
                    .keygen_with_secret(bfv.secret_key_for(&keys.secret, &low).unwrap(), &mut rng)
                    .unwrap();
                let r = low.relinearize(&s3, &low_keys.relin).unwrap();
                assert_eq!(low.decrypt(&sk, &r).unwrap(), want3, "k = {k}");
            }
            // the lower level computes and serializes
            let mut three = vec![0u64; n];
            three[0] = 3 % t;
            let s2 = bfv.mod_switch(&c2, &low).unwrap();
            assert_eq!(
                low.decrypt(&sk, &low.add(&s1, &s2).unwrap()).unwrap(),
                add_plain(&m1, &m2, t)
            );
            assert_eq!(
                low.decrypt(&sk, &low.multiply_plain(&s1, &three).unwrap())
                    .unwrap(),
                add_plain(&add_plain(&m1, &m1, t), &m1, t)
            );
            let bytes = s1.to_bytes();
            assert_eq!(bytes.len(), s1.serialized_len());
            let back = low.ciphertext_from_bytes(&bytes).unwrap();
            assert_eq!(low.decrypt(&sk, &back).unwrap(), m1);
            if k < count {
                assert!(bytes.len() < c1.serialized_len());
                assert!(bfv.ciphertext_from_bytes(&bytes).is_err());
                // a ciphertext or key of the lower level is not one of the upper
                assert!(matches!(
                    bfv.decrypt(&keys.secret, &s1),
                    Err(Error::ContextMismatch)
                ));
                assert!(matches!(low.decrypt(&sk, &c1), Err(Error::ContextMismatch)));
                assert!(matches!(
                    bfv.mod_switch(&s1, &low),
                    Err(Error::ContextMismatch)
                ));
                assert!(low.mod_switch(&s1, &bfv).is_err()); // not upwards
                assert!(low.secret_key_for(&sk, &bfv).is_err());
                assert!(matches!(
                    bfv.secret_key_for(&sk, &low),
                    Err(Error::ContextMismatch)
                ));
            }
        }
        // down in one call = down one prime at a time
        if count - lowest >= 2 {
            let mid = bfv.lower(count - 1).unwrap();
            let bottom = bfv.lower(lowest).unwrap();
            let twice = mid
                .mod_switch(&bfv.mod_switch(&c1, &mid).unwrap(), &bottom)
                .unwrap();
            let once = bfv.mod_switch(&c1, &bottom).unwrap();
            for (a, b) in twice.parts().iter().zip(once.parts()) {
                assert_eq!(a.residues(), b.residues());
            }
        }
        assert!(bfv.lower(0).is_err() && bfv.lower(count + 1).is_err());
    }
}

#[test]
fn modulus_switching_refuses_unrelated_instances() {
    let p = BfvParams::new(1024, 50, 3, 65537).unwrap();
    let bfv = Bfv::new(p.clone()).unwrap();
    let mut rng = Sampler::from_seed([5; 32]);
    let keys = bfv.keygen(&mut rng).unwrap();
    let c = bfv.encrypt(&keys.public, &[1; 1024], &mut rng).unwrap();
    let unrelated = [
        BfvParams {
            t: 257,
            moduli: p.moduli[..2].to_vec(),
            ..p.clone()
        },
        BfvParams {
            sigma: 3.0,
            moduli: p.moduli[..2].to_vec(),
            ..p.clone()
        },
        BfvParams {
            moduli: p.moduli[1..].to_vec(),
            ..p.clone()
        }, // not a prefix
        BfvParams {
            moduli: vec![p.moduli[1]],
            ..p.clone()
        },
        BfvParams::new(2048, 50, 1, 65537).unwrap(),
    ];
    for q in unrelated {
        let other = Bfv::new(q.clone()).unwrap();
        assert!(
            matches!(bfv.mod_switch(&c, &other), Err(Error::InvalidArgument(_))),
            "{q:?}"
        );
        assert!(matches!(
            bfv.secret_key_for(&keys.secret, &other),
            Err(Error::InvalidArgument(_))
        ));
    }
    // the same parameters built separately are the same instance
    let again = Bfv::new(BfvParams {
        moduli: p.moduli[..1].to_vec(),
        ..p
    })
    .unwrap();
    let sk = bfv.secret_key_for(&keys.secret, &again).unwrap();
    assert_eq!(
        again
            .decrypt(&sk, &bfv.mod_switch(&c, &again).unwrap())
            .unwrap(),
        vec![1; 1024]
    );
}

/// Primes of mixed widths: dropping a 62-bit prime onto 30-bit limbs takes the digit kernel's
/// scalar remainder (`q_l > 2 q_j`), a 30-bit one onto a 50-bit limb the SIMD path.
#[test]
fn modulus_switching_across_mixed_prime_widths() {
    use latpoly::primes::ntt_primes;
    let n = 1024;
    let q = vec![
        ntt_primes(50, n, 1).unwrap()[0],
        ntt_primes(30, n, 1).unwrap()[0],
        ntt_primes(62, n, 1).unwrap()[0],
    ];
    let bfv = Bfv::new(BfvParams {
        n,
        moduli: q.clone(),
        t: 257,
        sigma: 3.19,
    })
    .unwrap();
    let mut rng = Sampler::from_seed([9; 32]);
    let mut prng = ChaCha20Rng::seed_from_u64(9);
    let keys = bfv.keygen(&mut rng).unwrap();
    let m = random_plain(&mut prng, n, 257);
    let c = bfv.encrypt(&keys.public, &m, &mut rng).unwrap();
    let c3 = bfv.multiply(&c, &c).unwrap();
    for k in [2, 1] {
        let low = bfv.lower(k).unwrap();
        let sk = bfv.secret_key_for(&keys.secret, &low).unwrap();
        for (ct, want) in [(&c, m.clone()), (&c3, bfv.plain_mul(&m, &m).unwrap())] {
            let s = bfv.mod_switch(ct, &low).unwrap();
            assert_switched_exactly(ct, &s, &q);
            assert_eq!(low.decrypt(&sk, &s).unwrap(), want, "k = {k}");
        }
    }
}
