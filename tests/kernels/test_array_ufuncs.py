"""NumPy ufuncs called on arrays inside kernels (numba-cuda's
`np.sin(x, out)`): the calling thread computes every element of the output,
with NumPy's broadcasting; the element values are the scalar form's."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors

from gpu_util import poisoned


@cuda.jit
def sin_into(r, x):
    np.sin(x, r)


def test_sin_with_positional_out(rng):
    x = rng.uniform(-5, 5, size=37).astype(np.float32)
    r = poisoned(x.size, np.float32)
    sin_into[1, 1](r, x)
    np.testing.assert_allclose(r, np.sin(x), rtol=2e-7, atol=2e-7)


@cuda.jit
def mixed(a, b, lo, sq, sign, inv, flags):
    i = cuda.grid(1)
    if i == 0:
        np.minimum(a, b, out=lo)          # (3, 4) with (4,): broadcast rows
        np.power(a, 2.0, sq)              # a scalar input
        np.copysign(1.0, a[0], sign[0])   # a 1-d output row of a 2-d array
        np.invert(inv, inv)               # in place
        np.isnan(a, flags)


def test_broadcasting_scalars_views_and_in_place(rng):
    a = rng.standard_normal((3, 4))
    a[1, 2] = np.nan
    b = rng.standard_normal(4)
    ints = rng.integers(-1000, 1000, size=9).astype(np.int32)
    lo, sq, sign = (poisoned((3, 4), np.float64) for _ in range(3))
    inv = ints.copy()
    flags = np.zeros((3, 4), np.bool_)
    mixed[1, 32](a, b, lo, sq, sign, inv, flags)
    np.testing.assert_array_equal(lo, np.minimum(a, b))
    np.testing.assert_allclose(sq, np.power(a, 2.0), rtol=4e-16)  # libm pow, 1 ulp
    np.testing.assert_array_equal(sign[0], np.copysign(1.0, a[0]))
    assert np.isnan(sign[1:]).all()  # rows 1 and 2 not written
    np.testing.assert_array_equal(inv, np.invert(ints))
    np.testing.assert_array_equal(flags, np.isnan(a))


def test_scalar_invert_and_bitwise_not():
    @cuda.jit
    def k(x, out):
        out[0] = np.invert(x[0])
        out[1] = np.bitwise_not(x[1])
        out[2] = np.invert(x[2] > 0)

    out = poisoned(3, np.int64)
    k[1, 1](np.array([5, -7, 1], np.int64), out)
    np.testing.assert_array_equal(out, [~5, ~-7, 0])


def test_needs_an_output_array_of_a_kind_it_can_hold():
    @cuda.jit
    def no_out(x):
        np.sin(x)

    with pytest.raises(errors.TypingError, match="needs an output array"):
        no_out[1, 1](np.ones(3))

    @cuda.jit
    def to_int(x, r):
        np.sin(x, r)

    with pytest.raises(errors.TypingError, match="same_kind"):
        to_int[1, 1](np.ones(3), np.zeros(3, np.int64))


def test_shapes_that_do_not_broadcast_raise(backend):
    if backend == "cuda":
        pytest.skip("a device-side ValueError traps the context on the GPU")

    @cuda.jit
    def k(x, r):
        np.cos(x, r)

    with pytest.raises(errors.KernelValueError, match="does not broadcast"):
        k[1, 1](np.ones(5), np.zeros(4))


@cuda.jit
def complex_ufuncs(z, out, scal):
    np.sin(z, out[0])
    np.exp(z, out[1])
    np.log(z, out[2])
    np.sqrt(z, out[3])
    np.tanh(z, out[4])
    scal[0] = np.cos(z[0])
    scal[1] = np.log10(z[1])


def test_complex_inputs_compute_as_cmath(rng):
    z = (rng.standard_normal(16) + 1j * rng.standard_normal(16)).astype(np.complex128)
    out = poisoned((5, 16), np.complex128)
    scal = poisoned(2, np.complex128)
    complex_ufuncs[1, 1](z, out, scal)
    for row, f in zip(out, (np.sin, np.exp, np.log, np.sqrt, np.tanh)):
        np.testing.assert_allclose(row, f(z), rtol=1e-14)
    np.testing.assert_allclose(scal, [np.cos(z[0]), np.log10(z[1])], rtol=1e-14)


@cuda.jit
def logic(a, b, ia, ib, cmp, lg, bw, scal):
    np.less(a, b, cmp[0])
    np.less_equal(a, b, cmp[1])
    np.equal(a, b, cmp[2])
    np.not_equal(a, b, cmp[3])
    np.greater(a, b, cmp[4])
    np.greater_equal(a, b, out=cmp[5])
    np.logical_and(a, b, lg[0])
    np.logical_or(a, b, lg[1])
    np.logical_xor(a, b, lg[2])
    np.logical_not(a, lg[3])
    np.bitwise_and(ia, ib, bw[0])
    np.bitwise_or(ia, ib, bw[1])
    np.bitwise_xor(ia, ib, bw[2])
    scal[0] = np.greater(ia[0], ib[0])
    scal[1] = np.logical_and(True, a[1])


def test_comparison_logical_and_bitwise_ufuncs(rng):
    a = rng.integers(0, 3, size=20).astype(np.float64)
    b = rng.integers(0, 3, size=20).astype(np.float64)
    ia = rng.integers(-50, 50, size=20)
    ib = rng.integers(-50, 50, size=20)
    cmp, lg = np.zeros((6, 20), np.bool_), np.zeros((4, 20), np.bool_)
    bw = poisoned((3, 20), np.int64)
    scal = np.zeros(2, np.bool_)
    logic[1, 1](a, b, ia, ib, cmp, lg, bw, scal)
    for row, f in zip(cmp, (np.less, np.less_equal, np.equal, np.not_equal,
                            np.greater, np.greater_equal)):
        np.testing.assert_array_equal(row, f(a, b))
    for row, f in zip(lg[:3], (np.logical_and, np.logical_or, np.logical_xor)):
        np.testing.assert_array_equal(row, f(a, b))
    np.testing.assert_array_equal(lg[3], np.logical_not(a))
    for row, f in zip(bw, (np.bitwise_and, np.bitwise_or, np.bitwise_xor)):
        np.testing.assert_array_equal(row, f(ia, ib))
    np.testing.assert_array_equal(scal, [ia[0] > ib[0], bool(a[1])])


@cuda.jit
def complex_order(a, b, o):
    np.less(a, b, o[0])
    np.less_equal(a, b, o[1])
    np.greater(a, b, o[2])
    np.greater_equal(a, b, o[3])


def test_complex_ordering_is_numpys_lexicographic_order():
    parts = (0.0, 1.0, np.nan)
    vals = [complex(x, y) for x in parts for y in parts]
    a = np.array([u for u in vals for _ in vals])
    b = np.array([v for _ in vals for v in vals])
    o = np.zeros((4, a.size), np.bool_)
    complex_order[1, 1](a, b, o)
    with np.errstate(invalid="ignore"):
        for row, f in zip(o, (np.less, np.less_equal, np.greater, np.greater_equal)):
            np.testing.assert_array_equal(row, f(a, b))


def test_python_literals_stay_weak_in_the_array_form():
    # NEP 50: 0.1 compares at float32 against float32 elements, as the
    # scalar form and NumPy 2 compare it
    @cuda.jit
    def k(x, out, scal):
        np.greater(x, 0.1, out)
        scal[0] = np.greater(x[0], 0.1)

    x = np.array([0.1, 0.2], np.float32)
    out, scal = np.zeros(2, np.bool_), np.ones(1, np.bool_)
    k[1, 1](x, out, scal)
    np.testing.assert_array_equal(out, x > np.float32(0.1))
    assert scal[0] == out[0] == (x[0] > np.float32(0.1))


TABLE = np.arange(4.0)


def test_constant_outputs_and_mixed_sign_bitwise_are_typing_errors():
    @cuda.jit
    def into_const(x):
        np.sin(x, TABLE)

    with pytest.raises(errors.TypingError, match="read-only constant"):
        into_const[1, 1](np.ones(4))

    @cuda.jit
    def mixed(a, b, o):
        o[0] = np.bitwise_and(a[0], b[0])

    with pytest.raises(errors.TypingError, match="no common integer type"):
        mixed[1, 1](np.ones(1, np.int64), np.ones(1, np.uint64), np.zeros(1, np.int64))
