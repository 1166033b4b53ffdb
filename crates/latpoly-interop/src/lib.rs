//! PQClean as latpoly's peer, through the registry crates `pqcrypto-ntru` and
//! `pqcrypto-ntruprime` (which compile PQClean's C and assembly into static libraries for their
//! KEMs):
//!
//! * `tests/pqcrypto.rs`: latpoly's KEMs and PQClean's interoperate, both ways;
//! * `tests/rings.rs`: latpoly's ring products equal PQClean's (an independent implementation,
//!   AVX2 and portable builds) on random and edge inputs;
//! * [`pqclean`]: PQClean's ring products behind safe wrappers, for those tests and for
//!   `latpoly bench`, which times them in the same run as latpoly's (workloads P1 and P2).
//!
//! A test and benchmark crate: nothing here is a dependency of the core crate.

pub mod pqclean;

// The static libraries holding PQClean's functions come with these crates: referenced here so
// that they are linked even where nothing else uses them.
use pqcrypto_ntru as _;
use pqcrypto_ntruprime as _;
