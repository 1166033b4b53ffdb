//! Keccak-f\[1600\] and the two SHA-3 sponges the KEMs hash with (SHA3-256 for NTRU, SHAKE256
//! for NTRU+KEM), on a permutation chosen at run time.
//!
//! The KEMs spend most of their time hashing once the ring arithmetic is fast (measured with
//! `perf` on this project's Zen 5 machine: 65% of an NTRU+KEM576 decapsulation, 36% of an
//! ntruhps2048509 one, in the `keccak` crate's permutation). The sponges here are the plain
//! FIPS 202 construction (absorb at the rate, pad `d ‖ 0* ‖ 1`, squeeze) over:
//!
//! * [`x86::Avx512Vl`]: an AVX-512 (F + VL) permutation, one lane per register, `vpternlogq`
//!   for the three-input XORs and for χ, `vprolq` for ρ ([`x86`]);
//! * [`x86::Bmi`]: the `keccak` crate's portable permutation compiled with BMI1/BMI2 (`rorx`,
//!   `andn`), on CPUs without AVX-512VL (every x86-64 CPU with AVX2 has them), or when
//!   `LATPOLY_ISA` caps the backends below `avx512` (the Valgrind constant-time tests run with
//!   `LATPOLY_ISA=avx2`, which Valgrind can execute). Zen 4 host, one permutation: 297 ns,
//!   against 333 ns for the baseline x86-64 build of the same code and 260 ns for AVX-512VL;
//!   NTRU+KEM576 encapsulation / decapsulation with `LATPOLY_ISA=avx2` 5.03 / 5.05 -> 4.38 /
//!   4.40 µs;
//! * [`x86::Avx2`] for the paired permutation ([`f1600x2`]) without AVX-512VL: two states in
//!   the halves of `xmm` registers, 417 ns for both against 2 x 297 ns (Zen 4);
//! * the `keccak` crate's permutation as built otherwise (`LATPOLY_ISA=scalar`, other CPUs).
//!
//! All are checked against each other and the sponges against the `sha3` crate (the reference)
//! in the tests below.
//!
//! Measured (`examples/kem_bench.rs`, minimum of 12 runs alternating with the previous build,
//! which hashed with the `sha3` crate): NTRU+KEM keypair / encapsulation / decapsulation 8-21%
//! faster (576: 4.3 / 4.8 / 4.9 -> 3.4 / 4.1 / 4.1 µs), NTRU decapsulation 3-8% (with the
//! paired sponge). Most of it is the sponge itself (the `sha3` crate's buffered absorb and XOF
//! reader cost more than the permutation for these short inputs): this AVX-512 permutation
//! alone is only 2-6% faster than the `keccak` crate's (Zen 5: ~250 ns, ~37 cycles a round,
//! where the ~120 vector instructions of a round would issue in ~30; simple vector operations
//! have two cycles of latency on this core), but the paired form costs the same for two states. Everything is constant time in the data: the only branches are on
//! lengths, which are public in every use.

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

use zeroize::Zeroize;

/// SHA3-256's rate in bytes.
const RATE_SHA3_256: usize = 136;
/// SHAKE256's rate in bytes.
const RATE_SHAKE256: usize = 136;

/// The permutation backend of this process: AVX-512VL if the CPU runs it and `LATPOLY_ISA`
/// does not cap the backends below `avx512`.
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx512() -> Option<x86::Avx512Vl> {
    static B: std::sync::OnceLock<Option<x86::Avx512Vl>> = std::sync::OnceLock::new();
    crate::isa::decided(&B, crate::Isa::Avx512, x86::Avx512Vl::try_new)
}

/// The scalar permutation backend of this process when there is no AVX-512VL one: the
/// portable permutation compiled with BMI1/BMI2 if the CPU runs them and `LATPOLY_ISA` does not
/// cap the backends below `avx2`.
#[cfg(target_arch = "x86_64")]
pub(crate) fn bmi() -> Option<x86::Bmi> {
    static B: std::sync::OnceLock<Option<x86::Bmi>> = std::sync::OnceLock::new();
    crate::isa::decided(&B, crate::Isa::Avx2, x86::Bmi::try_new)
}

/// The paired permutation of this process when there is no AVX-512VL one: AVX2 if the CPU
/// runs it and `LATPOLY_ISA` does not cap the backends below `avx2`.
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx2() -> Option<x86::Avx2> {
    static B: std::sync::OnceLock<Option<x86::Avx2>> = std::sync::OnceLock::new();
    crate::isa::decided(&B, crate::Isa::Avx2, x86::Avx2::try_new)
}

/// Keccak-f\[1600\] on `state` (lane `x + 5 y` at index `x + 5 y`, as FIPS 202 and the `keccak`
/// crate lay it out).
#[inline]
pub(crate) fn f1600(state: &mut [u64; 25]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = avx512() {
        return t.f1600(state);
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = bmi() {
        return t.f1600(state);
    }
    keccak::f1600(state)
}

/// Keccak-f\[1600\] on two independent states: one permutation's time with AVX-512VL (the two
/// states share the registers), two permutations otherwise.
#[inline]
pub(crate) fn f1600x2(a: &mut [u64; 25], b: &mut [u64; 25]) {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = avx512() {
        return t.f1600x2(a, b);
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = avx2() {
        return t.f1600x2(a, b);
    }
    f1600(a);
    f1600(b);
}

/// The concatenation of `parts`, consumed front to back.
struct Input<'a> {
    parts: &'a [&'a [u8]],
    cur: &'a [u8],
}

impl<'a> Input<'a> {
    fn new(parts: &'a [&'a [u8]]) -> Self {
        Input { parts, cur: &[] }
    }

    /// The unconsumed rest of the current part (empty only at the end of the input).
    fn current(&mut self) -> &'a [u8] {
        while self.cur.is_empty() {
            match self.parts.split_first() {
                Some((first, rest)) => {
                    self.cur = first;
                    self.parts = rest;
                }
                None => break,
            }
        }
        self.cur
    }
}

/// A Keccak sponge of rate `rate` bytes and domain-separation byte `ds` (`0x06` for SHA3,
/// `0x1f` for SHAKE). The state is zeroed when dropped (it holds hashes of secrets).
struct Sponge {
    s: [u64; 25],
    rate: usize,
    ds: u8,
    /// Bytes absorbed into the current block.
    pos: usize,
}

impl Sponge {
    fn new(rate: usize, ds: u8) -> Self {
        Sponge {
            s: [0; 25],
            rate,
            ds,
            pos: 0,
        }
    }

    #[inline]
    fn xor_byte(&mut self, i: usize, b: u8) {
        self.s[i / 8] ^= u64::from(b) << (8 * (i % 8));
    }

    /// Absorbs from `input` until the block is full (true: the caller permutes and calls
    /// [`Sponge::next_block`]) or the input is exhausted (false).
    fn fill(&mut self, input: &mut Input<'_>) -> bool {
        while self.pos < self.rate {
            let data = input.current();
            if data.is_empty() {
                return false;
            }
            let used = if self.pos.is_multiple_of(8) && data.len() >= 8 {
                // whole words while both the input and the block are word aligned
                let words = ((self.rate - self.pos) / 8).min(data.len() / 8);
                for (k, w) in data[..8 * words].chunks_exact(8).enumerate() {
                    let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
                    self.s[self.pos / 8 + k] ^= w;
                }
                8 * words
            } else {
                self.xor_byte(self.pos, data[0]);
                1
            };
            self.pos += used;
            input.cur = &data[used..];
        }
        true
    }

    /// After the permutation of a full block.
    fn next_block(&mut self) {
        self.pos = 0;
    }

    /// Absorbs all of `input`.
    fn absorb(&mut self, input: &mut Input<'_>) {
        while self.fill(input) {
            f1600(&mut self.s);
            self.next_block();
        }
    }

    /// Appends the padding `ds ‖ 0* ‖ 1` to the absorbed input (a permutation follows).
    fn pad(&mut self) {
        self.xor_byte(self.pos, self.ds);
        self.xor_byte(self.rate - 1, 0x80);
    }

    /// Copies the first `out.len()` (at most `rate`) bytes of the state into `out`.
    fn read(&self, out: &mut [u8]) {
        // whole words first (fixed-size copies; a variable-length copy per word calls memcpy)
        let k = (out.len() / 8).min(24);
        let mut words = out.chunks_exact_mut(8);
        for (o, w) in (&mut words).zip(&self.s) {
            o.copy_from_slice(&w.to_le_bytes());
        }
        let tail = words.into_remainder();
        tail.copy_from_slice(&self.s[k].to_le_bytes()[..tail.len()]);
    }

    /// Squeezes `out.len()` bytes from a padded and permuted state.
    fn squeeze(&mut self, out: &mut [u8]) {
        let mut chunks = out.chunks_mut(self.rate).peekable();
        while let Some(chunk) = chunks.next() {
            self.read(chunk);
            if chunks.peek().is_some() {
                f1600(&mut self.s);
            }
        }
    }
}

/// Permutes `a` if `pa`, `b` if `pb`: one [`f1600x2`] when both do.
fn permute_either(a: &mut Sponge, pa: bool, b: &mut Sponge, pb: bool) {
    match (pa, pb) {
        (true, true) => f1600x2(&mut a.s, &mut b.s),
        (true, false) => f1600(&mut a.s),
        (false, true) => f1600(&mut b.s),
        (false, false) => {}
    }
}

/// Absorbs `ia` into `ha` and `ib` into `hb` in lockstep (while both have a block to permute
/// they share one [`f1600x2`]), pads both and runs the permutation after the padding.
fn absorb_pad_x2(ha: &mut Sponge, ia: &mut Input<'_>, hb: &mut Sponge, ib: &mut Input<'_>) {
    loop {
        let (fa, fb) = (ha.fill(ia), hb.fill(ib));
        if !fa && !fb {
            break;
        }
        permute_either(ha, fa, hb, fb);
        if fa {
            ha.next_block();
        }
        if fb {
            hb.next_block();
        }
    }
    ha.pad();
    hb.pad();
    f1600x2(&mut ha.s, &mut hb.s);
}

/// Squeezes `oa` from `ha` and `ob` from `hb` (both padded and permuted) in lockstep.
fn squeeze_x2(ha: &mut Sponge, oa: &mut [u8], hb: &mut Sponge, ob: &mut [u8]) {
    let mut ca = oa.chunks_mut(ha.rate).peekable();
    let mut cb = ob.chunks_mut(hb.rate).peekable();
    loop {
        let (a, b) = (ca.next(), cb.next());
        if a.is_none() && b.is_none() {
            break;
        }
        if let Some(chunk) = a {
            ha.read(chunk);
        }
        if let Some(chunk) = b {
            hb.read(chunk);
        }
        let (pa, pb) = (ca.peek().is_some(), cb.peek().is_some());
        permute_either(ha, pa, hb, pb);
    }
}

impl Drop for Sponge {
    fn drop(&mut self) {
        self.s.zeroize();
    }
}

/// `SHA3-256(parts[0] ‖ parts[1] ‖ ..)`.
pub(crate) fn sha3_256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sponge::new(RATE_SHA3_256, 0x06);
    h.absorb(&mut Input::new(parts));
    h.pad();
    f1600(&mut h.s);
    let mut out = [0u8; 32];
    h.squeeze(&mut out);
    out
}

/// `(SHA3-256(a[0] ‖ a[1] ‖ ..), SHA3-256(b[0] ‖ b[1] ‖ ..))`, the two sponges in lockstep:
/// while both have a block to permute they share one [`f1600x2`] (an NTRU decapsulation hashes
/// its session-key input and its rejection-key input this way).
pub(crate) fn sha3_256_x2(a: &[&[u8]], b: &[&[u8]]) -> ([u8; 32], [u8; 32]) {
    let mut ha = Sponge::new(RATE_SHA3_256, 0x06);
    let mut hb = Sponge::new(RATE_SHA3_256, 0x06);
    absorb_pad_x2(&mut ha, &mut Input::new(a), &mut hb, &mut Input::new(b));
    let (mut oa, mut ob) = ([0u8; 32], [0u8; 32]);
    ha.read(&mut oa);
    hb.read(&mut ob);
    (oa, ob)
}

/// `SHAKE256(parts[0] ‖ parts[1] ‖ ..)`, `out.len()` bytes of it, into `out`.
pub(crate) fn shake256(parts: &[&[u8]], out: &mut [u8]) {
    let mut h = Sponge::new(RATE_SHAKE256, 0x1f);
    h.absorb(&mut Input::new(parts));
    h.pad();
    f1600(&mut h.s);
    h.squeeze(out);
}

/// `SHAKE256(a[0] ‖ a[1] ‖ ..)` into `oa` and `SHAKE256(b[0] ‖ b[1] ‖ ..)` into `ob`, the two
/// sponges in lockstep (see [`sha3_256_x2`]): NTRU+ key generation expands its two seeds this
/// way.
pub(crate) fn shake256_x2(a: &[&[u8]], oa: &mut [u8], b: &[&[u8]], ob: &mut [u8]) {
    let mut ha = Sponge::new(RATE_SHAKE256, 0x1f);
    let mut hb = Sponge::new(RATE_SHAKE256, 0x1f);
    absorb_pad_x2(&mut ha, &mut Input::new(a), &mut hb, &mut Input::new(b));
    squeeze_x2(&mut ha, oa, &mut hb, ob);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, RngCore, SeedableRng};
    use rand_chacha::ChaCha20Rng;
    use sha3::digest::{ExtendableOutput, Update, XofReader};
    use sha3::{Digest, Sha3_256, Shake256};

    /// `perm` against the `keccak` crate on the all-zero, all-one and top-bit states and 200
    /// random ones.
    #[cfg(target_arch = "x86_64")]
    fn matches_the_keccak_crate(perm: impl Fn(&mut [u64; 25]), seed: u64) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let mut states: Vec<[u64; 25]> = vec![[0; 25], [u64::MAX; 25]];
        let mut one = [0u64; 25];
        one[24] = 1 << 63;
        states.push(one);
        for _ in 0..200 {
            let mut s = [0u64; 25];
            s.iter_mut().for_each(|x| *x = rng.next_u64());
            states.push(s);
        }
        for s in states {
            let (mut a, mut b) = (s, s);
            perm(&mut a);
            keccak::f1600(&mut b);
            assert_eq!(a, b, "input {s:x?}");
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn bmi_permutation_matches_the_keccak_crate() {
        let Some(t) = x86::Bmi::try_new() else {
            eprintln!("skipped: this CPU has no BMI1/BMI2");
            return;
        };
        matches_the_keccak_crate(|s| t.f1600(s), 1601);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_permutation_matches_the_keccak_crate() {
        let Some(t) = x86::Avx512Vl::try_new() else {
            eprintln!("skipped: this CPU has no AVX-512VL");
            return;
        };
        matches_the_keccak_crate(|s| t.f1600(s), 1600);
    }

    #[test]
    fn known_answers() {
        // FIPS 202 examples: SHA3-256("") and SHAKE256("") (first 32 bytes).
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        assert_eq!(
            hex(&sha3_256(&[])),
            "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a"
        );
        let mut out = [0u8; 32];
        shake256(&[b""], &mut out);
        assert_eq!(
            hex(&out),
            "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f"
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_paired_permutation_matches_two_single_ones() {
        let Some(t) = x86::Avx512Vl::try_new() else {
            eprintln!("skipped: this CPU has no AVX-512VL");
            return;
        };
        let mut rng = ChaCha20Rng::seed_from_u64(16002);
        for _ in 0..100 {
            let mut a = [0u64; 25];
            let mut b = [0u64; 25];
            a.iter_mut().for_each(|x| *x = rng.next_u64());
            b.iter_mut().for_each(|x| *x = rng.next_u64());
            let (mut a2, mut b2) = (a, b);
            t.f1600x2(&mut a2, &mut b2);
            keccak::f1600(&mut a);
            keccak::f1600(&mut b);
            assert_eq!((a2, b2), (a, b));
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_paired_permutation_matches_two_single_ones() {
        let Some(t) = x86::Avx2::try_new() else {
            eprintln!("skipped: this CPU has no AVX2");
            return;
        };
        let mut rng = ChaCha20Rng::seed_from_u64(16003);
        // all-zero, all-one and single-bit states (every rotation amount moves a set bit), then
        // random ones; different states in the two halves
        let mut states: Vec<[u64; 25]> = vec![[0; 25], [u64::MAX; 25]];
        for bit in 0..64 {
            states.push([1u64 << bit; 25]);
        }
        for _ in 0..100 {
            let mut a = [0u64; 25];
            a.iter_mut().for_each(|x| *x = rng.next_u64());
            states.push(a);
        }
        for (i, &a) in states.iter().enumerate() {
            let b = states[(i + 7) % states.len()];
            let (mut a2, mut b2) = (a, b);
            t.f1600x2(&mut a2, &mut b2);
            let (mut a1, mut b1) = (a, b);
            keccak::f1600(&mut a1);
            keccak::f1600(&mut b1);
            assert_eq!((a2, b2), (a1, b1), "states {i}, {}", (i + 7) % states.len());
        }
    }

    /// Paired hashing against the `sha3` crate for every pair of block counts up to 8 (lengths
    /// at, just below and just above the block boundaries), the messages split into parts.
    #[test]
    fn paired_sha3_256_matches_the_sha3_crate() {
        let mut rng = ChaCha20Rng::seed_from_u64(2562);
        let lens: Vec<usize> = (0..8)
            .flat_map(|k| [136 * k, 136 * k + 1, (136 * k + 135).max(1) - 1])
            .collect();
        for &la in &lens {
            for &lb in &lens {
                let mut a = vec![0u8; la];
                let mut b = vec![0u8; lb];
                rng.fill_bytes(&mut a);
                rng.fill_bytes(&mut b);
                let ca = rng.gen_range(0..=la);
                let (a1, a2) = a.split_at(ca);
                let got = sha3_256_x2(&[a1, &[], a2], &[&b]);
                let want: ([u8; 32], [u8; 32]) =
                    (Sha3_256::digest(&a).into(), Sha3_256::digest(&b).into());
                assert_eq!(got, want, "lengths {la}, {lb}");
            }
        }
    }

    /// The paired SHAKE256 on input and output lengths around block boundaries (either sponge
    /// may need more permutations than the other while absorbing or squeezing).
    #[test]
    fn paired_shake256_matches_the_sha3_crate() {
        let mut rng = ChaCha20Rng::seed_from_u64(2561);
        let lens = [0usize, 1, 32, 135, 136, 137, 300, 865];
        let outs = [0usize, 1, 136, 137, 144, 288, 500];
        for &la in &lens {
            for &lb in &lens {
                let (oa_len, ob_len) = (outs[rng.gen_range(0..7)], outs[rng.gen_range(0..7)]);
                let mut a = vec![0u8; la];
                let mut b = vec![0u8; lb];
                rng.fill_bytes(&mut a);
                rng.fill_bytes(&mut b);
                let cb = rng.gen_range(0..=lb);
                let (b1, b2) = b.split_at(cb);
                let (mut oa, mut ob) = (vec![0u8; oa_len], vec![0u8; ob_len]);
                shake256_x2(&[&a], &mut oa, &[b1, b2], &mut ob);
                let xof = |m: &[u8], len: usize| {
                    let mut h = Shake256::default();
                    h.update(m);
                    let mut out = vec![0u8; len];
                    h.finalize_xof().read(&mut out);
                    out
                };
                assert_eq!(oa, xof(&a, oa_len), "lengths {la}, {lb} -> {oa_len}");
                assert_eq!(ob, xof(&b, ob_len), "lengths {la}, {lb} -> {ob_len}");
            }
        }
    }

    /// Every message length across several blocks, split into parts at random points, and
    /// SHAKE outputs across several blocks, against the `sha3` crate.
    #[test]
    fn sponges_match_the_sha3_crate() {
        let mut rng = ChaCha20Rng::seed_from_u64(202);
        for len in 0..700usize {
            let mut msg = vec![0u8; len];
            rng.fill_bytes(&mut msg);
            let cut1 = rng.gen_range(0..=len);
            let cut2 = rng.gen_range(cut1..=len);
            let parts: [&[u8]; 3] = [&msg[..cut1], &msg[cut1..cut2], &msg[cut2..]];
            let want: [u8; 32] = Sha3_256::digest(&msg).into();
            assert_eq!(sha3_256(&parts), want, "SHA3-256, length {len}");
            let out_len = [0, 1, 31, 32, 135, 136, 137, 176, 300, 545][len % 10];
            let mut got = vec![0u8; out_len];
            shake256(&parts, &mut got);
            let mut want = vec![0u8; out_len];
            let mut x = Shake256::default();
            x.update(&msg);
            x.finalize_xof().read(&mut want);
            assert_eq!(got, want, "SHAKE256, length {len}, output {out_len}");
        }
    }
}
