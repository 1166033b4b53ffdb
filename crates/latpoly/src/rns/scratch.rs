//! A per-thread pool of `u64` buffers for the temporaries of multi-step RNS algorithms (BFV
//! tensoring and key switching).
//!
//! A BFV product at `n = 8192` goes through about 9 MB of temporaries. Allocated afresh each
//! time, buffers of that size come from `mmap` and every page faults on first touch: a quarter of
//! the run time went to the kernel. Taking the temporaries from this pool and giving them back
//! keeps the pages mapped between calls. The pool keeps at most [`MAX_BUFFERS`] buffers per
//! thread; contents of a taken buffer are unspecified (callers overwrite them). Buffers that held
//! public data only (ciphertexts and what is computed from them alone) go back with [`give`];
//! buffers that held anything secret go back with [`give_wiped`], which zeroes them first.

use std::cell::RefCell;

/// Buffers kept per thread.
pub(crate) const MAX_BUFFERS: usize = 24;

thread_local! {
    static POOL: RefCell<Vec<Vec<u64>>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of `len` words (contents unspecified: every caller overwrites all of it).
pub(crate) fn take(len: usize) -> Vec<u64> {
    let reused = POOL.with(|p| {
        let mut pool = p.borrow_mut();
        // The smallest buffer that is large enough, else the largest (grown by `resize`).
        let best = pool
            .iter()
            .enumerate()
            .filter(|(_, v)| v.capacity() >= len)
            .min_by_key(|(_, v)| v.capacity())
            .map(|(i, _)| i)
            .or_else(|| {
                pool.iter()
                    .enumerate()
                    .max_by_key(|(_, v)| v.capacity())
                    .map(|(i, _)| i)
            });
        best.map(|i| pool.swap_remove(i))
    });
    let mut v = reused.unwrap_or_default();
    v.resize(len, 0);
    v
}

/// Zeroes a buffer (with [`crate::secret::wipe`], so the stores are not optimised away), then
/// returns it to the pool. For buffers that held secret-dependent data.
pub(crate) fn give_wiped(mut v: Vec<u64>) {
    crate::secret::wipe(&mut v);
    give(v);
}

/// Returns a buffer to the pool (dropped if the pool is full). Public data only.
pub(crate) fn give(v: Vec<u64>) {
    POOL.with(|p| {
        let mut pool = p.borrow_mut();
        if pool.len() < MAX_BUFFERS {
            pool.push(v);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_reused_and_sized() {
        let a = take(1000);
        assert_eq!(a.len(), 1000);
        let ptr = a.as_ptr();
        give(a);
        let b = take(800); // fits in the returned buffer
        assert_eq!(b.len(), 800);
        assert_eq!(b.as_ptr(), ptr);
        let mut c = take(5000); // larger than anything pooled
        c.fill(7);
        let ptr = c.as_ptr();
        give_wiped(c);
        let c = take(5000);
        assert_eq!(c.as_ptr(), ptr);
        assert!(c.iter().all(|&x| x == 0)); // wiped when given back
        assert_eq!(c.len(), 5000);
        give(b);
        give(c);
    }

    #[test]
    fn pool_is_bounded() {
        let bufs: Vec<Vec<u64>> = (0..MAX_BUFFERS + 5).map(|_| take(16)).collect();
        for b in bufs {
            give(b);
        }
        assert!(POOL.with(|p| p.borrow().len()) <= MAX_BUFFERS);
    }
}
