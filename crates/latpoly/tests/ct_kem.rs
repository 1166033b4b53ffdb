//! Constant-time check of NTRU+KEM, sntrup761 and ntrulpr761 under Valgrind (ctgrind /
//! TIMECOP method), like `tests/ct_sampling.rs`.
//!
//! Builds `examples/ct_kem.rs` in release mode (with debug info, in the private target
//! directory `ct_sampling` uses under `CARGO_TARGET_TMPDIR`) and runs it under
//! `valgrind --error-exitcode=1 --track-origins=yes` with `LATPOLY_ISA=avx2` and `scalar`. The
//! binary marks the secret key (decapsulation) or the encapsulation randomness as undefined;
//! any conditional jump or memory address that depends on them is a memcheck error. A negative
//! control (a branch on the decapsulated secret) must be reported, so a clean run is not
//! vacuous.
//!
//! No report is suppressed. If `valgrind` is not installed the tests print a message and pass,
//! unless `CI=true`, where a missing Valgrind is a failure. No timing is measured.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const SECRET_BRANCH: &str = "Conditional jump or move depends on uninitialised value(s)";
const SECRET_USE: &str = "Use of uninitialised value";

fn valgrind_available() -> bool {
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

/// Builds the harness once (release, with debug info for readable reports); returns the binary.
fn harness() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ct-valgrind");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let status = Command::new(cargo)
            .args([
                "build",
                "--release",
                "--example",
                "ct_kem",
                "--manifest-path",
            ])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(&target_dir)
            .env("CARGO_PROFILE_RELEASE_DEBUG", "true")
            .status()
            .expect("cannot run cargo to build the ct_kem example");
        assert!(status.success(), "building examples/ct_kem.rs failed");
        let bin = target_dir.join("release/examples/ct_kem");
        assert!(bin.exists(), "{} missing after build", bin.display());
        bin
    })
}

struct Run {
    success: bool,
    stdout: String,
    stderr: String,
}

fn run_under_valgrind(mode: &str, isa: &str) -> Run {
    let out = Command::new("valgrind")
        .args([
            "--error-exitcode=1",
            "--track-origins=yes",
            "--read-inline-info=yes",
        ])
        .arg(harness())
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

fn assert_clean(mode: &str, done: &str) {
    if !valgrind_available() {
        return;
    }
    for isa in ["avx2", "scalar"] {
        let run = run_under_valgrind(mode, isa);
        let report = format!(
            "{mode} LATPOLY_ISA={isa}\nstdout:\n{}\nvalgrind:\n{}",
            run.stdout, run.stderr
        );
        assert!(
            run.stdout.contains(done),
            "the harness did not complete\n{report}"
        );
        assert!(
            !run.stderr.contains(SECRET_BRANCH),
            "secret-dependent branch\n{report}"
        );
        assert!(
            !run.stderr.contains(SECRET_USE),
            "secret-dependent address\n{report}"
        );
        assert!(
            run.stderr.contains("ERROR SUMMARY: 0 errors"),
            "memcheck errors\n{report}"
        );
        assert!(run.success, "valgrind exited with an error\n{report}");
    }
}

#[test]
fn decapsulation_has_no_secret_dependent_branches_or_indices() {
    assert_clean("decaps", "decapsulations under a poisoned secret key done");
}

#[test]
fn encapsulation_has_no_secret_dependent_branches_or_indices() {
    assert_clean("encaps", "encapsulations with poisoned randomness done");
}

#[test]
fn valgrind_flags_a_branch_on_the_shared_secret() {
    if !valgrind_available() {
        return;
    }
    let run = run_under_valgrind("leaky", "avx2");
    let report = format!("stdout:\n{}\nvalgrind:\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("leaky control done"), "{report}");
    assert!(
        run.stderr.contains(SECRET_BRANCH),
        "control not detected\n{report}"
    );
    assert!(
        run.stderr.contains("run_leaky"),
        "report does not point at the leak\n{report}"
    );
    assert!(!run.success, "valgrind should exit with an error\n{report}");
}
