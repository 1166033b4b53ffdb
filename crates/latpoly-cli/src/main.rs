//! `latpoly` command line.
//!
//! * `latpoly demo [--n N] [--bits B] [--primes L] [--reps R]`: multiplies random polynomials of
//!   workload W1 size (n = 8192, 4 primes of 60 bits by default) in RNS form, checks the product
//!   against an exact big-integer computation of sampled coefficients, and prints timings.
//! * `latpoly info`: backends and limits.

/// `println!` for the command's output: writes through [`write_out`], so a closed standard
/// output (`latpoly bench | head`) ends the process quietly instead of panicking.
macro_rules! outln {
    () => {
        $crate::write_out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::write_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` through [`write_out`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::write_out(format_args!($($arg)*))
    };
}

mod bench;
mod cpu;

use latpoly::ntt::{MAX_N, MIN_N};
use latpoly::rns::{Representation, RnsContext, RnsPoly};
use num_bigint::{BigInt, BigUint};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const USAGE: &str = "usage:
  latpoly demo [--n N] [--bits B] [--primes L] [--reps R]   W1-size RNS product with timings
  latpoly bench [--quick] [--json FILE] [--plot FILE.svg] [--only W] [--runs N]
                                                             latpoly vs tfhe-ntt, concrete-ntt, fhe-math
  latpoly kat NAME [--count N] [--out FILE]                  NIST KAT .rsp of a KEM (default 100 records, stdout)
  latpoly info                                               backends and limits
";

/// Whether the command still has work for someone when its standard output goes away (set
/// by `bench` with `--json` or `--plot`: the files are still wanted).
static FILES_PENDING: AtomicBool = AtomicBool::new(false);

/// Whether standard output has gone (a broken pipe seen with [`FILES_PENDING`] set).
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);

/// Writes to standard output. When the reader has gone (a broken pipe), the output is not
/// wanted any more: the process exits with status 0 at once, as a filter cut short by `head`
/// does, rather than running the rest of a benchmark for nobody, unless files are still to be
/// written ([`FILES_PENDING`]): then the rest of the output is dropped and the command goes
/// on. Any other write error ends the process with status 1 and a message.
fn write_out(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return;
    }
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            if FILES_PENDING.load(Ordering::Relaxed) {
                STDOUT_GONE.store(true, Ordering::Relaxed);
                return;
            }
            std::process::exit(0);
        }
        eprintln!("error: writing to standard output: {e}");
        std::process::exit(1);
    }
}

fn kat(args: &[String]) -> Result<(), String> {
    let names: Vec<&str> = latpoly::kem::all().iter().map(|k| k.name()).collect();
    let name = args
        .first()
        .ok_or_else(|| format!("kat needs a KEM name: one of {}", names.join(", ")))?;
    let kem = latpoly::kem::by_name(name)
        .ok_or_else(|| format!("unknown KEM {name}: one of {}", names.join(", ")))?;
    let mut count = 100usize;
    let mut out: Option<String> = None;
    let mut it = args[1..].iter();
    while let Some(flag) = it.next() {
        let val = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--count" => count = val.parse().map_err(|e| format!("--count {val}: {e}"))?,
            "--out" => out = Some(val.clone()),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    let records = latpoly::kem::kat::generate(kem, count).map_err(|e| e.to_string())?;
    let text = latpoly::kem::kat::write_rsp(&latpoly::kem::kat::rsp_header(kem.name()), &records);
    match out {
        Some(path) => std::fs::write(&path, text).map_err(|e| format!("{path}: {e}"))?,
        None => out!("{text}"),
    }
    Ok(())
}

fn parse_bench(args: &[String]) -> Result<bench::BenchOpts, String> {
    let mut o = bench::BenchOpts {
        quick: false,
        json: None,
        plot: None,
        only: None,
        runs: 1,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut val = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--quick" => o.quick = true,
            "--json" => o.json = Some(val()?),
            "--plot" => o.plot = Some(val()?),
            "--only" => o.only = Some(val()?),
            "--runs" => {
                let v = val()?;
                o.runs = v
                    .parse()
                    .ok()
                    .filter(|&r: &usize| r >= 1)
                    .ok_or_else(|| format!("--runs {v}: expected a whole number >= 1"))?;
            }
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(o)
}

struct DemoArgs {
    n: usize,
    bits: u32,
    primes: usize,
    reps: usize,
}

fn parse_demo(args: &[String]) -> Result<DemoArgs, String> {
    let mut d = DemoArgs {
        n: 8192,
        bits: 60,
        primes: 4,
        reps: 200,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let val = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let num = |v: &str| v.parse::<usize>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--n" => d.n = num(val)?,
            "--bits" => d.bits = num(val)? as u32,
            "--primes" => d.primes = num(val)?,
            "--reps" => d.reps = num(val)?.max(1),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(d)
}

/// Median wall time of `reps` runs of `f` (after a warm-up run).
fn median_time(reps: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut v: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    v.sort();
    v[v.len() / 2]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Exact coefficient k of a·b mod (x^n + 1) over the integers, reduced mod Q.
fn exact_coeff(a: &[BigUint], b: &[BigUint], k: usize, q: &BigUint) -> BigUint {
    let n = a.len();
    let mut acc = BigInt::from(0);
    for (i, ai) in a.iter().enumerate() {
        let (j, sign) = if i <= k { (k - i, 1) } else { (n + k - i, -1) };
        let p = BigInt::from(ai * &b[j]);
        if sign > 0 {
            acc += p;
        } else {
            acc -= p;
        }
    }
    let qi = BigInt::from(q.clone());
    (((acc % &qi) + &qi) % &qi).to_biguint().unwrap_or_default()
}

fn demo(d: DemoArgs) -> Result<(), String> {
    let ctx = RnsContext::with_prime_bits(d.n, d.bits, d.primes).map_err(|e| e.to_string())?;
    outln!(
        "latpoly demo: n = {}, {} primes of {} bits (Q has {} bits), backend {}",
        d.n,
        d.primes,
        d.bits,
        ctx.modulus_bits(),
        ctx.plan(0).isa()
    );
    outln!("moduli: {:?}", ctx.moduli());
    let mut rng = ChaCha20Rng::seed_from_u64(2016);
    let residues = |rng: &mut ChaCha20Rng| -> Vec<u64> {
        ctx.moduli()
            .iter()
            .flat_map(|&q| (0..d.n).map(move |_| q).collect::<Vec<_>>())
            .map(|q| rng.gen_range(0..q))
            .collect()
    };
    let a = RnsPoly::from_residues(&ctx, residues(&mut rng), Representation::Coefficient)
        .map_err(|e| e.to_string())?;
    let b = RnsPoly::from_residues(&ctx, residues(&mut rng), Representation::Coefficient)
        .map_err(|e| e.to_string())?;

    // Correctness first: sampled coefficients of the product against exact big integers.
    let c = a.multiply(&b).map_err(|e| e.to_string())?;
    let (ab, bb, cb) = (a.to_biguints(), b.to_biguints(), c.to_biguints());
    let q = ctx.modulus();
    let samples = [0, 1, d.n / 2, d.n - 1];
    for &k in &samples {
        if exact_coeff(&ab, &bb, k, q) != cb[k] {
            return Err(format!(
                "product coefficient {k} differs from the exact value"
            ));
        }
    }
    outln!(
        "check: coefficients {:?} of the product equal the exact big-integer values",
        samples
    );

    let reps = d.reps;
    let mut x = a.clone();
    let t_fwd = median_time(reps, || {
        x = a.clone();
        x.to_ntt();
    });
    let t_clone = median_time(reps, || {
        x = a.clone();
    });
    let mut an = a.clone();
    an.to_ntt();
    let mut bn = b.clone();
    bn.to_ntt();
    let mut y = an.clone();
    let t_inv = median_time(reps, || {
        y = an.clone();
        y.to_coeff();
    });
    let mut z = an.clone();
    let t_mul = median_time(reps, || {
        z = an.mul(&bn).expect("same context");
    });
    let t_full = median_time(reps.div_ceil(4), || {
        z = a.multiply(&b).expect("same context");
    });
    let t_crt = median_time(3, || {
        std::hint::black_box(c.to_biguints());
    });
    let sub = |t: Duration| us(t.saturating_sub(t_clone));
    outln!("\n| operation (all {} limbs) | median µs |", d.primes);
    outln!("|---|---:|");
    outln!("| forward NTT | {:.1} |", sub(t_fwd));
    outln!("| inverse NTT (1/n included) | {:.1} |", sub(t_inv));
    outln!("| pointwise product | {:.1} |", us(t_mul));
    outln!(
        "| full negacyclic product (2 forward, pointwise, inverse) | {:.1} |",
        us(t_full)
    );
    outln!(
        "| exact CRT of all {} coefficients to big integers | {:.1} |",
        d.n,
        us(t_crt)
    );
    outln!(
        "\n(median of {reps} runs, one thread, backend {})",
        ctx.plan(0).isa()
    );
    Ok(())
}

fn info() {
    use latpoly::{NttPlan, NttPlan16, NttPlan32};
    outln!("latpoly {}", env!("CARGO_PKG_VERSION"));
    outln!("cpu: {}", cpu::describe());
    match std::env::var("LATPOLY_ISA") {
        Ok(v) => outln!(
            "LATPOLY_ISA={v:?}: {}",
            latpoly::Isa::parse(&v)
                .map_or("unrecognised, ignored".to_string(), |i| format!("cap {i}"))
        ),
        Err(_) => outln!("LATPOLY_ISA not set: no cap"),
    }
    let q50 = latpoly::primes::ntt_primes(50, 4096, 1).unwrap_or_default();
    let q62 = latpoly::primes::ntt_primes(62, 4096, 1).unwrap_or_default();
    let show = |v: Vec<latpoly::Isa>| {
        v.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let (Some(&a), Some(&b)) = (q50.first(), q62.first()) {
        outln!(
            "u64 lanes, q < 2^50 (n=4096): {}",
            show(NttPlan::available_isas(4096, a))
        );
        outln!(
            "u64 lanes, q < 2^62 (n=4096): {}",
            show(NttPlan::available_isas(4096, b))
        );
    }
    outln!(
        "u32 lanes (n=4096): {}",
        show(NttPlan32::available_isas(4096, 40961))
    );
    outln!(
        "u16 lanes (n=4096): {}",
        show(NttPlan16::available_isas(4096, 12289))
    );
    outln!("(backends available on this CPU, best first; plans pick the first allowed by the cap)");
    outln!(
        "sampler keystream (ChaCha20): {}",
        latpoly::sampling::Sampler::stream_isa()
    );
    outln!(
        "NTRU ring products: {}{}",
        latpoly::rings::ntru::rq_mul_isa(),
        if latpoly::rings::ntru::amx_in_use() {
            " (the KEMs' byte products on AMX tiles)"
        } else {
            ""
        }
    );
    outln!("ring degree n: powers of two in {MIN_N}..={MAX_N}");
    outln!(
        "moduli: u16 lanes q < 2^14, u32 lanes q < 2^30, u64 lanes q < 2^62; q prime, q = 1 mod 2n"
    );
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("demo") => parse_demo(&args[1..]).and_then(demo),
        Some("bench") => parse_bench(&args[1..]).and_then(bench::run),
        Some("kat") => kat(&args[1..]),
        Some("info") => {
            info();
            Ok(())
        }
        Some("-h") | Some("--help") | Some("help") => {
            out!("{USAGE}");
            Ok(())
        }
        None => parse_demo(&[]).and_then(demo),
        Some(other) => Err(format!("unknown command {other}\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn bench_runs_flag_takes_a_whole_number_of_at_least_one() {
        assert_eq!(parse_bench(&args(&[])).unwrap().runs, 1);
        assert_eq!(parse_bench(&args(&["--runs", "9"])).unwrap().runs, 9);
        for bad in ["0", "-1", "x", "1.5"] {
            let e = parse_bench(&args(&["--runs", bad])).err().expect(bad);
            assert!(e.contains("--runs"), "{e}");
        }
        assert!(parse_bench(&args(&["--runs"])).is_err(), "missing value");
    }
}
