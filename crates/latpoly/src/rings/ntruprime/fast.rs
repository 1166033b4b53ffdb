//! Fast products in `R/q` and `R/3`: exact integer convolution by a cyclic NTT of length
//! `N = 1536 = 3 · 2^9` in 16-bit lanes modulo up to three primes, reduction modulo
//! `x^761 - x - 1` in each prime, CRT straight to `F_4591` (or `F_3`).
//!
//! Generic over a narrow vector interface ([`Lanes`], implemented by the x86 tokens of `x86.rs`);
//! the drivers are `#[inline(always)]` and instantiated inside `#[target_feature]` entry points.
//!
//! # Transform
//!
//! Primes `7681, 10753, 12289` (all `1 mod 1536`; `psi` a primitive 1536-th root, `omega =
//! psi^512`). Forward (natural order in): one radix-3 layer splitting `x^1536 - 1` into
//! `x^512 - omega^k`, then nine Cooley–Tukey radix-2 layers, `x^2h - zeta^2 -> (x^h - zeta)(x^h +
//! zeta)`, butterfly `(a + zeta b, a - zeta b)`. The output order is whatever the in-register
//! layers leave (both operands alike), which the pointwise product does not care about.
//! Inverse: decimation in time on the "twisted" blocks (`f(rho x) mod x^h - 1`), so it also uses
//! Cooley–Tukey butterflies `(a + w b, a - w b)` with `w = psi_2h^-k` (per position, the same for
//! every block) and grows by at most `q` per layer, like the forward. The final radix-3 layer
//! untwists with `psi^-i`, `psi^-2i`. Scale factors (`1/1536`, the Montgomery `2^-16` of the
//! pointwise product) are folded into the CRT constants.
//!
//! Passes over memory (512-bit vectors): the radix-3 layer with the layer at distance 256; the
//! layers 128, 64, 32 per 256-value group in registers; the in-register layers 16..1 of both
//! operands, the pointwise product and the inverse layers 1..16; the inverse layers 32..128; the
//! inverse layer 256 with the inverse radix-3 layer; the fold. Three stores per value and
//! transform instead of the ten of one pass per layer. 256-bit vectors run the layers 64, 32,
//! 16 per 128-value group (eight vectors, as for 512-bit ones) and one more pass each way, for
//! the layer 128.
//!
//! # Arithmetic and ranges
//!
//! Values are signed `i16`. `fqmul(a, w)` is the signed Montgomery product `a·w·2^-16 mod p` with
//! a precomputed `w·p^-1 mod 2^16`: for any `i16` input its output is below
//! `(|a|·(p-1)/2 + 2^15·p) / 2^16` in absolute value ([`fq_bound`]). Additive growth is tracked
//! at table construction: a layer whose output could leave `i16` first Barrett-reduces its `a`
//! inputs (to `|x| <= (p+1)/2 + 8`, [`BARRETT_BOUND_SLACK`]). The schedule is computed per prime,
//! and every bound is asserted when the tables are built.
//!
//! Everything is branch-free in the data; table indices depend only on loop counters.
//!
//! # Cost, and why three primes
//!
//! A full product is 9 transforms of 1536 points (three primes, two forward, one inverse), about
//! 2,200 vector butterflies of 6-8 vector operations; a product by a small polynomial needs two
//! primes (6 transforms), one in `R/3` one prime. The code runs at roughly 3.3 vector operations
//! per cycle. On AVX2 the `R/q` products take one transform over `Z_4591` itself instead
//! (`direct.rs`: 135 points of 16-coefficient blocks, three transforms), which the 512-bit
//! backend cannot use as is (a vector would hold two blocks, and the odd distances of the radix-3
//! and radix-5 layers would need lane permutations). Where the CPU runs AVX-512 VNNI at full
//! rate, the AVX-512 backend takes the `R/q` products to Toom-8 over `vpdpwssd` convolutions
//! (`toom_vnni.rs`), and on AMD Zen 4 (512-bit operations as two 256-bit halves) to the direct
//! transform in 256-bit vectors; the `R/3` product stays here.

use super::{P, Q};

/// Transform length.
pub(crate) const N: usize = 1536;
/// Length of the output buffers the products write (`P` rounded up to whole vectors).
pub(crate) const PADDED: usize = super::PADDED;
/// NTT primes (each `1 mod 1536`, below `2^14`).
pub(crate) const PRIMES: [i16; 3] = [7681, 10753, 12289];
/// Radix-2 layers after the radix-3 one.
const LOG2: usize = 9;
/// Barrett output bound is `(p + 1) / 2 + BARRETT_BOUND_SLACK` (checked exhaustively in tests).
pub(crate) const BARRETT_BOUND_SLACK: i64 = 8;
/// Bound on the (Barrett-reduced, not exactly centred) inputs: `2295 + 3`, rounded up.
const INPUT_BOUND: i64 = 2304;
/// `round(2^27 / p)`: the Barrett multiplier (`< 2^15` for every modulus used here).
pub(crate) const fn barrett_v(p: i16) -> i16 {
    (((1i64 << 27) + p as i64 / 2) / p as i64) as i16
}

/// A narrow vector interface over lanes of `i16`.
///
/// Contract for implementors: every method computes lane-wise exactly what its doc says;
/// `deinterleave` / `interleave` are mutually inverse permutations such that lane `l` of `X`
/// and lane `l` of `Y` are elements `i` and `i + t` of the same block of `2t` consecutive values.
pub(crate) trait Lanes: Copy {
    /// A vector of [`Lanes::L`] lanes.
    type V: Copy;
    /// Number of lanes (a power of two, at most 32).
    const L: usize;
    /// Pairs of vectors the in-register layers process together (1 to 4; `N / (2 L)` must be a
    /// multiple): enough independent chains to hide latencies, few enough to stay in registers.
    const GROUP: usize;
    /// Pairs the inverse in-register layers process together (1 to 4, a multiple of
    /// [`Lanes::GROUP`] dividing `N / (2 L)`). When it differs from `GROUP`, the pointwise
    /// products are stored and the inverse layers run in a second pass: they hold one vector
    /// pair per chain where the forward layers hold two, so more chains fit in the registers.
    const INV_GROUP: usize = Self::GROUP;
    /// All lanes `x`.
    fn splat(self, x: i16) -> Self::V;
    /// Loads `L` values from the start of `s`.
    fn load(self, s: &[i16]) -> Self::V;
    /// Loads `L` values from the start of `s`, sign-extended.
    fn load_i8(self, s: &[i8]) -> Self::V;
    /// Stores `L` values at the start of `s`.
    fn store(self, s: &mut [i16], v: Self::V);
    /// Wrapping addition.
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// Wrapping subtraction.
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    /// Bitwise and.
    fn and(self, a: Self::V, b: Self::V) -> Self::V;
    /// Bitwise exclusive or.
    fn xor(self, a: Self::V, b: Self::V) -> Self::V;
    /// `b` where `mask` is all ones, `a` where it is zero (`mask` lanes are all ones or zero).
    #[inline(always)]
    fn select(self, mask: Self::V, a: Self::V, b: Self::V) -> Self::V {
        self.xor(a, self.and(mask, self.xor(a, b)))
    }
    /// Low 16 bits of the product.
    fn mullo(self, a: Self::V, b: Self::V) -> Self::V;
    /// High 16 bits of the signed product.
    fn mulhi(self, a: Self::V, b: Self::V) -> Self::V;
    /// `(a · b + 2^14) >> 15` (signed, rounding high product: `vpmulhrsw`).
    fn mulhrs(self, a: Self::V, b: Self::V) -> Self::V;
    /// `x > bound ? x - p : x`.
    fn gt_sub(self, x: Self::V, bound: Self::V, p: Self::V) -> Self::V;
    /// `x < bound ? x + p : x`.
    fn lt_add(self, x: Self::V, bound: Self::V, p: Self::V) -> Self::V;
    /// Splits two vectors holding `2L` consecutive values into the `X` and `Y` inputs of the
    /// butterflies at distance `t < L`.
    fn deinterleave(self, a: Self::V, b: Self::V, t: usize) -> (Self::V, Self::V);
    /// Inverse of [`Lanes::deinterleave`].
    fn interleave(self, x: Self::V, y: Self::V, t: usize) -> (Self::V, Self::V);
    /// From the butterfly layout of distance `t` to that of `t / 2`.
    #[inline(always)]
    fn step_down(self, x: Self::V, y: Self::V, t: usize) -> (Self::V, Self::V) {
        let (a, b) = self.interleave(x, y, t);
        self.deinterleave(a, b, t / 2)
    }
    /// From the butterfly layout of distance `t` to that of `2 t`.
    #[inline(always)]
    fn step_up(self, x: Self::V, y: Self::V, t: usize) -> (Self::V, Self::V) {
        let (a, b) = self.interleave(x, y, t);
        self.deinterleave(a, b, 2 * t)
    }
}

// ---------------------------------------------------------------------------------------------
// Tables (public data, built once per backend).

/// `b^e mod m` (`m < 2^31`), also for the constants of `toom_vnni.rs`.
pub(crate) const fn pow_mod(mut b: i64, mut e: i64, m: i64) -> i64 {
    let mut r = 1;
    b = b.rem_euclid(m);
    while e > 0 {
        if e & 1 == 1 {
            r = r * b % m;
        }
        b = b * b % m;
        e >>= 1;
    }
    r
}

/// `a^-1 mod m` for a prime `m` (also for the constants of `toom_vnni.rs`).
pub(crate) const fn inv_mod(a: i64, m: i64) -> i64 {
    pow_mod(a, m - 2, m) // m prime
}

/// The representative of `x mod m` in `(-m/2, m/2]`.
pub(crate) const fn centre(x: i64, m: i64) -> i64 {
    let r = x.rem_euclid(m);
    if r > m / 2 {
        r - m
    } else {
        r
    }
}

/// `p^-1 mod 2^16` (odd `p`).
pub(crate) const fn inv_2_16(p: i16) -> i16 {
    let p = p as i32;
    let mut x = p; // correct to 3 bits for odd p
    let mut i = 0;
    while i < 4 {
        x = x.wrapping_mul(2i32.wrapping_sub(p.wrapping_mul(x)));
        i += 1;
    }
    x as i16
}

/// Bound on `|fqmul(a, w)|` for `|a| <= a_bound` and a centred constant `w`.
pub(crate) fn fq_bound(p: i64, a_bound: i64) -> i64 {
    (a_bound * (p - 1) / 2 + 32768 * p) / 65536 + 1
}

/// Bound on a Barrett-reduced value.
pub(crate) fn barrett_bound(p: i64) -> i64 {
    (p + 1) / 2 + BARRETT_BOUND_SLACK
}

/// Chooses, layer by layer, whether to Barrett-reduce the `a` inputs so that `a ± fqmul(b)`
/// stays in `i16`; returns the output bound.
fn schedule(p: i64, mut b: i64, red: &mut [bool]) -> i64 {
    for r in red.iter_mut() {
        let f = fq_bound(p, b);
        if b + f > i64::from(i16::MAX) {
            *r = true;
            b = barrett_bound(p) + f;
        } else {
            b += f;
        }
        assert!(b <= i64::from(i16::MAX));
    }
    b
}

/// A multiplier constant: `w = value · 2^16 mod p` (centred) and `w · p^-1 mod 2^16`, so that
/// `fqmul(x, w, wp) = x · value mod p`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mc {
    pub w: i16,
    pub wp: i16,
}

impl Mc {
    pub(crate) fn new(value: i64, p: i16) -> Self {
        let m = i64::from(p);
        let w = centre(value.rem_euclid(m) * 65536, m) as i16;
        Mc {
            w,
            wp: w.wrapping_mul(inv_2_16(p)),
        }
    }
}

/// A multiplier constant stored pre-broadcast (32 lanes each), so the compiler loads it instead
/// of rebuilding a splat before every use.
#[derive(Clone, Debug)]
pub(crate) struct McV {
    w: [i16; 32],
    wp: [i16; 32],
}

impl From<Mc> for McV {
    fn from(c: Mc) -> Self {
        McV {
            w: [c.w; 32],
            wp: [c.wp; 32],
        }
    }
}

/// Per-modulus constants, pre-broadcast: `p`, `p^-1 mod 2^16`, the Barrett multiplier
/// `round(2^27/p)`, `(p-1)/2`, `-(p-1)/2` and `16`.
#[derive(Clone, Debug)]
pub(crate) struct ModConsts([[i16; 32]; 6]);

impl ModConsts {
    pub(crate) fn new(p: i16) -> Self {
        ModConsts([
            [p; 32],
            [inv_2_16(p); 32],
            [barrett_v(p); 32],
            [(p - 1) / 2; 32],
            [-(p - 1) / 2; 32],
            [16; 32],
        ])
    }
}

/// Tables of one prime for one backend (lane order).
#[derive(Debug)]
pub(crate) struct PrimeTables {
    consts: ModConsts,
    /// Forward radix-3 constants `omega`, `omega^2`.
    om1: McV,
    om2: McV,
    /// Forward twiddles of the radix-2 layers with `h >= L`, one per block, layer after layer.
    fwd_big: Vec<McV>,
    /// Forward in-register twiddles: per group of `S::GROUP` pairs of vectors, per layer
    /// (`h = L/2 .. 1`), per pair, `L` values `w` then `L` values `wp`, in the backend's lane
    /// order.
    fwd_small: Vec<i16>,
    /// Inverse in-register twiddles: per layer (`h = 1 .. L/2`), `L` `w` then `L` `wp`.
    inv_small: Vec<i16>,
    /// Inverse twiddles of the layers with `h >= L`: per layer, `h` values `w` then `h` `wp`.
    inv_big: Vec<i16>,
    /// Inverse radix-3 untwisting: `psi^-i` (`w`, `wp`) then `psi^-2i` (`w`, `wp`), `i < 512`.
    inv_r3: Vec<i16>,
    /// `-1/2` and `(omega - omega^2) / 2`.
    half: McV,
    c3: McV,
    /// Barrett before radix-2 layer `j` (index 0 = first radix-2 layer).
    red_fwd: [bool; LOG2],
    red_inv: [bool; LOG2],
}

/// All tables of one backend.
#[derive(Debug)]
pub(crate) struct Tables {
    pub primes: [PrimeTables; 3],
    /// CRT constants (see [`crt`]).
    k1: McV,
    k2: McV,
    p1inv_2: McV,
    k3: McV,
    p12inv_3: McV,
    p2inv_3: McV,
    p1_q: McV,
    p12_q: McV,
    /// Constants of `q = 4591` itself.
    qc: ModConsts,
}

/// The element each `X` lane holds in the layout of every in-register layer (`h = L/2, .., 1`):
/// the entry `deinterleave` at `L/2`, then the backend's `step_down` after each layer, run on
/// index vectors. Asserts the butterfly contract (lane `l` of `Y` holds the element `h` above
/// that of `X`, in the same `2h`-block) and that `step_up` undoes `step_down`, so a backend may
/// use any lane order its shuffles produce cheaply.
pub(crate) fn layouts<S: Lanes>(s: S) -> Vec<Vec<usize>> {
    let l = S::L;
    let idx: Vec<i16> = (0..2 * l as i16).collect();
    let lanes = |v: S::V| {
        let mut out = vec![0i16; l];
        s.store(&mut out, v);
        out.into_iter().map(|e| e as usize).collect::<Vec<usize>>()
    };
    let (mut x, mut y) = s.deinterleave(s.load(&idx[..l]), s.load(&idx[l..]), l / 2);
    let mut out = Vec::new();
    let mut h = l / 2;
    while h >= 1 {
        let (xs, ys) = (lanes(x), lanes(y));
        for (&a, &b) in xs.iter().zip(&ys) {
            assert!(
                b == a + h && a % (2 * h) < h,
                "lane layout breaks the butterfly contract"
            );
        }
        out.push(xs);
        if h > 1 {
            let (nx, ny) = s.step_down(x, y, h);
            let (bx, by) = s.step_up(nx, ny, h / 2);
            assert!(
                lanes(bx) == lanes(x) && lanes(by) == lanes(y),
                "step_up must undo step_down"
            );
            (x, y) = (nx, ny);
        }
        h /= 2;
    }
    out
}

impl PrimeTables {
    fn new<S: Lanes>(s: S, p: i16) -> Self {
        let l = S::L;
        let m = i64::from(p);
        // Primitive 1536-th root: psi^768 != 1 and psi^512 != 1.
        let psi = (2..m)
            .map(|g| pow_mod(g, (m - 1) / N as i64, m))
            .find(|&x| pow_mod(x, 768, m) != 1 && pow_mod(x, 512, m) != 1)
            .expect("p = 1 mod 1536 has a primitive 1536-th root");
        let psi_pow = |e: i64| pow_mod(psi, e.rem_euclid(N as i64), m);
        let omega = psi_pow(512);
        // Block exponents: a block (size 2h, exponent e) is f mod (x^2h - psi^e).
        let mut exps: Vec<i64> = vec![0, 512, 1024];
        let mut fwd_big = Vec::new();
        let mut small_layer_tw: Vec<Vec<i64>> = Vec::new(); // per small layer, per block
        for j in 0..LOG2 {
            let h = 256 >> j;
            let tw: Vec<i64> = exps.iter().map(|&e| psi_pow(e / 2)).collect();
            // `fwd_first` relies on it (block 0 divides `x^512 - 1`).
            assert!(j > 0 || tw[0] == 1);
            if h >= l {
                fwd_big.extend(tw.iter().map(|&w| McV::from(Mc::new(w, p))));
            } else {
                small_layer_tw.push(tw);
            }
            exps = exps
                .iter()
                .flat_map(|&e| [e / 2, (e / 2 + 768) % N as i64])
                .collect();
        }
        // In-register layers: h = L/2 .. 1, lane order discovered from the backend.
        let small_h: Vec<usize> = (0..l.trailing_zeros()).rev().map(|k| 1 << k).collect();
        let pos = layouts(s);
        // Order: group of `S::GROUP` pairs, then layer, then pair in the group (so one slice
        // per layer covers the whole group).
        let mut fwd_small = Vec::new();
        for grp in 0..N / (2 * l * S::GROUP) {
            for (k, &h) in small_h.iter().enumerate() {
                for pair in grp * S::GROUP..(grp + 1) * S::GROUP {
                    let mcs: Vec<Mc> = pos[k]
                        .iter()
                        .map(|&ps| Mc::new(small_layer_tw[k][(pair * 2 * l + ps) / (2 * h)], p))
                        .collect();
                    fwd_small.extend(mcs.iter().map(|c| c.w));
                    fwd_small.extend(mcs.iter().map(|c| c.wp));
                }
            }
        }
        // Inverse: w = psi_2h^-k = psi^(-k · 768 / h), k = position within the 2h-block.
        let mut inv_small = Vec::new();
        for &h in small_h.iter().rev() {
            let k_of = pos[small_h.iter().position(|&x| x == h).unwrap()].clone();
            let mcs: Vec<Mc> = k_of
                .iter()
                .map(|&ps| Mc::new(psi_pow(-((ps % (2 * h)) as i64) * 768 / h as i64), p))
                .collect();
            inv_small.extend(mcs.iter().map(|c| c.w));
            inv_small.extend(mcs.iter().map(|c| c.wp));
        }
        let mut inv_big = Vec::new();
        let mut h = l;
        while h <= 256 {
            let mcs: Vec<Mc> = (0..h)
                .map(|k| Mc::new(psi_pow(-(k as i64) * 768 / h as i64), p))
                .collect();
            inv_big.extend(mcs.iter().map(|c| c.w));
            inv_big.extend(mcs.iter().map(|c| c.wp));
            h *= 2;
        }
        let mut inv_r3 = Vec::with_capacity(4 * 512);
        for e in [1i64, 2] {
            let mcs: Vec<Mc> = (0..512).map(|i| Mc::new(psi_pow(-e * i), p)).collect();
            inv_r3.extend(mcs.iter().map(|c| c.w));
            inv_r3.extend(mcs.iter().map(|c| c.wp));
        }
        // `fwd_first` skips the product by the first twiddle of the layer at distance 256.
        assert!(INPUT_BOUND <= fq_bound(m, INPUT_BOUND));
        // Bound schedule (asserted).
        let mut red_fwd = [false; LOG2];
        let mut red_inv = [false; LOG2];
        let b0 = INPUT_BOUND;
        let b_r3 = (2 * b0).max(b0 + fq_bound(m, b0));
        let b_fwd = schedule(m, b_r3, &mut red_fwd);
        let b_pw = (b_fwd * b_fwd + 32768 * m) / 65536 + 1;
        assert!(b_pw <= i64::from(i16::MAX));
        let b_inv = schedule(m, b_pw, &mut red_inv);
        let y = fq_bound(m, b_inv);
        assert!(2 * y <= i64::from(i16::MAX));
        assert!(barrett_bound(m) + 2 * y.max(fq_bound(m, 2 * y)) <= i64::from(i16::MAX));
        assert!(3 * barrett_bound(m) <= i64::from(i16::MAX)); // the fold adds three
        PrimeTables {
            consts: ModConsts::new(p),
            om1: Mc::new(omega, p).into(),
            om2: Mc::new(omega * omega, p).into(),
            fwd_big,
            fwd_small,
            inv_small,
            inv_big,
            inv_r3,
            half: Mc::new(-inv_mod(2, m), p).into(),
            c3: Mc::new((omega - omega * omega % m) * inv_mod(2, m), p).into(),
            red_fwd,
            red_inv,
        }
    }
}

impl Tables {
    pub(crate) fn new<S: Lanes>(s: S) -> Self {
        let [p1, p2, p3] = PRIMES.map(i64::from);
        let q = i64::from(Q);
        let scale = |p: i64| 65536 * inv_mod(N as i64, p) % p; // 2^16 / 1536
        let (sp1, sp2, sp3) = (PRIMES[0], PRIMES[1], PRIMES[2]);
        let p1inv_2 = inv_mod(p1, p2);
        let p12inv_3 = inv_mod(p1 * p2 % p3, p3);
        check_crt_bounds();
        Tables {
            primes: PRIMES.map(|p| PrimeTables::new(s, p)),
            k1: Mc::new(scale(p1), sp1).into(),
            k2: Mc::new(scale(p2) * p1inv_2, sp2).into(),
            p1inv_2: Mc::new(p1inv_2, sp2).into(),
            k3: Mc::new(scale(p3) * p12inv_3, sp3).into(),
            p12inv_3: Mc::new(p12inv_3, sp3).into(),
            p2inv_3: Mc::new(inv_mod(p2, p3), sp3).into(),
            p1_q: Mc::new(p1, Q as i16).into(),
            p12_q: Mc::new(p1 * p2 % q, Q as i16).into(),
            qc: ModConsts::new(Q as i16),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Lane arithmetic.

/// Per-modulus vector constants.
#[derive(Clone, Copy)]
pub(crate) struct Modv<V> {
    pub(crate) p: V,
    pinv: V,
    v: V,
    half: V,
    neg_half: V,
    c16: V,
}

impl<V: Copy> Modv<V> {
    #[inline(always)]
    pub(crate) fn new<S: Lanes<V = V>>(s: S, c: &ModConsts) -> Self {
        Modv {
            p: s.load(&c.0[0]),
            pinv: s.load(&c.0[1]),
            v: s.load(&c.0[2]),
            half: s.load(&c.0[3]),
            neg_half: s.load(&c.0[4]),
            c16: s.load(&c.0[5]),
        }
    }
}

/// `a · w · 2^-16 mod p` (signed Montgomery, precomputed `wp = w · p^-1`).
#[inline(always)]
pub(crate) fn fqmul<S: Lanes>(s: S, a: S::V, w: S::V, wp: S::V, p: S::V) -> S::V {
    s.sub(s.mulhi(a, w), s.mulhi(s.mullo(a, wp), p))
}

/// `a · b · 2^-16 mod p` for two variable operands.
#[inline(always)]
fn fqmul_var<S: Lanes>(s: S, a: S::V, b: S::V, m: &Modv<S::V>) -> S::V {
    let lo = s.mullo(a, b);
    let hi = s.mulhi(a, b);
    s.sub(hi, s.mulhi(s.mullo(lo, m.pinv), m.p))
}

/// Barrett reduction: `a - round(a/p) · p`, within `(p+1)/2 + 8` of zero for any `i16`.
/// The quotient is `round(mulhi(a, round(2^27/p)) / 2^11)`; the rounding shift is a `mulhrs`
/// by `2^4` (an opaque intrinsic: with a plain add and shift LLVM rewrites the sequence as a
/// slower 32-bit multiplication).
#[inline(always)]
pub(crate) fn barrett<S: Lanes>(s: S, a: S::V, m: &Modv<S::V>) -> S::V {
    let t = s.mulhrs(s.mulhi(a, m.v), m.c16);
    s.sub(a, s.mullo(t, m.p))
}

/// The centred representative in `[-(p-1)/2, (p-1)/2]`.
#[inline(always)]
pub(crate) fn freeze<S: Lanes>(s: S, a: S::V, m: &Modv<S::V>) -> S::V {
    let r = barrett(s, a, m);
    let r = s.gt_sub(r, m.half, m.p);
    s.lt_add(r, m.neg_half, m.p)
}

#[inline(always)]
fn load_mc<S: Lanes>(s: S, c: &McV) -> (S::V, S::V) {
    (s.load(&c.w), s.load(&c.wp))
}

// ---------------------------------------------------------------------------------------------
// Transforms.

/// 64-byte aligned buffer.
#[repr(C, align(64))]
pub(crate) struct Buf<const K: usize>(pub [i16; K]);

impl<const K: usize> Buf<K> {
    pub(crate) fn zeroed() -> Self {
        Buf([0; K])
    }
}

/// The padded input buffer (761 values, then zeros) the forward transform reads (its radix-3
/// layer loads up to index 767).
pub(crate) type Input = Buf<768>;
/// A transform buffer.
type Work = Buf<N>;

/// Pairs of vectors [`fwd_mid`] / [`inv_mid`] transform in registers (eight vectors: three
/// layers per pass, for 256-bit vectors as for 512-bit ones).
const MID_PAIRS: usize = 4;

/// Elements of one [`fwd_mid`] group.
const fn mid_len<S: Lanes>() -> usize {
    2 * S::L * MID_PAIRS
}

/// Offset in `PrimeTables::fwd_big` of the twiddles of radix-2 layer `j` (`3 · 2^j` blocks).
const fn fwd_big_off(j: usize) -> usize {
    3 * ((1 << j) - 1)
}

/// Offset in `PrimeTables::inv_big` of the twiddles of the inverse layer at distance `h`
/// (layers `h = L, 2L, ..` take `2h` entries each).
const fn inv_big_off<S: Lanes>(h: usize) -> usize {
    2 * (h - S::L)
}

/// Forward radix-3 layer fused with the first radix-2 layer (`h = 256`), out of place, then the
/// radix-2 layers too wide for one [`inner`] group (none for 512-bit vectors) in place, then
/// the layers `L <= h < mid_len` in one pass ([`fwd_mid`]).
#[inline(always)]
fn forward_outer<S: Lanes>(s: S, t: &PrimeTables, src: &Input, x: &mut Work) {
    let m = Modv::new(s, &t.consts);
    if t.red_fwd[0] {
        fwd_first::<S, true>(s, t, &m, &src.0, &mut x.0);
    } else {
        fwd_first::<S, false>(s, t, &m, &src.0, &mut x.0);
    }
    for j in 1..LOG2 {
        let h = 256 >> j;
        if h < mid_len::<S>() {
            break;
        }
        let tw = &t.fwd_big[fwd_big_off(j)..];
        if t.red_fwd[j] {
            fwd_layer::<S, true>(s, tw, &m, &mut x.0, h);
        } else {
            fwd_layer::<S, false>(s, tw, &m, &mut x.0, h);
        }
    }
    fwd_mid(s, t, &m, &mut x.0);
}

/// The radix-3 layer (`x^1536 - 1` into the three `x^512 - omega^k`) and, without storing in
/// between, the radix-2 layer at distance 256 in each of the three blocks.
///
/// Inputs live in `[0, 761)`: `x1 = src[512 + i]` is zero for `i >= 249` and `x2 = 0`, so the
/// upper half of each block (positions `256 + i`) is `src[256 + i]` in all three.
#[inline(always)]
fn fwd_first<S: Lanes, const RED: bool>(
    s: S,
    t: &PrimeTables,
    m: &Modv<S::V>,
    src: &[i16; 768],
    x: &mut [i16; N],
) {
    let l = S::L;
    let (w1, w1p) = load_mc(s, &t.om1);
    let (w2, w2p) = load_mc(s, &t.om2);
    let tw = [
        load_mc(s, &t.fwd_big[0]),
        load_mc(s, &t.fwd_big[1]),
        load_mc(s, &t.fwd_big[2]),
    ];
    for i in (0..256).step_by(l) {
        let x0 = s.load(&src[i..]);
        let x1 = s.load(&src[512 + i..]);
        let z = s.load(&src[256 + i..]);
        let y = [
            s.add(x0, x1),
            s.add(x0, fqmul(s, x1, w1, w1p, m.p)),
            s.add(x0, fqmul(s, x1, w2, w2p, m.p)),
        ];
        for (k, (&yk, &(w, wp))) in y.iter().zip(tw.iter()).enumerate() {
            let a = if RED { barrett(s, yk, m) } else { yk };
            // Block 0 divides `x^512 - 1`: its twiddle is 1 (asserted in the tables), and `z`
            // itself (at most `INPUT_BOUND`) is within the bound of a Montgomery product.
            let tt = if k == 0 { z } else { fqmul(s, z, w, wp, m.p) };
            s.store(&mut x[512 * k + i..], s.add(a, tt));
            s.store(&mut x[512 * k + 256 + i..], s.sub(a, tt));
        }
    }
}

#[inline(always)]
fn fwd_layer<S: Lanes, const RED: bool>(
    s: S,
    tw: &[McV],
    m: &Modv<S::V>,
    x: &mut [i16; N],
    h: usize,
) {
    let l = S::L;
    for (blk, c) in x.chunks_exact_mut(2 * h).zip(tw) {
        let (w, wp) = load_mc(s, c);
        let (lo, hi) = blk.split_at_mut(h);
        for (a, b) in lo.chunks_exact_mut(l).zip(hi.chunks_exact_mut(l)) {
            let mut va = s.load(a);
            if RED {
                va = barrett(s, va, m);
            }
            let tt = fqmul(s, s.load(b), w, wp, m.p);
            s.store(a, s.add(va, tt));
            s.store(b, s.sub(va, tt));
        }
    }
}

/// One Cooley–Tukey butterfly on a pair of layout vectors with per-lane twiddles.
#[inline(always)]
fn ct<S: Lanes>(s: S, x: S::V, y: S::V, tw: &[i16], red: bool, m: &Modv<S::V>) -> (S::V, S::V) {
    let l = S::L;
    let x = if red { barrett(s, x, m) } else { x };
    let tt = fqmul(s, y, s.load(&tw[..l]), s.load(&tw[l..2 * l]), m.p);
    (s.add(x, tt), s.sub(x, tt))
}

/// Runs `$body` for `$g = 0, 1, 2, 3` with `$g < S::GROUP`, each copy with a constant `$g` (so
/// arrays indexed by it stay in registers).
macro_rules! for_group {
    ($s:ty, $g:ident => $body:block) => {
        for_n!(<$s>::GROUP, $g => $body)
    };
}

/// Runs `$body` for `$g = 0, 1, 2, 3` with `$g < $n` (a constant), each copy with a constant
/// `$g`.
macro_rules! for_n {
    ($n:expr, $g:ident => $body:block) => {{
        {
            const $g: usize = 0;
            $body
        }
        if $n > 1 {
            const $g: usize = 1;
            $body
        }
        if $n > 2 {
            const $g: usize = 2;
            $body
        }
        if $n > 3 {
            const $g: usize = 3;
            $body
        }
    }};
}

/// One forward in-register layer (distance `h`) on the `S::GROUP` pairs of both operands, then
/// the step to the layout of `h / 2`. `v = [ax, ay, bx, by]`; `twl` holds the group's twiddles.
#[inline(always)]
fn fwd_step<S: Lanes, const RED: bool>(
    s: S,
    v: [&mut [S::V; 4]; 4],
    twl: &[i16],
    h: usize,
    m: &Modv<S::V>,
) {
    let l = S::L;
    let [ax, ay, bx, by] = v;
    for_group!(S, G => {
        let twk = &twl[2 * l * G..2 * l * (G + 1)];
        (ax[G], ay[G]) = ct(s, ax[G], ay[G], twk, RED, m);
        (bx[G], by[G]) = ct(s, bx[G], by[G], twk, RED, m);
        if h > 1 {
            (ax[G], ay[G]) = s.step_down(ax[G], ay[G], h);
            (bx[G], by[G]) = s.step_down(bx[G], by[G], h);
        }
    });
}

/// One inverse in-register layer (distance `h`) on `k` pairs (a constant of the caller), then
/// the step to the layout of `2 h`.
#[inline(always)]
fn inv_step<S: Lanes, const RED: bool>(
    s: S,
    v: [&mut [S::V; 4]; 2],
    twk: &[i16],
    h: usize,
    m: &Modv<S::V>,
    k: usize,
) {
    let l = S::L;
    let [cx, cy] = v;
    for_n!(k, G => {
        (cx[G], cy[G]) = ct(s, cx[G], cy[G], twk, RED, m);
        if 2 * h < l {
            (cx[G], cy[G]) = s.step_up(cx[G], cy[G], h);
        }
    });
}

/// In-register forward layers of both operands, pointwise product, in-register inverse layers;
/// the result (inverse in-register layers done) replaces `xa`. `S::GROUP` pairs of vectors are
/// processed together: independent dependency chains that hide the latency of the multiply /
/// permute chain of each pair.
#[inline(always)]
fn inner<S: Lanes>(s: S, t: &PrimeTables, xa: &mut Work, xb: &Work) {
    let l = S::L;
    let gs = S::GROUP;
    let m = Modv::new(s, &t.consts);
    let small = l.trailing_zeros() as usize;
    let first_small = LOG2 - small; // index of the first in-register radix-2 layer
    let rec = 2 * l * small;
    let zero = s.splat(0);
    for (grp, (ca, cb)) in
        xa.0.chunks_exact_mut(2 * l * gs)
            .zip(xb.0.chunks_exact(2 * l * gs))
            .enumerate()
    {
        let tw = &t.fwd_small[grp * gs * rec..(grp + 1) * gs * rec];
        let mut ax = [zero; 4];
        let mut ay = [zero; 4];
        let mut bx = [zero; 4];
        let mut by = [zero; 4];
        for_group!(S, G => {
            let (pa, pb) = (&ca[2 * l * G..2 * l * (G + 1)], &cb[2 * l * G..2 * l * (G + 1)]);
            (ax[G], ay[G]) = s.deinterleave(s.load(&pa[..l]), s.load(&pa[l..]), l / 2);
            (bx[G], by[G]) = s.deinterleave(s.load(&pb[..l]), s.load(&pb[l..]), l / 2);
        });
        // Unrolled (at most five layers, for 32 lanes): each copy has a constant distance, so
        // the backend's shuffle choice and the twiddle offsets are resolved at compile time.
        macro_rules! fwd_layer {
            ($k:expr) => {
                if $k < small {
                    let h = l >> ($k + 1);
                    let twl = &tw[$k * 2 * l * gs..($k + 1) * 2 * l * gs];
                    // One branch per layer (public flag), not one per vector.
                    if t.red_fwd[first_small + $k] {
                        fwd_step::<S, true>(s, [&mut ax, &mut ay, &mut bx, &mut by], twl, h, &m);
                    } else {
                        fwd_step::<S, false>(s, [&mut ax, &mut ay, &mut bx, &mut by], twl, h, &m);
                    }
                }
            };
        }
        fwd_layer!(0);
        fwd_layer!(1);
        fwd_layer!(2);
        fwd_layer!(3);
        fwd_layer!(4);
        let mut cx = [zero; 4];
        let mut cy = [zero; 4];
        for_group!(S, G => {
            cx[G] = fqmul_var(s, ax[G], bx[G], &m);
            cy[G] = fqmul_var(s, ay[G], by[G], &m);
        });
        if S::INV_GROUP == S::GROUP {
            inv_regs(s, t, &m, &mut cx, &mut cy, S::GROUP);
            for_group!(S, G => {
                let (u, v) = s.interleave(cx[G], cy[G], l / 2);
                let pa = &mut ca[2 * l * G..2 * l * (G + 1)];
                s.store(&mut pa[..l], u);
                s.store(&mut pa[l..], v);
            });
        } else {
            // The inverse layers run in a second pass, more pairs side by side.
            for_group!(S, G => {
                let pa = &mut ca[2 * l * G..2 * l * (G + 1)];
                s.store(&mut pa[..l], cx[G]);
                s.store(&mut pa[l..], cy[G]);
            });
        }
    }
    if S::INV_GROUP != S::GROUP {
        for grp in xa.0.chunks_exact_mut(2 * l * S::INV_GROUP) {
            let mut cx = [zero; 4];
            let mut cy = [zero; 4];
            for_n!(S::INV_GROUP, G => {
                let pa = &grp[2 * l * G..2 * l * (G + 1)];
                (cx[G], cy[G]) = (s.load(&pa[..l]), s.load(&pa[l..]));
            });
            inv_regs(s, t, &m, &mut cx, &mut cy, S::INV_GROUP);
            for_n!(S::INV_GROUP, G => {
                let (u, v) = s.interleave(cx[G], cy[G], l / 2);
                let pa = &mut grp[2 * l * G..2 * l * (G + 1)];
                s.store(&mut pa[..l], u);
                s.store(&mut pa[l..], v);
            });
        }
    }
}

/// The inverse in-register layers on `k` pairs held in registers (`cx[j]`, `cy[j]`: pair `j` in
/// the layout the pointwise product leaves); `k` is a constant of the caller.
#[inline(always)]
fn inv_regs<S: Lanes>(
    s: S,
    t: &PrimeTables,
    m: &Modv<S::V>,
    cx: &mut [S::V; 4],
    cy: &mut [S::V; 4],
    k: usize,
) {
    let l = S::L;
    let small = l.trailing_zeros() as usize;
    macro_rules! inv_layer {
        ($k:expr) => {
            if $k < small {
                let h = 1 << $k;
                let twk = &t.inv_small[$k * 2 * l..($k + 1) * 2 * l];
                if t.red_inv[$k] {
                    inv_step::<S, true>(s, [&mut *cx, &mut *cy], twk, h, m, k);
                } else {
                    inv_step::<S, false>(s, [&mut *cx, &mut *cy], twk, h, m, k);
                }
            }
        };
    }
    inv_layer!(0);
    inv_layer!(1);
    inv_layer!(2);
    inv_layer!(3);
    inv_layer!(4);
}

/// Forward radix-2 layers at distances `L <= h < mid_len`, one pass: each group of
/// `2 MID_PAIRS` consecutive vectors loaded once, transformed in registers, stored once.
#[inline(always)]
fn fwd_mid<S: Lanes>(s: S, t: &PrimeTables, m: &Modv<S::V>, x: &mut [i16; N]) {
    for (grp, c) in x.chunks_exact_mut(mid_len::<S>()).enumerate() {
        let mut v = load_group(s, c);
        // One call per layer with the half-block size (in vectors) and the reduction flag as
        // constants, so every index into `v` is a constant and `v` stays in registers.
        fwd_mid_layer::<S, 4>(s, t, m, &mut v, grp);
        fwd_mid_layer::<S, 2>(s, t, m, &mut v, grp);
        fwd_mid_layer::<S, 1>(s, t, m, &mut v, grp);
        store_group(s, c, &v);
    }
}

/// The `2 MID_PAIRS` vectors of one group.
#[inline(always)]
fn load_group<S: Lanes>(s: S, c: &[i16]) -> [S::V; 2 * MID_PAIRS] {
    let mut v = [s.splat(0); 2 * MID_PAIRS];
    for (k, vk) in v.iter_mut().enumerate() {
        *vk = s.load(&c[k * S::L..]);
    }
    v
}

/// Stores the `2 MID_PAIRS` vectors of one group.
#[inline(always)]
fn store_group<S: Lanes>(s: S, c: &mut [i16], v: &[S::V; 2 * MID_PAIRS]) {
    for (k, &vk) in v.iter().enumerate() {
        s.store(&mut c[k * S::L..], vk);
    }
}

/// One layer of [`fwd_mid`] on group `grp` (half-blocks of `HV` vectors, one twiddle per block).
#[inline(always)]
fn fwd_mid_layer<S: Lanes, const HV: usize>(
    s: S,
    t: &PrimeTables,
    m: &Modv<S::V>,
    v: &mut [S::V; 2 * MID_PAIRS],
    grp: usize,
) {
    let j = (256 / (HV * S::L)).trailing_zeros() as usize;
    // The group's first block of layer `j`.
    let tw = &t.fwd_big[fwd_big_off(j) + grp * MID_PAIRS / HV..];
    if t.red_fwd[j] {
        fwd_mid_blocks::<S, HV, true>(s, tw, m, v);
    } else {
        fwd_mid_blocks::<S, HV, false>(s, tw, m, v);
    }
}

#[inline(always)]
fn fwd_mid_blocks<S: Lanes, const HV: usize, const RED: bool>(
    s: S,
    tw: &[McV],
    m: &Modv<S::V>,
    v: &mut [S::V; 2 * MID_PAIRS],
) {
    for (b, c) in tw.iter().enumerate().take(MID_PAIRS / HV) {
        let (w, wp) = load_mc(s, c);
        for k in 2 * b * HV..(2 * b + 1) * HV {
            let a = if RED { barrett(s, v[k], m) } else { v[k] };
            let tt = fqmul(s, v[k + HV], w, wp, m.p);
            v[k] = s.add(a, tt);
            v[k + HV] = s.sub(a, tt);
        }
    }
}

/// Inverse radix-2 layers at distances `L <= h < mid_len`, one pass (the mirror of
/// [`fwd_mid`]).
#[inline(always)]
fn inv_mid<S: Lanes>(s: S, t: &PrimeTables, m: &Modv<S::V>, x: &mut [i16; N]) {
    for c in x.chunks_exact_mut(mid_len::<S>()) {
        let mut v = load_group(s, c);
        inv_mid_layer::<S, 1>(s, t, m, &mut v);
        inv_mid_layer::<S, 2>(s, t, m, &mut v);
        inv_mid_layer::<S, 4>(s, t, m, &mut v);
        store_group(s, c, &v);
    }
}

/// One layer of [`inv_mid`] (half-blocks of `HV` vectors; per-position twiddles, the same in
/// every block).
#[inline(always)]
fn inv_mid_layer<S: Lanes, const HV: usize>(
    s: S,
    t: &PrimeTables,
    m: &Modv<S::V>,
    v: &mut [S::V; 2 * MID_PAIRS],
) {
    let h = HV * S::L;
    let off = inv_big_off::<S>(h);
    let (tw, twp) = t.inv_big[off..off + 2 * h].split_at(h);
    if t.red_inv[h.trailing_zeros() as usize] {
        inv_mid_blocks::<S, HV, true>(s, tw, twp, m, v);
    } else {
        inv_mid_blocks::<S, HV, false>(s, tw, twp, m, v);
    }
}

#[inline(always)]
fn inv_mid_blocks<S: Lanes, const HV: usize, const RED: bool>(
    s: S,
    tw: &[i16],
    twp: &[i16],
    m: &Modv<S::V>,
    v: &mut [S::V; 2 * MID_PAIRS],
) {
    let l = S::L;
    for b in 0..MID_PAIRS / HV {
        for k in 0..HV {
            let (ia, ib) = (2 * b * HV + k, 2 * b * HV + k + HV);
            let a = if RED { barrett(s, v[ia], m) } else { v[ia] };
            let tt = fqmul(s, v[ib], s.load(&tw[k * l..]), s.load(&twp[k * l..]), m.p);
            v[ia] = s.add(a, tt);
            v[ib] = s.sub(a, tt);
        }
    }
}

/// Inverse radix-2 layers `L <= h < mid_len` in one pass ([`inv_mid`]), those too wide for one
/// [`inner`] group (none for 512-bit vectors), the layer
/// at distance 256 fused with the radix-3 layer and a Barrett reduction of every output, then
/// the reduction modulo `x^761 - x - 1` into `out[0..761]` (lanes beyond are garbage).
#[inline(always)]
fn inverse_outer<S: Lanes>(s: S, t: &PrimeTables, x: &mut Work, out: &mut [i16; 768]) {
    let l = S::L;
    let m = Modv::new(s, &t.consts);
    let x = &mut x.0;
    inv_mid(s, t, &m, x);
    let mut h = mid_len::<S>();
    while h < 256 {
        let off = inv_big_off::<S>(h);
        let (tw, twp) = t.inv_big[off..off + 2 * h].split_at(h);
        if t.red_inv[h.trailing_zeros() as usize] {
            inv_layer::<S, true>(s, tw, twp, &m, x, h);
        } else {
            inv_layer::<S, false>(s, tw, twp, &m, x, h);
        }
        h *= 2;
    }
    if t.red_inv[LOG2 - 1] {
        inv_last::<S, true>(s, t, &m, x);
    } else {
        inv_last::<S, false>(s, t, &m, x);
    }
    // f[j] = c[j] + c[j + 761] + c[j + 760], except f[0] = c[0] + c[761].
    for jj in (0..768).step_by(l) {
        let v = s.add(
            s.load(&x[jj..]),
            s.add(s.load(&x[jj + 761..]), s.load(&x[jj + 760..])),
        );
        s.store(&mut out[jj..], v);
    }
    out[0] = out[0].wrapping_sub(x[760]);
}

/// The inverse layer at distance 256 in each of the three blocks and, without storing in
/// between, the inverse radix-3 layer (untwisting by `psi^-i`, `psi^-2i`), every output
/// Barrett-reduced.
#[inline(always)]
fn inv_last<S: Lanes, const RED: bool>(s: S, t: &PrimeTables, m: &Modv<S::V>, x: &mut [i16; N]) {
    let l = S::L;
    let off = inv_big_off::<S>(256);
    let (tw, twp) = t.inv_big[off..off + 512].split_at(256);
    let (hw, hwp) = load_mc(s, &t.half);
    let (cw, cwp) = load_mc(s, &t.c3);
    let (r1, r2) = t.inv_r3.split_at(1024);
    let zero = s.splat(0);
    for i in (0..256).step_by(l) {
        let (w, wp) = (s.load(&tw[i..]), s.load(&twp[i..]));
        let mut lo = [zero; 3];
        let mut hi = [zero; 3];
        for k in 0..3 {
            let a = s.load(&x[512 * k + i..]);
            let a = if RED { barrett(s, a, m) } else { a };
            let tt = fqmul(s, s.load(&x[512 * k + 256 + i..]), w, wp, m.p);
            lo[k] = s.add(a, tt);
            hi[k] = s.sub(a, tt);
        }
        for (pos, v) in [(i, lo), (256 + i, hi)] {
            let c0 = barrett(s, v[0], m);
            let y1 = fqmul(s, v[1], s.load(&r1[pos..]), s.load(&r1[512 + pos..]), m.p);
            let y2 = fqmul(s, v[2], s.load(&r2[pos..]), s.load(&r2[512 + pos..]), m.p);
            let sum = s.add(y1, y2);
            let dif = s.sub(y1, y2);
            let hh = s.add(c0, fqmul(s, sum, hw, hwp, m.p));
            let g = fqmul(s, dif, cw, cwp, m.p);
            s.store(&mut x[pos..], barrett(s, s.add(c0, sum), m));
            s.store(&mut x[512 + pos..], barrett(s, s.sub(hh, g), m));
            s.store(&mut x[1024 + pos..], barrett(s, s.add(hh, g), m));
        }
    }
}

#[inline(always)]
fn inv_layer<S: Lanes, const RED: bool>(
    s: S,
    tw: &[i16],
    twp: &[i16],
    m: &Modv<S::V>,
    x: &mut [i16; N],
    h: usize,
) {
    let l = S::L;
    for blk in x.chunks_exact_mut(2 * h) {
        let (lo, hi) = blk.split_at_mut(h);
        for (((a, b), w), wp) in lo
            .chunks_exact_mut(l)
            .zip(hi.chunks_exact_mut(l))
            .zip(tw.chunks_exact(l))
            .zip(twp.chunks_exact(l))
        {
            let mut va = s.load(a);
            if RED {
                va = barrett(s, va, m);
            }
            let tt = fqmul(s, s.load(b), s.load(w), s.load(wp), m.p);
            s.store(a, s.add(va, tt));
            s.store(b, s.sub(va, tt));
        }
    }
}

/// The folded product modulo prime `k` of the inputs in `a` and `b`.
#[inline(always)]
fn product_mod<S: Lanes>(
    s: S,
    t: &PrimeTables,
    a: &Input,
    b: &Input,
    wa: &mut Work,
    wb: &mut Work,
    out: &mut [i16; 768],
) {
    forward_outer(s, t, a, wa);
    forward_outer(s, t, b, wb);
    inner(s, t, wa, wb);
    inverse_outer(s, t, wa, out);
}

// ---------------------------------------------------------------------------------------------
// Entry points (called from the `#[target_feature]` wrappers).

/// Loads `a` (any `i16`) reduced to `|x| <= 2298` into a padded buffer.
#[inline(always)]
pub(crate) fn load_rq<S: Lanes>(s: S, tb: &Tables, a: &[i16], buf: &mut Input) {
    let l = S::L;
    let m = Modv::new(s, &tb.qc);
    buf.0[..P].copy_from_slice(&a[..P]);
    for i in (0..768).step_by(l) {
        let v = barrett(s, s.load(&buf.0[i..]), &m);
        s.store(&mut buf.0[i..], v);
    }
    buf.0[P..].fill(0);
}

/// Loads a small polynomial into a padded buffer.
#[inline(always)]
pub(crate) fn load_small<S: Lanes>(s: S, a: &[i8], buf: &mut Input) {
    let mut tmp = [0i8; 768];
    tmp[..P].copy_from_slice(&a[..P]);
    for i in (0..768).step_by(S::L) {
        s.store(&mut buf.0[i..], s.load_i8(&tmp[i..]));
    }
}

/// The buffers of one product: the padded inputs, the two transform buffers and the three
/// folded residues, and the two transforms of the direct product (about 23 KB, 64-byte
/// aligned). Every product writes each buffer before
/// reading it, so a [`Scratch`] is reused across calls (one per thread, see `x86.rs`) instead of
/// being zeroed for every product (that zeroing was ~5% of an sntrup761 decapsulation). The KEMs
/// zero it once at the end of each operation that used it (`ScratchWipe`), so no
/// secret-derived values stay in it: each product records the regions it writes
/// ([`Scratch::wrote`]), and [`Scratch::wipe`] zeroes those (an `R/3` product writes 10.5 KB of
/// the 23).
pub(crate) struct Scratch {
    /// First operand (written by [`load_rq`] / [`load_small`]).
    pub(crate) ia: Input,
    /// Second operand.
    pub(crate) ib: Input,
    wa: Work,
    wb: Work,
    f: [[i16; 768]; 3],
    /// The two transforms of the direct `R/q` product (`direct.rs`).
    pub(crate) da: super::direct::Blocks,
    pub(crate) db: super::direct::Blocks,
    /// The [`region`]s written since the last wipe.
    written: u8,
}

/// The regions of a [`Scratch`], as bits of [`Scratch::wrote`].
pub(crate) mod region {
    /// `ia` and `ib`.
    pub(crate) const INPUTS: u8 = 1;
    /// `wa` and `wb`.
    pub(crate) const WORK: u8 = 2;
    /// The residue of prime `k` is bit `FOLDED << k`.
    pub(crate) const FOLDED: u8 = 4;
    /// The residues of the first `primes` primes.
    pub(crate) const fn folded(primes: u32) -> u8 {
        ((1 << primes) - 1) * FOLDED
    }
    /// `da` and `db`.
    pub(crate) const DIRECT: u8 = 32;
}

impl Scratch {
    /// Records that the [`region`]s `r` are about to be written (every product, and every
    /// entry point before it loads the inputs).
    pub(crate) fn wrote(&mut self, r: u8) {
        self.written |= r;
    }

    /// Zeroes every buffer written since the last wipe (see `ScratchWipe` in `mod.rs`).
    pub(crate) fn wipe(&mut self) {
        use crate::secret::wipe;
        let w = core::mem::take(&mut self.written);
        if w & region::INPUTS != 0 {
            wipe(&mut self.ia.0);
            wipe(&mut self.ib.0);
        }
        if w & region::WORK != 0 {
            wipe(&mut self.wa.0);
            wipe(&mut self.wb.0);
        }
        for (k, f) in self.f.iter_mut().enumerate() {
            if w & (region::FOLDED << k) != 0 {
                wipe(f);
            }
        }
        if w & region::DIRECT != 0 {
            wipe(self.da.0.as_flattened_mut());
            wipe(self.db.0.as_flattened_mut());
        }
    }

    /// Whether every buffer is zero (for tests).
    #[cfg(test)]
    pub(crate) fn is_zero(&self) -> bool {
        [
            &self.ia.0[..],
            &self.ib.0[..],
            &self.wa.0[..],
            &self.wb.0[..],
            self.da.0.as_flattened(),
            self.db.0.as_flattened(),
        ]
        .into_iter()
        .chain(self.f.iter().map(|f| &f[..]))
        .all(|b| b.iter().all(|&x| x == 0))
    }

    pub(crate) fn new() -> Box<Self> {
        Box::new(Scratch {
            ia: Input::zeroed(),
            ib: Input::zeroed(),
            wa: Work::zeroed(),
            wb: Work::zeroed(),
            f: [[0; 768]; 3],
            da: super::direct::Blocks::zeroed(),
            db: super::direct::Blocks::zeroed(),
            written: 0,
        })
    }
}

/// `out[..761] = a · b mod (x^761 - x - 1, 4591)` from the padded inputs `sc.ia`, `sc.ib`
/// (exact for `|a|, |b| <= 2304`); `out` has 768 entries (the last 7 are garbage).
#[inline(always)]
pub(crate) fn mul_rq<S: Lanes>(s: S, tb: &Tables, sc: &mut Scratch, out: &mut [i16]) {
    sc.wrote(region::INPUTS | region::WORK | region::folded(3));
    let Scratch {
        ia, ib, wa, wb, f, ..
    } = sc;
    for (t, fk) in tb.primes.iter().zip(f.iter_mut()) {
        product_mod(s, t, ia, ib, wa, wb, fk);
    }
    crt::<S, 3>(s, tb, f, out);
}

/// As [`mul_rq`] for a small `b` (two primes suffice).
#[inline(always)]
pub(crate) fn mul_rq_small<S: Lanes>(s: S, tb: &Tables, sc: &mut Scratch, out: &mut [i16]) {
    sc.wrote(region::INPUTS | region::WORK | region::folded(2));
    let Scratch {
        ia, ib, wa, wb, f, ..
    } = sc;
    for (t, fk) in tb.primes.iter().zip(f.iter_mut()).take(2) {
        product_mod(s, t, ia, ib, wa, wb, fk);
    }
    crt::<S, 2>(s, tb, f, out);
}

/// `out[..761] = a · b mod (x^761 - x - 1, 3)` for small inputs `sc.ia`, `sc.ib` (one prime
/// suffices), as `i16`; `out` has 768 entries.
#[inline(always)]
pub(crate) fn mul_r3<S: Lanes>(s: S, tb: &Tables, sc: &mut Scratch, out: &mut [i16]) {
    sc.wrote(region::INPUTS | region::WORK | region::folded(1));
    let l = S::L;
    let Scratch {
        ia, ib, wa, wb, f, ..
    } = sc;
    let f = &mut f[0];
    let t = &tb.primes[0];
    product_mod(s, t, ia, ib, wa, wb, f);
    let m = Modv::new(s, &t.consts);
    let (k1, k1p) = load_mc(s, &tb.k1);
    let (off, three, c21846, one) = (s.splat(3073), s.splat(3), s.splat(21846), s.splat(1));
    for j in (0..768).step_by(l) {
        // The exact coefficient (|c| <= 3 · 761): a Barrett-reduced representative is within
        // `(p + 1) / 2 + 8` of zero, closer than `p - 3 · 761`, so it is `c` itself.
        let c = barrett(s, fqmul(s, s.load(&f[j..]), k1, k1p, m.p), &m);
        // F3_freeze: y = c + 3073 > 0, floor(y / 3) = mulhi(y, 21846) for y < 2^13.
        let y = s.add(c, off);
        let r = s.sub(y, s.mullo(s.mulhi(y, c21846), three));
        s.store(&mut out[j..], s.sub(r, one));
    }
}

/// Mixed-radix CRT of the folded residues straight to centred values mod 4591.
///
/// With `c_k = F_k · 2^16/1536 mod p_k` the exact residues, `r1 ≡ c_1 (mod p1)`,
/// `u2 ≡ (c_2 - r1) / p1 (mod p2)` and `u3 ≡ (c_3 - r1 - p1 u2) / (p1 p2) (mod p3)`, the exact
/// value is `x = r1 + p1 u2 + p1 p2 u3`, so modulo 4591 it is `r1 + (p1 mod q) u2 + (p1 p2 mod q)
/// u3`. No digit needs its centred representative: `r1` is any bounded one (a Montgomery
/// product), and the last digit (`u2` for two primes, `u3` for three) is small because `x` is
/// (a folded coefficient sums at most 1522 products of inputs within `INPUT_BOUND`, one of
/// them within 1 for two primes), so its Barrett-reduced representative,
/// within `(p + 1) / 2 + 8` of zero, is the exact digit; the middle digit of three primes is any
/// bounded representative, since `u3` is computed from it. [`Tables::new`] asserts these bounds.
/// Only the result is frozen (centred modulo 4591).
#[inline(always)]
fn crt<S: Lanes, const K: usize>(s: S, tb: &Tables, f: &[[i16; 768]; 3], out: &mut [i16]) {
    let l = S::L;
    let [t1, t2, t3] = &tb.primes;
    let m1 = Modv::new(s, &t1.consts);
    let m2 = Modv::new(s, &t2.consts);
    let m3 = Modv::new(s, &t3.consts);
    let mq = Modv::new(s, &tb.qc);
    let (k1, k1p) = load_mc(s, &tb.k1);
    let (k2, k2p) = load_mc(s, &tb.k2);
    let (i2, i2p) = load_mc(s, &tb.p1inv_2);
    let (k3, k3p) = load_mc(s, &tb.k3);
    let (i3, i3p) = load_mc(s, &tb.p12inv_3);
    let (j3, j3p) = load_mc(s, &tb.p2inv_3);
    let (a, ap) = load_mc(s, &tb.p1_q);
    let (b, bp) = load_mc(s, &tb.p12_q);
    for j in (0..768).step_by(l) {
        let r1 = fqmul(s, s.load(&f[0][j..]), k1, k1p, m1.p);
        let u2 = barrett(
            s,
            s.sub(
                fqmul(s, s.load(&f[1][j..]), k2, k2p, m2.p),
                fqmul(s, r1, i2, i2p, m2.p),
            ),
            &m2,
        );
        let mut acc = s.add(r1, fqmul(s, u2, a, ap, mq.p));
        if K == 3 {
            let u3 = barrett(
                s,
                s.sub(
                    fqmul(s, s.load(&f[2][j..]), k3, k3p, m3.p),
                    s.add(fqmul(s, r1, i3, i3p, m3.p), fqmul(s, u2, j3, j3p, m3.p)),
                ),
                &m3,
            );
            acc = s.add(acc, fqmul(s, u3, b, bp, mq.p));
        }
        s.store(&mut out[j..], freeze(s, acc, &mq));
    }
}

/// Asserts the ranges [`crt`] relies on (public constants only).
fn check_crt_bounds() {
    let [p1, p2, p3] = PRIMES.map(i64::from);
    let q = i64::from(Q);
    let i16max = i64::from(i16::MAX);
    // (The folded residues, sums of three Barrett-reduced values, fit in i16: asserted per
    // prime in `PrimeTables::new`.)
    let r1 = fq_bound(p1, i16max);
    let u2_any = barrett_bound(p2);
    // Two primes: |x| <= 1522 · INPUT_BOUND (one factor at most 1).
    let x2 = 1522 * INPUT_BOUND;
    let u2_exact = (x2 + r1) / p1 + 1;
    assert!(u2_any + u2_exact < p2, "u2 must be the exact digit");
    assert!(2 * fq_bound(p2, i16max) <= i16max);
    // Three primes: |x| <= 1522 · INPUT_BOUND^2.
    let x3 = 1522 * INPUT_BOUND * INPUT_BOUND;
    let u3_exact = (x3 + r1 + p1 * u2_any) / (p1 * p2) + 1;
    assert!(
        barrett_bound(p3) + u3_exact < p3,
        "u3 must be the exact digit"
    );
    assert!(3 * fq_bound(p3, i16max) <= i16max);
    // The accumulator mod q stays in i16 before the final freeze.
    assert!(r1 + fq_bound(q, u2_any) + fq_bound(q, barrett_bound(p3)) <= i16max);
    // R/3: |c| <= 3 · 761 and a Barrett representative mod p1 is exact.
    assert!(barrett_bound(p1) + 3 * 761 < p1);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scalar models of the lane operations used by the bounds.
    fn mulhi(a: i16, b: i16) -> i16 {
        ((i32::from(a) * i32::from(b)) >> 16) as i16
    }

    fn barrett1(a: i16, p: i16) -> i16 {
        let t1 = i32::from(mulhi(a, barrett_v(p)));
        let t = ((t1 * 16 + (1 << 14)) >> 15) as i16; // mulhrs(t1, 16)
        a.wrapping_sub(t.wrapping_mul(p))
    }

    fn fqmul1(a: i16, c: Mc, p: i16) -> i16 {
        mulhi(a, c.w).wrapping_sub(mulhi(a.wrapping_mul(c.wp), p))
    }

    #[test]
    fn barrett_is_exact_and_bounded() {
        for p in PRIMES.into_iter().chain([Q as i16]) {
            let bound = barrett_bound(i64::from(p));
            for a in i16::MIN..=i16::MAX {
                let r = barrett1(a, p);
                assert!(i64::from(r).abs() <= bound, "p={p} a={a} r={r}");
                assert_eq!((i32::from(a) - i32::from(r)).rem_euclid(i32::from(p)), 0);
            }
        }
    }

    #[test]
    fn fqmul_is_exact_and_bounded() {
        for p in PRIMES.into_iter().chain([Q as i16]) {
            let m = i64::from(p);
            for value in [1i64, 2, m - 1, m / 2, 12345 % m, 3] {
                let c = Mc::new(value, p);
                for a in (i16::MIN..=i16::MAX).step_by(7) {
                    let r = fqmul1(a, c, p);
                    assert_eq!(
                        (i64::from(r) - i64::from(a) * value).rem_euclid(m),
                        0,
                        "p={p} value={value} a={a}"
                    );
                    assert!(i64::from(r).abs() <= fq_bound(m, i64::from(a).abs()));
                }
            }
        }
    }

    #[test]
    fn inverse_mod_2_16() {
        for p in PRIMES.into_iter().chain([Q as i16]) {
            assert_eq!(p.wrapping_mul(inv_2_16(p)), 1);
        }
    }
}
