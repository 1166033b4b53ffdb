//! Python classes for the KEMs (exposed as `latpoly.kem`).

use crate::value_error;
use latpoly::kem::{self, DynKem, OsRandom};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use zeroize::Zeroize;

/// A key encapsulation mechanism (randomness from the OS).
#[pyclass(frozen, module = "latpoly._latpoly")]
pub(crate) struct Kem {
    inner: &'static dyn DynKem,
}

fn lookup(name: &str) -> PyResult<&'static dyn DynKem> {
    kem::by_name(name).ok_or_else(|| {
        let names: Vec<&str> = kem::all().iter().map(|k| k.name()).collect();
        PyValueError::new_err(format!("unknown KEM {name:?}: one of {}", names.join(", ")))
    })
}

#[pymethods]
impl Kem {
    #[new]
    fn new(name: &str) -> PyResult<Self> {
        Ok(Self {
            inner: lookup(name)?,
        })
    }

    #[getter]
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    #[getter]
    fn public_key_bytes(&self) -> usize {
        self.inner.sizes().0
    }

    #[getter]
    fn secret_key_bytes(&self) -> usize {
        self.inner.sizes().1
    }

    #[getter]
    fn ciphertext_bytes(&self) -> usize {
        self.inner.sizes().2
    }

    #[getter]
    fn shared_secret_bytes(&self) -> usize {
        self.inner.sizes().3
    }

    /// (public key, secret key) as bytes.
    fn keypair<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let k = self.inner;
        let (pk, mut sk) = py
            .detach(|| k.keypair(&mut OsRandom))
            .map_err(value_error)?;
        let out = (PyBytes::new(py, &pk), PyBytes::new(py, &sk));
        sk.zeroize(); // the Python bytes object is the only copy left
        Ok(out)
    }

    /// (ciphertext, shared secret) as bytes.
    fn encapsulate<'py>(
        &self,
        py: Python<'py>,
        pk: &[u8],
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let k = self.inner;
        let pk = pk.to_vec();
        let (ct, mut ss) = py
            .detach(|| k.encapsulate(&pk, &mut OsRandom))
            .map_err(value_error)?;
        let out = (PyBytes::new(py, &ct), PyBytes::new(py, &ss));
        ss.zeroize();
        Ok(out)
    }

    /// The shared secret (implicit or explicit rejection as the scheme specifies).
    fn decapsulate<'py>(
        &self,
        py: Python<'py>,
        sk: &[u8],
        ct: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let k = self.inner;
        let (mut sk, ct) = (sk.to_vec(), ct.to_vec());
        let r = py.detach(|| k.decapsulate(&sk, &ct));
        sk.zeroize();
        let mut ss = r.map_err(value_error)?;
        let out = PyBytes::new(py, &ss);
        ss.zeroize();
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!("latpoly.kem.new({:?})", self.inner.name())
    }
}

/// Names of every KEM implemented.
#[pyfunction]
pub(crate) fn kem_names() -> Vec<&'static str> {
    kem::all().iter().map(|k| k.name()).collect()
}

/// One NIST KAT record of `name` from its 48-byte DRBG seed: dict with pk, sk, ct, ss bytes.
#[pyfunction]
pub(crate) fn kem_kat_entry<'py>(
    py: Python<'py>,
    name: &str,
    seed48: &[u8],
) -> PyResult<Bound<'py, PyDict>> {
    let k = lookup(name)?;
    let seed: [u8; 48] = seed48.try_into().map_err(|_| {
        PyValueError::new_err(format!("seed must be 48 bytes, got {}", seed48.len()))
    })?;
    let r = py
        .detach(|| kem::kat::entry(k, 0, &seed))
        .map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("pk", PyBytes::new(py, &r.pk))?;
    d.set_item("sk", PyBytes::new(py, &r.sk))?;
    d.set_item("ct", PyBytes::new(py, &r.ct))?;
    d.set_item("ss", PyBytes::new(py, &r.ss))?;
    Ok(d)
}
