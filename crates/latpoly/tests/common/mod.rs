//! Shared helpers of the integration tests (each test binary uses a part of them).

#![allow(dead_code)]

pub mod ctgrind;
pub mod kat;
