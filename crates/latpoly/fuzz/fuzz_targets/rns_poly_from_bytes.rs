//! Feeds arbitrary bytes to `RnsPoly::from_bytes` and `RnsPoly::from_bytes_in`: neither may
//! panic, and whenever one succeeds, `to_bytes` must give back exactly the input (the format
//! is canonical).

#![no_main]

use latpoly::rns::{RnsContext, RnsPoly};
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};

/// The context of the golden vector in tests/serialize.rs: n = 4, primes 17 and 41.
fn fixed_ctx() -> &'static Arc<RnsContext> {
    static CTX: OnceLock<Arc<RnsContext>> = OnceLock::new();
    CTX.get_or_init(|| RnsContext::new(4, &[17, 41]).expect("valid context"))
}

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = RnsPoly::from_bytes(data) {
        assert_eq!(p.serialized_len(), data.len());
        assert_eq!(
            p.to_bytes(),
            data,
            "from_bytes accepted a non-canonical encoding"
        );
        let again = RnsPoly::from_bytes_in(p.context(), data).expect("decodes in its own context");
        assert!(Arc::ptr_eq(again.context(), p.context()));
        assert_eq!(again.residues(), p.residues());
        assert_eq!(again.representation(), p.representation());
    }
    if let Ok(p) = RnsPoly::from_bytes_in(fixed_ctx(), data) {
        assert!(Arc::ptr_eq(p.context(), fixed_ctx()));
        assert_eq!(
            p.to_bytes(),
            data,
            "from_bytes_in accepted a non-canonical encoding"
        );
    }
});
