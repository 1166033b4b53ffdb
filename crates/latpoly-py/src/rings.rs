//! Python functions for the PQC rings (exposed as `latpoly.rings`).

use crate::value_error;
use latpoly::rings::ntruplus::{self, NtruPlusParams};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn contiguous<'a, T: numpy::Element>(
    a: &'a PyReadonlyArray1<'_, T>,
    name: &str,
) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| PyValueError::new_err(format!("{name} must be a contiguous 1-D array")))
}

fn plus_params(n: usize) -> PyResult<NtruPlusParams> {
    NtruPlusParams::from_n(n).map_err(value_error)
}

/// NTRU+ product mod (x^n - x^(n/2) + 1, 3457), coefficients in [0, q).
#[pyfunction]
pub(crate) fn ntruplus_mul<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, u16>,
    b: PyReadonlyArray1<'py, u16>,
    n: usize,
) -> PyResult<Bound<'py, PyArray1<u16>>> {
    let p = plus_params(n)?;
    let (a, b) = (contiguous(&a, "a")?, contiguous(&b, "b")?);
    let c = py.detach(|| ntruplus::mul(a, b, p)).map_err(value_error)?;
    Ok(PyArray1::from_vec(py, c))
}

/// NTRU+ forward NTT (spec order, int16 values in (-q, q)).
#[pyfunction]
pub(crate) fn ntruplus_ntt<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, i16>,
    n: usize,
) -> PyResult<Bound<'py, PyArray1<i16>>> {
    let p = plus_params(n)?;
    let mut v = contiguous(&a, "a")?.to_vec();
    py.detach(|| ntruplus::ntt(&mut v, p))
        .map_err(value_error)?;
    Ok(PyArray1::from_vec(py, v))
}

/// NTRU+ inverse NTT (the reference's scaling: invntt(ntt(f)) = 2^16 f mod q).
#[pyfunction]
pub(crate) fn ntruplus_invntt<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, i16>,
    n: usize,
) -> PyResult<Bound<'py, PyArray1<i16>>> {
    let p = plus_params(n)?;
    let mut v = contiguous(&a, "a")?.to_vec();
    py.detach(|| ntruplus::invntt(&mut v, p))
        .map_err(value_error)?;
    Ok(PyArray1::from_vec(py, v))
}

/// NTRU+ base multiplication in NTT form (a b 2^-16 per component, as the reference).
#[pyfunction]
pub(crate) fn ntruplus_basemul<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, i16>,
    b: PyReadonlyArray1<'py, i16>,
    n: usize,
) -> PyResult<Bound<'py, PyArray1<i16>>> {
    let p = plus_params(n)?;
    let (a, b) = (contiguous(&a, "a")?, contiguous(&b, "b")?);
    let c = py
        .detach(|| ntruplus::basemul(a, b, p))
        .map_err(value_error)?;
    Ok(PyArray1::from_vec(py, c))
}

/// NTRU+ base inversion (Montgomery batch inversion): (inverse, all_invertible).
#[pyfunction]
pub(crate) fn ntruplus_baseinv<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, i16>,
    n: usize,
) -> PyResult<(Bound<'py, PyArray1<i16>>, bool)> {
    let p = plus_params(n)?;
    let a = contiguous(&a, "a")?;
    let (c, ok) = py.detach(|| ntruplus::baseinv(a, p)).map_err(value_error)?;
    Ok((PyArray1::from_vec(py, c), ok))
}

/// NTRU Prime product in Z_4591[x]/(x^761 - x - 1): centred int16 in and out.
#[pyfunction]
pub(crate) fn ntruprime_mul<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, i16>,
    b: PyReadonlyArray1<'py, i16>,
) -> PyResult<Bound<'py, PyArray1<i16>>> {
    let (a, b) = (contiguous(&a, "a")?, contiguous(&b, "b")?);
    let c = py
        .detach(|| latpoly::rings::ntruprime::mul_rq(a, b))
        .map_err(value_error)?;
    Ok(PyArray1::from_vec(py, c))
}

/// NTRU Prime product of a general polynomial by a small one (coefficients in {-1, 0, 1}).
#[pyfunction]
pub(crate) fn ntruprime_mul_small<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, i16>,
    s: PyReadonlyArray1<'py, i8>,
) -> PyResult<Bound<'py, PyArray1<i16>>> {
    let (a, s) = (contiguous(&a, "a")?, contiguous(&s, "s")?);
    let c = py
        .detach(|| latpoly::rings::ntruprime::mul_rq_small(a, s))
        .map_err(value_error)?;
    Ok(PyArray1::from_vec(py, c))
}

/// The signature of the NTRU products of `latpoly::rings::ntru`.
type NtruProduct = fn(&[u16], &[u16], &mut [u16]) -> latpoly::Result<()>;

/// An NTRU product `f(a, b, out)` on numpy arrays (lengths checked by `f`).
fn ntru_product<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, u16>,
    b: PyReadonlyArray1<'py, u16>,
    f: NtruProduct,
) -> PyResult<Bound<'py, PyArray1<u16>>> {
    let (a, b) = (contiguous(&a, "a")?, contiguous(&b, "b")?);
    let mut out = vec![0u16; a.len()];
    py.detach(|| f(a, b, &mut out)).map_err(value_error)?;
    Ok(PyArray1::from_vec(py, out))
}

/// NTRU product in R_q = Z_q[x]/(x^n - 1), coefficients in [0, q) (the Toom-4 multiplier the
/// KEMs use; q of the parameter set of degree n).
#[pyfunction]
pub(crate) fn ntru_rq_mul_modq<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, u16>,
    b: PyReadonlyArray1<'py, u16>,
) -> PyResult<Bound<'py, PyArray1<u16>>> {
    ntru_product(py, a, b, latpoly::rings::ntru::poly_rq_mul_modq)
}

/// NTRU `poly_Rq_mul`: cyclic product mod x^n - 1 computed mod 2^16 (n in {509, 677, 701, 821}).
#[pyfunction]
pub(crate) fn ntru_rq_mul<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, u16>,
    b: PyReadonlyArray1<'py, u16>,
) -> PyResult<Bound<'py, PyArray1<u16>>> {
    ntru_product(py, a, b, latpoly::rings::ntru::poly_rq_mul)
}
