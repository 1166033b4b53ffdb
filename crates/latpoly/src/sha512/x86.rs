//! SHA-512 compression kernels:
//!
//! * [`compress4`], AVX-512 (F + VL): four independent messages at once, one message per
//!   64-bit lane of `ymm` registers, so each instruction advances all four. The round function
//!   maps onto single instructions: the three-rotation `Σ0`/`Σ1` and the `σ0`/`σ1` of the
//!   message schedule as `vprorq` plus one three-input `vpternlogq`, `Ch` and `Maj` as one
//!   `vpternlogq` each; a round is 16 vector instructions, the schedule 11 per word.
//! * [`compress1`], AVX2 + BMI1/BMI2: one message, the rounds in general-purpose registers
//!   (`rorx`, about 22 operations a round on four integer pipes) and the message schedule two
//!   words a step in `xmm` registers, one step after every two rounds, fourteen rounds ahead of
//!   its use, so it runs on the vector pipes beside the rounds instead of adding its ~13
//!   integer operations a word to them (`W + K` goes through a stack buffer). On AMD Zen 2:
//!   219-222 ns a block against 288-295 for the `sha2` crate's compression, whose rounds
//!   reach ~191 ns alone.
//! * [`compress_pair`], AVX2 + BMI1/BMI2: two consecutive blocks of one message, both message
//!   schedules in one pass (one block per 128-bit half of `ymm` registers) beside the first
//!   block's rounds, the second block's rounds alone after them. On Zen 2 these kernels are
//!   bound by the instruction count (about 3.6 instructions a cycle with the schedule or
//!   without it), so halving the schedule's instructions per block is what counts.
//!
//! Data-independent: no branch, no memory index depends on the messages or the states. The
//! tokens ([`Avx512Vl`], shared with the Keccak permutation, and [`Avx2Bmi`]) are built only
//! after a run-time CPU check, and are the proof the `unsafe` intrinsic calls below rely on.

#![allow(unsafe_code)]

use super::K;
use crate::keccak::x86::Avx512Vl;
use core::arch::x86_64::*;

/// One compression of each of four states with its 128-byte block; the token (shared with the
/// Keccak permutation) proves AVX-512F and AVX-512VL.
#[inline]
pub(crate) fn compress4(_t: Avx512Vl, states: &mut [[u64; 8]; 4], blocks: [&[u8; 128]; 4]) {
    // SAFETY: the token exists only if the CPU runs AVX-512F and AVX-512VL.
    unsafe { compress4_tf(states, blocks) }
}

/// `x` rotated right by `R` in every lane.
#[inline(always)]
fn ror<const R: i32>(x: __m256i) -> __m256i {
    // SAFETY: only called from `compress4_tf`, which runs with AVX-512F + VL enabled.
    unsafe { _mm256_ror_epi64::<R>(x) }
}

/// `a ^ b ^ c`.
#[inline(always)]
fn xor3(a: __m256i, b: __m256i, c: __m256i) -> __m256i {
    // SAFETY: as for `ror`.
    unsafe { _mm256_ternarylogic_epi64::<0x96>(a, b, c) }
}

#[inline(always)]
fn add(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: as for `ror` (AVX2 is implied by AVX-512F).
    unsafe { _mm256_add_epi64(a, b) }
}

/// One round: `s = [a, b, c, d, e, f, g, h]` becomes the next state, `kw = K[t] + W[t]`.
#[inline(always)]
fn round(s: &mut [__m256i; 8], kw: __m256i) {
    let [a, b, c, d, e, f, g, h] = *s;
    let big_s1 = xor3(ror::<14>(e), ror::<18>(e), ror::<41>(e));
    // SAFETY: as for `ror`.
    let ch = unsafe { _mm256_ternarylogic_epi64::<0xca>(e, f, g) }; // e ? f : g
    let t1 = add(add(h, kw), add(big_s1, ch));
    let big_s0 = xor3(ror::<28>(a), ror::<34>(a), ror::<39>(a));
    // SAFETY: as for `ror`.
    let maj = unsafe { _mm256_ternarylogic_epi64::<0xe8>(a, b, c) }; // majority
    let t2 = add(big_s0, maj);
    *s = [add(t1, t2), a, b, c, add(d, t1), e, f, g];
}

/// The next schedule word `W[t]` from `w = W[t-16..t]` (ring buffer, slot `t % 16`).
#[inline(always)]
fn schedule(w: &mut [__m256i; 16], t: usize) {
    // SAFETY: as for `ror`.
    let (s0, s1) = unsafe {
        let x = w[(t + 1) % 16]; // W[t-15]
        let y = w[(t + 14) % 16]; // W[t-2]
        (
            xor3(ror::<1>(x), ror::<8>(x), _mm256_srli_epi64::<7>(x)),
            xor3(ror::<19>(y), ror::<61>(y), _mm256_srli_epi64::<6>(y)),
        )
    };
    w[t % 16] = add(add(w[t % 16], s0), add(w[(t + 9) % 16], s1)); // + W[t-16], W[t-7]
}

/// Sixteen rounds starting at `t0` (a multiple of 16), extending the schedule first when
/// `t0 >= 16`. Written as straight-line code (constant indices) so `w` and `s` stay in registers.
#[inline(always)]
fn sixteen(s: &mut [__m256i; 8], w: &mut [__m256i; 16], t0: usize) {
    macro_rules! r {
        ($($j:literal)*) => {$(
            if t0 >= 16 {
                schedule(w, $j);
            }
            // SAFETY: as for `ror`.
            let k = unsafe { _mm256_set1_epi64x(K[t0 + $j] as i64) };
            round(s, add(w[$j], k));
        )*};
    }
    r!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
}

/// Words `4q .. 4q + 4` of `block`, byte-swapped to big-endian values.
#[inline(always)]
fn load_be(block: &[u8; 128], q: usize, bswap: __m256i) -> __m256i {
    // SAFETY: as for `ror`; bytes `32q .. 32q + 32` lie in the block for `q < 4`.
    unsafe {
        _mm256_shuffle_epi8(
            _mm256_loadu_si256(block[32 * q..32 * q + 32].as_ptr() as *const __m256i),
            bswap,
        )
    }
}

#[target_feature(enable = "avx512f,avx512vl")]
fn compress4_tf(states: &mut [[u64; 8]; 4], blocks: [&[u8; 128]; 4]) {
    // SAFETY: AVX-512F/VL are enabled on this function (the caller holds the token); every
    // load reads 32 bytes inside a 128-byte block, every state access is in bounds.
    unsafe {
        // Big-endian 64-bit words: reverse the bytes of each 8-byte group.
        let bswap = _mm256_setr_epi8(
            7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14,
            13, 12, 11, 10, 9, 8,
        );
        let mut w = [_mm256_setzero_si256(); 16];
        for q in 0..4 {
            let r = [
                load_be(blocks[0], q, bswap),
                load_be(blocks[1], q, bswap),
                load_be(blocks[2], q, bswap),
                load_be(blocks[3], q, bswap),
            ];
            // 4 x 4 transpose: word 4q + j of message m goes to lane m of w[4q + j].
            let t0 = _mm256_unpacklo_epi64(r[0], r[1]);
            let t1 = _mm256_unpackhi_epi64(r[0], r[1]);
            let t2 = _mm256_unpacklo_epi64(r[2], r[3]);
            let t3 = _mm256_unpackhi_epi64(r[2], r[3]);
            w[4 * q] = _mm256_permute2x128_si256::<0x20>(t0, t2);
            w[4 * q + 1] = _mm256_permute2x128_si256::<0x20>(t1, t3);
            w[4 * q + 2] = _mm256_permute2x128_si256::<0x31>(t0, t2);
            w[4 * q + 3] = _mm256_permute2x128_si256::<0x31>(t1, t3);
        }
        let mut init = [_mm256_setzero_si256(); 8];
        for (i, v) in init.iter_mut().enumerate() {
            *v = _mm256_setr_epi64x(
                states[0][i] as i64,
                states[1][i] as i64,
                states[2][i] as i64,
                states[3][i] as i64,
            );
        }
        let mut s = init;
        sixteen(&mut s, &mut w, 0);
        sixteen(&mut s, &mut w, 16);
        sixteen(&mut s, &mut w, 32);
        sixteen(&mut s, &mut w, 48);
        sixteen(&mut s, &mut w, 64);
        for (i, (&x, &y)) in s.iter().zip(init.iter()).enumerate() {
            let mut lanes = [0u64; 4];
            _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, add(x, y));
            for (st, &v) in states.iter_mut().zip(lanes.iter()) {
                st[i] = v;
            }
        }
    }
}

/// Proof that the CPU runs AVX2, BMI1 and BMI2 (built only by [`Avx2Bmi::try_new`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2Bmi(());

impl Avx2Bmi {
    pub(crate) fn try_new() -> Option<Self> {
        (is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2"))
        .then_some(Self(()))
    }
}

/// One compression of `state` with `block`.
#[inline]
pub(crate) fn compress1(_t: Avx2Bmi, state: &mut [u64; 8], block: &[u8; 128]) {
    // SAFETY: the token exists only if the CPU runs AVX2, BMI1 and BMI2.
    unsafe { compress1_tf(state, block) }
}

/// Two compressions of `state`: with `blocks[..128]`, then with `blocks[128..]` (two
/// consecutive blocks of one message).
#[inline]
pub(crate) fn compress_pair(_t: Avx2Bmi, state: &mut [u64; 8], blocks: &[u8; 256]) {
    // SAFETY: the token exists only if the CPU runs AVX2, BMI1 and BMI2.
    unsafe { compress_pair_tf(state, blocks) }
}

/// `x` rotated right by `R` (`L = 64 - R`) in both 64-bit lanes.
#[inline(always)]
fn vror<const R: i32, const L: i32>(x: __m128i) -> __m128i {
    // SAFETY: only called from `compress1_tf`, which runs with AVX2 enabled.
    unsafe { _mm_or_si128(_mm_srli_epi64::<R>(x), _mm_slli_epi64::<L>(x)) }
}

/// `x` rotated right by `R` (`L = 64 - R`) in all four 64-bit lanes.
#[inline(always)]
fn vror256<const R: i32, const L: i32>(x: __m256i) -> __m256i {
    // SAFETY: only called from `compress_pair_tf`, which runs with AVX2 enabled.
    unsafe { _mm256_or_si256(_mm256_srli_epi64::<R>(x), _mm256_slli_epi64::<L>(x)) }
}

/// One round (FIPS 180-4, 6.4.2) on the working variables named `$a .. $h` (the names rotate
/// from round to round instead of the values), `W[t] + K[t]` read from `$wk[$t]`. `$bc` holds
/// `b ^ c`, the previous round's `a ^ b`, for `Maj = ((a ^ b) & (b ^ c)) ^ b`.
macro_rules! round {
    ($bc:ident, $wk:ident;
     $a:ident $b:ident $c:ident $d:ident $e:ident $f:ident $g:ident $h:ident, $t:expr) => {
        let hk = $h.wrapping_add($wk[$t]);
        let ch = (($f ^ $g) & $e) ^ $g;
        let s1 = $e.rotate_right(14) ^ $e.rotate_right(18) ^ $e.rotate_right(41);
        let t1 = hk.wrapping_add(ch).wrapping_add(s1);
        let ab = $a ^ $b;
        let maj = (ab & $bc) ^ $b;
        $bc = ab;
        let s0 = $a.rotate_right(28) ^ $a.rotate_right(34) ^ $a.rotate_right(39);
        $d = $d.wrapping_add(t1);
        $h = t1.wrapping_add(s0).wrapping_add(maj);
    };
}

/// Sixteen rounds from `$t0` (after sixteen, the names are back where they started), with
/// `$step!(k, t0 + 16 + 2k)` after rounds `2k` and `2k + 1`: the schedule step for words
/// `t0 + 16 + 2k` and `t0 + 17 + 2k`, fourteen rounds before the first of them is read.
macro_rules! sixteen {
    ($bc:ident, $wk:ident, $step:ident;
     $a:ident $b:ident $c:ident $d:ident $e:ident $f:ident $g:ident $h:ident, $t0:expr) => {
        round!($bc, $wk; $a $b $c $d $e $f $g $h, $t0);
        round!($bc, $wk; $h $a $b $c $d $e $f $g, $t0 + 1);
        $step!(0, $t0 + 16);
        round!($bc, $wk; $g $h $a $b $c $d $e $f, $t0 + 2);
        round!($bc, $wk; $f $g $h $a $b $c $d $e, $t0 + 3);
        $step!(1, $t0 + 18);
        round!($bc, $wk; $e $f $g $h $a $b $c $d, $t0 + 4);
        round!($bc, $wk; $d $e $f $g $h $a $b $c, $t0 + 5);
        $step!(2, $t0 + 20);
        round!($bc, $wk; $c $d $e $f $g $h $a $b, $t0 + 6);
        round!($bc, $wk; $b $c $d $e $f $g $h $a, $t0 + 7);
        $step!(3, $t0 + 22);
        round!($bc, $wk; $a $b $c $d $e $f $g $h, $t0 + 8);
        round!($bc, $wk; $h $a $b $c $d $e $f $g, $t0 + 9);
        $step!(4, $t0 + 24);
        round!($bc, $wk; $g $h $a $b $c $d $e $f, $t0 + 10);
        round!($bc, $wk; $f $g $h $a $b $c $d $e, $t0 + 11);
        $step!(5, $t0 + 26);
        round!($bc, $wk; $e $f $g $h $a $b $c $d, $t0 + 12);
        round!($bc, $wk; $d $e $f $g $h $a $b $c, $t0 + 13);
        $step!(6, $t0 + 28);
        round!($bc, $wk; $c $d $e $f $g $h $a $b, $t0 + 14);
        round!($bc, $wk; $b $c $d $e $f $g $h $a, $t0 + 15);
        $step!(7, $t0 + 30);
    };
}

/// The `$step` of [`sixteen`] for the last sixteen rounds, which need no new words.
macro_rules! no_step {
    ($k:literal, $t:expr) => {};
}

/// Eighty rounds on `state` with `W + K` from `$wk`, the first 64 with `$step` (the message
/// schedule, which fills `$wk[16..]`), then the feed-forward.
macro_rules! compress {
    ($state:ident, $wk:ident, $step:ident) => {
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *$state;
        let mut bc = b ^ c;
        for t0 in [0, 16, 32, 48] {
            sixteen!(bc, $wk, $step; a b c d e f g h, t0);
        }
        sixteen!(bc, $wk, no_step; a b c d e f g h, 64);
        for (s, v) in $state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s = s.wrapping_add(v);
        }
    };
}

// the last round's `bc` is not read
#[allow(unused_assignments)]
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn compress1_tf(state: &mut [u64; 8], block: &[u8; 128]) {
    // `wk[t] = W[t] + K[t]`, written by the schedule steps fourteen rounds before round `t`
    // reads it; `x[k]` holds schedule words `2k, 2k + 1` of the current sixteen.
    let mut wk = [0u64; 80];
    // SAFETY: AVX2 is enabled on this function (the caller holds the token); every load reads
    // 16 bytes inside the 128-byte block or `K`, every store writes 16 bytes inside `wk` (the
    // indices below are at most 78).
    let mut x = unsafe {
        let bswap = _mm_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
        let mut x = [_mm_setzero_si128(); 8];
        for (i, xi) in x.iter_mut().enumerate() {
            *xi = _mm_shuffle_epi8(
                _mm_loadu_si128(block[16 * i..].as_ptr() as *const __m128i),
                bswap,
            );
            let k = _mm_loadu_si128(K[2 * i..].as_ptr() as *const __m128i);
            _mm_storeu_si128(
                wk[2 * i..].as_mut_ptr() as *mut __m128i,
                _mm_add_epi64(*xi, k),
            );
        }
        x
    };
    // Schedule words `t, t + 1` into `x[k]` (`t = 16 + 2k` mod 16 in the window) and `wk`.
    macro_rules! step {
        ($k:literal, $t:expr) => {
            // SAFETY: as above; `$t <= 78`.
            unsafe {
                let w15 = _mm_alignr_epi8::<8>(x[($k + 1) % 8], x[$k]); // W[t-15], W[t-14]
                let w7 = _mm_alignr_epi8::<8>(x[($k + 5) % 8], x[($k + 4) % 8]); // W[t-7], W[t-6]
                let w2 = x[($k + 7) % 8]; // W[t-2], W[t-1]
                let s0 = _mm_xor_si128(
                    _mm_xor_si128(vror::<1, 63>(w15), vror::<8, 56>(w15)),
                    _mm_srli_epi64::<7>(w15),
                );
                let s1 = _mm_xor_si128(
                    _mm_xor_si128(vror::<19, 45>(w2), vror::<61, 3>(w2)),
                    _mm_srli_epi64::<6>(w2),
                );
                x[$k] = _mm_add_epi64(_mm_add_epi64(x[$k], s0), _mm_add_epi64(w7, s1));
                let k = _mm_loadu_si128(K[$t..].as_ptr() as *const __m128i);
                _mm_storeu_si128(
                    wk[$t..].as_mut_ptr() as *mut __m128i,
                    _mm_add_epi64(x[$k], k),
                );
            }
        };
    }
    compress!(state, wk, step);
    crate::secret::wipe(&mut wk);
}

/// [`compress_pair`]: the message schedules of both blocks are computed together, one block
/// per 128-bit half of `ymm` registers (`vpalignr`, `vpshufb` and the 64-bit shifts act on
/// each half apart), interleaved with the first block's rounds as in [`compress1_tf`]; the
/// second block's rounds then run alone. That halves the schedule's instructions per block,
/// and on AMD Zen 2 the instruction count bounds these kernels: 238-244 ns a block against
/// 250-268 for `compress1` in the same runs of a stand-alone benchmark.
#[allow(unused_assignments)]
#[target_feature(enable = "avx2,bmi1,bmi2")]
fn compress_pair_tf(state: &mut [u64; 8], blocks: &[u8; 256]) {
    // `wk0`, `wk1`: `W + K` of the two blocks, as `wk` in `compress1_tf`; `x[k]` holds words
    // `2k, 2k + 1` of the first block in its low half and of the second in its high half.
    let mut wk0 = [0u64; 80];
    let mut wk1 = [0u64; 80];
    // `K[t], K[t + 1]` in both halves, added to words `t, t + 1` of both blocks and stored.
    macro_rules! store {
        ($v:expr, $t:expr) => {
            // SAFETY: AVX2 is enabled on this function; the load reads 16 bytes inside `K`
            // and the stores write 16 bytes inside `wk0` and `wk1` (`$t <= 78`).
            unsafe {
                let k = _mm256_broadcastsi128_si256(_mm_loadu_si128(
                    K[$t..].as_ptr() as *const __m128i
                ));
                let s = _mm256_add_epi64($v, k);
                _mm_storeu_si128(
                    wk0[$t..].as_mut_ptr() as *mut __m128i,
                    _mm256_castsi256_si128(s),
                );
                _mm_storeu_si128(
                    wk1[$t..].as_mut_ptr() as *mut __m128i,
                    _mm256_extracti128_si256::<1>(s),
                );
            }
        };
    }
    let bswap = _mm256_setr_epi8(
        7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13,
        12, 11, 10, 9, 8,
    );
    // each 64-bit lane rotated right by 8 bits, a byte permutation
    let rot8 = _mm256_setr_epi8(
        1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8, 1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11,
        12, 13, 14, 15, 8,
    );
    let mut x = [_mm256_setzero_si256(); 8];
    for (i, xi) in x.iter_mut().enumerate() {
        // SAFETY: AVX2 is enabled on this function (the caller holds the token); the loads
        // read 16 bytes inside the 256 bytes of `blocks`.
        let (lo, hi) = unsafe {
            (
                _mm_loadu_si128(blocks[16 * i..].as_ptr() as *const __m128i),
                _mm_loadu_si128(blocks[128 + 16 * i..].as_ptr() as *const __m128i),
            )
        };
        *xi = _mm256_shuffle_epi8(_mm256_set_m128i(hi, lo), bswap);
        store!(*xi, 2 * i);
    }
    // The step of `compress1_tf` on both blocks at once.
    macro_rules! step {
        ($k:literal, $t:expr) => {
            let w15 = _mm256_alignr_epi8::<8>(x[($k + 1) % 8], x[$k]); // W[t-15], W[t-14]
            let w7 = _mm256_alignr_epi8::<8>(x[($k + 5) % 8], x[($k + 4) % 8]); // W[t-7], W[t-6]
            let w2 = x[($k + 7) % 8]; // W[t-2], W[t-1]
            let s0 = _mm256_xor_si256(
                _mm256_xor_si256(vror256::<1, 63>(w15), _mm256_shuffle_epi8(w15, rot8)),
                _mm256_srli_epi64::<7>(w15),
            );
            let s1 = _mm256_xor_si256(
                _mm256_xor_si256(vror256::<19, 45>(w2), vror256::<61, 3>(w2)),
                _mm256_srli_epi64::<6>(w2),
            );
            x[$k] = _mm256_add_epi64(_mm256_add_epi64(x[$k], s0), _mm256_add_epi64(w7, s1));
            store!(x[$k], $t);
        };
    }
    compress!(state, wk0, step);
    compress!(state, wk1, no_step);
    crate::secret::wipe(&mut wk0);
    crate::secret::wipe(&mut wk1);
}
