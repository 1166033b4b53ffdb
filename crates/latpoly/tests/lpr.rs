//! LPR encryption: correctness over random messages for every parameter set and backend,
//! batch decryption, bad input.

use latpoly::he::lpr::{Lpr, LprParams, Noise};
use latpoly::parallel::Threads;
use latpoly::sampling::Sampler;
use latpoly::Error;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

#[test]
fn decrypt_encrypt_round_trip_all_sets() {
    let mut msgs = ChaCha20Rng::seed_from_u64(1);
    for params in [LprParams::n256(), LprParams::n512(), LprParams::n1024()] {
        let lpr = Lpr::new(params).unwrap();
        let mut rng = Sampler::from_seed([params.n as u8; 32]);
        for _ in 0..5 {
            let (pk, sk) = lpr.keygen(&mut rng).unwrap();
            for k in 0..40 {
                let msg: Vec<u8> = match k {
                    0 => vec![0; lpr.message_len()],
                    1 => vec![0xff; lpr.message_len()],
                    _ => (0..lpr.message_len()).map(|_| msgs.gen()).collect(),
                };
                let ct = lpr.encrypt(&pk, &msg, &mut rng).unwrap();
                assert_eq!(lpr.decrypt(&sk, &ct).unwrap(), msg, "n={}", params.n);
            }
        }
    }
}

#[test]
fn wrong_key_does_not_decrypt() {
    let lpr = Lpr::new(LprParams::n256()).unwrap();
    let mut rng = Sampler::from_seed([9; 32]);
    let (pk, _) = lpr.keygen(&mut rng).unwrap();
    let (_, other) = lpr.keygen(&mut rng).unwrap();
    let msg = vec![0x5a; 32];
    let ct = lpr.encrypt(&pk, &msg, &mut rng).unwrap();
    let got = lpr.decrypt(&other, &ct).unwrap();
    let differing: u32 = got
        .iter()
        .zip(&msg)
        .map(|(a, b)| (a ^ b).count_ones())
        .sum();
    assert!(
        differing > 64,
        "a wrong key recovers the message ({differing} bits differ)"
    );
}

#[test]
fn batch_decryption_matches_single() {
    let lpr = Lpr::new(LprParams::n512()).unwrap();
    let mut rng = Sampler::from_seed([3; 32]);
    let (pk, sk) = lpr.keygen(&mut rng).unwrap();
    let mut msgs = ChaCha20Rng::seed_from_u64(2);
    let plain: Vec<Vec<u8>> = (0..150)
        .map(|_| (0..lpr.message_len()).map(|_| msgs.gen()).collect())
        .collect();
    let cts: Vec<_> = plain
        .iter()
        .map(|m| lpr.encrypt(&pk, m, &mut rng).unwrap())
        .collect();
    let want: Vec<u8> = plain.concat();
    assert_eq!(lpr.decrypt_batch(&sk, &cts, None).unwrap(), want);
    for t in [1, 2] {
        let pool = Threads::new(t).unwrap();
        assert_eq!(lpr.decrypt_batch(&sk, &cts, Some(&pool)).unwrap(), want);
    }
    assert!(lpr.decrypt_batch(&sk, &[], None).unwrap().is_empty());
}

#[test]
fn same_seed_same_ciphertext() {
    let lpr = Lpr::new(LprParams::n256()).unwrap();
    let run = || {
        let mut rng = Sampler::from_seed([5; 32]);
        let (pk, _) = lpr.keygen(&mut rng).unwrap();
        lpr.encrypt(&pk, &[7; 32], &mut rng).unwrap()
    };
    assert_eq!(run(), run());
}

#[test]
fn bad_input() {
    assert!(Lpr::new(LprParams {
        n: 256,
        q: 12288,
        noise: Noise::Cbd(2)
    })
    .is_err());
    assert!(Lpr::new(LprParams {
        n: 300,
        q: 12289,
        noise: Noise::Cbd(2)
    })
    .is_err());
    assert!(Lpr::new(LprParams {
        n: 256,
        q: 40961,
        noise: Noise::Cbd(2)
    })
    .is_err()); // > 2^14
    assert!(Lpr::new(LprParams {
        n: 256,
        q: 12289,
        noise: Noise::Gaussian(0.0)
    })
    .is_err());
    assert!(Lpr::new(LprParams {
        n: 256,
        q: 12289,
        noise: Noise::Gaussian(f64::NAN)
    })
    .is_err());
    assert!(Lpr::new(LprParams {
        n: 256,
        q: 12289,
        noise: Noise::Cbd(0)
    })
    .is_err());
    // Noise whose values (times 2, plus a message bit) reach q: refused, where it used to wrap
    // into wrong residues (a Gaussian of sigma 3000 at q = 12289, of sigma 3.19 at q = 17).
    for (q, noise) in [
        (12289, Noise::Gaussian(3000.0)),
        (12289, Noise::Gaussian(438.9)), // tail 6145: 2 B + 1 = 12291
        (17, Noise::Gaussian(3.19)),
        (17, Noise::Cbd(8)), // 2 B + 1 = 17
    ] {
        let n = if q == 17 { 8 } else { 256 };
        assert!(
            matches!(
                Lpr::new(LprParams { n, q, noise }),
                Err(Error::InvalidArgument(_))
            ),
            "q = {q}, {noise:?}"
        );
    }
    // the largest accepted noise at q = 17 (2 B + 1 = 15), and sigma just inside q = 12289
    for (q, noise) in [(17, Noise::Cbd(7)), (12289, Noise::Gaussian(438.7))] {
        let n = if q == 17 { 8 } else { 256 };
        let lpr = Lpr::new(LprParams { n, q, noise }).unwrap();
        let mut rng = Sampler::from_seed([2; 32]);
        let (pk, _) = lpr.keygen(&mut rng).unwrap();
        // keys the library generated are accepted by its own encryption (residues below q)
        lpr.encrypt(&pk, &vec![0x5a; n / 8], &mut rng).unwrap();
    }
    let lpr = Lpr::new(LprParams::n256()).unwrap();
    let mut rng = Sampler::from_seed([1; 32]);
    let (pk, sk) = lpr.keygen(&mut rng).unwrap();
    assert!(matches!(
        lpr.encrypt(&pk, &[0; 31], &mut rng),
        Err(Error::LengthMismatch { .. })
    ));
    let ct = lpr.encrypt(&pk, &[0; 32], &mut rng).unwrap();
    let (u, v) = ct.parts();
    assert!(lpr
        .ciphertext_from_parts(u[..255].to_vec(), v.to_vec())
        .is_err());
    let mut big = u.to_vec();
    big[3] = 12289;
    assert!(matches!(
        lpr.ciphertext_from_parts(big, v.to_vec()),
        Err(Error::CoefficientOutOfRange { index: 3, .. })
    ));
    assert!(lpr
        .public_key_from_parts(vec![0; 256], vec![0; 255])
        .is_err());
    // A ciphertext of another parameter set is refused.
    let lpr512 = Lpr::new(LprParams::n512()).unwrap();
    assert!(lpr512.decrypt(&sk, &ct).is_err());
    let mut out = vec![0u8; 31];
    assert!(lpr
        .decrypt_into(&sk, &ct, &mut out, &mut lpr.scratch())
        .is_err());
    // scratch space of another parameter set: the error names its size
    let mut out = vec![0u8; 32];
    assert!(matches!(
        lpr.decrypt_into(&sk, &ct, &mut out, &mut lpr512.scratch()),
        Err(Error::LengthMismatch {
            expected: 256,
            got: 512
        })
    ));
}
