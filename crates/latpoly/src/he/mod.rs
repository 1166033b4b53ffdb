//! Encryption schemes built on the library, as in the NFLlib paper's §5: LPR Ring-LWE
//! public-key encryption ([`lpr`]) and the FV/BFV somewhat-homomorphic scheme ([`bfv`]).

pub mod bfv;
pub mod lpr;
