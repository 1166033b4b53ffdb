//! Valgrind client requests shared by the constant-time harnesses (`ct_sampling`, `ct_kem`),
//! included with `#[path]` (this folder has no `main.rs`, so Cargo does not build it alone).
//!
//! Valgrind client requests by the documented amd64 "magic sequence" (valgrind.h): four `rol`
//! of `rdi` (net rotation 128 bits, so `rdi` is unchanged) then `xchg rbx, rbx`; `rax` points to
//! `[request, arg1, ..., arg5]`, the result comes back in `rdx` (its input value is the default
//! returned when not running under Valgrind, where the sequence is a no-op).

#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
fn client_request(default: u64, request: u64, a1: u64, a2: u64) -> u64 {
    let args: [u64; 6] = [request, a1, a2, 0, 0, 0];
    let mut result = default;
    // SAFETY: the sequence only rotates rdi by a multiple of 64 bits (restoring it) and
    // exchanges rbx with itself, so on real hardware it changes no register except flags
    // (clobbered by default in `asm!`). Under Valgrind it is a client request reading the
    // six words at `args`, which stays alive and is not moved until the block ends; the
    // requests used here only change Valgrind's shadow (definedness) bits, never memory.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") args.as_ptr(),
            options(nostack),
        );
    }
    result
}

#[cfg(not(target_arch = "x86_64"))]
fn client_request(default: u64, _request: u64, _a1: u64, _a2: u64) -> u64 {
    default
}

const RUNNING_ON_VALGRIND: u64 = 0x1001;
/// `VG_USERREQ_TOOL_BASE('M','C') + 1` (memcheck.h).
const MAKE_MEM_UNDEFINED: u64 = (b'M' as u64) << 24 | (b'C' as u64) << 16 | 1;
/// `VG_USERREQ_TOOL_BASE('M','C') + 2`.
const MAKE_MEM_DEFINED: u64 = (b'M' as u64) << 24 | (b'C' as u64) << 16 | 2;

/// Number of Valgrind layers we run under (0 on real hardware).
pub fn running_on_valgrind() -> u64 {
    client_request(0, RUNNING_ON_VALGRIND, 0, 0)
}

/// Marks the bytes of `x` as undefined ("secret") for memcheck.
pub fn poison<T: ?Sized>(x: &T) {
    let len = core::mem::size_of_val(x) as u64;
    client_request(
        0,
        MAKE_MEM_UNDEFINED,
        x as *const T as *const u8 as u64,
        len,
    );
}

/// Marks the bytes of `x` as defined again ("declassified", e.g. before printing).
pub fn unpoison<T: ?Sized>(x: &T) {
    let len = core::mem::size_of_val(x) as u64;
    client_request(0, MAKE_MEM_DEFINED, x as *const T as *const u8 as u64, len);
}
