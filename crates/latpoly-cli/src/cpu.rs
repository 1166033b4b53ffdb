//! One line naming the CPU a run is on (from `/proc/cpuinfo` where it exists), printed by
//! `latpoly info` and at the top of `latpoly bench`: the same VM image can land on hosts of
//! different generations, and the ratios against peers depend on it (on AMD Zen 4, 512-bit
//! vector operations run on 256-bit units at half the rate of 256-bit ones; on Zen 5 at the
//! full rate; on Intel server cores with AVX-512, some instructions cost several micro-ops that
//! are one on AMD, `vpermt2w` and `vpmullq` among them).

/// `model name (vendor family F model M[: microarchitecture note])`, or `unknown CPU`.
pub fn describe() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .map_or_else(|_| "unknown CPU".into(), |s| from_cpuinfo(&s))
}

/// Whether this CPU is of the kind the fixed figures of `shared/BENCHMARKS.md` were measured on
/// (AMD Zen 5 with AVX-512) or of Zen 4, where the AVX2 code those figures time (the official
/// NTRU+ code, the NTRU Prime AVX2 record) runs about as fast: only there does a ratio against
/// such a figure (a peer that no registry serves, so not run here) say anything; elsewhere
/// `latpoly bench` prints the ratio without a met / missed verdict.
pub fn figures_comparable() -> bool {
    std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|s| amd_zen_avx512(&s))
}

/// The value of the first `name : value` line of `/proc/cpuinfo`'s text (the first processor).
fn field(text: &str, name: &str) -> Option<String> {
    text.lines()
        .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

/// [`figures_comparable`] on the text of `/proc/cpuinfo`.
fn amd_zen_avx512(text: &str) -> bool {
    let field = |name: &str| field(text, name);
    field("vendor_id").as_deref() == Some("AuthenticAMD")
        && matches!(field("cpu family").as_deref(), Some("25" | "26"))
        && field("flags").is_some_and(|f| f.split_whitespace().any(|x| x == "avx512f"))
}

/// [`describe`] on the text of `/proc/cpuinfo` (the first processor's fields).
fn from_cpuinfo(text: &str) -> String {
    let field = |name: &str| field(text, name);
    let Some(model_name) = field("model name") else {
        return "unknown CPU".into();
    };
    let vendor = field("vendor_id").unwrap_or_default();
    let family: Option<u32> = field("cpu family").and_then(|v| v.parse().ok());
    let model: Option<u32> = field("model").and_then(|v| v.parse().ok());
    let avx512 = field("flags").is_some_and(|f| f.split_whitespace().any(|x| x == "avx512f"));
    let note = match (vendor.as_str(), family, model) {
        ("AuthenticAMD", Some(25), _) if avx512 => {
            ": Zen 4, 512-bit vector operations on 256-bit units (half the rate of 256-bit ones)"
        }
        ("AuthenticAMD", Some(26), _) => ": Zen 5",
        // Intel's server cores with AVX-512, by family-6 model number.
        ("GenuineIntel", Some(6), Some(85)) => ": Skylake-SP / Cascade Lake",
        ("GenuineIntel", Some(6), Some(106 | 108)) => ": Ice Lake-SP",
        ("GenuineIntel", Some(6), Some(143)) => ": Sapphire Rapids",
        ("GenuineIntel", Some(6), Some(207)) => ": Emerald Rapids",
        ("GenuineIntel", Some(6), Some(173 | 174)) => ": Granite Rapids",
        _ => "",
    };
    match (family, model) {
        (Some(f), Some(m)) => format!("{model_name} ({vendor} family {f} model {m}{note})"),
        _ => model_name,
    }
}

#[cfg(test)]
mod tests {
    use super::{amd_zen_avx512, from_cpuinfo};

    #[test]
    fn figures_comparable_on_zen_only() {
        let zen4 =
            "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nflags\t\t: avx2 avx512f\n";
        assert!(amd_zen_avx512(zen4));
        assert!(amd_zen_avx512(&zen4.replace(": 25", ": 26")));
        assert!(!amd_zen_avx512(&zen4.replace(" avx512f", "")));
        let intel =
            "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 207\nflags\t\t: avx2 avx512f\n";
        assert!(!amd_zen_avx512(intel));
        assert!(!amd_zen_avx512(""));
    }

    #[test]
    fn names_zen4_and_unknown() {
        let zen4 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\nflags\t\t: fpu avx2 avx512f\n";
        assert_eq!(
            from_cpuinfo(zen4),
            "AMD EPYC (AuthenticAMD family 25 model 17: Zen 4, 512-bit vector operations on 256-bit units (half the rate of 256-bit ones))"
        );
        let zen5 = zen4.replace(": 25", ": 26");
        assert!(from_cpuinfo(&zen5).ends_with("model 17: Zen 5)"));
        assert_eq!(from_cpuinfo("processor\t: 0\n"), "unknown CPU");
        let intel = "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 207\nmodel name\t: Intel Xeon\n";
        assert_eq!(
            from_cpuinfo(intel),
            "Intel Xeon (GenuineIntel family 6 model 207: Emerald Rapids)"
        );
        let other = intel.replace(": 207", ": 140");
        assert_eq!(
            from_cpuinfo(&other),
            "Intel Xeon (GenuineIntel family 6 model 140)"
        );
    }
}
