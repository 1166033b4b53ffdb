//! The FV / BFV somewhat-homomorphic encryption scheme on RNS polynomials.
//!
//! Plaintexts are polynomials of `R_t = Z_t[x]/(x^n + 1)` (coefficient encoding), ciphertexts
//! pairs of polynomials of `R_Q`, `Q = q_1 ··· q_L`, with `Δ = floor(Q / t)`:
//!
//! ```text
//! KeyGen:   s <- ternary, a <- U(R_Q), e <- χ;   pk = (-(a s + e), a)
//! Encrypt:  u <- ternary, e1, e2 <- χ;          c = (pk_0 u + e1 + [Q m / t],  pk_1 u + e2)
//! Decrypt:  m = round(t (c_0 + c_1 s) / Q) mod t
//! ```
//!
//! With the secret key, [`Bfv::encrypt_symmetric`] gives `(-(a s) + e + [Q m / t], a)`, `a`
//! from a 32-byte seed, which travels in place of `a` ([`BfvSeededCiphertext`]: half the
//! bytes).
//!
//! The plaintext enters as `[Q m / t] = Δ m + round((Q mod t) m / t)` (rounded, as in SEAL and
//! the "revisited" BFV of Kim, Polyakov and Zucca), not as the textbook `Δ m`, whose error
//! `(Q mod t) m / Q` reaches `t^2 / Q` and breaks decryption when `t` is large against `Q`
//! (for example `t` near `2^32` over one 62-bit prime) however small the noise.
//!
//! Everything is computed in RNS form, never through big integers:
//!
//! * **Decryption** uses the scale-and-round of Halevi-Polyakov-Shoup: with
//!   `y_i = [x_i (Q/q_i)^-1]_{q_i}`, `t x / Q ≡ Σ y_i t / q_i (mod t)`; each `y_i t` splits into
//!   an integer part (summed mod `t`) and a fraction `β_i / q_i` (summed in floating point, then
//!   rounded).
//! * **Multiplication** (HPS-style tensoring with exact base extension): both ciphertexts are
//!   lifted exactly (centred) from `Q` to `Q·P` with an auxiliary basis `P > t·n·Q`, tensored in
//!   NTT form, then `round(t·e / Q)` is computed exactly as `(t e - [t e]_Q) / Q` in basis `P`
//!   (with `[t e]_Q` extended from `Q` to `P`) and brought back to `Q` by exact centred base
//!   extension. See [`crate::rns::BaseExtender`].
//! * **Relinearization**: RNS gadget key switching with a special prime (the "hybrid" key
//!   switching of Gentry-Halevi-Smart, as in SEAL and OpenFHE, with one digit per prime):
//!   `c_2 = Σ_i D_i · (Q/q_i)` with digits `D_i = [c_2 (Q/q_i)^-1]_{q_i}` taken centred (in
//!   `(-q_i/2, q_i/2]`), keys over `Q·P_s` for one extra NTT prime `P_s` (as large as the
//!   largest `q_i`), `rlk_i = (-(a_i s + e_i) + P_s (Q/q_i) s², a_i)`; the sum `Σ D_i rlk_i` is
//!   divided by `P_s` with rounding (`(x - [x]_{P_s}) / P_s`, centred). The noise a key switch
//!   adds is `Σ D_i e_i / P_s` plus the rounding's `ε_0 + ε_1 s` (`|ε_k| <= 1/2`): about
//!   `σ sqrt(n L / 12)` for primes of one size, where one digit per prime without `P_s` added
//!   `σ sqrt(n Σ q_i² / 12)` (some 60 bits more with 60-bit primes), and any basis (one prime,
//!   primes of unequal sizes) key-switches. Galois keys (rotations) are built the same way.
//!   The keys also serve every instance made from this one by [`Bfv::lower`], without the
//!   secret, as SEAL's and OpenFHE's keys serve every level (`keyswitch` module: the digits
//!   there use the key's `(Q/q_i)^-1`).
//!
//! ```
//! use latpoly::he::bfv::{Bfv, BfvParams};
//! use latpoly::sampling::Sampler;
//! let bfv = Bfv::new(BfvParams::new(1024, 30, 3, 257).unwrap()).unwrap();
//! let mut rng = Sampler::from_seed([1; 32]);
//! let keys = bfv.keygen(&mut rng).unwrap();
//! let mut m1 = vec![0u64; 1024];
//! m1[0] = 3; // 3
//! let mut m2 = vec![0u64; 1024];
//! m2[1] = 5; // 5 x
//! let c1 = bfv.encrypt(&keys.public, &m1, &mut rng).unwrap();
//! let c2 = bfv.encrypt(&keys.public, &m2, &mut rng).unwrap();
//! let prod = bfv.multiply_relin(&c1, &c2, &keys.relin).unwrap();
//! let m = bfv.decrypt(&keys.secret, &prod).unwrap();
//! assert_eq!(m[1], 15);
//! assert!(bfv.noise_budget(&keys.secret, &prod).unwrap() > 0);
//! ```

use crate::arith::Modulus;
use crate::error::{Error, Result};
use crate::isa::Isa;
use crate::primes::ntt_primes;
use crate::rns::{convert_simd, scratch, BaseExtender, Representation, RnsContext, RnsPoly};
use crate::sampling::{small_residue, Sampler, GAUSSIAN_TAIL_CUT};
use crate::secret::Wiped;
use num_bigint::{BigInt, BigUint};
use num_traits::{Signed, Zero};
use std::sync::Arc;

mod galois;
mod io;
mod keyswitch;
mod modswitch;
pub(crate) mod round;
mod slots;
mod symmetric;

pub use galois::BfvGaloisKeys;
pub use symmetric::{BfvSeededCiphertext, SEED_LEN};

/// BFV parameters: ring degree, ciphertext primes, plaintext modulus, noise width.
///
/// ```
/// use latpoly::he::bfv::{Bfv, BfvParams};
/// let p = BfvParams::new(16, 30, 3, 257)?;
/// assert_eq!((p.n, p.t, p.moduli.len(), p.sigma), (16, 257, 3, 3.19));
/// // The fields are public; Bfv::new validates whatever is put in them.
/// assert!(Bfv::new(BfvParams { sigma: 0.0, ..p.clone() }).is_err());
/// assert!(Bfv::new(BfvParams { moduli: vec![97], ..p }).is_err()); // 97 is below t = 257
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct BfvParams {
    /// Ring degree `n` (power of two).
    pub n: usize,
    /// The primes of `Q` (distinct, NTT-friendly for `n`, below `2^62`). Key switching
    /// (relinearization, rotations) adds one special prime of its own ([`Bfv::relinearize`]).
    pub moduli: Vec<u64>,
    /// Plaintext modulus `t >= 2`, coprime to `Q`.
    pub t: u64,
    /// Standard deviation of the Gaussian errors (3.19 as in SEAL/OpenFHE).
    pub sigma: f64,
}

impl BfvParams {
    /// `count` primes of `bits` bits for degree `n`, plaintext modulus `t`, `σ = 3.19`.
    ///
    /// ```
    /// use latpoly::{he::bfv::BfvParams, Error};
    /// let p = BfvParams::new(16, 30, 3, 257)?;
    /// assert!(p.moduli.iter().all(|&q| q >> 29 == 1 && q % 32 == 1)); // 30 bits, 1 mod 2n
    /// // There are only a handful of 10-bit primes that are 1 mod 32.
    /// assert!(matches!(BfvParams::new(16, 10, 50, 257), Err(Error::NotEnoughPrimes { .. })));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn new(n: usize, bits: u32, count: usize, t: u64) -> Result<BfvParams> {
        Ok(BfvParams {
            n,
            moduli: ntt_primes(bits, n, count)?,
            t,
            sigma: 3.19,
        })
    }

    /// `n = 4096`, `Q` of 124 bits (2 primes of 62 bits; the NFLlib paper's Table 5 size).
    ///
    /// ```
    /// let p = latpoly::he::bfv::BfvParams::n4096_q124(65537)?;
    /// assert_eq!((p.n, p.t, p.moduli.len()), (4096, 65537, 2));
    /// assert!(p.moduli.iter().all(|&q| q >> 61 == 1)); // 62-bit primes
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn n4096_q124(t: u64) -> Result<BfvParams> {
        Self::new(4096, 62, 2, t)
    }

    /// `n = 8192`, `Q` of about 218 bits (4 primes of 55 bits).
    ///
    /// ```
    /// let p = latpoly::he::bfv::BfvParams::n8192_q218(65537)?;
    /// assert_eq!((p.n, p.moduli.len()), (8192, 4));
    /// assert!(p.moduli.iter().all(|&q| q >> 54 == 1 && q % 16384 == 1)); // 55 bits, 1 mod 2n
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn n8192_q218(t: u64) -> Result<BfvParams> {
        Self::new(8192, 55, 4, t)
    }
}

/// Secret key `s` (ternary), NTT form; wiped on drop.
///
/// ```
/// use latpoly::he::bfv::{Bfv, BfvParams};
/// use latpoly::sampling::Sampler;
/// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
/// let mut rng = Sampler::from_seed([1; 32]);
/// let keys = bfv.keygen(&mut rng)?;
/// assert_eq!(format!("{:?}", keys.secret), "BfvSecretKey { .. }"); // never printed
/// let m = vec![42u64; 16];
/// let c = bfv.encrypt(&keys.public, &m, &mut rng)?;
/// assert_eq!(bfv.decrypt(&keys.secret, &c)?, m);
/// let other = bfv.keygen(&mut rng)?;
/// assert_ne!(bfv.decrypt(&other.secret, &c)?, m); // another key decrypts to noise
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone)]
pub struct BfvSecretKey {
    s: RnsPoly,
}

impl Drop for BfvSecretKey {
    fn drop(&mut self) {
        self.s.wipe();
    }
}

impl core::fmt::Debug for BfvSecretKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("BfvSecretKey { .. }")
    }
}

/// Public key `(-(a s + e), a)`, NTT form.
///
/// ```
/// use latpoly::he::bfv::{Bfv, BfvParams};
/// use latpoly::sampling::Sampler;
/// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
/// let mut rng = Sampler::from_seed([1; 32]);
/// let keys = bfv.keygen(&mut rng)?;
/// let c = bfv.encrypt(&keys.public, &[1; 16], &mut rng)?;
/// assert_eq!(bfv.decrypt(&keys.secret, &c)?, vec![1; 16]);
/// // A key of another parameter set is refused.
/// let other = Bfv::new(BfvParams::new(16, 31, 3, 257)?)?;
/// let foreign = other.keygen(&mut rng)?;
/// assert!(matches!(
///     bfv.encrypt(&foreign.public, &[1; 16], &mut rng),
///     Err(latpoly::Error::ContextMismatch)
/// ));
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BfvPublicKey {
    p0: RnsPoly,
    p1: RnsPoly,
    /// The seed `p1` expands from ([`Bfv::expand_key_a`]), when known (keys from
    /// [`Bfv::keygen`] or from compact bytes): the key then travels as `p0` and the seed.
    seed: Option<[u8; SEED_LEN]>,
}

/// Relinearization keys, one pair per prime of `Q`, NTT form.
///
/// ```
/// use latpoly::he::bfv::{Bfv, BfvParams};
/// use latpoly::sampling::Sampler;
/// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
/// let mut rng = Sampler::from_seed([1; 32]);
/// let keys = bfv.keygen(&mut rng)?;
/// let c = bfv.encrypt(&keys.public, &[2; 16], &mut rng)?;
/// let c3 = bfv.multiply(&c, &c)?;
/// let c2 = bfv.relinearize(&c3, &keys.relin)?;
/// assert_eq!((c3.len(), c2.len()), (3, 2));
/// assert_eq!(bfv.decrypt(&keys.secret, &c2)?, bfv.decrypt(&keys.secret, &c3)?);
/// // A key with another number of primes is refused.
/// let other = Bfv::new(BfvParams::new(16, 30, 2, 257)?)?;
/// let foreign = other.keygen(&mut rng)?;
/// assert!(bfv.relinearize(&c3, &foreign.relin).is_err());
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BfvRelinKey {
    b: Vec<RnsPoly>,
    a: Vec<RnsPoly>,
    /// The seed the `a_i` expand from, when known (as for [`BfvPublicKey`]).
    seed: Option<[u8; SEED_LEN]>,
}

/// A key set from [`Bfv::keygen`].
///
/// ```
/// use latpoly::he::bfv::{Bfv, BfvParams};
/// use latpoly::sampling::Sampler;
/// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
/// let keys = bfv.keygen(&mut Sampler::from_seed([1; 32]))?;
/// let mut rng = Sampler::from_seed([2; 32]);
/// let c = bfv.encrypt(&keys.public, &[3; 16], &mut rng)?;
/// let sq = bfv.multiply_relin(&c, &c, &keys.relin)?;
/// assert_eq!(bfv.decrypt(&keys.secret, &sq)?, bfv.plain_mul(&[3; 16], &[3; 16])?);
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BfvKeys {
    /// The secret key.
    pub secret: BfvSecretKey,
    /// The public (encryption) key.
    pub public: BfvPublicKey,
    /// The relinearization key.
    pub relin: BfvRelinKey,
}

/// A ciphertext: 2 polynomials (3 after an unrelinearized product), coefficient form, basis `Q`.
///
/// ```
/// use latpoly::he::bfv::{Bfv, BfvParams};
/// use latpoly::sampling::Sampler;
/// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
/// let mut rng = Sampler::from_seed([1; 32]);
/// let keys = bfv.keygen(&mut rng)?;
/// let c = bfv.encrypt(&keys.public, &[5; 16], &mut rng)?;
/// assert_eq!(c.len(), 2);
/// let c3 = bfv.multiply(&c, &c)?;
/// assert_eq!(c3.len(), 3); // (c0, c1, c2) until relinearized
/// assert_eq!(bfv.decrypt(&keys.secret, &c3)?, bfv.plain_mul(&[5; 16], &[5; 16])?);
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct BfvCiphertext {
    c: Vec<RnsPoly>,
}

impl BfvCiphertext {
    /// Number of polynomials (2, or 3 before relinearization).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let c = bfv.encrypt(&keys.public, &[0; 16], &mut rng)?;
    /// assert_eq!(c.len(), 2);
    /// assert_eq!(bfv.multiply(&c, &c)?.len(), 3);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.c.len()
    }

    /// Always false.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let c = bfv.encrypt(&keys.public, &[0; 16], &mut rng)?;
    /// assert!(!c.is_empty());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.c.is_empty()
    }

    /// The polynomials.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// use latpoly::rns::Representation;
    /// let c = bfv.encrypt(&keys.public, &[0; 16], &mut rng)?;
    /// assert_eq!(c.parts().len(), 2);
    /// for p in c.parts() {
    ///     assert!(p.context().same_as(bfv.context()));
    ///     assert_eq!(p.representation(), Representation::Coefficient);
    /// }
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn parts(&self) -> &[RnsPoly] {
        &self.c
    }
}

/// A BFV instance: parameters and precomputed RNS machinery.
///
/// ```
/// use latpoly::he::bfv::{Bfv, BfvParams};
/// use latpoly::sampling::Sampler;
/// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
/// let mut rng = Sampler::from_seed([1; 32]);
/// let keys = bfv.keygen(&mut rng)?;
/// // Evaluate 3·m1 + m2·m2 on encrypted data.
/// let (m1, m2) = (vec![4u64; 16], (0..16).collect::<Vec<u64>>());
/// let c1 = bfv.encrypt(&keys.public, &m1, &mut rng)?;
/// let c2 = bfv.encrypt(&keys.public, &m2, &mut rng)?;
/// let sq = bfv.multiply_relin(&c2, &c2, &keys.relin)?;
/// let r = bfv.add(&bfv.add(&bfv.add(&c1, &c1)?, &c1)?, &sq)?;
/// let want: Vec<u64> = bfv.plain_mul(&m2, &m2)?.iter().map(|&x| (x + 12) % 257).collect();
/// assert_eq!(bfv.decrypt(&keys.secret, &r)?, want);
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Debug)]
pub struct Bfv {
    params: BfvParams,
    q: Arc<RnsContext>,
    p: Arc<RnsContext>,
    qp: Arc<RnsContext>,
    q_to_p: BaseExtender,
    p_to_q: BaseExtender,
    /// `Δ mod q_i`, `Δ = floor(Q/t)`.
    delta: Vec<u64>,
    /// `Q mod t` and `u128::MAX / t`: the plaintext enters as `round(Q m / t) = Δ m +
    /// round((Q mod t) m / t)` ([`Bfv::round_part`]).
    q_mod_t: (u64, u128),
    /// `(Q/q_i)^-1 mod q_i`.
    qhat_inv: Vec<u64>,
    /// `Q` with the special prime `P_s` appended: the basis of the key-switching keys.
    qs: Arc<RnsContext>,
    /// The bases of key switching ([`keyswitch::SwitchBasis`]): this instance's own (`Q·P_s`,
    /// the keys it makes) first, then those of the instances it was lowered from, whose keys
    /// serve here too.
    switch: Vec<keyswitch::SwitchBasis>,
    /// Division by the last prime with rounding, from `q_1 .. q_(j+2)` to `q_1 .. q_(j+1)`, at
    /// index `j` ([`Bfv::mod_switch`]).
    drops: Vec<modswitch::DropLimb>,
    /// `P_s (Q/q_i) mod q_i`: the gadget of the switching keys.
    gadget: Vec<u64>,
    /// `t mod p_k`.
    t_mod_p: Vec<u64>,
    q_inv_mod_p: Vec<u64>,
    /// Decryption's scale-and-round constants, when `t` is in the range of [`round`] (below
    /// every prime and `4 L t < 2^63`).
    round: Option<round::RoundTables>,
    /// The backend of the u64-lane kernels of this module (decryption's scale-and-round,
    /// multiplication's scale step): the best of AVX-512 and AVX2 this CPU runs at this `n`
    /// within the `LATPOLY_ISA` cap, or scalar.
    lane_isa: Isa,
    /// The slot encoder when `t` is a prime `≡ 1 (mod 2n)` (see [`Bfv::encode_slots`]).
    slots: Option<slots::SlotEncoder>,
}

/// `round(Q m / t) mod q_i = Δ m + c mod q_i` from `Δ mod q_i` with its Shoup quotient and
/// `c = round((Q mod t) m / t)` ([`Bfv::round_part`]), branch-free.
#[inline(always)]
fn scaled_residue(md: &crate::arith::Modulus64, (d, dp): (u64, u64), m: u64, c: u64) -> u64 {
    md.add(md.mul_shoup(md.reduce_u64(m), d, dp), md.reduce_u64(c))
}

/// A key-switching key `(b_1 .. b_L, a_1 .. a_L)` and the seed of its `a_i`.
type SwitchingKey = (Vec<RnsPoly>, Vec<RnsPoly>, [u8; SEED_LEN]);

/// The special prime of key switching for these parameters: the largest NTT prime for `n`
/// outside `Q` as wide as `Q`'s widest prime, or, where that width has no prime left (few
/// primes of 20-odd bits are `≡ 1 mod 2n` for large `n`), the next wider width that has one,
/// up to 62 bits (a wider `P_s` only lowers the noise; the digit kernels then take their
/// scalar path).
fn special_prime(params: &BfvParams) -> Result<u64> {
    let widest = params.moduli.iter().map(|&x| 64 - x.leading_zeros()).max();
    for bits in widest.unwrap_or(62).clamp(20, 62)..=62 {
        // only the primes of Q of this width can collide
        let taken = params
            .moduli
            .iter()
            .filter(|&&x| 64 - x.leading_zeros() == bits)
            .count();
        if let Ok(pool) = ntt_primes(bits, params.n, taken + 1) {
            if let Some(p) = pool.into_iter().find(|x| !params.moduli.contains(x)) {
                return Ok(p);
            }
        }
    }
    Err(Error::InvalidArgument(format!(
        "no NTT prime for n = {} outside Q to serve as the special prime of key switching",
        params.n
    )))
}

fn low_u64(x: &BigUint, m: u64) -> u64 {
    (x % m).to_u64_digits().first().copied().unwrap_or(0)
}

impl Bfv {
    /// Validates the parameters and precomputes the bases (`Q`, an auxiliary `P > t·n·Q`, and
    /// `Q·P`) with their NTT plans and base converters.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// let p = BfvParams::new(16, 30, 3, 257)?;
    /// let bfv = Bfv::new(p.clone())?;
    /// assert_eq!(bfv.context().moduli(), &p.moduli[..]);
    /// assert!(Bfv::new(BfvParams { t: 1, ..p.clone() }).is_err());
    /// assert!(Bfv::new(BfvParams { t: p.moduli[0], ..p.clone() }).is_err()); // t not coprime to Q
    /// assert!(Bfv::new(BfvParams { n: 12, ..p.clone() }).is_err()); // not a power of two
    /// assert!(Bfv::new(BfvParams { sigma: 5000.0, ..p }).is_err()); // above the sampler's limit
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn new(params: BfvParams) -> Result<Bfv> {
        Self::with_aux_bits(params, None)
    }

    /// [`Self::new`] with auxiliary primes of `bits` bits (50 or 61), or of the width
    /// [`aux_prime_bits`] picks for this CPU (`None`).
    fn with_aux_bits(params: BfvParams, bits: Option<u32>) -> Result<Bfv> {
        if params.t < 2 {
            return Err(Error::InvalidArgument(
                "plaintext modulus t must be at least 2".into(),
            ));
        }
        // The sampler's table limit: a larger sigma would pass here and fail in every key
        // generation and encryption.
        let max = crate::sampling::MAX_GAUSSIAN_SIGMA;
        if !(params.sigma > 0.0 && params.sigma <= max) {
            return Err(Error::InvalidArgument(format!(
                "sigma {} must be positive and at most {max}",
                params.sigma
            )));
        }
        let q = RnsContext::new(params.n, &params.moduli)?;
        let big_q = q.modulus().clone();
        if params.moduli.iter().any(|&qi| params.t.is_multiple_of(qi)) {
            return Err(Error::InvalidArgument(
                "t must be coprime to every prime of Q".into(),
            ));
        }
        if BigUint::from(params.t) >= big_q {
            return Err(Error::InvalidArgument("t must be smaller than Q".into()));
        }
        // P > t n Q with margin, from primes outside Q.
        let need = big_q.bits() + 64 - (params.t.leading_zeros() as u64)
            + params.n.trailing_zeros() as u64
            + 3;
        // The special prime of key switching: an NTT prime outside Q as wide as Q's widest
        // (so the digits' noise shrinks by about the size of a prime; one of equal width keeps
        // the digit kernels' single conditional subtraction).
        let special_value = special_prime(&params)?;
        let bits = bits.unwrap_or_else(|| aux_prime_bits(params.n, need));
        let count = need.div_ceil(bits as u64 - 1) as usize;
        let pool = ntt_primes(bits, params.n, count + params.moduli.len() + 1)?;
        let pm: Vec<u64> = pool
            .into_iter()
            .filter(|&x| !params.moduli.contains(&x) && x != special_value)
            .take(count)
            .collect();
        let p = RnsContext::new(params.n, &pm)?;
        let mut all = params.moduli.clone();
        all.extend_from_slice(&pm);
        let qp = RnsContext::new(params.n, &all)?;
        let delta_big = &big_q / params.t;
        let q_mod_t = (low_u64(&big_q, params.t), u128::MAX / params.t as u128);
        let delta = params
            .moduli
            .iter()
            .map(|&m| low_u64(&delta_big, m))
            .collect();
        let mut qhat_inv = Vec::new();
        let mut qhat_mod_qi = Vec::new();
        for (m, &qi) in q.crt().moduli().iter().zip(&params.moduli) {
            let h = low_u64(&(&big_q / qi), qi);
            qhat_mod_qi.push(h);
            qhat_inv.push(m.inv(h).ok_or(Error::InvalidModulus {
                q: qi,
                reason: "moduli not coprime",
            })?);
        }
        let t_mod_p = pm.iter().map(|&x| params.t % x).collect();
        let q_inv_mod_p = p
            .crt()
            .moduli()
            .iter()
            .zip(&pm)
            .map(|(m, &x)| m.inv(low_u64(&big_q, x)).unwrap_or(0))
            .collect();
        let round = round::RoundTables::new(q.crt().moduli(), &qhat_inv, params.t);
        let mut with_special = params.moduli.clone();
        with_special.push(special_value);
        let qs = RnsContext::new(params.n, &with_special)?;
        let l = params.moduli.len();
        let switch = vec![keyswitch::SwitchBasis::new(Arc::clone(&qs), &with_special)?];
        let drops = (2..=l)
            .map(|k| modswitch::DropLimb::new(&q.crt().moduli()[..k]))
            .collect::<Result<_>>()?;
        let mut gadget = Vec::with_capacity(l);
        for (m, &h) in q.crt().moduli().iter().zip(&qhat_mod_qi) {
            gadget.push(m.mul(m.reduce_u64(special_value), h));
        }
        Ok(Bfv {
            qs,
            switch,
            drops,
            gadget,
            slots: slots::SlotEncoder::new(params.n, params.t),
            round,
            lane_isa: round::best_isa(params.n),
            q_to_p: BaseExtender::new(&q, &p)?,
            p_to_q: BaseExtender::new(&p, &q)?,
            params,
            q,
            p,
            qp,
            delta,
            q_mod_t,
            qhat_inv,
            t_mod_p,
            q_inv_mod_p,
        })
    }

    /// The parameters.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// let p = BfvParams::new(16, 30, 3, 257)?;
    /// let bfv = Bfv::new(p.clone())?;
    /// assert_eq!(bfv.params(), &p);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn params(&self) -> &BfvParams {
        &self.params
    }

    /// The ciphertext context (basis `Q`).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// assert_eq!(bfv.context().n(), 16);
    /// assert_eq!(bfv.context().moduli(), &bfv.params().moduli[..]);
    /// assert!(bfv.context().modulus_bits() > 87); // three 30-bit primes
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn context(&self) -> &Arc<RnsContext> {
        &self.q
    }

    /// The auxiliary basis `P` used by multiplication.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let (q, p) = (bfv.context(), bfv.aux_context());
    /// assert!(*p.modulus() > q.modulus() * 257u32 * 16u32); // P > t n Q
    /// assert!(p.moduli().iter().all(|x| !q.moduli().contains(x))); // disjoint from Q
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn aux_context(&self) -> &Arc<RnsContext> {
        &self.p
    }

    fn ntt(mut p: RnsPoly) -> RnsPoly {
        p.to_ntt();
        p
    }

    /// Key generation: secret, public and relinearization keys.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let m: Vec<u64> = (0..16).map(|i| i * 16).collect();
    /// let c = bfv.encrypt(&keys.public, &m, &mut rng)?;
    /// assert_eq!(bfv.decrypt(&keys.secret, &c)?, m);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn keygen(&self, rng: &mut Sampler) -> Result<BfvKeys> {
        // The secret key owns s from the start, so an error return wipes it too.
        let secret = BfvSecretKey {
            s: Self::ntt(rng.ternary_poly(&self.q)),
        };
        self.keygen_with_secret(secret, rng)
    }

    /// Public and relinearization keys for a given secret key of this instance (as
    /// [`Bfv::keygen`] makes them, with `secret` in place of a fresh one): for instance the
    /// keys of a lower modulus ([`Bfv::lower`]) for the secret of the full one
    /// ([`Bfv::secret_key_for`]), so that products switched down there can be relinearized.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let sk = bfv.secret_key_from_bytes(&keys.secret.to_bytes())?; // a copy of the secret
    /// let again = bfv.keygen_with_secret(sk, &mut rng)?;
    /// let c = bfv.encrypt(&again.public, &[3; 16], &mut rng)?;
    /// assert_eq!(bfv.decrypt(&keys.secret, &c)?, vec![3; 16]); // the same secret
    /// let other = Bfv::new(BfvParams::new(16, 30, 2, 257)?)?;
    /// assert!(other.keygen_with_secret(again.secret, &mut rng).is_err()); // another instance's key
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn keygen_with_secret(&self, secret: BfvSecretKey, rng: &mut Sampler) -> Result<BfvKeys> {
        self.check_key_ctx(&secret.s)?;
        let s = &secret.s;
        let pk_seed = rng.next_seed();
        let a = self
            .expand_key_a(&pk_seed, &self.q, 1)
            .pop()
            .expect("one polynomial");
        let p0 = self.neg_as_plus_e(&a, s, rng)?;
        let mut s2 = s.mul(s)?;
        let keys = self.switching_key(s, &s2, rng);
        s2.wipe();
        let (b, av, rlk_seed) = keys?;
        Ok(BfvKeys {
            secret,
            public: BfvPublicKey {
                p0,
                p1: a,
                seed: Some(pk_seed),
            },
            relin: BfvRelinKey {
                b,
                a: av,
                seed: Some(rlk_seed),
            },
        })
    }

    /// The uniform parts of a key, `count` polynomials in NTT form in the basis `ctx`, from a
    /// seed: [`Sampler::from_seed`]`(seed)` drawing [`Sampler::uniform_poly_ntt`] `count`
    /// times (the public key's `p_1` over `Q`; a switching key's `a_1, ..., a_L` over
    /// `Q·P_s`). The values are NTT-domain values in the order of [`crate::ntt`], as every
    /// NTT-form encoding of [`crate::serialize`] assumes.
    pub(super) fn expand_key_a(
        &self,
        seed: &[u8; SEED_LEN],
        ctx: &Arc<RnsContext>,
        count: usize,
    ) -> Vec<RnsPoly> {
        let mut expand = Sampler::from_seed(*seed);
        (0..count).map(|_| expand.uniform_poly_ntt(ctx)).collect()
    }

    /// A key-switching key from `from` to `s` (both NTT form, basis `Q`): one pair per prime
    /// of `Q`, in basis `Q·P_s`, `b_i = -(a_i s + e_i) + P_s (Q/q_i) from`, `a_i` uniform. The
    /// relinearization key switches from `s^2`, a Galois key from `s(x^g)`.
    fn switching_key(
        &self,
        s: &RnsPoly,
        from: &RnsPoly,
        rng: &mut Sampler,
    ) -> Result<SwitchingKey> {
        let mut s_qs = self.secret_with_special(s);
        let keys = self.switching_key_qs(&s_qs, from, rng);
        s_qs.wipe();
        keys
    }

    /// `s` (ternary, NTT form, basis `Q`) in basis `Q·P_s`: the limbs of `Q` as they are, the
    /// limb of `P_s` from the coefficients of limb 0 (`{0, 1, q_1 - 1}` to `{0, 1, P_s - 1}`,
    /// branch-free), transformed. The temporaries are wiped.
    fn secret_with_special(&self, s: &RnsPoly) -> RnsPoly {
        let n = self.params.n;
        let mut coeffs = Wiped::new(s.limb(0).to_vec());
        self.q.plans()[0].inverse_unchecked(&mut coeffs);
        // -1 is q_1 - 1 here and P_s - 1 there: add P_s - q_1 (mod 2^64) where x > 1
        let shift = self.qs.moduli()[self.q.len()].wrapping_sub(self.params.moduli[0]);
        let mut data = Vec::with_capacity(self.qs.len() * n);
        data.extend_from_slice(s.residues());
        data.extend(coeffs.iter().map(|&x| {
            let above_one = crate::arith::ct::mask_u64(1u64.wrapping_sub(x) >> 63);
            x.wrapping_add(shift & above_one)
        }));
        let last = self.q.len() * n..;
        self.qs.plans()[self.q.len()].forward_unchecked(&mut data[last]);
        RnsPoly::from_residues_unchecked(&self.qs, data, Representation::Ntt)
    }

    /// [`Self::switching_key`] with `s` already in basis `Q·P_s`. The `a_i` expand from a
    /// fresh seed ([`Self::expand_key_a`]), returned with the key.
    fn switching_key_qs(
        &self,
        s: &RnsPoly,
        from: &RnsPoly,
        rng: &mut Sampler,
    ) -> Result<SwitchingKey> {
        let n = self.params.n;
        let seed = rng.next_seed();
        let av = self.expand_key_a(&seed, &self.qs, self.q.len());
        let mut b = Vec::with_capacity(self.q.len());
        for (i, ai) in av.iter().enumerate() {
            let mut bi = self.neg_as_plus_e_in(&self.qs, ai, s, rng)?;
            // + P_s (Q/q_i) from: zero in every limb but i (in place: no secret copy is left).
            let m = &self.q.crt().moduli()[i];
            let h = self.gadget[i];
            for (d, &x) in bi.residues_mut()[i * n..(i + 1) * n]
                .iter_mut()
                .zip(from.limb(i))
            {
                *d = m.add(*d, m.mul(x, h));
            }
            b.push(bi);
        }
        Ok((b, av, seed))
    }

    /// `-(a s + e)` with a fresh error `e` (NTT form, basis `Q`); the secret temporaries `a s`
    /// and `e` are wiped.
    fn neg_as_plus_e(&self, a: &RnsPoly, s: &RnsPoly, rng: &mut Sampler) -> Result<RnsPoly> {
        self.neg_as_plus_e_in(&self.q, a, s, rng)
    }

    /// [`Self::neg_as_plus_e`] in the basis `ctx` (of `a` and `s`).
    fn neg_as_plus_e_in(
        &self,
        ctx: &Arc<RnsContext>,
        a: &RnsPoly,
        s: &RnsPoly,
        rng: &mut Sampler,
    ) -> Result<RnsPoly> {
        let mut e = Self::ntt(rng.gaussian_poly(ctx, self.params.sigma)?);
        let mut t = a.mul(s)?;
        let sum = t.add_assign(&e);
        e.wipe();
        let out = sum.map(|()| t.neg());
        t.wipe();
        out
    }

    fn check_plain(&self, m: &[u64]) -> Result<()> {
        if m.len() != self.params.n {
            return Err(Error::LengthMismatch {
                expected: self.params.n,
                got: m.len(),
            });
        }
        // The plaintext is secret: fold the range test over all coefficients without a branch,
        // then branch once on the aggregate, declassified (the caller learns it from the
        // `Result`; a rejected plaintext may be located).
        let t = self.params.t;
        let bad = m
            .iter()
            .fold(0u64, |acc, &x| acc | (1 ^ x.overflowing_sub(t).1 as u64));
        if crate::secret::declassify(crate::arith::ct::barrier(bad) == 0) {
            return Ok(());
        }
        if let Some(index) = m.iter().position(|&x| x >= self.params.t) {
            return Err(Error::CoefficientOutOfRange {
                index,
                value: m[index],
                bound: self.params.t,
            });
        }
        Ok(())
    }

    /// `round((Q mod t) m / t)` for `m < t` (below `t`), branch-free: with it, `Δ m` becomes
    /// `round(Q m / t)`. Textbook BFV scales by `Δ = floor(Q/t)` alone, which leaves an error of
    /// `(Q mod t) m / Q` (up to `t^2 / Q`) in every decryption: wrong results once `t^2`
    /// approaches `Q`, as with `t` near `2^32` over one 62-bit prime, whatever the noise.
    #[inline(always)]
    fn round_part(&self, m: u64) -> u64 {
        let (r, mu) = self.q_mod_t;
        let t = self.params.t;
        // r m + floor(t/2) < t^2 < 2^128
        crate::arith::modulus::ct_div_u128(r as u128 * m as u128 + (t / 2) as u128, t, mu) as u64
    }

    /// `round(Q m / t)` in basis `Q`, coefficient form (for tests: the operations add it to a
    /// ciphertext polynomial in place, [`Self::add_scaled_plain`]).
    #[cfg(test)]
    fn scaled_plain(&self, m: &[u64]) -> RnsPoly {
        let zero = vec![0u64; self.params.n * self.q.len()];
        let mut p = RnsPoly::from_residues_unchecked(&self.q, zero, Representation::Coefficient);
        self.add_scaled_plain(&mut p, m, false);
        p
    }

    /// `c0 + round(Q m / t)`, or `c0 - round(Q m / t)` if `subtract`, in place (`c0` in
    /// coefficient form, as every ciphertext polynomial is), each residue of the scaled
    /// plaintext added as it is computed, so the scaled plaintext is never stored. The
    /// rounding parts go through a pooled buffer, wiped after use (the plaintext can be read
    /// off them).
    fn add_scaled_plain(&self, c0: &mut RnsPoly, m: &[u64], subtract: bool) {
        debug_assert_eq!(c0.representation(), Representation::Coefficient);
        let n = self.params.n;
        let mut rounded = scratch::take(n);
        for (o, &x) in rounded.iter_mut().zip(m) {
            *o = self.round_part(x);
        }
        let limbs = c0.residues_mut().chunks_exact_mut(n);
        for ((limb, md), &d) in limbs.zip(self.q.crt().moduli()).zip(&self.delta) {
            let dp = md.shoup(d);
            for ((o, &x), &c) in limb.iter_mut().zip(m).zip(&rounded) {
                let s = scaled_residue(md, (d, dp), x, c);
                *o = if subtract {
                    md.sub(*o, s)
                } else {
                    md.add(*o, s)
                };
            }
        }
        scratch::give_wiped(rounded);
    }

    /// Encrypts a plaintext polynomial (`n` coefficients in `[0, t)`).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// use latpoly::Error;
    /// let m: Vec<u64> = (0..16).map(|i| 256 - i).collect();
    /// let c = bfv.encrypt(&keys.public, &m, &mut rng)?;
    /// assert_eq!(bfv.decrypt(&keys.secret, &c)?, m);
    /// let mut bad = m.clone();
    /// bad[3] = 257; // not below t
    /// assert!(matches!(
    ///     bfv.encrypt(&keys.public, &bad, &mut rng),
    ///     Err(Error::CoefficientOutOfRange { index: 3, value: 257, bound: 257 })
    /// ));
    /// let short = bfv.encrypt(&keys.public, &m[..8], &mut rng);
    /// assert!(matches!(short, Err(Error::LengthMismatch { expected: 16, got: 8 })));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn encrypt(
        &self,
        pk: &BfvPublicKey,
        m: &[u64],
        rng: &mut Sampler,
    ) -> Result<BfvCiphertext> {
        self.check_plain(m)?;
        for k in [&pk.p0, &pk.p1] {
            self.check_key_ctx(k)?;
            if k.representation() != Representation::Ntt {
                return Err(Error::InvalidArgument("public key not in NTT form".into()));
            }
        }
        // Same draws, in the same order, as ternary_poly and gaussian_poly.
        let n = self.params.n;
        let u = Wiped::new(rng.ternary(n)?);
        let e1 = Wiped::new(rng.gaussian(n, self.params.sigma)?);
        let e2 = Wiped::new(rng.gaussian(n, self.params.sigma)?);
        let bound = ((GAUSSIAN_TAIL_CUT * self.params.sigma).ceil() as u64).max(1);
        // Limb by limb: u in NTT form (a pooled buffer, wiped afterwards), the two products,
        // their inverse transforms, then + e1 + [Q m / t] and + e2 in coefficient form.
        let l = self.q.len();
        let (mut c0, mut c1) = (vec![0u64; l * n], vec![0u64; l * n]);
        let mut un = scratch::take(n);
        let rounded = Wiped::new(m.iter().map(|&x| self.round_part(x)).collect::<Vec<u64>>());
        let moduli = self.q.crt().moduli();
        for (j, (md, plan)) in moduli.iter().zip(self.q.plans()).enumerate() {
            let r = j * n..(j + 1) * n;
            for (o, &c) in un.iter_mut().zip(u.iter()) {
                *o = small_residue(md, c, 1);
            }
            plan.forward_unchecked(&mut un);
            plan.pointwise_unchecked(&pk.p0.residues()[r.clone()], &un, &mut c0[r.clone()]);
            plan.pointwise_unchecked(&pk.p1.residues()[r.clone()], &un, &mut c1[r.clone()]);
            plan.inverse_unchecked(&mut c0[r.clone()]);
            plan.inverse_unchecked(&mut c1[r.clone()]);
            let (d, dp) = (self.delta[j], md.shoup(self.delta[j]));
            for (((((o0, o1), &x), &a), &b), &c) in c0[r.clone()]
                .iter_mut()
                .zip(&mut c1[r.clone()])
                .zip(m)
                .zip(e1.iter())
                .zip(e2.iter())
                .zip(rounded.iter())
            {
                let dm = scaled_residue(md, (d, dp), x, c);
                *o0 = md.add(md.add(*o0, small_residue(md, a, bound)), dm);
                *o1 = md.add(*o1, small_residue(md, b, bound));
            }
        }
        scratch::give_wiped(un);
        Ok(BfvCiphertext {
            c: vec![
                RnsPoly::from_residues_unchecked(&self.q, c0, Representation::Coefficient),
                RnsPoly::from_residues_unchecked(&self.q, c1, Representation::Coefficient),
            ],
        })
    }

    /// A ciphertext from its polynomials, as [`BfvCiphertext::parts`] gives them (for example
    /// after storing or sending each with [`RnsPoly::to_bytes`]): 2 or 3 of them
    /// ([`Error::InvalidArgument`] otherwise), each of this instance's context
    /// ([`Error::ContextMismatch`] otherwise). Parts in NTT form are brought to coefficient
    /// form.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::rns::RnsPoly;
    /// use latpoly::sampling::Sampler;
    /// use latpoly::Error;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([3; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let c = bfv.encrypt(&keys.public, &[7; 16], &mut rng)?;
    /// // serialize, then rebuild
    /// let bytes: Vec<Vec<u8>> = c.parts().iter().map(|p| p.to_bytes()).collect();
    /// let parts = bytes
    ///     .iter()
    ///     .map(|b| RnsPoly::from_bytes_in(bfv.context(), b))
    ///     .collect::<Result<Vec<_>, _>>()?;
    /// let back = bfv.ciphertext_from_parts(parts)?;
    /// assert_eq!(bfv.decrypt(&keys.secret, &back)?, vec![7; 16]);
    /// // one polynomial is not a ciphertext; a polynomial of another instance is refused
    /// assert!(matches!(
    ///     bfv.ciphertext_from_parts(vec![c.parts()[0].clone()]),
    ///     Err(Error::InvalidArgument(_))
    /// ));
    /// let other = Bfv::new(BfvParams::new(16, 30, 2, 257)?)?; // a Q of two primes
    /// assert!(matches!(
    ///     other.ciphertext_from_parts(c.parts().to_vec()),
    ///     Err(Error::ContextMismatch)
    /// ));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn ciphertext_from_parts(&self, parts: Vec<RnsPoly>) -> Result<BfvCiphertext> {
        let mut c = BfvCiphertext { c: parts };
        self.check_ct(&c)?;
        for p in &mut c.c {
            if p.representation() == Representation::Ntt {
                p.to_coeff();
            }
        }
        Ok(c)
    }

    fn check_key_ctx(&self, p: &RnsPoly) -> Result<()> {
        if !p.context().same_as(&self.q) {
            return Err(Error::ContextMismatch);
        }
        Ok(())
    }

    fn check_ct(&self, c: &BfvCiphertext) -> Result<()> {
        if c.c.len() < 2 || c.c.len() > 3 {
            return Err(Error::InvalidArgument(format!(
                "a ciphertext has 2 or 3 polynomials, got {}",
                c.c.len()
            )));
        }
        for p in &c.c {
            self.check_key_ctx(p)?;
        }
        Ok(())
    }

    /// `c_0 + c_1 s (+ c_2 s^2)` in coefficient form.
    fn phase(&self, sk: &BfvSecretKey, c: &BfvCiphertext) -> Result<Vec<u64>> {
        self.check_ct(c)?;
        self.check_key_ctx(&sk.s)?;
        // Pooled buffers (the result too; callers give it back with `give_wiped`): fresh
        // 100s-of-kB allocations cost more in page faults than the arithmetic. c_0 stays in
        // coefficient form: only c_1 (and c_2) go through the NTT.
        let (n, l) = (self.params.n, self.q.len());
        let plans = self.q.plans();
        let s_res = sk.s.residues();
        let mut x = scratch::take(l * n);
        let mut acc = scratch::take(l * n);
        let c1 = Self::coeff_residues(&c.c[1]);
        let c2 = c.c.get(2).map(|p| Self::coeff_residues(p));
        let s2 = if c2.is_some() {
            Some(sk.s.mul(&sk.s)?)
        } else {
            None
        };
        for (j, plan) in plans.iter().enumerate() {
            let r = j * n..(j + 1) * n;
            x[r.clone()].copy_from_slice(&c1[r.clone()]);
            plan.forward_unchecked(&mut x[r.clone()]);
            plan.pointwise_unchecked(&x[r.clone()], &s_res[r.clone()], &mut acc[r.clone()]);
            if let (Some(c2), Some(s2)) = (&c2, &s2) {
                x[r.clone()].copy_from_slice(&c2[r.clone()]);
                plan.forward_unchecked(&mut x[r.clone()]);
                plan.pointwise_acc_unchecked(
                    &x[r.clone()],
                    &s2.residues()[r.clone()],
                    &mut acc[r.clone()],
                );
            }
            plan.inverse_unchecked(&mut acc[r.clone()]);
        }
        let c0 = Self::coeff_residues(&c.c[0]);
        for (j, plan) in plans.iter().enumerate() {
            let r = j * n..(j + 1) * n;
            plan.add_assign_unchecked(&mut acc[r.clone()], &c0[r]);
        }
        scratch::give_wiped(x);
        if let Some(mut s2) = s2 {
            s2.wipe();
        }
        Ok(acc)
    }

    /// Decrypts to the plaintext polynomial (`n` coefficients in `[0, t)`).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let m: Vec<u64> = (0..16).map(|i| (i * i) % 257).collect();
    /// let c = bfv.encrypt(&keys.public, &m, &mut rng)?;
    /// assert_eq!(bfv.decrypt(&keys.secret, &c)?, m);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn decrypt(&self, sk: &BfvSecretKey, c: &BfvCiphertext) -> Result<Vec<u64>> {
        let x = self.phase(sk, c)?;
        let out = self.scale_and_round(&x);
        scratch::give_wiped(x);
        Ok(out)
    }

    /// `round(t x / Q) mod t` for `x` in basis `Q` (coefficient form), branch-free in `x`.
    ///
    /// With `y_i = [x_i (Q/q_i)^-1]_{q_i}`, `t x / Q ≡ Σ y_i t / q_i (mod t)`; `y_i t` splits into
    /// `α_i q_i + β_i`: the `α_i` are summed as integers, the `β_i / q_i` in floating point
    /// (absolute error below `L (L + 3) 2^-53`), and the sum is reduced mod `t` by masked
    /// subtractions. When `t` is below every prime and `4 L t < 2^63` (every common parameter
    /// set), the kernels of [`round`] run it in 64-bit lanes (SIMD where the CPU has it, the
    /// same output on every backend); otherwise (below) the split is a 128-bit Barrett
    /// division, the sums are 128-bit, and the total, below `(L + 1) t`, takes `⌈log2(L+1)⌉`
    /// masked subtractions.
    fn scale_and_round(&self, x: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; self.params.n];
        if let Some(tb) = &self.round {
            round::run(self.lane_isa, tb, x, &mut out);
            return out;
        }
        use crate::arith::ct::mask_u64;
        let n = self.params.n;
        let t = self.params.t;
        let moduli = self.q.crt().moduli();
        // v < (L + 1) t <= 2^steps t: subtract t 2^j where it fits, j = steps - 1, ..., 0.
        let steps = usize::BITS - moduli.len().leading_zeros();
        let finish = |a: u128, f: f64| -> u64 {
            // f >= 0, so adding 0.5 and truncating rounds to nearest.
            let mut v = a + (f + 0.5) as u64 as u128;
            for j in (0..steps).rev() {
                let (d, borrow) = v.overflowing_sub((t as u128) << j);
                let keep = mask_u64(borrow as u64) as u128;
                let keep = keep | keep << 64;
                v = (v & keep) | (d & !keep);
            }
            v as u64
        };
        let mut int_part = vec![0u128; n];
        let mut frac = vec![0.0f64; n];
        for (i, m) in moduli.iter().enumerate() {
            let (h, hp) = (self.qhat_inv[i], m.shoup(self.qhat_inv[i]));
            let inv = 1.0 / m.value() as f64;
            for ((ip, f), &xi) in int_part
                .iter_mut()
                .zip(frac.iter_mut())
                .zip(&x[i * n..(i + 1) * n])
            {
                let y = m.mul_shoup(xi, h, hp);
                let (alpha, beta) = m.div_rem_u128(y as u128 * t as u128);
                *ip += alpha;
                *f += beta as i64 as f64 * inv;
            }
        }
        for ((o, &a), &f) in out.iter_mut().zip(&int_part).zip(&frac) {
            *o = finish(a, f);
        }
        out
    }

    /// Invariant noise budget in bits: `log2(Q) - log2(2 ||[t (c_0 + c_1 s)]_Q||_∞) - 1` (0 when
    /// decryption may fail). Uses exact big-integer CRT (a diagnostic, not a hot path). As in
    /// other libraries, the measure is meaningful only while the noise is below `Q / 2t`: a
    /// ciphertext whose noise has wrapped around modulo `Q` may read a positive budget and
    /// still decrypt wrongly.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let c = bfv.encrypt(&keys.public, &[1; 16], &mut rng)?;
    /// let fresh = bfv.noise_budget(&keys.secret, &c)?;
    /// let sq = bfv.multiply_relin(&c, &c, &keys.relin)?;
    /// let after = bfv.noise_budget(&keys.secret, &sq)?;
    /// assert!(fresh > after && after > 0); // a product spends budget but still decrypts
    /// assert!(fresh < 90 - 8); // at most log2(Q / t) bits
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn noise_budget(&self, sk: &BfvSecretKey, c: &BfvCiphertext) -> Result<u32> {
        let ph = self.phase(sk, c)?;
        let mut x =
            RnsPoly::from_residues_unchecked(&self.q, ph.clone(), Representation::Coefficient);
        scratch::give_wiped(ph);
        // t as an integer of any size: `t as i64` was negative from 2^63 on (budget 0).
        let mut tx = x.scalar_mul(&BigInt::from(self.params.t));
        x.wipe();
        // `tx` and `c_1` give `s` away (`t` and, in NTT form, `c_1` are invertible): wiped.
        // The big integers of the lift cannot be wiped (`num-bigint` owns their memory).
        let worst = tx
            .to_centered_bigints()
            .into_iter()
            .map(|v| v.abs())
            .max()
            .unwrap_or_else(BigInt::zero);
        tx.wipe();
        let qbits = self.q.modulus().bits() as i64;
        let nbits = if worst.is_zero() {
            0
        } else {
            worst.bits() as i64
        };
        Ok((qbits - nbits - 2).max(0) as u32)
    }

    /// Homomorphic addition.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let (m1, m2) = (vec![200u64; 16], vec![100u64; 16]);
    /// let c1 = bfv.encrypt(&keys.public, &m1, &mut rng)?;
    /// let c2 = bfv.encrypt(&keys.public, &m2, &mut rng)?;
    /// let s = bfv.add(&c1, &c2)?;
    /// assert_eq!(bfv.decrypt(&keys.secret, &s)?, vec![43; 16]); // 300 mod 257
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn add(&self, a: &BfvCiphertext, b: &BfvCiphertext) -> Result<BfvCiphertext> {
        self.zip_cts(a, b, RnsPoly::add, RnsPoly::clone)
    }

    /// `both(a_i, b_i)` for the polynomials both ciphertexts have; `a_i`, or `lone_b(b_i)`, for
    /// those only the longer one has.
    fn zip_cts(
        &self,
        a: &BfvCiphertext,
        b: &BfvCiphertext,
        both: impl Fn(&RnsPoly, &RnsPoly) -> Result<RnsPoly>,
        lone_b: impl Fn(&RnsPoly) -> RnsPoly,
    ) -> Result<BfvCiphertext> {
        self.check_ct(a)?;
        self.check_ct(b)?;
        let len = a.c.len().max(b.c.len());
        let mut c = Vec::with_capacity(len);
        for i in 0..len {
            c.push(match (a.c.get(i), b.c.get(i)) {
                (Some(x), Some(y)) => both(x, y)?,
                (Some(x), None) => x.clone(),
                (None, Some(y)) => lone_b(y),
                (None, None) => unreachable_zero(&self.q),
            });
        }
        Ok(BfvCiphertext { c })
    }

    /// Homomorphic subtraction.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let c1 = bfv.encrypt(&keys.public, &[5; 16], &mut rng)?;
    /// let c2 = bfv.encrypt(&keys.public, &[7; 16], &mut rng)?;
    /// let d = bfv.sub(&c1, &c2)?;
    /// assert_eq!(bfv.decrypt(&keys.secret, &d)?, vec![255; 16]); // -2 mod 257
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn sub(&self, a: &BfvCiphertext, b: &BfvCiphertext) -> Result<BfvCiphertext> {
        self.zip_cts(a, b, RnsPoly::sub, RnsPoly::neg)
    }

    /// Adds a plaintext.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let c = bfv.encrypt(&keys.public, &[10; 16], &mut rng)?;
    /// let mut p = vec![0u64; 16];
    /// p[0] = 250;
    /// let s = bfv.add_plain(&c, &p)?;
    /// let mut want = vec![10u64; 16];
    /// want[0] = 3; // 260 mod 257
    /// assert_eq!(bfv.decrypt(&keys.secret, &s)?, want);
    /// assert!(bfv.add_plain(&c, &[257; 16]).is_err()); // plaintext not below t
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn add_plain(&self, a: &BfvCiphertext, m: &[u64]) -> Result<BfvCiphertext> {
        self.check_ct(a)?;
        self.check_plain(m)?;
        let mut c = a.c.clone();
        self.add_scaled_plain(&mut c[0], m, false);
        Ok(BfvCiphertext { c })
    }

    /// Subtracts a plaintext: decrypts to `m - p mod t` for a ciphertext of `m` and a
    /// plaintext `p` (`n` coefficients in `[0, t)`). The plaintext is scaled as
    /// [`Self::encrypt`] scales it (`round(Q p / t)`), so the noise moves by at most 1/2, as
    /// with [`Self::add_plain`]. Errors: those of [`Self::add_plain`].
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let c = bfv.encrypt(&keys.public, &[10; 16], &mut rng)?;
    /// let mut p = vec![0u64; 16];
    /// p[0] = 12;
    /// let d = bfv.sub_plain(&c, &p)?;
    /// let mut want = vec![10u64; 16];
    /// want[0] = 255; // -2 mod 257
    /// assert_eq!(bfv.decrypt(&keys.secret, &d)?, want);
    /// assert!(bfv.sub_plain(&c, &[1; 15]).is_err()); // not n coefficients
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn sub_plain(&self, a: &BfvCiphertext, m: &[u64]) -> Result<BfvCiphertext> {
        self.check_ct(a)?;
        self.check_plain(m)?;
        let mut c = a.c.clone();
        self.add_scaled_plain(&mut c[0], m, true);
        Ok(BfvCiphertext { c })
    }

    /// Homomorphic negation: decrypts to `-m mod t`. Every polynomial is negated, so it works
    /// on 2- and 3-polynomial ciphertexts alike, and the noise does not grow. Errors: a
    /// ciphertext of another instance ([`Error::ContextMismatch`]) or of the wrong length
    /// ([`Error::InvalidArgument`]), as for [`Self::add`].
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let m: Vec<u64> = (0..16).collect();
    /// let c = bfv.encrypt(&keys.public, &m, &mut rng)?;
    /// let neg = bfv.decrypt(&keys.secret, &bfv.negate(&c)?)?;
    /// assert_eq!(neg, m.iter().map(|&x| (257 - x) % 257).collect::<Vec<_>>());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn negate(&self, a: &BfvCiphertext) -> Result<BfvCiphertext> {
        self.check_ct(a)?;
        Ok(BfvCiphertext {
            c: a.c.iter().map(RnsPoly::neg).collect(),
        })
    }

    /// Product by a plaintext polynomial (`n` coefficients in `[0, t)`): decrypts to the product
    /// of the two plaintexts in `R_t`. With batching ([`Self::batching`]) that is the slot-wise
    /// product by [`Self::encode_slots`] of a vector. Works on 2- and 3-polynomial ciphertexts;
    /// the plaintext is used with centred coefficients in `(-t/2, t/2]`, so the noise grows by
    /// at most about `n t / 2` times, less for sparse or small plaintexts.
    ///
    /// Errors: those of [`Self::add_plain`].
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 40, 3, 97)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let x: Vec<u64> = (0..16).collect();
    /// let w: Vec<u64> = (0..16).map(|i| 96 - i).collect(); // public weights, -1 - i mod 97
    /// let c = bfv.encrypt(&keys.public, &bfv.encode_slots(&x)?, &mut rng)?;
    /// let p = bfv.multiply_plain(&c, &bfv.encode_slots(&w)?)?;
    /// let got = bfv.decode_slots(&bfv.decrypt(&keys.secret, &p)?)?;
    /// assert_eq!(got, x.iter().zip(&w).map(|(a, b)| a * b % 97).collect::<Vec<_>>());
    /// // coefficient plaintexts: the product in Z_t[x]/(x^n + 1)
    /// let m: Vec<u64> = (0..16).map(|i| i * 5 % 97).collect();
    /// let d = bfv.decrypt(&keys.secret, &bfv.multiply_plain(&bfv.encrypt(&keys.public, &m, &mut rng)?, &x)?)?;
    /// assert_eq!(d, bfv.plain_mul(&m, &x)?);
    /// assert!(bfv.multiply_plain(&c, &[97; 16]).is_err()); // not below t
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn multiply_plain(&self, a: &BfvCiphertext, m: &[u64]) -> Result<BfvCiphertext> {
        self.check_ct(a)?;
        self.check_plain(m)?;
        let n = self.params.n;
        let mut data = vec![0u64; n * self.q.len()];
        for (limb, md) in data.chunks_exact_mut(n).zip(self.q.crt().moduli()) {
            for (o, &x) in limb.iter_mut().zip(m) {
                *o = self.centred_residue(md, x);
            }
        }
        let mut mp = RnsPoly::from_residues_unchecked(&self.q, data, Representation::Coefficient);
        mp.to_ntt();
        let c =
            a.c.iter()
                .map(|ci| ci.multiply(&mp))
                .collect::<Result<Vec<_>>>();
        mp.wipe();
        Ok(BfvCiphertext { c: c? })
    }

    /// Product by a plaintext constant `k` in `[0, t)`: decrypts to `k m mod t` (with
    /// batching, every slot times `k`). The constant is used centred, in `(-t/2, t/2]`, so the
    /// noise grows by at most `t / 2` times, by `|k|` times for a small `k`. The ciphertext is
    /// the one [`Self::multiply_plain`] gives for the plaintext polynomial `k` (the constant
    /// term `k`, every other coefficient 0), without the transforms: one product per residue.
    /// Works on 2- and 3-polynomial ciphertexts. Errors: `k >= t`
    /// ([`Error::CoefficientOutOfRange`]) and a ciphertext of another instance, as for
    /// [`Self::add`].
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 40, 3, 97)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let m: Vec<u64> = (0..16).collect();
    /// let c = bfv.encrypt(&keys.public, &m, &mut rng)?;
    /// let p = bfv.multiply_scalar(&c, 95)?; // -2 mod 97
    /// let want: Vec<u64> = m.iter().map(|&x| x * 95 % 97).collect();
    /// assert_eq!(bfv.decrypt(&keys.secret, &p)?, want);
    /// let mut k = vec![0u64; 16];
    /// k[0] = 95;
    /// let same = bfv.multiply_plain(&c, &k)?; // the same ciphertext
    /// assert!(p.parts().iter().zip(same.parts()).all(|(x, y)| x.residues() == y.residues()));
    /// assert!(bfv.multiply_scalar(&c, 97).is_err()); // not below t
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn multiply_scalar(&self, a: &BfvCiphertext, k: u64) -> Result<BfvCiphertext> {
        self.check_ct(a)?;
        // the constant may be secret: the branch is on the verdict alone
        if crate::secret::declassify(k.overflowing_sub(self.params.t).1 as u64 == 0) {
            return Err(Error::CoefficientOutOfRange {
                index: 0,
                value: k,
                bound: self.params.t,
            });
        }
        // k can be read off its residues: wiped on drop
        let w = Wiped::new(
            self.q
                .crt()
                .moduli()
                .iter()
                .map(|md| self.centred_residue(md, k))
                .collect::<Vec<u64>>(),
        );
        let c = a.c.iter().map(|ci| ci.scalar_mul_residues(&w)).collect();
        Ok(BfvCiphertext { c })
    }

    /// `x` in `[0, t)` as an element of `(-t/2, t/2]`, mod `md`: `x - t` for `x` above
    /// `t / 2` (branch-free: a plaintext may be secret).
    #[inline]
    fn centred_residue(&self, md: &crate::arith::Modulus64, x: u64) -> u64 {
        let t = self.params.t;
        let mask = crate::arith::ct::mask_u64((t / 2).overflowing_sub(x).1 as u64);
        let pos = md.reduce_u64(x);
        let neg = md.neg(md.reduce_u64(t - x));
        (pos & !mask) | (neg & mask)
    }

    /// Exact centred lift of a basis-`Q` polynomial to `Q·P`, NTT form.
    /// The coefficient-form residues of a ciphertext polynomial (ciphertexts are kept in
    /// coefficient form; anything else is converted).
    fn coeff_residues(c: &RnsPoly) -> std::borrow::Cow<'_, [u64]> {
        if c.representation() == Representation::Coefficient {
            std::borrow::Cow::Borrowed(c.residues())
        } else {
            let mut x = c.clone();
            x.to_coeff();
            std::borrow::Cow::Owned(x.residues().to_vec())
        }
    }

    /// Lifts `c` exactly (centred) from `Q` to `Q·P` into `buf`, in NTT form.
    fn lift_into(&self, c: &RnsPoly, buf: &mut [u64]) {
        let nq = self.params.n * self.q.len();
        let src = Self::coeff_residues(c);
        buf[..nq].copy_from_slice(&src);
        self.q_to_p.extend_exact_into(&src, true, &mut buf[nq..]);
        for (limb, plan) in buf.chunks_exact_mut(self.params.n).zip(self.qp.plans()) {
            plan.forward_unchecked(limb);
        }
    }

    /// `round(t e / Q)` in basis `Q`, for `e` in basis `Q·P` (coefficient form), into `out`:
    /// `(t e - [t e]_Q) / Q` exactly in basis `P` (with `[t e]_Q` extended from `Q`, the
    /// factor `t` folded into the extension), then brought back to `Q` by exact extension.
    fn scale_down_into(&self, e: &[u64], out: &mut [u64]) {
        let n = self.params.n;
        let t = self.params.t;
        let (q_part, p_part) = e.split_at(self.q.len() * n);
        let mut r = scratch::take(self.p.len() * n);
        self.q_to_p
            .extend_exact_scaled_into(q_part, t, true, &mut r);
        let isa = self.lane_isa;
        for (k, m) in self.p.crt().moduli().iter().enumerate() {
            let (tk, qinv) = (self.t_mod_p[k], self.q_inv_mod_p[k]);
            let (tkp, qinvp) = (m.shoup(tk), m.shoup(qinv));
            let (x, rk) = (&p_part[k * n..(k + 1) * n], &mut r[k * n..(k + 1) * n]);
            // The SIMD twin gives the same residues.
            convert_simd::mul_sub_mul_any(isa, m, [(tk, tkp), (qinv, qinvp)], x, rk);
        }
        self.p_to_q.extend_exact_into(&r, true, out);
        scratch::give(r);
    }

    /// Homomorphic product without relinearization (a 3-polynomial ciphertext).
    ///
    /// A square (`a` and `b` the same ciphertext, one reference or equal copies) lifts two
    /// polynomials to `Q·P` instead of four: about a fifth less time at `n = 8192`
    /// (`examples/bfv_bench`, Intel Emerald Rapids: 3.0 ms against 3.8).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let mut m1 = vec![0u64; 16];
    /// m1[15] = 2; // 2 x^15
    /// let mut m2 = vec![0u64; 16];
    /// m2[1] = 3; // 3 x
    /// let c1 = bfv.encrypt(&keys.public, &m1, &mut rng)?;
    /// let c2 = bfv.encrypt(&keys.public, &m2, &mut rng)?;
    /// let c3 = bfv.multiply(&c1, &c2)?; // 6 x^16 = -6
    /// assert_eq!(c3.len(), 3);
    /// let mut want = vec![0u64; 16];
    /// want[0] = 257 - 6;
    /// assert_eq!(bfv.decrypt(&keys.secret, &c3)?, want);
    /// assert!(bfv.multiply(&c3, &c1).is_err()); // relinearize first
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn multiply(&self, a: &BfvCiphertext, b: &BfvCiphertext) -> Result<BfvCiphertext> {
        self.check_product_operands(a, b)?;
        let len = self.q.len() * self.params.n;
        let mut c = [vec![0u64; len], vec![0u64; len], vec![0u64; len]];
        self.tensor_into(a, b, &mut c);
        let c = c
            .into_iter()
            .map(|r| RnsPoly::from_residues_unchecked(&self.q, r, Representation::Coefficient))
            .collect();
        Ok(BfvCiphertext { c })
    }

    /// The checks of [`Self::multiply`]: two ciphertexts of this instance, 2 polynomials each.
    fn check_product_operands(&self, a: &BfvCiphertext, b: &BfvCiphertext) -> Result<()> {
        self.check_ct(a)?;
        self.check_ct(b)?;
        if a.c.len() != 2 || b.c.len() != 2 {
            return Err(Error::InvalidArgument(
                "multiply takes 2-polynomial ciphertexts: relinearize first".into(),
            ));
        }
        Ok(())
    }

    /// The product's three polynomials (coefficient-form residues in basis `Q`, `Q.len() · n`
    /// words each) into `out`, for checked operands.
    fn tensor_into(&self, a: &BfvCiphertext, b: &BfvCiphertext, out: &mut [Vec<u64>; 3]) {
        // A square (the same ciphertext twice, by reference or by value) lifts two
        // polynomials instead of four: half the lifts and forward transforms of a product.
        self.tensor_with(a, b, same_ciphertext(a, b), out);
    }

    /// [`Self::tensor_into`], lifting `a`'s polynomials only (for `b`'s too) when `square`
    /// (which requires `a` and `b` to be the same ciphertext).
    fn tensor_with(
        &self,
        a: &BfvCiphertext,
        b: &BfvCiphertext,
        square: bool,
        out: &mut [Vec<u64>; 3],
    ) {
        let n = self.params.n;
        let len = self.qp.len() * n;
        let operands: &[&RnsPoly] = if square {
            &[&a.c[0], &a.c[1]]
        } else {
            &[&a.c[0], &a.c[1], &b.c[0], &b.c[1]]
        };
        // The operands lifted to Q·P (NTT form); temporaries come from the scratch pool
        // (ciphertexts are public).
        let lifted: Vec<Vec<u64>> = operands
            .iter()
            .map(|c| {
                let mut buf = scratch::take(len);
                self.lift_into(c, &mut buf);
                buf
            })
            .collect();
        let bi = if square { 0 } else { 2 };
        let (mut e0, mut e1, mut e2) = (scratch::take(len), scratch::take(len), scratch::take(len));
        for (i, plan) in self.qp.plans().iter().enumerate() {
            let r = i * n..(i + 1) * n;
            let (a0, a1) = (&lifted[0][r.clone()], &lifted[1][r.clone()]);
            let (b0, b1) = (&lifted[bi][r.clone()], &lifted[bi + 1][r.clone()]);
            plan.pointwise_unchecked(a0, b0, &mut e0[r.clone()]);
            plan.pointwise_unchecked(a0, b1, &mut e1[r.clone()]);
            plan.pointwise_acc_unchecked(a1, b0, &mut e1[r.clone()]);
            plan.pointwise_unchecked(a1, b1, &mut e2[r.clone()]);
            for e in [&mut e0, &mut e1, &mut e2] {
                plan.inverse_unchecked(&mut e[r.clone()]);
            }
        }
        lifted.into_iter().for_each(scratch::give);
        for (e, o) in [e0, e1, e2].into_iter().zip(out.iter_mut()) {
            self.scale_down_into(&e, o);
            scratch::give(e);
        }
    }

    /// Relinearizes a 3-polynomial ciphertext back to 2 polynomials.
    ///
    /// Key switching with the special prime `P_s` (see the module documentation): it adds
    /// noise of about `σ sqrt(n L / 12)` on any basis.
    ///
    /// The key is this instance's, or that of an instance this one was lowered from
    /// ([`Bfv::lower`]).
    ///
    /// Errors: [`Error::InvalidArgument`] for a key of other parameters, or parameters whose
    /// `Q / t` leaves no room for even that noise.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let c = bfv.encrypt(&keys.public, &[3; 16], &mut rng)?;
    /// let c3 = bfv.multiply(&c, &c)?;
    /// let c2 = bfv.relinearize(&c3, &keys.relin)?;
    /// assert_eq!(c2.len(), 2);
    /// assert_eq!(bfv.decrypt(&keys.secret, &c2)?, bfv.plain_mul(&[3; 16], &[3; 16])?);
    /// assert_eq!(bfv.relinearize(&c, &keys.relin)?.len(), 2); // 2 parts: unchanged
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn relinearize(&self, c: &BfvCiphertext, rlk: &BfvRelinKey) -> Result<BfvCiphertext> {
        self.check_ct(c)?;
        if c.c.len() == 2 {
            return Ok(c.clone());
        }
        let basis = self.switch_basis(&rlk.b, &rlk.a, "relinearization key")?;
        // Key switching accumulates Σ D_i rlk_i in NTT form; c_0 and c_1 are added afterwards
        // in coefficient form (no transforms for them).
        let c2 = Self::coeff_residues(&c.c[2]);
        let acc = self.key_switch(basis, &c2, &rlk.b, &rlk.a);
        let (c0, c1) = (Self::coeff_residues(&c.c[0]), Self::coeff_residues(&c.c[1]));
        Ok(self.finish_switch(basis, acc, [Some(&c0), Some(&c1)]))
    }

    /// Product followed by relinearization: the same ciphertext as [`Self::relinearize`] of
    /// [`Self::multiply`], computed without materialising the 3-polynomial product (its
    /// polynomials and the key switch's accumulators are pooled per-thread temporaries, so the
    /// two result polynomials are its only polynomial-sized fresh allocations). Squares take
    /// the shorter path of [`Self::multiply`]. Errors as those two calls, in their order.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let (m1, m2): (Vec<u64>, Vec<u64>) = ((0..16).collect(), (0..16).rev().collect());
    /// let c1 = bfv.encrypt(&keys.public, &m1, &mut rng)?;
    /// let c2 = bfv.encrypt(&keys.public, &m2, &mut rng)?;
    /// let p = bfv.multiply_relin(&c1, &c2, &keys.relin)?;
    /// assert_eq!(p.len(), 2);
    /// assert_eq!(bfv.decrypt(&keys.secret, &p)?, bfv.plain_mul(&m1, &m2)?);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn multiply_relin(
        &self,
        a: &BfvCiphertext,
        b: &BfvCiphertext,
        rlk: &BfvRelinKey,
    ) -> Result<BfvCiphertext> {
        self.check_product_operands(a, b)?;
        let basis = self.switch_basis(&rlk.b, &rlk.a, "relinearization key")?;
        // The three product polynomials are temporaries here: they live in the scratch pool,
        // and the two result polynomials are the only polynomial-sized fresh allocations.
        let len = self.q.len() * self.params.n;
        let mut c = [scratch::take(len), scratch::take(len), scratch::take(len)];
        self.tensor_into(a, b, &mut c);
        let acc = self.key_switch(basis, &c[2], &rlk.b, &rlk.a);
        let out = self.finish_switch(basis, acc, [Some(&c[0]), Some(&c[1])]);
        c.into_iter().for_each(scratch::give);
        Ok(out)
    }

    /// The plaintext-ring product `a·b mod (x^n + 1, t)` (a reference for tests and callers).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut a = vec![0u64; 16];
    /// a[0] = 1;
    /// a[1] = 1; // 1 + x
    /// let mut b = vec![0u64; 16];
    /// b[15] = 1; // x^15
    /// let mut want = vec![0u64; 16];
    /// want[0] = 256; // x^16 = -1
    /// want[15] = 1;
    /// assert_eq!(bfv.plain_mul(&a, &b)?, want);
    /// assert!(bfv.plain_mul(&a, &[0; 8]).is_err());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn plain_mul(&self, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
        self.check_plain(a)?;
        self.check_plain(b)?;
        let n = self.params.n;
        let t = self.params.t as u128;
        let mut out = vec![0u128; n];
        for (i, &x) in a.iter().enumerate() {
            if x == 0 {
                continue;
            }
            for (j, &y) in b.iter().enumerate() {
                let p = x as u128 * y as u128 % t;
                let k = i + j;
                if k < n {
                    out[k] = (out[k] + p) % t;
                } else {
                    out[k - n] = (out[k - n] + t - p) % t;
                }
            }
        }
        Ok(out.into_iter().map(|v| v as u64).collect())
    }
}

/// Width of the auxiliary primes `P` of the product for degree `n` and `P` of at least
/// `need` bits: 50 bits (below `2^50`) where the best backend this CPU runs for such primes
/// under `LATPOLY_ISA` is AVX-512 IFMA, whose transforms of them took 0.44 of the time of
/// those of 60-bit primes in 64-bit lanes on an Intel host and about 0.6 on AMD Zen 4 (W1-eq
/// against W1), for about a fifth more primes (seven transforms a prime per product); 61 bits
/// otherwise, and also where 50-bit primes would take the conversion from `P` past the
/// vector kernel's source count ([`convert_simd::MAX_SOURCES`]) while 61-bit ones would not.
/// `P` only needs `P > t n Q`, and the product is exact, so the ciphertexts are the same
/// either way.
fn aux_prime_bits(n: usize, need: u64) -> u32 {
    let best = crate::NttPlan::available_isas(n, (1 << 49) + 1)
        .into_iter()
        .find(|&i| Isa::env_cap().is_none_or(|c| c >= i));
    let fits = |bits: u64| need.div_ceil(bits - 1) <= convert_simd::MAX_SOURCES as u64;
    if best == Some(Isa::Avx512Ifma) && (fits(50) || !fits(61)) {
        50
    } else {
        61
    }
}

/// Whether `a` and `b` are the same ciphertext: one reference, or equal parts (same
/// representation and residues). Public data, so the early exit of the comparison leaks
/// nothing; two different ciphertexts almost always differ in their first residues.
fn same_ciphertext(a: &BfvCiphertext, b: &BfvCiphertext) -> bool {
    std::ptr::eq(a, b)
        || (a.c.len() == b.c.len()
            && a.c.iter().zip(&b.c).all(|(x, y)| {
                x.representation() == y.representation() && x.residues() == y.residues()
            }))
}

/// Zero polynomial (the `add` arm that cannot be reached with validated ciphertexts).
fn unreachable_zero(ctx: &Arc<RnsContext>) -> RnsPoly {
    RnsPoly::zero(ctx, Representation::Coefficient)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `multiply_relin` and `relinearize` overwrite every pooled buffer they read: with every
    /// buffer of the per-thread pool filled with all-ones words first, the product is the
    /// same, residue for residue, and decrypts to the plaintext product.
    #[test]
    fn pooled_buffers_contents_never_leak_into_results() {
        let bfv = Bfv::new(BfvParams::new(64, 50, 3, 257).unwrap()).unwrap();
        let mut rng = Sampler::from_seed([3; 32]);
        let keys = bfv.keygen(&mut rng).unwrap();
        let m: Vec<u64> = (0..64).map(|i| i * 7 % 257).collect();
        let c = bfv.encrypt(&keys.public, &m, &mut rng).unwrap();
        let d = bfv.encrypt(&keys.public, &m, &mut rng).unwrap();
        let first = bfv.multiply_relin(&c, &d, &keys.relin).unwrap();
        let square_first = bfv.multiply_relin(&c, &c, &keys.relin).unwrap();
        let c3 = bfv.multiply(&c, &d).unwrap();
        let relin_first = bfv.relinearize(&c3, &keys.relin).unwrap();
        let poison = || {
            let bufs: Vec<Vec<u64>> = (0..scratch::MAX_BUFFERS)
                .map(|_| scratch::take(1))
                .collect();
            for mut b in bufs {
                let cap = b.capacity();
                b.clear();
                b.resize(cap, u64::MAX);
                scratch::give(b);
            }
        };
        poison();
        let again = bfv.multiply_relin(&c, &d, &keys.relin).unwrap();
        poison();
        let square_again = bfv.multiply_relin(&c, &c, &keys.relin).unwrap();
        poison();
        let relin_again = bfv.relinearize(&c3, &keys.relin).unwrap();
        for (x, y) in [
            (&first, &again),
            (&square_first, &square_again),
            (&relin_first, &relin_again),
        ] {
            for (a, b) in x.parts().iter().zip(y.parts()) {
                assert_eq!(a.residues(), b.residues());
            }
        }
        for x in [&again, &square_again] {
            assert_eq!(
                bfv.decrypt(&keys.secret, x).unwrap(),
                bfv.plain_mul(&m, &m).unwrap()
            );
        }
    }

    /// The product does not depend on how it is computed: squares take the lifted operands
    /// once, and the auxiliary primes are 50 or 61 bits by CPU ([`aux_prime_bits`]). For both
    /// widths and both paths (the general one forced on a square), the three tensor
    /// polynomials are the same residue for residue, and the relinearized products decrypt to
    /// the plaintext products.
    #[test]
    fn squares_and_auxiliary_prime_widths_give_the_same_product() {
        for params in [
            BfvParams::new(32, 50, 3, 257).unwrap(),
            BfvParams::new(2048, 61, 2, 65537).unwrap(),
            BfvParams::n4096_q124(65537).unwrap(),
        ] {
            let n = params.n;
            let wide = Bfv::with_aux_bits(params.clone(), Some(61)).unwrap();
            let narrow = Bfv::with_aux_bits(params.clone(), Some(50)).unwrap();
            // the width `Bfv::new` picks: 50 bits exactly where a plan of a 50-bit prime at
            // this degree runs on AVX-512 IFMA (here P needs at most 16 primes either way)
            let auto = Bfv::new(params).unwrap();
            let q50 = ntt_primes(50, n, 1).unwrap()[0];
            let ifma = crate::NttPlan::new(n, q50).unwrap().isa() == Isa::Avx512Ifma;
            assert_eq!(auto.p.moduli()[0] >> 49 == 1, ifma);
            assert_eq!(
                auto.p.moduli(),
                if ifma {
                    narrow.p.moduli()
                } else {
                    wide.p.moduli()
                }
            );
            assert!(wide.p.moduli().iter().all(|&x| x >> 60 == 1));
            assert!(narrow.p.moduli().iter().all(|&x| x >> 49 == 1));
            assert!(narrow.p.len() > wide.p.len());
            let mut rng = Sampler::from_seed([5; 32]);
            let keys = wide.keygen(&mut rng).unwrap();
            let m1: Vec<u64> = (0..n as u64).map(|i| i * 31 % wide.params.t).collect();
            let m2: Vec<u64> = (0..n as u64).map(|i| (i * i + 5) % wide.params.t).collect();
            let c1 = wide.encrypt(&keys.public, &m1, &mut rng).unwrap();
            let c2 = wide.encrypt(&keys.public, &m2, &mut rng).unwrap();
            let len = wide.q.len() * n;
            let tensor = |bfv: &Bfv, a: &BfvCiphertext, b: &BfvCiphertext, square: bool| {
                let (a, b) = (
                    bfv.ciphertext_from_bytes(&a.to_bytes()).unwrap(),
                    bfv.ciphertext_from_bytes(&b.to_bytes()).unwrap(),
                );
                let mut out = [vec![0; len], vec![0; len], vec![0; len]];
                bfv.tensor_with(&a, &b, square, &mut out);
                out
            };
            let product = tensor(&wide, &c1, &c2, false);
            assert_eq!(tensor(&narrow, &c1, &c2, false), product);
            let square = tensor(&wide, &c1, &c1, false);
            assert_ne!(square, product);
            for bfv in [&wide, &narrow] {
                assert_eq!(tensor(bfv, &c1, &c1, true), square);
            }
            // through the public calls: the square path by reference and by value
            for (a, b, want) in [
                (&c1, &c2, wide.plain_mul(&m1, &m2).unwrap()),
                (&c1, &c1, wide.plain_mul(&m1, &m1).unwrap()),
                (&c1, &c1.clone(), wide.plain_mul(&m1, &m1).unwrap()),
            ] {
                let p = wide.multiply_relin(a, b, &keys.relin).unwrap();
                assert_eq!(wide.decrypt(&keys.secret, &p).unwrap(), want);
                let p = wide.multiply(a, b).unwrap();
                assert_eq!(wide.decrypt(&keys.secret, &p).unwrap(), want);
            }
        }
    }

    /// `aux_prime_bits` keeps 61-bit primes where 50-bit ones would take the conversion from
    /// `P` past the vector kernel's 16 sources and 61-bit ones would not.
    #[test]
    fn aux_prime_width_respects_the_vector_conversion() {
        let q50 = ntt_primes(50, 8192, 1).unwrap()[0];
        let ifma = crate::NttPlan::new(8192, q50).unwrap().isa() == Isa::Avx512Ifma;
        for need in [100u64, 16 * 49, 16 * 49 + 1, 16 * 60, 16 * 60 + 1, 2000] {
            let (k50, k61) = (need.div_ceil(49), need.div_ceil(60));
            let want = if ifma && (k50 <= 16 || k61 > 16) {
                50
            } else {
                61
            };
            assert_eq!(aux_prime_bits(8192, need), want, "{need}");
        }
    }

    /// `same_ciphertext`: one reference or equal parts; a changed residue (the last one) or
    /// another representation of the same polynomials is another ciphertext.
    #[test]
    fn same_ciphertext_compares_parts() {
        let bfv = Bfv::new(BfvParams::new(16, 30, 2, 257).unwrap()).unwrap();
        let mut rng = Sampler::from_seed([6; 32]);
        let keys = bfv.keygen(&mut rng).unwrap();
        let c = bfv.encrypt(&keys.public, &[1; 16], &mut rng).unwrap();
        assert!(same_ciphertext(&c, &c));
        assert!(same_ciphertext(&c, &c.clone()));
        let mut changed = c.clone();
        let mut r = changed.c[1].residues().to_vec();
        let last = r.len() - 1;
        r[last] = (r[last] + 1) % bfv.q.moduli()[1];
        changed.c[1] = RnsPoly::from_residues_unchecked(&bfv.q, r, Representation::Coefficient);
        assert!(!same_ciphertext(&c, &changed));
        let mut ntt = c.clone();
        ntt.c[0].to_ntt();
        assert!(!same_ciphertext(&c, &ntt));
        let other = bfv.encrypt(&keys.public, &[1; 16], &mut rng).unwrap();
        assert!(!same_ciphertext(&c, &other));
    }

    /// The noise one key switch adds, `Σ D_i e_i / P_s + ε_0 + ε_1 s` (centred digits, the
    /// special prime's division and its rounding), has the predicted spread: its RMS over all
    /// coefficients is `sqrt(σ² n Σ (q_i/P_s)² / 12 + (1 + 2n/3) / 12)` within 15%. Without the
    /// division by `P_s` it would be some `2^30`-`2^50` times larger; with digits in `[0, q_i)`
    /// the digit term doubles. Measured exactly: a ciphertext `(0, 0, c_2)` with uniform `c_2`
    /// has phase `c_2 s²`; relinearized, `c_2 s²` plus that noise. Bases of equal primes, of
    /// unequal ones (the special prime as wide as the widest) and of one prime.
    /// The special prime is as wide as `Q`'s widest prime and outside `Q`; where that width
    /// has no NTT prime left for `n` (one 20-bit prime is `≡ 1 mod 2^17`), a wider one.
    #[test]
    fn special_prime_choice() {
        let bits = |x: u64| 64 - x.leading_zeros();
        for (n, b, count) in [(1024usize, 30u32, 3usize), (64, 62, 1), (4096, 50, 2)] {
            let bfv = Bfv::new(BfvParams::new(n, b, count, 257).unwrap()).unwrap();
            let ps = bfv.qs.moduli()[count];
            assert_eq!(bits(ps), b);
            assert!(!bfv.params.moduli.contains(&ps) && !bfv.p.moduli().contains(&ps));
            assert_eq!(ps % (2 * n as u64), 1);
        }
        let bfv = Bfv::new(BfvParams::new(65536, 20, 1, 257).unwrap()).unwrap();
        let ps = bfv.qs.moduli()[1];
        assert!(bits(ps) > 20 && ps % (1 << 17) == 1, "{ps}");
    }

    #[test]
    fn key_switch_noise_is_as_predicted() {
        use super::keyswitch::tests::{predicted_rms, rms_change, unequal_params};
        for params in [
            BfvParams::new(1024, 30, 3, 257).unwrap(),
            BfvParams::new(2048, 50, 4, 257).unwrap(),
            BfvParams::new(1024, 62, 1, 257).unwrap(),
            unequal_params(1024, 36),
        ] {
            let bfv = Bfv::new(params).unwrap();
            let mut rng = Sampler::from_seed([7; 32]);
            let keys = bfv.keygen(&mut rng).unwrap();
            let zero = RnsPoly::zero(&bfv.q, Representation::Coefficient);
            let c3 = BfvCiphertext {
                c: vec![zero.clone(), zero, rng.uniform_poly(&bfv.q)],
            };
            let before = bfv.phase(&keys.secret, &c3).unwrap();
            let c2 = bfv.relinearize(&c3, &keys.relin).unwrap();
            let after = bfv.phase(&keys.secret, &c2).unwrap();
            let rms = rms_change(&bfv, &after, &before);
            let want = predicted_rms(&bfv, bfv.qs.moduli()[bfv.q.len()] as f64);
            let ratio = rms / want;
            assert!(
                (0.85..1.15).contains(&ratio),
                "{:?}: RMS {rms} / prediction {want} = {ratio}",
                bfv.params.moduli,
            );
        }
    }
}
