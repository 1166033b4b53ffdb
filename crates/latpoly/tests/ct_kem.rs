//! Constant-time check of the KEMs (NTRU, NTRU+KEM, sntrup761, ntrulpr761) under Valgrind (ctgrind /
//! TIMECOP method), like `tests/ct_sampling.rs`.
//!
//! Builds `examples/ct_kem.rs` in release mode (Cargo's default release settings, see
//! `common/ctgrind.rs`; line tables for the reports; in the private target
//! directory `ct_sampling` uses under `CARGO_TARGET_TMPDIR`) and runs it under
//! `valgrind --error-exitcode=1 --track-origins=yes` with `LATPOLY_ISA=avx2` and `scalar`. The
//! binary marks the secret key (decapsulation) or the randomness (encapsulation, key generation) as undefined;
//! any conditional jump or memory address that depends on them is a memcheck error. A negative
//! control (a branch on the decapsulated secret) must be reported, so a clean run is not
//! vacuous.
//!
//! No report is suppressed; in key generation with a retry loop (NTRU+KEM, sntrup761) the
//! reports must all be the retry decision in `latpoly::secret::declassify`, and there must be
//! at least one. If `valgrind` is not installed the tests print a message and pass,
//! unless `CI=true`, where a missing Valgrind is a failure. No timing is measured.

mod common;

use common::ctgrind::{
    assert_clean, assert_flagged, assert_only_declassified, valgrind_available, SECRET_BRANCH,
};

fn clean_on_both_isas(mode: &str, done: &str) {
    if valgrind_available() {
        for isa in ["avx2", "scalar"] {
            assert_clean("ct_kem", mode, isa, done);
        }
    }
}

#[test]
fn decapsulation_has_no_secret_dependent_branches_or_indices() {
    clean_on_both_isas("decaps", "decapsulations under a poisoned secret key done");
}

#[test]
fn encapsulation_has_no_secret_dependent_branches_or_indices() {
    clean_on_both_isas("encaps", "encapsulations with poisoned randomness done");
}

#[test]
fn key_generation_without_retry_loop_has_no_secret_dependent_branches_or_indices() {
    clean_on_both_isas("keygen", "key generations with poisoned randomness done");
}

#[test]
fn key_generation_with_retry_loop_branches_on_the_declassified_verdict_only() {
    if valgrind_available() {
        for isa in ["avx2", "scalar"] {
            assert_only_declassified(
                "ct_kem",
                "keygen-retry",
                isa,
                "key generations with a retry loop and poisoned randomness done",
                "declassify",
            );
        }
    }
}

#[test]
fn valgrind_flags_a_branch_on_the_shared_secret() {
    if valgrind_available() {
        assert_flagged(
            "ct_kem",
            "leaky",
            "leaky control done",
            SECRET_BRANCH,
            Some("run_leaky"),
        );
    }
}
