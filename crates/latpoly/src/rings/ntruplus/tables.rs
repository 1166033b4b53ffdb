//! NTT constants of the four NTRU+ parameter sets, computed at compile time from their formula.
//!
//! `x^n - x^(n/2) + 1 = Φ_{3n}(x)` splits over `Z_3457` into `n/d` factors `x^d - ζ^e`, where `ζ`
//! has order `ℓ = 3n/d` and `e` runs over the units mod `ℓ`. The reference NTT visits a tree:
//! one trinomial split (`x^(n/2) - ζ6`, `x^(n/2) - ζ6^5`), then radix-3 layers, then radix-2
//! layers. Leaf `i` (in memory order) is `x^d - ζ^(e_i)` where, writing `i` in mixed radix with
//! digits `(t; a_1..a_r3; b_1..b_r2)` from the root down, the exponent is the digit reversal
//!
//! ```text
//! e_i = (1 if t = 0 else 5) + 6·(a_1 + 3·a_2 + ...) + 6·3^r3·(b_1 + 2·b_2 + ...)  (mod ℓ)
//! ```
//!
//! and every internal node uses `ζ^((D/d)·e)` with `D` the degree of its children and `e` the
//! exponent of its first leaf. Each table entry is `ζ^k · 2^16 mod q`, centred in
//! `[-(q-1)/2, (q-1)/2]`, in the order the reference `ntt.c` reads them (`zetas[0] = 2^16`,
//! `zetas[1] = ζ6 · 2^16`, then the radix-3 pairs `(ρ, ρ²)`, then the radix-2 layers).
//! Tests check this against the KAT key pairs and against the reference's known entries.

/// The modulus `q = 3457`.
pub(crate) const Q: i32 = 3457;
/// `q^-1 mod 2^16`.
pub(crate) const QINV: i32 = 12929;
/// `2^16 mod q`, centred (the Montgomery form of 1).
pub(crate) const MONT: i16 = -147;
/// The Montgomery form of the cube root of unity `ω = ζ^(ℓ/3) = 2734`, centred.
pub(crate) const OMEGA_MONT: i16 = centred(mulmod(65536 % Q as i64, 2734));
/// `round(2^26 / q)`, the Barrett constant of the reference `reduce.c`.
pub(crate) const BARRETT_V: i32 = ((1 << 26) + Q / 2) / Q;

/// Shape of one parameter set's NTT.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub n: usize,
    /// Base ring degree.
    pub d: usize,
    /// Number of radix-3 layers.
    pub r3: usize,
    /// Number of radix-2 layers.
    pub r2: usize,
    /// Primitive `ℓ`-th root of unity with `ℓ = 3n/d`.
    pub zeta: i64,
}

impl Shape {
    /// `ℓ = 3n/d`, the order of `ζ`.
    pub const fn ell(&self) -> usize {
        3 * self.n / self.d
    }
    /// Block size after the radix-3 layers (`n / (2·3^r3)`).
    pub const fn block(&self) -> usize {
        let mut b = self.n / 2;
        let mut k = 0;
        while k < self.r3 {
            b /= 3;
            k += 1;
        }
        b
    }
}

pub(crate) const S576: Shape = Shape {
    n: 576,
    d: 4,
    r3: 2,
    r2: 3,
    zeta: 81,
};
pub(crate) const S768: Shape = Shape {
    n: 768,
    d: 4,
    r3: 1,
    r2: 5,
    zeta: 22,
};
pub(crate) const S864: Shape = Shape {
    n: 864,
    d: 3,
    r3: 2,
    r2: 4,
    zeta: 9,
};
pub(crate) const S1152: Shape = Shape {
    n: 1152,
    d: 4,
    r3: 2,
    r2: 4,
    zeta: 9,
};

const fn mulmod(a: i64, b: i64) -> i64 {
    (a * b).rem_euclid(Q as i64)
}

const fn powmod(b: i64, mut e: u64) -> i64 {
    let mut r = 1i64;
    let mut x = b.rem_euclid(Q as i64);
    while e > 0 {
        if e & 1 == 1 {
            r = mulmod(r, x);
        }
        x = mulmod(x, x);
        e >>= 1;
    }
    r
}

/// Centred representative of `x mod q`.
pub(crate) const fn centred(x: i64) -> i16 {
    let r = x.rem_euclid(Q as i64);
    (if r > (Q as i64 - 1) / 2 {
        r - Q as i64
    } else {
        r
    }) as i16
}

/// Exponent `e_i` of leaf `i` (see the module docs).
pub(crate) const fn leaf_exponent(s: &Shape, i: usize) -> usize {
    let mut x = i;
    // radix-2 digits, least significant = last layer
    let mut b = [0usize; 8];
    let mut k = 0;
    while k < s.r2 {
        b[k] = x % 2;
        x /= 2;
        k += 1;
    }
    let mut a = [0usize; 4];
    k = 0;
    while k < s.r3 {
        a[k] = x % 3;
        x /= 3;
        k += 1;
    }
    let t = x;
    let mut e = if t == 0 { 1 } else { 5 };
    let mut w = 6;
    k = s.r3;
    while k > 0 {
        k -= 1;
        e += a[k] * w;
        w *= 3;
    }
    k = s.r2;
    while k > 0 {
        k -= 1;
        e += b[k] * w;
        w *= 2;
    }
    e % s.ell()
}

/// `ζ^((D/d)·e_first) · 2^16`, centred, for a node whose children have degree `child_deg` and
/// whose first coefficient is at `start`.
const fn node_zeta(s: &Shape, child_deg: usize, start: usize, power: usize) -> i16 {
    let e = (child_deg / s.d) * leaf_exponent(s, start / s.d) * power;
    centred(mulmod(65536 % Q as i64, powmod(s.zeta, e as u64)))
}

/// The reference `zetas[]` table of a shape (`N` = `n/d`).
pub(crate) const fn zetas<const N: usize>(s: &Shape) -> [i16; N] {
    let mut z = [0i16; N];
    z[0] = MONT;
    let mut k = 1;
    z[k] = node_zeta(s, s.n / 2, 0, 1);
    k += 1;
    let mut step = s.n / 6;
    let mut l = 0;
    while l < s.r3 {
        let mut start = 0;
        while start < s.n {
            z[k] = node_zeta(s, step, start, 1);
            z[k + 1] = node_zeta(s, step, start, 2);
            k += 2;
            start += 3 * step;
        }
        step /= 3;
        l += 1;
    }
    step = s.block() / 2;
    while step >= s.d {
        let mut start = 0;
        while start < s.n {
            z[k] = node_zeta(s, step, start, 1);
            k += 1;
            start += 2 * step;
        }
        step /= 2;
    }
    assert!(k == N);
    z
}

/// Final constants of the inverse NTT: `(R/(2ζ6 - 1), R²/(2s), R²/s)` centred, with
/// `s = 2^r2 · 3^r3` the layers' accumulated factor (`(-1665, -66, -132)` for 576).
pub(crate) const fn inv_consts(s: &Shape) -> (i16, i16, i16) {
    let r = 65536 % Q as i64;
    let z6 = powmod(s.zeta, (s.ell() / 6) as u64);
    let mut sc: i64 = 1;
    let mut k = 0;
    while k < s.r2 {
        sc *= 2;
        k += 1;
    }
    k = 0;
    while k < s.r3 {
        sc *= 3;
        k += 1;
    }
    let sinv = powmod(sc, Q as u64 - 2);
    let csq = mulmod(r, powmod(2 * z6 - 1, Q as u64 - 2));
    let cb = mulmod(mulmod(r, r), sinv);
    let ca = mulmod(cb, powmod(2, Q as u64 - 2));
    (centred(csq), centred(ca), centred(cb))
}

pub(crate) static ZETAS_576: [i16; 144] = zetas::<144>(&S576);
pub(crate) static ZETAS_768: [i16; 192] = zetas::<192>(&S768);
pub(crate) static ZETAS_864: [i16; 288] = zetas::<288>(&S864);
pub(crate) static ZETAS_1152: [i16; 288] = zetas::<288>(&S1152);

const INV_CONSTS: [(i16, i16, i16); 4] = [
    inv_consts(&S576),
    inv_consts(&S768),
    inv_consts(&S864),
    inv_consts(&S1152),
];

/// [`inv_consts`] of the shape of degree `n` (precomputed at compile time).
pub(crate) fn inv_consts_of(n: usize) -> (i16, i16, i16) {
    match n {
        576 => INV_CONSTS[0],
        768 => INV_CONSTS[1],
        864 => INV_CONSTS[2],
        _ => INV_CONSTS[3],
    }
}
