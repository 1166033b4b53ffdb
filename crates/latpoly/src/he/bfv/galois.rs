//! Galois automorphisms of BFV ciphertexts: `c(x) -> c(x^g)` followed by a key switch from
//! `s(x^g)` back to `s`, and the slot rotations they give with batching ([`super::slots`]).
//!
//! `(c_0(x^g), c_1(x^g))` decrypts to `m(x^g)` under `s(x^g)`. A Galois key for `g` is a
//! key-switching key from `s(x^g)` to `s` (the same RNS gadget and special prime as the
//! relinearization key: `b_i = -(a_i s + e_i) + P_s (Q/q_i) s(x^g)` modulo `Q·P_s`), so
//! `(c_0(x^g), 0) + round((Σ D_i b_i, Σ D_i a_i) / P_s)`, with the digits `D_i` of
//! `c_1(x^g)`, decrypts to `m(x^g)` under `s`, with the key switch's additive noise. With batching, `g = 3^k mod 2n` rotates both slot rows left by `k` and
//! `g = 2n - 1` exchanges the rows.

use super::{Bfv, BfvCiphertext, BfvSecretKey};
use crate::error::{Error, Result};
use crate::rns::RnsPoly;
use crate::sampling::Sampler;

/// One key-switching key from `s(x^g)` to `s`.
#[derive(Clone, Debug)]
pub(super) struct GaloisKey {
    pub(super) g: usize,
    pub(super) b: Vec<RnsPoly>,
    pub(super) a: Vec<RnsPoly>,
    /// The seed the `a_i` expand from, when known (keys made here or read from compact bytes).
    pub(super) seed: Option<[u8; super::SEED_LEN]>,
}

/// Galois keys: one key-switching key per Galois element `g` (odd, below `2n`), from
/// [`Bfv::galois_keygen`] or [`Bfv::rotation_keygen`]. They are public (evaluation) keys.
/// `Default` is the empty set (enough for the identity `g = 1`).
///
/// ```
/// use latpoly::he::bfv::{Bfv, BfvParams};
/// use latpoly::sampling::Sampler;
/// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 97)?)?;
/// let mut rng = Sampler::from_seed([1; 32]);
/// let keys = bfv.keygen(&mut rng)?;
/// let gk = bfv.rotation_keygen(&keys.secret, &[1, -1], true, &mut rng)?;
/// // 3^1, 3^-1 = 3^7 (3 has order 8 mod 32) and the row swap 31, sorted
/// assert_eq!(gk.elements(), vec![3, 11, 31]);
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct BfvGaloisKeys {
    /// Sorted by element, no repeats.
    pub(super) keys: Vec<GaloisKey>,
}

impl BfvGaloisKeys {
    /// The Galois elements with a key, ascending.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 2, 97)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let gk = bfv.galois_keygen(&keys.secret, &[31, 3, 3], &mut rng)?;
    /// assert_eq!(gk.elements(), vec![3, 31]);
    /// assert_eq!(gk.len(), 2);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn elements(&self) -> Vec<usize> {
        self.keys.iter().map(|k| k.g).collect()
    }

    /// The number of keys.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 2, 97)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// assert_eq!(bfv.galois_keygen(&keys.secret, &[5, 7], &mut rng)?.len(), 2);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when there is no key.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 2, 97)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// assert!(bfv.galois_keygen(&keys.secret, &[], &mut rng)?.is_empty());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    fn get(&self, g: usize) -> Option<&GaloisKey> {
        self.keys
            .binary_search_by_key(&g, |k| k.g)
            .ok()
            .map(|i| &self.keys[i])
    }
}

impl Bfv {
    /// The Galois element `3^steps mod 2n` that rotates both slot rows left by `steps`
    /// (negative: right); `steps` is taken modulo the row length `n/2`.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 2, 97)?)?; // rows of 8, 2n = 32
    /// assert_eq!(bfv.rotation_element(0), 1);
    /// assert_eq!(bfv.rotation_element(1), 3);
    /// assert_eq!(bfv.rotation_element(2), 9);
    /// assert_eq!(bfv.rotation_element(-1), bfv.rotation_element(7)); // 3^7 = 2187 = 11 mod 32
    /// assert_eq!(bfv.rotation_element(8), 1);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn rotation_element(&self, steps: i64) -> usize {
        let n = self.params.n;
        let row = (n / 2).max(1) as i64;
        // 3^k mod 2n by square-and-multiply (k < n/2; the rotation path calls this every time)
        let (mut k, two_n) = (steps.rem_euclid(row) as u64, 2 * n as u64);
        let (mut g, mut base) = (1u64, 3u64);
        while k > 0 {
            if k & 1 == 1 {
                g = g * base % two_n;
            }
            base = base * base % two_n;
            k >>= 1;
        }
        g as usize
    }

    /// The Galois element `2n - 1` (`x -> x^-1`), which exchanges the two slot rows.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 2, 97)?)?;
    /// assert_eq!(bfv.row_swap_element(), 31);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn row_swap_element(&self) -> usize {
        2 * self.params.n - 1
    }

    /// Checks a Galois element: odd and in `1..2n`.
    pub(super) fn check_galois_element(&self, g: usize) -> Result<()> {
        if g.is_multiple_of(2) || g >= 2 * self.params.n {
            return Err(Error::InvalidArgument(format!(
                "a Galois element is odd and below 2n = {}, got {g}",
                2 * self.params.n
            )));
        }
        Ok(())
    }

    /// Galois keys for the given elements (each odd and below `2n`; repeats are merged). Needs
    /// the secret key; the keys themselves are public evaluation keys, `2 L` polynomials each.
    ///
    /// Errors: [`Error::InvalidArgument`] for an even element or one `>= 2n`, more than 65,535
    /// distinct elements (the limit of the byte format), or parameters that cannot key-switch
    /// (see [`Bfv::relinearize`]); [`Error::ContextMismatch`] for a secret key of other parameters.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let gk = bfv.galois_keygen(&keys.secret, &[5], &mut rng)?;
    /// // any t: the automorphism x -> x^5 on coefficient plaintexts
    /// let mut m = vec![0u64; 16];
    /// m[1] = 7; // 7x
    /// let c = bfv.apply_galois(&bfv.encrypt(&keys.public, &m, &mut rng)?, 5, &gk)?;
    /// let mut want = vec![0u64; 16];
    /// want[5] = 7; // 7x^5
    /// assert_eq!(bfv.decrypt(&keys.secret, &c)?, want);
    /// assert!(bfv.galois_keygen(&keys.secret, &[4], &mut rng).is_err()); // even
    /// assert!(bfv.galois_keygen(&keys.secret, &[33], &mut rng).is_err()); // not below 2n
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn galois_keygen(
        &self,
        sk: &BfvSecretKey,
        elements: &[usize],
        rng: &mut Sampler,
    ) -> Result<BfvGaloisKeys> {
        self.check_key_ctx(&sk.s)?;
        for &g in elements {
            self.check_galois_element(g)?;
        }
        let mut gs = elements.to_vec();
        gs.sort_unstable();
        gs.dedup();
        if gs.len() > usize::from(u16::MAX) {
            return Err(Error::InvalidArgument(format!(
                "{} Galois keys requested; a set holds at most 65535",
                gs.len()
            )));
        }
        self.check_key_switching()?;
        // s in the key-switching basis once for all elements (wiped however this ends)
        let mut s_qs = self.secret_with_special(&sk.s);
        let keys = self.galois_keys_qs(&sk.s, &s_qs, gs, rng);
        s_qs.wipe();
        Ok(BfvGaloisKeys { keys: keys? })
    }

    /// The keys of [`Self::galois_keygen`] for the validated elements `gs`, with `s` also in
    /// the key-switching basis (`s_qs`).
    fn galois_keys_qs(
        &self,
        s: &RnsPoly,
        s_qs: &RnsPoly,
        gs: Vec<usize>,
        rng: &mut Sampler,
    ) -> Result<Vec<GaloisKey>> {
        let mut keys = Vec::with_capacity(gs.len());
        for g in gs {
            let mut sg = s.automorphism(g as i64)?;
            let built = self.switching_key_qs(s_qs, &sg, rng);
            sg.wipe();
            let (b, a, seed) = built?;
            keys.push(GaloisKey {
                g,
                b,
                a,
                seed: Some(seed),
            });
        }
        Ok(keys)
    }

    /// Galois keys for rotating the slot rows by each of `steps` ([`Self::rotate_rows`]),
    /// and for [`Self::swap_rows`] when `swap` is true. A rotation by zero needs no key.
    ///
    /// Errors: those of [`Self::galois_keygen`].
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 97)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// // powers of two: any rotation is a sum of them
    /// let gk = bfv.rotation_keygen(&keys.secret, &[1, 2, 4], false, &mut rng)?;
    /// assert_eq!(gk.len(), 3);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn rotation_keygen(
        &self,
        sk: &BfvSecretKey,
        steps: &[i64],
        swap: bool,
        rng: &mut Sampler,
    ) -> Result<BfvGaloisKeys> {
        let mut gs: Vec<usize> = steps
            .iter()
            .map(|&k| self.rotation_element(k))
            .filter(|&g| g != 1)
            .collect();
        if swap {
            gs.push(self.row_swap_element());
        }
        self.galois_keygen(sk, &gs, rng)
    }

    /// The automorphism `x -> x^g` on an encrypted plaintext: decrypts to `m(x^g)`. `g = 1` is
    /// the identity and needs no key.
    ///
    /// The keys are this instance's, or those of an instance this one was lowered from
    /// ([`Bfv::lower`]).
    ///
    /// Errors: [`Error::InvalidArgument`] for a ciphertext of 3 polynomials (relinearize
    /// first), an invalid `g`, no key for `g` in `gk`, keys of other parameters, or parameters
    /// that cannot key-switch (see [`Bfv::relinearize`]);
    /// [`Error::ContextMismatch`] for a ciphertext of another instance.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 257)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let gk = bfv.galois_keygen(&keys.secret, &[3], &mut rng)?;
    /// let m: Vec<u64> = (0..16).collect();
    /// let c = bfv.encrypt(&keys.public, &m, &mut rng)?;
    /// let c3 = bfv.apply_galois(&c, 3, &gk)?;
    /// // x^i -> x^(3i mod 32), negated when 3i mod 32 >= 16
    /// let mut want = vec![0u64; 16];
    /// for (i, &v) in m.iter().enumerate() {
    ///     let e = 3 * i % 32;
    ///     if e < 16 { want[e] = v } else { want[e - 16] = (257 - v) % 257 }
    /// }
    /// assert_eq!(bfv.decrypt(&keys.secret, &c3)?, want);
    /// assert!(bfv.apply_galois(&c, 5, &gk).is_err()); // no key for 5
    /// assert!(bfv.apply_galois(&bfv.multiply(&c, &c)?, 3, &gk).is_err()); // 3 polynomials
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn apply_galois(
        &self,
        c: &BfvCiphertext,
        g: usize,
        gk: &BfvGaloisKeys,
    ) -> Result<BfvCiphertext> {
        self.check_ct(c)?;
        if c.c.len() != 2 {
            return Err(Error::InvalidArgument(
                "a Galois automorphism needs a ciphertext of 2 polynomials (relinearize first)"
                    .into(),
            ));
        }
        self.check_galois_element(g)?;
        if g == 1 {
            return Ok(c.clone());
        }
        let key = gk
            .get(g)
            .ok_or_else(|| Error::InvalidArgument(format!("no Galois key for the element {g}")))?;
        let basis = self.switch_basis(&key.b, &key.a, "Galois key")?;
        let (c0, c1) = (
            c.c[0].automorphism(g as i64)?,
            c.c[1].automorphism(g as i64)?,
        );
        let (c0, c1) = (Self::coeff_residues(&c0), Self::coeff_residues(&c1));
        let acc = self.key_switch(basis, &c1, &key.b, &key.a);
        Ok(self.finish_switch(basis, acc, [Some(&c0), None]))
    }

    /// Rotates both slot rows of an encrypted batched plaintext left by `steps` (negative:
    /// right): slot `(r, j)` of the result holds slot `(r, j + steps mod n/2)` of the input.
    /// Needs [`Self::batching`] for the slot reading to hold (the operation itself is the
    /// automorphism of [`Self::rotation_element`]) and the Galois key of that element.
    ///
    /// Errors: those of [`Self::apply_galois`].
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 97)?)?; // two rows of 8 slots
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let gk = bfv.rotation_keygen(&keys.secret, &[1, -2], true, &mut rng)?;
    /// let v: Vec<u64> = (0..16).collect();
    /// let c = bfv.encrypt(&keys.public, &bfv.encode_slots(&v)?, &mut rng)?;
    /// let slots = |c: latpoly::he::bfv::BfvCiphertext| -> latpoly::Result<Vec<u64>> {
    ///     bfv.decode_slots(&bfv.decrypt(&keys.secret, &c)?)
    /// };
    /// assert_eq!(slots(bfv.rotate_rows(&c, 1, &gk)?)?,
    ///            [1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8]);
    /// assert_eq!(slots(bfv.rotate_rows(&c, -2, &gk)?)?,
    ///            [6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13]);
    /// assert_eq!(slots(bfv.swap_rows(&c, &gk)?)?,
    ///            [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7]);
    /// assert!(bfv.rotate_rows(&c, 3, &gk).is_err()); // no key for 3 steps
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn rotate_rows(
        &self,
        c: &BfvCiphertext,
        steps: i64,
        gk: &BfvGaloisKeys,
    ) -> Result<BfvCiphertext> {
        self.apply_galois(c, self.rotation_element(steps), gk)
    }

    /// Exchanges the two slot rows of an encrypted batched plaintext (the automorphism
    /// `x -> x^-1`, [`Self::row_swap_element`]).
    ///
    /// Errors: those of [`Self::apply_galois`].
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(8, 30, 2, 17)?)?; // two rows of 4 slots
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let gk = bfv.rotation_keygen(&keys.secret, &[], true, &mut rng)?;
    /// let c = bfv.encrypt(&keys.public, &bfv.encode_slots(&[1, 2, 3, 4, 5, 6, 7, 8])?, &mut rng)?;
    /// let s = bfv.swap_rows(&c, &gk)?;
    /// assert_eq!(bfv.decode_slots(&bfv.decrypt(&keys.secret, &s)?)?, [5, 6, 7, 8, 1, 2, 3, 4]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn swap_rows(&self, c: &BfvCiphertext, gk: &BfvGaloisKeys) -> Result<BfvCiphertext> {
        self.apply_galois(c, self.row_swap_element(), gk)
    }
}
