//! Modular arithmetic against exact u128 arithmetic: exhaustive for the 14-bit moduli used by
//! the PQC rings, random (with edge values) for wider moduli in every lane.

use latpoly::arith::{
    Modulus, Modulus16, Modulus32, Modulus64, NflReducer16, NflReducer32, NflReducer64, Word,
};
use latpoly::primes::{is_prime, nfl_primes, ntt_primes};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

const SMALL: [u64; 5] = [12289, 3329, 3457, 7681, 4591];

/// R^-1 mod q for R = 2^bits.
fn r_inv(q: u64, bits: u32) -> u128 {
    let r = (1u128 << bits) % q as u128;
    // q prime: r^(q-2)
    let mut acc = 1u128;
    let mut b = r;
    let mut e = q - 2;
    while e > 0 {
        if e & 1 == 1 {
            acc = acc * b % q as u128;
        }
        b = b * b % q as u128;
        e >>= 1;
    }
    acc
}

fn exhaustive<M: Modulus>(q: u64) {
    let m = M::new(q).unwrap();
    let bits = M::W::BITS;
    let rinv = r_inv(q, bits);
    let w = |x: u64| M::W::from_u64(x);
    for a in 0..q {
        let wa = w(a);
        assert_eq!(m.neg(wa).to_u64(), (q - a) % q);
        assert_eq!(
            m.to_mont(wa).to_u64(),
            (((a as u128) << bits) % q as u128) as u64
        );
        let ap = m.shoup(wa);
        for b in 0..q {
            let wb = w(b);
            let prod = (a * b) % q;
            assert_eq!(m.mul(wa, wb).to_u64(), prod, "mul {a} {b} mod {q}");
            assert_eq!(m.add(wa, wb).to_u64(), (a + b) % q);
            assert_eq!(m.sub(wa, wb).to_u64(), (a + q - b) % q);
            let mont = ((a * b) as u128 * rinv % q as u128) as u64;
            assert_eq!(m.mont_mul(wa, wb).to_u64(), mont, "mont {a} {b} mod {q}");
            let lazy = m.mul_shoup_lazy(wb, wa, ap).to_u64();
            assert!(lazy < 2 * q && lazy % q == prod, "shoup {a} {b} mod {q}");
        }
    }
}

#[test]
fn exhaustive_14_bit_moduli_u16_lanes() {
    for q in SMALL {
        exhaustive::<Modulus16>(q);
    }
}

#[test]
fn exhaustive_14_bit_moduli_u32_lanes() {
    for q in [3329u64, 3457] {
        exhaustive::<Modulus32>(q);
    }
}

#[test]
fn exhaustive_14_bit_moduli_u64_lanes() {
    for q in [3329u64, 4591] {
        exhaustive::<Modulus64>(q);
    }
}

/// Shoup's lazy product is valid for *any* lane value x, not just x < q.
#[test]
fn shoup_accepts_any_lane_value_u16() {
    for q in SMALL {
        let m = Modulus16::new(q).unwrap();
        for w in [0u16, 1, 2, (q / 2) as u16, (q - 1) as u16] {
            let wp = m.shoup(w);
            for x in 0..=u16::MAX {
                let r = m.mul_shoup_lazy(x, w, wp) as u64;
                assert!(r < 2 * q && r % q == (x as u64 * w as u64) % q);
            }
        }
    }
}

fn random_check<M: Modulus>(q: u64, rng: &mut ChaCha20Rng, iters: usize) {
    let m = M::new(q).unwrap();
    let bits = M::W::BITS;
    let rinv = r_inv(q, bits);
    let q128 = q as u128;
    let lane_max = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let edges = [0u64, 1, 2, q / 2, q - 2, q - 1];
    for i in 0..iters {
        let a = if i < 36 {
            edges[i % 6]
        } else {
            rng.gen_range(0..q)
        };
        let b = if i < 36 {
            edges[i / 6]
        } else {
            rng.gen_range(0..q)
        };
        let (wa, wb) = (M::W::from_u64(a), M::W::from_u64(b));
        let prod = (a as u128 * b as u128 % q128) as u64;
        assert_eq!(m.mul(wa, wb).to_u64(), prod);
        assert_eq!(
            m.add(wa, wb).to_u64(),
            ((a as u128 + b as u128) % q128) as u64
        );
        assert_eq!(
            m.sub(wa, wb).to_u64(),
            ((a as u128 + q128 - b as u128) % q128) as u64
        );
        let mont = (prod as u128 * rinv % q128) as u64;
        assert_eq!(m.mont_mul(wa, wb).to_u64(), mont);
        assert_eq!(m.mont_reduce(m.to_mont(wa)).to_u64(), a);
        let ap = m.shoup(wa);
        assert_eq!(m.mul_shoup(wb, wa, ap).to_u64(), prod);
        let x = if i % 2 == 0 {
            lane_max
        } else {
            rng.gen_range(0..=lane_max)
        };
        let lazy = m.mul_shoup_lazy(M::W::from_u64(x), wa, ap).to_u64();
        assert!(lazy < 2 * q);
        assert_eq!(lazy as u128 % q128, x as u128 * a as u128 % q128);
        let any: u64 = if i % 3 == 0 { u64::MAX } else { rng.gen() };
        assert_eq!(m.reduce_u64(any).to_u64(), any % q);
        let s: i64 = rng.gen();
        assert_eq!(
            m.reduce_i64(s).to_u64(),
            (s as i128).rem_euclid(q as i128) as u64
        );
    }
    if let Some(inv) = m.inv(M::W::from_u64(3)) {
        assert_eq!(inv.to_u64() as u128 * 3 % q128, 1);
    }
    assert!(m.inv(M::W::ZERO).is_none());
}

#[test]
fn random_wide_moduli_against_u128() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    // Largest primes per lane, plus primes at interior sizes.
    for bits in [62u32, 61, 60, 52, 51, 50, 40, 31, 30] {
        let q = ntt_primes(bits, 2, 1).unwrap()[0];
        random_check::<Modulus64>(q, &mut rng, 20_000);
    }
    // The largest odd value in the 64-bit lane (not prime: mul/add/sub/shoup still hold).
    let m = Modulus64::new((1 << 62) - 1).unwrap();
    let q = (1u64 << 62) - 1;
    assert_eq!(m.mul(q - 1, q - 1), 1);
    for bits in [30u32, 29, 20, 14] {
        let q = ntt_primes(bits, 2, 1).unwrap()[0];
        random_check::<Modulus32>(q, &mut rng, 20_000);
    }
    for bits in [14u32, 13, 12] {
        let q = ntt_primes(bits, 2, 1).unwrap()[0];
        random_check::<Modulus16>(q, &mut rng, 20_000);
    }
    for q in SMALL {
        random_check::<Modulus64>(q, &mut rng, 2_000);
        random_check::<Modulus32>(q, &mut rng, 2_000);
    }
}

#[test]
fn full_u128_barrett() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    for q in [3u64, 12289, ntt_primes(62, 2, 1).unwrap()[0], (1 << 62) - 1] {
        let m = Modulus64::new(q).unwrap();
        for x in [0u128, 1, u128::MAX, u128::MAX - 1, (q as u128) << 64] {
            assert_eq!(m.reduce_u128(x) as u128, x % q as u128);
        }
        for _ in 0..10_000 {
            let x: u128 = rng.gen();
            assert_eq!(m.reduce_u128(x) as u128, x % q as u128);
            let (d, r) = m.div_rem_u128(x);
            assert_eq!((d, r as u128), (x / q as u128, x % q as u128));
        }
        for x in [0u128, q as u128 - 1, q as u128, u128::MAX] {
            let (d, r) = m.div_rem_u128(x);
            assert_eq!((d, r as u128), (x / q as u128, x % q as u128));
        }
    }
}

#[test]
fn nfl_algorithm2_exhaustive_16_bit() {
    // Every 16-bit-word prime NFLlib's Algorithm 1 yields for n_max = 2 (so many primes).
    let ps = nfl_primes(16, 2, 2, 1000).unwrap();
    assert!(ps.len() > 100);
    for &p in ps.iter().take(4) {
        let r = NflReducer16::new(p, 2).unwrap();
        for u in 0..(p as u32 * p as u32) {
            assert_eq!(r.reduce(u) as u32, u % p as u32, "u={u} p={p}");
        }
    }
    // s0 = 1 and s0 = 3 margins.
    for s0 in [1u32, 3] {
        let p = nfl_primes(16, s0, 2, 1).unwrap()[0];
        let r = NflReducer16::new(p, s0).unwrap();
        for u in 0..(p as u32 * p as u32) {
            assert_eq!(r.reduce(u) as u32, u % p as u32);
        }
    }
}

#[test]
fn nfl_algorithm2_random_32_64() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    for &p in &nfl_primes(64, 2, 1 << 20, 20).unwrap() {
        assert!(is_prime(p));
        let r = NflReducer64::new(p, 2).unwrap();
        for _ in 0..20_000 {
            let (a, b) = (rng.gen_range(0..p), rng.gen_range(0..p));
            assert_eq!(r.mul(a, b) as u128, a as u128 * b as u128 % p as u128);
        }
        assert_eq!(r.mul(p - 1, p - 1), 1);
    }
    for &p in &nfl_primes(32, 2, 1 << 15, 20).unwrap() {
        let r = NflReducer32::new(p, 2).unwrap();
        for _ in 0..20_000 {
            let (a, b) = (rng.gen_range(0..p), rng.gen_range(0..p));
            assert_eq!(r.mul(a as u32, b as u32) as u64, a * b % p);
        }
    }
    // Primes outside Eq. (1) are refused, never silently mis-reduced.
    assert!(NflReducer64::new(ntt_primes(50, 2, 1).unwrap()[0], 2).is_err());
    assert!(NflReducer16::new(12289, 2).is_err());
    assert!(NflReducer64::new(nfl_primes(64, 2, 2, 1).unwrap()[0], 0).is_err());
    assert!(NflReducer64::new(nfl_primes(64, 2, 2, 1).unwrap()[0], 64).is_err());
}
