//! Bytes for BFV keys and ciphertexts, in the versioned format of [`crate::serialize`].
//!
//! * Public keys, relinearization keys and ciphertexts are *containers*: the magic `LPLY`,
//!   version 1, an object kind ([`KIND_BFV_PUBLIC_KEY`], [`KIND_BFV_RELIN_KEY`],
//!   [`KIND_BFV_CIPHERTEXT`]), the number of polynomials as a little-endian `u16`, then each
//!   polynomial's complete [`RnsPoly::to_bytes`] encoding (its own header with degree, primes and
//!   representation, then its bit-packed residues). A public key holds `(p_0, p_1)` in NTT form;
//!   a relinearization key `b_1, ..., b_L, a_1, ..., a_L` in NTT form in the key-switching
//!   basis `Q·P_s` (the primes of `Q`, then the special prime); a ciphertext its 2 or 3
//!   polynomials in coefficient form. Galois keys ([`KIND_BFV_GALOIS_KEYS`]) count keys, not
//!   polynomials: `K`, then the `K` elements as `u32`, then each key's `2 L` polynomials (in
//!   NTT form in the key-switching basis `Q·P_s`, as the relinearization key). A seeded
//!   ciphertext ([`KIND_BFV_SEEDED_CIPHERTEXT`], a symmetric-key ciphertext in compact form)
//!   is a container of count 1 whose part follows the 32-byte seed of `c_1`: the seed, then
//!   `c_0` in coefficient form.
//! * **Compact keys.** Key generation draws the uniform parts of each key (the public key's
//!   `p_1`, a switching key's `a_1, ..., a_L`) from a 32-byte seed ([`Bfv::expand_key_a`]:
//!   `Sampler::from_seed(seed)`, `uniform_poly_ntt` once per polynomial, in order), and a key
//!   that knows its seed writes it in place of those polynomials: kind
//!   [`KIND_BFV_SEEDED_PUBLIC_KEY`] (count 1, the seed, `p_0`), [`KIND_BFV_SEEDED_RELIN_KEY`]
//!   (count `L`, the seed, `b_1, ..., b_L`) and [`KIND_BFV_SEEDED_GALOIS_KEYS`] (count `K`,
//!   the elements, the `K` seeds, `L` polynomials per key): half the bytes. The readers take
//!   both forms; `to_expanded_bytes` writes the expanded one (kinds 2, 3, 6), which keys read
//!   from it keep. Keys written
//!   before the special prime (eighty-third session) were over `Q` and are refused
//!   ([`Error::ContextMismatch`]): make them again.
//! * A secret key is its ternary polynomial `s`, two bits per coefficient: the header of an
//!   [`RnsPoly`] (kind [`KIND_BFV_SECRET_KEY`], representation byte 0, degree and the primes of
//!   `Q`, which bind the key to its parameters), then `n` codes `0 = 0, 1 = +1, 2 = -1` (3 is
//!   invalid), least significant bits first, `n / 4` bytes (one zero-padded byte for `n = 2`).
//!   Encoding and decoding branch on no coefficient.
//!
//! Readers are methods of [`Bfv`] and accept only the encodings of objects of its ring:
//! polynomials of another degree or other primes are [`Error::ContextMismatch`]. (The
//! plaintext modulus `t` is not part of a ciphertext's encoding, as in SEAL's: a ciphertext of
//! an instance with the same `n` and primes but another `t` reads without error and decrypts
//! to unrelated values; keys do not depend on `t`.) Malformed
//! bytes, and keys of another shape (a relinearization key of another number of primes, a
//! Galois element not below this `2n`), are [`Error::Malformed`] (or
//! [`Error::CoefficientOutOfRange`] for a residue not below its prime); never a panic.
//!
//! The bytes carry no integrity check. Secret-key bytes are as sensitive as the key: they are
//! returned in a buffer that is zeroed when dropped, and should be stored encrypted.

use super::galois::GaloisKey;
use super::symmetric::SEED_LEN;
use super::{
    Bfv, BfvCiphertext, BfvGaloisKeys, BfvPublicKey, BfvRelinKey, BfvSecretKey, BfvSeededCiphertext,
};
use crate::arith::ct::barrier;
use crate::error::{Error, Result};
use crate::rns::{Representation, RnsPoly};
use crate::serialize::{
    container_len, read_container, read_container_header, read_parts, read_ternary, ternary_len,
    write_container, write_container_with, write_ternary, KIND_BFV_CIPHERTEXT,
    KIND_BFV_GALOIS_KEYS, KIND_BFV_PUBLIC_KEY, KIND_BFV_RELIN_KEY, KIND_BFV_SECRET_KEY,
    KIND_BFV_SEEDED_CIPHERTEXT, KIND_BFV_SEEDED_GALOIS_KEYS, KIND_BFV_SEEDED_PUBLIC_KEY,
    KIND_BFV_SEEDED_RELIN_KEY,
};
use zeroize::Zeroizing;

/// 1 iff `a == b`, without a branch.
#[inline]
fn eq_bit(a: u64, b: u64) -> u64 {
    let d = a ^ b;
    barrier(((d | d.wrapping_neg()) >> 63) ^ 1)
}

fn check_ntt(parts: &[RnsPoly], what: &str) -> Result<()> {
    if parts
        .iter()
        .any(|p| p.representation() != Representation::Ntt)
    {
        return Err(Error::Malformed(format!(
            "the polynomials of a {what} are stored in NTT form"
        )));
    }
    Ok(())
}

/// A compact container of kind `kind`: count `count`, a 32-byte seed, then `count`
/// polynomials of `ctx` ([`Error::Malformed`] for another count, a short seed, truncation or
/// trailing bytes; the errors of [`RnsPoly::from_bytes_in`] for a part).
fn read_seeded(
    kind: u8,
    count: usize,
    ctx: &std::sync::Arc<crate::rns::RnsContext>,
    bytes: &[u8],
) -> Result<([u8; SEED_LEN], Vec<RnsPoly>)> {
    let (got, rest) = read_container_header(kind, bytes)?;
    if got != count {
        return Err(Error::Malformed(format!(
            "a compact key or ciphertext holds {count} polynomials here, not {got}"
        )));
    }
    if rest.len() < SEED_LEN {
        return Err(Error::Malformed(format!(
            "truncated: the seed takes {SEED_LEN} bytes, {} present",
            rest.len()
        )));
    }
    let (seed, rest) = rest.split_at(SEED_LEN);
    let parts = read_parts(kind, count, ctx, rest)?;
    Ok((seed.try_into().expect("SEED_LEN bytes"), parts))
}

impl BfvSecretKey {
    /// Length in bytes of [`Self::to_bytes`]: `10 + 8·L + n / 4` (at least one payload byte).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(1024, 40, 3, 257)?)?;
    /// let keys = bfv.keygen(&mut Sampler::from_seed([1; 32]))?;
    /// assert_eq!(keys.secret.serialized_len(), 10 + 3 * 8 + 1024 / 4);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn serialized_len(&self) -> usize {
        ternary_len(self.s.context())
    }

    /// The key as bytes (the degree and primes of `Q`, then two bits per coefficient of `s`;
    /// the format is given at [`Bfv::secret_key_from_bytes`]), in a buffer zeroed when dropped.
    /// The conversion branches on no coefficient.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let bytes = keys.secret.to_bytes();
    /// assert_eq!(&bytes[..6], b"LPLY\x01\x05"); // magic, version 1, BFV secret key
    /// let sk = bfv.secret_key_from_bytes(&bytes)?;
    /// let c = bfv.encrypt(&keys.public, &[7; 16], &mut rng)?;
    /// assert_eq!(bfv.decrypt(&sk, &c)?, vec![7; 16]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        let mut s = self.s.clone();
        s.to_coeff();
        let q0 = s.context().moduli()[0];
        // s is ternary: limb 0 holds 0, 1 or q_0 - 1.
        let codes = s
            .limb(0)
            .iter()
            .map(|&x| (eq_bit(x, 1) | (eq_bit(x, q0 - 1) << 1)) as u8);
        let out = Zeroizing::new(write_ternary(KIND_BFV_SECRET_KEY, s.context(), codes));
        s.wipe();
        out
    }
}

impl BfvPublicKey {
    /// Length in bytes of [`Self::to_bytes`].
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(1024, 40, 3, 257)?)?;
    /// let keys = bfv.keygen(&mut Sampler::from_seed([1; 32]))?;
    /// // compact: header, the 32-byte seed of p_1, then p_0 (10 + 3·8 header bytes, 1024·3·40
    /// // bits)
    /// assert_eq!(keys.public.serialized_len(), 8 + 32 + 10 + 3 * 8 + 1024 * 3 * 40 / 8);
    /// assert_eq!(keys.public.to_bytes().len(), keys.public.serialized_len());
    /// // expanded: both polynomials
    /// assert_eq!(keys.public.to_expanded_bytes().len(), 8 + 2 * (10 + 3 * 8 + 1024 * 3 * 40 / 8));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn serialized_len(&self) -> usize {
        match self.seed {
            Some(_) => container_len([&self.p0]) + SEED_LEN,
            None => container_len([&self.p0, &self.p1]),
        }
    }

    /// The key as bytes: for a key that knows the seed of `p_1` (made by [`Bfv::keygen`] or
    /// read from compact bytes), the compact form: kind 8, count 1, the 32-byte seed, then
    /// `p_0` in NTT form, about half the bytes; otherwise as [`Self::to_expanded_bytes`]. See
    /// [`Bfv::public_key_from_bytes`], which reads both.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let pk = bfv.public_key_from_bytes(&keys.public.to_bytes())?;
    /// let c = bfv.encrypt(&pk, &[5; 16], &mut rng)?;
    /// assert_eq!(bfv.decrypt(&keys.secret, &c)?, vec![5; 16]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        match &self.seed {
            Some(seed) => write_container_with(KIND_BFV_SEEDED_PUBLIC_KEY, 1, seed, &[&self.p0]),
            None => self.to_expanded_bytes(),
        }
    }

    /// The key as bytes in expanded form: kind 2, a container of `(p_0, p_1)` in NTT form (what
    /// versions of latpoly before the compact keys wrote and read).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let keys = bfv.keygen(&mut Sampler::from_seed([1; 32]))?;
    /// let bytes = keys.public.to_expanded_bytes();
    /// assert_eq!(&bytes[..8], b"LPLY\x01\x02\x02\x00"); // public key, 2 polynomials
    /// // read back, the key has no seed: it writes the expanded form again
    /// assert_eq!(bfv.public_key_from_bytes(&bytes)?.to_bytes(), bytes);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_expanded_bytes(&self) -> Vec<u8> {
        write_container(KIND_BFV_PUBLIC_KEY, &[&self.p0, &self.p1])
    }
}

impl BfvRelinKey {
    /// Length in bytes of [`Self::to_bytes`].
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(1024, 40, 3, 257)?)?;
    /// let keys = bfv.keygen(&mut Sampler::from_seed([1; 32]))?;
    /// // compact: the seed of the a_i, then b_1 .. b_L, each over Q and the 40-bit special prime
    /// assert_eq!(keys.relin.serialized_len(), 8 + 32 + 3 * (10 + 4 * 8 + 1024 * 4 * 40 / 8));
    /// // expanded: two polynomials per prime of Q
    /// assert_eq!(keys.relin.to_expanded_bytes().len(), 8 + 6 * (10 + 4 * 8 + 1024 * 4 * 40 / 8));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn serialized_len(&self) -> usize {
        match self.seed {
            Some(_) => container_len(&self.b) + SEED_LEN,
            None => container_len(self.b.iter().chain(&self.a)),
        }
    }

    /// The key as bytes: for a key that knows the seed of its `a_i` (made by [`Bfv::keygen`] or
    /// read from compact bytes), the compact form: kind 9, count `L`, the 32-byte seed, then
    /// `b_1, ..., b_L` in NTT form, half the bytes; otherwise as [`Self::to_expanded_bytes`].
    /// See [`Bfv::relin_key_from_bytes`], which reads both.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let rlk = bfv.relin_key_from_bytes(&keys.relin.to_bytes())?;
    /// let c = bfv.encrypt(&keys.public, &[3; 16], &mut rng)?;
    /// let sq = bfv.multiply_relin(&c, &c, &rlk)?;
    /// assert_eq!(bfv.decrypt(&keys.secret, &sq)?, bfv.plain_mul(&[3; 16], &[3; 16])?);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        match &self.seed {
            Some(seed) => {
                let parts: Vec<&RnsPoly> = self.b.iter().collect();
                let count = u16::try_from(parts.len()).expect("at most MAX_PRIMES parts");
                write_container_with(KIND_BFV_SEEDED_RELIN_KEY, count, seed, &parts)
            }
            None => self.to_expanded_bytes(),
        }
    }

    /// The key as bytes in expanded form: kind 3, a container of `b_1, ..., b_L, a_1, ...,
    /// a_L` in NTT form (what versions of latpoly before the compact keys wrote and read).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let keys = bfv.keygen(&mut Sampler::from_seed([1; 32]))?;
    /// let bytes = keys.relin.to_expanded_bytes();
    /// assert_eq!(&bytes[..8], b"LPLY\x01\x03\x06\x00"); // relinearization key, 6 polynomials
    /// assert_eq!(bfv.relin_key_from_bytes(&bytes)?.to_bytes(), bytes);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_expanded_bytes(&self) -> Vec<u8> {
        let parts: Vec<&RnsPoly> = self.b.iter().chain(&self.a).collect();
        write_container(KIND_BFV_RELIN_KEY, &parts)
    }
}

impl BfvGaloisKeys {
    fn polys(&self) -> impl Iterator<Item = &RnsPoly> {
        self.keys.iter().flat_map(|k| k.b.iter().chain(&k.a))
    }

    /// Length in bytes of [`Self::to_bytes`]: `8 + 4 K` plus `2 L` polynomials per key.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(1024, 40, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let gk = bfv.galois_keygen(&keys.secret, &[3, 2047], &mut rng)?;
    /// // compact: per key its element, its seed and L polynomials over Q and the 40-bit
    /// // special prime
    /// assert_eq!(gk.serialized_len(), 8 + 2 * (4 + 32) + 2 * 3 * (10 + 4 * 8 + 1024 * 4 * 40 / 8));
    /// // expanded: per key its element and 2 L polynomials
    /// assert_eq!(gk.to_expanded_bytes().len(), 8 + 2 * 4 + 2 * 6 * (10 + 4 * 8 + 1024 * 4 * 40 / 8));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn serialized_len(&self) -> usize {
        match self.seeds() {
            Some(_) => {
                container_len(self.keys.iter().flat_map(|k| &k.b))
                    + (4 + SEED_LEN) * self.keys.len()
            }
            None => container_len(self.polys()) + 4 * self.keys.len(),
        }
    }

    /// Every key's seed, when every key knows it and there is a key (the empty set has one
    /// encoding, the expanded one).
    fn seeds(&self) -> Option<Vec<u8>> {
        if self.keys.is_empty() {
            return None;
        }
        let mut out = Vec::with_capacity(SEED_LEN * self.keys.len());
        for k in &self.keys {
            out.extend_from_slice(k.seed.as_ref()?);
        }
        Some(out)
    }

    fn elements_le(&self) -> Vec<u8> {
        self.keys
            .iter()
            .flat_map(|k| (k.g as u32).to_le_bytes())
            .collect()
    }

    /// The keys as bytes: when every key knows the seed of its `a_i` (keys made by
    /// [`Bfv::galois_keygen`] or read from compact bytes), the compact form: kind 10, a
    /// container whose count is the number of keys `K`, then the `K` Galois elements (`u32`,
    /// ascending), the `K` seeds (32 bytes each), then each key's `b_1, ..., b_L` in NTT form,
    /// half the bytes; otherwise (and for the empty set) as [`Self::to_expanded_bytes`]. See
    /// [`Bfv::galois_keys_from_bytes`], which reads both.
    ///
    /// # Panics
    ///
    /// With more than 65,535 keys (there are at most `n ≤ 2^17` elements, and a set of that
    /// many keys would take gigabytes).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 97)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let gk = bfv.rotation_keygen(&keys.secret, &[1], true, &mut rng)?;
    /// let bytes = gk.to_bytes();
    /// assert_eq!(&bytes[..16], b"LPLY\x01\x0a\x02\x00\x03\x00\x00\x00\x1f\x00\x00\x00"); // 3, 31
    /// let back = bfv.galois_keys_from_bytes(&bytes)?;
    /// let c = bfv.encrypt(&keys.public, &bfv.encode_slots(&(0..16).collect::<Vec<u64>>())?, &mut rng)?;
    /// let r = bfv.rotate_rows(&c, 1, &back)?;
    /// assert_eq!(bfv.decode_slots(&bfv.decrypt(&keys.secret, &r)?)?[..8], [1, 2, 3, 4, 5, 6, 7, 0]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let Some(seeds) = self.seeds() else {
            return self.to_expanded_bytes();
        };
        let count = u16::try_from(self.keys.len()).expect("at most 65535 Galois keys");
        let mut prefix = self.elements_le();
        prefix.extend_from_slice(&seeds);
        let parts: Vec<&RnsPoly> = self.keys.iter().flat_map(|k| &k.b).collect();
        write_container_with(KIND_BFV_SEEDED_GALOIS_KEYS, count, &prefix, &parts)
    }

    /// The keys as bytes in expanded form: kind 6, a container whose count is the number of
    /// keys `K`, then the `K` Galois elements (`u32`, ascending), then each key's `b_1, ...,
    /// b_L, a_1, ..., a_L` in NTT form (what versions of latpoly before the compact keys wrote
    /// and read).
    ///
    /// # Panics
    ///
    /// With more than 65,535 keys (as [`Self::to_bytes`]).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 97)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let gk = bfv.galois_keygen(&keys.secret, &[3, 31], &mut rng)?;
    /// let bytes = gk.to_expanded_bytes();
    /// assert_eq!(&bytes[..8], b"LPLY\x01\x06\x02\x00"); // Galois keys, 2 keys
    /// assert_eq!(bfv.galois_keys_from_bytes(&bytes)?.to_bytes(), bytes);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_expanded_bytes(&self) -> Vec<u8> {
        let count = u16::try_from(self.keys.len()).expect("at most 65535 Galois keys");
        let parts: Vec<&RnsPoly> = self.polys().collect();
        write_container_with(KIND_BFV_GALOIS_KEYS, count, &self.elements_le(), &parts)
    }
}

impl BfvCiphertext {
    /// Length in bytes of [`Self::to_bytes`].
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(1024, 40, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let c = bfv.encrypt(&keys.public, &[1; 1024], &mut rng)?;
    /// assert_eq!(c.serialized_len(), 8 + 2 * (10 + 3 * 8 + 1024 * 3 * 40 / 8));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn serialized_len(&self) -> usize {
        container_len(&self.c)
    }

    /// The ciphertext as bytes: a container of its 2 or 3 polynomials in coefficient form (see
    /// [`Bfv::ciphertext_from_bytes`]).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let c = bfv.encrypt(&keys.public, &[9; 16], &mut rng)?;
    /// let c3 = bfv.multiply(&c, &c)?; // three polynomials travel as well
    /// let back = bfv.ciphertext_from_bytes(&c3.to_bytes())?;
    /// assert_eq!(back.len(), 3);
    /// assert_eq!(bfv.decrypt(&keys.secret, &back)?, bfv.plain_mul(&[9; 16], &[9; 16])?);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let parts: Vec<&RnsPoly> = self.c.iter().collect();
        write_container(KIND_BFV_CIPHERTEXT, &parts)
    }
}

impl BfvSeededCiphertext {
    /// Length in bytes of [`Self::to_bytes`] ([`Bfv::seeded_ciphertext_len`]).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(1024, 40, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let c = bfv.encrypt_symmetric_seeded(&keys.secret, &[1; 1024], &mut rng)?;
    /// assert_eq!(c.serialized_len(), 8 + 32 + 10 + 3 * 8 + 1024 * 3 * 40 / 8);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn serialized_len(&self) -> usize {
        container_len([&self.c0]) + SEED_LEN
    }

    /// The ciphertext as bytes: a container of kind 7 and count 1, the 32-byte seed, then `c_0`
    /// (see [`Bfv::seeded_ciphertext_from_bytes`]).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let c = bfv.encrypt_symmetric_seeded(&keys.secret, &[9; 16], &mut rng)?;
    /// let bytes = c.to_bytes();
    /// assert_eq!(&bytes[..8], b"LPLY\x01\x07\x01\x00"); // magic, v1, seeded ciphertext, 1 part
    /// assert_eq!(&bytes[8..40], c.seed());
    /// let back = bfv.seeded_ciphertext_from_bytes(&bytes)?;
    /// assert_eq!(bfv.decrypt(&keys.secret, &bfv.expand_seeded(&back)?)?, vec![9; 16]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        write_container_with(KIND_BFV_SEEDED_CIPHERTEXT, 1, &self.seed, &[&self.c0])
    }
}

impl Bfv {
    /// Reads a secret key written by [`BfvSecretKey::to_bytes`] for this instance's degree and
    /// primes.
    ///
    /// Format: the 10-byte header of [`crate::serialize`] with object kind 5
    /// ([`KIND_BFV_SECRET_KEY`]) and representation byte 0, the primes of `Q`, then the `n`
    /// coefficients of `s` as two-bit codes (`0 = 0`, `1 = +1`, `2 = -1`), least significant
    /// bits first. The codes are decoded without branching on them; a code 3 anywhere gives one
    /// [`Error::Malformed`] that does not say where.
    ///
    /// Errors: [`Error::ContextMismatch`] for a key of another degree or other primes,
    /// [`Error::Malformed`] for a wrong magic, version, kind or representation byte, a wrong
    /// length, non-zero padding bits or a code 3.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// use latpoly::Error;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let keys = bfv.keygen(&mut Sampler::from_seed([1; 32]))?;
    /// let bytes = keys.secret.to_bytes();
    /// assert_eq!(bytes.len(), 10 + 3 * 8 + 4);
    /// assert!(bfv.secret_key_from_bytes(&bytes).is_ok());
    ///
    /// let mut bad = bytes.to_vec();
    /// *bad.last_mut().unwrap() |= 0xc0; // code 3 for the last coefficient
    /// assert!(matches!(bfv.secret_key_from_bytes(&bad), Err(Error::Malformed(_))));
    /// assert!(matches!(
    ///     bfv.secret_key_from_bytes(&bytes[..bytes.len() - 1]),
    ///     Err(Error::Malformed(_))
    /// ));
    /// let other = Bfv::new(BfvParams::new(16, 31, 3, 257)?)?; // other primes
    /// assert_eq!(other.secret_key_from_bytes(&bytes).unwrap_err(), Error::ContextMismatch);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn secret_key_from_bytes(&self, bytes: &[u8]) -> Result<BfvSecretKey> {
        let payload = read_ternary(KIND_BFV_SECRET_KEY, &self.q, bytes)?;
        let n = self.params.n;
        let moduli = self.q.moduli();
        let mut data = vec![0u64; n * moduli.len()];
        let mut bad = 0u64;
        for j in 0..n {
            let c = u64::from(payload[j / 4] >> (2 * (j % 4))) & 3;
            let invalid = c & (c >> 1) & 1;
            bad |= invalid;
            // code 3 gives 0 here (and an error below), so every residue stays below its prime
            let (plus, minus) = (c & 1 & !invalid, (c >> 1) & !invalid);
            let mask = crate::arith::ct::mask_u64(minus);
            for (limb, &q) in moduli.iter().enumerate() {
                data[limb * n + j] = plus + (mask & (q - 1));
            }
        }
        // Built before the range verdict, so that a rejected key is wiped like an accepted one.
        let mut s = RnsPoly::from_residues_unchecked(&self.q, data, Representation::Coefficient);
        if barrier(bad) != 0 {
            s.wipe();
            return Err(Error::Malformed(
                "a secret-key coefficient has the invalid code 3".into(),
            ));
        }
        s.to_ntt();
        Ok(BfvSecretKey { s })
    }

    /// Reads a public key written by [`BfvPublicKey::to_bytes`] or
    /// [`BfvPublicKey::to_expanded_bytes`]: compact (kind 8: the 32-byte seed of `p_1`, then
    /// `p_0`) or expanded (kind 2: `p_0`, `p_1`), NTT-form polynomials of this instance's basis
    /// `Q`. A key read from either form writes that form again.
    ///
    /// Errors: [`Error::ContextMismatch`] for polynomials of another degree or other primes,
    /// [`Error::Malformed`] for a wrong header, a polynomial count other than 1 (compact) or 2
    /// (expanded), a short seed, a polynomial not in NTT form, truncation or trailing bytes,
    /// [`Error::CoefficientOutOfRange`] for a residue not below its prime.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// use latpoly::Error;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let keys = bfv.keygen(&mut Sampler::from_seed([1; 32]))?;
    /// let bytes = keys.public.to_bytes();
    /// assert_eq!(&bytes[..8], b"LPLY\x01\x08\x01\x00"); // magic, v1, compact public key, 1 polynomial
    /// assert!(bfv.public_key_from_bytes(&bytes).is_ok());
    /// assert!(bfv.public_key_from_bytes(&keys.public.to_expanded_bytes()).is_ok());
    /// assert!(matches!(bfv.public_key_from_bytes(&bytes[..100]), Err(Error::Malformed(_))));
    /// // a relinearization key is not a public key
    /// assert!(matches!(
    ///     bfv.public_key_from_bytes(&keys.relin.to_bytes()),
    ///     Err(Error::Malformed(_))
    /// ));
    /// let other = Bfv::new(BfvParams::new(32, 30, 3, 257)?)?; // another degree
    /// assert_eq!(other.public_key_from_bytes(&bytes).unwrap_err(), Error::ContextMismatch);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn public_key_from_bytes(&self, bytes: &[u8]) -> Result<BfvPublicKey> {
        if bytes.get(5) == Some(&KIND_BFV_SEEDED_PUBLIC_KEY) {
            let (seed, mut parts) = read_seeded(KIND_BFV_SEEDED_PUBLIC_KEY, 1, &self.q, bytes)?;
            check_ntt(&parts, "public key")?;
            let p0 = parts.pop().expect("one part");
            let p1 = self
                .expand_key_a(&seed, &self.q, 1)
                .pop()
                .expect("one part");
            return Ok(BfvPublicKey {
                p0,
                p1,
                seed: Some(seed),
            });
        }
        let mut parts = read_container(KIND_BFV_PUBLIC_KEY, &[2], &self.q, bytes)?;
        check_ntt(&parts, "public key")?;
        let p1 = parts.pop().expect("two parts");
        let p0 = parts.pop().expect("two parts");
        Ok(BfvPublicKey { p0, p1, seed: None })
    }

    /// Reads a relinearization key written by [`BfvRelinKey::to_bytes`] or
    /// [`BfvRelinKey::to_expanded_bytes`]: compact (kind 9: the 32-byte seed of the `a_i`, then
    /// `b_1, ..., b_L`) or expanded (kind 3: the `2 L` polynomials), in NTT form in this
    /// instance's key-switching basis `Q·P_s`.
    ///
    /// Errors: as for [`Self::public_key_from_bytes`], with `L` (compact) or `2 L` (expanded)
    /// polynomials expected.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// use latpoly::Error;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let keys = bfv.keygen(&mut Sampler::from_seed([1; 32]))?;
    /// let bytes = keys.relin.to_bytes();
    /// assert_eq!(&bytes[..8], b"LPLY\x01\x09\x03\x00"); // compact relinearization key, L = 3
    /// assert!(bfv.relin_key_from_bytes(&bytes).is_ok());
    /// let mut longer = bytes.clone();
    /// longer.push(0);
    /// assert!(matches!(bfv.relin_key_from_bytes(&longer), Err(Error::Malformed(_))));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn relin_key_from_bytes(&self, bytes: &[u8]) -> Result<BfvRelinKey> {
        let l = self.q.len();
        if bytes.get(5) == Some(&KIND_BFV_SEEDED_RELIN_KEY) {
            let (seed, b) = read_seeded(KIND_BFV_SEEDED_RELIN_KEY, l, &self.qs, bytes)?;
            check_ntt(&b, "relinearization key")?;
            let a = self.expand_key_a(&seed, &self.qs, l);
            return Ok(BfvRelinKey {
                b,
                a,
                seed: Some(seed),
            });
        }
        let mut b = read_container(KIND_BFV_RELIN_KEY, &[2 * l], &self.qs, bytes)?;
        check_ntt(&b, "relinearization key")?;
        let a = b.split_off(l);
        Ok(BfvRelinKey { b, a, seed: None })
    }

    /// Reads a ciphertext written by [`BfvCiphertext::to_bytes`] (2 or 3 polynomials of this
    /// instance's basis `Q`; polynomials in NTT form are accepted and converted, as by
    /// [`Self::ciphertext_from_parts`]).
    ///
    /// Errors: as for [`Self::public_key_from_bytes`], with 2 or 3 polynomials expected.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// use latpoly::Error;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let c = bfv.encrypt(&keys.public, &[4; 16], &mut rng)?;
    /// let bytes = c.to_bytes();
    /// assert_eq!(bfv.decrypt(&keys.secret, &bfv.ciphertext_from_bytes(&bytes)?)?, vec![4; 16]);
    /// let mut flipped = bytes.clone();
    /// flipped[5] = 2; // the kind byte of a public key
    /// assert!(matches!(bfv.ciphertext_from_bytes(&flipped), Err(Error::Malformed(_))));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn ciphertext_from_bytes(&self, bytes: &[u8]) -> Result<BfvCiphertext> {
        let parts = read_container(KIND_BFV_CIPHERTEXT, &[2, 3], &self.q, bytes)?;
        self.ciphertext_from_parts(parts)
    }

    /// Reads a seeded ciphertext written by [`BfvSeededCiphertext::to_bytes`]: the container
    /// header (kind 7, count 1), the 32-byte seed, then `c_0`, one polynomial of this
    /// instance's basis `Q` (in NTT form it is accepted and converted). [`Self::expand_seeded`]
    /// then gives the full ciphertext.
    ///
    /// Errors: [`Error::Malformed`] for a wrong header or count, fewer than 32 bytes of seed,
    /// truncation or trailing bytes; [`Error::ContextMismatch`] for a polynomial of another
    /// degree or other primes; [`Error::CoefficientOutOfRange`] for a residue not below its
    /// prime. A full ciphertext's bytes are refused (their kind is 4) and a seeded one's are
    /// refused by [`Self::ciphertext_from_bytes`].
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// use latpoly::Error;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let bytes = bfv.encrypt_symmetric_seeded(&keys.secret, &[4; 16], &mut rng)?.to_bytes();
    /// assert!(bfv.seeded_ciphertext_from_bytes(&bytes).is_ok());
    /// assert!(matches!(bfv.ciphertext_from_bytes(&bytes), Err(Error::Malformed(_))));
    /// assert!(matches!(
    ///     bfv.seeded_ciphertext_from_bytes(&bytes[..39]),
    ///     Err(Error::Malformed(_))
    /// ));
    /// let full = bfv.encrypt_symmetric(&keys.secret, &[4; 16], &mut rng)?.to_bytes();
    /// assert!(matches!(bfv.seeded_ciphertext_from_bytes(&full), Err(Error::Malformed(_))));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn seeded_ciphertext_from_bytes(&self, bytes: &[u8]) -> Result<BfvSeededCiphertext> {
        let (seed, mut parts) = read_seeded(KIND_BFV_SEEDED_CIPHERTEXT, 1, &self.q, bytes)?;
        let mut c0 = parts.pop().expect("one part read");
        if c0.representation() == Representation::Ntt {
            c0.to_coeff();
        }
        Ok(BfvSeededCiphertext { c0, seed })
    }

    /// Reads Galois keys written by [`BfvGaloisKeys::to_bytes`] or
    /// [`BfvGaloisKeys::to_expanded_bytes`] for this instance: `K` keys, their elements (each
    /// odd, below `2n`, strictly ascending), then in the compact form (kind 10) the `K` seeds
    /// and `L` NTT-form polynomials of basis `Q·P_s` per key, in the expanded form (kind 6)
    /// `2 L` polynomials per key.
    ///
    /// Errors: [`Error::Malformed`] for a wrong header, an element that is even, `>= 2n` or
    /// out of order, fewer bytes than the elements (and seeds) need, a polynomial not in NTT form,
    /// truncation or trailing bytes; [`Error::ContextMismatch`] for polynomials of another
    /// degree or other primes; [`Error::CoefficientOutOfRange`] for a residue not below its
    /// prime.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// use latpoly::Error;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 2, 97)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let bytes = bfv.galois_keygen(&keys.secret, &[3, 5], &mut rng)?.to_bytes();
    /// assert_eq!(bfv.galois_keys_from_bytes(&bytes)?.elements(), vec![3, 5]);
    /// let mut swapped = bytes.clone();
    /// swapped[8] = 7; // elements 7, 5: not ascending
    /// assert!(matches!(bfv.galois_keys_from_bytes(&swapped), Err(Error::Malformed(_))));
    /// let mut even = bytes.clone();
    /// even[8] = 4;
    /// assert!(matches!(bfv.galois_keys_from_bytes(&even), Err(Error::Malformed(_))));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn galois_keys_from_bytes(&self, bytes: &[u8]) -> Result<BfvGaloisKeys> {
        let seeded = bytes.get(5) == Some(&KIND_BFV_SEEDED_GALOIS_KEYS);
        let kind = if seeded {
            KIND_BFV_SEEDED_GALOIS_KEYS
        } else {
            KIND_BFV_GALOIS_KEYS
        };
        let (k, rest) = read_container_header(kind, bytes)?;
        if seeded && k == 0 {
            // one encoding per object: the empty set is written expanded
            return Err(Error::Malformed(
                "an empty set of Galois keys is written in expanded form (kind 6)".into(),
            ));
        }
        // the elements, and in the compact form the seeds
        let per_key = if seeded { 4 + SEED_LEN } else { 4 };
        if rest.len() < per_key * k {
            return Err(Error::Malformed(format!(
                "truncated: {k} Galois elements{} need {} bytes, {} present",
                if seeded { " and seeds" } else { "" },
                per_key * k,
                rest.len()
            )));
        }
        let (elems, rest) = rest.split_at(4 * k);
        let (seeds, rest) = rest.split_at(if seeded { SEED_LEN * k } else { 0 });
        let mut gs = Vec::with_capacity(k);
        for c in elems.chunks_exact(4) {
            let g = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize;
            if self.check_galois_element(g).is_err() || gs.last().is_some_and(|&p| p >= g) {
                return Err(Error::Malformed(format!(
                    "Galois element {g}: the elements are odd, below 2n = {} and strictly \
                     ascending",
                    2 * self.params.n
                )));
            }
            gs.push(g);
        }
        let l = self.q.len();
        if seeded {
            let mut polys = read_parts(kind, l * k, &self.qs, rest)?;
            check_ntt(&polys, "Galois key")?;
            let mut keys = Vec::with_capacity(k);
            for (g, seed) in gs.into_iter().zip(seeds.chunks_exact(SEED_LEN)).rev() {
                let seed: [u8; SEED_LEN] = seed.try_into().expect("SEED_LEN bytes");
                let b = polys.split_off(polys.len() - l);
                let a = self.expand_key_a(&seed, &self.qs, l);
                keys.push(GaloisKey {
                    g,
                    b,
                    a,
                    seed: Some(seed),
                });
            }
            keys.reverse();
            return Ok(BfvGaloisKeys { keys });
        }
        let mut polys = read_parts(kind, 2 * l * k, &self.qs, rest)?;
        check_ntt(&polys, "Galois key")?;
        let mut keys = Vec::with_capacity(k);
        for g in gs.into_iter().rev() {
            let a = polys.split_off(polys.len() - l);
            let b = polys.split_off(polys.len() - l);
            keys.push(GaloisKey {
                g,
                b,
                a,
                seed: None,
            });
        }
        keys.reverse();
        Ok(BfvGaloisKeys { keys })
    }
}
