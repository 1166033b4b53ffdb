//! Modulus switching: a ciphertext moved to fewer primes of `Q`.
//!
//! When a computation is done, its result still carries every prime of `Q`, though decryption
//! needs only as many as its remaining noise. Switching it down to the first `k` primes,
//! `Q_k = q_1 ... q_k`, scales each polynomial by `Q_k / Q` with rounding:
//!
//! ```text
//! c_i' = round(c_i / q_L)   in basis Q / q_L   (one prime at a time, q_L the last)
//!      = (c_i - [c_i]_{q_L}) · q_L^-1 mod q_j,  [.]_{q_L} centred in (-q_L/2, q_L/2]
//! ```
//!
//! `c_0' + c_1' s = (Q_k / Q)(Δ m + v) + ε_0 + ε_1 s` with `|ε_i| <= 1/2` (and `ε_2 s^2` for a
//! three-polynomial ciphertext), so the message stays and the noise `v` shrinks with the
//! modulus; the rounding adds about `(1 + ||s||_1) / 2` once (the rounding of an earlier step is
//! divided by the later primes). So the noise budget, which is relative to the modulus, is kept,
//! up to the ceiling the rounding term sets near `log2(Q_k / t)` minus its own size; the
//! ciphertext shrinks by `L - k` limbs (SEAL's and OpenFHE's `mod_switch`; how a server
//! shortens its answer before sending it back).
//!
//! The switched ciphertext belongs to the instance of the smaller modulus, [`Bfv::lower`]; its
//! secret key is the same `s` in fewer limbs ([`Bfv::secret_key_for`]). That instance
//! decrypts, measures the noise budget, adds, multiplies by plaintexts, serializes,
//! multiplies, and relinearizes and rotates with the relinearization and Galois keys of the
//! instance it was lowered from (no secret needed: the server keeps one set of keys for every
//! level, as with SEAL and OpenFHE) or with keys made for it from the same secret
//! ([`Bfv::keygen_with_secret`], [`Bfv::galois_keygen`]).
//!
//! The arithmetic is that of the end of a key switch (the division by the special prime,
//! [`DropLimb`]): the centred last limb spread over the others by the digit kernel, then
//! `(x_j - r_j) q_L^-1 mod q_j` by [`convert_simd::mul_sub_mul_any`]; SIMD where the CPU has
//! it, the same residues on every backend. Ciphertexts are public, so nothing here needs to
//! be constant time; the secret key's restriction copies limbs into a key that wipes them on
//! drop.

use super::{Bfv, BfvCiphertext, BfvParams, BfvSecretKey};
use crate::arith::{Modulus, Modulus64};
use crate::error::{Error, Result};
use crate::isa::Isa;
use crate::rns::{convert_simd, scratch, Representation, RnsPoly};

/// Division by the last prime of a basis with rounding: from `q_0 .. q_l` to `q_0 .. q_(l-1)`,
/// `x -> (x - [x]_{q_l}) q_l^-1` with `[x]_{q_l}` centred, exact in every remaining limb. Ends
/// a key switch (`q_l = P_s`) and is a step of modulus switching.
#[derive(Debug, Clone)]
pub(super) struct DropLimb {
    /// The centred residue mod `q_l` in the limbs `0..l` (digit `l` with `h = 1`).
    digit: convert_simd::DigitTables,
    /// `(1, its Shoup quotient)` and `(q_l^-1 mod q_j, its quotient)` per remaining limb `j`.
    consts: Vec<[(u64, u64); 2]>,
}

impl DropLimb {
    /// The tables for the basis `q` (at least two primes, the last one dropped).
    pub(super) fn new(q: &[Modulus64]) -> Result<DropLimb> {
        let l = q.len() - 1;
        let mut digit = convert_simd::DigitTables::new(q, l, 1);
        digit.limbs.truncate(l);
        let consts = q[..l]
            .iter()
            .map(|m| {
                let inv = m
                    .inv(m.reduce_u64(q[l].value()))
                    .ok_or(Error::InvalidModulus {
                        q: m.value(),
                        reason: "moduli not coprime",
                    })?;
                Ok([(1, m.shoup(1)), (inv, m.shoup(inv))])
            })
            .collect::<Result<_>>()?;
        Ok(DropLimb { digit, consts })
    }

    /// `out` (the `l` remaining limbs, `n` residues each) from `x` (those limbs, then the
    /// dropped one: at least `(l + 1) n` residues, the rest ignored), on backend `isa` where it
    /// runs (the same residues on every backend).
    pub(super) fn divide(&self, isa: Isa, x: &[u64], out: &mut [u64]) {
        let l = self.consts.len();
        let n = out.len() / l;
        let (keep, dropped) = x[..(l + 1) * n].split_at(l * n);
        // [x]_{q_l}, centred, in every remaining limb
        if !convert_simd::run_centred_digit(isa, &self.digit, dropped, out) {
            self.digit.scalar(dropped, out);
        }
        // (x_j - [x]) q_l^-1 mod q_j
        for (j, ((m, _), w)) in self.digit.limbs.iter().zip(&self.consts).enumerate() {
            let r = j * n..(j + 1) * n;
            convert_simd::mul_sub_mul_any(isa, m, *w, &keep[r.clone()], &mut out[r]);
        }
    }
}

impl Bfv {
    /// The instance over the first `primes` primes of `Q` (same `n`, `t` and `σ`): the home of
    /// ciphertexts switched down to that modulus with [`Bfv::mod_switch`]. `primes` must be
    /// between 1 and the number of primes of `Q`; the smaller modulus must still exceed `t`.
    /// Building it precomputes its own bases and tables, as [`Bfv::new`] does, so keep it for
    /// reuse.
    ///
    /// The relinearization and Galois keys of this instance (and of any instance this one was
    /// lowered from) relinearize and rotate there too: it keeps the tables of their key
    /// switching, restricted to its primes. An instance built with [`Bfv::new`] over the same
    /// primes is not lowered from this one and refuses them.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(1024, 50, 3, 65537)?)?;
    /// let low = bfv.lower(2)?;
    /// assert_eq!(low.context().moduli(), &bfv.context().moduli()[..2]);
    /// assert_eq!(low.params().t, 65537);
    /// assert!(bfv.lower(0).is_err() && bfv.lower(4).is_err());
    /// // Products at the lower level relinearize with the full instance's key.
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let m: Vec<u64> = (0..1024).map(|i| i * 7 % 65537).collect();
    /// let c = bfv.mod_switch(&bfv.encrypt(&keys.public, &m, &mut rng)?, &low)?;
    /// let sq = low.multiply_relin(&c, &c, &keys.relin)?;
    /// let sk = bfv.secret_key_for(&keys.secret, &low)?;
    /// assert_eq!(low.decrypt(&sk, &sq)?, low.plain_mul(&m, &m)?);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn lower(&self, primes: usize) -> Result<Bfv> {
        let l = self.params.moduli.len();
        if primes == 0 || primes > l {
            return Err(Error::InvalidArgument(format!(
                "a lower modulus keeps between 1 and {l} primes of Q, got {primes}"
            )));
        }
        let mut low = Bfv::new(BfvParams {
            moduli: self.params.moduli[..primes].to_vec(),
            ..self.params.clone()
        })?;
        self.inherit_switch_bases(&mut low)?;
        Ok(low)
    }

    /// The number of primes `target` keeps, if it is a lower instance of this one (same `n`,
    /// `t`, `σ`, and its primes the first primes of this `Q`).
    fn lower_primes(&self, target: &Bfv) -> Result<usize> {
        let (a, b) = (&self.params, &target.params);
        let k = b.moduli.len();
        if a.n != b.n
            || a.t != b.t
            || a.sigma != b.sigma
            || k == 0
            || k > a.moduli.len()
            || a.moduli[..k] != b.moduli[..]
        {
            return Err(Error::InvalidArgument(
                "the target instance must have this instance's n, t and sigma and the first \
                 primes of its Q (see Bfv::lower)"
                    .into(),
            ));
        }
        Ok(k)
    }

    /// Switches `c` (2 or 3 polynomials of this instance) down to the modulus of `target`, an
    /// instance made by [`Bfv::lower`] (or one with the same parameters, which then needs
    /// keys of its own to relinearize and rotate): each polynomial is
    /// scaled by `Q_k / Q` and rounded, one dropped prime at a time (module docs). The result
    /// belongs to `target`, decrypts there to the same plaintext while the noise allows, and
    /// is `L - k` limbs shorter; it keeps the noise budget of `c` (which is relative to the
    /// modulus) up to a ceiling near `log2(Q_k / t)` less the rounding's few bits (module
    /// docs). With `target` of the same modulus it is a copy of `c`.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(1024, 50, 3, 65537)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let m: Vec<u64> = (0..1024).map(|i| i * 61 % 65537).collect();
    /// let c = bfv.multiply_relin(&bfv.encrypt(&keys.public, &m, &mut rng)?,
    ///                            &bfv.encrypt(&keys.public, &[2; 1024], &mut rng)?, &keys.relin)?;
    /// // The server shortens its answer to one prime of three...
    /// let low = bfv.lower(1)?;
    /// let short = bfv.mod_switch(&c, &low)?;
    /// assert!(short.serialized_len() * 2 < c.serialized_len());
    /// // ... and the client decrypts it with its key in one limb.
    /// let sk = bfv.secret_key_for(&keys.secret, &low)?;
    /// assert_eq!(low.decrypt(&sk, &short)?, bfv.decrypt(&keys.secret, &c)?);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn mod_switch(&self, c: &BfvCiphertext, target: &Bfv) -> Result<BfvCiphertext> {
        self.check_ct(c)?;
        let k = self.lower_primes(target)?;
        let n = self.params.n;
        let mut out = Vec::with_capacity(c.c.len());
        for p in &c.c {
            // One step per dropped prime, from the last; each reads the current residues and
            // writes the next. Pooled buffers between steps (fresh ones of 100s of kB cost more
            // in page faults than the arithmetic); the result gets a buffer of its own size.
            let mut cur = Self::coeff_residues(p);
            for last in (k..self.q.len()).rev() {
                let mut next = if last == k {
                    vec![0u64; k * n]
                } else {
                    scratch::take(last * n)
                };
                self.drops[last - 1].divide(self.lane_isa, &cur, &mut next);
                if let std::borrow::Cow::Owned(v) = std::mem::replace(&mut cur, next.into()) {
                    scratch::give(v);
                }
            }
            let res = cur.into_owned();
            out.push(RnsPoly::from_residues_unchecked(
                target.context(),
                res,
                Representation::Coefficient,
            ));
        }
        Ok(BfvCiphertext { c: out })
    }

    /// The secret key `sk` of this instance as a key of `target` (an instance made by
    /// [`Bfv::lower`]): the same `s`, in `target`'s limbs. It decrypts what
    /// [`Bfv::mod_switch`] moves to `target`, and makes `target`'s keys for the same secret
    /// ([`Bfv::keygen_with_secret`], [`Bfv::galois_keygen`]).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(1024, 50, 3, 257)?)?;
    /// let low = bfv.lower(2)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let sk = bfv.secret_key_for(&keys.secret, &low)?;
    /// // A ciphertext encrypted at the lower level decrypts with it too.
    /// let low_keys = low.keygen_with_secret(sk, &mut rng)?;
    /// let c = low.encrypt(&low_keys.public, &[7; 1024], &mut rng)?;
    /// assert_eq!(low.decrypt(&low_keys.secret, &c)?, vec![7; 1024]);
    /// assert!(low.secret_key_for(&low_keys.secret, &bfv).is_err()); // only downwards
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn secret_key_for(&self, sk: &BfvSecretKey, target: &Bfv) -> Result<BfvSecretKey> {
        self.check_key_ctx(&sk.s)?;
        let k = self.lower_primes(target)?;
        let n = self.params.n;
        // NTT form limb by limb: each limb's transform depends on its prime and n only, so the
        // first k limbs are s in the basis Q_k.
        let s = RnsPoly::from_residues_unchecked(
            target.context(),
            sk.s.residues()[..k * n].to_vec(),
            Representation::Ntt,
        );
        Ok(BfvSecretKey { s })
    }
}
