//! Multi-threaded batch operations (rayon), with a caller-chosen thread count.
//!
//! Every kernel is single-threaded and thread-safe; parallelism comes from running independent
//! limbs (one per prime) and independent polynomials on different threads. The `*_par` methods
//! and batch functions use the current rayon pool: the global one (all cores) by default, or a
//! [`Threads`] pool inside [`Threads::install`].
//!
//! ```
//! use latpoly::parallel::{to_ntt_batch, Threads};
//! use latpoly::rns::{RnsContext, RnsPoly};
//! let ctx = RnsContext::with_prime_bits(1024, 50, 4).unwrap();
//! let mut polys: Vec<RnsPoly> = (0..8)
//!     .map(|i| RnsPoly::from_i64s(&ctx, &vec![i; 1024]).unwrap())
//!     .collect();
//! let pool = Threads::new(2).unwrap();
//! pool.install(|| to_ntt_batch(&mut polys));
//! assert!(polys.iter().all(|p| p.representation() == latpoly::rns::Representation::Ntt));
//! ```

use crate::error::{Error, Result};
use crate::rns::{Representation, RnsPoly};
use rayon::prelude::*;

/// A pool of worker threads of a fixed size.
///
/// ```
/// use latpoly::parallel::Threads;
/// use latpoly::rns::{RnsContext, RnsPoly};
/// let ctx = RnsContext::with_prime_bits(16, 30, 4)?;
/// let a = RnsPoly::from_i64s(&ctx, &[1; 16])?;
/// let pool = Threads::new(2)?;
/// assert_eq!(pool.len(), 2);
/// let c = pool.install(|| a.multiply_par(&a))?; // runs on the 2 workers
/// assert_eq!(c.residues(), a.multiply(&a)?.residues());
/// # Ok::<(), latpoly::Error>(())
/// ```
#[derive(Debug)]
pub struct Threads {
    pool: rayon::ThreadPool,
}

/// The most workers a [`Threads`] pool takes: far above any core count these kernels scale
/// to, and a bound on what one call can ask of the operating system (a count from an
/// unchecked `size_t` would otherwise start tens of thousands of threads).
pub const MAX_THREADS: usize = 1024;

impl Threads {
    /// A pool of `threads` workers (`1 <= threads <= MAX_THREADS`).
    ///
    /// ```
    /// use latpoly::{parallel::{Threads, MAX_THREADS}, Error};
    /// assert_eq!(Threads::new(1)?.len(), 1);
    /// assert!(matches!(Threads::new(0), Err(Error::InvalidArgument(_))));
    /// assert!(matches!(Threads::new(MAX_THREADS + 1), Err(Error::InvalidArgument(_))));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn new(threads: usize) -> Result<Threads> {
        if !(1..=MAX_THREADS).contains(&threads) {
            return Err(Error::InvalidArgument(format!(
                "thread count {threads} must be in 1..={MAX_THREADS}"
            )));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::InvalidArgument(format!("cannot start threads: {e}")))?;
        Ok(Threads { pool })
    }

    /// Runs `f` with this pool as the current one (so `*_par` calls inside use it).
    ///
    /// ```
    /// use latpoly::parallel::{to_ntt_batch, Threads};
    /// use latpoly::rns::{Representation, RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(16, 30, 2)?;
    /// let mut polys = vec![RnsPoly::from_i64s(&ctx, &[2; 16])?; 3];
    /// let pool = Threads::new(2)?;
    /// let count = pool.install(|| {
    ///     to_ntt_batch(&mut polys); // uses this pool
    ///     polys.len()
    /// }); // the closure's value is returned
    /// assert_eq!(count, 3);
    /// assert!(polys.iter().all(|p| p.representation() == Representation::Ntt));
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.pool.install(f)
    }

    /// Number of workers.
    ///
    /// ```
    /// assert_eq!(latpoly::parallel::Threads::new(3)?.len(), 3);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Always false: a pool has at least one worker.
    ///
    /// ```
    /// assert!(!latpoly::parallel::Threads::new(1)?.is_empty());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Converts every polynomial to NTT form, all limbs of all polynomials in parallel.
///
/// ```
/// use latpoly::parallel::to_ntt_batch;
/// use latpoly::rns::{RnsContext, RnsPoly};
/// let ctx = RnsContext::with_prime_bits(16, 30, 3)?;
/// let mut polys: Vec<RnsPoly> =
///     (0..4).map(|i| RnsPoly::from_i64s(&ctx, &[i - 2; 16])).collect::<Result<_, _>>()?;
/// polys[0].to_ntt(); // already in NTT form: left alone
/// let mut want = polys.clone();
/// want.iter_mut().for_each(|p| p.to_ntt());
/// to_ntt_batch(&mut polys);
/// for (p, w) in polys.iter().zip(&want) {
///     assert_eq!(p.residues(), w.residues());
/// }
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn to_ntt_batch(polys: &mut [RnsPoly]) {
    transform_batch(polys, Representation::Ntt);
}

/// Converts every polynomial to coefficient form, all limbs in parallel.
///
/// ```
/// use latpoly::parallel::{to_coeff_batch, to_ntt_batch};
/// use latpoly::rns::{Representation, RnsContext, RnsPoly};
/// let ctx = RnsContext::with_prime_bits(16, 30, 3)?;
/// let orig: Vec<RnsPoly> =
///     (0..4).map(|i| RnsPoly::from_i64s(&ctx, &[3 * i - 5; 16])).collect::<Result<_, _>>()?;
/// let mut polys = orig.clone();
/// to_ntt_batch(&mut polys);
/// to_coeff_batch(&mut polys);
/// for (p, o) in polys.iter().zip(&orig) {
///     assert_eq!(p.representation(), Representation::Coefficient);
///     assert_eq!(p.residues(), o.residues());
/// }
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn to_coeff_batch(polys: &mut [RnsPoly]) {
    transform_batch(polys, Representation::Coefficient);
}

fn transform_batch(polys: &mut [RnsPoly], target: Representation) {
    let jobs: Vec<(&mut RnsPoly, bool)> = polys
        .iter_mut()
        .map(|p| {
            let todo = p.representation() != target;
            (p, todo)
        })
        .collect();
    jobs.into_par_iter().for_each(|(p, todo)| {
        if todo {
            p.transform_limbs_par(target);
        }
    });
}

impl RnsPoly {
    pub(crate) fn transform_limbs_par(&mut self, target: Representation) {
        let ctx = std::sync::Arc::clone(self.context());
        let n = ctx.n();
        self.residues_mut()
            .par_chunks_exact_mut(n)
            .zip(ctx.plans().par_iter())
            .for_each(|(limb, plan)| match target {
                Representation::Ntt => plan.forward_unchecked(limb),
                Representation::Coefficient => plan.inverse_unchecked(limb),
            });
        self.set_representation(target);
    }

    /// [`RnsPoly::to_ntt`] with the limbs transformed in parallel.
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(16, 30, 4)?;
    /// let a = RnsPoly::from_i64s(&ctx, &(0..16).collect::<Vec<i64>>())?;
    /// let (mut serial, mut par) = (a.clone(), a);
    /// serial.to_ntt();
    /// par.to_ntt_par();
    /// assert_eq!(par.residues(), serial.residues());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_ntt_par(&mut self) {
        if self.representation() != Representation::Ntt {
            self.transform_limbs_par(Representation::Ntt);
        }
    }

    /// [`RnsPoly::to_coeff`] with the limbs transformed in parallel.
    ///
    /// ```
    /// use latpoly::rns::{Representation, RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(16, 30, 4)?;
    /// let a = RnsPoly::from_i64s(&ctx, &(0..16).map(|i| 7 - i).collect::<Vec<i64>>())?;
    /// let mut b = a.clone();
    /// b.to_ntt_par();
    /// b.to_coeff_par();
    /// assert_eq!(b.representation(), Representation::Coefficient);
    /// assert_eq!(b.residues(), a.residues());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_coeff_par(&mut self) {
        if self.representation() != Representation::Coefficient {
            self.transform_limbs_par(Representation::Coefficient);
        }
    }

    /// [`RnsPoly::multiply`] with the limbs processed in parallel.
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(16, 30, 4)?;
    /// let mut x = vec![0i64; 16];
    /// x[15] = 2; // 2 x^15
    /// let a = RnsPoly::from_i64s(&ctx, &x)?;
    /// let mut b = vec![0i64; 16];
    /// b[1] = 3; // 3 x
    /// let c = a.multiply_par(&RnsPoly::from_i64s(&ctx, &b)?)?; // 6 x^16 = -6
    /// let mut want = vec![0i64; 16];
    /// want[0] = -6;
    /// assert_eq!(c.residues(), RnsPoly::from_i64s(&ctx, &want)?.residues());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn multiply_par(&self, other: &RnsPoly) -> Result<RnsPoly> {
        if !self.context().same_as(other.context()) {
            return Err(Error::ContextMismatch);
        }
        let (mut a, mut b) = (self.clone(), other.clone());
        rayon::join(|| a.to_ntt_par(), || b.to_ntt_par());
        let mut c = a.mul(&b)?;
        c.to_coeff_par();
        Ok(c)
    }
}
