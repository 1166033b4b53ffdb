//! Python classes for LPR encryption and BFV.

use crate::value_error;
use latpoly::he::bfv::{
    Bfv as CoreBfv, BfvCiphertext, BfvGaloisKeys, BfvKeys, BfvParams, BfvPublicKey, BfvRelinKey,
    BfvSecretKey,
};
use latpoly::he::lpr::{
    Lpr as CoreLpr, LprCiphertext, LprParams, LprPublicKey, LprSecretKey, Noise,
};
use latpoly::parallel::Threads;
use latpoly::sampling::Sampler;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Mutex;

fn sampler(seed: Option<&[u8]>) -> PyResult<Sampler> {
    Ok(match seed {
        None => Sampler::new(),
        Some(s) => Sampler::from_seed(s.try_into().map_err(|_| {
            PyValueError::new_err(format!("seed must be 32 bytes, got {}", s.len()))
        })?),
    })
}

/// Runs `f` on the instance's sampler with the GIL released, taking the lock only after
/// releasing it: a thread that waited for the lock while holding the GIL would keep the holder
/// from getting the GIL back (two Python threads sharing an instance would deadlock).
fn with_rng<T: Send>(
    py: Python<'_>,
    m: &Mutex<Sampler>,
    f: impl FnOnce(&mut Sampler) -> latpoly::Result<T> + Send,
) -> PyResult<T> {
    py.detach(|| m.lock().map(|mut g| f(&mut g)).map_err(|_| ()))
        .map_err(|()| PyValueError::new_err("sampler state poisoned by an earlier panic"))?
        .map_err(value_error)
}

/// LPR public key (opaque).
#[pyclass(frozen, module = "latpoly._latpoly")]
pub(crate) struct LprPk {
    inner: LprPublicKey,
}

/// LPR secret key (opaque).
#[pyclass(frozen, module = "latpoly._latpoly")]
pub(crate) struct LprSk {
    inner: LprSecretKey,
}

/// LPR ciphertext (NTT-form parts available as arrays).
#[pyclass(frozen, module = "latpoly._latpoly")]
pub(crate) struct LprCt {
    inner: LprCiphertext,
}

#[pymethods]
impl LprCt {
    /// (u, v) as uint16 arrays (NTT form).
    fn parts<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<u16>>, Bound<'py, PyArray1<u16>>) {
        let (u, v) = self.inner.parts();
        (PyArray1::from_slice(py, u), PyArray1::from_slice(py, v))
    }
}

/// LPR Ring-LWE encryption (NFLlib paper, Algorithms 3 and 4).
#[pyclass(module = "latpoly._latpoly")]
pub(crate) struct Lpr {
    inner: CoreLpr,
    rng: Mutex<Sampler>,
}

#[pymethods]
impl Lpr {
    #[new]
    #[pyo3(signature = (n, q=None, sigma=None, eta=None, seed=None))]
    fn new(
        n: usize,
        q: Option<u64>,
        sigma: Option<f64>,
        eta: Option<u32>,
        seed: Option<&[u8]>,
    ) -> PyResult<Self> {
        let mut params = match n {
            256 => LprParams::n256(),
            512 => LprParams::n512(),
            1024 => LprParams::n1024(),
            _ => LprParams {
                n,
                q: 12289,
                noise: Noise::Cbd(2),
            },
        };
        if let Some(q) = q {
            params.q = q;
        }
        match (sigma, eta) {
            (Some(_), Some(_)) => return Err(PyValueError::new_err("give sigma or eta, not both")),
            (Some(s), None) => params.noise = Noise::Gaussian(s),
            (None, Some(e)) => params.noise = Noise::Cbd(e),
            _ => {}
        }
        Ok(Self {
            inner: CoreLpr::new(params).map_err(value_error)?,
            rng: Mutex::new(sampler(seed)?),
        })
    }

    #[getter]
    fn n(&self) -> usize {
        self.inner.params().n
    }

    #[getter]
    fn q(&self) -> u64 {
        self.inner.params().q
    }

    fn keygen(&self, py: Python<'_>) -> PyResult<(LprPk, LprSk)> {
        let (pk, sk) = with_rng(py, &self.rng, |rng| self.inner.keygen(rng))?;
        Ok((LprPk { inner: pk }, LprSk { inner: sk }))
    }

    /// Encrypts n message bits given as a uint8 array of 0/1 values.
    fn encrypt(
        &self,
        py: Python<'_>,
        pk: PyRef<'_, LprPk>,
        bits: PyReadonlyArray1<'_, u8>,
    ) -> PyResult<LprCt> {
        let bits = bits
            .as_slice()
            .map_err(|_| PyValueError::new_err("bits must be a contiguous 1-D array"))?;
        let n = self.inner.params().n;
        if bits.len() != n {
            return Err(PyValueError::new_err(format!(
                "expected {n} bits, got {}",
                bits.len()
            )));
        }
        if bits.iter().any(|&b| b > 1) {
            return Err(PyValueError::new_err("message bits must be 0 or 1"));
        }
        let mut msg = vec![0u8; n / 8];
        for (i, &b) in bits.iter().enumerate() {
            msg[i / 8] |= b << (i % 8);
        }
        let pk = &pk.inner;
        let ct = with_rng(py, &self.rng, |rng| self.inner.encrypt(pk, &msg, rng))?;
        Ok(LprCt { inner: ct })
    }

    /// Decrypts to a uint8 array of n bits.
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        sk: PyRef<'_, LprSk>,
        ct: PyRef<'_, LprCt>,
    ) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let (sk, ct) = (&sk.inner, &ct.inner);
        let m = py
            .detach(|| self.inner.decrypt(sk, ct))
            .map_err(value_error)?;
        let bits: Vec<u8> = (0..self.inner.params().n)
            .map(|i| (m[i / 8] >> (i % 8)) & 1)
            .collect();
        Ok(PyArray1::from_vec(py, bits))
    }

    /// Decrypts many ciphertexts (on `threads` workers if given); returns an (m, n) bit array
    /// flattened row by row.
    #[pyo3(signature = (sk, cts, threads=None))]
    fn decrypt_batch<'py>(
        &self,
        py: Python<'py>,
        sk: PyRef<'_, LprSk>,
        cts: Vec<PyRef<'_, LprCt>>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let v: Vec<LprCiphertext> = cts.iter().map(|c| c.inner.clone()).collect();
        let pool = threads.map(Threads::new).transpose().map_err(value_error)?;
        let sk = &sk.inner;
        let packed = py
            .detach(|| self.inner.decrypt_batch(sk, &v, pool.as_ref()))
            .map_err(value_error)?;
        let bits: Vec<u8> = (0..packed.len() * 8)
            .map(|i| (packed[i / 8] >> (i % 8)) & 1)
            .collect();
        Ok(PyArray1::from_vec(py, bits))
    }
}

/// BFV key set (opaque): any of the secret, public, relinearization and Galois keys (the
/// first three from `keygen`, Galois keys from `Bfv.with_galois_keys` / `with_rotation_keys`;
/// `without_secret` and `Bfv.keys_from_bytes` give partial sets).
#[pyclass(frozen, module = "latpoly._latpoly")]
pub(crate) struct BfvKeySet {
    secret: Option<BfvSecretKey>,
    public: Option<BfvPublicKey>,
    relin: Option<BfvRelinKey>,
    galois: Option<BfvGaloisKeys>,
}

fn missing(what: &str) -> PyErr {
    PyValueError::new_err(format!("this key set has no {what} key"))
}

impl From<BfvKeys> for BfvKeySet {
    /// The set of secret, public and relinearization keys that key generation makes.
    fn from(k: BfvKeys) -> Self {
        BfvKeySet {
            secret: Some(k.secret),
            public: Some(k.public),
            relin: Some(k.relin),
            galois: None,
        }
    }
}

impl BfvKeySet {
    fn secret(&self) -> PyResult<&BfvSecretKey> {
        self.secret.as_ref().ok_or_else(|| missing("secret"))
    }

    fn public(&self) -> PyResult<&BfvPublicKey> {
        self.public.as_ref().ok_or_else(|| missing("public"))
    }

    fn relin(&self) -> PyResult<&BfvRelinKey> {
        self.relin
            .as_ref()
            .ok_or_else(|| missing("relinearization"))
    }

    fn galois(&self) -> PyResult<&BfvGaloisKeys> {
        self.galois.as_ref().ok_or_else(|| missing("Galois"))
    }
}

#[pymethods]
impl BfvKeySet {
    /// True if the set holds the secret key.
    #[getter]
    fn has_secret(&self) -> bool {
        self.secret.is_some()
    }

    /// True if the set holds the public key.
    #[getter]
    fn has_public(&self) -> bool {
        self.public.is_some()
    }

    /// True if the set holds the relinearization key.
    #[getter]
    fn has_relin(&self) -> bool {
        self.relin.is_some()
    }

    /// True if the set holds Galois (rotation) keys.
    #[getter]
    fn has_galois(&self) -> bool {
        self.galois.is_some()
    }

    /// The Galois elements the set has keys for (ascending; empty without Galois keys).
    #[getter]
    fn galois_elements(&self) -> Vec<usize> {
        self.galois
            .as_ref()
            .map(BfvGaloisKeys::elements)
            .unwrap_or_default()
    }

    /// The public, relinearization and Galois keys without the secret one (what an evaluating
    /// server needs).
    fn without_secret(&self) -> BfvKeySet {
        BfvKeySet {
            secret: None,
            public: self.public.clone(),
            relin: self.relin.clone(),
            galois: self.galois.clone(),
        }
    }

    /// The secret key as bytes (header, then two bits per coefficient). Python cannot wipe
    /// `bytes` objects: store them encrypted and drop them soon.
    fn secret_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.secret()?.to_bytes()))
    }

    /// The public key as bytes.
    fn public_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let b = self.public()?.to_bytes();
        Ok(PyBytes::new(py, &b))
    }

    /// The relinearization key as bytes.
    fn relin_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let k = self.relin()?;
        let b = py.detach(|| k.to_bytes());
        Ok(PyBytes::new(py, &b))
    }

    /// The Galois keys as bytes.
    fn galois_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let k = self.galois()?;
        let b = py.detach(|| k.to_bytes());
        Ok(PyBytes::new(py, &b))
    }
}

/// BFV ciphertext (opaque).
#[pyclass(frozen, name = "BfvCiphertext", module = "latpoly._latpoly")]
pub(crate) struct BfvCt {
    inner: BfvCiphertext,
}

#[pymethods]
impl BfvCt {
    /// Number of polynomials (2, or 3 before relinearization).
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The ciphertext as bytes (`Bfv.ciphertext_from_bytes` reads them back).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bytes())
    }
}

/// The FV/BFV somewhat-homomorphic scheme on RNS polynomials.
#[pyclass(module = "latpoly._latpoly")]
pub(crate) struct Bfv {
    inner: CoreBfv,
    rng: Mutex<Sampler>,
}

#[pymethods]
impl Bfv {
    #[new]
    #[pyo3(signature = (n, moduli, t, sigma=3.19, seed=None))]
    fn new(n: usize, moduli: Vec<u64>, t: u64, sigma: f64, seed: Option<&[u8]>) -> PyResult<Self> {
        let params = BfvParams {
            n,
            moduli,
            t,
            sigma,
        };
        Ok(Self {
            inner: CoreBfv::new(params).map_err(value_error)?,
            rng: Mutex::new(sampler(seed)?),
        })
    }

    #[getter]
    fn n(&self) -> usize {
        self.inner.params().n
    }

    #[getter]
    fn t(&self) -> u64 {
        self.inner.params().t
    }

    #[getter]
    fn moduli(&self) -> Vec<u64> {
        self.inner.params().moduli.clone()
    }

    fn keygen(&self, py: Python<'_>) -> PyResult<BfvKeySet> {
        let keys = with_rng(py, &self.rng, |rng| self.inner.keygen(rng))?;
        Ok(keys.into())
    }

    /// True when t is a prime = 1 mod 2n (slots and rotations available).
    #[getter]
    fn batching(&self) -> bool {
        self.inner.batching()
    }

    /// The plaintext polynomial whose n slots hold `values` (a 2 x n/2 matrix, row-major).
    fn encode_slots<'py>(
        &self,
        py: Python<'py>,
        values: PyReadonlyArray1<'_, u64>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let v = crate::slice_of(&values, "values")?;
        let m = self.inner.encode_slots(v).map_err(value_error)?;
        Ok(PyArray1::from_vec(py, m))
    }

    /// The n slot values of a plaintext polynomial (the inverse of encode_slots).
    fn decode_slots<'py>(
        &self,
        py: Python<'py>,
        plain: PyReadonlyArray1<'_, u64>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let m = crate::slice_of(&plain, "plain")?;
        let v = self.inner.decode_slots(m).map_err(value_error)?;
        Ok(PyArray1::from_vec(py, v))
    }

    /// The Galois element 3^steps mod 2n (rotation of the slot rows by `steps`).
    fn rotation_element(&self, steps: i64) -> usize {
        self.inner.rotation_element(steps)
    }

    /// The Galois element 2n - 1 (exchange of the slot rows).
    fn row_swap_element(&self) -> usize {
        self.inner.row_swap_element()
    }

    /// A copy of `keys` with Galois keys for `elements` (replacing any it had); needs the
    /// secret key.
    fn with_galois_keys(
        &self,
        py: Python<'_>,
        keys: PyRef<'_, BfvKeySet>,
        elements: Vec<usize>,
    ) -> PyResult<BfvKeySet> {
        let sk = keys.secret()?;
        let gk = with_rng(py, &self.rng, |rng| {
            self.inner.galois_keygen(sk, &elements, rng)
        })?;
        Ok(BfvKeySet {
            secret: keys.secret.clone(),
            public: keys.public.clone(),
            relin: keys.relin.clone(),
            galois: Some(gk),
        })
    }

    /// x -> x^g on an encrypted plaintext (2-polynomial ciphertext; keys with a Galois key
    /// for g).
    fn apply_galois(
        &self,
        py: Python<'_>,
        keys: PyRef<'_, BfvKeySet>,
        ct: PyRef<'_, BfvCt>,
        g: usize,
    ) -> PyResult<BfvCt> {
        // A set without Galois keys is the empty set: the identity g = 1 needs no key, any
        // other element gets the core's "no Galois key" error.
        let empty = BfvGaloisKeys::default();
        let gk = keys.galois.as_ref().unwrap_or(&empty);
        let c = &ct.inner;
        let r = py
            .detach(|| self.inner.apply_galois(c, g, gk))
            .map_err(value_error)?;
        Ok(BfvCt { inner: r })
    }

    /// A key set from the bytes of `BfvKeySet.secret_bytes` / `public_bytes` / `relin_bytes` /
    /// `galois_bytes` (any of them, at least one) for this instance's parameters; ValueError for keys of
    /// other parameters or malformed bytes.
    #[pyo3(signature = (*, secret=None, public=None, relin=None, galois=None))]
    fn keys_from_bytes(
        &self,
        py: Python<'_>,
        secret: Option<&[u8]>,
        public: Option<&[u8]>,
        relin: Option<&[u8]>,
        galois: Option<&[u8]>,
    ) -> PyResult<BfvKeySet> {
        if secret.is_none() && public.is_none() && relin.is_none() && galois.is_none() {
            return Err(PyValueError::new_err(
                "give the bytes of at least one key (secret=, public=, relin=, galois=)",
            ));
        }
        let b = &self.inner;
        py.detach(|| {
            Ok(BfvKeySet {
                secret: secret.map(|x| b.secret_key_from_bytes(x)).transpose()?,
                public: public.map(|x| b.public_key_from_bytes(x)).transpose()?,
                relin: relin.map(|x| b.relin_key_from_bytes(x)).transpose()?,
                galois: galois.map(|x| b.galois_keys_from_bytes(x)).transpose()?,
            })
        })
        .map_err(value_error)
    }

    /// The instance over the first `primes` primes of Q (same n, t and sigma): where
    /// `mod_switch` moves ciphertexts. Its sampler is forked from this instance's (so a
    /// seeded instance gives a reproducible lower one).
    fn lower(&self, py: Python<'_>, primes: usize) -> PyResult<Bfv> {
        let inner = py
            .detach(|| self.inner.lower(primes))
            .map_err(value_error)?;
        let rng = with_rng(py, &self.rng, |rng| Ok(rng.fork()))?;
        Ok(Bfv {
            inner,
            rng: Mutex::new(rng),
        })
    }

    /// `ct` switched down to the modulus of `target` (an instance from `lower`): each
    /// polynomial scaled by Q_k / Q and rounded. It decrypts under `target` with
    /// `secret_key_for(keys, target)`, and is L - k limbs shorter.
    fn mod_switch(
        &self,
        py: Python<'_>,
        ct: PyRef<'_, BfvCt>,
        target: PyRef<'_, Bfv>,
    ) -> PyResult<BfvCt> {
        let (c, to) = (&ct.inner, &target.inner);
        let r = py
            .detach(|| self.inner.mod_switch(c, to))
            .map_err(value_error)?;
        Ok(BfvCt { inner: r })
    }

    /// A key set holding the secret key of `keys` as a key of `target` (an instance from
    /// `lower`): the same secret in fewer limbs.
    fn secret_key_for(
        &self,
        keys: PyRef<'_, BfvKeySet>,
        target: PyRef<'_, Bfv>,
    ) -> PyResult<BfvKeySet> {
        let sk = self
            .inner
            .secret_key_for(keys.secret()?, &target.inner)
            .map_err(value_error)?;
        Ok(BfvKeySet {
            secret: Some(sk),
            public: None,
            relin: None,
            galois: None,
        })
    }

    /// Secret, public and relinearization keys for the secret key of `keys` (a key of this
    /// instance), as `keygen` makes them for a fresh one.
    fn keygen_with_secret(
        &self,
        py: Python<'_>,
        keys: PyRef<'_, BfvKeySet>,
    ) -> PyResult<BfvKeySet> {
        let sk = keys.secret()?.clone();
        let k = with_rng(py, &self.rng, |rng| self.inner.keygen_with_secret(sk, rng))?;
        Ok(k.into())
    }

    /// A ciphertext from the bytes of `BfvCiphertext.to_bytes` for this instance's parameters
    /// (ValueError otherwise).
    fn ciphertext_from_bytes(&self, py: Python<'_>, data: &[u8]) -> PyResult<BfvCt> {
        let c = py
            .detach(|| self.inner.ciphertext_from_bytes(data))
            .map_err(value_error)?;
        Ok(BfvCt { inner: c })
    }

    fn encrypt(
        &self,
        py: Python<'_>,
        keys: PyRef<'_, BfvKeySet>,
        m: PyReadonlyArray1<'_, u64>,
    ) -> PyResult<BfvCt> {
        let m = crate::slice_of(&m, "m")?;
        let public = keys.public()?;
        let ct = with_rng(py, &self.rng, |rng| self.inner.encrypt(public, m, rng))?;
        Ok(BfvCt { inner: ct })
    }

    /// Secret-key encryption: `(-(a s) + e + [Q m / t], a)` with `a` from a fresh seed.
    fn encrypt_symmetric(
        &self,
        py: Python<'_>,
        keys: PyRef<'_, BfvKeySet>,
        m: PyReadonlyArray1<'_, u64>,
    ) -> PyResult<BfvCt> {
        let m = crate::slice_of(&m, "m")?;
        let secret = keys.secret()?;
        let ct = with_rng(py, &self.rng, |rng| {
            self.inner.encrypt_symmetric(secret, m, rng)
        })?;
        Ok(BfvCt { inner: ct })
    }

    /// Secret-key encryption in compact form: the bytes of `c_0` and the 32-byte seed of `a`.
    fn encrypt_symmetric_bytes<'py>(
        &self,
        py: Python<'py>,
        keys: PyRef<'_, BfvKeySet>,
        m: PyReadonlyArray1<'_, u64>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let m = crate::slice_of(&m, "m")?;
        let secret = keys.secret()?;
        let bytes = with_rng(py, &self.rng, |rng| {
            self.inner
                .encrypt_symmetric_seeded(secret, m, rng)
                .map(|c| c.to_bytes())
        })?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The full ciphertext of the bytes of `encrypt_symmetric_bytes` (ValueError otherwise).
    fn ciphertext_from_seeded_bytes(&self, py: Python<'_>, data: &[u8]) -> PyResult<BfvCt> {
        let c = py
            .detach(|| {
                self.inner
                    .seeded_ciphertext_from_bytes(data)
                    .and_then(|s| self.inner.expand_seeded(&s))
            })
            .map_err(value_error)?;
        Ok(BfvCt { inner: c })
    }

    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        keys: PyRef<'_, BfvKeySet>,
        ct: PyRef<'_, BfvCt>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let (secret, ct) = (keys.secret()?, &ct.inner);
        let m = py
            .detach(|| self.inner.decrypt(secret, ct))
            .map_err(value_error)?;
        Ok(PyArray1::from_vec(py, m))
    }

    fn noise_budget(
        &self,
        py: Python<'_>,
        keys: PyRef<'_, BfvKeySet>,
        ct: PyRef<'_, BfvCt>,
    ) -> PyResult<u32> {
        let (secret, ct) = (keys.secret()?, &ct.inner);
        py.detach(|| self.inner.noise_budget(secret, ct))
            .map_err(value_error)
    }

    fn add(&self, a: PyRef<'_, BfvCt>, b: PyRef<'_, BfvCt>) -> PyResult<BfvCt> {
        Ok(BfvCt {
            inner: self.inner.add(&a.inner, &b.inner).map_err(value_error)?,
        })
    }

    /// The ciphertext's polynomials (coefficient form, basis Q), e.g. to serialize them.
    fn parts(&self, ct: PyRef<'_, BfvCt>) -> Vec<crate::poly::RnsPoly> {
        ct.inner
            .parts()
            .iter()
            .map(|p| crate::poly::RnsPoly { inner: p.clone() })
            .collect()
    }

    /// A ciphertext from 2 or 3 polynomials of this instance's basis (ValueError otherwise).
    fn ciphertext_from_parts(
        &self,
        parts: Vec<PyRef<'_, crate::poly::RnsPoly>>,
    ) -> PyResult<BfvCt> {
        let polys = parts.iter().map(|p| p.inner.clone()).collect();
        Ok(BfvCt {
            inner: self
                .inner
                .ciphertext_from_parts(polys)
                .map_err(value_error)?,
        })
    }

    /// ct + m for n plaintext coefficients in [0, t).
    fn add_plain(&self, ct: PyRef<'_, BfvCt>, m: PyReadonlyArray1<'_, u64>) -> PyResult<BfvCt> {
        let m = crate::slice_of(&m, "m")?;
        Ok(BfvCt {
            inner: self.inner.add_plain(&ct.inner, m).map_err(value_error)?,
        })
    }

    /// ct - m for n plaintext coefficients in [0, t).
    fn sub_plain(&self, ct: PyRef<'_, BfvCt>, m: PyReadonlyArray1<'_, u64>) -> PyResult<BfvCt> {
        let m = crate::slice_of(&m, "m")?;
        Ok(BfvCt {
            inner: self.inner.sub_plain(&ct.inner, m).map_err(value_error)?,
        })
    }

    /// ct * k for a constant k in [0, t) (every slot times k with batching); the ciphertext
    /// multiply_plain gives for the plaintext k, without the transforms.
    fn multiply_scalar(&self, ct: PyRef<'_, BfvCt>, k: u64) -> PyResult<BfvCt> {
        Ok(BfvCt {
            inner: self
                .inner
                .multiply_scalar(&ct.inner, k)
                .map_err(value_error)?,
        })
    }

    /// -ct (every polynomial negated; 2 or 3 of them).
    fn negate(&self, ct: PyRef<'_, BfvCt>) -> PyResult<BfvCt> {
        Ok(BfvCt {
            inner: self.inner.negate(&ct.inner).map_err(value_error)?,
        })
    }

    /// ct * m for n plaintext coefficients in [0, t) (slot-wise with batching).
    fn multiply_plain(
        &self,
        py: Python<'_>,
        ct: PyRef<'_, BfvCt>,
        m: PyReadonlyArray1<'_, u64>,
    ) -> PyResult<BfvCt> {
        let m = crate::slice_of(&m, "m")?;
        let c = &ct.inner;
        let r = py
            .detach(|| self.inner.multiply_plain(c, m))
            .map_err(value_error)?;
        Ok(BfvCt { inner: r })
    }

    fn sub(&self, a: PyRef<'_, BfvCt>, b: PyRef<'_, BfvCt>) -> PyResult<BfvCt> {
        Ok(BfvCt {
            inner: self.inner.sub(&a.inner, &b.inner).map_err(value_error)?,
        })
    }

    fn multiply(
        &self,
        py: Python<'_>,
        a: PyRef<'_, BfvCt>,
        b: PyRef<'_, BfvCt>,
    ) -> PyResult<BfvCt> {
        let (a, b) = (&a.inner, &b.inner);
        let c = py
            .detach(|| self.inner.multiply(a, b))
            .map_err(value_error)?;
        Ok(BfvCt { inner: c })
    }

    fn relinearize(
        &self,
        py: Python<'_>,
        keys: PyRef<'_, BfvKeySet>,
        c: PyRef<'_, BfvCt>,
    ) -> PyResult<BfvCt> {
        let (c, relin) = (&c.inner, keys.relin()?);
        let r = py
            .detach(|| self.inner.relinearize(c, relin))
            .map_err(value_error)?;
        Ok(BfvCt { inner: r })
    }

    fn multiply_relin(
        &self,
        py: Python<'_>,
        keys: PyRef<'_, BfvKeySet>,
        a: PyRef<'_, BfvCt>,
        b: PyRef<'_, BfvCt>,
    ) -> PyResult<BfvCt> {
        let (a, b, relin) = (&a.inner, &b.inner, keys.relin()?);
        let c = py
            .detach(|| self.inner.multiply_relin(a, b, relin))
            .map_err(value_error)?;
        Ok(BfvCt { inner: c })
    }
}
