//! Batching: `n` plaintext slots modulo a prime `t ≡ 1 (mod 2n)`, arranged as a `2 × (n/2)`
//! matrix whose rows the Galois automorphisms rotate (see [`super::galois`]).
//!
//! `x^n + 1` splits modulo such a `t` into `n` linear factors `x - ψ^e` (`ψ` a primitive
//! `2n`-th root of unity mod `t`, `e` odd), so a plaintext polynomial is determined by its `n`
//! values `m(ψ^e)`, and products and sums of plaintexts act slot by slot. Slot `(r, j)` (`r` in
//! `{0, 1}`, `j < n/2`; position `r·n/2 + j` of the vectors) holds `m(ψ^e)` for
//! `e = (-1)^r · 3^j mod 2n`. Since `m(x^g)` at `ψ^e` is `m(ψ^(e g))`, the automorphism with
//! `g = 3^k` moves slot `(r, j + k)` to `(r, j)` (both rows rotate left by `k`), and `g = -1`
//! exchanges the rows.

use super::Bfv;
use crate::error::{Error, Result};
use crate::ntt::{bit_reverse, NttPlan};

/// The transform modulo `t` and the slot order.
#[derive(Debug)]
pub(super) struct SlotEncoder {
    plan: NttPlan,
    /// `index[r·n/2 + j]`: the NTT output position of the evaluation at `ψ^((-1)^r 3^j)`.
    index: Vec<usize>,
}

impl SlotEncoder {
    /// `None` unless `t` is a prime `≡ 1 (mod 2n)` that the NTT handles.
    pub(super) fn new(n: usize, t: u64) -> Option<SlotEncoder> {
        let plan = NttPlan::new(n, t).ok()?;
        let (log_n, two_n) = (n.trailing_zeros(), 2 * n);
        // NTT output i is the evaluation at ψ^(2 brv(i) + 1); exponent e sits at brv((e-1)/2).
        let pos = |e: usize| bit_reverse((e - 1) / 2, log_n);
        let mut index = vec![0; n];
        let mut e = 1usize;
        for j in 0..n / 2 {
            index[j] = pos(e);
            index[n / 2 + j] = pos(two_n - e);
            e = e * 3 % two_n;
        }
        Some(SlotEncoder { plan, index })
    }
}

impl Bfv {
    /// True when `t` is a prime `≡ 1 (mod 2n)` below `2^62` (the NTT limit of 64-bit words):
    /// then plaintexts can be used as `n` slots ([`Self::encode_slots`]) and rotated under
    /// encryption ([`Self::rotate_rows`]).
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// assert!(Bfv::new(BfvParams::new(16, 30, 3, 97)?)?.batching()); // 97 = 1 + 3 · 32
    /// assert!(Bfv::new(BfvParams::new(16, 30, 3, 257)?)?.batching()); // 257 = 1 + 8 · 32
    /// assert!(!Bfv::new(BfvParams::new(16, 30, 3, 256)?)?.batching()); // not prime
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn batching(&self) -> bool {
        self.slots.is_some()
    }

    fn slot_encoder(&self) -> Result<&SlotEncoder> {
        self.slots.as_ref().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "batching needs a prime t ≡ 1 (mod 2n = {}) below 2^62; t = {} is not one",
                2 * self.params.n,
                self.params.t
            ))
        })
    }

    /// The plaintext polynomial whose `n` slots hold `values` (each below `t`), as a `2 × n/2`
    /// matrix: `values[r·n/2 + j]` is row `r`, column `j`. Sums and products of plaintexts (and
    /// of their encryptions) act slot by slot; [`Self::rotate_rows`] and [`Self::swap_rows`]
    /// move slots. Needs [`Self::batching`] ([`Error::InvalidArgument`] otherwise).
    ///
    /// Errors: [`Error::LengthMismatch`] unless there are `n` values,
    /// [`Error::CoefficientOutOfRange`] for a value `>= t`.
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// use latpoly::sampling::Sampler;
    /// let bfv = Bfv::new(BfvParams::new(16, 30, 3, 97)?)?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let keys = bfv.keygen(&mut rng)?;
    /// let (x, y): (Vec<u64>, Vec<u64>) = ((0..16).collect(), (10..26).collect());
    /// let cx = bfv.encrypt(&keys.public, &bfv.encode_slots(&x)?, &mut rng)?;
    /// let cy = bfv.encrypt(&keys.public, &bfv.encode_slots(&y)?, &mut rng)?;
    /// let prod = bfv.multiply_relin(&cx, &cy, &keys.relin)?;
    /// let got = bfv.decode_slots(&bfv.decrypt(&keys.secret, &prod)?)?;
    /// let want: Vec<u64> = x.iter().zip(&y).map(|(a, b)| a * b % 97).collect();
    /// assert_eq!(got, want); // sixteen products in one
    ///
    /// let plain = Bfv::new(BfvParams::new(16, 30, 3, 256)?)?; // t not a prime 1 mod 32
    /// assert!(plain.encode_slots(&x).is_err());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn encode_slots(&self, values: &[u64]) -> Result<Vec<u64>> {
        let enc = self.slot_encoder()?;
        self.check_plain(values)?;
        let mut m = vec![0u64; self.params.n];
        for (&v, &i) in values.iter().zip(&enc.index) {
            m[i] = v;
        }
        // the values were checked below t above; the transform need not check again
        enc.plan.inverse_unchecked(&mut m);
        Ok(m)
    }

    /// The `n` slot values of a plaintext polynomial (coefficients below `t`, e.g. from
    /// [`Self::decrypt`]): the inverse of [`Self::encode_slots`].
    ///
    /// Errors: those of [`Self::encode_slots`].
    ///
    /// ```
    /// use latpoly::he::bfv::{Bfv, BfvParams};
    /// let bfv = Bfv::new(BfvParams::new(8, 30, 2, 17)?)?; // 17 = 1 + 16
    /// let v = [1, 2, 3, 4, 5, 6, 7, 16];
    /// let m = bfv.encode_slots(&v)?;
    /// assert_eq!(bfv.decode_slots(&m)?, v);
    /// // the constant polynomial 5 has 5 in every slot
    /// assert_eq!(bfv.decode_slots(&[5, 0, 0, 0, 0, 0, 0, 0])?, [5; 8]);
    /// assert!(bfv.decode_slots(&[17, 0, 0, 0, 0, 0, 0, 0]).is_err()); // not below t
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn decode_slots(&self, plain: &[u64]) -> Result<Vec<u64>> {
        let enc = self.slot_encoder()?;
        self.check_plain(plain)?;
        let mut m = plain.to_vec();
        enc.plan.forward_unchecked(&mut m);
        Ok(enc.index.iter().map(|&i| m[i]).collect())
    }
}
