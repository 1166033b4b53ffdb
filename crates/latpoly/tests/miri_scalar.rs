//! The scalar (reference) paths at small sizes, in one quick test binary meant for Miri:
//! `./scripts/miri.sh` runs it under `cargo +nightly miri test` with `LATPOLY_ISA=scalar`, so
//! Miri checks the specification code for undefined behaviour (out-of-bounds or uninitialised
//! reads, invalid arithmetic, aliasing violations). Every case also checks its result against
//! an independent computation, so the file is an ordinary test suite too (`cargo test`).
//!
//! Under Miri a few cases shrink (`cfg!(miri)`): the general NTRU Prime product and the
//! NTRU / NTRU Prime KEM round trips, whose schoolbook products take minutes to interpret.
//!
//! The SIMD backends are not run here: Miri does not execute vendor intrinsics or inline
//! assembly, and the forced `Isa::Scalar` calls below never reach them.

use latpoly::arith::Word;
use latpoly::ntt::Plan;
use latpoly::primes::ntt_primes;
use latpoly::reference::negacyclic_mul;
use latpoly::rns::{RnsContext, RnsPoly};
use latpoly::Isa;
use num_bigint::BigUint;

/// A deterministic pseudo-random stream (splitmix64), no crate needed under Miri.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, q: u64) -> u64 {
        self.next() % q
    }
}

fn ntt_round_trip<W: Word>(n: usize, q: u64, s: &mut Stream)
where
    Plan<W>: Sized,
{
    let plan = Plan::<W>::with_isa(n, q, Isa::Scalar).unwrap();
    assert_eq!(plan.isa(), Isa::Scalar);
    let a: Vec<u64> = (0..n).map(|_| s.below(q)).collect();
    let b: Vec<u64> = (0..n)
        .map(|i| if i % 3 == 0 { q - 1 } else { s.below(q) })
        .collect();
    let aw: Vec<W> = a.iter().map(|&x| W::from_u64(x)).collect();
    let bw: Vec<W> = b.iter().map(|&x| W::from_u64(x)).collect();
    let c = plan.multiply(&aw, &bw).unwrap();
    let want = negacyclic_mul(&a, &b, q).unwrap();
    assert_eq!(
        c.iter().map(|x| x.to_u64()).collect::<Vec<_>>(),
        want,
        "n={n} q={q}"
    );
    let mut t = aw.clone();
    plan.forward(&mut t).unwrap();
    plan.inverse(&mut t).unwrap();
    assert_eq!(t, aw);
    // lazy forward: outputs in [0, 4q), congruent to the strict ones
    let mut strict = aw.clone();
    plan.forward(&mut strict).unwrap();
    let mut lazy = aw.clone();
    plan.forward_lazy(&mut lazy).unwrap();
    for (x, y) in lazy.iter().zip(&strict) {
        assert!(x.to_u64() < 4 * q);
        assert_eq!(x.to_u64() % q, y.to_u64());
    }
    // lazy inverse: inputs in [0, 2q), outputs congruent to a
    let mut t: Vec<W> = strict.iter().map(|x| W::from_u64(x.to_u64() + q)).collect();
    plan.inverse_lazy(&mut t).unwrap();
    for (x, y) in t.iter().zip(&aw) {
        assert_eq!(x.to_u64() % q, y.to_u64());
    }
}

#[test]
fn scalar_ntt_all_lane_widths() {
    let mut s = Stream(1);
    for n in [2usize, 4, 16, 32] {
        for bits in [62u32, 50, 30] {
            let q = ntt_primes(bits, n, 1).unwrap()[0];
            ntt_round_trip::<u64>(n, q, &mut s);
        }
        let q = ntt_primes(30, n, 1).unwrap()[0];
        ntt_round_trip::<u32>(n, q, &mut s);
        let q = ntt_primes(14, n, 1).unwrap()[0];
        ntt_round_trip::<u16>(n, q, &mut s);
    }
    // errors, not UB, on bad input
    let plan = Plan::<u64>::with_isa(8, 17, Isa::Scalar).unwrap();
    assert!(plan.forward(&mut [0u64; 7]).is_err());
    assert!(plan.forward(&mut [17u64; 8]).is_err());
}

#[test]
fn scalar_rns_crt_and_serialization() {
    let n = 8;
    let ctx = RnsContext::new(n, &ntt_primes(60, n, 3).unwrap()).unwrap();
    let q = ctx.modulus().clone();
    let a: Vec<BigUint> = (0..n as u64)
        .map(|i| (&q - 1u32) - BigUint::from(i * 12345))
        .collect();
    let b: Vec<BigUint> = (0..n as u64).map(|i| BigUint::from(i + 1) << 100).collect();
    let pa = RnsPoly::from_biguints(&ctx, &a).unwrap();
    let pb = RnsPoly::from_biguints(&ctx, &b).unwrap();
    assert_eq!(pa.to_biguints(), a);
    let (mut na, mut nb) = (pa.clone(), pb.clone());
    na.to_ntt();
    nb.to_ntt();
    let mut prod = na.mul(&nb).unwrap();
    prod.to_coeff();
    let prod = prod.to_biguints();
    // schoolbook mod (x^n + 1, Q) with big integers
    let mut want = vec![BigUint::from(0u32); n];
    for (i, ai) in a.iter().enumerate() {
        for (j, bj) in b.iter().enumerate() {
            let t = ai * bj % &q;
            let k = (i + j) % n;
            if i + j < n {
                want[k] = (&want[k] + t) % &q;
            } else {
                want[k] = (&want[k] + &q - t) % &q;
            }
        }
    }
    assert_eq!(prod, want);
    let bytes = pa.to_bytes();
    assert_eq!(RnsPoly::from_bytes(&bytes).unwrap().to_biguints(), a);
    let mut bad = bytes.clone();
    bad.truncate(bytes.len() - 1);
    assert!(RnsPoly::from_bytes(&bad).is_err());
}

#[test]
fn scalar_samplers() {
    let mut s = latpoly::sampling::Sampler::from_seed([7; 32]);
    let g = s.gaussian(64, 3.2).unwrap();
    assert!(g.iter().all(|x| x.abs() <= 45));
    let c = s.cbd(64, 2).unwrap();
    assert!(c.iter().all(|x| x.abs() <= 2));
    let t = s.ternary_fixed(64, 20).unwrap();
    assert_eq!(t.iter().filter(|&&x| x != 0).count(), 20);
}

#[test]
fn scalar_ntru_ring() {
    use latpoly::rings::ntru::{self, NtruParams};
    let p = NtruParams::Hps2048509;
    let n = p.n();
    let mut s = Stream(3);
    let a: Vec<u16> = (0..n).map(|_| s.next() as u16).collect();
    let b: Vec<u16> = (0..n).map(|_| (s.next() % 3) as u16).collect();
    let mut c = vec![0u16; n];
    assert_eq!(
        ntru::poly_rq_mul_isa(Isa::Scalar, &a, &b, &mut c).unwrap(),
        Isa::Scalar
    );
    // coefficient 0 of the cyclic convolution, directly
    let c0 = (0..n).fold(0u16, |acc, i| {
        acc.wrapping_add(a[i].wrapping_mul(b[(n - i) % n]))
    });
    assert_eq!(c[0], c0);
    let mut inv = vec![0u16; n];
    ntru::poly_s3_inv(&b, p, &mut inv).unwrap();
    let mut bytes = vec![0u8; p.s3_bytes()];
    ntru::poly_s3_tobytes(&inv, p, &mut bytes).unwrap();
    let mut back = vec![0u16; n];
    ntru::poly_s3_frombytes(&bytes, p, &mut back).unwrap();
    assert_eq!(back, inv);
}

#[test]
fn scalar_ntruprime_and_ntruplus_rings() {
    use latpoly::rings::ntruplus::{NtruPlusParams, NtruPlusRing};
    use latpoly::rings::ntruprime::Multiplier;
    let m = Multiplier::with_isa(Isa::Scalar).unwrap();
    let mut s = Stream(5);
    let a: Vec<i16> = (0..761).map(|_| (s.below(4591) as i16) - 2295).collect();
    // a · x in Z_4591[x]/(x^761 - x - 1): shift up, a_760 · x^761 = a_760 · (x + 1)
    let mut e = vec![0i8; 761];
    e[1] = 1;
    let centred = |v: i32| ((v + 2295).rem_euclid(4591) - 2295) as i16;
    let mut want: Vec<i16> = (0..761)
        .map(|i| if i == 0 { 0 } else { a[i - 1] })
        .collect();
    want[0] = a[760];
    want[1] = centred(i32::from(a[0]) + i32::from(a[760]));
    assert_eq!(m.mul_rq_small(&a, &e).unwrap(), want);
    if !cfg!(miri) {
        // the general product agrees (761^2 products: too slow for the interpreter)
        let e: Vec<i8> = (0..761).map(|_| (s.below(3) as i8) - 1).collect();
        let ew: Vec<i16> = e.iter().map(|&x| i16::from(x)).collect();
        assert_eq!(m.mul_rq_small(&a, &e).unwrap(), m.mul_rq(&a, &ew).unwrap());
    }

    let p = NtruPlusParams::Kem576;
    let ring = NtruPlusRing::with_isa(p, Isa::Scalar).unwrap();
    let mut x: Vec<i16> = (0..p.n()).map(|_| s.below(3457) as i16).collect();
    let orig = x.clone();
    ring.ntt(&mut x).unwrap();
    ring.invntt(&mut x).unwrap();
    // invntt(ntt(a)) = a · 2^16 (Montgomery factor of the spec) mod q
    let r = (1u64 << 16) % 3457;
    for (y, &o) in x.iter().zip(&orig) {
        assert_eq!((*y as i64).rem_euclid(3457) as u64, (o as u64 * r) % 3457);
    }
}

#[test]
fn scalar_kem_round_trips() {
    use latpoly::kem::{by_name, drbg::KatDrbg};
    // under Miri only the NTT-based scheme (the others spend minutes in the interpreter on
    // their 509^2 / 761^2 schoolbook products, which the ring tests above already cover)
    let names: &[&str] = if cfg!(miri) {
        &["NTRU+KEM576"]
    } else {
        &["ntruhps2048509", "NTRU+KEM576", "ntrulpr761"]
    };
    for &name in names {
        let kem = by_name(name).unwrap();
        let mut rng = KatDrbg::new(&[3u8; 48]);
        let (pk, sk) = kem.keypair(&mut rng).unwrap();
        let (ct, ss) = kem.encapsulate(&pk, &mut rng).unwrap();
        assert_eq!(kem.decapsulate(&sk, &ct).unwrap(), ss, "{name}");
    }
}
