//! The few choices that depend on the CPU's microarchitecture rather than on its instruction
//! set, read once from `cpuid` (which traps to the hypervisor in a virtual machine, so the
//! answer is cached).
//!
//! | core | what differs | where it is used |
//! |---|---|---|
//! | AMD Zen 4 (family 25) | 512-bit instructions run as two 256-bit halves: `vpdpwssd` one a cycle | the VNNI products stay off ([`crate::rings`]); the `R/q` products of NTRU Prime take the direct transform over `Z_4591` in 256-bit vectors; the NTRU products take the 16-lane Karatsuba kernels compiled with AVX-512VL |
//! | AMD Zen 5 (family 26) | simple vector integer operations (`vpaddq`, `vpternlogq`, `vpxor`, and the rotations `vprorq`) have a latency of two cycles, against one for the additions and logic operations on Intel and Zen 4 | one-message SHA-512 steps take the scalar compression; `R/q × small` of NTRU Prime stays on the transforms |
//!
//! [`l1d_bytes`], the size of the level-1 data cache, decides whether the NTT drivers may
//! double their cache blocks (`ntt::simd::odd_outer`).
//!
//! The latencies were measured on this project's hosts with chains of dependent instructions
//! (Zen 5: two cycles for those four, three for `vpmullw`, four for `vpdpwssd`, five for
//! `vpermw`; throughputs two a cycle for the multiplications and four for `vpaddw`).

/// The CPU family of an AMD processor (`0x19` Zen 3 / Zen 4, `0x1a` Zen 5), `None` for other
/// vendors.
#[cfg(target_arch = "x86_64")]
pub(crate) fn amd_family() -> Option<u32> {
    use core::arch::x86_64::__cpuid;
    use std::sync::OnceLock;
    static FAMILY: OnceLock<Option<u32>> = OnceLock::new();
    *FAMILY.get_or_init(|| {
        // `cpuid` exists on every x86-64 CPU; leaves 0 and 1 always exist
        let (v, f) = (__cpuid(0), __cpuid(1));
        // "AuthenticAMD"
        let amd = (v.ebx, v.edx, v.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163);
        // the extended family counts only when the base family is 0xf
        let base = (f.eax >> 8) & 0xf;
        let family = if base == 0xf {
            base + ((f.eax >> 20) & 0xff)
        } else {
            base
        };
        amd.then_some(family)
    })
}

/// AMD family 25 with AVX-512: Zen 4 (Zen 3, the other cores of that family, has no AVX-512,
/// which every caller checks first).
#[cfg(target_arch = "x86_64")]
pub(crate) fn is_zen4() -> bool {
    amd_family() == Some(0x19)
}

/// AMD family 26: Zen 5 (the family may also hold later cores, whose choices here are
/// unmeasured).
#[cfg(target_arch = "x86_64")]
pub(crate) fn is_zen5() -> bool {
    amd_family() == Some(0x1a)
}

/// Bytes of level-1 data cache of this core, from `cpuid`'s deterministic cache parameters
/// (leaf 4 on Intel, `0x8000_001d` on AMD: the same layout); `None` when the CPU does not
/// report them.
#[cfg(target_arch = "x86_64")]
pub(crate) fn l1d_bytes() -> Option<usize> {
    use core::arch::x86_64::{__cpuid, __cpuid_count};
    use std::sync::OnceLock;
    static L1D: OnceLock<Option<usize>> = OnceLock::new();
    *L1D.get_or_init(|| {
        let leaf = if amd_family().is_some() {
            // the leaf exists when the extended range reaches it and the topology
            // extensions are reported (leaf 0x8000_0001, ecx bit 22); else the legacy leaf
            // 0x8000_0005 gives the size in KB in bits 24..32 of ecx
            let ext = __cpuid(0x8000_0000).eax;
            if ext < 0x8000_001d || __cpuid(0x8000_0001).ecx & (1 << 22) == 0 {
                return (ext >= 0x8000_0005)
                    .then(|| (__cpuid(0x8000_0005).ecx >> 24) as usize * 1024)
                    .filter(|&b| b > 0);
            }
            0x8000_001d
        } else {
            if __cpuid(0).eax < 4 {
                return None;
            }
            4
        };
        // subleaves list the caches until one of type 0; type 1 is data, bits 5..8 the level
        (0..16)
            .map(|i| __cpuid_count(leaf, i))
            .take_while(|r| r.eax & 0x1f != 0)
            .find(|r| r.eax & 0x1f == 1 && (r.eax >> 5) & 7 == 1)
            .map(|r| {
                let ways = (r.ebx >> 22) as usize + 1;
                let parts = ((r.ebx >> 12) & 0x3ff) as usize + 1;
                let line = (r.ebx & 0xfff) as usize + 1;
                ways * parts * line * (r.ecx as usize + 1)
            })
    })
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn family_agrees_with_proc_cpuinfo() {
        // where /proc/cpuinfo exists, its vendor and family are cpuid's
        let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") else {
            eprintln!("skipped: no /proc/cpuinfo");
            return;
        };
        let field = |name: &str| {
            text.lines()
                .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        };
        let amd = field("vendor_id").as_deref() == Some("AuthenticAMD");
        let family: Option<u32> = field("cpu family").and_then(|f| f.parse().ok());
        assert_eq!(amd_family(), if amd { family } else { None });
        assert!(!(is_zen4() && is_zen5()));
    }

    #[test]
    fn l1d_agrees_with_sysfs() {
        // where Linux reports cpu0's caches, its level-1 data cache is cpuid's
        let dir = "/sys/devices/system/cpu/cpu0/cache";
        let Ok(entries) = std::fs::read_dir(dir) else {
            eprintln!("skipped: no {dir}");
            return;
        };
        let read = |p: &std::path::Path, f: &str| {
            std::fs::read_to_string(p.join(f)).map(|s| s.trim().to_string())
        };
        let sysfs = entries.filter_map(|e| e.ok()).find_map(|e| {
            let p = e.path();
            let data = read(&p, "level").ok()? == "1" && read(&p, "type").ok()? == "Data";
            let kb = read(&p, "size")
                .ok()?
                .strip_suffix('K')?
                .parse::<usize>()
                .ok()?;
            data.then_some(kb * 1024)
        });
        match (sysfs, l1d_bytes()) {
            (Some(bytes), Some(ours)) => assert_eq!(ours, bytes),
            (None, _) => eprintln!("skipped: no level-1 data cache in {dir}"),
            // a CPU (or hypervisor) that reports its caches by other leaves only: the
            // transforms then keep their plain 16 KB blocks
            (Some(_), None) => eprintln!("skipped: cpuid reports no level-1 data cache"),
        }
    }
}
