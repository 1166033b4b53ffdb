//! The timing loop shared by the `*_bench` examples (included with `#[path]`).

use std::time::Instant;

/// Times `f`: one warm-up batch, then `batches` batches of `iters` calls; returns the
/// (median, fastest) nanoseconds per call.
pub fn ns_per_call(batches: usize, iters: usize, mut f: impl FnMut()) -> (f64, f64) {
    for _ in 0..iters {
        f();
    }
    let mut v: Vec<f64> = (0..batches.max(1))
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                f();
            }
            t.elapsed().as_nanos() as f64 / iters as f64
        })
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    (v[v.len() / 2], v[0])
}
