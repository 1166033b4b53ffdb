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
use crate::sampling::Sampler;
use rayon::prelude::*;
use zeroize::Zeroize;

/// The noise distribution `χ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Noise {
    /// Discrete Gaussian with this standard deviation.
    Gaussian(f64),
    /// Centred binomial `CBD_eta`.
    Cbd(u32),
}

/// Parameters of an LPR instance.
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
    pub fn n256() -> Self {
        LprParams {
            n: 256,
            q: 12289,
            noise: Noise::Gaussian(3.19),
        }
    }

    /// `n = 512, q = 12289`, Gaussian `σ = 3.19` (NFLlib's 256-bit set).
    pub fn n512() -> Self {
        LprParams {
            n: 512,
            q: 12289,
            noise: Noise::Gaussian(3.19),
        }
    }

    /// `n = 1024, q = 12289`, `CBD_2` noise (the larger set NFLlib's footnote suggests; the
    /// narrower noise keeps the decryption failure rate negligible at this degree).
    pub fn n1024() -> Self {
        LprParams {
            n: 1024,
            q: 12289,
            noise: Noise::Cbd(2),
        }
    }
}

/// Public key `(a, b)`, both in NTT form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LprPublicKey {
    a: Vec<u16>,
    b: Vec<u16>,
}

/// Secret key `s` in NTT form; wiped on drop.
#[derive(Clone)]
pub struct LprSecretKey {
    s: Vec<u16>,
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LprCiphertext {
    u: Vec<u16>,
    v: Vec<u16>,
}

impl LprCiphertext {
    /// The NTT-form components `(u, v)`.
    pub fn parts(&self) -> (&[u16], &[u16]) {
        (&self.u, &self.v)
    }
}

/// An LPR instance: parameters plus the NTT plan.
#[derive(Clone, Debug)]
pub struct Lpr {
    params: LprParams,
    plan: NttPlan16,
}

/// Scratch space for allocation-free decryption.
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
        Ok(Lpr {
            params,
            plan: NttPlan16::new(params.n, params.q)?,
        })
    }

    /// The parameters.
    pub fn params(&self) -> LprParams {
        self.params
    }

    /// The NTT plan (and through it the backend in use).
    pub fn plan(&self) -> &NttPlan16 {
        &self.plan
    }

    /// Message length in bytes (`n / 8`, one bit per coefficient, least significant bit first).
    pub fn message_len(&self) -> usize {
        self.params.n / 8
    }

    /// A fresh scratch buffer for [`Self::decrypt_into`].
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
            let neg = ((y >> 63) & 1) as u64;
            let mask = crate::arith::ct::barrier(0u64.wrapping_sub(neg)) as i64;
            out.push((y + (q & mask)) as u16);
        }
        e.zeroize();
        self.plan.forward_unchecked(&mut out);
        Ok(out)
    }

    /// Key generation.
    pub fn keygen(&self, rng: &mut Sampler) -> Result<(LprPublicKey, LprSecretKey)> {
        let n = self.params.n;
        let a: Vec<u16> = rng
            .uniform(n, self.params.q)?
            .into_iter()
            .map(|x| x as u16)
            .collect();
        let s = self.noise_ntt(rng, 1, None)?;
        let e2 = self.noise_ntt(rng, 2, None)?;
        let mut b = vec![0u16; n];
        self.plan.pointwise_unchecked(&a, &s, &mut b);
        let mut out = vec![0u16; n];
        self.plan.add_unchecked(&b, &e2, &mut out);
        Ok((LprPublicKey { a, b: out }, LprSecretKey { s }))
    }

    /// Encrypts `msg` (`n / 8` bytes).
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
        let e1 = self.noise_ntt(rng, 1, None)?;
        let e2 = self.noise_ntt(rng, 2, None)?;
        let e3m = self.noise_ntt(rng, 2, Some(msg))?;
        let mut t = vec![0u16; n];
        let mut u = vec![0u16; n];
        self.plan.pointwise_unchecked(&pk.a, &e1, &mut t);
        self.plan.add_unchecked(&t, &e2, &mut u);
        let mut v = vec![0u16; n];
        self.plan.pointwise_unchecked(&pk.b, &e1, &mut t);
        self.plan.add_unchecked(&t, &e3m, &mut v);
        Ok(LprCiphertext { u, v })
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
        self.check_vec(&pk.a)?;
        self.check_vec(&pk.b)
    }

    /// Builds a ciphertext from its NTT-form parts (validated: length `n`, values `< q`).
    pub fn ciphertext_from_parts(&self, u: Vec<u16>, v: Vec<u16>) -> Result<LprCiphertext> {
        self.check_vec(&u)?;
        self.check_vec(&v)?;
        Ok(LprCiphertext { u, v })
    }

    /// Builds a public key from its NTT-form parts (validated).
    pub fn public_key_from_parts(&self, a: Vec<u16>, b: Vec<u16>) -> Result<LprPublicKey> {
        self.check_vec(&a)?;
        self.check_vec(&b)?;
        Ok(LprPublicKey { a, b })
    }

    /// Decrypts into `out` (`n / 8` bytes) using `scratch`, without allocating.
    /// The ciphertext must come from [`Self::encrypt`] or [`Self::ciphertext_from_parts`]
    /// of an instance with the same parameters (checked: lengths).
    pub fn decrypt_into(
        &self,
        sk: &LprSecretKey,
        ct: &LprCiphertext,
        out: &mut [u8],
        scratch: &mut LprScratch,
    ) -> Result<()> {
        let n = self.params.n;
        if ct.u.len() != n
            || ct.v.len() != n
            || sk.s.len() != n
            || scratch.t.len() != n
            || scratch.w.len() != n
        {
            return Err(Error::LengthMismatch {
                expected: n,
                got: ct.u.len().min(ct.v.len()).min(sk.s.len()),
            });
        }
        if out.len() != self.message_len() {
            return Err(Error::LengthMismatch {
                expected: self.message_len(),
                got: out.len(),
            });
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
    pub fn decrypt(&self, sk: &LprSecretKey, ct: &LprCiphertext) -> Result<Vec<u8>> {
        let mut out = vec![0u8; self.message_len()];
        self.decrypt_into(sk, ct, &mut out, &mut self.scratch())?;
        Ok(out)
    }

    /// Decrypts many ciphertexts: all messages concatenated (`n / 8` bytes each), in order.
    /// With `threads`, the batch is split across that pool; otherwise it runs on the calling
    /// thread with one scratch buffer (the throughput path).
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
