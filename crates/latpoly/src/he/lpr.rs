//! Ring-LWE public-key encryption of Lyubashevsky, Peikert and Regev ("LPR"), as in the NFLlib
//! paper's key-transport benchmark (§5.1, Algorithms 3 and 4): one message bit per coefficient,
//! encoded in the least significant bit (errors are multiplied by `t = 2`).
//!
//! With `χ` the noise distribution and all products in `R_q = Z_q[x]/(x^n + 1)`:
//!
//! ```text
//! KeyGen:  a <- U(R_q), s, e <- χ;        pk = (a, b = a s + 2e),  sk = s
//! Enc(m):  e1, e2, e3 <- χ;               u = a e1 + 2 e2,  v = b e1 + 2 e3 + m
//! Dec:     w = v - u s = 2 (e e1 + e3 - e2 s) + m;   m_i = parity of the centred w_i
//! ```
//!
//! Keys and ciphertexts are kept in NTT form, so decryption is one pointwise product, one
//! subtraction, one inverse NTT and the parity decoding — NFLlib's
//! `(v < q/2) ? v % 2 : 1 - v % 2`. Coefficients live in 16-bit lanes (`q < 2^14`).
//!
//! Everything touching the secret key or the message is constant time: NTT kernels and modular
//! arithmetic are branch-free, decoding is arithmetic on masks.
//!
//! ```
//! use latpoly::he::lpr::{Lpr, LprParams};
//! use latpoly::sampling::Sampler;
//! let lpr = Lpr::new(LprParams::n256()).unwrap();
//! let mut rng = Sampler::from_seed([1; 32]);
//! let (pk, sk) = lpr.keygen(&mut rng).unwrap();
//! let msg = [0xA5u8; 32]; // n / 8 bytes, one bit per coefficient
//! let ct = lpr.encrypt(&pk, &msg, &mut rng).unwrap();
//! assert_eq!(lpr.decrypt(&sk, &ct).unwrap(), msg.to_vec());
//! ```

use crate::error::{Error, Result};
use crate::ntt::NttPlan16;
use crate::parallel::Threads;
use crate::sampling::{Sampler, GAUSSIAN_TAIL_CUT};
use crate::secret::Wiped;
use rayon::prelude::*;
use zeroize::Zeroize;

/// The noise distribution `χ`.
///
/// ```
/// use latpoly::he::lpr::{Lpr, LprParams, Noise};
/// let cbd = LprParams { noise: Noise::Cbd(1), ..LprParams::n256() };
/// assert!(Lpr::new(cbd).is_ok());
/// assert!(Lpr::new(LprParams { noise: Noise::Cbd(0), ..cbd }).is_err());
/// assert!(Lpr::new(LprParams { noise: Noise::Gaussian(-1.0), ..cbd }).is_err());
/// assert_eq!(LprParams::n256().noise, Noise::Gaussian(3.19));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Noise {
    /// Discrete Gaussian with this standard deviation.
    Gaussian(f64),
    /// Centred binomial `CBD_eta`.
    Cbd(u32),
}

/// Parameters of an LPR instance.
///
/// ```
/// use latpoly::he::lpr::{Lpr, LprParams, Noise};
/// use latpoly::sampling::Sampler;
/// // A toy set: n = 64 (8-byte messages), q = 12289 = 1 + 96 · 128.
/// let lpr = Lpr::new(LprParams { n: 64, q: 12289, noise: Noise::Cbd(1) })?;
/// let mut rng = Sampler::from_seed([2; 32]);
/// let (pk, sk) = lpr.keygen(&mut rng)?;
/// let ct = lpr.encrypt(&pk, b"8 bytes!", &mut rng)?;
/// assert_eq!(lpr.decrypt(&sk, &ct)?, b"8 bytes!");
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LprParams {
    /// Ring degree (power of two).
    pub n: usize,
    /// Prime modulus, `q ≡ 1 mod 2n`, `q < 2^14`.
    pub q: u64,
    /// Noise distribution of `s, e, e1, e2, e3`.
    pub noise: Noise,
}

impl LprParams {
    /// `n = 256, q = 12289`, Gaussian `σ = 3.19` (NFLlib's 128-bit set).
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// let p = LprParams::n256();
    /// assert_eq!((p.n, p.q), (256, 12289));
    /// assert_eq!(Lpr::new(p)?.message_len(), 32);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn n256() -> Self {
        LprParams {
            n: 256,
            q: 12289,
            noise: Noise::Gaussian(3.19),
        }
    }

    /// `n = 512, q = 12289`, Gaussian `σ = 3.19` (NFLlib's 256-bit set).
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// let p = LprParams::n512();
    /// assert_eq!((p.n, p.q), (512, 12289));
    /// assert_eq!(p.q % (2 * p.n as u64), 1); // NTT-friendly
    /// assert_eq!(Lpr::new(p)?.message_len(), 64);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn n512() -> Self {
        LprParams {
            n: 512,
            q: 12289,
            noise: Noise::Gaussian(3.19),
        }
    }

    /// `n = 1024, q = 12289`, `CBD_2` noise (the larger set NFLlib's footnote suggests; the
    /// narrower noise keeps the decryption failure rate negligible at this degree).
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams, Noise};
    /// use latpoly::sampling::Sampler;
    /// let lpr = Lpr::new(LprParams::n1024())?;
    /// assert_eq!(lpr.params().noise, Noise::Cbd(2));
    /// let mut rng = Sampler::from_seed([3; 32]);
    /// let (pk, sk) = lpr.keygen(&mut rng)?;
    /// let msg: Vec<u8> = (0..128).collect();
    /// assert_eq!(lpr.decrypt(&sk, &lpr.encrypt(&pk, &msg, &mut rng)?)?, msg);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn n1024() -> Self {
        LprParams {
            n: 1024,
            q: 12289,
            noise: Noise::Cbd(2),
        }
    }
}

/// Public key `(a, b)`, both in NTT form.
///
/// ```
/// use latpoly::he::lpr::{Lpr, LprParams};
/// use latpoly::sampling::Sampler;
/// let lpr = Lpr::new(LprParams::n256())?;
/// let (pk1, _) = lpr.keygen(&mut Sampler::from_seed([5; 32]))?;
/// let (pk2, _) = lpr.keygen(&mut Sampler::from_seed([5; 32]))?;
/// let (pk3, _) = lpr.keygen(&mut Sampler::from_seed([6; 32]))?;
/// assert_eq!(pk1, pk2); // deterministic in the seed
/// assert_ne!(pk1, pk3);
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LprPublicKey {
    a: Vec<u16>,
    b: Vec<u16>,
    /// The modulus of the instance that made it (keys and ciphertexts of another `q` are
    /// refused).
    q: u16,
}

impl LprPublicKey {
    /// The NTT-form components `(a, b)` (inverse of [`Lpr::public_key_from_parts`]).
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// use latpoly::sampling::Sampler;
    /// let lpr = Lpr::new(LprParams::n256())?;
    /// let (pk, _) = lpr.keygen(&mut Sampler::from_seed([1; 32]))?;
    /// let (a, b) = pk.parts();
    /// assert_eq!((a.len(), b.len()), (256, 256));
    /// assert_eq!(lpr.public_key_from_parts(a.to_vec(), b.to_vec())?, pk);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn parts(&self) -> (&[u16], &[u16]) {
        (&self.a, &self.b)
    }
}

/// Secret key `s` in NTT form; wiped on drop.
///
/// ```
/// use latpoly::he::lpr::{Lpr, LprParams};
/// use latpoly::sampling::Sampler;
/// let lpr = Lpr::new(LprParams::n256())?;
/// let mut rng = Sampler::from_seed([1; 32]);
/// let (pk, sk) = lpr.keygen(&mut rng)?;
/// assert_eq!(format!("{sk:?}"), "LprSecretKey { .. }"); // never printed
/// let ct = lpr.encrypt(&pk, &[0x5A; 32], &mut rng)?;
/// assert_eq!(lpr.decrypt(&sk, &ct)?, [0x5A; 32]);
/// let (_, other) = lpr.keygen(&mut rng)?;
/// assert_ne!(lpr.decrypt(&other, &ct)?, [0x5A; 32]); // the wrong key gives noise
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone)]
pub struct LprSecretKey {
    s: Vec<u16>,
    q: u16,
}

impl Drop for LprSecretKey {
    fn drop(&mut self) {
        self.s.zeroize();
    }
}

impl core::fmt::Debug for LprSecretKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("LprSecretKey { .. }")
    }
}

/// Ciphertext `(u, v)`, both in NTT form.
///
/// ```
/// use latpoly::he::lpr::{Lpr, LprParams};
/// use latpoly::sampling::Sampler;
/// let lpr = Lpr::new(LprParams::n256())?;
/// let mut rng = Sampler::from_seed([1; 32]);
/// let (pk, sk) = lpr.keygen(&mut rng)?;
/// let c1 = lpr.encrypt(&pk, &[7; 32], &mut rng)?;
/// let c2 = lpr.encrypt(&pk, &[7; 32], &mut rng)?;
/// assert_ne!(c1, c2); // randomized
/// assert_eq!(lpr.decrypt(&sk, &c1)?, lpr.decrypt(&sk, &c2)?);
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LprCiphertext {
    u: Vec<u16>,
    v: Vec<u16>,
    q: u16,
}

impl LprCiphertext {
    /// The NTT-form components `(u, v)`.
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// use latpoly::sampling::Sampler;
    /// let lpr = Lpr::new(LprParams::n256())?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let (pk, _) = lpr.keygen(&mut rng)?;
    /// let ct = lpr.encrypt(&pk, &[1; 32], &mut rng)?;
    /// let (u, v) = ct.parts();
    /// assert_eq!((u.len(), v.len()), (256, 256));
    /// assert!(u.iter().chain(v).all(|&x| x < 12289));
    /// assert_eq!(lpr.ciphertext_from_parts(u.to_vec(), v.to_vec())?, ct);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn parts(&self) -> (&[u16], &[u16]) {
        (&self.u, &self.v)
    }
}

/// An LPR instance: parameters plus the NTT plan.
///
/// ```
/// use latpoly::he::lpr::{Lpr, LprParams};
/// use latpoly::sampling::Sampler;
/// let lpr = Lpr::new(LprParams::n512())?;
/// let mut rng = Sampler::from_seed([4; 32]);
/// let (pk, sk) = lpr.keygen(&mut rng)?;
/// let key = [0xC3u8; 64]; // a 512-bit symmetric key to transport
/// let ct = lpr.encrypt(&pk, &key, &mut rng)?;
/// assert_eq!(lpr.decrypt(&sk, &ct)?, key);
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Lpr {
    params: LprParams,
    plan: NttPlan16,
}

/// Scratch space for allocation-free decryption.
///
/// ```
/// use latpoly::he::lpr::{Lpr, LprParams};
/// use latpoly::sampling::Sampler;
/// let lpr = Lpr::new(LprParams::n256())?;
/// let mut rng = Sampler::from_seed([1; 32]);
/// let (pk, sk) = lpr.keygen(&mut rng)?;
/// let mut scratch = lpr.scratch(); // one buffer, reused
/// let mut out = [0u8; 32];
/// for m in [[1u8; 32], [2; 32]] {
///     let ct = lpr.encrypt(&pk, &m, &mut rng)?;
///     lpr.decrypt_into(&sk, &ct, &mut out, &mut scratch)?;
///     assert_eq!(out, m);
/// }
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct LprScratch {
    t: Vec<u16>,
    w: Vec<u16>,
}

impl Drop for LprScratch {
    fn drop(&mut self) {
        self.t.zeroize();
        self.w.zeroize();
    }
}

impl Lpr {
    /// Validates the parameters (`n` a power of two, `q` an NTT prime below `2^14`, noise valid).
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams, Noise};
    /// use latpoly::Error;
    /// let ok = LprParams { n: 256, q: 7681, noise: Noise::Cbd(2) }; // 7681 = 1 + 15 · 512
    /// assert!(Lpr::new(ok).is_ok());
    /// let tiny = Lpr::new(LprParams { n: 4, ..ok });
    /// assert!(matches!(tiny, Err(Error::InvalidDegree { n: 4, .. })));
    /// assert!(Lpr::new(LprParams { n: 4096, ..ok }).is_err()); // 7681 is not 1 mod 8192
    /// assert!(Lpr::new(LprParams { q: 513, ..ok }).is_err()); // 1 mod 512 but 513 = 27 · 19
    /// // noise that would wrap mod q: 2 B + 1 must stay below q (B = ceil(14 sigma), or eta)
    /// let wide = Noise::Gaussian(3000.0);
    /// assert!(matches!(Lpr::new(LprParams { noise: wide, ..ok }), Err(Error::InvalidArgument(_))));
    /// let small_q = LprParams { n: 8, q: 17, noise: Noise::Gaussian(3.19) };
    /// assert!(Lpr::new(small_q).is_err());
    /// assert!(Lpr::new(LprParams { noise: Noise::Cbd(2), ..small_q }).is_ok());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn new(params: LprParams) -> Result<Lpr> {
        if params.n < 8 {
            return Err(Error::InvalidDegree {
                n: params.n,
                reason: "LPR needs n >= 8 (whole message bytes)",
            });
        }
        match params.noise {
            Noise::Gaussian(s) if !(s > 0.0 && s.is_finite()) => {
                return Err(Error::InvalidArgument(format!(
                    "noise sigma {s} must be positive"
                )))
            }
            Noise::Cbd(eta) if eta == 0 || eta > 32 => {
                return Err(Error::InvalidArgument(format!(
                    "CBD eta {eta} must lie in 1..=32"
                )))
            }
            _ => {}
        }
        // The noise enters as `factor x + bit` with `factor <= 2` and `|x| <= B` (the Gaussian
        // tail cut or `eta`), reduced into `[0, q)` by one conditional addition of `q`: that
        // needs `2 B + 1 < q`, or residues wrap (`sigma = 3000` at `q = 12289`, `sigma = 3.19`
        // at `q = 17`).
        let b = match params.noise {
            Noise::Gaussian(s) => (GAUSSIAN_TAIL_CUT * s).ceil().max(1.0),
            Noise::Cbd(eta) => eta as f64,
        };
        if 2.0 * b + 1.0 >= params.q as f64 {
            return Err(Error::InvalidArgument(format!(
                "noise bound {b} too large for q = {}: 2 B + 1 must be below q",
                params.q
            )));
        }
        Ok(Lpr {
            params,
            plan: NttPlan16::new(params.n, params.q)?,
        })
    }

    /// The parameters.
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// let lpr = Lpr::new(LprParams::n512())?;
    /// assert_eq!(lpr.params(), LprParams::n512());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn params(&self) -> LprParams {
        self.params
    }

    /// The NTT plan (and through it the backend in use).
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// let lpr = Lpr::new(LprParams::n256())?;
    /// assert_eq!((lpr.plan().n(), lpr.plan().q()), (256, 12289));
    /// println!("LPR backend: {:?}", lpr.plan().isa());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn plan(&self) -> &NttPlan16 {
        &self.plan
    }

    /// Message length in bytes (`n / 8`, one bit per coefficient, least significant bit first).
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// assert_eq!(Lpr::new(LprParams::n256())?.message_len(), 32);
    /// assert_eq!(Lpr::new(LprParams::n1024())?.message_len(), 128);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn message_len(&self) -> usize {
        self.params.n / 8
    }

    /// A fresh scratch buffer for [`Self::decrypt_into`].
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// use latpoly::sampling::Sampler;
    /// let lpr = Lpr::new(LprParams::n256())?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let (pk, sk) = lpr.keygen(&mut rng)?;
    /// let ct = lpr.encrypt(&pk, &[9; 32], &mut rng)?;
    /// let mut out = [0u8; 32];
    /// lpr.decrypt_into(&sk, &ct, &mut out, &mut lpr.scratch())?;
    /// assert_eq!(out, [9; 32]);
    /// // A scratch of another degree is refused.
    /// let mut wrong = Lpr::new(LprParams::n512())?.scratch();
    /// assert!(lpr.decrypt_into(&sk, &ct, &mut out, &mut wrong).is_err());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn scratch(&self) -> LprScratch {
        LprScratch {
            t: vec![0; self.params.n],
            w: vec![0; self.params.n],
        }
    }

    /// Samples from `χ`, times `factor`, plus `add` (the message), reduced into `[0, q)` and
    /// transformed to NTT form.
    fn noise_ntt(&self, rng: &mut Sampler, factor: i64, add: Option<&[u8]>) -> Result<Vec<u16>> {
        let n = self.params.n;
        let mut e = match self.params.noise {
            Noise::Gaussian(sigma) => rng.gaussian(n, sigma)?,
            Noise::Cbd(eta) => rng.cbd(n, eta)?,
        };
        let q = self.params.q as i64;
        let mut out: Vec<u16> = Vec::with_capacity(n);
        for (i, x) in e.iter().enumerate() {
            let bit = add.map_or(0, |m| ((m[i / 8] >> (i % 8)) & 1) as i64);
            // |factor x + bit| < q (the noise is far below q / 2): add q when negative, with a
            // mask rather than a branch.
            let y = factor * x + bit;
            let mask = crate::arith::ct::neg_mask_i64(y) as i64;
            out.push((y + (q & mask)) as u16);
        }
        crate::secret::wipe(&mut e);
        self.plan.forward_unchecked(&mut out);
        Ok(out)
    }

    /// Key generation.
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// use latpoly::sampling::Sampler;
    /// let lpr = Lpr::new(LprParams::n256())?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let (pk, sk) = lpr.keygen(&mut rng)?;
    /// let ct = lpr.encrypt(&pk, &[0xFF; 32], &mut rng)?;
    /// assert_eq!(lpr.decrypt(&sk, &ct)?, [0xFF; 32]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn keygen(&self, rng: &mut Sampler) -> Result<(LprPublicKey, LprSecretKey)> {
        let n = self.params.n;
        let a: Vec<u16> = rng
            .uniform(n, self.params.q)?
            .into_iter()
            .map(|x| x as u16)
            .collect();
        // The secret key owns `s` from the start (wiped on drop, on the error path too); the
        // error and `a s` (either one gives `s` away, with the public key) are wiped.
        let sk = LprSecretKey {
            s: self.noise_ntt(rng, 1, None)?,
            q: self.params.q as u16,
        };
        let e2 = Wiped::new(self.noise_ntt(rng, 2, None)?);
        let mut b = Wiped::new(vec![0u16; n]);
        self.plan.pointwise_unchecked(&a, &sk.s, &mut b);
        let mut out = vec![0u16; n];
        self.plan.add_unchecked(&b, &e2, &mut out);
        let q = self.params.q as u16;
        Ok((LprPublicKey { a, b: out, q }, sk))
    }

    /// Encrypts `msg` (`n / 8` bytes).
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// use latpoly::{sampling::Sampler, Error};
    /// let lpr = Lpr::new(LprParams::n256())?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let (pk, sk) = lpr.keygen(&mut rng)?;
    /// let msg: Vec<u8> = (0..32).collect();
    /// let ct = lpr.encrypt(&pk, &msg, &mut rng)?;
    /// assert_eq!(lpr.decrypt(&sk, &ct)?, msg);
    /// assert!(matches!(
    ///     lpr.encrypt(&pk, &msg[..31], &mut rng),
    ///     Err(Error::LengthMismatch { expected: 32, got: 31 })
    /// ));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn encrypt(
        &self,
        pk: &LprPublicKey,
        msg: &[u8],
        rng: &mut Sampler,
    ) -> Result<LprCiphertext> {
        let n = self.params.n;
        if msg.len() != self.message_len() {
            return Err(Error::LengthMismatch {
                expected: self.message_len(),
                got: msg.len(),
            });
        }
        self.check_public_key(pk)?;
        // The noise and `2 e3 + m` (whose parity is the message) are wiped, as is `t`, which
        // holds `a e1` and `b e1`.
        let e1 = Wiped::new(self.noise_ntt(rng, 1, None)?);
        let e2 = Wiped::new(self.noise_ntt(rng, 2, None)?);
        let e3m = Wiped::new(self.noise_ntt(rng, 2, Some(msg))?);
        let mut t = Wiped::new(vec![0u16; n]);
        let mut u = vec![0u16; n];
        self.plan.pointwise_unchecked(&pk.a, &e1, &mut t);
        self.plan.add_unchecked(&t, &e2, &mut u);
        let mut v = vec![0u16; n];
        self.plan.pointwise_unchecked(&pk.b, &e1, &mut t);
        self.plan.add_unchecked(&t, &e3m, &mut v);
        let q = self.params.q as u16;
        Ok(LprCiphertext { u, v, q })
    }

    fn check_vec(&self, v: &[u16]) -> Result<()> {
        if v.len() != self.params.n {
            return Err(Error::LengthMismatch {
                expected: self.params.n,
                got: v.len(),
            });
        }
        let q = self.params.q as u16;
        if let Some(index) = v.iter().position(|&x| x >= q) {
            return Err(Error::CoefficientOutOfRange {
                index,
                value: v[index] as u64,
                bound: q as u64,
            });
        }
        Ok(())
    }

    fn check_public_key(&self, pk: &LprPublicKey) -> Result<()> {
        if pk.q != self.params.q as u16 {
            return Err(Error::ContextMismatch);
        }
        self.check_vec(&pk.a)?;
        self.check_vec(&pk.b)
    }

    /// Builds a ciphertext from its NTT-form parts (validated: length `n`, values `< q`).
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// use latpoly::{sampling::Sampler, Error};
    /// let lpr = Lpr::new(LprParams::n256())?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let (pk, sk) = lpr.keygen(&mut rng)?;
    /// let ct = lpr.encrypt(&pk, &[0x42; 32], &mut rng)?;
    /// let (u, v) = (ct.parts().0.to_vec(), ct.parts().1.to_vec()); // e.g. after transport
    /// let back = lpr.ciphertext_from_parts(u.clone(), v)?;
    /// assert_eq!(lpr.decrypt(&sk, &back)?, [0x42; 32]);
    /// assert!(matches!(
    ///     lpr.ciphertext_from_parts(u.clone(), vec![12289; 256]),
    ///     Err(Error::CoefficientOutOfRange { index: 0, value: 12289, bound: 12289 })
    /// ));
    /// let short = lpr.ciphertext_from_parts(u, vec![0; 255]);
    /// assert!(matches!(short, Err(Error::LengthMismatch { expected: 256, got: 255 })));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn ciphertext_from_parts(&self, u: Vec<u16>, v: Vec<u16>) -> Result<LprCiphertext> {
        self.check_vec(&u)?;
        self.check_vec(&v)?;
        let q = self.params.q as u16;
        Ok(LprCiphertext { u, v, q })
    }

    /// Builds a public key from its NTT-form parts (validated).
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// use latpoly::{sampling::Sampler, Error};
    /// let lpr = Lpr::new(LprParams::n256())?;
    /// let (a, b) = (vec![1u16; 256], vec![12288u16; 256]);
    /// let pk = lpr.public_key_from_parts(a.clone(), b.clone())?;
    /// assert_eq!(pk, lpr.public_key_from_parts(a.clone(), b)?);
    /// assert!(lpr.encrypt(&pk, &[0; 32], &mut Sampler::from_seed([1; 32])).is_ok());
    /// assert!(matches!(
    ///     lpr.public_key_from_parts(a, vec![12289; 256]),
    ///     Err(Error::CoefficientOutOfRange { bound: 12289, .. })
    /// ));
    /// assert!(lpr.public_key_from_parts(vec![0; 8], vec![0; 8]).is_err()); // wrong length
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn public_key_from_parts(&self, a: Vec<u16>, b: Vec<u16>) -> Result<LprPublicKey> {
        self.check_vec(&a)?;
        self.check_vec(&b)?;
        let q = self.params.q as u16;
        Ok(LprPublicKey { a, b, q })
    }

    /// Decrypts into `out` (`n / 8` bytes) using `scratch`, without allocating.
    /// The ciphertext must come from [`Self::encrypt`] or [`Self::ciphertext_from_parts`]
    /// of an instance with the same parameters (checked: lengths).
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// use latpoly::{sampling::Sampler, Error};
    /// let lpr = Lpr::new(LprParams::n256())?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let (pk, sk) = lpr.keygen(&mut rng)?;
    /// let ct = lpr.encrypt(&pk, &[0xA5; 32], &mut rng)?;
    /// let (mut out, mut scratch) = ([0u8; 32], lpr.scratch());
    /// lpr.decrypt_into(&sk, &ct, &mut out, &mut scratch)?;
    /// assert_eq!(out, [0xA5; 32]);
    /// let mut short = [0u8; 16];
    /// assert!(matches!(
    ///     lpr.decrypt_into(&sk, &ct, &mut short, &mut scratch),
    ///     Err(Error::LengthMismatch { expected: 32, got: 16 })
    /// ));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn decrypt_into(
        &self,
        sk: &LprSecretKey,
        ct: &LprCiphertext,
        out: &mut [u8],
        scratch: &mut LprScratch,
    ) -> Result<()> {
        let n = self.params.n;
        // the first operand of the wrong size is the one reported
        let lens = [
            ct.u.len(),
            ct.v.len(),
            sk.s.len(),
            scratch.t.len(),
            scratch.w.len(),
        ];
        if let Some(&got) = lens.iter().find(|&&l| l != n) {
            return Err(Error::LengthMismatch { expected: n, got });
        }
        if out.len() != self.message_len() {
            return Err(Error::LengthMismatch {
                expected: self.message_len(),
                got: out.len(),
            });
        }
        // a key or ciphertext of an instance with the same n and another q: its values may
        // not be below this q
        let q = self.params.q as u16;
        if sk.q != q || ct.q != q {
            return Err(Error::ContextMismatch);
        }
        self.plan.pointwise_unchecked(&ct.u, &sk.s, &mut scratch.t);
        self.plan.sub_unchecked(&ct.v, &scratch.t, &mut scratch.w);
        self.plan.inverse_unchecked(&mut scratch.w);
        // bit = parity of the centred value: (w & 1) ^ (w > q/2), branch-free (SIMD when the
        // plan has a backend).
        self.plan.parity_decode_unchecked(&scratch.w, out);
        Ok(())
    }

    /// Decrypts one ciphertext.
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// use latpoly::sampling::Sampler;
    /// let lpr = Lpr::new(LprParams::n256())?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let (pk, sk) = lpr.keygen(&mut rng)?;
    /// let msg: Vec<u8> = (0..32).map(|i| i * 7).collect();
    /// let ct = lpr.encrypt(&pk, &msg, &mut rng)?;
    /// assert_eq!(lpr.decrypt(&sk, &ct)?, msg);
    /// // keys and ciphertexts of an instance with another q are refused
    /// let other = Lpr::new(LprParams { q: 7681, ..LprParams::n256() })?;
    /// let (pk2, sk2) = other.keygen(&mut rng)?;
    /// use latpoly::Error;
    /// assert_eq!(other.decrypt(&sk, &ct).unwrap_err(), Error::ContextMismatch);
    /// assert_eq!(lpr.decrypt(&sk2, &ct).unwrap_err(), Error::ContextMismatch);
    /// assert_eq!(lpr.encrypt(&pk2, &msg, &mut rng).unwrap_err(), Error::ContextMismatch);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn decrypt(&self, sk: &LprSecretKey, ct: &LprCiphertext) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.message_len()];
        self.decrypt_into(sk, ct, &mut out, &mut self.scratch())?;
        Ok(out)
    }

    /// Decrypts many ciphertexts: all messages concatenated (`n / 8` bytes each), in order.
    /// With `threads`, the batch is split across that pool; otherwise it runs on the calling
    /// thread with one scratch buffer (the throughput path).
    ///
    /// ```
    /// use latpoly::he::lpr::{Lpr, LprParams};
    /// use latpoly::{parallel::Threads, sampling::Sampler};
    /// let lpr = Lpr::new(LprParams::n256())?;
    /// let mut rng = Sampler::from_seed([1; 32]);
    /// let (pk, sk) = lpr.keygen(&mut rng)?;
    /// let msgs: Vec<[u8; 32]> = (0..3).map(|i| [i; 32]).collect();
    /// let cts = msgs
    ///     .iter()
    ///     .map(|m| lpr.encrypt(&pk, m, &mut rng))
    ///     .collect::<Result<Vec<_>, _>>()?;
    /// let all = lpr.decrypt_batch(&sk, &cts, None)?;
    /// assert_eq!(all, msgs.concat());
    /// assert_eq!(lpr.decrypt_batch(&sk, &cts, Some(&Threads::new(2)?))?, all);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn decrypt_batch(
        &self,
        sk: &LprSecretKey,
        cts: &[LprCiphertext],
        threads: Option<&Threads>,
    ) -> Result<Vec<u8>> {
        let ml = self.message_len();
        let mut out = vec![0u8; ml * cts.len()];
        match threads {
            None => {
                let mut scratch = self.scratch();
                for (ct, o) in cts.iter().zip(out.chunks_exact_mut(ml)) {
                    self.decrypt_into(sk, ct, o, &mut scratch)?;
                }
            }
            Some(pool) => pool.install(|| {
                out.par_chunks_mut(ml * 64)
                    .zip(cts.par_chunks(64))
                    .try_for_each_init(
                        || self.scratch(),
                        |scratch, (o, chunk)| {
                            for (ct, m) in chunk.iter().zip(o.chunks_exact_mut(ml)) {
                                self.decrypt_into(sk, ct, m, scratch)?;
                            }
                            Ok::<(), Error>(())
                        },
                    )
            })?,
        }
        Ok(out)
    }
}
