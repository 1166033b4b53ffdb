//! The samplers' random stream: ChaCha20 keyed with the 32-byte seed, generated 32 blocks (2 KB)
//! at a time.
//!
//! The stream is word for word the one of `rand_chacha::ChaCha20Rng::from_seed(seed)` (the
//! original ChaCha20 of Bernstein: 64-bit block counter from 0, 64-bit nonce 0, twenty
//! rounds; 64-bit draws take two consecutive 32-bit words, the first as the low half), which
//! [`super::Sampler`] used before and which the tests compare with, so seeds keep giving the
//! samples they gave. Only the generation differs: `rand_chacha` produced about 1.6 GB/s on the
//! AMD Zen 5 machine of this project (2.6 µs for the 4 KB that 256 uniform values take, nearly
//! all of [`super::Sampler::fill_uniform`]'s time), and the block function is easy to run on
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
//! check every backend against a one-block reference (`block`, with the RFC 8439 A.1 test
//! vector) across the carry of the counter's low word, and the streams against `rand_chacha`.
//!
//! Constant time: the key and the keystream only meet additions, XORs, rotations and
//! shuffles; the only branches are the refill and the bulk reads of [`ChaCha20::map_pairs`],
//! on the number of values drawn (public). The key and the buffered keystream are wiped on
//! drop.

use rand_core::{RngCore, SeedableRng};
use zeroize::Zeroize;

#[cfg(target_arch = "x86_64")]
mod x86;

/// Blocks per refill.
pub(crate) const BLOCKS: usize = 32;
/// 32-bit words per refill.
const WORDS: usize = 16 * BLOCKS;

/// `"expand 32-byte k"`.
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
    /// This process's backend (decided once).
    fn best() -> Backend {
        #[cfg(target_arch = "x86_64")]
        {
            static B: std::sync::OnceLock<Backend> = std::sync::OnceLock::new();
            *B.get_or_init(|| {
                let cap = crate::Isa::env_cap();
                let allows = |isa: crate::Isa| cap.is_none_or(|c| c >= isa);
                if allows(crate::Isa::Avx512) {
                    if let Some(t) = x86::Avx512::try_new() {
                        return Backend::Avx512(t);
                    }
                }
                if allows(crate::Isa::Avx2) {
                    if let Some(t) = x86::Avx2::try_new() {
                        return Backend::Avx2(t);
                    }
                }
                Backend::Portable
            })
        }
        #[cfg(not(target_arch = "x86_64"))]
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

    /// [`BLOCKS`] consecutive blocks from `counter` into `out`, in block order. (The portable
    /// backend's streams draw from their own `rand_chacha` generator instead, see
    /// [`ChaCha20::next_u64`]; this arm positions one at `counter`.)
    fn fill(self, key: &[u32; 8], counter: u64, out: &mut [u32; WORDS]) {
        match self {
            Backend::Portable => {
                // `rand_chacha`'s generator (its SIMD code, SSE2 on baseline x86-64), moved to
                // the block: the stream it produced before this module existed
                let mut seed = [0u8; 32];
                for (b, k) in seed.chunks_exact_mut(4).zip(key) {
                    b.copy_from_slice(&k.to_le_bytes());
                }
                let mut r = rand_chacha::ChaCha20Rng::from_seed(seed);
                seed.zeroize();
                r.set_word_pos(u128::from(counter) * 16);
                for w in out.iter_mut() {
                    *w = r.next_u32();
                }
                // `ChaCha20Rng` is not `Zeroize`: overwrite its key and buffered blocks with
                // those of the zero seed (best effort; `black_box` keeps the store)
                r = rand_chacha::ChaCha20Rng::from_seed([0; 32]);
                core::hint::black_box(&r);
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

/// The ChaCha20 keystream of a 32-byte key, drawn 64 bits at a time.
pub(crate) struct ChaCha20 {
    key: [u32; 8],
    /// Block counter of the next refill.
    counter: u64,
    buf: [u32; WORDS],
    /// Next unread 64-bit value of `buf` (`WORDS / 2`: empty).
    pos: usize,
    backend: Backend,
    /// The portable backend's generator (drawn from directly: 2.7 µs for 4 KB, against 3.3
    /// for refills of `buf` from it).
    portable: Option<rand_chacha::ChaCha20Rng>,
}

impl ChaCha20 {
    /// The stream of `seed` (read as eight little-endian words), on this process's backend.
    pub(crate) fn new(seed: &[u8; 32]) -> Self {
        Self::with_backend(seed, Backend::best())
    }

    fn with_backend(seed: &[u8; 32], backend: Backend) -> Self {
        let mut key = [0u32; 8];
        for (k, w) in key.iter_mut().zip(seed.chunks_exact(4)) {
            *k = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        }
        ChaCha20 {
            key,
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
            if self.portable.is_some() || self.pos % 2 == 1 || self.pos + 2 > WORDS / 2 {
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
fn initial(key: &[u32; 8], counter: u64) -> [u32; 16] {
    let mut s = [0u32; 16];
    s[..4].copy_from_slice(&SIGMA);
    s[4..12].copy_from_slice(key);
    s[12] = counter as u32;
    s[13] = (counter >> 32) as u32;
    s
}

/// The quarter round on words `a, b, c, d` of `x`.
#[cfg(test)]
fn quarter(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}

/// The lane-wise operations of a round on one vector type: one block per lane.
pub(crate) trait Lanes: Copy {
    type V: Copy;
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// `(a ^ b) <<< R`.
    fn xor_rol<const R: i32>(self, a: Self::V, b: Self::V) -> Self::V;
}

/// The quarter round on words `A, B, C, D` of `x`, lane-wise.
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

/// One keystream block, the reference (tests only): ten double rounds (columns, then diagonals)
/// and the feed-forward of the initial state.
#[cfg(test)]
fn block(key: &[u32; 8], counter: u64, out: &mut [u32; 16]) {
    let init = initial(key, counter);
    let mut x = init;
    for _ in 0..10 {
        quarter(&mut x, 0, 4, 8, 12);
        quarter(&mut x, 1, 5, 9, 13);
        quarter(&mut x, 2, 6, 10, 14);
        quarter(&mut x, 3, 7, 11, 15);
        quarter(&mut x, 0, 5, 10, 15);
        quarter(&mut x, 1, 6, 11, 12);
        quarter(&mut x, 2, 7, 8, 13);
        quarter(&mut x, 3, 4, 9, 14);
    }
    for ((o, &v), &i) in out.iter_mut().zip(x.iter()).zip(init.iter()) {
        *o = v.wrapping_add(i);
    }
    x.zeroize();
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha20Rng;

    fn backends() -> Vec<Backend> {
        let mut b = vec![Backend::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            b.extend(x86::Avx2::try_new().map(Backend::Avx2));
            b.extend(x86::Avx512::try_new().map(Backend::Avx512));
        }
        b
    }

    /// RFC 8439 appendix A.1, test vector 1: all-zero key, block 0, all-zero nonce (the same
    /// state in this variant, whose nonce is 64 bits and counter 64 bits).
    #[test]
    fn zero_key_block_is_rfc_8439_a1() {
        let mut out = [0u32; 16];
        block(&[0; 8], 0, &mut out);
        let bytes: Vec<u8> = out.iter().flat_map(|w| w.to_le_bytes()).collect();
        let expected = [
            0x76, 0xb8, 0xe0, 0xad, 0xa0, 0xf1, 0x3d, 0x90, 0x40, 0x5d, 0x6a, 0xe5, 0x53, 0x86,
            0xbd, 0x28, 0xbd, 0xd2, 0x19, 0xb8, 0xa0, 0x8d, 0xed, 0x1a, 0xa8, 0x36, 0xef, 0xcc,
            0x8b, 0x77, 0x0d, 0xc7, 0xda, 0x41, 0x59, 0x7c, 0x51, 0x57, 0x48, 0x8d, 0x77, 0x24,
            0xe0, 0x3f, 0xb8, 0xd8, 0x4a, 0x37, 0x6a, 0x43, 0xb8, 0xf4, 0x15, 0x18, 0xa1, 0x1c,
            0xc3, 0x87, 0xb6, 0x69, 0xb2, 0xee, 0x65, 0x86,
        ];
        assert_eq!(bytes, expected);
    }

    /// Every backend gives `rand_chacha`'s stream, over several refills, for several seeds.
    #[test]
    fn stream_is_rand_chacha() {
        for b in backends() {
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

    /// `map_pairs` gives the values of `next_u64` pairs, from any position in the buffer
    /// (odd ones included), across refills, on every backend.
    #[test]
    fn map_pairs_is_next_u64_pairs() {
        for b in backends() {
            let seed = [5u8; 32];
            let (mut x, mut y) = (
                ChaCha20::with_backend(&seed, b),
                ChaCha20::with_backend(&seed, b),
            );
            for (k, len) in [1usize, 0, 3, 200, 7, 1000, 2].into_iter().enumerate() {
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

    /// Every backend matches the reference where the counter's low word wraps inside a refill
    /// (blocks `2^32 - 5 ..`, the carry into word 13) and at the end of the counter range.
    #[test]
    fn backends_agree_across_the_counter_carry() {
        let key: [u32; 8] = core::array::from_fn(|i| 0x0101_0101 * (i as u32 + 1));
        for start in [(1u64 << 32) - 5, u64::MAX - 7, 0x1234_5678_9abc] {
            let mut want = [0u32; WORDS];
            Backend::Portable.fill(&key, start, &mut want);
            for b in backends() {
                let mut got = [0u32; WORDS];
                b.fill(&key, start, &mut got);
                assert_eq!(got, want, "{b:?} from block {start:#x}");
            }
            // and the reference against rand_chacha at that position (not at the very end,
            // where rand_chacha's 64-bit word position would overflow its block counter)
            if start < u64::MAX / 2 {
                let mut r = ChaCha20Rng::from_seed(core::array::from_fn(|i| {
                    key[i / 4].to_le_bytes()[i % 4]
                }));
                r.set_word_pos(u128::from(start) * 16);
                for (j, &w) in want.iter().enumerate() {
                    assert_eq!(w, r.next_u32(), "word {j} from block {start:#x}");
                }
            }
        }
    }
}
