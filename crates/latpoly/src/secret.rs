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
use zeroize::DefaultIsZeroes;

/// Zeroes `v`; the stores cannot be optimised away (see the module documentation).
#[inline]
pub(crate) fn wipe<T: DefaultIsZeroes>(v: &mut [T]) {
    v.fill(T::default());
    core::hint::black_box(v);
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

#[cfg(test)]
mod tests {
    use super::*;

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
