//! The `latpoly` binary as a user runs it.

use std::process::{Command, Stdio};

fn latpoly() -> Command {
    Command::new(env!("CARGO_BIN_EXE_latpoly"))
}

/// A pipe whose reader is already closed: every write to it fails with a broken pipe.
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Stdio::from(writer)
}

/// Runs `cmd` with standard output closed: it must end with status 0 and no panic.
fn run_with_closed_stdout(cmd: &mut Command) {
    let out = cmd
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "status {:?}, stderr: {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `latpoly kat ... | head -1` with the reader gone before the first write: the command ends
/// quietly with status 0 instead of panicking.
#[test]
fn closed_stdout_ends_quietly() {
    run_with_closed_stdout(latpoly().args(["kat", "ntruhps2048509", "--count", "100"]));
}

/// `latpoly bench --json FILE | head`: the output files are still written when standard
/// output has gone.
#[test]
fn bench_writes_its_json_when_stdout_is_closed() {
    let path = std::env::temp_dir().join(format!("latpoly-cli-test-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&path);
    run_with_closed_stdout(
        latpoly()
            .args(["bench", "--quick", "--only", "W4", "--json"])
            .arg(&path),
    );
    let json = std::fs::read_to_string(&path).expect("the JSON file is written");
    let _ = std::fs::remove_file(&path);
    assert!(json.contains("W4 n=256"), "{json}");
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
