//! NTRU, NIST round 3: `ntruhps2048509`, `ntruhps2048677`, `ntruhps4096821` and `ntruhrss701`,
//! bit-exact with the reference (jschanck/ntru, PQClean `crypto_kem/ntru*/clean`) and its NIST
//! known-answer tests of 2020-10-16 (`shared/kat/PARAMS.md` section A).
//!
//! | type | `NAME` | n | q | pk | sk | ct | ss |
//! |---|---|---:|---:|---:|---:|---:|---:|
//! | [`NtruHps2048509`] | `ntruhps2048509` | 509 | 2048 | 699 | 935 | 699 | 32 |
//! | [`NtruHps2048677`] | `ntruhps2048677` | 677 | 2048 | 930 | 1234 | 930 | 32 |
//! | [`NtruHps4096821`] | `ntruhps4096821` | 821 | 4096 | 1230 | 1590 | 1230 | 32 |
//! | [`NtruHrss701`] | `ntruhrss701` | 701 | 8192 | 1138 | 1450 | 1138 | 32 |
//!
//! The ring arithmetic (`R_q = Z_q[x]/(x^n - 1)`, `S_q`, `S_3`, products, inverses, lift and
//! packings) is [`crate::rings::ntru`], whose products run on the fastest multiplier of the CPU.
//!
//! * **Randomness** (the reference call pattern): key generation makes one `randombytes` call
//!   for the `f, g` seed (HPS: `(n-1) + ceil(30(n-1)/8)` bytes, HRSS: `2(n-1)`), then one of 32
//!   bytes for the rejection key `prf`; encapsulation one call for the `r, m` seed (same lengths).
//! * **Sampling**: `sample_iid` (one byte per coefficient, reduced mod 3), `sample_iid_plus`
//!   (HRSS: flips the signs of the even-index coefficients so that `<x r, r> >= 0`) and
//!   `sample_fixed_type` (HPS: 30 random bits per coefficient over a tag of `+1` / `-1` for the
//!   first `q/8 - 2` words, sorted as signed 32-bit integers by a constant-time sorting network).
//! * **Key generation**: `f` and `g` sampled; `g' = 3g` (HPS) or `3(x - 1)g` (HRSS);
//!   `G = (g' f)^-1` mod `(q, Phi_n)`; `h = G g'^2` (`R_q`), `h^-1 = G f^2` (`S_q`);
//!   `pk = Rq_sum_zero_tobytes(h)`,
//!   `sk = S3_tobytes(f) ‖ S3_tobytes(f^-1 mod (3, Phi_n)) ‖ Sq_tobytes(h^-1) ‖ prf`.
//! * **Encapsulation**: `r, m` sampled, `K = SHA3-256(S3_tobytes(r) ‖ S3_tobytes(m))`,
//!   `ct = Rq_sum_zero_tobytes(r h + Lift(m))` with `r` lifted to `{0, 1, q - 1}`.
//!
//! # Implicit rejection
//!
//! Decapsulation recovers `m = (c f mod (3, Phi_n)) · f^-1` and `r = (c - Lift(m)) · h^-1` mod
//! `(q, Phi_n)` and, instead of re-encrypting, checks that the unused bits of the last
//! ciphertext byte are zero, that `r` is ternary with `r[n-1] = 0` and (HPS) that `m` has
//! exactly `q/16 - 1` coefficients `+1` and as many `-1` (Schanck 2018, Proposition 1: these
//! checks pass if and only if re-encryption gives `c`). On failure the session key is
//! `SHA3-256(prf ‖ c)`, a pseudorandom key, never an error. The checks, their combination and
//! the key selection are branch-free ([`subtle`]).
//!
//! # Constant time and secrets
//!
//! Products, inverses (constant-time divsteps over GF(2) and GF(3), then Newton lifting), lift
//! and packings are the constant-time ring calls; the samplers are arithmetic and the sorting
//! network has a fixed sequence of branch-free compare-exchanges. Key generation has no
//! rejection loop (as in the reference). Secret polynomials and buffers are wiped after use.
//! Every public key, ciphertext and secret key of the right length is accepted (any bit
//! pattern decodes), so only wrong lengths are errors.
//!
//! ```
//! use latpoly::kem::{ntru::{NtruHps2048509, NtruHrss701}, Kem, OsRandom};
//!
//! let (pk, sk) = NtruHps2048509::keypair(&mut OsRandom)?;
//! let (ct, ss) = NtruHps2048509::encapsulate(&pk, &mut OsRandom)?;
//! assert_eq!(NtruHps2048509::decapsulate(&sk, &ct)?, ss);
//! let (pk, sk) = NtruHrss701::keypair(&mut OsRandom)?;
//! let (ct, ss) = NtruHrss701::encapsulate(&pk, &mut OsRandom)?;
//! assert_eq!(NtruHrss701::decapsulate(&sk, &ct)?, ss);
//! # Ok::<(), latpoly::Error>(())
//! ```

use super::sort::sort_u32;
use super::{Dyn, DynKem, RandomSource};
use crate::arith::ct::barrier;
use crate::error::Result;
use crate::rings::ntru::{self as ring, kem as fast, NtruParams};
use crate::secret::{with_scratch, Wiped};
use crate::vectorised::Vectorised;
use fast::Operand;
use subtle::{Choice, ConditionallySelectable};

/// Bytes of the shared secret and of the rejection key `prf`.
const KEY_BYTES: usize = 32;

/// Byte lengths of a parameter set.
#[derive(Clone, Copy)]
struct Sizes {
    /// `sample_iid` input: `n - 1`.
    iid: usize,
    /// `sample_fixed_type` input (HPS): `ceil(30 (n - 1) / 8)`.
    fixed: usize,
    /// Packed trinary polynomial: `ceil((n - 1) / 5)`.
    s3: usize,
    /// Packed `S_q` / `R_q` polynomial: `ceil((n - 1) log q / 8)`.
    sq: usize,
}

impl Sizes {
    const fn of(p: NtruParams) -> Sizes {
        Sizes {
            iid: p.n() - 1,
            fixed: (30 * (p.n() - 1)).div_ceil(8),
            s3: p.s3_bytes(),
            sq: p.sq_bytes(),
        }
    }

    /// Seed of key generation and of encapsulation (`SAMPLE_FG_BYTES = SAMPLE_RM_BYTES`).
    const fn seed(self, hrss: bool) -> usize {
        if hrss {
            2 * self.iid
        } else {
            self.iid + self.fixed
        }
    }

    /// Secret key of the one-way CPA scheme (without `prf`).
    const fn owcpa_sk(self) -> usize {
        2 * self.s3 + self.sq
    }
}

/// HPS weight of `m` and `g`: `q/8 - 2`.
const fn weight(p: NtruParams) -> usize {
    p.q() as usize / 8 - 2
}

// ----- sampling

/// `sample_iid`: `r[i] = bytes[i] mod 3` for `i < n - 1`, `r[n-1] = 0` (a multiply and a
/// shift, no division: [`crate::arith::ct::mod3_u16`]).
fn sample_iid(bytes: &[u8], r: &mut [u16]) {
    let n = r.len();
    for (x, &b) in r[..n - 1].iter_mut().zip(bytes) {
        *x = crate::arith::ct::mod3_u16(u16::from(b));
    }
    r[n - 1] = 0;
}

/// `sample_iid_plus` (HRSS): [`sample_iid`], then the even-index coefficients are negated
/// when `<x r, r>` is negative, branch-free, so that `<x r, r> >= 0`.
fn sample_iid_plus(bytes: &[u8], r: &mut [u16]) {
    sample_iid(bytes, r);
    let n = r.len();
    // {0, 1, 2} -> {0, 1, 2^16 - 1}; an opaque shift count, so that the known range of
    // `x >> 1` (0 or 1, from `sample_iid`) cannot turn the mask into a select
    let sh = crate::arith::ct::opaque_shift(1);
    for x in r[..n - 1].iter_mut() {
        *x |= x.wrapping_shr(sh).wrapping_neg();
    }
    let mut s = 0u16;
    for i in 0..n - 1 {
        s = s.wrapping_add(r[i + 1].wrapping_mul(r[i]));
    }
    // sign of s: 1 if s >= 0 (as i16), else 2^16 - 1
    let s = 1 | barrier(u32::from(s >> 15)).wrapping_neg() as u16;
    for x in r.iter_mut().step_by(2) {
        *x = x.wrapping_mul(s);
    }
    // {0, 1, 2^16 - 1} -> {0, 1, 2}
    for x in r.iter_mut() {
        *x = 3 & (*x ^ (*x >> 15));
    }
}

/// The largest `n` of the parameter sets: it sizes [`sample_fixed_type`]'s stack buffer.
const MAX_N: usize = {
    let (mut m, mut i) = (0, 0);
    while i < NtruParams::ALL.len() {
        if NtruParams::ALL[i].n() > m {
            m = NtruParams::ALL[i].n();
        }
        i += 1;
    }
    m
};

/// `sample_fixed_type` (HPS): exactly `w/2` coefficients `1`, `w/2` equal to `2` (`-1`), the
/// others 0, `r[n-1] = 0`. Word `i` takes bits `30i .. 30i + 29` of `u` (little-endian) into
/// bits 2..31; the first `w/2` words are tagged `1`, the next `w/2` tagged `2`, the `n - 1`
/// words are sorted as signed 32-bit integers and their tags read off in order.
fn sample_fixed_type(u: &[u8], w: usize, r: &mut [u16]) {
    // Sorting the words as signed integers is sorting them as unsigned ones with the sign bit
    // flipped; the flip leaves the tags (bits 0-1) alone, so it is never undone.
    const SIGN: u32 = 0x8000_0000;
    let n = r.len();
    // on the stack (a heap buffer was an allocation per sample), wiped on drop
    let mut words = Wiped::new([0u32; MAX_N - 1]);
    let s = &mut words[..n - 1];
    // Four words take 120 bits: 15 bytes, read as two overlapping little-endian words (bytes
    // 0..8 hold bits 0..63, bytes 7..15 bits 56..119).
    // (n - 1 = 508, 676, 820: whole groups of four, and `u` has exactly 15 bytes per group)
    const M: u64 = 0x3fff_ffff;
    debug_assert!((n - 1).is_multiple_of(4) && u.len() == 15 * (n - 1) / 4);
    for (quad, b) in s.chunks_exact_mut(4).zip(u.chunks_exact(15)) {
        let lo = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
        let hi = u64::from_le_bytes(b[7..].try_into().expect("8 bytes"));
        let words = [lo, lo >> 30, hi >> 4, hi >> 34];
        for (x, w) in quad.iter_mut().zip(words) {
            *x = (((w & M) as u32) << 2) ^ SIGN;
        }
    }
    for x in &mut s[..w / 2] {
        *x |= 1;
    }
    for x in &mut s[w / 2..w] {
        *x |= 2;
    }
    sort_u32(s);
    for (y, &x) in r.iter_mut().zip(s.iter()) {
        *y = (x & 3) as u16;
    }
    r[n - 1] = 0;
}

/// `sample_fg` / `sample_rm`: the two polynomials drawn from one seed. HPS: `sample_iid`, then
/// `sample_fixed_type`; HRSS: twice `sample_iid_plus` (`f`, `g`) or twice `sample_iid` (`r`, `m`).
fn sample_pair(p: NtruParams, seed: &[u8], plus: bool, a: &mut [u16], b: &mut [u16]) {
    let z = Sizes::of(p);
    let (first, rest) = seed.split_at(z.iid);
    if p.is_hrss() {
        if plus {
            sample_iid_plus(first, a);
            sample_iid_plus(&rest[..z.iid], b);
        } else {
            sample_iid(first, a);
            sample_iid(&rest[..z.iid], b);
        }
    } else {
        sample_iid(first, a);
        sample_fixed_type(&rest[..z.fixed], weight(p), b);
    }
}

// ----- the KEM

fn sha3_256(parts: &[&[u8]]) -> Wiped<[u8; KEY_BYTES]> {
    Wiped::new(crate::keccak::sha3_256(parts))
}

fn keypair(p: NtruParams, rng: &mut dyn RandomSource) -> Result<(Vec<u8>, Wiped<Vec<u8>>)> {
    let _wipe = fast::WorkspaceWipe;
    let z = Sizes::of(p);
    let n = p.n();
    let slot = fast::Prepared::slot_len(p);
    let inv_len = fast::rq_inv_scratch_len(p);
    // the thread's wiped scratch: six polynomials (h is public, the others secret), three
    // prepared operands, the inverse's scratch and the seed
    let words = 6 * n + 3 * slot + inv_len;
    with_scratch(words, z.seed(p.is_hrss()), |w: &mut [u16], seed| {
        let (f, w) = w.split_at_mut(n);
        let (g, w) = w.split_at_mut(n);
        let (t, w) = w.split_at_mut(n);
        let (gf, w) = w.split_at_mut(n);
        let (inv_gf, w) = w.split_at_mut(n);
        let (h, w) = w.split_at_mut(n);
        let (slots, inv_scratch) = w.split_at_mut(3 * slot);
        rng.fill(seed);
        sample_pair(p, seed, true, f, g);

        let mut sk = Wiped::new(vec![0u8; z.owcpa_sk() + KEY_BYTES]);
        ring::poly_s3_inv(f, p, t)?;
        ring::poly_s3_tobytes(f, p, &mut sk[..z.s3])?;
        ring::poly_s3_tobytes(t, p, &mut sk[z.s3..2 * z.s3])?;

        ring::poly_z3_to_zq(f, p)?;
        ring::poly_z3_to_zq(g, p)?;
        // g' = 3g (HPS) or 3(x - 1)g (HRSS; g[n-1] = 0), computed mod 2^16
        if p.is_hrss() {
            for i in (1..n).rev() {
                g[i] = g[i - 1].wrapping_sub(g[i]).wrapping_mul(3);
            }
            g[0] = g[0].wrapping_mul(3).wrapping_neg();
        } else {
            g.iter_mut().for_each(|x| *x = x.wrapping_mul(3));
        }

        // f, g' and G = (g' f)^-1 are each multiplied more than once: prepared once
        let mut ops = fast::Prepared::new(p, slots);
        ops.set(0, f);
        ops.set(1, g);
        fast::rq_mul_ops(p, ops.get(1), ops.get(0), gf);
        fast::rq_inv(p, gf, inv_gf, inv_scratch);
        ops.set(2, inv_gf);
        // h^-1 = G f^2 in S_q (secret key)
        fast::rq_mul_ops(p, ops.get(2), ops.get(0), t);
        fast::sq_mul_ops(p, Operand::Coeffs(t), ops.get(0), gf);
        ring::poly_sq_tobytes(gf, p, &mut sk[2 * z.s3..z.owcpa_sk()])?;
        // h = G g'^2 in R_q (public key)
        fast::rq_mul_ops(p, ops.get(2), ops.get(1), t);
        fast::rq_mul_ops(p, Operand::Coeffs(t), ops.get(1), h);
        let mut pk = vec![0u8; z.sq];
        ring::poly_rq_sum_zero_tobytes(h, p, &mut pk)?;

        rng.fill(&mut sk[z.owcpa_sk()..]);
        Ok((pk, sk))
    })
}

fn encapsulate(
    p: NtruParams,
    pk: &[u8],
    rng: &mut dyn RandomSource,
) -> Result<(Vec<u8>, Wiped<[u8; KEY_BYTES]>)> {
    let _wipe = fast::WorkspaceWipe;
    let z = Sizes::of(p);
    let n = p.n();
    let seed_len = z.seed(p.is_hrss());
    // the thread's wiped scratch: five polynomials (h is public, the others secret), the seed
    // and the packed r ‖ m
    with_scratch(5 * n, seed_len + 2 * z.s3, |polys: &mut [u16], bytes| {
        let (seed, rm) = bytes.split_at_mut(seed_len);
        rng.fill(seed);
        let (r, rest) = polys.split_at_mut(n);
        let (m, rest) = rest.split_at_mut(n);
        let (h, rest) = rest.split_at_mut(n);
        let (c, lift) = rest.split_at_mut(n);
        sample_pair(p, seed, false, r, m);

        ring::poly_s3_tobytes(r, p, &mut rm[..z.s3])?;
        ring::poly_s3_tobytes(m, p, &mut rm[z.s3..])?;
        let k = sha3_256(&[rm]);

        ring::poly_z3_to_zq(r, p)?;
        ring::poly_rq_sum_zero_frombytes(pk, p, h)?;
        fast::rq_mul(p, r, h, c);
        ring::poly_lift(m, p, lift)?;
        for (x, &l) in c.iter_mut().zip(lift.iter()) {
            *x = x.wrapping_add(l);
        }
        let mut ct = vec![0u8; z.sq];
        ring::poly_rq_sum_zero_tobytes(c, p, &mut ct)?;
        Ok((ct, k))
    })
}

/// 1 iff `t != 0`, without a branch.
#[inline(always)]
fn nonzero(t: u64) -> u8 {
    (barrier(t.wrapping_neg() | t) >> 63) as u8
}

/// HPS message-space check: 1 unless `m` has exactly `w/2` coefficients 1 and `w/2` equal to 2.
#[inline(always)]
fn check_m(m: &[u16], w: usize) -> u8 {
    let (mut p1, mut m1) = (0u16, 0u16);
    for &x in m {
        p1 = p1.wrapping_add(x & 1);
        m1 = m1.wrapping_add((x & 2) >> 1);
    }
    let t = (p1 ^ m1) | (p1.wrapping_add(m1) ^ w as u16);
    nonzero(u64::from(t))
}

/// 1 unless every coefficient of `r` (mod `q`) is in `{0, 1, q - 1}` and `r[n-1] = 0`.
#[inline(always)]
fn check_r(r: &[u16], q: u16) -> u8 {
    // accumulated in 16 bits, so the loop is a plain vector reduction
    let mut t = 0u16;
    for &x in r {
        let c = x.wrapping_add(1) & (q - 1);
        t |= c & (q - 4); // 0 iff c in {0, 1, 2, 3}
        t |= c.wrapping_add(1) & 4; // 0 iff c in {0, 1, 2}
    }
    t |= r[r.len() - 1] & (q - 1);
    nonzero(u64::from(t))
}

fn decapsulate(p: NtruParams, sk: &[u8], ct: &[u8]) -> Result<Wiped<[u8; KEY_BYTES]>> {
    let _wipe = fast::WorkspaceWipe;
    let z = Sizes::of(p);
    let n = p.n();
    // unused high bits of the last ciphertext byte must be zero
    let used = (p.log_q() as usize * (n - 1)) % 8;
    let unused_mask = if used == 0 { 0 } else { 0xffu8 << used };
    let fail = nonzero(u64::from(ct[z.sq - 1] & unused_mask));

    // the thread's wiped scratch: seven polynomials (c is public, the others secret) and the
    // packed r ‖ m
    with_scratch(7 * n, 2 * z.s3, |polys: &mut [u16], rm| {
        fast::vectorised(Decaps {
            p,
            sk,
            ct,
            polys,
            rm,
            fail,
        })
    })
}

/// [`decapsulate_in`]'s arguments, run by [`fast::vectorised`]: compiled with the backend's
/// vector features, the element-wise steps between the products (`Rq_to_S3`, the reductions
/// mod `Phi_n`, the lift, `c - Lift(m)`, the checks of `m` and `r`) run on its registers, not
/// on the baseline's SSE2 (`perf`, AMD Zen 4: 4.6% of an ntruhps4096821 decapsulation, which
/// became 1.5-2% faster).
struct Decaps<'a> {
    p: NtruParams,
    sk: &'a [u8],
    ct: &'a [u8],
    polys: &'a mut [u16],
    rm: &'a mut [u8],
    fail: u8,
}

impl Vectorised for Decaps<'_> {
    type Out = Result<Wiped<[u8; KEY_BYTES]>>;
    #[inline(always)]
    fn run(self) -> Self::Out {
        decapsulate_in(self.p, self.sk, self.ct, self.polys, self.rm, self.fail)
    }
}

/// [`decapsulate`] in the scratch `polys` (`7n` words) and `rm` (`2 s3` bytes), `fail` the
/// ciphertext's padding check.
#[inline(always)]
fn decapsulate_in(
    p: NtruParams,
    sk: &[u8],
    ct: &[u8],
    polys: &mut [u16],
    rm: &mut [u8],
    mut fail: u8,
) -> Result<Wiped<[u8; KEY_BYTES]>> {
    let z = Sizes::of(p);
    let n = p.n();
    let (c, rest) = polys.split_at_mut(n);
    let (f, rest) = rest.split_at_mut(n);
    let (t, rest) = rest.split_at_mut(n);
    let (mf, rest) = rest.split_at_mut(n);
    let (m, rest) = rest.split_at_mut(n);
    let (b, r) = rest.split_at_mut(n);
    ring::poly_rq_sum_zero_frombytes(ct, p, c)?;
    ring::poly_s3_frombytes(&sk[..z.s3], p, f)?;
    ring::poly_z3_to_zq(f, p)?;
    fast::rq_mul(p, c, f, t);
    ring::poly_rq_to_s3(t, p, mf)?;
    ring::poly_s3_frombytes(&sk[z.s3..2 * z.s3], p, f)?;
    fast::s3_mul(p, mf, f, m);

    ring::poly_s3_tobytes(m, p, &mut rm[z.s3..])?;
    if !p.is_hrss() {
        fail |= check_m(m, weight(p));
    }

    // r = (c - Lift(m)) / h mod (q, Phi_n)
    ring::poly_lift(m, p, t)?;
    for ((y, &x), &l) in b.iter_mut().zip(c.iter()).zip(t.iter()) {
        *y = x.wrapping_sub(l);
    }
    ring::poly_sq_frombytes(&sk[2 * z.s3..z.owcpa_sk()], p, f)?;
    fast::sq_mul(p, b, f, r);
    fail |= check_r(r, p.q());
    ring::poly_trinary_zq_to_z3(r, p)?;
    ring::poly_s3_tobytes(r, p, &mut rm[..z.s3])?;

    // the session-key input and the rejection key, hashed side by side (one paired permutation
    // per block while both have blocks left)
    let (k, reject) = crate::keccak::sha3_256_x2(&[&*rm], &[&sk[z.owcpa_sk()..], ct]);
    let (mut k, reject) = (Wiped::new(k), Wiped::new(reject));
    let fail = Choice::from(fail);
    for (x, &y) in k.iter_mut().zip(reject.iter()) {
        x.conditional_assign(&y, fail);
    }
    Ok(k)
}

macro_rules! ntru_kem {
    ($name:ident, $params:expr, $doc:literal) => {
        #[doc = $doc]
        ///
        /// ```
        /// use latpoly::kem::{Kem, OsRandom};
        #[doc = concat!("use latpoly::kem::ntru::", stringify!($name), " as K;")]
        ///
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

        impl $name {
            /// The ring parameter set.
            pub const PARAMS: NtruParams = $params;
        }

        kem_impl!(
            $name,
            $params.name(),
            (
                Sizes::of($params).sq,
                Sizes::of($params).owcpa_sk() + KEY_BYTES,
                Sizes::of($params).sq,
                KEY_BYTES
            ),
            keypair: |rng| keypair($params, rng),
            encapsulate: |pk, rng| encapsulate($params, pk, rng),
            decapsulate: |sk, ct| decapsulate($params, sk, ct),
            rejection: "Implicit rejection: an invalid ciphertext gives `Ok` with a pseudorandom key.",
        );
    };
}

ntru_kem!(
    NtruHps2048509,
    NtruParams::Hps2048509,
    "ntruhps2048509 (NTRU-HPS, `n = 509`, `q = 2048`; NIST security category 1)."
);
ntru_kem!(
    NtruHps2048677,
    NtruParams::Hps2048677,
    "ntruhps2048677 (NTRU-HPS, `n = 677`, `q = 2048`; NIST security category 3)."
);
ntru_kem!(
    NtruHps4096821,
    NtruParams::Hps4096821,
    "ntruhps4096821 (NTRU-HPS, `n = 821`, `q = 4096`; NIST security category 5)."
);
ntru_kem!(
    NtruHrss701,
    NtruParams::Hrss701,
    "ntruhrss701 (NTRU-HRSS, `n = 701`, `q = 8192`; NIST security category 3)."
);

/// The four NTRU KEMs as [`DynKem`] objects.
///
/// ```
/// use latpoly::kem::ntru::NTRU;
/// let names: Vec<&str> = NTRU.iter().map(|k| k.name()).collect();
/// assert_eq!(names, ["ntruhps2048509", "ntruhps2048677", "ntruhps4096821", "ntruhrss701"]);
/// assert_eq!(NTRU[0].sizes(), (699, 935, 699, 32));
/// ```
pub const NTRU: [&dyn DynKem; 4] = [
    &Dyn::<NtruHps2048509>::new(),
    &Dyn::<NtruHps2048677>::new(),
    &Dyn::<NtruHps4096821>::new(),
    &Dyn::<NtruHrss701>::new(),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The products reuse a per-thread workspace; every KEM operation leaves it zeroed.
    #[test]
    fn kem_operations_leave_the_product_workspace_zeroed() {
        use crate::kem::{Kem, OsRandom};
        use crate::rings::ntru::workspace_is_clear;
        /// A product outside a KEM operation, so that each operation has something to wipe;
        /// whether it left values in the workspace (every multiplier but the scalar
        /// reference uses it).
        fn dirty(n: usize) -> bool {
            let a: Vec<u16> = (0..n as u16).map(|i| i.wrapping_mul(40503)).collect();
            let mut out = vec![0u16; n];
            ring::poly_rq_mul(&a, &a, &mut out).unwrap();
            !workspace_is_clear()
        }
        fn run<K: Kem>(n: usize) {
            let vector = dirty(n);
            assert_eq!(
                vector,
                ring::rq_mul_isa() != crate::Isa::Scalar,
                "{}",
                K::NAME
            );
            let (pk, sk) = K::keypair(&mut OsRandom).unwrap();
            assert!(workspace_is_clear(), "{}", K::NAME);
            assert_eq!(dirty(n), vector);
            let (ct, ss) = K::encapsulate(&pk, &mut OsRandom).unwrap();
            assert!(workspace_is_clear(), "{}", K::NAME);
            assert_eq!(dirty(n), vector);
            assert!(K::decapsulate(&sk, &ct).unwrap() == ss, "{}", K::NAME);
            assert!(workspace_is_clear(), "{}", K::NAME);
        }
        run::<NtruHps2048509>(509);
        run::<NtruHps2048677>(677);
        run::<NtruHps4096821>(821);
        run::<NtruHrss701>(701);
    }

    #[test]
    fn sizes_match_params_md() {
        let want = [
            (699, 935, 699, 2413, 2413),
            (930, 1234, 930, 3211, 3211),
            (1230, 1590, 1230, 3895, 3895),
            (1138, 1450, 1138, 1400, 1400),
        ];
        for (p, w) in NtruParams::ALL.into_iter().zip(want) {
            let z = Sizes::of(p);
            let seed = z.seed(p.is_hrss());
            assert_eq!((z.sq, z.owcpa_sk() + 32, z.sq, seed, seed), w, "{p:?}");
        }
    }

    #[test]
    fn byte_mod_3_is_exact() {
        let bytes: Vec<u8> = (0..=255).collect();
        let mut r = vec![0u16; 257];
        sample_iid(&bytes, &mut r);
        for (i, &x) in r[..256].iter().enumerate() {
            assert_eq!(x, (i % 3) as u16);
        }
        assert_eq!(r[256], 0);
    }

    /// `sample_fixed_type` against a direct bit-level reading of the description.
    #[test]
    fn fixed_type_has_weight_and_matches_bit_description() {
        for p in [NtruParams::Hps2048509, NtruParams::Hps4096821] {
            let z = Sizes::of(p);
            let u: Vec<u8> = (0..z.fixed)
                .map(|i| (i as u32).wrapping_mul(0x9e37_79b9).rotate_left(7) as u8)
                .collect();
            let mut r = vec![0u16; p.n()];
            sample_fixed_type(&u, weight(p), &mut r);
            let ones = r.iter().filter(|&&x| x == 1).count();
            let twos = r.iter().filter(|&&x| x == 2).count();
            assert_eq!((ones, twos), (weight(p) / 2, weight(p) / 2));
            assert_eq!(r[p.n() - 1], 0);
            // independent model: bit j of word i is bit 30i + j of u
            let bit = |k: usize| (u[k / 8] >> (k % 8)) & 1;
            let mut words: Vec<(i32, u16)> = (0..p.n() - 1)
                .map(|i| {
                    let v = (0..30).fold(0u32, |acc, j| acc | u32::from(bit(30 * i + j)) << j);
                    let tag = if i < weight(p) / 2 {
                        1
                    } else if i < weight(p) {
                        2
                    } else {
                        0
                    };
                    (((v << 2) | tag) as i32, tag as u16)
                })
                .collect();
            words.sort_by_key(|&(v, _)| v);
            let model: Vec<u16> = words.iter().map(|&(_, t)| t).collect();
            assert_eq!(&r[..p.n() - 1], &model[..]);
        }
    }

    #[test]
    fn iid_plus_has_nonnegative_correlation() {
        let p = NtruParams::Hrss701;
        for seed in 0..20u32 {
            let bytes: Vec<u8> = (0..700u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) ^ seed.wrapping_mul(0x85eb_ca6b)) as u8)
                .collect();
            let mut r = vec![0u16; p.n()];
            sample_iid_plus(&bytes, &mut r);
            let c: Vec<i64> = r.iter().map(|&x| [0, 1, -1][x as usize]).collect();
            let s: i64 = (0..p.n() - 1).map(|i| c[i] * c[i + 1]).sum();
            assert!(s >= 0, "seed {seed}: <xr, r> = {s}");
            assert!(r.iter().all(|&x| x <= 2));
        }
    }

    #[test]
    fn checks() {
        let p = NtruParams::Hps2048509;
        let mut m = vec![0u16; p.n()];
        for (i, x) in m.iter_mut().enumerate().take(254) {
            *x = 1 + (i % 2) as u16;
        }
        assert_eq!(check_m(&m, 254), 0);
        m[0] = 0;
        assert_eq!(check_m(&m, 254), 1);
        let mut r = vec![0u16; p.n()];
        r[0] = 1;
        r[1] = 2047;
        r[2] = 0xffff; // -1 mod 2^16 is q - 1 mod q
        assert_eq!(check_r(&r, 2048), 0);
        r[3] = 2;
        assert_eq!(check_r(&r, 2048), 1);
        r[3] = 0;
        r[p.n() - 1] = 2048; // 0 mod q
        assert_eq!(check_r(&r, 2048), 0);
        r[p.n() - 1] = 1;
        assert_eq!(check_r(&r, 2048), 1);
        assert_eq!((nonzero(0), nonzero(1), nonzero(u64::MAX)), (0, 1, 1));
    }
}
