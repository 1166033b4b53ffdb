//! Generic SIMD NTT drivers over a narrow vector interface ([`Simd`]).
//!
//! Each backend (`x86/*.rs`) implements [`Simd`] for a zero-sized *token* whose existence proves
//! the CPU has the needed instruction set, so the drivers here are safe code. The drivers are
//! `#[inline(always)]` and are instantiated inside `#[target_feature]` entry points of each backend,
//! which lets the compiler inline every vector operation.
//!
//! Algorithms (same arithmetic contract as `scalar.rs`, which is the specification):
//! * layers whose butterfly distance `t` is at least the lane count run over broadcast twiddles,
//!   two layers per memory pass (radix-4) on backends where that pays ([`Simd::RADIX4`]), one
//!   layer per pass otherwise; where a cache block would be left with one such layer alone
//!   under the standard schedule (AVX2 u32), the layer of distance `LANES` runs in registers
//!   with the in-register layers instead ([`small_group`]'s `lone`);
//! * the last `log2(LANES)` forward layers (first inverse layers) run in registers on pairs of
//!   vectors: a backend-specific `deinterleave` gathers the `X` and `Y` halves of every butterfly,
//!   with per-lane twiddles. The 64-bit AVX-512 backends lay the lanes out so that these are
//!   broadcast loads straight from the bit-reversed tables ([`Simd::BCAST_TWIDDLES`]); the others
//!   read tables expanded at plan construction in their lane order (log2(LANES) n more words per
//!   plan: for u64 lanes that was 3n of a plan's 14n words, and re-reading it from L3 or memory
//!   when many plans take turns, as the limbs of an RNS polynomial do, made latpoly's 100-limb
//!   transforms twice tfhe-ntt's; for 16/32-bit lanes the broadcasts measured 10% slower on hot
//!   small transforms, and their plans are small). Four pairs go through these layers side by
//!   side ([`SMALL_K`]): one pair alone is a chain of dependent products and permutations whose
//!   latency, not the vector units, would set the pace;
//! * transforms of one register block (8 vectors, or [`Simd::REG_V`] = 16 on backends that use
//!   blocks of 16) run entirely in registers, fully unrolled ([`regs_block`]: no loop control,
//!   one load and one store per vector); on backends that set [`Simd::REG_BLOCKS`] (16-bit
//!   lanes with blocks of 8; AVX-512 32-bit lanes, IFMA and the 64-bit AVX-512 inverse with
//!   blocks of 16, the 64-bit AVX-512 forward under [`lazy::SLOTH`] only:
//!   [`Simd::reg_blocks_fwd`], [`Simd::reg_blocks_inv`]; [`Simd::fence8`] between their layers),
//!   larger transforms finish (inverse: start) with the same register kernel on every block,
//!   and a forward memory layer that would run alone just above the blocks runs with them
//!   instead ([`fwd_fused_pair`]).
//!
//! Ranges: forward input `[0, 4q)` -> output `[0, 4q)`; inverse input `[0, 2q)` -> `[0, 2q)`.

use crate::arith::{Modulus, Word};
use crate::rings::unroll;

/// A SIMD instruction-set token for lanes of type `Self::W`.
///
/// Contract for implementors: every method computes lane-wise exactly what its doc says, for the
/// input ranges stated; `deinterleave`/`interleave` are mutually inverse permutations such that
/// `X` lane `l` and `Y` lane `l` are the two inputs of one butterfly at distance `t`.
pub(crate) trait Simd: Copy + Send + Sync + 'static {
    /// Lane type.
    type W: Word;
    /// Vector of `LANES` lanes.
    type V: Copy;
    /// Number of lanes.
    const LANES: usize;
    /// Bits of the Shoup quotient: `wp = floor(w · 2^SHOUP_BITS / q)`.
    const SHOUP_BITS: u32;
    /// Montgomery radix exponent of [`Simd::mont_mul`].
    const MONT_BITS: u32;
    /// Whether layers of distance `>= LANES` run two at a time (radix 4: half the loads and
    /// stores, but chains of two dependent butterflies) or one at a time (radix 2: independent
    /// butterflies only). Backends whose products are long dependency chains (the emulated
    /// 64 x 64 products) run faster in radix 2.
    const RADIX4: bool = true;
    /// Whether transforms larger than one register block finish their forward layers (start
    /// their inverse layers) in registers, [`Simd::REG_V`] vectors at a time ([`regs_block`]),
    /// instead of the memory passes and pair groups of the generic drivers.
    /// Measured (Zen 5, same-process A/B): 11-17% faster for 16-bit lanes at n = 512..2048;
    /// with blocks of 8, 4-12% slower for 64-bit lanes (longer product chains, more register
    /// pressure) and neutral for 32-bit lanes; with blocks of 16, 10-25% faster for AVX-512
    /// 32-bit lanes, 3-11% for IFMA, 5-11% for the 64-bit forward under [`lazy::SLOTH`] (see
    /// the backends). Transforms of exactly one block always run in registers.
    const REG_BLOCKS: bool = false;
    /// [`Simd::REG_BLOCKS`] for the forward transform under reduction schedule `m` ([`lazy`]):
    /// default [`Simd::REG_BLOCKS`]; a backend whose blocks only pay under some schedules
    /// narrows it.
    #[inline(always)]
    fn reg_blocks_fwd(m: u8) -> bool {
        let _ = m;
        Self::REG_BLOCKS
    }
    /// [`Simd::REG_BLOCKS`] for the inverse transform under reduction schedule `m`
    /// (default: [`Simd::REG_BLOCKS`]).
    #[inline(always)]
    fn reg_blocks_inv(m: u8) -> bool {
        let _ = m;
        Self::REG_BLOCKS
    }
    /// Vectors per register block ([`regs_block`]): [`REG_BLOCK`] (8) or 16. A block of 16
    /// runs four layers of vector distance and all in-register layers with its eight pairs
    /// side by side, and needs the 32 vector registers of AVX-512.
    const REG_V: usize = REG_BLOCK;
    /// Pairs of vectors side by side in the in-register layers of the memory-backed transforms
    /// ([`small_layers`]): 4 or 8 (any other value runs 4). Measured (Zen 5, `examples/ntt_bench`,
    /// old and new binaries alternating): 8 is 7-10% faster forward and 3-4% inverse for the
    /// IFMA backend at n = 4096 and 16384, 3-6% for 5 x 8192; neutral for the 64-bit AVX-512
    /// backend (W1) and the 32-bit one (n = 512). Register blocks ([`regs_block`]) take all
    /// their pairs at once: [`SMALL_K`] in blocks of 8 vectors, eight in blocks of 16.
    const SMALL_K: usize = SMALL_K;

    /// The lane word of the value `x` (an integer below `2^VALUE_BITS`): how vectors, the
    /// arrays the drivers work on and the twiddle tables hold values. Default: `x` itself. The
    /// floating-point backend holds the `f64` bits of `x` (`x86/avx2_f64.rs`); its entry points
    /// convert the caller's integers before and after a transform. Only [`forward`] and
    /// [`inverse`] (without `src` / `times`) honour the encoding: the range checks, the checked
    /// first layers and their undo, the pointwise products, `product`, `add_mod` and `sub_mod`
    /// work on the caller's integers and assume the identity (they `debug_assert!` it).
    #[inline(always)]
    fn enc(x: Self::W) -> Self::W {
        x
    }
    /// The lane word of the Shoup constant of twiddle `w < q` (what [`Simd::mul_shoup_lazy`]
    /// reads as `wp`). Default: `floor(w · 2^SHOUP_BITS / q)`.
    #[inline(always)]
    fn enc_shoup(w: u64, q: u64) -> u64 {
        shoup_quotient(w, q, Self::SHOUP_BITS)
    }
    /// `LANES` copies of the lane word `x` (a table entry or a value already in the lane
    /// encoding, [`Simd::enc`]).
    fn splat(self, x: Self::W) -> Self::V;
    /// Loads `LANES` values from the start of `s` (`s.len() >= LANES`).
    fn load(self, s: &[Self::W]) -> Self::V;
    /// Stores `LANES` values at the start of `s` (`s.len() >= LANES`).
    fn store(self, s: &mut [Self::W], v: Self::V);
    /// Wrapping addition (on the `f64` backend, exact addition of integers below `2^53`; the
    /// same holds for the other arithmetic methods, whose "unsigned" means non-negative there).
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// Wrapping subtraction.
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a >= m ? a - m : a` (unsigned) for `a < 2m`: the drivers call it only to bring a
    /// value below `2m` under `m`, and with `m <= 2^(BITS - 1)` (`BITS` the lane width);
    /// backends may assume both (the 64-bit AVX2 one selects on the sign bit of `a - m`).
    fn csub(self, a: Self::V, m: Self::V) -> Self::V;
    /// Lane-wise unsigned maximum.
    fn max(self, a: Self::V, b: Self::V) -> Self::V;
    /// `w · x mod q` in `[0, 2q)` for `x < 4q` (any `x < 2^VALUE_BITS` on backends with
    /// [`Simd::SLOTHFUL`]), `w < q`, `wp` the Shoup quotient.
    fn mul_shoup_lazy(self, x: Self::V, w: Self::V, wp: Self::V, q: Self::V) -> Self::V;
    /// [`Simd::mul_shoup_lazy`] for a twiddle `w` and quotient `wp` that are the same in every
    /// lane (broadcasts): backends that emulate a high product on lane pairs can skip moving the
    /// odd lanes' quotient into place.
    #[inline(always)]
    fn mul_shoup_lazy_splat(self, x: Self::V, w: Self::V, wp: Self::V, q: Self::V) -> Self::V {
        self.mul_shoup_lazy(x, w, wp, q)
    }
    /// Whether the forward and inverse drivers may use a reduction schedule with more headroom
    /// than the standard one when `q` leaves it ([`lazy`], chosen per plan in
    /// [`SimdTables::new`]): the lanes hold values up to `2^VALUE_BITS` and the products
    /// accept any input below that.
    const SLOTHFUL: bool = false;
    /// Values the NTT layers may hold are below `2^VALUE_BITS` (with [`Simd::SLOTHFUL`]): the
    /// lane width, or less when the products read fewer bits of their inputs (52 for IFMA).
    const VALUE_BITS: u32 = 64;
    /// `V`: [`Simd::mul_shoup_lazier`] returns values in `[0, V q)`.
    const LAZIER_V: u64 = 2;
    /// `w · x mod q` in `[0, LAZIER_V · q)` for any `x < 2^VALUE_BITS` (used with
    /// [`Simd::SLOTHFUL`] only); backends with a [`Simd::clean`] may leave junk above
    /// `VALUE_BITS` (and ignore it in `x`). Default: [`Simd::mul_shoup_lazy`], whose output
    /// is in `[0, 2q)`.
    #[inline(always)]
    fn mul_shoup_lazier(self, x: Self::V, w: Self::V, wp: Self::V, q: Self::V) -> Self::V {
        self.mul_shoup_lazy(x, w, wp, q)
    }
    /// [`Simd::mul_shoup_lazier`] for broadcast twiddles.
    #[inline(always)]
    fn mul_shoup_lazier_splat(self, x: Self::V, w: Self::V, wp: Self::V, q: Self::V) -> Self::V {
        self.mul_shoup_lazy_splat(x, w, wp, q)
    }
    /// [`Simd::mul_shoup_lazy_splat`] for the butterflies, whose result may carry junk above
    /// [`Simd::VALUE_BITS`] (see [`Simd::clean`]). Default: [`Simd::mul_shoup_lazy_splat`].
    #[inline(always)]
    fn mul_shoup_lazy_dirty_splat(
        self,
        x: Self::V,
        w: Self::V,
        wp: Self::V,
        q: Self::V,
    ) -> Self::V {
        self.mul_shoup_lazy_splat(x, w, wp, q)
    }
    /// [`Simd::mul_shoup_lazy_lanes`] for the butterflies, whose result may carry junk above
    /// [`Simd::VALUE_BITS`]. Default: [`Simd::mul_shoup_lazy_lanes`].
    #[inline(always)]
    fn mul_shoup_lazy_dirty_lanes(self, x: Self::V, tw: &LaneTw<Self::V>, q: Self::V) -> Self::V {
        self.mul_shoup_lazy_lanes(x, tw, q)
    }
    /// `v` with the bits above [`Simd::VALUE_BITS`] cleared. Backends whose products read only
    /// those low bits may leave junk above them in what the butterflies' products return
    /// ([`Simd::mul_shoup_lazy_dirty_splat`], [`Simd::mul_shoup_lazy_dirty_lanes`],
    /// [`Simd::mul_shoup_lazier`]); the sums of later layers carry it along (lane arithmetic
    /// wraps and keeps the low bits exact), harmless to their products. The drivers call this
    /// before every conditional subtraction of such a value and before the forward's output
    /// leaves the transform. Default: `v` (no junk).
    #[inline(always)]
    fn clean(self, v: Self::V) -> Self::V {
        v
    }
    /// The Cooley-Tukey butterfly's product and sums from `u` (already reduced as the layer
    /// needs): `(u + v, u - v + vq)` with `v = w y` the product of [`Simd::mul_shoup_lazy_dirty_splat`]
    /// (`LAZIER = false`) or [`Simd::mul_shoup_lazier_splat`] (`true`), junk as they leave it.
    /// Backends may fold `u` into the product (IFMA: into its accumulator, so no addition
    /// follows the product on the butterfly's chain). Default: the product, then the sums.
    #[inline(always)]
    fn ct_mul_sums_splat<const LAZIER: bool>(
        self,
        u: Self::V,
        y: Self::V,
        w: Self::V,
        wp: Self::V,
        q: Self::V,
        vq: Self::V,
    ) -> (Self::V, Self::V) {
        let v = if LAZIER {
            self.mul_shoup_lazier_splat(y, w, wp, q)
        } else {
            self.mul_shoup_lazy_dirty_splat(y, w, wp, q)
        };
        (self.add(u, v), self.add(self.sub(u, v), vq))
    }
    /// [`Simd::ct_mul_sums_splat`] with a per-lane twiddle ([`Simd::mul_shoup_lazy_dirty_lanes`]
    /// or [`Simd::mul_shoup_lazier_lanes`]).
    #[inline(always)]
    fn ct_mul_sums_lanes<const LAZIER: bool>(
        self,
        u: Self::V,
        y: Self::V,
        tw: &LaneTw<Self::V>,
        q: Self::V,
        vq: Self::V,
    ) -> (Self::V, Self::V) {
        let v = if LAZIER {
            self.mul_shoup_lazier_lanes(y, tw, q)
        } else {
            self.mul_shoup_lazy_dirty_lanes(y, tw, q)
        };
        (self.add(u, v), self.add(self.sub(u, v), vq))
    }
    /// `a · b · 2^-MONT_BITS mod q` in `[0, q)` for `a, b < q`; `qinv = q^-1 mod 2^MONT_BITS`.
    fn mont_mul(self, a: Self::V, b: Self::V, q: Self::V, qinv: Self::V) -> Self::V;
    /// `a · b mod q` in `[0, q)` for `a, b < q`. Default: the Montgomery product, then its factor
    /// `2^-MONT_BITS` undone by a Shoup product with `2^MONT_BITS mod q`.
    #[inline(always)]
    fn mul_mod(self, a: Self::V, b: Self::V, c: &MulConsts<Self::V>) -> Self::V {
        let m = self.mont_mul(a, b, c.q, c.qinv);
        self.csub(self.mul_shoup_lazy_splat(m, c.fix, c.fix_shoup, c.q), c.q)
    }
    /// [`Simd::mul_mod`] for moduli with [`MulConsts::narrow`] set (`u64` lanes, `q < 2^61`):
    /// backends may use a cheaper quotient estimate there. Default: [`Simd::mul_mod`].
    #[inline(always)]
    fn mul_mod_narrow(self, a: Self::V, b: Self::V, c: &MulConsts<Self::V>) -> Self::V {
        self.mul_mod(a, b, c)
    }
    /// Splits two vectors holding `2·LANES` consecutive values into the `X` and `Y` inputs of the
    /// butterflies at distance `t < LANES`.
    fn deinterleave(self, a: Self::V, b: Self::V, t: usize) -> (Self::V, Self::V);
    /// Inverse of [`Simd::deinterleave`].
    fn interleave(self, x: Self::V, y: Self::V, t: usize) -> (Self::V, Self::V);
    /// Bit `i` = `(v_i & 1) XOR (v_i > half)` for each lane (the parity of the centred value for
    /// `v < q`, `half = (q - 1) / 2`, `q < 2^(BITS - 2)`). Default: through memory.
    #[inline(always)]
    fn parity_mask(self, v: Self::V, half: Self::W) -> u64 {
        let mut lanes = [Self::W::ZERO; 64];
        self.store(&mut lanes[..Self::LANES], v);
        lanes[..Self::LANES]
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, &x)| {
                let above = half.wrapping_sub(x).to_u64() >> (Self::W::BITS - 1);
                acc | (((x.to_u64() & 1) ^ above) << i)
            })
    }
    /// Whether the in-register layers take their per-lane twiddles straight from the
    /// bit-reversed tables with [`Simd::load_bcast`]: true when `deinterleave` at distance `t`
    /// puts butterfly group `g` of the `G = LANES / t` groups of a pair in the lanes `l` with
    /// `l mod G = g` (checked when the tables are built). Otherwise the plan stores per-lane
    /// tables expanded in the backend's lane order (`SimdTables::small_fwd` / `small_inv`,
    /// `log2(LANES) n` words each: more memory, and more traffic when many plans take turns, as
    /// the limbs of an RNS polynomial do).
    const BCAST_TWIDDLES: bool = false;
    /// Whether the in-register layers also hand their per-lane twiddle products the odd 32-bit
    /// words of the twiddles and quotients already moved to the even positions
    /// ([`Simd::load_odd`], [`LaneTw`]): a load at an offset of 4 bytes instead of a shift per
    /// product, for backends whose products multiply 32-bit halves with `vpmuludq`. Needs the
    /// per-lane tables (not [`Simd::BCAST_TWIDDLES`]; checked when the tables are built).
    const ODD_TWIDDLES: bool = false;
    /// The `LANES` values of `s` read 4 bytes further on: for each 64-bit lane of the vector
    /// `load(s)`, its high 32-bit word in the low half (what a 32-bit right shift of the
    /// 64-bit lane would put there; the high halves hold the next words and are not to be
    /// read). `s` has at least `LANES + 1` values. Used with [`Simd::ODD_TWIDDLES`] only;
    /// default: `load(s)`.
    #[inline(always)]
    fn load_odd(self, s: &[Self::W]) -> Self::V {
        self.load(s)
    }
    /// The odd words of a per-lane quotient vector `wp` of the in-register layer of distance
    /// `2^log_t`, moved to the even positions, for backends without
    /// [`Simd::ODD_TWIDDLES`] whose per-lane products read them ([`LaneTw::wp_odd`]). Default:
    /// `wp` itself (backends whose products ignore `wp_odd`); a backend may return `wp` also
    /// where its lane layout gives both words of every 64-bit lane the same twiddle.
    #[inline(always)]
    fn odd_words(self, wp: Self::V, log_t: u32) -> Self::V {
        let _ = log_t;
        wp
    }
    /// [`Simd::mul_shoup_lazy`] with the per-lane twiddle `tw` (default: ignores its odd
    /// words).
    #[inline(always)]
    fn mul_shoup_lazy_lanes(self, x: Self::V, tw: &LaneTw<Self::V>, q: Self::V) -> Self::V {
        self.mul_shoup_lazy(x, tw.w, tw.wp, q)
    }
    /// [`Simd::mul_shoup_lazier`] with the per-lane twiddle `tw` (default: ignores its odd
    /// words).
    #[inline(always)]
    fn mul_shoup_lazier_lanes(self, x: Self::V, tw: &LaneTw<Self::V>, q: Self::V) -> Self::V {
        self.mul_shoup_lazier(x, tw.w, tw.wp, q)
    }
    /// The first `g` values of `s` repeated across the vector (lane `l` gets `s[l % g]`; `g` a
    /// power of two `<= LANES`, `s.len() >= g`). Default: through memory.
    #[inline(always)]
    fn load_bcast(self, s: &[Self::W], g: usize) -> Self::V {
        let mut lanes = [Self::W::ZERO; 64];
        for (l, x) in lanes[..Self::LANES].iter_mut().enumerate() {
            *x = s[l % g];
        }
        self.load(&lanes)
    }
    /// From the butterfly layout of distance `t` to that of `t / 2` (backends may fuse the two
    /// permutations).
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
    /// A scheduling fence on eight vectors, between two layers of a block of 16 vectors in
    /// registers ([`regs_block`], and the in-register layers of its eight pairs): the AVX-512
    /// backends pass the vectors through an empty assembly block, so the compiler keeps the
    /// layers (nearly) apart instead of ordering the blocks chain by chain, which spilled.
    /// Default: nothing.
    /// Measured (Zen 5, `examples/ntt_bench`, old and new binaries alternating), 32-bit lanes:
    /// n = 256 forward 0.101-0.116 -> 0.079-0.091 µs, 512 0.180-0.185 -> 0.157-0.162 (inverse
    /// 0.182-0.196 -> 0.155-0.161), 4096 1.82-1.85 -> 1.67-1.69; 64-bit lanes, 4 x 8192
    /// forward 38.3-38.5 -> 34.9-35.7 µs; IFMA 1-3% (against a build without its fence).
    #[inline(always)]
    fn fence8(self, v: &mut [Self::V; 8]) {
        let _ = v;
    }
    /// Whether [`forward_checked`] folds the range check of its input into the transform's
    /// first layer ([`Simd::any_ge`] on every loaded set of vectors, in [`fwd_first_checked`]
    /// or [`fwd_fused_pair`]) instead of reading the whole input once more before the
    /// transform (from L2 on transforms larger than one cache block of [`BLOCK_BYTES`]).
    const FUSED_CHECK: bool = false;
    /// Whether the checked inverse reads the caller's array through [`Below`] in its first
    /// pass and runs in a per-thread scratch array ([`inverse_checked`]), instead of checking
    /// the input in a pass of its own and transforming it in place. The first saves that pass
    /// but doubles the working set, and its last pass writes other lines than it reads (and
    /// zeroes the scratch behind it); it pays where the butterflies are dear: the emulated
    /// 64-bit products. Measured (Intel Xeon, `examples/ntt_bench`, old and new binaries
    /// alternating): AVX-512 64-bit lanes, 4 x 8192 (60-bit primes) inverse 85.6-85.7 ->
    /// 80.4-81.1 µs, 32768 111-117 -> 105-108, 4096 10.8-11.0 -> 10.4-10.7; AVX2 64-bit lanes
    /// 4 x 8192 128-131 -> 127-129, 1024 4.70 -> 4.57-4.65; but IFMA 4096 5.06-5.19 ->
    /// 5.52-5.75 (64 KB of arrays against a 48 KB level-1 cache), 5 x 8192 (W1-eq) 51.4-52.3 ->
    /// 54.3-58.0, and AVX-512 32-bit lanes 4 x 8192 32.0-32.3 -> 32.3-33.3.
    const INV_CHECK_THROUGH: bool = false;
    /// Whether any lane of `v` is at least the same lane of `bound` (unsigned): the range
    /// checks' test ([`all_below`], and the first layer of [`forward_checked`] on backends with
    /// [`Simd::FUSED_CHECK`]: [`fwd_first_checked`], [`fwd_fused_pair`]). Every x86 backend overrides it; the default is the scalar
    /// definition.
    #[inline(always)]
    fn any_ge(self, v: Self::V, bound: Self::V) -> bool {
        let (mut x, mut b) = ([Self::W::ZERO; 64], [Self::W::ZERO; 64]);
        self.store(&mut x[..Self::LANES], v);
        self.store(&mut b[..Self::LANES], bound);
        x[..Self::LANES]
            .iter()
            .zip(&b[..Self::LANES])
            .any(|(x, b)| x >= b)
    }
}

/// Per-backend twiddle tables (Shoup quotients in the backend's `SHOUP_BITS`), every entry in
/// the backend's lane encoding ([`Simd::enc`], [`Simd::enc_shoup`]).
#[derive(Clone, Debug)]
pub(crate) struct SimdTables<W: Word> {
    pub fwd: Vec<W>,
    pub fwd_shoup: Vec<W>,
    pub inv: Vec<W>,
    pub inv_shoup: Vec<W>,
    /// Per-lane twiddles of the in-register layers (distances `t < LANES`), one record of
    /// `2 · log2(LANES) · LANES` values per pair of vectors: for each layer in the order the
    /// forward transform uses them (largest `t` first), `LANES` twiddles then `LANES` quotients,
    /// in the backend's deinterleaved lane order; then one zero of padding for
    /// [`Simd::load_odd`]. Empty for backends that read these twiddles from `fwd` / `inv` with
    /// broadcast loads ([`Simd::BCAST_TWIDDLES`]).
    pub small_fwd: Vec<W>,
    /// As `small_fwd` for the inverse, layers in the order it uses them (`t = 1` first).
    pub small_inv: Vec<W>,
    pub n_inv: (W, W),
    pub n_inv_w: (W, W),
    /// Whether `1/n` is folded into the inverse layer of distance `n/4` ([`fold_inv`]): its
    /// two twiddles (`inv[2]`, `inv[3]`, and every copy of them in `small_inv`) carry the
    /// factor, and the last layer scales only the first quarter of its `u` outputs.
    pub fold_inv: bool,
    /// `2^MONT_BITS mod q` with its Shoup quotient: cancels the Montgomery factor.
    pub mont_fix: (W, W),
    /// `q^-1 mod 2^MONT_BITS`.
    pub qinv: W,
    /// Barrett constants for `u64` lanes: `k` = bit length of `q` and `floor(2^(k+63) / q)`
    /// (0 for narrower lanes).
    pub barrett: (u32, u64),
    /// Reduction schedule of the forward transform ([`lazy`]).
    pub lazy_fwd: u8,
    /// Reduction schedule of the inverse transform ([`lazy::STD`], [`lazy::WIDE`] or
    /// [`lazy::HALF`]).
    pub lazy_inv: u8,
}

/// A per-lane twiddle of the in-register layers: values `w` and Shoup quotients `wp`, and on
/// backends with [`Simd::ODD_TWIDDLES`] both again read by [`Simd::load_odd`] (`w_odd`,
/// `wp_odd`; otherwise copies of `w` and `wp`).
#[derive(Clone, Copy)]
pub(crate) struct LaneTw<V> {
    pub w: V,
    pub wp: V,
    pub w_odd: V,
    pub wp_odd: V,
}

/// Reduction schedules of the forward and inverse drivers: Scott's "slothful" reduction, which
/// leaves values unreduced across layers while the lanes have room for them. A butterfly
/// `(u + v, u - v + V q)` with `v = w y mod q` in `[0, V q)` lets values grow by `V q` per
/// layer; the conditional subtraction that bounds `u` costs two of the nine (IFMA) to
/// eighteen (AVX-512, 64-bit) vector operations of a butterfly, the one that brings an AVX-512
/// product from `[0, 4q)` to `[0, 2q)` two more. Which schedule a plan uses depends on `q` and
/// the backend ([`SimdTables::new`]); all give the same outputs mod `q` in the documented
/// ranges of [`forward`] and [`inverse`]. Measured on the AVX-512 64-bit backend (Zen 5,
/// n = 8192, 4 x 60-bit primes, minimum of 12 alternating runs): forward 48.1 -> 46.0 µs,
/// inverse 49.8 -> 47.8 µs. The IFMA backend enables it too (`x86/ifma_u64.rs`: neutral on
/// Zen 4, a few percent on Intel), and so do the AVX2 64-bit backend (`x86/avx2_u64.rs`, as the
/// AVX-512 one) and the AVX2 `f64` one (`x86/avx2_f64.rs`: `SLOTH` / `HALF` for `q <= 2^49`).
pub(crate) mod lazy {
    /// Every layer brings `u` to `[0, 2q)`, products in `[0, 2q)`: values below `4q`.
    pub(crate) const STD: u8 = 0;
    /// Products in `[0, 4q)` (no final correction of the AVX-512 quotient estimate), every
    /// layer brings `u` to `[0, 4q)`: values below `8q`. Needs `Simd::LAZIER_V == 4` and
    /// `8q <= 2^VALUE_BITS`.
    pub(crate) const WIDE: u8 = 1;
    /// Forward only. Products in `[0, V q)` (`V = Simd::LAZIER_V`); the layers of odd index
    /// (the first layer, of distance `n/2`, has index 0) bring `u` from `[0, 4V q)` to
    /// `[0, 2V q)`, the others leave it alone: values below `3V q` before an even layer and
    /// `4V q` before an odd one. Half the layers skip their conditional subtraction. Needs
    /// `4V q <= 2^VALUE_BITS`.
    pub(crate) const SLOTH: u8 = 2;
    /// Inverse only. Products in `[0, P)` with `P = V q` (`V = Simd::LAZIER_V`). A layer's
    /// butterflies whose inputs are `v` outputs of the layer before (below `P`) leave
    /// `u = x + y` below `2P` without a conditional subtraction; only those whose inputs are
    /// `u` outputs (below `2P`) bring it from `[0, 4P)` to `[0, 2P)`. In a group of a layer of
    /// distance `t`, the first `t/2` positions hold the previous layer's `u` outputs, the
    /// other `t/2` its `v` outputs, so half the butterflies of every memory layer skip the
    /// subtraction (all of them in the first, whose inputs come from the in-register layers,
    /// which keep everything below `P`). Needs `4P <= 2^VALUE_BITS` and `Simd::SLOTHFUL`.
    pub(crate) const HALF: u8 = 3;
}

/// The loop-invariant vectors of [`Simd::mul_mod`].
#[derive(Clone, Copy)]
pub(crate) struct MulConsts<V> {
    pub q: V,
    pub qinv: V,
    pub fix: V,
    pub fix_shoup: V,
    /// `floor(2^(k+63) / q)` (u64 lanes).
    pub mu: V,
    /// `k`, the bit length of `q`.
    pub k: u32,
    /// `u64` lanes and `q < 2^61` ([`Simd::mul_mod_narrow`] applies).
    pub narrow: bool,
}

impl<V: Copy> MulConsts<V> {
    #[inline(always)]
    pub(crate) fn new<S: Simd<V = V>>(s: S, tb: &SimdTables<S::W>, q: S::W) -> Self {
        Self {
            q: s.splat(S::enc(q)),
            qinv: s.splat(tb.qinv),
            fix: s.splat(tb.mont_fix.0),
            fix_shoup: s.splat(tb.mont_fix.1),
            mu: s.splat(S::W::from_u64(tb.barrett.1)),
            k: tb.barrett.0,
            narrow: S::W::BITS == 64 && tb.barrett.0 <= 61,
        }
    }
}

/// `floor(w · 2^bits / q)`.
pub(crate) fn shoup_quotient(w: u64, q: u64, bits: u32) -> u64 {
    (((w as u128) << bits) / q as u128) as u64
}

impl<W: Word> SimdTables<W> {
    /// Builds the tables for token `s` from the bit-reversed power tables of the scalar plan.
    pub(crate) fn new<S: Simd<W = W>>(s: S, m: &W::Modulus, fwd: &[W], inv: &[W]) -> Self {
        let q = m.value().to_u64();
        let n = fwd.len();
        let l = S::LANES;
        let small = l.trailing_zeros() as usize;
        let sh = |w: W| W::from_u64(S::enc_shoup(w.to_u64(), q));
        let e = |w: W| S::enc(w);
        // Discover the backend's lane -> butterfly mapping by deinterleaving index vectors.
        let idx_a: Vec<W> = (0..l).map(|i| W::from_u64(i as u64)).collect();
        let idx_b: Vec<W> = (l..2 * l).map(|i| W::from_u64(i as u64)).collect();
        let positions = |t: usize| -> Vec<usize> {
            let (x, _) = s.deinterleave(s.load(&idx_a), s.load(&idx_b), t);
            let mut pos = vec![W::ZERO; l];
            s.store(&mut pos, x);
            pos.iter().map(|p| p.to_u64() as usize).collect()
        };
        let pos: Vec<Vec<usize>> = (0..small).map(|k| positions(1 << k)).collect();
        let mut small_fwd = Vec::new();
        let mut small_inv = Vec::new();
        if S::BCAST_TWIDDLES {
            // The layout `load_bcast` relies on: group `l mod G` in lane `l`.
            for (k, p) in pos.iter().enumerate() {
                let (t, groups) = (1usize << k, l >> k);
                for (lane, &e) in p.iter().enumerate() {
                    assert_eq!(e / (2 * t), lane % groups, "lane layout of {}", S::LANES);
                }
            }
        }
        let ni = m
            .inv(m.reduce_u64(n as u64))
            .expect("n is invertible modulo a prime q > n");
        let fold_inv = fold_inv(n, l);
        let mut inv = inv.to_vec();
        if fold_inv {
            inv[2] = m.mul(inv[2], ni);
            inv[3] = m.mul(inv[3], ni);
        }
        let inv = &inv[..];
        assert!(
            !(S::BCAST_TWIDDLES && S::ODD_TWIDDLES),
            "ODD_TWIDDLES reads the per-lane tables"
        );
        let expanded_pairs = if S::BCAST_TWIDDLES { 0 } else { n / (2 * l) };
        small_fwd.reserve(expanded_pairs * 2 * l * small + 1);
        small_inv.reserve(expanded_pairs * 2 * l * small + 1);
        for pair in 0..expanded_pairs {
            for (table, out, order) in [
                (fwd, &mut small_fwd, (0..small).rev().collect::<Vec<_>>()),
                (inv, &mut small_inv, (0..small).collect::<Vec<_>>()),
            ] {
                for k in order {
                    let t = 1usize << k;
                    let groups = n / (2 * t); // table index of group g is groups + g
                    let tw: Vec<W> = pos[k]
                        .iter()
                        .map(|&p| table[groups + (pair * 2 * l + p) / (2 * t)])
                        .collect();
                    out.extend(tw.iter().map(|&w| e(w)));
                    out.extend(tw.iter().map(|&w| sh(w)));
                }
            }
        }
        if expanded_pairs > 0 {
            // One value of padding: `Simd::load_odd` of the last quotient vector reads 4 bytes
            // past it.
            small_fwd.push(W::ZERO);
            small_inv.push(W::ZERO);
        }
        let niw = m.mul(ni, inv[1]);
        let half = m.reduce_u64(1u64 << (S::MONT_BITS / 2));
        let r = m.mul(half, half); // 2^MONT_BITS mod q
                                   // `q^-1 mod 2^MONT_BITS` (`MONT_BITS = 0`: no Montgomery factor, `qinv` unused).
        let qinv = W::from_u64(
            crate::arith::modulus::inv_mod_2_64(q)
                & u64::MAX.checked_shr(64 - S::MONT_BITS).unwrap_or(0),
        );
        // Room for values below `k q` in the lanes.
        let room = |k: u64| S::SLOTHFUL && q as u128 * k as u128 <= 1u128 << S::VALUE_BITS;
        let v = S::LAZIER_V;
        let wide = v == 4 && room(8);
        Self {
            lazy_fwd: if room(4 * v) {
                lazy::SLOTH
            } else if wide {
                lazy::WIDE
            } else {
                lazy::STD
            },
            lazy_inv: if S::SLOTHFUL
                && n > inv_block_vectors::<S, { lazy::HALF }>() * l
                && q as u128 * 4 * v as u128 <= 1u128 << S::VALUE_BITS
            {
                lazy::HALF
            } else if wide {
                lazy::WIDE
            } else {
                lazy::STD
            },
            fwd_shoup: fwd.iter().map(|&w| sh(w)).collect(),
            inv_shoup: inv.iter().map(|&w| sh(w)).collect(),
            fwd: fwd.iter().map(|&w| e(w)).collect(),
            inv: inv.iter().map(|&w| e(w)).collect(),
            small_fwd,
            small_inv,
            n_inv: (e(ni), sh(ni)),
            n_inv_w: (e(niw), sh(niw)),
            fold_inv,
            mont_fix: (e(r), sh(r)),
            qinv,
            barrett: if W::BITS == 64 {
                let k = 64 - q.leading_zeros();
                (k, ((1u128 << (k + 63)) / q as u128) as u64)
            } else {
                (0, 0)
            },
        }
    }
}

/// Elements per cache block: transforms larger than this run their outer layers breadth-first
/// over the whole array, then all inner layers block by block while the block sits in L1.
const BLOCK_BYTES: usize = 16 * 1024;

/// Words outside a transform's own array that it reads as its input and writes as its output
/// ([`Io`]), so a transform whose caller's words are of another width
/// (`ntt/x86/avx2_narrow.rs`: `u64` words, `u32` lanes) converts them, or whose input must be
/// checked ([`Below`]: the checked inverse) checks them, inside passes it makes anyway instead
/// of in passes of their own. Reads: the forward's first memory pass when the array spans
/// several cache blocks (else a copy before the first layer); each inverse block's first
/// layers, in registers ([`small_group`], [`regs_block`]; a copy before them with a pointwise
/// product first). Writes: each forward block's in-register last layers (else a copy after
/// them, [`drain`]); the inverse's last layer (or last two, [`inv_last_radix4`]).
pub(crate) trait Outer<S: Simd> {
    /// The outside word.
    type E: Copy;
    /// Whether every value [`Outer::load`] returns is below `q` (the forward's first layer
    /// then skips its conditional subtraction).
    const BELOW_Q: bool;
    /// `LANES` outside words (`x.len() == LANES`) as a vector.
    fn load(&self, s: S, x: &[Self::E]) -> S::V;
    /// A vector into `LANES` outside words.
    fn store(&self, s: S, x: &mut [Self::E], v: S::V);
    /// Whether every word loaded so far was acceptable (for implementors that check what they
    /// load; the drivers stop before they write any outside word when it is not).
    fn ok(&self) -> bool {
        true
    }
    /// `V` vectors from consecutive outside words ([`Outer::load`] on each; an implementor
    /// may check them together, as [`Below`] does).
    #[inline(always)]
    fn load_block<const V: usize>(&self, s: S, x: &[Self::E], v: &mut [S::V; V]) {
        let l = S::LANES;
        unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
            if i < V {
                v[i] = self.load(s, &x[i * l..(i + 1) * l]);
            }
        });
    }
}

/// The transform's own words, for an input of values below `q` read out of place ([`Io::From`]).
pub(crate) struct Own;

impl<S: Simd> Outer<S> for Own {
    type E = S::W;
    const BELOW_Q: bool = true;
    #[inline(always)]
    fn load(&self, s: S, x: &[S::W]) -> S::V {
        s.load(x)
    }
    #[inline(always)]
    fn store(&self, s: S, x: &mut [S::W], v: S::V) {
        s.store(x, v)
    }
}

/// The transform's own words read with a range check: [`Outer::ok`] says whether every word
/// loaded so far was below the bound (the lane-wise maximum of the loads). The checked inverse ([`inverse_checked`]) reads the caller's array
/// through it.
pub(crate) struct Below<S: Simd> {
    s: S,
    max: core::cell::Cell<S::V>,
    bound: S::V,
}

impl<S: Simd> Below<S> {
    #[inline(always)]
    pub(crate) fn new(s: S, bound: S::W) -> Self {
        Below {
            s,
            max: core::cell::Cell::new(s.splat(S::W::ZERO)),
            bound: s.splat(bound),
        }
    }
}

impl<S: Simd> Outer<S> for Below<S> {
    type E = S::W;
    const BELOW_Q: bool = false;
    #[inline(always)]
    fn load(&self, s: S, x: &[S::W]) -> S::V {
        let v = s.load(x);
        self.max.set(s.max(self.max.get(), v));
        v
    }
    #[inline(always)]
    fn store(&self, s: S, x: &mut [S::W], v: S::V) {
        s.store(x, v)
    }
    #[inline(always)]
    fn ok(&self) -> bool {
        !self.s.any_ge(self.max.get(), self.bound)
    }
    /// The block's maximum as a tree (the register blocks of the first pass have no register
    /// to spare for a running maximum), then one update of the kept one.
    #[inline(always)]
    fn load_block<const V: usize>(&self, s: S, x: &[S::W], v: &mut [S::V; V]) {
        Own.load_block(s, x, v);
        let mut m = *v;
        let mut w = V;
        while w > 1 {
            w /= 2;
            for i in 0..w {
                m[i] = s.max(m[i], m[i + w]);
            }
        }
        self.max.set(s.max(self.max.get(), m[0]));
    }
}

/// Where a transform's input comes from and its output goes (words of type `E`, read and
/// written through an [`Outer`]).
pub(crate) enum Io<'a, E> {
    /// In place in the transform's own array.
    InPlace,
    /// The input from these words, the output in the transform's array.
    From(&'a [E]),
    /// The input from these words and the output into them; the transform's array is scratch,
    /// all zero on return.
    Through(&'a mut [E]),
}

impl<E> Io<'_, E> {
    /// The input when it is not the transform's own array.
    #[inline(always)]
    fn input(&self) -> Option<&[E]> {
        match self {
            Io::InPlace => None,
            Io::From(src) => Some(src),
            Io::Through(io) => Some(io),
        }
    }
}

/// `a = src`, `LANES` words at a time through `x`.
#[inline(always)]
fn copy_in<S: Simd, X: Outer<S>>(s: S, x: &X, src: &[X::E], a: &mut [S::W]) {
    for (d, v) in a.chunks_exact_mut(S::LANES).zip(src.chunks_exact(S::LANES)) {
        s.store(d, x.load(s, v));
    }
}

/// `dst = a`, `LANES` words at a time through `x`, then `a = 0` ([`Io::Through`] leaves its
/// scratch zero).
#[inline(always)]
fn drain<S: Simd, X: Outer<S>>(s: S, x: &X, a: &mut [S::W], dst: &mut [X::E]) {
    let zero = s.splat(S::W::ZERO);
    for (v, d) in a
        .chunks_exact_mut(S::LANES)
        .zip(dst.chunks_exact_mut(S::LANES))
    {
        x.store(s, d, s.load(v));
        s.store(v, zero);
    }
}

/// The early return of a transform whose [`Outer`] refused its input: with [`Io::Through`],
/// `a` (scratch) is zeroed. Cold: it runs only for a rejected input.
#[cold]
fn refuse<W: Word, E>(io: &Io<'_, E>, a: &mut [W]) -> bool {
    if let Io::Through(_) = io {
        a.fill(W::ZERO);
    }
    false
}

/// `x` (a power of two) in a form the optimiser knows is a power of two, so divisions by it
/// (e.g. inside `chunks_exact`) compile to shifts.
#[inline(always)]
fn p2(x: usize) -> usize {
    debug_assert!(x.is_power_of_two());
    1 << x.trailing_zeros()
}

/// Loop-invariant vectors of one transform under reduction schedule `M` ([`lazy`]).
#[derive(Clone, Copy)]
struct Consts<V> {
    q: V,
    two_q: V,
    /// `V q`: the bound of the butterflies' products, added to `u - v`.
    vq: V,
    /// The threshold of the conditional subtraction of `u` in reducing layers: `2q` ([`lazy::STD`]),
    /// `4q` ([`lazy::WIDE`]), `2V q` ([`lazy::SLOTH`] and, in the memory layers and the vector
    /// layers of register blocks, [`lazy::HALF`]).
    cq: V,
}

impl<V: Copy> Consts<V> {
    #[inline(always)]
    fn new<S: Simd<V = V>, const M: u8>(s: S, q: S::W) -> Self {
        let qv = s.splat(S::enc(q));
        let two_q = s.add(qv, qv);
        let four_q = s.add(two_q, two_q);
        let (vq, cq) = match M {
            lazy::STD => (two_q, two_q),
            lazy::WIDE => (four_q, four_q),
            // HALF, memory layers: inputs below 2P (P = V q), `d = x - y + 2P`.
            lazy::HALF if S::LAZIER_V == 4 => (s.add(four_q, four_q), s.add(four_q, four_q)),
            lazy::HALF => (four_q, four_q),
            _ if S::LAZIER_V == 4 => (four_q, s.add(four_q, four_q)),
            _ => (two_q, four_q),
        };
        Self {
            q: qv,
            two_q,
            vq,
            cq,
        }
    }

    /// [`lazy::HALF`]'s constants for the in-register layers, which keep every value below
    /// `P = V q` (`u` by one conditional subtraction at `P`, `d = x - y + P`).
    #[inline(always)]
    fn half_inner<S: Simd<V = V>>(self, s: S) -> Self {
        let p = if S::LAZIER_V == 4 {
            s.add(self.two_q, self.two_q)
        } else {
            self.two_q
        };
        Self {
            vq: p,
            cq: p,
            ..self
        }
    }
}

/// Whether the forward layer of index `layer` (0 for distance `n/2`) brings `u` down under
/// schedule `M`.
#[inline(always)]
fn reduces<const M: u8>(layer: u32) -> bool {
    M != lazy::SLOTH || layer % 2 == 1
}

/// The twiddle product of the butterflies under schedule `M`, with broadcast `w`, `wp`
/// ([`Simd::mul_shoup_lazy_splat`]; the in-register layers' per-lane twiddles take
/// [`bf_mul_lanes`]).
#[inline(always)]
fn bf_mul<S: Simd, const M: u8>(s: S, y: S::V, w: S::V, wp: S::V, q: S::V) -> S::V {
    if M == lazy::STD {
        s.mul_shoup_lazy_dirty_splat(y, w, wp, q)
    } else {
        s.mul_shoup_lazier_splat(y, w, wp, q)
    }
}

/// [`bf_mul`] with a per-lane twiddle ([`LaneTw`]: the in-register layers).
#[inline(always)]
fn bf_mul_lanes<S: Simd, const M: u8>(s: S, y: S::V, tw: &LaneTw<S::V>, q: S::V) -> S::V {
    if M == lazy::STD {
        s.mul_shoup_lazy_dirty_lanes(y, tw, q)
    } else {
        s.mul_shoup_lazier_lanes(y, tw, q)
    }
}

/// Cooley-Tukey butterfly `(u + v, u - v + V q)` with `v = w y`; `RED`: `u` is `x` brought
/// below `cq` by one conditional subtraction, otherwise `x` itself.
#[inline(always)]
fn ct_butterfly<S: Simd, const M: u8, const RED: bool>(
    s: S,
    x: S::V,
    y: S::V,
    w: S::V,
    wp: S::V,
    c: &Consts<S::V>,
) -> (S::V, S::V) {
    let u = ct_u::<S, RED>(s, x, c);
    if M == lazy::STD {
        s.ct_mul_sums_splat::<false>(u, y, w, wp, c.q, c.vq)
    } else {
        s.ct_mul_sums_splat::<true>(u, y, w, wp, c.q, c.vq)
    }
}

/// The `u` of a Cooley-Tukey butterfly from its `x` (which may carry the junk of
/// [`Simd::clean`]): `x` brought below `cq` when `RED`, else `x` itself.
#[inline(always)]
fn ct_u<S: Simd, const RED: bool>(s: S, x: S::V, c: &Consts<S::V>) -> S::V {
    if RED {
        s.csub(s.clean(x), c.cq)
    } else {
        x
    }
}

/// Gentleman-Sande butterfly `(x + y` brought below `cq`, `w (x - y + V q))` with broadcast
/// `w`, `wp`. Inputs below `V q` (`M` is [`lazy::STD`] or [`lazy::WIDE`], where
/// `cq = V q`), outputs too. `RED`: the conditional subtraction of `u`; without it `u` is
/// `x + y` ([`lazy::HALF`], for inputs whose sum needs none).
#[inline(always)]
fn gs_butterfly<S: Simd, const M: u8, const RED: bool>(
    s: S,
    x: S::V,
    y: S::V,
    w: S::V,
    wp: S::V,
    c: &Consts<S::V>,
) -> (S::V, S::V) {
    let (u, d) = gs_start::<S, RED>(s, x, y, c);
    (u, bf_mul::<S, M>(s, d, w, wp, c.q))
}

/// The sum and the difference (before its product) of [`gs_butterfly`] (`x`, `y` may carry
/// the junk of [`Simd::clean`]).
#[inline(always)]
fn gs_start<S: Simd, const RED: bool>(s: S, x: S::V, y: S::V, c: &Consts<S::V>) -> (S::V, S::V) {
    let u = if RED {
        s.csub(s.clean(s.add(x, y)), c.cq)
    } else {
        s.add(x, y)
    };
    (u, s.add(s.sub(x, y), c.vq))
}

/// One forward (Cooley-Tukey) layer of distance `t >= LANES` on `blk`; `base` is the table
/// index of `blk`'s first group; `RED` as for [`ct_butterfly`]. `FROM`: the layer reads its
/// inputs from `src` (same length and positions as `blk`), through `x` ([`Outer`]), instead
/// of `blk`, which it only writes (an out-of-place first layer).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fwd_radix2<S: Simd, const M: u8, const RED: bool, const FROM: bool, X: Outer<S>>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    x: &X,
    src: &[X::E],
    blk: &mut [S::W],
    t: usize,
    base: usize,
) {
    let l = S::LANES;
    for (i, grp) in blk.chunks_exact_mut(p2(2 * t)).enumerate() {
        let w = s.splat(tb.fwd[base + i]);
        let wp = s.splat(tb.fwd_shoup[base + i]);
        let (lo, hi) = grp.split_at_mut(t);
        let pairs = lo.chunks_exact_mut(l).zip(hi.chunks_exact_mut(l));
        if FROM {
            let (slo, shi) = src[2 * t * i..2 * t * (i + 1)].split_at(t);
            for ((dx, dy), (sx, sy)) in pairs.zip(slo.chunks_exact(l).zip(shi.chunks_exact(l))) {
                let (u, v) = ct_butterfly::<S, M, RED>(s, x.load(s, sx), x.load(s, sy), w, wp, c);
                s.store(dx, u);
                s.store(dy, v);
            }
        } else {
            for (x, y) in pairs {
                let (u, v) = ct_butterfly::<S, M, RED>(s, s.load(x), s.load(y), w, wp, c);
                s.store(x, u);
                s.store(y, v);
            }
        }
    }
}

/// Two forward layers (distances `t` and `t/2`, `t/2 >= LANES`) in one pass over `blk`.
/// `base1`, `base2`: table indices of `blk`'s first group in each layer; `R1`, `R2`: whether
/// each layer reduces ([`ct_butterfly`]); `FROM` as for [`fwd_radix2`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fwd_radix4<
    S: Simd,
    const M: u8,
    const R1: bool,
    const R2: bool,
    const FROM: bool,
    X: Outer<S>,
>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    x: &X,
    src: &[X::E],
    blk: &mut [S::W],
    t: usize,
    base1: usize,
    base2: usize,
) {
    let l = S::LANES;
    let h = t / 2;
    for (i, grp) in blk.chunks_exact_mut(p2(2 * t)).enumerate() {
        let tw = [
            fwd_twiddle(s, tb, base1 + i),
            fwd_twiddle(s, tb, base2 + 2 * i),
            fwd_twiddle(s, tb, base2 + 2 * i + 1),
        ];
        let (b01, b23) = grp.split_at_mut(t);
        let (b0, b1) = b01.split_at_mut(h);
        let (b2, b3) = b23.split_at_mut(h);
        let quads = b0
            .chunks_exact_mut(l)
            .zip(b1.chunks_exact_mut(l))
            .zip(b2.chunks_exact_mut(l).zip(b3.chunks_exact_mut(l)));
        if FROM {
            let g = &src[2 * t * i..2 * t * (i + 1)];
            let (s01, s23) = g.split_at(t);
            let (s0, s1) = s01.split_at(h);
            let (s2, s3) = s23.split_at(h);
            let squads = s0
                .chunks_exact(l)
                .zip(s1.chunks_exact(l))
                .zip(s2.chunks_exact(l).zip(s3.chunks_exact(l)));
            for (out, (d01, d23)) in quads.zip(squads) {
                let v = [
                    x.load(s, d01.0),
                    x.load(s, d01.1),
                    x.load(s, d23.0),
                    x.load(s, d23.1),
                ];
                radix4_store::<S, M, R1, R2>(s, c, v, &tw, out);
            }
        } else {
            for out in quads {
                let x = [
                    s.load(out.0 .0),
                    s.load(out.0 .1),
                    s.load(out.1 .0),
                    s.load(out.1 .1),
                ];
                radix4_store::<S, M, R1, R2>(s, c, x, &tw, out);
            }
        }
    }
}

/// Forward twiddle `k` and its Shoup quotient, broadcast. (A function, not a closure: closures
/// are not always inlined into the `#[target_feature]` entry points.)
#[inline(always)]
fn fwd_twiddle<S: Simd>(s: S, tb: &SimdTables<S::W>, k: usize) -> (S::V, S::V) {
    (s.splat(tb.fwd[k]), s.splat(tb.fwd_shoup[k]))
}

/// Where [`radix4_store`] writes its four vectors (positions `j`, `j + t/2`, `j + t`,
/// `j + 3t/2` of a group).
type Quad<'a, W> = ((&'a mut [W], &'a mut [W]), (&'a mut [W], &'a mut [W]));

/// The four butterflies of [`fwd_radix4`] on one set of four vectors `x` (positions as in
/// [`Quad`]), stored to `out`; `tw`: the first layer's twiddle and the second layer's two,
/// each with its Shoup quotient.
#[inline(always)]
fn radix4_store<S: Simd, const M: u8, const R1: bool, const R2: bool>(
    s: S,
    c: &Consts<S::V>,
    x: [S::V; 4],
    tw: &[(S::V, S::V); 3],
    out: Quad<'_, S::W>,
) {
    let (w1, w1p) = tw[0];
    let (x0, x2) = ct_butterfly::<S, M, R1>(s, x[0], x[2], w1, w1p, c);
    let (x1, x3) = ct_butterfly::<S, M, R1>(s, x[1], x[3], w1, w1p, c);
    let (x0, x1) = ct_butterfly::<S, M, R2>(s, x0, x1, tw[1].0, tw[1].1, c);
    let (x2, x3) = ct_butterfly::<S, M, R2>(s, x2, x3, tw[2].0, tw[2].1, c);
    let ((c0, c1), (c2, c3)) = out;
    s.store(c0, x0);
    s.store(c1, x1);
    s.store(c2, x2);
    s.store(c3, x3);
}

/// Forward layers of distances `t_hi, t_hi/2, ..., >= t_lo` (all `>= LANES`) on `blk`, which
/// starts at element `off` of a transform of size `n`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fwd_big_layers<S: Simd, const M: u8>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    blk: &mut [S::W],
    n: usize,
    off: usize,
    t_hi: usize,
    t_lo: usize,
) {
    let mut t = t_hi;
    while t >= t_lo {
        t = fwd_step::<S, M, false, Own>(s, tb, c, &Own, &[], blk, n, off, t, t_lo);
    }
}

/// One pass of [`fwd_big_layers`]: the layer of distance `t` (and, on [`Simd::RADIX4`]
/// backends, the next one when its distance is at least `t_lo`). Returns the distance of the
/// next layer. `FROM` as for [`fwd_radix2`], reading `src` through `x`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fwd_step<S: Simd, const M: u8, const FROM: bool, X: Outer<S>>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    x: &X,
    src: &[X::E],
    blk: &mut [S::W],
    n: usize,
    off: usize,
    t: usize,
    t_lo: usize,
) -> usize {
    let groups = n >> (2 * t).trailing_zeros();
    // Index of the layer of distance `t`: 0 for `n/2`.
    let layer = groups.trailing_zeros();
    let b1 = groups + (off >> (2 * t).trailing_zeros());
    // With `FROM` and inputs below `q` (layer 0 of a transform out of place), layer 0 skips
    // the conditional subtraction of `x`: it would change nothing.
    let below = FROM && X::BELOW_Q;
    debug_assert!(!FROM || layer == 0);
    if S::RADIX4 && t / 2 >= t_lo {
        let b2 = 2 * groups + (off >> t.trailing_zeros());
        if below {
            debug_assert!(reduces::<M>(1));
            fwd_radix4::<S, M, false, true, FROM, X>(s, tb, c, x, src, blk, t, b1, b2);
        } else if M != lazy::SLOTH {
            fwd_radix4::<S, M, true, true, FROM, X>(s, tb, c, x, src, blk, t, b1, b2);
        } else if reduces::<M>(layer) {
            fwd_radix4::<S, M, true, false, FROM, X>(s, tb, c, x, src, blk, t, b1, b2);
        } else {
            fwd_radix4::<S, M, false, true, FROM, X>(s, tb, c, x, src, blk, t, b1, b2);
        }
        t / 4
    } else {
        if reduces::<M>(layer) && !below {
            fwd_radix2::<S, M, true, FROM, X>(s, tb, c, x, src, blk, t, b1);
        } else {
            fwd_radix2::<S, M, false, FROM, X>(s, tb, c, x, src, blk, t, b1);
        }
        t / 2
    }
}

/// The first memory pass of a forward transform (the layer of distance `n/2`, and on
/// [`Simd::RADIX4`] backends the next one when its distance is at least `t_lo`, as
/// [`fwd_step`] runs them), checking that every value it loads is below `q` before it stores
/// anything of that set of vectors. Returns the distance of the next layer, or `None` when it
/// found a value at least `q`: it then stops and undoes the butterflies it had run
/// ([`undo_first`]), so `a` is as it was.
#[inline(always)]
fn fwd_first_checked<S: Simd, const M: u8>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    q: S::W,
    a: &mut [S::W],
    t_lo: usize,
) -> Option<usize> {
    let n = a.len();
    let radix4 = S::RADIX4 && n / 4 >= t_lo;
    // Layer 0 skips the conditional subtraction of `x`, which changes nothing on values below
    // `q` (the layer's outputs are those of `fwd_step`); layer 1 reduces under every schedule
    // (`SLOTH` reduces in odd layers).
    debug_assert!(reduces::<M>(1));
    let done = if radix4 {
        first_radix4_checked::<S, M, false, true>(s, tb, c, q, a)
    } else {
        first_radix2_checked::<S, M, false>(s, tb, c, q, a)
    };
    match done {
        None => Some(if radix4 { n / 8 } else { n / 4 }),
        Some(done) => {
            undo_first(tb, q, a, radix4, done, value_mask::<S>());
            None
        }
    }
}

/// The checked layer of distance `n/2` ([`fwd_first_checked`]): `None` when every value was
/// below `q`, else the number of positions of each half it had transformed.
#[inline(always)]
fn first_radix2_checked<S: Simd, const M: u8, const RED: bool>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    q: S::W,
    a: &mut [S::W],
) -> Option<usize> {
    let l = S::LANES;
    let bound = s.splat(q);
    let (w, wp) = fwd_twiddle(s, tb, 1);
    let (lo, hi) = a.split_at_mut(a.len() / 2);
    for (j, (x, y)) in lo
        .chunks_exact_mut(l)
        .zip(hi.chunks_exact_mut(l))
        .enumerate()
    {
        let (vx, vy) = (s.load(x), s.load(y));
        if s.any_ge(s.max(vx, vy), bound) {
            return Some(j * l);
        }
        let (u, v) = ct_butterfly::<S, M, RED>(s, vx, vy, w, wp, c);
        s.store(x, u);
        s.store(y, v);
    }
    None
}

/// The checked layers of distances `n/2` and `n/4` ([`fwd_first_checked`]), as
/// [`first_radix2_checked`].
#[inline(always)]
fn first_radix4_checked<S: Simd, const M: u8, const R1: bool, const R2: bool>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    q: S::W,
    a: &mut [S::W],
) -> Option<usize> {
    let l = S::LANES;
    let bound = s.splat(q);
    let tw = [
        fwd_twiddle(s, tb, 1),
        fwd_twiddle(s, tb, 2),
        fwd_twiddle(s, tb, 3),
    ];
    let h = a.len() / 4;
    let (b01, b23) = a.split_at_mut(2 * h);
    let (b0, b1) = b01.split_at_mut(h);
    let (b2, b3) = b23.split_at_mut(h);
    let quads = b0
        .chunks_exact_mut(l)
        .zip(b1.chunks_exact_mut(l))
        .zip(b2.chunks_exact_mut(l).zip(b3.chunks_exact_mut(l)));
    for (j, out) in quads.enumerate() {
        let x = [
            s.load(out.0 .0),
            s.load(out.0 .1),
            s.load(out.1 .0),
            s.load(out.1 .1),
        ];
        if s.any_ge(s.max(s.max(x[0], x[1]), s.max(x[2], x[3])), bound) {
            return Some(j * l);
        }
        radix4_store::<S, M, R1, R2>(s, c, x, &tw, out);
    }
    None
}

/// Undoes the first `done` positions of each quarter (`radix4`) or half of the checked first
/// pass ([`fwd_first_checked`]): the inverse butterflies modulo `q`, reduced to `[0, q)`, give
/// back the inputs exactly, as those were below `q`. Scalar: it runs only for a rejected input.
#[cold]
fn undo_first<W: Word>(
    tb: &SimdTables<W>,
    q: W,
    a: &mut [W],
    radix4: bool,
    done: usize,
    mask: u64,
) {
    let m = W::Modulus::new(q.to_u64()).expect("the plan's modulus");
    let half = m.inv(m.reduce_u64(2)).expect("q is an odd prime");
    // `(y0, y1) = (x + w v, x - w v)` -> `(x, v) = ((y0 + y1) / 2, (y0 - y1) / (2 w))`;
    // `k = 1 / (2 w)`. Inputs are lazy (a few q at most, below `mask` once the junk of
    // `Simd::clean` is cleared): reduced first.
    let undo = |y0: W, y1: W, k: W| -> (W, W) {
        let r = |y: W| m.reduce_u64(y.to_u64() & mask);
        let (y0, y1) = (r(y0), r(y1));
        (m.mul(m.add(y0, y1), half), m.mul(m.sub(y0, y1), k))
    };
    let k = |i: usize| m.mul(half, m.inv(tb.fwd[i]).expect("twiddles are units"));
    let n = a.len();
    if radix4 {
        let h = n / 4;
        let (k1, k2, k3) = (k(1), k(2), k(3));
        for p in 0..done {
            let (y0, y1) = undo(a[p], a[p + h], k2);
            let (y2, y3) = undo(a[p + 2 * h], a[p + 3 * h], k3);
            (a[p], a[p + 2 * h]) = undo(y0, y2, k1);
            (a[p + h], a[p + 3 * h]) = undo(y1, y3, k1);
        }
    } else {
        let (h, k1) = (n / 2, k(1));
        for p in 0..done {
            (a[p], a[p + h]) = undo(a[p], a[p + h], k1);
        }
    }
}

/// The lane bits that hold a value ([`Simd::VALUE_BITS`]; the rest may be the junk of
/// [`Simd::clean`]), as a mask on the lane word.
fn value_mask<S: Simd>() -> u64 {
    if S::VALUE_BITS >= 64 {
        u64::MAX
    } else {
        (1 << S::VALUE_BITS) - 1
    }
}

/// The twiddle entries of in-register layer `k` (the `k`-th such layer the transform runs) for
/// the `K` pairs from pair `p0` of the transform (`2 LANES` values from element `2 LANES p0`):
/// (values, Shoup quotients). Sliced once per layer and group, so that the per-pair loads of
/// [`small_twiddles`] (constant offsets into slices of constant length) carry no bounds checks;
/// with checks per load, the in-register loop of the 64-bit backends was about 40% scalar
/// compares and branches.
#[inline(always)]
fn small_span<S: Simd, const INV: bool, const K: usize>(
    tb: &SimdTables<S::W>,
    p0: usize,
    k: usize,
) -> (&[S::W], &[S::W]) {
    let l = S::LANES;
    let log_l = l.trailing_zeros() as usize;
    if S::BCAST_TWIDDLES {
        // Layer of distance `t` has `n / 2t` groups, `G = LANES / t` of them in each pair: the
        // pairs' are entries `n / 2t + p0 G ..` of the bit-reversed table, in lanes `l mod G`.
        let (table, shoup) = if INV {
            (&tb.inv, &tb.inv_shoup)
        } else {
            (&tb.fwd, &tb.fwd_shoup)
        };
        // Shifts, not divisions: `k` may be a loop variable here.
        let log_t = if INV { k } else { log_l - 1 - k };
        let g = 1 << (log_l - log_t);
        let i = (table.len() >> (log_t + 1)) + (p0 << (log_l - log_t));
        (&table[i..i + K * g], &shoup[i..i + K * g])
    } else {
        // Per pair a record of `2 LANES` entries per layer (values, then quotients).
        let rec = 2 * log_l * l;
        let table = if INV { &tb.small_inv } else { &tb.small_fwd };
        // One value more than the span's vectors: `load_odd` of its last quotient vector.
        let r = &table[p0 * rec + 2 * l * k..][..(K - 1) * rec + 2 * l + 1];
        (r, r)
    }
}

/// Twiddle vector and quotients of in-register layer `k` for pair `p0 + j`, from the layer's
/// [`small_span`].
#[inline(always)]
fn small_twiddles<S: Simd, const INV: bool>(
    s: S,
    span: (&[S::W], &[S::W]),
    j: usize,
    k: usize,
) -> LaneTw<S::V> {
    let l = S::LANES;
    let log_l = l.trailing_zeros() as usize;
    let (w, wp) = if S::BCAST_TWIDDLES {
        let log_t = if INV { k } else { log_l - 1 - k };
        let g = 1 << (log_l - log_t);
        (
            s.load_bcast(&span.0[j * g..], g),
            s.load_bcast(&span.1[j * g..], g),
        )
    } else {
        let r = &span.0[j * 2 * log_l * l..];
        if S::ODD_TWIDDLES {
            return LaneTw {
                w: s.load(r),
                wp: s.load(&r[l..]),
                w_odd: s.load_odd(r),
                wp_odd: s.load_odd(&r[l..]),
            };
        }
        (s.load(r), s.load(&r[l..]))
    };
    let log_t = if INV { k } else { log_l - 1 - k };
    LaneTw {
        w,
        wp,
        w_odd: w,
        wp_odd: s.odd_words(wp, log_t as u32),
    }
}

/// Pairs of vectors that go through the in-register layers side by side: each pair is a chain
/// of dependent butterflies and permutations, and independent chains in lockstep keep the vector
/// units busy where one chain would wait on latencies. The default of [`Simd::SMALL_K`], and
/// the count of [`small_all`] in blocks of 8 vectors (which hold four pairs).
const SMALL_K: usize = 4;

/// The in-register layers on `blk` (starting at element `off`): forward (distances
/// `LANES/2 .. 1`, with the final reduction to `[0, 4q)`, or `[0, q)` when `STRICT`) or inverse
/// (`INV`, distances `1 .. LANES/2`). `M`: the reduction schedule; `R0`: whether the first
/// forward in-register layer (distance `LANES/2`) reduces under [`lazy::SLOTH`] (the layers
/// alternate from there).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn small_layers<
    S: Simd,
    const INV: bool,
    const STRICT: bool,
    const M: u8,
    const R0: bool,
    X: Outer<S>,
>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    blk: &mut [S::W],
    off: usize,
    x: &X,
    src: Option<&[X::E]>,
    dst: Option<&mut [X::E]>,
    lone: Option<usize>,
) {
    if S::SMALL_K == 8 {
        small_layers_k::<S, INV, STRICT, M, R0, 8, X>(s, tb, c, blk, off, x, src, dst, lone);
    } else {
        small_layers_k::<S, INV, STRICT, M, R0, SMALL_K, X>(s, tb, c, blk, off, x, src, dst, lone);
    }
}

/// [`small_layers`] with `K` pairs side by side (a tail of fewer than `K` pairs one by one).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn small_layers_k<
    S: Simd,
    const INV: bool,
    const STRICT: bool,
    const M: u8,
    const R0: bool,
    const K: usize,
    X: Outer<S>,
>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    blk: &mut [S::W],
    off: usize,
    x: &X,
    src: Option<&[X::E]>,
    mut dst: Option<&mut [X::E]>,
    lone: Option<usize>,
) {
    let l = S::LANES;
    let p0 = off / (2 * l);
    let split = blk.len() / (2 * l * K) * (2 * l * K);
    let (body, tail) = blk.split_at_mut(split);
    // The outside words of group `g` of `len` values from value `at`.
    let src_at = |at: usize, len: usize| src.map(|v| &v[at..at + len]);
    for (g, group) in body.chunks_exact_mut(2 * l * K).enumerate() {
        let (at, len) = (g * 2 * l * K, 2 * l * K);
        let d = dst.as_deref_mut().map(|v| &mut v[at..at + len]);
        small_group::<S, INV, STRICT, M, R0, K, X>(
            s,
            tb,
            c,
            group,
            p0 + g * K,
            x,
            src_at(at, len),
            d,
            lone,
        );
    }
    for (i, pair) in tail.chunks_exact_mut(2 * l).enumerate() {
        let (at, len) = (split + i * 2 * l, 2 * l);
        let d = dst.as_deref_mut().map(|v| &mut v[at..at + len]);
        let p = p0 + split / (2 * l) + i;
        small_group::<S, INV, STRICT, M, R0, 1, X>(s, tb, c, pair, p, x, src_at(at, len), d, lone);
    }
}

/// [`small_layers`] on `K` consecutive pairs of vectors (`grp`: `2 LANES K` values, the first
/// pair being pair `p0` of the transform). With `src` the inputs come from those outside words
/// instead of `grp` (the inverse's first layers); with `dst` the outputs go there and `grp` is
/// zeroed (the forward's last layers; [`Io::Through`]). With `lone` (the index of the first
/// twiddle of the layer of distance `LANES`, `n / (2 LANES)`), that layer runs here too, on
/// each pair's two vectors before the in-register layers (inverse: after them), instead of
/// alone in a memory pass (under [`lazy::STD`], where every layer reduces).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn small_group<
    S: Simd,
    const INV: bool,
    const STRICT: bool,
    const M: u8,
    const R0: bool,
    const K: usize,
    X: Outer<S>,
>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    grp: &mut [S::W],
    p0: usize,
    x: &X,
    src: Option<&[X::E]>,
    dst: Option<&mut [X::E]>,
    lone: Option<usize>,
) {
    let l = S::LANES;
    let mut a = [c.q; K];
    let mut b = [c.q; K];
    for j in 0..K {
        (a[j], b[j]) = match src {
            Some(v) => (x.load(s, &v[2 * l * j..]), x.load(s, &v[2 * l * j + l..])),
            None => {
                let p = &grp[2 * l * j..];
                (s.load(p), s.load(&p[l..]))
            }
        };
    }
    debug_assert!(lone.is_none() || M == lazy::STD);
    if let (false, Some(base)) = (INV, lone) {
        for j in 0..K {
            let (w, wp) = fwd_twiddle(s, tb, base + p0 + j);
            (a[j], b[j]) = ct_butterfly::<S, M, true>(s, a[j], b[j], w, wp, c);
        }
    }
    small_regs::<S, INV, STRICT, M, R0, K>(s, tb, c, &mut a, &mut b, p0);
    if let (true, Some(base)) = (INV, lone) {
        for j in 0..K {
            let i = base + p0 + j;
            let (w, wp) = (s.splat(tb.inv[i]), s.splat(tb.inv_shoup[i]));
            (a[j], b[j]) = gs_butterfly::<S, M, true>(s, a[j], b[j], w, wp, c);
        }
    }
    match dst {
        Some(d) => {
            let zero = s.splat(S::W::ZERO);
            for j in 0..K {
                x.store(s, &mut d[2 * l * j..], a[j]);
                x.store(s, &mut d[2 * l * j + l..], b[j]);
                let p = &mut grp[2 * l * j..];
                s.store(p, zero);
                s.store(&mut p[l..], zero);
            }
        }
        None => {
            for j in 0..K {
                let p = &mut grp[2 * l * j..];
                s.store(p, a[j]);
                s.store(&mut p[l..], b[j]);
            }
        }
    }
}

/// The in-register layers on `K` pairs of vectors held in registers: pair `j` is `a[j]`, `b[j]`
/// (`2 LANES` consecutive values, natural order), pair `p0 + j` of the transform.
#[inline(always)]
fn small_regs<
    S: Simd,
    const INV: bool,
    const STRICT: bool,
    const M: u8,
    const R0: bool,
    const K: usize,
>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    a: &mut [S::V; K],
    b: &mut [S::V; K],
    p0: usize,
) {
    let l = S::LANES;
    let small = l.trailing_zeros() as usize;
    let mut t = if INV { 1 } else { l / 2 };
    let mut x = [c.q; K];
    let mut y = [c.q; K];
    unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] {
        if j < K {
            (x[j], y[j]) = s.deinterleave(a[j], b[j], t);
        }
    });
    // Unrolled by hand (at most five layers, for 32 lanes): every layer's twiddle addressing
    // and broadcast width is then a constant, and the pairs stay in registers.
    macro_rules! layer {
        ($k:expr) => {
            if $k < small {
                // Constant per unrolled layer: forward layers alternate under SLOTH.
                let red = M != lazy::SLOTH || (R0 == ($k % 2 == 0));
                let span = small_span::<S, INV, K>(tb, p0, $k);
                unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] {
                    if j < K {
                        let tw = small_twiddles::<S, INV>(s, span, j, $k);
                        (x[j], y[j]) = if INV {
                            let (u, d) = gs_start::<S, true>(s, x[j], y[j], c);
                            (u, bf_mul_lanes::<S, M>(s, d, &tw, c.q))
                        } else {
                            let u = if red {
                                ct_u::<S, true>(s, x[j], c)
                            } else {
                                x[j]
                            };
                            if M == lazy::STD {
                                s.ct_mul_sums_lanes::<false>(u, y[j], &tw, c.q, c.vq)
                            } else {
                                s.ct_mul_sums_lanes::<true>(u, y[j], &tw, c.q, c.vq)
                            }
                        };
                    }
                });
                if K == 8 {
                    s.fence8((&mut x[..]).try_into().unwrap());
                    s.fence8((&mut y[..]).try_into().unwrap());
                }
                if $k + 1 < small {
                    unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] {
                        if j < K {
                            (x[j], y[j]) = if INV {
                                s.step_up(x[j], y[j], t)
                            } else {
                                s.step_down(x[j], y[j], t)
                            };
                        }
                    });
                    t = if INV { 2 * t } else { t / 2 };
                }
            }
        };
    }
    debug_assert!(small <= 5);
    layer!(0);
    layer!(1);
    layer!(2);
    layer!(3);
    layer!(4);
    unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] {
        if j < K {
            let (mut v0, mut v1) = s.interleave(x[j], y[j], t);
            if !INV {
                v0 = fwd_out::<S, STRICT, M>(s, c, v0);
                v1 = fwd_out::<S, STRICT, M>(s, c, v1);
            }
            (a[j], b[j]) = (v0, v1);
        }
    });
}

/// The forward transform's output from its last layer's: `[0, 4q)`, or `[0, q)` when
/// `STRICT`. The last layer leaves values below `4q` ([`lazy::STD`]), `8q` ([`lazy::WIDE`]) or
/// `4V q` ([`lazy::SLOTH`]).
#[inline(always)]
fn fwd_out<S: Simd, const STRICT: bool, const M: u8>(s: S, c: &Consts<S::V>, v: S::V) -> S::V {
    let mut v = s.clean(v);
    if M != lazy::STD {
        // WIDE: 8q -> 4q; SLOTH: 4V q -> 2V q.
        v = s.csub(v, c.cq);
        if M == lazy::SLOTH && S::LAZIER_V == 4 {
            v = s.csub(v, c.vq); // 8q -> 4q
        }
    }
    if STRICT {
        v = s.csub(s.csub(v, c.two_q), c.q);
    }
    v
}

/// The in-register layers on all pairs of `v` (`V` vectors, `V` a multiple of 8): four pairs
/// side by side, or all eight for `V = 16`; pair `j` of `v` is pair `p0 + j` of the transform.
#[inline(always)]
fn small_all<
    S: Simd,
    const INV: bool,
    const STRICT: bool,
    const M: u8,
    const R0: bool,
    const V: usize,
>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    v: &mut [S::V; V],
    p0: usize,
) {
    if V == 16 {
        // All eight pairs side by side (a block of 16 vectors uses every register).
        let mut a = [c.q; 8];
        let mut b = [c.q; 8];
        unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] {
            (a[j], b[j]) = (v[2 * j], v[2 * j + 1]);
        });
        small_regs::<S, INV, STRICT, M, R0, 8>(s, tb, c, &mut a, &mut b, p0);
        unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] {
            (v[2 * j], v[2 * j + 1]) = (a[j], b[j]);
        });
        return;
    }
    for ch in 0..V / (2 * SMALL_K) {
        let mut a = [c.q; SMALL_K];
        let mut b = [c.q; SMALL_K];
        for j in 0..SMALL_K {
            (a[j], b[j]) = (v[2 * SMALL_K * ch + 2 * j], v[2 * SMALL_K * ch + 2 * j + 1]);
        }
        small_regs::<S, INV, STRICT, M, R0, SMALL_K>(s, tb, c, &mut a, &mut b, p0 + SMALL_K * ch);
        for j in 0..SMALL_K {
            (v[2 * SMALL_K * ch + 2 * j], v[2 * SMALL_K * ch + 2 * j + 1]) = (a[j], b[j]);
        }
    }
}

/// Whether a plan of size `n` on `lanes`-lane vectors folds `1/n` into the inverse layer of
/// distance `n/4` ([`SimdTables::fold_inv`]): when the last layer's quarters are whole vectors.
///
/// The last inverse layer pairs position `j` with `j + n/2`. For `j >= n/4` both inputs are
/// `v` outputs of the layer of distance `n/4`, whose products then take twiddles times `1/n`
/// at no cost, so those butterflies need one product (`w (x - y)`) instead of two: `1/n` costs
/// `n/4` products per transform instead of `n/2` (on the 64-bit AVX-512 backend, whose
/// products are emulated, 2% of an inverse).
pub(crate) fn fold_inv(n: usize, lanes: usize) -> bool {
    n >= 4 * lanes
}

/// Loop-invariant vectors of the last inverse layer.
#[derive(Clone, Copy)]
struct LastConsts<V> {
    /// `1/n`, `w 1/n` (`w` the layer's twiddle), `w`, each with its Shoup quotient.
    ni: (V, V),
    niw: (V, V),
    w: (V, V),
}

impl<V: Copy> LastConsts<V> {
    #[inline(always)]
    fn new<S: Simd<V = V>>(s: S, tb: &SimdTables<S::W>) -> Self {
        let sp = |(a, b): (S::W, S::W)| (s.splat(a), s.splat(b));
        Self {
            ni: sp(tb.n_inv),
            niw: sp(tb.n_inv_w),
            w: sp((tb.inv[1], tb.inv_shoup[1])),
        }
    }
}

/// The last inverse butterfly (distance `n/2`) with `1/n`: inputs below `V q`, outputs in
/// `[0, 2q)` (`[0, q)` when `STRICT`). `SCALED`: both inputs already carry `1/n` (the
/// positions `j >= n/4` of a plan with [`SimdTables::fold_inv`]), so `u = x + y` needs only
/// conditional subtractions and `v` the plain twiddle.
#[inline(always)]
fn inv_last_bf<S: Simd, const STRICT: bool, const SCALED: bool, const M: u8>(
    s: S,
    c: &Consts<S::V>,
    k: &LastConsts<S::V>,
    x: S::V,
    y: S::V,
) -> (S::V, S::V) {
    let d = s.add(s.sub(x, y), c.vq);
    let (mut u, mut v) = if SCALED {
        // x + y < 2 V q: to [0, 2q) by one conditional subtraction per factor of two.
        let mut u = s.clean(s.add(x, y));
        if M == lazy::WIDE || (M == lazy::HALF && S::LAZIER_V == 4) {
            u = s.csub(u, s.add(c.two_q, c.two_q));
        }
        (
            s.csub(u, c.two_q),
            s.mul_shoup_lazy_splat(d, k.w.0, k.w.1, c.q),
        )
    } else {
        (
            s.mul_shoup_lazy_splat(s.add(x, y), k.ni.0, k.ni.1, c.q),
            s.mul_shoup_lazy_splat(d, k.niw.0, k.niw.1, c.q),
        )
    };
    if STRICT {
        u = s.csub(u, c.q);
        v = s.csub(v, c.q);
    }
    (u, v)
}

/// Vectors per register block ([`regs_block`]).
const REG_BLOCK: usize = 8;

/// Vectors per register block of the inverse transform under schedule `M`: [`Simd::REG_V`]
/// where the inverse runs blocks ([`Simd::reg_blocks_inv`]), else [`REG_BLOCK`] (only a
/// transform of exactly one block runs in registers there).
#[inline(always)]
fn inv_block_vectors<S: Simd, const M: u8>() -> usize {
    if S::reg_blocks_inv(M) {
        S::REG_V
    } else {
        REG_BLOCK
    }
}

/// [`regs_block`] with blocks of `v` vectors (8 or 16; a constant after inlining).
#[inline(always)]
fn regs_block_v<S: Simd, const INV: bool, const STRICT: bool, const FULL: bool, const M: u8>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    a: &mut [S::W],
    v: usize,
    nv: usize,
    bv: usize,
) {
    regs_block_from::<S, INV, STRICT, FULL, M, Own>(s, tb, c, &Own, None, a, v, nv, bv);
}

/// [`regs_block_v`] reading the block from `src` through `x` when given (else from `a`); the
/// result goes to `a`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn regs_block_from<
    S: Simd,
    const INV: bool,
    const STRICT: bool,
    const FULL: bool,
    const M: u8,
    X: Outer<S>,
>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    x: &X,
    src: Option<&[X::E]>,
    a: &mut [S::W],
    v: usize,
    nv: usize,
    bv: usize,
) {
    if v == 16 {
        regs_block::<S, INV, STRICT, FULL, M, 16, X>(s, tb, c, x, src, a, nv, bv);
    } else {
        regs_block::<S, INV, STRICT, FULL, M, REG_BLOCK, X>(s, tb, c, x, src, a, nv, bv);
    }
}

/// A block of `V` vectors of a transform of `nv` vectors, starting at vector `bv` (a multiple
/// of `V`), held in registers. Forward (`!INV`): the layers of distance `V/2 .. 1` vectors, then
/// the in-register layers. Inverse (`INV`): the in-register layers, then the layers of distance
/// `1 .. V/2` vectors; with `FULL` (the whole transform, `nv == V`) the last of them, of distance
/// `V/2`, merges `1/n`. Fully unrolled: no loop control, one load and one store per vector.
/// With `nv == V` this is the whole transform ([`forward`]'s or [`inverse`]'s contract); larger
/// transforms run their outer layers before (forward) or after (inverse) this on every block.
/// With `src`, the block is read from there through `x` instead of from `a`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn regs_block<
    S: Simd,
    const INV: bool,
    const STRICT: bool,
    const FULL: bool,
    const M: u8,
    const V: usize,
    X: Outer<S>,
>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    x: &X,
    src: Option<&[X::E]>,
    a: &mut [S::W],
    nv: usize,
    bv: usize,
) {
    let mut v = [c.q; V];
    match src {
        Some(src) => x.load_block(s, src, &mut v),
        None => Own.load_block(s, a, &mut v),
    }
    regs_core::<S, INV, STRICT, FULL, M, V>(s, tb, c, &mut v, nv, bv);
    store_block(s, a, &v);
}

/// [`Simd::fence8`] on the `V` (16) vectors of `v`.
#[inline(always)]
fn fence16<S: Simd, const V: usize>(s: S, v: &mut [S::V; V]) {
    let (a, b) = v.split_at_mut(8);
    s.fence8(a.try_into().unwrap());
    s.fence8((&mut b[..8]).try_into().unwrap());
}

/// Stores the `V` vectors of `v` to the start of `a` (unrolled: constant indices keep `v` in
/// registers up to here).
#[inline(always)]
fn store_block<S: Simd, const V: usize>(s: S, a: &mut [S::W], v: &[S::V; V]) {
    let a = &mut a[..V * S::LANES];
    unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
        if i < V {
            s.store(&mut a[i * S::LANES..], v[i]);
        }
    });
}

/// [`regs_block`] on a block already in registers (`v`), left there.
#[inline(always)]
fn regs_core<
    S: Simd,
    const INV: bool,
    const STRICT: bool,
    const FULL: bool,
    const M: u8,
    const V: usize,
>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    v: &mut [S::V; V],
    nv: usize,
    bv: usize,
) {
    if INV {
        // Under HALF the in-register layers keep every value below `P = LAZIER_V q` (their
        // butterflies mix lanes of both kinds) and take their own constants, as in [`inverse`].
        let c_inner = &if M == lazy::HALF { c.half_inner(s) } else { *c };
        small_all::<S, true, false, M, true, V>(s, tb, c_inner, v, bv / 2);
    }
    // Layer of distance `tv` vectors: group `g` of the block uses table entry
    // `nv / 2tv + bv / 2tv + g`. Forward: tv = V/2 down to 1; inverse: 1 up to V/2 (V/4 when
    // the last layer is the 1/n one below).
    // Unrolled by hand (at most four layers of at most eight butterflies): constant indices
    // keep the block in registers; loops left to the optimiser spilled it for V = 16.
    let layers = V.trailing_zeros() as usize - usize::from(INV && FULL);
    let (table, shoup) = if INV {
        (&tb.inv, &tb.inv_shoup)
    } else {
        (&tb.fwd, &tb.fwd_shoup)
    };
    unroll!(step in [0, 1, 2, 3] {
        if step < layers {
            let tv = if INV { 1 << step } else { V >> (step + 1) };
            let base = nv / (2 * tv) + bv / (2 * tv);
            // The layer's entries, sliced once: constant indices below, no checks.
            let (tw, twp) = (&table[base..][..V / (2 * tv)], &shoup[base..][..V / (2 * tv)]);
            // Forward layer index: 0 for distance `nv / 2` vectors.
            let red = reduces::<M>((nv / (2 * tv)).trailing_zeros());
            unroll!(b in [0, 1, 2, 3, 4, 5, 6, 7] {
                if b < V / 2 {
                    let (g, j) = (b / tv, b % tv);
                    let (w, wp) = (s.splat(tw[g]), s.splat(twp[g]));
                    let (i0, i1) = (2 * tv * g + j, 2 * tv * g + tv + j);
                    // Inverse under HALF: only the first half of each group's `x` inputs
                    // are `u` outputs of the layer before (none after the in-register
                    // layers, distance 1), as [`inv_reducing`] counts for memory layers.
                    let inv_red = M != lazy::HALF || j < tv / 2;
                    (v[i0], v[i1]) = if INV && inv_red {
                        gs_butterfly::<S, M, true>(s, v[i0], v[i1], w, wp, c)
                    } else if INV {
                        gs_butterfly::<S, M, false>(s, v[i0], v[i1], w, wp, c)
                    } else if red {
                        ct_butterfly::<S, M, true>(s, v[i0], v[i1], w, wp, c)
                    } else {
                        ct_butterfly::<S, M, false>(s, v[i0], v[i1], w, wp, c)
                    };
                }
            });
            if V == 16 {
                fence16(s, v);
            }
        }
    });
    if !INV {
        // The first in-register layer (distance LANES/2) has index log2(nv).
        if reduces::<M>(nv.trailing_zeros()) {
            small_all::<S, false, STRICT, M, true, V>(s, tb, c, v, bv / 2);
        } else {
            small_all::<S, false, STRICT, M, false, V>(s, tb, c, v, bv / 2);
        }
    }
    if INV && FULL {
        // Last layer (one group, distance n/2) with 1/n merged (folded into the layer of
        // distance n/4 for the second quarter: `fold_inv(V L, L)` holds for `V >= 4`).
        debug_assert!(tb.fold_inv == (V >= 4));
        let k = LastConsts::new(s, tb);
        unroll!(j in [0, 1, 2, 3, 4, 5, 6, 7] {
            if j < V / 2 {
                let (x, y) = (v[j], v[V / 2 + j]);
                (v[j], v[V / 2 + j]) = if V >= 4 && j >= V / 4 {
                    inv_last_bf::<S, STRICT, true, M>(s, c, &k, x, y)
                } else {
                    inv_last_bf::<S, STRICT, false, M>(s, c, &k, x, y)
                };
            }
        });
    }
}

/// The forward layer of distance `V` vectors on `pair` (two blocks of `V` vectors, starting at
/// vector `bv` of a transform of `nv` vectors), then [`regs_block`]'s layers on each block: the
/// first block stays in registers between the two, so the pair is loaded and stored once.
///
/// `check = Some(q)` (only when `pair` is the whole transform, so that this layer is its
/// first): each pair of loaded vectors is compared with `q` before its butterfly; at a value at least `q`
/// the butterflies run so far are undone ([`undo_first`]) and the result is `false`, with
/// `pair` as it was. The checked layer skips the conditional subtraction of `x` (below `q`).
#[inline(always)]
fn fwd_fused_pair<S: Simd, const STRICT: bool, const M: u8, const V: usize>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    pair: &mut [S::W],
    nv: usize,
    bv: usize,
    check: Option<S::W>,
) -> bool {
    let l = S::LANES;
    debug_assert!(check.is_none() || (nv == 2 * V && bv == 0));
    let (lo, hi) = pair[..2 * V * l].split_at_mut(V * l);
    // one group: table entry `nv / 2V + bv / 2V`; layer index log2(nv / 2V)
    let k = nv / (2 * V) + bv / (2 * V);
    let (w, wp) = fwd_twiddle(s, tb, k);
    let red = check.is_none() && reduces::<M>((nv / (2 * V)).trailing_zeros());
    let mut v = [c.q; V];
    // Index of the first pair of vectors with a value at least `q` (`V`: none so far).
    let mut bad = V;
    unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
        if i < V && bad == V {
            let (x, y) = (s.load(&lo[i * l..]), s.load(&hi[i * l..]));
            if check.is_some() && s.any_ge(s.max(x, y), c.q) {
                bad = i;
            } else {
                let (u, y) = if red {
                    ct_butterfly::<S, M, true>(s, x, y, w, wp, c)
                } else {
                    ct_butterfly::<S, M, false>(s, x, y, w, wp, c)
                };
                v[i] = u;
                s.store(&mut hi[i * l..], y);
            }
        }
    });
    if let (true, Some(q)) = (bad < V, check) {
        // Cold: put the `u` outputs where `undo_first` reads them (constant indices keep `v`
        // in registers on the hot path), then undo the first `bad` vectors of each half.
        unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
            if i < bad {
                s.store(&mut lo[i * l..], v[i]);
            }
        });
        undo_first(tb, q, pair, false, bad * l, value_mask::<S>());
        return false;
    }
    regs_core::<S, false, STRICT, false, M, V>(s, tb, c, &mut v, nv, bv);
    store_block(s, lo, &v);
    regs_block::<S, false, STRICT, false, M, V, Own>(s, tb, c, &Own, None, hi, nv, bv + V);
    true
}

/// Forward NTT. Requires `a.len() == n >= 2·LANES`. Input `[0, 4q)`; output `[0, 4q)`, or
/// `[0, q)` when `STRICT` (the final reduction is fused into the last layer). Bit-reversed out.
/// With `src` (of length `n`, values below `q`: its first layer skips the conditional
/// subtraction), the input is `src` and `a` is only written: the first pass reads `src`, so
/// the out-of-place transform costs no copy.
#[inline(always)]
pub(crate) fn forward<S: Simd, const STRICT: bool>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    src: Option<&[S::W]>,
    a: &mut [S::W],
) {
    let io = src.map_or(Io::InPlace, Io::From);
    forward_sched::<S, STRICT, Own>(s, tb, q, &Own, io, a, false);
}

/// [`forward`] of the words `io` names, read (and with [`Io::Through`] written) through `x`;
/// `a` holds the transform (with [`Io::Through`]: scratch of length `n`). Returns
/// [`Outer::ok`]: when it is `false`, no word of `io` has been written.
#[inline(always)]
pub(crate) fn forward_io<S: Simd, const STRICT: bool, X: Outer<S>>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    x: &X,
    io: Io<'_, X::E>,
    a: &mut [S::W],
) -> bool {
    forward_sched::<S, STRICT, X>(s, tb, q, x, io, a, false)
}

/// [`forward`] of an input that has not been range-checked: runs the transform and returns
/// `true` when every value of `a` is below `q`, otherwise returns `false` with `a` as it was.
///
/// On backends with [`Simd::FUSED_CHECK`], every transform larger than one register block
/// checks the values as its first layer loads them ([`fwd_first_checked`] in memory,
/// [`fwd_fused_pair`] in registers) instead of reading the whole input once more beforehand
/// (about 6% of an IFMA forward at n = 4096, where that read comes from L2); that first layer
/// then also skips its conditional subtraction, which changes nothing on values below `q`.
#[inline(always)]
pub(crate) fn forward_checked<S: Simd, const STRICT: bool>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    a: &mut [S::W],
) -> bool {
    debug_assert!(
        S::enc(S::W::ONE) == S::W::ONE,
        "integer-domain driver on an encoded backend"
    );
    if !S::FUSED_CHECK && !all_below(s, a, q) {
        return false;
    }
    // One instance of the transform for both cases (`check` is a run-time flag).
    forward_sched::<S, STRICT, Own>(s, tb, q, &Own, Io::InPlace, a, S::FUSED_CHECK)
}

/// [`forward`] dispatched on the plan's reduction schedule; `check` as for [`forward_m`].
#[inline(always)]
fn forward_sched<S: Simd, const STRICT: bool, X: Outer<S>>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    x: &X,
    io: Io<'_, X::E>,
    a: &mut [S::W],
    check: bool,
) -> bool {
    if !S::SLOTHFUL {
        return forward_m::<S, STRICT, { lazy::STD }, X>(s, tb, q, x, io, a, check);
    }
    match tb.lazy_fwd {
        lazy::SLOTH => forward_m::<S, STRICT, { lazy::SLOTH }, X>(s, tb, q, x, io, a, check),
        lazy::WIDE => forward_m::<S, STRICT, { lazy::WIDE }, X>(s, tb, q, x, io, a, check),
        _ => forward_m::<S, STRICT, { lazy::STD }, X>(s, tb, q, x, io, a, check),
    }
}

/// Values per cache block of the drivers' memory passes for a transform of size `n`.
#[inline(always)]
fn block_len<S: Simd>(n: usize) -> usize {
    p2((BLOCK_BYTES / core::mem::size_of::<S::W>()).clamp(2 * S::LANES, n))
}

/// Values per cache block of a forward transform of size `n`: [`block_len`], doubled on a
/// [`Simd::RADIX4`] backend when that leaves the outer layers (those spanning blocks, run over
/// the whole array from L2) an even number ([`odd_outer`]). Outer layers pair into radix-4
/// passes from the top, so an odd number ends in a radix-2 pass of its own over L2; a doubled
/// block moves that layer into each block, where the in-register layers take it
/// ([`fwd_fused_pair`]) or it pairs with the others. IFMA, 50-bit primes, on the Intel host
/// of the fifty-fifth session (`examples/ntt_bench`, eight alternating runs, medians):
/// n = 4096 5.28 -> 5.05 µs, 16384 24.9 -> 23.8. At n = 65536 (five outer layers) a doubled
/// block measured no gain (118.6-119.1 against 118.9-120.8 µs), so from 16 blocks up the
/// plain rule stays.
#[inline(always)]
fn fwd_block_len<S: Simd>(n: usize) -> usize {
    let block = block_len::<S>(n);
    if S::RADIX4 && n <= 8 * block && odd_outer(n, block) {
        2 * block
    } else {
        block
    }
}

/// Values per cache block of an inverse transform of size `n`; `fused`: its last two layers
/// run as one radix-4 pass ([`inv_last_radix4`]). [`block_len`], doubled when that leaves the
/// layers above the blocks (distances `block` to `n/2`, the last one included) an even
/// number ([`odd_outer`]), so that they all pair into radix-4 passes over L2 and the odd one
/// out runs inside each block, in L1.
#[inline(always)]
fn inv_block_len<S: Simd>(n: usize, fused: bool) -> usize {
    let block = block_len::<S>(n);
    if fused && odd_outer(n, block) {
        2 * block
    } else {
        block
    }
}

/// Whether a transform of size `n` in blocks of `block` values has an odd number of layers
/// spanning blocks, and this CPU's level-1 data cache holds blocks twice as large with room to
/// spare (48 KB and more, for the 16 KB [`BLOCK_BYTES`]).
#[inline(always)]
fn odd_outer(n: usize, block: usize) -> bool {
    block < n && (n / block).ilog2() % 2 == 1 && l1d_holds(3 * BLOCK_BYTES)
}

/// Whether the level-1 data cache of this CPU holds at least `bytes`.
#[inline(always)]
fn l1d_holds(bytes: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        crate::cpu::l1d_bytes().is_some_and(|l1| l1 >= bytes)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = bytes;
        false
    }
}

/// [`forward`] under reduction schedule `M`. `check` (only in place): the input is
/// checked against `q`, by the first layer as it loads it ([`fwd_first_checked`],
/// [`fwd_fused_pair`]) or, for a transform of one register block, beforehand; the return
/// value is `false` when a value is at least `q`, with `a` as it was, `true` otherwise.
/// With `io` not in place, the return value is [`Outer::ok`] after the input is read.
#[inline(always)]
fn forward_m<S: Simd, const STRICT: bool, const M: u8, X: Outer<S>>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    x: &X,
    mut io: Io<'_, X::E>,
    a: &mut [S::W],
    check: bool,
) -> bool {
    let n = a.len();
    let l = S::LANES;
    debug_assert!(n >= 2 * l);
    let c = &Consts::new::<S, M>(s, q);
    let blocks = S::reg_blocks_fwd(M);
    let bvec = if blocks { S::REG_V } else { REG_BLOCK };
    let rb = bvec * l;
    let block = fwd_block_len::<S>(n);
    debug_assert!(!check || matches!(io, Io::InPlace));
    let src = io.input();
    debug_assert!(src.is_none_or(|src| src.len() == n));
    if n == rb || n == REG_BLOCK * l {
        // One register block (8 vectors on a backend with blocks of 16 run in registers all
        // the same): its first layer is inside the unrolled block, so the check runs before.
        if check && !all_below(s, a, q) {
            return false;
        }
        if let Some(src) = src {
            copy_in(s, x, src, a);
            if !x.ok() {
                return refuse(&io, a);
            }
        }
        let v = if n == rb { bvec } else { REG_BLOCK };
        regs_block_v::<S, false, STRICT, true, M>(s, tb, c, a, v, v, 0);
        if let Io::Through(out) = io {
            drain(s, x, a, out);
        }
        return true;
    }
    // How each block ends ([`fwd_fused_pair`], register blocks or [`small_layers`]), and the
    // distance its memory layers stop above.
    let pairs = blocks && block >= 2 * rb && (!S::RADIX4 || (block / rb).ilog2() % 2 == 1);
    let t_lo = if pairs {
        2 * rb
    } else if blocks && block >= rb {
        rb
    } else {
        l
    };
    // A transform of one pair of register blocks checks in [`fwd_fused_pair`]; any other runs
    // its first layer in memory, checked there.
    let pair_check = check && pairs && n == 2 * rb;
    // Distance of the next memory layer: the outer ones (spanning blocks) down to `block`,
    // then each block's.
    let mut t = n / 2;
    match src {
        Some(src) if block < n => {
            t = fwd_step::<S, M, true, X>(s, tb, c, x, src, a, n, 0, t, block);
        }
        Some(src) => copy_in(s, x, src, a),
        None if check && !pair_check => {
            // Its layers stop above `block` when the outer layers span blocks, else above
            // the block's own `t_lo` (radix-4 pairs as `fwd_big_layers` would run them).
            let lo = if block < n { block } else { t_lo };
            match fwd_first_checked::<S, M>(s, tb, c, q, a, lo) {
                Some(next) => t = next,
                None => return false,
            }
        }
        None => {}
    }
    if !x.ok() {
        return refuse(&io, a);
    }
    fwd_big_layers::<S, M>(s, tb, c, a, n, 0, t, block);
    // Each block's memory layers start at `block / 2` unless the first pass already ran
    // that one (one block: it is the transform's first layer).
    let t_blk = t.min(block / 2);
    // Whether the first in-register layer (distance LANES/2, index log2(n / LANES)) reduces.
    let r0 = reduces::<M>((n / l).trailing_zeros());
    // An odd number of memory layers in each block (distances `t_blk` down to `LANES`) would
    // end with the layer of distance `LANES` alone in a radix-2 pass: under the standard
    // schedule it runs with the in-register layers instead ([`small_group`]).
    let lone = S::RADIX4
        && !S::SLOTHFUL
        && t_lo == l
        && t_blk >= l
        && (t_blk / l).trailing_zeros() % 2 == 0;
    let (t_mem, lone) = if lone {
        (2 * l, Some(n / (2 * l)))
    } else {
        (t_lo, None)
    };
    // Inner layers, block by block: in memory down to `t_lo`, then in registers, `bvec`
    // vectors at a time (or by the pair groups of [`small_layers`]).
    for (b, blk) in a.chunks_exact_mut(block).enumerate() {
        let off = b * block;
        // The block's outside words when its output goes there: written by its last layers
        // when they run in [`small_layers`], else by [`drain`] after them.
        let mut dst = match &mut io {
            Io::Through(out) => Some(&mut out[off..off + block]),
            _ => None,
        };
        fwd_big_layers::<S, M>(s, tb, c, blk, n, off, t_blk, t_mem);
        if pairs {
            // The memory layer of distance `rb` would run alone: it runs with the blocks
            // instead, each pair of blocks loaded once.
            for (k, pair) in blk.chunks_exact_mut(2 * rb).enumerate() {
                let bv = (off + k * 2 * rb) / l;
                let check = pair_check.then_some(q);
                let ok = if bvec == 16 {
                    fwd_fused_pair::<S, STRICT, M, 16>(s, tb, c, pair, n / l, bv, check)
                } else {
                    fwd_fused_pair::<S, STRICT, M, REG_BLOCK>(s, tb, c, pair, n / l, bv, check)
                };
                if !ok {
                    return false;
                }
            }
        } else if t_lo == rb {
            for (k, sub) in blk.chunks_exact_mut(rb).enumerate() {
                let bv = (off + k * rb) / l;
                regs_block_v::<S, false, STRICT, false, M>(s, tb, c, sub, bvec, n / l, bv);
            }
        } else if M != lazy::SLOTH || r0 {
            let d = dst.take();
            small_layers::<S, false, STRICT, M, true, X>(s, tb, c, blk, off, x, None, d, lone);
        } else {
            let d = dst.take();
            small_layers::<S, false, STRICT, M, false, X>(s, tb, c, blk, off, x, None, d, lone);
        }
        if let Some(out) = dst {
            // The block's output while it is in L1.
            drain(s, x, blk, out);
        }
    }
    true
}

/// How many of the first positions of each group of an inverse layer of distance `t` take the
/// conditional subtraction of `u`: all of them, except under [`lazy::HALF`], where only the
/// first `t/2` (inputs from `u` outputs) do, and none in the layer of distance `LANES` (inputs
/// from the in-register layers, below `P`).
#[inline(always)]
fn inv_reducing<S: Simd, const M: u8>(t: usize) -> usize {
    if M != lazy::HALF {
        t
    } else if t >= 2 * S::LANES {
        t / 2
    } else {
        0
    }
}

/// One inverse (Gentleman-Sande) layer of distance `t >= LANES` on `blk`.
#[inline(always)]
fn inv_radix2<S: Simd, const M: u8>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    blk: &mut [S::W],
    t: usize,
    base: usize,
) {
    let l = S::LANES;
    let red = inv_reducing::<S, M>(t);
    for (i, grp) in blk.chunks_exact_mut(p2(2 * t)).enumerate() {
        let w = s.splat(tb.inv[base + i]);
        let wp = s.splat(tb.inv_shoup[base + i]);
        let (lo, hi) = grp.split_at_mut(t);
        let (lo_r, lo_n) = lo.split_at_mut(red);
        let (hi_r, hi_n) = hi.split_at_mut(red);
        for (x, y) in lo_r.chunks_exact_mut(l).zip(hi_r.chunks_exact_mut(l)) {
            let (u, v) = gs_butterfly::<S, M, true>(s, s.load(x), s.load(y), w, wp, c);
            s.store(x, u);
            s.store(y, v);
        }
        for (x, y) in lo_n.chunks_exact_mut(l).zip(hi_n.chunks_exact_mut(l)) {
            let (u, v) = gs_butterfly::<S, M, false>(s, s.load(x), s.load(y), w, wp, c);
            s.store(x, u);
            s.store(y, v);
        }
    }
}

/// Two inverse layers (distances `t` then `2t`) in one pass; `base1`, `base2` as in the forward.
#[inline(always)]
fn inv_radix4<S: Simd, const M: u8>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    blk: &mut [S::W],
    t: usize,
    base1: usize,
    base2: usize,
) {
    let red = inv_reducing::<S, M>(t);
    for (i, grp) in blk.chunks_exact_mut(p2(4 * t)).enumerate() {
        let tw = [
            (
                s.splat(tb.inv[base1 + 2 * i]),
                s.splat(tb.inv_shoup[base1 + 2 * i]),
            ),
            (
                s.splat(tb.inv[base1 + 2 * i + 1]),
                s.splat(tb.inv_shoup[base1 + 2 * i + 1]),
            ),
            (s.splat(tb.inv[base2 + i]), s.splat(tb.inv_shoup[base2 + i])),
        ];
        let [red_q, rest] = quarters(grp, t, red);
        // The second layer pairs the first layer's `u` outputs (b0, b2), which reduce, and its
        // `v` outputs (b1, b3), which do not under HALF.
        if M == lazy::HALF {
            inv_radix4_quads::<S, M, true, false>(s, c, &tw, red_q);
            inv_radix4_quads::<S, M, false, false>(s, c, &tw, rest);
        } else {
            inv_radix4_quads::<S, M, true, true>(s, c, &tw, red_q);
        }
    }
}

/// The quarters `b0 .. b3` (positions `j`, `j + t`, `j + 2t`, `j + 3t`) of a group of `4t`
/// values, each split at `red` ([`inv_reducing`]): the first `red` positions of every quarter,
/// then the rest.
#[inline(always)]
fn quarters<W>(grp: &mut [W], t: usize, red: usize) -> [[&mut [W]; 4]; 2] {
    let (b01, b23) = grp.split_at_mut(2 * t);
    let (b0, b1) = b01.split_at_mut(t);
    let (b2, b3) = b23.split_at_mut(t);
    let (b0r, b0n) = b0.split_at_mut(red);
    let (b1r, b1n) = b1.split_at_mut(red);
    let (b2r, b2n) = b2.split_at_mut(red);
    let (b3r, b3n) = b3.split_at_mut(red);
    [[b0r, b1r, b2r, b3r], [b0n, b1n, b2n, b3n]]
}

/// The butterflies of [`inv_radix4`] on the four position ranges `b` (equal lengths);
/// `R1`: the first layer reduces, `R2V`: the second layer's butterfly of the `v` outputs
/// (`b1`, `b3`) reduces (that of the `u` outputs always does).
#[inline(always)]
fn inv_radix4_quads<S: Simd, const M: u8, const R1: bool, const R2V: bool>(
    s: S,
    c: &Consts<S::V>,
    tw: &[(S::V, S::V); 3],
    b: [&mut [S::W]; 4],
) {
    let l = S::LANES;
    let [b0, b1, b2, b3] = b;
    let ((wa, wap), (wb, wbp), (wc, wcp)) = (tw[0], tw[1], tw[2]);
    for (((c0, c1), c2), c3) in b0
        .chunks_exact_mut(l)
        .zip(b1.chunks_exact_mut(l))
        .zip(b2.chunks_exact_mut(l))
        .zip(b3.chunks_exact_mut(l))
    {
        let (x0, x1) = gs_butterfly::<S, M, R1>(s, s.load(c0), s.load(c1), wa, wap, c);
        let (x2, x3) = gs_butterfly::<S, M, R1>(s, s.load(c2), s.load(c3), wb, wbp, c);
        let (x0, x2) = gs_butterfly::<S, M, true>(s, x0, x2, wc, wcp, c);
        let (x1, x3) = gs_butterfly::<S, M, R2V>(s, x1, x3, wc, wcp, c);
        s.store(c0, x0);
        s.store(c1, x1);
        s.store(c2, x2);
        s.store(c3, x3);
    }
}

/// The last two inverse layers (distances `n/4` and `n/2`) in one pass, `1/n` merged as
/// [`inv_last_bf`] merges it: the butterflies of [`inv_radix2`] at `n/4` followed by those
/// of the last layer, each set of four vectors loaded and stored once. Needs
/// [`SimdTables::fold_inv`]: the `v` outputs of the layer `n/4` (positions `n/4 ..` of each
/// half) carry `1/n` through its twiddles. With `out` ([`Io::Through`]) the outputs go there
/// through `x` and `a` is zeroed behind them.
#[inline(always)]
fn inv_last_radix4<S: Simd, const STRICT: bool, const M: u8, X: Outer<S>>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    a: &mut [S::W],
    x: &X,
    out: Option<&mut [X::E]>,
) {
    debug_assert!(tb.fold_inv);
    let t = a.len() / 4;
    let red = inv_reducing::<S, M>(t);
    let k = LastConsts::new(s, tb);
    // the layer n/4 has two groups, its twiddles at table indices 2 and 3
    let tw = [
        (s.splat(tb.inv[2]), s.splat(tb.inv_shoup[2])),
        (s.splat(tb.inv[3]), s.splat(tb.inv_shoup[3])),
    ];
    // under HALF only the first `red` positions of each quarter (inputs from `u` outputs) take
    // the conditional subtraction of `u`
    let [red_q, rest] = quarters(a, t, red);
    match out {
        None => {
            inv_last_quads::<S, STRICT, M, true>(s, c, &k, &tw, red_q);
            inv_last_quads::<S, STRICT, M, false>(s, c, &k, &tw, rest);
        }
        Some(out) => {
            let [red_o, rest_o] = quarters(out, t, red);
            inv_last_quads_out::<S, STRICT, M, true, X>(s, c, &k, &tw, red_q, x, red_o);
            inv_last_quads_out::<S, STRICT, M, false, X>(s, c, &k, &tw, rest, x, rest_o);
        }
    }
}

/// The four vectors of [`inv_last_radix4`] at one position of its quarters, from `x0 .. x3`.
#[inline(always)]
fn inv_last_four<S: Simd, const STRICT: bool, const M: u8, const R1: bool>(
    s: S,
    c: &Consts<S::V>,
    k: &LastConsts<S::V>,
    tw: &[(S::V, S::V); 2],
    x: [S::V; 4],
) -> [S::V; 4] {
    let ((wa, wap), (wb, wbp)) = (tw[0], tw[1]);
    let (x0, x1) = gs_butterfly::<S, M, R1>(s, x[0], x[1], wa, wap, c);
    let (x2, x3) = gs_butterfly::<S, M, R1>(s, x[2], x[3], wb, wbp, c);
    let (u0, u2) = inv_last_bf::<S, STRICT, false, M>(s, c, k, x0, x2);
    let (u1, u3) = inv_last_bf::<S, STRICT, true, M>(s, c, k, x1, x3);
    [u0, u1, u2, u3]
}

/// The butterflies of [`inv_last_radix4`] on the four position ranges `b` (equal lengths);
/// `R1`: the layer `n/4` reduces its `u` outputs; `tw`: its two twiddles.
#[inline(always)]
fn inv_last_quads<S: Simd, const STRICT: bool, const M: u8, const R1: bool>(
    s: S,
    c: &Consts<S::V>,
    k: &LastConsts<S::V>,
    tw: &[(S::V, S::V); 2],
    b: [&mut [S::W]; 4],
) {
    let l = S::LANES;
    let [b0, b1, b2, b3] = b;
    for (((c0, c1), c2), c3) in b0
        .chunks_exact_mut(l)
        .zip(b1.chunks_exact_mut(l))
        .zip(b2.chunks_exact_mut(l))
        .zip(b3.chunks_exact_mut(l))
    {
        let x = [s.load(c0), s.load(c1), s.load(c2), s.load(c3)];
        let [u0, u1, u2, u3] = inv_last_four::<S, STRICT, M, R1>(s, c, k, tw, x);
        s.store(c0, u0);
        s.store(c1, u1);
        s.store(c2, u2);
        s.store(c3, u3);
    }
}

/// [`inv_last_quads`] with the outputs into the outside ranges `o` through `x`, the ranges `b`
/// zeroed behind them.
#[inline(always)]
fn inv_last_quads_out<S: Simd, const STRICT: bool, const M: u8, const R1: bool, X: Outer<S>>(
    s: S,
    c: &Consts<S::V>,
    k: &LastConsts<S::V>,
    tw: &[(S::V, S::V); 2],
    b: [&mut [S::W]; 4],
    x: &X,
    o: [&mut [X::E]; 4],
) {
    let l = S::LANES;
    let zero = s.splat(S::W::ZERO);
    let [b0, b1, b2, b3] = b;
    let [o0, o1, o2, o3] = o;
    let scratch = b0
        .chunks_exact_mut(l)
        .zip(b1.chunks_exact_mut(l))
        .zip(b2.chunks_exact_mut(l).zip(b3.chunks_exact_mut(l)));
    let outside = o0
        .chunks_exact_mut(l)
        .zip(o1.chunks_exact_mut(l))
        .zip(o2.chunks_exact_mut(l).zip(o3.chunks_exact_mut(l)));
    for (((c0, c1), (c2, c3)), ((d0, d1), (d2, d3))) in scratch.zip(outside) {
        let v = [s.load(c0), s.load(c1), s.load(c2), s.load(c3)];
        let [u0, u1, u2, u3] = inv_last_four::<S, STRICT, M, R1>(s, c, k, tw, v);
        x.store(s, d0, u0);
        x.store(s, d1, u1);
        x.store(s, d2, u2);
        x.store(s, d3, u3);
        s.store(c0, zero);
        s.store(c1, zero);
        s.store(c2, zero);
        s.store(c3, zero);
    }
}

/// Inverse layers of distances `t_lo, 2 t_lo, ... < t_end` (all `>= LANES`) on `blk`, which
/// starts at element `off` of a transform of size `n`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn inv_big_layers<S: Simd, const M: u8>(
    s: S,
    tb: &SimdTables<S::W>,
    c: &Consts<S::V>,
    blk: &mut [S::W],
    n: usize,
    off: usize,
    t_lo: usize,
    t_end: usize,
) {
    let mut t = t_lo;
    while t < t_end {
        let groups = n >> (2 * t).trailing_zeros();
        if S::RADIX4 && 2 * t < t_end {
            inv_radix4::<S, M>(
                s,
                tb,
                c,
                blk,
                t,
                groups + (off >> (2 * t).trailing_zeros()),
                groups / 2 + (off >> (4 * t).trailing_zeros()),
            );
            t *= 4;
        } else {
            inv_radix2::<S, M>(s, tb, c, blk, t, groups + (off >> (2 * t).trailing_zeros()));
            t *= 2;
        }
    }
}

/// Inverse NTT with `1/n` merged. Requires `a.len() == n >= 2·LANES`. Input `[0, 2q)`
/// bit-reversed; output `[0, 2q)`, or `[0, q)` when `STRICT`, natural order.
#[inline(always)]
pub(crate) fn inverse<S: Simd, const STRICT: bool>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    times: Option<&[S::W]>,
    a: &mut [S::W],
) {
    inverse_io::<S, STRICT, Own>(s, tb, q, times, &Own, Io::InPlace, a);
}

/// [`inverse`] (`STRICT`, else the lazy one) of an unchecked input: `false`, with `a` as it
/// was, when a value is at least `bound`. The first pass reads `a` through [`Below`], which
/// checks what it loads, and the transform runs in `scratch` (`n` zero words, left zero), its
/// last layer writing `a` ([`Io::Through`]): the check needs no pass of its own, and its
/// verdict is known before the first word of `a` is written.
#[inline(always)]
pub(crate) fn inverse_checked<S: Simd, const STRICT: bool>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    bound: S::W,
    a: &mut [S::W],
    scratch: &mut [S::W],
) -> bool {
    debug_assert_eq!(a.len(), scratch.len());
    let x = Below::new(s, bound);
    inverse_io::<S, STRICT, Below<S>>(s, tb, q, None, &x, Io::Through(a), scratch)
}

/// [`inverse`] of the words `io` names, read (and with [`Io::Through`] written) through `x`
/// (each block's words by its first layers, [`Outer`]); `a` holds the transform (with
/// [`Io::Through`]: scratch of length `n`). Returns [`Outer::ok`] after the input is read:
/// when it is `false`, no word of `io` has been written.
#[inline(always)]
pub(crate) fn inverse_io<S: Simd, const STRICT: bool, X: Outer<S>>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    times: Option<&[S::W]>,
    x: &X,
    io: Io<'_, X::E>,
    a: &mut [S::W],
) -> bool {
    if S::SLOTHFUL && tb.lazy_inv == lazy::HALF {
        inverse_m::<S, STRICT, { lazy::HALF }, X>(s, tb, q, times, x, io, a)
    } else if S::SLOTHFUL && tb.lazy_inv == lazy::WIDE {
        inverse_m::<S, STRICT, { lazy::WIDE }, X>(s, tb, q, times, x, io, a)
    } else {
        inverse_m::<S, STRICT, { lazy::STD }, X>(s, tb, q, times, x, io, a)
    }
}

/// [`inverse`] under reduction schedule `M` ([`lazy::STD`] or [`lazy::WIDE`]: values below
/// `V q` between layers; [`lazy::HALF`]: below `2V q`; the last layer's products bring them to
/// `[0, 2q)`).
#[inline(always)]
fn inverse_m<S: Simd, const STRICT: bool, const M: u8, X: Outer<S>>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    times: Option<&[S::W]>,
    x: &X,
    io: Io<'_, X::E>,
    a: &mut [S::W],
) -> bool {
    let n = a.len();
    let l = S::LANES;
    debug_assert!(n >= 2 * l);
    let c = &Consts::new::<S, M>(s, q);
    // The in-register layers keep every value below `V q` (their butterflies mix lanes of
    // both kinds); under HALF that takes their own constants.
    let c_inner = &if M == lazy::HALF { c.half_inner(s) } else { *c };
    let blocks = S::reg_blocks_inv(M);
    let bvec = inv_block_vectors::<S, M>();
    let rb = bvec * l;
    // The last two layers as one radix-4 pass.
    let fused = S::RADIX4 && tb.fold_inv;
    let block = inv_block_len::<S>(n, fused);
    debug_assert!(M != lazy::HALF || n > rb);
    let src = io.input();
    debug_assert!(src.is_none_or(|src| src.len() == n));
    if n == rb || n == REG_BLOCK * l {
        // One register block (8 vectors on a backend with blocks of 16: never under HALF,
        // n <= rb).
        if let Some(src) = src {
            copy_in(s, x, src, a);
            if !x.ok() {
                return refuse(&io, a);
            }
        }
        if let Some(b) = times {
            pointwise_assign(s, tb, q, a, b);
        }
        let v = if n == rb { bvec } else { REG_BLOCK };
        regs_block_v::<S, true, STRICT, true, M>(s, tb, c, a, v, v, 0);
        if let Io::Through(out) = io {
            drain(s, x, a, out);
        }
        return true;
    }
    let last = n / 2;
    // The memory layers of each block after its in-register ones: distances `LANES` up to
    // `t_max`, paired from the bottom. An odd number of them (on a radix-4 backend under the
    // standard schedule) would leave the top one alone in a radix-2 pass: the layer of
    // distance `LANES` runs with the in-register layers instead ([`small_group`]) and the rest
    // pair up.
    let t_max = if block < n { block / 2 } else { n / 4 };
    let lone = S::RADIX4 && !S::SLOTHFUL && t_max >= l && (t_max / l).trailing_zeros() % 2 == 0;
    let (t_mem, lone) = if lone {
        (2 * l, Some(n / (2 * l)))
    } else {
        (l, None)
    };
    for (b, blk) in a.chunks_exact_mut(block).enumerate() {
        let off = b * block;
        // The block's outside input: read by its first layers (register blocks or
        // [`small_layers`]), or copied in beforehand when a pointwise product comes first.
        let mut src_blk = src.map(|v| &v[off..off + block]);
        if times.is_some() {
            if let Some(v) = src_blk.take() {
                copy_in(s, x, v, blk);
            }
        }
        if let Some(t) = times {
            // The pointwise product block by block, while the block is in L1 for the layers.
            pointwise_assign(s, tb, q, blk, &t[off..off + block]);
        }
        if blocks && block >= rb {
            // The first layers in registers, `bvec` vectors at a time (n > rb, so the
            // last layer, of distance n / 2 >= rb, is not among them).
            for (k, sub) in blk.chunks_exact_mut(rb).enumerate() {
                let bv = (off + k * rb) / l;
                let from = src_blk.map(|v| &v[k * rb..(k + 1) * rb]);
                regs_block_from::<S, true, false, false, M, X>(
                    s,
                    tb,
                    c,
                    x,
                    from,
                    sub,
                    bvec,
                    n / l,
                    bv,
                );
            }
            inv_big_layers::<S, M>(s, tb, c, blk, n, off, rb, (block / 2 + 1).min(last));
        } else {
            let c_in = c_inner;
            small_layers::<S, true, false, M, true, X>(
                s, tb, c_in, blk, off, x, src_blk, None, lone,
            );
            inv_big_layers::<S, M>(s, tb, c, blk, n, off, t_mem, (block / 2 + 1).min(last));
        }
    }
    if !x.ok() {
        return refuse(&io, a);
    }
    if block < n {
        // Distances block, 2 block, ... below the last layer.
        let t0 = block.min(last);
        if fused && (n / block).ilog2().is_multiple_of(2) {
            // An even number of them, the last one included: radix-4 passes up to `n / 4`,
            // then the last two layers together.
            inv_big_layers::<S, M>(s, tb, c, a, n, 0, t0, last / 2);
            let out = match io {
                Io::Through(out) => Some(out),
                _ => None,
            };
            inv_last_radix4::<S, STRICT, M, X>(s, tb, c, a, x, out);
            return true;
        }
        if t0 < last {
            inv_big_layers::<S, M>(s, tb, c, a, n, 0, t0, last);
        }
    }
    // Last layer (one group, distance n/2) with 1/n merged: the second quarter's inputs
    // already carry it when the plan folds it ([`fold_inv`]).
    let k = LastConsts::new(s, tb);
    let (lo, hi) = a.split_at_mut(last);
    let split = if tb.fold_inv { last / 2 } else { last };
    let (lo0, lo1) = lo.split_at_mut(split);
    let (hi0, hi1) = hi.split_at_mut(split);
    if let Io::Through(out) = io {
        // The output straight into the outside words, the scratch zeroed behind it.
        let zero = s.splat(S::W::ZERO);
        let (olo, ohi) = out.split_at_mut(last);
        let (olo0, olo1) = olo.split_at_mut(split);
        let (ohi0, ohi1) = ohi.split_at_mut(split);
        let sides = (lo0.chunks_exact_mut(l).zip(hi0.chunks_exact_mut(l)))
            .zip(olo0.chunks_exact_mut(l).zip(ohi0.chunks_exact_mut(l)));
        for ((vx, vy), (dx, dy)) in sides {
            let (u, v) = inv_last_bf::<S, STRICT, false, M>(s, c, &k, s.load(vx), s.load(vy));
            x.store(s, dx, u);
            x.store(s, dy, v);
            s.store(vx, zero);
            s.store(vy, zero);
        }
        let sides = (lo1.chunks_exact_mut(l).zip(hi1.chunks_exact_mut(l)))
            .zip(olo1.chunks_exact_mut(l).zip(ohi1.chunks_exact_mut(l)));
        for ((vx, vy), (dx, dy)) in sides {
            let (u, v) = inv_last_bf::<S, STRICT, true, M>(s, c, &k, s.load(vx), s.load(vy));
            x.store(s, dx, u);
            x.store(s, dy, v);
            s.store(vx, zero);
            s.store(vy, zero);
        }
        return true;
    }
    for (x, y) in lo0.chunks_exact_mut(l).zip(hi0.chunks_exact_mut(l)) {
        let (u, v) = inv_last_bf::<S, STRICT, false, M>(s, c, &k, s.load(x), s.load(y));
        s.store(x, u);
        s.store(y, v);
    }
    for (x, y) in lo1.chunks_exact_mut(l).zip(hi1.chunks_exact_mut(l)) {
        let (u, v) = inv_last_bf::<S, STRICT, true, M>(s, c, &k, s.load(x), s.load(y));
        s.store(x, u);
        s.store(y, v);
    }
    true
}

/// Negacyclic product `out = a · b mod (x^n + 1, q)` for `a, b < q`, output in `[0, q)`: both
/// forward transforms out of place (`a` into `out`, `b` into `scratch`, no copies), then the
/// inverse with the pointwise product done block by block in its first pass. `CHECK`: the
/// forwards read `a` and `b` through [`Below`], and the result is `false` (`out`, `scratch`
/// holding no product) when a value is at least `q`; without it, always `true`.
#[inline(always)]
pub(crate) fn product<S: Simd, const CHECK: bool>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    a: &[S::W],
    b: &[S::W],
    out: &mut [S::W],
    scratch: &mut [S::W],
) -> bool {
    debug_assert!(
        S::enc(S::W::ONE) == S::W::ONE,
        "integer-domain driver on an encoded backend"
    );
    if CHECK {
        // One check for both inputs, as the forwards' first passes load them.
        let x = Below::new(s, q);
        if !forward_io::<S, true, Below<S>>(s, tb, q, &x, Io::From(a), out)
            || !forward_io::<S, true, Below<S>>(s, tb, q, &x, Io::From(b), scratch)
        {
            return false;
        }
    } else {
        forward::<S, true>(s, tb, q, Some(a), out);
        forward::<S, true>(s, tb, q, Some(b), scratch);
    }
    inverse::<S, true>(s, tb, q, Some(scratch), out);
    true
}

/// One product of [`pointwise`] and its twins: [`Simd::mul_mod_narrow`] when `NARROW`.
#[inline(always)]
fn mul_v<S: Simd, const NARROW: bool>(s: S, a: S::V, b: S::V, c: &MulConsts<S::V>) -> S::V {
    if NARROW {
        s.mul_mod_narrow(a, b, c)
    } else {
        s.mul_mod(a, b, c)
    }
}

/// Vectors per iteration of the pointwise loops: one product is a long dependency chain (the
/// emulated 64-bit products), and four side by side let the core overlap them (W1 pointwise on
/// Zen 4: ~26 -> ~21 cycles a vector).
const UNROLL: usize = 4;

/// `out = a ⊙ b mod q` in `[0, q)` for `a, b < q`; lengths multiple of `LANES`.
#[inline(always)]
pub(crate) fn pointwise<S: Simd>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    a: &[S::W],
    b: &[S::W],
    out: &mut [S::W],
) {
    debug_assert!(
        S::enc(S::W::ONE) == S::W::ONE,
        "integer-domain driver on an encoded backend"
    );
    let c = MulConsts::new(s, tb, q);
    if c.narrow {
        pointwise_rows::<S, true, false>(s, &c, a, b, out);
    } else {
        pointwise_rows::<S, false, false>(s, &c, a, b, out);
    }
}

/// `acc = acc + a ⊙ b mod q` in `[0, q)`, all inputs `< q`.
#[inline(always)]
pub(crate) fn pointwise_acc<S: Simd>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    a: &[S::W],
    b: &[S::W],
    acc: &mut [S::W],
) {
    debug_assert!(
        S::enc(S::W::ONE) == S::W::ONE,
        "integer-domain driver on an encoded backend"
    );
    let c = MulConsts::new(s, tb, q);
    if c.narrow {
        pointwise_rows::<S, true, true>(s, &c, a, b, acc);
    } else {
        pointwise_rows::<S, false, true>(s, &c, a, b, acc);
    }
}

/// The product of the vectors at `x` and `y`, plus the one at `o` when `ACC`. (A function, not
/// a closure: closures of the generic drivers are not always inlined into the
/// `#[target_feature]` entry points, and then every intrinsic becomes a call.)
#[inline(always)]
fn mul_acc<S: Simd, const NARROW: bool, const ACC: bool>(
    s: S,
    c: &MulConsts<S::V>,
    x: &[S::W],
    y: &[S::W],
    o: &[S::W],
) -> S::V {
    let r = mul_v::<S, NARROW>(s, s.load(x), s.load(y), c);
    if ACC {
        s.csub(s.add(r, s.load(o)), c.q)
    } else {
        r
    }
}

/// [`pointwise`] (`ACC` false) or [`pointwise_acc`] (`ACC` true) with the product chosen.
#[inline(always)]
fn pointwise_rows<S: Simd, const NARROW: bool, const ACC: bool>(
    s: S,
    c: &MulConsts<S::V>,
    a: &[S::W],
    b: &[S::W],
    out: &mut [S::W],
) {
    let l = S::LANES;
    let whole = out.len() / (UNROLL * l) * (UNROLL * l);
    let (head, tail) = out.split_at_mut(whole);
    for ((o, x), y) in head
        .chunks_exact_mut(UNROLL * l)
        .zip(a.chunks_exact(UNROLL * l))
        .zip(b.chunks_exact(UNROLL * l))
    {
        let mut r = [c.q; UNROLL];
        for (k, v) in r.iter_mut().enumerate() {
            *v = mul_acc::<S, NARROW, ACC>(s, c, &x[k * l..], &y[k * l..], &o[k * l..]);
        }
        for (k, v) in r.iter().enumerate() {
            s.store(&mut o[k * l..], *v);
        }
    }
    for ((o, x), y) in tail
        .chunks_exact_mut(l)
        .zip(a[whole..].chunks_exact(l))
        .zip(b[whole..].chunks_exact(l))
    {
        let r = mul_acc::<S, NARROW, ACC>(s, c, x, y, o);
        s.store(o, r);
    }
}

/// `a = a ⊙ b mod q` in `[0, q)` for `a, b < q`; lengths multiple of `LANES`.
#[inline(always)]
pub(crate) fn pointwise_assign<S: Simd>(
    s: S,
    tb: &SimdTables<S::W>,
    q: S::W,
    a: &mut [S::W],
    b: &[S::W],
) {
    debug_assert!(
        S::enc(S::W::ONE) == S::W::ONE,
        "integer-domain driver on an encoded backend"
    );
    let c = MulConsts::new(s, tb, q);
    if c.narrow {
        assign_rows::<S, true>(s, &c, a, b);
    } else {
        assign_rows::<S, false>(s, &c, a, b);
    }
}

/// [`pointwise_assign`] with the product chosen.
#[inline(always)]
fn assign_rows<S: Simd, const NARROW: bool>(s: S, c: &MulConsts<S::V>, a: &mut [S::W], b: &[S::W]) {
    let l = S::LANES;
    let whole = a.len() / (UNROLL * l) * (UNROLL * l);
    let (head, tail) = a.split_at_mut(whole);
    for (x, y) in head
        .chunks_exact_mut(UNROLL * l)
        .zip(b.chunks_exact(UNROLL * l))
    {
        let mut r = [c.q; UNROLL];
        for (k, v) in r.iter_mut().enumerate() {
            *v = mul_v::<S, NARROW>(s, s.load(&x[k * l..]), s.load(&y[k * l..]), c);
        }
        for (k, v) in r.iter().enumerate() {
            s.store(&mut x[k * l..], *v);
        }
    }
    for (x, y) in tail.chunks_exact_mut(l).zip(b[whole..].chunks_exact(l)) {
        let r = mul_v::<S, NARROW>(s, s.load(x), s.load(y), c);
        s.store(x, r);
    }
}

/// `out = a + b mod q` for `a, b < q` (lengths multiple of `LANES`).
#[inline(always)]
pub(crate) fn add_mod<S: Simd>(s: S, q: S::W, a: &[S::W], b: &[S::W], out: &mut [S::W]) {
    let qv = s.splat(q);
    lanewise(s, a, b, out, |x, y| add_v(s, x, y, qv));
}

/// `out = a - b mod q` for `a, b < q` (lengths multiple of `LANES`).
#[inline(always)]
pub(crate) fn sub_mod<S: Simd>(s: S, q: S::W, a: &[S::W], b: &[S::W], out: &mut [S::W]) {
    let qv = s.splat(q);
    lanewise(s, a, b, out, |x, y| sub_v(s, x, y, qv));
}

/// `a = a + b mod q` in place for `a, b < q` (lengths multiple of `LANES`).
#[inline(always)]
pub(crate) fn add_mod_assign<S: Simd>(s: S, q: S::W, a: &mut [S::W], b: &[S::W]) {
    let qv = s.splat(q);
    lanewise_assign(s, a, b, |x, y| add_v(s, x, y, qv));
}

/// `a = a - b mod q` in place for `a, b < q` (lengths multiple of `LANES`).
#[inline(always)]
pub(crate) fn sub_mod_assign<S: Simd>(s: S, q: S::W, a: &mut [S::W], b: &[S::W]) {
    let qv = s.splat(q);
    lanewise_assign(s, a, b, |x, y| sub_v(s, x, y, qv));
}

/// `out = a + b mod q` (`SUB`: `a - b mod q`) for `a, b < q` into words not yet
/// initialised (lengths equal, a multiple of `LANES`): every word of `out` is written, once.
/// For sums into fresh memory with no zero fill before (`RnsPoly::add`: at n = 4096 with two
/// limbs the fill and its page faults were a third of the call).
#[inline(always)]
pub(crate) fn sum_uninit<S: Simd, const SUB: bool>(
    s: S,
    q: S::W,
    a: &[S::W],
    b: &[S::W],
    out: &mut [core::mem::MaybeUninit<S::W>],
) {
    debug_assert!(
        S::enc(S::W::ONE) == S::W::ONE,
        "integer-domain driver on an encoded backend"
    );
    let (l, qv) = (S::LANES, s.splat(q));
    // One vector's words (at most 32 lanes), copied out lane by lane: the compiler stores the
    // vector straight into `out`.
    let mut t = [S::W::ZERO; 32];
    for ((o, x), y) in out
        .chunks_exact_mut(l)
        .zip(a.chunks_exact(l))
        .zip(b.chunks_exact(l))
    {
        let (x, y) = (s.load(x), s.load(y));
        let v = if SUB {
            sub_v(s, x, y, qv)
        } else {
            add_v(s, x, y, qv)
        };
        s.store(&mut t[..l], v);
        for (o, &w) in o.iter_mut().zip(&t[..l]) {
            o.write(w);
        }
    }
}

/// `x + y mod q` lane-wise for `x, y < q`.
#[inline(always)]
fn add_v<S: Simd>(s: S, x: S::V, y: S::V, q: S::V) -> S::V {
    s.csub(s.add(x, y), q)
}

/// `x - y mod q` lane-wise for `x, y < q`.
#[inline(always)]
fn sub_v<S: Simd>(s: S, x: S::V, y: S::V, q: S::V) -> S::V {
    s.csub(s.sub(s.add(x, q), y), q)
}

/// `out = f(a, b)` vector by vector (integer-domain backends only).
#[inline(always)]
fn lanewise<S: Simd>(
    s: S,
    a: &[S::W],
    b: &[S::W],
    out: &mut [S::W],
    f: impl Fn(S::V, S::V) -> S::V,
) {
    debug_assert!(
        S::enc(S::W::ONE) == S::W::ONE,
        "integer-domain driver on an encoded backend"
    );
    let l = S::LANES;
    for ((o, x), y) in out
        .chunks_exact_mut(l)
        .zip(a.chunks_exact(l))
        .zip(b.chunks_exact(l))
    {
        s.store(o, f(s.load(x), s.load(y)));
    }
}

/// `a = f(a, b)` vector by vector, in place (integer-domain backends only).
#[inline(always)]
fn lanewise_assign<S: Simd>(s: S, a: &mut [S::W], b: &[S::W], f: impl Fn(S::V, S::V) -> S::V) {
    debug_assert!(
        S::enc(S::W::ONE) == S::W::ONE,
        "integer-domain driver on an encoded backend"
    );
    let l = S::LANES;
    for (x, y) in a.chunks_exact_mut(l).zip(b.chunks_exact(l)) {
        let r = f(s.load(x), s.load(y));
        s.store(x, r);
    }
}

/// Packs the parities of the centred values of `w` (see [`Simd::parity_mask`]) into `out`,
/// `LANES` bits per vector, least significant bit first. `LANES` must be a multiple of 8.
#[inline(always)]
pub(crate) fn parity_decode<S: Simd>(s: S, half: S::W, w: &[S::W], out: &mut [u8]) {
    let l = S::LANES;
    for (chunk, o) in w.chunks_exact(l).zip(out.chunks_exact_mut(l / 8)) {
        let bits = s.parity_mask(s.load(chunk), half).to_le_bytes();
        o.copy_from_slice(&bits[..l / 8]);
    }
}

/// Whether every value of `a` (length a multiple of `LANES`) is below `bound`: the lanes of
/// the running maximum are compared with `bound` once at the end ([`Simd::any_ge`], one
/// compare into a mask register on AVX-512), with no horizontal reduction (on AVX-512 that
/// reduction's chain of shuffles and maxima was about 2% of a 32-bit forward at n = 512).
#[inline(always)]
pub(crate) fn all_below<S: Simd>(s: S, a: &[S::W], bound: S::W) -> bool {
    debug_assert!(
        S::enc(S::W::ONE) == S::W::ONE,
        "integer-domain driver on an encoded backend"
    );
    let l = S::LANES;
    // Four accumulators: independent chains of `max`, so the loop runs at the loads' rate
    // rather than at the latency of one `max` per vector (three cycles on Intel, two on Zen 5).
    let mut acc = [s.splat(S::W::ZERO); 4];
    let mut chunks = a.chunks_exact(4 * l);
    for x in &mut chunks {
        for (k, v) in acc.iter_mut().enumerate() {
            *v = s.max(*v, s.load(&x[k * l..]));
        }
    }
    for x in chunks.remainder().chunks_exact(l) {
        acc[0] = s.max(acc[0], s.load(x));
    }
    let m = s.max(s.max(acc[0], acc[1]), s.max(acc[2], acc[3]));
    !s.any_ge(m, s.splat(bound))
}

#[cfg(all(test, target_arch = "x86_64"))]
mod fused_check_tests {
    use super::*;
    use crate::isa::Isa;
    use crate::ntt::x86::{Avx2U32, Avx2U64, Avx512U32, Avx512U64, IfmaU64};
    use crate::ntt::Plan;

    /// [`fwd_first_checked`] itself, under schedule `M`: on a valid input it runs exactly the
    /// layers [`fwd_step`] runs and returns the same next distance; with a value `>= q`
    /// anywhere it returns `None` and leaves the input as it was.
    fn first_pass<S: Simd, const M: u8>(s: S, n: usize, bits: u32) {
        first_pass_q::<S, M>(s, n, crate::primes::ntt_primes(bits, n, 1).unwrap()[0]);
    }

    /// [`first_pass`] for the modulus `q`.
    fn first_pass_q<S: Simd, const M: u8>(s: S, n: usize, q: u64) {
        assert!(S::FUSED_CHECK);
        let bits = 64 - q.leading_zeros();
        let plan = Plan::<S::W>::with_isa(n, q, Isa::Scalar).unwrap();
        let tb = SimdTables::new(s, &plan.m, &plan.fwd, &plan.inv);
        let c = &Consts::new::<S, M>(s, S::W::from_u64(q));
        let block = fwd_block_len::<S>(n);
        assert!(block < n, "n = {n} is one block");
        let good: Vec<S::W> = (0..n as u64)
            .map(|i| S::W::from_u64(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) % q))
            .collect();
        let mut want = good.clone();
        let t = fwd_step::<S, M, false, Own>(s, &tb, c, &Own, &[], &mut want, n, 0, n / 2, block);
        let mut got = good.clone();
        let qw = S::W::from_u64(q);
        assert_eq!(
            fwd_first_checked::<S, M>(s, &tb, c, qw, &mut got, block),
            Some(t)
        );
        assert!(
            got == want,
            "n = {n}, {bits} bits: the checked pass differs"
        );
        for p in [
            0,
            S::LANES - 1,
            n / 4 + 3,
            n / 2 - 1,
            n / 2 + 1,
            3 * n / 4,
            n - 1,
        ] {
            let mut bad = good.clone();
            bad[p] = qw;
            let before = bad.clone();
            assert_eq!(
                fwd_first_checked::<S, M>(s, &tb, c, qw, &mut bad, block),
                None
            );
            assert!(
                bad == before,
                "n = {n}, {bits} bits: bad value at {p} not undone"
            );
        }
    }

    #[test]
    fn first_pass_checks_and_undoes() {
        let mut ran = 0;
        if let Some(s) = IfmaU64::try_new() {
            // radix-4 first passes (n / 4 >= 2048), both schedules
            for n in [8192, 16384] {
                first_pass::<_, { lazy::STD }>(s, n, 50);
                first_pass::<_, { lazy::SLOTH }>(s, n, 48);
            }
            ran += 1;
        }
        if let Some(s) = Avx512U64::try_new() {
            // radix-2 passes (this backend has no radix-4), every schedule
            for n in [4096, 8192] {
                first_pass::<_, { lazy::STD }>(s, n, 62);
                first_pass::<_, { lazy::WIDE }>(s, n, 61);
                first_pass::<_, { lazy::SLOTH }>(s, n, 60);
            }
            ran += 1;
        }
        // (n = 8192 is one forward block where the level-1 data cache holds 48 KB:
        // `fwd_block_len`)
        if let Some(s) = Avx512U32::try_new() {
            for n in [16384, 32768] {
                first_pass::<_, { lazy::STD }>(s, n, 30);
            }
            ran += 1;
        }
        if let Some(s) = Avx2U32::try_new() {
            for n in [16384, 32768] {
                first_pass::<_, { lazy::STD }>(s, n, 30);
                first_pass::<_, { lazy::STD }>(s, n, 20);
            }
            ran += 1;
        }
        if let Some(s) = Avx2U64::try_new() {
            // radix-2 passes, every schedule, both instances (the second runs only moduli
            // q = 1 mod 2^32)
            let fast = |bits, n| crate::primes::fast_ntt_primes(bits, n, 1).unwrap()[0];
            for n in [4096, 8192] {
                first_pass::<_, { lazy::STD }>(s, n, 62);
                first_pass::<_, { lazy::WIDE }>(s, n, 61);
                first_pass::<_, { lazy::SLOTH }>(s, n, 60);
                let t = s.low_word_one();
                first_pass_q::<_, { lazy::STD }>(t, n, fast(62, n));
                first_pass_q::<_, { lazy::WIDE }>(t, n, fast(61, n));
                first_pass_q::<_, { lazy::SLOTH }>(t, n, fast(60, n));
            }
            ran += 1;
        }
        println!("backends checked: {ran}");
    }
}

/// `f64` lane operations beside a u64 token's [`Simd`] lanes, implemented with the backends in
/// `ntt/x86`: for BFV decryption's scale-and-round (`he::bfv::round`) and the float estimate of
/// the base conversion's lift (`rns::convert_simd`).
pub(crate) trait RoundLanes: Simd<W = u64> {
    /// A vector of `LANES` doubles.
    type F: Copy;
    /// Exact high 64 bits of the lane-wise 64 x 64 product.
    fn mulhi_exact(self, a: Self::V, b: Self::V) -> Self::V;
    /// Low 64 bits of the lane-wise product.
    fn mullo(self, a: Self::V, b: Self::V) -> Self::V;
    /// `(α + 1, β - q)` in the lanes where `β >= q`, `(α, β)` elsewhere (`β, q < 2^63`).
    fn carry_fix(self, alpha: Self::V, beta: Self::V, q: Self::V) -> (Self::V, Self::V);
    /// Lane-wise `v as f64`, rounded to nearest as Rust's `as` does (`v < 2^63`).
    fn to_f64(self, v: Self::V) -> Self::F;
    /// Every lane `x`.
    fn fsplat(self, x: f64) -> Self::F;
    /// Lane-wise `a + b` (one IEEE addition per lane).
    fn fadd(self, a: Self::F, b: Self::F) -> Self::F;
    /// Lane-wise `a * b` (one IEEE product per lane, never fused with an addition).
    fn fmul(self, a: Self::F, b: Self::F) -> Self::F;
    /// Lane-wise `a - b` (one IEEE subtraction per lane).
    fn fsub(self, a: Self::F, b: Self::F) -> Self::F;
    /// Whether some lane of `f` lies below `lo` or above `hi`, or is NaN (unordered
    /// comparisons: a NaN lane counts as outside).
    fn fany_outside(self, f: Self::F, lo: f64, hi: f64) -> bool;
    /// Lane-wise `f as u64` (truncation) for `0 <= f < 2^52`.
    fn trunc(self, f: Self::F) -> Self::V;
    /// Loads `LANES` doubles from the front of `x` (tests).
    #[cfg(test)]
    fn fload(self, x: &[f64]) -> Self::F;
    /// Stores the lanes to the front of `out` (tests).
    #[cfg(test)]
    fn fstore(self, f: Self::F, out: &mut [f64]);
}
