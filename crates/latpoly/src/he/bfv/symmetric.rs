//! Secret-key (symmetric) encryption and seeded ciphertexts.
//!
//! Whoever holds the secret key (a client encrypting its own data before sending it to a server
//! that computes on it) encrypts without the public key:
//!
//! ```text
//! seed <- 32 random bytes;  a = Expand(seed);  e <- χ
//! c = (-(a s) + e + [Q m / t],  a)
//! ```
//!
//! `a` is uniform in `R_Q` and fully determined by the seed, so the ciphertext travels as `c_0`
//! and the 32-byte seed ([`BfvSeededCiphertext`]): half the bytes of a full ciphertext, as in
//! SEAL's, OpenFHE's and Lattigo's compressed symmetric encryptions. The receiver rebuilds `a`
//! ([`Bfv::expand_seeded`]) and gets an ordinary [`BfvCiphertext`].
//!
//! `Expand(seed)` is [`Sampler::from_seed`]`(seed).`[`uniform_poly`](Sampler::uniform_poly)
//! over `Q`, in coefficient form. Precisely: ChaCha20 (20 rounds) keyed with the seed, nonce 0,
//! block counter from 0, read as 64-bit words `w_0, w_1, ...` (each two consecutive 32-bit
//! little-endian keystream words, the first the low half: the words of
//! `rand_chacha::ChaCha20Rng::from_seed(seed).next_u64()`); the `n` coefficients of limb 1, then
//! of limb 2, ... (the primes in the order of `Q`), each `floor(v q_i / 2^128)` with
//! `v = 2^64 w_(2k) + w_(2k+1)` for the next unused pair. It depends on the primes and their
//! order, not on the NTT's output order or on the CPU (every keystream backend gives the same
//! stream), so a seed means the same `a` to every reader of these parameters.
//!
//! The noise of a fresh symmetric ciphertext is `e` alone, against `e u + e_1 + e_2 s` for
//! public-key encryption, so it starts with a few bits more noise budget.
//!
//! Encryption is constant time in the secret key, the plaintext and the error: `a s` is a
//! product in NTT form (data-independent operations), the error comes from the constant-time
//! Gaussian sampler, and the temporaries that hold secret values are wiped.

use super::{scaled_residue, Bfv, BfvCiphertext, BfvSecretKey};
use crate::arith::Modulus;
use crate::error::Result;
use crate::rns::{scratch, Representation, RnsPoly};
use crate::sampling::{small_residue, Sampler, GAUSSIAN_TAIL_CUT};
use crate::secret::Wiped;

/// Bytes of the seed that determines a symmetric ciphertext's `c_1`.
pub const SEED_LEN: usize = 32;

/// A symmetric-key ciphertext in compact form: `c_0` (coefficient form, basis `Q`) and the
/// 32-byte seed of `c_1 = a`. Made by [`Bfv::encrypt_symmetric_seeded`]; sent as
/// [`Self::to_bytes`] (read by [`Bfv::seeded_ciphertext_from_bytes`]); computed on after
/// [`Bfv::expand_seeded`].
///
/// ```
/// use latpoly::he::bfv::{Bfv, BfvParams};
/// use latpoly::sampling::Sampler;
/// let bfv = Bfv::new(BfvParams::new(1024, 40, 3, 257)?)?;
/// let mut rng = Sampler::from_seed([1; 32]);
/// let keys = bfv.keygen(&mut rng)?;
/// let m: Vec<u64> = (0..1024).map(|i| i % 257).collect();
/// let seeded = bfv.encrypt_symmetric_seeded(&keys.secret, &m, &mut rng)?;
/// let full = bfv.expand_seeded(&seeded)?;
/// assert_eq!(bfv.decrypt(&keys.secret, &full)?, m);
/// // about half the bytes of the full ciphertext
/// assert_eq!(seeded.serialized_len(), 8 + 32 + (10 + 3 * 8 + 1024 * 3 * 40 / 8));
/// assert_eq!(full.serialized_len(), 8 + 2 * (10 + 3 * 8 + 1024 * 3 * 40 / 8));
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BfvSeededCiphertext {
    pub(super) c0: RnsPoly,
    pub(super) seed: [u8; SEED_LEN],
}

impl BfvSeededCiphertext {
    /// The seed of `c_1` (public: it travels with the ciphertext).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 2, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let x = bfv.encrypt_symmetric_seeded(&keys.secret, &[1; 16], &mut rng)?;
    /// let y = bfv.encrypt_symmetric_seeded(&keys.secret, &[1; 16], &mut rng)?;
    /// assert_ne!(x.seed(), y.seed()); // a fresh seed per encryption
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn seed(&self) -> &[u8; SEED_LEN] {
        &self.seed
    }

    /// The polynomial `c_0` (coefficient form, basis `Q`).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 2, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let x = bfv.encrypt_symmetric_seeded(&keys.secret, &[1; 16], &mut rng)?;
    /// assert_eq!(x.c0().residues(), bfv.expand_seeded(&x)?.parts()[0].residues());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn c0(&self) -> &RnsPoly {
        &self.c0
    }
}

impl Bfv {
    /// `a = Expand(seed)`: uniform over `Q`, coefficient form (see the module documentation).
    fn expand_a(&self, seed: &[u8; SEED_LEN]) -> RnsPoly {
        Sampler::from_seed(*seed).uniform_poly(&self.q)
    }

    /// `c_0 = -(a s) + e + [Q m / t]` for `a = Expand(seed)` with a fresh seed; returns `c_0`,
    /// `a` and the seed.
    fn encrypt_symmetric_parts(
        &self,
        sk: &BfvSecretKey,
        m: &[u64],
        rng: &mut Sampler,
    ) -> Result<(RnsPoly, RnsPoly, [u8; SEED_LEN])> {
        self.check_plain(m)?;
        self.check_key_ctx(&sk.s)?;
        let seed = rng.next_seed();
        let a = self.expand_a(&seed);
        let e = Wiped::new(rng.gaussian(self.params.n, self.params.sigma)?);
        let bound = ((GAUSSIAN_TAIL_CUT * self.params.sigma).ceil() as u64).max(1);
        let rounded = Wiped::new(m.iter().map(|&x| self.round_part(x)).collect::<Vec<u64>>());
        let n = self.params.n;
        let mut c0 = vec![0u64; self.q.len() * n];
        let mut an = scratch::take(n);
        let s = sk.s.residues();
        let moduli = self.q.crt().moduli();
        for (j, (md, plan)) in moduli.iter().zip(self.q.plans()).enumerate() {
            let r = j * n..(j + 1) * n;
            an.copy_from_slice(a.limb(j));
            plan.forward_unchecked(&mut an);
            // a s, then back to coefficients: c0 holds a secret-dependent value until the
            // error and the plaintext are in (a failed return cannot happen past this point)
            plan.pointwise_unchecked(&an, &s[r.clone()], &mut c0[r.clone()]);
            plan.inverse_unchecked(&mut c0[r.clone()]);
            let (d, dp) = (self.delta[j], md.shoup(self.delta[j]));
            for (((o, &x), &ej), &c) in c0[r].iter_mut().zip(m).zip(e.iter()).zip(rounded.iter()) {
                let dm = scaled_residue(md, (d, dp), x, c);
                *o = md.add(md.sub(small_residue(md, ej, bound), *o), dm);
            }
        }
        scratch::give(an);
        Ok((
            RnsPoly::from_residues_unchecked(&self.q, c0, Representation::Coefficient),
            a,
            seed,
        ))
    }

    /// Encrypts a plaintext polynomial (`n` coefficients in `[0, t)`) with the secret key:
    /// `(-(a s) + e + [Q m / t], a)`, `a` uniform (drawn from a seed, see
    /// [`Self::encrypt_symmetric_seeded`] for the compact form). Decrypts, adds, multiplies and
    /// key-switches as a public-key ciphertext does, with less initial noise.
    ///
    /// Errors: [`LengthMismatch`](crate::Error::LengthMismatch) for `m.len() != n`,
    /// [`CoefficientOutOfRange`](crate::Error::CoefficientOutOfRange) for a coefficient `>= t`,
    /// [`ContextMismatch`](crate::Error::ContextMismatch) for a key of other parameters.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// use latpoly::Error;
    /// let bfv = Bfv::new(BfvParams::new(1024, 40, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([2; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let m = vec![9u64; 1024];
    /// let c = bfv.encrypt_symmetric(&keys.secret, &m, &mut rng)?;
    /// assert_eq!(bfv.decrypt(&keys.secret, &c)?, m);
    /// let p = bfv.encrypt(&keys.public, &m, &mut rng)?;
    /// // less fresh noise than public-key encryption
    /// assert!(bfv.noise_budget(&keys.secret, &c)? > bfv.noise_budget(&keys.secret, &p)?);
    /// assert!(matches!(
    ///     bfv.encrypt_symmetric(&keys.secret, &m[..8], &mut rng),
    ///     Err(Error::LengthMismatch { expected: 1024, got: 8 })
    /// ));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn encrypt_symmetric(
        &self,
        sk: &BfvSecretKey,
        m: &[u64],
        rng: &mut Sampler,
    ) -> Result<BfvCiphertext> {
        let (c0, a, _) = self.encrypt_symmetric_parts(sk, m, rng)?;
        Ok(BfvCiphertext { c: vec![c0, a] })
    }

    /// [`Self::encrypt_symmetric`] in compact form: `c_0` and the seed of `a`
    /// ([`BfvSeededCiphertext`], about half the bytes). Same errors.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([3; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let m: Vec<u64> = (0..16).map(|i| i * 10).collect();
    /// let bytes = bfv.encrypt_symmetric_seeded(&keys.secret, &m, &mut rng)?.to_bytes();
    /// // ... sent to whoever computes on it
    /// let c = bfv.expand_seeded(&bfv.seeded_ciphertext_from_bytes(&bytes)?)?;
    /// let twice = bfv.add(&c, &c)?;
    /// let want: Vec<u64> = m.iter().map(|x| 2 * x % 257).collect();
    /// assert_eq!(bfv.decrypt(&keys.secret, &twice)?, want);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn encrypt_symmetric_seeded(
        &self,
        sk: &BfvSecretKey,
        m: &[u64],
        rng: &mut Sampler,
    ) -> Result<BfvSeededCiphertext> {
        let (c0, _, seed) = self.encrypt_symmetric_parts(sk, m, rng)?;
        Ok(BfvSeededCiphertext { c0, seed })
    }

    /// The full ciphertext `(c_0, Expand(seed))` of a seeded one
    /// ([`ContextMismatch`](crate::Error::ContextMismatch) for one of other parameters).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// use latpoly::Error;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([4; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let s = bfv.encrypt_symmetric_seeded(&keys.secret, &[5; 16], &mut rng)?;
    /// let c = bfv.expand_seeded(&s)?;
    /// assert_eq!(c.len(), 2);
    /// assert_eq!(bfv.decrypt(&keys.secret, &c)?, vec![5; 16]);
    /// let other = Bfv::new(BfvParams::new(16, 30, 2, 257)?)?;
    /// assert_eq!(other.expand_seeded(&s).unwrap_err(), Error::ContextMismatch);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn expand_seeded(&self, c: &BfvSeededCiphertext) -> Result<BfvCiphertext> {
        self.check_key_ctx(&c.c0)?;
        let mut c0 = c.c0.clone();
        if c0.representation() == Representation::Ntt {
            c0.to_coeff();
        }
        Ok(BfvCiphertext {
            c: vec![c0, self.expand_a(&c.seed)],
        })
    }

    /// Length in bytes of a seeded ciphertext of this instance ([`BfvSeededCiphertext::to_bytes`]):
    /// the 8-byte container header, the 32-byte seed and one polynomial of basis `Q`.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(1024, 40, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let s = bfv.encrypt_symmetric_seeded(&keys.secret, &[0; 1024], &mut rng)?;
    /// assert_eq!(bfv.seeded_ciphertext_len(), s.to_bytes().len());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn seeded_ciphertext_len(&self) -> usize {
        crate::serialize::container_len_for(&self.q, 1) + SEED_LEN
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::he::bfv::BfvParams;
    use crate::Error;

    fn setup(n: usize, bits: u32, count: usize, t: u64) -> (Bfv, super::super::BfvKeys, Sampler) {
        let bfv = Bfv::new(BfvParams::new(n, bits, count, t).unwrap()).unwrap();
        let mut rng = Sampler::from_seed([7; 32]);
        let keys = bfv.keygen(&mut rng).unwrap();
        (bfv, keys, rng)
    }

    /// `c_0 + c_1 s` is `[Q m / t] + e` with `|e|` within the sampler's tail cut: the
    /// ciphertext is exactly what the formula says, not merely decryptable.
    #[test]
    fn phase_is_scaled_plaintext_plus_small_error() {
        use num_bigint::BigInt;
        let (bfv, keys, mut rng) = setup(64, 40, 2, 65537);
        let m: Vec<u64> = (0..64).map(|i| (i * 977) % 65537).collect();
        let c = bfv.encrypt_symmetric(&keys.secret, &m, &mut rng).unwrap();
        let x = bfv.phase(&keys.secret, &c).unwrap();
        let phase = RnsPoly::from_residues_unchecked(&bfv.q, x, Representation::Coefficient);
        let want = bfv.scaled_plain(&m);
        let diff = phase.sub(&want).unwrap();
        let bound = (GAUSSIAN_TAIL_CUT * bfv.params.sigma).ceil() as i64;
        let mut nonzero = 0;
        for v in diff.to_centered_bigints() {
            assert!(
                v.clone() * v.clone() <= BigInt::from(bound * bound),
                "error {v}"
            );
            nonzero += usize::from(v != BigInt::from(0));
        }
        assert!(nonzero > 16, "the error is missing");
    }

    #[test]
    fn decrypts_at_the_edges_on_every_shape() {
        // one prime, primes at 62 bits, t large against Q, the smallest n
        for &(n, bits, count, t) in &[
            (4usize, 30u32, 1usize, 2u64),
            (16, 62, 1, (1 << 40) + 15),
            (256, 62, 3, 65537),
            (2048, 50, 2, 12289),
            (32, 20, 4, 97),
        ] {
            let bfv = Bfv::new(BfvParams::new(n, bits, count, t).unwrap()).unwrap();
            let mut rng = Sampler::from_seed([n as u8; 32]);
            let keys = bfv.keygen(&mut rng).unwrap();
            for m in [
                vec![0u64; n],
                vec![t - 1; n],
                (0..n as u64).map(|i| (i * 31 + 7) % t).collect(),
            ] {
                let c = bfv.encrypt_symmetric(&keys.secret, &m, &mut rng).unwrap();
                assert_eq!(bfv.decrypt(&keys.secret, &c).unwrap(), m, "n {n} t {t}");
                let s = bfv
                    .encrypt_symmetric_seeded(&keys.secret, &m, &mut rng)
                    .unwrap();
                let back = bfv
                    .seeded_ciphertext_from_bytes(&s.to_bytes())
                    .and_then(|s| bfv.expand_seeded(&s))
                    .unwrap();
                assert_eq!(bfv.decrypt(&keys.secret, &back).unwrap(), m, "n {n} t {t}");
            }
        }
    }

    #[test]
    fn seeded_and_full_forms_agree_and_the_seed_fixes_a() {
        let (bfv, keys, _) = setup(128, 40, 3, 257);
        let m: Vec<u64> = (0..128).map(|i| i % 257).collect();
        // the same sampler state gives the same ciphertext in both forms
        let full = bfv
            .encrypt_symmetric(&keys.secret, &m, &mut Sampler::from_seed([9; 32]))
            .unwrap();
        let seeded = bfv
            .encrypt_symmetric_seeded(&keys.secret, &m, &mut Sampler::from_seed([9; 32]))
            .unwrap();
        let expanded = bfv.expand_seeded(&seeded).unwrap();
        for (x, y) in full.parts().iter().zip(expanded.parts()) {
            assert_eq!(x.residues(), y.residues());
        }
        // a is Expand(seed): ChaCha20 keyed with the seed, uniform_poly over Q
        let a = Sampler::from_seed(*seeded.seed()).uniform_poly(bfv.context());
        assert_eq!(expanded.parts()[1].residues(), a.residues());
        // and the seed is the sampler's next 32 bytes
        let mut rng = Sampler::from_seed([9; 32]);
        let want: Vec<u8> = (0..4).flat_map(|_| rng.next_u64().to_le_bytes()).collect();
        assert_eq!(&seeded.seed()[..], &want[..]);
    }

    #[test]
    fn homomorphic_operations_on_symmetric_ciphertexts() {
        let bfv = Bfv::new(BfvParams::new(1024, 50, 3, 65537).unwrap()).unwrap();
        let mut rng = Sampler::from_seed([11; 32]);
        let keys = bfv.keygen(&mut rng).unwrap();
        let a: Vec<u64> = (0..1024).map(|i| (i * i) % 65537).collect();
        let b: Vec<u64> = (0..1024).map(|i| (3 * i + 1) % 65537).collect();
        let ca = bfv.encrypt_symmetric(&keys.secret, &a, &mut rng).unwrap();
        let cb = bfv
            .expand_seeded(
                &bfv.encrypt_symmetric_seeded(&keys.secret, &b, &mut rng)
                    .unwrap(),
            )
            .unwrap();
        let pb = bfv.encrypt(&keys.public, &b, &mut rng).unwrap();
        for other in [&cb, &pb] {
            let prod = bfv.multiply_relin(&ca, other, &keys.relin).unwrap();
            assert_eq!(
                bfv.decrypt(&keys.secret, &prod).unwrap(),
                bfv.plain_mul(&a, &b).unwrap()
            );
        }
        // fresh symmetric noise is below public-key noise
        let sym = bfv.noise_budget(&keys.secret, &ca).unwrap();
        let public = bfv.noise_budget(&keys.secret, &pb).unwrap();
        assert!(sym > public, "{sym} against {public}");
    }

    #[test]
    fn wrong_inputs_are_errors() {
        let (bfv, keys, mut rng) = setup(16, 30, 3, 257);
        let other = Bfv::new(BfvParams::new(16, 30, 2, 257).unwrap()).unwrap();
        let foreign = other.keygen(&mut rng).unwrap();
        let m = vec![1u64; 16];
        assert_eq!(
            bfv.encrypt_symmetric(&foreign.secret, &m, &mut rng)
                .unwrap_err(),
            Error::ContextMismatch
        );
        assert!(matches!(
            bfv.encrypt_symmetric_seeded(&keys.secret, &[1; 17], &mut rng),
            Err(Error::LengthMismatch {
                expected: 16,
                got: 17
            })
        ));
        let mut big = m.clone();
        big[5] = 257;
        assert!(matches!(
            bfv.encrypt_symmetric_seeded(&keys.secret, &big, &mut rng),
            Err(Error::CoefficientOutOfRange { index: 5, .. })
        ));
        let s = other
            .encrypt_symmetric_seeded(&foreign.secret, &m, &mut rng)
            .unwrap();
        assert_eq!(bfv.expand_seeded(&s).unwrap_err(), Error::ContextMismatch);
    }
}
