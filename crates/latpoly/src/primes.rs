//! Prime generation for NTT-friendly moduli and roots of unity.
//!
//! * [`is_prime`]: deterministic Miller-Rabin for every `u64` (bases 2..37 are a proven witness
//!   set below 3.3·10^24).
//! * [`ntt_primes`]: `count` distinct primes of exactly `bits` bits with `q ≡ 1 (mod 2n)`, largest
//!   first — what a user asks for when building an RNS basis.
//! * [`nfl_primes`]: NFLlib's Algorithm 1 (word size `s`, margin `s0`, maximal degree `n_max`):
//!   primes `c = β/2^s0 - i·2·n_max + 1` satisfying the paper's Eq. (1), so they work with
//!   [`crate::arith::NflReducer64`] and friends.
//! * [`primitive_root`], [`min_primitive_2n_root`]: roots of unity.
//!
//! Limits per lane width (lazy NTT needs `4q < 2^BITS`): `u16` lanes `q < 2^14`, `u32` lanes
//! `q < 2^30`, `u64` lanes `q < 2^62`. A negacyclic NTT of size `n` needs `q ≡ 1 (mod 2n)`, so a
//! `b`-bit prime supports at most `n = 2^(b-2)`.
//!
//! These functions work on public parameters and are not constant time.

use crate::arith::nfl::satisfies_eq1;
use crate::error::{Error, Result};

#[inline]
fn mulmod(a: u64, b: u64, m: u64) -> u64 {
    ((a as u128 * b as u128) % m as u128) as u64
}

fn powmod(mut a: u64, mut e: u64, m: u64) -> u64 {
    let mut r = 1 % m;
    a %= m;
    while e > 0 {
        if e & 1 == 1 {
            r = mulmod(r, a, m);
        }
        a = mulmod(a, a, m);
        e >>= 1;
    }
    r
}

/// Deterministic primality test for any `u64`.
///
/// ```
/// assert!(latpoly::primes::is_prime(12289));
/// assert!(!latpoly::primes::is_prime(12288));
/// assert!(latpoly::primes::is_prime(0xffff_ffff_ffff_ffc5)); // largest 64-bit prime
/// ```
pub fn is_prime(n: u64) -> bool {
    const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    if n < 2 {
        return false;
    }
    for &p in &BASES {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'witness: for &a in &BASES {
        let mut x = powmod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mulmod(x, x, n);
            if x == n - 1 {
                continue 'witness;
            }
        }
        return false;
    }
    true
}

fn check_pow2(n: usize, min: usize) -> Result<()> {
    if !n.is_power_of_two() || n < min {
        return Err(Error::InvalidDegree {
            n,
            reason: "must be a power of two",
        });
    }
    Ok(())
}

/// `count` distinct primes of exactly `bits` bits (`2^(bits-1) <= q < 2^bits`) with
/// `q ≡ 1 (mod 2n)`, largest first.
///
/// `bits` ranges over `2..=62` (the `u64` lane limit), `n` must be a power of two and `count`
/// is at most [`MAX_PRIMES`](crate::rns::MAX_PRIMES), the most an RNS basis holds (a larger
/// count is refused before the search, which would otherwise run for hours at large `bits`).
///
/// ```
/// let ps = latpoly::primes::ntt_primes(60, 8192, 4).unwrap();
/// assert_eq!(ps.len(), 4);
/// assert!(ps.windows(2).all(|w| w[0] > w[1]));
/// assert!(ps.iter().all(|&q| q % 16384 == 1 && q >> 59 == 1));
/// assert!(latpoly::primes::ntt_primes(62, 2, latpoly::rns::MAX_PRIMES + 1).is_err());
/// ```
pub fn ntt_primes(bits: u32, n: usize, count: usize) -> Result<Vec<u64>> {
    if !(2..=62).contains(&bits) {
        return Err(Error::InvalidArgument(format!(
            "bits={bits} must lie in 2..=62 (64-bit lanes hold q < 2^62)"
        )));
    }
    if count > crate::rns::MAX_PRIMES {
        return Err(Error::InvalidArgument(format!(
            "count = {count}: at most {} primes (the most an RNS basis holds)",
            crate::rns::MAX_PRIMES
        )));
    }
    check_pow2(n, 1)?;
    let lo = 1u64 << (bits - 1);
    // Exclusive upper bound. A huge `count` is not an allocation request: the result grows
    // as primes are found.
    let hi = 1u64 << bits;
    let mut out = Vec::with_capacity(count.min(1024));
    let step = match (n as u64).checked_mul(2) {
        Some(s) if s < hi => s,
        _ => u64::MAX,
    };
    if step >= hi {
        return if count == 0 {
            Ok(out)
        } else {
            Err(Error::NotEnoughPrimes {
                bits,
                n,
                requested: count,
                found: 0,
            })
        };
    }
    // Largest c < hi with c ≡ 1 mod step.
    let mut c = ((hi - 2) / step) * step + 1;
    while out.len() < count && c >= lo {
        if is_prime(c) {
            out.push(c);
        }
        if c < step {
            break;
        }
        c -= step;
    }
    if out.len() < count {
        return Err(Error::NotEnoughPrimes {
            bits,
            n,
            requested: count,
            found: out.len(),
        });
    }
    Ok(out)
}

/// `count` distinct primes of exactly `bits` bits with `q ≡ 1 (mod 2^32)`, largest first: NTT
/// primes for every power-of-two `n <= 2^31` that the 64-bit AVX2 backend multiplies faster.
///
/// With `q = k · 2^32 + 1` the reduction's product `qhat · q mod 2^64` needs one 32 x 32-bit
/// partial product instead of three, so a Shoup twiddle product takes seven `vpmuludq` instead
/// of nine: about 15% faster transforms and Barrett pointwise products on the AVX2 integer
/// backend, which runs plans with `q >= 2^50` (below that, AVX2 CPUs with FMA transform in
/// `f64` lanes, where the form of `q` does not matter). The scalar, AVX-512 and IFMA backends
/// run such primes at their usual speed. The smallest such prime is
/// `18 · 2^32 + 1` (37 bits; there are three of 38 bits); at 60 bits about one candidate `k`
/// in 21 gives a prime, so any practical `count` is available.
///
/// `bits` ranges over `37..=62`, `n` must be a power of two no larger than `2^31` and `count`
/// at most [`MAX_PRIMES`](crate::rns::MAX_PRIMES), as for [`ntt_primes`].
///
/// ```
/// let ps = latpoly::primes::fast_ntt_primes(60, 8192, 4).unwrap();
/// assert_eq!(ps.len(), 4);
/// assert!(ps.iter().all(|&q| q % (1 << 32) == 1 && q >> 59 == 1));
/// assert_eq!(latpoly::primes::fast_ntt_primes(37, 8192, 1).unwrap(), vec![(18u64 << 32) + 1]);
/// assert!(latpoly::primes::fast_ntt_primes(36, 8192, 1).is_err());
/// ```
pub fn fast_ntt_primes(bits: u32, n: usize, count: usize) -> Result<Vec<u64>> {
    if !(37..=62).contains(&bits) {
        return Err(Error::InvalidArgument(format!(
            "bits={bits} must lie in 37..=62 (the primes k 2^32 + 1 start at 18 2^32 + 1; \
             64-bit lanes hold q < 2^62)"
        )));
    }
    check_pow2(n, 1)?;
    if n > 1 << 31 {
        return Err(Error::InvalidDegree {
            n,
            reason: "must be at most 2^31 (q ≡ 1 mod 2^32 has 2n-th roots of unity up to there)",
        });
    }
    // Not enough primes: the error names n = 2^31 (the primes are those 1 mod 2^32).
    ntt_primes(bits, 1 << 31, count)
}

/// NFLlib's Algorithm 1: primes `c = β/2^s0 - i·2·n_max + 1` (`i = 1, 2, ...`) for word size `s`
/// and margin `s0`, stopping when `c` leaves the range of Eq. (1) or after `limit` primes.
///
/// Every returned prime is `≡ 1 (mod 2·n_max)`, below `2^(s - s0)` and satisfies Eq. (1).
/// `s` must be 16, 32 or 64 and `n_max` a power of two.
///
/// ```
/// let ps = latpoly::primes::nfl_primes(64, 2, 1 << 15, 3).unwrap();
/// assert_eq!(ps.len(), 3);
/// assert!(ps.iter().all(|&p| p < 1 << 62 && p % (1 << 16) == 1));
/// ```
pub fn nfl_primes(s: u32, s0: u32, n_max: usize, limit: usize) -> Result<Vec<u64>> {
    if ![16, 32, 64].contains(&s) {
        return Err(Error::InvalidArgument(format!(
            "word size s={s} must be 16, 32 or 64"
        )));
    }
    if s0 < 1 || s0 >= s {
        return Err(Error::InvalidArgument(format!(
            "margin s0={s0} must satisfy 1 <= s0 < s"
        )));
    }
    check_pow2(n_max, 1)?;
    let top = (1u128 << s) >> s0; // β / 2^s0
    let step = 2 * n_max as u128;
    let mut out = Vec::new();
    let mut i: u128 = 1;
    while out.len() < limit {
        let Some(c) = (top + 1).checked_sub(i * step) else {
            break;
        };
        if c > u64::MAX as u128 {
            i += 1;
            continue;
        }
        let c = c as u64;
        if !satisfies_eq1(c, s, s0) {
            break;
        }
        if is_prime(c) {
            out.push(c);
        }
        i += 1;
    }
    Ok(out)
}

/// Largest root order [`primitive_root`] accepts (`2^20`, far above the largest NTT, `2n = 2^18`).
pub const MAX_ROOT_ORDER: u64 = 1 << 20;

/// A primitive `order`-th root of unity modulo the prime `q`, for `order` a power of two
/// dividing `q - 1` and at most [`MAX_ROOT_ORDER`] (the smallest such root: the search takes
/// `O(order)` steps).
///
/// ```
/// let w = latpoly::primes::primitive_root(512, 12289).unwrap();
/// assert_eq!(latpoly::primes::min_primitive_2n_root(256, 12289).unwrap(), w);
/// ```
pub fn primitive_root(order: u64, q: u64) -> Result<u64> {
    if !is_prime(q) {
        return Err(Error::InvalidModulus {
            q,
            reason: "not prime",
        });
    }
    if order < 2 || !order.is_power_of_two() || !(q - 1).is_multiple_of(order) {
        return Err(Error::InvalidModulus {
            q,
            reason: "q - 1 is not divisible by the (power-of-two) order",
        });
    }
    if order > MAX_ROOT_ORDER {
        return Err(Error::InvalidArgument(format!(
            "root order {order} exceeds 2^20: the search for the smallest root visits every root"
        )));
    }
    let cofactor = (q - 1) / order;
    let half = order / 2;
    let mut g = 2u64;
    let root = loop {
        if g >= q {
            return Err(Error::InvalidModulus {
                q,
                reason: "no primitive root found",
            });
        }
        let c = powmod(g, cofactor, q);
        if powmod(c, half, q) == q - 1 {
            break c;
        }
        g += 1;
    };
    // All primitive order-th roots are root^k for odd k: take the smallest for a canonical choice.
    let sq = mulmod(root, root, q);
    let mut best = root;
    let mut cur = root;
    for _ in 1..half {
        cur = mulmod(cur, sq, q);
        best = best.min(cur);
    }
    Ok(best)
}

/// The smallest primitive `2n`-th root of unity `ψ` mod `q` (so `ψ^n ≡ -1`), used for the
/// negacyclic NTT of size `n`.
///
/// ```
/// use latpoly::arith::{Modulus, Modulus64};
/// use latpoly::primes::min_primitive_2n_root;
///
/// let psi = min_primitive_2n_root(256, 12289)?;
/// let m = Modulus64::new(12289)?;
/// assert_eq!(m.pow(psi, 256), 12288); // ψ^n = -1
/// assert!((2..psi).all(|x| m.pow(x, 256) != 12288)); // and no smaller root
/// assert!(min_primitive_2n_root(4096, 12289).is_err()); // 8192 does not divide q - 1
/// # Ok::<(), latpoly::Error>(())
/// ```
pub fn min_primitive_2n_root(n: usize, q: u64) -> Result<u64> {
    check_pow2(n, 1)?;
    let order = (n as u64).checked_mul(2).ok_or(Error::InvalidDegree {
        n,
        reason: "2n overflows 64 bits",
    })?;
    primitive_root(order, q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_primes_match_sieve() {
        let mut sieve = vec![true; 10_000];
        sieve[0] = false;
        sieve[1] = false;
        for i in 2..100 {
            if sieve[i] {
                for j in (i * i..10_000).step_by(i) {
                    sieve[j] = false;
                }
            }
        }
        for (i, &p) in sieve.iter().enumerate() {
            assert_eq!(is_prime(i as u64), p, "{i}");
        }
    }

    #[test]
    fn strong_pseudoprimes_rejected() {
        // Strong pseudoprimes to several small bases, and Carmichael numbers.
        for n in [2047u64, 1373653, 3215031751, 3825123056546413051] {
            assert!(!is_prime(n), "{n}");
        }
        assert!(!is_prime(561));
        assert!(is_prime(0xffff_ffff_ffff_ffc5));
        assert!(!is_prime(u64::MAX));
    }

    #[test]
    fn fast_ntt_primes_properties() {
        assert_eq!(fast_ntt_primes(37, 16, 1).unwrap(), vec![(18u64 << 32) + 1]);
        for bits in [38u32, 40, 49, 50, 60, 61, 62] {
            let ps = fast_ntt_primes(bits, 1 << 13, 3).unwrap();
            assert_eq!(ps.len(), 3);
            assert!(ps.windows(2).all(|w| w[0] > w[1]));
            for &p in &ps {
                assert!(is_prime(p));
                assert_eq!(p & 0xffff_ffff, 1);
                assert_eq!(64 - p.leading_zeros(), bits);
            }
            // The largest such prime: no candidate above it is prime.
            let mut c = ps[0] + (1 << 32);
            while c < 1 << bits {
                assert!(!is_prime(c), "{c}");
                c += 1 << 32;
            }
        }
        // The same primes for every n up to 2^31.
        assert_eq!(
            fast_ntt_primes(60, 2, 2).unwrap(),
            fast_ntt_primes(60, 1 << 31, 2).unwrap()
        );
        assert!(fast_ntt_primes(36, 16, 1).is_err());
        assert!(fast_ntt_primes(63, 16, 1).is_err());
        assert!(fast_ntt_primes(60, 3, 1).is_err());
        #[cfg(target_pointer_width = "64")]
        assert!(matches!(
            fast_ntt_primes(60, 1 << 32, 1),
            Err(Error::InvalidDegree { .. })
        ));
        assert!(matches!(
            fast_ntt_primes(38, 1024, 1000),
            Err(Error::NotEnoughPrimes {
                n: 0x8000_0000,
                requested: 1000,
                ..
            })
        ));
    }

    #[test]
    fn ntt_primes_properties() {
        let ps = ntt_primes(62, 1 << 17, 5).unwrap();
        for &p in &ps {
            assert!(is_prime(p));
            assert_eq!(p % (1 << 18), 1);
            assert_eq!(p >> 61, 1);
        }
        // 12289 = 3 * 2^12 + 1 is the only 14-bit prime that is 1 mod 4096.
        assert_eq!(ntt_primes(14, 2048, 1).unwrap(), vec![12289]);
        assert!(matches!(
            ntt_primes(14, 2048, 2),
            Err(Error::NotEnoughPrimes { found: 1, .. })
        ));
        assert!(ntt_primes(63, 16, 1).is_err());
        assert!(ntt_primes(1, 16, 1).is_err());
        assert!(ntt_primes(30, 3, 1).is_err());
        assert!(ntt_primes(4, 16, 1).is_err());
        // more than a basis holds: refused before the search (hours at 62 bits), not run out
        let max = crate::rns::MAX_PRIMES;
        for count in [max + 1, usize::MAX] {
            assert!(matches!(
                ntt_primes(62, 2, count),
                Err(Error::InvalidArgument(_))
            ));
            assert!(matches!(
                fast_ntt_primes(62, 2, count),
                Err(Error::InvalidArgument(_))
            ));
        }
        assert_eq!(ntt_primes(40, 2, max).unwrap().len(), max);
    }

    #[test]
    fn nfl_alg1_primes() {
        let ps = nfl_primes(16, 2, 512, 100).unwrap();
        // NFLlib ships 2 primes for s=16, n_max=512.
        assert!(!ps.is_empty());
        for &p in &ps {
            assert!(p < 1 << 14 && p % 1024 == 1 && is_prime(p) && satisfies_eq1(p, 16, 2));
        }
        let ps = nfl_primes(64, 2, 1 << 20, 10).unwrap();
        assert_eq!(ps.len(), 10);
        assert!(nfl_primes(48, 2, 512, 1).is_err());
    }

    #[test]
    fn roots() {
        for (n, q) in [(256usize, 12289u64), (1024, 12289), (2048, 12289)] {
            let psi = min_primitive_2n_root(n, q).unwrap();
            assert_eq!(powmod(psi, n as u64, q), q - 1);
        }
        assert!(min_primitive_2n_root(4096, 12289).is_err());
        assert!(min_primitive_2n_root(1 << 63, 12289).is_err());
        let big = ntt_primes(62, 1 << 40, 1).unwrap()[0];
        assert!(min_primitive_2n_root(1 << 40, big).is_err()); // order above MAX_ROOT_ORDER
        assert!(ntt_primes(62, 1 << 63, 1).is_err());
        assert_eq!(ntt_primes(62, 1 << 63, 0).unwrap(), Vec::<u64>::new());
        assert!(ntt_primes(20, 2, usize::MAX).is_err()); // not an allocation of usize::MAX
        assert!(primitive_root(4, 15).is_err());
    }
}
