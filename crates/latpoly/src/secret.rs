//! Wiping secret temporaries: ordinary (vectorised) stores, kept alive by an optimisation
//! barrier.
//!
//! `zeroize` writes one element at a time with volatile stores: about one cycle per byte for a
//! `u8` buffer, which was a tenth of an NTRU+ decapsulation (ten buffers of a few hundred
//! elements). [`wipe`] fills the memory with zeros as `memset` does and then passes it to
//! [`core::hint::black_box`], which the optimiser must treat as reading it, so the stores are
//! not dead and cannot be removed. [`Wiped`] is the drop guard of the KEMs' secret buffers (the
//! role `zeroize::Zeroizing` had); the KEMs' typed secret keys use [`Wipe`] on drop; the other
//! secret-holding types (sampler state, LPR keys, `RnsPoly`, the KAT DRBG) keep `zeroize`.

use core::ops::{Deref, DerefMut};
use std::cell::RefCell;
use zeroize::DefaultIsZeroes;

/// Zeroes `v`; the stores cannot be optimised away (see the module documentation).
#[inline]
pub(crate) fn wipe<T: DefaultIsZeroes>(v: &mut [T]) {
    v.fill(T::default());
    core::hint::black_box(v);
}

/// `verdict`, declassified: the one branch of key generation on secret-derived data, the
/// retry decision of NTRU+KEM and sntrup761 (is the candidate invertible?), as in their
/// references. A rejected candidate is discarded, so the decision reveals nothing about the
/// key that is kept.
///
/// The branch is here, in a function that is never inlined and does nothing else, so that the
/// Valgrind constant-time check (`tests/ct_kem.rs`, mode `keygen-retry`) can accept secret
/// branches in this one frame and fail on any other. The returned `bool` comes from constants,
/// so a caller's branch on it is not on secret data.
#[inline(never)]
pub(crate) fn declassify(verdict: bool) -> bool {
    if core::hint::black_box(verdict) {
        core::hint::black_box(true)
    } else {
        core::hint::black_box(false)
    }
}

/// Buffers [`Wiped`] can hold: plain integers in a `Vec` (its whole capacity is wiped) or an
/// array.
pub(crate) trait Wipe {
    fn wipe(&mut self);
}

impl<T: DefaultIsZeroes> Wipe for Vec<T> {
    fn wipe(&mut self) {
        let cap = self.capacity();
        self.clear();
        self.resize(cap, T::default());
        wipe(self.as_mut_slice());
    }
}

impl<T: DefaultIsZeroes, const N: usize> Wipe for [T; N] {
    fn wipe(&mut self) {
        wipe(self.as_mut_slice());
    }
}

/// A secret buffer, wiped when dropped.
pub(crate) struct Wiped<T: Wipe>(T);

impl<T: Wipe> Wiped<T> {
    #[inline]
    pub(crate) fn new(v: T) -> Self {
        Wiped(v)
    }
}

impl<T: Wipe> Deref for Wiped<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Wipe> DerefMut for Wiped<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: Wipe> Drop for Wiped<T> {
    fn drop(&mut self) {
        self.0.wipe();
    }
}

/// Word types of the per-thread secret scratch ([`with_scratch`]): one reusable buffer per type.
pub(crate) trait ScratchWord: DefaultIsZeroes + PartialEq {
    /// Runs `f` on this thread's buffer of `Self`.
    fn with_buffer<R>(f: impl FnOnce(&RefCell<Vec<Self>>) -> R) -> R;
}

macro_rules! scratch_word {
    ($($t:ty => $name:ident),*) => {$(
        thread_local! {
            /// This thread's reusable secret scratch of this type: all zero whenever no
            /// [`with_scratch`] holds it.
            static $name: RefCell<Vec<$t>> = const { RefCell::new(Vec::new()) };
        }
        impl ScratchWord for $t {
            fn with_buffer<R>(f: impl FnOnce(&RefCell<Vec<Self>>) -> R) -> R {
                $name.with(f)
            }
        }
    )*};
}

scratch_word!(i16 => SCRATCH_I16, u16 => SCRATCH_U16, u8 => SCRATCH_U8);

/// Zeroes the scratch slices it holds when dropped (also when unwinding).
struct ScratchGuard<'a, W: ScratchWord> {
    words: &'a mut [W],
    bytes: &'a mut [u8],
}

impl<W: ScratchWord> Drop for ScratchGuard<'_, W> {
    fn drop(&mut self) {
        wipe(self.words);
        wipe(self.bytes);
    }
}

/// Runs `f` on all-zero scratch buffers of `words` words and `bytes` bytes, which are wiped when
/// `f` returns or unwinds. The memory is this thread's and is reused across calls, so a KEM
/// operation costs one wipe of what it used instead of an allocation, a zero fill, a wipe and
/// a deallocation per buffer. A nested call on the same thread (say, a random source that
/// itself runs a KEM) gets freshly allocated [`Wiped`] buffers instead.
pub(crate) fn with_scratch<W: ScratchWord, R>(
    words: usize,
    bytes: usize,
    f: impl FnOnce(&mut [W], &mut [u8]) -> R,
) -> R {
    let mut f = Some(f);
    let reused = W::with_buffer(|wcell| {
        u8::with_buffer(|bcell| {
            let (Ok(mut w), Ok(mut b)) = (wcell.try_borrow_mut(), bcell.try_borrow_mut()) else {
                return None;
            };
            // Growth appends zeros; the prefixes handed out were wiped after their last use.
            if w.len() < words {
                w.resize(words, W::default());
            }
            if b.len() < bytes {
                b.resize(bytes, 0);
            }
            let guard = ScratchGuard {
                words: &mut w[..words],
                bytes: &mut b[..bytes],
            };
            let f = f.take()?;
            Some(f(guard.words, guard.bytes))
        })
    });
    match (reused, f) {
        (Some(r), _) => r,
        (None, Some(f)) => {
            let mut w = Wiped::new(vec![W::default(); words]);
            let mut b = Wiped::new(vec![0u8; bytes]);
            f(&mut w, &mut b)
        }
        (None, None) => unreachable!("the closure ran only if the scratch was borrowed"),
    }
}

/// Whether this thread's scratch of `W` and of bytes is all zero (or in use), for tests.
#[cfg(test)]
pub(crate) fn scratch_is_clear<W: ScratchWord>() -> bool {
    let zero = |v: &Vec<W>| v.iter().all(|x| *x == W::default());
    W::with_buffer(|c| c.try_borrow().map_or(true, |v| zero(&v)))
        && u8::with_buffer(|c| c.try_borrow().map_or(true, |v| v.iter().all(|&x| x == 0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_is_zero_on_entry_and_wiped_after_use_even_on_early_exit() {
        let r: Result<(), ()> = with_scratch(100, 50, |w: &mut [i16], b| {
            assert!(w.iter().all(|&x| x == 0) && b.iter().all(|&x| x == 0));
            w.fill(-7);
            b.fill(9);
            Err(())
        });
        assert!(r.is_err());
        assert!(scratch_is_clear::<i16>());
        // larger, then nested (the inner call gets its own buffers)
        with_scratch(300, 10, |w: &mut [u16], b| {
            assert_eq!((w.len(), b.len()), (300, 10));
            assert!(w.iter().all(|&x| x == 0));
            w[299] = 1;
            b[0] = 1;
            let inner = with_scratch(20, 20, |w2: &mut [u16], b2| {
                assert!(w2.iter().all(|&x| x == 0) && b2.iter().all(|&x| x == 0));
                w2[0] = 5;
                w2.len() + b2.len()
            });
            assert_eq!(inner, 40);
            assert_eq!(w[299], 1);
        });
        assert!(scratch_is_clear::<u16>());
        let caught = std::panic::catch_unwind(|| {
            with_scratch(64, 64, |w: &mut [i16], _| {
                w[3] = 3;
                panic!("unwind through the scratch");
            })
        });
        assert!(caught.is_err());
        assert!(scratch_is_clear::<i16>() && scratch_is_clear::<u16>());
    }

    #[test]
    fn wipe_zeroes_every_element_and_the_spare_capacity() {
        let mut v: Vec<u16> = Vec::with_capacity(100);
        v.extend((1..=60).map(|i| i as u16));
        let mut w = v.clone();
        Wipe::wipe(&mut w);
        assert_eq!(w.len(), w.capacity());
        assert!(w.iter().all(|&x| x == 0));
        let mut a = [7i8; 33];
        wipe(&mut a);
        assert_eq!(a, [0; 33]);
        let g = Wiped::new(vec![5u8; 10]);
        assert_eq!(g.len(), 10);
        drop(g);
    }
}
