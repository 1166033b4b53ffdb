//! Cyclic products of byte-sized polynomials (`Z[x]/(x^n - 1)`, NTRU degrees) as schoolbook
//! convolutions on AVX-512 VNNI, for two uses:
//!
//! - the KEMs' `S_3` product (`poly_S3_mul` of two polynomials with coefficients in
//!   `{0, 1, 2}`, the one product of NTRU decapsulation whose operands are both small);
//! - the products mod `2^8` of the first Newton steps of the `R_q` inverse (key generation),
//!   whose precision is at most 8 bits.
//!
//! `vpdpbusd` multiplies 64 unsigned bytes by 64 signed bytes and adds each group of four
//! products to a 32-bit lane: 64 multiply-adds per instruction, which on Intel's server cores
//! issue two a cycle. The `n^2 / 64` instructions of a whole schoolbook product (7,310 for
//! `n = 677`) cost less than the Toom-4 multiplier's evaluation, leaves, transposes and
//! interpolation. The sums are exact for `{0, 1, 2}` inputs (below `4 n < 2^12`); for products
//! mod `2^8` one operand's low bytes are read as unsigned and the other's as signed (each
//! congruent to the coefficient mod `2^8`), and the 32-bit sums (wrapping, which keeps them
//! right mod `2^8`) give the product mod `2^8`.
//!
//! The layout, with `ã_i = a_{-i mod n}` (so that `c_k = Σ_i ã_i b_{(k + i) mod n}`, both
//! indices ascending):
//! - `ã` as bytes, four to a 32-bit word, zero beyond `n`; word `m` is broadcast to all lanes;
//! - for every multiple of four `4 g`, a vector `V_g` of the 16 sliding windows of four bytes
//!   of `b` (cyclically extended) starting at `4 g, 4 g + 1, ..., 4 g + 15` (one `vpermb` each);
//! - the 16 outputs `c_{16 t .. 16 t + 16}` are then `Σ_m vpdpbusd(ã word m, V_{4 t + m})`:
//!   every load is an aligned vector, and a pass keeps 16-26 blocks of outputs in registers,
//!   one broadcast and one folded load per `vpdpbusd`.
//!
//! The `S_3` product then folds mod `Phi_n` and reduces mod 3 (a multiply-high by
//! `⌈2^16 / 3⌉`) in vectors. Everything depends on `n` alone: no data-dependent branch or
//! index, and the instructions used run in data-independent time. (Valgrind cannot execute
//! AVX-512, so the constant-time tests of the KEMs run the Toom-4 multiplier under
//! `LATPOLY_ISA=avx2`; as `r2_avx512.rs`, this path is taken only on the AVX-512 backend,
//! and only on CPUs that run 512-bit VNNI at full rate: not AMD Zen 4, where the Toom-4 products
//! measured faster, see `Backend::vnni` in `mod.rs`.)
//!
//! Measured on the Intel Emerald Rapids host of the twenty-eighth session: the convolution loop
//! of `n = 677` takes 1.29 µs against the 1.26 µs of its 7,310 instructions at two a cycle
//! (2.9 GHz); see docs/BENCH.md for the whole products, decapsulation and key generation.

#![allow(unsafe_code)]

use super::fast::with_workspace;
use crate::rings::amx::Amx;
use crate::rings::vnni_conv::lanes16;
use core::arch::x86_64::*;

/// Proof that the CPU runs the AVX-512 subsets used here: F, BW, VNNI (`vpdpbusd`) and VBMI
/// (`vpermb`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vnni(());

impl Vnni {
    pub(crate) fn try_new() -> Option<Self> {
        (is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vnni")
            && is_x86_feature_detected!("avx512vbmi"))
        .then_some(Self(()))
    }

    /// `out = a · b mod (3, Phi_n)` with coefficients in `{0, 1, 2}`, for `a`, `b` with
    /// coefficients in `{0, 1, 2}` (debug-asserted; larger ones give wrong results, never
    /// undefined behaviour): the reference `poly_S3_mul`'s result. `None` when `n` is not an
    /// NTRU degree or the lengths differ.
    pub(crate) fn s3_mul(self, a: &[u16], b: &[u16], out: &mut [u16]) -> Option<()> {
        debug_assert!(a.iter().chain(b).all(|&x| x <= 2));
        self.run(a, b, out, Finish::S3)
    }

    /// `out = a · b mod (x^n - 1, 2^8)` (coefficients in `[0, 256)`; only the low bytes of `a`
    /// and `b` are read). `None` when `n` is not an NTRU degree or the lengths differ.
    pub(crate) fn mul_mod256(self, a: &[u16], b: &[u16], out: &mut [u16]) -> Option<()> {
        self.run(a, b, out, Finish::Mod256)
    }

    /// [`Vnni::mul_mod256`] in place: `b = a · b mod (x^n - 1, 2^8)` (both operands are read
    /// into the workspace before `b` is written).
    pub(crate) fn mul_mod256_assign(self, a: &[u16], b: &mut [u16]) -> Option<()> {
        let n = b.len();
        if a.len() != n {
            return None;
        }
        let lay = Layout::new(n)?;
        with_bytes(lay, |ws| {
            // SAFETY: the token proves the features the entry points enable.
            unsafe {
                tf_convolve(lay, a, b, ws);
                tf_finish(b, lay.sums_of(ws), Finish::Mod256);
            }
        });
        Some(())
    }

    fn run(self, a: &[u16], b: &[u16], out: &mut [u16], finish: Finish) -> Option<()> {
        let n = out.len();
        if a.len() != n || b.len() != n {
            return None;
        }
        let lay = Layout::new(n)?;
        with_bytes(lay, |ws| {
            // SAFETY: the token proves the features the entry points enable.
            unsafe {
                tf_convolve(lay, a, b, ws);
                tf_finish(out, lay.sums_of(ws), finish);
            }
        });
        Some(())
    }
}

/// The outputs of the 32-bit sums `sums` (`c_k` at bytes `4 k`, at least `32 ⌈n / 32⌉` of
/// them) of an AMX convolution (`ntru/amx.rs`), finished as this module finishes its own. Sums
/// at or past `n` may be stale (an AMX convolution writes only the blocks of 16 below `n`):
/// they reach only output lanes at or past `n`, which the masked stores leave out.
pub(crate) fn finish_sums(_: Amx, out: &mut [u16], sums: &[u8], finish: Finish) {
    // SAFETY: the AMX token proves AVX-512F and BW, the features the entry point enables.
    unsafe { tf_finish(out, sums, finish) }
}

/// What follows the convolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Finish {
    /// Fold mod `Phi_n`, reduce mod 3 (`poly_mod_3_Phi_n`).
    S3,
    /// Reduce mod `2^8`.
    Mod256,
}

/// Runs `f` on the thread's workspace viewed as the `lay.total` bytes it needs.
fn with_bytes(lay: Layout, f: impl FnOnce(&mut [u8])) {
    with_workspace_bytes(lay.total, f)
}

/// The thread's product workspace ([`with_workspace`]) viewed as `len` bytes, 64-byte aligned
/// (also for `ntru/amx.rs`).
pub(crate) fn with_workspace_bytes(len: usize, f: impl FnOnce(&mut [u8])) {
    with_workspace(len.div_ceil(2), |ws| {
        // SAFETY: a `u16` workspace viewed as its bytes (alignment 1, every bit pattern valid),
        // for the duration of the borrow.
        let ws =
            unsafe { core::slice::from_raw_parts_mut(ws.as_mut_ptr().cast::<u8>(), ws.len() * 2) };
        f(&mut ws[..len])
    });
}

/// Sizes and workspace regions (bytes, each a multiple of 64) for degree `n`.
#[derive(Clone, Copy, Debug)]
struct Layout {
    n: usize,
    /// Output blocks of 16 coefficients, `⌈n / 16⌉`.
    t: usize,
    /// Broadcast words of four coefficients of `ã`, `⌈n / 4⌉`.
    m: usize,
    /// Window vectors `V_g`, `g < 4 t + m`.
    nv: usize,
    /// Region lengths: windows, extended `b`, staged `a`, `ã`, 32-bit sums.
    vv: usize,
    bext: usize,
    stage: usize,
    at: usize,
    sums: usize,
    total: usize,
}

/// Bytes of zeros in front of the staged `a`, read by the reversal of the last chunks of `ã`.
const PREFIX: usize = 128;

impl Layout {
    /// The sums region of the workspace `ws`.
    fn sums_of(self, ws: &[u8]) -> &[u8] {
        &ws[self.total - self.sums..self.total]
    }

    fn new(n: usize) -> Option<Self> {
        if !matches!(n, 509 | 677 | 701 | 821) {
            return None;
        }
        let (t, m) = (n.div_ceil(16), n.div_ceil(4));
        let nv = 4 * t + m;
        let round = |x: usize| x.div_ceil(64) * 64;
        // three copies of b's bytes, written 32 at a time; the windows read up to
        // 4 (nv - 1) + 64 <= 3 n
        debug_assert!(4 * (nv - 1) + 64 <= 3 * n);
        let bext = round(2 * n + n.div_ceil(32) * 32);
        let stage = round(PREFIX + n.div_ceil(32) * 32 + 1);
        let at = round(4 * m);
        let sums = 64 * (t + 1);
        let vv = 64 * nv;
        Some(Layout {
            n,
            t,
            m,
            nv,
            vv,
            bext,
            stage,
            at,
            sums,
            total: vv + bext + stage + at + sums,
        })
    }
}

/// Writes the low bytes of `x` (`n` words) to `dst` 32 at a time (up to `32 ⌈n / 32⌉` bytes,
/// zeros past `n`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn bytes_of(x: &[u16], dst: &mut [u8]) {
    let n = x.len();
    assert!(dst.len() >= n.div_ceil(32) * 32);
    for k in (0..n).step_by(32) {
        // SAFETY: the masked load reads only `x[k..min(k + 32, n)]`; the store writes
        // `dst[k..k + 32]`, in bounds by the assertion.
        unsafe {
            let v = _mm512_maskz_loadu_epi16(lanes16(n - k), x.as_ptr().add(k).cast());
            _mm256_storeu_si256(dst.as_mut_ptr().add(k).cast(), _mm512_cvtepi16_epi8(v));
        }
    }
}

/// One pass of the convolution: output blocks `t0 .. t0 + R` in registers, `m` broadcast
/// words, sums to `sums` (block `t` at bytes `64 t`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn pass<const R: usize>(t0: usize, m: usize, at: &[u8], vv: &[u8], sums: &mut [u8]) {
    assert!(at.len() >= 4 * m && vv.len() >= 64 * (4 * (t0 + R - 1) + m));
    assert!(sums.len() >= 64 * (t0 + R));
    let mut acc = [_mm512_setzero_si512(); R];
    let vp = vv.as_ptr().cast::<__m512i>();
    for mi in 0..m {
        // SAFETY: word `mi < m` of `at` and vectors `4 (t0 + k) + mi <= 4 (t0 + R - 1) + m - 1`
        // of `vv`, in bounds by the assertions.
        unsafe {
            let w = at.as_ptr().add(4 * mi).cast::<i32>().read_unaligned();
            let bc = _mm512_set1_epi32(w);
            let base = vp.add(4 * t0 + mi);
            for (k, a) in acc.iter_mut().enumerate() {
                *a = _mm512_dpbusd_epi32(*a, bc, _mm512_loadu_si512(base.add(4 * k).cast()));
            }
        }
    }
    for (k, a) in acc.iter().enumerate() {
        // SAFETY: bytes `64 (t0 + k) .. + 64` of `sums`, in bounds by the assertion.
        unsafe { _mm512_storeu_si512(sums.as_mut_ptr().add(64 * (t0 + k)).cast(), *a) };
    }
}

/// The convolution of `a` and `b` (low bytes, `a` unsigned, `b` signed) into the sums region
/// of `ws` (`lay.total` bytes): 32-bit sum `k` at bytes `4 k`.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni,avx512vbmi")]
fn tf_convolve(lay: Layout, a: &[u16], b: &[u16], ws: &mut [u8]) {
    let n = lay.n;
    let ws = &mut ws[..lay.total];
    let (vv, ws) = ws.split_at_mut(lay.vv);
    let (bext, ws) = ws.split_at_mut(lay.bext);
    let (stage, ws) = ws.split_at_mut(lay.stage);
    let (at, sums) = ws.split_at_mut(lay.at);
    debug_assert_eq!(sums.len(), lay.sums);

    // b, cyclically extended: three copies (each copy's zeros past n overwritten by the next)
    for j in 0..3 {
        bytes_of(b, &mut bext[j * n..]);
    }
    // the windows: lane l of V_g holds bytes 4 g + l .. 4 g + l + 3. The index vectors go
    // through `black_box`: with constant indices the compiler replaces each `vpermb` by six
    // unpacks and inserts, which made this loop a third of the product.
    let win: [u8; 64] = core::hint::black_box(core::array::from_fn(|x| (x / 4 + x % 4) as u8));
    let rev: [u8; 64] = core::hint::black_box(core::array::from_fn(|x| (63 - x) as u8));
    // SAFETY: plain loads of 64-byte arrays.
    let (win, rev) = unsafe {
        (
            _mm512_loadu_si512(win.as_ptr().cast()),
            _mm512_loadu_si512(rev.as_ptr().cast()),
        )
    };
    assert!(4 * (lay.nv - 1) + 64 <= bext.len() && vv.len() == 64 * lay.nv);
    for g in 0..lay.nv {
        // SAFETY: bytes 4 g .. 4 g + 64 of `bext` and 64 g .. 64 g + 64 of `vv`, in bounds by
        // the assertion.
        unsafe {
            let x = _mm512_loadu_si512(bext.as_ptr().add(4 * g).cast());
            let v = _mm512_permutexvar_epi8(win, x);
            _mm512_storeu_si512(vv.as_mut_ptr().add(64 * g).cast(), v);
        }
    }

    // ã_i = stage[PREFIX + n - i]: stage holds zeros, then a_1 .. a_{n-1} at PREFIX + 1 ..,
    // a_0 at PREFIX + n; so ã_0 = a_0, ã_i = a_{n-i}, and ã_i = 0 for n <= i < 4 m
    stage[..PREFIX].fill(0);
    bytes_of(a, &mut stage[PREFIX..]);
    stage[PREFIX] = 0;
    stage[PREFIX + n] = a[0] as u8;
    let chunks = (4 * lay.m).div_ceil(64);
    // chunk c reverses stage[PREFIX + n - 64 c - 63 ..= PREFIX + n - 64 c]
    assert!(64 * (chunks - 1) + 63 <= PREFIX + n && PREFIX + n < stage.len());
    assert!(at.len() >= 64 * chunks);
    for c in 0..chunks {
        // SAFETY: the 64 bytes read and written are in bounds by the assertions.
        unsafe {
            let src = stage.as_ptr().add(PREFIX + n - 64 * c - 63);
            let v = _mm512_permutexvar_epi8(rev, _mm512_loadu_si512(src.cast()));
            _mm512_storeu_si512(at.as_mut_ptr().add(64 * c).cast(), v);
        }
    }

    match lay.t {
        32 => {
            pass::<16>(0, lay.m, at, vv, sums);
            pass::<16>(16, lay.m, at, vv, sums);
        }
        43 => {
            pass::<22>(0, lay.m, at, vv, sums);
            pass::<21>(22, lay.m, at, vv, sums);
        }
        44 => {
            pass::<22>(0, lay.m, at, vv, sums);
            pass::<22>(22, lay.m, at, vv, sums);
        }
        _ => {
            debug_assert_eq!(lay.t, 52);
            pass::<26>(0, lay.m, at, vv, sums);
            pass::<26>(26, lay.m, at, vv, sums);
        }
    }
}

/// Writes the `n = out.len()` outputs from the 32-bit sums (`c_k` at bytes `4 k`, filled by
/// [`tf_convolve`] or an AMX convolution; at least `32 ⌈n / 32⌉` of them).
#[target_feature(enable = "avx512f,avx512bw")]
fn tf_finish(out: &mut [u16], sums: &[u8], finish: Finish) {
    let n = out.len();
    // S3: out_k = (c_k + 2 c_{n-1}) mod 3 (poly_mod_3_Phi_n), c_k + 2 c_{n-1} < 12 n < 2^15;
    // Mod256: out_k = c_k mod 2^8 (the 16-bit truncation keeps it)
    let last = match finish {
        Finish::S3 => i32::from_le_bytes(sums[4 * (n - 1)..4 * n].try_into().unwrap()),
        Finish::Mod256 => 0,
    };
    assert!(sums.len() >= 4 * 32 * n.div_ceil(32));
    let (twice, third) = (_mm512_set1_epi32(2 * last), _mm512_set1_epi16(21846));
    let low = _mm512_set1_epi16(0xff);
    for k in (0..n).step_by(32) {
        // SAFETY: sums[4 k .. 4 k + 128] is in bounds by the assertion; the masked store
        // writes only out[k..min(k + 32, n)].
        unsafe {
            let p = sums.as_ptr().add(4 * k);
            let lo = _mm512_add_epi32(_mm512_loadu_si512(p.cast()), twice);
            let hi = _mm512_add_epi32(_mm512_loadu_si512(p.add(64).cast()), twice);
            let x = _mm512_inserti64x4::<1>(
                _mm512_castsi256_si512(_mm512_cvtepi32_epi16(lo)),
                _mm512_cvtepi32_epi16(hi),
            );
            let r = match finish {
                Finish::S3 => {
                    let q = _mm512_mulhi_epu16(x, third);
                    _mm512_sub_epi16(x, _mm512_add_epi16(q, _mm512_add_epi16(q, q)))
                }
                Finish::Mod256 => _mm512_and_si512(x, low),
            };
            _mm512_mask_storeu_epi16(out.as_mut_ptr().add(k).cast(), lanes16(n - k), r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::reference;
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn expected(a: &[u16], b: &[u16]) -> Vec<u16> {
        let mut r = vec![0u16; a.len()];
        reference::rq_mul(a, b, &mut r);
        reference::mod_3_phi_n(&mut r);
        r
    }

    /// Random, extreme and monomial operands against the reference product, every degree.
    #[test]
    fn matches_reference() {
        let Some(v) = Vnni::try_new() else {
            eprintln!("skipped: this CPU lacks AVX-512 VNNI/VBMI");
            return;
        };
        let mut rng = ChaCha8Rng::seed_from_u64(28);
        for n in [509, 677, 701, 821] {
            let mut cases: Vec<(Vec<u16>, Vec<u16>)> = vec![
                (vec![0; n], vec![0; n]),
                (vec![2; n], vec![2; n]),
                (vec![1; n], vec![2; n]),
            ];
            for _ in 0..40 {
                let a = (0..n).map(|_| rng.gen_range(0..3)).collect();
                let b = (0..n).map(|_| rng.gen_range(0..3)).collect();
                cases.push((a, b));
            }
            // monomials at the ends and inside: every index path of ã and the windows
            for (i, j) in [
                (0, 0),
                (0, n - 1),
                (n - 1, 0),
                (n - 1, n - 1),
                (1, n - 2),
                (5, 17),
            ] {
                let (mut a, mut b) = (vec![0u16; n], vec![0u16; n]);
                a[i] = 2;
                b[j] = 1;
                cases.push((a, b));
            }
            for i in 0..n {
                let (mut a, mut b) = (vec![0u16; n], vec![0u16; n]);
                a[i] = 1;
                b[(3 * i + 1) % n] = 2;
                cases.push((a, b));
            }
            for (a, b) in &cases {
                let mut out = vec![7u16; n];
                v.s3_mul(a, b, &mut out).unwrap();
                assert_eq!(out, expected(a, b), "n={n}");
            }
        }
    }

    /// Products mod 2^8 of arbitrary 16-bit inputs (only their low bytes count), out of place
    /// and in place, against the reference product masked to 8 bits.
    #[test]
    fn mod256_matches_reference() {
        let Some(v) = Vnni::try_new() else {
            eprintln!("skipped: this CPU lacks AVX-512 VNNI/VBMI");
            return;
        };
        let mut rng = ChaCha8Rng::seed_from_u64(256);
        for n in [509, 677, 701, 821] {
            let mut cases: Vec<(Vec<u16>, Vec<u16>)> = vec![
                (vec![0xffff; n], vec![0xffff; n]),
                (vec![0x80; n], vec![0x7f; n]),
                (vec![0xff; n], vec![0x80; n]),
            ];
            for _ in 0..20 {
                let a = (0..n).map(|_| rng.gen()).collect();
                let b = (0..n).map(|_| rng.gen()).collect();
                cases.push((a, b));
            }
            for (i, j) in [(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1), (3, 250)] {
                let (mut a, mut b) = (vec![0u16; n], vec![0u16; n]);
                a[i] = 0x1ff; // low byte 0xff
                b[j] = 0x380; // low byte 0x80 (-128 as a signed byte)
                cases.push((a, b));
            }
            for (a, b) in &cases {
                let mut want = vec![0u16; n];
                reference::rq_mul(a, b, &mut want);
                want.iter_mut().for_each(|x| *x &= 0xff);
                let mut out = vec![0x1234u16; n];
                v.mul_mod256(a, b, &mut out).unwrap();
                assert_eq!(out, want, "n={n}");
                let mut inplace = b.clone();
                v.mul_mod256_assign(a, &mut inplace).unwrap();
                assert_eq!(inplace, want, "n={n}, in place");
            }
        }
    }

    #[test]
    fn rejects_other_shapes() {
        let Some(v) = Vnni::try_new() else {
            eprintln!("skipped: this CPU lacks AVX-512 VNNI/VBMI");
            return;
        };
        let (a, mut out) = (vec![0u16; 512], vec![0u16; 512]);
        assert!(v.s3_mul(&a, &a, &mut out).is_none());
        let (a, b, mut out) = (vec![0u16; 509], vec![0u16; 508], vec![0u16; 509]);
        assert!(v.s3_mul(&a, &b, &mut out).is_none());
        assert!(v.mul_mod256(&a, &b, &mut out).is_none());
        let mut b = b;
        assert!(v.mul_mod256_assign(&a, &mut b).is_none());
    }
}
