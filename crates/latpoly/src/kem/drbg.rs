//! The NIST AES-256 CTR DRBG of the KAT generator (`rng.c` of the NIST submission packages:
//! no derivation function, no prediction resistance), for reproducing known-answer tests only.
//! **Not** a general-purpose random generator: use [`crate::sampling::Sampler`] or the OS.
//!
//! State: key `K` (32 bytes), counter `V` (16 bytes, big-endian). `Update(data)`: three times
//! `V += 1; T_i = AES-256_K(V)`, `T = T_1 || T_2 || T_3` XOR `data`, `K = T[0..32]`,
//! `V = T[32..48]`. `randombytes(n)`: blocks `AES_K(++V)` truncated to `n` bytes, then one
//! `Update(none)` per call — so how a scheme splits its calls changes the output.
//!
//! ```
//! use latpoly::kem::drbg::KatDrbg;
//! let entropy: [u8; 48] = core::array::from_fn(|i| i as u8);
//! let mut d = KatDrbg::new(&entropy);
//! let seed0 = d.random_bytes(48);
//! assert_eq!(seed0[..4], [0x06, 0x15, 0x50, 0x23]); // count = 0 seed of every NIST KAT
//! ```

use aes::cipher::{BlockEncrypt, KeyInit};
use aes::Aes256;
use zeroize::Zeroize;

/// The KAT DRBG state.
///
/// ```
/// use latpoly::kem::drbg::KatDrbg;
///
/// // PQCgenKAT_kem.c: randombytes_init(entropy = 0, 1, ..., 47), then the first seed.
/// let entropy: [u8; 48] = core::array::from_fn(|i| i as u8);
/// let mut d = KatDrbg::new(&entropy);
/// let seed: String = d.random_bytes(48).iter().map(|b| format!("{b:02X}")).collect();
/// assert_eq!(
///     seed,
///     "061550234D158C5EC95595FE04EF7A25767F2E24CC2BC479D09D86DC9ABCFDE7056A8C266F9EF97ED08541DBD2E1FFA1"
/// );
/// ```
#[derive(Clone)]
pub struct KatDrbg {
    key: [u8; 32],
    v: [u8; 16],
    reseed_counter: u64,
}

impl core::fmt::Debug for KatDrbg {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("KatDrbg { .. }")
    }
}

impl Drop for KatDrbg {
    fn drop(&mut self) {
        self.key.zeroize();
        self.v.zeroize();
    }
}

fn increment(v: &mut [u8; 16]) {
    for b in v.iter_mut().rev() {
        let (r, carry) = b.overflowing_add(1);
        *b = r;
        if !carry {
            break;
        }
    }
}

impl KatDrbg {
    /// `randombytes_init(entropy_input, NULL, 256)`.
    ///
    /// ```
    /// use latpoly::kem::drbg::KatDrbg;
    ///
    /// // Re-seeding with the count = 0 seed of the NIST KAT files, as the generator does per record.
    /// let seed0: [u8; 48] = latpoly::kem::kat::seeds(1)[0];
    /// let mut d = KatDrbg::new(&seed0);
    /// assert_eq!(d.random_bytes(4), [0x7C, 0x99, 0x35, 0xA0]);
    /// // Same entropy, same stream; different entropy, different stream.
    /// assert_eq!(KatDrbg::new(&[9; 48]).random_bytes(16), KatDrbg::new(&[9; 48]).random_bytes(16));
    /// assert_ne!(KatDrbg::new(&[9; 48]).random_bytes(16), KatDrbg::new(&[8; 48]).random_bytes(16));
    /// ```
    pub fn new(entropy: &[u8; 48]) -> KatDrbg {
        let mut d = KatDrbg {
            key: [0; 32],
            v: [0; 16],
            reseed_counter: 0,
        };
        d.update(Some(entropy));
        d.reseed_counter = 1;
        d
    }

    /// `AES_K(v)` into `out`, in place (no copy of the output block is left behind; the
    /// cipher's round keys are wiped on drop by the `aes` crate's `zeroize` feature).
    fn block(&self, v: &[u8; 16], out: &mut [u8]) {
        let cipher = Aes256::new((&self.key).into());
        out.copy_from_slice(v);
        cipher.encrypt_block(aes::Block::from_mut_slice(out));
    }

    fn update(&mut self, data: Option<&[u8; 48]>) {
        let mut t = [0u8; 48];
        for i in 0..3 {
            increment(&mut self.v);
            self.block(&self.v, &mut t[16 * i..16 * (i + 1)]);
        }
        if let Some(d) = data {
            for (x, y) in t.iter_mut().zip(d) {
                *x ^= y;
            }
        }
        self.key.copy_from_slice(&t[..32]);
        self.v.copy_from_slice(&t[32..]);
        t.zeroize();
    }

    /// `randombytes(out, n)`: fills `out`, then updates the state (once per call).
    ///
    /// ```
    /// use latpoly::kem::drbg::KatDrbg;
    ///
    /// // The state update after every call means that how the output is split matters.
    /// let (mut a, mut b) = (KatDrbg::new(&[7; 48]), KatDrbg::new(&[7; 48]));
    /// let mut one = [0u8; 8];
    /// a.fill(&mut one);
    /// let (mut first, mut second) = ([0u8; 4], [0u8; 4]);
    /// b.fill(&mut first);
    /// b.fill(&mut second);
    /// assert_eq!(one[..4], first);
    /// assert_ne!(one[4..], second);
    /// ```
    pub fn fill(&mut self, out: &mut [u8]) {
        let mut b = [0u8; 16];
        for chunk in out.chunks_mut(16) {
            increment(&mut self.v);
            self.block(&self.v, &mut b);
            chunk.copy_from_slice(&b[..chunk.len()]);
        }
        b.zeroize();
        self.update(None);
        self.reseed_counter += 1;
    }

    /// `randombytes(n)` as a vector.
    ///
    /// ```
    /// use latpoly::kem::drbg::KatDrbg;
    ///
    /// let entropy: [u8; 48] = core::array::from_fn(|i| i as u8);
    /// let mut d = KatDrbg::new(&entropy);
    /// let seeds = [d.random_bytes(48), d.random_bytes(48)]; // count = 0 and count = 1
    /// assert_eq!(seeds[0][..4], [0x06, 0x15, 0x50, 0x23]);
    /// assert_eq!(seeds[1][..4], [0xD8, 0x1C, 0x4D, 0x8D]);
    /// ```
    pub fn random_bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0u8; n];
        self.fill(&mut v);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Known outputs from shared/kat/PARAMS.md §0 (verified there against the KAT files).
    #[test]
    fn kat_seeds_and_outputs() {
        let entropy: [u8; 48] = core::array::from_fn(|i| i as u8);
        let mut d = KatDrbg::new(&entropy);
        let seeds: Vec<Vec<u8>> = (0..3).map(|_| d.random_bytes(48)).collect();
        assert_eq!(seeds[0], hex("061550234D158C5EC95595FE04EF7A25767F2E24CC2BC479D09D86DC9ABCFDE7056A8C266F9EF97ED08541DBD2E1FFA1"));
        assert_eq!(seeds[1], hex("D81C4D8D734FCBFBEADE3D3F8A039FAA2A2C9957E835AD55B22E75BF57BB556AC81ADDE6AEEB4A5A875C3BFCADFA958F"));
        assert_eq!(seeds[2], hex("64335BF29E5DE62842C941766BA129B0643B5E7121CA26CFC190EC7DC3543830557FDD5C03CF123A456D48EFEA43C868"));
        let s0: [u8; 48] = seeds[0].clone().try_into().unwrap();
        let mut k = KatDrbg::new(&s0);
        assert_eq!(
            k.random_bytes(32),
            hex("7C9935A0B07694AA0C6D10E4DB6B1ADD2FD81A25CCB148032DCD739936737F2D")
        );
        assert_eq!(
            k.random_bytes(32),
            hex("8626ED79D451140800E03B59B956F8210E556067407D13DC90FA9E8B872BFB8F")
        );
    }

    #[test]
    fn call_split_changes_output() {
        let e = [7u8; 48];
        let (mut a, mut b) = (KatDrbg::new(&e), KatDrbg::new(&e));
        let one = a.random_bytes(8);
        let mut two = b.random_bytes(4);
        two.extend(b.random_bytes(4));
        assert_eq!(one[..4], two[..4]);
        assert_ne!(one[4..], two[4..]);
    }
}
