//! Constant-time check of `latpoly::sampling` under Valgrind (ctgrind / TIMECOP method).
//!
//! Builds `examples/ct_sampling.rs` in release mode (Cargo's default release settings, see
//! `common/ctgrind.rs`; line tables for the reports; in a private target
//! directory under `CARGO_TARGET_TMPDIR`) and runs it under
//! `valgrind --error-exitcode=1 --track-origins=yes` with `LATPOLY_ISA=avx2` (Valgrind does not
//! implement AVX-512). The binary marks the sampler seed as undefined; any conditional jump or
//! memory address that depends on it is a memcheck error. Two negative controls (a rejection
//! loop and a table lookup on samples) must be reported, so a clean run is not vacuous.
//!
//! No report is suppressed.
//!
//! If `valgrind` is not installed the tests print a message and pass, unless `CI=true`, where a
//! missing Valgrind is a failure. No timing is measured.

mod common;

use common::ctgrind::{
    assert_clean, assert_flagged, assert_only_declassified, assert_only_verdict,
    valgrind_available, SECRET_BRANCH, SECRET_USE,
};

#[test]
fn samplers_have_no_secret_dependent_branches_or_indices() {
    if valgrind_available() {
        assert_clean(
            "ct_sampling",
            "all",
            "avx2",
            "sampler calls on a poisoned seed done",
        );
    }
}

/// LPR and BFV key generation, encryption and decryption (secret-key products, noise, message).
#[test]
fn lpr_and_bfv_have_no_secret_dependent_branches_or_indices() {
    if valgrind_available() {
        assert_clean(
            "ct_sampling",
            "he",
            "avx2",
            "LPR and BFV on a poisoned seed done",
        );
    }
}

/// The same with the scalar kernels (decryption's scale-and-round, multiplication's scale
/// step), which CPUs without AVX2 and `LATPOLY_ISA=scalar` run.
#[test]
fn lpr_and_bfv_scalar_kernels_have_no_secret_dependent_branches_or_indices() {
    if valgrind_available() {
        assert_clean(
            "ct_sampling",
            "he",
            "scalar",
            "LPR and BFV on a poisoned seed done",
        );
    }
}

/// Exact CRT of secret values through the limb functions (residues to limbs, plain and
/// centred; limbs to residues, by the dot product and by Horner's rule).
#[test]
fn crt_limb_functions_have_no_secret_dependent_branches_or_indices() {
    if valgrind_available() {
        assert_clean(
            "ct_sampling",
            "crt",
            "avx2",
            "CRT limbs on poisoned residues done",
        );
    }
}

/// A BFV secret key read from its bytes: one branch on the validity verdict, nothing else.
#[test]
fn bfv_secret_key_decoding_branches_only_on_its_verdict() {
    if valgrind_available() {
        assert_only_verdict(
            "ct_sampling",
            "bfv-secret-key",
            "avx2",
            "BFV secret key from poisoned bytes done",
            "secret_key_from_bytes",
        );
    }
}

/// BFV on a poisoned plaintext (encryptions, plaintext operands, slots, decryption, modulus
/// switching): the only reports are the range check's verdict, in `declassify`.
#[test]
fn bfv_plaintexts_are_only_declassified_by_the_range_verdict() {
    if valgrind_available() {
        assert_only_declassified(
            "ct_sampling",
            "bfv-plaintext",
            "avx2",
            "BFV on a poisoned plaintext done",
            "declassify",
        );
    }
}

#[test]
fn valgrind_flags_a_secret_dependent_branch() {
    if valgrind_available() {
        assert_flagged(
            "ct_sampling",
            "leaky",
            "leaky control done",
            SECRET_BRANCH,
            Some("run_leaky"),
        );
    }
}

#[test]
fn valgrind_flags_a_secret_dependent_index() {
    if valgrind_available() {
        assert_flagged(
            "ct_sampling",
            "leaky-index",
            "leaky-index control done",
            SECRET_USE,
            None,
        );
    }
}
