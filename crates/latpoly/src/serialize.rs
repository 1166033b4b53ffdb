//! A compact, versioned, endian-fixed binary format for [`RnsPoly`].
//!
//! [`RnsPoly::to_bytes`] writes a polynomial together with its ring (degree `n` and primes
//! `q_1, ..., q_L`); [`RnsPoly::from_bytes`] reads it back into a fresh [`RnsContext`], and
//! [`RnsPoly::from_bytes_in`] reads it into an existing context (no NTT tables are rebuilt).
//!
//! # Format, version 1
//!
//! Every multi-byte integer is little-endian; there are no padding bytes between fields.
//!
//! | offset      | size  | field                                                           |
//! |-------------|-------|-----------------------------------------------------------------|
//! | 0           | 4     | magic [`MAGIC`] = `b"LPLY"` = `4C 50 4C 59`                     |
//! | 4           | 1     | format version [`FORMAT_VERSION`] = `1`                          |
//! | 5           | 1     | object kind: [`KIND_RNS_POLY`] = `1`                             |
//! | 6           | 1     | representation: `0` = coefficient, `1` = NTT                     |
//! | 7           | 1     | `log2(n)`, `1..=17` (`n = 2 ..= 2^17`)                           |
//! | 8           | 2     | `L`, the number of primes, `u16`, at least 1                     |
//! | 10          | `8·L` | the primes `q_1, ..., q_L`, each a `u64`                         |
//! | `10 + 8·L`  | `P`   | the residues, bit-packed (below)                                 |
//!
//! **Residues.** Limb `i` (the residues modulo `q_i`) uses exactly `b_i` bits per residue, where
//! `b_i` is the bit length of `q_i - 1` (that is, `ceil(log2 q_i)`: the fewest bits that hold
//! every value of `[0, q_i)`). The `n` residues of limb 1, then the `n` of limb 2, ..., then the
//! `n` of limb `L` are written as one bit stream, each residue least significant bit first; stream
//! bit `t` is bit `t mod 8` (bit 0 = least significant) of payload byte `floor(t / 8)`. The
//! stream is padded with zero bits to a whole byte, so
//! `P = ceil(n · (b_1 + ... + b_L) / 8)`. Equivalently, the payload read as one little-endian
//! integer equals `Σ_i Σ_j data[i·n + j] · 2^(n·(b_1 + ... + b_(i-1)) + j·b_i)` where
//! `data[i·n + j]` is [`RnsPoly::residues`].
//!
//! In NTT representation the residues are the evaluations in the order documented in
//! [`crate::ntt`] (bit-reversed, at powers of the smallest primitive `2n`-th root of each prime),
//! so NTT-form encodings assume that convention; coefficient-form encodings assume nothing.
//!
//! A ring of degree 8192 with four 60-bit primes takes `10 + 32 + 8192 · 240 / 8 = 245,802` bytes
//! (raw `u64` residues would take 262,144).
//!
//! # Validation
//!
//! Every polynomial has exactly one encoding and the readers accept nothing else: they return an
//! [`Error`] (never panic) on a wrong magic, an unknown version, kind or representation, `log2(n)`
//! out of range, `L = 0`, more primes than the input holds, primes that do not form a valid
//! [`RnsContext`], truncated input, trailing bytes, non-zero padding bits, or a residue `>= q_i`.
//! So whenever `RnsPoly::from_bytes(b)` succeeds, `to_bytes` of the result gives back `b`. Sizes
//! declared in the header are checked against the input length before anything is allocated, and
//! [`RnsPoly::from_bytes`] builds contexts of at most [`MAX_FRESH_PRIMES`] primes, so the memory a
//! reader allocates stays bounded by the input: the residues themselves, a fresh context's NTT
//! tables (a few words per residue: up to about 12 times the input for 20-bit primes) and its
//! CRT tables (about `16·L²` bytes, 16 MB at the limit of 1024 primes, whatever `n`).
//!
//! # Other objects: BFV keys and ciphertexts
//!
//! The same magic and version start the encodings of [`crate::he::bfv`]'s objects, told apart
//! by the kind byte:
//!
//! * [`KIND_BFV_PUBLIC_KEY`] (2), [`KIND_BFV_RELIN_KEY`] (3), [`KIND_BFV_CIPHERTEXT`] (4) are
//!   containers: magic, version, kind, the number of polynomials as a `u16` (8 bytes in all),
//!   then each polynomial's complete version-1 `RnsPoly` encoding as above.
//! * [`KIND_BFV_SECRET_KEY`] (5) has the 10-byte header and primes of an `RnsPoly` (with
//!   representation byte 0), then the `n` ternary coefficients as two-bit codes.
//! * [`KIND_BFV_GALOIS_KEYS`] (6) is a container whose count field is the number of keys `K`,
//!   followed by the `K` Galois elements (`u32` each, ascending), then `2 L` polynomials per
//!   key.
//! * [`KIND_BFV_SEEDED_CIPHERTEXT`] (7) is a container with count 1, followed by the 32-byte
//!   seed of `c_1`, then `c_0` (a symmetric-key ciphertext in compact form).
//! * The compact keys, whose uniform parts are given by a 32-byte seed instead of their
//!   polynomials: [`KIND_BFV_SEEDED_PUBLIC_KEY`] (8), count 1, the seed, then `p_0`;
//!   [`KIND_BFV_SEEDED_RELIN_KEY`] (9), count `L`, the seed, then `b_1, ..., b_L`;
//!   [`KIND_BFV_SEEDED_GALOIS_KEYS`] (10), count `K`, the `K` elements (`u32`), the `K` seeds,
//!   then `L` polynomials per key.
//!
//! The readers are [`crate::he::bfv::Bfv::public_key_from_bytes`] and its siblings, which
//! document the details and the checks.
//!
//! There is no checksum or MAC: the format detects malformed data, not tampering or bit flips
//! that leave a valid encoding. Integrity, authenticity and confidentiality are the caller's
//! business (for example, encrypt and authenticate the bytes of secret polynomials).
//!
//! ```
//! use latpoly::rns::{Representation, RnsContext, RnsPoly};
//!
//! // n = 4, primes 17 (5 bits per residue) and 41 (6 bits per residue).
//! let ctx = RnsContext::new(4, &[17, 41])?;
//! let p = RnsPoly::from_residues(&ctx, vec![1, 2, 16, 0, 40, 3, 0, 33], Representation::Coefficient)?;
//! let bytes = p.to_bytes();
//! assert_eq!(&bytes[..10], b"LPLY\x01\x01\x00\x02\x02\x00"); // magic, v1, RnsPoly, coeff, n = 2^2, L = 2
//! assert_eq!(bytes.len(), 10 + 2 * 8 + (4 * 5 + 4 * 6 + 7) / 8);
//! assert_eq!(&bytes[26..], [0x41, 0x40, 0x80, 0x0E, 0x40, 0x08]);
//!
//! let q = RnsPoly::from_bytes(&bytes)?; // fresh context
//! assert_eq!(q.residues(), p.residues());
//! let r = RnsPoly::from_bytes_in(&ctx, &bytes)?; // reuses `ctx`
//! assert!(std::sync::Arc::ptr_eq(r.context(), &ctx));
//!
//! assert!(RnsPoly::from_bytes(&bytes[..bytes.len() - 1]).is_err()); // truncated
//! # Ok::<(), latpoly::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::ntt::{MAX_N, MIN_N};
use crate::rns::{Representation, RnsContext, RnsPoly};
use std::sync::Arc;

/// The four bytes every encoding starts with.
pub const MAGIC: [u8; 4] = *b"LPLY";

/// The format version written by [`RnsPoly::to_bytes`]; readers reject every other version.
pub const FORMAT_VERSION: u8 = 1;

/// Object-kind byte of an [`RnsPoly`].
pub const KIND_RNS_POLY: u8 = 1;

/// Object-kind byte of a BFV public key ([`crate::he::bfv::BfvPublicKey::to_bytes`]).
pub const KIND_BFV_PUBLIC_KEY: u8 = 2;

/// Object-kind byte of a BFV relinearization key ([`crate::he::bfv::BfvRelinKey::to_bytes`]).
pub const KIND_BFV_RELIN_KEY: u8 = 3;

/// Object-kind byte of a BFV ciphertext ([`crate::he::bfv::BfvCiphertext::to_bytes`]).
pub const KIND_BFV_CIPHERTEXT: u8 = 4;

/// Object-kind byte of a BFV secret key ([`crate::he::bfv::BfvSecretKey::to_bytes`]).
pub const KIND_BFV_SECRET_KEY: u8 = 5;

/// Object-kind byte of BFV Galois keys ([`crate::he::bfv::BfvGaloisKeys::to_bytes`]).
pub const KIND_BFV_GALOIS_KEYS: u8 = 6;

/// Object-kind byte of a seeded BFV ciphertext
/// ([`crate::he::bfv::BfvSeededCiphertext::to_bytes`]).
pub const KIND_BFV_SEEDED_CIPHERTEXT: u8 = 7;

/// Object-kind byte of a BFV public key in compact form (`p_0` and the seed of `p_1`,
/// [`crate::he::bfv::BfvPublicKey::to_bytes`]).
pub const KIND_BFV_SEEDED_PUBLIC_KEY: u8 = 8;

/// Object-kind byte of a BFV relinearization key in compact form (the `b_i` and the seed of
/// the `a_i`, [`crate::he::bfv::BfvRelinKey::to_bytes`]).
pub const KIND_BFV_SEEDED_RELIN_KEY: u8 = 9;

/// Object-kind byte of BFV Galois keys in compact form
/// ([`crate::he::bfv::BfvGaloisKeys::to_bytes`]).
pub const KIND_BFV_SEEDED_GALOIS_KEYS: u8 = 10;

/// Bytes of a container's header: magic, version, kind, part count.
const CONTAINER_HEADER_LEN: usize = 8;

/// The most primes [`RnsPoly::from_bytes`] builds a fresh context for.
///
/// A context's CRT tables take about `8·L²` bytes, so an untrusted header must not choose `L`
/// freely. Encodings with more primes (the format allows up to 65,535) are read with
/// [`RnsPoly::from_bytes_in`] and a context built by the caller.
pub const MAX_FRESH_PRIMES: usize = 1024;

/// Bytes before the primes: magic, version, kind, representation, `log2(n)`, `L`.
const FIXED_HEADER_LEN: usize = 10;
const MIN_LOG_N: u8 = MIN_N.trailing_zeros() as u8;
const MAX_LOG_N: u8 = MAX_N.trailing_zeros() as u8;

fn malformed(msg: impl Into<String>) -> Error {
    Error::Malformed(msg.into())
}

/// Bits per residue modulo `q`: the bit length of `q - 1` (0 for `q <= 1`, which no valid
/// context has).
fn residue_bits(q: u64) -> u32 {
    u64::BITS - q.saturating_sub(1).leading_zeros()
}

/// Payload bytes for degree `n` and the given primes. Cannot overflow: `n <= 2^17`,
/// at most `2^16` primes of at most 64 bits.
fn payload_len(n: usize, primes: impl Iterator<Item = u64>) -> u64 {
    let bits_per_coeff: u64 = primes.map(|q| u64::from(residue_bits(q))).sum();
    (n as u64 * bits_per_coeff).div_ceil(8)
}

fn repr_code(repr: Representation) -> u8 {
    match repr {
        Representation::Coefficient => 0,
        Representation::Ntt => 1,
    }
}

fn kind_name(kind: u8) -> &'static str {
    match kind {
        KIND_RNS_POLY => "an RnsPoly",
        KIND_BFV_PUBLIC_KEY => "a BFV public key",
        KIND_BFV_RELIN_KEY => "a BFV relinearization key",
        KIND_BFV_CIPHERTEXT => "a BFV ciphertext",
        KIND_BFV_SECRET_KEY => "a BFV secret key",
        KIND_BFV_GALOIS_KEYS => "a set of BFV Galois keys",
        KIND_BFV_SEEDED_CIPHERTEXT => "a seeded BFV ciphertext",
        KIND_BFV_SEEDED_PUBLIC_KEY => "a compact BFV public key",
        KIND_BFV_SEEDED_RELIN_KEY => "a compact BFV relinearization key",
        KIND_BFV_SEEDED_GALOIS_KEYS => "a compact set of BFV Galois keys",
        _ => "an unknown object",
    }
}

/// Checks the first six bytes (at least that many present): magic, version, object kind.
fn check_magic_version_kind(bytes: &[u8], kind: u8) -> Result<()> {
    if bytes[..4] != MAGIC {
        return Err(malformed(format!(
            "bad magic {:02x?} (expected {:02x?} = \"LPLY\")",
            &bytes[..4],
            MAGIC
        )));
    }
    if bytes[4] != FORMAT_VERSION {
        return Err(malformed(format!(
            "unsupported format version {} (this build reads version {FORMAT_VERSION})",
            bytes[4]
        )));
    }
    if bytes[5] != kind {
        return Err(malformed(format!(
            "object kind {} ({}) is not {} ({kind})",
            bytes[5],
            kind_name(bytes[5]),
            kind_name(kind)
        )));
    }
    Ok(())
}

/// A parsed header; the primes are left as bytes (`8·L` of them, length already checked).
struct Header<'a> {
    repr: Representation,
    n: usize,
    primes: &'a [u8],
    payload: &'a [u8],
}

impl<'a> Header<'a> {
    /// Parses the header of an object of kind `kind` (an [`RnsPoly`], or a BFV secret key,
    /// which shares its layout).
    fn parse(bytes: &'a [u8], kind: u8) -> Result<Self> {
        if bytes.len() < FIXED_HEADER_LEN {
            return Err(malformed(format!(
                "{} bytes is shorter than the {FIXED_HEADER_LEN}-byte fixed header",
                bytes.len()
            )));
        }
        check_magic_version_kind(bytes, kind)?;
        let repr = match bytes[6] {
            0 => Representation::Coefficient,
            1 => Representation::Ntt,
            r => {
                return Err(malformed(format!(
                    "unknown representation {r} (0 = coefficient, 1 = NTT)"
                )))
            }
        };
        let log_n = bytes[7];
        if !(MIN_LOG_N..=MAX_LOG_N).contains(&log_n) {
            return Err(malformed(format!(
                "log2(n) = {log_n} is outside {MIN_LOG_N}..={MAX_LOG_N}"
            )));
        }
        let l = usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
        if l == 0 {
            return Err(malformed("the number of primes is 0"));
        }
        let primes_end = FIXED_HEADER_LEN + 8 * l;
        if bytes.len() < primes_end {
            return Err(malformed(format!(
                "truncated: the header declares {l} primes ({} bytes) but only {} bytes follow it",
                8 * l,
                bytes.len() - FIXED_HEADER_LEN
            )));
        }
        Ok(Self {
            repr,
            n: 1 << log_n,
            primes: &bytes[FIXED_HEADER_LEN..primes_end],
            payload: &bytes[primes_end..],
        })
    }

    fn num_primes(&self) -> usize {
        self.primes.len() / 8
    }

    fn primes(&self) -> impl Iterator<Item = u64> + 'a {
        self.primes.chunks_exact(8).map(|c| {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            u64::from_le_bytes(w)
        })
    }

    /// Checks the payload has exactly the length the header implies.
    fn check_payload_len(&self) -> Result<()> {
        let expected = payload_len(self.n, self.primes());
        let got = self.payload.len() as u64;
        if got < expected {
            return Err(malformed(format!(
                "truncated: the residues need {expected} bytes, {got} present"
            )));
        }
        if got > expected {
            return Err(malformed(format!(
                "{} trailing bytes after the residues",
                got - expected
            )));
        }
        Ok(())
    }

    /// Unpacks the residues into `ctx` (whose degree and primes match the header, and whose
    /// payload length has been checked).
    fn decode(&self, ctx: &Arc<RnsContext>) -> Result<RnsPoly> {
        let n = ctx.n();
        let mut data = vec![0u64; n * ctx.len()];
        let mut reader = BitReader::new(self.payload);
        for (limb, &q) in data.chunks_exact_mut(n).zip(ctx.moduli()) {
            let b = residue_bits(q);
            for x in limb {
                *x = reader.read(b)?;
            }
        }
        reader.finish()?;
        // Checks every residue is below its prime.
        RnsPoly::from_residues(ctx, data, self.repr)
    }
}

/// Appends the header of the `RnsPoly` layout (also a BFV secret key's): magic, version,
/// `kind`, the representation byte `repr`, `log2(n)`, `L` and the primes of `ctx`.
///
/// Never panics: the format holds up to 65,535 primes and a context at most
/// [`crate::rns::MAX_PRIMES`] (4,096).
fn write_header(out: &mut Vec<u8>, kind: u8, repr: u8, ctx: &RnsContext) {
    let l16 = u16::try_from(ctx.len()).expect("a context holds at most MAX_PRIMES = 4096 primes");
    out.extend_from_slice(&MAGIC);
    out.push(FORMAT_VERSION);
    out.push(kind);
    out.push(repr);
    out.push(ctx.n().trailing_zeros() as u8);
    out.extend_from_slice(&l16.to_le_bytes());
    for &q in ctx.moduli() {
        out.extend_from_slice(&q.to_le_bytes());
    }
}

/// LSB-first bit writer.
struct BitWriter {
    out: Vec<u8>,
    acc: u128,
    nbits: u32,
}

impl BitWriter {
    /// Appends the low `b <= 64` bits of `v` (`v < 2^b`).
    #[inline]
    fn write(&mut self, v: u64, b: u32) {
        debug_assert!(b == 64 || v >> b == 0);
        // nbits < 64 here, so nbits + b <= 127 bits fit the accumulator; whole 64-bit words
        // leave it (little-endian, so the byte order is that of one bit stream).
        self.acc |= u128::from(v) << self.nbits;
        self.nbits += b;
        if self.nbits >= 64 {
            self.out.extend_from_slice(&(self.acc as u64).to_le_bytes());
            self.acc >>= 64;
            self.nbits -= 64;
        }
    }

    /// Flushes the last partial word (its whole bytes, the last one zero-padded).
    fn finish(mut self) -> Vec<u8> {
        let bytes = self.nbits.div_ceil(8) as usize;
        self.out
            .extend_from_slice(&(self.acc as u64).to_le_bytes()[..bytes]);
        self.out
    }
}

/// LSB-first bit reader.
struct BitReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    acc: u128,
    nbits: u32,
}

impl<'a> BitReader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            pos: 0,
            acc: 0,
            nbits: 0,
        }
    }

    /// Reads `b <= 64` bits.
    #[inline]
    fn read(&mut self, b: u32) -> Result<u64> {
        // nbits < b <= 64 before a load: a whole 64-bit word (little-endian, in stream order)
        // brings at most 127 bits, a byte at most 71.
        if self.nbits < b && self.pos + 8 <= self.bytes.len() {
            let mut w = [0u8; 8];
            w.copy_from_slice(&self.bytes[self.pos..self.pos + 8]);
            self.acc |= u128::from(u64::from_le_bytes(w)) << self.nbits;
            self.nbits += 64;
            self.pos += 8;
        }
        while self.nbits < b {
            let byte = *self
                .bytes
                .get(self.pos)
                .ok_or_else(|| malformed("truncated residues"))?;
            self.acc |= u128::from(byte) << self.nbits;
            self.nbits += 8;
            self.pos += 1;
        }
        let v = (self.acc & ((1u128 << b) - 1)) as u64;
        self.acc >>= b;
        self.nbits -= b;
        Ok(v)
    }

    /// Checks all bytes were consumed and the padding bits are zero.
    fn finish(self) -> Result<()> {
        if self.pos != self.bytes.len() {
            return Err(malformed(format!(
                "{} trailing bytes after the residues",
                self.bytes.len() - self.pos
            )));
        }
        if self.acc != 0 {
            return Err(malformed(format!(
                "non-zero padding bits {:#x} in the last byte",
                self.acc
            )));
        }
        Ok(())
    }
}

impl RnsPoly {
    /// Length in bytes of [`Self::to_bytes`]: `10 + 8·L + ceil(n · Σ b_i / 8)` with `b_i` the
    /// bit length of `q_i - 1` (see [`crate::serialize`]).
    ///
    /// ```
    /// use latpoly::rns::{Representation, RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(8192, 60, 4)?;
    /// let p = RnsPoly::zero(&ctx, Representation::Ntt);
    /// assert_eq!(p.serialized_len(), 10 + 4 * 8 + 8192 * 4 * 60 / 8);
    /// assert_eq!(p.to_bytes().len(), p.serialized_len());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn serialized_len(&self) -> usize {
        let ctx = self.context();
        let payload = payload_len(ctx.n(), ctx.moduli().iter().copied());
        FIXED_HEADER_LEN + 8 * ctx.len() + payload as usize
    }

    /// Encodes the polynomial, its representation and its ring (degree and primes) in the
    /// format of [`crate::serialize`]. (A context has at most [`crate::rns::MAX_PRIMES`]
    /// primes, well within the format's 65,535.)
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(16, 20, 2)?;
    /// let p = RnsPoly::from_i64s(&ctx, &[-3; 16])?;
    /// let bytes = p.to_bytes();
    /// assert_eq!(&bytes[..4], b"LPLY");
    /// assert_eq!(bytes.len(), 10 + 2 * 8 + 16 * 2 * 20 / 8);
    /// assert_eq!(RnsPoly::from_bytes(&bytes)?.to_centered_bigints(), p.to_centered_bigints());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.serialized_len());
        self.encode_into(&mut out);
        out
    }

    /// Appends [`Self::to_bytes`] to `out`.
    fn encode_into(&self, out: &mut Vec<u8>) {
        let ctx = self.context();
        let n = ctx.n();
        let start = out.len();
        write_header(out, KIND_RNS_POLY, repr_code(self.representation()), ctx);
        let mut w = BitWriter {
            out: core::mem::take(out),
            acc: 0,
            nbits: 0,
        };
        for (limb, &q) in self.residues().chunks_exact(n).zip(ctx.moduli()) {
            let b = residue_bits(q);
            for &x in limb {
                w.write(x, b);
            }
        }
        *out = w.finish();
        debug_assert_eq!(out.len() - start, self.serialized_len());
    }

    /// Decodes bytes written by [`Self::to_bytes`], building a fresh [`RnsContext`] from the
    /// degree and primes they carry (primality and NTT tables are computed; to reuse an existing
    /// context use [`Self::from_bytes_in`]).
    ///
    /// Errors ([`Error::Malformed`] unless said otherwise): wrong magic, unknown version, kind or
    /// representation, `log2(n)` outside `1..=17`, no primes, more primes than the input holds,
    /// more than [`MAX_FRESH_PRIMES`] primes ([`Error::InvalidArgument`]), a prime that is not a
    /// distinct prime `q ≡ 1 (mod 2n)` below `2^62` ([`Error::InvalidModulus`]), truncated
    /// input, trailing bytes, non-zero padding bits, a residue `>= q_i`
    /// ([`Error::CoefficientOutOfRange`]).
    ///
    /// ```
    /// use latpoly::rns::{Representation, RnsContext, RnsPoly};
    /// let ctx = RnsContext::with_prime_bits(32, 30, 3)?;
    /// let mut p = RnsPoly::from_u64s(&ctx, &(0..32).collect::<Vec<u64>>())?;
    /// p.to_ntt();
    /// let q = RnsPoly::from_bytes(&p.to_bytes())?;
    /// assert_eq!(q.representation(), Representation::Ntt);
    /// assert_eq!(q.context().moduli(), ctx.moduli());
    /// assert_eq!(q.residues(), p.residues());
    ///
    /// assert!(RnsPoly::from_bytes(b"LPLY").is_err());
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<RnsPoly> {
        let h = Header::parse(bytes, KIND_RNS_POLY)?;
        let l = h.num_primes();
        if l > MAX_FRESH_PRIMES {
            return Err(Error::InvalidArgument(format!(
                "the encoding has {l} primes; from_bytes builds contexts of at most \
                 {MAX_FRESH_PRIMES} (use from_bytes_in with your own context)"
            )));
        }
        // Cheap checks first, so that the payload length (checked next, before the context's
        // tables are allocated) is computed from plausible primes.
        let two_n = 2 * h.n as u64;
        for q in h.primes() {
            if q >= 1 << 62 {
                return Err(Error::InvalidModulus {
                    q,
                    reason: "must be below 2^62",
                });
            }
            if q < 3 {
                return Err(Error::InvalidModulus {
                    q,
                    reason: "too small to be an odd prime",
                });
            }
            if q % two_n != 1 {
                return Err(Error::InvalidModulus {
                    q,
                    reason: "not congruent to 1 mod 2n (no negacyclic NTT of this size)",
                });
            }
        }
        h.check_payload_len()?;
        let primes: Vec<u64> = h.primes().collect();
        let ctx = RnsContext::new(h.n, &primes)?;
        h.decode(&ctx)
    }

    /// Decodes bytes written by [`Self::to_bytes`] into an existing context, which the
    /// encoding's degree and primes (in order) must match exactly ([`Error::ContextMismatch`]
    /// otherwise). The result shares `ctx`; nothing is recomputed.
    ///
    /// The other errors are those of [`Self::from_bytes`] that do not concern the primes.
    ///
    /// ```
    /// use latpoly::rns::{RnsContext, RnsPoly};
    /// use latpoly::Error;
    /// let ctx = RnsContext::with_prime_bits(64, 40, 2)?;
    /// let p = RnsPoly::from_i64s(&ctx, &[7; 64])?;
    /// let bytes = p.to_bytes();
    /// let q = RnsPoly::from_bytes_in(&ctx, &bytes)?;
    /// assert!(std::sync::Arc::ptr_eq(q.context(), &ctx));
    /// assert_eq!(q.residues(), p.residues());
    ///
    /// let other = RnsContext::with_prime_bits(64, 41, 2)?;
    /// assert_eq!(RnsPoly::from_bytes_in(&other, &bytes).unwrap_err(), Error::ContextMismatch);
    /// # Ok::<(), latpoly::Error>(())
    /// ```
    pub fn from_bytes_in(ctx: &Arc<RnsContext>, bytes: &[u8]) -> Result<RnsPoly> {
        let h = Header::parse(bytes, KIND_RNS_POLY)?;
        if h.n != ctx.n()
            || h.num_primes() != ctx.len()
            || !h.primes().eq(ctx.moduli().iter().copied())
        {
            return Err(Error::ContextMismatch);
        }
        h.check_payload_len()?;
        h.decode(ctx)
    }
}

// ----- containers of polynomials (BFV keys and ciphertexts) and ternary secrets

/// Length of [`write_container`]'s output for `parts`.
pub(crate) fn container_len<'a>(parts: impl IntoIterator<Item = &'a RnsPoly>) -> usize {
    CONTAINER_HEADER_LEN
        + parts
            .into_iter()
            .map(RnsPoly::serialized_len)
            .sum::<usize>()
}

/// Length of a container of `count` polynomials of the context `ctx` (no prefix).
pub(crate) fn container_len_for(ctx: &RnsContext, count: usize) -> usize {
    let payload = payload_len(ctx.n(), ctx.moduli().iter().copied()) as usize;
    CONTAINER_HEADER_LEN + count * (FIXED_HEADER_LEN + 8 * ctx.len() + payload)
}

/// A container of kind `kind`: magic, version, kind, the number of parts (`u16`), then each
/// part's complete [`RnsPoly::to_bytes`] encoding.
///
/// # Panics
///
/// With more than 65,535 parts (callers have at most `2 L`, and `L` is at most
/// [`crate::rns::MAX_PRIMES`]).
pub(crate) fn write_container(kind: u8, parts: &[&RnsPoly]) -> Vec<u8> {
    let count = u16::try_from(parts.len()).expect("a container holds at most 65535 parts");
    write_container_with(kind, count, &[], parts)
}

/// A container whose count field is `count` and whose parts follow `prefix` (the Galois
/// keys' elements).
pub(crate) fn write_container_with(
    kind: u8,
    count: u16,
    prefix: &[u8],
    parts: &[&RnsPoly],
) -> Vec<u8> {
    let len = container_len(parts.iter().copied()) + prefix.len();
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(&MAGIC);
    out.push(FORMAT_VERSION);
    out.push(kind);
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(prefix);
    for p in parts {
        p.encode_into(&mut out);
    }
    debug_assert_eq!(out.len(), len);
    out
}

/// Reads a container of kind `kind` whose part count is one of `counts`, every part in the
/// context `ctx` ([`Error::ContextMismatch`] otherwise; [`Error::Malformed`] for a wrong
/// header or count, truncation or trailing bytes; the errors of [`RnsPoly::from_bytes_in`]
/// for a part).
pub(crate) fn read_container(
    kind: u8,
    counts: &[usize],
    ctx: &Arc<RnsContext>,
    bytes: &[u8],
) -> Result<Vec<RnsPoly>> {
    let (count, rest) = read_container_header(kind, bytes)?;
    if !counts.contains(&count) {
        return Err(malformed(format!(
            "{} holds {count} polynomials, not {counts:?}",
            kind_name(kind)
        )));
    }
    read_parts(kind, count, ctx, rest)
}

/// The count field of a container of kind `kind` and the bytes after it.
pub(crate) fn read_container_header(kind: u8, bytes: &[u8]) -> Result<(usize, &[u8])> {
    if bytes.len() < CONTAINER_HEADER_LEN {
        return Err(malformed(format!(
            "{} bytes is shorter than the {CONTAINER_HEADER_LEN}-byte header of {}",
            bytes.len(),
            kind_name(kind)
        )));
    }
    check_magic_version_kind(bytes, kind)?;
    let count = usize::from(u16::from_le_bytes([bytes[6], bytes[7]]));
    Ok((count, &bytes[CONTAINER_HEADER_LEN..]))
}

/// Exactly `count` whole `RnsPoly` encodings in the context `ctx`, filling `rest`.
pub(crate) fn read_parts(
    kind: u8,
    count: usize,
    ctx: &Arc<RnsContext>,
    mut rest: &[u8],
) -> Result<Vec<RnsPoly>> {
    let mut parts = Vec::with_capacity(count.min(rest.len() / (FIXED_HEADER_LEN + 8)));
    for i in 0..count {
        let in_part = |e: Error| match e {
            Error::Malformed(m) => malformed(format!("polynomial {i}: {m}")),
            e => e,
        };
        let h = Header::parse(rest, KIND_RNS_POLY).map_err(in_part)?;
        let len = (FIXED_HEADER_LEN + h.primes.len()) as u64 + payload_len(h.n, h.primes());
        if len > rest.len() as u64 {
            return Err(in_part(malformed(format!(
                "truncated: {len} bytes declared, {} present",
                rest.len()
            ))));
        }
        let (part, tail) = rest.split_at(len as usize);
        parts.push(RnsPoly::from_bytes_in(ctx, part).map_err(in_part)?);
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(malformed(format!(
            "{} trailing bytes after {}",
            rest.len(),
            kind_name(kind)
        )));
    }
    Ok(parts)
}

/// Length of [`write_ternary`]'s output for `ctx`.
pub(crate) fn ternary_len(ctx: &RnsContext) -> usize {
    FIXED_HEADER_LEN + 8 * ctx.len() + (2 * ctx.n()).div_ceil(8)
}

/// An object of kind `kind` in the `RnsPoly` layout with representation byte 0 (coefficients)
/// whose payload is `ctx.n()` two-bit codes (from `codes`, each below 4), least significant
/// bits first, zero-padded to a whole byte.
pub(crate) fn write_ternary(
    kind: u8,
    ctx: &RnsContext,
    codes: impl Iterator<Item = u8>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(ternary_len(ctx));
    write_header(&mut out, kind, 0, ctx);
    let mut w = BitWriter {
        out,
        acc: 0,
        nbits: 0,
    };
    for c in codes.take(ctx.n()) {
        w.write(u64::from(c), 2);
    }
    let out = w.finish();
    debug_assert_eq!(out.len(), ternary_len(ctx));
    out
}

/// The `n / 4` payload bytes of an object written by [`write_ternary`] for kind `kind`, after
/// checking the header (magic, version, kind, representation byte 0), that degree and primes
/// are those of `ctx` ([`Error::ContextMismatch`] otherwise), the exact length, and that the
/// padding bits are zero (`n = 2`). The codes themselves are left to the caller.
pub(crate) fn read_ternary<'a>(kind: u8, ctx: &RnsContext, bytes: &'a [u8]) -> Result<&'a [u8]> {
    let h = Header::parse(bytes, kind)?;
    if h.repr != Representation::Coefficient {
        return Err(malformed(format!(
            "{} is stored as coefficients (representation byte 0)",
            kind_name(kind)
        )));
    }
    if h.n != ctx.n() || h.num_primes() != ctx.len() || !h.primes().eq(ctx.moduli().iter().copied())
    {
        return Err(Error::ContextMismatch);
    }
    let expected = (2 * h.n).div_ceil(8);
    if h.payload.len() != expected {
        return Err(malformed(format!(
            "{} needs {expected} payload bytes, {} present",
            kind_name(kind),
            h.payload.len()
        )));
    }
    if 2 * h.n < 8 && h.payload[0] >> (2 * h.n) != 0 {
        return Err(malformed("non-zero padding bits in the last byte"));
    }
    Ok(h.payload)
}
