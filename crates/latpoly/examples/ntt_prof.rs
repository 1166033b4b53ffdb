use latpoly::NttPlan;
use std::sync::atomic::Ordering;
macro_rules! run16 {
    ($n:expr, $q:expr, $w:ty, $plan:ty, $iters:expr, $inv:expr, $variants:expr) => {{
        let plan = <$plan>::new($n, $q).unwrap();
        let mut a: Vec<$w> = (0..$n as u64)
            .map(|i| ((i.wrapping_mul(0x9e3779b97f4a7c15)) % $q) as $w)
            .collect();
        let mut times = vec![Vec::new(); $variants.len()];
        for _ in 0..31 {
            for (k, &v) in $variants.iter().enumerate() {
                let mut r = a.clone();
                if $inv {
                    plan.inverse(&mut r).unwrap()
                } else {
                    plan.forward(&mut r).unwrap()
                };

                let mut b = a.clone();
                if $inv {
                    plan.inverse(&mut b).unwrap()
                } else {
                    plan.forward(&mut b).unwrap()
                };
                assert!(b == r);
                let t = std::time::Instant::now();
                for _ in 0..$iters {
                    if $inv {
                        plan.inverse(&mut a).unwrap()
                    } else {
                        plan.forward(&mut a).unwrap()
                    }
                }
                times[k].push(t.elapsed().as_secs_f64() * 1e6 / $iters as f64);
            }
        }
        for (k, v) in $variants.iter().enumerate() {
            times[k].sort_by(|a, b| a.partial_cmp(b).unwrap());
            eprintln!(
                "n={} q={} {} {:?} variant {v}: median {:.4} us",
                $n,
                $q,
                if $inv { "inv" } else { "fwd" },
                plan.isa(),
                times[k][15]
            );
        }
    }};
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(8192);
    let bits: u32 = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(60);
    let iters: usize = args.get(3).map(|s| s.parse().unwrap()).unwrap_or(2000);
    let inv = args.get(4).is_some_and(|s| s == "inv");
    let variants: Vec<u32> = args
        .get(5)
        .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or(vec![0]);
    if bits <= 31 {
        let q = latpoly::primes::ntt_primes(bits, n, 1).unwrap()[0];
        let q = if bits == 14 { 12289 } else { q };
        if bits <= 14 {
            run16!(n, q, u16, latpoly::ntt::NttPlan16, iters, inv, variants);
        } else {
            run16!(n, q, u32, latpoly::ntt::NttPlan32, iters, inv, variants);
        }
        return;
    }
    let limbs: usize = std::env::var("LIMBS")
        .ok()
        .map(|s| s.parse().unwrap())
        .unwrap_or(1);
    let qs = latpoly::primes::ntt_primes(bits, n, limbs).unwrap();
    let plans: Vec<NttPlan> = qs.iter().map(|&q| NttPlan::new(n, q).unwrap()).collect();
    let plan = &plans[0];
    let q = qs[0];
    let mut a: Vec<u64> = (0..n as u64)
        .map(|i| (i.wrapping_mul(0x9e3779b97f4a7c15)) % q)
        .collect();
    let mut others: Vec<Vec<u64>> = qs
        .iter()
        .map(|&q| {
            (0..n as u64)
                .map(|i| (i.wrapping_mul(0x9e3779b97f4a7c15)) % q)
                .collect()
        })
        .collect();
    let mut times = vec![Vec::new(); variants.len()];
    for _ in 0..31 {
        for (k, &v) in variants.iter().enumerate() {
            let reference = {
                let mut b = a.clone();
                if inv {
                    plan.inverse(&mut b).unwrap()
                } else {
                    plan.forward(&mut b).unwrap()
                };
                b
            };

            let mut b = a.clone();
            if inv {
                plan.inverse(&mut b).unwrap()
            } else {
                plan.forward(&mut b).unwrap()
            };
            assert!(b == reference, "variant {v} differs");
            let t = std::time::Instant::now();
            for _ in 0..iters {
                if inv {
                    plan.inverse(&mut a).unwrap()
                } else {
                    plan.forward(&mut a).unwrap()
                }
                for (p, o) in plans[1..].iter().zip(&mut others[1..]) {
                    if inv {
                        p.inverse(o).unwrap()
                    } else {
                        p.forward(o).unwrap()
                    }
                }
            }
            times[k].push(t.elapsed().as_secs_f64() * 1e6 / iters as f64);
        }
    }
    for (k, v) in variants.iter().enumerate() {
        times[k].sort_by(|a, b| a.partial_cmp(b).unwrap());
        eprintln!(
            "n={n} bits={bits} {} {:?} variant {v}: median {:.3} us",
            if inv { "inv" } else { "fwd" },
            plan.isa(),
            times[k][15]
        );
    }
}
