//! Element-wise glue code compiled with a backend's vector features.
//!
//! The KEMs run ring operations (each dispatched to its SIMD backend) with element-wise code
//! between them: decoding, centring, comparisons, selections. Compiled for the crate's
//! baseline target, those loops get 128-bit SSE2 at best. [`run`] calls a body from a
//! function compiled with AVX-512F/BW or AVX2 (the backend the caller's ring runs on), so the
//! compiler vectorises them with those registers.
//!
//! The body's `run` must be `#[inline(always)]`: only then is it inlined into the function
//! that has the features (a closure's body is not, whatever its size). The functions it calls
//! are compiled as they are, unless the compiler inlines them too.

use crate::isa::Isa;

/// Code to compile with the vector features of a backend ([`run`]).
pub(crate) trait Vectorised {
    /// What the body returns.
    type Out;
    /// The body; implementations must be `#[inline(always)]`.
    fn run(self) -> Self::Out;
}

/// `body.run()`, inlined into a function compiled with the features of backend `isa`
/// (AVX-512F and BW for `Avx512` and `Avx512Ifma`, AVX2 for `Avx2`); as it is for the scalar
/// backend or on a CPU without those features.
#[inline(always)]
pub(crate) fn run<B: Vectorised>(isa: Isa, body: B) -> B::Out {
    #[cfg(target_arch = "x86_64")]
    {
        x86::run(isa, body)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = isa;
        body.run()
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use super::Vectorised;
    use crate::isa::Isa;

    #[inline(always)]
    pub(super) fn run<B: Vectorised>(isa: Isa, body: B) -> B::Out {
        let avx512 = || is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw");
        match isa {
            // SAFETY: the CPU runs AVX-512F and AVX-512BW (checked just now).
            Isa::Avx512 | Isa::Avx512Ifma if avx512() => unsafe { tf_avx512(body) },
            // SAFETY: the CPU runs AVX2 (checked just now).
            Isa::Avx2 if is_x86_feature_detected!("avx2") => unsafe { tf_avx2(body) },
            _ => body.run(),
        }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn tf_avx512<B: Vectorised>(body: B) -> B::Out {
        body.run()
    }

    #[target_feature(enable = "avx2")]
    fn tf_avx2<B: Vectorised>(body: B) -> B::Out {
        body.run()
    }
}
