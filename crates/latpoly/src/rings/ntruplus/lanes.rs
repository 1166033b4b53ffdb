//! The arithmetic both NTRU+ SIMD backends share, written once over [`Lanes16`]: a vector of
//! 16-bit lanes (16 for AVX2, 32 for AVX-512BW) with a handful of primitive operations.
//!
//! Every provided method is `#[inline(always)]` and generic, so it is compiled inside the
//! backend's `#[target_feature]` entry points with that backend's instructions (the pattern of
//! [`crate::ntt`]'s `Simd` trait). Each one is the scalar reference's operation lane by lane
//! (`fqmul` = `montgomery_reduce(a·b)`, `barrett` = `barrett_reduce`), so results are exact.

use super::tables::{self, Shape, BARRETT_V, Q, QINV};

/// Lane-wise binary operations of a backend token as methods `fn name(self, a: V, b: V) -> V`
/// (`V` the backend's vector type in scope), each a call of the intrinsic.
macro_rules! vop2 {
    ($($name:ident => $intr:ident),* $(,)?) => {$(
        #[inline(always)]
        fn $name(self, a: V, b: V) -> V {
            // SAFETY: the token (`self`) exists only if the CPU runs the backend's features.
            unsafe { $intr(a, b) }
        }
    )*};
}
pub(crate) use vop2;

/// Runs `$body` with `$a` as a fixed-size array of the set's length (the kernels are
/// compiled once per set: every loop bound and index is a constant), the zeta table and the
/// lane tables. The callers checked the lengths; a wrong one does nothing (debug builds
/// assert).
macro_rules! match_set {
    ($p:expr, $a:expr, |$x:ident, $z:ident, $t:ident| $body:block) => {{
        let t = tables($p);
        match $p {
            NtruPlusParams::Kem576 => match_set!(@arm 576, ZETAS_576, t, $a, $x, $z, $t, $body),
            NtruPlusParams::Kem768 => match_set!(@arm 768, ZETAS_768, t, $a, $x, $z, $t, $body),
            NtruPlusParams::Kem864 => match_set!(@arm 864, ZETAS_864, t, $a, $x, $z, $t, $body),
            NtruPlusParams::Kem1152 => {
                match_set!(@arm 1152, ZETAS_1152, t, $a, $x, $z, $t, $body)
            }
        }
    }};
    (@arm $n:literal, $zs:ident, $tt:ident, $a:expr, $x:ident, $z:ident, $t:ident, $body:block) => {
        if let Ok($x) = <&mut [i16; $n]>::try_from($a) {
            let ($z, $t) = (&$crate::rings::ntruplus::tables::$zs, $tt);
            $body
        } else {
            debug_assert!(false, "length checked by the caller");
        }
    };
}
pub(crate) use match_set;

/// The shape of the set of degree `n` (a constant in each monomorphised kernel).
pub(crate) const fn shape(n: usize) -> Shape {
    match n {
        576 => tables::S576,
        768 => tables::S768,
        864 => tables::S864,
        _ => tables::S1152,
    }
}

/// A lane table of `L` lanes: zetas and their `·QINV` companions.
pub(crate) type ZTab<const L: usize> = ([i16; L], [i16; L]);

/// The lane table with zeta `f(l)` in lane `l`.
pub(crate) fn ztab<const L: usize>(f: impl Fn(usize) -> i16) -> ZTab<L> {
    let z: [i16; L] = core::array::from_fn(f);
    (z, z.map(|x| x.wrapping_mul(QINV as i16)))
}

/// One group's vectors between the two passes of the batched base inversion (the backends'
/// `baseinv_tf`): its rows, the first stage's cofactor terms, its norm (the Montgomery one
/// where it is zero) and the running product of the norms up to it.
#[derive(Clone, Copy)]
pub(crate) struct InvGroup<V> {
    pub(crate) rows: [V; 4],
    pub(crate) tv: [V; 3],
    pub(crate) norm: V,
    pub(crate) pre: V,
}

/// Up to `G` groups' [`InvGroup`]s, pushed in order by the first pass and read back by the
/// second: uninitialised storage, as zeroing it was a 5 KB `memset` per call (7% of the 576
/// inverse on AVX-512). The second pass wipes each group as it takes it ([`Self::take`]).
pub(crate) struct InvStates<V: Copy, const G: usize> {
    groups: [core::mem::MaybeUninit<InvGroup<V>>; G],
    written: usize,
}

impl<V: Copy, const G: usize> InvStates<V, G> {
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Self {
            groups: [core::mem::MaybeUninit::uninit(); G],
            written: 0,
        }
    }
    /// Stores the next group's state (at most `G`): its rows, cofactor terms, norm and the
    /// running product `pre`.
    #[inline(always)]
    pub(crate) fn push(&mut self, rows: [V; 4], tv: [V; 3], norm: V, pre: V) {
        let s = InvGroup {
            rows,
            tv,
            norm,
            pre,
        };
        self.groups[self.written] = core::mem::MaybeUninit::new(s);
        self.written += 1;
    }
    /// [`Self::get`], then overwrites group `g` with zero bytes (the second pass takes each
    /// group once, from the last, and afterwards reads only the previous group's `pre`): the
    /// storage holds a secret key's components during key generation.
    #[inline(always)]
    pub(crate) fn take(&mut self, g: usize) -> InvGroup<V> {
        let s = self.get(g);
        self.groups[g] = core::mem::MaybeUninit::zeroed();
        s
    }
    /// Makes the zeroing stores of [`Self::take`] happen although nothing reads the storage
    /// again (call after the last `take`).
    #[inline(always)]
    pub(crate) fn finish(&mut self) {
        core::hint::black_box(&mut self.groups);
    }
    /// The state pushed `g`-th (`g` below the number pushed; the check is on public indices).
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) fn get(&self, g: usize) -> InvGroup<V> {
        assert!(
            g < self.written,
            "group {g} of the base inversion read before it was written"
        );
        // SAFETY: `push` wrote `groups[..written]`, and `g < written`.
        unsafe { self.groups[g].assume_init() }
    }
}

/// A vector of 16-bit lanes and the primitive operations the shared arithmetic needs.
pub(crate) trait Lanes16: Copy {
    /// The vector type.
    type V: Copy;
    /// Every lane `x`.
    fn splat(self, x: i16) -> Self::V;
    fn zero(self) -> Self::V;
    /// Lane-wise wrapping addition.
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lane-wise wrapping subtraction.
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    /// Low 16 bits of the lane-wise product.
    fn mullo(self, a: Self::V, b: Self::V) -> Self::V;
    /// High 16 bits of the lane-wise signed product.
    fn mulhi(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lanes per vector.
    const LANES: usize;
    /// The first `LANES` values of `s`.
    fn load(self, s: &[i16]) -> Self::V;
    /// Stores the `LANES` values of `v` into the front of `s`.
    fn store(self, s: &mut [i16], v: Self::V);
    /// Lane-wise unsigned maximum.
    fn max_u16(self, a: Self::V, b: Self::V) -> Self::V;
    /// Every lane of `a`, read unsigned, is at most `lim` (branch-free on the values).
    fn all_le_u16(self, a: Self::V, lim: i16) -> bool;
    /// Lane-wise arithmetic shift right by 10.
    fn srai10(self, a: Self::V) -> Self::V;
    /// Interleaves the low (`lo16`) or high (`hi16`) four lanes of each 128-bit lane.
    fn lo16(self, a: Self::V, b: Self::V) -> Self::V;
    fn hi16(self, a: Self::V, b: Self::V) -> Self::V;
    /// `vpmaddwd`: sums of adjacent 16-bit products in 32-bit lanes.
    fn madd(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lane-wise 32-bit addition.
    fn add32(self, a: Self::V, b: Self::V) -> Self::V;
    /// `packs32(montgomery_reduce(sl), montgomery_reduce(sh))`: the two vectors of 32-bit sums
    /// reduced to one of 16-bit lanes (values in `(-q, q)`, in `packs32` order).
    fn mred_pair(self, sl: Self::V, sh: Self::V) -> Self::V;

    /// `montgomery_reduce(Σ_k a_k · x_k)` lane-wise, for rows `a` interleaved in pairs
    /// (`al = lo16(a0, a1), lo16(a2, a3)`, `ah` the same with `hi16`): 32-bit sums of products,
    /// one reduction per output, in the lane order of `x`.
    #[inline(always)]
    fn dot(self, al: &[Self::V; 2], ah: &[Self::V; 2], x: [Self::V; 4]) -> Self::V {
        let sl = self.add32(
            self.madd(al[0], self.lo16(x[0], x[1])),
            self.madd(al[1], self.lo16(x[2], x[3])),
        );
        let sh = self.add32(
            self.madd(ah[0], self.hi16(x[0], x[1])),
            self.madd(ah[1], self.hi16(x[2], x[3])),
        );
        self.mred_pair(sl, sh)
    }

    /// `|v| < q` for all `v` of `a`: `v + q - 1` (wrapping) is at most `2q - 2` as an unsigned
    /// number; a maximum over the whole slice, two accumulators, no branch on the values.
    #[inline(always)]
    fn in_range(self, a: &[i16]) -> bool {
        let l = Self::LANES;
        let off = self.splat(Q as i16 - 1);
        let (mut m0, mut m1) = (self.zero(), self.zero());
        let mut chunks = a.chunks_exact(2 * l);
        for c in &mut chunks {
            m0 = self.max_u16(m0, self.add(self.load(c), off));
            m1 = self.max_u16(m1, self.add(self.load(&c[l..]), off));
        }
        let mut rest = chunks.remainder().chunks_exact(l);
        for c in &mut rest {
            m0 = self.max_u16(m0, self.add(self.load(c), off));
        }
        let tail = rest
            .remainder()
            .iter()
            .fold(0u16, |m, &v| m.max((v as u16).wrapping_add(Q as u16 - 1)));
        let lim = 2 * Q as i16 - 2;
        self.all_le_u16(self.max_u16(m0, m1), lim) && tail <= lim as u16
    }

    /// `(splat(z), splat(z·QINV))`: a constant and its Montgomery companion.
    #[inline(always)]
    fn zc(self, z: i16) -> (Self::V, Self::V) {
        (self.splat(z), self.splat(z.wrapping_mul(QINV as i16)))
    }
    /// `fqmul(a, z)` with `zq = z·QINV mod 2^16` precomputed: `hi(a·z) - hi(lo(a·zq)·q)`,
    /// which is exactly `montgomery_reduce(a·z)`.
    #[inline(always)]
    fn fqmulc(self, a: Self::V, (z, zq): (Self::V, Self::V)) -> Self::V {
        let q = self.splat(Q as i16);
        self.sub(self.mulhi(a, z), self.mulhi(self.mullo(a, zq), q))
    }
    /// `fqmul(a, b)` for two variables.
    #[inline(always)]
    fn fqmul(self, a: Self::V, b: Self::V) -> Self::V {
        self.fqmulc(a, (b, self.mullo(b, self.splat(QINV as i16))))
    }
    /// `barrett_reduce`: `t = (v·a + 2^25) >> 26 = (hi(v·a) + 512) >> 10`, `a - t·q`.
    #[inline(always)]
    fn barrett(self, a: Self::V) -> Self::V {
        let t = self.mulhi(a, self.splat(BARRETT_V as i16));
        let t = self.srai10(self.add(t, self.splat(512)));
        self.sub(a, self.mullo(t, self.splat(Q as i16)))
    }
    #[inline(always)]
    fn dbl(self, x: Self::V) -> Self::V {
        self.add(x, x)
    }
    /// `x^(q-2)` lane-wise with Montgomery products, the same value as the scalar `fqinv`, by
    /// an addition chain of depth 13 (17 products: 2, 3, 4, 8, 16, 19, 32, 51, 64, 128, 179,
    /// 256, 512, 691, 1382, 2764, 3455): the batch inversion waits for this chain, so its
    /// depth, not its length, sets the time (square-and-multiply has depth 20, the chain used
    /// before 15). Any addition chain gives the same Montgomery factor (`x^e · 2^(-16(e-1))`:
    /// the exponent of `2^-16` plus one is additive). A fixed sequence: constant time.
    #[inline(always)]
    fn fqinv(self, x: Self::V) -> Self::V {
        let x2 = self.fqmul(x, x);
        let x3 = self.fqmul(x2, x);
        let x4 = self.fqmul(x2, x2);
        let x8 = self.fqmul(x4, x4);
        let x16 = self.fqmul(x8, x8);
        let x19 = self.fqmul(x16, x3);
        let x32 = self.fqmul(x16, x16);
        let x51 = self.fqmul(x32, x19);
        let x64 = self.fqmul(x32, x32);
        let x128 = self.fqmul(x64, x64);
        let x179 = self.fqmul(x128, x51);
        let x256 = self.fqmul(x128, x128);
        let x512 = self.fqmul(x256, x256);
        let x691 = self.fqmul(x512, x179);
        let x1382 = self.fqmul(x691, x691);
        let x2764 = self.fqmul(x1382, x1382);
        self.fqmul(x2764, x691)
    }
    /// Forward radix-2 butterfly (reference: `t = fqmul(z, y)`, `y = barrett(x - t)`,
    /// `x = barrett(x + t)`).
    #[inline(always)]
    fn fwd_bf(self, x: Self::V, y: Self::V, z: (Self::V, Self::V)) -> (Self::V, Self::V) {
        let t = self.fqmulc(y, z);
        (self.barrett(self.add(x, t)), self.barrett(self.sub(x, t)))
    }
    /// Forward radix-2 butterfly without reductions: `(x + t, x - t)`, `t = fqmul(z, y)` in
    /// `(-q, q)`: the outputs grow by less than `q`.
    #[inline(always)]
    fn fwd_bf_lazy(self, x: Self::V, y: Self::V, z: (Self::V, Self::V)) -> (Self::V, Self::V) {
        let t = self.fqmulc(y, z);
        (self.add(x, t), self.sub(x, t))
    }
    /// Inverse radix-2 butterfly (reference: `y = fqmul(z, y - x)`, `x = barrett(x + y)`).
    #[inline(always)]
    fn inv_bf(self, x: Self::V, y: Self::V, z: (Self::V, Self::V)) -> (Self::V, Self::V) {
        (self.barrett(self.add(x, y)), self.fqmulc(self.sub(y, x), z))
    }
    /// Inverse radix-2 butterfly without the Barrett step: `(x + y, fqmul(z, y - x))`.
    #[inline(always)]
    fn inv_bf_lazy(self, x: Self::V, y: Self::V, z: (Self::V, Self::V)) -> (Self::V, Self::V) {
        (self.add(x, y), self.fqmulc(self.sub(y, x), z))
    }

    /// One forward radix-2 layer of stride `step` (a multiple of `LANES`), vector to vector,
    /// without reductions (each adds < q to the bound); the layer's zetas from `N / (2 step)`.
    #[inline(always)]
    fn fwd_r2<const N: usize, const ZN: usize>(self, a: &mut [i16; N], z: &[i16; ZN], step: usize) {
        let first = N / (2 * step);
        for (j, start) in (0..N).step_by(2 * step).enumerate() {
            let zz = self.zc(z[first + j]);
            for i in (start..start + step).step_by(Self::LANES) {
                let (x, y) = self.fwd_bf_lazy(self.load(&a[i..]), self.load(&a[i + step..]), zz);
                self.store(&mut a[i + step..], y);
                self.store(&mut a[i..], x);
            }
        }
    }

    /// One inverse radix-2 layer of stride `step` (a multiple of `LANES`), the reference's
    /// Barrett step on the sums.
    #[inline(always)]
    fn inv_r2<const N: usize, const ZN: usize>(self, a: &mut [i16; N], z: &[i16; ZN], step: usize) {
        let layer = N / (2 * step);
        for (j, start) in (0..N).step_by(2 * step).enumerate() {
            let zz = self.zc(z[2 * layer - 1 - j]);
            for i in (start..start + step).step_by(Self::LANES) {
                let (x, y) = self.inv_bf(self.load(&a[i..]), self.load(&a[i + step..]), zz);
                self.store(&mut a[i + step..], y);
                self.store(&mut a[i..], x);
            }
        }
    }

    /// Base multiplication in `x^4 - ζ` on rows (row `k` = coefficient `k` of every lane's
    /// component), `zz` the lanes' `ζ·2^16`: `c = a·b·2^-16`, one reduction per output.
    #[inline(always)]
    fn basemul4_rows(
        self,
        ar: [Self::V; 4],
        br: [Self::V; 4],
        zz: (Self::V, Self::V),
    ) -> [Self::V; 4] {
        let bz = [
            br[0],
            self.fqmulc(br[1], zz),
            self.fqmulc(br[2], zz),
            self.fqmulc(br[3], zz),
        ];
        let al = [self.lo16(ar[0], ar[1]), self.lo16(ar[2], ar[3])];
        let ah = [self.hi16(ar[0], ar[1]), self.hi16(ar[2], ar[3])];
        [
            self.dot(&al, &ah, [br[0], bz[3], bz[2], bz[1]]),
            self.dot(&al, &ah, [br[1], br[0], bz[3], bz[2]]),
            self.dot(&al, &ah, [br[2], br[1], br[0], bz[3]]),
            self.dot(&al, &ah, [br[3], br[2], br[1], br[0]]),
        ]
    }
    /// Base multiplication in `x^3 - ζ` on rows (see [`Self::basemul4_rows`]).
    #[inline(always)]
    fn basemul3_rows(
        self,
        ar: [Self::V; 3],
        br: [Self::V; 3],
        zz: (Self::V, Self::V),
    ) -> [Self::V; 3] {
        let zero = self.zero();
        let bz1 = self.fqmulc(br[1], zz);
        let bz2 = self.fqmulc(br[2], zz);
        let al = [self.lo16(ar[0], ar[1]), self.lo16(ar[2], zero)];
        let ah = [self.hi16(ar[0], ar[1]), self.hi16(ar[2], zero)];
        [
            self.dot(&al, &ah, [br[0], bz2, bz1, zero]),
            self.dot(&al, &ah, [br[1], br[0], bz2, zero]),
            self.dot(&al, &ah, [br[2], br[1], br[0], zero]),
        ]
    }

    /// First stage of the inverse in `x^4 - ζ` (the scalar `inv_stage1`): the cofactor terms
    /// `[t0, t1, 0]` and the Barrett-reduced norm (zero iff the component is not invertible).
    #[inline(always)]
    fn inv4_stage1(self, x: &[Self::V; 4], zz: (Self::V, Self::V)) -> ([Self::V; 3], Self::V) {
        let t0 = self.sub(self.fqmul(x[2], x[2]), self.dbl(self.fqmul(x[1], x[3])));
        let t0 = self.add(self.fqmul(x[0], x[0]), self.fqmulc(t0, zz));
        let t1 = self.fqmulc(self.fqmul(x[3], x[3]), zz);
        let t1 = self.sub(
            self.add(self.fqmul(x[1], x[1]), t1),
            self.dbl(self.fqmul(x[0], x[2])),
        );
        let t2 = self.fqmulc(t1, zz);
        let nz = self.barrett(self.sub(self.fqmul(t0, t0), self.fqmul(t1, t2)));
        ([t0, t1, self.zero()], nz)
    }
    /// First stage of the inverse in `x^3 - ζ`: the cofactors and the Barrett-reduced norm.
    #[inline(always)]
    fn inv3_stage1(self, x: &[Self::V; 4], zz: (Self::V, Self::V)) -> ([Self::V; 3], Self::V) {
        let t0 = self.sub(
            self.fqmul(x[0], x[0]),
            self.fqmulc(self.fqmul(x[1], x[2]), zz),
        );
        let t1 = self.sub(
            self.fqmulc(self.fqmul(x[2], x[2]), zz),
            self.fqmul(x[0], x[1]),
        );
        let t2 = self.sub(self.fqmul(x[1], x[1]), self.fqmul(x[0], x[2]));
        let inner = self.add(self.fqmul(x[1], t2), self.fqmul(x[2], t1));
        let nz = self.barrett(self.add(self.fqmul(x[0], t0), self.fqmulc(inner, zz)));
        ([t0, t1, t2], nz)
    }
    /// Second stage in `x^4 - ζ`: with `u = 2^32 / norm`, the Montgomery-domain inverse rows
    /// (before the non-invertible components are cleared).
    #[inline(always)]
    fn inv4_stage2(
        self,
        x: &[Self::V; 4],
        tv: &[Self::V; 3],
        u: Self::V,
        zz: (Self::V, Self::V),
    ) -> [Self::V; 4] {
        let zero = self.zero();
        let s0 = self.fqmul(tv[0], u);
        let s1 = self.fqmul(tv[1], u);
        let r0 = self.add(self.fqmul(x[0], s0), self.fqmulc(self.fqmul(x[2], s1), zz));
        let r1 = self.add(self.fqmul(x[1], s0), self.fqmulc(self.fqmul(x[3], s1), zz));
        let r2 = self.add(self.fqmul(x[2], s0), self.fqmul(x[0], s1));
        let r3 = self.add(self.fqmul(x[3], s0), self.fqmul(x[1], s1));
        [
            self.barrett(r0),
            self.barrett(self.sub(zero, r1)),
            self.barrett(r2),
            self.barrett(self.sub(zero, r3)),
        ]
    }
    /// Second stage in `x^3 - ζ`: the cofactors times `u`.
    #[inline(always)]
    fn inv3_stage2(self, tv: &[Self::V; 3], u: Self::V) -> [Self::V; 3] {
        [
            self.fqmul(tv[0], u),
            self.fqmul(tv[1], u),
            self.fqmul(tv[2], u),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `InvStates` hands back what was pushed, in order, and refuses an index that was never
    /// written (its storage is uninitialised there).
    #[test]
    fn inv_states_return_pushed_groups_and_refuse_unwritten_ones() {
        let mut s = InvStates::<u32, 3>::new();
        s.push([1, 2, 3, 4], [5, 6, 7], 8, 9);
        s.push([10, 11, 12, 13], [14, 15, 16], 17, 18);
        let (a, b) = (s.get(0), s.get(1));
        assert_eq!(
            (a.rows, a.tv, a.norm, a.pre),
            ([1, 2, 3, 4], [5, 6, 7], 8, 9)
        );
        assert_eq!(
            (b.rows, b.tv, b.norm, b.pre),
            ([10, 11, 12, 13], [14, 15, 16], 17, 18)
        );
        let unwritten = std::panic::catch_unwind(|| s.get(2));
        assert!(unwritten.is_err(), "group 2 was never pushed");
    }

    /// `take` zeroes each group it hands back.
    #[test]
    fn inv_states_wipe_the_groups_written() {
        let mut s = InvStates::<u32, 3>::new();
        s.push([1, 2, 3, 4], [5, 6, 7], 8, 9);
        s.push([10, 11, 12, 13], [14, 15, 16], 17, 18);
        let x = s.take(1);
        assert_eq!(x.rows, [10, 11, 12, 13]);
        assert_eq!(s.get(0).pre, 9);
        assert_eq!(s.take(0).norm, 8);
        s.finish();
        for g in 0..2 {
            let x = s.get(g);
            assert_eq!((x.rows, x.tv, x.norm, x.pre), ([0; 4], [0; 3], 0, 0));
        }
    }
}
