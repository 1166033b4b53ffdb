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
    a.iter().zip(b).map(|(x, y)| (x + y) % t).collect()
}

#[test]
fn small_parameters_full_cycle() {
    for (bits, count, t) in [
        (30u32, 3usize, 257u64),
        (40, 3, 65537),
        (50, 2, 3),
        (60, 2, 2),
        // t above the primes: decryption's general scale-and-round path (128-bit division
        // instead of the t < 2^32 formula)
        (30, 5, (1 << 35) - 31),
    ] {
        let bfv = Bfv::new(BfvParams::new(1024, bits, count, t).unwrap()).unwrap();
        if t >= 1 << 32 {
            assert!(bfv.context().moduli().iter().all(|&q| q < t));
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
}
