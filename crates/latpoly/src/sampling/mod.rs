//! Constant-time samplers for lattice cryptography (NFLlib parity and more).
//!
//! A [`Sampler`] owns a ChaCha20 stream, seeded from the operating system ([`Sampler::new`]) or
//! from a 32-byte seed ([`Sampler::from_seed`], reproducible across platforms and versions of
//! this crate: the same seed gives the same samples). The stream is word for word that of
//! `rand_chacha::ChaCha20Rng::from_seed(seed)`, generated 32 blocks at a time by this
//! crate's AVX-512 or AVX2 code where the CPU runs it (about 1.6 GB/s for `rand_chacha` on this
//! project's AMD Zen 5 machine, which was nearly all the time of a uniform sample). It draws:
//!
//! | call | distribution | method | distance to the exact distribution |
//! |---|---|---|---|
//! | [`Sampler::uniform`] | uniform in `[0, q)`, `1 <= q < 2^64` | 128 random bits `x`, output `floor(x q / 2^128)` | `< q / 2^129 <= 2^-65` |
//! | [`Sampler::bounded`] | uniform in `[-B, B]`, `B <= 2^62` | uniform in `[0, 2B + 1)`, minus `B` | `< (2B + 1) / 2^129 < 2^-65` |
//! | [`Sampler::cbd`] | centered binomial `CBD(eta)`, `1 <= eta <= 32` | `popcount(eta bits) - popcount(eta bits)` | exact |
//! | [`Sampler::gaussian`] | discrete Gaussian `D_{Z,sigma}`, centre 0 | full-scan 128-bit CDT, tail cut `ceil(14 sigma)` | `<= (T+1) 2^-128 + 2^-140` ([`GaussianCdt`]) |
//! | [`Sampler::ternary`] | uniform in `{-1, 0, 1}` | uniform in `[0, 3)`, minus 1 | `< 2^-127` |
//! | [`Sampler::ternary_fixed`] | exactly `h` entries `±1` (uniform positions and signs), rest 0 | selection sampling (Knuth's Algorithm S) with branch-free choices | `< n (n + 1) / 2^130` |
//! | [`Sampler::uniform_poly`] | uniform in `Z_Q[x]/(x^n+1)` | independent uniform residue per limb (uniform mod `Q` by CRT) | `< n L 2^-65` |
//!
//! Each has an in-place `fill_*` form (no allocation, for benchmarks and hot loops) and an
//! [`RnsPoly`] form (`*_poly`) that reduces the small coefficients into every
//! limb of an RNS context (the same result as
//! [`RnsPoly::from_i64s`], with this module's branch-free
//! reduction).
//!
//! # Constant time
//!
//! No branch and no memory index depends on a sampled (secret) value or on the seed: loop bounds
//! and table sizes depend only on the public parameters (`n`, `q`, `B`, `eta`, `sigma`, weight).
//! Comparisons of secret values are computed arithmetically (the borrow of a wrapping
//! subtraction), conditional negation uses masks, and there is no rejection sampling:
//!
//! * uniform / bounded / ternary: one 128 x 64-bit multiply-high, no division, no loop;
//! * CBD: two population counts of masked words (branch-free bit tricks, or `popcnt`);
//! * Gaussian: every sample compares a 128-bit random value with **every** table entry;
//! * fixed weight: every position does the same work; the running count of ones still to place
//!   is only used in arithmetic.
//!
//! The test `crates/latpoly/tests/ct_sampling.rs` checks this with the ctgrind method under
//! Valgrind: the seed is marked uninitialised, and Valgrind reports every conditional jump or
//! memory address that depends on it (see `crates/latpoly/examples/ct_sampling.rs`).
//!
//! Integer multiplication is assumed to be constant time (it is on current x86-64 and AArch64
//! server cores). Parameter validation (`q = 0`, `eta` out of range, ...) branches on the
//! public parameters only. The `*_poly` calls build their polynomials without a range check
//! (every residue is below its prime by construction).
//!
//! # Zeroization
//!
//! The ChaCha20 state is boxed (so moving a `Sampler` does not copy it); its key and buffered
//! keystream are wiped on drop (with the portable backend, `rand_chacha`'s generator, which is
//! not `Zeroize`, is overwritten with the zero seed's: best effort). Seeds passed to the
//! constructors, leftover random
//! bits and the temporary coefficient vectors of the `*_poly` calls are wiped with [`zeroize`].
//! Not wiped: the samples returned to the caller (wrap them in [`zeroize::Zeroizing`] if they
//! are secret), copies the compiler leaves in registers or on the stack, and the residues inside
//! returned [`RnsPoly`] values.
//!
//! ```
//! use latpoly::sampling::Sampler;
//! use latpoly::rns::RnsContext;
//!
//! let mut s = Sampler::from_seed([42; 32]);
//! let a = s.uniform(8, 12289).unwrap();
//! assert!(a.iter().all(|&x| x < 12289));
//! let e = s.gaussian(8, 3.19).unwrap();
//! assert!(e.iter().all(|&x| x.abs() <= 45));
//!
//! let ctx = RnsContext::with_prime_bits(16, 50, 3).unwrap();
//! let secret = s.ternary_fixed_poly(&ctx, 4).unwrap();
//! let nonzero = secret.to_centered_bigints().iter().filter(|c| **c != 0.into()).count();
//! assert_eq!(nonzero, 4);
//!
//! // Same seed, same stream.
//! assert_eq!(Sampler::from_seed([42; 32]).uniform(8, 12289).unwrap(), a);
//! ```

mod cbd;
mod chacha;
mod ct;
mod gaussian;
mod ternary;
mod uniform;

pub use gaussian::{GaussianCdt, GAUSSIAN_PRECISION_BITS, GAUSSIAN_TAIL_CUT, MAX_GAUSSIAN_SIGMA};
pub use uniform::MAX_BOUND;

use crate::error::{Error, Result};
use crate::rns::{Representation, RnsContext, RnsPoly};
use core::fmt;
use rand_core::{OsRng, RngCore};
use std::sync::Arc;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// A cryptographic sampler: a ChaCha20 stream and constant-time samplers on top of it.
///
/// See the [module documentation](self) for the distributions, their exactness and the
/// constant-time argument. A `Sampler` is `Send + Sync` but deliberately not `Clone` (two
/// copies would produce the same "random" values).
///
/// ```
/// use latpoly::sampling::Sampler;
/// let mut os = Sampler::new(); // seeded from the OS CSPRNG
/// let v = os.ternary(16)?;
/// assert!(v.iter().all(|x| (-1..=1).contains(x)));
/// let mut a = Sampler::from_seed([1; 32]);
/// let mut b = Sampler::from_seed([1; 32]);
/// assert_eq!(a.cbd(32, 2).unwrap(), b.cbd(32, 2).unwrap());
/// # Ok::<(), latpoly::Error>(())
/// ```
pub struct Sampler {
    rng: Box<chacha::ChaCha20>,
    /// The Gaussian table of the last `sigma` used by [`Sampler::gaussian`] (public data).
    gaussian_cache: Option<Arc<GaussianCdt>>,
}

impl Sampler {
    /// A sampler seeded with 32 bytes from the operating system's CSPRNG ([`OsRng`]).
    ///
    /// # Panics
    ///
    /// If the operating system's random source fails (as [`OsRng`] itself does).
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::new();
    /// assert!(s.uniform(4, 7).unwrap().iter().all(|&x| x < 7));
    /// ```
    pub fn new() -> Sampler {
        let mut seed = Zeroizing::new([0u8; 32]);
        OsRng.fill_bytes(&mut seed[..]);
        Sampler::from_seed(*seed)
    }

    /// A sampler producing the reproducible stream of `seed` (ChaCha20 keyed with the seed,
    /// stream 0). The local copy of the seed is wiped; the caller's array is the caller's.
    ///
    /// ```
    /// use latpoly::sampling::Sampler;
    /// let x = Sampler::from_seed([9; 32]).uniform(4, 1 << 40).unwrap();
    /// let y = Sampler::from_seed([9; 32]).uniform(4, 1 << 40).unwrap();
    /// let z = Sampler::from_seed([8; 32]).uniform(4, 1 << 40).unwrap();
    /// assert_eq!(x, y);
    /// assert_ne!(x, z);
    /// ```
    pub fn from_seed(seed: [u8; 32]) -> Sampler {
        let mut seed = seed;
        let rng = Box::new(chacha::ChaCha20::new(&seed));
        seed.zeroize();
        Sampler {
            rng,
            gaussian_cache: None,
        }
    }

    /// A new sampler keyed with the next 32 bytes of this one's stream (four 64-bit words,
    /// little-endian): an independent stream for another owner (a second instance, a thread)
    /// that stays reproducible when this one is. The seed's buffer here is wiped after use.
    ///
    /// ```
    /// use latpoly::sampling::Sampler;
    /// let (mut a, mut b) = (Sampler::from_seed([3; 32]), Sampler::from_seed([3; 32]));
    /// let (mut fa, mut fb) = (a.fork(), b.fork());
    /// assert_eq!(fa.uniform(4, 1 << 40)?, fb.uniform(4, 1 << 40)?); // reproducible
    /// assert_ne!(fa.uniform(4, 1 << 40)?, a.uniform(4, 1 << 40)?); // another stream
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn fork(&mut self) -> Sampler {
        let seed = Zeroizing::new(self.next_seed());
        Sampler::from_seed(*seed)
    }

    /// The next 32 bytes of the stream (four 64-bit words, little-endian): the seed of a
    /// fork, or of a BFV ciphertext's or key's uniform part (public once drawn).
    pub(crate) fn next_seed(&mut self) -> [u8; 32] {
        let mut seed = [0u8; 32];
        for w in seed.chunks_exact_mut(8) {
            w.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        seed
    }

    /// The instruction set this process generates the samplers' ChaCha20 keystream with:
    /// `Avx512` or `Avx2` where the CPU runs them (and `LATPOLY_ISA` allows), otherwise
    /// `Scalar` (`rand_chacha`'s generator). Every backend gives the same stream.
    ///
    /// ```
    /// use latpoly::{sampling::Sampler, Isa};
    /// assert!(Isa::ALL.contains(&Sampler::stream_isa()));
    /// assert_ne!(Sampler::stream_isa(), Isa::Avx512Ifma);
    /// ```
    pub fn stream_isa() -> crate::Isa {
        chacha::isa()
    }

    /// The next 64 bits of the stream.
    #[inline(always)]
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// `out[i] = f(v_i)` for `out.len()` values `v_i` uniform in `[0, m)`: the values of as
    /// many [`Sampler::uniform_below`] calls, read from the keystream buffer in bulk.
    #[inline(always)]
    pub(crate) fn fill_below<T>(&mut self, out: &mut [T], m: u64, f: impl Fn(u64) -> T) {
        self.rng
            .map_pairs(out, |hi, lo| f(ct::scale_128(hi, lo, m)))
    }
}

impl Default for Sampler {
    /// Same as [`Sampler::new`]: seeded from the operating system.
    ///
    /// ```
    /// let mut s = latpoly::sampling::Sampler::default();
    /// assert_eq!(s.bounded(3, 0).unwrap(), vec![0, 0, 0]);
    /// ```
    fn default() -> Self {
        Sampler::new()
    }
}

impl fmt::Debug for Sampler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the state.
        f.debug_struct("Sampler").finish_non_exhaustive()
    }
}

/// The ChaCha20 key and buffered keystream are wiped on drop (see the module documentation).
impl ZeroizeOnDrop for Sampler {}

/// A source of single random bits, refilled 64 at a time; leftover bits are wiped on drop.
///
/// The refill branch depends only on how many bits were taken (public).
pub(crate) struct BitPool {
    word: u64,
    left: u32,
}

impl BitPool {
    pub(crate) fn new() -> Self {
        BitPool { word: 0, left: 0 }
    }

    /// One uniform bit (0 or 1).
    #[inline(always)]
    pub(crate) fn next(&mut self, s: &mut Sampler) -> u64 {
        if self.left == 0 {
            self.word = s.next_u64();
            self.left = 64;
        }
        let b = self.word & 1;
        self.word >>= 1;
        self.left -= 1;
        b
    }
}

impl Drop for BitPool {
    fn drop(&mut self) {
        self.word.zeroize();
    }
}

/// A zeroed vector of `n` values, or `Err` if it cannot be allocated (instead of aborting).
pub(crate) fn try_zeroed<T: Copy + Default>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| Error::InvalidArgument(format!("cannot allocate {n} samples")))?;
    v.resize(n, T::default());
    Ok(v)
}

/// `c mod q` for a secret `c` with `|c| <= bound` (`bound` public), branch-free: when
/// `bound < q` (always, for ternary and error distributions) one addition of `q` under the
/// sign mask ([`crate::arith::ct::neg_mask_i64`]: the barrier on the sign bit), else
/// [`Modulus64::reduce_i64`](crate::arith::Modulus64). The Valgrind tests check the compiled code.
#[inline(always)]
pub(crate) fn small_residue(m: &crate::arith::Modulus64, c: i64, bound: u64) -> u64 {
    use crate::arith::Modulus;
    let q = m.value();
    if bound < q {
        let mask = crate::arith::ct::neg_mask_i64(c);
        (c as u64).wrapping_add(q & mask)
    } else {
        m.reduce_i64(c)
    }
}

/// Builds a coefficient-form polynomial from secret coefficients `|c| <= bound <= 2^62` (`bound`
/// is the sampler's public bound, see [`small_residue`]), then wipes them. The residues go in
/// without a range check.
pub(crate) fn small_poly(
    ctx: &Arc<RnsContext>,
    coeffs: crate::secret::Wiped<Vec<i64>>,
    bound: u64,
) -> RnsPoly {
    let n = ctx.n();
    debug_assert_eq!(coeffs.len(), n);
    let mut data = vec![0u64; n * ctx.len()];
    for (limb, m) in data.chunks_exact_mut(n).zip(ctx.crt().moduli()) {
        for (r, &c) in limb.iter_mut().zip(coeffs.iter()) {
            *r = small_residue(m, c, bound);
        }
    }
    RnsPoly::from_residues_unchecked(ctx, data, Representation::Coefficient)
}
