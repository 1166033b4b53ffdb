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
#[derive(Debug)]
pub struct Threads {
    pool: rayon::ThreadPool,
}

impl Threads {
    /// A pool of `threads` workers (`threads >= 1`).
    pub fn new(threads: usize) -> Result<Threads> {
        if threads == 0 {
            return Err(Error::InvalidArgument(
                "thread count must be at least 1".into(),
            ));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::InvalidArgument(format!("cannot start threads: {e}")))?;
        Ok(Threads { pool })
    }

    /// Runs `f` with this pool as the current one (so `*_par` calls inside use it).
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.pool.install(f)
    }

    /// Number of workers.
    pub fn len(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Always false: a pool has at least one worker.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Converts every polynomial to NTT form, all limbs of all polynomials in parallel.
pub fn to_ntt_batch(polys: &mut [RnsPoly]) {
    transform_batch(polys, Representation::Ntt);
}

/// Converts every polynomial to coefficient form, all limbs in parallel.
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
    pub fn to_ntt_par(&mut self) {
        if self.representation() != Representation::Ntt {
            self.transform_limbs_par(Representation::Ntt);
        }
    }

    /// [`RnsPoly::to_coeff`] with the limbs transformed in parallel.
    pub fn to_coeff_par(&mut self) {
        if self.representation() != Representation::Coefficient {
            self.transform_limbs_par(Representation::Coefficient);
        }
    }

    /// [`RnsPoly::multiply`] with the limbs processed in parallel.
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
