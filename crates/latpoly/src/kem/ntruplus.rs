//! NTRU+KEM, KpqC round-2 final version (spec v2.2.1), all four parameter sets, bit-exact with
//! the reference implementation and its NIST-style known-answer tests.
//!
//! | type | `NAME` | n | pk = ct | sk | ss |
//! |---|---|---|---|---|---|
//! | [`NtruPlusKem576`] | `NTRU+KEM576` | 576 | 864 | 1760 | 32 |
//! | [`NtruPlusKem768`] | `NTRU+KEM768` | 768 | 1152 | 2336 | 32 |
//! | [`NtruPlusKem864`] | `NTRU+KEM864` | 864 | 1296 | 2624 | 32 |
//! | [`NtruPlusKem1152`] | `NTRU+KEM1152` | 1152 | 1728 | 3488 | 32 |
//!
//! The ring `Z_3457[x]/(x^n - x^(n/2) + 1)` and its NTT, `Encodeq` and `CBD1` are those of
//! [`crate::rings::ntruplus`]. Hashes (domain-separated by a leading byte):
//! `F(pk) = SHA-256(0x00 ‖ pk)`, `G(x) = SHAKE256(0x01 ‖ x, n/4)`,
//! `H(m ‖ F(pk)) = SHAKE256(0x02 ‖ m ‖ F(pk), 32 + n/4)` (shared secret, then the `CBD1` input
//! of `r`), and the key-generation XOF `SHAKE256(d, n/4)` with `d` 32 random bytes.
//!
//! * **Key generation** draws `d = randombytes(32)` per attempt, `f = 3·CBD1(XOF(d)) + 1` (the
//!   `+1` on `f_0` only) until `f̂` is invertible, then, in a separate loop with fresh seeds,
//!   `g = 3·CBD1(XOF(d))` until `ĥ = ĝ∘f̂^-1` is invertible. `pk = Encodeq(2^16·ĥ)`,
//!   `sk = Encodeq(f̂) ‖ Encodeq(2^16·ĥ^-1) ‖ F(pk)`. Each loop gives up after 256 attempts
//!   with an error (a working random source needs more with probability below `2^-400`).
//! * **Encapsulation** draws `m = randombytes(n/8)`; `(K, R) = H(m ‖ F(pk))`, `r̂ = NTT(CBD1(R))`,
//!   `ĉ = ĥ∘r̂ + NTT(SOTP(m, G(Encodeq(r̂))))`, `ct = Encodeq(ĉ)`, shared secret `K`.
//! * **Decapsulation** recovers `m' = (c·f mod q, centred) mod ±3`, `r̂' = (ĉ - NTT(m'))∘ĥ^-1`,
//!   inverts the SOTP with `G(Encodeq(r̂'))`, recomputes `(K, R) = H(m ‖ F(pk))` and accepts iff
//!   the SOTP inverse succeeded and `Encodeq(NTT(CBD1(R))) = Encodeq(r̂')`.
//!
//! # Explicit rejection
//!
//! NTRU+ rejects explicitly: the reference `crypto_kem_dec` returns 1 and an **all-zero**
//! shared secret for an invalid ciphertext. Here [`Kem::decapsulate`](super::Kem::decapsulate) returns
//! `Ok(SharedSecret)` holding 32 zero bytes in that case, so the KAT harness and byte-level
//! callers see exactly the reference output; compare the secret with zero to detect a
//! rejection (an honest shared secret is all-zero with probability `2^-256`).
//!
//! # Constant time
//!
//! Decapsulation is constant time up to the final selection: every step runs on every input,
//! the ring arithmetic is called without its (value-dependent) range checks, and the
//! accept/reject flag (SOTP inverse, re-encryption comparison, canonical ciphertext) is
//! combined and applied with [`subtle`]. Encapsulation is constant time in `m` and `r`.
//! `tests/ct_kem.rs` checks both under Valgrind (no branch or memory index depends on the
//! secret key or on the encapsulation randomness) on the scalar and AVX2 backends (Valgrind
//! does not run AVX-512 code; the AVX-512 kernels are the AVX2 ones' operations on wider
//! vectors, with no branch or table index on data, by inspection). Key generation branches only on the
//! invertibility of each candidate, i.e. reveals how many candidates were discarded, as the
//! reference does.
//!
//! # Input checks (all without panics)
//!
//! * Wrong lengths are rejected when the typed keys and ciphertexts are built
//!   ([`Error::LengthMismatch`]).
//! * A public key with a 12-bit field `>= q` (never produced by key generation) makes
//!   encapsulation fail with [`Error::CoefficientOutOfRange`].
//! * A ciphertext with a field `>= q` (never produced by encapsulation) is **rejected**:
//!   decapsulation returns the all-zero secret. The reference would reduce such a field mod `q`
//!   and could accept the ciphertext as a malleated copy of an honest one; this and the
//!   public-key check above are where this implementation is stricter than the v2.2.1
//!   reference (whose encapsulation reduces such a public-key field mod `q`; PARAMS.md C.7:
//!   the check arrived in a later reference update), and neither can change any KAT (both
//!   depend only on public data that the reference itself always produces canonical).
//! * The secret key is not validated, as in the reference (a key-dependent check would be a
//!   branch on the secret): 12-bit fields `>= q` are reduced mod `q`, so a corrupted key simply
//!   rejects (all-zero secrets) or yields wrong secrets.
//!
//! ```
//! use latpoly::kem::{ntruplus::NtruPlusKem768, Kem, OsRandom};
//!
//! let (pk, sk) = NtruPlusKem768::keypair(&mut OsRandom)?;
//! let (ct, ss) = NtruPlusKem768::encapsulate(&pk, &mut OsRandom)?;
//! assert_eq!(NtruPlusKem768::decapsulate(&sk, &ct)?, ss);
//! assert_eq!((pk.as_bytes().len(), sk.as_bytes().len()), (1152, 2336));
//! # Ok::<(), latpoly::Error>(())
//! ```

use super::{Dyn, DynKem, RandomSource};
use crate::arith::ct::{barrier, opaque_shift};
use crate::error::{Error, Result};
use crate::rings::ntruplus::{self, NtruPlusParams, NtruPlusRing};
use crate::secret::{wipe, with_scratch, Wiped};
use sha2::{Digest, Sha256};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

const Q: i32 = ntruplus::Q_NTRUPLUS as i32;
/// Bytes of `F(pk)`, of the keygen seed and of the shared secret.
const SYMBYTES: usize = 32;
/// Key-generation attempts per loop before giving up (see the module documentation).
const MAX_ATTEMPTS: usize = 256;

const fn pk_bytes(p: NtruPlusParams) -> usize {
    p.encoded_bytes()
}

const fn sk_bytes(p: NtruPlusParams) -> usize {
    2 * p.encoded_bytes() + SYMBYTES
}

/// `F(pk) = SHA-256(0x00 ‖ pk)`.
fn hash_f(pk: &[u8]) -> [u8; SYMBYTES] {
    let mut h = Sha256::new();
    Digest::update(&mut h, [0u8]);
    Digest::update(&mut h, pk);
    h.finalize().into()
}

/// `SHAKE256(parts[0] ‖ parts[1] ‖ ..)` into `out`.
fn shake256(parts: &[&[u8]], out: &mut [u8]) {
    crate::keccak::shake256(parts, out);
}

/// All-ones if `x < 0`, else zero, as plain arithmetic: an arithmetic shift by
/// `s = opaque_shift(15)` ([`opaque_shift`]: 15, hidden from the optimiser so that it cannot
/// turn the masked adds into selects). Used in the element-wise loops, which the compiler
/// vectorises (16-bit vector shifts, ands and adds, no branch); the Valgrind test
/// `tests/ct_kem.rs` checks the compiled code of every decapsulation.
#[inline(always)]
fn sign_mask(x: i16, s: u32) -> i16 {
    x.wrapping_shr(s)
}

const Q16: i16 = Q as i16;

/// `x` in `(-2q, 2q)` to its representative in `[0, q)`, branch-free, in 16-bit arithmetic.
#[inline(always)]
fn canonical(mut x: i16, s: u32) -> i16 {
    debug_assert!((x as i32).abs() < 2 * Q);
    x += sign_mask(x, s) & Q16; // (-q, 2q)
    x += sign_mask(x, s) & Q16; // [0, 2q)
    x -= Q16;
    x += sign_mask(x, s) & Q16; // [0, q)
    x
}

/// The reference `crepmod3`: `a` in `(-q, q)` to its centred representative mod `q` (in
/// `[-(q-1)/2, (q-1)/2]`), then to the centred representative mod 3 in `{-1, 0, 1}`. That
/// value is unique, so any exact division works; here in 16-bit lanes: `v = (a - (q+1)/2) mod
/// q` in `[0, q)` (the centred value is `v - (q-1)/2`, congruent to `v + 1` mod 3), then
/// `(v + 1) mod 3 - 1` with `floor(x/3) = (x·21846) >> 16` for `0 < x <= q` (the error of
/// `21846/2^16 - 1/3` stays below `1/3` over that range).
#[inline(always)]
fn crepmod3(a: i16, s: u32) -> i16 {
    let mut v = a + (sign_mask(a, s) & Q16); // [0, q)
    v -= (Q16 + 1) / 2;
    v += sign_mask(v, s) & Q16; // [0, q)
    let x = (v + 1) as u16; // [1, q]
    let t = ((x as u32 * 21846) >> 16) as u16;
    (x - 3 * t) as i16 - 1
}

/// `SOTP(m, B) = CBD1((B[..n/8] ⊕ m) ‖ B[n/8..])` into `e`; `b` (the `n/4` bytes of `B`) is
/// overwritten with the CBD1 input.
fn sotp_into(ring: &NtruPlusRing, e: &mut [i16], m: &[u8], b: &mut [u8]) {
    for (t, x) in b.iter_mut().zip(m) {
        *t ^= x;
    }
    ring.cbd1_into_unchecked(e, b);
}

/// `SOTP^-1(e, B)`: writes `m_i = ((e_i + β_(i+n)) & 1) ⊕ β_i` into `m` (in the `CBD1` bit order)
/// and returns "every `e_i + β_(i+n)` is 0 or 1". Constant time.
#[inline(always)]
fn sotp_inv(m: &mut [u8], e: &[i16], b: &[u8], p: NtruPlusParams) -> Choice {
    let n = p.n();
    let (lo, hi) = b.split_at(n / 8);
    // bad collects t & !1 over all t in {-1, 0, 1, 2}: anything but 0 and 1 sets a high bit
    let mut bad = 0u16;
    for (base, w) in ntruplus::cbd1_blocks(p) {
        // one copy per block width: fixed-length loops the compiler unrolls and vectorises
        bad |= match w {
            16 => sotp_inv_block::<16>(m, e, lo, hi, base),
            8 => sotp_inv_block::<8>(m, e, lo, hi, base),
            4 => sotp_inv_block::<4>(m, e, lo, hi, base),
            2 => sotp_inv_block::<2>(m, e, lo, hi, base),
            _ => sotp_inv_block::<1>(m, e, lo, hi, base),
        };
    }
    barrier(bad as u32).ct_eq(&0)
}

/// One block of [`sotp_inv`] (`W` words, coefficients `base .. base + 16 W`): the block's
/// words, then row `k` (coefficients `base + W·k .. + W`) against bit `k` of every word;
/// returns the OR of `t & !1` over the block's `t`.
#[inline(always)]
fn sotp_inv_block<const W: usize>(
    m: &mut [u8],
    e: &[i16],
    lo: &[u8],
    hi: &[u8],
    base: usize,
) -> u16 {
    // per-lane accumulators: vector shifts and ORs (a horizontal OR per row cost, with the
    // old byte-wise gather of the words, 2-3% of decapsulation)
    let (mut xs, mut ys) = ntruplus::cbd1_words::<W>(lo, hi, base);
    let mut bad = [0u16; W];
    let mut words = [0u16; W];
    for (k, row) in e[base..base + 16 * W].chunks_exact(W).enumerate() {
        for j in 0..W {
            let t = ((ys[j] >> k) & 1).wrapping_add(row[j] as u16);
            bad[j] |= t & !1;
            words[j] |= ((t ^ (xs[j] >> k)) & 1) << k;
        }
    }
    let off = base / 8;
    for (o, w) in m[off..off + 2 * W].chunks_exact_mut(2).zip(words) {
        o.copy_from_slice(&w.to_le_bytes());
    }
    let any_bad = bad.iter().fold(0, |a, &b| a | b);
    wipe(&mut xs);
    wipe(&mut ys);
    wipe(&mut words);
    // which lanes were bad says more than the flag returned
    wipe(&mut bad);
    any_bad
}

/// `3·CBD1(buf)`, plus 1 on the constant coefficient if `plus_one`, into `f` (`buf`: the
/// `n/4` bytes of `SHAKE256(d, n/4)`).
fn small_from_xof_into(ring: &NtruPlusRing, f: &mut [i16], buf: &[u8], plus_one: bool) {
    ring.cbd1_into_unchecked(f, buf);
    for v in f.iter_mut() {
        *v *= 3;
    }
    f[0] += plus_one as i16;
}

fn too_many_attempts(what: &str) -> Error {
    Error::InvalidArgument(format!(
        "NTRU+ key generation: no invertible {what} in {MAX_ATTEMPTS} attempts; \
         the random source is broken"
    ))
}

/// Key generation (spec Alg. 15 / reference `crypto_kem_keypair`): `(pk, sk)` bytes. Works in
/// the thread's secret scratch (polynomials and the SHAKE output), wiped afterwards.
fn keypair(p: NtruPlusParams, rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Wiped<Vec<u8>>)> {
    let n = p.n();
    with_scratch(4 * n, n / 2, |polys, buf| keypair_in(p, rng, polys, buf))
}

/// [`keypair`] in the scratch `polys` (`4n` words) and `buf` (`n/2` bytes).
///
/// The seeds are drawn as the reference draws them, one `randombytes(32)` per attempt, first
/// for `f` until it is accepted, then for `g`. Each `f` attempt also draws the next seed
/// before it knows whether `f` is accepted: that seed is `g`'s first one if it is and the
/// next `f` attempt's if not, so the order of the draws, and every key, is the reference's,
/// and both seeds are expanded by one paired SHAKE256 (the time of one).
fn keypair_in(
    p: NtruPlusParams,
    rng: &mut dyn RandomSource,
    polys: &mut [i16],
    buf: &mut [u8],
) -> Result<(Vec<u8>, Wiped<Vec<u8>>)> {
    let ring = NtruPlusRing::new(p);
    let (n, l) = (p.n(), p.encoded_bytes());
    let mut d = Wiped::new([0u8; SYMBYTES]);
    let mut dnext = Wiped::new([0u8; SYMBYTES]);
    let (fhat, rest) = polys.split_at_mut(n);
    let (finv, rest) = rest.split_at_mut(n);
    let (g, hinv) = rest.split_at_mut(n);
    let (fbuf, gbuf) = buf.split_at_mut(n / 4);
    // f = 3·CBD1(XOF(d)) + 1 until f̂ is invertible; finv = 2^32·f̂^-1
    rng.fill(&mut d[..]);
    let mut found = false;
    for _ in 0..MAX_ATTEMPTS {
        rng.fill(&mut dnext[..]);
        crate::keccak::shake256_x2(&[&d[..]], fbuf, &[&dnext[..]], gbuf);
        small_from_xof_into(&ring, fhat, fbuf, true);
        ring.ntt_unchecked(fhat);
        if crate::secret::declassify(ring.baseinv_unchecked_into(finv, fhat)) {
            found = true;
            break;
        }
        d.copy_from_slice(&dnext[..]);
    }
    if !found {
        return Err(too_many_attempts("f"));
    }
    // g = 3·CBD1(XOF(d)) until ĥ is invertible, the first seed already expanded into gbuf;
    // h = basemul(ĝ, finv) = 2^16·ĥ (in the public key, not secret), hinv = 2^32·h^-1 =
    // 2^16·ĥ^-1
    let mut h = vec![0i16; n];
    let mut found = false;
    for attempt in 0..MAX_ATTEMPTS {
        if attempt > 0 {
            rng.fill(&mut d[..]);
            shake256(&[&d[..]], gbuf);
        }
        small_from_xof_into(&ring, g, gbuf, false);
        ring.ntt_unchecked(g);
        ring.basemul_unchecked_into(&mut h, g, finv);
        if crate::secret::declassify(ring.baseinv_unchecked_into(hinv, &h)) {
            found = true;
            break;
        }
    }
    if !found {
        return Err(too_many_attempts("h"));
    }
    let mut pk = vec![0u8; l];
    ring.encodeq_into_unchecked(&mut pk, &h);
    let mut sk = Wiped::new(vec![0u8; sk_bytes(p)]);
    ring.encodeq_into_unchecked(&mut sk[..l], fhat);
    ring.encodeq_into_unchecked(&mut sk[l..2 * l], hinv);
    sk[2 * l..].copy_from_slice(&hash_f(&pk));
    debug_assert_eq!((pk.len(), sk.len()), (pk_bytes(p), sk_bytes(p)));
    Ok((pk, sk))
}

/// Encapsulation (spec Alg. 16 / reference `crypto_kem_enc`): `(ct, ss)` bytes. Works in the
/// thread's secret scratch (polynomials and bytes), wiped afterwards.
fn encapsulate(
    p: NtruPlusParams,
    pk: &[u8],
    rng: &mut dyn RandomSource,
) -> Result<(Vec<u8>, Wiped<Vec<u8>>)> {
    let ring = NtruPlusRing::new(p);
    let (n, l) = (p.n(), p.encoded_bytes());
    let nbytes = (n / 8 + SYMBYTES) + (SYMBYTES + n / 4) + l + n / 4;
    with_scratch(4 * n, nbytes, |polys, bytes| {
        let (h, rest) = polys.split_at_mut(n);
        let (r, rest) = rest.split_at_mut(n);
        let (m, hr) = rest.split_at_mut(n);
        // strict decoding of 2^16·ĥ: a non-canonical public key is an error (public data, may
        // branch; the generic decoder names the offending field)
        if !ring.decodeq_reduced_into(h, pk)? {
            return Err(ntruplus::decodeq(pk, p)
                .err()
                .unwrap_or_else(|| Error::InvalidArgument("non-canonical public key".into())));
        }
        let (msg, rest) = bytes.split_at_mut(n / 8 + SYMBYTES);
        let (kr, rest) = rest.split_at_mut(SYMBYTES + n / 4);
        let (rbytes, g) = rest.split_at_mut(l);
        rng.fill(&mut msg[..n / 8]);
        msg[n / 8..].copy_from_slice(&hash_f(pk));
        shake256(&[&[2], msg], kr);
        ring.cbd1_into_unchecked(r, &kr[SYMBYTES..]);
        ring.ntt_unchecked(r);
        ring.encodeq_into_unchecked(rbytes, r);
        shake256(&[&[1], rbytes], g);
        sotp_into(&ring, m, &msg[..n / 8], g);
        ring.ntt_unchecked(m);
        // ĉ = ĥ∘r̂ + m̂ (basemul removes the 2^16 of the stored h)
        ring.basemul_unchecked_into(hr, h, r);
        let s = opaque_shift(15);
        for (x, &y) in hr.iter_mut().zip(m.iter()) {
            *x = canonical(*x + y, s);
        }
        let mut ct = vec![0u8; l];
        ring.encodeq_into_unchecked(&mut ct, hr);
        Ok((ct, Wiped::new(kr[..SYMBYTES].to_vec())))
    })
}

/// Decapsulation (spec Alg. 17 / reference `crypto_kem_dec`): the shared secret bytes, all
/// zero on rejection. Works in the thread's secret scratch (polynomials and bytes), wiped
/// afterwards.
fn decapsulate(p: NtruPlusParams, sk: &[u8], ct: &[u8]) -> Result<Wiped<Vec<u8>>> {
    let ring = NtruPlusRing::new(p);
    let (n, l) = (p.n(), p.encoded_bytes());
    if sk.len() != sk_bytes(p) {
        return Err(Error::LengthMismatch {
            expected: sk_bytes(p),
            got: sk.len(),
        });
    }
    let nbytes = 2 * l + n / 4 + (n / 8 + SYMBYTES) + (SYMBYTES + n / 4);
    with_scratch(6 * n, nbytes, |polys, bytes| {
        crate::vectorised::run(ring.isa(), Decaps(&ring, sk, ct, polys, bytes))
    })
}

/// [`decapsulate_in`] as a [`Vectorised`](crate::vectorised::Vectorised) body: compiled with
/// the ring backend's vector features, the element-wise steps between the ring operations
/// (`crepmod3`, the canonical differences, `SOTP^-1`) run on AVX-512 or AVX2 registers rather
/// than SSE2 (perf put them at 12% of NTRU+KEM864 decapsulation).
struct Decaps<'a>(
    &'a NtruPlusRing,
    &'a [u8],
    &'a [u8],
    &'a mut [i16],
    &'a mut [u8],
);

impl crate::vectorised::Vectorised for Decaps<'_> {
    type Out = Result<Wiped<Vec<u8>>>;
    #[inline(always)]
    fn run(self) -> Self::Out {
        decapsulate_in(self.0, self.1, self.2, self.3, self.4)
    }
}

/// [`decapsulate`] in the scratch `polys` (`6n` words) and `bytes`; lengths checked.
#[inline(always)]
fn decapsulate_in(
    ring: &NtruPlusRing,
    sk: &[u8],
    ct: &[u8],
    polys: &mut [i16],
    bytes: &mut [u8],
) -> Result<Wiped<Vec<u8>>> {
    let p = ring.params();
    let (n, l) = (p.n(), p.encoded_bytes());
    let (c, rest) = polys.split_at_mut(n);
    let (f, rest) = rest.split_at_mut(n);
    let (hinv, rest) = rest.split_at_mut(n);
    let (t, rest) = rest.split_at_mut(n);
    let (m1, m2) = rest.split_at_mut(n);
    let (rbytes, rest) = bytes.split_at_mut(l);
    let (rbytes2, rest) = rest.split_at_mut(l);
    let (g, rest) = rest.split_at_mut(n / 4);
    let (msg, kr) = rest.split_at_mut(n / 8 + SYMBYTES);
    // ĉ reduced into [0, q); a non-canonical ciphertext is rejected below, not here
    let canonical_ct = ring.decodeq_reduced_into(c, ct)?;
    // the secret key is not validated (as in the reference): fields >= q are reduced, with no
    // branch on the key
    ring.decodeq_reduced_into(f, &sk[..l])?;
    ring.decodeq_reduced_into(hinv, &sk[l..2 * l])?;
    // m' = (c·f mod q, centred) mod ±3: basemul gives ĉ∘f̂·2^-16, invntt multiplies by 2^16
    ring.basemul_unchecked_into(t, c, f);
    ring.invntt_unchecked(t);
    let s = opaque_shift(15);
    for (m, &a) in m1.iter_mut().zip(t.iter()) {
        *m = crepmod3(a, s);
    }
    // r̂' = (ĉ - NTT(m'))∘ĥ^-1 (hinv carries 2^16, removed by basemul); ĉ - NTT(m') in m2
    m2.copy_from_slice(m1);
    ring.ntt_unchecked(m2);
    for (y, &x) in m2.iter_mut().zip(c.iter()) {
        *y = canonical(x - *y, s);
    }
    let r2 = t;
    ring.basemul_unchecked_into(r2, m2, hinv);
    ring.encodeq_into_unchecked(rbytes, r2);
    shake256(&[&[1], rbytes], g);
    let inv_ok = sotp_inv(&mut msg[..n / 8], m1, g, p);
    msg[n / 8..].copy_from_slice(&sk[2 * l..]);
    shake256(&[&[2], msg], kr);
    let r1 = f;
    ring.cbd1_into_unchecked(r1, &kr[SYMBYTES..]);
    ring.ntt_unchecked(r1);
    ring.encodeq_into_unchecked(rbytes2, r1);
    let accept =
        inv_ok & crate::arith::ct::bytes_equal(rbytes, rbytes2) & Choice::from(canonical_ct as u8);
    let ss = kr[..SYMBYTES]
        .iter()
        .map(|&k| u8::conditional_select(&0, &k, accept))
        .collect();
    Ok(Wiped::new(ss))
}

macro_rules! ntruplus_kem {
    ($name:ident, $params:ident, $n:literal) => {
        #[doc = concat!("NTRU+KEM", $n, " (KpqC round-2 final, spec v2.2.1); see the ")]
        /// [module documentation](self) for the algorithms and explicit rejection.
        ///
        /// ```
        #[doc = concat!("use latpoly::kem::{ntruplus::", stringify!($name), " as K, Kem, OsRandom};")]
        ///
        /// let (pk, sk) = K::keypair(&mut OsRandom)?;
        /// let (ct, ss) = K::encapsulate(&pk, &mut OsRandom)?;
        /// assert_eq!(K::decapsulate(&sk, &ct)?, ss);
        #[doc = concat!("assert_eq!(K::NAME, \"NTRU+KEM", $n, "\");")]
        /// // a modified ciphertext is rejected explicitly: all-zero shared secret
        /// let mut bad = ct.as_bytes().to_vec();
        /// bad[0] ^= 1;
        /// let bad = latpoly::kem::Ciphertext::<K>::from_bytes(&bad)?;
        /// assert_eq!(K::decapsulate(&sk, &bad)?.as_bytes(), &[0u8; 32]);
        /// # Ok::<(), latpoly::Error>(())
        /// ```
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $name {
            /// The ring parameter set.
            ///
            /// ```
            #[doc = concat!("use latpoly::kem::ntruplus::", stringify!($name), ";")]
            #[doc = concat!("assert_eq!(", stringify!($name), "::PARAMS.n(), ", $n, ");")]
            /// ```
            pub const PARAMS: NtruPlusParams = NtruPlusParams::$params;
        }

        kem_impl!(
            $name,
            NtruPlusParams::$params.name(),
            (
                pk_bytes(NtruPlusParams::$params),
                sk_bytes(NtruPlusParams::$params),
                pk_bytes(NtruPlusParams::$params),
                SYMBYTES
            ),
            keypair: |rng| keypair(NtruPlusParams::$params, rng),
            encapsulate: |pk, rng| encapsulate(NtruPlusParams::$params, pk, rng),
            decapsulate: |sk, ct| decapsulate(NtruPlusParams::$params, sk, ct),
            rejection: "Explicit rejection: an invalid ciphertext gives `Ok` with an all-zero secret.",
        );
    };
}

ntruplus_kem!(NtruPlusKem576, Kem576, "576");
ntruplus_kem!(NtruPlusKem768, Kem768, "768");
ntruplus_kem!(NtruPlusKem864, Kem864, "864");
ntruplus_kem!(NtruPlusKem1152, Kem1152, "1152");

/// The four NTRU+ KEMs as [`DynKem`] objects, smallest first.
///
/// ```
/// use latpoly::kem::ntruplus::NTRUPLUS;
/// let names: Vec<&str> = NTRUPLUS.iter().map(|k| k.name()).collect();
/// assert_eq!(names, ["NTRU+KEM576", "NTRU+KEM768", "NTRU+KEM864", "NTRU+KEM1152"]);
/// assert_eq!(NTRUPLUS[2].sizes(), (1296, 2624, 1296, 32));
/// ```
pub const NTRUPLUS: [&dyn DynKem; 4] = [
    &Dyn::<NtruPlusKem576>::new(),
    &Dyn::<NtruPlusKem768>::new(),
    &Dyn::<NtruPlusKem864>::new(),
    &Dyn::<NtruPlusKem1152>::new(),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crepmod3_is_centred_mod_3() {
        for a in -(Q - 1)..Q {
            let c = a.rem_euclid(Q);
            let centred = if c > (Q - 1) / 2 { c - Q } else { c };
            let want = centred - 3 * ((centred as f64 / 3.0).round() as i32);
            assert_eq!(crepmod3(a as i16, opaque_shift(15)) as i32, want, "a = {a}");
        }
    }

    #[test]
    fn canonical_reduces() {
        for x in -(2 * Q - 1)..2 * Q {
            assert_eq!(
                canonical(x as i16, opaque_shift(15)) as i32,
                x.rem_euclid(Q),
                "x = {x}"
            );
        }
    }

    /// The reference's key generation, step by step: one seed and one SHAKE256 per attempt,
    /// `f` first, then `g`. Returns the key pair and the number of rejected `f` candidates.
    fn keypair_sequential(
        p: NtruPlusParams,
        rng: &mut dyn RandomSource,
    ) -> (Vec<u8>, Vec<u8>, usize) {
        let ring = NtruPlusRing::new(p);
        let (n, l) = (p.n(), p.encoded_bytes());
        let (mut f, mut finv, mut g, mut h, mut hinv) = (
            vec![0i16; n],
            vec![0i16; n],
            vec![0i16; n],
            vec![0i16; n],
            vec![0i16; n],
        );
        let mut buf = vec![0u8; n / 4];
        let mut d = [0u8; SYMBYTES];
        let mut rejected = 0;
        loop {
            rng.fill(&mut d);
            shake256(&[&d], &mut buf);
            small_from_xof_into(&ring, &mut f, &buf, true);
            ring.ntt(&mut f).unwrap();
            if ring.baseinv_into(&mut finv, &f).unwrap() {
                break;
            }
            rejected += 1;
        }
        loop {
            rng.fill(&mut d);
            shake256(&[&d], &mut buf);
            small_from_xof_into(&ring, &mut g, &buf, false);
            ring.ntt(&mut g).unwrap();
            ring.basemul_into(&mut h, &g, &finv).unwrap();
            if ring.baseinv_into(&mut hinv, &h).unwrap() {
                break;
            }
        }
        let mut pk = ntruplus::encodeq(&h, p).unwrap();
        let mut sk = ntruplus::encodeq(&f, p).unwrap();
        sk.extend(ntruplus::encodeq(&hinv, p).unwrap());
        sk.extend(hash_f(&pk));
        pk.truncate(l);
        (pk, sk, rejected)
    }

    /// The paired-seed key generation draws the same seeds in the same order as the reference,
    /// also when `f` candidates are rejected (the test asserts that some were).
    #[test]
    fn keypair_matches_the_sequential_reference() {
        use crate::kem::drbg::KatDrbg;
        let mut rejected = 0;
        for p in NtruPlusParams::ALL {
            for seed in 0..40u8 {
                let entropy: [u8; 48] = core::array::from_fn(|i| seed ^ (i as u8) ^ (p.n() as u8));
                let (pk, sk) = keypair(p, &mut KatDrbg::new(&entropy)).unwrap();
                let (pk2, sk2, r) = keypair_sequential(p, &mut KatDrbg::new(&entropy));
                assert_eq!(pk, pk2, "{} seed {seed}", p.name());
                assert_eq!(sk[..], sk2[..], "{} seed {seed}", p.name());
                rejected += r;
            }
        }
        eprintln!("rejected f candidates: {rejected}");
        assert!(
            rejected > 0,
            "no rejected f candidate: the retry path went untested"
        );
    }

    #[test]
    fn sotp_inverts() {
        let p = NtruPlusParams::Kem864;
        let n = p.n();
        let m: Vec<u8> = (0..n / 8).map(|i| (i * 37 + 11) as u8).collect();
        let b: Vec<u8> = (0..n / 4).map(|i| (i * 101 + 3) as u8).collect();
        let mut e = vec![0i16; n];
        let ring = NtruPlusRing::new(p);
        sotp_into(&ring, &mut e, &m, &mut b.clone());
        let mut back = vec![0u8; n / 8];
        assert!(bool::from(sotp_inv(&mut back, &e, &b, p)));
        assert_eq!(back, m);
        // a coefficient outside {-1, 0, 1} gives e_i + β_(i+n) >= 2: failure
        let mut e2 = e.to_vec();
        e2[5] = 2;
        assert!(!bool::from(sotp_inv(&mut back, &e2, &b, p)));
    }
}
