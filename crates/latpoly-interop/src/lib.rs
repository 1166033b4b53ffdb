//! Interoperability tests of latpoly's KEMs against PQClean, through the registry crates
//! `pqcrypto-ntruprime` and `pqcrypto-ntru`. Nothing lives here: the tests are in
//! `tests/pqcrypto.rs` (`cargo test -p latpoly-interop`).
