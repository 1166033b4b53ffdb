//! Products in `R/q` (`q = 4591`) on AVX-512 VNNI: Toom-Cook 8-way modulo `q`, whose fifteen
//! point products are schoolbook convolutions on `vpdpwssd` ([`crate::rings::vnni_conv`]), the
//! same kernel as NTRU's `ntru/toom_vnni.rs`.
//!
//! The NTT of `fast.rs` needs two primes for a product by a small polynomial (six transforms
//! of 1536 points) and three for a general product (nine). Here, with limbs of `N = 96`
//! coefficients (`8 N = 768 >= 761`, `G = N / 16 = 6`), and `q` prime, so that any points
//! will do and every value can be reduced mod `q`:
//!
//! 1. **Evaluation** at `±x_m = ±(m + 1)` (`m < 7`) and `inf` ([`stage`]). The limbs of a
//!    general operand are first reduced to `|a| <= 2304` (Barrett). With `y = x^2`, the even
//!    and odd parts `E(y) = a0 + a2 y + a4 y^2 + a6 y^3` and `x O(y)` are four `vpdpwssd` on
//!    limbs interleaved in pairs (`(a0, a2)`, ...) by constants `2^16 x^i mod q` (centred),
//!    and `A(±x) = E(y) ± x O(y)` is brought back to 16 bits by a signed Montgomery reduction:
//!    exact mod `q`, within 2681 of zero. `A(inf) = a7`.
//! 2. **Point products**: fifteen linear convolutions of `N x N` coefficients, `8 G (G + 1) =
//!    336` `vpdpwssd` each (5,040 in all, against 8,736 for the seven of a Toom-4 with limbs of
//!    192 and `761^2 / 32 = 18,097` for a schoolbook of the whole product). The 32-bit sums
//!    are exact (below `96 · 2681^2 < 2^30`), each brought back to 16 bits by a Montgomery
//!    reduction (`w = s · 2^-16 mod q`, `|w| <= 12,825`). The sinks ([`Points`]) keep
//!    `S_m = C(x_m) + C(-x_m)` and `D_m = C(x_m) - C(-x_m)`, as pairs `(S_2k, S_2k+1)` and
//!    `(D_2k, D_2k+1)` in 32-bit lanes, `C(inf)` beside `S_6` (and zero beside `D_6`).
//! 3. **Interpolation**: the even coefficients `c_2i` of the product are the polynomial
//!    `E_C(y)` of degree 7 with `E_C(y_m) = S_m / 2` and leading coefficient `C(inf)`, the odd
//!    ones `O_C(y)` of degree 6 with `O_C(y_m) = D_m / (2 x_m)`: two matrices mod `q`
//!    ([`EVEN`], [`ODD`], from the inverse of the Vandermonde matrix of the `y_m`) applied with
//!    `vpdpwssd` to the pairs, four per 16 coefficients of each `c_j`. The two limbs `c_j`
//!    (one even, one odd `j`) that meet in a block of the full product are summed exactly in
//!    32 bits and reduced once. Then the fold modulo `x^761 - x - 1` in 16-bit lanes (the
//!    bounds of every step, checked at compile time by [`pipeline_bound`], keep the sum of
//!    three reduced blocks within `i16`), one Montgomery
//!    product by `2^48 mod q` (for the three `2^-16` of the reductions) and the centred
//!    representative.
//!
//! Every step is a fixed sequence of vector operations on addresses that depend on nothing
//! but loop counters, so the product is constant time. (Valgrind cannot execute AVX-512; the
//! constant-time tests of the KEMs run the NTT under `LATPOLY_ISA=avx2`.)

#![allow(unsafe_code)]

use super::fast::{barrett_v, centre, inv_2_16, inv_mod, pow_mod};
use super::{P, PADDED, Q};
use crate::arith::mulhi_x86::mulhi_epi16_512;
use crate::rings::vnni_conv::{dpwssd, full_rate_vnni, lanes16, pairs, point, Sink};
use core::arch::x86_64::*;

/// Limb length `N` (`8 N = 768 >= P`).
const N: usize = 96;
/// Limbs of an operand.
const LIMBS: usize = 8;
/// `N / 16` and `G + 1`, the shape parameters of [`point`].
const G: usize = 6;
const D: usize = 7;
/// One chunk of all six groups, four of whose middle sums take the odd `j` in a second
/// register ([`point`]): with seven windows the chains of dependent `vpdpwssd` would otherwise
/// bound the chunk (`2 C + D + EX = 23` registers).
const C1: usize = 6;
const C2: usize = 0;
const EX: usize = 4;
/// Pairs of points `±x_m`, `x_m = m + 1`.
const PAIRS: usize = 7;
/// Points of Toom-8: the pairs, then `inf`.
const PTS: usize = 2 * PAIRS + 1;
/// Stride of an evaluated point: 16 zeros, the `N` values, 48 zeros (what [`pairs`] reads).
const BS: usize = N + 64;
/// Length of a point product (`2 N - 1` coefficients and a zero).
const PL: usize = 2 * N;
/// Blocks of 32 coefficients of a point product.
const UB: usize = PL / 32;
/// Full product buffer: `16 N` coefficients, then zeros read by the fold's last loads.
const FULL: usize = 16 * N + 64;

/// Workspace regions (`u16`, multiples of 32, so each starts on a 64-byte boundary): the
/// evaluated operands, the pair array of one point, the product at `x_m` until the one at
/// `-x_m` arrives, and the arrays of pairs of sums and of differences ([`Points`]: four arrays
/// of `2 N` 32-bit lanes each). The full product reuses the operands' region.
const B_OFF: usize = PTS * BS;
const WIN_OFF: usize = 2 * PTS * BS;
const WIN_LEN: usize = 32 * (G + 2);
const T_OFF: usize = WIN_OFF + WIN_LEN;
/// Length of one array of pairs (`2 N` 32-bit lanes).
const PV_STRIDE: usize = 2 * PL;
const S_OFF: usize = T_OFF + PV_STRIDE;
const D_OFF: usize = S_OFF + 4 * PV_STRIDE;
const TOTAL: usize = D_OFF + 4 * PV_STRIDE;
const _: () = assert!(FULL <= WIN_OFF);
const _: () = {
    let q = Q as i64;
    assert!(3 * BLOCK_BOUND * (q - 1) / 2 + (1 << 15) * q < (3 * q / 2) << 16);
};

/// `q^-1 mod 2^16`.
const QINV: i16 = inv_2_16(Q as i16);
/// `round(2^27 / q)`: the Barrett multiplier.
const BARRETT_V: i16 = barrett_v(Q as i16);

/// `x mod q`, centred, as the word of a `vpdpwssd` operand.
const fn word(x: i64) -> u32 {
    centre(x, Q as i64) as i16 as u16 as u32
}

/// `(lo, hi)` in one 32-bit lane, low word first.
const fn pair(lo: i64, hi: i64) -> i32 {
    (word(lo) | (word(hi) << 16)) as i32
}

/// The evaluation constants of the pair `±x_m`, by the limb pairs `(a0, a2)`, `(a4, a6)` (for
/// `E(y)`) and `(a1, a3)`, `(a5, a7)` (for `x O(y)`): `2^16 x^i mod q`, the factor `2^16`
/// undone by the Montgomery reduction of the point.
const EVAL: [[i32; 4]; PAIRS] = {
    let q = Q as i64;
    let mut r = [[0; 4]; PAIRS];
    let mut m = 0;
    while m < PAIRS {
        let x = m as i64 + 1;
        let mut pw = [0; LIMBS];
        let mut i = 0;
        while i < LIMBS {
            pw[i] = (1 << 16) * x.pow(i as u32) % q;
            i += 1;
        }
        r[m] = [
            pair(pw[0], pw[2]),
            pair(pw[4], pw[6]),
            pair(pw[1], pw[3]),
            pair(pw[5], pw[7]),
        ];
        m += 1;
    }
    r
};

/// The inverse mod `q` of the Vandermonde matrix `V[m][i] = y_m^i` (`y_m = (m + 1)^2`,
/// `i < 7`), by Gauss-Jordan elimination (the `y_m` are distinct mod `q`, so every pivot
/// search succeeds).
const fn vandermonde_inverse() -> [[i64; PAIRS]; PAIRS] {
    let q = Q as i64;
    let (mut a, mut inv) = ([[0; PAIRS]; PAIRS], [[0; PAIRS]; PAIRS]);
    let mut m = 0;
    while m < PAIRS {
        let y = (m as i64 + 1) * (m as i64 + 1);
        let mut i = 0;
        while i < PAIRS {
            a[m][i] = pow_mod(y, i as i64, q);
            i += 1;
        }
        inv[m][m] = 1;
        m += 1;
    }
    let mut c = 0;
    while c < PAIRS {
        let mut r = c;
        while a[r][c] == 0 {
            r += 1;
        }
        let (t, u) = (a[r], inv[r]);
        (a[r], inv[r]) = (a[c], inv[c]);
        (a[c], inv[c]) = (t, u);
        let p = inv_mod(a[c][c], q);
        let mut i = 0;
        while i < PAIRS {
            a[c][i] = a[c][i] * p % q;
            inv[c][i] = inv[c][i] * p % q;
            i += 1;
        }
        let mut r = 0;
        while r < PAIRS {
            let f = a[r][c];
            if r != c && f != 0 {
                let mut i = 0;
                while i < PAIRS {
                    a[r][i] = (a[r][i] - f * a[c][i]).rem_euclid(q);
                    inv[r][i] = (inv[r][i] - f * inv[c][i]).rem_euclid(q);
                    i += 1;
                }
            }
            r += 1;
        }
        c += 1;
    }
    inv
}

/// Even coefficients: `c_2i = sum_k EVEN[i][k] S_k + EVEN[i][7] C(inf)` mod `q` (`i < 7`; `c_14
/// = C(inf)`): with `W` the inverse Vandermonde matrix, `E_C(y) - C(inf) y^7` of degree 6
/// takes `S_m / 2 - C(inf) y_m^7` at `y_m`.
const EVEN: [[i64; PAIRS + 1]; PAIRS + 1] = {
    let q = Q as i64;
    let w = vandermonde_inverse();
    let half = (q + 1) / 2;
    let mut r = [[0; PAIRS + 1]; PAIRS + 1];
    let mut i = 0;
    while i < PAIRS {
        let mut k = 0;
        while k < PAIRS {
            let y = (k as i64 + 1) * (k as i64 + 1);
            r[i][k] = w[i][k] * half % q;
            r[i][PAIRS] = (r[i][PAIRS] - w[i][k] * pow_mod(y, PAIRS as i64, q)).rem_euclid(q);
            k += 1;
        }
        i += 1;
    }
    r[PAIRS][PAIRS] = 1;
    r
};

/// Odd coefficients: `c_(2i + 1) = sum_k ODD[i][k] D_k` mod `q`: `O_C(y_m) = D_m / (2 x_m)`.
const ODD: [[i64; PAIRS]; PAIRS] = {
    let q = Q as i64;
    let w = vandermonde_inverse();
    let mut r = [[0; PAIRS]; PAIRS];
    let mut i = 0;
    while i < PAIRS {
        let mut k = 0;
        while k < PAIRS {
            r[i][k] = w[i][k] * inv_mod(2 * (k as i64 + 1), q) % q;
            k += 1;
        }
        i += 1;
    }
    r
};

/// [`EVEN`] and [`ODD`] as `vpdpwssd` operands: entry `k` of row `i` pairs the factors of
/// `S_2k` / `D_2k` (low word) and `S_2k+1` / `D_2k+1` (high word; for `k = 3`, `C(inf)` and
/// zero).
const EVEN_PAIRS: [[i32; 4]; PAIRS + 1] = {
    let mut r = [[0; 4]; PAIRS + 1];
    let mut i = 0;
    while i <= PAIRS {
        let mut k = 0;
        while k < 4 {
            r[i][k] = pair(EVEN[i][2 * k], EVEN[i][2 * k + 1]);
            k += 1;
        }
        i += 1;
    }
    r
};
const ODD_PAIRS: [[i32; 4]; PAIRS] = {
    let mut r = [[0; 4]; PAIRS];
    let mut i = 0;
    while i < PAIRS {
        let mut k = 0;
        while k < 4 {
            let hi = if 2 * k + 1 < PAIRS {
                ODD[i][2 * k + 1]
            } else {
                0
            };
            r[i][k] = pair(ODD[i][2 * k], hi);
            k += 1;
        }
        i += 1;
    }
    r
};

/// The final factor: `2^48 mod q` (the fold's values carry `2^-32`, and the Montgomery product
/// by this constant one more `2^-16`).
const FINAL: i16 = centre(pow_mod(2, 48, Q as i64), Q as i64) as i16;
/// `FINAL · q^-1 mod 2^16`.
const FINAL_QINV: i16 = FINAL.wrapping_mul(QINV);

/// Largest magnitude a signed Montgomery reduction of 32-bit sums may take.
const REDC_LIMIT: i64 = (1 << 31) - (1 << 16) * Q as i64;

/// Bound on the Montgomery reduction of a sum of magnitude at most `s`: `|s - t q| / 2^16 <=
/// (s + 2^15 q) / 2^16`, an integer, so at most `floor(s / 2^16) + 2296`.
const fn redc_bound(s: i64) -> i64 {
    assert!(s < REDC_LIMIT);
    s / (1 << 16) + (Q as i64 + 1) / 2
}

/// `[|lo|, |hi|]` of a `vpdpwssd` operand.
const fn abs_words(p: i32) -> [i64; 2] {
    [(p as i16 as i64).abs(), ((p >> 16) as i16 as i64).abs()]
}

/// The magnitude bounds of the pipeline for these points and matrices, the worst case of
/// either product (a small operand's points are below a general one's), checked at compile
/// time. Returns the bound on a block of the full product after its reduction.
///
/// * Points: limbs within 2304 (Barrett), so `|A(±x_m)| <= redc_bound(2304 · sum |EVAL[m]|)`
///   (at most 2681), `|A(inf)| <= 2304`.
/// * Point products: below `96 |A|^2` (an `N`-term convolution), reduced by the sinks; `S_m`
///   and `D_m` add two of those in 16 bits.
/// * Interpolation: a block sums one row of [`EVEN`] and one of [`ODD`] (`c_2i` meets
///   `c_(2i - 1)` or `c_(2i + 1)`) times those bounds; reduced, three of them (the fold) must
///   stay in `i16`.
const fn pipeline_bound() -> i64 {
    // bounds on the inputs of the interpolation: S_0 .. S_6, C(inf) and D_0 .. D_6, 0
    let (mut even, mut odd) = ([0; 8], [0; 8]);
    let mut m = 0;
    while m < PAIRS {
        let mut s = 0;
        let mut k = 0;
        while k < 4 {
            let [lo, hi] = abs_words(EVAL[m][k]);
            s += lo + hi;
            k += 1;
        }
        let a = redc_bound(2304 * s);
        // S_m and D_m: two reduced point products
        even[m] = 2 * redc_bound(96 * a * a);
        odd[m] = even[m];
        assert!(even[m] <= i16::MAX as i64);
        m += 1;
    }
    even[PAIRS] = redc_bound(96 * 2304 * 2304);
    let mut worst = 0;
    let mut i = 0;
    while i <= PAIRS {
        // the odd rows i - 1 and i
        let mut o = if i == 0 { 0 } else { i - 1 };
        while o <= i && o < PAIRS {
            let mut sum = 0;
            let mut k = 0;
            while k < 4 {
                let ([e0, e1], [d0, d1]) =
                    (abs_words(EVEN_PAIRS[i][k]), abs_words(ODD_PAIRS[o][k]));
                sum +=
                    e0 * even[2 * k] + e1 * even[2 * k + 1] + d0 * odd[2 * k] + d1 * odd[2 * k + 1];
                k += 1;
            }
            if sum > worst {
                worst = sum;
            }
            o += 1;
        }
        i += 1;
    }
    let block = redc_bound(worst);
    assert!(3 * block <= i16::MAX as i64);
    block
}
/// The bound on a reduced block of the full product (see [`pipeline_bound`]): three of them,
/// the fold's sum, stay within `i16`, so no Barrett step comes between.
const BLOCK_BOUND: i64 = pipeline_bound();

/// Proof that the CPU runs AVX-512F, BW and VNNI at full rate
/// ([`crate::rings::vnni_conv::full_rate_vnni`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PrimeVnni(());

/// The memory of one product (17 KB, 64-byte aligned). Every product writes each region before
/// reading it; the KEMs wipe it after each operation (`ScratchWipe`).
#[repr(C, align(64))]
pub(crate) struct Workspace([u16; TOTAL]);

impl Workspace {
    pub(crate) fn new() -> Box<Self> {
        Box::new(Workspace([0; TOTAL]))
    }

    /// Zeroes the workspace.
    pub(crate) fn wipe(&mut self) {
        crate::secret::wipe(&mut self.0);
    }

    /// Whether every entry is zero (for tests).
    #[cfg(test)]
    pub(crate) fn is_zero(&self) -> bool {
        self.0.iter().all(|&x| x == 0)
    }
}

/// The second operand of a product.
#[derive(Clone, Copy)]
enum Rhs<'a> {
    /// Coefficients in `{-1, 0, 1}`.
    Small(&'a [i8]),
    /// Any `i16`.
    General(&'a [i16]),
}

impl PrimeVnni {
    /// The token, where [`full_rate_vnni`] holds.
    pub(crate) fn try_new() -> Option<Self> {
        full_rate_vnni().then_some(Self(()))
    }

    /// The token where [`PrimeVnni::mul_rq_small`] is also faster than the AVX-512 transforms
    /// of `fast.rs`: not on AMD Zen 5, where the transforms took 1.25 µs for `R/q × small`
    /// against 1.33 µs for the Toom-4 that this Toom-8 replaced (minima of 200 batches of 100
    /// in one process; in sntrup761 decapsulation, two such products, 6.95-7.06 -> 6.82-6.88
    /// µs); Toom-8, about 15% faster than that Toom-4 on Intel, has not been measured there.
    /// The general product was the faster one there too (1.34 µs against 1.92).
    pub(crate) fn for_small() -> Option<Self> {
        Self::try_new().filter(|_| !crate::cpu::is_zen5())
    }

    /// `out[..P] = a · s` in `R/q`, centred, for any `i16` coefficients `a` and `s` in
    /// `{-1, 0, 1}` (the caller checks; other values of `s` may give wrong results, never
    /// undefined behaviour). `out` has at least [`PADDED`] entries; those past `P` are
    /// overwritten with unspecified values.
    ///
    /// # Panics
    /// When `a` or `s` has fewer than `P` entries or `out` fewer than [`PADDED`].
    pub(crate) fn mul_rq_small(self, ws: &mut Workspace, a: &[i16], s: &[i8], out: &mut [i16]) {
        assert!(a.len() >= P && s.len() >= P && out.len() >= PADDED);
        // SAFETY: the token proves AVX-512F, BW and VNNI, the features of the entry point.
        unsafe { tf_mul(ws, a, Rhs::Small(s), out) }
    }

    /// `out[..P] = a · b` in `R/q`, centred, for any `i16` coefficients (see
    /// [`PrimeVnni::mul_rq_small`]).
    ///
    /// # Panics
    /// When `a` or `b` has fewer than `P` entries or `out` fewer than [`PADDED`].
    pub(crate) fn mul_rq(self, ws: &mut Workspace, a: &[i16], b: &[i16], out: &mut [i16]) {
        assert!(a.len() >= P && b.len() >= P && out.len() >= PADDED);
        // SAFETY: as above.
        unsafe { tf_mul(ws, a, Rhs::General(b), out) }
    }
}

/// Barrett reduction: `a - round(a / q) q`, within `(q + 1) / 2 + 8 = 2304` of zero for any
/// `i16` (exhaustive test). The quotient is `round(mulhi(a, round(2^27 / q)) / 2^11)`, the
/// rounding shift a `vpmulhrsw` by `2^4`, as in `fast.rs`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn barrett(a: __m512i) -> __m512i {
    let t = _mm512_mulhrs_epi16(
        mulhi_epi16_512(a, _mm512_set1_epi16(BARRETT_V)),
        _mm512_set1_epi16(16),
    );
    _mm512_sub_epi16(a, _mm512_mullo_epi16(t, _mm512_set1_epi16(Q as i16)))
}

/// Signed Montgomery reduction of the 32-bit lanes `s` (`|s| < 2^31 - 2^16 q`): `s - t q`
/// with `t = s · q^-1 mod 2^16` (signed), a multiple of `2^16` whose high half `w = s · 2^-16
/// mod q` has magnitude at most `|s| / 2^16 + q / 2` (the low half is zero). The product `t q`
/// is subtracted by a `vpdpwssd` of `t` (low word; the high word of `t` is zero) and `(-q, 0)`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn redc_high(s: __m512i) -> __m512i {
    let t = _mm512_mullo_epi16(s, _mm512_set1_epi32(i32::from(QINV as u16)));
    dpwssd(s, t, _mm512_set1_epi32(i32::from(Q.wrapping_neg())))
}

/// [`redc_high`] in the low 16 bits of each lane (the high bits are zero).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn redc_low(s: __m512i) -> __m512i {
    _mm512_srli_epi32(redc_high(s), 16)
}

/// [`redc_high`] sign-extended to 32 bits.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn redc_wide(s: __m512i) -> __m512i {
    _mm512_srai_epi32(redc_high(s), 16)
}

/// Where a point product goes ([`Points`]).
#[derive(Clone, Copy)]
enum Role {
    /// At `x_m`: kept until the product at `-x_m` arrives.
    Plus,
    /// At `-x_m`: the sum and the difference with the one at `x_m`.
    Minus(usize),
    /// At `inf`: beside `S_6`.
    Inf,
}

/// The point products' sink: block `k`, Montgomery-reduced (`w`), into the 32-bit lanes
/// `16 k ..` of its array. `Plus`: `w` into the low halves of the product at `x_m` (`t`).
/// `Minus(m)`: `t + w` and `t - w` into the low (even `m`, which zeroes the high halves) or
/// high (odd `m`) halves of the arrays of pairs `(S_2i, S_2i+1)` and `(D_2i, D_2i+1)`, `i = m /
/// 2`. `Inf`: `w` into the high halves of the last sums array, beside `S_6`. The points run in
/// order, each handing over all its blocks, so the halves a sink blends into were written
/// before.
struct Points<'a> {
    /// The regions from [`T_OFF`] on.
    dst: &'a mut [u16],
    role: Role,
}

/// `old` with the high halves of its 32-bit lanes replaced by the low halves of `new`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn into_high(old: __m512i, new: __m512i) -> __m512i {
    _mm512_mask_blend_epi16(0xaaaa_aaaa, old, _mm512_slli_epi32(new, 16))
}

impl Sink for Points<'_> {
    #[inline(always)]
    fn put(&mut self, k: usize, sums: __m512i) {
        const S: usize = S_OFF - T_OFF;
        const D: usize = D_OFF - T_OFF;
        let at = 32 * k;
        // SAFETY: `point`, the only caller, runs with AVX-512F, BW and VNNI, the features of
        // the functions called here.
        unsafe {
            match self.role {
                Role::Plus => st(self.dst, at, redc_low(sums)),
                Role::Inf => {
                    let at = S + 3 * PV_STRIDE + at;
                    let old = ld(self.dst, at);
                    st(
                        self.dst,
                        at,
                        _mm512_mask_blend_epi16(0xaaaa_aaaa, old, redc_high(sums)),
                    );
                }
                Role::Minus(m) => {
                    let (t, w) = (ld(self.dst, at), redc_low(sums));
                    let (s, d) = (_mm512_add_epi16(t, w), _mm512_sub_epi16(t, w));
                    let (s_at, d_at) = (S + m / 2 * PV_STRIDE + at, D + m / 2 * PV_STRIDE + at);
                    if m % 2 == 0 {
                        st(self.dst, s_at, s);
                        st(self.dst, d_at, d);
                    } else {
                        st(self.dst, s_at, into_high(ld(self.dst, s_at), s));
                        st(self.dst, d_at, into_high(ld(self.dst, d_at), d));
                    }
                }
            }
        }
    }
}

/// Coefficients `start .. start + 32` of a polynomial of `P` coefficients (zero past `P`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_i16(x: &[i16], start: usize) -> __m512i {
    assert!(x.len() >= P);
    if start >= P {
        return _mm512_setzero_si512();
    }
    // SAFETY: the masked load reads only x[start..min(start + 32, P)] (AVX-512BW enabled).
    unsafe { _mm512_maskz_loadu_epi16(lanes16(P - start), x.as_ptr().add(start).cast()) }
}

/// As [`load_i16`] for `i8` coefficients, sign-extended.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_i8(x: &[i8], start: usize) -> __m512i {
    assert!(x.len() >= P);
    if start >= P {
        return _mm512_setzero_si512();
    }
    // SAFETY: the masked load reads only x[start..min(start + 32, P)] (AVX-512BW enabled).
    let v = unsafe {
        _mm512_maskz_loadu_epi8(u64::from(lanes16(P - start)), x.as_ptr().add(start).cast())
    };
    _mm512_cvtepi8_epi16(_mm512_castsi512_si256(v))
}

/// Evaluates the operand whose 32 coefficients at `c` of limb `i` [`load_i16`] or
/// [`load_i8`] gives (the limbs of a general operand reduced by [`barrett`] first) into `dst`
/// (`PTS` strides of [`BS`]: 16 zeros, the `N` values, zeros), points `x_0, -x_0, x_1, ...,
/// inf` (see the module documentation).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn stage(x: Rhs<'_>, dst: &mut [u16]) {
    assert!(dst.len() == PTS * BS);
    for p in 0..PTS {
        dst[p * BS..p * BS + 16].fill(0);
        dst[p * BS + 16 + N..(p + 1) * BS].fill(0);
    }
    for c in (0..N).step_by(32) {
        let mut a = [_mm512_setzero_si512(); LIMBS];
        for (i, limb) in a.iter_mut().enumerate() {
            *limb = match x {
                Rhs::Small(s) => load_i8(s, i * N + c),
                Rhs::General(g) => barrett(load_i16(g, i * N + c)),
            };
        }
        // the limb pairs (a0, a2), (a4, a6), (a1, a3), (a5, a7), by the coefficients of each
        // 128-bit lane's low (h = 0) and high (h = 1) half; vpackssdw puts them back in order
        let mut pairs = [[_mm512_setzero_si512(); 2]; 4];
        for (pr, (i, j)) in pairs.iter_mut().zip([(0, 2), (4, 6), (1, 3), (5, 7)]) {
            *pr = [
                _mm512_unpacklo_epi16(a[i], a[j]),
                _mm512_unpackhi_epi16(a[i], a[j]),
            ];
        }
        for (m, ev) in EVAL.iter().enumerate() {
            let mut c4 = [_mm512_setzero_si512(); 4];
            for (c, &e) in c4.iter_mut().zip(ev) {
                *c = _mm512_set1_epi32(e);
            }
            let (mut plus, mut minus) = ([_mm512_setzero_si512(); 2], [_mm512_setzero_si512(); 2]);
            for h in 0..2 {
                let e = dpwssd(_mm512_madd_epi16(c4[0], pairs[0][h]), c4[1], pairs[1][h]);
                let o = dpwssd(_mm512_madd_epi16(c4[2], pairs[2][h]), c4[3], pairs[3][h]);
                plus[h] = redc_wide(_mm512_add_epi32(e, o));
                minus[h] = redc_wide(_mm512_sub_epi32(e, o));
            }
            st(
                dst,
                2 * m * BS + 16 + c,
                _mm512_packs_epi32(plus[0], plus[1]),
            );
            st(
                dst,
                (2 * m + 1) * BS + 16 + c,
                _mm512_packs_epi32(minus[0], minus[1]),
            );
        }
        st(dst, 2 * PAIRS * BS + 16 + c, a[7]);
    }
}

/// The product (see the module documentation).
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn tf_mul(ws: &mut Workspace, a: &[i16], b: Rhs<'_>, out: &mut [i16]) {
    let ws = &mut ws.0[..];
    let (abuf, rest) = ws.split_at_mut(B_OFF);
    let (bbuf, rest) = rest.split_at_mut(WIN_OFF - B_OFF);
    let (win, dst) = rest.split_at_mut(WIN_LEN);
    stage(Rhs::General(a), abuf);
    stage(b, bbuf);
    // in order of p, each product handing over all its blocks ([`Points`])
    for p in 0..PTS {
        pairs::<D>(&bbuf[p * BS..(p + 1) * BS], win);
        let role = match p {
            _ if p == PTS - 1 => Role::Inf,
            _ if p % 2 == 0 => Role::Plus,
            _ => Role::Minus(p / 2),
        };
        point::<G, D, C1, C2, EX, _>(
            &abuf[p * BS + 16..p * BS + 16 + N],
            win,
            &mut Points { dst, role },
        );
    }
    interpolate(ws, out);
}

/// 32 words of `s` from `at`.
#[inline]
#[target_feature(enable = "avx512f")]
fn ld(s: &[u16], at: usize) -> __m512i {
    let s = &s[at..at + 32];
    // SAFETY: 32 readable words (AVX-512F enabled).
    unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
}

/// Stores 32 words at `s[at..]`.
#[inline]
#[target_feature(enable = "avx512f")]
fn st(s: &mut [u16], at: usize, v: __m512i) {
    let s = &mut s[at..at + 32];
    // SAFETY: 32 writable words (AVX-512F enabled).
    unsafe { _mm512_storeu_si512(s.as_mut_ptr().cast(), v) }
}

/// The four arrays of pairs of sums or of differences.
type Arrays = [u16; 4 * PV_STRIDE];

/// Adds blocks `U0 .. U0 + 3` of `c_j` to `acc` (the low and high 16 coefficients of each):
/// row `j / 2` of [`EVEN_PAIRS`] times the sums, or of [`ODD_PAIRS`] times the differences.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn limb<const U0: usize>(acc: &mut [__m512i; 6], j: usize, sums: &Arrays, diffs: &Arrays) {
    let (src, row) = if j.is_multiple_of(2) {
        (sums, &EVEN_PAIRS[j / 2])
    } else {
        (diffs, &ODD_PAIRS[j / 2])
    };
    for (k, &f) in row.iter().enumerate() {
        let c = _mm512_set1_epi32(f);
        for (r, s) in acc.iter_mut().enumerate() {
            *s = dpwssd(*s, c, ld(src, k * PV_STRIDE + 64 * U0 + 32 * r));
        }
    }
}

/// Interpolation, fold and final reduction from the arrays of sums and differences (at
/// [`S_OFF`] and [`D_OFF`] of `ws`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
fn interpolate(ws: &mut [u16], out: &mut [i16]) {
    let (full, rest) = ws.split_at_mut(WIN_OFF);
    let full = &mut full[..FULL];
    // arrays of a known length, so that the loads of `limb` need no bounds checks
    let sums: &Arrays = rest[S_OFF - WIN_OFF..D_OFF - WIN_OFF].try_into().unwrap();
    let diffs: &Arrays = rest[D_OFF - WIN_OFF..TOTAL - WIN_OFF].try_into().unwrap();
    // The 32-bit sums of vpackssdw's two inputs come out interleaved by four per 128-bit lane:
    // this puts them back in order.
    let order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
    // The limb stride N = 96 is three blocks of 32 coefficients: blocks 3 l + r (r < 3) of the
    // full product are blocks r of c_l and r + 3 of c_(l - 1), where they exist (one even and
    // one odd j). The three blocks' six sums run side by side, each factor broadcast once.
    for l in 0..=PTS {
        let mut acc = [_mm512_setzero_si512(); 6];
        if l < PTS {
            limb::<0>(&mut acc, l, sums, diffs);
        }
        if l > 0 {
            limb::<{ UB / 2 }>(&mut acc, l - 1, sums, diffs);
        }
        for r in 0..3 {
            let y = _mm512_packs_epi32(redc_wide(acc[2 * r]), redc_wide(acc[2 * r + 1]));
            st(full, 96 * l + 32 * r, _mm512_permutexvar_epi64(order, y));
        }
    }
    full[16 * N..].fill(0);
    // Fold mod x^761 - x - 1: r_i = c_i + c_(i + 761) + c_(i + 760) (the last for i >= 1),
    // then the Montgomery product by FINAL and the centred representative.
    let (fin, finq, q) = (
        _mm512_set1_epi16(FINAL),
        _mm512_set1_epi16(FINAL_QINV),
        _mm512_set1_epi16(Q as i16),
    );
    let (half, neg_half) = (
        _mm512_set1_epi16((Q / 2) as i16),
        _mm512_set1_epi16(-((Q / 2) as i16)),
    );
    assert!(out.len() >= PADDED);
    for i in (0..PADDED).step_by(32) {
        let x2 = if i == 0 {
            // SAFETY: reads full[761..792] (AVX-512BW enabled): lane 0 (c_760) is masked off.
            unsafe { _mm512_maskz_loadu_epi16(!1, full.as_ptr().add(P - 1).cast()) }
        } else {
            ld(full, i + P - 1)
        };
        let z = _mm512_add_epi16(_mm512_add_epi16(ld(full, i), ld(full, i + P)), x2);
        let r = _mm512_sub_epi16(
            mulhi_epi16_512(z, fin),
            mulhi_epi16_512(_mm512_mullo_epi16(z, finq), q),
        );
        // |z| <= 3 BLOCK_BOUND < 2^15, so |r| <= (|z| (q - 1) / 2 + 2^15 q) / 2^16 < 3q / 2:
        // one correction each way
        let r = _mm512_mask_sub_epi16(r, _mm512_cmpgt_epi16_mask(r, half), r, q);
        let r = _mm512_mask_add_epi16(r, _mm512_cmplt_epi16_mask(r, neg_half), r, q);
        let o = &mut out[i..i + 32];
        // SAFETY: 32 writable entries (AVX-512F enabled).
        unsafe { _mm512_storeu_si512(o.as_mut_ptr().cast(), r) };
    }
}

#[cfg(test)]
mod tests {
    use super::super::scalar;
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The token, or `None` with a note that the test is skipped.
    fn token() -> Option<PrimeVnni> {
        let v = PrimeVnni::try_new();
        if v.is_none() {
            eprintln!("skipped: this CPU lacks AVX-512 VNNI (or is an AMD Zen 4)");
        }
        v
    }

    /// The words of a `vpdpwssd` operand, signed.
    fn words(p: i32) -> [i64; 2] {
        [i64::from(p as i16), i64::from((p >> 16) as i16)]
    }

    /// The evaluation constants give `2^16 A(±x_m)` and the interpolation matrices invert the
    /// evaluation (at random and extreme coefficients, mod `q`), as the pipeline applies them:
    /// sums and differences of the points, `C(inf)` beside `S_6`.
    #[test]
    fn constants() {
        let q = i64::from(Q);
        let mut rng = ChaCha8Rng::seed_from_u64(15);
        let mut cases: Vec<Vec<i64>> = vec![vec![q - 1; PTS], vec![1; PTS]];
        cases.extend((0..200).map(|_| (0..PTS).map(|_| rng.gen_range(0..q)).collect()));
        for c in &cases {
            // evaluation: c as the 8 limbs a_0 .. a_7 (the first eight coefficients)
            let a = &c[..LIMBS];
            for (m, ev) in EVAL.iter().enumerate() {
                let x = m as i64 + 1;
                let [e0, e2] = words(ev[0]);
                let [e4, e6] = words(ev[1]);
                let [o1, o3] = words(ev[2]);
                let [o5, o7] = words(ev[3]);
                let e = a[0] * e0 + a[2] * e2 + a[4] * e4 + a[6] * e6;
                let o = a[1] * o1 + a[3] * o3 + a[5] * o5 + a[7] * o7;
                for (sign, v) in [(1, e + o), (-1, e - o)] {
                    let want: i64 = (0..LIMBS as u32)
                        .map(|i| a[i as usize] * (sign * x).pow(i))
                        .sum();
                    assert_eq!((v - (want << 16)).rem_euclid(q), 0, "point {}", sign * x);
                }
            }
            // interpolation: c as the 15 coefficients of a product
            let at = |x: i64| -> i64 {
                (0..PTS as u32)
                    .map(|j| c[j as usize] * pow_mod(x, j.into(), q))
                    .sum::<i64>()
                    % q
            };
            let s: Vec<i64> = (1..=PAIRS as i64).map(|x| at(x) + at(-x)).collect();
            let d: Vec<i64> = (1..=PAIRS as i64).map(|x| at(x) - at(-x)).collect();
            let mut ev_in = s.clone();
            ev_in.push(c[PTS - 1]);
            let mut od_in = d.clone();
            od_in.push(0);
            for (j, &cj) in c.iter().enumerate() {
                let (row, src) = if j % 2 == 0 {
                    (&EVEN_PAIRS[j / 2], &ev_in)
                } else {
                    (&ODD_PAIRS[j / 2], &od_in)
                };
                let got: i64 = row
                    .iter()
                    .enumerate()
                    .map(|(k, &f)| {
                        let [lo, hi] = words(f);
                        lo * src[2 * k] + hi * src[2 * k + 1]
                    })
                    .sum();
                assert_eq!((got - cj).rem_euclid(q), 0, "c_{j}");
            }
        }
        // every matrix entry is a centred residue
        for &p in EVAL
            .iter()
            .flatten()
            .chain(EVEN_PAIRS.iter().flatten())
            .chain(ODD_PAIRS.iter().flatten())
        {
            for w in words(p) {
                assert!(w.abs() <= q / 2);
            }
        }
        assert_eq!((i64::from(QINV) * q).rem_euclid(1 << 16), 1);
        assert_eq!(i64::from(FINAL).rem_euclid(q), pow_mod(2, 48, q));
        assert_eq!(
            i64::from(FINAL_QINV).rem_euclid(1 << 16),
            (i64::from(FINAL) * i64::from(QINV)).rem_euclid(1 << 16)
        );
    }

    /// Barrett's bound over every `i16`, and the Montgomery reductions on extreme sums.
    #[test]
    fn reductions() {
        if token().is_none() {
            return;
        }
        let q = i32::from(Q);
        let all: Vec<i16> = (i16::MIN..=i16::MAX).collect();
        for c in all.chunks(32) {
            let mut x = [0i16; 32];
            x[..c.len()].copy_from_slice(c);
            let mut r = [0i16; 32];
            // SAFETY: the token proves AVX-512F and BW; 32 entries each.
            unsafe {
                let v = barrett(_mm512_loadu_si512(x.as_ptr().cast()));
                _mm512_storeu_si512(r.as_mut_ptr().cast(), v);
            }
            for (&a, &b) in x.iter().zip(&r) {
                assert!(i32::from(b).abs() <= 2304, "barrett({a}) = {b}");
                assert_eq!((i32::from(a) - i32::from(b)).rem_euclid(q), 0);
            }
        }
        let limit = (1i64 << 31) - (1 << 16) * i64::from(Q) - 1;
        let mut rng = ChaCha8Rng::seed_from_u64(4591);
        let mut sums: Vec<i32> = vec![0, 1, -1, limit as i32, -limit as i32, 4591, -4591];
        sums.extend((0..4096).map(|_| rng.gen_range(-limit..=limit) as i32));
        for c in sums.chunks(16) {
            let mut x = [0i32; 16];
            x[..c.len()].copy_from_slice(c);
            let (mut lo, mut high, mut wide) = ([0u32; 16], [0u32; 16], [0i32; 16]);
            // SAFETY: as above; 16 entries each.
            unsafe {
                let v = _mm512_loadu_si512(x.as_ptr().cast());
                _mm512_storeu_si512(lo.as_mut_ptr().cast(), redc_low(v));
                _mm512_storeu_si512(high.as_mut_ptr().cast(), redc_high(v));
                _mm512_storeu_si512(wide.as_mut_ptr().cast(), redc_wide(v));
            }
            for i in 0..16 {
                let s = i64::from(x[i]);
                let w = i64::from(wide[i]);
                assert_eq!(lo[i] >> 16, 0);
                assert_eq!(lo[i] as u16 as i16 as i64, w);
                assert_eq!((high[i] >> 16) as u16 as i16 as i64, w);
                assert_eq!(high[i] & 0xffff, 0);
                assert_eq!((w * (1 << 16) - s).rem_euclid(i64::from(Q)), 0, "redc({s})");
                assert!(
                    w.abs() <= s.abs() / (1 << 16) + i64::from(Q) / 2 + 1,
                    "redc({s})"
                );
            }
        }
    }

    /// Operand pairs: zero, extremes (`a` all `i16::MAX`, all `i16::MIN`, all `q - 1`, all
    /// `-(q - 1) / 2`, `s` all 1 or all -1), random ones, and monomials at every limb boundary
    /// and both ends.
    fn cases(rng: &mut ChaCha8Rng) -> Vec<(Vec<i16>, Vec<i8>)> {
        let mut cases = vec![(vec![0i16; P], vec![0i8; P])];
        for a in [i16::MAX, i16::MIN, Q as i16 - 1, -(Q as i16 - 1) / 2, 1] {
            for s in [1i8, -1] {
                cases.push((vec![a; P], vec![s; P]));
            }
        }
        for _ in 0..40 {
            let a = (0..P).map(|_| rng.gen()).collect();
            let s = (0..P).map(|_| rng.gen_range(-1..=1)).collect();
            cases.push((a, s));
        }
        for _ in 0..10 {
            let a = (0..P).map(|_| rng.gen_range(-2295..=2295)).collect();
            let s = (0..P).map(|_| rng.gen_range(-1..=1)).collect();
            cases.push((a, s));
        }
        // both ends and every limb boundary
        let mut spots = vec![0, 1, P - 2, P - 1];
        spots.extend((1..LIMBS).flat_map(|l| [l * N - 1, l * N]));
        for &i in &spots {
            for &j in &spots {
                let (mut a, mut s) = (vec![0i16; P], vec![0i8; P]);
                a[i] = -2295;
                s[j] = -1;
                cases.push((a, s));
            }
        }
        cases
    }

    /// Both products against the schoolbook reference.
    #[test]
    fn matches_reference() {
        let Some(v) = token() else { return };
        let mut ws = Workspace::new();
        // every region must be written before it is read: start from garbage
        ws.0.fill(0xffff);
        let mut rng = ChaCha8Rng::seed_from_u64(761);
        for (a, s) in cases(&mut rng) {
            let want = scalar::mul_rq_small(&a, &s);
            let mut out = vec![0x5555i16; PADDED];
            v.mul_rq_small(&mut ws, &a, &s, &mut out);
            assert_eq!(&out[..P], &want[..]);
            // the general product, with s and with a second general operand
            let sg: Vec<i16> = s.iter().map(|&x| i16::from(x)).collect();
            let mut out = vec![0x5555i16; PADDED];
            v.mul_rq(&mut ws, &a, &sg, &mut out);
            assert_eq!(&out[..P], &want[..]);
            let b: Vec<i16> = (0..P).map(|_| rng.gen()).collect();
            let mut out = vec![0x5555i16; PADDED];
            v.mul_rq(&mut ws, &a, &b, &mut out);
            assert_eq!(&out[..P], &scalar::mul_rq(&a, &b)[..]);
        }
        for x in [i16::MAX, i16::MIN, 2295, -2295] {
            for y in [i16::MAX, i16::MIN, 2295, -2295] {
                let (a, b) = (vec![x; P], vec![y; P]);
                let mut out = vec![0i16; PADDED];
                v.mul_rq(&mut ws, &a, &b, &mut out);
                assert_eq!(&out[..P], &scalar::mul_rq(&a, &b)[..], "{x} x {y}");
            }
        }
    }
}
