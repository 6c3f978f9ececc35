"""vectorize without signatures (numba's dynamic ufunc): each new
combination of input dtypes compiles the function for them, its result
type inferred; values checked against NumPy."""
import math

import numpy as np
import pytest

from pycuda_jit import cuda, vectorize
from gpu_util import poisoned


def test_dynamic_unary_ufunc_per_dtype(backend, rng):
    @vectorize
    def erf(x):
        return math.erf(x)

    x32 = rng.standard_normal(50).astype(np.float32)
    got32 = erf(x32)
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, [math.erf(v) for v in x32], rtol=1e-6)
    x64 = rng.standard_normal(50)
    got64 = erf(x64)
    assert got64.dtype == np.float64
    np.testing.assert_allclose(got64, [math.erf(v) for v in x64], rtol=1e-13)
    n = np.arange(50, dtype=np.int64)
    gotn = erf(n)
    assert gotn.dtype == np.float64  # math.erf of an int is a float64
    np.testing.assert_allclose(gotn, [math.erf(v) for v in n], rtol=1e-13)
    assert sorted(erf.types) == ["d->d", "f->f", "l->d"]


def test_dynamic_binary_ufunc_with_scalars_and_out(backend, rng):
    @vectorize()
    def axpy(a, x):
        return a * x + 1

    x = rng.integers(-100, 100, (4, 5)).astype(np.int32)
    got = axpy(np.int32(3), x)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, 3 * x + 1)
    out = poisoned((4, 5), np.float64)
    y = rng.standard_normal((4, 5))
    axpy(2.5, y, out=out)
    np.testing.assert_allclose(out, 2.5 * y + 1, rtol=1e-15)


def test_dynamic_ufunc_on_device_arrays_and_reduce(backend, rng):
    @cuda.vectorize
    def add(a, b):
        return a + b

    a = rng.standard_normal(1000).astype(np.float32)
    b = rng.standard_normal(1000).astype(np.float32)
    d = add(cuda.to_device(a), cuda.to_device(b))
    np.testing.assert_array_equal(d.copy_to_host(), a + b)
    ints = rng.integers(0, 1000, 300)
    assert add.reduce(ints) == ints.sum()


def test_dynamic_ufunc_returning_a_tuple_is_a_type_error(backend):
    @vectorize
    def pair(x):
        return x, x

    with pytest.raises(TypeError, match="returns a number"):
        pair(np.zeros(3))
