//! SHA-512 for the NTRU Prime KEMs, up to four messages hashed in lockstep.
//!
//! sntrup761 and ntrulpr761 hash with SHA-512 (`Hash_b(x)`, the first 32 bytes of
//! SHA-512(`b ‖ x`)), and their hashes are a large part of their time: 39% of an sntrup761
//! encapsulation with the `sha2` crate's compression (measured with `perf`, Zen 4: ~210 ns a
//! block). Several of those hashes are independent of each other (the public-key hash and the
//! session hash of an encapsulation, both session-key candidates of a decapsulation), so this
//! module hashes whole padded messages ([`Msg`]) block by block, up to four at once:
//!
//! * [`x86::compress4`]: one message per 64-bit lane of `ymm` registers, `vprorq` and
//!   `vpternlogq` for the rotations, `Ch` and `Maj` (~16 instructions a round): one call
//!   compresses four blocks in about the time the `sha2` crate takes for one;
//! * one message after the other otherwise (CPUs without AVX-512VL, or `LATPOLY_ISA` capped
//!   below `avx512`: the Valgrind constant-time tests run with `LATPOLY_ISA=avx2`), and on AMD
//!   Zen 5 for a step that has one message left: there the simple vector integer operations
//!   take two cycles of latency, and the kernel's rounds are chains of them (232 ns a call on
//!   Zen 5, ~12 cycles a round, against 144 ns for the `sha2` crate's compression of one
//!   block; on Zen 4 and Intel's server cores the kernel takes about the scalar time of one
//!   block). One message is compressed by [`x86::compress1`] (AVX2 + BMI2: rounds in
//!   general-purpose registers, the message schedule in `xmm` registers beside them; 219-222
//!   ns a block on AMD Zen 2 against 288-295 for the `sha2` crate's), two consecutive blocks of
//!   it by [`x86::compress_pair`] (both message schedules at once, in the halves of `ymm`
//!   registers), where the CPU runs them and `LATPOLY_ISA` is not `scalar`, by the `sha2`
//!   crate's `compress512` otherwise. Two
//!   messages side by side in general-purpose registers were measured slower than one after
//!   the other (their 16 working variables do not fit the 16 registers).
//!
//! The padding and the digest are FIPS 180-4's; the tests check every message length from 0 to
//! 1100 bytes, both backends, against the `sha2` crate's `Sha512`. Constant time in the data:
//! the only branches are on lengths and block counts, which are public in every use.

#[cfg(target_arch = "x86_64")]
mod x86;

use crate::secret::wipe;

/// Bytes per block.
pub(crate) const BLOCK: usize = 128;

/// The 80 round constants.
const K: [u64; 80] = [
    0x428a2f98d728ae22,
    0x7137449123ef65cd,
    0xb5c0fbcfec4d3b2f,
    0xe9b5dba58189dbbc,
    0x3956c25bf348b538,
    0x59f111f1b605d019,
    0x923f82a4af194f9b,
    0xab1c5ed5da6d8118,
    0xd807aa98a3030242,
    0x12835b0145706fbe,
    0x243185be4ee4b28c,
    0x550c7dc3d5ffb4e2,
    0x72be5d74f27b896f,
    0x80deb1fe3b1696b1,
    0x9bdc06a725c71235,
    0xc19bf174cf692694,
    0xe49b69c19ef14ad2,
    0xefbe4786384f25e3,
    0x0fc19dc68b8cd5b5,
    0x240ca1cc77ac9c65,
    0x2de92c6f592b0275,
    0x4a7484aa6ea6e483,
    0x5cb0a9dcbd41fbd4,
    0x76f988da831153b5,
    0x983e5152ee66dfab,
    0xa831c66d2db43210,
    0xb00327c898fb213f,
    0xbf597fc7beef0ee4,
    0xc6e00bf33da88fc2,
    0xd5a79147930aa725,
    0x06ca6351e003826f,
    0x142929670a0e6e70,
    0x27b70a8546d22ffc,
    0x2e1b21385c26c926,
    0x4d2c6dfc5ac42aed,
    0x53380d139d95b3df,
    0x650a73548baf63de,
    0x766a0abb3c77b2a8,
    0x81c2c92e47edaee6,
    0x92722c851482353b,
    0xa2bfe8a14cf10364,
    0xa81a664bbc423001,
    0xc24b8b70d0f89791,
    0xc76c51a30654be30,
    0xd192e819d6ef5218,
    0xd69906245565a910,
    0xf40e35855771202a,
    0x106aa07032bbd1b8,
    0x19a4c116b8d2d0c8,
    0x1e376c085141ab53,
    0x2748774cdf8eeb99,
    0x34b0bcb5e19b48a8,
    0x391c0cb3c5c95a63,
    0x4ed8aa4ae3418acb,
    0x5b9cca4f7763e373,
    0x682e6ff3d6b2b8a3,
    0x748f82ee5defb2fc,
    0x78a5636f43172f60,
    0x84c87814a1f0ab72,
    0x8cc702081a6439ec,
    0x90befffa23631e28,
    0xa4506cebde82bde9,
    0xbef9a3f7b2c67915,
    0xc67178f2e372532b,
    0xca273eceea26619c,
    0xd186b8c721c0c207,
    0xeada7dd6cde0eb1e,
    0xf57d4f7fee6ed178,
    0x06f067aa72176fba,
    0x0a637dc5a2c898a6,
    0x113f9804bef90dae,
    0x1b710b35131c471b,
    0x28db77f523047d84,
    0x32caab7b40c72493,
    0x3c9ebe0a15c9bebc,
    0x431d67c49c100d4c,
    0x4cc5d4becb3e42b6,
    0x597f299cfc657e2a,
    0x5fcb6fab3ad6faec,
    0x6c44198c4a475817,
];

/// The initial chaining value.
const IV: [u64; 8] = [
    0x6a09e667f3bcc908,
    0xbb67ae8584caa73b,
    0x3c6ef372fe94f82b,
    0xa54ff53a5f1d36f1,
    0x510e527fade682d1,
    0x9b05688c2b3e6c1f,
    0x1f83d9abfb41bd6b,
    0x5be0cd19137e2179,
];

/// The four-lane backend of this process: the Keccak permutation's (AVX-512VL if the CPU runs
/// it and `LATPOLY_ISA` does not cap the backends below `avx512`; decided once).
#[cfg(target_arch = "x86_64")]
fn avx512() -> Option<crate::keccak::x86::Avx512Vl> {
    crate::keccak::avx512()
}

/// Whether hashing up to four independent messages in lockstep costs about what hashing one
/// does on this CPU (the four-lane kernel, where a one-message step is not cheaper): otherwise
/// each message costs its own blocks, or a step of several messages costs more than one
/// message's (Zen 5: 232 against 144 ns), and callers may prefer hashing fewer messages.
pub(crate) fn parallel() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        avx512().is_some() && !scalar_single()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// One message being hashed: its bytes with the SHA-512 padding (a whole number of blocks) and
/// the chaining value after the blocks compressed so far. Both are wiped on drop (the KEMs hash
/// secrets).
pub(crate) struct Msg {
    h: [u64; 8],
    data: Vec<u8>,
    /// Message length in bytes (the padding starts here).
    len: usize,
    /// Blocks compressed.
    done: usize,
}

impl Msg {
    /// The padded concatenation of `parts`.
    pub(crate) fn new(parts: &[&[u8]]) -> Self {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        // 0x80, zeros, the 128-bit big-endian bit length: at least 17 bytes of padding
        let padded = (len + 17).div_ceil(BLOCK) * BLOCK;
        let mut data = Vec::with_capacity(padded);
        for p in parts {
            data.extend_from_slice(p);
        }
        data.push(0x80);
        data.resize(padded - 16, 0);
        data.extend_from_slice(&((len as u128) * 8).to_be_bytes());
        Msg {
            h: IV,
            data,
            len,
            done: 0,
        }
    }

    /// Number of blocks of the padded message.
    pub(crate) fn blocks(&self) -> usize {
        self.data.len() / BLOCK
    }

    /// Overwrites message bytes `offset ..` (not yet compressed, not padding): for a message
    /// whose tail is known only after its first blocks have been hashed.
    pub(crate) fn patch(&mut self, offset: usize, bytes: &[u8]) {
        assert!(offset >= self.done * BLOCK && offset + bytes.len() <= self.len);
        self.data[offset..offset + bytes.len()].copy_from_slice(bytes);
    }

    /// The digest (every block compressed).
    pub(crate) fn digest(&self) -> [u8; 64] {
        assert_eq!(self.done, self.blocks());
        let mut out = [0u8; 64];
        for (o, h) in out.chunks_exact_mut(8).zip(self.h.iter()) {
            o.copy_from_slice(&h.to_be_bytes());
        }
        out
    }

    /// The first 32 bytes of the digest.
    pub(crate) fn digest32(&self) -> [u8; 32] {
        let mut d = self.digest();
        let mut out = [0u8; 32];
        out.copy_from_slice(&d[..32]);
        wipe(&mut d);
        out
    }

    fn block(&self, i: usize) -> &[u8; BLOCK] {
        self.data[i * BLOCK..(i + 1) * BLOCK]
            .try_into()
            .expect("a whole block")
    }
}

impl Drop for Msg {
    fn drop(&mut self) {
        wipe(&mut self.h);
        wipe(&mut self.data);
    }
}

/// Whether a step of [`advance`] with one message left takes the scalar compression even where
/// the four-lane kernel runs: on AMD Zen 5 (see the module documentation).
#[cfg(target_arch = "x86_64")]
fn scalar_single() -> bool {
    crate::cpu::is_zen5()
}

/// Compresses blocks until message `i` has `until[i]` blocks done (capped at its length),
/// up to four messages per step.
pub(crate) fn advance(msgs: &mut [&mut Msg], until: &[usize]) {
    #[cfg(target_arch = "x86_64")]
    let single = scalar_single();
    #[cfg(not(target_arch = "x86_64"))]
    let single = true;
    advance_with(msgs, until, single)
}

/// [`advance`], a step with one message left taking the scalar compression where `single`
/// (the tests run both choices on every CPU with the four-lane kernel).
fn advance_with(msgs: &mut [&mut Msg], until: &[usize], single: bool) {
    assert!(msgs.len() == until.len() && msgs.len() <= 4);
    loop {
        let mut active = [usize::MAX; 4];
        let mut count = 0;
        for (i, (m, &u)) in msgs.iter().zip(until).enumerate() {
            if m.done < u.min(m.blocks()) {
                active[count] = i;
                count += 1;
            }
        }
        if count == 0 {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = avx512().filter(|_| count > 1 || !single) {
            let zero = [0u8; BLOCK];
            let mut states = [IV; 4];
            let mut blocks = [&zero; 4];
            for (k, &i) in active[..count].iter().enumerate() {
                states[k] = msgs[i].h;
                blocks[k] = msgs[i].block(msgs[i].done);
            }
            x86::compress4(t, &mut states, blocks);
            for (k, &i) in active[..count].iter().enumerate() {
                msgs[i].h = states[k];
                msgs[i].done += 1;
            }
            wipe(states.as_flattened_mut());
            continue;
        }
        // One message after the other, each to its target.
        for &i in &active[..count] {
            let m = &mut *msgs[i];
            let end = until[i].min(m.blocks());
            compress_blocks(&mut m.h, &m.data[m.done * BLOCK..end * BLOCK]);
            m.done = end;
        }
    }
}

/// The single-message kernel of this process: AVX2 + BMI1/BMI2 if the CPU runs them and
/// `LATPOLY_ISA` does not cap the backends below `avx2`.
#[cfg(target_arch = "x86_64")]
fn avx2_bmi() -> Option<x86::Avx2Bmi> {
    static B: std::sync::OnceLock<Option<x86::Avx2Bmi>> = std::sync::OnceLock::new();
    crate::isa::decided(&B, crate::Isa::Avx2, x86::Avx2Bmi::try_new)
}

/// Compressions of one message's chaining value with each block of `blocks` (a whole number
/// of blocks) in turn: [`x86::compress_pair`] on two blocks at a time and [`x86::compress1`] on
/// a last odd one where the CPU runs them, the `sha2` crate's compression otherwise.
fn compress_blocks(state: &mut [u64; 8], blocks: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = avx2_bmi() {
        let mut pairs = blocks.chunks_exact(2 * BLOCK);
        for p in &mut pairs {
            x86::compress_pair(t, state, p.try_into().expect("two whole blocks"));
        }
        if let Ok(last) = pairs.remainder().try_into() {
            x86::compress1(t, state, last);
        }
        return;
    }
    for b in blocks.chunks_exact(BLOCK) {
        let b = sha2::digest::generic_array::GenericArray::from_slice(b);
        sha2::compress512(state, core::slice::from_ref(b));
    }
}

/// Compresses every remaining block of every message (up to four at once).
pub(crate) fn finish(msgs: &mut [&mut Msg]) {
    let until = [usize::MAX; 4];
    advance(msgs, &until[..msgs.len()]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    use rand_chacha::ChaCha20Rng;
    use sha2::{Digest, Sha512};

    fn reference(m: &[u8]) -> [u8; 64] {
        Sha512::digest(m).into()
    }

    /// Four messages of different lengths per call, so lanes finish at different steps, with
    /// a last message's steps on the four-lane kernel and on the scalar compression (the
    /// choice of AMD Zen 5): the same chaining values either way.
    #[test]
    fn every_length_matches_the_sha2_crate() {
        let mut rng = ChaCha20Rng::seed_from_u64(512);
        let mut data = vec![0u8; 1100];
        rng.fill_bytes(&mut data);
        for single in [false, true] {
            for len in 0..=1100usize {
                let lens = [len, (len * 7) % 1101, 1100 - len, len / 3];
                let mut m: Vec<Msg> = lens.iter().map(|&l| Msg::new(&[&data[..l]])).collect();
                let [a, b, c, d] = &mut m[..] else {
                    unreachable!()
                };
                advance_with(&mut [a, b, c, d], &[usize::MAX; 4], single);
                for (msg, &l) in m.iter().zip(&lens) {
                    assert_eq!(msg.digest(), reference(&data[..l]), "length {l}");
                }
            }
        }
    }

    #[test]
    fn parts_padding_edges_and_patching() {
        // the padding boundaries: 111 / 112 bytes (one / two blocks), 239 / 240
        for len in [0usize, 1, 111, 112, 127, 128, 129, 239, 240, 255, 256] {
            let data: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
            let (x, y) = data.split_at(len / 2);
            let mut m = Msg::new(&[&[0xff], x, y]);
            assert_eq!(m.blocks(), (len + 1 + 17).div_ceil(128));
            finish(&mut [&mut m]);
            let mut full = vec![0xff];
            full.extend_from_slice(&data);
            assert_eq!(m.digest(), reference(&full), "length {len}");
            assert_eq!(m.digest32()[..], reference(&full)[..32]);
        }
        // a tail patched in after the first blocks are compressed
        let mut m = Msg::new(&[&[7u8; 300][..]]);
        advance(&mut [&mut m], &[2]);
        m.patch(260, &[9u8; 40]);
        finish(&mut [&mut m]);
        let mut want = vec![7u8; 260];
        want.extend_from_slice(&[9u8; 40]);
        assert_eq!(m.digest(), reference(&want));
    }

    #[test]
    fn all_zero_and_all_ones_blocks_in_all_lanes() {
        for byte in [0u8, 0xff] {
            let data = vec![byte; 1000];
            let mut m: Vec<Msg> = (0..4).map(|_| Msg::new(&[&data])).collect();
            let [a, b, c, d] = &mut m[..] else {
                unreachable!()
            };
            finish(&mut [a, b, c, d]);
            for msg in &m {
                assert_eq!(msg.digest(), reference(&data));
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn single_message_kernels_match_the_sha2_compression() {
        let Some(t) = x86::Avx2Bmi::try_new() else {
            eprintln!("skipped: this CPU has no AVX2 with BMI1/BMI2");
            return;
        };
        let mut rng = ChaCha20Rng::seed_from_u64(5121);
        let mut ones_after_zeros = [0u8; 256];
        ones_after_zeros[128..].fill(0xff);
        let mut cases: Vec<([u64; 8], [u8; 256])> = vec![
            ([0; 8], [0; 256]),
            ([!0; 8], [0xff; 256]),
            ([!0; 8], ones_after_zeros),
        ];
        for _ in 0..1000 {
            let mut s = [0u64; 8];
            s.iter_mut().for_each(|x| *x = rng.next_u64());
            let mut b = [0u8; 256];
            rng.fill_bytes(&mut b);
            cases.push((s, b));
        }
        for (state, blocks) in cases {
            let mut want = state;
            let mut one = state;
            let (first, second) = blocks.split_at(128);
            for b in [first, second] {
                let g = sha2::digest::generic_array::GenericArray::from_slice(b);
                sha2::compress512(&mut want, core::slice::from_ref(g));
                x86::compress1(t, &mut one, b.try_into().unwrap());
                assert_eq!(one, want, "one block");
            }
            let mut pair = state;
            x86::compress_pair(t, &mut pair, &blocks);
            assert_eq!(pair, want, "two blocks");
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn four_lane_kernel_matches_the_sha2_compression() {
        let Some(t) = crate::keccak::x86::Avx512Vl::try_new() else {
            eprintln!("skipped: this CPU has no AVX-512VL");
            return;
        };
        let mut rng = ChaCha20Rng::seed_from_u64(5124);
        for _ in 0..300 {
            let mut states = [[0u64; 8]; 4];
            let mut blocks = [[0u8; 128]; 4];
            for (s, b) in states.iter_mut().zip(blocks.iter_mut()) {
                s.iter_mut().for_each(|x| *x = rng.next_u64());
                rng.fill_bytes(b);
            }
            let mut want = states;
            for (s, b) in want.iter_mut().zip(blocks.iter()) {
                let g = sha2::digest::generic_array::GenericArray::from_slice(b);
                sha2::compress512(s, core::slice::from_ref(g));
            }
            x86::compress4(
                t,
                &mut states,
                [&blocks[0], &blocks[1], &blocks[2], &blocks[3]],
            );
            assert_eq!(states, want);
        }
    }
}
