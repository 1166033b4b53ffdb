//! The samplers' random stream: ChaCha20 keyed with the 32-byte seed, generated 32 blocks (2 KB)
//! at a time.
//!
//! The stream is word for word the one of `rand_chacha::ChaCha20Rng::from_seed(seed)` (the
//! original ChaCha20 of Bernstein: 64-bit block counter from 0, 64-bit nonce 0, twenty
//! rounds; 64-bit draws take two consecutive 32-bit words, the first as the low half), which
//! [`super::Sampler`] used before and which the tests compare with, so seeds keep giving the
//! samples they gave. Only the generation differs: `rand_chacha` produced about 1.6 GB/s on the
//! AMD Zen 5 machine of this project (2.6 µs for the 4 KB that 256 uniform values take, of 2.7
//! µs for [`super::Sampler::fill_uniform`]), and the block function is easy to run on
//! many blocks at once:
//!
//! * [`x86::Avx512`]: one block per 32-bit lane of sixteen `zmm` registers (`vprold`
//!   rotations), two such sets of sixteen blocks side by side (a round is four chains of
//!   two-cycle operations per set: one set left the core half idle, 0.85 against 0.67 µs for
//!   256 uniform values), then 64 shuffles per set to block order;
//! * [`x86::Avx2`]: eight blocks in `ymm` registers (byte shuffles for the rotations by 16
//!   and 8, two shifts and an OR for 12 and 7), four calls per refill;
//! * `rand_chacha`'s generator otherwise (`LATPOLY_ISA=scalar`, CPUs without AVX2, other
//!   architectures), drawn from directly: its SIMD code (SSE2 on baseline x86-64) is faster
//!   than a portable one-block loop (2.6 against 4.5 µs for 4 KB here; an autovectorised
//!   multi-block one was slower still).
//!
//! The backend is decided once per process (the Keccak permutation's rule: the CPU's best,
//! capped by `LATPOLY_ISA`; the Valgrind constant-time tests run the AVX2 code). The tests
//! check the vector backends' refills block by block against a one-lane run of the same
//! round code (`block`, which also reproduces the RFC 8439 A.1 test vector) across the carry
//! of the counter's low word, and every backend's stream against `rand_chacha`.
//!
//! Constant time: the key and the keystream only meet additions, XORs, rotations and
//! shuffles; the only branches are the refill and the bulk reads of [`ChaCha20::map_pairs`],
//! on the number of values drawn (public). The key and the buffered keystream are wiped on
//! drop; `rand_chacha`'s generator, which is not `Zeroize`, is overwritten with the zero
//! seed's (best effort).

use rand_core::{RngCore, SeedableRng};
use zeroize::Zeroize;

#[cfg(target_arch = "x86_64")]
mod x86;

/// Blocks per refill.
const BLOCKS: usize = 32;
/// 32-bit words per refill.
const WORDS: usize = 16 * BLOCKS;

/// `"expand 32-byte k"`.
#[cfg(any(test, target_arch = "x86_64"))]
const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// The generator of a refill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2(x86::Avx2),
    #[cfg(target_arch = "x86_64")]
    Avx512(x86::Avx512),
}

impl Backend {
    /// This process's backend (decided once): the CPU's best, capped by `LATPOLY_ISA`.
    fn best() -> Backend {
        #[cfg(target_arch = "x86_64")]
        {
            use std::sync::OnceLock;
            static A: OnceLock<Option<x86::Avx512>> = OnceLock::new();
            static B: OnceLock<Option<x86::Avx2>> = OnceLock::new();
            if let Some(t) = crate::isa::decided(&A, crate::Isa::Avx512, x86::Avx512::try_new) {
                return Backend::Avx512(t);
            }
            if let Some(t) = crate::isa::decided(&B, crate::Isa::Avx2, x86::Avx2::try_new) {
                return Backend::Avx2(t);
            }
        }
        Backend::Portable
    }

    /// The instruction set of this backend (`Scalar` for `rand_chacha`'s generator).
    fn isa(self) -> crate::Isa {
        match self {
            Backend::Portable => crate::Isa::Scalar,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(_) => crate::Isa::Avx2,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(_) => crate::Isa::Avx512,
        }
    }

    /// [`BLOCKS`] consecutive blocks from `counter` into `out`, in block order. Only for the
    /// vector backends: a [`ChaCha20`] on the portable one draws from its `rand_chacha`
    /// generator and never refills.
    fn fill(self, key: &[u32; 8], counter: u64, out: &mut [u32; WORDS]) {
        match self {
            Backend::Portable => {
                unreachable!("the portable backend draws from rand_chacha, without refills")
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2(t) => {
                for (k, part) in out.chunks_exact_mut(16 * 8).enumerate() {
                    let c = counter.wrapping_add(8 * k as u64);
                    t.blocks8(key, c, part.try_into().expect("eight blocks"));
                }
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512(t) => t.blocks32(key, counter, out),
        }
    }
}

/// The instruction set the samplers' keystream is generated with in this process.
pub(crate) fn isa() -> crate::Isa {
    Backend::best().isa()
}

/// The key of a seed: eight little-endian words.
fn key_words(seed: &[u8; 32]) -> [u32; 8] {
    core::array::from_fn(|i| {
        u32::from_le_bytes([
            seed[4 * i],
            seed[4 * i + 1],
            seed[4 * i + 2],
            seed[4 * i + 3],
        ])
    })
}

/// The ChaCha20 keystream of a 32-byte key, drawn 64 bits at a time.
pub(crate) struct ChaCha20 {
    key: [u32; 8],
    /// Block counter of the next refill.
    counter: u64,
    buf: [u32; WORDS],
    /// Next unread 64-bit value of `buf` (`WORDS / 2`: empty).
    pos: usize,
    backend: Backend,
    /// The portable backend's generator, drawn from directly (4 KB: 2.6 µs, against 3.3 for
    /// refills of `buf` from it, positioned at their block).
    portable: Option<rand_chacha::ChaCha20Rng>,
}

impl ChaCha20 {
    /// The stream of `seed` (read as eight little-endian words), on this process's backend.
    pub(crate) fn new(seed: &[u8; 32]) -> Self {
        Self::with_backend(seed, Backend::best())
    }

    fn with_backend(seed: &[u8; 32], backend: Backend) -> Self {
        ChaCha20 {
            key: key_words(seed),
            counter: 0,
            buf: [0; WORDS],
            pos: WORDS / 2,
            backend,
            portable: (backend == Backend::Portable)
                .then(|| rand_chacha::ChaCha20Rng::from_seed(*seed)),
        }
    }

    /// The next 64 bits: words `2i` (low half) and `2i + 1` of the keystream.
    #[inline(always)]
    pub(crate) fn next_u64(&mut self) -> u64 {
        if let Some(r) = &mut self.portable {
            return r.next_u64();
        }
        if self.pos == WORDS / 2 {
            self.refill();
        }
        let i = 2 * self.pos;
        self.pos += 1;
        u64::from(self.buf[i]) | (u64::from(self.buf[i + 1]) << 32)
    }

    /// `out[i] = f(hi, lo)` for the next `out.len()` pairs of 64-bit values (`hi` drawn
    /// first): the values of `2 out.len()` calls of [`Self::next_u64`], read straight from the
    /// buffer while whole pairs are left in it (no per-value refill check and index).
    #[inline(always)]
    pub(crate) fn map_pairs<T>(&mut self, out: &mut [T], f: impl Fn(u64, u64) -> T) {
        let mut i = 0;
        while i < out.len() {
            // a whole pair in the buffer (from any position, odd ones included) or not
            if self.portable.is_some() || self.pos + 2 > WORDS / 2 {
                let hi = self.next_u64();
                let lo = self.next_u64();
                out[i] = f(hi, lo);
                i += 1;
                continue;
            }
            let take = ((WORDS / 2 - self.pos) / 2).min(out.len() - i);
            let words = &self.buf[2 * self.pos..2 * self.pos + 4 * take];
            for (o, w) in out[i..i + take].iter_mut().zip(words.chunks_exact(4)) {
                let hi = u64::from(w[0]) | (u64::from(w[1]) << 32);
                let lo = u64::from(w[2]) | (u64::from(w[3]) << 32);
                *o = f(hi, lo);
            }
            self.pos += 2 * take;
            i += take;
        }
    }

    #[inline(never)]
    fn refill(&mut self) {
        self.backend.fill(&self.key, self.counter, &mut self.buf);
        self.counter = self.counter.wrapping_add(BLOCKS as u64);
        self.pos = 0;
    }
}

impl Drop for ChaCha20 {
    fn drop(&mut self) {
        self.key.zeroize();
        self.buf.zeroize();
        if let Some(r) = &mut self.portable {
            // `ChaCha20Rng` is not `Zeroize`: overwrite its key and buffered blocks with those
            // of the zero seed (best effort; `black_box` keeps the store)
            *r = rand_chacha::ChaCha20Rng::from_seed([0; 32]);
            core::hint::black_box(&*r);
        }
    }
}

/// The initial state of block `counter`: constants, key, counter (low word first), nonce 0.
#[cfg(any(test, target_arch = "x86_64"))]
fn initial(key: &[u32; 8], counter: u64) -> [u32; 16] {
    let mut s = [0u32; 16];
    s[..4].copy_from_slice(&SIGMA);
    s[4..12].copy_from_slice(key);
    s[12] = counter as u32;
    s[13] = (counter >> 32) as u32;
    s
}

/// The lane-wise operations of a round on one vector type: one block per lane.
#[cfg(any(test, target_arch = "x86_64"))]
pub(crate) trait Lanes: Copy {
    type V: Copy;
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// `(a ^ b) <<< R`.
    fn xor_rol<const R: i32>(self, a: Self::V, b: Self::V) -> Self::V;
}

/// The quarter round on words `A, B, C, D` of `x`, lane-wise.
#[cfg(any(test, target_arch = "x86_64"))]
#[inline(always)]
fn quarter_lanes<L: Lanes, const A: usize, const B: usize, const C: usize, const D: usize>(
    l: L,
    x: &mut [L::V; 16],
) {
    x[A] = l.add(x[A], x[B]);
    x[D] = l.xor_rol::<16>(x[D], x[A]);
    x[C] = l.add(x[C], x[D]);
    x[B] = l.xor_rol::<12>(x[B], x[C]);
    x[A] = l.add(x[A], x[B]);
    x[D] = l.xor_rol::<8>(x[D], x[A]);
    x[C] = l.add(x[C], x[D]);
    x[B] = l.xor_rol::<7>(x[B], x[C]);
}

/// Ten double rounds and the feed-forward of `init`, lane-wise.
#[cfg(any(test, target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn rounds<L: Lanes>(l: L, init: &[L::V; 16]) -> [L::V; 16] {
    let mut x = *init;
    for _ in 0..10 {
        quarter_lanes::<L, 0, 4, 8, 12>(l, &mut x);
        quarter_lanes::<L, 1, 5, 9, 13>(l, &mut x);
        quarter_lanes::<L, 2, 6, 10, 14>(l, &mut x);
        quarter_lanes::<L, 3, 7, 11, 15>(l, &mut x);
        quarter_lanes::<L, 0, 5, 10, 15>(l, &mut x);
        quarter_lanes::<L, 1, 6, 11, 12>(l, &mut x);
        quarter_lanes::<L, 2, 7, 8, 13>(l, &mut x);
        quarter_lanes::<L, 3, 4, 9, 14>(l, &mut x);
    }
    for (v, &i) in x.iter_mut().zip(init.iter()) {
        *v = l.add(*v, i);
    }
    x
}

/// The words 12 and 13 (counter low and high halves) of blocks `counter .. counter + N`.
#[cfg(any(test, target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn counters<const N: usize>(counter: u64) -> ([u32; N], [u32; N]) {
    let mut lo = [0u32; N];
    let mut hi = [0u32; N];
    for j in 0..N {
        let c = counter.wrapping_add(j as u64);
        lo[j] = c as u32;
        hi[j] = (c >> 32) as u32;
    }
    (lo, hi)
}

/// One block per `u32`: the lanes of [`block`], the reference.
#[cfg(test)]
#[derive(Clone, Copy)]
struct One;

#[cfg(test)]
impl Lanes for One {
    type V = u32;
    fn add(self, a: u32, b: u32) -> u32 {
        a.wrapping_add(b)
    }
    fn xor_rol<const R: i32>(self, a: u32, b: u32) -> u32 {
        (a ^ b).rotate_left(R as u32)
    }
}

/// One keystream block, the reference (tests only): [`rounds`] on one lane, the round code
/// the vector backends run.
#[cfg(test)]
fn block(key: &[u32; 8], counter: u64) -> [u32; 16] {
    rounds(One, &initial(key, counter))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;

    /// The vector backends this CPU runs (a test says which it checked).
    fn vector_backends() -> Vec<Backend> {
        #[allow(unused_mut)]
        let mut b = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            b.extend(x86::Avx2::try_new().map(Backend::Avx2));
            b.extend(x86::Avx512::try_new().map(Backend::Avx512));
        }
        println!("vector backends checked: {b:?}");
        b
    }

    /// RFC 8439 appendix A.1, test vector 1: all-zero key, block 0, all-zero nonce (the same
    /// state in this variant, whose nonce is 64 bits and counter 64 bits).
    #[test]
    fn zero_key_block_is_rfc_8439_a1() {
        let bytes: Vec<u8> = block(&[0; 8], 0)
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let expected = [
            0x76, 0xb8, 0xe0, 0xad, 0xa0, 0xf1, 0x3d, 0x90, 0x40, 0x5d, 0x6a, 0xe5, 0x53, 0x86,
            0xbd, 0x28, 0xbd, 0xd2, 0x19, 0xb8, 0xa0, 0x8d, 0xed, 0x1a, 0xa8, 0x36, 0xef, 0xcc,
            0x8b, 0x77, 0x0d, 0xc7, 0xda, 0x41, 0x59, 0x7c, 0x51, 0x57, 0x48, 0x8d, 0x77, 0x24,
            0xe0, 0x3f, 0xb8, 0xd8, 0x4a, 0x37, 0x6a, 0x43, 0xb8, 0xf4, 0x15, 0x18, 0xa1, 0x1c,
            0xc3, 0x87, 0xb6, 0x69, 0xb2, 0xee, 0x65, 0x86,
        ];
        assert_eq!(bytes, expected);
    }

    /// Every backend, the portable one included, gives `rand_chacha`'s stream over several
    /// refills for several seeds.
    #[test]
    fn stream_is_rand_chacha() {
        let mut all = vector_backends();
        all.push(Backend::Portable);
        for b in all {
            for s in 0..4u8 {
                let seed: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ s);
                let mut ours = ChaCha20::with_backend(&seed, b);
                let mut theirs = ChaCha20Rng::from_seed(seed);
                for i in 0..3 * WORDS {
                    assert_eq!(
                        ours.next_u64(),
                        theirs.next_u64(),
                        "{b:?}, seed {s}, draw {i}"
                    );
                }
            }
        }
    }

    /// Each vector backend's refill equals the reference block by block where the counter's
    /// low word wraps inside a refill (blocks `2^32 - 5 ..`: the carry into word 13), where
    /// the 64-bit counter wraps, and elsewhere; and `rand_chacha` positioned there equals the
    /// reference too.
    #[test]
    fn refills_are_reference_blocks_across_the_counter_carry() {
        let seed: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(11) ^ 0x5a);
        let key = key_words(&seed);
        for start in [(1u64 << 32) - 5, u64::MAX - 7, 0x1234_5678_9abc] {
            let want: Vec<u32> = (0..BLOCKS as u64)
                .flat_map(|j| block(&key, start.wrapping_add(j)))
                .collect();
            for b in vector_backends() {
                let mut got = [0u32; WORDS];
                b.fill(&key, start, &mut got);
                assert_eq!(got[..], want[..], "{b:?} from block {start:#x}");
            }
            let mut r = ChaCha20Rng::from_seed(seed);
            r.set_word_pos(u128::from(start) * 16);
            for (j, &w) in want.iter().enumerate() {
                assert_eq!(
                    w,
                    r.next_u32(),
                    "rand_chacha, word {j} from block {start:#x}"
                );
            }
        }
    }

    /// `map_pairs` gives the values of `next_u64` pairs, from any position in the buffer
    /// (odd ones included), across refills, on every backend.
    #[test]
    fn map_pairs_is_next_u64_pairs() {
        let mut all = vector_backends();
        all.push(Backend::Portable);
        for b in all {
            let seed = [5u8; 32];
            let (mut x, mut y) = (
                ChaCha20::with_backend(&seed, b),
                ChaCha20::with_backend(&seed, b),
            );
            for (k, len) in [1usize, 0, 3, 200, 7, 1000, 2, 300].into_iter().enumerate() {
                if k % 2 == 1 {
                    // one single draw: the next pair starts at an odd position
                    assert_eq!(x.next_u64(), y.next_u64());
                }
                let mut got = vec![(0u64, 0u64); len];
                x.map_pairs(&mut got, |h, l| (h, l));
                let want: Vec<_> = (0..len).map(|_| (y.next_u64(), y.next_u64())).collect();
                assert_eq!(got, want, "{b:?}, call {k}");
            }
        }
    }
}
