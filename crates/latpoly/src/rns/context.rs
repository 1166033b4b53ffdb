//! The RNS context: ring degree, prime basis, one NTT plan per prime, CRT data.

use super::crt::Crt;
use crate::error::{Error, Result};
use crate::ntt::{check_degree, NttPlan};
use crate::primes::ntt_primes;
use num_bigint::BigUint;
use std::sync::{Arc, OnceLock};

/// Parameters of `Z_Q[x]/(x^n + 1)` with `Q = q_1 ··· q_L`, shared by all polynomials built on it
/// (hold it in an [`Arc`]).
///
/// ```
/// use latpoly::rns::RnsContext;
/// let ctx = RnsContext::with_prime_bits(8192, 60, 4).unwrap(); // workload W1
/// assert_eq!(ctx.moduli().len(), 4);
/// assert!(ctx.modulus_bits() > 236);
/// assert!(RnsContext::new(8192, &[12289]).is_err()); // 12289 is not 1 mod 16384
/// ```
#[derive(Debug)]
pub struct RnsContext {
    n: usize,
    moduli: Vec<u64>,
    plans: Vec<NttPlan>,
    crt: Crt,
    /// The context without the last prime, built on first use.
    dropped: OnceLock<Arc<RnsContext>>,
}

impl RnsContext {
    /// Builds a context for degree `n` (power of two, `2..=2^17`) and distinct NTT-friendly primes
    /// (`q ≡ 1 mod 2n`, `q < 2^62`).
    ///
    /// ```
    /// use latpoly::{rns::RnsContext, Error};
    /// let qs = latpoly::primes::ntt_primes(40, 16, 2)?;
    /// let ctx = RnsContext::new(16, &qs)?;
    /// assert_eq!(ctx.moduli(), &qs[..]);
    /// assert!(matches!(RnsContext::new(16, &[]), Err(Error::InvalidArgument(_))));
    /// assert!(matches!(
    ///     RnsContext::new(16, &[qs[0], qs[0]]),
    ///     Err(Error::InvalidModulus { .. })
    /// ));
    /// assert!(RnsContext::new(16, &[113]).is_err()); // 113 is not 1 mod 32
    /// assert!(RnsContext::new(12, &qs).is_err()); // not a power of two
    /// // at most MAX_PRIMES primes (refused before any plan is built)
    /// let many = vec![qs[0]; latpoly::rns::MAX_PRIMES + 1];
    /// assert!(matches!(RnsContext::new(16, &many), Err(Error::InvalidArgument(_))));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn new(n: usize, moduli: &[u64]) -> Result<Arc<Self>> {
        check_degree(n)?;
        if moduli.is_empty() {
            return Err(Error::InvalidArgument(
                "an RNS basis needs at least one modulus".into(),
            ));
        }
        super::crt::check_count(moduli.len())?;
        let mut sorted = moduli.to_vec();
        sorted.sort_unstable();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::InvalidModulus {
                q: w[0],
                reason: "appears twice in the RNS basis",
            });
        }
        let plans = moduli
            .iter()
            .map(|&q| NttPlan::new(n, q))
            .collect::<Result<Vec<_>>>()?;
        Ok(Arc::new(Self {
            n,
            moduli: moduli.to_vec(),
            plans,
            crt: Crt::new(moduli)?,
            dropped: OnceLock::new(),
        }))
    }

    /// Builds a context with `count` primes of exactly `bits` bits (largest first).
    ///
    /// ```
    /// let ctx = latpoly::rns::RnsContext::with_prime_bits(32, 30, 3)?;
    /// let q = ctx.moduli();
    /// assert!(q.iter().all(|&p| p >> 29 == 1 && p % 64 == 1)); // 30 bits, 1 mod 2n
    /// assert!(q[0] > q[1] && q[1] > q[2]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn with_prime_bits(n: usize, bits: u32, count: usize) -> Result<Arc<Self>> {
        check_degree(n)?;
        super::crt::check_count(count)?; // before the search for that many primes
        let moduli = ntt_primes(bits, n, count)?;
        Self::new(n, &moduli)
    }

    /// Builds a context whose modulus `Q` has at least `bits` bits, with primes chosen for the
    /// fastest backend this CPU runs (workload "W1-eq"):
    ///
    /// * with AVX-512 IFMA: primes below `2^50` (52-bit multipliers, three IFMA instructions per
    ///   butterfly product), e.g. 5 primes of 49 bits for `bits = 240`;
    /// * with AVX2 but no AVX-512 (or `LATPOLY_ISA=avx2`) and `n >= 16`: primes of 30 bits,
    ///   whose transforms run in 32-bit lanes (eight a vector, and eight operations per butterfly
    ///   product against about twenty for the emulated 64-bit one), e.g. 8 primes for
    ///   `bits = 240`: about 0.75 of the time of 5 x 49-bit transforms in `f64` lanes on AMD
    ///   Zen 3. More primes mean more work outside the transforms (pointwise products, CRT and
    ///   basis conversions grow with their number);
    /// * with AVX2 and FMA otherwise (`n = 8`, or too few 30-bit primes `1 mod 2n` for `bits`):
    ///   primes below `2^50`, whose transforms run in `f64` lanes (six floating-point operations
    ///   per butterfly product);
    /// * otherwise: primes below `2^62` (the 64-bit lane limit), e.g. 4 primes of 61 bits.
    ///
    /// It uses the fewest primes of that size class: for 30 bits the largest ones, as many as
    /// `Q` needs to reach `bits` bits; otherwise all of (nearly) equal size `b`, so that
    /// `Q >= 2^(bits - 1)` is guaranteed (`Q > 2^(k (b - 1))` for `k` primes of `b` bits).
    ///
    /// ```
    /// let ctx = latpoly::rns::RnsContext::with_modulus_bits(8192, 240).unwrap();
    /// assert!(ctx.modulus_bits() >= 240);
    /// // a small modulus at a large degree: primes 1 mod 2n of enough bits, on every backend
    /// let ctx = latpoly::rns::RnsContext::with_modulus_bits(1024, 10).unwrap();
    /// assert!(ctx.modulus_bits() >= 10);
    /// assert!(latpoly::rns::RnsContext::with_modulus_bits(1 << 17, 18).is_ok());
    /// // more than MAX_PRIMES primes: refused at once
    /// assert!(latpoly::rns::RnsContext::with_modulus_bits(1024, u32::MAX).is_err());
    /// assert!(latpoly::rns::RnsContext::with_prime_bits(1024, 62, 1 << 20).is_err());
    /// ```
    pub fn with_modulus_bits(n: usize, bits: u32) -> Result<Arc<Self>> {
        check_degree(n)?;
        if bits < 2 {
            return Err(Error::InvalidArgument(format!(
                "modulus size {bits} bits is too small"
            )));
        }
        // The backend a plan with a small prime gets: the best this CPU runs under the cap.
        let best = NttPlan::available_isas(n, 3)
            .into_iter()
            .find(|&i| crate::isa::Isa::env_cap().is_none_or(|c| c >= i))
            .unwrap_or(crate::isa::Isa::Scalar);
        if crate::ntt::backend::narrow_transforms(best, n) {
            // The largest 30-bit primes, as many as Q needs: ceil(bits / 30), or a few more
            // for large `bits` and `n` (the primes 1 mod 2n then reach further below 2^30).
            let mut k = bits.div_ceil(30) as usize;
            while k <= super::crt::MAX_PRIMES {
                let Ok(moduli) = ntt_primes(30, n, k) else {
                    break;
                };
                let q: BigUint = moduli.iter().map(|&p| BigUint::from(p)).product();
                if q.bits() >= u64::from(bits) {
                    return Self::new(n, &moduli);
                }
                k += 1;
            }
            // Not enough 30-bit primes for this n: the next size class.
        }
        let small =
            best == crate::isa::Isa::Avx512Ifma || crate::ntt::backend::f64_transforms(best);
        let max_bits: u32 = if small { 50 } else { 62 };
        // Smallest k with k (max_bits - 1) >= bits, then the smallest prime size b that works.
        let k = bits.div_ceil(max_bits - 1).max(1);
        super::crt::check_count(k as usize)?;
        let b = ((bits - 1).div_ceil(k) + 1).min(max_bits);
        // Small requests at large n: no prime of b bits is 1 mod 2n (b <= log2(2n)), so the
        // next sizes up (still at least `bits` bits in all), e.g. 12 bits for (1024, 10).
        let mut last = None;
        for b in b..=max_bits {
            match ntt_primes(b, n, k as usize) {
                Ok(moduli) => return Self::new(n, &moduli),
                Err(e @ Error::NotEnoughPrimes { .. }) => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or(Error::InvalidArgument(format!(
            "no primes of {b}..={max_bits} bits for n = {n}"
        ))))
    }

    /// Ring degree `n`.
    ///
    /// ```
    /// let ctx = latpoly::rns::RnsContext::with_prime_bits(64, 30, 2)?;
    /// assert_eq!(ctx.n(), 64);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn n(&self) -> usize {
        self.n
    }

    /// The primes `q_1, ..., q_L`.
    ///
    /// ```
    /// let ctx = latpoly::rns::RnsContext::new(8, &[17, 97])?;
    /// assert_eq!(ctx.moduli(), &[17, 97]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn moduli(&self) -> &[u64] {
        &self.moduli
    }

    /// Number of primes `L`.
    ///
    /// ```
    /// let ctx = latpoly::rns::RnsContext::with_prime_bits(8, 30, 3)?;
    /// assert_eq!(ctx.len(), 3);
    /// assert_eq!(ctx.drop_last()?.len(), 2);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.moduli.len()
    }

    /// Always false: a context has at least one prime.
    ///
    /// ```
    /// let ctx = latpoly::rns::RnsContext::new(8, &[17])?;
    /// assert!(!ctx.is_empty());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.moduli.is_empty()
    }

    /// NTT plan of prime `i`.
    ///
    /// # Panics
    ///
    /// If `i >= self.len()`, as slice indexing does.
    ///
    /// ```
    /// let ctx = latpoly::rns::RnsContext::new(8, &[17, 97])?;
    /// assert_eq!((ctx.plan(1).n(), ctx.plan(1).q()), (8, 97));
    /// // x · x = x^2 modulo q_0 = 17
    /// let x = [0, 1, 0, 0, 0, 0, 0, 0];
    /// assert_eq!(ctx.plan(0).multiply(&x, &x)?, vec![0, 0, 1, 0, 0, 0, 0, 0]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn plan(&self, i: usize) -> &NttPlan {
        &self.plans[i]
    }

    /// All NTT plans, one per prime.
    ///
    /// ```
    /// let ctx = latpoly::rns::RnsContext::new(8, &[17, 97, 113])?;
    /// let qs: Vec<u64> = ctx.plans().iter().map(|p| p.q()).collect();
    /// assert_eq!(qs, ctx.moduli());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn plans(&self) -> &[NttPlan] {
        &self.plans
    }

    /// The big modulus `Q`.
    ///
    /// ```
    /// let ctx = latpoly::rns::RnsContext::new(8, &[17, 97, 113])?;
    /// assert_eq!(*ctx.modulus(), num_bigint::BigUint::from(17u32 * 97 * 113));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn modulus(&self) -> &BigUint {
        self.crt.modulus()
    }

    /// Bit size of `Q`.
    ///
    /// ```
    /// let ctx = latpoly::rns::RnsContext::new(8, &[17, 97, 113])?;
    /// assert_eq!(ctx.modulus_bits(), 18); // Q = 186337, 2^17 <= Q < 2^18
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn modulus_bits(&self) -> u64 {
        self.crt.modulus().bits()
    }

    /// CRT precomputations.
    ///
    /// ```
    /// let ctx = latpoly::rns::RnsContext::new(8, &[17, 97])?;
    /// assert_eq!(ctx.crt().modulus(), ctx.modulus());
    /// assert_eq!(ctx.crt().reconstruct(&[1, 2])?, 681u32.into()); // 681 = 1 mod 17 = 2 mod 97
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn crt(&self) -> &Crt {
        &self.crt
    }

    /// The context with the last prime removed (built once, then shared): the target of
    /// [`super::RnsPoly::rescale`]. Errors if this context has a single prime.
    ///
    /// ```
    /// use std::sync::Arc;
    /// let ctx = latpoly::rns::RnsContext::new(8, &[17, 97, 113])?;
    /// let smaller = ctx.drop_last()?;
    /// assert_eq!(smaller.moduli(), &[17, 97]);
    /// assert!(Arc::ptr_eq(&smaller, &ctx.drop_last()?)); // built once
    /// assert!(smaller.drop_last()?.drop_last().is_err()); // [17] has no prime to drop
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn drop_last(&self) -> Result<Arc<RnsContext>> {
        if self.moduli.len() < 2 {
            return Err(Error::InvalidArgument(
                "cannot drop the only prime of an RNS basis".into(),
            ));
        }
        if let Some(c) = self.dropped.get() {
            return Ok(Arc::clone(c));
        }
        // Copies of the NTT plans (their tables are copied, their SIMD kernels shared); the CRT
        // data is new.
        let l = self.moduli.len() - 1;
        let c = Arc::new(RnsContext {
            n: self.n,
            moduli: self.moduli[..l].to_vec(),
            plans: self.plans[..l].to_vec(),
            crt: Crt::new(&self.moduli[..l])?,
            dropped: OnceLock::new(),
        });
        Ok(Arc::clone(self.dropped.get_or_init(|| c)))
    }

    /// Two contexts are compatible when they have the same degree and the same primes in order.
    ///
    /// ```
    /// use latpoly::rns::RnsContext;
    /// let a = RnsContext::new(8, &[97, 193])?;
    /// assert!(a.same_as(&*RnsContext::new(8, &[97, 193])?)); // separately built, same basis
    /// assert!(!a.same_as(&*RnsContext::new(8, &[193, 97])?)); // order matters
    /// assert!(!a.same_as(&*RnsContext::new(16, &[97, 193])?)); // other degree
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn same_as(&self, other: &RnsContext) -> bool {
        core::ptr::eq(self, other) || (self.n == other.n && self.moduli == other.moduli)
    }
}
