//! Fork detection for [`super::OsRandom`]'s per-thread generator.
//!
//! A `fork()` copies the generator's state into the child: without this, parent and child
//! would hand out the same bytes (the same keys, the same encapsulation randomness). A
//! `pthread_atfork` child handler, registered once on first use, bumps a process-wide
//! generation counter in the child; a generator keyed under another generation takes a fresh
//! key from the operating system before use. (A raw `clone`/`vfork` system call bypasses the handler, as it bypasses every
//! library's fork protection.)

#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU64, Ordering};

static GENERATION: AtomicU64 = AtomicU64::new(0);

#[cfg(unix)]
extern "C" fn in_child() {
    GENERATION.fetch_add(1, Ordering::SeqCst);
}

/// The current fork generation: changes in a child process after `fork()`.
pub(crate) fn generation() -> u64 {
    #[cfg(unix)]
    {
        static REGISTER: std::sync::Once = std::sync::Once::new();
        REGISTER.call_once(|| {
            // SAFETY: `in_child` is a plain `extern "C"` function without arguments that only
            // touches an atomic (async-signal-safe, as a fork handler must be); the other two
            // handlers are null, which pthread_atfork allows.
            let rc = unsafe { libc::pthread_atfork(None, None, Some(in_child)) };
            // registration fails only on memory exhaustion; then never trust the generator
            if rc != 0 {
                GENERATION.store(u64::MAX, Ordering::SeqCst);
            }
        });
    }
    GENERATION.load(Ordering::SeqCst)
}

/// Whether the per-thread generator may be used at all (false if the handler could not be
/// registered: then every byte comes from the operating system).
pub(crate) fn buffering_allowed(generation: u64) -> bool {
    generation != u64::MAX
}

#[cfg(all(test, unix))]
mod tests {
    use crate::kem::{OsRandom, RandomSource};

    /// Parent and child draw after a `fork()` from a keyed generator: the bytes must differ
    /// (without the generation check both would hand out the same keystream).
    #[test]
    fn a_forked_child_draws_other_bytes_than_its_parent() {
        // key this thread's generator, so that the fork copies its state
        let mut warm = [0u8; 8];
        OsRandom.fill(&mut warm);
        let mut fds = [0i32; 2];
        // SAFETY: `fds` is an array of two file descriptors, as pipe() requires.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: the child runs only code without allocation or locks (a thread-local
        // generator, at most one getrandom call, write, _exit), as code after fork() in a multi-threaded
        // process must.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let mut b = [0u8; 32];
            OsRandom.fill(&mut b);
            // SAFETY: `b` is 32 readable bytes; _exit ends the child without running the
            // parent's exit handlers.
            unsafe {
                libc::write(fds[1], b.as_ptr().cast(), b.len());
                libc::_exit(0);
            }
        }
        let mut mine = [0u8; 32];
        OsRandom.fill(&mut mine);
        let mut theirs = [0u8; 32];
        let mut status = 0;
        // SAFETY: `theirs` is 32 writable bytes; `pid` is our child; the descriptors are ours.
        let got = unsafe {
            let got = libc::read(fds[0], theirs.as_mut_ptr().cast(), theirs.len());
            libc::waitpid(pid, &mut status, 0);
            libc::close(fds[0]);
            libc::close(fds[1]);
            got
        };
        assert_eq!(got, 32, "the child wrote no bytes");
        assert_ne!(mine, theirs, "parent and child drew the same bytes");
    }
}
