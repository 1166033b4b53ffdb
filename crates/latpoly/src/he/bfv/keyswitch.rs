//! Key switching (relinearization, Galois automorphisms) and the bases it runs in, at every
//! level of a modulus chain.
//!
//! A switching key made by an instance over `Q_j = q_1 ... q_j` with special prime `P` holds
//! `L = j` pairs over `Q_j·P`, `k_i = (-(a_i s + e_i) + g_i·from, a_i)` with the gadget
//! `g_i = P (Q_j / q_i)`. The key's moduli fix its gadget, so an instance over the first `k`
//! primes of that chain (`k <= j`, [`Bfv::lower`]) can use it without the secret, as SEAL and
//! OpenFHE use their top-level keys at every level: with the digits
//!
//! ```text
//! D_i = [d (Q_j / q_i)^-1]_{q_i}, centred, for i = 1 .. k      (not (Q_k / q_i)^-1)
//! ```
//!
//! `Σ_{i <= k} D_i g_i ≡ P d (mod Q_k·P)`: modulo `q_m` only the term `i = m` is not zero and
//! it is `d (Q_j/q_m)^-1 · P (Q_j/q_m) = P d`; modulo `P` every term is zero. So
//! `Σ_{i <= k} D_i k_i`, read in the limbs `q_1 .. q_k` and `P` of the key, then divided by `P`
//! with rounding, switches exactly as the lower instance's own key would. The digits are as
//! small, so the noise is that of the relinearization bound with the key's `P` in place of the
//! instance's own (a wider `P` adds less). The pairs `i > k` and the limbs `q_(k+1) .. q_j` of
//! the key are not read.
//!
//! The key readers of an instance (`relin_key_from_bytes`, `galois_keys_from_bytes`) read keys
//! of its own basis only: a lower instance's server reads the full instance's keys with the
//! full instance, then uses them at every level.
//!
//! Each instance therefore keeps one [`SwitchBasis`] per key basis it serves: its own
//! (`Q·P_s`, keys of [`Bfv::keygen`] and [`Bfv::galois_keygen`] here) first, then those of the
//! instances it was lowered from. A key is matched to a basis by its moduli.

use super::modswitch::DropLimb;
use super::{Bfv, BfvCiphertext};
use crate::arith::Modulus;
use crate::error::{Error, Result};
use crate::rns::{convert_simd, scratch, Representation, RnsContext, RnsPoly};
use std::sync::Arc;

/// The tables of key switching at one instance with the keys of one basis
/// `q_1 .. q_j, P` (`j` at least the instance's `k` primes, which are its first `k`).
#[derive(Debug)]
pub(super) struct SwitchBasis {
    /// The moduli of the keys served: `q_1 .. q_j, P`.
    key_moduli: Vec<u64>,
    /// This instance's primes and the key's special prime, `q_1 .. q_k, P`: where the digits
    /// and the accumulators live.
    qs: Arc<RnsContext>,
    /// One digit per prime of this instance, `h = (Q_j / q_i)^-1 mod q_i`, with a limb for
    /// every prime of `qs` ([`convert_simd::DigitTables`]).
    digits: Vec<convert_simd::DigitTables>,
    /// Division by `P` with rounding, from `qs` to the instance's basis `Q_k`.
    special: DropLimb,
}

impl SwitchBasis {
    /// The tables for keys over `key_moduli` (`q_1 .. q_j, P`) at an instance whose basis with
    /// `P` appended is `qs` (`q_1 .. q_k, P`, the `q_i` a prefix of the key's).
    pub(super) fn new(qs: Arc<RnsContext>, key_moduli: &[u64]) -> Result<SwitchBasis> {
        let k = qs.len() - 1;
        let j = key_moduli.len() - 1;
        debug_assert!(k <= j && qs.moduli()[..k] == key_moduli[..k]);
        debug_assert_eq!(qs.moduli()[k], key_moduli[j]);
        let ms = qs.crt().moduli();
        let mut digits = Vec::with_capacity(k);
        for (i, m) in ms[..k].iter().enumerate() {
            // (Q_j / q_i) mod q_i, then its inverse
            let qhat = key_moduli[..j]
                .iter()
                .enumerate()
                .filter(|&(x, _)| x != i)
                .fold(1, |acc, (_, &qx)| m.mul(acc, m.reduce_u64(qx)));
            let h = m.inv(qhat).ok_or(Error::InvalidModulus {
                q: m.value(),
                reason: "moduli not coprime",
            })?;
            digits.push(convert_simd::DigitTables::new(ms, i, h));
        }
        let special = DropLimb::new(ms)?;
        Ok(SwitchBasis {
            key_moduli: key_moduli.to_vec(),
            qs,
            digits,
            special,
        })
    }

    /// The moduli of the keys this basis serves (`q_1 .. q_j, P`).
    pub(super) fn key_moduli(&self) -> &[u64] {
        &self.key_moduli
    }

    /// The special prime `P`.
    pub(super) fn special_prime(&self) -> u64 {
        self.key_moduli[self.key_moduli.len() - 1]
    }

    /// The limb of a key that holds limb `x` of [`Self::qs`]: the same index for the `q_i`,
    /// the key's last limb for `P`.
    fn key_limb(&self, x: usize) -> usize {
        if x + 1 < self.qs.len() {
            x
        } else {
            self.key_moduli.len() - 1
        }
    }
}

impl Bfv {
    /// The bases an instance lowered from this one to `low` (over this `Q`'s first primes,
    /// its own basis already built) serves besides its own: this instance's bases restricted
    /// to the primes of `low`, `P` kept ([`Bfv::lower`]).
    pub(super) fn inherit_switch_bases(&self, low: &mut Bfv) -> Result<()> {
        let k = low.q.len();
        for b in &self.switch {
            if low.switch.iter().any(|x| x.key_moduli == b.key_moduli) {
                continue;
            }
            let p = b.special_prime();
            let qs = if low.switch[0].special_prime() == p {
                Arc::clone(&low.qs)
            } else {
                let mut m = low.params.moduli.clone();
                m.push(p);
                RnsContext::new(low.params.n, &m)?
            };
            debug_assert_eq!(b.key_moduli[..k], low.params.moduli[..]);
            low.switch.push(SwitchBasis::new(qs, &b.key_moduli)?);
        }
        Ok(())
    }

    /// Key switching of `d` (coefficient-form residues in basis `Q`) with the key `(b, a)` of
    /// the basis `basis`: `(Σ D_i b_i, Σ D_i a_i)` in NTT form in `basis.qs`, with the digits
    /// `D_i = [d (Q_j/q_i)^-1]_{q_i}` as centred integers: a digit `x > q_i / 2` stands for
    /// `x - q_i` (module docs; `Q_j = Q` for this instance's own keys). The switched phase
    /// carries `Σ D_i e_i`, which [`Self::finish_switch`] divides by `P`; centred digits
    /// (mean square `q_i² / 12` against `q_i² / 3` for `[0, q_i)`) halve it. The key's shape is
    /// checked by the callers ([`Self::switch_basis`]).
    /// The accumulators come from the scratch pool ([`Self::finish_switch`] gives them back):
    /// the first digit's products are written, the others added.
    pub(super) fn key_switch(
        &self,
        basis: &SwitchBasis,
        d_res: &[u64],
        kb: &[RnsPoly],
        ka: &[RnsPoly],
    ) -> [Vec<u64>; 2] {
        let n = self.params.n;
        let l = basis.qs.len();
        let plans = basis.qs.plans();
        let mut acc0 = scratch::take(l * n);
        let mut acc1 = scratch::take(l * n);
        let mut d = scratch::take(l * n);
        for (i, tables) in basis.digits.iter().enumerate() {
            // Digit D_i in every limb of q_1 .. q_k, P (`centred_digit`; the SIMD twin gives
            // the same residues).
            let x = &d_res[i * n..(i + 1) * n];
            if !convert_simd::run_centred_digit(self.lane_isa, tables, x, &mut d) {
                tables.scalar(x, &mut d);
            }
            for j in 0..l {
                let dj = &mut d[j * n..(j + 1) * n];
                plans[j].forward_unchecked(dj);
                let r = j * n..(j + 1) * n;
                let kj = basis.key_limb(j);
                let rk = kj * n..(kj + 1) * n;
                let (b, a) = (&kb[i].residues()[rk.clone()], &ka[i].residues()[rk]);
                if i == 0 {
                    plans[j].pointwise_unchecked(dj, b, &mut acc0[r.clone()]);
                    plans[j].pointwise_unchecked(dj, a, &mut acc1[r]);
                } else {
                    plans[j].pointwise_acc_unchecked(dj, b, &mut acc0[r.clone()]);
                    plans[j].pointwise_acc_unchecked(dj, a, &mut acc1[r]);
                }
            }
        }
        scratch::give(d);
        [acc0, acc1]
    }

    /// `(c0 + round(INTT(acc0) / P), c1 + round(INTT(acc1) / P))` in basis `Q` (an absent
    /// `c_i` counts as zero): the end of a key switch in `basis`, in coefficient form. The
    /// division is exact after subtracting the centred residue mod `P`:
    /// `(x - [x]_P) · P^-1 mod q_j`.
    pub(super) fn finish_switch(
        &self,
        basis: &SwitchBasis,
        acc: [Vec<u64>; 2],
        c: [Option<&[u64]>; 2],
    ) -> BfvCiphertext {
        let n = self.params.n;
        let l = self.q.len();
        let plans = basis.qs.plans();
        let mut out = Vec::with_capacity(2);
        for (mut acc, ci) in acc.into_iter().zip(c) {
            for (j, plan) in plans.iter().enumerate() {
                plan.inverse_unchecked(&mut acc[j * n..(j + 1) * n]);
            }
            // (x - [x]_P) P^-1, [x]_P centred, straight into the result; then + c_i. The
            // result is the only polynomial-sized fresh allocation: the accumulators go back
            // to the pool.
            let mut res = vec![0u64; l * n];
            basis.special.divide(self.lane_isa, &acc, &mut res);
            scratch::give(acc);
            if let Some(ci) = ci {
                for (j, plan) in plans[..l].iter().enumerate() {
                    let r = j * n..(j + 1) * n;
                    plan.add_assign_unchecked(&mut res[r.clone()], &ci[r]);
                }
            }
            out.push(RnsPoly::from_residues_unchecked(
                &self.q,
                res,
                Representation::Coefficient,
            ));
        }
        BfvCiphertext { c: out }
    }

    /// `log2` of a bound on the noise one key switch with special prime `p` adds, against
    /// `log2(Q / 4t)`: the digits `D_i` (one per prime of this instance, centred, uniform on
    /// `(-q_i/2, q_i/2]`) multiply fresh Gaussian errors `e_i`, so a coefficient of
    /// `Σ D_i e_i / P` has variance `n σ² Σ q_i² / (12 P²)`; the division's rounding adds
    /// `ε_0 + ε_1 s` with `ε_k` uniform on `(-1/2, 1/2]` and `s` ternary, variance
    /// `(1 + 2n/3) / 12`. The bound is six standard deviations. `Q / 2t` is what decryption
    /// tolerates in all, and half of it is left to the ciphertext's own noise.
    fn key_switch_noise_log2(&self, p: u64) -> (f64, f64) {
        let prm = &self.params;
        let ps = p as f64;
        let sum_sq: f64 = prm.moduli.iter().map(|&q| (q as f64 / ps).powi(2)).sum();
        let var = prm.sigma * prm.sigma * prm.n as f64 * sum_sq / 12.0
            + (1.0 + 2.0 * prm.n as f64 / 3.0) / 12.0;
        let bound = 6f64.log2() + 0.5 * var.log2();
        let q_log2: f64 = prm.moduli.iter().map(|&q| (q as f64).log2()).sum();
        (bound, q_log2 - (prm.t as f64).log2() - 2.0)
    }

    /// Refuses key switching (relinearization, Galois automorphisms, rotations) with special
    /// prime `p` where the noise it adds ([`Self::key_switch_noise_log2`]) would make the
    /// result undecryptable: `Q / t` too small for even that noise.
    fn check_key_switching_with(&self, p: u64) -> Result<()> {
        let (noise, room) = self.key_switch_noise_log2(p);
        if noise >= room {
            return Err(Error::InvalidArgument(format!(
                "key switching with these parameters adds noise up to about 2^{noise:.1}, above \
                 the 2^{room:.1} (Q / 4t) decryption leaves for it (Q is too small for this t)"
            )));
        }
        Ok(())
    }

    /// [`Self::check_key_switching_with`] for this instance's own special prime (the keys it
    /// makes).
    pub(super) fn check_key_switching(&self) -> Result<()> {
        self.check_key_switching_with(self.switch[0].special_prime())
    }

    /// The basis that serves the key-switching key `(b, a)`: this instance's own (`L` NTT-form
    /// pairs over `Q·P_s`) or that of an instance this one was lowered from (`j >= L` pairs
    /// over `q_1 .. q_j, P`). Checks the key's shape, then that key switching with these
    /// primes and that basis's `P` leaves a decryptable result
    /// ([`Self::check_key_switching_with`]; a parent's wider `P` may serve where this
    /// instance's own would not).
    pub(super) fn switch_basis(
        &self,
        b: &[RnsPoly],
        a: &[RnsPoly],
        what: &str,
    ) -> Result<&SwitchBasis> {
        let n = self.params.n;
        let basis = b.first().and_then(|k0| {
            self.switch
                .iter()
                .find(|s| k0.context().n() == n && k0.context().moduli() == s.key_moduli())
        });
        let Some(basis) = basis else {
            return Err(Error::InvalidArgument(format!(
                "{what} of another parameter set (keys serve the instance that made them and \
                 the instances lowered from it)"
            )));
        };
        let j = basis.key_moduli.len() - 1;
        if b.len() != j
            || a.len() != j
            || b.iter().chain(a).any(|k| {
                !(k.context().n() == n && k.context().moduli() == basis.key_moduli())
                    || k.representation() != Representation::Ntt
            })
        {
            return Err(Error::InvalidArgument(format!(
                "{what} of another parameter set"
            )));
        }
        self.check_key_switching_with(basis.special_prime())?;
        Ok(basis)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{Bfv, BfvCiphertext, BfvParams, BfvRelinKey};
    use crate::arith::Modulus;
    use crate::error::Error;
    use crate::rns::{Representation, RnsPoly};
    use crate::sampling::Sampler;

    fn plain(n: usize, t: u64, salt: u64) -> Vec<u64> {
        (0..n as u64)
            .map(|i| (i * 2654435761 + salt * 97 + 1) % t)
            .collect()
    }

    /// Parameters of three primes of unequal widths, `small_bits`, 60, `small_bits` (the
    /// special prime is then 60 bits wide), `σ` and `t = 257`.
    pub(in crate::he::bfv) fn unequal_params(n: usize, small_bits: u32) -> BfvParams {
        let big = crate::primes::ntt_primes(60, n, 1).unwrap()[0];
        let small = crate::primes::ntt_primes(small_bits, n, 2).unwrap();
        BfvParams {
            moduli: vec![small[0], big, small[1]],
            ..BfvParams::new(n, 30, 3, 257).unwrap()
        }
    }

    /// The RMS noise a key switch with special prime `ps` adds at `bfv` (module docs).
    pub(in crate::he::bfv) fn predicted_rms(bfv: &Bfv, ps: f64) -> f64 {
        let sum_sq: f64 = bfv
            .params
            .moduli
            .iter()
            .map(|&q| (q as f64 / ps).powi(2))
            .sum();
        let (s, n) = (bfv.params.sigma, bfv.params.n as f64);
        (s * s * n * sum_sq / 12.0 + (1.0 + 2.0 * n / 3.0) / 12.0).sqrt()
    }

    /// RMS of `after - before` (two phases of one instance), as centred integers.
    pub(in crate::he::bfv) fn rms_change(bfv: &Bfv, after: &[u64], before: &[u64]) -> f64 {
        let n = bfv.params.n;
        let diff: Vec<u64> = bfv
            .q
            .crt()
            .moduli()
            .iter()
            .enumerate()
            .flat_map(|(j, m)| {
                let r = j * n..(j + 1) * n;
                after[r.clone()]
                    .iter()
                    .zip(&before[r])
                    .map(|(&x, &y)| m.sub(x, y))
                    .collect::<Vec<_>>()
            })
            .collect();
        let p = RnsPoly::from_residues(&bfv.q, diff, Representation::Coefficient).unwrap();
        let ms = p
            .to_centered_bigints()
            .iter()
            .map(|c| {
                use num_traits::ToPrimitive;
                c.to_f64().unwrap().powi(2)
            })
            .sum::<f64>()
            / n as f64;
        ms.sqrt()
    }

    /// The full instance's relinearization and Galois keys switch at every instance lowered
    /// from it (and lowered again), without the secret: products switched down and
    /// relinearized there decrypt to the ring product, with the budget the lower instance's
    /// own keys leave (within a bit), and rotations agree with the lower keys' rotations.
    #[test]
    fn full_keys_switch_at_every_lower_level() {
        for params in [
            BfvParams::new(1024, 50, 4, 65537).unwrap(),
            BfvParams::new(256, 40, 3, 257).unwrap(),
            BfvParams::new(512, 62, 3, 65537).unwrap(),
            unequal_params(256, 45),
        ] {
            let (n, t, l) = (params.n, params.t, params.moduli.len());
            let bfv = Bfv::new(params.clone()).unwrap();
            let mut rng = Sampler::from_seed([11; 32]);
            let keys = bfv.keygen(&mut rng).unwrap();
            let gk = bfv.galois_keygen(&keys.secret, &[3], &mut rng).unwrap();
            let (m1, m2) = (plain(n, t, 1), plain(n, t, 2));
            let c1 = bfv.encrypt(&keys.public, &m1, &mut rng).unwrap();
            let c2 = bfv.encrypt(&keys.public, &m2, &mut rng).unwrap();
            let c3 = bfv.multiply(&c1, &c2).unwrap();
            let want = bfv.plain_mul(&m1, &m2).unwrap();
            let want_g = bfv
                .decrypt(&keys.secret, &bfv.apply_galois(&c1, 3, &gk).unwrap())
                .unwrap();
            for k in 1..=l {
                let low = bfv.lower(k).unwrap();
                let sk = bfv.secret_key_for(&keys.secret, &low).unwrap();
                let own = low.keygen_with_secret(sk.clone(), &mut rng).unwrap();
                let own_gk = low.galois_keygen(&sk, &[3], &mut rng).unwrap();
                let c3k = bfv.mod_switch(&c3, &low).unwrap();
                let r = low.relinearize(&c3k, &keys.relin).unwrap();
                let r_own = low.relinearize(&c3k, &own.relin).unwrap();
                assert_eq!(low.decrypt(&sk, &r).unwrap(), want, "{:?} k {k}", params);
                assert_eq!(low.decrypt(&sk, &r_own).unwrap(), want);
                let (b, b_own) = (
                    low.noise_budget(&sk, &r).unwrap(),
                    low.noise_budget(&sk, &r_own).unwrap(),
                );
                assert!(b > 0 && b + 1 >= b_own && b_own + 1 >= b, "{b} {b_own}");
                // Galois: the full instance's key for x -> x^3
                let c1k = bfv.mod_switch(&c1, &low).unwrap();
                let g = low.apply_galois(&c1k, 3, &gk).unwrap();
                let g_own = low.apply_galois(&c1k, 3, &own_gk).unwrap();
                assert_eq!(low.decrypt(&sk, &g).unwrap(), want_g);
                assert_eq!(low.decrypt(&sk, &g_own).unwrap(), want_g);
                // a product made at the lower level, where its budget allows one
                if k >= 2 && params.moduli.iter().all(|&q| q > 1 << 39) {
                    let c2k = bfv.mod_switch(&c2, &low).unwrap();
                    let p = low.multiply_relin(&c1k, &c2k, &keys.relin).unwrap();
                    assert_eq!(low.decrypt(&sk, &p).unwrap(), want);
                }
                // lowered again: the full keys and the middle instance's keys both serve
                for k2 in 1..=k {
                    let lower = low.lower(k2).unwrap();
                    let sk2 = bfv.secret_key_for(&keys.secret, &lower).unwrap();
                    let c3k2 = bfv.mod_switch(&c3, &lower).unwrap();
                    for rlk in [&keys.relin, &own.relin] {
                        let r2 = lower.relinearize(&c3k2, rlk).unwrap();
                        assert_eq!(lower.decrypt(&sk2, &r2).unwrap(), want);
                    }
                    let c1k2 = bfv.mod_switch(&c1, &lower).unwrap();
                    for keys in [&gk, &own_gk] {
                        let g2 = lower.apply_galois(&c1k2, 3, keys).unwrap();
                        assert_eq!(lower.decrypt(&sk2, &g2).unwrap(), want_g);
                    }
                }
                // Keys serve downwards only: the lower instance's keys at the full one
                if k < l {
                    assert!(matches!(
                        bfv.relinearize(&c3, &own.relin),
                        Err(Error::InvalidArgument(_))
                    ));
                }
            }
        }
    }

    /// An instance built with `Bfv::new` over the same primes was not lowered from the full
    /// one and refuses its keys; keys of another chain, cut or mixed keys, and keys in
    /// coefficient form are refused too. Refused, never misused: each is an error.
    #[test]
    fn foreign_and_malformed_keys_are_refused() {
        let params = BfvParams::new(256, 40, 3, 257).unwrap();
        let bfv = Bfv::new(params.clone()).unwrap();
        let mut rng = Sampler::from_seed([12; 32]);
        let keys = bfv.keygen(&mut rng).unwrap();
        let gk = bfv.galois_keygen(&keys.secret, &[3], &mut rng).unwrap();
        let c = bfv
            .encrypt(&keys.public, &plain(256, 257, 3), &mut rng)
            .unwrap();
        let c3 = bfv.multiply(&c, &c).unwrap();
        let fresh = Bfv::new(BfvParams {
            moduli: params.moduli[..2].to_vec(),
            ..params.clone()
        })
        .unwrap();
        let c3f = bfv.mod_switch(&c3, &fresh).unwrap();
        let refused = |r: crate::error::Result<BfvCiphertext>| matches!(r, Err(Error::InvalidArgument(ref s)) if s.contains("another parameter set"));
        assert!(refused(fresh.relinearize(&c3f, &keys.relin)));
        let cf = bfv.mod_switch(&c, &fresh).unwrap();
        assert!(refused(fresh.apply_galois(&cf, 3, &gk)));
        // ... while the same instance made by `lower` takes them
        let low = bfv.lower(2).unwrap();
        let c3l = bfv.mod_switch(&c3, &low).unwrap();
        assert!(low.relinearize(&c3l, &keys.relin).is_ok());
        // another chain: the same n, t and widths, other primes
        let other = Bfv::new(BfvParams {
            moduli: crate::primes::ntt_primes(40, 256, 6).unwrap()[3..].to_vec(),
            ..params.clone()
        })
        .unwrap();
        let other_keys = other.keygen(&mut rng).unwrap();
        assert!(refused(low.relinearize(&c3l, &other_keys.relin)));
        // a key cut to the lower instance's number of pairs, and one with a pair of another
        // basis
        let cut = BfvRelinKey {
            b: keys.relin.b[..2].to_vec(),
            a: keys.relin.a[..2].to_vec(),
            seed: None,
        };
        assert!(refused(low.relinearize(&c3l, &cut)));
        assert!(refused(bfv.relinearize(&c3, &cut)));
        let mut mixed = keys.relin.clone();
        mixed.a[1] = other_keys.relin.a[1].clone();
        assert!(refused(low.relinearize(&c3l, &mixed)));
        let mut coeff = keys.relin.clone();
        coeff.b[2].to_coeff();
        assert!(refused(low.relinearize(&c3l, &coeff)));
    }

    /// Relinearization at a lower instance with the full instance's key adds the noise the
    /// module docs predict with the full instance's special prime and the lower instance's
    /// primes (as `key_switch_noise_is_as_predicted` checks for an instance's own keys). The
    /// full instance's widest prime (60 bits) makes its `P` 60 bits wide where the lower
    /// instances' own are 45: the two predictions differ about fivefold, so the test tells
    /// which `P` divided.
    #[test]
    fn full_key_noise_at_a_lower_level_is_as_predicted() {
        let big = crate::primes::ntt_primes(60, 1024, 1).unwrap()[0];
        let small = crate::primes::ntt_primes(45, 1024, 2).unwrap();
        let params = BfvParams {
            moduli: vec![small[0], small[1], big],
            ..BfvParams::new(1024, 30, 3, 257).unwrap()
        };
        let bfv = Bfv::new(params).unwrap();
        let mut rng = Sampler::from_seed([13; 32]);
        let keys = bfv.keygen(&mut rng).unwrap();
        let predict = predicted_rms;
        for k in [1, 2] {
            let low = bfv.lower(k).unwrap();
            let (top_p, own_p) = (
                bfv.switch[0].special_prime() as f64,
                low.switch[0].special_prime() as f64,
            );
            assert!(predict(&low, own_p) > 4.0 * predict(&low, top_p));
            let sk = bfv.secret_key_for(&keys.secret, &low).unwrap();
            let zero = RnsPoly::zero(&low.q, Representation::Coefficient);
            let c3 = BfvCiphertext {
                c: vec![zero.clone(), zero, rng.uniform_poly(&low.q)],
            };
            let before = low.phase(&sk, &c3).unwrap();
            let after = low
                .phase(&sk, &low.relinearize(&c3, &keys.relin).unwrap())
                .unwrap();
            let rms = rms_change(&low, &after, &before);
            let want = predict(&low, top_p);
            assert!(
                (0.85..1.15).contains(&(rms / want)),
                "k {k}: {rms} / {want}"
            );
        }
    }

    /// The noise check uses the special prime of the key's basis: where this instance's own
    /// `P` leaves too little room for a key switch's noise, a parent's wider `P` may not, and
    /// its key is accepted while the instance's own is refused.
    #[test]
    fn the_noise_check_uses_the_keys_special_prime() {
        let q27 = crate::primes::ntt_primes(27, 1024, 1).unwrap()[0];
        let q60 = crate::primes::ntt_primes(60, 1024, 1).unwrap()[0];
        let params = BfvParams {
            moduli: vec![q27, q60],
            ..BfvParams::new(1024, 30, 2, 262147).unwrap()
        };
        let bfv = Bfv::new(params).unwrap();
        let low = bfv.lower(1).unwrap();
        let (own_noise, room) = low.key_switch_noise_log2(low.switch[0].special_prime());
        let (top_noise, _) = low.key_switch_noise_log2(bfv.switch[0].special_prime());
        assert!(
            top_noise < room && room <= own_noise,
            "{top_noise} {room} {own_noise}"
        );
        let mut rng = Sampler::from_seed([14; 32]);
        let keys = bfv.keygen(&mut rng).unwrap();
        let sk = bfv.secret_key_for(&keys.secret, &low).unwrap();
        let own = low.keygen_with_secret(sk, &mut rng).unwrap();
        let zero = RnsPoly::zero(&low.q, Representation::Coefficient);
        let c3 = BfvCiphertext {
            c: vec![zero.clone(), zero, rng.uniform_poly(&low.q)],
        };
        assert!(low.relinearize(&c3, &keys.relin).is_ok());
        assert!(matches!(
            low.relinearize(&c3, &own.relin),
            Err(Error::InvalidArgument(ref s)) if s.contains("too small")
        ));
    }
}
