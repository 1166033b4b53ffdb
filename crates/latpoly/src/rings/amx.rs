//! Cyclic convolutions of byte polynomials on Intel AMX (AMX-TILE and AMX-INT8), on CPUs with
//! tile registers (Sapphire Rapids and later Xeons): the NTRU KEMs' byte-sized products
//! (`ntru/amx.rs`).
//!
//! `tdpbusd` multiplies a 16 x 64 tile of unsigned bytes by a 64 x 16 tile of signed bytes and
//! adds the result to a 16 x 16 tile of 32-bit sums: 16,384 multiply-adds per instruction, one
//! every 16 cycles in a steady stream (5.3 ns on the Intel Xeon host of the fifty-first
//! session, against 64 for each AVX-512 `vpdpbusd`, two a cycle). A cyclic convolution becomes
//! such a matrix product: with outputs in blocks of 16, `k = 16 r + m`,
//!
//! ```text
//! c_(16 r + m) = sum_(j mod n) a_(16 r - j) b_(m + j)        (indices mod n)
//! ```
//!
//! so `C[r][m] = sum_j A[r][j] B[j][m]` with `A[r][j] = a_(16 r - j)` and `B[j][m] = b_(m + j)`.
//!
//! - **`B` tiles** (`64 j x 16 m`, four consecutive `j` per 32-bit element): row `g` of the
//!   window array holds `b_(4 g + m + t)` at byte `4 m + t`, built with one `vpermb` each (as
//!   `ntru/vnni.rs`'s windows), zero where `j = 4 g + t >= n`; a tile is 16 consecutive rows,
//!   loaded with stride 64.
//! - **`A` tiles** (`16 r x 64 j`): row `r` of a tile is 64 bytes of `ã_t = a_(-t)` starting at
//!   `t = 16 (4 jb - r)`, so consecutive rows start 16 bytes apart. A *bank* holds each such
//!   64-byte row once, 64-byte aligned, in order of its start; a tile is 16 banked rows read
//!   with stride `-64`. (Tile loads of rows 16 bytes apart straight from `ã` are unaligned and
//!   took ~11 ns a tile here against ~2.5 ns aligned: more than the `tdpbusd` they feed.)
//!
//! Inside the KEMs, between hashing and packing, the tile unit runs far below its steady rate:
//! `perf` of an ntruhps2048677 decapsulation puts ~17 ns on each of the `S_3` product's 33
//! `tdpbusd` (a warm-up after idle, as for wide vector units). That is why only single byte
//! products use it (see `ntru/amx.rs`).
//!
//! Every tile visited, every address and every instruction depends on the degree alone, never
//! on coefficient values. Intel does not list the AMX instructions among those it documents
//! as data-operand-independent in timing; they run in fixed sequences here, as the VNNI and
//! integer vector instructions do elsewhere in this crate. (Valgrind cannot run AMX; the
//! constant-time tests run the KEMs under `LATPOLY_ISA=avx2`.)
//!
//! Tile state: each convolution configures five tiles (`ldtilecfg`: 16 rows of 64 bytes, the
//! last row tile's two with only the rows below `n`) and releases them (`tilerelease`) before
//! it returns, so no tile state stays live
//! between calls (and a caller's own tile state would not survive a call). Linux grants a
//! process the tile data state on request (`arch_prctl(ARCH_REQ_XCOMP_PERM,
//! XFEATURE_XTILEDATA)`): [`Amx::try_new`] asks once per process, and reports no AMX when the
//! kernel refuses (or on other operating systems).

#![allow(unsafe_code)]

use core::arch::asm;
use core::arch::x86_64::*;
use std::sync::OnceLock;

/// Proof that the CPU runs AMX-TILE and AMX-INT8 (palette 1 with eight tiles of 16 rows of 64
/// bytes), AVX-512 F, BW and VBMI (the layout builders), and that the operating system lets
/// this process use the tile registers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Amx(());

impl Amx {
    pub(crate) fn try_new() -> Option<Self> {
        static OK: OnceLock<bool> = OnceLock::new();
        OK.get_or_init(detect).then_some(Amx(()))
    }
}

fn detect() -> bool {
    if !(is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vbmi"))
    {
        return false;
    }
    if __cpuid(0).eax < 0x1d {
        return false;
    }
    // leaf 7: EDX bit 24 AMX-TILE, bit 25 AMX-INT8
    let l7 = __cpuid_count(7, 0);
    if (l7.edx >> 24) & 1 == 0 || (l7.edx >> 25) & 1 == 0 {
        return false;
    }
    // leaf 0x1d, palette 1: bytes per row, tile names, maximum rows
    let p = __cpuid_count(0x1d, 1);
    if p.ebx & 0xffff < 64 || p.ebx >> 16 < 8 || p.ecx & 0xffff < 16 {
        return false;
    }
    request_tile_data()
}

/// Asks Linux for the tile data state (once per process; permanent).
#[cfg(target_os = "linux")]
fn request_tile_data() -> bool {
    const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
    const XFEATURE_XTILEDATA: libc::c_long = 18;
    // SAFETY: this `arch_prctl` request only extends the set of register states the kernel
    // saves for this process; it reads and writes no memory of ours.
    unsafe {
        libc::syscall(
            libc::SYS_arch_prctl,
            ARCH_REQ_XCOMP_PERM,
            XFEATURE_XTILEDATA,
        ) == 0
    }
}

#[cfg(not(target_os = "linux"))]
fn request_tile_data() -> bool {
    false
}

/// The geometry of a cyclic convolution of two `n`-coefficient byte polynomials: row tiles of
/// output, `j` blocks, the bank of `A` rows.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    n: usize,
    /// Row tiles: outputs `0 .. 256 rb`.
    rb: usize,
    /// `j` blocks of 64: `0 .. jb`.
    jb: usize,
    /// Banked rows `U` in `u_min .. u_min + nu`, `u_min = 1 - 16 rb`: row `U` is
    /// `ã_(16 U .. 16 U + 64)`.
    nu: usize,
}

impl Shape {
    /// Cyclic convolution: `c_k = sum_i a_i b_((k - i) mod n)`, `k < n` (see
    /// [`Amx::convolve`] for the outputs past `n`).
    pub(crate) fn cyclic(n: usize) -> Self {
        assert!(n >= 1);
        let (rb, jb) = (n.div_ceil(256), n.div_ceil(64));
        // row (r tile, j block, ρ) is U = 4 j - 16 r - ρ, from 1 - 16 rb to 4 (jb - 1)
        Shape {
            n,
            rb,
            jb,
            nu: 4 * (jb - 1) + 16 * rb,
        }
    }

    /// 32-bit sums: `256 rb` (those of the output blocks below `n` written, the rest left).
    pub(crate) fn outputs(&self) -> usize {
        256 * self.rb
    }

    /// Bytes of an operand's bank.
    pub(crate) fn bank_len(&self) -> usize {
        64 * self.nu
    }

    /// Bytes of an operand's windows.
    pub(crate) fn windows_len(&self) -> usize {
        1024 * self.jb
    }

    /// Bytes of the scratch the builders extend an operand into.
    pub(crate) fn ext_len(&self) -> usize {
        (16 * (self.nu - 1) + 64).max(64 * self.jb + 64)
    }
}

/// Output blocks of 16 that hold the `n` outputs.
fn n_blocks(n: usize) -> usize {
    n.div_ceil(16)
}

/// Writes `src` cyclically extended over positions `off .. off + dst.len()` into `dst`
/// (`dst[i] = src[(off + i) mod len]`).
fn extend(src: &[u8], off: isize, dst: &mut [u8]) {
    let mut p = off.rem_euclid(src.len() as isize) as usize;
    let mut s = 0;
    while s < dst.len() {
        let run = (src.len() - p).min(dst.len() - s);
        dst[s..s + run].copy_from_slice(&src[p..p + run]);
        s += run;
        p = 0;
    }
}

impl Amx {
    /// The bank of operand `a` (unsigned bytes, given reversed: `rev[k] = a_(n - 1 - k)`):
    /// `bank[64 (U - u_min) + c] = ã_(16 U + c)` with `ã_t = a_(-t mod n)`. `ext` is scratch of
    /// [`Shape::ext_len`] bytes.
    pub(crate) fn bank(self, s: &Shape, rev: &[u8], ext: &mut [u8], bank: &mut [u8]) {
        assert_eq!(rev.len(), s.n);
        let span = 16 * (s.nu - 1) + 64;
        // ã_t = rev[(t - 1) mod n], t = 16 u_min + index
        extend(rev, 16 * (1 - 16 * s.rb as isize) - 1, &mut ext[..span]);
        // SAFETY: the token proves AVX-512F.
        unsafe { tf_bank_rows(&ext[..span], &mut bank[..s.bank_len()]) }
    }

    /// The windows of operand `b` (signed bytes, `n` of them): row `g` holds `b_(4 g + m + t)`
    /// (indices mod `n`) at byte `4 m + t`, zero where `j = 4 g + t >= n`. `ext` is scratch of
    /// [`Shape::ext_len`] bytes.
    pub(crate) fn windows(self, s: &Shape, b: &[u8], ext: &mut [u8], win: &mut [u8]) {
        assert_eq!(b.len(), s.n);
        let span = 64 * s.jb + 64;
        extend(b, 0, &mut ext[..span]);
        // SAFETY: the token proves AVX-512F, BW and VBMI.
        unsafe { tf_windows(s, &ext[..span], &mut win[..s.windows_len()]) }
    }

    /// The cyclic convolution of the operands of the bank `a` and the windows `b` into the
    /// 32-bit sums `sums` (little-endian bytes, [`Shape::outputs`] sums; output `k` at bytes
    /// `4 k` for `k < 16 ⌈n / 16⌉`, outputs `n ..` repeating the first ones; the sums past
    /// those blocks are left as they were).
    pub(crate) fn convolve(self, s: &Shape, a: &[u8], b: &[u8], sums: &mut [u8]) {
        assert!(a.len() >= s.bank_len() && b.len() >= s.windows_len());
        assert!(sums.len() >= 4 * s.outputs());
        // the A rows of (row tile r, j block jb) are banked at u0 - ρ, ρ = 0 .. 16, with
        // u0 = 4 jb + 16 (rb - 1 - r) + 15: from 0 to 4 (jb - 1) + 16 rb - 1 = nu - 1
        debug_assert_eq!(s.nu, 4 * (s.jb - 1) + 16 * s.rb);
        // the last row tile computes only the output blocks below n: `last` rows (a
        // `tdpbusd` takes time in proportion to its rows: 5.2 ns at 16, 2.95 ns at 4)
        let last = n_blocks(s.n) - 16 * (s.rb - 1);
        let cfg = TileCfg::new(last);
        // SAFETY: the token proves AMX-TILE and AMX-INT8 and the tile data permission. The
        // configuration makes tiles 0 to 2 16 rows of 64 bytes and tiles 3 and 4 `last <= 16`
        // rows of 64 bytes. `row_tile` reads at most 16 rows of 64 bytes inside the bank (rows
        // u0 - 15 ..= u0, within 0 .. nu as above) and the windows (block jb < s.jb) and writes
        // at most 16 rows of 64 bytes inside `sums` (row tile r < s.rb); the tiles are released
        // before returning, and nothing between configuration and release uses them or can
        // panic.
        unsafe {
            asm!("ldtilecfg [{}]", in(reg) cfg.0.as_ptr(), options(nostack, readonly));
            for r in 0..s.rb - 1 {
                row_tile::<0, 1>(s, r, a, b, sums);
            }
            row_tile::<3, 4>(s, s.rb - 1, a, b, sums);
            asm!("tilerelease", options(nostack));
        }
    }
}

/// Row tile `r` of a convolution with tiles `C` (sums) and `A` (bank rows), tile 2 for the
/// windows: `C = sum_jb A(r, jb) B(jb)`, stored to `sums`.
///
/// # Safety
/// Tiles configured (`C` and `A` of the same rows, at most 16, tile 2 of 16 rows of 64 bytes)
/// on a CPU with AMX-INT8; `a`, `b` and `sums` at least as long as [`Amx::convolve`] asserts.
#[inline(always)]
unsafe fn row_tile<const C: u8, const A: u8>(
    s: &Shape,
    r: usize,
    a: &[u8],
    b: &[u8],
    sums: &mut [u8],
) {
    // SAFETY: as the caller guarantees; the offsets are in bounds as `Amx::convolve` shows.
    unsafe {
        tzero::<C>();
        for jb in 0..s.jb {
            let u0 = 4 * jb + 16 * (s.rb - 1 - r) + 15;
            tload::<2>(b.as_ptr().add(1024 * jb), 64);
            tload::<A>(a.as_ptr().add(64 * u0), -64);
            tdp::<C, A, 2>();
        }
        tstore::<C>(sums.as_mut_ptr().add(1024 * r), 64);
    }
}

/// The 64-byte tile configuration (palette 1).
#[repr(C, align(64))]
struct TileCfg([u8; 64]);

impl TileCfg {
    /// Tiles 0 to 2 (the full row tiles' sums, `A` rows and `B` windows) of 16 rows of 64
    /// bytes; tiles 3 and 4 (the last row tile's sums and `A` rows) of `last` rows.
    fn new(last: usize) -> Self {
        debug_assert!((1..=16).contains(&last));
        let mut c = [0u8; 64];
        c[0] = 1;
        for t in 0..5 {
            c[16 + 2 * t] = 64; // bytes per row (u16, little-endian)
            c[48 + t] = if t < 3 { 16 } else { last as u8 }; // rows
        }
        TileCfg(c)
    }
}

/// `tilezero tmmT`.
#[inline(always)]
unsafe fn tzero<const T: u8>() {
    // SAFETY: the caller configured the tiles (on a CPU with AMX-INT8).
    unsafe { asm!("tilezero tmm{t}", t = const T, options(nostack)) }
}

/// `tileloadd tmmT, [p + stride · row]`.
#[inline(always)]
unsafe fn tload<const T: u8>(p: *const u8, stride: isize) {
    // SAFETY: the caller configured the tiles and guarantees 16 readable rows of 64 bytes at
    // `p + stride · row`.
    unsafe {
        asm!("tileloadd tmm{t}, [{p} + {s} * 1]", t = const T, p = in(reg) p, s = in(reg) stride,
            options(nostack, readonly))
    }
}

/// `tilestored [p + stride · row], tmmT`.
#[inline(always)]
unsafe fn tstore<const T: u8>(p: *mut u8, stride: isize) {
    // SAFETY: the caller configured the tiles and guarantees 16 writable rows of 64 bytes at
    // `p + stride · row`.
    unsafe {
        asm!("tilestored [{p} + {s} * 1], tmm{t}", t = const T, p = in(reg) p, s = in(reg) stride,
            options(nostack))
    }
}

/// `tdpbusd tmmC, tmmA, tmmB`: `C[r][m] += sum_k A[r][k] (u8) · B[k / 4][4 m + k % 4] (i8)`.
#[inline(always)]
unsafe fn tdp<const C: u8, const A: u8, const B: u8>() {
    // SAFETY: the caller configured the tiles (on a CPU with AMX-INT8).
    unsafe {
        asm!("tdpbusd tmm{c}, tmm{a}, tmm{b}", c = const C, a = const A, b = const B,
            options(nostack))
    }
}

/// The bank rows: row `u` is `ext[16 u .. 16 u + 64]`.
#[target_feature(enable = "avx512f")]
fn tf_bank_rows(ext: &[u8], bank: &mut [u8]) {
    let rows = bank.len() / 64;
    assert!(bank.len() == 64 * rows && ext.len() >= 16 * (rows - 1) + 64);
    for u in 0..rows {
        // SAFETY: bytes 16 u .. 16 u + 64 of `ext` and 64 u .. 64 u + 64 of `bank`, in bounds
        // by the assertion.
        unsafe {
            let x = _mm512_loadu_si512(ext.as_ptr().add(16 * u).cast());
            _mm512_storeu_si512(bank.as_mut_ptr().add(64 * u).cast(), x);
        }
    }
}

/// The windows from the extended operand `ext` (`ext[i] = b_(i mod n)`).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn tf_windows(s: &Shape, ext: &[u8], win: &mut [u8]) {
    let rows = 16 * s.jb;
    assert!(win.len() == 64 * rows && ext.len() >= 4 * (rows - 1) + 64);
    // byte 4 m + t of a row <- byte m + t of its 64-byte source
    let idx: [u8; 64] = core::hint::black_box(core::array::from_fn(|x| (x / 4 + x % 4) as u8));
    // SAFETY: a plain load of a 64-byte array.
    let idx = unsafe { _mm512_loadu_si512(idx.as_ptr().cast()) };
    for g in 0..rows {
        // keep byte 4 m + t only where j = 4 g + t < n
        let left = s.n as isize - 4 * g as isize;
        let keep: u64 = match left {
            4.. => !0,
            ..=0 => 0,
            _ => ((1u64 << left) - 1) * 0x1111_1111_1111_1111,
        };
        // SAFETY: bytes 4 g .. 4 g + 64 of `ext` and 64 g .. 64 g + 64 of `win`, in bounds by
        // the assertion.
        unsafe {
            let x = _mm512_loadu_si512(ext.as_ptr().add(4 * g).cast());
            let v = _mm512_maskz_permutexvar_epi8(keep, idx, x);
            _mm512_storeu_si512(win.as_mut_ptr().add(64 * g).cast(), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Reference: the cyclic convolution of byte operands, `a` unsigned, `b` signed.
    fn conv(a: &[u8], b: &[u8]) -> Vec<i64> {
        let n = a.len();
        let mut c = vec![0i64; n];
        for i in 0..n {
            for j in 0..n {
                c[(i + j) % n] += i64::from(a[i]) * i64::from(b[j] as i8);
            }
        }
        c
    }

    #[test]
    fn convolutions_match_the_reference() {
        let Some(amx) = Amx::try_new() else {
            eprintln!("skipped: no AMX-INT8 (or no tile permission) here");
            return;
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(51);
        for n in [
            1, 2, 15, 16, 17, 63, 64, 65, 200, 255, 256, 257, 509, 677, 701, 821, 1024,
        ] {
            let s = Shape::cyclic(n);
            let mut ext = vec![0u8; s.ext_len()];
            let (mut bank, mut win) = (vec![0u8; s.bank_len()], vec![0u8; s.windows_len()]);
            // random, all-max, all-min (b = -128), sparse
            for case in 0..4 {
                let mut gen = || -> Vec<u8> {
                    (0..n)
                        .map(|_| match case {
                            0 => rng.gen(),
                            1 => 0x7f,
                            2 => 0x80,
                            _ => rng.gen::<u8>() & 0x81,
                        })
                        .collect()
                };
                let (a, b) = (gen(), gen());
                let want = conv(&a, &b);
                let rev: Vec<u8> = a.iter().rev().copied().collect();
                amx.bank(&s, &rev, &mut ext, &mut bank);
                amx.windows(&s, &b, &mut ext, &mut win);
                let mut bytes = vec![0x55u8; 4 * s.outputs()];
                amx.convolve(&s, &bank, &win, &mut bytes);
                let sums = bytes
                    .chunks_exact(4)
                    .map(|w| i32::from_le_bytes(w.try_into().unwrap()));
                for (k, x) in sums.enumerate() {
                    // the blocks of 16 that hold outputs below n are written (outputs past n
                    // repeat the first ones), the rest is left
                    let expect = if k < 16 * n.div_ceil(16) {
                        want[k % n]
                    } else {
                        0x5555_5555
                    };
                    assert_eq!(i64::from(x), expect, "n {n} case {case} k {k}");
                }
            }
        }
    }
}
