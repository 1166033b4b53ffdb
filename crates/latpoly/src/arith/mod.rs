//! Modular arithmetic for 16-, 32- and 64-bit lanes.
//!
//! * [`Word`]: the lane types and their limits (`q < 2^14`, `2^30`, `2^62`).
//! * [`Modulus`] with [`Modulus16`], [`Modulus32`], [`Modulus64`]: Barrett, Montgomery and Shoup
//!   multiplication, constant time in the data operands.
//! * [`NflReducer16`], [`NflReducer32`], [`NflReducer64`]: NFLlib's Algorithm 2.

pub mod ct;
pub mod modulus;
#[cfg(target_arch = "x86_64")]
pub(crate) mod mulhi_x86;
pub mod nfl;
#[cfg(target_arch = "x86_64")]
pub(crate) mod perm_x86;
pub mod word;

pub use modulus::{Modulus, Modulus16, Modulus32, Modulus64};
pub use nfl::{NflReducer16, NflReducer32, NflReducer64};
pub use word::Word;
