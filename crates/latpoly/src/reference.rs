//! Slow, obviously-correct reference implementations used as test oracles.

use crate::error::{Error, Result};

/// Schoolbook negacyclic product `a · b mod (x^n + 1, q)` in `O(n²)` with exact `u128`
/// accumulation. Inputs may be any `u64` values; output in `[0, q)`.
///
/// ```
/// // (1 + x) (1 + x) = 1 + 2x + x^2 = 1 + 2x - 1 = 2x  mod x^2 + 1
/// assert_eq!(latpoly::reference::negacyclic_mul(&[1, 1], &[1, 1], 17).unwrap(), vec![0, 2]);
/// ```
pub fn negacyclic_mul(a: &[u64], b: &[u64], q: u64) -> Result<Vec<u64>> {
    if a.len() != b.len() {
        return Err(Error::LengthMismatch {
            expected: a.len(),
            got: b.len(),
        });
    }
    if q < 2 {
        return Err(Error::InvalidModulus {
            q,
            reason: "modulus must be at least 2",
        });
    }
    let n = a.len();
    let q128 = q as u128;
    let mut pos = vec![0u128; n];
    let mut neg = vec![0u128; n];
    for (i, &x) in a.iter().enumerate() {
        let x = x as u128 % q128;
        for (j, &y) in b.iter().enumerate() {
            let p = x * (y as u128 % q128) % q128;
            let k = i + j;
            if k < n {
                pos[k] = (pos[k] + p) % q128;
            } else {
                neg[k - n] = (neg[k - n] + p) % q128;
            }
        }
    }
    Ok(pos
        .iter()
        .zip(&neg)
        .map(|(&p, &m)| ((p + q128 - m) % q128) as u64)
        .collect())
}
