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
//! Secrets (secret keys, shared secrets) are wiped on drop; wrong-length inputs are errors.

pub mod drbg;
pub mod kat;
pub mod ntru;
pub mod ntruplus;
pub mod ntruprime;
mod sort;

use crate::error::{Error, Result};
use core::marker::PhantomData;
use zeroize::Zeroize;

/// Where a KEM draws its randomness (`randombytes` of the reference code).
pub trait RandomSource {
    /// Fills `out` with random bytes. Schemes call this exactly as their reference code calls
    /// `randombytes`, so a [`drbg::KatDrbg`] reproduces the NIST known-answer tests.
    fn fill(&mut self, out: &mut [u8]);
}

impl RandomSource for drbg::KatDrbg {
    fn fill(&mut self, out: &mut [u8]) {
        drbg::KatDrbg::fill(self, out)
    }
}

/// The operating system's CSPRNG, read through a small per-thread buffer (4 KiB per system
/// call): schemes that draw 4 bytes per coefficient, as the NTRU Prime reference does, would
/// otherwise make hundreds of system calls per key. Bytes are wiped from the buffer as they are
/// handed out.
#[derive(Clone, Copy, Debug, Default)]
pub struct OsRandom;

struct OsBuffer {
    bytes: [u8; 4096],
    used: usize,
}

thread_local! {
    static OS_BUFFER: core::cell::RefCell<OsBuffer> = const {
        core::cell::RefCell::new(OsBuffer { bytes: [0; 4096], used: 4096 })
    };
}

impl RandomSource for OsRandom {
    fn fill(&mut self, out: &mut [u8]) {
        use rand_core::RngCore;
        if out.len() > 1024 {
            rand_core::OsRng.fill_bytes(out);
            return;
        }
        OS_BUFFER.with(|b| {
            let mut b = b.borrow_mut();
            let mut done = 0;
            while done < out.len() {
                if b.used == b.bytes.len() {
                    rand_core::OsRng.fill_bytes(&mut b.bytes);
                    b.used = 0;
                }
                let take = (out.len() - done).min(b.bytes.len() - b.used);
                let start = b.used;
                out[done..done + take].copy_from_slice(&b.bytes[start..start + take]);
                b.bytes[start..start + take].zeroize();
                b.used += take;
                done += take;
            }
        });
    }
}

macro_rules! byte_type {
    ($(#[$doc:meta])* $name:ident, $len:ident, $secret:expr) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq)]
        pub struct $name<K: Kem> {
            bytes: Vec<u8>,
            _k: PhantomData<K>,
        }

        impl<K: Kem> $name<K> {
            /// Wraps bytes of exactly the scheme's length (error otherwise).
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
                    self.bytes.zeroize();
                }
            }
        }
    };
}

byte_type!(
    /// A public key of scheme `K`.
    PublicKey,
    PUBLIC_KEY_BYTES,
    false
);
byte_type!(
    /// A secret key of scheme `K` (wiped on drop).
    SecretKey,
    SECRET_KEY_BYTES,
    true
);
byte_type!(
    /// A ciphertext of scheme `K`.
    Ciphertext,
    CIPHERTEXT_BYTES,
    false
);
byte_type!(
    /// A shared secret of scheme `K` (wiped on drop).
    SharedSecret,
    SHARED_SECRET_BYTES,
    true
);

/// A key encapsulation mechanism.
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
    fn keypair(rng: &mut dyn RandomSource) -> Result<(PublicKey<Self>, SecretKey<Self>)>;

    /// Encapsulates a fresh shared secret to `pk`.
    fn encapsulate(
        pk: &PublicKey<Self>,
        rng: &mut dyn RandomSource,
    ) -> Result<(Ciphertext<Self>, SharedSecret<Self>)>;

    /// Recovers the shared secret. A well-formed but invalid ciphertext follows the scheme:
    /// implicit rejection (a pseudorandom key) or explicit rejection (for NTRU+: `Ok` with an
    /// all-zero key, as its reference code outputs), as documented by each scheme.
    fn decapsulate(sk: &SecretKey<Self>, ct: &Ciphertext<Self>) -> Result<SharedSecret<Self>>;
}

/// Object-safe view of a [`Kem`] on byte slices, for the Python and C fronts and the CLI.
pub trait DynKem: Send + Sync {
    /// Scheme name.
    fn name(&self) -> &'static str;
    /// `(public key, secret key, ciphertext, shared secret)` lengths.
    fn sizes(&self) -> (usize, usize, usize, usize);
    /// Key pair as bytes.
    fn keypair(&self, rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Vec<u8>)>;
    /// `(ciphertext, shared secret)` as bytes.
    fn encapsulate(&self, pk: &[u8], rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Vec<u8>)>;
    /// Shared secret as bytes.
    fn decapsulate(&self, sk: &[u8], ct: &[u8]) -> Result<Vec<u8>>;
}

/// Adapter from a [`Kem`] type to [`DynKem`].
#[derive(Debug, Default, Clone, Copy)]
pub struct Dyn<K: Kem>(PhantomData<K>);

impl<K: Kem> Dyn<K> {
    /// The adapter.
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
        let (pk, sk) = K::keypair(rng)?;
        Ok((pk.as_bytes().to_vec(), sk.as_bytes().to_vec()))
    }
    fn encapsulate(&self, pk: &[u8], rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Vec<u8>)> {
        let pk = PublicKey::<K>::from_bytes(pk)?;
        let (ct, ss) = K::encapsulate(&pk, rng)?;
        Ok((ct.as_bytes().to_vec(), ss.as_bytes().to_vec()))
    }
    fn decapsulate(&self, sk: &[u8], ct: &[u8]) -> Result<Vec<u8>> {
        let sk = SecretKey::<K>::from_bytes(sk)?;
        let ct = Ciphertext::<K>::from_bytes(ct)?;
        Ok(K::decapsulate(&sk, &ct)?.as_bytes().to_vec())
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
