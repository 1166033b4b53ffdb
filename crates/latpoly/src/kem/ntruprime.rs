//! NTRU Prime, NIST round 3: Streamlined NTRU Prime `sntrup761` and NTRU LPRime `ntrulpr761`,
//! bit-exact with the reference (supercop `crypto_kem/sntrup761/ref`, shared by both schemes)
//! and its NIST known-answer tests (`shared/kat/PARAMS.md` section B).
//!
//! | type | `NAME` | pk | sk | ct | ss |
//! |---|---|---|---|---|---|
//! | [`Sntrup761`] | `sntrup761` | 1158 | 1763 | 1039 | 32 |
//! | [`Ntrulpr761`] | `ntrulpr761` | 1039 | 1294 | 1167 | 32 |
//!
//! The ring `Z[x]/(x^761 - x - 1)` mod `q = 4591` and mod 3, its products, reciprocals and
//! encodings are those of [`crate::rings::ntruprime`]. `Hash_b(x)` is the first 32 bytes of
//! SHA-512(`b ‖ x`) for a one-byte prefix `b`.
//!
//! * **Randomness** (the NIST KAT call pattern): every 32-bit sample for a short or small
//!   polynomial is **one** `randombytes(4)` call (little-endian), 761 calls per polynomial;
//!   `rho` is one `randombytes(191)` (sntrup761) or `randombytes(32)` (ntrulpr761) call, the
//!   LPR seed `S` and the LPR encapsulation input one `randombytes(32)` call each.
//! * **Short polynomials** (`Short_fromlist`): the 761 samples are tagged (`L & ~1` for the
//!   first `w`, `(L & ~3) | 1` for the rest), sorted as `u32` by a constant-time sorting
//!   network, and mapped to `(L & 3) - 1`.
//! * **sntrup761**: key generation draws `g` small until invertible in `R/3`, then `f` short;
//!   `h = g / (3f)` in `R/q`; `pk = Rq_encode(h)`,
//!   `sk = Small(f) ‖ Small(1/g) ‖ pk ‖ rho ‖ Hash4(pk)`. Encapsulation: `r` short,
//!   `ct = Rounded_encode(Round(h r)) ‖ Hash2(Hash3(Small(r)) ‖ Hash4(pk))`,
//!   `K = Hash1(Hash3(Small(r)) ‖ ct)`.
//! * **ntrulpr761** (`w = 250`, `τ = (2156, 114, 2007, 287)`, `I = 256`): `G = Generator(S)`
//!   (AES-256-CTR keystream of key `S`, zero IV, as 761 `u32`, each mod `q`, centred),
//!   `a` short, `pk = S ‖ Rounded_encode(Round(G a))`, `sk = Small(a) ‖ pk ‖ rho ‖ Hash4(pk)`.
//!   Encapsulation: 256 random bits `r`, `b = Short_fromlist(Expand(Hash5(r)))`,
//!   `ct = Rounded_encode(Round(G b)) ‖ Top_encode(Top(b A + r·2295)) ‖ Hash2(r ‖ Hash4(pk))`,
//!   `K = Hash1(r ‖ ct)`.
//!
//! # Implicit rejection
//!
//! Decapsulation decrypts, re-encrypts and compares the whole ciphertext (with its confirmation
//! hash) with the received one. (sntrup761 compares the rounded part as values: `Round(h r)`
//! against what the received bytes decode to, plus a check that those bytes are the canonical
//! encoding, which is the same test as comparing `Rounded_encode(Round(h r))` with them, without
//! the encoding.) On a mismatch the session key is `Hash0` of the same input
//! with the plaintext encoding replaced by the secret `rho`: a pseudorandom key, never an
//! error, as in the reference. The comparison, the selection of `rho` and of the hash prefix
//! are constant time ([`subtle`]).
//!
//! # Constant time and secrets
//!
//! Products, reciprocals, rounding and encodings are the constant-time ring calls; sampling
//! uses a sorting network with branch-free min/max; decryption masks (weight check, LPR bit
//! recovery) are arithmetic. Key generation branches only on the invertibility of each `g`
//! candidate, as the reference does. Secret polynomials and buffers are wiped after use.
//!
//! # Input checks
//!
//! Wrong lengths are rejected by the typed constructors. Every public key and ciphertext of the
//! right length is accepted (decoding reduces out-of-range values, as the reference does;
//! a non-canonical ciphertext never re-encrypts to itself, and sntrup761's decoder reports it
//! as non-canonical: it is rejected implicitly). Secret
//! keys are not validated (a check would be a branch on the secret): the two-bit pattern `11`
//! in a small encoding (never produced by key generation; the reference would decode it as the
//! out-of-range value 2) is read as `-1`, so a corrupted key gives wrong or rejected keys,
//! never an error or a panic. The ring calls run without their range checks (the inputs are
//! in range by construction), so no branch depends on secret data.
//!
//! ```
//! use latpoly::kem::{ntruprime::{Ntrulpr761, Sntrup761}, Kem, OsRandom};
//!
//! let (pk, sk) = Sntrup761::keypair(&mut OsRandom)?;
//! let (ct, ss) = Sntrup761::encapsulate(&pk, &mut OsRandom)?;
//! assert_eq!(Sntrup761::decapsulate(&sk, &ct)?, ss);
//! let (pk, sk) = Ntrulpr761::keypair(&mut OsRandom)?;
//! let (ct, ss) = Ntrulpr761::encapsulate(&pk, &mut OsRandom)?;
//! assert_eq!(Ntrulpr761::decapsulate(&sk, &ct)?, ss);
//! # Ok::<(), latpoly::Error>(())
//! ```

use super::sort::sort_u32;
use super::{Dyn, DynKem, RandomSource};
use crate::arith::ct::{barrier, opaque_shift};
use crate::error::{Error, Result};
use crate::rings::ntruprime::{
    self as ring, fq_freeze, unchecked, P, PADDED, Q, Q12, ROUNDED_BYTES, RQ_BYTES, SMALL_BYTES,
};
use crate::secret::{wipe, Wiped};
use crate::sha512::{self, Msg};
use aes::cipher::{BlockEncrypt, KeyInit};
use aes::Aes256;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

/// Bytes of every hash output, of the confirmation and of the session key.
const HASH_BYTES: usize = 32;
/// Key-generation attempts (for an invertible `g`) before giving up: a working random source
/// needs more with negligible probability.
const MAX_ATTEMPTS: usize = 256;

// ----- hashing, sampling

/// `Hash_b(parts[0] ‖ parts[1] ‖ ..)`: the first 32 bytes of SHA-512(`b ‖ ..`).
fn hash_prefix(b: u8, parts: &[&[u8]]) -> [u8; HASH_BYTES] {
    let prefix = [b];
    let mut all: Vec<&[u8]> = Vec::with_capacity(parts.len() + 1);
    all.push(&prefix);
    all.extend_from_slice(parts);
    let mut m = Msg::new(&all);
    sha512::finish(&mut [&mut m]);
    m.digest32()
}

/// `Short_fromlist`: weight-`w` ternary polynomial from 761 samples (consumes and wipes `l`).
fn short_fromlist(l: &mut [u32; P], w: usize) -> Wiped<[i8; P]> {
    for (i, x) in l.iter_mut().enumerate() {
        *x = if i < w { *x & !1 } else { (*x & !3) | 1 };
    }
    sort_u32(l);
    let mut out = Wiped::new([0i8; P]);
    for (o, &x) in out.iter_mut().zip(l.iter()) {
        *o = (x & 3) as i8 - 1;
    }
    wipe(l);
    out
}

/// `Short_random`: 761 `urandom32` values ([`RandomSource::fill_words`]: one 4-byte draw each
/// for the KAT generator), then [`short_fromlist`].
fn short_random(rng: &mut dyn RandomSource, w: usize) -> Wiped<[i8; P]> {
    let mut l = Wiped::new([0u32; P]);
    rng.fill_words(&mut l[..]);
    short_fromlist(&mut l, w)
}

/// `Small_random` (sntrup761): 761 `urandom32` values, `(((L & 0x3fffffff) · 3) >> 30) - 1`.
fn small_random(rng: &mut dyn RandomSource) -> Wiped<Vec<i8>> {
    let mut l = Wiped::new([0u32; P]);
    rng.fill_words(&mut l[..]);
    Wiped::new(
        l.iter()
            .map(|&x| (((x & 0x3fff_ffff) * 3) >> 30) as i8 - 1)
            .collect(),
    )
}

/// `Expand(k)`: the AES-256-CTR keystream under `k` with a zero 16-byte IV (big-endian block
/// counter), `4p` bytes read as little-endian `u32`.
///
/// The cipher's round keys are wiped when it drops (the `zeroize` feature of `aes`, checked at
/// compile time below), the counter blocks before returning.
fn expand(k: &[u8; 32]) -> Wiped<[u32; P]> {
    // 4p = 3044 bytes: 191 counter blocks, the last one's final 12 bytes unused
    const BLOCKS: usize = (4 * P).div_ceil(16);
    let cipher = Aes256::new(k.into());
    // All counter blocks at once, encrypted in place (the AES-NI backend pipelines several
    // blocks per call), then read as words: no byte-stream copies (they were 10% of
    // ntrulpr761 decapsulation).
    let mut blocks = [aes::Block::default(); BLOCKS];
    for (ctr, b) in blocks.iter_mut().enumerate() {
        b.copy_from_slice(&(ctr as u128).to_be_bytes());
    }
    cipher.encrypt_blocks(&mut blocks);
    let mut l = Wiped::new([0u32; P]);
    for (xs, b) in l.chunks_mut(4).zip(blocks.iter()) {
        for (x, w) in xs.iter_mut().zip(b.chunks_exact(4)) {
            *x = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        }
    }
    for b in blocks.iter_mut() {
        wipe(b.as_mut_slice());
    }
    l
}

/// Compile-time check that [`expand`]'s key schedule is wiped on drop.
fn _aes_round_keys_are_wiped() {
    fn wiped<T: zeroize::ZeroizeOnDrop>() {}
    wiped::<Aes256>();
}

/// `Round(a)` into a centred multiple of 3.
fn round3(a: &[i16]) -> Wiped<Vec<i16>> {
    Wiped::new(unchecked::round3(a))
}

/// Small-decodes a secret-key part, branch-free (a `11` pattern is read as `-1`).
fn small_decode_sk(s: &[u8]) -> Wiped<[i8; P]> {
    let mut out = Wiped::new([0i8; P]);
    unchecked::small_decode_mod3_into(s, &mut out);
    out
}

/// All-ones (`Choice(1)`) iff `a == b` (constant time).
fn equal(a: &[u8], b: &[u8]) -> Choice {
    crate::arith::ct::bytes_equal(a, b)
}

/// `F3_freeze(Fq_freeze(3 x))` for a centred `x` in `[-2295, 2295]` (the first step of sntrup761
/// decryption), in branch-free 16-bit arithmetic the compiler vectorises: `3 x` (at most 6885 in
/// absolute value) is brought into `[-2295, 2295]` by at most one masked `±q`, then `x mod 3`
/// is read off `x + 2296` with the reciprocal `21846 = ceil(2^16 / 3)` as an unsigned 16-bit
/// multiply-high (exact below `2^15`). The sign masks shift by `s = opaque_shift(15)`
/// ([`opaque_shift`]: the masked adds stay arithmetic). Equal to the reference composition on
/// the whole range (exhaustive test).
#[inline(always)]
fn times3_mod3(x: i16, s: u32) -> i8 {
    let (q, q12) = (Q as i16, Q12);
    let y = 3 * x;
    let y = y - ((q12 - y).wrapping_shr(s) & q) + ((y + q12).wrapping_shr(s) & q);
    let z = (y + q12 + 1) as u16; // in [1, 4591], congruent to y + 1 mod 3
    let t = ((u32::from(z) * 21846) >> 16) as u16;
    (z - 3 * t) as i8 - 1
}

// ----- Streamlined NTRU Prime

/// sntrup761 sizes and weight.
mod s {
    use super::*;
    pub const W: usize = ring::W;
    pub const PK: usize = RQ_BYTES;
    pub const CT: usize = ROUNDED_BYTES + HASH_BYTES;
    pub const SK: usize = 2 * SMALL_BYTES + PK + SMALL_BYTES + HASH_BYTES;
}

fn sntrup_keypair(rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Wiped<Vec<u8>>)> {
    let _wipe = ring::ScratchWipe;
    let mut found = None;
    for _ in 0..MAX_ATTEMPTS {
        let g = small_random(rng);
        let (ginv, ok) = unchecked::recip_r3(&g);
        let ginv = Wiped::new(ginv);
        if crate::secret::declassify(ok) {
            found = Some((g, ginv));
            break;
        }
    }
    let (g, ginv) = found.ok_or_else(|| {
        Error::InvalidArgument("sntrup761: no invertible g in 256 attempts".into())
    })?;
    let f = short_random(rng, s::W);
    let (finv, _) = unchecked::recip3_rq(&f[..]); // always invertible for short f
    let finv = Wiped::new(finv);
    let h = unchecked::mul_rq_small(&finv, &g);
    let pk = unchecked::rq_encode(&h);
    let mut sk = Wiped::new(Vec::with_capacity(s::SK));
    sk.extend_from_slice(&Wiped::new(unchecked::small_encode(&f[..])));
    sk.extend_from_slice(&Wiped::new(unchecked::small_encode(&ginv)));
    sk.extend_from_slice(&pk);
    let mut rho = Wiped::new([0u8; SMALL_BYTES]);
    rng.fill(&mut *rho);
    sk.extend_from_slice(&*rho);
    sk.extend_from_slice(&hash_prefix(4, &[&pk]));
    debug_assert_eq!(sk.len(), s::SK);
    Ok((pk, sk))
}

/// The rounded part of `Hide`'s ciphertext for the short `r` (without the confirmation hash),
/// and the encoding of `r`. The secret temporaries live in wiped stack buffers (no allocation
/// besides the ciphertext and the decoded public key).
#[inline(always)]
fn sntrup_hide(r: &[i8], pk: &[u8]) -> Result<(Vec<u8>, Wiped<[u8; SMALL_BYTES]>)> {
    let mut hr = Wiped::new([0i16; PADDED]);
    let r_enc = sntrup_hide_rounded(r, pk, &mut hr)?;
    Ok((unchecked::rounded_encode(&hr[..P]), r_enc))
}

/// [`sntrup_hide`] before the encoding: `Round(h r)` in the first [`P`] entries of `hr`, and
/// the encoding of `r`.
#[inline(always)]
fn sntrup_hide_rounded(
    r: &[i8],
    pk: &[u8],
    hr: &mut [i16; PADDED],
) -> Result<Wiped<[u8; SMALL_BYTES]>> {
    let h = ring::rq_decode(pk)?;
    let mut r_enc = Wiped::new([0u8; SMALL_BYTES]);
    unchecked::small_encode_into(r, &mut r_enc);
    unchecked::mul_rq_small_into(&h, r, hr);
    unchecked::round3_in_place(&mut hr[..P]);
    Ok(r_enc)
}

/// Encapsulation. Its four hashes run as two chains side by side ([`sha512::advance`]):
/// `cache = Hash4(pk)` next to `Hash3(r)` and then next to the first blocks of the session
/// hash `Hash1(Hash3(r) ‖ ct)`, whose last block waits for the confirmation
/// `Hash2(Hash3(r) ‖ cache)` at the end of `ct`.
fn sntrup_encapsulate(pk: &[u8], rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Wiped<[u8; 32]>)> {
    unchecked::vectorised(Encaps(pk, rng))
}

/// [`sntrup_encapsulate`]'s body, compiled with the backend's vector features.
struct Encaps<'a, 'r>(&'a [u8], &'a mut (dyn RandomSource + 'r));

impl crate::vectorised::Vectorised for Encaps<'_, '_> {
    type Out = Result<(Vec<u8>, Wiped<[u8; 32]>)>;
    #[inline(always)]
    fn run(self) -> Self::Out {
        sntrup_encapsulate_body(self.0, self.1)
    }
}

#[inline(always)]
fn sntrup_encapsulate_body(
    pk: &[u8],
    rng: &mut dyn RandomSource,
) -> Result<(Vec<u8>, Wiped<[u8; 32]>)> {
    let _wipe = ring::ScratchWipe;
    let r = short_random(rng, s::W);
    let (mut ct, r_enc) = sntrup_hide(&r[..], pk)?;
    let mut cache = Msg::new(&[&[4], pk]);
    let mut m3 = Msg::new(&[&[3], &r_enc[..]]);
    let n3 = m3.blocks();
    sha512::advance(&mut [&mut cache, &mut m3], &[n3, n3]);
    let r3 = Wiped::new(m3.digest32());
    // the session hash with a placeholder for the confirmation, hashed up to its block
    let at = 1 + HASH_BYTES + ct.len();
    let mut session = Msg::new(&[&[1], &*r3, &ct, &[0; HASH_BYTES]]);
    sha512::advance(
        &mut [&mut cache, &mut session],
        &[usize::MAX, at / sha512::BLOCK],
    );
    let confirm = hash_prefix(2, &[&*r3, &cache.digest32()]);
    session.patch(at, &confirm);
    sha512::finish(&mut [&mut session]);
    ct.extend_from_slice(&confirm);
    Ok((ct, Wiped::new(session.digest32())))
}

/// Decapsulation. The session key is `Hash1(Hash3(r) ‖ ct)` for a valid ciphertext and
/// `Hash0(Hash3(rho) ‖ ct)` otherwise. Where the four-lane SHA-512 kernel hashes three
/// messages for the cost of one ([`sha512::parallel`]) both candidates are hashed side by side
/// with the confirmation and one is selected in constant time; otherwise the confirmation is
/// hashed first and the session hash's input (prefix byte and 32-byte hash) is selected in
/// constant time and hashed once, which saves the nine blocks of the other candidate (~2 µs
/// of an AVX2 decapsulation; on Zen 5, where one message's blocks go to the scalar
/// compression, 7.9 -> 7.0 µs). Both give the same key.
fn sntrup_decapsulate(sk: &[u8], ct: &[u8]) -> Result<Wiped<[u8; 32]>> {
    unchecked::vectorised(Decaps(sk, ct))
}

/// [`sntrup_decapsulate`]'s body, compiled with the backend's vector features.
struct Decaps<'a>(&'a [u8], &'a [u8]);

impl crate::vectorised::Vectorised for Decaps<'_> {
    type Out = Result<Wiped<[u8; 32]>>;
    #[inline(always)]
    fn run(self) -> Self::Out {
        sntrup_decapsulate_body(self.0, self.1)
    }
}

#[inline(always)]
fn sntrup_decapsulate_body(sk: &[u8], ct: &[u8]) -> Result<Wiped<[u8; 32]>> {
    let _wipe = ring::ScratchWipe;
    let (f, rest) = sk.split_at(SMALL_BYTES);
    let (v, rest) = rest.split_at(SMALL_BYTES);
    let (pk, rest) = rest.split_at(s::PK);
    let (rho, cache) = rest.split_at(SMALL_BYTES);
    let f = small_decode_sk(f);
    let v = small_decode_sk(v);
    // Decrypt (and whether the rounded part of ct is the canonical encoding of c)
    let (c, canonical) = unchecked::rounded_decode_canonical(&ct[..ROUNDED_BYTES]);
    let mut cf = Wiped::new([0i16; PADDED]);
    unchecked::mul_rq_small_into(&c, &f[..], &mut cf);
    let mut e = Wiped::new([0i8; P]);
    let s = opaque_shift(15);
    for (e, &x) in e.iter_mut().zip(cf.iter()) {
        *e = times3_mod3(x, s);
    }
    let mut r = Wiped::new([0i8; P]);
    unchecked::mul_r3_into(&e[..], &v[..], &mut r);
    let weight: i32 = r.iter().map(|&x| i32::from(x & 1)).sum();
    let good = (weight as u32).ct_eq(&(s::W as u32)); // weight w
    let keep = i8::conditional_select(&0, &-1, good); // all-ones iff weight w
                                                      // the first w coefficients become 1 and the others 0 unless the weight is w (two loops
                                                      // split at the public index w, so each is a plain element-wise loop)
    let (head, tail) = r.split_at_mut(s::W);
    for x in head.iter_mut() {
        *x = ((*x ^ 1) & keep) ^ 1;
    }
    for x in tail.iter_mut() {
        *x &= keep;
    }
    // Re-encrypt and compare (in constant time), select the session key. The reference
    // compares Hide(r), encoded, with ct; here Round(h r) is compared with c, the values ct
    // decodes to, and ct must be canonical: Rounded_encode(Round(h r)) == ct exactly when both
    // hold (decoding inverts encoding, and only a canonical string is an encoding), so the
    // re-encoding is not needed.
    let mut hr = Wiped::new([0i16; PADDED]);
    let r_enc = sntrup_hide_rounded(&r[..], pk, &mut hr)?;
    let same = values_equal(&hr[..P], &c) & Choice::from(u8::from(canonical));
    let mut m3 = Msg::new(&[&[3], &r_enc[..]]);
    let mut mrho = Msg::new(&[&[3], rho]);
    sha512::finish(&mut [&mut m3, &mut mrho]);
    let (r3, rho3) = (Wiped::new(m3.digest32()), Wiped::new(mrho.digest32()));
    let mut confirm = Msg::new(&[&[2], &*r3, cache]);
    if sha512::parallel() {
        let mut k1 = Msg::new(&[&[1], &*r3, ct]);
        let mut k0 = Msg::new(&[&[0], &*rho3, ct]);
        sha512::finish(&mut [&mut confirm, &mut k1, &mut k0]);
        let ok = same & equal(&confirm.digest32(), &ct[ROUNDED_BYTES..]);
        return Ok(select32(ok, &k1.digest32(), &k0.digest32()));
    }
    sha512::finish(&mut [&mut confirm]);
    let ok = same & equal(&confirm.digest32(), &ct[ROUNDED_BYTES..]);
    Ok(session_selected(ok, &r3, &rho3, ct))
}

/// All-ones (`Choice(1)`) iff `a == b` (constant time).
fn values_equal(a: &[i16], b: &[i16]) -> Choice {
    let d = a.iter().zip(b).fold(0u16, |d, (&x, &y)| d | (x ^ y) as u16);
    d.ct_eq(&0) & (a.len() as u64).ct_eq(&(b.len() as u64))
}

/// `a` where `ok`, else `b`, in constant time (the digests are wiped).
fn select32(ok: Choice, a: &[u8; 32], b: &[u8; 32]) -> Wiped<[u8; 32]> {
    let (a, b) = (Wiped::new(*a), Wiped::new(*b));
    let mut k = Wiped::new([0u8; 32]);
    for ((k, &x), &y) in k.iter_mut().zip(a.iter()).zip(b.iter()) {
        *k = u8::conditional_select(&y, &x, ok);
    }
    k
}

/// The session key of a decapsulation, hashed once: `Hash1(yes ‖ ct)` where `ok`, else
/// `Hash0(no ‖ ct)`, the input (prefix byte and 32 bytes) selected in constant time.
fn session_selected(ok: Choice, yes: &[u8; 32], no: &[u8; 32], ct: &[u8]) -> Wiped<[u8; 32]> {
    let mut prefix = Wiped::new([0u8; 33]);
    prefix[0] = u8::conditional_select(&0, &1, ok);
    prefix[1..].copy_from_slice(&*select32(ok, yes, no));
    let mut session = Msg::new(&[&prefix[..], ct]);
    sha512::finish(&mut [&mut session]);
    Wiped::new(session.digest32())
}

// ----- NTRU LPRime

/// ntrulpr761 parameters and sizes.
mod l {
    use super::*;
    pub const W: usize = 250;
    pub const TAU0: i32 = 2156;
    pub const TAU1: i32 = 114;
    pub const TAU2: i32 = 2007;
    pub const TAU3: i32 = 287;
    pub const I: usize = 256;
    pub const SEED: usize = 32;
    pub const INPUTS: usize = I / 8;
    pub const TOP: usize = I / 2;
    pub const PK: usize = SEED + ROUNDED_BYTES;
    pub const CT: usize = ROUNDED_BYTES + TOP + HASH_BYTES;
    pub const SK: usize = SMALL_BYTES + PK + INPUTS + HASH_BYTES;
}

/// `Generator(S)`: `G_i = (L_i mod q) - 2295` for `L = Expand(S)` (public data).
fn generator(seed: &[u8]) -> Vec<i16> {
    let seed: &[u8; 32] = seed.try_into().expect("32-byte seed");
    expand(seed)
        .iter()
        .map(|&x| (x % u32::from(Q)) as i16 - Q12)
        .collect()
}

fn ntrulpr_keypair(rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Wiped<Vec<u8>>)> {
    let _wipe = ring::ScratchWipe;
    let mut pk = vec![0u8; l::SEED];
    rng.fill(&mut pk);
    let g = generator(&pk);
    let a = short_random(rng, l::W);
    let ag = Wiped::new(unchecked::mul_rq_small(&g, &a[..]));
    pk.extend_from_slice(&unchecked::rounded_encode(&round3(&ag)));
    let mut sk = Wiped::new(Vec::with_capacity(l::SK));
    sk.extend_from_slice(&Wiped::new(unchecked::small_encode(&a[..])));
    sk.extend_from_slice(&pk);
    let mut rho = Wiped::new([0u8; l::INPUTS]);
    rng.fill(&mut *rho);
    sk.extend_from_slice(&*rho);
    sk.extend_from_slice(&hash_prefix(4, &[&pk]));
    debug_assert_eq!(sk.len(), l::SK);
    Ok((pk, sk))
}

/// `Top(C) = (τ1 (C + τ0) + 16384) >> 15` (in `0..16` for centred `C`).
#[inline(always)]
fn top(c: i16) -> u8 {
    ((l::TAU1 * (i32::from(c) + l::TAU0) + 16384) >> 15) as u8
}

/// `Right(T) = Fq_freeze(τ3 T - τ2)`.
#[inline(always)]
fn right(t: u8) -> i16 {
    fq_freeze(i64::from(l::TAU3 * i32::from(t) - l::TAU2))
}

/// `Hide` without the confirmation hash: the rounded `b·G` and the tops of `b·A + r·q/2`, for
/// `b = Short(Expand(HashShort(r)))` where `hs = HashShort(r) = Hash5(r)` is the caller's.
fn ntrulpr_hide(hs: &[u8; 32], r_enc: &[u8], pk: &[u8]) -> Result<Vec<u8>> {
    let a_pub = ring::rounded_decode(&pk[l::SEED..])?;
    let g = generator(&pk[..l::SEED]);
    let mut lst = expand(hs);
    let b = short_fromlist(&mut lst, l::W);
    let bg = Wiped::new(unchecked::mul_rq_small(&g, &b[..]));
    let mut ct = unchecked::rounded_encode(&round3(&bg));
    let ba = Wiped::new(unchecked::mul_rq_small(&a_pub, &b[..]));
    let mut t = Wiped::new([0u8; l::I]);
    for (i, ti) in t.iter_mut().enumerate() {
        let bit = i64::from((r_enc[i >> 3] >> (i & 7)) & 1);
        *ti = top(fq_freeze(i64::from(ba[i]) + bit * i64::from(Q12)));
    }
    ct.extend(t.chunks_exact(2).map(|p| p[0] + (p[1] << 4)));
    Ok(ct)
}

/// Encapsulation. `cache = Hash4(pk)` runs next to `HashShort(r)` and then next to the first
/// blocks of the session hash `Hash1(r ‖ ct)`, whose last block waits for the confirmation
/// `Hash2(r ‖ cache)` at the end of `ct` ([`sha512::advance`]).
fn ntrulpr_encapsulate(
    pk: &[u8],
    rng: &mut dyn RandomSource,
) -> Result<(Vec<u8>, Wiped<[u8; 32]>)> {
    let _wipe = ring::ScratchWipe;
    let mut r_enc = Wiped::new([0u8; l::INPUTS]);
    rng.fill(&mut *r_enc);
    let mut cache = Msg::new(&[&[4], pk]);
    let mut m5 = Msg::new(&[&[5], &r_enc[..]]);
    let n5 = m5.blocks();
    sha512::advance(&mut [&mut cache, &mut m5], &[n5, n5]);
    let hs = Wiped::new(m5.digest32());
    let mut ct = ntrulpr_hide(&hs, &*r_enc, pk)?;
    let at = 1 + l::INPUTS + ct.len();
    let mut session = Msg::new(&[&[1], &r_enc[..], &ct, &[0; HASH_BYTES]]);
    sha512::advance(
        &mut [&mut cache, &mut session],
        &[usize::MAX, at / sha512::BLOCK],
    );
    let confirm = hash_prefix(2, &[&r_enc[..], &cache.digest32()]);
    session.patch(at, &confirm);
    sha512::finish(&mut [&mut session]);
    ct.extend_from_slice(&confirm);
    Ok((ct, Wiped::new(session.digest32())))
}

/// Decapsulation. The decrypted `r` gives all four hashes at once: `HashShort(r)`, the
/// confirmation `Hash2(r ‖ cache)`, and both session-key candidates `Hash1(r ‖ ct)` (valid
/// ciphertext) and `Hash0(rho ‖ ct)` (otherwise), one selected in constant time.
fn ntrulpr_decapsulate(sk: &[u8], ct: &[u8]) -> Result<Wiped<[u8; 32]>> {
    let _wipe = ring::ScratchWipe;
    let (a, rest) = sk.split_at(SMALL_BYTES);
    let (pk, rest) = rest.split_at(l::PK);
    let (rho, cache) = rest.split_at(l::INPUTS);
    let a = small_decode_sk(a);
    let b = ring::rounded_decode(&ct[..ROUNDED_BYTES])?;
    let ab = Wiped::new(unchecked::mul_rq_small(&b, &a[..]));
    let tops = &ct[ROUNDED_BYTES..ROUNDED_BYTES + l::TOP];
    let mut r_enc = Wiped::new([0u8; l::INPUTS]);
    for i in 0..l::I {
        let t = (tops[i >> 1] >> (4 * (i & 1))) & 15;
        let x = fq_freeze(i64::from(right(t)) - i64::from(ab[i]) + (4 * l::W + 1) as i64);
        let bit = (barrier(u32::from(x as u16)) >> 15) as u8; // 1 iff x < 0
        r_enc[i >> 3] |= bit << (i & 7);
    }
    let mut m5 = Msg::new(&[&[5], &r_enc[..]]);
    let mut confirm = Msg::new(&[&[2], &r_enc[..], cache]);
    if sha512::parallel() {
        // both session-key candidates side by side (see `sntrup_decapsulate`)
        let mut k1 = Msg::new(&[&[1], &r_enc[..], ct]);
        let mut k0 = Msg::new(&[&[0], rho, ct]);
        sha512::finish(&mut [&mut m5, &mut confirm, &mut k1, &mut k0]);
        let hs = Wiped::new(m5.digest32());
        // the re-encryption depends on r_enc: wiped (equal to ct only for a valid ct)
        let mut cnew = Wiped::new(ntrulpr_hide(&hs, &*r_enc, pk)?);
        cnew.extend_from_slice(&*Wiped::new(confirm.digest32()));
        let ok = equal(&cnew, ct);
        let (k1, k0) = (Wiped::new(k1.digest32()), Wiped::new(k0.digest32()));
        return Ok(select32(ok, &k1, &k0));
    }
    // one message at a time: the session hash's input selected in constant time, hashed once
    sha512::finish(&mut [&mut m5, &mut confirm]);
    let hs = Wiped::new(m5.digest32());
    let mut cnew = Wiped::new(ntrulpr_hide(&hs, &*r_enc, pk)?);
    cnew.extend_from_slice(&*Wiped::new(confirm.digest32()));
    let ok = equal(&cnew, ct);
    let rho: &[u8; l::INPUTS] = rho.try_into().expect("32 bytes (split above)");
    Ok(session_selected(ok, &r_enc, rho, ct))
}

// ----- the Kem types

macro_rules! ntruprime_kem {
    ($name:ident, $str:literal, $m:ident, $kp:ident, $enc:ident, $dec:ident) => {
        #[doc = concat!("`", $str, "` (NIST round 3), see the [module documentation](self).")]
        ///
        /// ```
        #[doc = concat!("use latpoly::kem::{ntruprime::", stringify!($name), " as K, Kem, OsRandom};")]
        /// let (pk, sk) = K::keypair(&mut OsRandom)?;
        /// let (ct, ss) = K::encapsulate(&pk, &mut OsRandom)?;
        /// assert_eq!(K::decapsulate(&sk, &ct)?, ss);
        /// // a modified ciphertext gives an unrelated (pseudorandom) key, not an error
        /// let mut bad = ct.as_bytes().to_vec();
        /// bad[0] ^= 1;
        /// let bad = latpoly::kem::Ciphertext::<K>::from_bytes(&bad)?;
        /// assert_ne!(K::decapsulate(&sk, &bad)?, ss);
        /// # Ok::<(), latpoly::Error>(())
        /// ```
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        kem_impl!(
            $name,
            $str,
            ($m::PK, $m::SK, $m::CT, HASH_BYTES),
            keypair: $kp,
            encapsulate: $enc,
            decapsulate: $dec,
            rejection: "Implicit rejection: an invalid ciphertext gives `Ok` with a pseudorandom key.",
        );
    };
}

ntruprime_kem!(
    Sntrup761,
    "sntrup761",
    s,
    sntrup_keypair,
    sntrup_encapsulate,
    sntrup_decapsulate
);
ntruprime_kem!(
    Ntrulpr761,
    "ntrulpr761",
    l,
    ntrulpr_keypair,
    ntrulpr_encapsulate,
    ntrulpr_decapsulate
);

/// The two NTRU Prime KEMs as [`DynKem`] objects.
///
/// ```
/// use latpoly::kem::ntruprime::NTRUPRIME;
/// let names: Vec<&str> = NTRUPRIME.iter().map(|k| k.name()).collect();
/// assert_eq!(names, ["sntrup761", "ntrulpr761"]);
/// assert_eq!(NTRUPRIME[1].sizes(), (1039, 1294, 1167, 32));
/// ```
pub const NTRUPRIME: [&dyn DynKem; 2] = [&Dyn::<Sntrup761>::new(), &Dyn::<Ntrulpr761>::new()];

#[cfg(test)]
mod tests {
    use super::*;

    use crate::rings::ntruprime::f3_freeze;

    /// The products reuse a per-thread scratch; every KEM operation leaves it zeroed.
    #[test]
    fn kem_operations_leave_the_product_scratch_zeroed() {
        use crate::kem::{Kem, OsRandom};
        // a product outside a KEM operation leaves values in it
        let a: Vec<i16> = (0..P as i16).map(|i| i - 380).collect();
        let s: Vec<i8> = (0..P).map(|i| (i % 3) as i8 - 1).collect();
        let _ = ring::mul_rq_small(&a, &s).unwrap();
        let avx = ring::Multiplier::default().isa() != crate::Isa::Scalar;
        assert_eq!(ring::scratch_is_clear(), !avx);
        let (pk, sk) = Sntrup761::keypair(&mut OsRandom).unwrap();
        assert!(ring::scratch_is_clear());
        let _ = ring::mul_rq_small(&a, &s).unwrap();
        let (ct, ss) = Sntrup761::encapsulate(&pk, &mut OsRandom).unwrap();
        assert!(ring::scratch_is_clear());
        let _ = ring::mul_rq_small(&a, &s).unwrap();
        assert_eq!(Sntrup761::decapsulate(&sk, &ct).unwrap(), ss);
        assert!(ring::scratch_is_clear());
        let (pk, sk) = Ntrulpr761::keypair(&mut OsRandom).unwrap();
        let (ct, ss) = Ntrulpr761::encapsulate(&pk, &mut OsRandom).unwrap();
        let _ = ring::mul_rq_small(&a, &s).unwrap();
        assert_eq!(Ntrulpr761::decapsulate(&sk, &ct).unwrap(), ss);
        assert!(ring::scratch_is_clear());
    }

    #[test]
    fn times3_mod3_matches_reference_composition() {
        for x in -Q12..=Q12 {
            assert_eq!(
                times3_mod3(x, opaque_shift(15)),
                f3_freeze(i32::from(fq_freeze(3 * i64::from(x)))),
                "x = {x}"
            );
        }
    }

    #[test]
    fn unchecked_ring_calls_agree_with_checked() {
        let f: Vec<i8> = (0..P).map(|i| ((i * 7) % 3) as i8 - 1).collect();
        let g: Vec<i8> = (0..P).map(|i| ((i * i) % 3) as i8 - 1).collect();
        let a: Vec<i16> = (0..P as i16).map(|i| 6 * i - 2283).collect();
        let enc = ring::small_encode(&f).unwrap();
        assert_eq!(unchecked::small_encode(&f), enc);
        let mut enc_into = [0u8; SMALL_BYTES];
        unchecked::small_encode_into(&f, &mut enc_into);
        assert_eq!(enc_into[..], enc[..]);
        let mut dec = [0i8; P];
        unchecked::small_decode_mod3_into(&enc, &mut dec);
        assert_eq!(dec[..], f[..]);
        let mut r3 = [0i8; P];
        unchecked::mul_r3_into(&f, &g, &mut r3);
        assert_eq!(r3[..], ring::mul_r3(&f, &g).unwrap()[..]);
        assert_eq!(
            unchecked::mul_rq_small(&a, &f),
            ring::mul_rq_small(&a, &f).unwrap()
        );
        let mut wide = [7i16; PADDED];
        unchecked::mul_rq_small_into(&a, &f, &mut wide);
        assert_eq!(wide[..P], ring::mul_rq_small(&a, &f).unwrap()[..]);
        let mut rounded = wide;
        unchecked::round3_in_place(&mut rounded[..P]);
        assert_eq!(rounded[..P], ring::round3(&wide[..P]).unwrap()[..]);
        assert_eq!(unchecked::round3(&a), ring::round3(&a).unwrap());
        let r = unchecked::round3(&a);
        assert_eq!(
            unchecked::rounded_encode(&r),
            ring::rounded_encode(&r).unwrap()
        );
        assert_eq!(unchecked::recip_r3(&g), ring::recip_r3(&g).unwrap());
        assert_eq!(unchecked::recip3_rq(&f), ring::recip3_rq(&f).unwrap());
        // the pattern 11 reads as -1 (2 mod 3), padding bits are ignored
        let mut bad = enc.clone();
        bad[0] = 0xff;
        bad[SMALL_BYTES - 1] |= 0xfc;
        let mut d = [0i8; P];
        unchecked::small_decode_mod3_into(&bad, &mut d);
        assert_eq!(d[..4], [-1; 4]);
        assert_eq!(d[4..], f[4..]);
    }

    #[test]
    fn short_has_weight() {
        let mut l = [0u32; P];
        for (i, x) in l.iter_mut().enumerate() {
            *x = (i as u32).wrapping_mul(0x9e37_79b9);
        }
        let s = short_fromlist(&mut l, 286);
        assert_eq!(s.iter().filter(|&&x| x != 0).count(), 286);
    }
}
