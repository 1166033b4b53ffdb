//! Python bindings of latpoly (the `latpoly._latpoly` extension module).
//!
//! These classes take exact, contiguous `uint64` arrays and Python ints; the pure-Python layer in
//! `python/latpoly/__init__.py` coerces user input (any integer array, lists) before calling them.
//! Every latpoly error becomes `ValueError`; kernels run with the GIL released.

use latpoly::rns::{Representation, RnsContext, RnsPoly};
use latpoly::{Error, NttPlan as CoreNttPlan};
use num_bigint::{BigInt, BigUint};
use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

mod he;
mod kem;
mod poly;
mod rings;

fn value_error(e: Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn slice_of<'a>(a: &'a PyReadonlyArray1<'_, u64>, name: &str) -> PyResult<&'a [u64]> {
    a.as_slice()
        .map_err(|_| PyValueError::new_err(format!("{name} must be a contiguous 1-D array")))
}

/// Negacyclic NTT plan over Z_q[x]/(x^n+1) with 64-bit lanes (q < 2^62).
#[pyclass(frozen, module = "latpoly._latpoly")]
struct NttPlan {
    inner: CoreNttPlan,
}

#[pymethods]
impl NttPlan {
    #[new]
    #[pyo3(signature = (n, q, isa=None))]
    fn new(n: usize, q: u64, isa: Option<&str>) -> PyResult<Self> {
        let inner = match isa {
            None => CoreNttPlan::new(n, q),
            Some(name) => {
                let isa = latpoly::Isa::parse(name).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "unknown isa {name:?}: expected scalar, avx2, avx512 or avx512ifma"
                    ))
                })?;
                CoreNttPlan::with_isa(n, q, isa)
            }
        };
        Ok(Self {
            inner: inner.map_err(value_error)?,
        })
    }

    /// Backends usable for (n, q) on this CPU, best first.
    #[staticmethod]
    fn available_isas(n: usize, q: u64) -> Vec<&'static str> {
        CoreNttPlan::available_isas(n, q)
            .into_iter()
            .map(|i| i.name())
            .collect()
    }

    #[getter]
    fn n(&self) -> usize {
        self.inner.n()
    }

    #[getter]
    fn q(&self) -> u64 {
        self.inner.q()
    }

    #[getter]
    fn psi(&self) -> u64 {
        self.inner.psi()
    }

    #[getter]
    fn isa(&self) -> &'static str {
        self.inner.isa().name()
    }

    fn forward<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray1<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let mut v = slice_of(&a, "a")?.to_vec();
        py.detach(|| self.inner.forward(&mut v))
            .map_err(value_error)?;
        Ok(PyArray1::from_vec(py, v))
    }

    fn inverse<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray1<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let mut v = slice_of(&a, "a")?.to_vec();
        py.detach(|| self.inner.inverse(&mut v))
            .map_err(value_error)?;
        Ok(PyArray1::from_vec(py, v))
    }

    fn multiply<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray1<'py, u64>,
        b: PyReadonlyArray1<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let (sa, sb) = (slice_of(&a, "a")?, slice_of(&b, "b")?);
        let c = py
            .detach(|| self.inner.multiply(sa, sb))
            .map_err(value_error)?;
        Ok(PyArray1::from_vec(py, c))
    }

    /// The negacyclic product written into `out` (a writable contiguous `uint64` array of `n`
    /// entries that does not share memory with `a` or `b`; rust-numpy's borrow checking
    /// refuses a shared one). On an error about `out` nothing is written; on an input
    /// coefficient of `q` or more `out` is left zero.
    fn multiply_into<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray1<'py, u64>,
        b: PyReadonlyArray1<'py, u64>,
        mut out: PyReadwriteArray1<'py, u64>,
    ) -> PyResult<()> {
        let (sa, sb) = (slice_of(&a, "a")?, slice_of(&b, "b")?);
        let so = out
            .as_slice_mut()
            .map_err(|_| PyValueError::new_err("out must be a contiguous 1-D array"))?;
        let mut scratch = vec![0u64; self.inner.n()];
        py.detach(|| self.inner.multiply_into(sa, sb, so, &mut scratch))
            .map_err(value_error)
    }

    fn pointwise<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray1<'py, u64>,
        b: PyReadonlyArray1<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let (sa, sb) = (slice_of(&a, "a")?, slice_of(&b, "b")?);
        let mut c = vec![0u64; sa.len()];
        py.detach(|| self.inner.pointwise(sa, sb, &mut c))
            .map_err(value_error)?;
        Ok(PyArray1::from_vec(py, c))
    }

    fn __repr__(&self) -> String {
        format!(
            "NttPlan(n={}, q={}, isa='{}')",
            self.inner.n(),
            self.inner.q(),
            self.inner.isa()
        )
    }
}

/// Z_Q[x]/(x^n+1) with Q a product of NTT-friendly primes below 2^62.
#[pyclass(frozen, module = "latpoly._latpoly")]
struct RnsRing {
    ctx: Arc<RnsContext>,
}

impl RnsRing {
    fn same(&self, other: &RnsRing) -> bool {
        self.ctx.same_as(&other.ctx)
    }
}

impl RnsRing {
    fn poly_from_ints(&self, a: Vec<BigInt>) -> PyResult<RnsPoly> {
        RnsPoly::from_bigints(&self.ctx, &a).map_err(value_error)
    }
}

#[pymethods]
impl RnsRing {
    #[new]
    fn new(n: usize, moduli: Vec<u64>) -> PyResult<Self> {
        Ok(Self {
            ctx: RnsContext::new(n, &moduli).map_err(value_error)?,
        })
    }

    #[staticmethod]
    fn with_prime_bits(n: usize, bits: u32, count: usize) -> PyResult<Self> {
        Ok(Self {
            ctx: RnsContext::with_prime_bits(n, bits, count).map_err(value_error)?,
        })
    }

    #[getter]
    fn n(&self) -> usize {
        self.ctx.n()
    }

    #[getter]
    fn moduli(&self) -> Vec<u64> {
        self.ctx.moduli().to_vec()
    }

    #[getter]
    fn modulus(&self) -> BigUint {
        self.ctx.modulus().clone()
    }

    fn multiply(&self, py: Python<'_>, a: Vec<BigInt>, b: Vec<BigInt>) -> PyResult<Vec<BigUint>> {
        let pa = self.poly_from_ints(a)?;
        let pb = self.poly_from_ints(b)?;
        py.detach(|| pa.multiply(&pb).map(|c| c.to_biguints()))
            .map_err(value_error)
    }

    fn to_residues<'py>(
        &self,
        py: Python<'py>,
        a: Vec<BigInt>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let p = self.poly_from_ints(a)?;
        let arr = PyArray1::from_slice(py, p.residues());
        arr.reshape([self.ctx.len(), self.ctx.n()])
    }

    #[pyo3(name = "from_residues")]
    fn reconstruct(
        &self,
        py: Python<'_>,
        arr: PyReadonlyArray2<'_, u64>,
    ) -> PyResult<Vec<BigUint>> {
        let shape = arr.shape();
        if shape != [self.ctx.len(), self.ctx.n()] {
            return Err(PyValueError::new_err(format!(
                "residues must have shape ({}, {}), got {:?}",
                self.ctx.len(),
                self.ctx.n(),
                shape
            )));
        }
        let data = arr
            .as_slice()
            .map_err(|_| PyValueError::new_err("residues must be a C-contiguous array"))?
            .to_vec();
        let p = RnsPoly::from_residues(&self.ctx, data, Representation::Coefficient)
            .map_err(value_error)?;
        Ok(py.detach(|| p.to_biguints()))
    }

    /// A polynomial from n Python ints (any size, reduced mod Q), coefficient form.
    fn poly(&self, a: Vec<BigInt>) -> PyResult<poly::RnsPoly> {
        Ok(poly::RnsPoly {
            inner: self.poly_from_ints(a)?,
        })
    }

    /// A polynomial from an (L, n) uint64 residue array, in coefficient or NTT form.
    #[pyo3(signature = (residues, ntt=false))]
    fn poly_from_residues(
        &self,
        residues: PyReadonlyArray2<'_, u64>,
        ntt: bool,
    ) -> PyResult<poly::RnsPoly> {
        Ok(poly::RnsPoly {
            inner: poly::residues_to_poly(&self.ctx, &residues, ntt)?,
        })
    }

    /// Decodes RnsPoly.to_bytes() output, checking it belongs to this ring.
    fn poly_from_bytes(&self, py: Python<'_>, data: &[u8]) -> PyResult<poly::RnsPoly> {
        let data = data.to_vec();
        let ctx = Arc::clone(&self.ctx);
        py.detach(|| RnsPoly::from_bytes_in(&ctx, &data))
            .map(|inner| poly::RnsPoly { inner })
            .map_err(value_error)
    }

    /// The ring without its last prime (the ring of rescaled polynomials).
    fn drop_last(&self) -> PyResult<RnsRing> {
        Ok(RnsRing {
            ctx: self.ctx.drop_last().map_err(value_error)?,
        })
    }

    fn __eq__(&self, other: PyRef<'_, RnsRing>) -> bool {
        self.same(&other)
    }

    fn __repr__(&self) -> String {
        format!(
            "RnsRing(n={}, moduli={:?}) # {}-bit Q",
            self.ctx.n(),
            self.ctx.moduli(),
            self.ctx.modulus_bits()
        )
    }
}

/// `count` distinct primes of exactly `bits` bits, congruent to 1 mod 2n, largest first.
#[pyfunction]
fn ntt_primes(py: Python<'_>, bits: u32, n: usize, count: usize) -> PyResult<Vec<u64>> {
    py.detach(|| latpoly::primes::ntt_primes(bits, n, count))
        .map_err(value_error)
}

/// `count` distinct primes of exactly `bits` bits (37..62) with q = 1 mod 2^32, largest first.
#[pyfunction]
fn fast_ntt_primes(py: Python<'_>, bits: u32, n: usize, count: usize) -> PyResult<Vec<u64>> {
    py.detach(|| latpoly::primes::fast_ntt_primes(bits, n, count))
        .map_err(value_error)
}

/// Deterministic primality test for 64-bit integers.
#[pyfunction]
fn is_prime(q: u64) -> bool {
    latpoly::primes::is_prime(q)
}

/// Smallest primitive 2n-th root of unity modulo the prime q.
#[pyfunction]
fn primitive_2n_root(py: Python<'_>, n: usize, q: u64) -> PyResult<u64> {
    py.detach(|| latpoly::primes::min_primitive_2n_root(n, q))
        .map_err(value_error)
}

#[pymodule]
fn _latpoly(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NttPlan>()?;
    m.add_class::<RnsRing>()?;
    m.add_class::<poly::RnsPoly>()?;
    m.add_class::<poly::BaseExtender>()?;
    m.add_class::<poly::Sampler>()?;
    m.add_function(wrap_pyfunction!(poly::transform_batch, m)?)?;
    m.add_function(wrap_pyfunction!(rings::ntruplus_mul, m)?)?;
    m.add_function(wrap_pyfunction!(rings::ntru_rq_mul, m)?)?;
    m.add_function(wrap_pyfunction!(rings::ntru_rq_mul_modq, m)?)?;
    m.add_function(wrap_pyfunction!(rings::ntruprime_mul, m)?)?;
    m.add_function(wrap_pyfunction!(rings::ntruprime_mul_small, m)?)?;
    m.add_function(wrap_pyfunction!(rings::ntruplus_ntt, m)?)?;
    m.add_function(wrap_pyfunction!(rings::ntruplus_invntt, m)?)?;
    m.add_function(wrap_pyfunction!(rings::ntruplus_basemul, m)?)?;
    m.add_function(wrap_pyfunction!(rings::ntruplus_baseinv, m)?)?;
    m.add_class::<kem::Kem>()?;
    m.add_function(wrap_pyfunction!(kem::kem_names, m)?)?;
    m.add_function(wrap_pyfunction!(kem::kem_kat_entry, m)?)?;
    m.add_class::<he::Lpr>()?;
    m.add_class::<he::LprPk>()?;
    m.add_class::<he::LprSk>()?;
    m.add_class::<he::LprCt>()?;
    m.add_class::<he::Bfv>()?;
    m.add_class::<he::BfvKeySet>()?;
    m.add_class::<he::BfvCt>()?;
    m.add_function(wrap_pyfunction!(ntt_primes, m)?)?;
    m.add_function(wrap_pyfunction!(fast_ntt_primes, m)?)?;
    m.add_function(wrap_pyfunction!(is_prime, m)?)?;
    m.add_function(wrap_pyfunction!(primitive_2n_root, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
