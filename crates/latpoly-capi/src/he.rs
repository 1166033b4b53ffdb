//! The C ABI of the samplers and the schemes: `latpoly_sampler` (seedable, constant-time
//! samplers), `latpoly_bfv` (the FV/BFV scheme on RNS contexts) and `latpoly_lpr` (LPR RLWE
//! encryption), with the conventions of the crate root: every call returns a
//! [`latpoly_status`], handles carry a type tag, panics are caught at the boundary.

use crate::{
    copied, copy_out, free_tagged, guard, handle, handle_mut, latpoly_rns_context,
    latpoly_rns_poly, latpoly_status, lift, put, put_poly, slice, slice_mut, write, TAG_CTX,
    TAG_POLY,
};
use latpoly::he::bfv::{
    Bfv, BfvCiphertext, BfvGaloisKeys, BfvKeys, BfvParams, BfvPublicKey, BfvRelinKey, BfvSecretKey,
};
use latpoly::he::lpr::{Lpr, LprParams, LprPublicKey, LprSecretKey};
use latpoly::rns::RnsPoly;
use latpoly::sampling::Sampler;
use zeroize::Zeroizing;

const TAG_SAMPLER: u64 = 0x6c70_7361_6d70_6c72; // "lpsamplr"
const TAG_BFV: u64 = 0x6c70_6266_7663_7478; // "lpbfvctx"
const TAG_BFV_KEYS: u64 = 0x6c70_6266_766b_6579; // "lpbfvkey"
const TAG_BFV_CT: u64 = 0x6c70_6266_7663_7478 ^ 0xff; // "lpbfvctx" with its last byte flipped
const TAG_LPR: u64 = 0x6c70_6c70_7263_7478; // "lplprctx"
const TAG_LPR_PK: u64 = 0x6c70_6c70_7270_6b5f; // "lplprpk_"
const TAG_LPR_SK: u64 = 0x6c70_6c70_7273_6b5f; // "lplprsk_"

/// cbindgen:ignore
#[repr(C)]
pub struct latpoly_sampler {
    tag: u64,
    s: Sampler,
}

/// cbindgen:ignore
#[repr(C)]
pub struct latpoly_bfv {
    tag: u64,
    bfv: Bfv,
}

/// cbindgen:ignore
#[repr(C)]
pub struct latpoly_bfv_keys {
    tag: u64,
    secret: Option<BfvSecretKey>,
    public: Option<BfvPublicKey>,
    relin: Option<BfvRelinKey>,
    galois: Option<BfvGaloisKeys>,
}

impl From<BfvKeys> for latpoly_bfv_keys {
    /// The set of secret, public and relinearization keys that key generation makes.
    fn from(k: BfvKeys) -> Self {
        latpoly_bfv_keys {
            tag: TAG_BFV_KEYS,
            secret: Some(k.secret),
            public: Some(k.public),
            relin: Some(k.relin),
            galois: None,
        }
    }
}

impl latpoly_bfv_keys {
    /// A key the set lacks is `LATPOLY_STATUS_INVALID_PARAMETER`.
    fn secret(&self) -> Result<&BfvSecretKey, latpoly_status> {
        self.secret.as_ref().ok_or(latpoly_status::InvalidParameter)
    }

    fn public(&self) -> Result<&BfvPublicKey, latpoly_status> {
        self.public.as_ref().ok_or(latpoly_status::InvalidParameter)
    }

    fn relin(&self) -> Result<&BfvRelinKey, latpoly_status> {
        self.relin.as_ref().ok_or(latpoly_status::InvalidParameter)
    }

    fn galois(&self) -> Result<&BfvGaloisKeys, latpoly_status> {
        self.galois.as_ref().ok_or(latpoly_status::InvalidParameter)
    }
}

/// cbindgen:ignore
#[repr(C)]
pub struct latpoly_bfv_ciphertext {
    tag: u64,
    ct: BfvCiphertext,
}

/// cbindgen:ignore
#[repr(C)]
pub struct latpoly_lpr {
    tag: u64,
    lpr: Lpr,
}

/// cbindgen:ignore
#[repr(C)]
pub struct latpoly_lpr_public_key {
    tag: u64,
    pk: LprPublicKey,
}

/// cbindgen:ignore
#[repr(C)]
pub struct latpoly_lpr_secret_key {
    tag: u64,
    sk: LprSecretKey,
}

// ----- samplers

/// Creates a sampler: ChaCha20 seeded with the 32 bytes at `seed`, or from the operating
/// system's random source when `seed` is NULL. Samplers are deterministic for a given seed
/// (the same calls give the same values on every machine and backend) and constant time.
///
/// # Safety
/// `seed` NULL or valid for 32 reads; `out` valid for one pointer write; free the result with
/// [`latpoly_sampler_free`].
#[no_mangle]
pub unsafe extern "C" fn latpoly_sampler_new(
    seed: *const u8,
    out: *mut *mut latpoly_sampler,
) -> latpoly_status {
    guard(|| {
        let s = if seed.is_null() {
            Sampler::new()
        } else {
            // SAFETY: contract of this function.
            let bytes = unsafe { slice(seed, 32)? };
            Sampler::from_seed(bytes.try_into().expect("32 bytes"))
        };
        // SAFETY: contract of this function.
        unsafe {
            put(
                out,
                latpoly_sampler {
                    tag: TAG_SAMPLER,
                    s,
                },
            )
        }
    })
}

/// Releases a sampler (NULL is ignored); its state is wiped.
///
/// # Safety
/// `sampler` must be NULL or a sampler from [`latpoly_sampler_new`] not freed before.
#[no_mangle]
pub unsafe extern "C" fn latpoly_sampler_free(sampler: *mut latpoly_sampler) {
    // SAFETY: contract of this function.
    unsafe { free_tagged(sampler, TAG_SAMPLER) }
}

/// Runs `f` on the sampler and the caller's output buffer of `n` elements, which it fills in
/// place: no allocation (so no size the allocator refuses, and no copy of secret samples left
/// behind in freed memory).
///
/// # Safety
/// `sampler` NULL or live and not used concurrently; `out` NULL or valid for `n` writes.
unsafe fn fill<T: Copy>(
    sampler: *mut latpoly_sampler,
    out: *mut T,
    n: usize,
    f: impl FnOnce(&mut Sampler, &mut [T]) -> latpoly::Result<()>,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (s, o) = unsafe { (handle_mut(sampler, TAG_SAMPLER)?, slice_mut(out, n)?) };
        lift(f(&mut s.s, o))
    })
}

/// `n` values uniform in `[0, q)` (`q >= 1`).
///
/// # Safety
/// `sampler` NULL or live, not used concurrently; `out` valid for `n` writes.
#[no_mangle]
pub unsafe extern "C" fn latpoly_sampler_uniform(
    sampler: *mut latpoly_sampler,
    q: u64,
    out: *mut u64,
    n: usize,
) -> latpoly_status {
    // SAFETY: forwarded contract.
    unsafe { fill(sampler, out, n, |s, o| s.fill_uniform(o, q)) }
}

/// `n` values uniform in `[-bound, bound]`.
///
/// # Safety
/// As [`latpoly_sampler_uniform`].
#[no_mangle]
pub unsafe extern "C" fn latpoly_sampler_bounded(
    sampler: *mut latpoly_sampler,
    bound: u64,
    out: *mut i64,
    n: usize,
) -> latpoly_status {
    // SAFETY: forwarded contract.
    unsafe { fill(sampler, out, n, |s, o| s.fill_bounded(o, bound)) }
}

/// `n` values of the centred binomial distribution `CBD_eta` (`1 <= eta <= 32`).
///
/// # Safety
/// As [`latpoly_sampler_uniform`].
#[no_mangle]
pub unsafe extern "C" fn latpoly_sampler_cbd(
    sampler: *mut latpoly_sampler,
    eta: u32,
    out: *mut i64,
    n: usize,
) -> latpoly_status {
    // SAFETY: forwarded contract.
    unsafe { fill(sampler, out, n, |s, o| s.fill_cbd(o, eta)) }
}

/// `n` values of the discrete Gaussian of standard deviation `sigma` (constant-time table
/// sampler; `sigma` positive and at most the library's table limit).
///
/// # Safety
/// As [`latpoly_sampler_uniform`].
#[no_mangle]
pub unsafe extern "C" fn latpoly_sampler_gaussian(
    sampler: *mut latpoly_sampler,
    sigma: f64,
    out: *mut i64,
    n: usize,
) -> latpoly_status {
    // SAFETY: forwarded contract.
    unsafe { fill(sampler, out, n, |s, o| s.fill_gaussian_sigma(o, sigma)) }
}

/// `n` values uniform in `{-1, 0, 1}`.
///
/// # Safety
/// As [`latpoly_sampler_uniform`].
#[no_mangle]
pub unsafe extern "C" fn latpoly_sampler_ternary(
    sampler: *mut latpoly_sampler,
    out: *mut i64,
    n: usize,
) -> latpoly_status {
    // SAFETY: forwarded contract.
    unsafe {
        fill(sampler, out, n, |s, o| {
            s.fill_ternary(o);
            Ok(())
        })
    }
}

/// `n` values in `{-1, 0, 1}` with exactly `weight` nonzero ones (`weight <= n`).
///
/// # Safety
/// As [`latpoly_sampler_uniform`].
#[no_mangle]
pub unsafe extern "C" fn latpoly_sampler_ternary_fixed(
    sampler: *mut latpoly_sampler,
    weight: usize,
    out: *mut i64,
    n: usize,
) -> latpoly_status {
    // SAFETY: forwarded contract.
    unsafe { fill(sampler, out, n, |s, o| s.fill_ternary_fixed(o, weight)) }
}

// The distributions of [`latpoly_sampler_poly`] (plain integer constants rather than a C enum:
// an out-of-range value from C is then an error, not undefined behaviour).
/// Uniform mod `Q`, coefficient form (`param` ignored).
pub const LATPOLY_DISTRIBUTION_UNIFORM: u32 = 0;
/// Uniform mod `Q`, drawn directly in NTT form (`param` ignored).
pub const LATPOLY_DISTRIBUTION_UNIFORM_NTT: u32 = 1;
/// Uniform in `{-1, 0, 1}` (`param` ignored).
pub const LATPOLY_DISTRIBUTION_TERNARY: u32 = 2;
/// `{-1, 0, 1}` with exactly `param` nonzero coefficients.
pub const LATPOLY_DISTRIBUTION_TERNARY_FIXED: u32 = 3;
/// Discrete Gaussian of standard deviation `param`.
pub const LATPOLY_DISTRIBUTION_GAUSSIAN: u32 = 4;
/// Centred binomial `CBD_eta`, `eta = param`.
pub const LATPOLY_DISTRIBUTION_CBD: u32 = 5;
/// Uniform in `[-param, param]`.
pub const LATPOLY_DISTRIBUTION_BOUNDED: u32 = 6;

/// `param` as a whole number (`LATPOLY_STATUS_INVALID_PARAMETER` if it is not one).
fn whole(param: f64) -> Result<u64, latpoly_status> {
    if param >= 0.0 && param.fract() == 0.0 && param < 2f64.powi(63) {
        Ok(param as u64)
    } else {
        Err(latpoly_status::InvalidParameter)
    }
}

/// A new polynomial of the context `ctx` with coefficients from distribution `kind` (one of
/// the `LATPOLY_DISTRIBUTION_*` constants; another value gives
/// `LATPOLY_STATUS_INVALID_PARAMETER`), parameter `param` the weight, `sigma`, `eta` or bound
/// (whole numbers where the distribution counts), in coefficient form except for
/// `LATPOLY_DISTRIBUTION_UNIFORM_NTT`.
///
/// # Safety
/// `sampler` NULL or live, not used concurrently; `ctx` NULL or live; `out` valid for one
/// pointer write; free the result with `latpoly_rns_poly_free`.
#[no_mangle]
pub unsafe extern "C" fn latpoly_sampler_poly(
    sampler: *mut latpoly_sampler,
    ctx: *const latpoly_rns_context,
    kind: u32,
    param: f64,
    out: *mut *mut latpoly_rns_poly,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (s, c) = unsafe { (handle_mut(sampler, TAG_SAMPLER)?, handle(ctx, TAG_CTX)?) };
        let (s, ctx) = (&mut s.s, &c.ctx);
        let poly = match kind {
            LATPOLY_DISTRIBUTION_UNIFORM => s.uniform_poly(ctx),
            LATPOLY_DISTRIBUTION_UNIFORM_NTT => s.uniform_poly_ntt(ctx),
            LATPOLY_DISTRIBUTION_TERNARY => s.ternary_poly(ctx),
            LATPOLY_DISTRIBUTION_TERNARY_FIXED => {
                let w =
                    usize::try_from(whole(param)?).map_err(|_| latpoly_status::InvalidParameter)?;
                lift(s.ternary_fixed_poly(ctx, w))?
            }
            LATPOLY_DISTRIBUTION_GAUSSIAN => lift(s.gaussian_poly(ctx, param))?,
            LATPOLY_DISTRIBUTION_CBD => {
                let eta =
                    u32::try_from(whole(param)?).map_err(|_| latpoly_status::InvalidParameter)?;
                lift(s.cbd_poly(ctx, eta))?
            }
            LATPOLY_DISTRIBUTION_BOUNDED => lift(s.bounded_poly(ctx, whole(param)?))?,
            _ => return Err(latpoly_status::InvalidParameter),
        };
        // SAFETY: contract of this function.
        unsafe { put_poly(out, poly) }
    })
}

// ----- BFV

/// Creates a BFV instance: degree `n` (a power of two), the `count` distinct NTT primes of
/// `Q` at `moduli` (below `2^62`, `1 mod 2n`; `latpoly_ntt_primes` finds them), plaintext
/// modulus `t` (at least 2, coprime to `Q`) and error standard deviation `sigma` (3.19 as in
/// SEAL and OpenFHE). Invalid parameters give `LATPOLY_STATUS_INVALID_PARAMETER`.
///
/// # Safety
/// `moduli` valid for `count` reads; `out` valid for one pointer write; free the result with
/// [`latpoly_bfv_free`].
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_new(
    n: usize,
    moduli: *const u64,
    count: usize,
    t: u64,
    sigma: f64,
    out: *mut *mut latpoly_bfv,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let moduli = unsafe { slice(moduli, count)? }.to_vec();
        let bfv = lift(Bfv::new(BfvParams {
            n,
            moduli,
            t,
            sigma,
        }))?;
        // SAFETY: contract of this function.
        unsafe { put(out, latpoly_bfv { tag: TAG_BFV, bfv }) }
    })
}

/// Releases a BFV instance (NULL is ignored). Keys and ciphertexts made with it stay valid
/// but can only be used with an instance of the same parameters.
///
/// # Safety
/// `bfv` must be NULL or an instance from [`latpoly_bfv_new`] not freed before.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_free(bfv: *mut latpoly_bfv) {
    // SAFETY: contract of this function.
    unsafe { free_tagged(bfv, TAG_BFV) }
}

/// A new handle of the instance's RNS context (the basis `Q` of its ciphertexts), for
/// `latpoly_rns_poly_*` calls on ciphertext parts; free it with `latpoly_rns_context_free`.
///
/// # Safety
/// `bfv` NULL or live; `out` valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_context(
    bfv: *const latpoly_bfv,
    out: *mut *mut latpoly_rns_context,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let b = unsafe { handle(bfv, TAG_BFV)? };
        let ctx = std::sync::Arc::clone(b.bfv.context());
        // SAFETY: contract of this function.
        unsafe { crate::put_context(out, ctx) }
    })
}

/// Generates a secret key, a public key and a relinearization key.
///
/// # Safety
/// `bfv` NULL or live; `sampler` NULL or live, not used concurrently; `out` valid for one
/// pointer write; free the result with [`latpoly_bfv_keys_free`] (which wipes the secret).
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_keygen(
    bfv: *const latpoly_bfv,
    sampler: *mut latpoly_sampler,
    out: *mut *mut latpoly_bfv_keys,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (b, s) = unsafe { (handle(bfv, TAG_BFV)?, handle_mut(sampler, TAG_SAMPLER)?) };
        let keys = lift(b.bfv.keygen(&mut s.s))?;
        // SAFETY: contract of this function.
        unsafe { put(out, latpoly_bfv_keys::from(keys)) }
    })
}

/// Releases a key set (NULL is ignored); the secret key is wiped.
///
/// # Safety
/// `keys` must be NULL or a key set from this library ([`latpoly_bfv_keygen`],
/// [`latpoly_bfv_keys_from_bytes`], [`latpoly_bfv_keys_with_galois`]) not freed before.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_keys_free(keys: *mut latpoly_bfv_keys) {
    // SAFETY: contract of this function.
    unsafe { free_tagged(keys, TAG_BFV_KEYS) }
}

/// Releases a ciphertext (NULL is ignored).
///
/// # Safety
/// `ct` must be NULL or a ciphertext from this library not freed before.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_ciphertext_free(ct: *mut latpoly_bfv_ciphertext) {
    // SAFETY: contract of this function.
    unsafe { free_tagged(ct, TAG_BFV_CT) }
}

/// # Safety
/// `out` NULL or valid for one pointer write.
unsafe fn put_ct(out: *mut *mut latpoly_bfv_ciphertext, ct: BfvCiphertext) -> crate::CResult {
    // SAFETY: forwarded contract.
    unsafe {
        put(
            out,
            latpoly_bfv_ciphertext {
                tag: TAG_BFV_CT,
                ct,
            },
        )
    }
}

/// An encryption `f(bfv, keys, m, sampler)` of the `len` coefficients at `m` into a new
/// ciphertext at `out`, through the C ABI.
///
/// # Safety
/// `bfv`, `keys` NULL or live; `sampler` NULL or live, not used concurrently; `m` valid for
/// `len` reads; `out` valid for one pointer write.
unsafe fn encrypt_with(
    bfv: *const latpoly_bfv,
    keys: *const latpoly_bfv_keys,
    sampler: *mut latpoly_sampler,
    m: *const u64,
    len: usize,
    out: *mut *mut latpoly_bfv_ciphertext,
    f: impl FnOnce(
        &Bfv,
        &latpoly_bfv_keys,
        &[u64],
        &mut Sampler,
    ) -> Result<BfvCiphertext, latpoly_status>,
) -> latpoly_status {
    guard(|| {
        // SAFETY: forwarded contract.
        let (b, k, s, m) = unsafe {
            (
                handle(bfv, TAG_BFV)?,
                handle(keys, TAG_BFV_KEYS)?,
                handle_mut(sampler, TAG_SAMPLER)?,
                slice(m, len)?,
            )
        };
        let ct = f(&b.bfv, k, m, &mut s.s)?;
        // SAFETY: forwarded contract.
        unsafe { put_ct(out, ct) }
    })
}

/// Encrypts the `len = n` plaintext coefficients at `m` (each below `t`) under the public key
/// of `keys`.
///
/// # Safety
/// `bfv`, `keys` NULL or live; `sampler` NULL or live, not used concurrently; `m` valid for
/// `len` reads; `out` valid for one pointer write (free with [`latpoly_bfv_ciphertext_free`]).
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_encrypt(
    bfv: *const latpoly_bfv,
    keys: *const latpoly_bfv_keys,
    sampler: *mut latpoly_sampler,
    m: *const u64,
    len: usize,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    // SAFETY: forwarded contract of this function.
    unsafe {
        encrypt_with(bfv, keys, sampler, m, len, out, |b, k, m, s| {
            lift(b.encrypt(k.public()?, m, s))
        })
    }
}

/// Encrypts the `len = n` plaintext coefficients at `m` (each below `t`) with the secret key
/// of `keys`: `(-(a s) + e + round(Q m / t), a)`, `a` uniform from a fresh seed. Less fresh
/// noise than [`latpoly_bfv_encrypt`]; the result computes like any ciphertext. A key set
/// without a secret key is `LATPOLY_STATUS_INVALID_PARAMETER`.
///
/// # Safety
/// `bfv`, `keys` NULL or live; `sampler` NULL or live, not used concurrently; `m` valid for
/// `len` reads; `out` valid for one pointer write (free with [`latpoly_bfv_ciphertext_free`]).
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_encrypt_symmetric(
    bfv: *const latpoly_bfv,
    keys: *const latpoly_bfv_keys,
    sampler: *mut latpoly_sampler,
    m: *const u64,
    len: usize,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    // SAFETY: forwarded contract of this function.
    unsafe {
        encrypt_with(bfv, keys, sampler, m, len, out, |b, k, m, s| {
            lift(b.encrypt_symmetric(k.secret()?, m, s))
        })
    }
}

/// The length in bytes of a seeded ciphertext of `bfv` (what
/// [`latpoly_bfv_encrypt_symmetric_to_bytes`] writes: an 8-byte header, the 32-byte seed of
/// `c_1` and `c_0`; about half a full ciphertext), to `*len`.
///
/// # Safety
/// `bfv` NULL or live; `len` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_seeded_ciphertext_len(
    bfv: *const latpoly_bfv,
    len: *mut usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let b = unsafe { handle(bfv, TAG_BFV)? };
        // SAFETY: contract of this function.
        unsafe { write(len, b.bfv.seeded_ciphertext_len()) }
    })
}

/// Secret-key encryption as [`latpoly_bfv_encrypt_symmetric`], written in compact form into
/// the `out_len` bytes at `out` (`out_len` must equal
/// [`latpoly_bfv_seeded_ciphertext_len`], checked before any work): `c_0` and the seed of
/// `c_1`, for sending. [`latpoly_bfv_ciphertext_from_seeded_bytes`] reads it back.
///
/// # Safety
/// `bfv`, `keys` NULL or live; `sampler` NULL or live, not used concurrently; `m` valid for
/// `len` reads; `out` valid for `out_len` writes, not overlapping `m`.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_encrypt_symmetric_to_bytes(
    bfv: *const latpoly_bfv,
    keys: *const latpoly_bfv_keys,
    sampler: *mut latpoly_sampler,
    m: *const u64,
    len: usize,
    out: *mut u8,
    out_len: usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (b, k, s) = unsafe {
            (
                handle(bfv, TAG_BFV)?,
                handle(keys, TAG_BFV_KEYS)?,
                handle_mut(sampler, TAG_SAMPLER)?,
            )
        };
        // the output is checked before any work (and any draw from the sampler)
        if out.is_null() {
            return Err(latpoly_status::NullPointer);
        }
        if out_len != b.bfv.seeded_ciphertext_len() {
            return Err(latpoly_status::LengthMismatch);
        }
        // SAFETY: contract of this function.
        let m = unsafe { slice(m, len)? };
        let ct = lift(b.bfv.encrypt_symmetric_seeded(k.secret()?, m, &mut s.s))?;
        // SAFETY: contract of this function (`out` does not overlap `m`).
        let o = unsafe { slice_mut(out, out_len)? };
        copy_out(o, &ct.to_bytes())
    })
}

/// Reads a seeded ciphertext of `bfv` from the `len` bytes at `data` (from
/// [`latpoly_bfv_encrypt_symmetric_to_bytes`]) and expands it to a full ciphertext (its `c_1`
/// regenerated from the seed): other parameters give `LATPOLY_STATUS_HANDLE_MISMATCH`,
/// malformed bytes (a full ciphertext's among them) `LATPOLY_STATUS_MALFORMED` (or
/// `LATPOLY_STATUS_OUT_OF_RANGE`).
///
/// # Safety
/// `bfv` NULL or live; `data` valid for `len` reads; `out` valid for one pointer write (free
/// with [`latpoly_bfv_ciphertext_free`]).
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_ciphertext_from_seeded_bytes(
    bfv: *const latpoly_bfv,
    data: *const u8,
    len: usize,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (b, d) = unsafe { (handle(bfv, TAG_BFV)?, slice(data, len)?) };
        let seeded = lift(b.bfv.seeded_ciphertext_from_bytes(d))?;
        let ct = lift(b.bfv.expand_seeded(&seeded))?;
        // SAFETY: contract of this function.
        unsafe { put_ct(out, ct) }
    })
}

/// Decrypts `ct` (2 or 3 parts) with the secret key of `keys` into the `len = n` values at
/// `m` (each below `t`).
///
/// # Safety
/// `bfv`, `keys`, `ct` NULL or live; `m` valid for `len` writes.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_decrypt(
    bfv: *const latpoly_bfv,
    keys: *const latpoly_bfv_keys,
    ct: *const latpoly_bfv_ciphertext,
    m: *mut u64,
    len: usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (b, k, c, m) = unsafe {
            (
                handle(bfv, TAG_BFV)?,
                handle(keys, TAG_BFV_KEYS)?,
                handle(ct, TAG_BFV_CT)?,
                slice_mut(m, len)?,
            )
        };
        if m.len() != b.bfv.params().n {
            return Err(latpoly_status::LengthMismatch);
        }
        m.copy_from_slice(&Zeroizing::new(lift(b.bfv.decrypt(k.secret()?, &c.ct))?));
        Ok(())
    })
}

/// The remaining noise budget of `ct` in bits (0: decryption may already fail), written to
/// `*bits`.
///
/// # Safety
/// `bfv`, `keys`, `ct` NULL or live; `bits` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_noise_budget(
    bfv: *const latpoly_bfv,
    keys: *const latpoly_bfv_keys,
    ct: *const latpoly_bfv_ciphertext,
    bits: *mut u32,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (b, k, c) = unsafe {
            (
                handle(bfv, TAG_BFV)?,
                handle(keys, TAG_BFV_KEYS)?,
                handle(ct, TAG_BFV_CT)?,
            )
        };
        if bits.is_null() {
            return Err(latpoly_status::NullPointer);
        }
        let v = lift(b.bfv.noise_budget(k.secret()?, &c.ct))?;
        // SAFETY: contract of this function.
        unsafe { write(bits, v) }
    })
}

/// A BFV operation on two ciphertexts into a new one.
///
/// # Safety
/// Handles NULL or live; `out` valid for one pointer write.
unsafe fn ct_binary(
    bfv: *const latpoly_bfv,
    a: *const latpoly_bfv_ciphertext,
    b: *const latpoly_bfv_ciphertext,
    out: *mut *mut latpoly_bfv_ciphertext,
    f: impl FnOnce(&Bfv, &BfvCiphertext, &BfvCiphertext) -> latpoly::Result<BfvCiphertext>,
) -> latpoly_status {
    guard(|| {
        // SAFETY: forwarded contract.
        let (h, x, y) = unsafe {
            (
                handle(bfv, TAG_BFV)?,
                handle(a, TAG_BFV_CT)?,
                handle(b, TAG_BFV_CT)?,
            )
        };
        let ct = lift(f(&h.bfv, &x.ct, &y.ct))?;
        // SAFETY: forwarded contract.
        unsafe { put_ct(out, ct) }
    })
}

/// A BFV operation on one ciphertext into a new one.
///
/// # Safety
/// Handles NULL or live; `out` valid for one pointer write.
unsafe fn ct_unary(
    bfv: *const latpoly_bfv,
    a: *const latpoly_bfv_ciphertext,
    out: *mut *mut latpoly_bfv_ciphertext,
    f: impl FnOnce(&Bfv, &BfvCiphertext) -> latpoly::Result<BfvCiphertext>,
) -> latpoly_status {
    guard(|| {
        // SAFETY: forwarded contract.
        let (h, x) = unsafe { (handle(bfv, TAG_BFV)?, handle(a, TAG_BFV_CT)?) };
        let ct = lift(f(&h.bfv, &x.ct))?;
        // SAFETY: forwarded contract.
        unsafe { put_ct(out, ct) }
    })
}

/// `*out = a + b` (plaintexts add mod `t`).
///
/// # Safety
/// `bfv`, `a`, `b` NULL or live; `out` valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_add(
    bfv: *const latpoly_bfv,
    a: *const latpoly_bfv_ciphertext,
    b: *const latpoly_bfv_ciphertext,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    // SAFETY: forwarded contract.
    unsafe { ct_binary(bfv, a, b, out, |h, x, y| h.add(x, y)) }
}

/// `*out = a - b`.
///
/// # Safety
/// As [`latpoly_bfv_add`].
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_sub(
    bfv: *const latpoly_bfv,
    a: *const latpoly_bfv_ciphertext,
    b: *const latpoly_bfv_ciphertext,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    // SAFETY: forwarded contract.
    unsafe { ct_binary(bfv, a, b, out, |h, x, y| h.sub(x, y)) }
}

/// `*out = a · b` without relinearization (3 parts; plaintexts multiply in
/// `Z_t[x]/(x^n + 1)`).
///
/// # Safety
/// As [`latpoly_bfv_add`].
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_multiply(
    bfv: *const latpoly_bfv,
    a: *const latpoly_bfv_ciphertext,
    b: *const latpoly_bfv_ciphertext,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    // SAFETY: forwarded contract.
    unsafe { ct_binary(bfv, a, b, out, |h, x, y| h.multiply(x, y)) }
}

/// `*out = a · b` relinearized with the relinearization key of `keys` (2 parts). Key
/// switching (with a special prime: any basis works) is refused with
/// `LATPOLY_STATUS_INVALID_PARAMETER` only where `Q` is too small against `t` for even its
/// rounding noise (as for the relinearization and Galois calls).
///
/// # Safety
/// `bfv`, `keys`, `a`, `b` NULL or live; `out` valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_multiply_relin(
    bfv: *const latpoly_bfv,
    keys: *const latpoly_bfv_keys,
    a: *const latpoly_bfv_ciphertext,
    b: *const latpoly_bfv_ciphertext,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (h, k, x, y) = unsafe {
            (
                handle(bfv, TAG_BFV)?,
                handle(keys, TAG_BFV_KEYS)?,
                handle(a, TAG_BFV_CT)?,
                handle(b, TAG_BFV_CT)?,
            )
        };
        let r = lift(h.bfv.multiply_relin(&x.ct, &y.ct, k.relin()?))?;
        // SAFETY: contract of this function.
        unsafe { put_ct(out, r) }
    })
}

/// `*out` = `ct` relinearized (3 parts to 2; a 2-part ciphertext is copied);
/// `LATPOLY_STATUS_INVALID_PARAMETER` for parameters that cannot key-switch (see
/// [`latpoly_bfv_multiply_relin`]).
///
/// # Safety
/// `bfv`, `keys`, `ct` NULL or live; `out` valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_relinearize(
    bfv: *const latpoly_bfv,
    keys: *const latpoly_bfv_keys,
    ct: *const latpoly_bfv_ciphertext,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (h, k, c) = unsafe {
            (
                handle(bfv, TAG_BFV)?,
                handle(keys, TAG_BFV_KEYS)?,
                handle(ct, TAG_BFV_CT)?,
            )
        };
        let r = lift(h.bfv.relinearize(&c.ct, k.relin()?))?;
        // SAFETY: contract of this function.
        unsafe { put_ct(out, r) }
    })
}

/// `*out = f(a, m)` for a ciphertext and `len` plaintext coefficients (the plaintext calls).
///
/// # Safety
/// `bfv`, `a` NULL or live; `m` valid for `len` reads; `out` valid for one pointer write.
unsafe fn with_plain(
    bfv: *const latpoly_bfv,
    a: *const latpoly_bfv_ciphertext,
    m: *const u64,
    len: usize,
    out: *mut *mut latpoly_bfv_ciphertext,
    f: impl FnOnce(&Bfv, &BfvCiphertext, &[u64]) -> latpoly::Result<BfvCiphertext>,
) -> latpoly_status {
    guard(|| {
        // SAFETY: forwarded contract.
        let (h, c, m) = unsafe {
            (
                handle(bfv, TAG_BFV)?,
                handle(a, TAG_BFV_CT)?,
                slice(m, len)?,
            )
        };
        let r = lift(f(&h.bfv, &c.ct, m))?;
        // SAFETY: forwarded contract.
        unsafe { put_ct(out, r) }
    })
}

/// `*out = a + m` for the `len = n` plaintext coefficients at `m` (each below `t`).
///
/// # Safety
/// `bfv`, `a` NULL or live; `m` valid for `len` reads; `out` valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_add_plain(
    bfv: *const latpoly_bfv,
    a: *const latpoly_bfv_ciphertext,
    m: *const u64,
    len: usize,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    // SAFETY: contract of this function.
    unsafe { with_plain(bfv, a, m, len, out, |b, c, m| b.add_plain(c, m)) }
}

/// `*out = a - m` for the `len = n` plaintext coefficients at `m` (each below `t`).
///
/// # Safety
/// `bfv`, `a` NULL or live; `m` valid for `len` reads; `out` valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_sub_plain(
    bfv: *const latpoly_bfv,
    a: *const latpoly_bfv_ciphertext,
    m: *const u64,
    len: usize,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    // SAFETY: contract of this function.
    unsafe { with_plain(bfv, a, m, len, out, |b, c, m| b.sub_plain(c, m)) }
}

/// `*out = k · a` for a constant `k` below `t` (every slot times `k` with batching): the
/// ciphertext [`latpoly_bfv_multiply_plain`] gives for the plaintext `k`, without its
/// transforms; `LATPOLY_STATUS_OUT_OF_RANGE` for `k >= t`.
///
/// # Safety
/// `bfv`, `a` NULL or live; `out` valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_multiply_scalar(
    bfv: *const latpoly_bfv,
    a: *const latpoly_bfv_ciphertext,
    k: u64,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    // SAFETY: forwarded contract.
    unsafe { ct_unary(bfv, a, out, |h, c| h.multiply_scalar(c, k)) }
}

/// `*out = -a` (every polynomial negated: 2 or 3 of them).
///
/// # Safety
/// `bfv`, `a` NULL or live; `out` valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_negate(
    bfv: *const latpoly_bfv,
    a: *const latpoly_bfv_ciphertext,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    // SAFETY: forwarded contract.
    unsafe { ct_unary(bfv, a, out, |h, c| h.negate(c)) }
}

/// `*out = a · m` for the `len = n` plaintext coefficients at `m` (each below `t`): the
/// product of the plaintexts in `Z_t[x]/(x^n + 1)`, with batching the slot-wise product
/// (encode `m` with [`latpoly_bfv_encode_slots`]); `a` may have 2 or 3 polynomials.
///
/// # Safety
/// `bfv`, `a` NULL or live; `m` valid for `len` reads; `out` valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_multiply_plain(
    bfv: *const latpoly_bfv,
    a: *const latpoly_bfv_ciphertext,
    m: *const u64,
    len: usize,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    // SAFETY: contract of this function.
    unsafe { with_plain(bfv, a, m, len, out, |b, c, m| b.multiply_plain(c, m)) }
}

/// The number of polynomials of `ct` (2, or 3 after [`latpoly_bfv_multiply`]) to `*parts`.
///
/// # Safety
/// `ct` NULL or live; `parts` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_ciphertext_len(
    ct: *const latpoly_bfv_ciphertext,
    parts: *mut usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let c = unsafe { handle(ct, TAG_BFV_CT)? };
        // SAFETY: contract of this function.
        unsafe { write(parts, c.ct.len()) }
    })
}

/// A copy of polynomial `index` of `ct` (coefficient form, the instance's context), e.g. to
/// serialize it with `latpoly_rns_poly_to_bytes`; `index` past the last part gives
/// `LATPOLY_STATUS_INVALID_PARAMETER`.
///
/// # Safety
/// `ct` NULL or live; `out` valid for one pointer write (free with `latpoly_rns_poly_free`).
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_ciphertext_part(
    ct: *const latpoly_bfv_ciphertext,
    index: usize,
    out: *mut *mut latpoly_rns_poly,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let c = unsafe { handle(ct, TAG_BFV_CT)? };
        let poly =
            c.ct.parts()
                .get(index)
                .ok_or(latpoly_status::InvalidParameter)?
                .clone();
        // SAFETY: contract of this function.
        unsafe { put_poly(out, poly) }
    })
}

/// A ciphertext of `bfv` from `count` (2 or 3) polynomials of its context (e.g. read back
/// with `latpoly_rns_poly_from_bytes`); parts in NTT form are converted. The parts are copied:
/// the caller still owns and frees them.
///
/// # Safety
/// `bfv` NULL or live; `parts` valid for `count` reads, each NULL or a live polynomial; `out`
/// valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_ciphertext_from_parts(
    bfv: *const latpoly_bfv,
    parts: *const *const latpoly_rns_poly,
    count: usize,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (h, ps) = unsafe { (handle(bfv, TAG_BFV)?, slice(parts, count)?) };
        let mut polys: Vec<RnsPoly> = Vec::with_capacity(count);
        for &p in ps {
            // SAFETY: contract of this function (each entry NULL or live).
            polys.push(unsafe { handle(p, TAG_POLY)? }.poly.clone());
        }
        let ct = lift(h.bfv.ciphertext_from_parts(polys))?;
        // SAFETY: contract of this function.
        unsafe { put_ct(out, ct) }
    })
}

// ----- BFV keys and ciphertexts as bytes

// The keys of a set, for [`latpoly_bfv_keys_serialized_len`], [`latpoly_bfv_keys_to_bytes`]
// and [`latpoly_bfv_keys_has`] (integer constants, as for the distributions).
/// The secret key (`n / 4` bytes of two-bit codes after a header binding it to `n` and `Q`).
pub const LATPOLY_BFV_KEY_SECRET: u32 = 0;
/// The public (encryption) key.
pub const LATPOLY_BFV_KEY_PUBLIC: u32 = 1;
/// The relinearization key.
pub const LATPOLY_BFV_KEY_RELIN: u32 = 2;
/// The Galois (rotation) keys, from [`latpoly_bfv_keys_with_galois`].
pub const LATPOLY_BFV_KEY_GALOIS: u32 = 3;

/// Whether `keys` holds key `which` (`LATPOLY_BFV_KEY_*`): 1 or 0 to `*has`. A set from
/// [`latpoly_bfv_keygen`] holds all three; one from [`latpoly_bfv_keys_from_bytes`] the keys it
/// was given.
///
/// # Safety
/// `keys` NULL or live; `has` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_keys_has(
    keys: *const latpoly_bfv_keys,
    which: u32,
    has: *mut i32,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let k = unsafe { handle(keys, TAG_BFV_KEYS)? };
        let present = match which {
            LATPOLY_BFV_KEY_SECRET => k.secret.is_some(),
            LATPOLY_BFV_KEY_PUBLIC => k.public.is_some(),
            LATPOLY_BFV_KEY_RELIN => k.relin.is_some(),
            LATPOLY_BFV_KEY_GALOIS => k.galois.is_some(),
            _ => return Err(latpoly_status::InvalidParameter),
        };
        // SAFETY: contract of this function.
        unsafe { write(has, i32::from(present)) }
    })
}

/// The length in bytes of key `which` (`LATPOLY_BFV_KEY_*`) of `keys` serialized, to `*len`.
/// An unknown `which`, or a key the set lacks, gives `LATPOLY_STATUS_INVALID_PARAMETER`.
///
/// # Safety
/// `keys` NULL or live; `len` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_keys_serialized_len(
    keys: *const latpoly_bfv_keys,
    which: u32,
    len: *mut usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let k = unsafe { handle(keys, TAG_BFV_KEYS)? };
        let n = match which {
            LATPOLY_BFV_KEY_SECRET => k.secret()?.serialized_len(),
            LATPOLY_BFV_KEY_PUBLIC => k.public()?.serialized_len(),
            LATPOLY_BFV_KEY_RELIN => k.relin()?.serialized_len(),
            LATPOLY_BFV_KEY_GALOIS => k.galois()?.serialized_len(),
            _ => return Err(latpoly_status::InvalidParameter),
        };
        // SAFETY: contract of this function.
        unsafe { write(len, n) }
    })
}

/// Serializes key `which` (`LATPOLY_BFV_KEY_*`) of `keys` into the `len` bytes at `out`; `len`
/// must equal [`latpoly_bfv_keys_serialized_len`] (`LATPOLY_STATUS_LENGTH_MISMATCH`
/// otherwise, nothing written). The format is `latpoly::serialize`'s (a versioned header with
/// the degree and primes, then the key; public, relinearization and Galois keys made by this
/// library in compact form, a 32-byte seed in place of their uniform polynomials, half the
/// bytes; [`latpoly_bfv_keys_from_bytes`] also reads the expanded form of earlier versions).
/// Secret-key bytes are as sensitive as the key: wipe them after use and store them
/// encrypted.
///
/// # Safety
/// `keys` NULL or live; `out` valid for `len` writes.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_keys_to_bytes(
    keys: *const latpoly_bfv_keys,
    which: u32,
    out: *mut u8,
    len: usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (k, o) = unsafe { (handle(keys, TAG_BFV_KEYS)?, slice_mut(out, len)?) };
        match which {
            // the secret key's bytes are wiped when the temporary is dropped
            LATPOLY_BFV_KEY_SECRET => copy_out(o, &k.secret()?.to_bytes()),
            LATPOLY_BFV_KEY_PUBLIC => copy_out(o, &k.public()?.to_bytes()),
            LATPOLY_BFV_KEY_RELIN => copy_out(o, &k.relin()?.to_bytes()),
            LATPOLY_BFV_KEY_GALOIS => copy_out(o, &k.galois()?.to_bytes()),
            _ => Err(latpoly_status::InvalidParameter),
        }
    })
}

/// Reads a key set for `bfv` from the bytes of any of its keys (`secret`, `public`, `relin`,
/// `galois`: each NULL when absent, else `*_len` bytes from [`latpoly_bfv_keys_to_bytes`]); at
/// least one must be given (`LATPOLY_STATUS_INVALID_PARAMETER`). Keys whose polynomials have
/// another degree or other primes give `LATPOLY_STATUS_HANDLE_MISMATCH`; malformed bytes, and
/// keys of another shape (a relinearization key of another number of primes, a Galois element
/// not below `2n`), `LATPOLY_STATUS_MALFORMED` (or
/// `LATPOLY_STATUS_OUT_OF_RANGE` for a residue not below its prime). Calls that need a key the
/// set lacks (decrypting without the secret key, say) give `LATPOLY_STATUS_INVALID_PARAMETER`.
///
/// # Safety
/// `bfv` NULL or live; each of `secret`, `public`, `relin`, `galois` NULL or valid for its
/// length in reads; `out` valid for one pointer write (free with [`latpoly_bfv_keys_free`]).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn latpoly_bfv_keys_from_bytes(
    bfv: *const latpoly_bfv,
    secret: *const u8,
    secret_len: usize,
    public: *const u8,
    public_len: usize,
    relin: *const u8,
    relin_len: usize,
    galois: *const u8,
    galois_len: usize,
    out: *mut *mut latpoly_bfv_keys,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let b = unsafe { handle(bfv, TAG_BFV)? };
        if secret.is_null() && public.is_null() && relin.is_null() && galois.is_null() {
            return Err(latpoly_status::InvalidParameter);
        }
        /// The bytes at `p` (NULL: absent).
        ///
        /// # Safety
        /// `p` NULL or valid for `len` reads.
        unsafe fn opt<'a>(p: *const u8, len: usize) -> Result<Option<&'a [u8]>, latpoly_status> {
            if p.is_null() {
                return Ok(None);
            }
            // SAFETY: forwarded contract; non-NULL here.
            unsafe { slice(p, len) }.map(Some)
        }
        // SAFETY: contract of this function.
        let (s, p, r, g) = unsafe {
            (
                opt(secret, secret_len)?,
                opt(public, public_len)?,
                opt(relin, relin_len)?,
                opt(galois, galois_len)?,
            )
        };
        let keys = latpoly_bfv_keys {
            tag: TAG_BFV_KEYS,
            secret: s
                .map(|x| lift(b.bfv.secret_key_from_bytes(x)))
                .transpose()?,
            public: p
                .map(|x| lift(b.bfv.public_key_from_bytes(x)))
                .transpose()?,
            relin: r.map(|x| lift(b.bfv.relin_key_from_bytes(x))).transpose()?,
            galois: g
                .map(|x| lift(b.bfv.galois_keys_from_bytes(x)))
                .transpose()?,
        };
        // SAFETY: contract of this function.
        unsafe { put(out, keys) }
    })
}

/// The length in bytes of `ct` serialized, to `*len`.
///
/// # Safety
/// `ct` NULL or live; `len` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_ciphertext_serialized_len(
    ct: *const latpoly_bfv_ciphertext,
    len: *mut usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let c = unsafe { handle(ct, TAG_BFV_CT)? };
        // SAFETY: contract of this function.
        unsafe { write(len, c.ct.serialized_len()) }
    })
}

/// Serializes `ct` (its 2 or 3 polynomials, coefficient form) into the `len` bytes at `out`;
/// `len` must equal [`latpoly_bfv_ciphertext_serialized_len`].
///
/// # Safety
/// `ct` NULL or live; `out` valid for `len` writes.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_ciphertext_to_bytes(
    ct: *const latpoly_bfv_ciphertext,
    out: *mut u8,
    len: usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (c, o) = unsafe { (handle(ct, TAG_BFV_CT)?, slice_mut(out, len)?) };
        copy_out(o, &c.ct.to_bytes())
    })
}

/// Reads a ciphertext of `bfv` from the `len` bytes at `data` (from
/// [`latpoly_bfv_ciphertext_to_bytes`]): other parameters give
/// `LATPOLY_STATUS_HANDLE_MISMATCH`, malformed bytes `LATPOLY_STATUS_MALFORMED` (or
/// `LATPOLY_STATUS_OUT_OF_RANGE`).
///
/// # Safety
/// `bfv` NULL or live; `data` valid for `len` reads; `out` valid for one pointer write (free
/// with [`latpoly_bfv_ciphertext_free`]).
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_ciphertext_from_bytes(
    bfv: *const latpoly_bfv,
    data: *const u8,
    len: usize,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (b, d) = unsafe { (handle(bfv, TAG_BFV)?, slice(data, len)?) };
        let ct = lift(b.bfv.ciphertext_from_bytes(d))?;
        // SAFETY: contract of this function.
        unsafe { put_ct(out, ct) }
    })
}

// ----- BFV slots and rotations

/// Whether `bfv` supports batching (`t` a prime `≡ 1 mod 2n`): 1 or 0 to `*yes`.
///
/// # Safety
/// `bfv` NULL or live; `yes` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_batching(
    bfv: *const latpoly_bfv,
    yes: *mut i32,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let b = unsafe { handle(bfv, TAG_BFV)? };
        // SAFETY: contract of this function.
        unsafe { write(yes, i32::from(b.bfv.batching())) }
    })
}

/// `dst = f(src)` for `len`-value buffers of `bfv` (the slot conversions); `src` is copied
/// first, so `dst` may be `src` (in place).
///
/// # Safety
/// `bfv` NULL or live; `src` valid for `len` reads; `dst` valid for `len` writes.
unsafe fn slot_map(
    bfv: *const latpoly_bfv,
    src: *const u64,
    dst: *mut u64,
    len: usize,
    f: impl FnOnce(&Bfv, &[u64]) -> latpoly::Result<Vec<u64>>,
) -> latpoly_status {
    guard(|| {
        // SAFETY: forwarded contract; the input is copied before the output slice exists.
        let (b, x) = unsafe { (handle(bfv, TAG_BFV)?, copied(src, len)?) };
        let y = Zeroizing::new(lift(f(&b.bfv, &x))?);
        // SAFETY: forwarded contract.
        let o = unsafe { slice_mut(dst, len)? };
        o.copy_from_slice(&y);
        Ok(())
    })
}

/// Encodes the `len = n` slot values at `values` (each below `t`; a `2 × n/2` matrix row by
/// row) into the `len` plaintext coefficients at `plain` (which may be `values`, in place),
/// for `latpoly_bfv_encrypt`. Without batching: `LATPOLY_STATUS_INVALID_PARAMETER`.
///
/// # Safety
/// `bfv` NULL or live; `values` valid for `len` reads; `plain` valid for `len` writes.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_encode_slots(
    bfv: *const latpoly_bfv,
    values: *const u64,
    plain: *mut u64,
    len: usize,
) -> latpoly_status {
    // SAFETY: contract of this function.
    unsafe { slot_map(bfv, values, plain, len, |b, v| b.encode_slots(v)) }
}

/// Decodes the `len = n` plaintext coefficients at `plain` (each below `t`, e.g. from
/// `latpoly_bfv_decrypt`) into the `len` slot values at `values` (which may be `plain`).
///
/// # Safety
/// `bfv` NULL or live; `plain` valid for `len` reads; `values` valid for `len` writes.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_decode_slots(
    bfv: *const latpoly_bfv,
    plain: *const u64,
    values: *mut u64,
    len: usize,
) -> latpoly_status {
    // SAFETY: contract of this function.
    unsafe { slot_map(bfv, plain, values, len, |b, m| b.decode_slots(m)) }
}

/// The Galois element that rotates the slot rows left by `steps` (`3^steps mod 2n`;
/// negative steps rotate right), to `*g`; [`latpoly_bfv_row_swap_element`] gives the one that
/// exchanges the rows.
///
/// # Safety
/// `bfv` NULL or live; `g` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_rotation_element(
    bfv: *const latpoly_bfv,
    steps: i64,
    g: *mut usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let b = unsafe { handle(bfv, TAG_BFV)? };
        // SAFETY: contract of this function.
        unsafe { write(g, b.bfv.rotation_element(steps)) }
    })
}

/// The Galois element `2n - 1`, which exchanges the two slot rows, to `*g`.
///
/// # Safety
/// `bfv` NULL or live; `g` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_row_swap_element(
    bfv: *const latpoly_bfv,
    g: *mut usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let b = unsafe { handle(bfv, TAG_BFV)? };
        // SAFETY: contract of this function.
        unsafe { write(g, b.bfv.row_swap_element()) }
    })
}

/// A new instance over the first `primes` primes of `bfv`'s `Q` (same `n`, `t` and `sigma`):
/// where [`latpoly_bfv_mod_switch`] moves ciphertexts. `primes` must lie in `1..=count` of
/// [`latpoly_bfv_new`] and the smaller modulus must exceed `t`
/// (`LATPOLY_STATUS_INVALID_PARAMETER` otherwise). Building it precomputes tables as
/// [`latpoly_bfv_new`] does: keep it for reuse. The relinearization and Galois keys of `bfv`
/// (and of any instance `bfv` was lowered from) serve the new instance too, without the
/// secret; an instance made by [`latpoly_bfv_new`] over the same primes refuses them.
///
/// # Safety
/// `bfv` NULL or live; `out` valid for one pointer write; free the result with
/// [`latpoly_bfv_free`].
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_lower(
    bfv: *const latpoly_bfv,
    primes: usize,
    out: *mut *mut latpoly_bfv,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let b = unsafe { handle(bfv, TAG_BFV)? };
        let low = lift(b.bfv.lower(primes))?;
        // SAFETY: contract of this function.
        unsafe {
            put(
                out,
                latpoly_bfv {
                    tag: TAG_BFV,
                    bfv: low,
                },
            )
        }
    })
}

/// `*out = ct` (a ciphertext of `bfv`) switched down to the modulus of `target` (an instance
/// from [`latpoly_bfv_lower`]): each polynomial scaled by `Q_k / Q` and rounded. The result
/// belongs to `target` and decrypts there, with the key of [`latpoly_bfv_secret_key_for`], to
/// the same plaintext; it is `L - k` limbs shorter. A `target` that is not a lower instance of
/// `bfv` gives `LATPOLY_STATUS_INVALID_PARAMETER`, a ciphertext of another instance
/// `LATPOLY_STATUS_HANDLE_MISMATCH`.
///
/// # Safety
/// `bfv`, `ct`, `target` NULL or live; `out` valid for one pointer write (free with
/// [`latpoly_bfv_ciphertext_free`]).
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_mod_switch(
    bfv: *const latpoly_bfv,
    ct: *const latpoly_bfv_ciphertext,
    target: *const latpoly_bfv,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (b, c, t) = unsafe {
            (
                handle(bfv, TAG_BFV)?,
                handle(ct, TAG_BFV_CT)?,
                handle(target, TAG_BFV)?,
            )
        };
        let r = lift(b.bfv.mod_switch(&c.ct, &t.bfv))?;
        // SAFETY: contract of this function.
        unsafe { put_ct(out, r) }
    })
}

/// A new key set holding only the secret key of `keys` (a key of `bfv`) as a key of `target`
/// (an instance from [`latpoly_bfv_lower`]): the same secret in fewer limbs, for decrypting
/// what [`latpoly_bfv_mod_switch`] moved there. A key set without a secret key, or a
/// `target` that is not a lower instance of `bfv`, gives `LATPOLY_STATUS_INVALID_PARAMETER`;
/// a key of another instance `LATPOLY_STATUS_HANDLE_MISMATCH`.
///
/// # Safety
/// `bfv`, `keys`, `target` NULL or live; `out` valid for one pointer write (free with
/// [`latpoly_bfv_keys_free`], which wipes the secret).
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_secret_key_for(
    bfv: *const latpoly_bfv,
    keys: *const latpoly_bfv_keys,
    target: *const latpoly_bfv,
    out: *mut *mut latpoly_bfv_keys,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (b, k, t) = unsafe {
            (
                handle(bfv, TAG_BFV)?,
                handle(keys, TAG_BFV_KEYS)?,
                handle(target, TAG_BFV)?,
            )
        };
        let sk = lift(b.bfv.secret_key_for(k.secret()?, &t.bfv))?;
        let keys = latpoly_bfv_keys {
            tag: TAG_BFV_KEYS,
            secret: Some(sk),
            public: None,
            relin: None,
            galois: None,
        };
        // SAFETY: contract of this function.
        unsafe { put(out, keys) }
    })
}

/// A new key set with the secret key of `keys` (a key of `bfv`) and public and
/// relinearization keys for it, as [`latpoly_bfv_keygen`] makes them for a fresh secret: for
/// instance keys of a lower instance for the secret of the full one. A key set without a
/// secret key gives `LATPOLY_STATUS_INVALID_PARAMETER`, a key of another instance
/// `LATPOLY_STATUS_HANDLE_MISMATCH`.
///
/// # Safety
/// `bfv`, `keys` NULL or live; `sampler` NULL or live, not used concurrently; `out` valid for
/// one pointer write (free with [`latpoly_bfv_keys_free`]).
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_keygen_with_secret(
    bfv: *const latpoly_bfv,
    keys: *const latpoly_bfv_keys,
    sampler: *mut latpoly_sampler,
    out: *mut *mut latpoly_bfv_keys,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (b, k, s) = unsafe {
            (
                handle(bfv, TAG_BFV)?,
                handle(keys, TAG_BFV_KEYS)?,
                handle_mut(sampler, TAG_SAMPLER)?,
            )
        };
        let made = lift(b.bfv.keygen_with_secret(k.secret()?.clone(), &mut s.s))?;
        // SAFETY: contract of this function.
        unsafe { put(out, latpoly_bfv_keys::from(made)) }
    })
}

/// A new key set: the keys of `keys` (which must hold the secret key) plus Galois keys for the
/// `count` elements at `elements` (odd, below `2n`; replacing any Galois keys `keys` had).
///
/// # Safety
/// `bfv`, `keys` NULL or live; `sampler` NULL or live, not used concurrently; `elements`
/// valid for `count` reads; `out` valid for one pointer write (free with
/// [`latpoly_bfv_keys_free`]).
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_keys_with_galois(
    bfv: *const latpoly_bfv,
    keys: *const latpoly_bfv_keys,
    sampler: *mut latpoly_sampler,
    elements: *const usize,
    count: usize,
    out: *mut *mut latpoly_bfv_keys,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (b, k, s, e) = unsafe {
            (
                handle(bfv, TAG_BFV)?,
                handle(keys, TAG_BFV_KEYS)?,
                handle_mut(sampler, TAG_SAMPLER)?,
                slice(elements, count)?,
            )
        };
        let gk = lift(b.bfv.galois_keygen(k.secret()?, e, &mut s.s))?;
        let keys = latpoly_bfv_keys {
            tag: TAG_BFV_KEYS,
            secret: k.secret.clone(),
            public: k.public.clone(),
            relin: k.relin.clone(),
            galois: Some(gk),
        };
        // SAFETY: contract of this function.
        unsafe { put(out, keys) }
    })
}

/// `x -> x^g` on the encrypted plaintext of `ct` (2 polynomials) with the Galois keys of
/// `keys`: no key for `g`, an invalid `g` (even, `>= 2n`), a 3-polynomial ciphertext or
/// parameters that cannot key-switch (see [`latpoly_bfv_multiply_relin`]) give
/// `LATPOLY_STATUS_INVALID_PARAMETER`. With batching, [`latpoly_bfv_rotation_element`] and
/// [`latpoly_bfv_row_swap_element`] give the `g` of the slot rotations.
///
/// # Safety
/// `bfv`, `keys`, `ct` NULL or live; `out` valid for one pointer write (free with
/// [`latpoly_bfv_ciphertext_free`]).
#[no_mangle]
pub unsafe extern "C" fn latpoly_bfv_apply_galois(
    bfv: *const latpoly_bfv,
    keys: *const latpoly_bfv_keys,
    ct: *const latpoly_bfv_ciphertext,
    g: usize,
    out: *mut *mut latpoly_bfv_ciphertext,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (b, k, c) = unsafe {
            (
                handle(bfv, TAG_BFV)?,
                handle(keys, TAG_BFV_KEYS)?,
                handle(ct, TAG_BFV_CT)?,
            )
        };
        // A set without Galois keys is the empty set: the identity g = 1 needs no key, any
        // other element gets INVALID_PARAMETER from the core's "no Galois key" error.
        let empty = BfvGaloisKeys::default();
        let gk = k.galois.as_ref().unwrap_or(&empty);
        let r = lift(b.bfv.apply_galois(&c.ct, g, gk))?;
        // SAFETY: contract of this function.
        unsafe { put_ct(out, r) }
    })
}

// ----- LPR

/// Creates an LPR (RLWE public-key encryption) instance with the parameters of the NFLlib
/// paper: `n = 256` or `512` (`q = 12289`, Gaussian `sigma = 3.19`), or `n = 1024` (the larger
/// set of `latpoly::he::lpr::LprParams::n1024`). Messages are `n / 8` bytes (one bit per
/// coefficient); ciphertexts and public keys are `2 n` values below `q`.
///
/// # Safety
/// `out` valid for one pointer write; free the result with [`latpoly_lpr_free`].
#[no_mangle]
pub unsafe extern "C" fn latpoly_lpr_new(n: usize, out: *mut *mut latpoly_lpr) -> latpoly_status {
    guard(|| {
        let params = match n {
            256 => LprParams::n256(),
            512 => LprParams::n512(),
            1024 => LprParams::n1024(),
            _ => return Err(latpoly_status::InvalidParameter),
        };
        let lpr = lift(Lpr::new(params))?;
        // SAFETY: contract of this function.
        unsafe { put(out, latpoly_lpr { tag: TAG_LPR, lpr }) }
    })
}

/// Releases an LPR instance (NULL is ignored).
///
/// # Safety
/// `lpr` must be NULL or an instance from [`latpoly_lpr_new`] not freed before.
#[no_mangle]
pub unsafe extern "C" fn latpoly_lpr_free(lpr: *mut latpoly_lpr) {
    // SAFETY: contract of this function.
    unsafe { free_tagged(lpr, TAG_LPR) }
}

/// The degree `n`, the modulus `q` and the message length in bytes (any output pointer may be
/// NULL).
///
/// # Safety
/// `lpr` NULL or live; each non-NULL output valid for one write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_lpr_sizes(
    lpr: *const latpoly_lpr,
    n: *mut usize,
    q: *mut u64,
    message_bytes: *mut usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let l = unsafe { handle(lpr, TAG_LPR)? };
        let p = l.lpr.params();
        // SAFETY: each non-NULL pointer is writable by contract.
        unsafe {
            if !n.is_null() {
                *n = p.n;
            }
            if !q.is_null() {
                *q = p.q;
            }
            if !message_bytes.is_null() {
                *message_bytes = l.lpr.message_len();
            }
        }
        Ok(())
    })
}

/// Generates a key pair; free the results with [`latpoly_lpr_public_key_free`] and
/// [`latpoly_lpr_secret_key_free`] (which wipes the secret).
///
/// # Safety
/// `lpr` NULL or live; `sampler` NULL or live, not used concurrently; `pk`, `sk` valid for one
/// pointer write each.
#[no_mangle]
pub unsafe extern "C" fn latpoly_lpr_keygen(
    lpr: *const latpoly_lpr,
    sampler: *mut latpoly_sampler,
    pk: *mut *mut latpoly_lpr_public_key,
    sk: *mut *mut latpoly_lpr_secret_key,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (l, s) = unsafe { (handle(lpr, TAG_LPR)?, handle_mut(sampler, TAG_SAMPLER)?) };
        if pk.is_null() || sk.is_null() {
            return Err(latpoly_status::NullPointer);
        }
        let (p, k) = lift(l.lpr.keygen(&mut s.s))?;
        // SAFETY: contract of this function (both checked non-NULL above).
        unsafe {
            put(
                pk,
                latpoly_lpr_public_key {
                    tag: TAG_LPR_PK,
                    pk: p,
                },
            )?;
            put(
                sk,
                latpoly_lpr_secret_key {
                    tag: TAG_LPR_SK,
                    sk: k,
                },
            )
        }
    })
}

/// Releases a public key (NULL is ignored).
///
/// # Safety
/// `pk` must be NULL or a public key from this library not freed before.
#[no_mangle]
pub unsafe extern "C" fn latpoly_lpr_public_key_free(pk: *mut latpoly_lpr_public_key) {
    // SAFETY: contract of this function.
    unsafe { free_tagged(pk, TAG_LPR_PK) }
}

/// Releases a secret key (NULL is ignored); it is wiped.
///
/// # Safety
/// `sk` must be NULL or a secret key from this library not freed before.
#[no_mangle]
pub unsafe extern "C" fn latpoly_lpr_secret_key_free(sk: *mut latpoly_lpr_secret_key) {
    // SAFETY: contract of this function.
    unsafe { free_tagged(sk, TAG_LPR_SK) }
}

/// Writes the public key `(a, b)` as `len = 2 n` values below `q` (`a` first) to `out`.
///
/// # Safety
/// `pk` NULL or live; `out` valid for `len` writes.
#[no_mangle]
pub unsafe extern "C" fn latpoly_lpr_public_key_export(
    pk: *const latpoly_lpr_public_key,
    out: *mut u16,
    len: usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (k, o) = unsafe { (handle(pk, TAG_LPR_PK)?, slice_mut(out, len)?) };
        let (a, b) = k.pk.parts();
        if len != a.len() + b.len() {
            return Err(latpoly_status::LengthMismatch);
        }
        o[..a.len()].copy_from_slice(a);
        o[a.len()..].copy_from_slice(b);
        Ok(())
    })
}

/// A public key of `lpr` from `len = 2 n` values below `q` (as exported).
///
/// # Safety
/// `lpr` NULL or live; `data` valid for `len` reads; `out` valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn latpoly_lpr_public_key_import(
    lpr: *const latpoly_lpr,
    data: *const u16,
    len: usize,
    out: *mut *mut latpoly_lpr_public_key,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (l, d) = unsafe { (handle(lpr, TAG_LPR)?, slice(data, len)?) };
        let n = l.lpr.params().n;
        if len != 2 * n {
            return Err(latpoly_status::LengthMismatch);
        }
        let pk = lift(
            l.lpr
                .public_key_from_parts(d[..n].to_vec(), d[n..].to_vec()),
        )?;
        // SAFETY: contract of this function.
        unsafe {
            put(
                out,
                latpoly_lpr_public_key {
                    tag: TAG_LPR_PK,
                    pk,
                },
            )
        }
    })
}

/// Encrypts the `msg_len = n / 8` bytes at `msg` into the `ct_len = 2 n` values at `ct`
/// (`u` then `v`, each below `q`).
///
/// # Safety
/// `lpr`, `pk` NULL or live; `sampler` NULL or live, not used concurrently; `msg` valid for
/// `msg_len` reads; `ct` valid for `ct_len` writes.
#[no_mangle]
pub unsafe extern "C" fn latpoly_lpr_encrypt(
    lpr: *const latpoly_lpr,
    pk: *const latpoly_lpr_public_key,
    sampler: *mut latpoly_sampler,
    msg: *const u8,
    msg_len: usize,
    ct: *mut u16,
    ct_len: usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (l, k, s, m) = unsafe {
            (
                handle(lpr, TAG_LPR)?,
                handle(pk, TAG_LPR_PK)?,
                handle_mut(sampler, TAG_SAMPLER)?,
                slice(msg, msg_len)?,
            )
        };
        let n = l.lpr.params().n;
        if ct.is_null() {
            return Err(latpoly_status::NullPointer);
        }
        if ct_len != 2 * n {
            return Err(latpoly_status::LengthMismatch);
        }
        let c = lift(l.lpr.encrypt(&k.pk, m, &mut s.s))?;
        // SAFETY: contract of this function (`ct` does not alias the inputs read above, which
        // are no longer used).
        let o = unsafe { slice_mut(ct, ct_len)? };
        let (u, v) = c.parts();
        o[..n].copy_from_slice(u);
        o[n..].copy_from_slice(v);
        Ok(())
    })
}

/// Decrypts the `ct_len = 2 n` values at `ct` (each below `q`) into the `msg_len = n / 8`
/// bytes at `msg`.
///
/// # Safety
/// `lpr`, `sk` NULL or live; `ct` valid for `ct_len` reads; `msg` valid for `msg_len` writes.
#[no_mangle]
pub unsafe extern "C" fn latpoly_lpr_decrypt(
    lpr: *const latpoly_lpr,
    sk: *const latpoly_lpr_secret_key,
    ct: *const u16,
    ct_len: usize,
    msg: *mut u8,
    msg_len: usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (l, k, c) = unsafe {
            (
                handle(lpr, TAG_LPR)?,
                handle(sk, TAG_LPR_SK)?,
                slice(ct, ct_len)?,
            )
        };
        let n = l.lpr.params().n;
        if ct_len != 2 * n {
            return Err(latpoly_status::LengthMismatch);
        }
        let c = lift(
            l.lpr
                .ciphertext_from_parts(c[..n].to_vec(), c[n..].to_vec()),
        )?;
        // SAFETY: contract of this function.
        let m = unsafe { slice_mut(msg, msg_len)? };
        let mut scratch = l.lpr.scratch();
        lift(l.lpr.decrypt_into(&k.sk, &c, m, &mut scratch))
    })
}

/// Decrypts `count` ciphertexts stored one after another at `ct` (`ct_len = count · 2 n`
/// values, each below `q`) into `count` messages one after another at `msg`
/// (`msg_len = count · n / 8` bytes), on `threads` worker threads (0: on the calling thread).
/// Every ciphertext is checked before any is decrypted; on an error nothing meaningful is in
/// `msg`.
///
/// # Safety
/// `lpr`, `sk` NULL or live; `ct` valid for `ct_len` reads; `msg` valid for `msg_len` writes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn latpoly_lpr_decrypt_batch(
    lpr: *const latpoly_lpr,
    sk: *const latpoly_lpr_secret_key,
    ct: *const u16,
    ct_len: usize,
    count: usize,
    threads: usize,
    msg: *mut u8,
    msg_len: usize,
) -> latpoly_status {
    guard(|| {
        // SAFETY: contract of this function.
        let (l, k, c) = unsafe {
            (
                handle(lpr, TAG_LPR)?,
                handle(sk, TAG_LPR_SK)?,
                copied(ct, ct_len)?,
            )
        };
        let n = l.lpr.params().n;
        if Some(ct_len) != count.checked_mul(2 * n)
            || Some(msg_len) != count.checked_mul(l.lpr.message_len())
        {
            return Err(latpoly_status::LengthMismatch);
        }
        let cts = c
            .chunks_exact(2 * n)
            .map(|x| {
                lift(
                    l.lpr
                        .ciphertext_from_parts(x[..n].to_vec(), x[n..].to_vec()),
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let pool = match threads {
            0 => None,
            t => Some(lift(latpoly::parallel::Threads::new(t))?),
        };
        // The plaintexts are the caller's secrets: the intermediate copy is wiped.
        let out = Zeroizing::new(lift(l.lpr.decrypt_batch(&k.sk, &cts, pool.as_ref()))?);
        // SAFETY: contract of this function.
        let m = unsafe { slice_mut(msg, msg_len)? };
        m.copy_from_slice(&out);
        Ok(())
    })
}
