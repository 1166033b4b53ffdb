//! Key encapsulation mechanisms built on the PQC rings, and the NIST KAT machinery.
//!
//! * [`Kem`]: the interface every scheme implements (typed keys and ciphertexts, lengths as
//!   associated constants, randomness from a [`RandomSource`]).
//! * [`drbg`]: the AES-256 CTR DRBG of the NIST KAT generator (tests and `latpoly kat` only).
//! * [`kat`]: writing and parsing NIST `.rsp` files.
//! * [`ntru`]: ntruhps2048509, ntruhps2048677, ntruhps4096821, ntruhrss701 (NIST round 3).
//! * [`ntruplus`]: NTRU+KEM576/768/864/1152 (KpqC round-2 final, spec v2.2.1).
//! * [`ntruprime`]: sntrup761 and ntrulpr761 (NTRU Prime, NIST round 3).
//! * [`all`] and [`by_name`]: every KEM of the crate as a [`DynKem`].
//!
//! Secrets (secret keys, shared secrets) of the typed API are wiped on drop; the byte-level
//! [`DynKem`] hands them over as plain `Vec<u8>`s, which the caller wipes (the C and Python
//! fronts do, with `zeroize`, once they have copied them out). Wrong-length inputs are errors.

/// Implements [`Kem`] for a unit struct from the scheme's byte-level functions:
/// `keypair(rng) -> (pk, sk)`, `encapsulate(pk, rng) -> (ct, ss)` and
/// `decapsulate(sk, ct) -> ss`, whose secret outputs are wiped buffers (`crate::secret::Wiped`); the typed
/// values take their own copies. `$rejection` documents what an invalid ciphertext gives.
macro_rules! kem_impl {
    (
        $ty:ty, $name:expr, ($pk:expr, $sk:expr, $ct:expr, $ss:expr),
        keypair: $kp:expr,
        encapsulate: $enc:expr,
        decapsulate: $dec:expr,
        rejection: $rejection:literal $(,)?
    ) => {
        impl $crate::kem::Kem for $ty {
            const NAME: &'static str = $name;
            const PUBLIC_KEY_BYTES: usize = $pk;
            const SECRET_KEY_BYTES: usize = $sk;
            const CIPHERTEXT_BYTES: usize = $ct;
            const SHARED_SECRET_BYTES: usize = $ss;

            fn keypair(
                rng: &mut dyn $crate::kem::RandomSource,
            ) -> $crate::Result<($crate::kem::PublicKey<Self>, $crate::kem::SecretKey<Self>)> {
                let (pk, mut sk) = ($kp)(rng)?;
                Ok((
                    $crate::kem::PublicKey::from_vec(pk),
                    $crate::kem::SecretKey::from_vec(core::mem::take(&mut *sk)),
                ))
            }

            fn encapsulate(
                pk: &$crate::kem::PublicKey<Self>,
                rng: &mut dyn $crate::kem::RandomSource,
            ) -> $crate::Result<(
                $crate::kem::Ciphertext<Self>,
                $crate::kem::SharedSecret<Self>,
            )> {
                let (ct, mut ss) = ($enc)(pk.as_bytes(), rng)?;
                Ok((
                    $crate::kem::Ciphertext::from_vec(ct),
                    $crate::kem::SharedSecret::from_vec($crate::kem::TakeSecret::take_vec(&mut ss)),
                ))
            }

            #[doc = $rejection]
            fn decapsulate(
                sk: &$crate::kem::SecretKey<Self>,
                ct: &$crate::kem::Ciphertext<Self>,
            ) -> $crate::Result<$crate::kem::SharedSecret<Self>> {
                let mut ss = ($dec)(sk.as_bytes(), ct.as_bytes())?;
                Ok($crate::kem::SharedSecret::from_vec(
                    $crate::kem::TakeSecret::take_vec(&mut ss),
                ))
            }

            fn keypair_bytes(
                rng: &mut dyn $crate::kem::RandomSource,
            ) -> $crate::Result<(Vec<u8>, Vec<u8>)> {
                let (pk, mut sk) = ($kp)(rng)?;
                Ok((pk, core::mem::take(&mut *sk)))
            }

            fn encapsulate_bytes(
                pk: &[u8],
                rng: &mut dyn $crate::kem::RandomSource,
            ) -> $crate::Result<(Vec<u8>, Vec<u8>)> {
                $crate::kem::check_len(pk, $pk)?;
                let (ct, mut ss) = ($enc)(pk, rng)?;
                Ok((ct, $crate::kem::TakeSecret::take_vec(&mut ss)))
            }

            fn decapsulate_bytes(sk: &[u8], ct: &[u8]) -> $crate::Result<Vec<u8>> {
                $crate::kem::check_len(sk, $sk)?;
                $crate::kem::check_len(ct, $ct)?;
                let mut ss = ($dec)(sk, ct)?;
                Ok($crate::kem::TakeSecret::take_vec(&mut ss))
            }
        }
    };
}

/// A scheme's shared secret moved out of its wiping guard into a `Vec`: a `Vec` is handed over
/// without a copy; a fixed-size array is copied, and its guard wipes the original.
pub(crate) trait TakeSecret {
    fn take_vec(&mut self) -> Vec<u8>;
}

impl TakeSecret for crate::secret::Wiped<Vec<u8>> {
    fn take_vec(&mut self) -> Vec<u8> {
        core::mem::take(&mut **self)
    }
}

impl<const N: usize> TakeSecret for crate::secret::Wiped<[u8; N]> {
    fn take_vec(&mut self) -> Vec<u8> {
        self[..].to_vec()
    }
}

/// `Ok` when `bytes` has `len` bytes, else the [`Error::LengthMismatch`] the typed keys'
/// `from_bytes` return.
pub(crate) fn check_len(bytes: &[u8], len: usize) -> Result<()> {
    if bytes.len() == len {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            expected: len,
            got: bytes.len(),
        })
    }
}

pub mod drbg;
mod fork;
pub mod kat;
pub mod ntru;
pub mod ntruplus;
pub mod ntruprime;
mod sort;

use crate::error::{Error, Result};
use core::marker::PhantomData;

/// Where a KEM draws its randomness (`randombytes` of the reference code).
///
/// ```
/// use latpoly::kem::{ntruplus::NtruPlusKem576 as K, Kem, RandomSource};
///
/// /// A deterministic source (for tests only): 0, 1, 2, ...
/// struct Counter(u8);
/// impl RandomSource for Counter {
///     fn fill(&mut self, out: &mut [u8]) {
///         for b in out {
///             *b = self.0;
///             self.0 = self.0.wrapping_add(1);
///         }
///     }
/// }
/// let (pk1, _) = K::keypair(&mut Counter(0))?;
/// let (pk2, _) = K::keypair(&mut Counter(0))?;
/// assert_eq!(pk1, pk2); // same randomness, same key pair
/// # Ok::<(), latpoly::Error>(())
/// ```
pub trait RandomSource {
    /// Fills `out` with random bytes. Schemes call this exactly as their reference code calls
    /// `randombytes`, so a [`drbg::KatDrbg`] reproduces the NIST known-answer tests.
    ///
    /// ```
    /// use latpoly::kem::{drbg::KatDrbg, RandomSource};
    ///
    /// let entropy: [u8; 48] = core::array::from_fn(|i| i as u8);
    /// let mut rng: Box<dyn RandomSource> = Box::new(KatDrbg::new(&entropy));
    /// let mut seed = [0u8; 48];
    /// rng.fill(&mut seed);
    /// assert_eq!(seed[..4], [0x06, 0x15, 0x50, 0x23]); // count = 0 seed of every NIST KAT
    /// ```
    fn fill(&mut self, out: &mut [u8]);

    /// Fills `out` with 32-bit words, word `i` being the 4 bytes (little-endian) of its own
    /// [`fill`](Self::fill) call, in order: how the NTRU Prime reference draws its `urandom32`
    /// values, and what the NIST KAT generator needs (its output depends on how the bytes are
    /// split into calls). Sources whose calls concatenate into one byte stream (the operating
    /// system's, a stream cipher) may override it with one draw of `4 · out.len()` bytes.
    ///
    /// ```
    /// use latpoly::kem::RandomSource;
    ///
    /// struct Calls(u8);
    /// impl RandomSource for Calls {
    ///     fn fill(&mut self, out: &mut [u8]) {
    ///         out.fill(self.0); // every byte of one call is the call's number
    ///         self.0 += 1;
    ///     }
    /// }
    /// let mut words = [0u32; 3];
    /// Calls(1).fill_words(&mut words);
    /// assert_eq!(words, [0x0101_0101, 0x0202_0202, 0x0303_0303]);
    /// ```
    fn fill_words(&mut self, out: &mut [u32]) {
        for w in out.iter_mut() {
            let mut c = [0u8; 4];
            self.fill(&mut c);
            *w = u32::from_le_bytes(c);
            crate::secret::wipe(&mut c);
        }
    }
}

impl RandomSource for drbg::KatDrbg {
    fn fill(&mut self, out: &mut [u8]) {
        drbg::KatDrbg::fill(self, out)
    }
}

/// Randomness from the operating system, expanded per thread by ChaCha20 with fast key
/// erasure: the default source of the KEMs (and of Python and C).
///
/// Each thread keys a ChaCha20 generator (the `rand_chacha` crate) with 32 bytes of the
/// operating system's generator (`getrandom`) and hands out its keystream: requests of 256
/// bytes and more directly, smaller ones from 1 KiB generated ahead, each byte wiped from that
/// buffer as it is handed out. After every generation the generator rekeys itself from its own
/// next 32 bytes and the old state is overwritten ("fast key erasure", the design of the Linux
/// kernel's own generator), so a later leak of the thread's memory reveals no earlier output.
/// It takes a fresh key from the operating system after every 64 KiB generated and, in a child
/// process, before its first request after a `fork()` (a `pthread_atfork` handler marks the
/// inherited state; the inherited buffer is wiped), so parent and child never share bytes.
/// The system call costs ~3 ns per byte on Linux without the vDSO generator (an NTRU-HPS
/// encapsulation draws 2.4 KB), the expansion ~0.3 ns.
///
/// ```
/// use latpoly::kem::{OsRandom, RandomSource};
///
/// let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
/// OsRandom.fill(&mut a);
/// OsRandom.fill(&mut b);
/// assert_ne!(a, b); // fails with probability 2^-256
/// let mut big = vec![0u8; 100_000]; // more than the reseed interval in one request
/// OsRandom.fill(&mut big);
/// assert!(big.iter().any(|&x| x != 0));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct OsRandom;

/// Bytes generated under one key taken from the operating system.
const RESEED_BYTES: usize = 1 << 16;

/// Keystream generated ahead for small requests (each wiped as it is handed out).
const AHEAD: usize = 1024;

/// Requests of at least this many bytes are generated directly, not through the buffer.
const DIRECT: usize = 256;

struct ThreadGenerator {
    rng: Option<rand_chacha::ChaCha20Rng>,
    /// Keystream for small requests; `ahead[used..]` not handed out yet.
    ahead: [u8; AHEAD],
    used: usize,
    /// Bytes generated since the last key from the operating system.
    since_reseed: usize,
    /// The fork generation the key was drawn in (see `fork.rs`).
    generation: u64,
}

thread_local! {
    static GENERATOR: core::cell::RefCell<ThreadGenerator> = const {
        core::cell::RefCell::new(ThreadGenerator {
            rng: None,
            ahead: [0; AHEAD],
            used: AHEAD,
            since_reseed: 0,
            generation: 0,
        })
    };
}

impl ThreadGenerator {
    /// A generator keyed with `seed` (wiped).
    fn keyed(seed: &mut [u8; 32]) -> rand_chacha::ChaCha20Rng {
        use rand_core::SeedableRng;
        let rng = rand_chacha::ChaCha20Rng::from_seed(*seed);
        crate::secret::wipe(seed);
        rng
    }

    /// Fills `out` (at most [`RESEED_BYTES`] bytes) with keystream, then rekeys from the
    /// stream (fast key erasure): the state that produced `out` is overwritten.
    fn generate(&mut self, out: &mut [u8], generation: u64) {
        use rand_core::RngCore;
        if self.rng.is_none()
            || self.generation != generation
            || self.since_reseed + out.len() > RESEED_BYTES
        {
            // first use, a forked child (the inherited state is the parent's), or the
            // reseed interval: a fresh key from the operating system
            let mut seed = [0u8; 32];
            rand_core::OsRng.fill_bytes(&mut seed);
            self.rng = Some(Self::keyed(&mut seed));
            self.since_reseed = 0;
            if self.generation != generation {
                crate::secret::wipe(&mut self.ahead);
                self.used = AHEAD;
                self.generation = generation;
            }
        }
        let Some(rng) = self.rng.as_mut() else {
            unreachable!("keyed just above")
        };
        rng.fill_bytes(out);
        let mut next = [0u8; 32];
        rng.fill_bytes(&mut next);
        *rng = Self::keyed(&mut next);
        self.since_reseed += out.len() + 32;
    }

    fn fill(&mut self, out: &mut [u8], generation: u64) {
        if self.generation != generation {
            // the buffered keystream is the parent's too
            self.generate(&mut [], generation);
        }
        if out.len() >= DIRECT {
            for chunk in out.chunks_mut(RESEED_BYTES / 2) {
                self.generate(chunk, generation);
            }
            return;
        }
        let mut done = 0;
        while done < out.len() {
            if self.used == AHEAD {
                let mut ahead = [0u8; AHEAD];
                self.generate(&mut ahead, generation);
                self.ahead = ahead;
                crate::secret::wipe(&mut ahead);
                self.used = 0;
            }
            let take = (out.len() - done).min(AHEAD - self.used);
            let start = self.used;
            out[done..done + take].copy_from_slice(&self.ahead[start..start + take]);
            crate::secret::wipe(&mut self.ahead[start..start + take]);
            self.used += take;
            done += take;
        }
    }
}

impl RandomSource for OsRandom {
    /// One draw for all the words (the bytes form a single stream).
    fn fill_words(&mut self, out: &mut [u32]) {
        let mut bytes = [0u8; 1024];
        for chunk in out.chunks_mut(256) {
            let b = &mut bytes[..4 * chunk.len()];
            self.fill(b);
            for (w, c) in chunk.iter_mut().zip(b.chunks_exact(4)) {
                *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        crate::secret::wipe(&mut bytes);
    }

    fn fill(&mut self, out: &mut [u8]) {
        use rand_core::RngCore;
        let generation = fork::generation();
        if !fork::buffering_allowed(generation) {
            // no fork detection: every byte straight from the operating system
            rand_core::OsRng.fill_bytes(out);
            return;
        }
        GENERATOR.with(|g| g.borrow_mut().fill(out, generation));
    }
}

macro_rules! byte_type {
    ($(#[$doc:meta])* $name:ident, $len:ident, $secret:expr) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name<K: Kem> {
            bytes: Vec<u8>,
            _k: PhantomData<K>,
        }

        /// Byte equality; for secret keys and shared secrets in constant time (no early exit).
        impl<K: Kem> PartialEq for $name<K> {
            fn eq(&self, other: &Self) -> bool {
                if $secret {
                    bool::from(crate::arith::ct::bytes_equal(&self.bytes, &other.bytes))
                } else {
                    self.bytes == other.bytes
                }
            }
        }

        impl<K: Kem> Eq for $name<K> {}

        impl<K: Kem> $name<K> {
            /// Wraps bytes of exactly the scheme's length (error otherwise).
            ///
            /// ```
            #[doc = concat!("use latpoly::kem::{ntruplus::NtruPlusKem576 as K, ", stringify!($name), ", Kem};")]
            /// use latpoly::Error;
            ///
            #[doc = concat!("let bytes = vec![7u8; K::", stringify!($len), "];")]
            #[doc = concat!("let x = ", stringify!($name), "::<K>::from_bytes(&bytes)?;")]
            /// assert_eq!(x.as_bytes(), &bytes[..]);
            #[doc = concat!("let short = ", stringify!($name), "::<K>::from_bytes(&bytes[1..]);")]
            /// assert_eq!(short.unwrap_err(), Error::LengthMismatch { expected: bytes.len(), got: bytes.len() - 1 });
            /// # Ok::<(), latpoly::Error>(())
            /// ```
            pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
                if bytes.len() != K::$len {
                    return Err(Error::LengthMismatch {
                        expected: K::$len,
                        got: bytes.len(),
                    });
                }
                Ok(Self::from_vec(bytes.to_vec()))
            }

            pub(crate) fn from_vec(bytes: Vec<u8>) -> Self {
                debug_assert_eq!(bytes.len(), K::$len);
                Self {
                    bytes,
                    _k: PhantomData,
                }
            }

            /// The encoded bytes.
            ///
            /// ```
            #[doc = concat!("use latpoly::kem::{ntruplus::NtruPlusKem576 as K, ", stringify!($name), ", Kem};")]
            ///
            #[doc = concat!("let bytes: Vec<u8> = (0..K::", stringify!($len), ").map(|i| i as u8).collect();")]
            #[doc = concat!("let x = ", stringify!($name), "::<K>::from_bytes(&bytes)?;")]
            /// assert_eq!(x.as_bytes(), &bytes[..]);
            #[doc = concat!("assert_eq!(x.as_bytes().len(), K::", stringify!($len), ");")]
            /// # Ok::<(), latpoly::Error>(())
            /// ```
            pub fn as_bytes(&self) -> &[u8] {
                &self.bytes
            }
        }

        impl<K: Kem> core::fmt::Debug for $name<K> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                if $secret {
                    write!(f, "{}<{}> {{ .. }}", stringify!($name), K::NAME)
                } else {
                    write!(f, "{}<{}> ({} bytes)", stringify!($name), K::NAME, self.bytes.len())
                }
            }
        }

        impl<K: Kem> Drop for $name<K> {
            fn drop(&mut self) {
                if $secret {
                    crate::secret::Wipe::wipe(&mut self.bytes);
                }
            }
        }
    };
}

byte_type!(
    /// A public key of scheme `K`.
    ///
    /// ```
    /// use latpoly::kem::{ntruplus::NtruPlusKem576 as K, Kem, OsRandom, PublicKey};
    ///
    /// let (pk, _sk) = K::keypair(&mut OsRandom)?;
    /// assert_eq!(pk.as_bytes().len(), K::PUBLIC_KEY_BYTES);
    /// assert_eq!(PublicKey::<K>::from_bytes(pk.as_bytes())?, pk);
    /// assert_eq!(format!("{pk:?}"), "PublicKey<NTRU+KEM576> (864 bytes)");
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    PublicKey,
    PUBLIC_KEY_BYTES,
    false
);
byte_type!(
    /// A secret key of scheme `K` (wiped on drop).
    ///
    /// ```
    /// use latpoly::kem::{ntruplus::NtruPlusKem576 as K, Kem, OsRandom, SecretKey};
    ///
    /// let (_pk, sk) = K::keypair(&mut OsRandom)?;
    /// assert_eq!(sk.as_bytes().len(), K::SECRET_KEY_BYTES);
    /// assert_eq!(SecretKey::<K>::from_bytes(sk.as_bytes())?, sk);
    /// assert_eq!(format!("{sk:?}"), "SecretKey<NTRU+KEM576> { .. }"); // never the bytes
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    SecretKey,
    SECRET_KEY_BYTES,
    true
);
byte_type!(
    /// A ciphertext of scheme `K`.
    ///
    /// ```
    /// use latpoly::kem::{ntruplus::NtruPlusKem576 as K, Ciphertext, Kem, OsRandom};
    ///
    /// let (pk, sk) = K::keypair(&mut OsRandom)?;
    /// let (ct, ss) = K::encapsulate(&pk, &mut OsRandom)?;
    /// // Ciphertexts travel as bytes.
    /// let received = Ciphertext::<K>::from_bytes(ct.as_bytes())?;
    /// assert_eq!(K::decapsulate(&sk, &received)?, ss);
    /// assert_eq!(format!("{ct:?}"), "Ciphertext<NTRU+KEM576> (864 bytes)");
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    Ciphertext,
    CIPHERTEXT_BYTES,
    false
);
byte_type!(
    /// A shared secret of scheme `K` (wiped on drop).
    ///
    /// ```
    /// use latpoly::kem::{ntruplus::NtruPlusKem576 as K, Kem, OsRandom};
    ///
    /// let (pk, sk) = K::keypair(&mut OsRandom)?;
    /// let (ct, ss) = K::encapsulate(&pk, &mut OsRandom)?;
    /// assert_eq!(ss.as_bytes().len(), K::SHARED_SECRET_BYTES);
    /// assert_eq!(K::decapsulate(&sk, &ct)?, ss);
    /// assert_eq!(format!("{ss:?}"), "SharedSecret<NTRU+KEM576> { .. }"); // never the bytes
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    SharedSecret,
    SHARED_SECRET_BYTES,
    true
);

/// A key encapsulation mechanism.
///
/// ```
/// use latpoly::kem::{ntruplus::NtruPlusKem576, Kem, OsRandom};
///
/// /// One key exchange with any scheme.
/// fn agree<K: Kem>() -> latpoly::Result<bool> {
///     let (pk, sk) = K::keypair(&mut OsRandom)?; // receiver
///     let (ct, ss) = K::encapsulate(&pk, &mut OsRandom)?; // sender keeps ss, sends ct
///     Ok(K::decapsulate(&sk, &ct)?.as_bytes() == ss.as_bytes()) // receiver recovers ss
/// }
/// assert!(agree::<NtruPlusKem576>()?);
/// assert_eq!(NtruPlusKem576::SHARED_SECRET_BYTES, 32);
/// # Ok::<(), latpoly::Error>(())
/// ```
pub trait Kem: Sized + 'static {
    /// The scheme's name as in its NIST submission (e.g. `ntruhps2048509`).
    const NAME: &'static str;
    /// Public key length in bytes.
    const PUBLIC_KEY_BYTES: usize;
    /// Secret key length in bytes.
    const SECRET_KEY_BYTES: usize;
    /// Ciphertext length in bytes.
    const CIPHERTEXT_BYTES: usize;
    /// Shared secret length in bytes.
    const SHARED_SECRET_BYTES: usize;

    /// Generates a key pair.
    ///
    /// ```
    /// use latpoly::kem::{drbg::KatDrbg, ntruplus::NtruPlusKem576 as K, Kem};
    ///
    /// // Deterministic in the randomness: the same DRBG seed gives the same key pair.
    /// let (pk1, sk1) = K::keypair(&mut KatDrbg::new(&[1; 48]))?;
    /// let (pk2, sk2) = K::keypair(&mut KatDrbg::new(&[1; 48]))?;
    /// assert!(pk1 == pk2 && sk1 == sk2);
    /// let (pk3, _) = K::keypair(&mut KatDrbg::new(&[2; 48]))?;
    /// assert_ne!(pk1, pk3);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn keypair(rng: &mut dyn RandomSource) -> Result<(PublicKey<Self>, SecretKey<Self>)>;

    /// Encapsulates a fresh shared secret to `pk`.
    ///
    /// ```
    /// use latpoly::kem::{ntruplus::NtruPlusKem576 as K, Kem, OsRandom};
    ///
    /// let (pk, sk) = K::keypair(&mut OsRandom)?;
    /// let (ct1, ss1) = K::encapsulate(&pk, &mut OsRandom)?;
    /// let (ct2, ss2) = K::encapsulate(&pk, &mut OsRandom)?;
    /// assert!(ct1 != ct2 && ss1 != ss2); // fresh every time
    /// assert_eq!(K::decapsulate(&sk, &ct2)?, ss2);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn encapsulate(
        pk: &PublicKey<Self>,
        rng: &mut dyn RandomSource,
    ) -> Result<(Ciphertext<Self>, SharedSecret<Self>)>;

    /// Recovers the shared secret. A well-formed but invalid ciphertext follows the scheme:
    /// implicit rejection (a pseudorandom key) or explicit rejection (for NTRU+: `Ok` with an
    /// all-zero key, as its reference code outputs), as documented by each scheme.
    ///
    /// ```
    /// use latpoly::kem::{ntruplus::NtruPlusKem576 as K, Ciphertext, Kem, OsRandom};
    ///
    /// let (pk, sk) = K::keypair(&mut OsRandom)?;
    /// let (ct, ss) = K::encapsulate(&pk, &mut OsRandom)?;
    /// assert_eq!(K::decapsulate(&sk, &ct)?, ss);
    /// // A tampered ciphertext does not yield the sender's secret (NTRU+: all zero).
    /// let mut bad = ct.as_bytes().to_vec();
    /// bad[100] ^= 0x10;
    /// let bad = Ciphertext::<K>::from_bytes(&bad)?;
    /// assert_eq!(K::decapsulate(&sk, &bad)?.as_bytes(), &[0u8; 32]);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn decapsulate(sk: &SecretKey<Self>, ct: &Ciphertext<Self>) -> Result<SharedSecret<Self>>;

    /// [`Kem::keypair`] as `(public key, secret key)` bytes: what [`DynKem`] (the Python, C and
    /// CLI fronts) returns. The default goes through the typed keys; the schemes of this crate
    /// hand their buffers over without the copies.
    fn keypair_bytes(rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Vec<u8>)> {
        let (pk, sk) = Self::keypair(rng)?;
        Ok((pk.as_bytes().to_vec(), sk.as_bytes().to_vec()))
    }

    /// [`Kem::encapsulate`] on bytes: `(ciphertext, shared secret)`; a public key of the wrong
    /// length is the [`Error::LengthMismatch`] of [`PublicKey::from_bytes`].
    fn encapsulate_bytes(pk: &[u8], rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Vec<u8>)> {
        let pk = PublicKey::<Self>::from_bytes(pk)?;
        let (ct, ss) = Self::encapsulate(&pk, rng)?;
        Ok((ct.as_bytes().to_vec(), ss.as_bytes().to_vec()))
    }

    /// [`Kem::decapsulate`] on bytes; lengths checked as by the typed `from_bytes` (secret key
    /// first, then ciphertext).
    fn decapsulate_bytes(sk: &[u8], ct: &[u8]) -> Result<Vec<u8>> {
        let sk = SecretKey::<Self>::from_bytes(sk)?;
        let ct = Ciphertext::<Self>::from_bytes(ct)?;
        Ok(Self::decapsulate(&sk, &ct)?.as_bytes().to_vec())
    }
}

/// Object-safe view of a [`Kem`] on byte slices, for the Python and C fronts and the CLI.
/// The secret keys and shared secrets it returns are plain `Vec<u8>`s, not wiped on drop:
/// zeroize them when done (the typed [`Kem`] API wipes its own).
///
/// ```
/// use latpoly::kem::{all, DynKem, OsRandom};
///
/// // Pick a scheme at run time, e.g. from a command-line argument.
/// let kem: &dyn DynKem = all().into_iter().find(|k| k.name() == "NTRU+KEM576").unwrap();
/// let (pk, sk) = kem.keypair(&mut OsRandom)?;
/// let (ct, ss) = kem.encapsulate(&pk, &mut OsRandom)?;
/// assert_eq!(kem.decapsulate(&sk, &ct)?, ss);
/// # Ok::<(), latpoly::Error>(())
/// ```
pub trait DynKem: Send + Sync {
    /// Scheme name.
    ///
    /// ```
    /// use latpoly::kem::{all, by_name};
    /// for kem in all() {
    ///     assert_eq!(by_name(kem.name()).unwrap().name(), kem.name());
    /// }
    /// ```
    fn name(&self) -> &'static str;
    /// `(public key, secret key, ciphertext, shared secret)` lengths.
    ///
    /// ```
    /// use latpoly::kem::{by_name, OsRandom};
    ///
    /// let kem = by_name("NTRU+KEM576").unwrap();
    /// assert_eq!(kem.sizes(), (864, 1760, 864, 32));
    /// let (pk, sk) = kem.keypair(&mut OsRandom)?;
    /// let (ct, ss) = kem.encapsulate(&pk, &mut OsRandom)?;
    /// assert_eq!((pk.len(), sk.len(), ct.len(), ss.len()), kem.sizes());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn sizes(&self) -> (usize, usize, usize, usize);
    /// Key pair as bytes.
    ///
    /// ```
    /// use latpoly::kem::{by_name, drbg::KatDrbg};
    ///
    /// let kem = by_name("NTRU+KEM576").unwrap();
    /// let (pk, sk) = kem.keypair(&mut KatDrbg::new(&[0; 48]))?;
    /// assert_eq!((pk.len(), sk.len()), (864, 1760));
    /// assert_eq!(kem.keypair(&mut KatDrbg::new(&[0; 48]))?, (pk, sk)); // deterministic
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn keypair(&self, rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Vec<u8>)>;
    /// `(ciphertext, shared secret)` as bytes.
    ///
    /// ```
    /// use latpoly::kem::{by_name, OsRandom};
    /// use latpoly::Error;
    ///
    /// let kem = by_name("NTRU+KEM576").unwrap();
    /// let (pk, _sk) = kem.keypair(&mut OsRandom)?;
    /// let (ct, ss) = kem.encapsulate(&pk, &mut OsRandom)?;
    /// assert_eq!((ct.len(), ss.len()), (864, 32));
    /// let err = kem.encapsulate(&pk[..100], &mut OsRandom).unwrap_err();
    /// assert_eq!(err, Error::LengthMismatch { expected: 864, got: 100 });
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn encapsulate(&self, pk: &[u8], rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Vec<u8>)>;
    /// Shared secret as bytes.
    ///
    /// ```
    /// use latpoly::kem::{by_name, OsRandom};
    ///
    /// let kem = by_name("NTRU+KEM576").unwrap();
    /// let (pk, sk) = kem.keypair(&mut OsRandom)?;
    /// let (ct, ss) = kem.encapsulate(&pk, &mut OsRandom)?;
    /// assert_eq!(kem.decapsulate(&sk, &ct)?, ss);
    /// assert!(kem.decapsulate(&sk, &ct[1..]).is_err()); // wrong ciphertext length
    /// assert!(kem.decapsulate(&ct, &ct).is_err()); // a ciphertext is not a secret key
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    fn decapsulate(&self, sk: &[u8], ct: &[u8]) -> Result<Vec<u8>>;
}

/// Adapter from a [`Kem`] type to [`DynKem`].
///
/// ```
/// use latpoly::kem::{ntruplus::NtruPlusKem576 as K, Dyn, DynKem, Kem};
///
/// static MY_KEMS: [&dyn DynKem; 1] = [&Dyn::<K>::new()];
/// assert_eq!(MY_KEMS[0].name(), K::NAME);
/// assert_eq!(MY_KEMS[0].sizes().0, K::PUBLIC_KEY_BYTES);
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct Dyn<K: Kem>(PhantomData<K>);

impl<K: Kem> Dyn<K> {
    /// The adapter.
    ///
    /// ```
    /// use latpoly::kem::{ntruplus::NtruPlusKem864 as K, Dyn, DynKem};
    ///
    /// const ADAPTER: Dyn<K> = Dyn::new(); // usable in constants
    /// assert_eq!(ADAPTER.name(), "NTRU+KEM864");
    /// assert_eq!(ADAPTER.sizes(), (1296, 2624, 1296, 32));
    /// ```
    pub const fn new() -> Self {
        Dyn(PhantomData)
    }
}

impl<K: Kem + Send + Sync> DynKem for Dyn<K> {
    fn name(&self) -> &'static str {
        K::NAME
    }
    fn sizes(&self) -> (usize, usize, usize, usize) {
        (
            K::PUBLIC_KEY_BYTES,
            K::SECRET_KEY_BYTES,
            K::CIPHERTEXT_BYTES,
            K::SHARED_SECRET_BYTES,
        )
    }
    fn keypair(&self, rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Vec<u8>)> {
        K::keypair_bytes(rng)
    }
    fn encapsulate(&self, pk: &[u8], rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Vec<u8>)> {
        K::encapsulate_bytes(pk, rng)
    }
    fn decapsulate(&self, sk: &[u8], ct: &[u8]) -> Result<Vec<u8>> {
        K::decapsulate_bytes(sk, ct)
    }
}

/// Every KEM this crate implements, as [`DynKem`] objects (the list [`by_name`] searches).
///
/// ```
/// let names: Vec<&str> = latpoly::kem::all().iter().map(|k| k.name()).collect();
/// assert!(names.contains(&"NTRU+KEM576"));
/// ```
pub fn all() -> Vec<&'static dyn DynKem> {
    let mut v: Vec<&'static dyn DynKem> = Vec::new();
    v.extend(ntru::NTRU);
    v.extend(ntruplus::NTRUPLUS);
    v.extend(ntruprime::NTRUPRIME);
    v
}

/// The KEM whose [`DynKem::name`] is exactly `name` (as in its KAT file header), if the crate
/// implements it.
///
/// ```
/// use latpoly::kem::{by_name, OsRandom};
///
/// let kem = by_name("NTRU+KEM864").unwrap();
/// let (pk, sk) = kem.keypair(&mut OsRandom)?;
/// let (ct, ss) = kem.encapsulate(&pk, &mut OsRandom)?;
/// assert_eq!(kem.decapsulate(&sk, &ct)?, ss);
/// assert!(by_name("ntru+kem864").is_none());
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn by_name(name: &str) -> Option<&'static dyn DynKem> {
    all().into_iter().find(|k| k.name() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-level calls of every scheme (what [`DynKem`] and the fronts run) give exactly the
    /// typed calls' bytes for the same randomness, including a decapsulation of a tampered
    /// ciphertext (the rejection path).
    #[test]
    fn byte_calls_match_the_typed_calls() {
        fn check<K: Kem>() {
            use drbg::KatDrbg;
            for seed in 0..3u8 {
                let (pk, sk) = K::keypair(&mut KatDrbg::new(&[seed; 48])).unwrap();
                let (pkb, skb) = K::keypair_bytes(&mut KatDrbg::new(&[seed; 48])).unwrap();
                assert_eq!(
                    (pk.as_bytes(), sk.as_bytes()),
                    (&pkb[..], &skb[..]),
                    "{}",
                    K::NAME
                );
                let (ct, ss) = K::encapsulate(&pk, &mut KatDrbg::new(&[seed ^ 0x5a; 48])).unwrap();
                let (ctb, ssb) =
                    K::encapsulate_bytes(&pkb, &mut KatDrbg::new(&[seed ^ 0x5a; 48])).unwrap();
                assert_eq!(
                    (ct.as_bytes(), ss.as_bytes()),
                    (&ctb[..], &ssb[..]),
                    "{}",
                    K::NAME
                );
                assert_eq!(
                    K::decapsulate_bytes(&skb, &ctb).unwrap(),
                    ssb,
                    "{}",
                    K::NAME
                );
                let mut bad = ctb.clone();
                bad[7] ^= 1;
                let typed = K::decapsulate(&sk, &Ciphertext::from_bytes(&bad).unwrap()).unwrap();
                assert_eq!(K::decapsulate_bytes(&skb, &bad).unwrap(), typed.as_bytes());
            }
        }
        check::<ntru::NtruHps2048509>();
        check::<ntru::NtruHps2048677>();
        check::<ntru::NtruHps4096821>();
        check::<ntru::NtruHrss701>();
        check::<ntruprime::Sntrup761>();
        check::<ntruprime::Ntrulpr761>();
        check::<ntruplus::NtruPlusKem576>();
        check::<ntruplus::NtruPlusKem768>();
        check::<ntruplus::NtruPlusKem864>();
        check::<ntruplus::NtruPlusKem1152>();
    }

    /// The per-thread generator: byte frequencies of ~450 KB of output near uniform (chi-square
    /// with 255 degrees of freedom, bound far in the tail), no repeated 32-byte block, and
    /// requests crossing the reseed interval, of every small length, all answered.
    #[test]
    fn os_random_output_looks_uniform_and_never_repeats() {
        let mut counts = [0u64; 256];
        let mut seen = std::collections::HashSet::new();
        let mut total = 0usize;
        for len in (0..=300usize).chain([4096, 65535, 65536, 65537, 200_000]) {
            let mut buf = vec![0u8; len];
            OsRandom.fill(&mut buf);
            for &b in &buf {
                counts[usize::from(b)] += 1;
            }
            total += len;
            for block in buf.chunks_exact(32) {
                assert!(seen.insert(block.to_vec()), "a 32-byte block repeated");
            }
        }
        let expected = total as f64 / 256.0;
        let chi2: f64 = counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum();
        // mean 255, standard deviation ~22.6: 400 is ~6.4 sigma
        assert!(chi2 < 400.0, "chi-square {chi2} over {total} bytes");
        let mut words = vec![0u32; 1000];
        OsRandom.fill_words(&mut words);
        assert!(words.iter().any(|&w| w > u32::MAX / 2) && words.iter().any(|&w| w < u32::MAX / 2));
    }

    /// Two threads key their own generators: they never hand out the same bytes.
    #[test]
    fn os_random_threads_draw_different_bytes() {
        let draw = || {
            let mut b = [0u8; 64];
            OsRandom.fill(&mut b);
            b
        };
        let a = std::thread::spawn(draw).join().unwrap();
        let b = std::thread::spawn(draw).join().unwrap();
        assert_ne!(a, b);
        assert_ne!(a, draw());
    }

    #[test]
    fn ntru_and_ntruplus_operations_leave_the_secret_scratch_zeroed() {
        use crate::secret::scratch_is_clear;
        fn run<K: Kem>() {
            let (pk, sk) = K::keypair(&mut OsRandom).unwrap();
            assert!(
                scratch_is_clear::<i16>() && scratch_is_clear::<u16>(),
                "{}",
                K::NAME
            );
            let (ct, ss) = K::encapsulate(&pk, &mut OsRandom).unwrap();
            assert!(
                scratch_is_clear::<i16>() && scratch_is_clear::<u16>(),
                "{}",
                K::NAME
            );
            assert!(K::decapsulate(&sk, &ct).unwrap() == ss, "{}", K::NAME);
            assert!(
                scratch_is_clear::<i16>() && scratch_is_clear::<u16>(),
                "{}",
                K::NAME
            );
        }
        run::<ntru::NtruHps2048509>();
        run::<ntru::NtruHrss701>();
        run::<ntruplus::NtruPlusKem576>();
        run::<ntruplus::NtruPlusKem1152>();
    }

    /// Generic code compares typed values without a `K: PartialEq` bound; secrets compare in
    /// constant time and still by value.
    fn same<K: Kem>(a: &SharedSecret<K>, b: &SharedSecret<K>) -> bool {
        a == b
    }

    #[test]
    fn typed_values_compare_by_bytes() {
        use ntruplus::NtruPlusKem576 as K;
        let a = SharedSecret::<K>::from_bytes(&[7; 32]).unwrap();
        let mut other = [7u8; 32];
        assert!(same(&a, &SharedSecret::<K>::from_bytes(&other).unwrap()));
        other[31] ^= 0x80;
        assert!(!same(&a, &SharedSecret::<K>::from_bytes(&other).unwrap()));
        let p = PublicKey::<K>::from_bytes(&[1; 864]).unwrap();
        assert_eq!(p.clone(), p);
        assert_ne!(p, PublicKey::<K>::from_bytes(&[2; 864]).unwrap());
    }
}
