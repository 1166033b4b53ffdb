//! Python classes for RNS polynomials, base extension, samplers and batches.

use crate::{value_error, RnsRing};
use latpoly::parallel::{to_coeff_batch, to_ntt_batch, Threads};
use latpoly::rns::{BaseExtender as CoreExtender, Representation, RnsContext, RnsPoly as CorePoly};
use latpoly::sampling::Sampler as CoreSampler;
use num_bigint::{BigInt, BigUint};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::{Arc, Mutex};

/// A polynomial of Z_Q[x]/(x^n+1) in RNS form (coefficient or NTT representation).
#[pyclass(frozen, module = "latpoly._latpoly")]
pub(crate) struct RnsPoly {
    pub(crate) inner: CorePoly,
}

fn wrap(p: CorePoly) -> RnsPoly {
    RnsPoly { inner: p }
}

pub(crate) fn residues_to_poly(
    ctx: &Arc<RnsContext>,
    arr: &PyReadonlyArray2<'_, u64>,
    ntt: bool,
) -> PyResult<CorePoly> {
    let shape = arr.shape();
    if shape != [ctx.len(), ctx.n()] {
        return Err(PyValueError::new_err(format!(
            "residues must have shape ({}, {}), got {:?}",
            ctx.len(),
            ctx.n(),
            shape
        )));
    }
    let data = arr
        .as_slice()
        .map_err(|_| PyValueError::new_err("residues must be a C-contiguous array"))?
        .to_vec();
    let repr = if ntt {
        Representation::Ntt
    } else {
        Representation::Coefficient
    };
    CorePoly::from_residues(ctx, data, repr).map_err(value_error)
}

#[pymethods]
impl RnsPoly {
    /// The ring this polynomial lives in.
    #[getter]
    fn ring(&self) -> RnsRing {
        RnsRing {
            ctx: Arc::clone(self.inner.context()),
        }
    }

    /// True in NTT (evaluation) representation.
    #[getter]
    fn is_ntt(&self) -> bool {
        self.inner.representation() == Representation::Ntt
    }

    /// Residues as a uint64 array of shape (L, n).
    #[getter]
    fn residues<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let ctx = self.inner.context();
        PyArray1::from_slice(py, self.inner.residues()).reshape([ctx.len(), ctx.n()])
    }

    /// Copy in NTT representation.
    fn to_ntt(&self, py: Python<'_>) -> RnsPoly {
        let mut p = self.inner.clone();
        py.detach(|| p.to_ntt());
        wrap(p)
    }

    /// Copy in coefficient representation.
    fn to_coeff(&self, py: Python<'_>) -> RnsPoly {
        let mut p = self.inner.clone();
        py.detach(|| p.to_coeff());
        wrap(p)
    }

    /// Exact coefficients in [0, Q).
    fn to_ints(&self, py: Python<'_>) -> Vec<BigUint> {
        py.detach(|| self.inner.to_biguints())
    }

    /// Exact coefficients in (-Q/2, Q/2].
    fn to_centered_ints(&self, py: Python<'_>) -> Vec<BigInt> {
        py.detach(|| self.inner.to_centered_bigints())
    }

    fn __add__(&self, other: PyRef<'_, RnsPoly>) -> PyResult<RnsPoly> {
        self.inner.add(&other.inner).map(wrap).map_err(value_error)
    }

    fn __sub__(&self, other: PyRef<'_, RnsPoly>) -> PyResult<RnsPoly> {
        self.inner.sub(&other.inner).map(wrap).map_err(value_error)
    }

    fn __neg__(&self) -> RnsPoly {
        wrap(self.inner.neg())
    }

    /// Ring product. Two NTT-form operands give an NTT-form result (pointwise product);
    /// otherwise the full negacyclic product in coefficient form.
    fn __mul__(&self, py: Python<'_>, other: PyRef<'_, RnsPoly>) -> PyResult<RnsPoly> {
        let (a, b) = (&self.inner, &other.inner);
        py.detach(|| {
            if a.representation() == Representation::Ntt
                && b.representation() == Representation::Ntt
            {
                a.mul(b)
            } else {
                a.multiply(b)
            }
        })
        .map(wrap)
        .map_err(value_error)
    }

    /// Product with an integer of any size (reduced mod Q).
    fn scalar_mul(&self, c: BigInt) -> RnsPoly {
        wrap(self.inner.scalar_mul(&c))
    }

    /// The automorphism a(x) -> a(x^k) for odd k, in the current representation.
    fn automorphism(&self, k: i64) -> PyResult<RnsPoly> {
        self.inner.automorphism(k).map(wrap).map_err(value_error)
    }

    /// Product with the monomial x^j (any integer j).
    fn mul_monomial(&self, j: i64) -> RnsPoly {
        wrap(self.inner.mul_monomial(j))
    }

    /// round(a / q_L) in the ring without the last prime q_L.
    fn rescale(&self, py: Python<'_>) -> PyResult<RnsPoly> {
        py.detach(|| self.inner.rescale())
            .map(wrap)
            .map_err(value_error)
    }

    /// a mod (Q / q_L): the last prime dropped without division.
    fn drop_last_modulus(&self) -> PyResult<RnsPoly> {
        self.inner
            .drop_last_modulus()
            .map(wrap)
            .map_err(value_error)
    }

    /// Compact, versioned binary encoding (see latpoly::serialize).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bytes())
    }

    /// Decodes bytes made by to_bytes (validating everything; ValueError on malformed data).
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<RnsPoly> {
        let data = data.to_vec();
        py.detach(|| CorePoly::from_bytes(&data))
            .map(wrap)
            .map_err(value_error)
    }

    fn __repr__(&self) -> String {
        let ctx = self.inner.context();
        format!(
            "RnsPoly(n={}, L={}, {})",
            ctx.n(),
            ctx.len(),
            if self.is_ntt() { "ntt" } else { "coefficient" }
        )
    }
}

/// Exact and fast conversion from one RNS basis to another (same n).
#[pyclass(frozen, module = "latpoly._latpoly")]
pub(crate) struct BaseExtender {
    inner: CoreExtender,
}

#[pymethods]
impl BaseExtender {
    #[new]
    fn new(source: PyRef<'_, RnsRing>, target: PyRef<'_, RnsRing>) -> PyResult<Self> {
        Ok(Self {
            inner: CoreExtender::new(&source.ctx, &target.ctx).map_err(value_error)?,
        })
    }

    /// Exact: x mod p_j for x in [0, Q) (or in (-Q/2, Q/2) when centered).
    #[pyo3(signature = (poly, centered=false))]
    fn extend_exact(
        &self,
        py: Python<'_>,
        poly: PyRef<'_, RnsPoly>,
        centered: bool,
    ) -> PyResult<RnsPoly> {
        let p = &poly.inner;
        py.detach(|| self.inner.extend_exact(p, centered))
            .map(wrap)
            .map_err(value_error)
    }

    /// The backend of the conversion kernel ("scalar", "avx2" or "avx512").
    #[getter]
    fn isa(&self) -> &'static str {
        self.inner.isa().name()
    }

    /// Fast: x + u Q mod p_j for some 0 <= u < L.
    fn extend_fast(&self, py: Python<'_>, poly: PyRef<'_, RnsPoly>) -> PyResult<RnsPoly> {
        let p = &poly.inner;
        py.detach(|| self.inner.extend_fast(p))
            .map(wrap)
            .map_err(value_error)
    }
}

/// Converts many polynomials between representations on `threads` worker threads.
#[pyfunction]
#[pyo3(signature = (polys, ntt, threads=None))]
pub(crate) fn transform_batch(
    py: Python<'_>,
    polys: Vec<PyRef<'_, RnsPoly>>,
    ntt: bool,
    threads: Option<usize>,
) -> PyResult<Vec<RnsPoly>> {
    let mut v: Vec<CorePoly> = polys.iter().map(|p| p.inner.clone()).collect();
    let pool = match threads {
        Some(t) => Some(Threads::new(t).map_err(value_error)?),
        None => None,
    };
    py.detach(|| {
        let run = |v: &mut Vec<CorePoly>| {
            if ntt {
                to_ntt_batch(v)
            } else {
                to_coeff_batch(v)
            }
        };
        match &pool {
            Some(p) => p.install(|| run(&mut v)),
            None => run(&mut v),
        }
    });
    Ok(v.into_iter().map(wrap).collect())
}

/// Seedable, constant-time samplers (ChaCha20).
#[pyclass(module = "latpoly._latpoly")]
pub(crate) struct Sampler {
    inner: Mutex<CoreSampler>,
}

fn vec_i64<'py>(py: Python<'py>, v: Vec<i64>) -> Bound<'py, PyArray1<i64>> {
    PyArray1::from_vec(py, v)
}

impl Sampler {
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut CoreSampler) -> T + Send,
    ) -> PyResult<T> {
        // The lock is taken with the GIL released: a thread waiting for it while holding the
        // GIL would keep the holder from getting the GIL back (a deadlock between two Python
        // threads sharing a sampler).
        py.detach(|| self.inner.lock().map(|mut g| f(&mut g)).map_err(|_| ()))
            .map_err(|()| PyValueError::new_err("sampler state poisoned by an earlier panic"))
    }
}

#[pymethods]
impl Sampler {
    #[new]
    #[pyo3(signature = (seed=None))]
    fn new(seed: Option<&[u8]>) -> PyResult<Self> {
        let inner = match seed {
            None => CoreSampler::new(),
            Some(s) => {
                let seed: [u8; 32] = s.try_into().map_err(|_| {
                    PyValueError::new_err(format!("seed must be 32 bytes, got {}", s.len()))
                })?;
                CoreSampler::from_seed(seed)
            }
        };
        Ok(Self {
            inner: Mutex::new(inner),
        })
    }

    fn uniform<'py>(
        &self,
        py: Python<'py>,
        n: usize,
        q: u64,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        // The results are int64 (as every sampler's): values up to 2^63 - 1.
        if q > 1 << 63 {
            return Err(PyValueError::new_err(format!(
                "q = {q} exceeds 2^63: the int64 results could not hold the values"
            )));
        }
        let v = self.with(py, |s| s.uniform(n, q))?.map_err(value_error)?;
        Ok(vec_i64(py, v.into_iter().map(|x| x as i64).collect()))
    }

    fn bounded<'py>(
        &self,
        py: Python<'py>,
        n: usize,
        bound: u64,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let v = self
            .with(py, |s| s.bounded(n, bound))?
            .map_err(value_error)?;
        Ok(vec_i64(py, v))
    }

    fn cbd<'py>(&self, py: Python<'py>, n: usize, eta: u32) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let v = self.with(py, |s| s.cbd(n, eta))?.map_err(value_error)?;
        Ok(vec_i64(py, v))
    }

    fn gaussian<'py>(
        &self,
        py: Python<'py>,
        n: usize,
        sigma: f64,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let v = self
            .with(py, |s| s.gaussian(n, sigma))?
            .map_err(value_error)?;
        Ok(vec_i64(py, v))
    }

    fn ternary<'py>(&self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let v = self.with(py, |s| s.ternary(n))?.map_err(value_error)?;
        Ok(vec_i64(py, v))
    }

    fn ternary_fixed<'py>(
        &self,
        py: Python<'py>,
        n: usize,
        weight: usize,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let v = self
            .with(py, |s| s.ternary_fixed(n, weight))?
            .map_err(value_error)?;
        Ok(vec_i64(py, v))
    }

    /// Uniform polynomial mod Q of the ring (coefficient form, or NTT form if ntt=True).
    #[pyo3(signature = (ring, ntt=false))]
    fn uniform_poly(
        &self,
        py: Python<'_>,
        ring: PyRef<'_, RnsRing>,
        ntt: bool,
    ) -> PyResult<RnsPoly> {
        let ctx = Arc::clone(&ring.ctx);
        let p = self.with(py, |s| {
            if ntt {
                s.uniform_poly_ntt(&ctx)
            } else {
                s.uniform_poly(&ctx)
            }
        })?;
        Ok(wrap(p))
    }
}
