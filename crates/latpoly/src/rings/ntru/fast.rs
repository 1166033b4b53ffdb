//! Exact `poly_Rq_mul` with 16-bit SIMD lanes: Karatsuba over blocks, lane-sliced leaves.
//!
//! The result must be exact mod `2^16`, which rules out Toom-Cook (its interpolation divides by
//! powers of two and loses bits); Karatsuba only adds and subtracts, so it is exact in `u16`.
//!
//! With `L` lanes per vector (16 for AVX2, 32 for AVX-512BW) and leaf size `S = 2L`:
//!
//! 1. **Top levels.** Both operands are zero-padded to `N = m·S` and split recursively
//!    (Karatsuba, halves of `ceil(m/2)` and `floor(m/2)` blocks) down to single blocks of `S`
//!    coefficients: the *leaves* (27 for `n = 509`, `m = 8`). The block sums are computed into a
//!    contiguous leaf area (a [`Plan`] per `n` lists them).
//! 2. **Leaves, lane-sliced.** `L` leaves at a time are transposed (`L x L` blocks of `u16`), so
//!    that lane `i` of row `t` holds coefficient `t` of leaf `i`. Then `L` independent `S x S`
//!    products run in parallel, one per lane, by Karatsuba down to `4 x 4` schoolbooks
//!    ([`kmul16_body`] works in registers; middle operands are summed on the fly). No lane is
//!    wasted inside a product and no shuffle is needed. The last recombination is fused with the
//!    transposition back.
//! 3. **Recombination** of the top levels in place (refined Karatsuba), then the fold
//!    `r[k] = c[k] + c[k + n]` that reduces mod `x^n - 1`.
//!
//! Every step is a fixed, data-independent sequence of loads, stores, additions,
//! multiplications and shuffles, so the multiplier is constant time. Scratch memory is a
//! per-thread buffer (38 KB for `n = 509` with 32 lanes, to stay in L1).
//!
//! Measured (`examples/ntru_bench.rs`, AMD EPYC Zen 5, median ns per product, `n` = 509 / 677 /
//! 701 / 821): AVX-512 1139 / 2277 / 2290 / 3197, AVX2 1701 / 3603 / 3673 / 4312, scalar
//! schoolbook 11040 / 19313 / 20699 / 30374. The alternative of an exact integer product through
//! latpoly's 64-bit NTT (one 50-bit prime, `n_ntt = 1024`, AVX-512 IFMA) costs 3245 ns for the
//! two forward transforms, the pointwise product and the inverse alone, so it was not kept. For
//! `n = 509` about half of the time is the lane-parallel kernel (1296 vector multiplications for
//! 27 leaf products in 32 lanes), bound by register pressure; the eight `32 x 32` transpositions,
//! the top-level recombination and the evaluation share the rest.

use super::NtruParams;
use std::cell::RefCell;
use std::sync::OnceLock;

/// A vector of `L` lanes of `u16`: the operations the multiplier needs.
///
/// Contract for implementors: lane-wise wrapping arithmetic; `transpose` as documented;
/// `kmul16` is [`kmul16_body`] compiled with the backend's features.
pub(crate) trait Lanes: Copy {
    /// Vector type.
    type V: Copy;
    /// Lanes per vector (16 or 32).
    const L: usize;
    fn zero(self) -> Self::V;
    /// Loads `L` values from the start of `s`.
    fn load(self, s: &[u16]) -> Self::V;
    /// Stores `L` values at the start of `s`.
    fn store(self, s: &mut [u16], v: Self::V);
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    /// Low 16 bits of the lane-wise product.
    fn mul(self, a: Self::V, b: Self::V) -> Self::V;
    /// Transposes an `L x L` matrix of `u16`: reads rows `io.load(0..L)`, then calls
    /// `io.store(j, row)` once for every row `j` of the transpose (lane `i` = lane `j` of input
    /// row `i`).
    fn transpose(self, io: &mut impl RowIo<Self>);
    /// Lane-parallel product of 16-coefficient polynomials (see [`kmul16_body`]).
    fn kmul16<const K: usize>(self, a: &[u16], b: &[u16], terms: [usize; K], c: &mut [u16]);
    /// The whole multiplication ([`rq_mul_body`]) inside the backend's `#[target_feature]`
    /// entry point.
    fn rq_mul_entry(self, plan: &Plan, a: &[u16], b: &[u16], out: &mut [u16], ws: &mut [u16]);
}

/// Where a transposition reads its rows and writes the transposed rows. (A trait with
/// `#[inline(always)]` methods rather than closures: closures do not inherit the target features
/// of the entry point, so the vector operations inside them would not inline.)
pub(crate) trait RowIo<T: Lanes> {
    /// Input row `i`.
    fn load(&mut self, t: T, i: usize) -> T::V;
    /// Output row `j`.
    fn store(&mut self, t: T, j: usize, v: T::V);
}

/// Row `r` of an operand given as `sum_k x[(r + terms[k]) L ..]`.
#[inline(always)]
fn sum_rows<T: Lanes, const K: usize>(t: T, x: &[u16], r: usize, terms: &[usize; K]) -> T::V {
    let l = T::L;
    let mut v = t.load(&x[(r + terms[0]) * l..]);
    for &o in &terms[1..] {
        v = t.add(v, t.load(&x[(r + o) * l..]));
    }
    v
}

/// Repeats `$body` with `$i` bound to each listed constant: guaranteed unrolling, so that
/// arrays of vectors indexed by `$i` stay in registers.
macro_rules! unroll {
    ($i:ident in [$($k:literal),*] $body:block) => {
        $( { let $i: usize = $k; $body } )*
    };
}
pub(crate) use unroll;

/// Lane-parallel `4 x 4` schoolbook: `c[k] = sum_{i + j = k} a[i] b[j]`, `k < 7`.
#[inline(always)]
fn school4<T: Lanes>(t: T, a: &[T::V; 4], b: &[T::V; 4]) -> [T::V; 7] {
    let mut c = [t.zero(); 7];
    unroll!(i in [0, 1, 2, 3] {
        unroll!(j in [0, 1, 2, 3] {
            // In this order the first product to reach c[k] is (0, k) for k <= 3 and
            // (k - 3, 3) above: it initialises c[k], the others accumulate.
            let p = t.mul(a[i], b[j]);
            c[i + j] = if i == 0 || j == 3 { p } else { t.add(c[i + j], p) };
        });
    });
    c
}

/// Lane-parallel `8 x 8` product by one Karatsuba level over [`school4`]: 15 coefficients.
#[inline(always)]
fn kara8<T: Lanes>(t: T, a: &[T::V; 8], b: &[T::V; 8]) -> [T::V; 15] {
    let mut a0 = [t.zero(); 4];
    let mut a1 = [t.zero(); 4];
    let mut b0 = [t.zero(); 4];
    let mut b1 = [t.zero(); 4];
    let mut am = [t.zero(); 4];
    let mut bm = [t.zero(); 4];
    unroll!(i in [0, 1, 2, 3] {
        a0[i] = a[i];
        a1[i] = a[4 + i];
        b0[i] = b[i];
        b1[i] = b[4 + i];
        am[i] = t.add(a[i], a[4 + i]);
        bm[i] = t.add(b[i], b[4 + i]);
    });
    let lo = school4(t, &a0, &b0);
    let hi = school4(t, &a1, &b1);
    let mid = school4(t, &am, &bm);
    // Refined recombination (see `kmul16_body`), halves of 4.
    let z = t.zero();
    let mut c = [z; 15];
    unroll!(i in [0, 1, 2, 3] {
        let (l1, h1, m1) = if i < 3 { (lo[4 + i], hi[4 + i], mid[4 + i]) } else { (z, z, z) };
        let tt = t.sub(l1, hi[i]);
        c[i] = lo[i];
        c[4 + i] = t.sub(t.add(tt, mid[i]), lo[i]);
        c[8 + i] = t.sub(t.sub(m1, h1), tt);
        if i < 3 {
            c[12 + i] = h1;
        }
    });
    c
}

/// Lane-parallel product of polynomials of 16 coefficients, rows of `L` lanes in memory.
///
/// Row `r` of the operand `A` is `sum_k a[(r + terms[k]) L ..]` (likewise `B` from `b`), so
/// Karatsuba middle operands are formed on the fly. `c` receives 32 rows: the 31 coefficients
/// of `A·B` and a zero row. Two Karatsuba levels over `4 x 4` schoolbooks, in registers.
#[inline(always)]
pub(crate) fn kmul16_body<T: Lanes, const K: usize>(
    t: T,
    a: &[u16],
    b: &[u16],
    terms: [usize; K],
    c: &mut [u16],
) {
    let l = T::L;
    let c = &mut c[..32 * l];
    let mut a0 = [t.zero(); 8];
    let mut a1 = [t.zero(); 8];
    let mut b0 = [t.zero(); 8];
    let mut b1 = [t.zero(); 8];
    let mut am = [t.zero(); 8];
    let mut bm = [t.zero(); 8];
    unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7] {
        a0[i] = sum_rows(t, a, i, &terms);
        a1[i] = sum_rows(t, a, 8 + i, &terms);
        b0[i] = sum_rows(t, b, i, &terms);
        b1[i] = sum_rows(t, b, 8 + i, &terms);
        am[i] = t.add(a0[i], a1[i]);
        bm[i] = t.add(b0[i], b1[i]);
    });
    let lo = kara8(t, &a0, &b0);
    let hi = kara8(t, &a1, &b1);
    let mid = kara8(t, &am, &bm);
    // Refined recombination: with lo = L0 + x^8 L1, hi = H0 + x^8 H1, mid = M0 + x^8 M1 and
    // T = L1 - H0, the product is L0 + x^8 (T + M0 - L0) + x^16 (M1 - H1 - T) + x^24 H1.
    let z = t.zero();
    unroll!(i in [0, 1, 2, 3, 4, 5, 6, 7] {
        let (l1, h1, m1) = if i < 7 {
            (lo[8 + i], hi[8 + i], mid[8 + i])
        } else {
            (z, z, z)
        };
        let tt = t.sub(l1, hi[i]);
        t.store(&mut c[i * l..], lo[i]);
        t.store(&mut c[(8 + i) * l..], t.sub(t.add(tt, mid[i]), lo[i]));
        t.store(&mut c[(16 + i) * l..], t.sub(t.sub(m1, h1), tt));
        t.store(&mut c[(24 + i) * l..], h1);
    });
}

/// Refined Karatsuba recombination in place, rows of `L` lanes: `c` holds `lo` (rows
/// `0..2h`) and `hi` (rows `2h..4h`), `mid` the middle product (`2h` rows); on return `c` holds
/// the full product.
#[inline(always)]
fn combine_rows<T: Lanes>(t: T, c: &mut [u16], mid: &[u16], h: usize) {
    let l = T::L;
    let (c, mid) = (&mut c[..4 * h * l], &mid[..2 * h * l]);
    for i in 0..h {
        let l0 = t.load(&c[i * l..]);
        let l1 = t.load(&c[(h + i) * l..]);
        let h0 = t.load(&c[(2 * h + i) * l..]);
        let h1 = t.load(&c[(3 * h + i) * l..]);
        let m0 = t.load(&mid[i * l..]);
        let m1 = t.load(&mid[(h + i) * l..]);
        let tt = t.sub(l1, h0);
        t.store(&mut c[(h + i) * l..], t.sub(t.add(tt, m0), l0));
        t.store(&mut c[(2 * h + i) * l..], t.sub(t.sub(m1, h1), tt));
    }
}

/// Lane-parallel product of 32-coefficient polynomials whose row `r` is
/// `sum_k x[(r + terms[k]) L ..]`; `c` receives 64 rows, `mid` is 32 rows of scratch.
/// `K2 = 2 K` (the middle operand has twice the terms).
#[inline(always)]
fn kmul32<T: Lanes, const K: usize, const K2: usize>(
    t: T,
    a: &[u16],
    b: &[u16],
    terms: [usize; K],
    c: &mut [u16],
    mid: &mut [u16],
) {
    let l = T::L;
    let mut both = [0; K2];
    both[..K].copy_from_slice(&terms);
    for (d, &o) in both[K..].iter_mut().zip(&terms) {
        *d = o + 16;
    }
    let (lo, hi) = c[..64 * l].split_at_mut(32 * l);
    t.kmul16(a, b, terms, lo);
    t.kmul16(a, b, terms.map(|o| o + 16), hi);
    t.kmul16(a, b, both, mid);
    combine_rows(t, c, mid, 16);
}

/// The multiplication schedule for one `(n, L)` and the workspace layout (offsets in `u16`,
/// all multiples of `L`).
///
/// Workspace: `[operand A area | operand B area | product area | kernel area]`. An operand area
/// holds the zero-padded input (`m` blocks of `S`), then the leaves, contiguous (leaf `i` at
/// `leaves + i·S`), then the other Karatsuba sums. The product area holds the leaf products,
/// contiguous (`2S` each), then the products of the Karatsuba nodes.
#[derive(Debug)]
pub(crate) struct Plan {
    n: usize,
    l: usize,
    /// Leaf size `S = 2L`.
    s: usize,
    /// Padded operand length `N = m·S`.
    nn: usize,
    nleaves: usize,
    /// Groups of `L` leaves.
    groups: usize,
    /// Where input block `i` is staged (offset in an operand area).
    input_at: Vec<usize>,
    /// Evaluation, block by block (offsets in an operand area): sums
    /// `dst = x + y`, then copies `dst = x`.
    sums: Vec<[usize; 3]>,
    copies: Vec<[usize; 2]>,
    /// Offset of the leaves in an operand area.
    leaves: usize,
    a_area: usize,
    b_area: usize,
    /// Leaf products (`2S` each, `groups·L` of them).
    prod: usize,
    /// Recombinations, children first, one `L`-coefficient chunk at a time: offsets of
    /// `[L0, L1, H0, H1, M0, M1, R0, R1, R2, R3]` (a missing `H1` reads a zero chunk and its
    /// `R3` goes to a dummy chunk).
    recomb: Vec<[u32; 10]>,
    /// An all-zero chunk and a write-only chunk.
    zero: usize,
    /// The full product, `2N` coefficients.
    root: usize,
    /// Kernel area (transposed operands, half products, scratch).
    kernel: usize,
    ws_len: usize,
}

/// One Karatsuba recombination: `r = lo + y^H (mid - lo - hi) + y^2H hi` (refined form), `H`
/// coefficients per half; `hi` has `2H' <= 2H` coefficients.
#[derive(Clone, Copy, Debug)]
struct Node {
    r: usize,
    lo: usize,
    mid: usize,
    hi: usize,
    /// `H / L`.
    hc: usize,
    /// `(2H' - H) / L`: chunks of the top quarter `H1`.
    h1c: usize,
}

/// A block of a Karatsuba evaluation: an input block or the sum of two blocks.
#[derive(Clone, Copy)]
enum Block {
    Input,
    Sum(usize, usize),
}

/// Karatsuba evaluation of an operand made of `src` (block ids): appends the leaves, in order lo,
/// mid, hi. Middle blocks are sums, or aliases when a half is one block shorter.
fn build_eval(src: &[usize], blocks: &mut Vec<Block>, leaves: &mut Vec<usize>) {
    let m = src.len();
    if m == 1 {
        leaves.push(src[0]);
        return;
    }
    let h = m.div_ceil(2);
    let (lo, hi) = src.split_at(h);
    build_eval(lo, blocks, leaves);
    let mid: Vec<usize> = (0..h)
        .map(|i| match hi.get(i) {
            Some(&x) => {
                blocks.push(Block::Sum(lo[i], x));
                blocks.len() - 1
            }
            None => lo[i],
        })
        .collect();
    build_eval(&mid, blocks, leaves);
    build_eval(hi, blocks, leaves);
}

/// Karatsuba interpolation for operands of `m` blocks; returns where the `2mS`-coefficient
/// product is. `want` is where the caller would like it (so that `lo` and `hi` end up adjacent);
/// leaf products stay in the leaf-product area.
#[allow(clippy::too_many_arguments)]
fn build_interp(
    m: usize,
    want: usize,
    s: usize,
    l: usize,
    prod: usize,
    next_leaf: &mut usize,
    nodes: &mut Vec<Node>,
    alloc: &mut usize,
) -> usize {
    if m == 1 {
        let at = prod + *next_leaf * 2 * s;
        *next_leaf += 1;
        return at;
    }
    let h = m.div_ceil(2);
    let (big_h, big_h2) = (h * s, (m - h) * s);
    let mid_want = *alloc;
    *alloc += 2 * big_h;
    let lo = build_interp(h, want, s, l, prod, next_leaf, nodes, alloc);
    let mid = build_interp(h, mid_want, s, l, prod, next_leaf, nodes, alloc);
    let hi = build_interp(m - h, want + 2 * big_h, s, l, prod, next_leaf, nodes, alloc);
    nodes.push(Node {
        r: want,
        lo,
        mid,
        hi,
        hc: big_h / l,
        // hi has 2H' >= H coefficients, so H0 is whole and H1 has 2H' - H.
        h1c: (2 * big_h2 - big_h) / l,
    });
    want
}

impl Plan {
    /// Builds the plan for degree `n` and `l` lanes (16 or 32).
    fn new(n: usize, l: usize) -> Plan {
        let s = 2 * l;
        let m = n.div_ceil(s);
        let nn = m * s;

        // Evaluation: blocks, leaves, then storage (sums that are leaves are computed directly
        // in their leaf slot; other leaves are copied there).
        let mut blocks: Vec<Block> = vec![Block::Input; m];
        let mut leaf_ids = Vec::new();
        build_eval(&(0..m).collect::<Vec<_>>(), &mut blocks, &mut leaf_ids);
        let nleaves = leaf_ids.len();
        let groups = nleaves.div_ceil(l);
        let leaves = 0;
        let mut alloc = leaves + groups * l * s;
        // The first leaf occurrence of a block (input or sum) is where it is stored; blocks that
        // are not leaves get their own slot; further occurrences are copied.
        let mut at: Vec<Option<usize>> = vec![None; blocks.len()];
        let mut copies = Vec::new();
        for (k, &id) in leaf_ids.iter().enumerate() {
            let slot = leaves + k * s;
            match at[id] {
                None => at[id] = Some(slot),
                Some(_) => copies.push((id, slot)),
            }
        }
        let mut place = |x: &mut Option<usize>| {
            *x.get_or_insert_with(|| {
                alloc += s;
                alloc - s
            })
        };
        let input_at: Vec<usize> = (0..m).map(|i| place(&mut at[i])).collect();
        let mut sums = Vec::new();
        for id in 0..blocks.len() {
            if let Block::Sum(x, y) = blocks[id] {
                let dst = place(&mut at[id]);
                sums.push([dst, at[x].unwrap_or(0), at[y].unwrap_or(0)]);
            }
        }
        let copies: Vec<[usize; 2]> = copies
            .into_iter()
            .map(|(id, slot)| [slot, at[id].unwrap_or(0)])
            .collect();
        let area_len = alloc;

        let a_area = 0;
        let b_area = area_len;
        // The node products and middle products reuse the operand areas (dead once the last
        // group of leaves is transposed); the leaf products, written group by group, do not.
        let root = 0;
        let mut alloc = root + 2 * nn;
        let mut nodes = Vec::new();
        let mut next_leaf = 0;
        let prod_at_end = |alloc: usize| alloc.max(2 * area_len);
        // Leaf-product offsets depend on where the product area starts, which depends on how
        // much the nodes need: size the nodes first with a provisional product area.
        build_interp(
            m,
            root,
            s,
            l,
            usize::MAX / 4,
            &mut 0,
            &mut Vec::new(),
            &mut alloc,
        );
        let prod = prod_at_end(alloc);
        let mut alloc = root + 2 * nn;
        let r = build_interp(m, root, s, l, prod, &mut next_leaf, &mut nodes, &mut alloc);
        debug_assert_eq!((r, next_leaf), (root, nleaves));
        debug_assert!(alloc <= prod);
        let mut alloc = prod + groups * l * 2 * s;
        let zero = alloc;
        let dummy = zero + l;
        alloc = dummy + l;
        let mut recomb = Vec::new();
        for nd in &nodes {
            let big_h = nd.hc * l;
            for i in 0..nd.hc {
                let k = i * l;
                let (h1, r3) = if i < nd.h1c {
                    (nd.hi + big_h + k, nd.r + 3 * big_h + k)
                } else {
                    (zero, dummy)
                };
                // In place, R0 = L0 and R3 = H1 are rewritten with the same values.
                let offs = [
                    nd.lo + k,
                    nd.lo + big_h + k,
                    nd.hi + k,
                    h1,
                    nd.mid + k,
                    nd.mid + big_h + k,
                    nd.r + k,
                    nd.r + big_h + k,
                    nd.r + 2 * big_h + k,
                    r3,
                ];
                recomb.push(offs.map(|o| u32::try_from(o).unwrap_or(u32::MAX)));
            }
        }
        let kernel = alloc;
        // A^T, B^T: S rows each; lo | hi: 2S rows; mid: S rows; scratch: 32 rows.
        let ws_len = kernel + (5 * s + 32) * l;
        Plan {
            n,
            l,
            s,
            nn,
            nleaves,
            groups,
            input_at,
            sums,
            copies,
            leaves,
            a_area,
            b_area,
            prod,
            recomb,
            zero,
            root,
            kernel,
            ws_len,
        }
    }

    /// The cached plan for `params` and `l` lanes.
    pub(crate) fn get(params: NtruParams, l: usize) -> &'static Plan {
        static PLANS: [[OnceLock<Plan>; 2]; 4] = [const { [const { OnceLock::new() }; 2] }; 4];
        let pi = NtruParams::ALL
            .iter()
            .position(|&p| p == params)
            .unwrap_or(0);
        let li = usize::from(l == 32);
        PLANS[pi][li].get_or_init(|| Plan::new(params.n(), l))
    }

    /// Number of leaf products.
    pub(crate) fn leaf_count(&self) -> usize {
        self.nleaves
    }

    /// Workspace length in `u16`.
    #[cfg(test)]
    pub(crate) fn workspace_len(&self) -> usize {
        self.ws_len
    }
}

/// The multiplication; to be instantiated inside a `#[target_feature]` entry point.
#[inline(always)]
pub(crate) fn rq_mul_body<T: Lanes>(
    t: T,
    plan: &Plan,
    a: &[u16],
    b: &[u16],
    out: &mut [u16],
    ws: &mut [u16],
) {
    let (l, s, n, nn) = (T::L, plan.s, plan.n, plan.nn);
    debug_assert!(l == plan.l && plan.leaf_count() <= plan.groups * l);
    let (main, kernel) = ws[..plan.ws_len].split_at_mut(plan.kernel);

    // Stage the zero-padded operands (each block where the plan keeps it) and evaluate the top
    // Karatsuba levels.
    main[plan.zero..plan.zero + l].fill(0);
    let whole = n / l * l;
    for (base, x) in [(plan.a_area, a), (plan.b_area, b)] {
        for (i, &dst) in plan.input_at.iter().enumerate() {
            unroll!(c in [0, 1] {
                let k = i * s + c * l;
                let v = if k < whole {
                    t.load(&x[k..])
                } else {
                    // The partial (or empty) last chunks: zero-padded copy.
                    let mut tmp = [0u16; 32];
                    if k < n {
                        tmp[..n - k].copy_from_slice(&x[k..]);
                    }
                    t.load(&tmp)
                };
                t.store(&mut main[base + dst + c * l..], v);
            });
        }
        for &[d, x0, x1] in &plan.sums {
            unroll!(c in [0, 1] {
                let v = t.add(t.load(&main[base + x0 + c * l..]), t.load(&main[base + x1 + c * l..]));
                t.store(&mut main[base + d + c * l..], v);
            });
        }
        for &[d, x0] in &plan.copies {
            unroll!(c in [0, 1] {
                let v = t.load(&main[base + x0 + c * l..]);
                t.store(&mut main[base + d + c * l..], v);
            });
        }
    }

    let (at, rest) = kernel.split_at_mut(s * l);
    let (bt, rest) = rest.split_at_mut(s * l);
    let (lh, rest) = rest.split_at_mut(2 * s * l);
    let (mid, mid2) = rest.split_at_mut(s * l);
    for g in 0..plan.groups {
        // Leaves of this group, L coefficients at a time, transposed into rows.
        for (base, dst) in [(plan.a_area, &mut *at), (plan.b_area, &mut *bt)] {
            for c0 in (0..s).step_by(l) {
                let first = base + plan.leaves + g * l * s + c0;
                let mut io = LeafRows {
                    src: &main[first..first + (l - 1) * s + l],
                    dst: &mut dst[c0 * l..(c0 + l) * l],
                };
                t.transpose(&mut io);
            }
        }

        // Lane-parallel S x S products: lo, hi and mid halves (S/2 = L coefficients each).
        {
            let (lo, hi) = lh.split_at_mut(s * l);
            if l == 32 {
                kmul32::<T, 1, 2>(t, at, bt, [0], lo, mid2);
                kmul32::<T, 1, 2>(t, at, bt, [32], hi, mid2);
                kmul32::<T, 2, 4>(t, at, bt, [0, 32], mid, mid2);
            } else {
                t.kmul16(at, bt, [0], lo);
                t.kmul16(at, bt, [16], hi);
                t.kmul16(at, bt, [0, 16], mid);
            }
        }

        // Last recombination fused with the transposition back to the leaf-product area.
        for chunk in 0..4 {
            let first = plan.prod + g * l * 2 * s + chunk * l;
            let mut io = ProductRows {
                lh,
                mid,
                chunk,
                dst: &mut main[first..first + (l - 1) * 2 * s + l],
            };
            t.transpose(&mut io);
        }
    }

    // Recombine the top Karatsuba levels (refined: with lo = L0 + y L1, hi = H0 + y H1,
    // mid = M0 + y M1 and T = L1 - H0, the quarters are L0, T + M0 - L0, M1 - H1 - T, H1), one
    // chunk at a time, children first.
    for op in &plan.recomb {
        let [l0, l1, h0, h1, m0, m1, r0, r1, r2, r3] = op.map(|o| o as usize);
        let (l0, l1) = (t.load(&main[l0..]), t.load(&main[l1..]));
        let (h0, h1) = (t.load(&main[h0..]), t.load(&main[h1..]));
        let (m0, m1) = (t.load(&main[m0..]), t.load(&main[m1..]));
        let tt = t.sub(l1, h0);
        t.store(&mut main[r0..], l0);
        t.store(&mut main[r1..], t.sub(t.add(tt, m0), l0));
        t.store(&mut main[r2..], t.sub(t.sub(m1, h1), tt));
        t.store(&mut main[r3..], h1);
    }

    // Fold mod x^n - 1: r[k] = c[k] + c[k + n].
    let full = &main[plan.root..plan.root + 2 * nn];
    for k in (0..whole).step_by(l) {
        let v = t.add(t.load(&full[k..]), t.load(&full[k + n..]));
        t.store(&mut out[k..], v);
    }
    for k in whole..n {
        out[k] = full[k].wrapping_add(full[k + n]);
    }
}

/// Transposition input: `L` coefficients of `L` consecutive leaves (`S` apart in `src`); output
/// rows at `dst[j L..]`.
struct LeafRows<'a> {
    src: &'a [u16],
    dst: &'a mut [u16],
}

impl<T: Lanes> RowIo<T> for LeafRows<'_> {
    #[inline(always)]
    fn load(&mut self, t: T, i: usize) -> T::V {
        t.load(&self.src[i * 2 * T::L..])
    }
    #[inline(always)]
    fn store(&mut self, t: T, j: usize, v: T::V) {
        t.store(&mut self.dst[j * T::L..], v);
    }
}

/// Transposition input: chunk `chunk` (rows `chunk·L..`) of the lane-parallel product, from the
/// half products. With lo = L0 + y L1, hi = H0 + y H1, mid = M0 + y M1 (`y = x^L`) and
/// T = L1 - H0, the product is L0 + y (T + M0 - L0) + y^2 (M1 - H1 - T) + y^3 H1. Output: that
/// chunk of leaf product `i` at `dst[i·2S..]` (leaf products are `2S = 4L` apart).
struct ProductRows<'a> {
    lh: &'a [u16],
    mid: &'a [u16],
    chunk: usize,
    dst: &'a mut [u16],
}

impl<T: Lanes> RowIo<T> for ProductRows<'_> {
    #[inline(always)]
    fn load(&mut self, t: T, r: usize) -> T::V {
        let l = T::L;
        let (lh, mid) = (self.lh, self.mid);
        match self.chunk {
            0 => t.load(&lh[r * l..]),
            1 => {
                let tt = t.sub(t.load(&lh[(l + r) * l..]), t.load(&lh[(2 * l + r) * l..]));
                t.sub(t.add(tt, t.load(&mid[r * l..])), t.load(&lh[r * l..]))
            }
            2 => {
                let tt = t.sub(t.load(&lh[(l + r) * l..]), t.load(&lh[(2 * l + r) * l..]));
                t.sub(
                    t.sub(t.load(&mid[(l + r) * l..]), t.load(&lh[(3 * l + r) * l..])),
                    tt,
                )
            }
            _ => t.load(&lh[(3 * l + r) * l..]),
        }
    }
    #[inline(always)]
    fn store(&mut self, t: T, i: usize, v: T::V) {
        t.store(&mut self.dst[i * 4 * T::L..], v);
    }
}

thread_local! {
    static WORKSPACE: RefCell<Vec<u16>> = const { RefCell::new(Vec::new()) };
}

/// `out = a · b mod (x^n - 1, 2^16)` with backend `t`; lengths already checked.
pub(crate) fn rq_mul<T: Lanes>(t: T, params: NtruParams, a: &[u16], b: &[u16], out: &mut [u16]) {
    let plan = Plan::get(params, T::L);
    WORKSPACE.with_borrow_mut(|ws| {
        // 64 extra elements so that the area can start on a 64-byte boundary (every plan offset
        // is a multiple of L elements, so every vector access of the kernels is aligned).
        if ws.len() < plan.ws_len + 64 {
            ws.resize(plan.ws_len + 64, 0);
        }
        let skip = ws.as_ptr().align_offset(64).min(63);
        t.rq_mul_entry(plan, a, b, out, &mut ws[skip..skip + plan.ws_len]);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans() {
        // 509 = 8 blocks of 64 -> 27 leaves (one group of 32 lanes); 16 blocks of 32 -> 81.
        assert_eq!(Plan::new(509, 32).leaf_count(), 27);
        assert_eq!(Plan::new(509, 16).leaf_count(), 81);
        for p in NtruParams::ALL {
            for l in [16, 32] {
                let plan = Plan::new(p.n(), l);
                assert!(plan.groups * l >= plan.leaf_count());
                // Small enough to stay in L1 for n = 509.
                eprintln!(
                    "n={} L={l}: leaves {}, workspace {} KB",
                    p.n(),
                    plan.leaf_count(),
                    plan.workspace_len() / 512
                );
            }
        }
    }
}
