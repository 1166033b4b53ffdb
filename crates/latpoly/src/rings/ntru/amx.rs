//! NTRU byte products as AMX tile convolutions (`rings/amx.rs`), on the AVX-512 backend of CPUs
//! with AMX-INT8 when no `LATPOLY_ISA` cap below the top level is set: the `S_3` product of
//! decapsulation (operands in `{0, 1, 2}`, [`s3_mul`]) and the products mod `2^8` of the `R_q`
//! inverse's first Newton steps in key generation ([`mul_mod256`]). One byte product each,
//! finished as `ntru/vnni.rs` finishes its convolutions (same layout of 32-bit sums).
//!
//! Not the `R_q` products: mod `2^16` they take three byte products (`a_0 b_0 + 2^8 (a_0 b_1 +
//! a_1 b_0)`), which measured slower than the VNNI Toom-4 product inside the KEMs (see
//! docs/BENCH.md, fifty-first session).

use super::vnni::{self, with_workspace_bytes, Finish};
use crate::rings::amx::{Amx, Shape};

/// `out = a · b mod (3, Phi_n)` in `{0, 1, 2}` for `a`, `b` with coefficients in `{0, 1, 2}`
/// (the reference `poly_S3_mul`); `None` unless `n` is an NTRU degree and the lengths agree.
pub(crate) fn s3_mul(amx: Amx, a: &[u16], b: &[u16], out: &mut [u16]) -> Option<()> {
    debug_assert!(a.iter().chain(b).all(|&x| x <= 2));
    product(amx, a, Io::Apart(b, out), Finish::S3)
}

/// `out = a · b mod (x^n - 1, 2^8)` (the low bytes of `a` and `b`); `None` unless `n` is an
/// NTRU degree and the lengths agree.
pub(crate) fn mul_mod256(amx: Amx, a: &[u16], b: &[u16], out: &mut [u16]) -> Option<()> {
    product(amx, a, Io::Apart(b, out), Finish::Mod256)
}

/// [`mul_mod256`] in place: `b = a · b mod (x^n - 1, 2^8)`.
pub(crate) fn mul_mod256_assign(amx: Amx, a: &[u16], b: &mut [u16]) -> Option<()> {
    product(amx, a, Io::InPlace(b), Finish::Mod256)
}

/// The second operand and the output: apart, or one slice read and then overwritten.
enum Io<'x> {
    Apart(&'x [u16], &'x mut [u16]),
    InPlace(&'x mut [u16]),
}

/// The convolution of the low bytes of `a` (unsigned) and of the second operand (signed),
/// finished by `how`. Both operands are read before the output is written.
fn product(amx: Amx, a: &[u16], io: Io<'_>, how: Finish) -> Option<()> {
    let n = match &io {
        Io::Apart(b, out) if b.len() == out.len() => b.len(),
        Io::InPlace(b) => b.len(),
        Io::Apart(..) => return None,
    };
    if a.len() != n || !matches!(n, 509 | 677 | 701 | 821) {
        return None;
    }
    let s = Shape::cyclic(n);
    let r = |x: usize| x.div_ceil(64) * 64;
    let (ext, bank, win, bytes) = (r(s.ext_len()), s.bank_len(), s.windows_len(), r(n));
    let total = ext + bank + win + bytes + 4 * s.outputs();
    with_workspace_bytes(total, |ws| {
        let (e, ws) = ws.split_at_mut(ext);
        let (bk, ws) = ws.split_at_mut(bank);
        let (w, ws) = ws.split_at_mut(win);
        let (x, sums) = ws.split_at_mut(bytes);
        let x = &mut x[..n];
        // a's low bytes reversed, then the second operand's low bytes
        for (d, &v) in x.iter_mut().zip(a.iter().rev()) {
            *d = v as u8;
        }
        amx.bank(&s, x, e, bk);
        let b: &[u16] = match &io {
            Io::Apart(b, _) => b,
            Io::InPlace(b) => b,
        };
        for (d, &v) in x.iter_mut().zip(b) {
            *d = v as u8;
        }
        amx.windows(&s, x, e, w);
        let sums = &mut sums[..4 * s.outputs()];
        amx.convolve(&s, bk, w, sums);
        let out = match io {
            Io::Apart(_, out) => out,
            Io::InPlace(b) => b,
        };
        vnni::finish_sums(amx, out, sums, how);
    });
    Some(())
}

#[cfg(test)]
mod tests {
    use super::super::reference;
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn products_match_the_reference() {
        let Some(amx) = Amx::try_new() else {
            eprintln!("skipped: no AMX-INT8 (or no tile permission) here");
            return;
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(51);
        for n in [509, 677, 701, 821] {
            let mut inputs: Vec<Vec<u16>> = vec![
                vec![0; n],
                vec![u16::MAX; n],
                vec![0x8000; n],
                vec![0x7f80; n],
                vec![2; n],
            ];
            for _ in 0..4 {
                inputs.push((0..n).map(|_| rng.gen()).collect());
                inputs.push((0..n).map(|_| rng.gen_range(0..3)).collect());
            }
            let low = |v: &[u16]| v.iter().map(|&x| x & 0xff).collect::<Vec<u16>>();
            for (i, a) in inputs.iter().enumerate() {
                for (j, b) in inputs.iter().enumerate() {
                    let mut want = vec![0u16; n];
                    reference::rq_mul(&low(a), &low(b), &mut want);
                    let mut out = vec![0x5a5a; n];
                    mul_mod256(amx, a, b, &mut out).unwrap();
                    assert_eq!(out, low(&want), "mod 2^8 n {n} inputs {i} {j}");
                    let mut in_place = b.clone();
                    mul_mod256_assign(amx, a, &mut in_place).unwrap();
                    assert_eq!(in_place, out, "in place, n {n} inputs {i} {j}");
                    if a.iter().chain(b).all(|&x| x <= 2) {
                        reference::rq_mul(a, b, &mut want);
                        reference::mod_3_phi_n(&mut want);
                        s3_mul(amx, a, b, &mut out).unwrap();
                        assert_eq!(out, want, "S_3 n {n} inputs {i} {j}");
                    }
                }
            }
        }
        let mut out = vec![0u16; 100];
        assert!(mul_mod256(amx, &[1; 100], &[1; 100], &mut out).is_none());
        assert!(s3_mul(amx, &[1; 677], &[1; 677], &mut out).is_none());
        assert!(mul_mod256_assign(amx, &[1; 509], &mut out).is_none());
    }
}
