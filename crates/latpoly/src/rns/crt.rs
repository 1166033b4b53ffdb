//! Exact Chinese remaindering between residues modulo `q_1, ..., q_L` and integers modulo
//! `Q = q_1 ··· q_L`, for up to [`MAX_PRIMES`] primes below `2^62` (NFLlib parameter set 4 uses
//! 100 of them, a ~6200-bit `Q`).
//!
//! Reconstruction uses the classic formula with an exact correction:
//!
//! ```text
//! y_i = x_i · (Q/q_i)^-1 mod q_i
//! x   = Σ y_i · (Q/q_i) - v · Q,   v = floor(Σ y_i / q_i)
//! ```
//!
//! `Σ y_i (Q/q_i)` is accumulated in a fixed-width limb array, `v` is estimated in floating point
//! and the result is corrected (at most one addition or subtraction of `Q`), so the output is
//! exact whatever the rounding of the estimate. Decomposition is a dot product of the
//! integer's 64-bit words with the precomputed `2^(64k) mod q_i` (products summed in 128 bits
//! with a carry count, one Barrett reduction per residue), independent across words and primes;
//! integers wider than the table fall back to Horner's rule (one 128-bit Barrett reduction per
//! word, each waiting for the previous one). The reconstruction's `Σ y_i (Q/q_i)` is formed limb
//! by limb from the same dot product (a column table of the `Q/q_i`), carries propagated once.
//! NFLlib's 100 x 62-bit set at n = 1024 (`latpoly bench --only W6`): big integers to residues
//! 42-45 ms -> 6-9 ms, residues to big integers 10-12 ms -> 6-9 ms.
//!
//! **Secret values.** The limb functions ([`Crt::reconstruct_limbs`],
//! [`Crt::reconstruct_centered_limbs`], [`Crt::decompose_limbs`]) are constant time: no branch
//! or memory index depends on the residues or limbs (checked under Valgrind on poisoned
//! inputs, `tests/ct_sampling.rs`). The `BigUint` / `BigInt` forms are not: a big integer's
//! length is its size, and `num-bigint`'s arithmetic branches on it.

use crate::arith::ct::mask_u64;
use crate::arith::{Modulus, Modulus64};
use crate::error::{check_len, Error, Result};
use num_bigint::{BigInt, BigUint, Sign};
use num_traits::Zero;
use zeroize::Zeroize;

/// Precomputed CRT data for one list of distinct primes.
///
/// ```
/// use latpoly::rns::Crt;
/// let crt = Crt::new(&[17, 97, 113])?; // Q = 186337
/// let mut r = [0u64; 3];
/// crt.decompose_biguint(&123456u32.into(), &mut r)?;
/// assert_eq!(r, [123456 % 17, 123456 % 97, 123456 % 113]);
/// assert_eq!(crt.reconstruct(&r)?, 123456u32.into());
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Crt {
    moduli: Vec<Modulus64>,
    big_q: BigUint,
    /// `Q` as little-endian u64 limbs, padded to `width`.
    q_limbs: Vec<u64>,
    /// `floor(Q / 2)` as little-endian u64 limbs, padded to `width`.
    half_q_limbs: Vec<u64>,
    /// Limb `k` of `Q / q_i` at `[k · L + i]` (limbs padded to `width`): the reconstruction
    /// sums each output limb over all `i` from one contiguous row.
    qhat_cols: Vec<u64>,
    /// `(Q / q_i)^-1 mod q_i` and its Shoup quotient.
    qhat_inv: Vec<(u64, u64)>,
    inv_q: Vec<f64>,
    /// Limb width of the accumulator: enough for `L · Q`.
    width: usize,
    /// `2^(64 k) mod q_i` at `[i · width + k]`, `k < width`: the decomposition's dot product.
    word_pows: Vec<u64>,
    /// `2^128 mod q_i`: folds the dot product's carry count.
    pow128: Vec<u64>,
}

fn limbs_of(x: &BigUint, width: usize) -> Vec<u64> {
    let mut v = x.to_u64_digits();
    v.resize(width, 0);
    v
}

/// Builds a `BigUint` from little-endian u64 limbs.
pub(crate) fn biguint_from_limbs(limbs: &[u64]) -> BigUint {
    let mut digits = Vec::with_capacity(2 * limbs.len());
    for &l in limbs {
        digits.push(l as u32);
        digits.push((l >> 32) as u32);
    }
    BigUint::new(digits)
}

/// The most primes an RNS basis ([`Crt`], [`crate::rns::RnsContext`]) takes: 4,096 primes of
/// up to 62 bits, a modulus of about 250,000 bits, far beyond any scheme's. The tables of a
/// basis grow with the square of its size (about `8·L²` bytes, some 130 MB at this limit), so
/// a count from untrusted input must not choose it freely; the byte format's 16-bit count
/// (65,535) would allow a basis of tens of gigabytes.
pub const MAX_PRIMES: usize = 4096;

/// Refuses bases of more than [`MAX_PRIMES`] primes.
pub(crate) fn check_count(l: usize) -> Result<()> {
    if l > MAX_PRIMES {
        return Err(Error::InvalidArgument(format!(
            "an RNS basis of {l} primes: at most {MAX_PRIMES}"
        )));
    }
    Ok(())
}

impl Crt {
    /// Precomputes for the given moduli, which must be distinct primes below `2^62`
    /// ([`Error::InvalidModulus`] otherwise).
    ///
    /// ```
    /// use latpoly::{rns::Crt, Error};
    /// assert!(Crt::new(&[17, 97]).is_ok());
    /// // coprime, but 9 is not a prime
    /// assert!(matches!(Crt::new(&[9, 7]), Err(Error::InvalidModulus { q: 9, reason: "not a prime" })));
    /// assert!(matches!(Crt::new(&[]), Err(Error::InvalidArgument(_))));
    /// // a repeated prime: not coprime
    /// assert!(matches!(Crt::new(&[17, 17]), Err(Error::InvalidModulus { q: 17, .. })));
    /// // more than MAX_PRIMES moduli: refused before any work
    /// let many = vec![17; latpoly::rns::MAX_PRIMES + 1];
    /// assert!(matches!(Crt::new(&many), Err(Error::InvalidArgument(_))));
    /// ```
    pub fn new(primes: &[u64]) -> Result<Self> {
        if primes.is_empty() {
            return Err(Error::InvalidArgument("need at least one modulus".into()));
        }
        check_count(primes.len())?;
        if let Some(&q) = primes.iter().find(|&&q| !crate::primes::is_prime(q)) {
            return Err(Error::InvalidModulus {
                q,
                reason: "not a prime",
            });
        }
        let moduli = primes
            .iter()
            .map(|&q| Modulus64::new(q))
            .collect::<Result<Vec<_>>>()?;
        let big_q: BigUint = primes.iter().map(|&q| BigUint::from(q)).product();
        // L · Q < 2^(bits(Q) + 64) for L < 2^64: one spare limb.
        let width = (big_q.bits() as usize).div_ceil(64) + 1;
        let l = primes.len();
        let mut qhat_cols = vec![0u64; width * l];
        let mut qhat_inv = Vec::with_capacity(primes.len());
        for (m, &q) in moduli.iter().zip(primes) {
            let qhat = &big_q / q;
            let r = (&qhat % q).to_u64_digits().first().copied().unwrap_or(0);
            let inv = m.inv(r).ok_or(Error::InvalidModulus {
                q,
                reason: "moduli are not pairwise coprime",
            })?;
            qhat_inv.push((inv, m.shoup(inv)));
            let i = qhat_inv.len() - 1;
            for (k, limb) in limbs_of(&qhat, width).into_iter().enumerate() {
                qhat_cols[k * l + i] = limb;
            }
        }
        let mut word_pows = Vec::with_capacity(primes.len() * width);
        let mut pow128 = Vec::with_capacity(primes.len());
        for m in &moduli {
            let base = m.reduce_u128(1u128 << 64); // 2^64 mod q
            let mut p = 1 % m.value();
            for _ in 0..width {
                word_pows.push(p);
                p = m.mul(p, base);
            }
            pow128.push(m.mul(base, base));
        }
        Ok(Self {
            word_pows,
            pow128,
            inv_q: primes.iter().map(|&q| 1.0 / q as f64).collect(),
            q_limbs: limbs_of(&big_q, width),
            half_q_limbs: limbs_of(&(&big_q >> 1u32), width),
            moduli,
            big_q,
            qhat_cols,
            qhat_inv,
            width,
        })
    }

    /// The product `Q` of all moduli.
    ///
    /// ```
    /// let crt = latpoly::rns::Crt::new(&[17, 97, 113])?;
    /// assert_eq!(*crt.modulus(), 186337u32.into());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn modulus(&self) -> &BigUint {
        &self.big_q
    }

    /// The moduli.
    ///
    /// ```
    /// use latpoly::arith::Modulus;
    /// let crt = latpoly::rns::Crt::new(&[17, 97, 113])?;
    /// let qs: Vec<u64> = crt.moduli().iter().map(|m| m.value()).collect();
    /// assert_eq!(qs, [17, 97, 113]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn moduli(&self) -> &[Modulus64] {
        &self.moduli
    }

    /// Residues of an unsigned integer of any size: `out[i] = x mod q_i`.
    ///
    /// ```
    /// use num_bigint::BigUint;
    /// let crt = latpoly::rns::Crt::new(&[17, 97, 113])?;
    /// let x = BigUint::from(1u8) << 100u32; // far above Q: reduced mod each prime
    /// let mut r = [0u64; 3];
    /// crt.decompose_biguint(&x, &mut r)?;
    /// let want: Vec<u64> = [17u64, 97, 113]
    ///     .iter()
    ///     .map(|&q| u64::try_from(&x % q).unwrap())
    ///     .collect();
    /// assert_eq!(r.to_vec(), want);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `out` does not have one entry per prime.
    pub fn decompose_biguint(&self, x: &BigUint, out: &mut [u64]) -> Result<()> {
        check_len(self.moduli.len(), out.len())?;
        self.decompose_biguint_unchecked(x, out);
        Ok(())
    }

    /// [`Self::decompose_biguint`] into `out` of length `L` (not checked: a shorter `out` gets
    /// the first residues).
    pub(crate) fn decompose_biguint_unchecked(&self, x: &BigUint, out: &mut [u64]) {
        self.decompose_words(&x.to_u64_digits(), out);
    }

    /// Residues of the integer with little-endian limbs `words` into `out` (length not
    /// checked); branch-free but for `words.len()`.
    fn decompose_words(&self, words: &[u64], out: &mut [u64]) {
        if words.len() > self.width {
            return self.decompose_horner(words, out);
        }
        for (i, (o, m)) in out.iter_mut().zip(&self.moduli).enumerate() {
            let pows = &self.word_pows[i * self.width..][..words.len()];
            // Σ w_k (2^(64k) mod q) = top · 2^128 + s (products < 2^126)
            let (top, s) = dot_u64(words, pows);
            let r = m.reduce_u128(s);
            *o = m.add(r, m.mul(m.reduce_u64(top), self.pow128[i]));
        }
    }

    /// [`Self::decompose_biguint`] by Horner's rule, for integers wider than the table.
    fn decompose_horner(&self, words: &[u64], out: &mut [u64]) {
        for (o, m) in out.iter_mut().zip(&self.moduli) {
            let mut acc = 0u64;
            for &w in words.iter().rev() {
                acc = m.reduce_u128(((acc as u128) << 64) | w as u128);
            }
            *o = acc;
        }
    }

    /// Residues of a signed integer of any size: `out[i] = x mod q_i` in `[0, q_i)`.
    ///
    /// ```
    /// let crt = latpoly::rns::Crt::new(&[17, 97, 113])?;
    /// let mut r = [0u64; 3];
    /// crt.decompose_bigint(&(-1).into(), &mut r)?;
    /// assert_eq!(r, [16, 96, 112]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `out` does not have one entry per prime.
    pub fn decompose_bigint(&self, x: &BigInt, out: &mut [u64]) -> Result<()> {
        check_len(self.moduli.len(), out.len())?;
        self.decompose_bigint_unchecked(x, out);
        Ok(())
    }

    /// [`Self::decompose_bigint`] into `out` of length `L` (not checked).
    pub(crate) fn decompose_bigint_unchecked(&self, x: &BigInt, out: &mut [u64]) {
        self.decompose_biguint_unchecked(x.magnitude(), out);
        if x.sign() == Sign::Minus {
            for (o, m) in out.iter_mut().zip(&self.moduli) {
                *o = m.neg(*o);
            }
        }
    }

    /// Reconstructs the unique `x` in `[0, Q)` from its residues (`residues[i] < q_i`),
    /// written as little-endian limbs into `out` (length [`Self::limb_width`]). Constant time
    /// (see the module documentation).
    ///
    /// ```
    /// let crt = latpoly::rns::Crt::new(&[17, 97, 113])?;
    /// let mut out = vec![u64::MAX; crt.limb_width()]; // overwritten
    /// crt.reconstruct_limbs(&[16, 96, 112], &mut out)?; // -1 mod each prime
    /// // a short output is an error (it used to loop for ever)
    /// assert!(crt.reconstruct_limbs(&[16, 96, 112], &mut [0u64; 1]).is_err());
    /// assert_eq!(out[0], 186336); // Q - 1
    /// assert!(out[1..].iter().all(|&w| w == 0));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `residues` does not have one entry per prime or `out` is
    /// not [`Self::limb_width`] long (a short `out` made the final correction loop run for
    /// ever before the check).
    pub fn reconstruct_limbs(&self, residues: &[u64], out: &mut [u64]) -> Result<()> {
        check_len(self.moduli.len(), residues.len())?;
        check_len(self.width, out.len())?;
        self.reconstruct_limbs_unchecked(residues, out);
        Ok(())
    }

    /// [`Self::reconstruct_limbs`] with lengths the caller guarantees.
    ///
    /// Constant time: the quotient estimate `v` is rounded by adding `2^52` in floating
    /// point (no `floor` call, no saturating conversion), and the corrections are one masked
    /// addition and one masked subtraction of `Q`, whatever the residues.
    fn reconstruct_limbs_unchecked(&self, residues: &[u64], out: &mut [u64]) {
        debug_assert_eq!(residues.len(), self.moduli.len());
        debug_assert_eq!(out.len(), self.width);
        let l = self.moduli.len();
        let mut frac = 0.0f64;
        let mut ys = vec![0u64; l];
        for (i, ((y, &x), m)) in ys.iter_mut().zip(residues).zip(&self.moduli).enumerate() {
            let (w, wp) = self.qhat_inv[i];
            *y = m.mul_shoup(x, w, wp);
            frac += *y as f64 * self.inv_q[i];
        }
        // out = Σ_i y_i (Q/q_i), limb by limb: S_k = Σ_i y_i · limb_k(Q/q_i) (products below
        // 2^126), then the carries propagate once along the limbs.
        let mut carry = 0u128;
        for (k, o) in out.iter_mut().enumerate() {
            let col = &self.qhat_cols[k * l..(k + 1) * l];
            let (top, s) = dot_u64(&ys, col);
            let (s, c) = s.overflowing_add(carry);
            let top = u128::from(top) + u128::from(c);
            *o = s as u64;
            carry = (s >> 64) | (top << 64);
        }
        debug_assert_eq!(carry, 0);
        // the y_i are as secret as the residues
        ys.zeroize();
        // With x the result, out = Σ y_i (Q/q_i) = x + k Q where k = floor(Σ y_i / q_i) (as
        // Σ y_i / q_i = k + x / Q, x / Q in [0, 1)), in [0, L). `frac` estimates that sum with
        // an absolute error below 2^-27 for L <= MAX_PRIMES, so its nearest integer `v` is k or
        // k + 1. Adding 2^52 rounds to the nearest integer in the low mantissa bits.
        const TWO52: f64 = 4_503_599_627_370_496.0;
        let v = (frac + TWO52).to_bits() - TWO52.to_bits();
        // out -= v · Q, then + Q if that went negative (v = k + 1, whenever x / Q rounds up),
        // then - Q if still at least Q (a safety net: v = k - 1 would need an error above 1/2).
        let borrow = mul_sub_limbs(out, &self.q_limbs, v);
        add_limbs_masked(out, &self.q_limbs, mask_u64(u64::from(borrow)));
        csub_limbs(out, &self.q_limbs);
        debug_assert!(lt_limbs(out, &self.q_limbs));
    }

    /// Reconstructs `x` in the centred range `(-Q/2, Q/2]` from its residues, written as
    /// little-endian two's-complement limbs into `out` (length [`Self::limb_width`]; the top
    /// limb's high bit is the sign). Constant time, like [`Self::reconstruct_limbs`].
    ///
    /// ```
    /// let crt = latpoly::rns::Crt::new(&[17, 97, 113])?; // Q = 186337
    /// let mut out = [0u64; 2];
    /// crt.reconstruct_centered_limbs(&[16, 96, 112], &mut out)?; // -1
    /// assert_eq!(out, [u64::MAX, u64::MAX]);
    /// crt.reconstruct_centered_limbs(&[5, 5, 5], &mut out)?; // 5
    /// assert_eq!(out, [5, 0]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `residues` does not have one entry per prime or `out` is
    /// not [`Self::limb_width`] long.
    pub fn reconstruct_centered_limbs(&self, residues: &[u64], out: &mut [u64]) -> Result<()> {
        check_len(self.moduli.len(), residues.len())?;
        check_len(self.width, out.len())?;
        self.reconstruct_limbs_unchecked(residues, out);
        // x > floor(Q/2) stands for x - Q (negative, as x < Q): the range (-Q/2, Q/2] for
        // odd Q, and for even Q the half Q/2 stays on the positive side.
        let mut above = 0u64; // borrow of floor(Q/2) - x: 1 iff x > floor(Q/2)
        for (k, &x) in out.iter().enumerate() {
            let h = self.half_q_limbs[k];
            let (d, b1) = h.overflowing_sub(x);
            let (_, b2) = d.overflowing_sub(above);
            above = u64::from(b1 | b2);
        }
        let mask = mask_u64(above);
        let mut borrow = 0u64;
        for (o, &q) in out.iter_mut().zip(&self.q_limbs) {
            let (d, b1) = o.overflowing_sub(q);
            let (d, b2) = d.overflowing_sub(borrow);
            borrow = u64::from(b1 | b2);
            *o = (d & mask) | (*o & !mask);
        }
        Ok(())
    }

    /// Residues of the unsigned integer whose little-endian 64-bit limbs are `words` (any
    /// length): `out[i] = x mod q_i`. Constant time for a given `words.len()`: the same
    /// dot product with the powers `2^(64k) mod q_i` as [`Self::decompose_biguint`] (Horner's
    /// rule beyond [`Self::limb_width`] words), Barrett reductions, no branch on the data;
    /// the `BigUint` functions are not (a big integer's length is its size).
    ///
    /// ```
    /// let crt = latpoly::rns::Crt::new(&[17, 97, 113])?;
    /// let mut r = [0u64; 3];
    /// crt.decompose_limbs(&[123456, 0], &mut r)?;
    /// assert_eq!(r, [123456 % 17, 123456 % 97, 123456 % 113]);
    /// crt.decompose_limbs(&[0, 1, 0, 0, 7], &mut r)?; // 2^64 + 7 · 2^256
    /// let x = (num_bigint::BigUint::from(7u8) << 256u32) + (num_bigint::BigUint::from(1u8) << 64u32);
    /// let mut want = [0u64; 3];
    /// crt.decompose_biguint(&x, &mut want)?;
    /// assert_eq!(r, want);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `out` does not have one entry per prime.
    pub fn decompose_limbs(&self, words: &[u64], out: &mut [u64]) -> Result<()> {
        check_len(self.moduli.len(), out.len())?;
        self.decompose_words(words, out);
        Ok(())
    }

    /// Limb width used by [`Self::reconstruct_limbs`].
    ///
    /// ```
    /// use latpoly::rns::Crt;
    /// assert_eq!(Crt::new(&[17, 97, 113])?.limb_width(), 2); // Q < 2^64, plus one spare limb
    /// let qs = latpoly::primes::ntt_primes(62, 16, 3)?; // Q of 186 bits: 3 limbs + 1
    /// assert_eq!(Crt::new(&qs)?.limb_width(), 4);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn limb_width(&self) -> usize {
        self.width
    }

    /// Reconstructs `x` in `[0, Q)`.
    ///
    /// ```
    /// let crt = latpoly::rns::Crt::new(&[17, 97])?;
    /// assert_eq!(crt.reconstruct(&[1, 2])?, 681u32.into()); // 681 = 40·17 + 1 = 7·97 + 2
    /// assert_eq!(crt.reconstruct(&[16, 96])?, (17u32 * 97 - 1).into());
    /// assert!(crt.reconstruct(&[1, 2, 3]).is_err()); // one residue per prime
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `residues` does not have one entry per prime.
    pub fn reconstruct(&self, residues: &[u64]) -> Result<BigUint> {
        check_len(self.moduli.len(), residues.len())?;
        Ok(self.reconstruct_unchecked(residues))
    }

    /// [`Self::reconstruct`] of `L` residues (not checked).
    pub(crate) fn reconstruct_unchecked(&self, residues: &[u64]) -> BigUint {
        let mut limbs = vec![0u64; self.width];
        self.reconstruct_limbs_unchecked(residues, &mut limbs);
        biguint_from_limbs(&limbs)
    }

    /// Reconstructs `x` in the centred range `(-Q/2, Q/2]`.
    ///
    /// ```
    /// use num_bigint::BigInt;
    /// let crt = latpoly::rns::Crt::new(&[17, 97, 113])?; // Q = 186337, Q/2 = 93168.5
    /// assert_eq!(crt.reconstruct_centered(&[16, 96, 112])?, BigInt::from(-1));
    /// let mut r = [0u64; 3];
    /// crt.decompose_biguint(&93168u32.into(), &mut r)?;
    /// assert_eq!(crt.reconstruct_centered(&r)?, BigInt::from(93168));
    /// crt.decompose_biguint(&93169u32.into(), &mut r)?;
    /// assert_eq!(crt.reconstruct_centered(&r)?, BigInt::from(-93168));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `residues` does not have one entry per prime.
    pub fn reconstruct_centered(&self, residues: &[u64]) -> Result<BigInt> {
        check_len(self.moduli.len(), residues.len())?;
        Ok(self.reconstruct_centered_unchecked(residues))
    }

    /// [`Self::reconstruct_centered`] of `L` residues (not checked).
    pub(crate) fn reconstruct_centered_unchecked(&self, residues: &[u64]) -> BigInt {
        let x = self.reconstruct_unchecked(residues);
        let half = &self.big_q >> 1u32;
        if x > half {
            BigInt::from_biguint(Sign::Minus, &self.big_q - x)
        } else if x.is_zero() {
            BigInt::zero()
        } else {
            BigInt::from_biguint(Sign::Plus, x)
        }
    }
}

/// `Σ a_k b_k` for `a_k, b_k < 2^64` with every product below `2^126`, as `(top, low)` with the
/// sum `= top · 2^128 + low`: two independent chains of 128-bit sums whose carries are counted
/// (measured: four chains in an array were 2.7x slower, a 128-bit carry count 1.1-1.5x).
#[inline(always)]
fn dot_u64(a: &[u64], b: &[u64]) -> (u64, u128) {
    let (mut a0, mut a1, mut top) = (0u128, 0u128, 0u64);
    let mut pairs = a.chunks_exact(2).zip(b.chunks_exact(2));
    for (x, y) in &mut pairs {
        let (s0, c0) = a0.overflowing_add(u128::from(x[0]) * u128::from(y[0]));
        let (s1, c1) = a1.overflowing_add(u128::from(x[1]) * u128::from(y[1]));
        (a0, a1) = (s0, s1);
        top += u64::from(c0) + u64::from(c1);
    }
    if a.len() % 2 == 1 {
        let k = a.len() - 1;
        let (s0, c0) = a0.overflowing_add(u128::from(a[k]) * u128::from(b[k]));
        a0 = s0;
        top += u64::from(c0);
    }
    let (low, c) = a0.overflowing_add(a1);
    (top + u64::from(c), low)
}

/// `acc -= b · y`; returns true if the result went negative (two's complement wrap).
fn mul_sub_limbs(acc: &mut [u64], b: &[u64], y: u64) -> bool {
    let mut borrow = 0u128; // amount to subtract from the next limb
    for (a, &bl) in acc.iter_mut().zip(b) {
        let sub = bl as u128 * y as u128 + borrow;
        let (lo, hi) = (sub as u64, (sub >> 64) as u64);
        let (r, b1) = a.overflowing_sub(lo);
        *a = r;
        borrow = hi as u128 + b1 as u128;
    }
    borrow != 0
}

/// `acc += b & mask` (`mask` all-ones or zero), carries dropped past the top limb.
fn add_limbs_masked(acc: &mut [u64], b: &[u64], mask: u64) {
    let mut carry = 0u64;
    for (a, &bl) in acc.iter_mut().zip(b) {
        let (r1, c1) = a.overflowing_add(bl & mask);
        let (r2, c2) = r1.overflowing_add(carry);
        *a = r2;
        carry = u64::from(c1 | c2);
    }
}

/// `acc -= b` if `acc >= b` (same length), by a full subtraction and a masked select.
fn csub_limbs(acc: &mut [u64], b: &[u64]) {
    let mut borrow = 0u64;
    for (&a, &bl) in acc.iter().zip(b) {
        let (r1, b1) = a.overflowing_sub(bl);
        let (_, b2) = r1.overflowing_sub(borrow);
        borrow = u64::from(b1 | b2);
    }
    // keep = all-ones iff acc < b (the subtraction borrowed)
    let keep = mask_u64(borrow);
    let mut borrow = 0u64;
    for (a, &bl) in acc.iter_mut().zip(b) {
        let (r1, b1) = a.overflowing_sub(bl & !keep);
        let (r2, b2) = r1.overflowing_sub(borrow);
        *a = r2;
        borrow = u64::from(b1 | b2);
    }
}

fn lt_limbs(a: &[u64], b: &[u64]) -> bool {
    for (x, y) in a.iter().rev().zip(b.iter().rev()) {
        if x != y {
            return x < y;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primes::ntt_primes;

    /// Wrong lengths are errors on every public entry point (a short output of
    /// `reconstruct_limbs` used to loop for ever in release builds).
    #[test]
    fn wrong_lengths_are_errors() {
        let crt = Crt::new(&[17, 97, 113]).unwrap();
        let mismatch = |e: Result<()>| matches!(e, Err(Error::LengthMismatch { .. }));
        for len in [0usize, 1, 3, 4] {
            let mut out = vec![0u64; len];
            assert_eq!(
                len == 2,
                !mismatch(crt.reconstruct_limbs(&[1, 2, 3], &mut out))
            );
        }
        assert!(mismatch(crt.reconstruct_limbs(&[1, 2], &mut [0u64; 2])));
        for res in [&[1u64, 2][..], &[1, 2, 3, 4], &[]] {
            assert!(crt.reconstruct(res).is_err() && crt.reconstruct_centered(res).is_err());
        }
        for len in [0usize, 1, 3, 4] {
            let mut out = vec![0u64; len];
            assert_eq!(
                len == 2,
                !mismatch(crt.reconstruct_centered_limbs(&[1, 2, 3], &mut out))
            );
        }
        assert!(mismatch(
            crt.reconstruct_centered_limbs(&[1, 2, 3, 4], &mut [0u64; 2])
        ));
        for len in [0usize, 2, 4] {
            let mut out = vec![0u64; len];
            assert!(mismatch(crt.decompose_limbs(&[5], &mut out)));
            assert!(mismatch(crt.decompose_biguint(&5u32.into(), &mut out)));
            assert!(mismatch(crt.decompose_bigint(&(-5).into(), &mut out)));
        }
    }

    #[test]
    fn roundtrip_small() {
        let ps = [17u64, 97, 113];
        let crt = Crt::new(&ps).unwrap();
        let q = 17 * 97 * 113u64;
        for x in 0..q {
            let mut r = [0u64; 3];
            crt.decompose_biguint(&BigUint::from(x), &mut r).unwrap();
            assert_eq!(r, [x % 17, x % 97, x % 113]);
            assert_eq!(crt.reconstruct(&r).unwrap(), BigUint::from(x));
        }
    }

    #[test]
    fn roundtrip_edges_100_primes() {
        let ps = ntt_primes(62, 1024, 100).unwrap();
        let crt = Crt::new(&ps).unwrap();
        let q = crt.modulus().clone();
        let one = BigUint::from(1u8);
        for x in [
            BigUint::zero(),
            one.clone(),
            &q - &one,
            &q >> 1u32,
            (&q >> 1u32) + &one,
            &q - BigUint::from(ps[0]),
        ] {
            let mut r = vec![0u64; ps.len()];
            crt.decompose_biguint(&x, &mut r).unwrap();
            assert_eq!(crt.reconstruct(&r).unwrap(), x);
        }
        // Residues all q_i - 1 is Q - 1.
        let r: Vec<u64> = ps.iter().map(|&p| p - 1).collect();
        assert_eq!(crt.reconstruct(&r).unwrap(), &q - &one);
        // Centered.
        let mut r = vec![0u64; ps.len()];
        crt.decompose_bigint(&BigInt::from(-5), &mut r).unwrap();
        assert_eq!(crt.reconstruct_centered(&r).unwrap(), BigInt::from(-5));
    }

    /// The dot-product decomposition against `%` of `num-bigint` and against Horner's rule,
    /// for integers of every word count up to past the table (the Horner fallback), with
    /// all-ones words (largest products and carry counts), zero and random words; the
    /// reconstruction of those residues against `x mod Q` (odd and even prime counts).
    #[test]
    fn decomposition_matches_bigint_remainders() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(21);
        for ps in [
            vec![17u64, 97, 113],
            ntt_primes(62, 1024, 100).unwrap(),
            ntt_primes(30, 16, 5).unwrap(),
            ntt_primes(50, 16, 7).unwrap(),
            ntt_primes(62, 16, 1).unwrap(),
            ntt_primes(62, 2048, 99).unwrap(),
        ] {
            let crt = Crt::new(&ps).unwrap();
            for words in 0..crt.limb_width() + 3 {
                for kind in 0..3 {
                    let limbs: Vec<u64> = (0..words)
                        .map(|_| match kind {
                            0 => u64::MAX,
                            1 => rng.gen(),
                            _ => rng.gen::<u64>() >> rng.gen_range(0..64),
                        })
                        .collect();
                    let x = biguint_from_limbs(&limbs);
                    let mut got = vec![0u64; ps.len()];
                    crt.decompose_biguint(&x, &mut got).unwrap();
                    let want: Vec<u64> = ps
                        .iter()
                        .map(|&q| (&x % q).to_u64_digits().first().copied().unwrap_or(0))
                        .collect();
                    assert_eq!(got, want, "{} primes, {words} words, kind {kind}", ps.len());
                    // the limb form, leading zero words included
                    let mut from_limbs = vec![0u64; ps.len()];
                    crt.decompose_limbs(&limbs, &mut from_limbs).unwrap();
                    assert_eq!(from_limbs, want);
                    let mut horner = vec![0u64; ps.len()];
                    crt.decompose_horner(&x.to_u64_digits(), &mut horner);
                    assert_eq!(horner, want);
                    // and back: the reconstruction is x mod Q
                    assert_eq!(crt.reconstruct(&got).unwrap(), &x % crt.modulus());
                }
            }
        }
    }

    /// The centred limb form against `reconstruct_centered` (two's complement over the limb
    /// width), at the edges of the centring (`floor(Q/2)`, one above, `Q - 1`, 0, 1) and on
    /// random residues, for one-limb, multi-limb and 100-prime bases.
    #[test]
    fn centred_limbs_match_the_big_integer_form() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
        for ps in [
            vec![17u64, 97, 113],
            ntt_primes(62, 16, 1).unwrap(),
            ntt_primes(62, 16, 2).unwrap(),
            ntt_primes(50, 16, 7).unwrap(),
            ntt_primes(62, 1024, 100).unwrap(),
        ] {
            let crt = Crt::new(&ps).unwrap();
            let q = crt.modulus().clone();
            let one = BigUint::from(1u8);
            let mut xs = vec![
                BigUint::zero(),
                one.clone(),
                &q >> 1u32,
                (&q >> 1u32) + &one,
                &q - &one,
            ];
            xs.extend((0..40).map(|_| {
                let limbs: Vec<u64> = (0..crt.limb_width()).map(|_| rng.gen()).collect();
                biguint_from_limbs(&limbs) % &q
            }));
            let width = crt.limb_width();
            let two_w = BigInt::from(1u8) << (64 * width);
            for x in xs {
                let mut r = vec![0u64; ps.len()];
                crt.decompose_biguint(&x, &mut r).unwrap();
                let mut plain = vec![0u64; width];
                crt.reconstruct_limbs(&r, &mut plain).unwrap();
                assert_eq!(biguint_from_limbs(&plain), x);
                let mut out = vec![0u64; width];
                crt.reconstruct_centered_limbs(&r, &mut out).unwrap();
                let want = crt.reconstruct_centered(&r).unwrap();
                let want = if want.sign() == Sign::Minus {
                    &two_w + &want
                } else {
                    want
                };
                let got = BigInt::from_biguint(Sign::Plus, biguint_from_limbs(&out));
                assert_eq!(got, want, "{} primes, x = {x}", ps.len());
            }
        }
    }
}
