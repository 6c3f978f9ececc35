"""literal_unroll: `for x in literal_unroll(tup)` compiles the loop body
once per element of a heterogeneous tuple (numba's literal_unroll)."""
import numpy as np
import pytest

from pycuda_jit import cuda, errors, literal_unroll
from gpu_util import poisoned

SCALES = (2, 0.5, True)


@cuda.jit
def sum_arrays(arrs, out):
    # A tuple argument of arrays of three dtypes: each copy of the body
    # indexes an array of its own dtype.
    i = cuda.grid(1)
    if i < out.shape[0]:
        j = 0
        for a in literal_unroll(arrs):
            out[i, j] = a[i] * 3 + j
            j += 1


def test_tuple_argument_of_arrays(rng):
    n = 300
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    b = rng.standard_normal(n).astype(np.float32)
    c = rng.standard_normal(n)
    out = poisoned((n, 3), np.float64)
    sum_arrays[3, 128]((a, b, c), out)
    # each copy types `a[i] * 3 + j` with its own element type (j is a
    # Python int constant in each copy, a weak scalar): int32, float32
    # (one multiply-add, rounded once: the contraction rule), float64
    fma32 = (b.astype(np.float64) * 3 + 1).astype(np.float32)
    np.testing.assert_array_equal(out[:, 0], a * 3)
    np.testing.assert_array_equal(out[:, 1], fma32)
    # float64: fused or not, within one rounding of c*3+2
    np.testing.assert_allclose(out[:, 2], c * 3 + 2, rtol=1e-15, atol=1e-15)


@cuda.jit
def mix(x, t, out):
    i = cuda.grid(1)
    if i < x.size:
        acc = x[i]
        for v in literal_unroll(t):
            acc = acc * v + 1
        for s in literal_unroll(SCALES):
            acc = acc - s
        for w in literal_unroll((x[i], i, i > 3)):
            if w == 0:
                continue
            acc = acc + w
        out[i] = acc


def test_scalars_global_and_built(rng):
    n = 200
    x = rng.standard_normal(n)
    t = (np.int32(3), np.float32(0.25), 7, 1.5)
    out = poisoned(n, np.float64)
    mix[2, 128](x, t, out)
    want = np.empty(n)
    for i in range(n):
        acc = x[i]
        for v in t:
            acc = acc * v + 1
        for s in SCALES:
            acc = acc - s
        for w in (x[i], i, i > 3):
            if w == 0:
                continue
            acc = acc + w
        want[i] = acc
    np.testing.assert_allclose(out, want, rtol=1e-6)


@cuda.jit(device=True)
def first_negative(t):
    # in a device function, with break and a result per element type
    k = -1
    j = 0
    for v in literal_unroll(t):
        if v < 0:
            k = j
            break
        j += 1
    return k


@cuda.jit
def find(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = first_negative((x[i, 0], np.int32(x[i, 1]), x[i, 2] > 5.0))


def test_device_function_break(rng):
    n = 150
    x = rng.standard_normal((n, 3)) * 4
    out = poisoned(n, np.int64)
    find[2, 128](x, out)
    want = [next((j for j, v in enumerate((r[0], np.int32(r[1]), r[2] > 5.0)) if v < 0), -1)
            for r in x]
    np.testing.assert_array_equal(out, want)


@cuda.jit
def bad_array(x, out):
    for v in literal_unroll(x):
        out[0] = v


@cuda.jit
def bad_twice(x, out):
    t = (x[0], 1)
    t = (x[1], 2.0)
    for v in literal_unroll(t):
        out[0] = v


@cuda.jit
def bad_reassigned_argument(t, out):
    # The loop sees the argument (4 elements), not the later 3-tuple: its
    # length is unknown before typing, so this is refused (it used to
    # unroll 3 times and drop the fourth element).
    s = 0.0
    for v in literal_unroll(t):
        s += v
    out[0] = s
    t = (1, 2, 3)
    out[1] = t[0]


@cuda.jit
def bad_not_loop(x, out):
    y = literal_unroll(x)
    out[0] = y


def test_errors_name_the_line():
    x = np.zeros(3)
    out = np.zeros(1)
    with pytest.raises(errors.TypingError, match="takes a tuple, but the argument 'x' is array") as e:
        bad_array[1, 1](x, out)
    assert "for v in literal_unroll(x)" in str(e.value)
    with pytest.raises(errors.TypingError, match="length of 't'") as e:
        bad_twice[1, 1](x, out)
    assert "for v in literal_unroll(t)" in str(e.value)
    with pytest.raises(errors.TypingError, match="argument that is also assigned") as e:
        bad_reassigned_argument[1, 1]((1.0, 2, 3.5, 100), np.zeros(2))
    assert "for v in literal_unroll(t)" in str(e.value)
    with pytest.raises(errors.TypingError, match="takes a tuple, not array") as e:
        bad_not_loop[1, 1](x, out)
    assert "literal_unroll(x)" in str(e.value)


def test_python_side_is_identity():
    t = (1, 2.5)
    assert literal_unroll(t) is t



# Tuples of NumPy arrays held in globals or closure cells (numba-cuda's
# test_array_reductions iterates over such tuples): each array is frozen
# into constant memory as a global array is, and the tuple is a tuple of
# those arrays.
TABLES = (
    np.array([1.5, -2.0, 4.25]),
    np.arange(5, dtype=np.int32) * 7 - 5,
    np.array([True, False, True, True]),
)


@cuda.jit
def sum_tables(out):
    j = 0
    for t in literal_unroll(TABLES):
        s = 0.0
        for k in range(t.size):
            s += t[k]
        out[j] = s
        out[j + 3] = t.size + t.ndim * 100
        j += 1


def test_global_tuple_of_arrays():
    out = poisoned(6, np.float64)
    sum_tables[1, 1](out)
    want = [float(np.sum(t)) for t in TABLES] + [t.size + 100 for t in TABLES]
    np.testing.assert_array_equal(out, want)


def test_closure_tuple_of_2d_arrays_and_scalars(rng):
    base = rng.standard_normal((4, 5))
    # a strided view (frozen in C order), an int16 matrix, a Python float
    # and a nested tuple holding an array and an int
    cases = (base[::-1, 1:4], rng.integers(-50, 50, (2, 3)).astype(np.int16),
             2.5, (np.float32([0.5, 0.25]), 3))
    mats = cases[:2]

    @cuda.jit
    def kernel(out):
        i = 0
        for m in literal_unroll(mats):
            s = 0.0
            for r in range(m.shape[0]):
                for c in range(m.shape[1]):
                    s += m[r, c] * (r + 1) - c
            out[i] = s
            i += 1
        inner = cases[3]
        out[2] = inner[0][1] * inner[1] + cases[2]
        out[3] = cases[0][2, 1] + len(cases)

    out = poisoned(4, np.float64)
    kernel[1, 1](out)
    want = []
    for m in mats:
        r, c = np.indices(m.shape)
        want.append(float(np.sum(m * (r + 1) - c)))
    want += [0.25 * 3 + 2.5, cases[0][2, 1] + 4]
    np.testing.assert_allclose(out, want, rtol=1e-12)


def test_tuple_with_an_unusable_element_is_refused():
    bad = (np.zeros(3), [1, 2])

    @cuda.jit
    def kernel(out):
        for c in literal_unroll(bad):
            out[0] = c[0]

    with pytest.raises(errors.TypingError, match="'bad' is a tuple holding") as e:
        kernel[1, 1](np.zeros(1))
    assert "literal_unroll(bad)" in e.value.source_line()
