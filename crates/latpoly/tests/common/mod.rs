//! Shared helpers of the integration tests.

pub mod ctgrind;
