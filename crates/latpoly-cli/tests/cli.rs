//! The `latpoly` binary as a user runs it.

use std::process::{Command, Stdio};

fn latpoly() -> Command {
    Command::new(env!("CARGO_BIN_EXE_latpoly"))
}

/// `latpoly kat ... | head -1`: the reader closes the pipe before the (about 500 KB, far more
/// than a pipe holds) output is written, and the command ends quietly with status 0 instead
/// of panicking.
#[test]
fn closed_stdout_ends_quietly() {
    let mut child = latpoly()
        .args(["kat", "ntruhps2048509", "--count", "100"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away before anything is read
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "status {:?}, stderr: {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// The same command with a reader prints the whole file.
#[test]
fn kat_prints_records() {
    let out = latpoly()
        .args(["kat", "ntruhps2048509", "--count", "2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("count = ").count(), 2, "{text}");
}

/// Bad arguments: an error on stderr and status 1, nothing on stdout.
#[test]
fn unknown_command_fails() {
    let out = latpoly().arg("frobnicate").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown command frobnicate"));
}
