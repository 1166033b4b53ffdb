//! Running a constant-time harness (an example binary) under Valgrind's memcheck: the ctgrind /
//! TIMECOP method shared by `ct_sampling.rs` and `ct_kem.rs`.
//!
//! If `valgrind` is not installed the checks print a message and pass, unless `CI=true`, where a
//! missing Valgrind is a failure. No timing is measured.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// Memcheck's report of a branch on secret ("uninitialised") data.
pub const SECRET_BRANCH: &str = "Conditional jump or move depends on uninitialised value(s)";
/// Memcheck's report of a secret address or other use of secret data.
pub const SECRET_USE: &str = "Use of uninitialised value";

/// True if Valgrind can run; panics under `CI=true` when it cannot.
pub fn valgrind_available() -> bool {
    match Command::new("valgrind").arg("--version").output() {
        Ok(out) if out.status.success() => true,
        _ => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI=true but valgrind is not installed: the constant-time check cannot run");
            }
            eprintln!("valgrind not found: skipping the constant-time check (install valgrind)");
            false
        }
    }
}

/// Builds `examples/<name>.rs` once per process and returns the binary: in a private target
/// directory, in release mode with Cargo's default release settings (16 codegen units, no cross-crate LTO:
/// what the `--release` build of a crate that depends on latpoly uses, and twice as fast to
/// build on two cores as this workspace's single-unit LTO profile) and line tables for readable
/// reports.
pub fn harness(name: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let mut built = BUILT
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(bin) = built.get(name) {
        return bin.clone();
    }
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ct-valgrind");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let status = Command::new(cargo)
        .args(["build", "--release", "--example", name, "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target_dir)
        .env("CARGO_PROFILE_RELEASE_DEBUG", "line-tables-only")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .status()
        .expect("cannot run cargo to build the constant-time harness");
    assert!(status.success(), "building examples/{name}.rs failed");
    let bin = target_dir.join("release/examples").join(name);
    assert!(bin.exists(), "{} missing after build", bin.display());
    built.insert(name.to_string(), bin.clone());
    bin
}

/// One Valgrind run of a harness.
pub struct Run {
    /// Valgrind's exit status was success.
    pub success: bool,
    /// The harness's output.
    pub stdout: String,
    /// Valgrind's report.
    pub stderr: String,
}

impl Run {
    /// Both outputs, for assertion messages.
    pub fn report(&self, what: &str) -> String {
        format!(
            "{what}\nstdout:\n{}\nvalgrind:\n{}",
            self.stdout, self.stderr
        )
    }
}

/// Runs harness `name` in `mode` under memcheck with `LATPOLY_ISA=isa` (Valgrind does not
/// implement AVX-512).
pub fn run(name: &str, mode: &str, isa: &str) -> Run {
    let out = Command::new("valgrind")
        .args([
            "--error-exitcode=1",
            "--track-origins=yes",
            "--read-inline-info=yes",
        ])
        .arg(harness(name))
        .arg(mode)
        .env("LATPOLY_ISA", isa)
        .output()
        .expect("cannot run valgrind");
    Run {
        success: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs the harness and asserts it finished (printed `done`) with no secret-dependent address
/// or other use of secret data; returns the run and its report.
fn run_completed_without_secret_addresses(
    name: &str,
    mode: &str,
    isa: &str,
    done: &str,
) -> (Run, String) {
    let r = run(name, mode, isa);
    let report = r.report(&format!("{name} {mode} LATPOLY_ISA={isa}"));
    assert!(
        r.stdout.contains(done),
        "the harness did not complete\n{report}"
    );
    assert!(
        !r.stderr.contains(SECRET_USE),
        "secret-dependent address\n{report}"
    );
    (r, report)
}

/// Asserts a clean run: the harness finished (printed `done`) and memcheck saw nothing secret.
pub fn assert_clean(name: &str, mode: &str, isa: &str, done: &str) {
    let (r, report) = run_completed_without_secret_addresses(name, mode, isa, done);
    assert!(
        !r.stderr.contains(SECRET_BRANCH),
        "secret-dependent branch\n{report}"
    );
    assert!(
        r.stderr.contains("ERROR SUMMARY: 0 errors"),
        "memcheck errors\n{report}"
    );
    assert!(r.success, "valgrind exited with an error\n{report}");
}

/// The innermost frame (`at 0x...`) of one memcheck report.
fn innermost_frame(report: &str) -> &str {
    report
        .lines()
        .find(|l| l.contains(" at 0x"))
        .unwrap_or_default()
}

/// Asserts a run whose one memcheck report is a documented declassification: a single error
/// context, a secret-dependent branch whose innermost frame is `function` (a validity verdict
/// that the function's `Result` reveals anyway). Any other secret branch or address, even in the
/// same function at another place, is a second context and fails the check.
pub fn assert_only_verdict(name: &str, mode: &str, isa: &str, done: &str, function: &str) {
    let (r, report) = run_completed_without_secret_addresses(name, mode, isa, done);
    assert!(
        r.stderr.contains(" from 1 contexts"),
        "more than the one verdict branch (or none)\n{report}"
    );
    let mut blocks = r.stderr.split(SECRET_BRANCH).skip(1);
    let block = blocks.next().expect("no branch report");
    assert!(blocks.next().is_none(), "several branch reports\n{report}");
    assert!(
        innermost_frame(block).contains(function),
        "the branch is not in {function}\n{report}"
    );
}

/// Asserts a run whose memcheck reports are all secret-dependent branches with innermost frame
/// `function` (a documented declassification point, possibly reached from several callers),
/// at least one of them (so the marking reached the declassified value), and nothing else.
pub fn assert_only_declassified(name: &str, mode: &str, isa: &str, done: &str, function: &str) {
    let (r, report) = run_completed_without_secret_addresses(name, mode, isa, done);
    let blocks: Vec<&str> = r.stderr.split(SECRET_BRANCH).skip(1).collect();
    assert!(
        !blocks.is_empty(),
        "no branch on the declassified value was reported: the marking did not reach it\n{report}"
    );
    for block in &blocks {
        assert!(
            innermost_frame(block).contains(function),
            "a secret branch outside {function}\n{report}"
        );
    }
    // every error context is one of those branch reports
    let contexts = format!(" from {} contexts", blocks.len());
    assert!(
        r.stderr.contains(&contexts),
        "memcheck errors other than the reported branches\n{report}"
    );
}

/// Asserts a negative control is caught: memcheck reports `needle` (in `location`, if given).
pub fn assert_flagged(name: &str, mode: &str, done: &str, needle: &str, location: Option<&str>) {
    let r = run(name, mode, "avx2");
    let report = r.report(&format!("{name} {mode}"));
    assert!(r.stdout.contains(done), "{report}");
    assert!(r.stderr.contains(needle), "control not detected\n{report}");
    if let Some(loc) = location {
        assert!(
            r.stderr.contains(loc),
            "report does not point at the leak\n{report}"
        );
    }
    assert!(!r.success, "valgrind should exit with an error\n{report}");
}
